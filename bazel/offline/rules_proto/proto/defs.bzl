"""A stand-in for rules_proto, for Debian's Bazel offline (docs/build.md, "Bazel"): Bazel
4.2.3's built-in rules load these names from it; each forwards to the
built-in rule of the same name."""

def proto_library(**kwargs):
    native.proto_library(**kwargs)
