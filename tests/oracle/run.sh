#!/bin/sh
# Generated parsers against the protobuf-c oracle (tests/oracle/check.c).
#   run.sh corpus FEATC BUILD CORPUS   specs/ against the corpus files they describe:
#                                      parsers vs the oracle (single and batched),
#                                      drivers vs featc cat, driver --batch vs per record
#   run.sh random FEATC BUILD N COUNT  N random specs x COUNT random records
set -u
mode=$1 featc=$2 build=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/oracle
mkdir -p "$out"
CC=${CC:-cc}
# the switches of the build under test (make test-small: -DFC_NO_FAST_PATH ...)
CPPFLAGS=${CPPFLAGS:-}
PY=${PYTHON:-python3}
rc=0
canon=""   # KIND:FILE of the records the serializers wrote, for canonical.py
rt_p=0 rt_f=0

# sum_roundtrip LINES: adds a "roundtrip-NAME: N passed, M failed" line to rt_p/rt_f.
sum_roundtrip() {
    # sh has no locals: names of their own, not the callers' p and f
    sr_p=$(echo "$1" | sed -n 's/^roundtrip-.*: \([0-9]*\) passed.*/\1/p')
    sr_f=$(echo "$1" | sed -n 's/^roundtrip-.*passed, \([0-9]*\) failed/\1/p')
    rt_p=$((rt_p + ${sr_p:-0})); rt_f=$((rt_f + ${sr_f:-1}))
}

# kind_of SPEC: example or sequence, by its first message
kind_of() {
    if sed -n 's/^\(sequence_example\|example\) .*/\1/p' "$1" | head -1 | grep -q sequence; then
        echo sequence
    else
        echo example
    fi
}

# build_check SPEC DIR: compiles SPEC and a checker for its first message:
# check.c for an example, seq_check.c for a sequence_example.
build_check() {
    b_spec=$1 b_dir=$2
    mkdir -p "$b_dir"
    base=$(basename "$b_spec" .feat)
    "$featc" compile -o "$b_dir" "$b_spec" || return 1
    pkg=$(sed -n 's/^package \([A-Za-z0-9_]*\);.*/\1/p' "$b_spec" | head -1)
    msg=$(sed -n 's/^\(sequence_\)*example \([A-Za-z0-9_]*\).*/\2/p' "$b_spec" | head -1)
    checker=check.c
    if [ "$(kind_of "$b_spec")" = sequence ]; then
        checker=seq_check.c
    fi
    $CC -std=c99 -O1 -g ${CPPFLAGS:-} -D_POSIX_C_SOURCE=200809L -Wall -Werror -I"$root/include" -I"$root/runtime/core" \
        -isystem "$build/gen" -I"$b_dir" -include "$b_dir/$base.h" -DDESC="${pkg}_${msg}_desc" \
        -o "$b_dir/check" "$root/tests/oracle/$checker" "$root/tests/oracle/oracle.c" \
        "$root/tests/oracle/seq_oracle.c" \
        "$b_dir/$base.c" "$build/libfeatc_fallback.a" "$build/libfeatc.a" ${LIBS_FALLBACK:--lprotobuf-c} ${LIBS_Z:--lz} -lm
}

