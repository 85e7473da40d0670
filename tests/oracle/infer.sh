#!/bin/sh
# featc infer on every Example and SequenceExample file of the corpus
# (MANIFEST.tsv): infer a spec (exit 0), compile it with its JSON driver,
# build the driver strict, read the file back through it (every record must
# parse), compare every value with the protobuf-c fallback decoder
# (driver_vs_cat.py), and check that the spec names every key the file holds
# (infer_keys.py).  Prints "infer-corpus: N passed, M failed", N and M in
# files, plus the driver comparison per record.
# usage: infer.sh FEATC BUILD CORPUS [FILE...]   (FILEs: more inputs, by path)
set -u
featc=$1 build=$2 corpus=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/infer
rm -rf "$out"
mkdir -p "$out"
CC=${CC:-cc}
passed=0 failed=0 records_p=0 records_f=0
files=$(awk -F'\t' 'NR > 1 && ($6 == "Example" || $6 == "SequenceExample") { print $1 }' \
    "$corpus/MANIFEST.tsv")
for f in $files "$@"; do
    case $f in /*) ;; *) f=$corpus/$f ;; esac
    name=$(basename "$f" | tr -c 'A-Za-z0-9\n' '_')
    dir=$out/$name
    mkdir -p "$dir"
    why=""
    if ! "$featc" infer --package=corpus "$f" >"$dir/spec.feat" 2>"$dir/infer.err"; then
        why="featc infer failed: $(head -3 "$dir/infer.err")"
    elif ! "$featc" compile -o "$dir" --driver "$dir/spec.feat" 2>"$dir/compile.err"; then
        why="the inferred spec does not compile: $(head -5 "$dir/compile.err")"
    elif ! $CC -std=c99 -O1 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Wconversion \
            -Werror -I"$root/include" -I"$dir" -o "$dir/driver" "$dir/spec.c" "$dir/spec_main.c" \
            "$build/libfeatc.a" ${LIBS_Z:--lz} -lm 2>"$dir/cc.err"; then
        why="the generated driver does not build: $(head -5 "$dir/cc.err")"
    elif ! "$dir/driver" "$f" >"$dir/driver.json" 2>"$dir/driver.err"; then
        why="the driver does not read the file: $(head -3 "$dir/driver.err")"
    else
        line=$(python3 "$root/tests/oracle/driver_vs_cat.py" "infer-driver-$name" "$featc" \
            "$dir/driver" "$dir/spec.feat" "$f" 2>"$dir/cmp.err")
        p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
        q=$(echo "$line" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')
        records_p=$((records_p + ${p:-0})); records_f=$((records_f + ${q:-1}))
        if [ "${q:-1}" -ne 0 ]; then
            why="driver and fallback decoder differ: $(head -3 "$dir/cmp.err")"
        elif ! python3 "$root/tests/oracle/infer_keys.py" "$featc" "$dir/driver.json" \
                "$f" 2>"$dir/keys.err"; then
            why="$(head -3 "$dir/keys.err")"
        fi
    fi
    if [ -z "$why" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $(basename "$f"): $why"
    fi
done
echo "infer-driver-records: $records_p passed, $records_f failed"
echo "infer-corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$records_f" -eq 0 ]
