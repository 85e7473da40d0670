#!/usr/bin/env python3
"""Names, texts and numbers as the generated JSON driver prints them.

usage: names.py FEATC BUILD TMPDIR

Compiles small specs with `featc compile --driver`, builds each driver
against BUILD's libfeatc.a (with $CC, so that the sanitizer suite builds
them instrumented), writes records by hand and checks the driver's output,
per record and in batches (--batch, --ragged):

- keys are UTF-8 text: object names and messages print a key's UTF-8 as it
  is; a byte that is not UTF-8 is \\udcXX in JSON names (Python's
  surrogateescape gives the key's bytes back) and \\xNN in messages;
- the empty key gets TensorFlow's batched prefix in every message kind;
- a later Feature{} for a key: the earlier values per record, an empty row
  in a batch for VarLen, SparseFeature and RaggedFeature keys (TF's
  batched path), the earlier value for FixedLen and FixedLenSequence;
- TF's texts: "Could not get num elements in bytes_list." for a VarLen
  bytes list that cannot be counted, and the SparseFeature counts over the
  batch;
- float32 spellings (-0.0, "nan", "inf", "-inf", subnormals, the largest
  finite) and their round trip through Python's json, bit for bit.

Every line the drivers print must decode as UTF-8 and parse with json.
Prints "names: N passed, M failed".
"""
import json
import os
import struct
import subprocess
import sys

FEATC, BUILD, TMP = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
CC = os.environ.get("CC", "cc")
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
from framing import frame, varint  # noqa: E402
from tally import check, finish  # noqa: E402


# ---- protobuf and TFRecord bytes, by hand (no protobuf library needed)
def field(num, body):
    return bytes([num << 3 | 2]) + varint(len(body)) + body


def int64_list(vals):
    return field(3, field(1, b"".join(varint(v) for v in vals)))


def float_list(vals):
    return field(2, field(1, b"".join(struct.pack("<f", v) for v in vals)))


def float_bits(bits):
    return field(2, field(1, b"".join(struct.pack("<I", b) for b in bits)))


def bytes_list(vals):
    return field(1, b"".join(field(1, v) for v in vals))


def example(entries):
    """entries: (key bytes, Feature bytes) in order; duplicates allowed."""
    return field(1, b"".join(field(1, field(1, k) + field(2, v)) for k, v in entries))


def sequence(context, lists):
    ctx = b"".join(field(1, field(1, k) + field(2, v)) for k, v in context)
    fl = b"".join(field(1, field(1, k) + field(2, b"".join(field(1, f) for f in frames)))
                  for k, frames in lists)
    return field(1, ctx) + field(2, fl)


def tfrecord(path, records):
    with open(path, "wb") as f:
        f.write(b"".join(frame(r) for r in records))


# ---- specs and drivers
def driver(name, spec_text):
    d = os.path.join(TMP, name)
    os.makedirs(d, exist_ok=True)
    spec = os.path.join(d, name + ".feat")
    with open(spec, "w", encoding="utf-8") as f:
        f.write(spec_text)
    subprocess.run([FEATC, "compile", "-o", d, "--driver", spec], check=True)
    exe = os.path.join(d, name)
    cmd = ("%s -std=c99 -O1 -D_POSIX_C_SOURCE=200809L -I%s %s/%s.c %s/%s_main.c %s/libfeatc.a %s -lm -o %s"
           % (CC, os.path.join(REPO, "include"), d, name, d, name, BUILD,
              os.environ.get("LIBS_Z", "-lz"), exe))
    subprocess.run(cmd, shell=True, check=True)
    return exe


def run(exe, recs, *opts):
    """The driver's lines over a file of recs: (raw text, parsed objects)."""
    path = exe + ".tfrecord"
    tfrecord(path, recs)
    out = subprocess.run([exe, *opts, path], capture_output=True).stdout
    try:
        text = out.decode("utf-8")  # strict: every line is UTF-8
    except UnicodeDecodeError as e:
        check(False, "%s %s: output is not UTF-8: %s" % (exe, opts, e))
        text = out.decode("utf-8", "surrogateescape")
    lines = text.splitlines()
    objs = []
    for line in lines:
        try:
            objs.append(json.loads(line))
        except ValueError as e:
            check(False, "%s %s: not JSON (%s): %s" % (exe, opts, e, line[:200]))
            objs.append({})
    return lines, objs


def error_of(objs, i):
    return objs[i].get("error", "") if i < len(objs) else ""


