#!/usr/bin/env python3
"""Typed tensors (`as`, docs/spec-language.md) in Python and PyTorch, through
the module of tests/specs/typed.feat: each column's dtype and values against
NumPy's own conversions of the record's values (astype for narrowing,
float32 -> float16 bit for bit, np.frombuffer('<...') for decode_raw), in
batches and in parse(); out-of-range values and wrong lengths refused with
the record, its offset and TensorFlow's text; featc.torch's tensors of the
same dtypes; the schema's dtypes; a SequenceExample's feature lists with `as`.

usage: test_typed.py BUILD TMP MODDIR     (MODDIR: typed.abi3.so, built by run.sh)"""
import os
import shutil
import subprocess
import sys

import numpy as np

BUILD, TMP, MODDIR = sys.argv[1:4]
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
sys.path.insert(0, MODDIR)
import featc  # noqa: E402
import typed as ty  # noqa: E402 (tests/specs/typed.feat, built by run.sh)
from tally import check, finish  # noqa: E402

NARROW = {"u8": np.uint8, "i8": np.int8, "i16": np.int16, "u16": np.uint16, "i32": np.int32}
RAW = {"img": ("<u1", (2, 3)), "pcm": ("<i2", (3,)), "w": ("<u2", (2,)), "q": ("<i4", (1,)),
       "l": ("<i8", (2,)), "s8": ("<i1", (2,)), "f16": ("<f2", (1,)), "f32": ("<f4", (2,)),
       "f64": ("<f8", (1,))}
DEFAULT_BYTES = {"pcm": b"\x01\x00\xff\xff\x00\x80", "w": bytes(4), "q": bytes(4),
                 "l": bytes(16), "s8": b"\x7f\x80", "f16": b"\x00\x3c",
                 "f32": b"\x00\x00\x80\x3f\x00\x00\x00\xc0",
                 "f64": b"\x00\x00\x00\x00\x00\x00\xf0\x3f"}


def random_records(rng, n):
    recs = []
    for _ in range(n):
        r = {"u8": int(rng.integers(0, 256)),
             "i8": rng.integers(-128, 128, size=rng.integers(0, 5)).tolist(),
             "i16": rng.integers(-32768, 32768, size=2).tolist(),
             "u16": rng.integers(0, 65536, size=rng.integers(0, 4)).tolist(),
             "i32": int(rng.integers(-2**31, 2**31)),
             # every float32 bit pattern that is finite and inside float16's range
             "h": np.clip(rng.standard_normal(4).astype(np.float32) *
                          np.float32(10.0) ** rng.integers(-9, 5), -65000, 65000)
                  .reshape(2, 2).tolist(),
             "hv": (rng.standard_normal(rng.integers(0, 6)) * 1000).astype(np.float32).tolist(),
             "img": rng.integers(0, 256, size=6, dtype=np.uint8).tobytes(),
             # FixedLenSequence rows: [R, 2] int16, [R] float16 (padded in a batch)
             "rw": rng.integers(-32768, 32768, size=(rng.integers(0, 4), 2)).tolist(),
             "rh": (rng.standard_normal(rng.integers(0, 5)) * 100).astype(np.float32).tolist()}
        if rng.random() < 0.3:  # no rows at all
            del r["rw" if rng.random() < 0.5 else "rh"]
        # RaggedFeatures: rg's values in rows of row_lengths (at most 3 rows, 6
        # values), rf's values alone
        lens = rng.integers(0, 3, size=rng.integers(0, 4))
        r["rg"] = ty.Ragged((rng.integers(-32768, 32768, size=int(lens.sum())),
                             np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)))
        r["rf"] = (rng.standard_normal(rng.integers(0, 5)) * 100).astype(np.float32).tolist()
        for key, (code, dims) in RAW.items():
            if key != "img" and rng.random() < 0.6:
                size = int(np.prod(dims)) * np.dtype(code).itemsize
                r[key] = rng.integers(0, 256, size=size, dtype=np.uint8).tobytes()
        if rng.random() < 0.2:  # defaults of FixedLen features
            for key in ("u8", "i16", "i32", "h"):
                del r[key]
        recs.append(r)
    return recs


