#!/bin/sh
# run.sh FEATC BUILD: test-export.  For every spec of specs/, tests/specs/ and
# tests/export/ (keys that are not UTF-8):
# `featc export --tf` against the descriptors of the C featc generates for
# the same spec (desc.c prints them, check.py runs the export against a
# stand-in tf module and compares).  One line per spec.
set -u
featc=$1 build=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/export
rm -rf "$out"
mkdir -p "$out"
status=0
for spec in "$root"/specs/*.feat "$root"/tests/specs/*.feat "$root"/tests/export/*.feat; do
    name=$(basename "$spec" .feat)
    dir=$out/$name
    mkdir -p "$dir"
    if ! "$featc" compile -o "$dir" "$spec" 2>"$dir/log" ||
        ! "$featc" export --tf -o "$dir/export.py" "$spec" 2>>"$dir/log"; then
        echo "export-$name: 0 passed, 1 failed"; head -5 "$dir/log"; status=1; continue
    fi
    list=$(sed -n 's/^extern const fc_message_desc \([a-z0-9_]*\);$/X_EXAMPLE(\1)/p;
                   s/^extern const fc_seq_desc \([a-z0-9_]*\);$/X_SEQUENCE(\1)/p' "$dir/$name.h" | tr '\n' ' ')
    if ! ${CC:-cc} -std=c99 -I"$root/include" -I"$dir" -DDESC_HEADER="\"$name.h\"" -DDESC_LIST="$list" \
        -o "$dir/desc" "$root/tests/export/desc.c" "$dir/$name.c" "$build/libfeatc.a" ${LIBS_Z:--lz} -lm 2>>"$dir/log" ||
        ! "$dir/desc" > "$dir/desc.json"; then
        echo "export-$name: 0 passed, 1 failed"; head -5 "$dir/log"; status=1; continue
    fi
    ${PYTHON:-python3} "$root/tests/export/check.py" "$dir/export.py" "$dir/desc.json" "$name" || status=1
done
exit $status