# ---- 1. UTF-8 keys in JSON names and in messages
utf = driver("utf", """package nm;
example e {
  "été" as ete : float[2] = 0;
  "\\xff" as bad : int64 = 0;
  "日本" as nihon : bytes[] max 2;
  "😀" as emoji : int64[?, 2] max 2;
  "ïx" as ix : int64[] max 3;
  "sp€" as sp : sparse float[10] max 3 index ("ïx") value "vål";
}
""")
ETE, BAD, NIHON, EMOJI = "été".encode(), b"\xff", "日本".encode(), "😀".encode()
IX, VAL = "ïx".encode(), "vål".encode()
good = example([(ETE, float_list([1, 2])), (BAD, int64_list([5])), (NIHON, bytes_list([b"\xc3\xa9"])),
                (IX, int64_list([1])), (VAL, float_list([0.5]))])
recs = [
    good,
    example([(ETE, int64_list([1, 2]))]),                    # dense type
    example([(BAD, int64_list([1, 2]))]),                    # dense count, key not UTF-8
    example([(NIHON, int64_list([1]))]),                     # VarLen type
    example([(NIHON, bytes_list([b"a", b"b", b"c"]))]),      # bound
    example([(EMOJI, int64_list([1, 2, 3]))]),               # stride
    example([(NIHON, field(1, b"\x0a\x05ab"))]),             # bytes list not countable
    example([(IX, int64_list([1, 2])), (VAL, float_list([0.5]))]),  # SparseFeature counts
]
lines, objs = run(utf, recs)
check('"été":[1,2]' in lines[0] and '"\\udcff":5' in lines[0] and '"日本":["\\u00c3\\u00a9"]' in lines[0],
      "UTF-8 names as text, a non-UTF-8 byte as \\udcXX, bytes values Latin-1: " + lines[0])
check(set(objs[0].get("features", {})) >= {"été", "\udcff", "日本", "😀", "ïx", "sp€"},
      "names read back: %s" % objs[0])
check("\udcff".encode("utf-8", "surrogateescape") == BAD and
      [k for k in objs[0]["features"] if k.encode("utf-8", "surrogateescape") == BAD],
      "surrogateescape gives the key's bytes back")
want = {
    1: "Key: été.  Data types don't match. Data type: int64 but expected type: float",
    2: "Key: \\xff.  Can't parse serialized Example: Some int64_list slice was not parsed.",
    3: "Key: 日本.  Data types don't match. Expected type: string, Actual type: int64",
    4: "Key: 日本.  Number of bytes values exceeds the bound declared in the spec",
    5: "Error while parsing feature with key 😀: number of elements should be divisible by 2, found 3 instead.",
    6: "Key: 日本.  Can't parse serialized Example: Could not get num elements in bytes_list.",
    7: "indices and values rows (indexing dimension) must match. (indices = 2, values = 1) "
       "(SparseFeature sp€: index key ïx has 2 values, value key vål has 1)",
}
for i, text in want.items():
    check(text in error_of(objs, i), "record %d: want %r in %r" % (i, text, error_of(objs, i)))
# batched: one record per batch, so Index: 0, and TF's batched words
lines, objs = run(utf, recs, "--batch", "1")
check('"été":{"shape":[1,2],"values":[1,2]}' in lines[0] and '"\\udcff":{"shape":[1]' in lines[0],
      "batched names: " + lines[0])
bwant = {
    1: "Name: <unknown>, Key: été, Index: 0.  Data types don't match. Data type: int64 but expected type: float",
    2: "Name: <unknown>, Key: \\xff, Index: 0.  Number of int64 values != expected.",
    3: "Name: <unknown>, Key: 日本, Index: 0.  Data types don't match. Expected type: string, Actual type: int64",
    4: "Name: <unknown>, Key: 日本, Index: 0.  Number of bytes values exceeds the bound",
    5: "Name: <unknown>, Key: 😀, Index: 0.  Number of int64 values is not a multiple of stride length. "
       "Saw 3 values but output shape is: [?,2]",
    6: "Name: <unknown>, Key: 日本, Index: 0.  Can't parse serialized Example. "
       "Could not get num elements in bytes_list.",
    7: "indices and values rows (indexing dimension) must match. (indices = 2, values = 1) over the batch "
       "(SparseFeature sp€: index key ïx has 2 values, value key vål has 1) (record 0 of the batch)",
}
for i, text in bwant.items():
    check(text in error_of(objs, i), "batch %d: want %r in %r" % (i, text, error_of(objs, i)))
# the SparseFeature's counts are TF's, over the whole batch: records 0 and 7
# (1 + 2 indices, 1 + 1 values), then a later good record (1 + 1)
lines, objs = run(utf, [good, recs[7], good], "--batch", "3")
check("(indices = 4, values = 3) over the batch (SparseFeature sp€: index key ïx has 2 values, value key "
      "vål has 1) (record 1 of the batch)" in error_of(objs, 0), "sparse totals: " + error_of(objs, 0))