if [ "$mode" = corpus ]; then
    corpus=$4
    . "$root/tests/oracle/corpus_specs.sh" # spec : corpus files it describes
    for pair in $CORPUS_SPECS; do
        spec=${pair%%:*} files=$(echo "${pair#*:}" | tr , ' ')
        set --
        for f in $files; do set -- "$@" "$corpus/$f"; done
        build_check "$root/specs/$spec.feat" "$out/corpus-$spec" || { echo "corpus-$spec: 0 passed, 1 failed"; rc=1; continue; }
        lines=$(FEATC_RT_OUT="$out/corpus-$spec/serialized.tfrecord" \
            "$out/corpus-$spec/check" corpus "corpus-$spec" "$@") || rc=1
        echo "$lines" | grep -v '^roundtrip-'
        sum_roundtrip "$(echo "$lines" | grep '^roundtrip-')"
        canon="$canon $(kind_of "$root/specs/$spec.feat"):$out/corpus-$spec/serialized.tfrecord"
        # the generated JSON driver (built by make as build/specs/SPEC) vs featc cat
        python3 "$root/tests/oracle/driver_vs_cat.py" "driver-$spec" "$featc" "$build/specs/$spec" \
            "$root/specs/$spec.feat" "$@" || rc=1
        # its --batch output vs its per-record output, stacked
        python3 "$root/tests/oracle/driver_batch.py" "driver-batch-$spec" "$build/specs/$spec" \
            "$root/specs/$spec.feat" "$@" || rc=1
        # a cross-target build (FEATC_HOST_BUILD set): its driver prints
        # byte for byte what the host's prints, per record and in batches
        if [ -n "${FEATC_HOST_BUILD:-}" ]; then
            sh_p=0 sh_f=0
            for opts in "" "--batch 7" "--batch 7 --ragged"; do
                "$build/specs/$spec" $opts "$@" >"$out/same.target" 2>/dev/null; sh_t=$?
                "$FEATC_HOST_BUILD/specs/$spec" $opts "$@" >"$out/same.host" 2>/dev/null; sh_h=$?
                if [ "$sh_t" = "$sh_h" ] && cmp -s "$out/same.target" "$out/same.host"; then
                    sh_p=$((sh_p + 1))
                else
                    sh_f=$((sh_f + 1)); rc=1
                    echo "same-as-host-$spec: driver $opts: exit $sh_t vs $sh_h, first difference: $(cmp "$out/same.target" "$out/same.host" 2>&1 | head -1)" >&2
                fi
            done
            echo "same-as-host-$spec: $sh_p passed, $sh_f failed"
        fi
    done
    # the serializers on every corpus record: round trip, then protobuf's bytes
    echo "roundtrip-corpus: $rt_p passed, $rt_f failed"
    [ "$rt_f" -eq 0 ] || rc=1
    # shellcheck disable=SC2086
    $PY "$root/tests/oracle/canonical.py" serialize-canonical-corpus $canon || rc=1
    exit $rc
fi

n=$4 count=$5
rm -rf "$out/random"
mkdir -p "$out/random"
python3 "$root/tests/oracle/random_specs.py" "${SEED:-1}" "$n" "$out/random" || exit 1
total_p=0 total_f=0 seq_p=0 seq_f=0 batch_p=0 batch_f=0
for spec in "$out/random"/*.feat "$root"/specs/*.feat "$root"/tests/specs/*.feat; do
    name=$(basename "$spec" .feat)
    dir="$out/random/build-$name"
    if ! build_check "$spec" "$dir" >"$dir.log" 2>&1; then
        echo "FAIL $name: does not compile"; cat "$dir.log"; total_f=$((total_f + 1)); continue
    fi
    lines=$(FEATC_RT_OUT="$dir/serialized.tfrecord" "$dir/check" random "$name" "${SEED:-1}" "$count" 2>"$dir.err")
    sum_roundtrip "$(echo "$lines" | grep '^roundtrip-')"
    canon="$canon $(kind_of "$spec"):$dir/serialized.tfrecord"
    lines=$(echo "$lines" | grep -v '^roundtrip-')
    line=$(echo "$lines" | grep -v '^batch-')
    bline=$(echo "$lines" | grep '^batch-')
    bp=$(echo "$bline" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    bf=$(echo "$bline" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')
    batch_p=$((batch_p + ${bp:-0})); batch_f=$((batch_f + ${bf:-1}))
    p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')
    # counted by the message checked: the spec's first one
    if [ "$(kind_of "$spec")" = sequence ]; then
        seq_p=$((seq_p + ${p:-0})); seq_f=$((seq_f + ${f:-1}))
    else
        total_p=$((total_p + ${p:-0})); total_f=$((total_f + ${f:-1}))
    fi
    if [ "${f:-1}" -ne 0 ] || [ "${bf:-1}" -ne 0 ] || grep -q 'serializer:' "$dir.err"; then
        echo "FAIL $name:"; head -20 "$dir.err"
    fi
done
echo "differential: $total_p passed, $total_f failed"
echo "differential-sequence: $seq_p passed, $seq_f failed"
echo "differential-batch: $batch_p passed, $batch_f failed"
echo "roundtrip-random: $rt_p passed, $rt_f failed"
# shellcheck disable=SC2086
$PY "$root/tests/oracle/canonical.py" serialize-canonical-random $canon || rt_f=$((rt_f + 1))
[ $total_f -eq 0 ] && [ $seq_f -eq 0 ] && [ $batch_f -eq 0 ] && [ $rt_f -eq 0 ]
