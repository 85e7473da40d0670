#!/bin/sh
# featc cat | count | verify against every file of the corpus (tests/corpus), as
# MANIFEST.tsv describes it, plus exact values, options and exit codes.
# usage: test_cli.sh FEATC CORPUS BUILD
set -u
featc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
corpus=$2
build=$3
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/featc-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# expect_rc WANT DESC CMD...: runs CMD, output in $tmp/out and $tmp/err
# (POSIX sh has no local variables: helper variables start with an underscore)
expect_rc() {
    _want=$1; _desc=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    _rc=$?
    if [ "$_rc" -eq "$_want" ]; then ok; else bad "$_desc: exit $_rc, want $_want: $(head -c 300 "$tmp/err")"; fi
}
# timed NAME CMD...: runs CMD, its seconds noted for the "cli-seconds:" line
# at the end (in the suite's log: where the time of the CLI suite goes, which
# the cross and sanitizer lanes run too)
_start=$(date +%s)
_times=
timed() {
    _n=$1; shift
    _t0=$(date +%s)
    "$@"
    _rc=$?
    _times="$_times $_n=$(($(date +%s) - _t0))"
    return $_rc
}
# has FILE TEXT DESC: FILE contains TEXT (fixed string)
has() {
    if grep -qF -- "$2" "$1"; then ok; else bad "$3: '$2' not in: $(head -c 400 "$1")"; fi
}

[ -f "$corpus/MANIFEST.tsv" ] || { echo "cli: corpus not found at $corpus"; echo "cli: 0 passed, 1 failed"; exit 1; }

# ---- every manifest row
tail -n +2 "$corpus/MANIFEST.tsv" > "$tmp/rows"
while IFS='	' read -r file repo path comp records type sha size commit blob lic framing cat; do
    f="$corpus/$file"
    _sum=$(sha256sum "$f" | cut -d' ' -f1)
    [ "$_sum" = "$sha" ] && ok || bad "$file: sha256 $_sum, but MANIFEST.tsv says $sha"
    if [ "$framing" = yes ]; then
        expect_rc 0 "count $file" "$featc" count "$f"
        [ "$(cut -d' ' -f1 "$tmp/out")" = "$records" ] && ok || bad "count $file: $(cat "$tmp/out"), want $records"
        expect_rc 0 "verify $file" "$featc" verify "$f"
        has "$tmp/out" ": OK: $records record" "verify $file"
        has "$tmp/out" ", $comp, " "compression of $file"
        case $cat in
        A|B|C|D)
            if [ "$cat" = D ]; then want='"type":"SequenceExample"'; else want='"type":"Example"'; fi
            expect_rc 0 "cat $file" "$featc" cat --json "$f"
            n=$(grep -cF "$want" "$tmp/out")
            [ "$n" = "$records" ] && ok || bad "cat $file: $n records of $want, want $records"
            expect_rc 0 "cat (text) $file" "$featc" cat "$f"
            ;;
        E)
            [ -s "$f" ] || true
            expect_rc 0 "cat empty $file" "$featc" cat --json "$f"
            [ ! -s "$tmp/out" ] && ok || bad "cat $file printed something"
            ;;
        F)
            expect_rc 1 "cat look-alike $file" "$featc" cat --json "$f"
            n=$(grep -cF '"error":"not an Example or SequenceExample: ' "$tmp/out")
            [ "$n" = "$records" ] && ok || bad "cat $file: $n of $records reported as not Examples"
            has "$tmp/err" "record 0: not an Example or SequenceExample" "cat $file stderr"
            expect_rc 1 "verify --examples $file" "$featc" verify --examples "$f"
            has "$tmp/out" "FAILED: $records of $records records are not Examples" "verify --examples $file"
            ;;
        esac
    else
        expect_rc 2 "verify damaged $file" "$featc" verify "$f"
        has "$tmp/out" "FAILED: " "verify $file"
        expect_rc 2 "count damaged $file" "$featc" count "$f"
    fi
done < "$tmp/rows"

# ---- the damaged files fail with the right kind of error at the right offset
expect_rc 2 "myints_r" "$featc" verify "$corpus/dfalbel-tfrecords__myints_r.tfrecords.gz"
has "$tmp/out" "corrupted record at 0 (Is this even a TFRecord file?): record 0: length CRC mismatch (stored 0x746e695f, computed 0xa782f4fb" "myints_r"
expect_rc 2 "pets" "$featc" verify "$corpus/tf-models-CRLF-DAMAGED__pets_examples.record"
has "$tmp/out" "corrupted record at 12: record 0 (header at offset 0, 18430 data bytes): data CRC mismatch (stored 0x9afa46e8, computed 0x52e09282)" "pets"
expect_rc 2 "serengeti" "$featc" verify "$corpus/tf-models-CRLF-DAMAGED__snapshot_serengeti_sequence_examples.record"
has "$tmp/out" "truncated record at 0: record 0 declares 820669 data bytes" "serengeti"
# skipping corrupt records: the pets file's second header is garbage, still an error
expect_rc 2 "pets --crc=skip" "$featc" count --crc=skip "$corpus/tf-models-CRLF-DAMAGED__pets_examples.record"
has "$tmp/err" "corrupted record at 18446: record 1: length CRC mismatch" "pets skip"
# the payload of the damaged pets record is still an Example under --crc=none up to the damage
expect_rc 2 "pets --crc=none" "$featc" cat --crc=none --json "$corpus/tf-models-CRLF-DAMAGED__pets_examples.record"

