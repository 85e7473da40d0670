#!/bin/sh
# can_run.sh NAME "CC FLAGS": whether programs built by that compiler run
# here (natively, or through qemu-user registered with binfmt_misc).  When
# not, says how to fix it and reports one failed case for suite NAME.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/featc-canrun.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'int main(void) { return 0; }\n' > "$tmp/t.c"
if ! $2 -o "$tmp/t" "$tmp/t.c" 2>"$tmp/err"; then
    echo "$1: cannot build with '$2': $(head -3 "$tmp/err"); run make deps"
elif ! "$tmp/t" 2>/dev/null; then
    echo "$1: programs built with '$2' do not run here; run make deps as root (tests/cross/deps.sh registers qemu-user with binfmt_misc)"
else
    exit 0
fi
echo "$1: 0 passed, 1 failed"
exit 1
