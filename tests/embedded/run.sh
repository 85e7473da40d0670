#!/bin/sh
# run.sh FEATC BUILD: the embedded suite.  The generated tutorial and taobao
# parsers and serializers with the memory reader (tests/embedded/check.c),
# built freestanding for Cortex-M4 (Thumb-2, FPv4-SP, hard float) with
# -Werror by arm-none-eabi-gcc and by clang, linked -nostdlib with nothing
# but newlib's memcpy, memset, memcmp and memmove (with their __aeabi_mem*
# aliases) and libgcc (so the link
# fails on anything else the parse path would need), run under qemu-arm,
# and compared line for line with the same program built for the host.
#
# qemu-arm's user mode loads no M-profile program, so the Thumb-2 code
# compiled for the M4 runs on qemu's default A-profile CPU, which executes
# the same instructions; the program talks to qemu through two Linux system
# calls (tests/embedded/port_arm.c).
#
# Builds, each "embedded-NAME: N passed, M failed" (cases: -Werror build,
# -nostdlib link, output equal to the host's):
#   m4-gcc     -Os (so no fast path), error texts, FC_CRC_SMALL: equal to the
#              host's default build
#   m4-clang   the same with clang --target=thumbv7em-none-eabihf, and the
#              fast path kept (-DFC_FAST_PATH=1)
# (the output ends with the push reader's lines: each file pushed in pieces
# of 1 byte, 1-37, 1-512 and whole, the reader's records and end each time)
#   m4-min     -Os -DFC_NO_ERRMSG -DFC_NO_FAST_PATH -DFC_CRC_TINY: the host's
#              default output with every text emptied (same statuses, offsets,
#              values)
set -u
featc=$1 build=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/embedded
rm -rf "$out"
mkdir -p "$out/gen"
ARCH="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
STRICT="-std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror"
INC="-I$root/include -I$out/gen -I$root/runtime/core"
CORE="error crc32c frame inflate reader stream seek writer map example built typed hash serialize batch batch_direct batch_seq_direct"

for t in arm-none-eabi-gcc clang qemu-arm; do
    command -v $t >/dev/null 2>&1 || { echo "embedded: $t is missing (make deps)"; echo "embedded: 0 passed, 1 failed"; exit 1; }
done

$featc compile -o "$out/gen" "$root/specs/tutorial.feat" &&
    $featc compile -o "$out/gen" "$root/specs/taobao.feat" &&
    ${PYTHON:-python3} "$root/tests/embedded/records.py" "$out/gen" ||
    { echo "embedded: 0 passed, 1 failed"; exit 1; }

# newlib's four mem* functions (and the ARM EABI's names for them, which
# clang calls), alone in an archive
libc=$(arm-none-eabi-gcc $ARCH -print-file-name=libc.a)
mkdir -p "$out/mem"
(cd "$out/mem" && arm-none-eabi-ar x "$libc" lib_a-memcpy.o lib_a-memset.o lib_a-memcmp.o \
    lib_a-memmove.o lib_a-aeabi_memcpy.o lib_a-aeabi_memset.o lib_a-aeabi_memmove.o &&
    arm-none-eabi-ar rc ../libmem.a lib_a-*.o) ||
    { echo "embedded: newlib's mem* not found in $libc"; echo "embedded: 0 passed, 1 failed"; exit 1; }

# The host's programs: the default build, and the no-texts one.
host() { # NAME CPPFLAGS
    gcc -O2 $STRICT -D_POSIX_C_SOURCE=200809L $INC $2 -o "$out/host-$1" \
        $(for m in $CORE; do echo "$root/runtime/core/$m.c"; done) \
        "$out/gen/tutorial.c" "$out/gen/taobao.c" "$out/gen/records.c" \
        "$root/tests/embedded/check.c" "$root/tests/embedded/port_host.c" -lz &&
        "$out/host-$1" > "$out/host-$1.out"
}
host default "" && host min "-DFC_NO_ERRMSG -DFC_NO_FAST_PATH -DFC_CRC_TINY" ||
    { echo "embedded: the host's build failed"; echo "embedded: 0 passed, 1 failed"; exit 1; }