def want(r, key):
    """The tensor NumPy makes of record r's feature key."""
    defaults = {"u8": 255, "i16": [-32768, 32767], "i32": -2**31, "h": [[0, 0], [0, 0]]}
    if key in RAW:
        code, dims = RAW[key]
        raw = r.get(key, DEFAULT_BYTES.get(key))
        return np.frombuffer(raw, code).reshape(dims).astype(np.dtype(code).newbyteorder("="))
    if key == "rw":
        return np.asarray(r.get(key, []), dtype=np.int64).reshape(-1, 2).astype(np.int16)
    if key == "rg":
        return np.asarray(r["rg"].values, dtype=np.int64).astype(np.int16)
    if key == "rf":
        return np.asarray(r[key], dtype=np.float32).astype(np.float16)
    if key == "rh":
        return np.asarray(r.get(key, []), dtype=np.float32).astype(np.float16)
    if key in ("h", "hv"):
        return np.asarray(r.get(key, defaults.get(key)), dtype=np.float32).astype(np.float16)
    return np.asarray(r.get(key, defaults.get(key)), dtype=np.int64).astype(NARROW[key])


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":  # bit for bit (NaN payloads and signed zeros too)
        return a.view("u%d" % a.dtype.itemsize).tolist() == b.view("u%d" % b.dtype.itemsize).tolist()
    return a.tolist() == b.tolist()


def rows_same(b, recs, where):
    """A batch's FixedLenSequence columns: [B, R, ...], each record's rows
    as NumPy converts them, then the padding value converted (-7 as int16,
    1.5 as float16) up to the batch's most rows."""
    for key, pad in (("rw", np.int16(-7)), ("rh", np.float16(1.5))):
        col = b[key]
        most = max([len(want(r, key)) for r in recs] + [0])
        if col.shape[:2] != (len(recs), most):
            check(False, "%s: %s shape %r, want [%d, %d, ...]" % (where, key, col.shape,
                                                                  len(recs), most))
            return False
        for j, r in enumerate(recs):
            w = want(r, key)
            padded = np.full(col.shape[1:], pad, dtype=col.dtype)
            padded[:len(w)] = w
            if not same(col[j], padded):
                check(False, "%s+%d %s: %r, want %r" % (where, j, key, col[j], padded))
                return False
    return True


def test_values(path, recs):
    n_ok = 0
    at = 0
    for b in ty.read(path, batch_size=7, varlen="ragged"):
        n = b["u8"].shape[0]
        for key in ("u8", "i16", "i32", "h") + tuple(RAW):
            for j in range(n):
                if not same(b[key][j], want(recs[at + j], key)):
                    check(False, "record %d %s: %r, want %r" % (at + j, key, b[key][j],
                                                             want(recs[at + j], key)))
                    return
        for key in ("i8", "u16", "hv"):
            v = b[key]
            for j in range(n):
                got = v.values[v.row_splits[j]:v.row_splits[j + 1]]
                if not same(got, want(recs[at + j], key)):
                    check(False, "record %d %s: %r" % (at + j, key, got))
                    return
        if not rows_same(b, recs[at:at + n], "record %d" % at):
            return
        for key in ("rg", "rf"):  # RaggedFeatures: the values typed, the splits as read
            v = b[key]
            got = np.asarray(v.values)
            w = np.concatenate([want(r, key) for r in recs[at:at + n]])
            outer = v.row_splits[0] if isinstance(v.row_splits, tuple) else v.row_splits
            if not same(got, w) or outer[-1] != (sum(len(r["rg"].row_splits) - 1
                                                     for r in recs[at:at + n])
                                                 if key == "rg" else len(w)):
                check(False, "records %d..: %s %r, want values %r" % (at, key, v, w))
                return
        at += n
        n_ok += n
    check(n_ok == len(recs), "%d of %d records compared" % (n_ok, len(recs)))
    one = ty.parse(open(path, "rb").read()[12:12 + int.from_bytes(open(path, "rb").read()[:8],
                                                                   "little")])
    check(same(one["img"], want(recs[0], "img")) and same(one["u8"], want(recs[0], "u8")),
          "parse(): %r" % one)


