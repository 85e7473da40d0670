#!/usr/bin/env python3
"""Hostile Parquet files against featc convert (Parquet to TFRecords), with
DuckDB (@duckdb/node-api) as the reference reader: featc must read a file
as DuckDB reads it, or refuse it with the byte offset; never exit 0 with
other rows, never a signal, a hang or a partial output file.

usage: hostile_parquet.py FEATC TMP NODE_MODULES

DuckDB writes small valid files of one table (int64 a; bytes b of three
values, so dictionary-encoded; a list of int64 l, NULL in every fifth row)
with pages v1 uncompressed and v2 ZSTD, in row groups of 20; then this
script changes them, decoding and re-encoding their Thrift metadata (the
footer, page headers) field by field:
  - the file cut at many lengths;
  - a footer length past the file's start;
  - the footer's row count, or a row group's, one more than the columns';
  - a column chunk past the file's end, or starting past it;
  - a column chunk claiming more values than its pages hold;
  - a page larger than its column chunk, and one whose uncompressed size
    is 2 GiB (the reader's limit, not an allocation);
  - a dictionary of one entry under indices up to 2;
  - the schema's root claiming more children than it has;
  - a struct nested 70 deep (DuckDB writes it: past the 64 levels featc
    reads).
Each must be refused: exit 2, no output, the error "parquet: ... (at byte
N)" saying what.  Then 300 files with one to three bytes changed in the
footer and the page headers: featc either refuses (exit 1 or 2, no output)
or gives the rows DuckDB gives for the same bytes.  Prints
"parquet-hostile: N passed, M failed"."""
import json
import os
import random
import shutil
import struct
import subprocess
import sys

FEATC, TMP, NODE_MODULES = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "cli"))
from tally import check, finish  # noqa: E402

ENV = dict(os.environ, NODE_PATH=NODE_MODULES)
FLIPS = int(os.environ.get("PARQUET_FLIPS", "150"))  # (files changed per base file)
SPEC = "package hp;\nexample r {\n  a : int64;\n  b : bytes;\n  l : int64[] max 8;\n}\n"


# ------------------------------------------------------------ compact Thrift

def uvarint(b, p):
    v = shift = 0
    while True:
        x = b[p]
        p += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if x < 0x80:
            return v, p


def zz(v):
    return (v >> 1) ^ -(v & 1)


def read_value(b, p, t):
    """A value of compact type t at b[p]: (value, next p).  A struct is a
    list of [field id, type, value]; a list is [element type, values]."""
    if t in (1, 2):
        return t == 1, p
    if t == 3:
        return b[p], p + 1
    if t in (4, 5, 6):
        v, p = uvarint(b, p)
        return zz(v), p
    if t == 7:
        return b[p:p + 8], p + 8
    if t == 8:
        n, p = uvarint(b, p)
        return bytes(b[p:p + n]), p + n
    if t in (9, 10):
        h = b[p]
        p += 1
        n, et = h >> 4, h & 15
        if n == 15:
            n, p = uvarint(b, p)
        out = []
        for _ in range(n):
            if et in (1, 2):
                out.append(b[p] == 1)
                p += 1
            else:
                v, p = read_value(b, p, et)
                out.append(v)
        return [et, out], p
    if t == 12:
        fields, last = [], 0
        while True:
            h = b[p]
            p += 1
            if h == 0:
                return fields, p
            t2, d = h & 15, h >> 4
            if d:
                fid = last + d
            else:
                v, p = uvarint(b, p)
                fid = zz(v)
            v, p = read_value(b, p, t2)
            fields.append([fid, t2, v])
            last = fid
    raise ValueError("type %d" % t)


def put_uvarint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def put_zz(v):
    return put_uvarint((v << 1) ^ (v >> 63) if v < 0 else v << 1)


def write_value(v, t):
    if t in (1, 2):
        return b""
    if t == 3:
        return bytes([v & 255])
    if t in (4, 5, 6):
        return put_zz(v)
    if t == 7:
        return bytes(v)
    if t == 8:
        return put_uvarint(len(v)) + v
    if t in (9, 10):
        et, vals = v
        head = bytes([len(vals) << 4 | et]) if len(vals) < 15 else \
            bytes([0xF0 | et]) + put_uvarint(len(vals))
        body = b"".join(bytes([1 if x else 2]) if et in (1, 2) else write_value(x, et)
                        for x in vals)
        return head + body
    if t == 12:
        out, last = bytearray(), 0
        for fid, t2, x in v:
            t3 = (1 if x else 2) if t2 in (1, 2) else t2
            if 0 < fid - last <= 15:
                out.append((fid - last) << 4 | t3)
            else:
                out.append(t3)
                out += put_zz(fid)
            out += write_value(x, t2)
            last = fid
        out.append(0)
        return bytes(out)
    raise ValueError("type %d" % t)


