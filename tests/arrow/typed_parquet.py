#!/usr/bin/env python3
"""Typed tensors (`as`, docs/spec-language.md) written to Parquet, read by
DuckDB and hyparquet (parquet.js): tests/specs/typed.feat's two messages
over random records (every narrowing, float16 of finite values, NaN and
infinities, decode_raw into each element type, defaults), converted with
each codec, every other time in row groups of 5 rows and pages of about
64 bytes.  Checked: DuckDB's column types (UTINYINT for uint8, FLOAT for
float16, lists per dimension of a fixed shape), hyparquet's physical types
(INT32, FIXED_LEN_BYTE_ARRAY for float16), every row's values against
NumPy's conversions of the record's values (as tests/python/test_typed.py
makes them), the leaves' annotations (hyparquet's footer), each column
chunk's minimum, maximum and null count in both readers (and chunks from 0
to -0).  Then back to records: through the typed spec from featc's files,
DuckDB's rewrites of them (pages v1 and v2) and Arrow IPC files, each to
records whose tensors (to Parquet again, read by DuckDB) are the file's;
through the spec without `as` (the narrow integers and float16s become the
record's int64s and floats); DuckDB's lists of numbers into decode_raw's
bytes; and values a tensor cannot hold (300 for uint8, 256 inside a uint8
tensor, a short list, 0.1 for a float16 tensor) refused with exit 1, the
row named, nothing written.  And messages sx, sr and hx (SparseFeatures,
RaggedFeatures of a SequenceExample, hashed int64s, all with `as`): DuckDB's
types, each row's typed values the untyped spec's converted, and back.

usage: typed_parquet.py FEATC TMP NODE_MODULES"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

FEATC, TMP, NODE_MODULES = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
SPEC = os.path.join(REPO, "tests", "specs", "typed.feat")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
sys.path.insert(0, os.path.join(REPO, "tests", "cli"))
from framing import frame, varint  # noqa: E402
from tally import check, finish  # noqa: E402


def ok(cond, what):
    check(cond, what)
    return cond


ENV = dict(os.environ, NODE_PATH=os.path.abspath(NODE_MODULES))

# message e: feature -> (record kind, the tensor's NumPy type, the shape
# of a FixedLen ("var": a VarLen list; "raw": decode_raw's dims), default)
E = {
    "u8": ("int", "u1", (), 255),
    "i8": ("int", "i1", "var", None),
    "i16": ("int", "i2", (2,), [-32768, 32767]),
    "u16": ("int", "u2", "var", None),
    "i32": ("int", "i4", (), -2**31),
    "h": ("float", "f2", (2, 2), [[0.0, 0.0], [0.0, 0.0]]),
    "hv": ("float", "f2", "var", None),
    "img": ("bytes", "u1", (2, 3), None),
    "pcm": ("bytes", "i2", (3,), b"\x01\x00\xff\xff\x00\x80"),
    "w": ("bytes", "u2", (2,), bytes(4)),
    "q": ("bytes", "i4", (1,), bytes(4)),
    "l": ("bytes", "i8", (2,), bytes(16)),
    "s8": ("bytes", "i1", (2,), b"\x7f\x80"),
    "f16": ("bytes", "f2", (1,), b"\x00\x3c"),
    "f32": ("bytes", "f4", (2,), b"\x00\x00\x80\x3f\x00\x00\x00\xc0"),
    "f64": ("bytes", "f8", (1,), b"\x00\x00\x00\x00\x00\x00\xf0\x3f"),
    "plain": ("int", "i8", (), 0),
    "rw": ("int", "i2", ("rows", (2,)), None),  # FixedLenSequence: a list of its rows
    "rh": ("float", "f2", "var", None),
    "rg": ("int", "i2", ("ragged",), None),  # RaggedFeature: rows (rgl) of values (rgv)
    "rf": ("float", "f2", "var", None),      # a RaggedFeature of values alone
}
# message s: a feature list of scalar frames is "var" (a list of its
# frames' values); others ("frames", "var" or a frame's shape)
S = {"label": ("int", "u1", (), None), "raw": ("bytes", "u1", (4,), bytes(4)),
     "x": ("float", "f4", "var", None), "ids": ("int", "u1", "var", None),
     "tok": ("int", "i2", ("frames", "var"), None), "emb": ("float", "f2", ("frames", (2,)), None),
     "pix": ("bytes", "u1", ("frames", (2, 2)), None),
     "pcm": ("bytes", "i2", ("frames", (2,)), None)}
DUCK = {"u1": "UTINYINT", "i1": "TINYINT", "u2": "USMALLINT", "i2": "SMALLINT",
        "i4": "INTEGER", "i8": "BIGINT", "f2": "FLOAT", "f4": "FLOAT", "f8": "DOUBLE"}
# each leaf's SchemaElement as hyparquet decodes it: type, type_length,
# converted_type, logical_type (Arrow's writer gives the same)
INTS = {"u1": (8, False), "i1": (8, True), "u2": (16, False), "i2": (16, True),
        "i4": (32, True)}
LEAF = dict({c: ["INT32", None, "%sINT_%d" % ("" if s else "U", b),
                 {"type": "INTEGER", "bitWidth": b, "isSigned": s}]
             for c, (b, s) in INTS.items()},
            i8=["INT64", None, None, None], f4=["FLOAT", None, None, None],
            f8=["DOUBLE", None, None, None],
            f2=["FIXED_LEN_BYTE_ARRAY", 2, None, {"type": "FLOAT16"}])
HYP = {"u1": "INT32", "i1": "INT32", "u2": "INT32", "i2": "INT32", "i4": "INT32",
       "i8": "INT64", "f2": "FIXED_LEN_BYTE_ARRAY", "f4": "FLOAT", "f8": "DOUBLE"}


def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def feature(kind, v):
    if kind == "int":
        return ld(3, ld(1, b"".join(varint(x & (2**64 - 1)) for x in v)))
    if kind == "float":
        return ld(2, ld(1, struct.pack("<%df" % len(v), *v)))
    return ld(1, b"".join(ld(1, x) for x in v))


def example(feats):
    """An Example of feats: key -> (kind, values)."""
    body = b"".join(ld(1, ld(1, k.encode()) + ld(2, feature(kind, v)))
                    for k, (kind, v) in feats.items())
    return ld(1, body)


def floats(rng, n):
    """float32s inside float16's range, with NaN, infinities and zeros."""
    x = rng.standard_normal(n).astype(np.float32) * np.float32(10.0) ** rng.integers(-9, 5)
    x = np.clip(x, -65000, 65000).astype(np.float32)
    for i in range(n):
        if rng.random() < 0.08:
            x[i] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0])
    return x.tolist()


