#!/usr/bin/env python3
"""featc convert checked by real Arrow and Parquet readers: Arrow's own
JavaScript implementation (apache-arrow), Polars (nodejs-polars), DuckDB
(@duckdb/node-api) and hyparquet, installed by `make deps-test` into
BUILD/npm.

usage: run.py FEATC BUILD CORPUS TMP NODE_MODULES [RANDOM_SPECS RECORDS]

Cases: every corpus spec over its corpus files; a corpus file converted
without --spec against the driver of the spec featc infer prints; every message of every
tests/specs spec and RANDOM_SPECS random specs (tests/oracle/random_specs.py,
seed 11) over RECORDS random records that parse (tests/oracle's checker
writes them from random structs with the message's serializer: every
feature kind).  For each case:

- the reference is the JSON driver (`featc compile --driver`, built here)
  for a spec's first message, `featc check --data --json` for the others
  (the same output byte for byte: test-check-data);
- `featc convert` writes an IPC file and stream (and with -j 3 the bytes
  of one thread); apache-arrow reads both:
  the row count, and every value, null and shape of every column equal the
  reference's (KEY/buckets columns, which the driver does not print, are
  left out; a SparseFeature's dense_shape, which Arrow does not carry,
  too);
- Polars reads the file and the stream: the row count, each column's type
  (as the mapping in docs/arrow.md says it prints), and the sum of each
  numeric column's values (ints when every value is below 2^31 in
  magnitude, floats within 1e-4 of the sum of magnitudes, when finite);
- back: the file, the stream, and the file written with --large convert
  to TFRecords the driver reads as the reference, the three byte for byte
  equal; those records (serializer-canonical) go to Arrow and back again
  byte for byte (every kind, RaggedFeature and its feature lists too);
- apache-arrow builds a new table from the rows (its own builders and IPC
  writer); featc converts it to records the driver reads as the reference,
  that Python's protobuf parses and writes back byte for byte, and that
  equal featc's own byte for byte (without NaN: JavaScript numbers quiet
  a signalling NaN's payload); a table with a column of the wrong type is
  refused, nothing written;
- Parquet: featc convert writes the case as a Parquet file (the codecs in
  turn; every other case in row groups of 5 rows and pages of about 64
  bytes); DuckDB and hyparquet (parquet.js) read it: every value against
  the reference, the footer's row count, and DuckDB's column types as
  docs/parquet.md maps them, and each numeric column chunk's minimum,
  maximum and null count (DuckDB's parquet_metadata, hyparquet's footer);
  Polars reads it with the IPC file's types
  (fixed-size lists too: the Arrow schema the file carries) and sums;
- Parquet's dictionary: 3,000 records of tests/arrow/dictionary.feat
  (unique ids and int64s: the dictionary stops paying and the chunk goes
  on PLAIN; 5 tags; lists of 40 words; 4 int64s with both ends; 6 floats
  with -0, a NaN's payload and the infinities, alone and in lists) to
  Parquet twice, read as above; and in one group, uncompressed, the
  columns of few values under 3 bytes a row (their pages indices), those
  of unique values without a dictionary (it stopped paying before a page
  of it was written: the indices turned back into values);
- bad input (the first cases): the IPC file cut at many lengths and with
  bytes changed in its metadata: an error (never a signal), no output;
  another spec's file: refused; a damaged TFRecord input: exit 2, no
  output.

Prints "arrow-js: N passed, M failed"."""
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys

FEATC, BUILD, CORPUS, TMP, NODE_MODULES = sys.argv[1:6]
NRANDOM = int(sys.argv[6]) if len(sys.argv) > 6 else 6
PER_SPEC = int(sys.argv[7]) if len(sys.argv) > 7 else 60
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
sys.path.insert(0, os.path.join(REPO, "tests", "cli"))
from canonical import build_classes, records as tf_records  # noqa: E402
from framing import frame, varint  # noqa: E402
from tally import check, finish  # noqa: E402


def ok(cond, what):
    check(cond, what)
    return cond



def corpus_specs():
    """SPEC -> [corpus files], from tests/oracle/corpus_specs.sh (the table the
    other suites that read the corpus through specs/ share)."""
    text = open(os.path.join(REPO, "tests", "oracle", "corpus_specs.sh")).read()
    body = text[text.index('CORPUS_SPECS="') + len('CORPUS_SPECS="'):]
    body = body[:body.index('"')]
    return dict((spec, files.split(",")) for spec, files in
                (line.split(":", 1) for line in body.split()))


CORPUS_SPECS = corpus_specs()
ENV = dict(os.environ, NODE_PATH=NODE_MODULES)
CLASSES = build_classes()


def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, env=ENV, **kw)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def node(script, *args):
    rc, out, err = run(["node", os.path.join(HERE, script)] + list(args))
    if rc != 0:
        raise RuntimeError("%s: exit %d: %s" % (script, rc, err.strip()[-600:]))
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


# ------------------------------------------------------------ references

def build_driver(spec, out):
    os.makedirs(out, exist_ok=True)
    rc, _, err = run([FEATC, "compile", "-o", out, "--driver", spec])
    if rc != 0:
        raise RuntimeError("compile %s: %s" % (spec, err))
    base = os.path.basename(spec)[:-len(".feat")]
    exe = os.path.join(out, "driver")
    cc = os.environ.get("CC", "cc").split()
    rc, _, err = run(cc + ["-std=c99", "-O1", "-D_POSIX_C_SOURCE=200809L",
                           "-I" + os.path.join(REPO, "include"), "-I" + out, "-o", exe,
                           os.path.join(out, base + ".c"), os.path.join(out, base + "_main.c"),
                           os.path.join(BUILD, "libfeatc.a")] +
                     os.environ.get("LIBS_Z", "-lz").split() + ["-lm", "-lpthread"])
    if rc != 0:
        raise RuntimeError("cc %s: %s" % (spec, err))
    return exe, os.path.join(out, base + ".c")


def messages_of(spec):
    return re.findall(r"^\s*(?:example|sequence_example)\s+(\w+)", open(spec).read(), re.M)