# ---- exact values
expect_rc 0 "pwnall json" "$featc" cat --json "$corpus/pwnall-tfrecord__data.tfrecord"
echo '{"record":0,"type":"Example","features":{"answer":{"int64_list":[42]},"name":{"bytes_list":["ABC"]},"pi":{"float_list":[3.14]}}}' > "$tmp/want"
cmp -s "$tmp/out" "$tmp/want" && ok || bad "pwnall json: $(cat "$tmp/out")"
expect_rc 0 "singles text" "$featc" cat "$corpus/pwnall-tfrecord__singles.tfrecords"
has "$tmp/out" "# $corpus/pwnall-tfrecord__singles.tfrecords record 1 (29 bytes at offset 40): Example" "singles header"
has "$tmp/out" "        value: 3.14" "singles float"
has "$tmp/out" 'value: "@ABCD"' "singles bytes"
expect_rc 0 "ydf empty Feature" "$featc" cat --json "$corpus/ydf__toy.nocompress-tfe-tfrecord-00000-of-00002"
has "$tmp/out" '"Bool_2":{}' "empty Feature{} shown as {}"
expect_rc 0 "tfx-addons empty list" "$featc" cat --json "$corpus/tfx-addons__sampling_Split-eval_data_tfrecord-00000-of-00001.gz"
has "$tmp/out" '"label":{"int64_list":[]}' "empty int64_list"
expect_rc 0 "negative int64" "$featc" cat --json "$corpus/tf-ecosystem__tf-records_part-m-00000"
n=$(grep -c '"data":{"int64_list":\[[0-9],-' "$tmp/out")
[ "$n" = 3 ] && ok || bad "negative int64 values: $n of 3"
expect_rc 0 "sequence json" "$featc" cat --json "$corpus/tf-transform__sequence_example_data_tfrecord.gz"
has "$tmp/out" '{"record":0,"type":"SequenceExample","context":{"float_feature":{"float_list":[1,2,3,4]},"int_feature":{"int64_list":[0]}},"feature_lists":{"int_feature":[{"int64_list":[1,2]},{"int64_list":[3,4]}],"string_feature":[{"bytes_list":["Hello","World"]},{"bytes_list":[]}]}}' "sequence json"
expect_rc 0 "sequence text" "$featc" cat "$corpus/pytorch-data__sequence_example.tfrecord"
has "$tmp/out" "feature_lists {" "sequence text"
expect_rc 0 "two files" "$featc" cat --json "$corpus/pwnall-tfrecord__data.tfrecord" "$corpus/pwnall-tfrecord__data.tfrecord"
has "$tmp/out" '{"file":"' "file key with several files"
expect_rc 0 "binary bytes as base64" "$featc" cat --json "$corpus/tfrecord_lite__images.tfrecord"
has "$tmp/out" '"image_raw":{"bytes_list":[{"base64":"/9j/' "jpeg bytes"
expect_rc 0 "binary bytes as latin-1 code points" "$featc" cat --json --json-bytes=latin1 "$corpus/tfrecord_lite__images.tfrecord"
has "$tmp/out" '"image_raw":{"bytes_list":["\u00ff\u00d8\u00ff' "jpeg bytes, latin1"
expect_rc 0 "lenient ELWC" "$featc" cat --lenient --json "$corpus/tf-ranking__train_elwc.tfrecord"
expect_rc 0 "count several" "$featc" count "$corpus/pwnall-tfrecord__data.tfrecord" "$corpus/tfx__mnist.tfrecord"
has "$tmp/out" "1001 total" "count total"
# a damaged file's records before the damage count, marked, and the total says so
head -c 300000 "$corpus/tfx__mnist.tfrecord" > "$tmp/cut.tfrecord"
cut_n=$($py -c 'import struct, sys
d = open(sys.argv[1], "rb").read(); pos = n = 0
while pos + 12 <= len(d):
    size = struct.unpack_from("<Q", d, pos)[0]
    if pos + 16 + size > len(d): break
    pos += 16 + size; n += 1
print(n)' "$tmp/cut.tfrecord")
for j in 1 2; do
    expect_rc 2 "count -j $j, a cut and a missing file" "$featc" count -j $j \
        "$corpus/pwnall-tfrecord__data.tfrecord" "$tmp/cut.tfrecord"
    has "$tmp/out" "$cut_n $tmp/cut.tfrecord (failed after $cut_n records)" "count -j $j: cut file"
    has "$tmp/out" "$((cut_n + 1)) total (incomplete: 1 of 2 files failed; the records read before each failure are counted)" "count -j $j: total"
    has "$tmp/err" "$tmp/cut.tfrecord: truncated record at" "count -j $j: why"
done
expect_rc 2 "count, a missing file" "$featc" count "$corpus/pwnall-tfrecord__data.tfrecord" "$tmp/missing"
has "$tmp/out" "0 $tmp/missing (failed before its first record)" "count: missing file"
has "$tmp/out" "1 total (incomplete: 1 of 2 files failed;" "count: total with a missing file"

# ---- streaming from standard input, compressed and not
gzip -dc < "$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz" > "$tmp/penguin.tfrecord"
"$featc" count - < "$tmp/penguin.tfrecord" > "$tmp/out" 2>&1 && grep -qx "100 -" "$tmp/out" && ok || bad "count - (plain): $(cat "$tmp/out")"
cat "$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz" | "$featc" count - > "$tmp/out" 2>&1 && grep -qx "100 -" "$tmp/out" && ok || bad "count - (gzip pipe): $(cat "$tmp/out")"
cat "$corpus/basenji__cage10-train-00000-of-00100.tfrecord" | "$featc" verify - > "$tmp/out" 2>&1 && grep -qF -- "-: OK: 10 records, ZLIB, 11305660 bytes" "$tmp/out" && ok || bad "verify - (zlib pipe, 1.1 MB records): $(cat "$tmp/out")"
"$featc" cat --json "$tmp/penguin.tfrecord" > "$tmp/a" && "$featc" cat --json "$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz" > "$tmp/b" && cmp -s "$tmp/a" "$tmp/b" && ok || bad "gzip and plain give the same records"

# ---- options and exit codes
expect_rc 0 "help" "$featc" help
expect_rc 0 "cat --help" "$featc" cat --help
has "$tmp/out" "usage: featc cat" "cat --help text"
expect_rc 0 "count --help" "$featc" count --help
expect_rc 0 "verify --help" "$featc" verify --help
expect_rc 0 "version" "$featc" version
has "$tmp/out" "featc 0." "version text"
expect_rc 64 "no command" "$featc"
expect_rc 64 "unknown command" "$featc" frobnicate
expect_rc 64 "unknown option" "$featc" cat --bogus "$corpus/pwnall-tfrecord__data.tfrecord"
printf "featc cat: unknown option '--bogus'\nTry 'featc cat --help' for more information.\n" > "$tmp/want"
cmp -s "$tmp/err" "$tmp/want" && ok || bad "a usage error is one line and where the help is: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] && ok || bad "a usage error printed on stdout"
expect_rc 64 "no file" "$py" "$here/on_tty.py" "$featc" count
has "$tmp/err" "featc count: no input file (standard input is a terminal)" "no file on a terminal"
expect_rc 64 "bad compression" "$featc" count --compression=snappy x
expect_rc 64 "bad crc" "$featc" count --crc=maybe x
expect_rc 2 "missing file" "$featc" count "$tmp/nonexistent"
has "$tmp/err" "nonexistent: cannot open: No such file or directory" "missing file message"
expect_rc 2 "directory" "$featc" count "$tmp"
expect_rc 2 "wrong compression" "$featc" count --compression=zlib "$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz"
has "$tmp/err" "inflate() failed with error -3: incorrect header check" "wrong compression message"
expect_rc 2 "record above --max-record-size" "$featc" count --max-record-size=1M "$corpus/basenji__cage10-train-00000-of-00100.tfrecord"
has "$tmp/err" "record size too large: record 0 at offset 0 declares 1130550 bytes, more than --max-record-size (1048576)" "max-record-size message"
# --max-memory bounds the decoder's memory per record: a record that needs
# more is a record error (exit 1) and the next record is still read
big="$corpus/basenji__cage10-train-00000-of-00100.tfrecord"
expect_rc 1 "cat --max-memory" "$featc" cat --max-memory=64K "$big"
has "$tmp/err" "record 9: decoding the record (1130550 bytes) needs more than --max-memory (65536 bytes)" "cat --max-memory message"
[ "$(grep -c 'needs more than --max-memory' "$tmp/err")" = 10 ] && ok || bad "cat --max-memory: not every record reported"
expect_rc 0 "cat --max-memory=32M" "$featc" cat --json --max-memory=32M "$big"
expect_rc 1 "verify --max-memory" "$featc" verify --examples --max-memory=64K "$big"
has "$tmp/out" "FAILED: 10 of 10 records could not be decoded within --max-memory; first: record 0 at offset 0: decoding the record (1130550 bytes) needs more than --max-memory (65536 bytes)" "verify --max-memory message"
expect_rc 1 "infer --max-memory" "$featc" infer --max-memory=64K "$big"
has "$tmp/err" "record 0: decoding the record (1130550 bytes) needs more than --max-memory (65536 bytes)" "infer --max-memory message"
expect_rc 64 "--max-memory below 64K" "$featc" cat --max-memory=1K "$big"
expect_rc 0 "explicit gzip" "$featc" count --compression=gzip "$corpus/ydf__sentences.tfe-tfrecord"
expect_rc 0 "--crc=none" "$featc" count --crc=none "$corpus/tfx__mnist.tfrecord"
# a truncated copy of a gzip file is never a clean end
head -c 2000 "$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz" > "$tmp/cut.gz"
expect_rc 2 "cut gzip" "$featc" verify "$tmp/cut.gz"
has "$tmp/out" "truncated" "cut gzip message"
# 11 bytes after the last record: TF would say nothing; featc reports it
cp "$corpus/pwnall-tfrecord__data.tfrecord" "$tmp/tail.tfrecord"
printf 'abcdefghijk' >> "$tmp/tail.tfrecord"
expect_rc 2 "short trailing garbage" "$featc" verify "$tmp/tail.tfrecord"
has "$tmp/out" "truncated record at 68: record 1: the stream ends inside the 12-byte record header (11 bytes left)" "short trailing garbage message"

# ---- sequence_example specs
cat > "$tmp/movie.feat" <<'SPEC'
package movie;
sequence_example movie {
  context {
    locale    : bytes;
    age       : int64 = 0;
    favorites : bytes[] max 16;
  }
  feature_lists max 256 aligned {
    movie_ratings : float allow_missing;
    movie_names   : bytes;
    actors        : bytes[] max 8 uniform;
    "frame/box" as box : float[2, 2];
  }
}
SPEC
expect_rc 0 "check a sequence_example spec" "$featc" check "$tmp/movie.feat"
[ ! -s "$tmp/err" ] && ok || bad "check a sequence_example spec printed: $(cat "$tmp/err")"
# check --tf: warnings where TensorFlow refuses what featc accepts (the text
# is pinned by tests/diag/tf-scalar-default); exit 0 unless --werror
tfspec="$here/../diag/tf-scalar-default.feat"
expect_rc 0 "check --tf with warnings" "$featc" check --tf "$tfspec"
has "$tmp/err" "warning: the scalar default of 'emb' fills its shape [2,3]" "check --tf warning"
has "$tmp/err" "2 warnings generated." "check --tf summary"
expect_rc 1 "check --tf --werror with warnings" "$featc" check --tf --werror "$tfspec"
expect_rc 0 "check without --tf warns nothing" "$featc" check "$tfspec"
[ ! -s "$tmp/err" ] && ok || bad "check without --tf printed: $(cat "$tmp/err")"
expect_rc 0 "check --tf --werror, a spec TF takes as written" "$featc" check --tf --werror "$tmp/movie.feat"
[ ! -s "$tmp/err" ] && ok || bad "check --tf on a clean spec printed: $(cat "$tmp/err")"
expect_rc 0 "compile a sequence_example spec" "$featc" compile -o "$tmp" --driver "$tmp/movie.feat"
has "$tmp/movie.h" "extern const fc_seq_desc movie_movie_desc;" "sequence_example header"
has "$tmp/movie_main.c" "fc_driver_seq_main(argc, argv, &movie_movie_desc)" "sequence_example driver"
# compile creates its output folder and writes a Make dependency rule
expect_rc 0 "compile into a folder that does not exist" "$featc" compile -o "$tmp/new/a b" --driver \
    --depfile "$tmp/movie.d" "$tmp/movie.feat"
[ -f "$tmp/new/a b/movie.c" ] && [ -f "$tmp/new/a b/movie_main.c" ] && ok || bad "compile -o: no output folder"
printf '%s: %s\n\n%s:\n' "$(printf '%s' "$tmp/new/a b/movie.h $tmp/new/a b/movie.c $tmp/new/a b/movie_main.c" | sed 's/a b/a\\ b/g')" \
    "$tmp/movie.feat" "$tmp/movie.feat" > "$tmp/movie.d.want"
cmp -s "$tmp/movie.d" "$tmp/movie.d.want" && ok || bad "depfile: $(cat "$tmp/movie.d")"
expect_rc 0 "compile -M" "$featc" compile -M -o gen "$tmp/movie.feat"
printf 'gen/movie.h gen/movie.c: %s\n\n%s:\n' "$tmp/movie.feat" "$tmp/movie.feat" > "$tmp/m.want"
cmp -s "$tmp/out" "$tmp/m.want" && ok || bad "compile -M printed: $(cat "$tmp/out")"
[ ! -e gen ] && ok || bad "compile -M wrote files"
# --python: NAME_py.c, named in the rule; a module's name must be an identifier
expect_rc 0 "compile -M --python" "$featc" compile -M --python -o gen "$tmp/movie.feat"
printf 'gen/movie.h gen/movie.c gen/movie_py.c: %s\n\n%s:\n' "$tmp/movie.feat" "$tmp/movie.feat" \
    > "$tmp/m.want"
cmp -s "$tmp/out" "$tmp/m.want" && ok || bad "compile -M --python printed: $(cat "$tmp/out")"
expect_rc 0 "compile --python" "$featc" compile --python -o "$tmp/py" "$tmp/movie.feat"
has "$tmp/py/movie_py.c" "PyMODINIT_FUNC PyInit_movie(void)" "compile --python"
expect_rc 1 "compile --python, a base that is not an identifier" "$featc" compile --python \
    -b movie-2 -o "$tmp/py" "$tmp/movie.feat"
has "$tmp/err" "the Python module's name 'movie-2' is not an identifier (name it with --base)" \
    "compile --python -b movie-2"
[ ! -e "$tmp/py/movie-2.c" ] && ok || bad "compile --python -b movie-2 wrote files"
# make reads the rule: the outputs are up to date, then out of date once the spec is newer
printf 'include %s\n%%.c: ; @:\n' "$tmp/movie.d" > "$tmp/dep.mk"
touch -d '2 minutes ago' "$tmp/movie.feat"
expect_rc 0 "make -q with the depfile" make -q -f "$tmp/dep.mk" "$tmp/new/a b/movie.c"
touch "$tmp/movie.feat"
touch -d '1 minute ago' "$tmp/new/a b/movie.h" "$tmp/new/a b/movie.c" "$tmp/new/a b/movie_main.c"
expect_rc 1 "make -q sees the newer spec" make -q -f "$tmp/dep.mk" "$tmp/new/a b/movie.c"
expect_rc 1 "compile --driver naming no message" "$featc" compile -o "$tmp" --driver=nosuch "$tmp/movie.feat"
has "$tmp/err" "$tmp/movie.feat: error: no example named 'nosuch' for the driver" "unknown driver message"
printf 'sequence_example only_lists {\n  feature_lists max 4 { x : int64; }\n}\n' > "$tmp/lists.feat"
expect_rc 0 "a sequence_example with feature lists only" "$featc" check "$tmp/lists.feat"
printf 'sequence_example only_context {\n  context { x : int64; }\n}\n' > "$tmp/context.feat"
expect_rc 0 "a sequence_example with a context only" "$featc" check "$tmp/context.feat"

# ---- a generated driver's --batch options
drv=$3/specs/penguin
pen="$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz"
expect_rc 0 "driver --batch 7" "$drv" --batch 7 "$pen"
[ "$(wc -l < "$tmp/out")" -eq 15 ] && ok || bad "driver --batch 7: $(wc -l < "$tmp/out") batches for 100 records, want 15"
has "$tmp/out" '{"batch":14,"features":{"body_mass_g":{"shape":[2],"values":[' "driver last, partial batch"
expect_rc 0 "driver --batch=100" "$drv" --batch=100 "$pen"
has "$tmp/out" '"species":{"shape":[100],' "driver --batch=100 shape"
expect_rc 64 "driver --batch without a size" "$drv" "$pen" --batch
expect_rc 64 "driver --batch 0" "$drv" --batch 0 "$pen"
expect_rc 64 "driver --batch x" "$drv" --batch x "$pen"
has "$tmp/err" "--batch wants a batch size from 1 to 1000000" "driver --batch x message"
expect_rc 64 "driver --ragged without --batch" "$drv" --ragged "$pen"
# a batch whose record 1 lacks a required feature: the batch's error names it
expect_rc 1 "driver batch error" "$3/specs/taxi" --batch 4 "$corpus/tfx__mnist.tfrecord"
has "$tmp/out" '{"batch":0,"error":"record 0 (offset 0 of ' "driver batch error object"
has "$tmp/out" 'Name: <unknown>, Feature: ' "driver batch error in TF's batched words"

# ---- GNU command-line conventions, the same in every command
pw="$corpus/pwnall-tfrecord__data.tfrecord"
expect_rc 0 "--opt value" "$featc" count --compression gzip "$pen"
has "$tmp/out" "100 $pen" "--opt value"
expect_rc 0 "-c value" "$featc" count -c gzip "$pen"
expect_rc 0 "-cvalue" "$featc" count -cgzip "$pen"
expect_rc 0 "an unambiguous prefix of a long option" "$featc" count --compr=gzip "$pen"
expect_rc 0 "options after the files" "$featc" count "$pen" --crc none
has "$tmp/out" "100 $pen" "options after the files"
expect_rc 64 "a value the option does not take" "$featc" cat --json=yes "$pw"
has "$tmp/err" "featc cat: option '--json' takes no value" "takes no value"
expect_rc 64 "a missing value" "$featc" count "$pw" --crc
has "$tmp/err" "featc count: option '--crc' needs a value" "needs a value"
expect_rc 64 "a missing short value" "$featc" compile -o
has "$tmp/err" "featc compile: option '-o' needs a value" "short needs a value"
expect_rc 64 "an unknown short option" "$featc" verify -x "$pw"
has "$tmp/err" "featc verify: unknown option '-x'" "unknown short option"
expect_rc 64 "an option of another command" "$featc" count --json "$pw"
expect_rc 64 "a bad value" "$featc" cat --type=movie "$pw"
has "$tmp/err" "featc cat: unknown type 'movie' (auto, example, sequence)" "bad value"
[ "$(wc -l < "$tmp/err")" -eq 2 ] && ok || bad "a bad value: $(wc -l < "$tmp/err") lines on stderr, want 2"
# featc --help lists every command (main.c prints its table of commands),
# and the man page's SYNOPSIS names the same ones
"$featc" --help | sed -n 's/^  \([a-z][a-z]*\).*/\1/p' | sort > "$tmp/help-commands"
sed -n 's/^\.B featc \([a-z][a-z]*\).*/\1/p' "$here/../../docs/featc.1" | sort > "$tmp/man-commands"
[ "$(wc -l < "$tmp/help-commands")" -ge 11 ] && ok || bad "featc --help lists $(wc -l < "$tmp/help-commands") commands"
cmp -s "$tmp/help-commands" "$tmp/man-commands" && ok ||
    bad "featc --help's commands differ from featc.1's SYNOPSIS: $(diff "$tmp/help-commands" "$tmp/man-commands" | tr '\n' ' ')"
commands=$(grep -v '^help$\|^version$' "$tmp/help-commands")
for c in $commands; do
    expect_rc 0 "$c --version" "$featc" $c --version
    has "$tmp/out" "featc 0." "$c --version"
    expect_rc 0 "$c -h" "$featc" $c -h
    has "$tmp/out" "featc $c [options]" "$c -h"
done
# the man page documents every command and every long option of every --help
man=$here/../../docs/featc.1
for c in $commands; do
    grep -q "^\.SS $c\$" "$man" && ok || bad "featc.1 has no section for $c"
    "$featc" $c --help | grep -o -- '--[a-z][a-z-]*' | sort -u | while read -r o; do
        m=$(printf '%s' "$o" | sed 's/-/\\-/g')
        grep -qF -- "$m" "$man" || echo "$c $o"
    done > "$tmp/undocumented"
    [ ! -s "$tmp/undocumented" ] && ok || bad "featc.1 lacks: $(cat "$tmp/undocumented")"
done
# a full standard output is an error (exit 2), whatever the command prints
if [ -w /dev/full ]; then
    for c in "help" "version" "count --help" "cat --version" "count $pw" "cat --json $pw" \
             "cat $pw" "verify $pw" "infer $pw" "stats $pw" "stats --json $pw" \
             "compile -M $tmp/movie.feat" \
             "export --tf $tmp/movie.feat"; do
        "$featc" $c >/dev/full 2>"$tmp/err"; _rc=$?
        [ "$_rc" -eq 2 ] && grep -q "error writing standard output" "$tmp/err" && ok ||
            bad "featc $c > /dev/full: exit $_rc: $(head -c 200 "$tmp/err")"
    done
    "$drv" "$pen" >/dev/full 2>/dev/null; [ $? -eq 2 ] && ok || bad "driver > /dev/full: exit status"
else
    bad "no /dev/full to test write errors with"
fi
# a write that fails (a file-size limit standing in for a full disk) leaves
# nothing truncated under an output's name, and no temporary file
"$featc" compile -o "$tmp/pv" --driver "$here/../../specs/pascal_voc.feat" && ok || bad "compile pascal_voc"
( trap '' XFSZ; ulimit -f 10; "$featc" compile -o "$tmp/pvfull" --driver "$here/../../specs/pascal_voc.feat" ) \
    >"$tmp/out" 2>"$tmp/err"; _rc=$?
[ "$_rc" -eq 2 ] && grep -q "pascal_voc.*: write error: File too large" "$tmp/err" && ok ||
    bad "compile onto a full disk: exit $_rc: $(cat "$tmp/err")"
for _f in "$tmp"/pvfull/*; do
    [ -e "$_f" ] || continue
    cmp -s "$_f" "$tmp/pv/$(basename "$_f")" && ok || bad "compile onto a full disk left a partial $(basename "$_f")"
done
# infer -o: the spec written whole, or nothing under its name (a file-size
# limit of one block cuts the 722-byte spec)
expect_rc 0 "infer -o" "$featc" infer -o "$tmp/pen.feat" "$pen"
"$featc" infer "$pen" > "$tmp/pen-stdout.feat" 2>/dev/null
cmp -s "$tmp/pen.feat" "$tmp/pen-stdout.feat" && ok || bad "infer -o differs from infer's standard output"
( trap '' XFSZ; ulimit -f 1; "$featc" infer --output="$tmp/pen-full.feat" "$pen" ) >"$tmp/out" 2>"$tmp/err"; _rc=$?
[ "$_rc" -eq 2 ] && grep -q "pen-full.feat: write error: File too large" "$tmp/err" && ok ||
    bad "infer -o onto a full disk: exit $_rc: $(cat "$tmp/err")"
[ ! -e "$tmp/pen-full.feat" ] && ok || bad "infer -o onto a full disk left a partial spec"
ls "$tmp" | grep -q '^pen-full.feat\.' && bad "infer -o left its temporary file" || ok
# the file -o writes has the mode open(2) would give it (0666 less the umask),
# not the temporary file's 0600
( umask 027; "$featc" infer -o "$tmp/pen-027.feat" "$pen" ) 2>/dev/null
[ "$(stat -c %a "$tmp/pen-027.feat" 2>/dev/null)" = 640 ] && ok ||
    bad "infer -o under umask 027: mode $(stat -c %a "$tmp/pen-027.feat" 2>&1), not 640"
# featc export --tf: standard output or -o (the same bytes), spec errors,
# and the form is not optional
spec_dir=$here/../../specs
expect_rc 0 "export --tf" "$featc" export --tf "$spec_dir/taobao.feat"
cp "$tmp/out" "$tmp/taobao-export.py"
grep -q '^    "sessions": tf.io.RaggedFeature(tf.string, value_key="session_items", partitions=\[tf.io.RaggedFeature.RowLengths("session_lengths")\], row_splits_dtype=tf.int32),$' "$tmp/out" &&
    ok || bad "export --tf taobao: $(head -c 300 "$tmp/out")"
expect_rc 0 "export --tf -o" "$featc" export --tf -o "$tmp/taobao-o.py" "$spec_dir/taobao.feat"
cmp -s "$tmp/taobao-export.py" "$tmp/taobao-o.py" && ok || bad "export -o differs from standard output"
expect_rc 64 "export without --tf" "$featc" export "$spec_dir/taobao.feat"
expect_rc 1 "export of a wrong spec" "$featc" export --tf "$here/../diag/duplicate-key.feat"
has "$tmp/err" "duplicate feature key" "export of a wrong spec: the diagnostic"
# "--" ends the options: a file whose name starts with '-'
mkdir -p "$tmp/dash" && cp "$pw" "$tmp/dash/-data.tfrecord"
(cd "$tmp/dash" && "$featc" count -- -data.tfrecord) > "$tmp/out" 2>&1 && grep -qx "1 -data.tfrecord" "$tmp/out" && ok || bad "count -- -data.tfrecord: $(cat "$tmp/out")"
(cd "$tmp/dash" && "$featc" count -data.tfrecord) > /dev/null 2>&1; [ $? -eq 64 ] && ok || bad "count -data.tfrecord without -- is an option"
# standard input: "-", or no file at all when it is not a terminal
"$featc" count < "$pen" > "$tmp/out" 2>&1 && grep -qx "100 -" "$tmp/out" && ok || bad "count < file: $(cat "$tmp/out")"
"$featc" cat --json < "$pw" > "$tmp/out" 2>&1 && grep -qF '"answer":{"int64_list":[42]}' "$tmp/out" && ok || bad "cat < file: $(cat "$tmp/out")"
"$featc" verify < /dev/null > "$tmp/out" 2>&1 && grep -qF -- "-: OK: 0 records" "$tmp/out" && ok || bad "verify < /dev/null: $(cat "$tmp/out")"
"$featc" infer < "$pw" > "$tmp/out" 2>&1 && grep -qF "answer : int64;" "$tmp/out" && ok || bad "infer < file: $(cat "$tmp/out")"
"$featc" check - < "$tmp/movie.feat" > "$tmp/out" 2>&1 && [ ! -s "$tmp/out" ] && ok || bad "check - < spec: $(cat "$tmp/out")"
printf 'package p;\nexample e {\n  x : int65;\n}\n' > "$tmp/bad.feat"
"$featc" check < "$tmp/bad.feat" > "$tmp/out" 2>&1; [ $? -eq 1 ] && ok || bad "check < bad spec: exit status"
has "$tmp/out" "<stdin>:3:" "a spec from standard input is <stdin> in diagnostics"
expect_rc 64 "compile from standard input without --base" "$featc" compile - < "$tmp/movie.feat"
has "$tmp/err" "featc compile: a spec from standard input needs --base NAME for its files" "compile - message"
"$featc" compile --base film -o "$tmp/stdin" --depfile "$tmp/stdin.d" < "$tmp/movie.feat" > "$tmp/out" 2>&1 && [ -f "$tmp/stdin/film.c" ] && ok || bad "compile --base < spec: $(cat "$tmp/out")"
printf '%s: \n' "$tmp/stdin/film.h $tmp/stdin/film.c" | sed 's/: $/:/' > "$tmp/stdin.d.want"
cmp -s "$tmp/stdin.d" "$tmp/stdin.d.want" && ok || bad "depfile of a spec from standard input: $(cat "$tmp/stdin.d")"
# the generated driver follows the same conventions
expect_rc 0 "driver -b 50 from standard input" sh -c '"$1" -b 50 < "$2"' sh "$drv" "$pen"
[ "$(wc -l < "$tmp/out")" -eq 2 ] && ok || bad "driver -b 50 < file: $(wc -l < "$tmp/out") batches, want 2"
expect_rc 64 "driver with no file on a terminal" "$py" "$here/on_tty.py" "$drv"
has "$tmp/err" "no input file (standard input is a terminal)" "driver on a terminal"
expect_rc 2 "driver --max-record-size" sh -c '"$1" --max-record-size 1K - < "$2"' sh "$3/specs/mnist" "$corpus/tfx__mnist.tfrecord"
has "$tmp/err" "more than --max-record-size (1024)" "driver --max-record-size message"
expect_rc 64 "driver --max-record-size x" "$drv" --max-record-size=x "$pen"
expect_rc 0 "driver --help" "$drv" --help
has "$tmp/out" "usage: $drv [options] [FILE...]" "driver --help text"
# --utf8, as cat's: a bytes value that is UTF-8 as text; the contract without it
"$py" - "$tmp/amelie.tfrecord" "$here/../oracle" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[2])
from framing import frame
def field(num, body):
    return bytes([num << 3 | 2]) + bytes([len(body)]) + body
feature = field(1, field(1, "Amélie".encode("utf-8")))      # Feature{bytes_list}
entry = field(1, b"feature2") + field(2, feature)
example = field(1, field(1, entry))                         # Example{features{feature}}
open(sys.argv[1], "wb").write(frame(example))
PYEOF
tut=$3/specs/tutorial
expect_rc 0 "driver on a UTF-8 value" "$tut" "$tmp/amelie.tfrecord"
has "$tmp/out" '"feature2":"Am\u00c3\u00a9lie"' "driver: bytes as code points by default"
expect_rc 0 "driver --utf8" "$tut" --utf8 "$tmp/amelie.tfrecord"
has "$tmp/out" '"feature2":"Amélie"' "driver --utf8: bytes as text"
expect_rc 0 "driver --utf8 -b 1" "$tut" --utf8 -b 1 "$tmp/amelie.tfrecord"
has "$tmp/out" '"Amélie"' "driver --utf8 --batch: bytes as text"

# ---- featc infer (the corpus round trips run in make test-infer)
inp=$tmp/infer
mkdir -p "$inp"
"$py" "$here/infer_inputs.py" "$inp" && ok || bad "infer_inputs.py"
expect_rc 1 "infer conflict" "$featc" infer "$inp/conflict.tfrecord"
has "$tmp/err" 'featc: infer: feature "a" has conflicting types: float in 1 record (first: '"$inp"'/conflict.tfrecord record 1), int64 in 2 records (first: '"$inp"'/conflict.tfrecord record 0); left out of the spec' "infer conflict report"
has "$tmp/out" '// left out: feature "a" has conflicting types: float in 1 record, int64 in 2 records' "infer conflict comment"
has "$tmp/out" '  b : bytes;  // FixedLen: 1 value in all 3 records' "infer conflict keeps the rest"
cp "$tmp/out" "$tmp/conflict.feat"
expect_rc 0 "infer conflict spec compiles" "$featc" check "$tmp/conflict.feat"
expect_rc 0 "infer keys" "$featc" infer --package=odd --name=row "$inp/keys.tfrecord"
has "$tmp/out" 'package odd;' "infer --package"
has "$tmp/out" 'example row {' "infer --name"
has "$tmp/out" '  "" as f : int64;' "infer empty key"
has "$tmp/out" '  "1st" as f_1st : float[] max 8;  // VarLen: 1..4 values (mean 2.5) in all 4 records; max 8 = the largest seen (4) plus headroom' "infer digit key, VarLen headroom"
has "$tmp/out" '  A : float;' "infer upper-case key"
has "$tmp/out" '  "a" as a_2 : float;' "infer keys differing in case"
has "$tmp/out" '  "café" as caf : bytes;' "infer UTF-8 key, written as UTF-8"
has "$tmp/out" '  "class" as class_2 : int64[2];  // FixedLen: 2 values' "infer C++ keyword key, FixedLen shape"
has "$tmp/out" '  empty : bytes[] max 1;  // only ever Feature{} without a list' "infer Feature{} only"
has "$tmp/out" '  "image.encoded" as image_encoded : int64;' "infer dotted key"
has "$tmp/out" '  "image/encoded" as image_encoded_2 : bytes;' "infer clashing C names"
has "$tmp/out" '  max : int64;' "infer spec keyword as a name"
has "$tmp/out" '  "quote\"back\\slash" as quote_back_slash : int64;' "infer escapes"
has "$tmp/out" '  "x_count" as x_count_2 : int64;' "infer generated-name clash"
expect_rc 1 "infer mixed" "$featc" infer "$inp/mixed.tfrecord"
has "$tmp/out" 'sequence_example record {' "infer Example + SequenceExample: a sequence spec"
has "$tmp/out" '    c : int64;  // FixedLen: 1 value in all 2 records' "infer context"
has "$tmp/out" '    b : float[2] allow_missing;  // 2 values per frame; 1 frame in 1 of 2 records' "infer allow_missing list"
has "$tmp/err" 'feature list "a" has conflicting types: bytes in 1 frame (first: ' "infer list conflict"
expect_rc 0 "infer two files" "$featc" infer "$corpus/tf-ecosystem__tf-records_part-m-00000" \
    "$corpus/tf-ecosystem__zipped-tf-records_part-m-00000.gz"
has "$tmp/out" '// Inferred by featc infer from 10 records of 2 files:' "infer two files header"
has "$tmp/out" '//   tf-ecosystem__zipped-tf-records_part-m-00000.gz (5 records, GZIP)' "infer per-file line"
has "$tmp/out" '  data : int64[2];  // FixedLen: 2 values in all 10 records' "infer two files feature"
expect_rc 0 "infer --type=sequence" "$featc" infer --type=sequence "$corpus/tfx__mnist.tfrecord"
has "$tmp/out" 'sequence_example record {' "infer --type=sequence"
cp "$tmp/out" "$tmp/seqctx.feat"
expect_rc 0 "infer --type=sequence spec compiles" "$featc" check "$tmp/seqctx.feat"
expect_rc 1 "infer a non-Example file" "$featc" infer "$corpus/lingvo__en_fr.tfrecord"
has "$tmp/err" 'lingvo__en_fr.tfrecord: record 0: ' "infer non-Example record index"
has "$tmp/err" 'nothing is inferred from a file that is not all Examples or SequenceExamples' "infer non-Example"
expect_rc 1 "infer no records" "$featc" infer "$corpus/dfalbel-tfrecords__my_ints.tfrecord"
has "$tmp/err" 'featc: infer: no records in the input: nothing to infer' "infer no records"
expect_rc 1 "infer Examples without features" "$featc" infer "$inp/empty.tfrecord"
has "$tmp/err" "featc: infer: none of the 4 records has a feature: nothing to infer (a spec declares at least one)" "infer Examples without features"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && ok || bad "infer Examples without features: $(cat "$tmp/err")"
# a generated driver's batch whose records hold no values at all (built here,
# with the CC of the build under test: sanitizers included in test-sanitize)
printf 'package noval;\nexample e {\n  v : int64[] max 4;\n  b : bytes[] max 2;\n}\n' > "$tmp/noval.feat"
"$featc" compile -o "$tmp/noval" --driver "$tmp/noval.feat" &&
    ${CC:-cc} -std=c99 -I"$here/../../include" -o "$tmp/noval/drv" "$tmp/noval/noval.c" \
        "$tmp/noval/noval_main.c" "$build/libfeatc.a" ${LIBS_Z:--lz} -lm 2>"$tmp/cc.err" && ok ||
    bad "noval driver: $(head -5 "$tmp/cc.err")"
expect_rc 0 "driver batch of records without values" "$tmp/noval/drv" --batch 2 "$inp/empty.tfrecord"
[ "$(grep -c '^{"batch":[01],"features":{' "$tmp/out")" -eq 2 ] && ok || bad "driver batch of empty records: $(head -c 300 "$tmp/out")"
expect_rc 0 "driver ragged batch of records without values" "$tmp/noval/drv" --batch 2 --ragged "$inp/empty.tfrecord"
# input without records: one empty batch, every output of leading dimension
# 0, as parse_example and parse_sequence_example give for zero records
: > "$tmp/none.tfrecord"
expect_rc 0 "driver batch of no records" "$build/specs/taobao" --batch 4 "$tmp/none.tfrecord"
[ "$(cat "$tmp/out")" = '{"batch":0,"features":{"city":{"shape":[0],"values":[]},"use_day":{"shape":[0],"values":[]},"pay":{"shape":[0],"values":[]},"poi":{"indices":[],"values":[],"dense_shape":[0,0]},"ratings":{"indices":[],"values":[],"dense_shape":[0,100000]},"sessions":{"values":[],"row_splits":[[0],[0]]}}}' ] &&
    ok || bad "driver batch of no records: $(head -c 300 "$tmp/out")"
expect_rc 0 "sequence driver batch of no records" "$build/specs/movie" --batch 4 --ragged "$tmp/none.tfrecord"
[ "$(cat "$tmp/out")" = '{"batch":0,"context":{"locale":{"shape":[0],"values":[]},"age":{"shape":[0],"values":[]},"favorites":{"values":[],"row_splits":[0]}},"feature_lists":{"movie_ratings":{"shape":[0,0],"values":[]},"movie_names":{"shape":[0,0],"values":[]},"actors":{"values":[],"row_splits":[[0],[0]]}},"lengths":{"movie_ratings":[],"movie_names":[]}}' ] &&
    ok || bad "sequence driver batch of no records: $(head -c 300 "$tmp/out")"
expect_rc 0 "driver without --batch, no records" "$build/specs/taobao" "$tmp/none.tfrecord"
[ ! -s "$tmp/out" ] && ok || bad "driver without --batch printed something for no records"
expect_rc 2 "infer damaged" "$featc" infer "$corpus/tf-models-CRLF-DAMAGED__pets_examples.record"
expect_rc 2 "infer missing file" "$featc" infer "$tmp/nonexistent.tfrecord"
expect_rc 1 "infer past the spec's limits" "$featc" infer "$inp/wide.tfrecord"
# stops at the record that passes the limit (linear.py: on a long input)
has "$tmp/err" "wide.tfrecord: record 0: the records so far have 4097 distinct feature keys, more than a message can declare (4096): nothing is inferred" "infer limit message"
[ ! -s "$tmp/out" ] && ok || bad "infer past the limits printed a spec"
expect_rc 0 "infer --help" "$featc" infer --help
has "$tmp/out" 'usage: featc infer [options] [FILE...]' "infer --help text"
expect_rc 64 "infer no file" "$py" "$here/on_tty.py" "$featc" infer
expect_rc 64 "infer unknown option" "$featc" infer --bogus "$inp/keys.tfrecord"
expect_rc 64 "infer bad package" "$featc" infer --package=int "$inp/keys.tfrecord"
has "$tmp/err" "package name 'int' is not a usable C name" "infer bad package message"

# ---- names, texts and numbers in the generated driver's JSON and messages
# (UTF-8 keys, the empty key in batches, TF's batch texts, float spellings):
# tests/cli/names.py prints its own "names:" line
mkdir -p "$tmp/names"
names_rc=0
timed names "$py" "$here/names.py" "$featc" "$build" "$tmp/names" || names_rc=1

# ---- featc index and the part options (--split, --range, --records, --index,
# --sync): tests/cli/splits.py prints its own "splits:" line
mkdir -p "$tmp/splits"
splits_rc=0
timed splits "$py" "$here/splits.py" "$featc" "$corpus" "$tmp/splits" || splits_rc=1

# ---- indexes, member lists and split numbers handed beside the data are
# claims to check: tests/cli/trust.py prints its own "trust:" line
mkdir -p "$tmp/trust"
trust_rc=0
timed trust "$py" "$here/trust.py" "$featc" "$corpus" "$tmp/trust" || trust_rc=1

# ---- a file cut while each command reads it: tests/cli/shrink.py prints its
# own "shrink:" line
mkdir -p "$tmp/shrink"
shrink_rc=0
timed shrink "$py" "$here/shrink.py" "$featc" "$tmp/shrink" || shrink_rc=1

# ---- linear time in messages, features, identifiers, defaults and keys:
# tests/cli/linear.py prints its own "linear:" line
mkdir -p "$tmp/linear/out"
linear_rc=0
timed linear "$py" "$here/linear.py" "$featc" "$tmp/linear" || linear_rc=1

# ---- cat --limit, --skip, --max-bytes, --utf8, --raw: tests/cli/cat_options.py
# prints its own "cat-options:" line
mkdir -p "$tmp/catopt"
catopt_rc=0
timed cat-options "$py" "$here/cat_options.py" "$featc" "$corpus" "$tmp/catopt" || catopt_rc=1

# ---- cat's whole output over the corpus, pinned by hash (tests/cli/cat_golden.tsv;
# make update-cat-golden): tests/cli/cat_golden.py prints its own "cat-golden:" line
golden_rc=0
timed cat-golden "$py" "$here/cat_golden.py" "$featc" "$corpus" "$here/cat_golden.tsv" || golden_rc=1

# ---- progress on standard error (pipes and a pseudo-terminal):
# ---- check --data: a file that cannot be opened is not called damaged; one
# error at many byte offsets is one line of the summary, with the first offsets
expect_rc 2 "check --data, a missing file" "$featc" check "$here/../../specs/penguin.feat" --data "$tmp/nope.tfrecord"
has "$tmp/out" "$tmp/nope.tfrecord: not read (it cannot be opened)" "check --data, a missing file"
grep -q damaged "$tmp/out" && bad "check --data calls a missing file damaged: $(cat "$tmp/out")" || ok
printf 'package p;\nexample q {\n  species : float;\n}\n' > "$tmp/species_float.feat"
expect_rc 1 "check --data, one error at many offsets" "$featc" check "$tmp/species_float.feat" --data \
    "$corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz"
_lines=$(sed -n '/^errors by text:$/,$p' "$tmp/out" | tail -n +2 | wc -l)
[ "$_lines" -eq 1 ] && ok || bad "check --data: the one error takes $_lines lines: $(tail -n 4 "$tmp/out")"
has "$tmp/out" "       100  Key: species.  Data types don't match. Data type: int64 but expected type: float (at byte N) (first: $corpus/tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz record 0; N = 16, 46, 76, 77, ...)" \
    "check --data, the error's summary line"

# ---- convert refuses an output named for a format it does not write
for _out in x.tsv x.CSV x.jsonl; do
    expect_rc 64 "convert -o $_out" "$featc" convert "$corpus/tfx__mnist.tfrecord" -o "$tmp/$_out"
    has "$tmp/err" "which featc convert does not write" "convert -o $_out"
    [ ! -e "$tmp/$_out" ] && ok || bad "convert -o $_out left a file"
done

# ---- convert to Parquet (tests/arrow reads the files with DuckDB and
# hyparquet): the codecs featc version lists write a file framed by PAR1;
# ZSTD and SNAPPY without their library, a bad codec or size, Arrow input
# and a damaged input are errors that leave nothing
_codecs=$("$featc" --version | sed -n 's/.*parquet: \([a-z+]*\);.*/\1/p')
[ -n "$_codecs" ] && ok || bad "featc --version names no Parquet codecs: $("$featc" --version)"
for _c in none gzip snappy zstd; do
    case "+$_codecs+" in
    *"+$_c+"*)
        expect_rc 0 "convert -o x.parquet --codec $_c" "$featc" convert "$corpus/tfx__mnist.tfrecord" \
            --spec "$here/../../specs/mnist.feat" -o "$tmp/x.parquet" --codec "$_c" --row-group-size 3
        [ "$(head -c 4 "$tmp/x.parquet")" = PAR1 ] && [ "$(tail -c 4 "$tmp/x.parquet")" = PAR1 ] && ok ||
            bad "convert --codec $_c: not framed by PAR1" ;;
    *)
        rm -f "$tmp/x.parquet"
        expect_rc 64 "convert --codec $_c without its library" "$featc" convert \
            "$corpus/tfx__mnist.tfrecord" --spec "$here/../../specs/mnist.feat" -o "$tmp/x.parquet" --codec "$_c"
        has "$tmp/err" "this featc was built without lib$_c" "convert --codec $_c without its library"
        [ ! -e "$tmp/x.parquet" ] && ok || bad "convert --codec $_c without its library left a file" ;;
    esac
