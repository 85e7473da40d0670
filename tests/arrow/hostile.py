#!/usr/bin/env python3
"""Hostile Arrow IPC files against featc convert (Arrow to TFRecords) and
Arrow's own JavaScript reader (apache-arrow): featc must read a file as
Arrow reads it, or refuse it; never exit 0 with other rows, never a signal,
never unbounded output.

usage: hostile.py FEATC TMP NODE_MODULES

featc writes small valid files (two specs: int64 columns a and b in two
record batches; a fixed-size list int64[65536]; a zero-width int64[0]),
then this script changes their flatbuffer metadata, field by field:
  - a record batch's length below its columns' (1 over 2-row columns);
  - the footer's first block pointing at the second batch;
  - two columns of one name;
  - a zero-width column whose batch and node claim 2^48 rows;
  - a fixed-size list whose rows times size overflow 64 bits (2^47 x 65536).
For each, featc convert runs (bounded by a timeout and an output budget)
and must refuse with exit 2 and no output; apache-arrow reads the same
bytes, and where it gives rows, featc must not have given others.  The
unchanged files convert, and their records read back as apache-arrow reads
the files.  Prints "arrow-hostile: N passed, M failed"."""
import json
import os
import shutil
import struct
import subprocess
import sys

FEATC, TMP, NODE_MODULES = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
sys.path.insert(0, os.path.join(REPO, "tests", "cli"))
from framing import frame, varint  # noqa: E402
from tally import check, finish  # noqa: E402


# ------------------------------------------------------------ flatbuffers

def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def field_pos(b, table, fid):
    """Where field fid of the table at b[table] is, or None (absent)."""
    vt = table - struct.unpack_from("<i", b, table)[0]
    vt_len = struct.unpack_from("<H", b, vt)[0]
    if 4 + 2 * fid >= vt_len:
        return None
    off = struct.unpack_from("<H", b, vt + 4 + 2 * fid)[0]
    return table + off if off else None


def ref(b, table, fid):
    p = field_pos(b, table, fid)
    return p + u32(b, p)


def messages(b):
    """(message start, its flatbuffer's start, the Message table) of each
    message of an IPC file, in the stream's order."""
    out, p = [], 8
    while p + 8 <= len(b) and u32(b, p) == 0xFFFFFFFF and u32(b, p + 4) != 0:
        meta_len = u32(b, p + 4)
        meta = p + 8
        msg = meta + u32(b, meta)
        body = struct.unpack_from("<q", b, field_pos(b, msg, 3))[0]
        out.append((p, meta, msg))
        p = meta + meta_len + body
    return out


def header(b, msg):
    return ref(b, msg, 2)


def footer(b):
    flen = u32(b, len(b) - 10)
    start = len(b) - 10 - flen
    return start + u32(b, start)


def blocks(b):
    """The positions of the footer's record batch Blocks."""
    v = ref(b, footer(b), 3)
    return [v + 4 + 24 * i for i in range(u32(b, v))]


def field_names(b, schema):
    """The positions of the schema's field name strings."""
    v = ref(b, schema, 1)
    out = []
    for i in range(u32(b, v)):
        f = v + 4 + 4 * i
        f += u32(b, f)
        out.append(ref(b, f, 0))
    return out


# ------------------------------------------------------------ files

def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def example(feats):
    """An Example of int64 lists: {key: [values]}."""
    body = b""
    for k, vals in feats.items():
        packed = b"".join(varint(v & (2 ** 64 - 1)) for v in vals)
        body += ld(1, ld(1, k.encode()) + ld(2, ld(3, ld(1, packed) if vals else b"")))
    return ld(1, body)