def reference(case, files):
    """The JSON driver's objects for files (as check --data --json for a
    message other than the first)."""
    if case["first"]:
        rc, out, err = run([case["driver"]] + files)
    else:
        rc, out, err = run([FEATC, "check", case["spec"], "--message", case["message"],
                            "--data", "--json"] + files)
    return rc, [json.loads(line) for line in out.decode().splitlines() if line.strip()]


# ------------------------------------------------------------ comparing

def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same_leaf(js, ref):
    """js: read.js's tagged leaf; ref: the driver's JSON value."""
    if isinstance(js, str) and js.startswith("i:"):
        return isinstance(ref, int) and not isinstance(ref, bool) and int(js[2:]) == ref
    if isinstance(js, str) and js.startswith("x:"):
        return isinstance(ref, str) and bytes.fromhex(js[2:]) == ref.encode("latin-1")
    if js == "f:nan":
        return ref == "nan"
    if js in ("f:inf", "f:-inf"):
        return ref == js[2:]
    if js == "f:-0":
        return isinstance(ref, float) and ref == 0 and math.copysign(1, ref) < 0
    if isinstance(js, (int, float)) and not isinstance(js, bool):
        if not isinstance(ref, (int, float)) or isinstance(ref, bool):
            return False
        a, b = f32(float(js)), f32(float(ref))
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return False


def same_value(js, ref):
    if isinstance(ref, dict) and "dense_shape" in ref:
        ref = {"indices": ref["indices"], "values": ref["values"]}
    if isinstance(js, list):
        return isinstance(ref, list) and len(js) == len(ref) and \
            all(same_value(a, b) for a, b in zip(js, ref))
    if isinstance(js, dict):
        return isinstance(ref, dict) and sorted(js) == sorted(ref) and \
            all(same_value(js[k], ref[k]) for k in js)
    if js is None:
        return False  # featc writes no nulls: TensorFlow gives every record a value
    return same_leaf(js, ref)


def ref_row(obj):
    if "features" in obj:
        return obj["features"]
    row = dict(obj["context"])
    for k, v in obj["feature_lists"].items():  # (a key in both: feature_lists/KEY)
        row[("feature_lists/" + k) if k in obj["context"] else k] = v
    return row


def compare_rows(table, refs, what):
    check(table["rows"] == len(refs), "%s: %d rows, the driver read %d records"
          % (what, table["rows"], len(refs)))
    names = [n for n, _ in table["fields"] if not n.endswith("/buckets")]
    for i, (row, obj) in enumerate(zip(table["data"], refs)):
        want = ref_row(obj)
        if sorted(names) != sorted(want):
            check(False, "%s: columns %s, the driver's features %s" % (what, names, sorted(want)))
            return
        for n in names:
            if not same_value(row[n], want[n]):
                check(False, "%s: row %d, column %r: arrow %s, driver %s"
                      % (what, i, n, json.dumps(row[n])[:200], json.dumps(want[n])[:200]))
                return
    check(True, "%s: %d rows, every value" % (what, len(refs)))


# ------------------------------------------------------------ Polars

def split_type(s):
    """'List<X>' -> ('List', 'X'); 'FixedSizeList[3]<X>' -> ('Fixed3', 'X')."""
    m = re.match(r"(List|LargeList|FixedSizeList\[(\d+)\])<(.*)>$", s)
    if not m:
        return None, s
    return ("Fixed" + m.group(2)) if m.group(2) else "List", m.group(3)


def struct_fields(t):
    """How many fields a 'Struct<{a:..., b:...}>' has (at its top level)."""
    depth, n = 0, 1
    for ch in t[t.find("<{") + 2:-2]:
        depth += ch in "<{[("
        depth -= ch in ">}])"
        n += ch == "," and depth == 0
    return n


def polars_dtype(t):
    """The dtype Polars prints for an Arrow type as read.js writes it."""
    leaf = {"Int64": "i64", "Float32": "f32", "Binary": "binary", "LargeBinary": "binary"}
    if t in leaf:
        return leaf[t]
    if t.startswith("Struct<"):
        return "struct[%d]" % struct_fields(t)
    kind, inner = split_type(t)
    if kind == "List":
        return "list[%s]" % polars_dtype(inner)
    dims = [kind[5:]]
    while True:
        k2, in2 = split_type(inner)
        if k2 is None or not k2.startswith("Fixed"):
            break
        dims.append(k2[5:])
        inner = in2
    shape = dims[0] if len(dims) == 1 else "(%s)" % ",".join(dims)
    return "array[%s,%s]" % (polars_dtype(inner), shape)


def levels_of(t):
    """List levels above a numeric leaf, or None (bytes, structs)."""
    n = 0
    while True:
        kind, inner = split_type(t)
        if kind is None:
            return n if t in ("Int64", "Float32") else None
        n += 1
        t = inner


def flat(v):
    if isinstance(v, list):
        for x in v:
            yield from flat(x)
    else:
        yield v


def compare_polars(summary, table, refs, what):
    check(summary["height"] == len(refs), "%s: Polars reads %d rows of %d"
          % (what, summary["height"], len(refs)))
    types = dict(table["fields"])
    for name, dtype, total in summary["columns"]:
        t = types.get(name)
        want = polars_dtype(t)
        if dtype != want:
            check(False, "%s: column %r: Polars says %s, the mapping %s (Arrow %s)"
                  % (what, name, dtype, want, t))
            return
        if total is None or name.endswith("/buckets"):
            continue
        vals = [x for obj in refs for x in flat(ref_row(obj)[name])]
        if t.replace(">", "").endswith("Int64"):
            if all(isinstance(x, int) and abs(x) < 2 ** 31 for x in vals):
                if int(float(total)) != sum(vals) and total != str(sum(vals)):
                    check(False, "%s: column %r: Polars sums %s, the driver's values %d"
                          % (what, name, total, sum(vals)))
                    return
        elif all(isinstance(x, (int, float)) and math.isfinite(x) for x in vals):
            s, mag = sum(vals), sum(abs(x) for x in vals)
            if abs(float(total) - s) > 1e-4 * mag + 1e-3:
                check(False, "%s: column %r: Polars sums %s, the driver's values %r"
                      % (what, name, total, s))
                return
    check(True, "%s: Polars: rows, %d column types and sums" % (what, len(summary["columns"])))