done
rm -f "$tmp/x.parquet"
for _bad in "--codec lz4" "--row-group-size 0" "--page-size 0" "--page-size 2G"; do
    # shellcheck disable=SC2086
    expect_rc 64 "convert -o x.parquet $_bad" "$featc" convert "$corpus/tfx__mnist.tfrecord" -o "$tmp/x.parquet" $_bad
    [ ! -e "$tmp/x.parquet" ] && ok || bad "convert $_bad left a file"
done
"$featc" convert -q "$corpus/tfx__mnist.tfrecord" --spec "$here/../../specs/mnist.feat" -o "$tmp/m.arrow"
expect_rc 2 "convert Arrow -o x.parquet" "$featc" convert "$tmp/m.arrow" --spec "$here/../../specs/mnist.feat" \
    -o "$tmp/x.parquet" --codec none
has "$tmp/err" "an Arrow IPC file, and $tmp/x.parquet is to be Parquet" "convert Arrow -o x.parquet"
head -c 5000 "$corpus/tfx__mnist.tfrecord" > "$tmp/cut.tfrecord"
expect_rc 2 "convert a damaged file -o x.parquet" "$featc" convert "$tmp/cut.tfrecord" \
    --spec "$here/../../specs/mnist.feat" -o "$tmp/x.parquet" --codec none