lines=$(wc -l < "$out/host-default.out")
oks=$(grep -c ': ok ' "$out/host-default.out")
errs=$(grep -c ': parse status' "$out/host-default.out")
if [ "$lines" -lt 480 ] || [ "$oks" -lt 100 ] || [ "$errs" -lt 50 ]; then
    echo "embedded: the host's output is too thin ($lines lines, $oks parsed, $errs refused)"
    echo "embedded: 0 passed, 1 failed"; exit 1
fi
pushed=$(grep -c " records, the reader's\$" "$out/host-default.out")
if [ "$pushed" -ne 8 ] || grep -q "NOT the reader's" "$out/host-default.out"; then
    echo "embedded: the push reader does not give the reader's records on the host:"
    grep " pushed in " "$out/host-default.out"
    echo "embedded: 0 passed, 1 failed"; exit 1
fi
sed 's/ message ".*"$/ message ""/' "$out/host-default.out" > "$out/host-default.notext"
cmp -s "$out/host-default.notext" "$out/host-min.out" || {
    echo "embedded: FC_NO_ERRMSG changes more than the texts:"; diff "$out/host-default.notext" "$out/host-min.out" | head -5; }

status=0
# arm NAME CC CPPFLAGS EXPECTED
arm() {
    name=$1 cc=$2 cpp=$3 want=$4
    dir=$out/$name pass=0 fail=0
    mkdir -p "$dir"
    ok=1
    for src in $(for m in $CORE; do echo "$root/runtime/core/$m.c"; done) \
        "$out/gen/tutorial.c" "$out/gen/taobao.c" "$out/gen/records.c" \
        "$root/tests/embedded/check.c" "$root/tests/embedded/port_arm.c"; do
        $cc -Os -ffreestanding -ffunction-sections -fdata-sections $STRICT $INC \
            -DFC_NO_POSIX -DFC_NO_ZLIB $cpp -c "$src" -o "$dir/$(basename "$src" .c).o" \
            2>>"$dir/build.log" || ok=0
    done
    if [ $ok = 1 ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "embedded-$name: -Werror build failed:"; head -5 "$dir/build.log"; fi
    if [ $ok = 1 ] && arm-none-eabi-gcc $ARCH -nostdlib -Wl,--gc-sections -T "$root/tests/embedded/arm.ld" \
        -o "$dir/check.elf" "$dir"/*.o "$out/libmem.a" -lgcc 2>"$dir/link.log"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); ok=0
        echo "embedded-$name: the -nostdlib link (mem* and libgcc only) failed:"; head -5 "$dir/link.log"
    fi
    if [ $ok = 1 ] && qemu-arm "$dir/check.elf" > "$dir/check.out" && cmp -s "$dir/check.out" "$want"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "embedded-$name: output differs from the host's ($want):"
        [ -f "$dir/check.out" ] && diff "$want" "$dir/check.out" | head -5
    fi
    echo "embedded-$name: $pass passed, $fail failed"
    [ $fail = 0 ] || status=1
}
arm m4-gcc "arm-none-eabi-gcc $ARCH" "-DFC_CRC_SMALL" "$out/host-default.out"
arm m4-clang "clang --target=thumbv7em-none-eabihf $ARCH -fshort-enums -isystem /usr/lib/arm-none-eabi/include" \
    "-DFC_CRC_SMALL -DFC_FAST_PATH=1" "$out/host-default.out"
arm m4-min "arm-none-eabi-gcc $ARCH" "-DFC_NO_ERRMSG -DFC_NO_FAST_PATH -DFC_CRC_TINY" \
    "$out/host-default.notext"
exit $status
