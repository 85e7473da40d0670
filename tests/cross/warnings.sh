#!/bin/sh
# warnings.sh MAKE BUILD CROSS_LIBS: builds the libraries, featc and two
# generated drivers under every compiler and switch featc supports, each into
# BUILD/warn/NAME, with the project's -Werror warnings; one case per build,
# "warnings-NAME: 1 passed, 0 failed".  (The i386 and s390x builds of
# test-i386 and test-s390x cover gcc -m32 and clang on big-endian.)
#
# Then targets with no libraries to link against, compiled only (-c): every
# runtime source and the generated tutorial, taobao and movie (a
# SequenceExample spec) code, for riscv64 with clang (the C library's
# headers from libc6-dev-riscv64-cross, zlib's own headers, which are the
# same on every target) and for Cortex-M4 with arm-none-eabi-gcc and clang,
# freestanding, every core source (test-embedded links a subset of them).
set -u
make=$1 build=$2 libs=$3
pass=0 fail=0
# NAME|CC|CPPFLAGS|LIBS_FALLBACK
while IFS='|' read -r name cc cpp fb; do
    [ -n "$name" ] || continue
    out=$build/warn/$name
    log=$build/warn/$name.log
    mkdir -p "$build/warn"
    if $make -s -j2 BUILD="$out" CC="$cc" CPPFLAGS="$cpp" LIBS_FALLBACK="${fb:--lprotobuf-c}" \
        "$out/libfeatc.a" "$out/libfeatc_compiler.a" "$out/featc" \
        "$out/specs/tutorial" "$out/specs/taobao" >"$log" 2>&1; then
        echo "warnings-$name: 1 passed, 0 failed"
    else
        echo "warnings-$name: 0 passed, 1 failed"
        grep -E 'error|warning' "$log" | grep -v '^[a-z+-]*cc \|^clang ' | head -5 | sed 's/^/    /'
        fail=1
    fi
done <<LIST
clang|clang||
clang-m32|clang -m32||-L$libs/i386 -lprotobuf-c
gcc-no-hw-crc|gcc|-DFC_NO_HW_CRC|
clang-no-hw-crc|clang|-DFC_NO_HW_CRC|
gcc-no-posix|gcc|-DFC_NO_POSIX|
clang-no-posix|clang|-DFC_NO_POSIX|
LIST

# compile-only targets
gen=$build/warn/gen
mkdir -p "$gen/zlib"
ln -sf /usr/include/zlib.h /usr/include/zconf.h "$gen/zlib/"
genok=1
for s in tutorial taobao movie; do
    "$build/featc" compile -o "$gen" "specs/$s.feat" || genok=0
done
WARN="-std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror"
M4="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
# NAME|CC and flags|sources (globs)
while IFS='|' read -r name cc srcs; do
    [ -n "$name" ] || continue
    log=$build/warn/$name.log
    ok=$genok
    : > "$log"
    for f in $srcs "$gen/tutorial.c" "$gen/taobao.c" "$gen/movie.c"; do
        $cc $WARN -Iinclude -I"$gen" -Iruntime/core -c "$f" -o "$build/warn/$name.o" >>"$log" 2>&1 ||
            { ok=0; echo "  in $f" >> "$log"; }
    done
    rm -f "$build/warn/$name.o"
    if [ $ok = 1 ]; then
        echo "warnings-$name: 1 passed, 0 failed"
    else
        echo "warnings-$name: 0 passed, 1 failed"
        grep -E 'error|warning|  in ' "$log" | head -5 | sed 's/^/    /'
        fail=1
    fi
done <<LIST
clang-riscv64|clang --target=riscv64-linux-gnu -nostdlibinc -isystem /usr/riscv64-linux-gnu/include -isystem $gen/zlib -O2 -D_POSIX_C_SOURCE=200809L|runtime/core/*.c runtime/hosted/*.c
gcc-cortex-m4|arm-none-eabi-gcc $M4 -ffreestanding -Os -DFC_NO_POSIX -DFC_NO_ZLIB|runtime/core/*.c
clang-cortex-m4|clang --target=thumbv7em-none-eabihf $M4 -fshort-enums -isystem /usr/lib/arm-none-eabi/include -ffreestanding -Os -DFC_NO_POSIX -DFC_NO_ZLIB|runtime/core/*.c
LIST
exit $fail