[ ! -e "$tmp/x.parquet" ] && ok || bad "convert of a damaged file left x.parquet"

# ---- Parquet back to TFRecords (tests/arrow reads DuckDB's files): the
# records of the file converted, whatever the Parquet file's name; --spec
# required; Parquet to Parquet refused; a cut file exit 2 naming the byte,
# nothing written
"$featc" convert -q "$corpus/tfx__mnist.tfrecord" --spec "$here/../../specs/mnist.feat" \
    -o "$tmp/m.parquet" --codec gzip --row-group-size 7
cp "$tmp/m.parquet" "$tmp/m.table"
expect_rc 0 "convert m.table (Parquet) -o back.tfrecord" "$featc" convert "$tmp/m.table" \
    --spec "$here/../../specs/mnist.feat" -o "$tmp/back.tfrecord"
"$featc" cat --json "$corpus/tfx__mnist.tfrecord" > "$tmp/a.json"
"$featc" cat --json "$tmp/back.tfrecord" > "$tmp/b.json" 2>&1
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || bad "mnist to Parquet and back: other records"
expect_rc 64 "convert Parquet without --spec" "$featc" convert "$tmp/m.parquet" -o "$tmp/x.tfrecord"
has "$tmp/err" "Arrow and Parquet input need --spec" "convert Parquet without --spec"
expect_rc 2 "convert Parquet -o x.parquet" "$featc" convert "$tmp/m.parquet" \
    --spec "$here/../../specs/mnist.feat" -o "$tmp/x.parquet"
