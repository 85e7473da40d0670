#!/bin/sh
# suites.sh NAME MAKE SUITE... -- MAKE-VARIABLES...: runs the suites in a
# sub-make with the variables given (another BUILD folder, another CC), and
# prefixes each "<suite>: N passed, M failed" line with NAME- so that the
# cross-target counts stand apart from the host's.  Every suite runs even
# after a failure (make -k).  Exits with the sub-make's status.
set -u
name=$1 make=$2
shift 2
suites=
while [ $# -gt 0 ] && [ "$1" != -- ]; do suites="$suites $1"; shift; done
[ $# -gt 0 ] && shift
rcfile=$(mktemp "${TMPDIR:-/tmp}/featc-suites.XXXXXX")
trap 'rm -f "$rcfile"' EXIT
{ $make --no-print-directory -s -k "$@" $suites 2>&1; echo $? > "$rcfile"; } |
    sed "s/^\([A-Za-z0-9_-]*\): \([0-9]* passed, [0-9]* failed\)\$/$name-\1: \2/"
exit "$(cat "$rcfile")"
