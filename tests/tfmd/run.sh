#!/bin/sh
# featc import --tfmd against goldens (make test-tfmd).  For each NAME.pbtxt
# here, `featc import --tfmd` with the options of its `# featc-import:` line:
#   err-NAME.pbtxt  exit status 1, and stderr equal to NAME.expected;
#   NAME.pbtxt      exit status 0, the spec equal to NAME.feat and the
#                   warnings to NAME.warnings; the spec compiles (featc
#                   compile), and with a `# featc-data: FILE` line it reads
#                   that corpus file with every record good (check --data).
#   sh tests/tfmd/run.sh FEATC CORPUS OUT          compare
#   sh tests/tfmd/run.sh FEATC CORPUS OUT update   rewrite the goldens for review
featc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
corpus=$(cd "$2" && pwd)
out=$3
mode=${4:-compare}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")" || exit 1
pass=0 fail=0
bad() {
    echo "FAIL $1"
    fail=$((fail + 1))
}
for schema in *.pbtxt; do
    name=${schema%.pbtxt}
    opts=$(sed -n 's/^# featc-import: //p' "$schema")
    data=$(sed -n 's/^# featc-data: //p' "$schema")
    # shellcheck disable=SC2086
    "$featc" import --tfmd $opts "$schema" >"$out/$name.feat" 2>"$out/$name.err"
    rc=$?
    case $name in
    err-*)
        if [ "$mode" = update ]; then cp "$out/$name.err" "$name.expected"; continue; fi
        if [ $rc -ne 1 ]; then
            bad "$name: exit status $rc, expected 1"
        elif ! cmp -s "$out/$name.err" "$name.expected"; then
            bad "$name: diagnostics differ from $name.expected:"
            diff "$name.expected" "$out/$name.err" | head -20
        elif [ -s "$out/$name.feat" ]; then
            bad "$name: a spec written for a schema with errors"
        else
            pass=$((pass + 1))
        fi
        continue
        ;;
    esac
    if [ "$mode" = update ]; then
        cp "$out/$name.feat" "$name.feat"
        cp "$out/$name.err" "$name.warnings"
        continue
    fi
    if [ $rc -ne 0 ]; then
        bad "$name: exit status $rc"; cat "$out/$name.err"; continue
    fi
    if ! cmp -s "$out/$name.feat" "$name.feat"; then
        bad "$name: the spec differs from $name.feat:"; diff "$name.feat" "$out/$name.feat" | head -20
        continue
    fi
    if ! cmp -s "$out/$name.err" "$name.warnings"; then
        bad "$name: the warnings differ from $name.warnings:"
        diff "$name.warnings" "$out/$name.err" | head -20
        continue
    fi
    if ! "$featc" compile -o "$out/$name" "$name.feat" >/dev/null 2>"$out/$name.compile"; then
        bad "$name: the spec does not compile:"; head -5 "$out/$name.compile"; continue
    fi
    if [ -n "$data" ] && ! "$featc" check "$name.feat" --data "$corpus/$data" >"$out/$name.data" 2>&1; then
        bad "$name: the spec does not read $data:"; head -5 "$out/$name.data"; continue
    fi
    pass=$((pass + 1))
done
[ "$mode" = update ] && { echo "tfmd: goldens rewritten; review with git diff tests/tfmd"; exit 0; }

# memory linear in the schema: a string domain of 100,000 values (2.6 MB;
# TFX vocabularies run to tens of thousands) imports in under 200 MB (each
# string took a block the size of the rest of the file: 5,000 values took
# 337 MB, 100,000 would take some 130 GB)
awk 'BEGIN { printf "feature { name: \"city\" type: BYTES presence { min_fraction: 1 }"
             printf " shape { dim { size: 1 } } string_domain {"
             for (i = 0; i < 100000; i++) printf " value: \"v%06d_xxxxxxxx\"", i
             print " } }" }' > "$out/domain.pbtxt"
if /usr/bin/time -f %M -o "$out/domain.rss" "$featc" import --tfmd "$out/domain.pbtxt" \
    >"$out/domain.feat" 2>"$out/domain.err" && grep -q 'city' "$out/domain.feat"; then
    kb=$(tail -n 1 "$out/domain.rss")
    [ "$kb" -lt 204800 ] && pass=$((pass + 1)) ||
        bad "a 100,000-value string domain took $kb KB (budget 200 MB)"
else
    bad "a 100,000-value string domain: $(head -3 "$out/domain.err")"
fi
# out of memory is said, not an exit 1 without a word (ulimit -v: not under
# ASan, whose shadow memory needs terabytes of address space)
if [ -z "${ASAN_OPTIONS:-}" ]; then
    (ulimit -v 12000; "$featc" import --tfmd "$out/domain.pbtxt" >/dev/null 2>"$out/oom.err")
    rc=$?
    [ $rc -eq 1 ] && grep -q 'out of memory' "$out/oom.err" && pass=$((pass + 1)) ||
        bad "import under ulimit -v 12000: exit $rc, $(head -2 "$out/oom.err")"
fi
echo "tfmd: $pass passed, $fail failed"
[ $fail -eq 0 ]