has "$tmp/err" "a Parquet file, and $tmp/x.parquet is to be Parquet" "convert Parquet -o x.parquet"
head -c 3000 "$tmp/m.parquet" > "$tmp/cut.parquet"
expect_rc 2 "convert a cut Parquet file" "$featc" convert "$tmp/cut.parquet" \
    --spec "$here/../../specs/mnist.feat" -o "$tmp/x.tfrecord"
has "$tmp/err" "parquet: no PAR1 at the file's end (a truncated file?) (at byte 2996)" \
    "convert a cut Parquet file"
[ ! -e "$tmp/x.tfrecord" ] && [ ! -e "$tmp/x.parquet" ] && ok || bad "a refused Parquet input left a file"
"$featc" --version | grep -q "parquet reads also: [a-z0-9_+]*)" && ok ||
    bad "featc --version names no codecs it reads: $("$featc" --version)"

# ---- version --help says what version does; an operand is a usage error
expect_rc 0 "version --help" "$featc" version --help
has "$tmp/out" "usage: featc version" "version --help"
grep -q '^featc [0-9]' "$tmp/out" && bad "version --help printed the version" || ok
expect_rc 64 "version x" "$featc" version x

# ---- a spec of 4,097 messages is refused at the limit (500,000 took 4.4 GB
# and half a minute); 4,096 check
awk 'BEGIN { print "package p;"; for (i = 0; i < 4097; i++) printf "example m%d { a : int64; }\n", i }' \
    > "$tmp/messages.feat"