def random_e(rng):
    """A record's values: key -> (kind, list of values)."""
    r = {"u8": [int(rng.integers(0, 256))],
         "i8": rng.integers(-128, 128, size=rng.integers(0, 5)).tolist(),
         "i16": rng.integers(-32768, 32768, size=2).tolist(),
         "u16": rng.integers(0, 65536, size=rng.integers(0, 4)).tolist(),
         "i32": [int(rng.integers(-2**31, 2**31))],
         "h": floats(rng, 4),
         "hv": floats(rng, int(rng.integers(0, 6))),
         "img": [rng.integers(0, 256, size=6, dtype=np.uint8).tobytes()],
         "plain": [int(rng.integers(-2**63, 2**63, dtype=np.int64))],
         "rw": rng.integers(-32768, 32768, size=2 * rng.integers(0, 4)).tolist(),
         "rh": floats(rng, int(rng.integers(0, 5))),
         "rgl": rng.integers(0, 3, size=rng.integers(0, 4)).tolist(),
         "rf": floats(rng, int(rng.integers(0, 5)))}
    r["rgv"] = rng.integers(-32768, 32768, size=sum(r["rgl"])).tolist()
    for key, (kind, code, dims, _) in E.items():
        if kind == "bytes" and key != "img" and rng.random() < 0.6:
            size = int(np.prod(dims)) * np.dtype(code).itemsize
            r[key] = [rng.integers(0, 256, size=size, dtype=np.uint8).tobytes()]
    if rng.random() < 0.2:
        for key in ("u8", "i16", "i32", "h", "plain"):
            del r[key]
    return {k: (E[k][0] if k in E else "int", v) for k, v in r.items()}


