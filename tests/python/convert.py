"""The Python module's batches and records in the shape of the JSON driver's
objects (docs/design.md), for comparing them value for value.

A module value becomes the driver's JSON structure with typed leaves:
("F", float32 array; float16 ones as float32), ("D", float64 list: `as
float64`), ("I", list of ints) or ("B", list of bytes).
same(leafy, json) compares such a structure with the driver's parsed JSON:
floats by their float32 bits ("nan", "inf", "-inf" as the driver spells
them; -0.0 keeps its sign), bytes by the driver's Latin-1 strings.
"""
import struct

import numpy as np

SUFFIXES = ("/buckets", "/one_hot", "/multi_hot")


def leaf(v):
    if hasattr(v, "tolist") and hasattr(v, "offsets"):  # featc Bytes
        return ("B", v.tolist())
    a = np.asarray(v)
    if a.dtype in (np.float32, np.float16):  # (a float16's value is a float32's exactly)
        return ("F", a.reshape(-1).astype(np.float32))
    if a.dtype == np.float64:  # `as float64`: the driver prints 17 digits
        return ("D", a.reshape(-1).tolist())
    return ("I", a.reshape(-1).tolist())


def splits(rs):
    if isinstance(rs, tuple):
        return [leaf(x) for x in rs]
    return leaf(rs)


def column(v):
    name = type(v).__name__
    if name == "Sparse":
        return {"indices": [list(r) for r in np.asarray(v.indices).tolist()],
                "values": leaf(v.values), "dense_shape": list(np.asarray(v.dense_shape).tolist())}
    if name == "Ragged":
        return {"values": leaf(v.values), "row_splits": splits(v.row_splits)}
    shape = list(v.shape)
    return {"shape": shape, "values": leaf(v)}


def features(d):
    return {k: column(v) for k, v in d.items() if not k.endswith(SUFFIXES)}


def batch_to_json(b, k):
    if isinstance(b, dict):
        return {"batch": k, "features": features(b)}
    ctx, lists, lengths = b
    return {"batch": k, "context": features(ctx), "feature_lists": features(lists),
            "lengths": {n: leaf(v) for n, v in lengths.items()}}


def record_value(v):
    """parse()'s value of a feature as the driver's per-record JSON."""
    name = type(v).__name__
    if isinstance(v, bytes):
        return ("B", [v])
    if name == "Bytes":
        return nest(("B", v.tolist()), list(v.shape))
    if name == "Ragged":
        return ragged_nest(v)
    if name == "Sparse":
        return column(v)
    a = np.asarray(v)
    if a.ndim == 0:
        return leaf(a.reshape(1))
    return nest(leaf(a), list(a.shape))


def ragged_nest(v):
    """A Ragged value as nested lists, as the per-record JSON prints it."""
    kind, vals = leaf(v.values)
    vals = list(vals)
    rs = v.row_splits if isinstance(v.row_splits, tuple) else (v.row_splits,)
    rs = [np.asarray(x).tolist() for x in rs]

    def rows(level, lo, hi):
        if level == len(rs):
            return (kind, vals[lo:hi])
        sp = rs[level]
        return [rows(level + 1, sp[i], sp[i + 1]) for i in range(lo, hi)]
    return rows(0, 0, len(rs[0]) - 1)


def nest(lf, shape):
    """A flat typed leaf as nested lists of one-value leaves."""
    kind, vals = lf
    vals = list(vals)

    def build(off, dims):
        if not dims:
            return (kind, vals[off:off + 1]), off + 1
        out = []
        for _ in range(dims[0]):
            x, off = build(off, dims[1:])
            out.append(x)
        return out, off
    if not shape:
        return (kind, vals[:1])
    return build(0, shape)[0]


def record_to_json(r, n):
    if isinstance(r, dict):
        return {"record": n, "features": {k: record_value(v) for k, v in r.items()
                                          if not k.endswith(SUFFIXES)}}
    ctx, lists = r
    return {"record": n, "context": {k: record_value(v) for k, v in ctx.items()
                                     if not k.endswith(SUFFIXES)},
            "feature_lists": {k: record_value(v) for k, v in lists.items()
                              if not k.endswith(SUFFIXES)}}


def f32bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def float_token(x):
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return f32bits(x)


def json_token(y):
    if isinstance(y, str):
        return y
    return f32bits(float(y))


def same(m, j):
    """m: a structure with typed leaves; j: the driver's JSON."""
    if isinstance(m, tuple) and len(m) == 2 and m[0] in ("F", "I", "B", "D"):
        kind, vals = m
        if not isinstance(j, list):
            j = [j]  # a scalar in the per-record JSON
        if len(vals) != len(j):
            return False
        if kind == "F":
            return all(float_token(x) == json_token(y) for x, y in zip(vals, j))
        if kind == "B":
            return all(isinstance(y, str) and x == y.encode("latin-1") for x, y in zip(vals, j))
        if kind == "D":
            return all((x != x and y == "nan") or
                       (isinstance(y, str) and str(float_token(x)) == y) or
                       (not isinstance(y, str) and x == float(y)) for x, y in zip(vals, j))
        return list(vals) == j
    if isinstance(m, dict):
        return isinstance(j, dict) and m.keys() == j.keys() and all(same(m[k], j[k]) for k in m)
    if isinstance(m, list):
        if isinstance(j, list) and len(m) == len(j):
            return all(same(x, y) for x, y in zip(m, j))
        # a per-record value with one element prints as a scalar
        return len(m) == 1 and not isinstance(j, list) and same(m[0], j)
    return m == j


def plain(m):
    """A typed structure as plain JSON-able data, for messages."""
    if isinstance(m, tuple) and len(m) == 2 and m[0] in ("F", "I", "B", "D"):
        kind, vals = m
        if kind == "F":
            return [float(x) for x in vals]
        if kind == "B":
            return [x.decode("latin-1") for x in vals]
        return list(vals)
    if isinstance(m, dict):
        return {k: plain(v) for k, v in m.items()}
    if isinstance(m, list):
        return [plain(x) for x in m]
    return m