expect_rc 1 "4097 messages" "$featc" check "$tmp/messages.feat"
has "$tmp/err" "messages.feat:4098:9: error: the spec declares more than 4096 messages, the limit" \
    "4097 messages"
sed '$d' "$tmp/messages.feat" > "$tmp/messages4096.feat"
expect_rc 0 "4096 messages" "$featc" check "$tmp/messages4096.feat"

# tests/cli/progress.py prints its own "progress:" line
mkdir -p "$tmp/progress"
progress_rc=0
timed progress "$py" "$here/progress.py" "$featc" "$corpus" "$tmp/progress" || progress_rc=1

# ---- featc stats against numpy over the corpus, shards, -j, options:
# tests/cli/stats_check.py prints its own "stats:" line
mkdir -p "$tmp/stats"
stats_rc=0
timed stats "$py" "$here/stats_check.py" "$featc" "$corpus" "$tmp/stats" || stats_rc=1

# ---- the layout (docs/design.md): the CLI's helpers include and call no
# command, no circle among the files of any folder of the product; tests/cli/layout.py prints its own "layout:" line.
# Host lane only: the sources are the sanitizer's and i386's too, and the
# host build, which finds every optional library, has every reference.
layout_rc=0
if [ -n "${CLI_HOST:-}" ]; then
    timed layout "$py" "$here/layout.py" "$here/../.." "$build" --python || layout_rc=1
fi

# ---- one open per file per job (host lane: tests/cli/opens.py prints its own
# "opens:" line)
opens_rc=0
if [ -n "${CLI_HOST:-}" ]; then
    mkdir -p "$tmp/opens"
    timed opens "$py" "$here/opens.py" "$featc" "$corpus" "$tmp/opens" || opens_rc=1
fi

echo "cli-seconds: all=$(($(date +%s) - _start))$_times"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$layout_rc" -eq 0 ] && [ "$opens_rc" -eq 0 ] && [ "$names_rc" -eq 0 ] && [ "$splits_rc" -eq 0 ] && [ "$trust_rc" -eq 0 ] &&
    [ "$shrink_rc" -eq 0 ] && [ "$linear_rc" -eq 0 ] && [ "$catopt_rc" -eq 0 ] &&
    [ "$progress_rc" -eq 0 ] && [ "$golden_rc" -eq 0 ] && [ "$stats_rc" -eq 0 ]
