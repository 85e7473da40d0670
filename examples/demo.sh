#!/bin/sh
# The main job: build featc (done by make), write a TFRecord file through the
# runtime (plain and GZIP), read it back with featc, and check both copies
# hold the same records.  usage: demo.sh BUILD
set -eu
build=$1
out=$build/demo
mkdir -p "$out"
echo "== write: examples/hello_tfrecord.c"
"$build/examples/hello_tfrecord" "$out" 4
echo "== featc verify"
"$build/featc" verify "$out/hello.tfrecord" "$out/hello.tfrecord.gz"
echo "== featc cat $out/hello.tfrecord.gz (compression detected)"
"$build/featc" cat "$out/hello.tfrecord.gz" | head -n 40
echo "== featc cat --json"
"$build/featc" cat --json "$out/hello.tfrecord" | tee "$out/plain.json"
"$build/featc" cat --json "$out/hello.tfrecord.gz" > "$out/gzip.json"
if cmp -s "$out/plain.json" "$out/gzip.json" && [ "$(wc -l < "$out/plain.json")" -eq 4 ] &&
   grep -q '"feature2":{"bytes_list":\["' "$out/plain.json"; then
    echo "demo: 1 passed, 0 failed"
else
    echo "demo: the plain and GZIP files differ or lack the expected records"
    echo "demo: 0 passed, 1 failed"
    exit 1
fi