def random_s(rng):
    """A SequenceExample's bytes, and its values: a context feature's as
    random_e gives them, a list's its frames' (key -> (kind, frames))."""
    ctx = {"label": ("int", [int(rng.integers(0, 256))])}
    if rng.random() < 0.7:
        ctx["raw"] = ("bytes", [rng.integers(0, 256, size=4, dtype=np.uint8).tobytes()])

    def count():
        return int(rng.integers(0, 9))
    fl = {"x": ("float", [floats(rng, 1) for _ in range(count())]),
          "ids": ("int", [[int(rng.integers(0, 256))] for _ in range(count())]),
          "tok": ("int", [rng.integers(-32768, 32768, size=rng.integers(0, 4)).tolist()
                          for _ in range(count())]),
          "emb": ("float", [floats(rng, 2) for _ in range(count())]),
          "pix": ("bytes", [[rng.integers(0, 256, size=4, dtype=np.uint8).tobytes()]
                            for _ in range(count())]),
          "pcm": ("bytes", [[rng.integers(0, 256, size=4, dtype=np.uint8).tobytes()]
                            for _ in range(count())])}
    body = b"".join(ld(1, ld(1, k.encode()) + ld(2, feature(kind, v)))
                    for k, (kind, v) in ctx.items())
    lists = b"".join(ld(1, ld(1, k.encode()) +
                        ld(2, b"".join(ld(1, feature(kind, f)) for f in frames)))
                     for k, (kind, frames) in fl.items())
    values = dict(ctx)
    for k, (kind, frames) in fl.items():  # scalar frames: their values, as a VarLen's
        values[k] = (kind, [f[0] for f in frames] if S[k][2] == "var" else frames)
    return ld(1, body) + ld(2, lists), values


def tensor(rec, key, table):
    """The typed tensor of key: a nested list of Python numbers."""
    kind, code, dims, default = table[key]
    v = rec.get(key)
    v = v[1] if v is not None else None
    if isinstance(dims, tuple) and dims[:1] == ("ragged",):  # rgv's values in rgl's rows
        vals = np.asarray(rec["rgv"][1] if "rgv" in rec else [], dtype=np.int64).astype(code)
        at = np.concatenate([[0], np.cumsum(rec["rgl"][1] if "rgl" in rec else [])])
        return [vals[a:b].tolist() for a, b in zip(at[:-1], at[1:])]
    if isinstance(dims, tuple) and dims[:1] == ("rows",):  # FixedLenSequence: its rows
        return np.asarray(v or [], dtype=np.int64 if kind == "int" else np.float32) \
            .astype(code).reshape((-1,) + dims[1]).tolist()
    if isinstance(dims, tuple) and dims[:1] == ("frames",):  # a list: each frame's tensor
        return [tensor({key: (kind, f)}, key, {key: (kind, code, dims[1], None)})
                for f in (v or [])]
    if kind == "bytes":
        raw = v[0] if v is not None else default
        return np.frombuffer(raw, "<" + code).astype(code).reshape(dims).tolist()
    if v is None:
        v = default
    if kind == "float":
        a = np.asarray(v, dtype=np.float32).astype(code)
    else:
        a = np.asarray(v, dtype=np.int64).astype(code)
    return (a.reshape(dims) if dims != "var" else a).tolist()


def tag(x, code):
    """parquet.js's form of a leaf of NumPy type code."""
    if isinstance(x, list):
        return [tag(y, code) for y in x]
    if code[0] == "f":
        if math.isnan(x):
            return "f:nan"
        if math.isinf(x):
            return "f:inf" if x > 0 else "f:-inf"
        if x == 0 and math.copysign(1, x) < 0:
            return "f:-0"
        return float(x)
    return "i:%d" % x if code == "i8" else int(x)


def as_read(x, code):
    """A reader's leaf of NumPy type code: a float's number as a float
    (JSON gives 1e17 written out as an integer)."""
    if isinstance(x, list):
        return [as_read(y, code) for y in x]
    return float(x) if code[0] == "f" and isinstance(x, (int, float)) else x


def flat(x):
    return [z for y in x for z in flat(y)] if isinstance(x, list) else [x]


def node(script, *args):
    p = subprocess.run(["node", os.path.join(HERE, script)] + list(args), capture_output=True,
                       env=ENV)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (script, p.returncode,
                                                p.stderr.decode()[-600:]))
    return [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]


def stat_number(s, code):
    if s is None:
        return None
    if code[0] != "f":
        return int(s)
    x = float(s)
    return float(np.float32(x)) if code in ("f2", "f4") else x


def check_stats(table, want_rows, types, group_rows, label, reader):
    """Each leaf chunk's minimum and maximum against its rows' tensors
    (NaN left out; a zero minimum -0, a zero maximum +0), null count 0."""
    n = 0
    for group, path, lo, hi, nulls in table["stats"]:
        name = path.split(", ")[0]
        code = types[name]
        rows = want_rows[int(group) * group_rows:(int(group) + 1) * group_rows]
        vals = [x for r in rows for x in flat(r[name]) if x == x]
        if not vals:
            want = (None, None)
        else:
            want = (min(vals), max(vals))
            if code[0] == "f":
                want = tuple(-0.0 if i == 0 and w == 0 else 0.0 if w == 0 else w
                             for i, w in enumerate(want))
        got = (stat_number(lo, code), stat_number(hi, code))
        if reader == "DuckDB" and code[0] == "f":  # (no infinite statistic shown)
            got = tuple(w if g is None and w is not None and math.isinf(w) else g
                        for g, w in zip(got, want))
        same = got == want and (code[0] != "f" or None in want or
                                [math.copysign(1, x) for x in got] ==
                                [math.copysign(1, x) for x in want])
        if str(nulls) != "0" or not same:
            check(False, "%s, %s: row group %s, %s: min %s max %s nulls %s, the tensors' %s"
                  % (label, reader, group, path, lo, hi, nulls, want))
            return
        n += 1
    check(n > 0, "%s, %s: the statistics of %d column chunks" % (label, reader, n))