def test_dtypes():
    s = ty.schema["e"]["features"] if "e" in ty.schema else ty.schema["features"]
    got = {k: (d["dtype"], d.get("record_dtype")) for k, d in s.items()}
    check(got["u8"] == ("uint8", "int64") and got["h"] == ("float16", "float32") and
          got["img"] == ("uint8", "bytes") and got["f64"] == ("float64", "bytes") and
          got["plain"] == ("int64", None), "schema %r" % got)
    check(tuple(s["img"]["shape"]) == (2, 3) and tuple(s["img"]["record_shape"]) == (),
          "img shapes %r" % s["img"])
    check(got["rg"] == ("int16", "int64") and got["rf"] == ("float16", "float32"),
          "ragged schema %r %r" % (s["rg"], s["rf"]))
    check(got["rw"] == ("int16", "int64") and got["rh"] == ("float16", "float32") and
          tuple(s["rw"]["row_shape"]) == (2,) and s["rw"]["max_rows"] == 3,
          "rows' schema %r %r" % (s["rw"], s["rh"]))


def test_errors(base):
    cases = [({"u8": 256}, "Key: u8, Index: 1.  Value 256 at index 0 is out of the range of "
                           "uint8 (0 to 255)"),
             ({"i8": [1, -129]}, "Key: i8, Index: 1.  Value -129 at index 1 is out of the "
                                 "range of int8 (-128 to 127)"),
             ({"hv": [65520.0]}, "Key: hv, Index: 1.  Value at index 0 is out of the range "
                                 "of float16 (its magnitude rounds past 65504)"),
             ({"rw": [[0, 1], [-32769, 2]]}, "Key: rw, Index: 1.  Value -32769 at index 2 "
                                             "is out of the range of int16 (-32768 to 32767)"),
             ({"rg": ty.Ragged((np.array([5, 32768]), np.array([0, 2])))},
              "Key: rgv, Index: 1.  Value 32768 at index 1 is out of the range of int16 "
              "(-32768 to 32767)"),
             ({"img": bytes(5)}, "Key: img, Index: 1.  Input to reshape is a tensor with 5 "
                                 "values, but the requested shape has 6"),
             ({"f32": bytes(9)}, "Key: f32, Index: 1.  Input to DecodeRaw has length 9 that "
                                 "is not a multiple of 4, the size of float")]
    path = os.path.join(TMP, "bad.tfrecord")
    for change, text in cases:
        r = dict(base)
        r.update(change)
        ty.write(path, [base, r])
        try:
            for _ in ty.read(path, batch_size=4):
                pass
            check(False, "%r read without an error" % change)
        except ty.DataError as e:
            check(e.record == 1 and e.offset is not None and e.message.endswith(text),
                  "%r: record %r offset %r %s" % (change, e.record, e.offset, e.message))


def test_torch(path, recs):
    try:
        import torch
        import featc.torch as ft
    except ImportError as e:
        check(False, "featc.torch: %s" % e)
        return
    b = next(iter(ft.TFRecordDataset(ty, path, batch_size=8)))
    dt = {k: b[k].dtype for k in ("u8", "i16", "i32", "h", "img", "pcm", "w", "f64", "rw")}
    u16 = torch.int32 if not hasattr(torch, "uint16") else torch.uint16
    check(dt == {"u8": torch.uint8, "i16": torch.int16, "i32": torch.int32, "h": torch.float16,
                 "img": torch.uint8, "pcm": torch.int16, "w": u16, "f64": torch.float64,
                 "rw": torch.int16},
          "torch dtypes %r" % dt)
    check(b["img"].shape == (8, 2, 3) and b["img"][0].tolist() == want(recs[0], "img").tolist(),
          "torch img %r" % (b["img"][0],))