# ------------------------------------------------------------ Parquet

def top_split(body):
    """'a:X, b:Y' -> ['a:X', 'b:Y'], at the commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in body:
        depth += ch in "<{[("
        depth -= ch in ">}])"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def duckdb_type(t):
    """The type DuckDB gives a Parquet column featc wrote from the Arrow
    type t (as read.js prints it): lists of every kind are LISTs in
    Parquet (DuckDB has no fixed-size list there)."""
    leaf = {"Int64": "BIGINT", "Float32": "FLOAT", "Binary": "BLOB", "LargeBinary": "BLOB"}
    if t in leaf:
        return leaf[t]
    if t.startswith("Struct<{"):
        fields = top_split(t[len("Struct<{"):-2])
        return "STRUCT(%s)" % ", ".join('"%s" %s' % (f.split(":", 1)[0],
                                                     duckdb_type(f.split(":", 1)[1]))
                                        for f in fields)
    kind, inner = split_type(t)
    if kind is None:
        raise ValueError("no DuckDB type for " + t)
    return duckdb_type(inner) + "[]"


def number(x):
    """A reference's number (the driver writes "nan", "inf", "-inf")."""
    return float(x) if isinstance(x, str) else x


def compare_stats(stats, refs, group_rows, arrow_fields, label, reader):
    """A reader's statistics of each numeric column chunk (a column of
    values or of lists of them: path NAME, list, element, ...) against the
    minimum and maximum of the chunk's rows, NaN left out, a zero minimum
    -0 and a zero maximum +0; every null count 0.  DuckDB shows no infinite
    statistic (parquet_metadata gives NULL where the file holds one, as
    hyparquet shows), so an infinite one may be missing there."""
    checked = 0
    for group, path, lo, hi, nulls in stats:
        if nulls not in ("0", 0):
            check(False, "%s: row group %s, %s: null count %s" % (label, group, path, nulls))
            return
        parts = path.split(", ")
        name = parts[0]
        if any(p != ("list" if k % 2 == 0 else "element") for k, p in enumerate(parts[1:])):
            continue
        if levels_of(dict(arrow_fields).get(name, "")) is None or name.endswith("/buckets"):
            continue  # bytes, a struct, or bucket ids (the driver prints none)
        rows = refs[int(group) * group_rows:(int(group) + 1) * group_rows]
        vals = [number(x) for obj in rows for x in flat(ref_row(obj)[name])]
        vals = [x for x in vals if x == x]
        if not vals:
            want = (None, None)
            got = (lo, hi)
        elif dict(arrow_fields)[name].replace(">", "").endswith("Int64"):
            want = (min(vals), max(vals))
            got = (int(lo), int(hi)) if lo is not None and hi is not None else (lo, hi)
        else:
            want = (f32(min(vals)), f32(max(vals)))
            if reader == "DuckDB" and math.isinf(want[0]) and lo is None:
                lo = str(want[0])
            if reader == "DuckDB" and math.isinf(want[1]) and hi is None:
                hi = str(want[1])
            got = (f32(float(lo)), f32(float(hi))) if lo is not None and hi is not None \
                else (lo, hi)
            if got == want and ((want[0] == 0 and not lo.startswith("-")) or
                                (want[1] == 0 and hi.startswith("-"))):
                got = ("sign of zero: " + lo, hi)
        if got != want:
            check(False, "%s: row group %s, %s: %s's statistics min %s max %s, the "
                  "values' %s %s" % (label, group, path, reader, lo, hi, want[0], want[1]))
            return
        checked += 1
    check(True, "%s: %s's statistics of %d numeric column chunks" % (label, reader, checked))


PARQUET_CODECS = ["snappy", "zstd", "gzip", "none"]
PARQUET_SEEN = [0]
# what DuckDB's COPY ... (FORMAT parquet) offers: each codec, pages of
# version 1 and 2 (V2: DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT, DELTA
# byte arrays, data pages v2)
DUCKDB_CODECS = ["uncompressed", "snappy", "gzip", "zstd", "brotli", "lz4", "lz4_raw"]


def sql_str(path):
    return "'" + path.replace("'", "''") + "'"


def parquet_back(case, src, refs, label, rc_want=0):
    """featc convert SRC (Parquet) --spec -o SRC.tfrecord: the records the
    driver reads as refs, and -j 2 writes the same bytes.  The output's
    path, or None."""
    out = src + ".tfrecord"
    rc, _, err = convert(src, *spec_args(case), "-o", out)
    if not ok(rc == 0, "%s: featc converts it back to TFRecords (exit %d) %s"
              % (label, rc, err.strip())):
        return None
    rc, back = reference(case, [out])
    ok(rc == 0 and back == refs, "%s: the records written back read as the original "
       "(%d records, %d back)" % (label, len(refs), len(back)))
    # -j 2: the row groups on two threads (whole groups from 8 of them,
    # else pieces of each, its columns decoded on the two threads:
    # convert_jobs.c), the same bytes as one thread writes
    rc, _, err = convert(src, *spec_args(case), "-o", out + ".j2", "-j", "2")
    check(rc == 0 and same_file(out, out + ".j2"), "%s: convert -j 2 writes the bytes -j 1 "
          "does (exit %d) %s" % (label, rc, err.strip()))
    return out


