#!/bin/sh
# The Python modules against the C batch API.
#   run.sh FEATC BUILD CORPUS N
# 1. every example spec's module (make python: BUILD/python) over the corpus
#    files it describes, against its JSON driver (BUILD/specs/NAME);
# 2. tests/specs/*.feat (SequenceExample, SparseFeature, RaggedFeature, hash
#    buckets) and N random specs: module, driver and the C batch API's
#    extras dumper built here, over the records the differential checker
#    writes (valid ones, and every random one: many fail), and those
#    records damaged; bad arguments and mutated bytes (test_args.py);
# 3. the bench specs over the first records of make bench's corpora;
# 4. two specs' modules under ASan + UBSan and PYTHONMALLOC=debug, one
#    under ThreadSanitizer reading with threads (test_threads.py), and a
#    256 MB file read with bounded memory, 1 and 2 threads (test_memory.py);
#    typed tensors (`as`: test_typed.py, over tests/specs/typed.feat's module);
# 5. read()'s shuffle, skip and splits (test_shuffle.py), featc.torch
#    (test_torch.py), the segment batcher (test_segments.py, and
#    examples/bptt_torch.py), Arrow's PyCapsules (test_arrow.py),
#    write_parquet() against featc convert (test_parquet.py), and URLs
#    (test_remote.py: a local nginx).
# Prints one "NAME: N passed, M failed" line per run and a total.
set -u
featc=$1 build=$2 corpus=$3 n=$4
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/pytest
PY=${PYTHON:-python3}
CC=${CC:-cc}
mkdir -p "$out"
rc=0 total_p=0 total_f=0

