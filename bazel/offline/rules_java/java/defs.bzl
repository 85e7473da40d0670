"""A stand-in for rules_java, for Debian's Bazel offline (docs/build.md, "Bazel"): Bazel
4.2.3's built-in rules load these names from it; each forwards to the
built-in rule of the same name."""

def java_import(**kwargs):
    native.java_import(**kwargs)
def java_runtime(**kwargs):
    native.java_runtime(**kwargs)
def java_toolchain(**kwargs):
    native.java_toolchain(**kwargs)
def java_binary(**kwargs):
    native.java_binary(**kwargs)
def java_library(**kwargs):
    native.java_library(**kwargs)