def test_parquet(path, recs):
    """write_parquet of the typed module: the file featc convert writes,
    byte for byte, and back to records (featc convert with the typed spec)
    whose tensors are NumPy's of the records."""
    spec = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "specs", "typed.feat")
    featc = os.path.join(BUILD, "featc")
    mine, cli, back = (os.path.join(TMP, n) for n in ("py.parquet", "cli.parquet", "back.tfrecord"))
    n = ty.write_parquet(mine, path, codec="zstd")
    p = subprocess.run([featc, "convert", "-q", path, "--spec", spec, "--message", "e", "-o", cli,
                        "--codec", "zstd"], capture_output=True)
    check(n == len(recs) and p.returncode == 0 and
          open(mine, "rb").read() == open(cli, "rb").read(),
          "write_parquet: %s rows, the bytes featc convert writes (exit %d) %s"
          % (n, p.returncode, p.stderr.decode().strip()))
    p = subprocess.run([featc, "convert", "-q", mine, "--spec", spec, "--message", "e", "-o", back],
                       capture_output=True)
    if p.returncode != 0:
        check(False, "the typed Parquet file back to records: %s" % p.stderr.decode().strip())
        return
    at = 0
    for b in ty.read(back, batch_size=50, varlen="ragged"):
        for key in ("u8", "i16", "i32", "h") + tuple(RAW):
            for j in range(b["u8"].shape[0]):
                if not same(b[key][j], want(recs[at + j], key)):
                    check(False, "back from Parquet, record %d %s: %r, want %r"
                          % (at + j, key, b[key][j], want(recs[at + j], key)))
                    return
        if not rows_same(b, recs[at:at + b["u8"].shape[0]], "back from Parquet, record %d" % at):
            return
        at += b["u8"].shape[0]
    check(at == len(recs), "back from Parquet: %d records, the tensors NumPy makes" % at)


def random_seq(rng, n):
    """(context, feature_lists) records of message s: lists typed (`as`)."""
    recs = []
    for _ in range(n):
        t = int(rng.integers(0, 5))
        fl = {"ids": rng.integers(0, 256, size=t).tolist(),
              "tok": [rng.integers(-32768, 32768, size=rng.integers(0, 4)).tolist()
                      for _ in range(rng.integers(0, 5))],
              "emb": (rng.standard_normal((t, 2)) * 1000).astype(np.float32).tolist(),
              "pix": [rng.integers(0, 256, size=4, dtype=np.uint8).tobytes() for _ in range(t)],
              "pcm": [rng.integers(0, 256, size=4, dtype=np.uint8).tobytes()
                      for _ in range(rng.integers(0, 3))]}
        recs.append(({"label": int(rng.integers(0, 256))}, fl))
    return recs


def want_list(fl, key, frames):
    """The [frames, ...] tensor NumPy makes of a record's list (padded with 0)."""
    v = fl[key]
    if key == "ids":
        a = np.asarray(v, dtype=np.int64).astype(np.uint8)
    elif key == "emb":
        a = np.asarray(v, dtype=np.float32).reshape(-1, 2).astype(np.float16)
    else:
        code, dims = ("<u1", (2, 2)) if key == "pix" else ("<i2", (2,))
        a = np.asarray([np.frombuffer(b, code).reshape(dims) for b in v],
                       dtype=np.dtype(code).newbyteorder("=")).reshape((-1,) + dims)
    out = np.zeros((frames,) + a.shape[1:], a.dtype)
    out[:len(a)] = a
    return out


