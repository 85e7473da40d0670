#!/bin/sh
# Golden diagnostics: each tests/diag/NAME.feat is checked with `featc check`
# (tf-NAME.feat with `featc check --tf --werror`) and its stderr must equal
# NAME.expected byte for byte (exit status 1).
#   sh tests/diag/run.sh FEATC          compare
#   sh tests/diag/run.sh FEATC update   rewrite the .expected files for review
featc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mode=${2:-compare}
cd "$(dirname "$0")" || exit 1
pass=0 fail=0
for spec in *.feat; do
    name=${spec%.feat}
    opts=
    case $name in tf-*) opts="--tf --werror" ;; esac # warnings where TF refuses, as errors
    # shellcheck disable=SC2086
    out=$("$featc" check $opts "$spec" 2>&1 >/dev/null)
    rc=$?
    if [ "$mode" = update ]; then
        printf '%s\n' "$out" > "$name.expected"
        continue
    fi
    if [ $rc -ne 1 ]; then
        echo "FAIL $name: exit status $rc, expected 1"
        fail=$((fail + 1))
    elif [ "$(printf '%s\n' "$out")" != "$(cat "$name.expected" 2>/dev/null)" ]; then
        echo "FAIL $name: diagnostics differ from $name.expected:"
        printf '%s\n' "$out" | diff "$name.expected" - | head -20
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
[ "$mode" = update ] && { echo "diag: goldens rewritten; review with git diff tests/diag"; exit 0; }
echo "diag: $pass passed, $fail failed"
[ $fail -eq 0 ]
