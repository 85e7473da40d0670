#!/bin/sh
# make test / make check: runs the suites named (make targets, in order;
# tests/tests.mk lists them), every one even after a failure, and sums
# their "<suite>: N passed, M failed" lines into a total.  A suite that
# exits non-zero without reporting a failure counts as one failed case.
# usage: run.sh MAKE BUILD CORPUS SUITE...
set -u
make=$1
build=$2
corpus=$3
shift 3
mkdir -p "$build/log"
total_pass=0
total_fail=0

if [ ! -f "$corpus/MANIFEST.tsv" ]; then
    echo "corpus not found at $corpus: the tests read tests/corpus (set CORPUS=DIR)"
    echo "total: 0 passed, 1 failed"
    exit 1
fi
export FEATC_CORPUS="$corpus"

for suite in "$@"; do
    log="$build/log/$suite.log"
    echo "== $suite"
    $make --no-print-directory -s "$suite" CORPUS="$corpus" >"$log" 2>&1
    rc=$?
    grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed$' "$log" | sed 's/^/   /'
    p=$(sed -n 's/^[A-Za-z0-9_-]*: \([0-9]*\) passed, [0-9]* failed$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^[A-Za-z0-9_-]*: [0-9]* passed, \([0-9]*\) failed$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
    fi
    if [ "$f" -ne 0 ]; then
        echo "   $suite FAILED (exit $rc); last lines of $log:"
        tail -n 25 "$log" | sed 's/^/   | /'
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
done
echo "total: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