def test_lists():
    """Feature lists with `as`: each frame converted (fixed frames [B, T, ...], decode_raw
    frames [B, T, dims], VarLen frames' values), written back from read()'s tensors, and
    an out-of-range value refused with the list and the frame."""
    rng = np.random.default_rng(64)
    recs = random_seq(rng, 300)
    path, back = os.path.join(TMP, "lists.tfrecord"), os.path.join(TMP, "lists-back.tfrecord")
    ty.write(path, recs, message="s")
    s = ty.schema["s"]["feature_lists"]
    check((s["ids"]["dtype"], s["ids"]["record_dtype"]) == ("uint8", "int64") and
          tuple(s["pix"]["frame_shape"]) == (2, 2) and s["pix"]["record_dtype"] == "bytes" and
          s["tok"]["dtype"] == "int16", "schema of the lists %r" % s)
    at = 0
    batches = list(ty.read(path, batch_size=16, message="s", varlen="ragged"))
    for ctx, fl, lengths in batches:
        for j in range(ctx["label"].shape[0]):
            r = recs[at + j][1]
            for key in ("ids", "emb", "pix", "pcm"):
                frames = fl[key].shape[1]
                if not same(fl[key][j], want_list(r, key, frames)):
                    check(False, "record %d %s: %r, want %r" % (at + j, key, fl[key][j],
                                                             want_list(r, key, frames)))
                    return
            rs = fl["tok"].row_splits
            lo, hi = rs[1][rs[0][j]], rs[1][rs[0][j + 1]]
            got = fl["tok"].values[lo:hi]
            if not same(got, np.asarray(sum(r["tok"], []), dtype=np.int64).astype(np.int16)):
                check(False, "record %d tok: %r" % (at + j, got))
                return
        at += ctx["label"].shape[0]
    check(at == len(recs), "lists: %d of %d records compared" % (at, len(recs)))
    ty.write(back, batches, message="s")
    again = list(ty.read(back, batch_size=16, message="s", varlen="ragged"))
    check(all(same(a[1][k], b[1][k]) for a, b in zip(batches, again)
              for k in ("ids", "emb", "pix", "pcm")) and len(again) == len(batches),
          "lists written back from read()'s tensors read the same")
    bad = [recs[0], (recs[1][0], dict(recs[1][1], ids=[0, 256]))]
    ty.write(path, bad, message="s")
    try:
        for _ in ty.read(path, batch_size=4, message="s"):
            pass
        check(False, "a list value out of range read without an error")
    except ty.DataError as e:
        check(e.record == 1 and "Feature list: ids, Index: 1.  Value 256 at index 0 is out of "
                                "the range of uint8 (0 to 255)" in e.message,
              "lists: record %r %s" % (e.record, e.message))


def refused(path, item, message, text, what):
    """item (a batch) written to path, then read: a DataError at record 0
    whose message holds text."""
    ty.write(path, item, message=message)
    try:
        list(ty.read(path, batch_size=4, message=message))
        check(False, "%s read without an error" % what)
    except ty.DataError as e:
        check(e.record == 0 and text in e.message, "%s: %s" % (what, e.message))