def convert(*args):
    p = subprocess.run([FEATC, "convert", "-q"] + list(args), capture_output=True)
    return p.returncode, p.stderr.decode()


def run_case(label, records, wants, table, message, codec, small, d):
    src = os.path.join(d, "%s.tfrecord" % message)
    with open(src, "wb") as f:
        for r in records:
            f.write(frame(r))
    out = os.path.join(d, "%s-%s%s.parquet" % (message, codec, "-small" if small else ""))
    extra = ["--row-group-size", "5", "--page-size", "64"] if small else []
    rc, err = convert(src, "--spec", SPEC, "--message", message, "-o", out, "--codec", codec,
                      *extra)
    label = "%s (%s%s)" % (label, codec, ", small groups and pages" if small else "")
    check(rc == 0, "%s: featc convert (exit %d) %s" % (label, rc, err.strip()))
    if rc != 0:
        return
    try:
        duck, hyp = node("parquet.js", out)
    except RuntimeError as e:
        check(False, "%s: %s" % (label, e))
        return
    types = {k: v[1] for k, v in table.items()}
    want = [{k: tag(w[k], types[k]) for k in table} for w in wants]
    for t, reader in ((duck, "DuckDB"), (hyp, "hyparquet")):
        got = [{k: as_read(v, types.get(k, "")) for k, v in row.items()} for row in t["data"]]
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        check(t["rows"] == len(wants) and not bad,
              "%s, %s: %d rows, %d as NumPy makes them%s" % (
                  label, reader, t["rows"], len(wants) - len(bad),
                  "" if not bad else "; row %d: %s, want %s"
                  % (bad[0], t["data"][bad[0]], want[bad[0]])))
        check_stats(t, wants, types, 5 if small else len(wants), label, reader)

    def duck_type(k):
        kind, code, dims, _ = table[k]
        if dims == ("ragged",):
            return DUCK[code] + "[][]"
        if dims[:1] in (("frames",), ("rows",)):
            return DUCK[code] + "[]" + ("[]" if dims[1] == "var" else "[]" * len(dims[1]))
        return DUCK[code] + ("[]" if dims == "var" else "[]" * len(dims))
    check(duck["fields"] == [[k, duck_type(k)] for k in table],
          "%s: DuckDB's column types %s" % (label, duck["fields"]))
    check(hyp["fields"] == [[k, HYP[table[k][1]] if table[k][2] == () else "group"]
                            for k in table],
          "%s: hyparquet's types %s" % (label, hyp["fields"]))
    leaves = [e for e in hyp["schema"][1:] if e[1] is not None]
    want = [[k] + LEAF[table[k][1]] for k in table]
    got = [[k] + e[1:] for k, e in zip(table, leaves)]
    check(got == want, "%s: the leaves' types and annotations%s" % (
        label, "" if got == want else ": %s" % [(g, w) for g, w in zip(got, want) if g != w]))
    return out


def untyped_spec(d, message, keep_as):
    """typed.feat without its bytes features, and without its `as` clauses
    unless keep_as."""
    lines = [line for line in open(SPEC).read().splitlines()
             if not re.match(r"\s*\w+\s*:\s*bytes\b", line)]
    text = "\n".join(lines)
    if not keep_as:
        text = re.sub(r"\s+as\s+\w+", "", text)
    path = os.path.join(d, "%s-%s.feat" % ("typed" if keep_as else "untyped", message))
    open(path, "w").write(text)
    return path


