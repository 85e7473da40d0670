#!/bin/sh
# footprint.sh FEATC BUILD [check]: `make footprint`, or with `check`
# (`make test-footprint`) the Cortex-M4 rows the budgets need, and the
# budgets asserted (below: BUDGET_ROM, BUDGET_STACK, and the no-texts row
# against nanopb's).  Builds what a program needs
# of featc for one job (tests/embedded/fp_entry.c: parse; the memory reader
# and parse; parse and serialize) with gcc -Os, function and data sections
# and --gc-sections, for Cortex-M4 (arm-none-eabi-gcc, freestanding,
# -nostdlib with newlib's mem* and libgcc) and for x86-64 (-nostdlib, byte
# loops for mem*), and prints a table of featc's ROM (text + rodata +
# data), its RAM (bss; data is 0), the C library's and libgcc's ROM, and
# the deepest stack below the caller (tests/embedded/footprint.py).
# All builds: -DFC_NO_POSIX -DFC_NO_ZLIB (memory reader, uncompressed).
#
# nanopb, measured the same way: Debian's nanopb sources (tests/cross/deps.sh
# puts them in $FEATC_CROSS_LIBS/nanopb), its generator's code for
# runtime/fallback/fc_example.proto with make bench's options, and a
# decoder for the tutorial's job (tests/embedded/nanopb_tutorial.c), which
# tests/embedded/nanopb_check.c first checks against featc's on the host.
set -eu
featc=$1 build=$2 mode=${3:-table}
# The default -Os Cortex-M4 tutorial parse, with TensorFlow's texts: ROM
# with newlib's mem* and libgcc, and the deepest stack below the caller.
BUDGET_ROM=8192 BUDGET_STACK=512
root=$(cd "$(dirname "$0")/../.." && pwd)
nanopb=${FEATC_CROSS_LIBS:-/usr/local/lib/featc-cross}/nanopb
py=${PYTHON:-python3}
[ -f "$nanopb/pb_decode.c" ] || { echo "footprint: no nanopb sources in $nanopb (make deps)" >&2; exit 1; }
rm -rf "$build/footprint"
mkdir -p "$build/footprint/gen" "$build/footprint/nanopb"
out=$(cd "$build/footprint" && pwd)
$featc compile -o "$out/gen" "$root/specs/tutorial.feat"
$featc compile -o "$out/gen" "$root/specs/taobao.feat"
$py "${NANOPB_GEN:-/usr/bin/nanopb_generator.py}" -q -I "$root/runtime/fallback" \
    -f "$root/tests/bench/fc_example.options" -D "$out/nanopb" "$root/runtime/fallback/fc_example.proto"
NANOPB_INC="-I$nanopb -I$out/nanopb -I$root/tests/embedded"

# nanopb's decoder does the tutorial's job: the same verdicts and values as
# featc's on the embedded test's undamaged records
$py "$root/tests/embedded/records.py" "$out/gen"
gcc -std=c99 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I$root/include -I$out/gen $NANOPB_INC -o "$out/nanopb-check" \
    "$root/tests/embedded/nanopb_check.c" "$root/tests/embedded/nanopb_tutorial.c" \
    "$nanopb/pb_decode.c" "$nanopb/pb_common.c" "$out/nanopb/fc_example.pb.c" "$out/gen/tutorial.c" \
    "$out/gen/records.c" "$build/libfeatc.a" ${LIBS_Z:--lz}
"$out/nanopb-check"
echo
M4="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
COMMON="-std=c99 -Os -ffunction-sections -fdata-sections -fcallgraph-info=su -I$root/include \
    -I$out/gen -I$root/runtime/core -DFC_NO_POSIX -DFC_NO_ZLIB"

libc=$(arm-none-eabi-gcc $M4 -print-file-name=libc.a)
mkdir -p "$out/mem"
(cd "$out/mem" && arm-none-eabi-ar x "$libc" lib_a-memcpy.o lib_a-memset.o lib_a-memcmp.o \
    lib_a-memmove.o && arm-none-eabi-ar rc ../libmem.a lib_a-*.o)

printf '%-8s %-8s %-16s %-34s %6s %6s %6s %6s %6s %6s\n' target spec job switches \
    text rodata bss "parser" "+libs" stack
