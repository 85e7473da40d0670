#!/bin/sh
# tests/install/consumer as a Bazel workspace (BUILD.bazel there), built
# offline by Debian's Bazel (bazel-bootstrap 4.2.3) with @featc pointed at
# this tree, which Bazel builds from its sources (BUILD.bazel at the top):
#   - featc's program, the runtime and the consumer's programs build, in
#     Bazel's sandbox (every input declared);
#   - the code Bazel's featc generates is build/featc's, byte for byte; the
#     consumer's species program and the generated mnist driver print what
#     the same programs built in the tree print, on corpus files;
#   - a spec edit reruns exactly its genrule, the compiles of its C and of
#     the program that includes it, and that program's link: nothing of
#     @featc, nothing of the other spec;
#   - featc_breaking_test passes on a compatible edit and fails, naming the
#     rule, on one that breaks records already written.
# Offline: the consumer's WORKSPACE.bazel and .bazelrc are docs/build.md's,
# as written (the doc's blocks are those files): the repositories Bazel
# 4.2.3's built-in rules would download come from Debian's bazel-bootstrap
# (platforms) and featc's stand-ins (bazel/offline).  The workspace sits
# beside a link named featc to this tree, where its WORKSPACE looks for
# featc.  Nothing is downloaded.
#   bazel.sh BUILD CORPUS
set -u
build=$1 corpus=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
ws=$build/bazel/ws
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
command -v bazel >/dev/null || { echo "bazel: no bazel (make deps installs bazel-bootstrap)"; exit 2; }

rm -rf "$build/bazel"
mkdir -p "$ws/specs"
ln -s "$root" "$build/bazel/featc"
cp "$root/tests/install/consumer/WORKSPACE.bazel" "$root/tests/install/consumer/BUILD.bazel" \
    "$root/tests/install/consumer/.bazelrc" "$root/tests/install/consumer/species.c" "$ws/"
cp "$root/specs/penguin.feat" "$root/specs/mnist.feat" "$ws/specs/"
penguin=$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz
mnist=$corpus/tfx__mnist.tfrecord

# bazel ARGS...: in the workspace, its server and caches under build/bazel
bazel_() {
    cmd=$1
    shift
    (cd "$ws" && bazel --output_user_root="$build/bazel/root" --max_idle_secs=120 "$cmd" \
        --symlink_prefix=/ --noshow_progress "$@")
}
log=$build/bazel/log
if bazel_ build //:species //:mnist_driver >"$log" 2>&1; then ok
else bad "bazel build: $(grep -E 'ERROR|error:' "$log" | head -5)"; fi
bin=$(bazel_ info bazel-bin 2>/dev/null)
gen=$bin/penguin_featc

# the same compiler: Bazel's featc generates what build/featc does
"$build/featc" compile --base penguin -o "$build/bazel/want" "$ws/specs/penguin.feat" &&
    cmp -s "$build/bazel/want/penguin.c" "$gen/penguin.c" &&
    cmp -s "$build/bazel/want/penguin.h" "$gen/penguin.h" && ok ||
    bad "Bazel's featc generated other code than build/featc for penguin.feat"
# (the genrules run featc built for the host, Bazel's exec configuration)
host_featc=$(bazel_ info output_path 2>/dev/null)/host/bin/external/featc/featc
[ -x "$host_featc" ] && "$host_featc" --version >/dev/null && ok || bad "no featc program at $host_featc"

# the programs, against the tree's builds of them
cc -std=c99 -I"$root/include" -I"$build/gen-specs" -o "$build/bazel/species" \
    "$root/tests/install/consumer/species.c" "$build/gen-specs/penguin.c" "$build/libfeatc.a" \
    ${LIBS_Z:--lz} -lm -pthread || bad "in-tree species"
"$build/bazel/species" "$penguin" >"$build/bazel/species.want" 2>&1
"$bin/species" "$penguin" >"$build/bazel/species.got" 2>&1 &&
    cmp -s "$build/bazel/species.want" "$build/bazel/species.got" && ok ||
    bad "species built by Bazel: $(diff "$build/bazel/species.want" "$build/bazel/species.got" | head -5)"
"$build/specs/mnist" "$mnist" >"$build/bazel/mnist.want" 2>&1
"$bin/mnist_driver" "$mnist" >"$build/bazel/mnist.got" 2>&1 &&
    cmp -s "$build/bazel/mnist.want" "$build/bazel/mnist.got" && ok ||
    bad "mnist_driver built by Bazel differs from build/specs/mnist"

# a spec edit (a feature with a default: compatible) rebuilds what it must
sed 's/^}$/  shell_weight_g : float = 0;\n}/' "$root/specs/penguin.feat" > "$ws/specs/penguin.feat"
if bazel_ build --explain="$build/bazel/explain" //:species //:mnist_driver >"$log" 2>&1; then ok
else bad "bazel build after the spec edit: $(grep -E 'ERROR|error:' "$log" | head -5)"; fi
sed -n "s/^Executing action '\(.*\)':.*/\1/p" "$build/bazel/explain" | grep -v WorkspaceStatus |
    sort > "$build/bazel/actions"
printf '%s\n' "Compiling penguin_featc/penguin.c" "Compiling species.c" \
    "Executing genrule //:penguin_featc" "Linking species" > "$build/bazel/actions.want"
cmp -s "$build/bazel/actions.want" "$build/bazel/actions" && ok ||
    bad "after editing penguin.feat Bazel ran: $(tr '\n' ';' < "$build/bazel/actions")"
grep -q shell_weight_g "$gen/penguin.h" && ok || bad "penguin.h was not regenerated"
"$bin/species" "$penguin" >"$build/bazel/species.got" 2>&1 &&
    cmp -s "$build/bazel/species.want" "$build/bazel/species.got" && ok ||
    bad "species after the spec edit: $(diff "$build/bazel/species.want" "$build/bazel/species.got" | head -5)"

# featc_breaking_test: the edit is compatible with the released spec; a
# type change is not
cp "$root/specs/penguin.feat" "$ws/specs/penguin.released.feat"
cat >> "$ws/BUILD.bazel" <<'EOF'

featc_breaking_test(
    name = "penguin_compatible",
    new = "specs/penguin.feat",
    old = "specs/penguin.released.feat",
)
EOF
if bazel_ test //:penguin_unchanged //:penguin_compatible >"$log" 2>&1; then ok
else bad "bazel test, a compatible edit: $(grep -E 'FAILED|ERROR' "$log" | head -5)"; fi
sed -i 's/species           : int64/species           : float/' "$ws/specs/penguin.feat"
if bazel_ test //:penguin_compatible >"$log" 2>&1; then
    bad "bazel test passed on a spec whose species became a float"
else
    testlog=$(bazel_ info bazel-testlogs 2>/dev/null)/penguin_compatible/test.log
    grep -q "penguin.feat:9:23: error: feature 'species': type int64 became float.*\[type-changed\]" \
        "$testlog" && ok || bad "penguin_compatible failed without the finding: $(head -5 "$testlog")"
fi

# (the same startup options: other ones would start a server to stop it)
(cd "$ws" && bazel --output_user_root="$build/bazel/root" --max_idle_secs=120 shutdown) >/dev/null 2>&1
echo "bazel: $pass passed, $fail failed"
[ "$fail" = 0 ]
