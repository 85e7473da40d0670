#!/bin/sh
# The part of `make deps` the cross-target suites need beyond Debian packages
# installed the usual way (DEPS_DEB):
#  - libraries of another architecture that Debian ships no multilib or
#    -cross package for (libprotobuf-c for i386): the Debian package of that
#    architecture, fetched with apt-get download and unpacked, its static
#    library copied to $FEATC_CROSS_LIBS/ARCH (default
#    /usr/local/lib/featc-cross/ARCH); nothing is installed into dpkg's
#    database, so no foreign package has to match the host's versions;
#  - when the kernel cannot run i386 programs itself (no IA-32 emulation, as
#    on some VMs), a binfmt_misc entry that runs them through qemu-i386.
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

# i386 programs: natively, or through qemu-i386 registered with binfmt_misc
printf 'int main(void) { return 0; }\n' > "$tmp/t.c"
gcc -m32 -o "$tmp/t32" "$tmp/t.c"
if ! "$tmp/t32" 2>/dev/null; then
    bm=/proc/sys/fs/binfmt_misc
    [ -e "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm"
    if [ ! -e "$bm/featc-i386" ]; then
        # ELF, 32-bit, little-endian, EM_386, executable or shared object;
        # F: the kernel opens the interpreter now, so it works in any mount
        # namespace
        printf '%s' ':featc-i386:M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-i386:F' \
            > "$bm/register"
    fi
    "$tmp/t32" || { echo "deps: i386 programs still do not run" >&2; exit 1; }
    echo "deps: i386 programs run through qemu-i386 (binfmt_misc)"
fi