def get(st, fid):
    for f in st:
        if f[0] == fid:
            return f
    raise KeyError(fid)


def footer(data):
    n = struct.unpack_from("<I", data, len(data) - 8)[0]
    start = len(data) - 8 - n
    meta, _ = read_value(data, start, 12)
    return start, meta


def with_footer(data, meta):
    start, _ = footer(data)
    enc = write_value(meta, 12)
    return data[:start] + enc + struct.pack("<I", len(enc)) + b"PAR1"


def chunks(meta):
    """The ColumnMetaData structs of every column chunk, row group by row group."""
    out = []
    for rg in get(meta, 4)[2][1]:
        for cc in get(rg, 1)[2][1]:
            out.append(get(cc, 3)[2])
    return out


def pages(data, meta):
    """(start, header struct, header end) of every page of every chunk."""
    out = []
    for cm in chunks(meta):
        p = get(cm, 11)[2] if any(f[0] == 11 for f in cm) else get(cm, 9)[2]
        end = p + get(cm, 7)[2]
        while p < end:
            h, q = read_value(data, p, 12)
            out.append((p, h, q))
            p = q + get(h, 3)[2]
    return out


def with_page(data, at, hdr_end, header):
    enc = write_value(header, 12)
    if len(enc) != hdr_end - at:
        return None  # (a header that changes length would move the pages)
    return data[:at] + enc + data[hdr_end:]


# ------------------------------------------------------------ readers