def back_untyped(parquet, wants, message):
    """featc reads a typed file back with the spec without `as`: each
    record's values are the tensors' (a narrow integer widened, a float16
    as a float32).  The file is written here again from parquet's records
    (PARQUET.tfrecord... its source) through typed.feat without its bytes
    features (decode_raw's tensor is a list of numbers, which a bytes
    feature does not take)."""
    if parquet is None:
        return
    typed, spec = (untyped_spec(TMP, message, keep_as) for keep_as in (True, False))
    src = os.path.join(TMP, "%s.tfrecord" % message)
    parquet = os.path.join(TMP, "%s-no-bytes.parquet" % message)
    out = parquet + ".tfrecord"
    rc, err = convert(src, "--spec", typed, "--message", message, "-o", parquet)
    check(rc == 0, "%s: typed.feat without its bytes features to Parquet (exit %d) %s"
          % (message, rc, err.strip()))
    rc, err = convert(parquet, "--spec", spec, "--message", message, "-o", out)
    if not ok(rc == 0, "%s back to records with the spec without `as` (exit %d) %s"
              % (os.path.basename(parquet), rc, err.strip())):
        return
    p = subprocess.run([FEATC, "check", spec, "--message", message, "--data", "--json", out],
                       capture_output=True)
    rows = [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]
    table = E if message == "e" else S
    # (rg's record keys are rgv and rgl: the typed round trips check it)
    keys = [k for k in table if table[k][0] != "bytes" and table[k][2] != ("ragged",)]

    def norm(x, kind):
        if kind == "int":
            return int(x)
        if isinstance(x, str):  # the driver's "nan", "inf", "-inf"
            return "f:" + x.lstrip("+")
        return tag(float(np.float32(x)), "f4")
    bad = []
    for i, (row, w) in enumerate(zip(rows, wants)):
        values = dict(row.get("features", {}), **row.get("context", {}),
                      **row.get("feature_lists", {}))
        for k in keys:
            kind = table[k][0]
            got = [norm(x, kind) for x in flat(values.get(k))]
            want = [norm(x, kind) for x in flat(w[k])]
            if got != want:
                bad.append((i, k, got, want))
    check(p.returncode == 0 and len(rows) == len(wants) and not bad,
          "%s back with the spec without `as`: %d records, %d as the tensors%s"
          % (os.path.basename(parquet), len(rows), len(wants) - len(bad),
             "" if not bad else "; first: %s" % (bad[0],)))


def duck_rows(path):
    return node("parquet.js", "--duckdb", path)[0]["data"]


def round_trip(path, message, label, want):
    """path (Parquet or Arrow IPC) back to records with the typed spec, and
    those to Parquet again: DuckDB's rows of it against those of want (a
    Parquet file of the tensors)."""
    out = path + ".typed.tfrecord"
    again = out + ".parquet"
    rc, err = convert(path, "--spec", SPEC, "--message", message, "-o", out)
    rc2, err2 = convert(out, "--spec", SPEC, "--message", message, "-o", again) if rc == 0 \
        else (rc, "")
    if not ok(rc == 0 and rc2 == 0, "%s back to records with the typed spec (exit %d, %d) %s%s"
              % (label, rc, rc2, err.strip(), err2.strip())):
        return
    a, b = duck_rows(want), duck_rows(again)
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    check(len(a) == len(b) and not bad, "%s back with the typed spec: %d rows, %d tensors the "
          "file's%s" % (label, len(b), len(a) - len(bad),
                        "" if not bad else "; row %d: %s, want %s" % (bad[0], b[bad[0]],
                                                                      a[bad[0]])))


def back_typed(parquet, message, label):
    """featc reads a typed file back with the typed spec: records whose
    tensors are the file's."""
    round_trip(parquet, message, label, parquet)


def ipc_typed(parquet, message):
    """The same records to an Arrow IPC file (its own int8... and float16
    formats, fixed-size lists) and back with the typed spec: the tensors of
    parquet (the records' file written beside it)."""
    src = os.path.join(os.path.dirname(parquet), "%s.tfrecord" % message)
    ipc = parquet + ".arrow"
    rc, err = convert(src, "--spec", SPEC, "--message", message, "-o", ipc)
    if ok(rc == 0, "%s: records to Arrow IPC with the typed spec (exit %d) %s"
          % (message, rc, err.strip())):
        round_trip(ipc, message, "%s (Arrow IPC)" % os.path.basename(ipc), parquet)


def sql_str(path):
    return "'" + path.replace("'", "''") + "'"


def duckdb_typed(parquet, message):
    """DuckDB rewrites featc's typed file (pages v2 and v1, its codecs);
    featc reads each back with the typed spec to the same tensors."""
    for version, codec in (("V2", "zstd"), ("V1", "snappy")):
        out = "%s.duck-%s.parquet" % (parquet, version)
        try:
            node("duckdb_write.js", "COPY (SELECT * FROM read_parquet(%s)) TO %s (FORMAT parquet, "
                 "COMPRESSION %s, PARQUET_VERSION %s, ROW_GROUP_SIZE 7)"
                 % (sql_str(parquet), sql_str(out), codec, version))
        except RuntimeError as e:
            check(False, "DuckDB rewrites %s: %s" % (parquet, e))
            continue
        back_typed(out, message, "%s, DuckDB's rewrite (%s, %s)"
                   % (os.path.basename(parquet), codec, version))


