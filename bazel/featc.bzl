"""featc in a Bazel build: C generated from a spec, and spec changes checked.

    load("@featc//bazel:featc.bzl", "featc_library", "featc_breaking_test")

    featc_library(name = "penguin", spec = "specs/penguin.feat")
    cc_binary(name = "species", srcs = ["species.c"], deps = [":penguin"])

    featc_breaking_test(name = "penguin_compatible",
                        old = "specs/penguin.released.feat",
                        new = "specs/penguin.feat")

The featc program and the runtime are built from @featc's sources
(BUILD.bazel at its top); docs/build.md, "Bazel", has the whole of it.
"""

def featc_library(name, spec, driver = False, visibility = None, **kwargs):
    """C for a spec: NAME.h and NAME.c as a cc_library over the runtime.

    A genrule runs `featc compile --base NAME` on the spec into the folder
    NAME_featc (as CMake's featc_generate does); the library depends on
    @featc//:runtime, and that folder is on the include path of whatever
    depends on it (#include "NAME.h").  Editing the spec reruns the genrule
    and recompiles NAME.c and its dependents, nothing else.

    Args:
      name: the library, and the generated files' names.
      spec: the .feat file (a label).
      driver: also NAME_main.c, featc's JSON-printing main(), as the
        cc_binary NAME_driver (`featc compile --driver`).
      visibility: of the library (and the driver).
      **kwargs: passed to the cc_library (tags, testonly, ...).
    """
    dir = name + "_featc"
    outs = [dir + "/" + name + ".c", dir + "/" + name + ".h"]
    flags = "--base " + name
    if driver:
        outs.append(dir + "/" + name + "_main.c")
        flags += " --driver"
    native.genrule(
        name = name + "_featc",
        srcs = [spec],
        outs = outs,
        cmd = "$(location %s) compile %s -o $(@D)/%s $(location %s)" % (
            Label("//:featc"),
            flags,
            dir,
            spec,
        ),
        tools = [Label("//:featc")],
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = [outs[0]],
        hdrs = [outs[1]],
        includes = [dir],
        copts = ["-std=c99"],
        deps = [Label("//:runtime")],
        visibility = visibility,
        **kwargs
    )
    if driver:
        native.cc_binary(
            name = name + "_driver",
            srcs = [outs[2]],
            copts = ["-std=c99", "-D_POSIX_C_SOURCE=200809L"],
            deps = [":" + name],
            visibility = visibility,
        )

def featc_breaking_test(name, old, new, rules = None, **kwargs):
    """A test that fails when NEW breaks records written under OLD.

    Runs `featc breaking [--rules=...] OLD NEW` (docs/compiler.md, "Spec
    changes that break data"): exit 1, with each finding at its place in
    NEW, fails the test.  OLD is a file: the released spec kept beside the
    new one, or one fetched from the release (an http_file, say).

    Args:
      name: the test.
      old: the spec data was written with (a label).
      new: the spec that must still read it (a label).
      rules: the rules to apply (names, as `featc breaking --list-rules`
        prints them); all by default.
      **kwargs: passed to the sh_test (size, tags, ...).
    """
    args = ["$(rootpath %s)" % Label("//:featc"), "breaking"]
    if rules:
        args.append("--rules=" + ",".join(rules))
    args += ["$(rootpath %s)" % old, "$(rootpath %s)" % new]
    kwargs.setdefault("size", "small")
    native.sh_test(
        name = name,
        srcs = [Label("//bazel:breaking_test.sh")],
        args = args,
        data = [Label("//:featc"), old] + ([] if new == old else [new]),
        **kwargs
    )