def duckdb_sql(*sql):
    r = subprocess.run(["node", os.path.join(HERE, "duckdb_write.js")] + list(sql),
                       capture_output=True, text=True, env=ENV, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("duckdb_write.js: %s" % r.stderr.strip()[-400:])


def duckdb_rows(path):
    """DuckDB's rows of path as [a, b bytes, l list or None], or the text
    of its error."""
    try:
        r = subprocess.run(["node", os.path.join(HERE, "parquet.js"), "--duckdb", path],
                           capture_output=True, text=True, env=ENV, timeout=60)
    except subprocess.TimeoutExpired:
        return "error: DuckDB did not finish in 60 s"
    if r.returncode != 0:
        lines = [x for x in r.stderr.splitlines() if "Error" in x] or ["?"]
        return "error: " + lines[0][:200]
    t = json.loads(r.stdout.splitlines()[0])
    out = []
    for row in t["data"]:
        def num(x):
            return None if x is None else int(x[2:])
        out.append([num(row.get("a")),
                    None if row.get("b") is None else bytes.fromhex(row["b"][2:]),
                    None if row.get("l") is None else [num(x) for x in row["l"]]])
    return out


def convert_back(path, spec, out, jobs):
    """featc convert PATH -o OUT -j JOBS, bounded: (exit status, stderr,
    OUT's bytes or None)."""
    if os.path.exists(out):
        os.unlink(out)
    try:
        r = subprocess.run([FEATC, "convert", path, "--spec", spec, "-o", out, "-j", jobs],
                           capture_output=True, timeout=60)
        rc, err = r.returncode, r.stderr.decode("utf-8", "replace")
        if "\ufffd" in err:
            err = "not UTF-8: " + err  # (featc escapes what a file names)
    except subprocess.TimeoutExpired:
        return "timeout", "", None
    if not os.path.exists(out):
        return rc, err, None
    with open(out, "rb") as f:
        return rc, err, f.read()


def featc_rows(path, spec):
    """featc convert PATH back to records, bounded: (exit status, stderr,
    rows as duckdb_rows gives them, or None when no file was written).
    -j 3 (the groups cut into pieces, their columns decoded on threads)
    must exit, say and write what -j 1 does."""
    out = path + ".tfrecord"
    rc, err, got = convert_back(path, spec, out, "1")
    if rc == "timeout":
        return rc, err, None
    out3 = path + ".j3.tfrecord"
    rc3, err3, got3 = convert_back(path, spec, out3, "3")
    if (rc3, err3, got3) != (rc, err, got):
        return "-j 3 differs", "-j 1: %s %s; -j 3: %s %s" % (rc, err, rc3, err3), None
    if got3 is not None:
        os.unlink(out3)
    leftovers = [f for f in os.listdir(os.path.dirname(out))
                 if f.startswith(os.path.basename(out) + ".") or
                 f.startswith(os.path.basename(out3) + ".")]
    if leftovers:
        return rc, err + " (left %s)" % leftovers, []
    if not os.path.exists(out):
        return rc, err, None
    c = subprocess.run([FEATC, "cat", "--json", "--json-bytes=base64", out],
                       capture_output=True, text=True)
    import base64
    rows = []
    for line in c.stdout.splitlines():
        f = json.loads(line)["features"]
        a = int(f["a"]["int64_list"][0])
        bv = f["b"]["bytes_list"][0]
        b = base64.b64decode(bv["base64"] if isinstance(bv, dict) else bv)
        l_ = [int(x) for x in f["l"]["int64_list"]] if "l" in f else None
        rows.append([a, b, l_])
    return rc, err, rows


def same(featc, duck):
    """featc's rows equal DuckDB's (a NULL list is an absent feature: no
    values; an empty list written back is absent too)."""
    if len(featc) != len(duck):
        return False
    for x, y in zip(featc, duck):
        if x[0] != y[0] or x[1] != y[1] or (x[2] or []) != (y[2] or []):
            return False
    return True


def refused(what, spec, path, why):
    rc, err, rows = featc_rows(path, spec)
    check(rc == 2 and rows is None and "parquet: " in err and "(at byte " in err and why in err,
          "%s: featc exit %s, %s, %s" % (what, rc, "no output" if rows is None else
                                         "%d rows" % len(rows), err.strip()[-300:]))


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    spec = os.path.join(TMP, "hp.feat")
    open(spec, "w").write(SPEC)
    v1, v2, deep, big = (os.path.join(TMP, n) for n in ("v1.parquet", "v2.parquet",
                                                         "deep.parquet", "big.parquet"))
    table = ("SELECT i::BIGINT AS a, ('s' || (i % 3))::BLOB AS b, CASE WHEN i % 5 = 0 THEN NULL "
             "ELSE range(i % 6)::BIGINT[] END AS l FROM range(50) r(i)")
    nest = "1"
    for _ in range(70):
        nest = "{'x': %s}" % nest
    duckdb_sql("COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 20)"
               % (table, v1),
               "COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2, "
               "ROW_GROUP_SIZE 20)" % (table, v2),
               "COPY (SELECT %s AS a) TO '%s' (FORMAT parquet)" % (nest, deep),
               # (a row group of 1,000 rows: -j 3 cuts it into pieces and
               # decodes its columns on threads)
               "COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION uncompressed)"
               % (table.replace("range(50)", "range(1000)"), big))
    for path in (v1, v2, big):
        rc, err, rows = featc_rows(path, spec)
        duck = duckdb_rows(path)
        check(rc == 0 and rows is not None and not isinstance(duck, str) and same(rows, duck),
              "%s as DuckDB reads it: featc exit %s %s" % (os.path.basename(path), rc, err))
    data = open(v1, "rb").read()
    data2 = open(v2, "rb").read()
    d = os.path.join(TMP, "bad")
    os.makedirs(d)

    def put(name, b):
        p = os.path.join(d, name)
        open(p, "wb").write(b)
        return p

    # cut at many lengths
    rng = random.Random(7)
    cuts = sorted(set([0, 1, 4, 8, 12, len(data) - 1, len(data) - 4, len(data) - 8] +
                      [rng.randrange(len(data)) for _ in range(30)]))
    bad = []
    for n in cuts:
        rc, err, rows = featc_rows(put("cut.parquet", data[:n]), spec)
        if rc not in (1, 2) or rows is not None or not err.startswith("featc: "):
            bad.append((n, rc, err.strip()[:200]))
    check(not bad, "the file cut at %d lengths: an error, nothing written %s" % (len(cuts), bad))
    # the footer's length past the file's start
    b = bytearray(data)
    struct.pack_into("<I", b, len(b) - 8, len(b))
    refused("a footer length past the file's start", spec, put("flen.parquet", bytes(b)),
            "a footer length past the file's start")
    # row counts one over
    _, meta = footer(data)
    get(meta, 3)[2] += 1
    refused("the footer's row count one over", spec, put("rows.parquet", with_footer(data, meta)),
            "do not add up to the footer's row count")
    _, meta = footer(data)
    get(meta, 3)[2] += 1
    get(get(meta, 4)[2][1][0], 3)[2] += 1
    refused("a row group's row count one over its columns'", spec,
            put("group-rows.parquet", with_footer(data, meta)),
            "a column with another number of rows than its row group")
    # a column chunk past the file's end, or starting past it
    _, meta = footer(data)
    get(chunks(meta)[0], 7)[2] = 1 << 40
    refused("a column chunk of 2^40 bytes", spec, put("chunk-size.parquet", with_footer(data, meta)),
            "a column chunk outside the file's data")
    _, meta = footer(data)
    get(chunks(meta)[1], 9)[2] = len(data) + 100
    for f in chunks(meta)[1]:
        if f[0] == 11:
            f[2] = len(data) + 100
    refused("a column chunk starting past the file's end", spec,
            put("chunk-at.parquet", with_footer(data, meta)), "a column chunk outside")
    # a chunk claiming more values than its pages hold
    _, meta = footer(data)
    get(chunks(meta)[0], 5)[2] += 5
    refused("a column chunk claiming 5 values more", spec,
            put("values.parquet", with_footer(data, meta)), "the column chunk ends after")
    # two of them in a group of 1,000 rows: the first column's error, on
    # threads (-j 3 decodes the columns at once) as on one
    data_big = open(big, "rb").read()
    _, meta = footer(data_big)
    get(chunks(meta)[0], 5)[2] += 5
    get(chunks(meta)[1], 5)[2] += 5
    refused("two column chunks claiming 5 values more", spec,
            put("values2.parquet", with_footer(data_big, meta)),
            "column 'a': the column chunk ends")
    # a page larger than its chunk; a page of 2 GiB uncompressed
    _, meta = footer(data)
    at, h, end = pages(data, meta)[0]
    size = get(h, 3)
    grown = size[2]
    while len(put_zz(grown * 2 + 1)) == len(put_zz(size[2])):
        grown = grown * 2 + 1  # (the largest size of as many bytes: the pages stay put)
    size[2] = grown
    refused("a page %d bytes larger than its chunk" % (grown - get(h, 3)[2]), spec,
            put("page.parquet", with_page(data, at, end, h)), "a page larger than its column chunk")
    _, meta2 = footer(data2)
    at, h, end = pages(data2, meta2)[0]
    get(h, 2)[2] = (1 << 31) - 1
    b = with_page(data2, at, end, h)
    if b is not None:
        refused("a page of 2 GiB uncompressed", spec, put("raw.parquet", b),
                "a page larger than the reader's limit")
    # a dictionary of one entry (column b's, the second chunk)
    _, meta = footer(data)
    dict_pages = [(at, h, end) for at, h, end in pages(data, meta) if get(h, 1)[2] == 2]
    at, h, end = dict_pages[0]
    get(get(h, 7)[2], 1)[2] = 1
    refused("a dictionary of one entry under indices up to 2", spec,
            put("dict.parquet", with_page(data, at, end, h)),
            "a dictionary index past the dictionary's entries")
    # the schema's root claiming more children
    _, meta = footer(data)
    get(get(meta, 2)[2][1][0], 5)[2] += 2
    refused("a schema root of 5 children over 3", spec,
            put("kids.parquet", with_footer(data, meta)),
            "the schema has fewer elements than its groups claim")
    # nested 70 deep
    rc, err, rows = featc_rows(deep, spec)
    check(rc == 2 and rows is None and "nested more than 64 levels deep" in err,
          "a struct nested 70 deep: exit %s %s" % (rc, err.strip()))

    # bytes changed in the footer and the page headers: refused, or DuckDB's rows
    for name, src in (("v1", data), ("v2", data2)):
        _, meta = footer(src)
        spots = list(range(footer(src)[0], len(src) - 8))
        for at, _, end in pages(src, meta):
            spots += list(range(at, end))
        wrong, refusals, agreed = [], 0, 0
        for k in range(FLIPS):
            b = bytearray(src)
            for _ in range(rng.randint(1, 3)):
                b[rng.choice(spots)] = rng.randrange(256)
            p = put("flip-%s.parquet" % name, bytes(b))
            rc, err, rows = featc_rows(p, spec)
            if rc == "timeout" or (rc != 0 and (rows is not None or not err.startswith("featc: "))):
                wrong.append((k, rc, err.strip()[:200]))
                shutil.copy(p, os.path.join(d, "wrong-%s-%d.parquet" % (name, k)))
                for f in os.listdir(d):  # (a crash leaves its temporary file)
                    if f.startswith("flip-%s.parquet.tfrecord." % name):
                        os.unlink(os.path.join(d, f))
                continue
            if rc != 0:
                refusals += 1
                continue
            duck = duckdb_rows(p)
            if isinstance(duck, str) or not same(rows, duck):
                wrong.append((k, "exit 0", "DuckDB: %s" % (duck if isinstance(duck, str) else
                                                           "other rows")))
                shutil.copy(p, os.path.join(d, "wrong-%s-%d.parquet" % (name, k)))
            else:
                agreed += 1
        check(not wrong, "%s with bytes changed in its metadata, %d times: %d refused, %d read "
              "as DuckDB reads them; wrong: %s" % (name, FLIPS, refusals, agreed, wrong[:5]))
    return finish("parquet-hostile")


if __name__ == "__main__":
    sys.exit(main())
