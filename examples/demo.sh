#!/bin/sh
# The main job, after `make` built featc and compiled the specs of specs/:
# check the specs, write a TFRecord file (plain and GZIP) through the
# serializer generated from specs/tutorial.feat and the runtime writer, read
# it back through the parser generated from the same spec, dump it
# with the generated JSON driver, and check both copies hold the same records;
# then the same for SequenceExamples of specs/movie.feat, and an RNN over
# SequenceExamples of specs/elman.feat through the segment batcher.
# usage: demo.sh BUILD
set -eu
build=$1
out=$build/demo
mkdir -p "$out"
fail=0

echo "== featc check specs/*.feat"
"$build/featc" check specs/*.feat && echo "all specs are valid"

echo "== featc compile -o $out --driver specs/tutorial.feat"
"$build/featc" compile -o "$out" --driver specs/tutorial.feat
ls "$out"/tutorial.h "$out"/tutorial.c "$out"/tutorial_main.c
# make compiled the same spec into build/gen-specs: generation is deterministic.
for f in tutorial.h tutorial.c tutorial_main.c; do
    cmp -s "$out/$f" "$build/gen-specs/$f" || { echo "demo: $f differs between two compiles"; fail=1; }
done

echo "== examples/hello_tfrecord.c: write through tutorial_record_write, read through tutorial_record_parse"
"$build/examples/hello_tfrecord" "$out" 4 || fail=1

echo "== the generated JSON driver (build/specs/tutorial) on both files"
"$build/specs/tutorial" "$out/hello.tfrecord" | tee "$out/plain.json" || fail=1
"$build/specs/tutorial" "$out/hello.tfrecord.gz" > "$out/gzip.json" || fail=1
cmp -s "$out/plain.json" "$out/gzip.json" || { echo "demo: plain and GZIP records differ"; fail=1; }
[ "$(grep -c '"features":{"feature0":' "$out/plain.json")" -eq 4 ] ||
    { echo "demo: expected 4 parsed records"; fail=1; }

echo "== examples/movie_sequences.c: SequenceExamples through movie_movie_write and movie_movie_parse"
"$build/examples/movie_sequences" "$out" || fail=1
echo "== the generated driver build/specs/movie"
"$build/specs/movie" "$out/movies.tfrecord" | tee "$out/movies.json" || fail=1
[ "$(grep -c '"feature_lists":{"movie_ratings":' "$out/movies.json")" -eq 3 ] ||
    { echo "demo: expected 3 parsed sequences"; fail=1; }

echo "== examples/elman_rnn.c: an RNN over SequenceExamples through the segment batcher"
"$build/examples/elman_rnn" "$out" | tee "$out/elman.txt" || fail=1
grep -q "bit for bit: 23 of 23 clips" "$out/elman.txt" ||
    { echo "demo: segmented and whole-clip RNN states differ"; fail=1; }

echo "== featc verify (framing and CRCs, independent of any spec)"
"$build/featc" verify "$out/hello.tfrecord" "$out/hello.tfrecord.gz" "$out/movies.tfrecord" \
    "$out/clips.tfrecord.gz" || fail=1

echo
if [ "$fail" -eq 0 ]; then
    echo "featc demo: passed.  4 Examples (specs/tutorial.feat; plain and GZIP) and 3"
    echo "SequenceExamples (specs/movie.feat) went out through the generated serializers and"
    echo "came back equal through the generated parsers and JSON drivers; the RNN over 23"
    echo "clips through the segment batcher matched the whole-clip states bit for bit; every"
    echo "file verified.  The files: $out"
else
    echo "featc demo: FAILED (the lines starting with demo: above say what)"
    exit 1
fi
