#!/bin/sh
# The part of `make deps` the cross-target suites need beyond Debian packages
# installed the usual way (DEPS_DEB):
#  - libraries of another architecture that Debian ships no multilib or
#    -cross package for (libprotobuf-c for i386; zlib and libprotobuf-c for
#    s390x, the big-endian target): the Debian package of that
#    architecture, fetched with apt-get download and unpacked, its static
#    library copied to $FEATC_CROSS_LIBS/ARCH (default
#    /usr/local/lib/featc-cross/ARCH); nothing is installed into dpkg's
#    database, so no foreign package has to match the host's versions;
#  - the C sources of nanopb, which Debian ships only as an x86-64 static
#    library: `make footprint` builds them for Cortex-M4 to set nanopb's
#    size beside featc's.  The source package of the installed nanopb
#    (the same version as its generator), fetched with apt-get source
#    through deb-src entries made from the machine's own deb entries, in a
#    private list directory, so the system's apt configuration is left as
#    it is; pb*.c, pb*.h and the licence go to $FEATC_CROSS_LIBS/nanopb;
#  - zlib and protobuf-c's runtime for riscv64, which Debian 12 has no
#    packages of: built from the source packages of the host's versions,
#    fetched the same way, with the suite's compiler;
#  - when the kernel cannot run i386, s390x or riscv64 programs itself (no
#    IA-32 emulation, as on some VMs; another architecture), a binfmt_misc
#    entry that runs them through qemu-i386, qemu-s390x or qemu-riscv64.
# Idempotent; needs root.  usage: deps.sh
set -eu
dest=${FEATC_CROSS_LIBS:-/usr/local/lib/featc-cross}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/featc-cross.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# fetch ARCH PACKAGE FILE: $dest/ARCH/FILE from PACKAGE:ARCH's usr/lib/TRIPLET/
fetch() {
    [ -f "$dest/$1/$3" ] && return 0
    if ! dpkg --print-foreign-architectures | grep -qx "$1"; then
        dpkg --add-architecture "$1"
    fi
    # a foreign index that is mid-sync on the mirror must not stop us: the
    # download below says whether the package could be had
    apt-get update -qq >/dev/null 2>&1 || true
    (cd "$tmp" && apt-get download -qq "$2:$1" >/dev/null 2>&1) ||
        { echo "deps: cannot download $2:$1 from Debian" >&2; exit 1; }
    dpkg-deb -x "$tmp/$2"_*_"$1".deb "$tmp/root-$1"
    mkdir -p "$dest/$1"
    find "$tmp/root-$1" -name "$3" -exec cp {} "$dest/$1/" \;
    [ -f "$dest/$1/$3" ] || { echo "deps: $2:$1 has no $3" >&2; exit 1; }
    echo "deps: $dest/$1/$3 (from Debian's $2:$1)"
}

fetch i386 libprotobuf-c-dev libprotobuf-c.a
fetch s390x libprotobuf-c-dev libprotobuf-c.a
fetch s390x zlib1g-dev libz.a

