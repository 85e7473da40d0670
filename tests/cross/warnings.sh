#!/bin/sh
# warnings.sh MAKE BUILD CROSS_LIBS: builds the libraries, featc and two
# generated drivers under every compiler and switch featc supports, each into
# BUILD/warn/NAME, with the project's -Werror warnings; one case per build,
# "warnings-NAME: 1 passed, 0 failed".  (The i386 and s390x builds of
# test-i386 and test-s390x cover gcc -m32 and clang on big-endian.)
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
exit $fail
