#!/usr/bin/env python3
"""What each rule of featc breaking claims, checked on data.

usage: claims.py FEATC BUILD TMP

For each pair of tests/breaking, records are written by OLD's generated
serializer (the spec's Python module, featc.load, which compiles the
generated C), then parsed by OLD's and by NEW's generated parsers.  A
record given as bytes is one another writer following OLD may write where
OLD's serializer does not: b"" is an Example that leaves out every
optional feature (the generated serializer writes defaults out).  Where
featc breaking finds a change, at least one record must fail under NEW or
read otherwise (values, shape, dtype or form); where it finds none
(no-change), every record must read the same (the features NEW adds aside).  message-removed is left
out: NEW has no parser for the removed message at all.  Where a finding
quotes TensorFlow's error (TensorFlow: "..."), a record that fails under
NEW must fail with that text: the quote is the parser's, word for word.
"""
import os
import re
import struct
import subprocess
import sys

featc_exe, build, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(build, "python"))
os.environ["FEATC"] = featc_exe
os.environ["FEATC_CACHE"] = os.path.join(tmp, "cache")
import featc  # noqa: E402
import numpy  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# rule: the records written under OLD (dicts, or (context, lists) pairs)
RECORDS = {
    "message-kind-changed": [{"x": 1}],
    "key-removed": [{"x": 1, "y": 2.5}],
    "required-added": [{"x": 1}],
    "type-changed": [{"x": 5}],
    "kind-changed": [{"x": 5}],
    "shape-changed": [{"x": numpy.arange(6, dtype=numpy.float32).reshape(2, 3)}],
    "default-removed": [{"x": b"some"}, b""],
    "default-changed": [{"x": [4.0, 5.0]}, b""],
    "bound-lowered": [{"x": list(range(16)), "y": [[1, 2]] * 8}, {"x": [1], "y": []}],
    "list-policy-tightened": [({}, {"y": [[1.0], [1.0, 2.0]]})],
    "moved": [({"x": 1}, {"y": [[1.0]]})],
    "hash-buckets-changed": [{"x": b"cat", "y": b"dog", "z": b"cow"}],
    "sparse-changed": [{"x": featc.Sparse(numpy.array([[3]]), numpy.array([1.5], numpy.float32),
                                          numpy.array([100]))}],
    "ragged-changed": [{"x": featc.Ragged(numpy.array([1, 2, 3]), numpy.array([0, 1, 3]))}],
    "as-changed": [{"x": 300, "y": 1.5, "z": b"\x01\x02\x03\x04", "w": 7, "r": [[1, 2]]}],
    "no-change": [{"x": 1, "y": [1.0, 2.0]}, {"x": -7, "y": []}],
}


def plain(v):
    """A parse result as plain values, with shapes and dtypes."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in sorted(v.items())}
    if isinstance(v, (tuple, list)):
        return [type(v).__name__] + [plain(x) for x in v]
    if isinstance(v, numpy.ndarray):
        return ("array", str(v.dtype), v.shape, v.tolist())
    if isinstance(v, numpy.generic):
        return ("scalar", str(v.dtype), v.item())
    if hasattr(v, "_fields"):
        return [type(v).__name__] + [plain(getattr(v, f)) for f in v._fields]
    return v


def only(b, a):
    """b's part of what a has: a feature NEW adds is not a change."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: only(b[k], a[k]) for k in a if k in b}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and a[:1] == ["tuple"]:
        return [only(y, x) for x, y in zip(a, b)]
    return b


def frames(path):
    data, out, pos = open(path, "rb").read(), [], 0
    while pos < len(data):
        (n,) = struct.unpack_from("<Q", data, pos)
        out.append(data[pos + 12:pos + 12 + n])
        pos += 16 + n
    return out


def main():
    passed = failed = 0
    names = sorted(f[:-len(".old.feat")] for f in os.listdir(HERE) if f.endswith(".old.feat"))
    for name in names:
        if name == "message-removed":
            continue
        old_spec = os.path.join(HERE, name + ".old.feat")
        new_spec = os.path.join(HERE, name + ".new.feat")
        r = subprocess.run([featc_exe, "breaking", old_spec, new_spec],
                           capture_output=True, text=True)
        fires = r.returncode == 1
        quotes = re.findall(r'TensorFlow: "(.*?)"\)', r.stdout + r.stderr)
        tag = name.replace("-", "_")
        old = featc.load(old_spec, name="old_" + tag)
        new = featc.load(new_spec, name="new_" + tag)
        path = os.path.join(tmp, name + ".tfrecord")
        given = [r for r in RECORDS[name] if not isinstance(r, bytes)]
        wrote = old.write(path, given)
        differ, errors = [], []
        for i, rec in enumerate(frames(path) + [r for r in RECORDS[name] if isinstance(r, bytes)]):
            a = plain(old.parse(rec))
            try:
                b = only(plain(new.parse(rec)), a)
            except Exception as e:  # refused under NEW
                differ.append("record %d fails: %s" % (i, e))
                errors.append(str(e))
                continue
            if a != b:
                differ.append("record %d reads otherwise: %r, then %r" % (i, a, b))
        claim = wrote == len(given) and (bool(differ) == fires)
        unquoted = [q for q in quotes if not any(q in e for e in errors)]
        if unquoted:
            print("FAIL %s: featc breaking quotes TensorFlow as %r; the parser under NEW says %r" % (
                name, unquoted[0], errors))
        if claim and not unquoted:
            passed += 1
        else:
            failed += 1
        if not claim:
            print("FAIL %s: featc breaking %s, and of %d records written %s" % (
                name, "finds a change" if fires else "finds none", wrote,
                "; ".join(differ) if differ else "every one reads the same under NEW"))
    print("breaking-claims: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