def same_file(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        return f.read() == g.read()


def duckdb_rewrites(case, src, refs, k, d):
    """DuckDB reads featc's Parquet file and writes it again (the codecs it
    offers in turn, pages v1 and v2, every other file in row groups of 3
    rows); featc converts each back to the records of refs."""
    codec = DUCKDB_CODECS[k % len(DUCKDB_CODECS)]
    rows = ", ROW_GROUP_SIZE 3" if (k // 2) % 2 else ""
    outs = [(v, os.path.join(d, "duck-%s-%s.parquet" % (codec, v))) for v in ("V1", "V2")]
    try:  # (one DuckDB for both)
        node("duckdb_write.js", *["COPY (SELECT * FROM read_parquet(%s)) TO %s (FORMAT parquet, "
                                  "COMPRESSION %s, PARQUET_VERSION %s%s)"
                                  % (sql_str(src), sql_str(out), codec, v, rows)
                                  for v, out in outs])
    except RuntimeError as e:
        check(False, "%s: DuckDB rewrites featc's Parquet: %s" % (case["label"], e))
        return
    for version, out in outs:
        parquet_back(case, out, refs, "%s, DuckDB's Parquet (%s, %s%s)"
                     % (case["label"], codec, version, ", groups of 3" if rows else ""))


def parquet_case(case, files, refs, arrow_fields, d):
    """featc convert to Parquet (the codecs in turn; every other case in
    row groups of 5 rows and pages of about 64 bytes, so that chunks have
    many pages and files many groups), read by DuckDB and hyparquet."""
    what = case["label"]
    k = PARQUET_SEEN[0]
    PARQUET_SEEN[0] += 1
    codec = PARQUET_CODECS[k % len(PARQUET_CODECS)]
    small = ["--row-group-size", "5", "--page-size", "64"] if k % 2 else []
    out = os.path.join(d, "t.parquet")
    rc, _, err = convert(*(files + spec_args(case) + ["-o", out, "--codec", codec] + small))
    if not ok(rc == 0, "%s: convert -o t.parquet --codec %s (exit %d) %s"
              % (what, codec, rc, err.strip())):
        return
    label = "%s, Parquet (%s%s)" % (what, codec, ", small groups and pages" if small else "")
    try:
        duck, hyp = node("parquet.js", out)
    except RuntimeError as e:  # a reader that refuses the file: a failure, and on
        check(False, "%s: %s" % (label, e))
        return
    compare_rows(duck, refs, label + ", DuckDB")
    compare_rows(hyp, refs, label + ", hyparquet")
    check(hyp["schema_rows"] == len(refs), "%s: the footer's row count %d, records %d"
          % (label, hyp["schema_rows"], len(refs)))
    for table, reader in ((duck, "DuckDB"), (hyp, "hyparquet")):
        compare_stats(table["stats"], refs, 5 if small else max(len(refs), 1), arrow_fields,
                      label, reader)
    # Polars reads the Arrow schema the file carries: the IPC file's types
    levels = ",".join("%s=%s" % (n, "x" if levels_of(t) is None else levels_of(t))
                      for n, t in arrow_fields)
    for s in node("polars.js", out, levels):
        compare_polars(s, {"fields": arrow_fields}, refs, label + ", Polars")
    want = [[n, duckdb_type(t)] for n, t in arrow_fields]
    check(duck["fields"] == want, "%s: DuckDB's column types %s, the mapping's %s"
          % (label, duck["fields"], want))
    # and back: featc's own file, and DuckDB's writes of it
    back = parquet_back(case, out, refs, label)
    duckdb_rewrites(case, out, refs, k, d)
    return back


def dictionary_sizes(case, src, d):
    """The dictionary case in one row group, uncompressed: its columns of
    few values take less than 3 bytes a row (as PLAIN, 8 or 4 and more:
    their pages hold indices), and those of unique values, whose
    dictionary stopped paying before a page of it was written, no
    dictionary at all (their indices turned back into values)."""
    out = os.path.join(d, "sizes.parquet")
    rc, _, err = convert(src, *spec_args(case), "-o", out, "--codec", "none")
    if not ok(rc == 0, "the dictionary case to Parquet (exit %d) %s" % (rc, err.strip())):
        return
    rows = node("parquet.js", "--duckdb", out)[0]["sizes"]
    sizes = {p: int(n) for _, p, n, _ in rows}
    encodings = {p: e for _, p, _, e in rows}
    for col in ("tag", "words, list, element", "level", "x", "xs, list, element"):
        check(sizes.get(col, 1e9) < 3 * 3000 and "RLE_DICTIONARY" in encodings.get(col, ""),
              "the dictionary case's %s: %s bytes before compression for 3,000 rows (a "
              "dictionary's indices: under 9,000), encodings %s"
              % (col, sizes.get(col), encodings.get(col)))
    for col in ("id", "num"):
        check(col in encodings and "DICTIONARY" not in encodings[col],
              "the dictionary case's %s (unique values): encodings %s, no dictionary"
              % (col, encodings.get(col)))


# ------------------------------------------------------------ one case

def convert(*args):
    return run([FEATC, "convert", "-q"] + list(args))


def spec_args(case):
    return ["--spec", case["spec"]] + (["--message", case["message"]] if case["message"] else [])


def parse_messages(path, kind):
    cls = CLASSES[kind]
    out = []
    for _, rec in tf_records(path):
        m = cls()
        m.ParseFromString(rec)
        out.append(m)
    return out


def run_case(case, files, refs):
    what = case["label"]
    d = os.path.join(TMP, re.sub(r"[^\w.-]", "_", what))
    os.makedirs(d, exist_ok=True)
    arrow, arrows, large = (os.path.join(d, n) for n in ("t.arrow", "t.arrows", "large.arrow"))
    for out, extra in ((arrow, []), (arrows, []), (large, ["--large"])):
        rc, _, err = convert(*(files + spec_args(case) + ["-o", out] + extra))
        if not ok(rc == 0, "%s: convert -o %s (exit %d) %s"
                     % (what, os.path.basename(out), rc, err.strip())):
            return
    # on 3 threads (-j 3, in batches of 7 so that several are in flight): the same bytes
    one, three = (os.path.join(d, n) for n in ("b7.arrow", "b7-j3.arrow"))
    rc1, _, e1 = convert(*(files + spec_args(case) + ["-o", one, "--batch-size", "7"]))
    rc3, _, e3 = convert(*(files + spec_args(case) + ["-o", three, "--batch-size", "7", "-j",
                                                      "3"]))
    check(rc1 == 0 and rc3 == 0 and open(one, "rb").read() == open(three, "rb").read(),
          "%s: convert -j 3 writes the bytes of one thread %s%s" % (what, e1, e3))
    tables = node("read.js", arrow, arrows)
    compare_rows(tables[0], refs, what + ", IPC file")
    compare_rows(tables[1], refs, what + ", IPC stream")
    pq_back = parquet_case(case, files, refs, tables[0]["fields"], d)
    levels = ",".join("%s=%s" % (n, "x" if levels_of(t) is None else levels_of(t))
                      for n, t in tables[0]["fields"])
    for s in node("polars.js", arrow, levels, arrows, levels):
        compare_polars(s, tables[0], refs, what + ", " + os.path.basename(s["file"]))

    # back to records
    kind = "sequence" if "context" in (refs[0] if refs else {}) else "example"
    backs = []
    for src in (arrow, arrows, large):
        out = src + ".tfrecord"
        rc, _, err = convert(*([src] + spec_args(case) + ["-o", out]))
        if not ok(rc == 0, "%s: convert %s back (exit %d) %s"
                  % (what, os.path.basename(src), rc, err.strip())):
            return
        backs.append(out)
    if pq_back is not None:
        backs.append(pq_back)
    same_bytes = all(open(b, "rb").read() == open(backs[0], "rb").read() for b in backs)
    check(same_bytes, "%s: file, stream, --large and Parquet convert back to the same bytes"
          % what)
    rc, back_refs = reference(case, [backs[0]])
    check(rc == 0 and back_refs == refs,
          "%s: the records written back read as the original (%d records)" % (what, len(refs)))
    again = os.path.join(d, "again.arrow")
    rc1, _, e1 = convert(*([backs[0]] + spec_args(case) + ["-o", again]))
    rc2, _, e2 = convert(*([again] + spec_args(case) + ["-o", again + ".tfrecord"]))
    check(rc1 == 0 and rc2 == 0 and
          open(again + ".tfrecord", "rb").read() == open(backs[0], "rb").read(),
          "%s: canonical records -> Arrow -> records, byte for byte %s%s" % (what, e1, e2))

    # a table apache-arrow built and wrote
    js = os.path.join(d, "js.arrow")
    node("write.js", arrow, js)
    rc, _, err = convert(*([js] + spec_args(case) + ["-o", js + ".tfrecord"]))
    if ok(rc == 0, "%s: apache-arrow's table converts (exit %d) %s" % (what, rc, err)):
        # JavaScript numbers quiet a signalling NaN (its payload changes), so
        # the bytes are the same only without NaN; the values always
        rc, js_refs = reference(case, [js + ".tfrecord"])
        check(rc == 0 and js_refs == refs,
              "%s: apache-arrow's table gives records the driver reads as the reference"
              % what)
        if "nan" not in json.dumps(refs):
            check(open(js + ".tfrecord", "rb").read() == open(backs[0], "rb").read(),
                  "%s: apache-arrow's table gives featc's records byte for byte" % what)
        a = [m.SerializeToString(deterministic=True)
             for m in parse_messages(js + ".tfrecord", kind)]
        b = [m.SerializeToString(deterministic=True) for m in parse_messages(backs[0], kind)]
        check(len(a) == len(refs) and len(b) == len(refs) and
              a == [rec for _, rec in tf_records(js + ".tfrecord")] and
              ("nan" in json.dumps(refs) or a == b),
              "%s: Python's protobuf reads apache-arrow's records (as featc's when no NaN), "
              "and writes them back byte for byte (%d)" % (what, len(a)))
    wrong = os.path.join(d, "wrong.arrow")
    node("write.js", arrow, wrong, "wrong-type")
    rc, _, err = convert(*([wrong] + spec_args(case) + ["-o", wrong + ".tfrecord"]))
    check(rc == 1 and "arrow: column" in err and not os.path.exists(wrong + ".tfrecord"),
          "%s: a column of the wrong type refused (exit %d: %s)" % (what, rc, err.strip()))


# ------------------------------------------------------------ nulls

NULL_COLUMNS = 'v(s, d, f3, b2, v, vb, r, "a/b")'


def nulls_case():
    """Parquet files DuckDB writes with NULLs, through tests/specs/
    semantics.feat's message t: a null FixedLen with a default is its
    default, a null VarLen or FixedLenSequence no values (the records read
    as those of a table with the defaults and empty lists written out); a
    null for a required feature, a null inside a value and a list of
    another length than a fixed shape are errors that name the column and
    row, and write nothing."""
    spec = os.path.join(REPO, "tests", "specs", "semantics.feat")
    d = os.path.join(TMP, "nulls")
    case = cases_of(spec, "nulls", os.path.join(TMP, "drv-nulls"))[0]
    row0 = "(1::BIGINT, 5::BIGINT, [1,2,3]::FLOAT[], ['p','q']::BLOB[], [1,2]::BIGINT[], " \
        "['a']::BLOB[], [[1,2],[3,4]]::FLOAT[][], 1.5::FLOAT)"
    tables = {
        "nulls": "(2, NULL, [4,5,6], NULL, NULL, NULL, NULL, NULL)",
        "explicit": "(2, 7, [4,5,6], ['x','y']::BLOB[], [], [], [], 0.5)",
        "required": "(NULL, 7, [4,5,6], ['x','y']::BLOB[], [], [], [], 0.5)",
        "inside": "(2, 7, [4,NULL,6], ['x','y']::BLOB[], [], [], [], 0.5)",
        "short": "(2, 7, [4,6], ['x','y']::BLOB[], [], [], [], 0.5)",
    }
    os.makedirs(d, exist_ok=True)
    sql = []
    for name, row in tables.items():
        sql.append("COPY (SELECT * FROM (VALUES %s, %s) %s) TO %s (FORMAT parquet)"
                   % (row0, row, NULL_COLUMNS, sql_str(os.path.join(d, name + ".parquet"))))
    try:
        node("duckdb_write.js", *sql)
    except RuntimeError as e:
        check(False, "nulls: DuckDB writes the tables: %s" % e)
        return
    outs = {}
    for name in tables:
        src = os.path.join(d, name + ".parquet")
        rc, _, err = convert(src, *spec_args(case), "-o", src + ".tfrecord")
        outs[name] = (rc, err, os.path.exists(src + ".tfrecord"))
    if ok(outs["nulls"][0] == 0 and outs["explicit"][0] == 0,
          "nulls: DuckDB's tables with NULLs and with defaults convert %s" % (outs,)):
        rc1, a = reference(case, [os.path.join(d, "nulls.parquet.tfrecord")])
        rc2, b = reference(case, [os.path.join(d, "explicit.parquet.tfrecord")])
        check(rc1 == rc2 == 0 and len(a) == 2 and a == b,
              "nulls: NULLs read as defaults and no values (%s against %s)" % (a, b))
    for name, text in (("required", "null, but the feature is required"),
                       ("inside", "a null inside a value"),
                       ("short", "a list whose length is not the spec's fixed shape's (2)")):
        rc, err, left = outs[name]
        check(rc == 1 and text in err and "row group 0, row 1" in err and not left,
              "nulls: %s: exit 1 naming the row, nothing written (exit %d: %s)"
              % (name, rc, err.strip()))


def jobs_case(d, specs, name, n, bad, group_rows, jobs_list, at):
    """n records of x (row bad: 300, which `x : int64 as uint8` refuses) in
    Parquet row groups of group_rows, back to records on each -j of
    jobs_list: with the plain spec the n records, the bytes of -j 1; with
    the narrow one the error, the exit status and the missing output of
    -j 1 (whose message names the row as `at` says)."""
    src = os.path.join(d, name + ".tfrecord")
    with open(src, "wb") as f:
        for i in range(n):
            v = 300 if i == bad else i % 200
            f.write(frame(ld(1, ld(1, ld(1, b"x") + ld(2, ld(3, ld(1, varint(v))))))))
    pq = os.path.join(d, name + ".parquet")
    rc, _, err = convert(src, "--spec", specs["plain"], "-o", pq, "--row-group-size",
                         str(group_rows))
    if not ok(rc == 0, "jobs: %s: %d records in row groups of %d (exit %d) %s"
              % (name, n, group_rows, rc, err.strip())):
        return
    got = {}
    for jobs in ["1"] + jobs_list:
        out = os.path.join(d, "%s-back-%s.tfrecord" % (name, jobs))
        rc, _, err = convert(pq, "--spec", specs["plain"], "-o", out, "-j", jobs)
        check(rc == 0 and run([FEATC, "count", out])[1].split()[:1] == [b"%d" % n] and
              same_file(os.path.join(d, "%s-back-1.tfrecord" % name), out),
              "jobs: %s: -j %s writes the %d records, the bytes of -j 1 (exit %d) %s"
              % (name, jobs, n, rc, err.strip()))
        out = os.path.join(d, "%s-narrow-%s.tfrecord" % (name, jobs))
        rc, _, err = convert(pq, "--spec", specs["narrow"], "-o", out, "-j", jobs)
        got[jobs] = (rc, err, os.path.exists(out))
    rc, err, left = got["1"]
    check(rc == 1 and at in err and "Value 300 at index 0 is out of the range of uint8" in err
          and not left, "jobs: %s: -j 1 names row %d (exit %d, output left %s) %s"
          % (name, bad, rc, left, err.strip()))
    for jobs in jobs_list:
        check(got[jobs] == got["1"], "jobs: %s: -j %s fails as -j 1 does: %s against %s"
              % (name, jobs, got[jobs], got["1"]))


def jobs_errors():
    """convert -j N from Parquet against -j 1: the threads' records and
    first error are the one-thread loop's."""
    d = os.path.join(TMP, "jobs")
    os.makedirs(d, exist_ok=True)
    specs = {}
    for name, text in (("plain", "x : int64 = 0;"), ("narrow", "x : int64 as uint8 = 0;")):
        specs[name] = os.path.join(d, name + ".feat")
        with open(specs[name], "w") as f:
            f.write("package j%s;\nexample r {\n  %s\n}\n" % (name, text))
    # 12 row groups of 5, whole groups on the threads; row 37 is group 7's row 2
    jobs_case(d, specs, "groups", 60, 37, 5, ["2", "0"], "row group 7, row 2 (row 37 of the file)")
    # one row group of 600 rows: -j N cuts its rows into pieces (8 of 75 rows
    # on 2 threads; 9 of 66 or 67 on 3, pieces being 64 rows at least), the
    # group decoded once and shared; row 437 is in the sixth piece of 8, the
    # seventh of 9
    jobs_case(d, specs, "one", 600, 437, 1000, ["2", "3"],
              "row group 0, row 437 (row 437 of the file)")


# ------------------------------------------------------------ bad input

def bad_input(case, other_case):
    what = case["label"]
    d = os.path.join(TMP, "bad")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(TMP, re.sub(r"[^\w.-]", "_", what), "t.arrow")
    data = open(src, "rb").read()
    out = os.path.join(d, "out.tfrecord")
    rng = random.Random(5)
    cuts = sorted(set([0, 1, 5, 8, 12, len(data) - 1, len(data) - 6, len(data) - 10] +
                      [rng.randrange(len(data)) for _ in range(40)]))
    bad = 0
    for n in cuts:
        p = os.path.join(d, "cut.arrow")
        open(p, "wb").write(data[:n])
        if os.path.exists(out):
            os.unlink(out)
        rc, _, err = convert(p, *spec_args(case), "-o", out)
        if rc not in (1, 2) or os.path.exists(out) or not err.startswith("featc: "):
            bad += 1
            print("cut at %d: exit %d, %s" % (n, rc, err.strip()[:300]))
    check(bad == 0, "%s: the IPC file cut at %d lengths: an error, nothing written"
          % (what, len(cuts)))
    # bytes changed in the metadata: the schema message and the footer
    meta = list(range(8, min(len(data), 600))) + list(range(max(0, len(data) - 400), len(data)))
    bad = 0
    for k in range(150):
        b = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            b[rng.choice(meta)] = rng.randrange(256)
        p = os.path.join(d, "flip.arrow")
        open(p, "wb").write(bytes(b))
        if os.path.exists(out):
            os.unlink(out)
        rc, _, err = convert(p, *spec_args(case), "-o", out)
        if rc < 0 or rc not in (0, 1, 2) or (rc != 0 and os.path.exists(out)):
            bad += 1
            print("changed bytes %d: exit %d, %s" % (k, rc, err.strip()[:300]))
    check(bad == 0, "%s: 150 IPC files with metadata bytes changed: no signal, "
          "nothing written on error" % what)
    # the wrong spec
    rc, _, err = convert(src, *spec_args(other_case), "-o", out + ".other")
    check(rc == 1 and "arrow: column" in err and not os.path.exists(out + ".other"),
          "%s: converted with another spec's message: refused (%s)" % (what, err.strip()))
    # TFRecord side: a damaged input, a record the spec refuses
    tf = case["files"][0]
    raw = open(tf, "rb").read()
    p = os.path.join(d, "damaged.tfrecord")
    open(p, "wb").write(raw[:len(raw) // 2] + b"\x00" * 9 + raw[len(raw) // 2:])
    rc, _, err = convert(p, *spec_args(case), "-o", out + ".arrow")
    check(rc == 2 and not os.path.exists(out + ".arrow") and "featc:" in err,
          "%s: a damaged TFRecord file: exit 2, nothing written (%s)" % (what, err.strip()))
    rc, _, err = convert(tf, *spec_args(other_case), "-o", out + ".arrow")
    check(rc == 1 and not os.path.exists(out + ".arrow") and "record 0 (offset 0 of" in err,
          "%s: records another spec refuses: exit 1, nothing written (%s)"
          % (what, err.strip()[:200]))
    rc3, _, err3 = convert(tf, *spec_args(other_case), "-o", out + ".arrow", "-j", "3",
                           "--batch-size", "2")
    rc1, _, err1 = convert(tf, *spec_args(other_case), "-o", out + ".arrow", "--batch-size", "2")
    check(rc3 == rc1 == 1 and err3 == err1 and not os.path.exists(out + ".arrow"),
          "%s: -j 3 reports the first failing record, as one thread (%s)"
          % (what, err3.strip()[:200]))


# ------------------------------------------------------------ cases

def valid_data(case, out):
    """Random records that parse: tests/oracle's checker fills random structs
    of the message and writes them with its serializer ($FEATC_RT_OUT, the
    round trip it checks), every feature kind, SparseFeature and
    RaggedFeature too."""
    text = open(case["spec"]).read()
    pkg = re.search(r"^package (\w+);", text, re.M).group(1)
    seq = re.search(r"^\s*sequence_example\s+%s\b" % case["name"], text, re.M) is not None
    base = os.path.basename(case["source"])[:-2]
    exe = os.path.join(out, "check-" + case["name"])
    oracle = os.path.join(REPO, "tests", "oracle")
    cc = os.environ.get("CC", "cc").split()
    rc, _, err = run(cc + ["-std=c99", "-O1", "-D_POSIX_C_SOURCE=200809L",
                           "-I" + os.path.join(REPO, "include"),
                           "-I" + os.path.join(REPO, "runtime", "core"),
                           "-isystem", os.path.join(BUILD, "gen"), "-I" + out,
                           "-include", os.path.join(out, base + ".h"),
                           "-DDESC=%s_%s_desc" % (pkg, case["name"])] +
                     (["-DSEQ"] if seq else []) +
                     ["-o", exe, os.path.join(oracle, "seq_check.c" if seq else "check.c"),
                      os.path.join(oracle, "oracle.c"), os.path.join(oracle, "seq_oracle.c"),
                      case["source"], os.path.join(BUILD, "libfeatc_fallback.a"),
                      os.path.join(BUILD, "libfeatc.a"), "-lprotobuf-c"] +
                     os.environ.get("LIBS_Z", "-lz").split() + ["-lm", "-lpthread"])
    if rc != 0:
        raise RuntimeError("the checker of %s does not build: %s" % (case["label"], err[-800:]))
    kept = os.path.join(out, "kept-%s.tfrecord" % case["name"])
    env = dict(ENV, FEATC_RT_OUT=kept)
    subprocess.run([exe, "random", case["label"], "11", str(PER_SPEC)], env=env,
                   capture_output=True)
    good = os.path.join(out, "valid-%s.tfrecord" % case["name"])
    with open(good, "wb") as f:
        for i, (_, rec) in enumerate(tf_records(kept) if os.path.exists(kept) else []):
            if i == PER_SPEC:
                break
            f.write(frame(rec))
    return good


def cases_of(spec, label, out):
    exe, source = build_driver(spec, out)
    names = messages_of(spec)
    return [{"spec": spec, "message": m if len(names) > 1 else None, "name": m, "first": i == 0,
             "driver": exe, "source": source, "label": "%s %s" % (label, m)}
            for i, m in enumerate(names)]


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    if not os.path.isdir(os.path.join(NODE_MODULES, "apache-arrow")) or \
            not os.path.isdir(os.path.join(NODE_MODULES, "nodejs-polars")):
        check(False, "apache-arrow and nodejs-polars are not in %s: run make deps"
              % NODE_MODULES)
        return finish("arrow-js")
    done = []
    for name, files in CORPUS_SPECS.items():
        spec = os.path.join(REPO, "specs", name + ".feat")
        for case in cases_of(spec, name, os.path.join(TMP, "drv-" + name)):
            case["files"] = [os.path.join(CORPUS, f) for f in files]
            rc, refs = reference(case, case["files"])
            check(rc == 0 and refs, "%s: the driver reads the corpus files" % case["label"])
            run_case(case, case["files"], refs)
            done.append(case)
    rdir = os.path.join(TMP, "random-specs")
    os.makedirs(rdir)
    # (no typed tensors, `as`: their columns hold the tensors, not the record
    # values the JSON driver prints; tests/arrow/typed_parquet.py checks them
    # in Parquet and back, tests/python's test_arrow.py typed.feat's Arrow
    # batches)
    run([sys.executable, os.path.join(REPO, "tests", "oracle", "random_specs.py"), "11",
         str(NRANDOM), rdir, "--no-as"])
    specs = [(os.path.join(REPO, "tests", "specs", f), f[:-5])
             for f in sorted(os.listdir(os.path.join(REPO, "tests", "specs")))
             if not f.startswith("typed")]
    specs += [(os.path.join(rdir, f), "random " + f[:-5]) for f in sorted(os.listdir(rdir))
              if f.endswith(".feat")]
    for spec, label in specs:
        out = os.path.join(TMP, "drv-" + re.sub(r"\W", "_", label))
        try:
            cases = cases_of(spec, label, out)
        except RuntimeError as e:
            check(False, "%s: %s" % (label, e))
            continue
        for case in cases:
            try:
                data = valid_data(case, out)
            except RuntimeError as e:
                check(False, str(e))
                continue
            rc, refs = reference(case, [data])
            if not ok(rc == 0 and len(refs) > 0,
                         "%s: random records the parser accepts (%d)" % (case["label"], len(refs))):
                continue
            case["files"] = [data]
            run_case(case, [data], refs)
    # without --spec: the spec featc infer prints for the same files
    files = [os.path.join(CORPUS, f) for f in CORPUS_SPECS["penguin"]]
    inferred = os.path.join(TMP, "inferred.feat")
    rc, out, err = run([FEATC, "infer", "-q"] + files)
    open(inferred, "wb").write(out)
    if ok(rc == 0, "featc infer on penguin's file (%s)" % err.strip()):
        for case in cases_of(inferred, "inferred", os.path.join(TMP, "drv-inferred")):
            rc, refs = reference(case, files)
            a = os.path.join(TMP, "inferred.arrow")
            rc2, _, err = convert(*(files + ["-o", a]))
            if ok(rc == 0 and rc2 == 0, "convert without --spec (exit %d) %s" % (rc2, err)):
                compare_rows(node("read.js", a)[0], refs, "without --spec, the inferred spec")
    # a RaggedFeature list's frame wider than every context field
    spec = os.path.join(HERE, "wide_frames.feat")
    vals = lambda v: ld(3, ld(1, b"".join(varint(x) for x in v)))  # noqa: E731
    rec = ld(1, ld(1, ld(1, b"id") + ld(2, vals([7])))) + \
        ld(2, ld(1, ld(1, b"big") + ld(2, ld(1, vals(range(40))) + ld(1, vals([1, 2])))))
    src, a, back = (os.path.join(TMP, "wide." + e) for e in ("tfrecord", "arrow", "back.tfrecord"))
    open(src, "wb").write(frame(rec))
    rc1, _, e1 = convert(src, "--spec", spec, "-o", a)
    rc2, _, e2 = convert(a, "--spec", spec, "-o", back)
    r1 = run([FEATC, "check", spec, "--data", "--json", src])
    r2 = run([FEATC, "check", spec, "--data", "--json", back])
    check(rc1 == rc2 == 0 and r1[0] == 0 and r1[1] == r2[1] and b"39" in r1[1],
          "a RaggedFeature list of 40-value frames to Arrow and back %s%s" % (e1, e2))
    # byte strings for the Parquet dictionary: one that stops paying (the
    # chunk goes on PLAIN), one that pays to the end, lists of indices
    spec = os.path.join(HERE, "dictionary.feat")
    rng = random.Random(3)
    NUMS = [-2**63, 2**63 - 1] + [(i * 0x9E3779B97F4A7C15) % 2**64 - 2**63 for i in range(2998)]
    LEVELS = [-2**63, -1, 0, 2**63 - 1]
    XS = [struct.pack("<f", v) for v in (0.0, -0.0, math.inf, -math.inf, 1.5)] + \
        [struct.pack("<I", 0x7fc00001)]  # (a NaN with a payload)
    src = os.path.join(TMP, "dictionary.tfrecord")
    with open(src, "wb") as f:
        for i in range(3000):
            words = [b"w%02d" % rng.randrange(40) for _ in range(rng.randrange(5))]
            xs = [rng.choice(XS) for _ in range(rng.randrange(5))]
            feats = ld(1, ld(1, b"id") + ld(2, ld(1, ld(1, b"id%06d" % i)))) + \
                ld(1, ld(1, b"tag") + ld(2, ld(1, ld(1, b"t%d" % rng.randrange(5))))) + \
                ld(1, ld(1, b"words") + ld(2, ld(1, b"".join(ld(1, w) for w in words)))) + \
                ld(1, ld(1, b"num") + ld(2, ld(3, ld(1, varint(NUMS[i]))))) + \
                ld(1, ld(1, b"level") + ld(2, ld(3, ld(1, varint(rng.choice(LEVELS)))))) + \
                ld(1, ld(1, b"x") + ld(2, ld(2, ld(1, rng.choice(XS))))) + \
                ld(1, ld(1, b"xs") + ld(2, ld(2, ld(1, b"".join(xs)))))
            f.write(frame(ld(1, feats)))
    for case in cases_of(spec, "dictionary", os.path.join(TMP, "drv-dictionary")):
        rc, refs = reference(case, [src])
        if ok(rc == 0 and len(refs) == 3000, "the dictionary case's records (%d)" % len(refs)):
            d = os.path.join(TMP, "dictionary")
            os.makedirs(d, exist_ok=True)
            for k in range(2):  # once in default row groups, once in groups of 5, small pages
                parquet_case(case, [src], refs, [["id", "Binary"], ["tag", "Binary"],
                                                 ["words", "List<Binary>"], ["num", "Int64"],
                                                 ["level", "Int64"], ["x", "Float32"],
                                                 ["xs", "List<Float32>"]], d)
            dictionary_sizes(case, src, d)
    nulls_case()
    jobs_errors()
    bad_input(done[0], done[1])
    bad_input(done[5], done[0])
    return finish("arrow-js")


if __name__ == "__main__":
    sys.exit(main())
