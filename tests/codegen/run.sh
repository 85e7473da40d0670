#!/bin/sh
# Generated code of every spec in specs/ (and tests/specs/segment.feat): equal to tests/codegen/golden/
# (make update-codegen rewrites them for review), identical when generated
# twice, and clean under -std=c99 -Wall -Wextra -Wpedantic -Wconversion
# -Werror with gcc and clang, and as C++ with g++ and clang++ (the Python
# modules' files too, against Python's headers); the drivers link against
# the runtime and run.
#   run.sh FEATC BUILD [update]
set -u
featc=$1 build=$2 mode=${3:-compare}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/codegen
rm -rf "$out"; mkdir -p "$out/a" "$out/b"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
STRICT="-Wall -Wextra -Wpedantic -Wconversion -Werror"
py_include=$(${PYTHON:-python3} -c "import sysconfig; print(sysconfig.get_paths()['include'])")
# specs/, and the segment batcher's test spec (VarLen context and lists).
for spec in "$root"/specs/*.feat "$root"/tests/specs/segment.feat; do
    name=$(basename "$spec" .feat)
    "$featc" compile -o "$out/a" --driver --python "$spec" || { bad "$name: compile"; continue; }
    "$featc" compile -o "$out/b" --driver --python "$spec" || { bad "$name: compile"; continue; }
    for f in "$name.h" "$name.c" "${name}_main.c" "${name}_py.c"; do
        cmp -s "$out/a/$f" "$out/b/$f" && ok || bad "$name: $f differs between two runs"
        if [ "$mode" = update ]; then
            cp "$out/a/$f" "$root/tests/codegen/golden/$f"
        else
            cmp -s "$out/a/$f" "$root/tests/codegen/golden/$f" && ok ||
                bad "$name: $f differs from tests/codegen/golden/$f (make update-codegen, then review)"
        fi
    done
    for cc in gcc clang; do
        $cc -std=c99 $STRICT -I"$root/include" -c "$out/a/$name.c" -o "$out/a/$name-$cc.o" &&
            ok || bad "$name: $cc -std=c99"
    done
    for cxx in g++ clang++; do
        $cxx -x c++ -std=c++11 $STRICT -Wsign-conversion -I"$root/include" -c "$out/a/$name.c" \
            -o "$out/a/$name-$cxx.o" && ok || bad "$name: $cxx"
    done
    # the Python module's file, as C and C++, against Python's headers
    for cc in "gcc -std=c99" "clang -std=c99" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11"; do
        $cc $STRICT -isystem "$py_include" -I"$root/include" -I"$out/a" -c "$out/a/${name}_py.c" \
            -o "$out/a/${name}_py.o" && ok || bad "$name: ${name}_py.c with $cc"
    done
    gcc -std=c99 $STRICT -I"$root/include" -o "$out/a/$name" "$out/a/$name.c" \
        "$out/a/${name}_main.c" "$build/libfeatc.a" ${LIBS_Z:--lz} -lm && ok || bad "$name: link"
    # the driver runs: usage error without files, a clean empty input
    # NAME_BATCH_BYTES(b) is a constant expression (static storage is
    # declared with it) and equals what the binder measures, as C and C++.
    bt="$out/a/${name}_batch.c"
    {
        echo "#include \"$name.h\""
        echo "int main(void)"
        echo "{"
        echo "    int bad = 0;"
        sed -n 's/^size_t \([a-z0-9_]*\)_batch_bind(fc_column columns\[\([A-Z0-9_]*\)_FIELD_COUNT\].*/\1 \2/p' \
            "$out/a/$name.h" | while read -r t u; do
            echo "    {"
            echo "        static unsigned char block[${u}_BATCH_BYTES(7)];"
            echo "        static fc_column c[${u}_FIELD_COUNT];"
            echo "        bad |= ${t}_batch_bind(c, 7, FC_BATCH_SPARSE | FC_BATCH_RAGGED, block, sizeof block) != sizeof block;"
            echo "    }"
        done
        echo "    return bad;"
        echo "}"
    } > "$bt"
    grep -q _batch_bind "$bt" && ok || bad "$name: no batch API in $name.h"
    gcc -std=c99 $STRICT -I"$root/include" -I"$out/a" -o "$out/a/${name}_batch" "$bt" "$out/a/$name.c" \
        "$build/libfeatc.a" ${LIBS_Z:--lz} -lm && "$out/a/${name}_batch" && ok || bad "$name: batch bytes (C)"
    g++ -x c++ -std=c++11 $STRICT -Wsign-conversion -I"$root/include" -I"$out/a" -c "$bt" \
        -o "$out/a/${name}_batch-cxx.o" && ok || bad "$name: batch bytes (C++)"
    # a segments block: the segmenter is static storage that sets up, as C and C++
    sg="$out/a/${name}_seg.c"
    sed -n 's/^int \([a-z0-9_]*\)_seg_init(.*/\1/p' "$out/a/$name.h" | {
        echo "#include \"$name.h\""
        echo "int main(void)"
        echo "{"
        echo "    int bad = 0;"
        while read -r t; do
            echo "    {"
            echo "        static ${t}_segmenter s;"
            echo "        fc_error e;"
            echo "        bad |= ${t}_seg_init(&s, &e) != FC_OK;"
            echo "        bad |= ${t}_seg_next(&s, &e) != FC_AGAIN;"
            echo "    }"
        done
        echo "    return bad;"
        echo "}"
    } > "$sg"
    if grep -q _seg_init "$sg"; then
        gcc -std=c99 $STRICT -I"$root/include" -I"$out/a" -o "$out/a/${name}_seg" "$sg" \
            "$out/a/$name.c" "$build/libfeatc.a" ${LIBS_Z:--lz} -lm && "$out/a/${name}_seg" && ok ||
            bad "$name: segmenter (C)"
        g++ -x c++ -std=c++11 $STRICT -Wsign-conversion -I"$root/include" -I"$out/a" -c "$sg" \
            -o "$out/a/${name}_seg-cxx.o" && ok || bad "$name: segmenter (C++)"
    fi
    "$out/a/$name" --no-such-option >/dev/null 2>&1; [ $? -eq 64 ] && ok || bad "$name: driver usage exit"
    : > "$out/a/empty.tfrecord"
    "$out/a/$name" "$out/a/empty.tfrecord" && ok || bad "$name: driver on an empty file"
done
[ "$mode" = update ] && { echo "codegen: goldens rewritten; review with git diff tests/codegen"; exit 0; }
echo "codegen: $pass passed, $fail failed"
[ $fail -eq 0 ]