def refused(spec, message, parquet, text, label):
    """featc convert PARQUET --spec SPEC: exit 1, the message has text, no
    output file."""
    out = parquet + ".tfrecord"
    if os.path.exists(out):
        os.remove(out)
    rc, err = convert(parquet, "--spec", spec, "--message", message, "-o", out)
    check(rc == 1 and text in err and not os.path.exists(out),
          "%s: refused (exit %d, want 1; %r in %r; no output: %s)"
          % (label, rc, text, err.strip(), not os.path.exists(out)))


def typed_refusals():
    """Columns whose values the typed tensor cannot hold: refused with the
    row, nothing written; and decode_raw's bytes from DuckDB's lists."""
    d = os.path.join(TMP, "refused")
    os.makedirs(d)
    # a narrowed int64 past uint8 (written through the spec without `as`)
    untyped, typed = untyped_spec(d, "e", False), untyped_spec(d, "e", True)
    rng = np.random.default_rng(5)
    recs = [random_e(rng) for _ in range(5)]
    for r in recs:
        for k in [k for k in r if r[k][0] == "bytes"]:
            del r[k]
    recs[3]["u8"] = ("int", [300])
    src, pq = os.path.join(d, "u8.tfrecord"), os.path.join(d, "u8.parquet")
    with open(src, "wb") as f:
        for r in recs:
            f.write(frame(example(r)))
    rc, err = convert(src, "--spec", untyped, "--message", "e", "-o", pq)
    if ok(rc == 0, "u8 = 300 to Parquet through the spec without `as` %s" % err.strip()):
        refused(typed, "e", pq, "arrow: row 3: Key: u8.  Value 300 at index 0 is out of the "
                "range of uint8 (0 to 255)", "an int64 column's 300 for `as uint8`")
    # decode_raw's tensor from DuckDB's lists of numbers
    spec = os.path.join(d, "raw.feat")
    open(spec, "w").write("package r;\nexample e {\n  img : bytes as uint8[2, 3];\n"
                          "  f : bytes as float16[2] = \"\\x00\\x3c\\x00\\x3c\";\n}\n")
    cases = {"good": ("[[1, 2, 3], [4, 5, 255]]::INTEGER[][]", "[0.5, -2]::DOUBLE[]"),
             "past": ("[[1, 2, 3], [4, 5, 256]]::INTEGER[][]", "[0.5, -2]::DOUBLE[]"),
             "short": ("[[1, 2], [4, 5, 6]]::INTEGER[][]", "[0.5, -2]::DOUBLE[]"),
             "inexact": ("[[1, 2, 3], [4, 5, 6]]::INTEGER[][]", "[0.1, -2]::DOUBLE[]"),
             "null": ("[[1, 2, 3], [4, 5, 6]]::INTEGER[][]", "NULL::DOUBLE[]")}
    paths = {}
    try:
        sqls = []
        for name, (img, fl) in cases.items():
            paths[name] = os.path.join(d, "raw-%s.parquet" % name)
            sqls.append("COPY (SELECT %s AS img, %s AS f UNION ALL SELECT [[9, 8, 7], [6, 5, 4]]"
                        "::INTEGER[][], [1, 65504]::DOUBLE[]) TO %s (FORMAT parquet)"
                        % (img, fl, sql_str(paths[name])))
        node("duckdb_write.js", *sqls)
    except RuntimeError as e:
        check(False, "DuckDB writes decode_raw's tensors as lists: %s" % e)
        return
    for name in ("good", "null"):
        out = paths[name] + ".tfrecord"
        rc, err = convert(paths[name], "--spec", spec, "-o", out)
        p = subprocess.run([FEATC, "check", spec, "--data", "--json", out], capture_output=True)
        rows = [json.loads(x) for x in p.stdout.decode().splitlines() if x.strip()]
        got = [(r["features"]["img"], r["features"]["f"]) for r in rows] if rows else None
        # (the JSON's bytes: each byte a character)
        want = [("".join(map(chr, [1, 2, 3, 4, 5, 255 if name == "good" else 6])),
                 "".join(map(chr, b"\x00\x38\x00\xc0")) if name == "good"
                 else "".join(map(chr, b"\x00\x3c\x00\x3c"))),
                ("".join(map(chr, [9, 8, 7, 6, 5, 4])), "".join(map(chr, b"\x00\x3c\xff\x7b")))]
        check(rc == 0 and got == want, "DuckDB's lists (%s) into `bytes as uint8[2, 3]` and "
              "`as float16[2]`: the little-endian bytes (exit %d) %s; %s, want %s"
              % (name, rc, err.strip(), got, want))
    refused(spec, "e", paths["past"], "arrow: column 'img', row 0: value 256 is out of the "
            "range of uint8", "256 for `bytes as uint8[2, 3]`")
    refused(spec, "e", paths["short"], "a list whose length is not the spec's fixed shape's",
            "a row of 2 values for `bytes as uint8[2, 3]`")
    refused(spec, "e", paths["inexact"], "arrow: column 'f', row 0: a value that no float16 "
            "holds", "0.1 (a double) for `bytes as float16[2]`")


