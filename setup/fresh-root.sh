#!/bin/sh
# make test-fresh: the README's quick start, exactly as written, on a fresh
# Debian 12 machine, made here as a clean root:
#   1. debootstrap (minbase) from the Debian mirror this machine's apt uses,
#      with this machine's Debian apt sources, its security updates applied
#      (a fresh machine has them: a package whose source the mirror lacks,
#      say, shows only then), and this machine's CA certificates and the
#      environment variables that point programs at them carried in, as
#      every machine here has them (the package registries are reached
#      through them);
#   2. in the root, through chroot in a mount namespace of its own (so its
#      /proc, /dev and /sys mounts end with it): the README's line for a
#      machine without make and git, a git clone of this tree's HEAD, then
#      each line of the README's quick start block, in turn;
#   3. each step's seconds, and apt's disk space of each tier, on a line of
#      its own (FRESH_DIR/log has them, with every step's output).
# Needs root; takes minutes (both lines of the quick start: about an hour on
# 2 cores).  It is not part of make test; run it whenever setup changes.
#   FRESH_DIR    where the root is made (default /var/tmp/featc-fresh; made anew)
#   FRESH_LINES  how many lines of the quick start block to run (default: all)
#   FRESH_SUITE  debootstrap's suite (default bookworm)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${FRESH_DIR:-/var/tmp/featc-fresh}
suite=${FRESH_SUITE:-bookworm}
root=$dir/root
log=$dir/log

[ "$(id -u)" = 0 ] || { echo "test-fresh: needs root (debootstrap, chroot)" >&2; exit 1; }
commit=$(git -C "$top" rev-parse HEAD)
git -C "$top" diff --quiet HEAD 2>/dev/null ||
    echo "test-fresh: the tree has uncommitted changes: the root clones HEAD ($commit) without them"

# The quick start, from the README: its first ```sh block after the heading.
lines=$(awk '/^## Quick start/ {q = 1} q && /^```sh$/ {b = 1; next} b && /^```$/ {exit} b' \
    "$top/README.md" | sed '/^[[:space:]]*$/d')
[ -n "$lines" ] || { echo "test-fresh: no sh block under README.md's '## Quick start'" >&2; exit 1; }
# and its line for a machine without make and git
prelude="apt-get update && apt-get install -y make git"
grep -qF "$prelude" "$top/README.md" ||
    { echo "test-fresh: README.md no longer says '$prelude': update this script" >&2; exit 1; }

# The mirror: the URIs of this machine's Debian entry for the suite.
sources=/etc/apt/sources.list.d/debian.sources
if [ -f "$sources" ]; then
    mirror=$(awk '/^URIs:/ {u = $2} /^Suites:/ && $2 == "'"$suite"'" {print u; exit}' "$sources")
else
    mirror=$(awk '$1 == "deb" && $3 == "'"$suite"'" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
fi
[ -n "${mirror:-}" ] || { echo "test-fresh: no Debian $suite entry in this machine's apt sources" >&2; exit 1; }

if ! command -v debootstrap >/dev/null 2>&1; then
    sh "$top/setup/apt-install.sh" test-fresh "$dir.deps.log" debootstrap
fi

rm -rf "$dir"
mkdir -p "$dir"
: >"$log"
step() { # step NAME SECONDS [NOTE]
    echo "test-fresh: $1: $2 s${3:+ ($3)}" | tee -a "$log"
}
fail() {
    echo "test-fresh: FAILED at $1 (exit $2); the last lines of $log:" >&2
    tail -n 30 "$log" | sed 's/^/  | /' >&2
    exit 1
}

echo "test-fresh: a clean Debian $suite root in $root, from $mirror; the tree's HEAD $commit" | tee -a "$log"
t0=$(date +%s)
debootstrap --variant=minbase "$suite" "$root" "$mirror" >>"$log" 2>&1 || fail debootstrap $?
step debootstrap $(($(date +%s) - t0))

# This machine's Debian sources (not other vendors' entries), its name
# resolution, and its CA certificates: the bundle, and the extra
# certificates update-ca-certificates adds to it when the root installs
# the ca-certificates package.
mkdir -p "$root/etc/apt/sources.list.d" "$root/usr/local/share/ca-certificates" "$root/etc/ssl/certs"
rm -f "$root/etc/apt/sources.list"
if [ -f "$sources" ]; then
    cp "$sources" "$root/etc/apt/sources.list.d/"
else
    grep -E '^deb(-src)? ' /etc/apt/sources.list | grep debian > "$root/etc/apt/sources.list"
fi
cp /etc/resolv.conf /etc/hosts "$root/etc/" 2>/dev/null || true
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
find /usr/local/share/ca-certificates -name '*.crt' -exec cp {} "$root/usr/local/share/ca-certificates/" \;
# the variables that point programs at the CA bundle (npm's NODE_EXTRA_CA_CERTS
# among them), as this machine's environment sets them
carry=$(env | grep -E '^[A-Z_]*(CA|CERT)[A-Z_]*=/' | grep -vE '[[:space:]]' | tr '\n' ' ')

# The repository, read-only, for git clone inside the root.
mkdir -p "$root/mnt/featc.git"

# in_root SCRIPT: SCRIPT run by sh in the root, as root, with a fresh
# machine's environment, in a mount namespace of its own
in_root() {
    unshare --mount --propagation private sh -c '
        r=$1; src=$2; shift 2
        mount -t proc proc "$r/proc"
        mount --rbind /sys "$r/sys"
        mount --rbind /dev "$r/dev"
        mount -t tmpfs tmpfs "$r/dev/shm"
        mount --bind "$src" "$r/mnt/featc.git"
        mount -o remount,bind,ro "$r/mnt/featc.git"
        exec chroot "$r" "$@"' sh "$root" "$top" \
        env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin $carry \
        sh -c "cd /root && $1"
}

t0=$(date +%s)
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -y -qq upgrade" \
    >>"$log" 2>&1 || fail "the security updates" $?
step "apt-get upgrade (the security updates)" $(($(date +%s) - t0)) \
    "zlib1g $(chroot "$root" dpkg-query -W -f='${Version}' zlib1g 2>/dev/null || echo '?')"

t0=$(date +%s)
in_root "$prelude" >>"$log" 2>&1 || fail "$prelude" $?
step "$prelude" $(($(date +%s) - t0))

t0=$(date +%s)
in_root "git clone -q /mnt/featc.git featc && git -C featc checkout -q $commit" >>"$log" 2>&1 ||
    fail "git clone" $?
step "git clone" $(($(date +%s) - t0))

n=0
max=${FRESH_LINES:-999}
echo "$lines" | while IFS= read -r line; do
    n=$((n + 1))
    [ "$n" -le "$max" ] || break
    echo "test-fresh: running: $line" | tee -a "$log"
    t0=$(date +%s)
    in_root "cd featc && $line" >>"$log" 2>&1 || fail "$line" $?
    space=$(sed -n 's/^\(deps[a-z-]*\): installed in \([0-9]*\) s, \(.*\) on disk.*/\1 \3/p' "$log" |
        tr '\n' ';' | sed 's/;$//; s/;/; /g')
    step "$line" $(($(date +%s) - t0)) "${space:+disk so far: $space; }last line: $(tail -n 1 "$log")"
done || exit 1
echo "test-fresh: passed in a clean Debian $suite root, at $commit" | tee -a "$log"