# ... and a later record that does not parse is what TF reports instead
lines, objs = run(utf, [good, recs[7], recs[1]], "--batch", "3")
check("Name: <unknown>, Key: été, Index: 2.  Data types don't match." in error_of(objs, 0),
      "a later parse error first: " + error_of(objs, 0))

# a SequenceExample: context and feature list names, list messages
seq = driver("seq", """package nq;
sequence_example s {
  context { "ñ" as n : int64 = 0; }
  feature_lists max 4 { "ü" as u : float[1]; }
}
""")
N_, U_ = "ñ".encode(), "ü".encode()
lines, objs = run(seq, [sequence([(N_, int64_list([3]))], [(U_, [float_list([1.5])])]),
                        sequence([(N_, float_list([1]))], [(U_, [float_list([1.5])])]),
                        sequence([], [(U_, [int64_list([1])])])])
check('"context":{"ñ":3}' in lines[0] and '"feature_lists":{"ü":[[1.5]]}' in lines[0],
      "sequence names: " + lines[0])
check("Context feature: ñ.  Data types don't match." in error_of(objs, 1), "context message: " + error_of(objs, 1))
check("Feature list: ü, Index: 0.  Data types don't match." in error_of(objs, 2), "list message: " + error_of(objs, 2))
lines, objs = run(seq, [sequence([(N_, int64_list([3]))], [(U_, [float_list([1.5])])])], "--batch", "2")
check('"ñ":{"shape":[1],"values":[3]}' in lines[0] and '"ü":{"shape":[1,1,1]' in lines[0]
      and '"lengths":{"ü":[1]}' in lines[0], "sequence batch names: " + lines[0])

# ---- 2. the empty key, in every batched message kind
kinds = [
    ("dense", '"" as k : int64;', [
        (example([(b"", float_list([1]))]),
         "Name: <unknown>, Key: , Index: 0.  Data types don't match. Data type: float but expected type: int64"),
        (example([(b"", int64_list([1, 2]))]),
         "Name: <unknown>, Key: , Index: 0.  Number of int64 values != expected.  Values size: 2 but output shape: []"),
        (example([(b"", field(3, b"\x0a\x05\x01"))]),
         "Name: <unknown>, Key: , Index: 0.  Can't parse serialized Example. Parsing int64_list failed."),
        (example([]),
         "Name: <unknown>, Feature:  (data type: int64) is required but could not be found."),
    ]),
    ("varlen", '"" as k : int64[] max 2;', [
        (example([(b"", float_list([1]))]),
         "Name: <unknown>, Key: , Index: 0.  Data types don't match. Expected type: int64, Actual type: float"),
        (example([(b"", int64_list([1, 2, 3]))]),
         "Name: <unknown>, Key: , Index: 0.  Number of int64 values exceeds the bound declared in the spec"),
    ]),
    ("rows", '"" as k : float[?, 2] max 2;', [
        (example([(b"", float_list([1, 2, 3]))]),
         "Name: <unknown>, Key: , Index: 0.  Number of float values is not a multiple of stride length. "
         "Saw 3 values but output shape is: [?,2]"),
    ]),
    ("strings", '"" as k : bytes[] max 2;', [
        (example([(b"", field(1, b"\x0a\x05ab"))]),
         "Name: <unknown>, Key: , Index: 0.  Can't parse serialized Example. Could not get num elements in bytes_list."),
    ]),
    ("sparse", '"" as k : int64[] max 3;\n  sp : sparse float[4] max 3 index ("") value v;', [
        (example([(b"", int64_list([1, 2])), (b"v", float_list([1]))]),
         "indices and values rows (indexing dimension) must match. (indices = 2, values = 1) over the batch "
         "(SparseFeature sp: index key  has 2 values, value key v has 1) (record 0 of the batch)"),
    ]),
]
for name, decl, cases in kinds:
    exe = driver("empty_" + name, "package e%s;\nexample e {\n  %s\n}\n" % (name, decl))
    for opts in (("--batch", "1"), ("--batch", "1", "--ragged")):
        lines, objs = run(exe, [r for r, _ in cases], *opts)
        for i, (_, text) in enumerate(cases):
            check(text in error_of(objs, i), "empty key, %s %s case %d: want %r in %r"
                  % (name, " ".join(opts), i, text, error_of(objs, i)))

