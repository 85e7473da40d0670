#!/bin/sh
# make test / make check: runs the suites named (make targets; tests/tests.mk
# lists them), every one even after a failure, and sums their
# "<suite>: N passed, M failed" lines into a total.  A suite that exits
# non-zero without reporting a failure counts as one failed case.
# The first suite (the build) runs alone, with make -j on every CPU.  Then
# two lanes work side by side, so that both cores do: the first runs the
# suites before "--" in order (they share BUILD and must not build in it at
# once), then joins the second in taking the suites after "--" (which build
# in folders of their own, or only read what the first suite built) from one
# queue, in the order given: give the longest first, and the two lanes end
# about together however long the first lane's own suites are.  Each
# suite's output is in BUILD/log/SUITE.log; the summary prints in the order
# given, and the failed suites once more at its end, before the total.  Each
# suite's time is in its heading, and which lane ran it at the end; a suite
# that runs longer than SUITE_TIMEOUT seconds (default 2400) is stopped and
# counted as failed, so that a hang names its suite instead of running into
# CI's own limit.
# usage: run.sh MAKE BUILD CORPUS SUITE... [-- SUITE...]
set -u
make=$1
build=$2
corpus=$3
shift 3
mkdir -p "$build/log"

if [ ! -f "$corpus/MANIFEST.tsv" ]; then
    echo "corpus not found at $corpus: the tests read tests/corpus (set CORPUS=DIR)"
    echo "total: 0 passed, 1 failed"
    exit 1
fi
export FEATC_CORPUS="$corpus"

lane1= lane2= in2=0
for s in "$@"; do
    if [ "$s" = -- ]; then in2=1
    elif [ "$in2" = 1 ]; then lane2="$lane2 $s"
    else lane1="$lane1 $s"; fi
done

limit=${SUITE_TIMEOUT:-2400}
if command -v timeout >/dev/null 2>&1; then
    stop_after="timeout -k 30 $limit"
else
    stop_after=
fi

# run SUITE [MAKE-OPTION...]: its log, its exit status in BUILD/log/SUITE.rc
# and its seconds in BUILD/log/SUITE.time
run() {
    t0=$(date +%s)
    suite=$1
    shift
    $stop_after $make --no-print-directory -s "$@" "$suite" CORPUS="$corpus" >"$build/log/$suite.log" 2>&1
    rc=$?
    if [ -n "$stop_after" ] && [ "$rc" -eq 124 ]; then
        echo "$suite: stopped after $limit s (SUITE_TIMEOUT)" >>"$build/log/$suite.log"
    fi
    echo $rc >"$build/log/$suite.rc"
    echo $(($(date +%s) - t0)) >"$build/log/$suite.time"
}

total_pass=0
total_fail=0
failed=
# report SUITE: prints its counts (and the log's end when it failed), sums them
report() {
    log="$build/log/$1.log"
    rc=$(cat "$build/log/$1.rc" 2>/dev/null || echo 1)
    echo "== $1 ($(cat "$build/log/$1.time" 2>/dev/null || echo '?') s)"
    grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed$' "$log" | sed 's/^/   /'
    p=$(sed -n 's/^[A-Za-z0-9_-]*: \([0-9]*\) passed, [0-9]* failed$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^[A-Za-z0-9_-]*: [0-9]* passed, \([0-9]*\) failed$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
    fi
    if [ "$f" -ne 0 ]; then
        echo "   $1 FAILED (exit $rc); last lines of $log:"
        tail -n 25 "$log" | sed 's/^/   | /'
        failed="$failed $1"
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
}

start=$(date +%s)
# The queue of the suites after "--", one a line; take() prints the next one
# (nothing when it is empty), under a lock, since both lanes take from it.
queue=$build/log/queue
lock=$build/log/queue.lock
rm -rf "$lock"
: >"$queue"
for s in $lane2; do echo "$s" >>"$queue"; done
take() {
    while ! mkdir "$lock" 2>/dev/null; do sleep 1; done
    head -n 1 "$queue"
    tail -n +2 "$queue" >"$queue.rest"
    mv "$queue.rest" "$queue"
    rmdir "$lock"
}
# drain LANE: runs queued suites until the queue is empty, noting the lane of each
drain() {
    while s=$(take) && [ -n "$s" ]; do
        run "$s"
        echo "$1" >"$build/log/$s.lane"
    done
}

set -- $lane1
first=${1:-}
if [ -n "$first" ]; then
    # alone, it has every CPU: make -j (the build had one core and the
    # other idle for two minutes of every run)
    run "$first" -j"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
    report "$first"
    shift
fi
pid=
if [ -n "$lane2" ]; then
    drain 2 &
    pid=$!
fi
for s in "$@"; do
    run "$s"
    report "$s"
done
drain 1
lane1_end=$(date +%s)
if [ -n "$pid" ]; then
    wait "$pid"
fi
for s in $lane2; do
    report "$s"
done
# The failures again, last, where a log cut to its end still shows them.
for s in $failed; do
    echo "== FAILED: $s (exit $(cat "$build/log/$s.rc" 2>/dev/null || echo '?')), its failing counts and last lines:"
    grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [1-9][0-9]* failed$' "$build/log/$s.log" | sed 's/^/   /'
    grep -m 8 -iE '^ *(FAIL|not ok)' "$build/log/$s.log" | cut -c1-300 | sed 's/^/   ! /'
    tail -n 12 "$build/log/$s.log" | sed 's/^/   | /'
done
if [ -n "$lane2" ]; then
    times=
    for s in $lane2; do
        times="$times $s=$(cat "$build/log/$s.time" 2>/dev/null || echo '?')($(cat "$build/log/$s.lane" 2>/dev/null || echo '?'))"
    done
    echo "lanes: first $((lane1_end - start)) s, both $(($(date +%s) - start)) s to their end; the queue's suites (seconds, lane):$times"
fi
echo "total: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