# row ARCH SPEC JOB SWITCHES
row() {
    arch=$1 spec=$2 job=$3 sw=$4
    dir=$out/$arch-$spec-$job-$(echo "$sw" | tr -c 'A-Za-z0-9\n' '_')
    mkdir -p "$dir"
    case $spec in tutorial) type=tutorial_record ;; taobao) type=taobao_user ;; esac
    bounds=
    case $job in
    parse) mods="error example built hash"; def=-DFP_PARSE ;;
    read+parse) mods="error example built hash frame reader seek crc32c"; def=-DFP_READ ;;
    parse+serialize) mods="error example built hash serialize"; def=-DFP_SERIALIZE ;;
    nanopb-parse) mods=""; def=-DFP_NANOPB
        # one pb_decode_inner per nested message: Example > Features, then
        # the entry's own pb_decode (Example > Features > FeatureEntry);
        # pb_message_set_to_defaults as deep as the static nesting; pb_read
        # skips through itself in 16-byte steps, once; nt_entry, the
        # callback of the Features' entries, is never below itself (inside an
        # entry only nt_take_value is called back)
        bounds=pb_decode_inner:3,pb_message_set_to_defaults:2,pb_read:2,nt_entry:1 ;;
    esac
    if [ "$arch" = m4 ]; then cc="arm-none-eabi-gcc $M4 -ffreestanding"; else cc="gcc -fno-pie"; fi
    for m in $mods; do
        (cd "$dir" && $cc $COMMON $sw -c "$root/runtime/core/$m.c" -o "$m.o")
    done
    if [ "$job" = nanopb-parse ]; then
        for f in "$nanopb/pb_decode.c" "$nanopb/pb_common.c" "$out/nanopb/fc_example.pb.c" \
            "$root/tests/embedded/nanopb_tutorial.c"; do
            (cd "$dir" && $cc $COMMON $NANOPB_INC $sw -c "$f" -o "$(basename "$f" .c).o")
        done
        (cd "$dir" && $cc $COMMON $NANOPB_INC $sw $def -c "$root/tests/embedded/fp_entry.c" -o fp_entry.o)
    else
        (cd "$dir" && $cc $COMMON $sw -c "$out/gen/$spec.c" -o "$spec.o" &&
            $cc $COMMON $sw $def -DFP_HEADER="\"$spec.h\"" -DFP_TYPE=$type \
                -c "$root/tests/embedded/fp_entry.c" -o fp_entry.o)
    fi
    if [ "$arch" = m4 ]; then
        arm-none-eabi-gcc $M4 -nostdlib -Wl,--gc-sections -Wl,--emit-relocs -Wl,-Map,"$dir/map" \
            -T "$root/tests/embedded/arm.ld" -Wl,-e,fp_start -o "$dir/elf" "$dir"/*.o "$out/libmem.a" -lgcc
        a=arm
    else
        gcc -std=c99 -Os -fno-pie -fno-builtin -fno-tree-loop-distribute-patterns -ffunction-sections \
            -c "$root/tests/embedded/mem.c" -o "$dir/mem.o"
        gcc -nostdlib -static -no-pie -Wl,--gc-sections -Wl,--emit-relocs -Wl,-Map,"$dir/map" \
            -Wl,-e,fp_start -o "$dir/elf" "$dir"/*.o -lgcc
        a=x86_64
    fi
    r=$($py "$root/tests/embedded/footprint.py" $a "$dir/elf" "$dir/map" "$dir" fp_entry "$bounds")
    set -- $r
    printf '%-8s %-8s %-16s %-34s %6s %6s %6s %6s %6s %6s\n' "$arch" "$spec" "$job" "${sw:--}" \
        "$1" "$2" "$4" "$5" "$7" "$8"
    [ "$3" = 0 ] || { echo "footprint: featc has $3 bytes of initialised data" >&2; exit 1; }
    echo "$5 $7 $8" > "$dir/row" # parser, +libs, stack
    shift 8
    echo "$*" > "$dir/deepest"
}
# -Os turns the fast path off (include/featc/fc_fast.h); -DFC_FAST_PATH=1
# shows what it costs
for arch in m4 x86-64; do
    [ "$mode" = check ] && [ "$arch" != m4 ] && break
    row $arch tutorial parse ""
    [ "$mode" = check ] || row $arch tutorial parse "-DFC_FAST_PATH=1"
    row $arch tutorial parse "-DFC_NO_ERRMSG"
    if [ "$mode" != check ]; then
        row $arch tutorial read+parse "-DFC_CRC_SMALL"
        row $arch tutorial read+parse "-DFC_CRC_TINY"
        row $arch tutorial read+parse "-DFC_NO_ERRMSG -DFC_CRC_TINY"
        row $arch tutorial parse+serialize ""
        row $arch taobao parse ""
        row $arch tutorial nanopb-parse ""
        row $arch tutorial nanopb-parse "-DPB_BUFFER_ONLY"
    fi
    row $arch tutorial nanopb-parse "-DPB_BUFFER_ONLY -DPB_NO_ERRMSG"
done

if [ "$mode" != check ]; then
    echo "parser: text + rodata + data of featc's runtime and generated code, or of nanopb's library,"
    echo "its generated descriptors and the tutorial decoder written with it (data is 0 in every row);"
    echo "+libs: with the C library's mem* and libgcc's helpers; stack: deepest chain below the caller,"
    echo "in bytes (the chains: $out/*/deepest)"
    echo
fi

# The budgets, from the rows' figures (deterministic for one compiler)
pass=0 fail=0
budget() { # WHAT VALUE LIMIT
    if [ "$2" -le "$3" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "footprint: FAIL: $1 is $2 bytes, over its budget of $3" >&2
    fi
}
read -r def_rom def_libs def_stack < "$out/m4-tutorial-parse-/row"
read -r min_rom min_libs min_stack < "$out/m4-tutorial-parse-_DFC_NO_ERRMSG/row"
read -r pb_rom pb_libs pb_stack < "$out/m4-tutorial-nanopb-parse-_DPB_BUFFER_ONLY__DPB_NO_ERRMSG/row"
budget "the default M4 parse's ROM with libs" "$def_libs" $BUDGET_ROM
budget "the default M4 parse's stack" "$def_stack" $BUDGET_STACK
budget "the no-texts M4 parse's stack" "$min_stack" $BUDGET_STACK
budget "the no-texts M4 parse's ROM (nanopb PB_BUFFER_ONLY PB_NO_ERRMSG: $pb_rom)" "$min_rom" "$pb_rom"
budget "the no-texts M4 parse's ROM with libs (nanopb's: $pb_libs)" "$min_libs" "$pb_libs"
echo "footprint: $pass passed, $fail failed"
[ "$fail" = 0 ]