def seq_example(ctx, fl):
    """A SequenceExample of ctx (key -> (kind, values)) and fl (key -> (kind, frames))."""
    body = b"".join(ld(1, ld(1, k.encode()) + ld(2, feature(kind, v)))
                    for k, (kind, v) in ctx.items())
    lists = b"".join(ld(1, ld(1, k.encode()) +
                        ld(2, b"".join(ld(1, feature(kind, f)) for f in frames)))
                     for k, (kind, frames) in fl.items())
    return ld(1, body) + ld(2, lists)


def parts(rng, n, rows_max):
    """n values cut into at most rows_max rows: the row lengths."""
    cuts = sorted(rng.integers(0, n + 1, size=int(rng.integers(0, rows_max))).tolist())
    return [b - a for a, b in zip([0] + cuts, cuts + [n])][:rows_max] if n else []


def random_kinds(rng):
    """Records of messages sx (SparseFeatures), sr (RaggedFeatures in a
    SequenceExample) and hx (hashed int64s), all with `as`, values in range."""
    sx, sr, hx = [], [], []
    for _ in range(40):
        k = int(rng.integers(0, 4))
        cells = sorted(rng.choice(20, size=int(rng.integers(0, 5)), replace=False).tolist())
        sx.append(example({
            "spi": ("int", rng.choice(6, size=k, replace=False).tolist()),
            "spv": ("float", (rng.standard_normal(k) * 100).astype(np.float32).tolist()),
            "sga": ("int", [c // 5 for c in cells]), "sgb": ("int", [c % 5 for c in cells]),
            "sgv": ("int", rng.integers(0, 256, size=len(cells)).tolist())}))
        cgv = rng.integers(-32768, 32768, size=int(rng.integers(0, 6))).tolist()
        cgl = parts(rng, len(cgv), 3)
        cgl[-1:] = [cgl[-1] + len(cgv) - sum(cgl)] if cgl else []
        frames = int(rng.integers(0, 5))
        rlv, rll = [], []
        for _ in range(frames):
            v = rng.integers(0, 256, size=int(rng.integers(0, 4))).tolist()
            lens = parts(rng, len(v), 3)
            lens[-1:] = [lens[-1] + len(v) - sum(lens)] if lens else []
            rlv.append(v if lens else [])
            rll.append(lens)
        rh = [(rng.standard_normal(int(rng.integers(0, 4))) * 1000).astype(np.float32).tolist()
              for _ in range(frames)]
        ctx = {"cgv": ("int", cgv if cgl else []), "cgl": ("int", cgl)}
        sr.append(seq_example(ctx, {"rlv": ("int", rlv), "rll": ("int", rll),
                                    "rh": ("float", rh)}))
        feats = {"hv": ("int", rng.integers(-32768, 32768, size=int(rng.integers(0, 4))).tolist())}
        if rng.random() < 0.7:
            feats["hf"] = ("int", [int(rng.integers(0, 256))])
        if rng.random() < 0.7:
            feats["hm"] = ("int", rng.integers(-128, 128, size=2).tolist())
        hx.append(example(feats))
    return {"sx": sx, "sr": sr, "hx": hx}


# DuckDB's types of the typed columns (FLOAT: how it reads Parquet's FLOAT16)
KIND_TYPES = {
    "sx": {"sp": 'STRUCT("indices" BIGINT[][], "values" FLOAT[])',
           "sg": 'STRUCT("indices" BIGINT[][], "values" UTINYINT[])'},
    "sr": {"cg": "SMALLINT[][]", "rl": "UTINYINT[][][]", "rh": "FLOAT[][]"},
    "hx": {"hv": "SMALLINT[]", "hv/buckets": "BIGINT[]", "hf": "UTINYINT",
           "hf/buckets": "BIGINT", "hm": "TINYINT[]", "hm/buckets": "BIGINT[]"},
}


def same_cast(a, b, half):
    """a (a typed column's value, as DuckDB gives it) is b (the untyped
    one's) converted: equal integers, or b rounded to float16 when half."""
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and \
            all(same_cast(a[k], b[k], half) for k in b)
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and \
            all(same_cast(x, y, half) for x, y in zip(a, b))
    if b is None or a is None:
        return a is None and b is None
    if isinstance(b, str) or isinstance(a, str):  # "i:N" (BIGINT), "f:-0"
        a, b = (float(x[2:]) if isinstance(x, str) else x for x in (a, b))
    return a == (float(np.float16(np.float32(b))) if half else b)


def test_kinds(rng):
    """SparseFeatures, RaggedFeatures of a SequenceExample and hashed int64s with `as`
    to Parquet: DuckDB's column types, every row's typed values the untyped spec's
    converted (the splits, indices and bucket ids equal), and back to records whose
    Parquet file DuckDB reads to the same rows."""
    spec = untyped_spec(TMP, "kinds", False)
    for message, records in random_kinds(rng).items():
        src = os.path.join(TMP, "%s.tfrecord" % message)
        with open(src, "wb") as f:
            f.write(b"".join(frame(r) for r in records))
        typed, plain = (os.path.join(TMP, "%s-%s.parquet" % (message, w)) for w in ("as", "no-as"))
        rc, err = convert(src, "--spec", SPEC, "--message", message, "-o", typed)
        rc2, err2 = convert(src, "--spec", spec, "--message", message, "-o", plain)
        if not ok(rc == 0 and rc2 == 0, "%s to Parquet (exit %d, %d) %s%s"
                  % (message, rc, rc2, err.strip(), err2.strip())):
            continue
        t, p = node("parquet.js", "--duckdb", typed)[0], node("parquet.js", "--duckdb", plain)[0]
        types = dict(t["fields"])
        check(all(types.get(k) == v for k, v in KIND_TYPES[message].items()),
              "%s: DuckDB's types %s" % (message, types))
        bad = [(i, k) for i, (x, y) in enumerate(zip(t["data"], p["data"])) for k in y
               if not same_cast(x.get(k), y[k], "FLOAT" in types.get(k, ""))]
        nonempty = sum(1 for row in t["data"] for v in row.values() if flat(v) not in ([], [None]))
        check(t["rows"] == p["rows"] == len(records) and not bad and nonempty > 40,
              "%s: %d rows, %d non-empty values, typed = untyped converted%s"
              % (message, t["rows"], nonempty,
                 "" if not bad else "; row %d %s: %s, untyped %s"
                 % (bad[0][0], bad[0][1], t["data"][bad[0][0]].get(bad[0][1]),
                    p["data"][bad[0][0]][bad[0][1]])))
        back_typed(typed, message, os.path.basename(typed))


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    rng = np.random.default_rng(61)
    recs = [random_e(rng) for _ in range(60)]
    e_records = [example(r) for r in recs]
    e_wants = [{k: tensor(r, k, E) for k in E} for r in recs]
    s_pairs = [random_s(rng) for _ in range(30)]
    s_records = [p[0] for p in s_pairs]
    s_wants = [{k: tensor(v, k, S) for k in S} for _, v in s_pairs]
    codecs = ["snappy", "zstd", "gzip", "none"]
    files = []
    for k, codec in enumerate(codecs):
        files.append(run_case("typed.feat e", e_records, e_wants, E, "e", codec, k % 2 == 1, TMP))
    files.append(run_case("typed.feat s (context and lists)", s_records, s_wants, S, "s", "zstd", False,
                          TMP))
    # zeros at the ends of float16 chunks: a minimum of 0 is written -0,
    # a maximum of -0 as +0
    zeros = [random_e(rng) for _ in range(6)]
    for i, r in enumerate(zeros):
        r["h"] = ("float", [0.0, 1.5, -0.0, 2.0 + i])
        r["hv"] = ("float", [-3.0 - i, -0.0])
    d = os.path.join(TMP, "zeros")
    os.makedirs(d)
    run_case("typed.feat e, float16 chunks from 0 and to -0", [example(r) for r in zeros],
             [{k: tensor(r, k, E) for k in E} for r in zeros], E, "e", "none", False, d)
    back_untyped(files[0], e_wants, "e")
    back_untyped(files[-1], s_wants, "s")
    for f, message in zip(files, ["e"] * 4 + ["s"]):
        if f is not None:
            back_typed(f, message, os.path.basename(f))
    ipc_typed(files[0], "e")
    ipc_typed(files[-1], "s")
    duckdb_typed(files[1], "e")
    duckdb_typed(files[-1], "s")
    typed_refusals()
    test_kinds(rng)
    return finish("typed-parquet")


if __name__ == "__main__":
    sys.exit(main())