def make(name, spec, records, *convert_args):
    d = os.path.join(TMP, name)
    os.makedirs(d, exist_ok=True)
    sp = os.path.join(d, "spec.feat")
    with open(sp, "w") as f:
        f.write(spec)
    tf = os.path.join(d, "in.tfrecord")
    with open(tf, "wb") as f:
        for r in records:
            f.write(frame(example(r)))
    arrow = os.path.join(d, "ok.arrow")
    r = subprocess.run([FEATC, "convert", tf, "--spec", sp, "-o", arrow] + list(convert_args),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: featc convert: %s" % (name, r.stderr))
    if os.environ.get("HOSTILE_SEEDS"):
        shutil.copy(arrow, os.path.join(os.environ["HOSTILE_SEEDS"], "valid-%s.arrow" % name))
    return sp, arrow, open(arrow, "rb").read()


def featc_back(spec, path):
    """featc convert PATH back to records, bounded: (exit status, stderr,
    records written or None)."""
    out = path + ".tfrecord"
    if os.path.exists(out):
        os.unlink(out)
    try:
        r = subprocess.run([FEATC, "convert", path, "--spec", spec, "-o", out],
                           capture_output=True, text=True, timeout=60)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", None
    finally:
        leftovers = [f for f in os.listdir(os.path.dirname(out))
                     if f.startswith(os.path.basename(out) + ".")]
        for f in leftovers:
            os.unlink(os.path.join(os.path.dirname(out), f))
    n = None
    if os.path.exists(out):
        c = subprocess.run([FEATC, "cat", "--json", out], capture_output=True, text=True)
        n = [json.loads(line)["features"] for line in c.stdout.splitlines()]
    return rc, err, n


def arrow_rows(path):
    """apache-arrow's rows of path, or the text of its error."""
    env = dict(os.environ, NODE_PATH=NODE_MODULES, READ_MAX_ROWS="1000000")
    try:
        r = subprocess.run(["node", os.path.join(HERE, "read.js"), path], capture_output=True,
                           text=True, env=env, timeout=30)
    except subprocess.TimeoutExpired:  # (2^48 rows, walked one by one)
        return "error: apache-arrow did not finish in 30 s"
    if r.returncode != 0:
        return "error: " + (r.stderr.strip().splitlines() or ["?"])[-1][:200]
    t = json.loads(r.stdout.splitlines()[0])
    return t["data"] if t["data"] is not None else "%d rows, not walked" % t["rows"]


def ints_of(rows, key):
    return [[int(x[2:]) for x in (r[key] if isinstance(r[key], list) else [r[key]])]
            for r in rows]


def refused(what, spec, path, why):
    # (HOSTILE_SEEDS=DIR keeps each file, as fuzz_arrow's seeds are made)
    if os.environ.get("HOSTILE_SEEDS"):
        shutil.copy(path, os.path.join(os.environ["HOSTILE_SEEDS"], "hostile-" +
                                       os.path.basename(os.path.dirname(path)) + "-" +
                                       os.path.basename(path)))
    rc, err, recs = featc_back(spec, path)
    js = arrow_rows(path)
    check(rc == 2 and recs is None and why in err,
          "%s: featc exit %s, %s records, %s (apache-arrow: %s)"
          % (what, rc, "no" if recs is None else len(recs), err.strip()[-300:],
             js if isinstance(js, str) else "%d rows" % len(js)))


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    # two int64 columns, two batches of two rows
    sp, ok, data = make("ab", "package h;\nexample r {\n  a : int64;\n  b : int64;\n}\n",
                        [{"a": [i], "b": [10 * i]} for i in range(4)], "--batch-size", "2")
    rc, err, recs = featc_back(sp, os.path.join(TMP, "ab", "ok.arrow"))
    js = arrow_rows(ok)
    check(rc == 0 and recs is not None and not isinstance(js, str) and
          [[int(r["a"]["int64List"][0]) if "int64List" in r["a"] else r["a"]["int64_list"][0]
            for r in recs]] == [[int(x["a"][2:]) for x in js]],
          "the valid file: featc %s, apache-arrow %s" % (recs, js))
    msgs = messages(data)
    batches = [m for m in msgs if data[m[2] + 0] is not None][1:]  # after the schema
    # 1. a batch's length below its columns'
    b = bytearray(data)
    rb = header(b, batches[0][2])
    struct.pack_into("<q", b, field_pos(b, rb, 0), 1)
    p = os.path.join(TMP, "ab", "short-batch.arrow")
    open(p, "wb").write(bytes(b))
    refused("a batch of 1 row over 2-row columns", sp, p, "a column longer than its record batch")
    # 2. the footer's first block pointing at the second batch
    b = bytearray(data)
    blk = blocks(b)
    struct.pack_into("<q", b, blk[0], struct.unpack_from("<q", b, blk[1])[0])
    p = os.path.join(TMP, "ab", "footer.arrow")
    open(p, "wb").write(bytes(b))
    refused("the footer's first block at the second batch", sp, p,
            "the footer lists another record batch here")
    # 3. two columns named a (the stream's schema and the footer's)
    b = bytearray(data)
    for schema in (header(b, msgs[0][2]), ref(b, footer(b), 1)):
        names = field_names(b, schema)
        b[names[1] + 4] = ord("a")
    p = os.path.join(TMP, "ab", "names.arrow")
    open(p, "wb").write(bytes(b))
    refused("two columns named a", sp, p, "two columns named a")
    # 4. a zero-width column claiming 2^48 rows
    sp0, _, data0 = make("zero", "package z;\nexample r {\n  z : int64[0];\n}\n",
                         [{"z": []} for _ in range(4)])
    b = bytearray(data0)
    for _, _, msg in messages(b)[1:]:
        rb = header(b, msg)
        struct.pack_into("<q", b, field_pos(b, rb, 0), 1 << 48)
        nodes = ref(b, rb, 1)
        for i in range(u32(b, nodes)):
            struct.pack_into("<q", b, nodes + 4 + 16 * i, 1 << 48)
    p = os.path.join(TMP, "zero", "rows.arrow")
    open(p, "wb").write(bytes(b))
    refused("a zero-width column claiming 2^48 rows", sp0, p,
            "a record batch of more rows than its body holds")
    # 5. a fixed-size list of 65536 whose rows times size overflow
    spw, _, dataw = make("wide", "package w;\nexample r {\n  x : int64[65536];\n}\n",
                         [{"x": list(range(65536))}])
    b = bytearray(dataw)
    for _, _, msg in messages(b)[1:]:
        rb = header(b, msg)
        struct.pack_into("<q", b, field_pos(b, rb, 0), 1 << 47)
        nodes = ref(b, rb, 1)
        struct.pack_into("<q", b, nodes + 4, 1 << 47)
    p = os.path.join(TMP, "wide", "overflow.arrow")
    open(p, "wb").write(bytes(b))
    refused("a fixed-size list of 2^47 rows of 65536", spw, p, "arrow ipc: ")
    shutil.rmtree(TMP, ignore_errors=True)
    return finish("arrow-hostile")


if __name__ == "__main__":
    sys.exit(main())
