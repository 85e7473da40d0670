#!/bin/sh
# One tier of `make deps`: the Debian packages named, installed with apt-get
# when run as root (quietly: apt's output goes to LOG, and its end is shown
# when it fails), or the `sudo apt-get install` line that would install them.
# With --check, installs nothing: says which are missing and fails, so that
# `make test` on a machine without the test tier says what to run.
#   apt-install.sh [--check] TIER LOG PACKAGE...
set -u
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
tier=$1 log=$2
shift 2

if ! command -v dpkg-query >/dev/null 2>&1; then
    [ "$check" = 1 ] && exit 0     # not Debian: the suites say what they miss
    echo "$tier: no dpkg-query: this is not a Debian system; install the equivalents of: $*"
    exit 1
fi
missing=
for p in "$@"; do
    # installed, not merely known to dpkg (a removed package keeps its
    # configuration files and a status)
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
        missing="$missing $p"
done
if [ -z "$missing" ]; then
    [ "$check" = 1 ] || echo "$tier: all $# Debian packages present"
    exit 0
fi
if [ "$check" = 1 ]; then
    echo "$tier: missing Debian packages:$missing"
    echo "$tier: run 'make $tier' first (as root, or it prints the sudo line)"
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "$tier: missing Debian packages:$missing"
    echo "$tier: run: sudo apt-get install -y --no-install-recommends$missing"
    echo "$tier: then 'make $tier' again"
    exit 1
fi

n=$(echo $missing | wc -w)
echo "$tier: installing $n Debian packages:$missing"
mkdir -p "$(dirname "$log")"
t0=$(date +%s)
if ! apt-get update -qq >"$log" 2>&1; then
    tail -n 15 "$log" | sed 's/^/  | /'
    echo "$tier: apt-get update failed (above; the whole output in $log): check /etc/apt/sources.list* and the network"
    exit 1
fi
# the line apt prints of the disk space the packages take
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >>"$log" 2>&1; then
    tail -n 15 "$log" | sed 's/^/  | /'
    echo "$tier: apt-get install failed (above; the whole output in $log)"
    exit 1
fi
space=$(sed -n 's/^After this operation, \(.*\) of additional disk space will be used\.$/\1/p' "$log" | tail -n 1)
echo "$tier: installed in $(($(date +%s) - t0)) s${space:+, $space on disk} (apt's output: $log)"