def test_sparse():
    """Message sx's SparseFeatures: random batches written, read back: the
    values NumPy's conversion of the written ones, in TensorFlow's sorted
    order (indices row-major), the indices and dense shape as written; a
    value past uint8 refused naming the value key."""
    rng = np.random.default_rng(7)
    path = os.path.join(TMP, "sparse.tfrecord")
    for trial in range(20):
        n = int(rng.integers(1, 9))
        rows, vals, grows, gvals = [], [], [], []
        for i in range(n):  # distinct indices per record, sorted (sg is already_sorted)
            for j in sorted(rng.choice(6, size=rng.integers(0, 4), replace=False)):
                rows.append([i, j])
                vals.append(np.float32(rng.standard_normal() * 1000))
            for a, b in sorted(set(map(tuple, rng.integers(0, [4, 5], size=(rng.integers(0, 5), 2))))):
                grows.append([i, a, b])
                gvals.append(int(rng.integers(0, 256)))
        sp = ty.Sparse((np.array(rows, np.int64).reshape(-1, 2), np.array(vals, np.float32),
                        np.array([n, 6])))
        sg = ty.Sparse((np.array(grows, np.int64).reshape(-1, 3), np.array(gvals, np.int64),
                        np.array([n, 4, 5])))
        ty.write(path, {"sp": sp, "sg": sg}, message="sx")
        b = next(iter(ty.read(path, batch_size=n, message="sx")))
        ok = (same(b["sp"].values, np.array(vals, np.float32).astype(np.float16)) and
              same(b["sg"].values, np.array(gvals, np.int64).astype(np.uint8)) and
              b["sp"].indices.tolist() == sp.indices.tolist() and
              b["sg"].indices.tolist() == sg.indices.tolist() and
              b["sp"].dense_shape.tolist() == [n, 6])
        if not ok:
            check(False, "sparse trial %d: %r %r" % (trial, b["sp"], b["sg"]))
            return
    check(True, "")
    bad = ty.Sparse((np.array([[0, 1, 1]]), np.array([256]), np.array([1, 4, 5])))
    refused(path, {"sg": bad}, "sx", "Key: sgv, Index: 0.  Value 256 at index 0 is out of the "
            "range of uint8 (0 to 255)", "sparse sg = 256")