# ---- 4. a later Feature{} for the same key: parse_single_example keeps the
# earlier values, parse_example's batched path takes the last entry, empty
# or not, for VarLen (sparse) and ragged keys; dense keys skip it in both
dup = driver("dup", """package dp;
example e {
  v : int64[] max 3;
  r : ragged float max 3;
  d : int64 = 9;
  q : bytes[?] max 2;
  ix : int64[] max 3;
  sp : sparse float[8] max 3 index (ix) value val;
}
""")
EMPTY = b""
recs = [
    example([(b"v", int64_list([1, 2])), (b"v", EMPTY), (b"r", float_list([0.5])), (b"r", EMPTY),
             (b"d", int64_list([4])), (b"d", EMPTY), (b"q", bytes_list([b"x"])), (b"q", EMPTY),
             (b"ix", int64_list([3])), (b"val", float_list([2.5])), (b"val", EMPTY), (b"ix", EMPTY)]),
    # the earlier entry is of the wrong type: the single path reports it,
    # the batched path never reads it
    example([(b"v", float_list([1])), (b"v", EMPTY)]),
]
lines, objs = run(dup, recs)
check('"v":[1,2],"r":[0.5],"d":4,"q":["x"],"ix":[3],"sp":{"indices":[[3]],"values":[2.5],"dense_shape":[8]}'
      in lines[0], "single path keeps the earlier values: " + lines[0])
check("Key: v.  Data types don't match. Expected type: int64, Actual type: float" in error_of(objs, 1),
      "single path reads the earlier entry: " + error_of(objs, 1))
for opts in (("--batch", "2"), ("--batch", "2", "--ragged")):
    lines, objs = run(dup, recs, *opts)
    f = objs[0].get("features", {}) if objs else {}
    v = f.get("v", {})
    check(v.get("values") == [] and (v.get("dense_shape") == [2, 0] or v.get("row_splits") == [0, 0, 0]),
          "batched VarLen: empty rows %s: %s" % (opts, v))
    check(f.get("r") == {"values": [], "row_splits": [0, 0, 0]}, "batched ragged: empty rows %s: %s" % (opts, f.get("r")))
    check(f.get("d") == {"shape": [2], "values": [4, 9]}, "batched dense keeps the earlier value %s: %s" % (opts, f.get("d")))
    check(f.get("q") == {"shape": [2, 1], "values": ["x", ""]}, "batched rows keep the earlier value %s: %s" % (opts, f.get("q")))
    check(f.get("sp") == {"indices": [], "values": [], "dense_shape": [2, 8]},
          "batched SparseFeature from empty components %s: %s" % (opts, f.get("sp")))

# ---- 5. float32 spellings, and their round trip through json
bits = [0x80000000, 0x00000000, 0x7FC00000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000001,
        0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3DCCCCCD, 0x42C80000, 0x4CBEBC20,
        0x3F800001, 0x3F800000]
spelled = ('[-0.0,0,"nan","inf","-inf",1.4013e-45,-1.4013e-45,1.1754942e-38,'
           '1.1754944e-38,3.4028235e+38,-3.4028235e+38,0.1,100,1e+08,1.0000001,1]')
fl = driver("floats", "package fl;\nexample e {\n  f : float[] max 16;\n  g : float[2];\n}\n")
rec = example([(b"f", float_bits(bits)), (b"g", float_bits([0x80000000, 0x00000001]))])
for opts in ((), ("--batch", "2"), ("--batch", "2", "--ragged")):
    lines, objs = run(fl, [rec, rec], *opts)
    check((spelled if not opts else spelled[:-1] + ",") in lines[0], "float spellings %s: %s" % (opts, lines[0][:400]))
    if not objs or not objs[0]:
        continue
    feats = objs[0]["features"]
    f = feats["f"] if not opts else feats["f"]["values"][:16]
    for b, v in zip(bits, f):
        if isinstance(v, str):
            x = float(v)
            ok = (v in ("nan", "inf", "-inf") and
                  (struct.unpack("<I", struct.pack("<f", x))[0] == b or (x != x and (b & 0x7FC00000) == 0x7FC00000)))
        else:
            ok = (isinstance(v, float) or b & 0x7FFFFFFF != 0 or b == 0) and \
                struct.unpack("<I", struct.pack("<f", float(v)))[0] == b
        check(ok, "float 0x%08x %s read back as %r" % (b, opts, v))
    g = feats["g"] if not opts else feats["g"]["values"][:2]
    check(isinstance(g[0], float) and struct.pack("<f", g[0]) == struct.pack("<I", 0x80000000),
          "-0.0 is a float with its sign %s: %r" % (opts, g[0]))

sys.exit(finish("names"))