tally() { # LINE
    echo "$1"
    p=$(echo "$1" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    f=$(echo "$1" | sed -n 's/.*passed, \([0-9]*\) failed.*/\1/p')
    total_p=$((total_p + ${p:-0})); total_f=$((total_f + ${f:-1}))
    [ "${f:-1}" -eq 0 ] || rc=1
}

py_include=$($PY -c "import sysconfig; print(sysconfig.get_paths()['include'])")
# NumPy's headers too: python/ext/arrays.c uses its C API
np_include=$($PY -c "import numpy; print(numpy.get_include())")

. "$root/tests/oracle/corpus_specs.sh"
# and a damaged file, read through the tutorial spec
for pair in $CORPUS_SPECS tutorial:tf-models-CRLF-DAMAGED__pets_examples.record; do
    spec=${pair%%:*} files=$(echo "${pair#*:}" | tr , ' ')
    set --
    for f in $files; do set -- "$@" "$corpus/$f"; done
    tally "$("$PY" "$root/tests/python/module_vs_driver.py" "py-corpus-$spec" "$build/python" \
        "$spec" "$build/specs/$spec" "$@" 2>&1 | tail -12)"
done

# build_spec SPEC DIR: module, driver, checker and extras dumper of SPEC
build_spec() {
    b_spec=$1 b_dir=$2
    base=$(basename "$b_spec" .feat)
    mkdir -p "$b_dir"
    "$featc" compile --python --driver -o "$b_dir" "$b_spec" || return 1
    pkg=$(sed -n 's/^package \([A-Za-z0-9_]*\);.*/\1/p' "$b_spec" | head -1)
    msg=$(sed -n 's/^\(sequence_\)*example \([A-Za-z0-9_]*\).*/\2/p' "$b_spec" | head -1)
    checker=check.c seq=""
    if sed -n 's/^\(sequence_example\|example\) .*/\1/p' "$b_spec" | head -1 | grep -q sequence; then
        checker=seq_check.c seq=-DSEQ
    fi
    inc="-I$root/include -I$root/runtime/core -isystem $build/gen -I$b_dir"
    # the generated parser compiled once (position-independent, for the
    # module; warnings as errors, as the checker's build had them), linked
    # into all four
    # shellcheck disable=SC2086
    $CC -std=c99 -O1 -g -D_POSIX_C_SOURCE=200809L -Wall -Werror -fPIC $inc -c -o "$b_dir/$base.o" \
        "$b_dir/$base.c" &&
    $CC -std=c99 -O1 -g -D_POSIX_C_SOURCE=200809L -fPIC -shared -isystem "$py_include" -isystem "$np_include" $inc \
        -o "$b_dir/$base.abi3.so" "$b_dir/$base.o" "$b_dir/${base}_py.c" \
        "$build/libfeatc_python.a" "$build/libfeatc_codecs.a" "$build/libfeatc_pic.a" \
        $(cat "$build/libfeatc_codecs.libs") ${LIBS_Z:--lz} -lm -pthread &&
    $CC -std=c99 -O1 -g -D_POSIX_C_SOURCE=200809L $inc -o "$b_dir/driver" "$b_dir/$base.o" \
        "$b_dir/${base}_main.c" "$build/libfeatc.a" ${LIBS_Z:--lz} -lm &&
    $CC -std=c99 -O1 -g -D_POSIX_C_SOURCE=200809L -Wall -Werror $inc -include "$b_dir/$base.h" \
        -DDESC="${pkg}_${msg}_desc" $seq -o "$b_dir/dump_extras" "$root/tests/python/dump_extras.c" \
        "$b_dir/$base.o" "$build/libfeatc.a" ${LIBS_Z:--lz} -lm &&
    $CC -std=c99 -O1 -g -D_POSIX_C_SOURCE=200809L -Wall -Werror $inc -include "$b_dir/$base.h" \
        -DDESC="${pkg}_${msg}_desc" -o "$b_dir/check" "$root/tests/oracle/$checker" \
        "$root/tests/oracle/oracle.c" "$root/tests/oracle/seq_oracle.c" "$b_dir/$base.o" \
        "$build/libfeatc_fallback.a" "$build/libfeatc.a" -lprotobuf-c ${LIBS_Z:--lz} -lm
}

rm -rf "$out/random"
mkdir -p "$out/random"
"$PY" "$root/tests/oracle/random_specs.py" "${SEED:-7}" "$n" "$out/random" || exit 1
for spec in "$root"/tests/specs/*.feat "$out/random"/*.feat; do
    name=$(basename "$spec" .feat)
    dir=$out/build-$name
    if ! build_spec "$spec" "$dir" >"$dir.log" 2>&1; then
        tally "py-$name: 0 passed, 1 failed (does not build: $dir.log)"; cat "$dir.log"; continue
    fi
    FEATC_RT_OUT="$dir/valid.tfrecord" FEATC_RANDOM_OUT="$dir/random.tfrecord" \
        "$dir/check" random "$name" "${SEED:-7}" 400 >/dev/null 2>&1
    "$PY" "$root/tests/python/damage.py" "$dir/valid.tfrecord" "$dir/damaged.tfrecord" "${SEED:-7}"
    tally "$("$PY" "$root/tests/python/module_vs_driver.py" "py-$name-valid" "$dir" "$name" \
        "$dir/driver" --extras "$dir/dump_extras" "$dir/valid.tfrecord" 2>&1 | tail -12)"
    tally "$("$PY" "$root/tests/python/module_vs_driver.py" "py-$name-random" "$dir" "$name" \
        "$dir/driver" "$dir/random.tfrecord" 2>&1 | tail -12)"
    tally "$("$PY" "$root/tests/python/module_vs_driver.py" "py-$name-damaged" "$dir" "$name" \
        "$dir/driver" "$dir/damaged.tfrecord" 2>&1 | tail -12)"
    tally "$("$PY" "$root/tests/python/test_args.py" "$dir" "$name" "$dir/valid.tfrecord" \
        "${SEED:-7}" 200 2>&1 | tail -12)"
done
# typed tensors (`as`): dtypes against NumPy's conversions, errors, featc.torch
tally "$("$PY" "$root/tests/python/test_typed.py" "$build" "$out/typed" "$out/build-typed" \
    2>&1 | tail -12)"
# The bench specs (make bench's corpora: their first records) likewise.
for pair in wide:wide.tfrecord:400 photo:image.tfrecord:40 clip:sequence.tfrecord:150; do
    name=${pair%%:*} rest=${pair#*:}
    file=${rest%%:*} keep=${rest#*:}
    dir=$out/build-$name
    if ! build_spec "$root/tests/bench/$name.feat" "$dir" >"$dir.log" 2>&1; then
        tally "py-bench-$name: 0 passed, 1 failed (does not build: $dir.log)"; continue
    fi
    "$PY" -c 'import struct, sys
d = open(sys.argv[1], "rb").read(); pos = 0; n = int(sys.argv[3])
for _ in range(n):
    if pos + 12 > len(d): break
    pos += 16 + struct.unpack_from("<Q", d, pos)[0]
open(sys.argv[2], "wb").write(d[:pos])' "$build/bench-data/$file" "$dir/head.tfrecord" "$keep"
    tally "$("$PY" "$root/tests/python/module_vs_driver.py" "py-bench-$name" "$dir" "$name" \
        "$dir/driver" --extras "$dir/dump_extras" "$dir/head.tfrecord" 2>&1 | tail -12)"
done

# The modules of two specs (every kind, both messages) built with ASan and
# UBSan (gcc's runtime preloaded into Debian's Python), and under Python's
# debug allocator (PYTHONMALLOC=debug: API misuse, buffer overruns of
# Python's allocations), over their random and valid records.
asan_rt="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
# The Python layer and the runtime under ASan + UBSan, compiled once into
# $out/asan-rt.a for the three sanitized modules below (each compiled them
# all again: some 24 s a module)
ASAN_CFLAGS="-std=c99 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer -D_POSIX_C_SOURCE=200809L -fPIC"
rm -rf "$out/asan-rt" "$out/asan-rt.a"
mkdir -p "$out/asan-rt"
asan_rt_ok=1
for src in "$root"/python/ext/*.c "$root"/runtime/core/*.c "$root"/runtime/hosted/*.c; do
    o=$(echo "$src" | sed "s|^$root/||; s|/|_|g; s|\.c\$|.o|")
    # (the codecs with the libraries the build found, as libfeatc_codecs.a has them)
    # shellcheck disable=SC2086,SC2046
    gcc $ASAN_CFLAGS -isystem "$py_include" -isystem "$np_include" -I"$root/include" \
        -I"$root/runtime/core" -isystem "$build/gen" $(cat "$build/codec.choice") \
        -c -o "$out/asan-rt/$o" "$src" \
        >>"$out/asan-rt.log" 2>&1 || asan_rt_ok=0
done
[ "$asan_rt_ok" = 1 ] && ar rcs "$out/asan-rt.a" "$out"/asan-rt/*.o
# asan_module SO GEN-C PY-C INCLUDE-DIR: a module linked against it
asan_module() {
    [ -f "$out/asan-rt.a" ] || return 1
    # shellcheck disable=SC2086
    gcc $ASAN_CFLAGS -shared -isystem "$py_include" -isystem "$np_include" -I"$root/include" \
        -I"$root/runtime/core" -isystem "$build/gen" -I"$4" -o "$1" "$2" "$3" \
        -Wl,--whole-archive "$out/asan-rt.a" -Wl,--no-whole-archive \
        $(cat "$build/libfeatc_codecs.libs") -lz -lm -pthread
}
for name in batch seqragged; do
    dir=$out/build-$name
    mkdir -p "$out/asan-$name"
    if asan_module "$out/asan-$name/$name.abi3.so" "$dir/$name.c" "$dir/${name}_py.c" "$dir" \
        >"$out/asan-$name.log" 2>&1; then
        # (kinds: tally() uses f)
        tally "$(LD_PRELOAD="$asan_rt" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
            "$PY" "$root/tests/python/module_vs_driver.py" "py-asan-$name" \
            "$out/asan-$name" "$name" "$dir/driver" "$dir/random.tfrecord" 2>&1 | tail -12)"
        tally "$(LD_PRELOAD="$asan_rt" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
            "$PY" "$root/tests/python/test_args.py" "$out/asan-$name" "$name" \
            "$dir/valid.tfrecord" "${SEED:-7}" 1500 2>&1 | tail -12 | sed 's/^args-/args-asan-/')"
        tally "$(PYTHONMALLOC=debug "$PY" "$root/tests/python/module_vs_driver.py" \
            "py-debugmalloc-$name" "$dir" "$name" "$dir/driver" "$dir/valid.tfrecord" \
            2>&1 | tail -12)"
    else
        tally "py-asan-$name: 0 passed, 1 failed (does not build: $out/asan-$name.log)"
    fi
done

# the segment batcher (python/ext/segments.c) likewise, through elman's module
mkdir -p "$out/asan-elman"
if asan_module "$out/asan-elman/elman.abi3.so" "$build/python/gen/elman.c" \
    "$build/python/gen/elman_py.c" "$build/python/gen" >"$out/asan-elman.log" 2>&1; then
    tally "$(LD_PRELOAD="$asan_rt" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
        "$PY" "$root/tests/python/test_segments.py" "$build" "$out/segments-asan" \
        "$out/asan-elman" 2>&1 | tail -12)"
else
    tally "segments-asan: 0 passed, 1 failed (does not build: $out/asan-elman.log)"
fi

# read(threads=N) with ThreadSanitizer: one spec's module built with
# -fsanitize=thread, gcc's runtime preloaded; a race ends the run (exit 66,
# no tally line: counted as a failure)
tsan_rt=$(gcc -print-file-name=libtsan.so)
dir=$out/build-batch
mkdir -p "$out/tsan-batch"
if gcc -std=c99 -O1 -g -fsanitize=thread -D_POSIX_C_SOURCE=200809L -fPIC -shared \
    -isystem "$py_include" -isystem "$np_include" -I"$root/include" -I"$root/runtime/core" -isystem "$build/gen" \
    -I"$dir" -o "$out/tsan-batch/batch.abi3.so" "$dir/batch.c" "$dir/batch_py.c" \
    "$root"/python/ext/*.c "$root"/runtime/core/*.c "$root"/runtime/hosted/*.c \
    -lz -lm -pthread >"$out/tsan-batch.log" 2>&1; then
    tally "$(LD_PRELOAD="$tsan_rt" TSAN_OPTIONS=halt_on_error=1 PYTHONMALLOC=malloc \
        "$PY" "$root/tests/python/test_threads.py" "$out/tsan-batch" batch \
        "$dir/valid.tfrecord" 2>&1 | tail -12)"
else
    tally "py-tsan-batch: 0 passed, 1 failed (does not build: $out/tsan-batch.log)"
fi

# a 256 MB file read batch by batch: the resident size stays bounded
tally "$("$PY" "$root/tests/python/test_memory.py" "$build" "$build/bench-data/tutorial.tfrecord" \
    256 "$out/big.tfrecord" 2>&1 | tail -3)"

# read()'s shuffle, skip and per-source splits; featc.torch over the
# corpus and the bench corpora (DataLoader workers, ranks, resume)
tally "$("$PY" "$root/tests/python/test_shuffle.py" "$build" "$build/bench-data" \
    "$out/shuffle" 2>&1 | tail -12)"
tally "$("$PY" "$root/tests/python/test_torch.py" "$build" "$corpus" "$build/bench-data" \
    "$out/torch" 2>&1 | tail -12)"
# the segment batcher from Python and PyTorch; the BPTT example trains a
# GRU and checks the carried states against whole clips (it exits 1 if not)
tally "$("$PY" "$root/tests/python/test_segments.py" "$build" "$out/segments" - \
    "$out/build-segment" 2>&1 | tail -12)"
if PYTHONPATH="$build/python" "$PY" "$root/examples/bptt_torch.py" "$out/bptt" \
    >"$out/bptt.log" 2>&1; then
    echo "bptt-example: $(tail -1 "$out/bptt.log")"
    tally "bptt-example: 1 passed, 0 failed"
else
    echo "bptt-example: see $out/bptt.log: $(tail -1 "$out/bptt.log")"
    tally "bptt-example: 0 passed, 1 failed"
fi
# Arrow's PyCapsule interface (read(format='arrow')), read by a consumer
# built here from the specifications, against parse(); the tests/specs
# modules bring every kind, and the batch spec's module built with ASan
# (above) runs it again
mkdir -p "$out/arrow"
if $CC -std=c99 -O1 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -fPIC -shared \
    -isystem "$py_include" -I"$root/include" -o "$out/arrow/arrow_consumer.so" \
    "$root/tests/python/arrow_consumer.c" >"$out/arrow.log" 2>&1; then
    tally "$("$PY" "$root/tests/python/test_arrow.py" "$build" "$out/arrow" \
        "$out/build-batch:batch:$out/build-batch/valid.tfrecord" \
        "$out/build-seqragged:seqragged:$out/build-seqragged/valid.tfrecord" \
        "$out/build-typed:typed:$out/typed/typed.tfrecord" 2>&1 | tail -12)"
    tally "$(LD_PRELOAD="$asan_rt" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
        "$PY" "$root/tests/python/test_arrow.py" "$build" "$out/arrow" \
        "$out/asan-batch:batch:$out/build-batch/valid.tfrecord" 2>&1 | tail -12 |
        sed 's/^arrow-python:/arrow-python-asan:/')"
else
    tally "arrow-python: 0 passed, 1 failed (the consumer does not build: $out/arrow.log)"
fi
# write_parquet() against featc convert's files, byte for byte, and its errors
rm -rf "$out/parquet"
tally "$("$PY" "$root/tests/python/test_parquet.py" "$featc" "$build" "$out/parquet" \
    "$out/build-batch:batch:$out/build-batch/valid.tfrecord:$root/tests/specs/batch.feat" \
    "$out/build-seqragged:seqragged:$out/build-seqragged/valid.tfrecord:$root/tests/specs/seqragged.feat" \
    2>&1 | tail -12)"
# and through the batch spec's module built with ASan (above)
tally "$(LD_PRELOAD="$asan_rt" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
    "$PY" "$root/tests/python/test_parquet.py" --no-corpus "$featc" "$build" "$out/parquet-asan" \
    "$out/asan-batch:batch:$out/build-batch/valid.tfrecord:$root/tests/specs/batch.feat" \
    2>&1 | tail -12)"
# URLs: a local nginx serves the corpus
tally "$("$PY" "$root/tests/python/test_remote.py" "$build" "$corpus" "$out/remote" 2>&1 | \
    tail -12)"

echo "python-modules total: $total_p passed, $total_f failed"
exit $rc
