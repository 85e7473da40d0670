"""A stand-in for rules_cc, for Debian's Bazel offline (docs/build.md, "Bazel"): Bazel
4.2.3's built-in rules load these names from it; each forwards to the
built-in rule of the same name."""

def cc_library(**kwargs):
    native.cc_library(**kwargs)
def cc_binary(**kwargs):
    native.cc_binary(**kwargs)
def cc_test(**kwargs):
    native.cc_test(**kwargs)
def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)
def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)
def cc_proto_library(**kwargs):
    native.cc_proto_library(**kwargs)