# source PACKAGE VERSION: the source package unpacked into $tmp/src/PACKAGE
# (its first folder), fetched with apt-get source through deb-src entries
# made from the machine's own deb entries, in a private list directory, so
# the system's apt configuration is left as it is
source_of() {
    s=$tmp/apt-src
    if [ ! -d "$s/lists" ]; then
        mkdir -p "$s/parts" "$s/lists/partial"
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" > "$s/parts/$(basename "$f")"
        done
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -f "$f" ] && sed -n 's/^deb /deb-src /p' "$f" >> "$s/parts/from-lists.list"
        done
        apt-get $(apt_o) -qq update >/dev/null 2>&1 || true
    fi
    mkdir -p "$tmp/src/$1"
    # Only the upstream tarball (*.orig.tar.*) is used, and every Debian
    # revision of one upstream version has the same one: when the exact
    # version's source cannot be had (a security update's source is often
    # missing from the mirror while its binary is installed), the newest
    # other revision of the same upstream version serves as well.
    # (POSIX sh has no locals: the callers' v is left alone; the version
    # fetched is in got)
    for got in "$2" $(same_upstream "$1" "$2"); do
        g=$s/get/$1/$got
        mkdir -p "$g"
        if (cd "$g" && apt-get $(apt_o) -qq source --download-only "$1=$got" >/dev/null 2>&1); then
            [ "$got" = "$2" ] ||
                echo "deps: the source of $1 $2 cannot be had; using $got's (the same upstream tarball)"
            tar -xf "$g/$1"_*.orig.tar.* -C "$tmp/src/$1" ||
                { echo "deps: cannot unpack $1 $got's source" >&2; return 1; }
            return 0
        fi
    done
    up=$(upstream "$2")
    echo "deps: cannot download the source of $1 $2 (upstream $up) from Debian, nor of another" \
         "revision of $up: the mirrors of the deb entries in /etc/apt serve neither (deps.sh asks their deb-src side)." \
         "Only the cross-target suites need it: with a deb-src line for a Debian mirror that" \
         "has $1 $up, run 'sh tests/cross/deps.sh' again" >&2
    return 1
}
# upstream VERSION: VERSION without its epoch and Debian revision
upstream() {
    u=${1#*:}
    echo "${u%-*}"
}
# same_upstream PACKAGE VERSION: the other versions of PACKAGE's source that
# the deb-src entries list with VERSION's upstream version, newest first
same_upstream() {
    want=$(upstream "$2")
    apt-cache $(apt_o) showsrc "$1" 2>/dev/null |
        awk -v p="$1" '/^Package: /{ok = ($2 == p)} ok && /^Version: /{print $2}' | sort -u |
        while read -r v; do
            [ "$v" != "$2" ] && [ "$(upstream "$v")" = "$want" ] && echo "$v"
        done | sort_versions
}
# sort_versions: the versions on standard input, newest first (dpkg's order)
sort_versions() {
    set --
    while read -r v; do set -- "$@" "$v"; done
    while [ $# -gt 0 ]; do
        best=$1
        for v in "$@"; do dpkg --compare-versions "$v" gt "$best" && best=$v; done
        echo "$best"
        rest=
        for v in "$@"; do [ "$v" = "$best" ] || rest="$rest $v"; done
        set -- $rest
    done
}
apt_o() {
    echo "-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$tmp/apt-src/parts" \
         "-o Dir::State::Lists=$tmp/apt-src/lists"
}

# nanopb's sources, the version of the installed generator
nanopb_src() {
    [ -f "$dest/nanopb/pb_decode.c" ] && return 0
    v=$(dpkg-query -W -f='${Version}' nanopb) ||
        { echo "deps: nanopb is not installed" >&2; exit 1; }
    source_of nanopb "$v" || exit 1
    mkdir -p "$dest/nanopb"
    for f in pb.h pb_common.c pb_common.h pb_decode.c pb_decode.h pb_encode.c pb_encode.h LICENSE.txt; do
        cp "$tmp/src/nanopb"/nanopb-*/"$f" "$dest/nanopb/" ||
            { echo "deps: nanopb $v's source has no $f" >&2; exit 1; }
    done
    echo "deps: $dest/nanopb (nanopb $got's C sources, from Debian's source package)"
}
# riscv64: Debian 12 has no riscv64 port to download libraries from, so
# zlib and protobuf-c's runtime are built from the source packages of the
# host's versions, with the compiler the suite uses
RISCV64_CC=${RISCV64_CC:-clang --target=riscv64-linux-gnu}
cross_build() { # cross_build ARCH "CC" PACKAGE LIB FOLDER-IN-SOURCE FILE...
    arch=$1 cc=$2 pkg=$3 lib=$4 sub=$5
    shift 5
    [ -f "$dest/$arch/$lib" ] && return 0
    v=$(dpkg-query -W -f='${source:Version}' "$pkg") ||
        { echo "deps: $pkg is not installed" >&2; exit 1; }
    src=$(dpkg-query -W -f='${source:Package}' "$pkg")
    source_of "$src" "$v" || exit 1
    top=$(echo "$tmp/src/$src"/*/)
    mkdir -p "$tmp/obj-$arch-$src" "$dest/$arch"
    for f in "$@"; do
        $cc -O2 -fPIC -D_POSIX_C_SOURCE=200809L -DHAVE_UNISTD_H -DHAVE_STDARG_H -I"$top" \
            -I"$top/$sub" -c "$top/$sub/$f" -o "$tmp/obj-$arch-$src/${f%.c}.o" ||
            { echo "deps: cannot build $src's $f for $arch" >&2; exit 1; }
    done
    "$arch-linux-gnu-ar" rcs "$dest/$arch/$lib" "$tmp/obj-$arch-$src"/*.o
    echo "deps: $dest/$arch/$lib (built from Debian's source of $src $got)"
}
cross_build riscv64 "$RISCV64_CC" zlib1g-dev libz.a . adler32.c crc32.c deflate.c infback.c \
    inffast.c inflate.c inftrees.c trees.c zutil.c compress.c uncompr.c gzclose.c gzlib.c \
    gzread.c gzwrite.c
cross_build riscv64 "$RISCV64_CC" libprotobuf-c-dev libprotobuf-c.a protobuf-c protobuf-c.c

# only `make footprint` needs them: a failure here does not stop the tests
(nanopb_src) || echo "deps: without nanopb's sources, make footprint cannot run; make test can" >&2

# register NAME MAGIC MASK QEMU: a binfmt_misc entry (F: the kernel opens the
# interpreter now, so it works in any mount namespace)
register() {
    bm=/proc/sys/fs/binfmt_misc
    [ -e "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm"
    [ -e "$bm/$1" ] || printf '%s' ":$1:M::$2:$3:$4:F" > "$bm/register"
}
# runs CC ... NAME MAGIC MASK QEMU: programs of that compiler run, natively or
# through qemu-user
runs() {
    printf 'int main(void) { return 0; }\n' > "$tmp/t.c"
    $1 -o "$tmp/t" "$tmp/t.c"
    "$tmp/t" 2>/dev/null && return 0
    register "$2" "$3" "$4" "$5"
    "$tmp/t" || { echo "deps: $2 programs still do not run" >&2; exit 1; }
    echo "deps: programs of '$1' run through $5 (binfmt_misc $2)"
}
# ELF, 32-bit, little-endian, EM_386 (3), executable or shared object
runs "gcc -m32" featc-i386 \
    '\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00' \
    '\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff' \
    /usr/bin/qemu-i386
# ELF, 64-bit, big-endian, EM_S390 (22), executable or shared object
runs "clang --target=s390x-linux-gnu -static" featc-s390x \
    '\x7fELF\x02\x02\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x16' \
    '\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff' \
    /usr/bin/qemu-s390x
# ELF, 64-bit, little-endian, EM_RISCV (243), executable or shared object
runs "$RISCV64_CC -static" featc-riscv64 \
    '\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xf3\x00' \
    '\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff' \
    /usr/bin/qemu-riscv64