def splits(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def test_seq_ragged():
    """Message sr: a context RaggedFeature and lists of RaggedFeature frames with `as`,
    random batches written and read back: the values NumPy's conversion of the written
    ones, the splits as written; written back from read()'s tensors, the same; a frame's
    value past uint8 refused naming the value list and the frame."""
    rng = np.random.default_rng(11)
    path, back = os.path.join(TMP, "sr.tfrecord"), os.path.join(TMP, "sr-back.tfrecord")
    for trial in range(20):
        n = int(rng.integers(1, 6))
        crows = [rng.integers(0, 3, size=rng.integers(0, 3)) for _ in range(n)]  # <= 4 values
        cg_rows = np.concatenate(crows).astype(np.int64) if n else np.zeros(0, np.int64)
        cg_vals = rng.integers(-32768, 32768, size=int(cg_rows.sum()))
        frames = rng.integers(0, 5, size=n)  # rl: frames of <= 3 rows of <= 1 value
        rows = rng.integers(0, 3, size=int(frames.sum()))
        lens = rng.integers(0, 2, size=int(rows.sum()))
        rl_vals = rng.integers(0, 256, size=int(lens.sum()))
        hframes = rng.integers(0, 5, size=n)
        hlens = rng.integers(0, 4, size=int(hframes.sum()))
        rh_vals = (rng.standard_normal(int(hlens.sum())) * 1000).astype(np.float32)
        cg = ty.Ragged((cg_vals, (splits([len(r) for r in crows]), splits(cg_rows))))
        rl = ty.Ragged((rl_vals, (splits(frames), splits(rows), splits(lens))))
        rh = ty.Ragged((rh_vals, (splits(hframes), splits(hlens))))
        ty.write(path, ({"cg": cg}, {"rl": rl, "rh": rh}), message="sr")
        got = list(ty.read(path, batch_size=n, message="sr", varlen="ragged"))
        ctx, fl = got[0][0], got[0][1]
        ok = (len(got) == 1 and same(ctx["cg"].values, cg_vals.astype(np.int16)) and
              same(fl["rl"].values, rl_vals.astype(np.uint8)) and
              same(fl["rh"].values, rh_vals.astype(np.float16)) and
              all(same(a, b) for a, b in zip(fl["rl"].row_splits, rl.row_splits)) and
              all(same(a, b) for a, b in zip(ctx["cg"].row_splits, cg.row_splits)))
        if not ok:
            check(False, "sr trial %d: %r" % (trial, got))
            return
        ty.write(back, got, message="sr")
        again = list(ty.read(back, batch_size=n, message="sr", varlen="ragged"))
        if not (same(again[0][1]["rl"].values, fl["rl"].values) and
                same(again[0][1]["rh"].values, fl["rh"].values) and
                same(again[0][0]["cg"].values, ctx["cg"].values)):
            check(False, "sr trial %d: written back from read()'s tensors: %r" % (trial, again))
            return
    check(True, "")
    rl = ty.Ragged((np.array([1, 256]), (splits([2]), splits([1, 1]), splits([1, 1]))))
    refused(path, ({}, {"rl": rl}), "sr", "Feature list: rlv, Index: 1.  Value 256 at index 0 "
            "is out of the range of uint8 (0 to 255)", "ragged list rl = 256")


def test_hashed():
    """Messages hx and hp (hx without `as`) over the same random records: hx's
    values NumPy's conversion of hp's, its KEY/buckets and hot vectors hp's
    (the ids come from the record's values); written back from read()'s
    tensors, the same bytes; a value past int16 refused."""
    rng = np.random.default_rng(5)
    path, back = os.path.join(TMP, "hx.tfrecord"), os.path.join(TMP, "hx-back.tfrecord")
    for trial in range(20):
        n = int(rng.integers(1, 9))
        lens = rng.integers(0, 4, size=n)
        b = {"hv": ty.Ragged((rng.integers(-32768, 32768, size=int(lens.sum())), splits(lens))),
             "hf": rng.integers(0, 256, size=n), "hm": rng.integers(-128, 128, size=(n, 2))}
        ty.write(path, b, message="hx")
        x = next(iter(ty.read(path, batch_size=n, message="hx", varlen="ragged")))
        p = next(iter(ty.read(path, batch_size=n, message="hp", varlen="ragged")))
        ok = (set(x) == set(p) and same(x["hv"].values, p["hv"].values.astype(np.int16)) and
              same(x["hf"], p["hf"].astype(np.uint8)) and same(x["hm"], p["hm"].astype(np.int8)) and
              all(same(x[k], p[k]) for k in x if "/" in k))
        if not ok:
            check(False, "hashed trial %d: %r, untyped %r" % (trial, x, p))
            return
        ty.write(back, x, message="hx")
        with open(path, "rb") as f1, open(back, "rb") as f2:
            if f1.read() != f2.read():
                check(False, "hashed trial %d: written back from read()'s tensors differs" % trial)
                return
    check(True, "")
    refused(path, {"hv": ty.Ragged((np.array([40000]), splits([1]))), "hf": np.array([1]),
                   "hm": np.array([[0, 0]])}, "hx",
            "Key: hv, Index: 0.  Value 40000 at index 0 is out of the range of int16",
            "hashed hv = 40000")


def random_st(rng, n):
    """(context, feature_lists) records of messages st and su (1 to 12 frames)."""
    recs = []
    for e in range(n):
        t = int(rng.integers(1, 13))
        ctx = {"id": b"k%d" % e, "lab": int(rng.integers(0, 256)),
               "raw": rng.integers(0, 256, size=4, dtype=np.uint8).tobytes(),
               "hv": (rng.standard_normal(rng.integers(0, 4)) * 1000).astype(np.float32).tolist()}
        fl = {"ids": rng.integers(-128, 128, size=t).tolist(),
              "tok": [rng.integers(0, 65536, size=rng.integers(0, 4)).tolist() for _ in range(t)],
              "pix": [rng.integers(0, 256, size=4, dtype=np.uint8).tobytes() for _ in range(t)],
              "emb": (rng.standard_normal((t, 2)) * 1000).astype(np.float32).tolist()}
        recs.append((ctx, fl))
    return recs


def st_want(b):
    """Message su's segment batch b converted as st's `as` says, by NumPy."""
    c, q = b["context"], b["sequences"]
    raw = np.stack([np.frombuffer(v, "<i2") for v in c["raw"].tolist()])
    pix = np.array([np.frombuffer(v.ljust(4, b"\0"), "<u1") for v in q["pix"].tolist()],
                   dtype=np.uint8).reshape(tuple(q["pix"].shape) + (2, 2))  # padding: "" -> 0
    return {"lab": c["lab"].astype(np.uint8), "raw": raw.astype(np.int16),
            "hv": c["hv"].astype(np.float16), "hv/lengths": c["hv/lengths"],
            "ids": q["ids"].astype(np.int8), "tok": q["tok"].astype(np.uint16),
            "tok/lengths": q["tok/lengths"], "pix": pix, "emb": q["emb"].astype(np.float16)}


def segment_runs(path, message, **settings):
    seg = ty.segments(message=message, key="id", **settings)
    out = []
    for b in featc.segment_batches(seg, featc.records(path, ty, message=message)):
        out.append(b)
        seg.save_state("h", b["states"]["h"])
    return out


def test_segments():
    """A segments message with `as` (st) beside its untyped twin (su) over the same
    records: each segment batch's typed columns are NumPy's conversions of su's (astype,
    float16, frombuffer('<...')), in the segmenter's batches and in featc.torch's
    SegmentBatcher; a value out of range refused with the record's text."""
    rng = np.random.default_rng(66)
    path = os.path.join(TMP, "st.tfrecord")
    ty.write(path, random_st(rng, 40), message="su")
    for settings in ({}, {"num_unroll": 3, "batch_size": 5, "capacity": 9}):
        a, b = segment_runs(path, "st", **settings), segment_runs(path, "su", **settings)
        ok = len(a) == len(b) and len(a) > 5
        for x, y in zip(a, b):
            want, got = st_want(y), dict(x["context"], **x["sequences"])
            ok = ok and x["key"] == y["key"] and set(got) == set(want) | {"id"} and \
                got["id"].tolist() == y["context"]["id"].tolist() and \
                all(same(got[k], want[k]) for k in want)
            if not ok:
                check(False, "segments %r: %r\n want %r" % (settings, got, want))
                return
        check(ok, "segments %r: %d batches" % (settings, len(a)))
    try:
        import torch
        import featc.torch as ft
    except ImportError as e:
        check(False, "featc.torch: %s" % e)
        return
    u16 = torch.int32 if not hasattr(torch, "uint16") else torch.uint16
    n = 0
    for tb, nb in zip(ft.SegmentBatcher(ty, path, message="st", key="id"),
                      segment_runs(path, "su")):
        want = st_want(nb)
        got = dict(tb.context, **tb.sequences)
        dt = {k: got[k].dtype for k in ("lab", "raw", "ids", "tok", "pix", "emb")}
        if dt != {"lab": torch.uint8, "raw": torch.int16, "ids": torch.int8, "tok": u16,
                  "pix": torch.uint8, "emb": torch.float16} or \
                not all(same(got[k].numpy(), want[k].astype(got[k].numpy().dtype))
                        for k in want):
            check(False, "torch segments: %r" % dt)
            return
        tb.save_state("h", tb.state("h"))
        n += 1
    check(n > 5, "torch segments: %d batches" % n)
    ctx, fl = random_st(rng, 1)[0]
    ty.write(path, [(dict(ctx, lab=256), fl)], message="su")
    seg = ty.segments(message="st", key="id")
    try:
        seg.insert(next(featc.records(path, ty, message="su")))
        check(False, "segments: lab = 256 inserted")
    except Exception as e:
        check("Context feature: lab.  Value 256 at index 0 is out of the range of uint8 (0 to "
              "255)" in str(e) and seg.in_flight == 0, "segments: %s: %s" % (type(e), e))


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    rng = np.random.default_rng(62)
    recs = random_records(rng, 500)
    path = os.path.join(TMP, "typed.tfrecord")
    ty.write(path, recs)
    test_dtypes()
    test_values(path, recs)
    test_errors(recs[1])
    test_torch(path, recs)
    test_parquet(path, recs)
    test_lists()
    test_sparse()
    test_seq_ragged()
    test_hashed()
    test_segments()
    return finish("py-typed")


sys.exit(main())
