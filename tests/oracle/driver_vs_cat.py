#!/usr/bin/env python3
"""The generated JSON driver against the protobuf-c fallback decoder.

usage: driver_vs_cat.py NAME FEATC DRIVER SPEC FILE...

For every record of FILE..., the driver's object (docs/design.md's JSON dump
contract) must agree with `featc cat --json` (protobuf-c decodes the record,
no featc wire code) on every feature the spec names: a feature with values
in the record has exactly those values (flattened, row-major; floats
compared as float32 bits); a missing one, or one present with no list
(Feature{}), has the spec's default, or no values when it has none (VarLen,
FixedLenSequence).  For a SequenceExample the same holds for the context,
and every feature list has cat's frames, frame by frame.  Both outputs must
be UTF-8 (keys are written as text).  Floats are also checked against the
record itself, decoded here (framing, gzip and protobuf by hand): every
float the driver prints as a feature's values, read back by Python's json,
has the bits of the record's float (any NaN for a NaN), so that neither
printer can hide a loss behind the other.  Prints "NAME: N passed, M
failed", N and M in records.
"""
import json
import math
import re
import struct
import gzip
import subprocess
import sys
import zlib


def spec_defaults(path):
    """key -> the flat default of a FixedLen feature with a scalar default, from
    `KEY [as NAME] : TYPE [SHAPE] = VALUE;` lines (the specs this test runs on)."""
    out = {}
    pat = re.compile(r'^\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*))(?:\s+as\s+\w+)?'
                     r'\s*:\s*\w+\s*(?:\[([0-9,\s]*)\])?\s*=\s*([^;\[]+);')
    for line in open(path, encoding="utf-8"):
        line = line.split("//")[0]
        m = pat.match(line)
        if m:
            key = m.group(1) if m.group(1) is not None else m.group(2)
            count = 1
            for d in (m.group(3) or "").split(","):
                if d.strip():
                    count *= int(d)
            out[key] = [json.loads(m.group(4).strip())] * count
    return out


def flatten(v):
    if isinstance(v, list):
        r = []
        for x in v:
            r.extend(flatten(x))
        return r
    return [v]


def f32(x):
    if isinstance(x, str):  # "nan", "inf", "-inf"
        x = float(x)
    return struct.unpack("<I", struct.pack("<f", x))[0]


def same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, (float, str)) or isinstance(y, (float, str)):
            if isinstance(x, str) and isinstance(y, str) and not x in ("nan", "inf", "-inf"):
                if x != y:
                    return False
                continue
            try:
                fx, fy = float(x), float(y)
            except (TypeError, ValueError):
                return False
            if math.isnan(fx) and math.isnan(fy):
                continue
            if f32(fx) != f32(fy):
                return False
        elif x != y:
            return False
    return True


# ---- the record's own floats, decoded without featc or protobuf

def _varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def _fields(b):
    """(field number, wire type, value) of a message; value bytes for
    length-delimited fields, an int for varints, raw bytes for fixed."""
    i, out = 0, []
    while i < len(b):
        tag, i = _varint(b, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def _float_list(feature):
    """The float bits of a Feature with a float_list, else None."""
    bits = None
    for num, wt, v in _fields(feature):
        if num != 2 or wt != 2:
            continue
        bits = []
        for n2, w2, x in _fields(v):
            if n2 == 1 and w2 == 2:
                bits.extend(struct.unpack("<%dI" % (len(x) // 4), x))
            elif n2 == 1 and w2 == 5:
                bits.append(struct.unpack("<I", x)[0])
    return bits


def _map(body):
    """key -> value bytes of the map entries in body, the last non-empty
    value of a key winning (an empty Feature leaves the earlier one)."""
    out = {}
    for num, wt, entry in _fields(body):
        if num != 1 or wt != 2:
            continue
        key, val = b"", b""
        for n2, w2, x in _fields(entry):
            if n2 == 1:
                key = x
            elif n2 == 2:
                val = x
        if val or key not in out:
            out[key.decode("utf-8", "surrogateescape")] = val
    return out


def record_floats(path):
    """Per record: {"features": {key: bits}} or {"context": ..., "lists":
    {key: [bits per frame]}}; [] when the file is not read here."""
    try:
        data = open(path, "rb").read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        elif data[:1] == b"\x78" and (data[0] * 256 + data[1]) % 31 == 0:
            data = zlib.decompress(data)
        recs, i = [], 0
        while i + 12 <= len(data):
            n = struct.unpack("<Q", data[i:i + 8])[0]
            recs.append(data[i + 12:i + 12 + n])
            i += 16 + n
        out = []
        for r in recs:
            top = {num: v for num, wt, v in _fields(r) if wt == 2}
            if 2 in top:  # SequenceExample: context (1), feature_lists (2)
                ctx = {k: _float_list(v) for k, v in _map(top.get(1, b"")).items()}
                lists = {}
                for k, v in _map(top[2]).items():
                    lists[k] = [_float_list(fr) for n2, w2, fr in _fields(v) if n2 == 1]
                out.append({"context": ctx, "lists": lists})
            else:
                feats = b"".join(v for num, wt, v in _fields(r) if num == 1 and wt == 2)
                out.append({"features": {k: _float_list(v) for k, v in _map(feats).items()}})
        return out
    except (ValueError, IndexError, OSError, EOFError, zlib.error, struct.error):
        return []


def _bits_equal(value, want):
    """A driver value read back by json against the record's bits."""
    if isinstance(value, str):
        x = float(value)
        if x != x:
            return (want & 0x7F800000) == 0x7F800000 and (want & 0x7FFFFF) != 0
    elif isinstance(value, (int, float)):
        x = float(value)
        if isinstance(value, int) and want == 0x80000000:
            return False  # -0 read as the integer 0: the sign is lost
    else:
        return False
    return struct.unpack("<I", struct.pack("<f", x))[0] == want


def float_bits_differ(g, rec):
    """What differs between the driver's floats and the record's."""
    bad = []
    pairs = []
    if "features" in rec:
        for key, value in (g.get("features") or {}).items():
            pairs.append((key, flatten(value), rec["features"].get(key)))
    else:
        for key, value in (g.get("context") or {}).items():
            pairs.append((key, flatten(value), rec["context"].get(key)))
        for key, frames in (g.get("feature_lists") or {}).items():
            want = rec["lists"].get(key) or []
            for t, frame in enumerate(frames):
                pairs.append(("%s frame %d" % (key, t), flatten(frame),
                              want[t] if t < len(want) else None))
    for key, values, want in pairs:
        if want is None or len(values) != len(want):
            continue  # not a float list of the record as it is (a default, a shape)
        for v, w in zip(values, want):
            if not _bits_equal(v, w):
                bad.append("record %s %s: driver float %r, record bits 0x%08x" % (g.get("record"), key, v, w))
                break
    return bad


def main():
    name, featc, driver, spec = sys.argv[1:5]
    files = sys.argv[5:]
    defaults = spec_defaults(spec)
    passed = failed = 0
    for f in files:
        got = subprocess.run([driver, f], capture_output=True, text=True, encoding="utf-8")
        ref = subprocess.run([featc, "cat", "--json", "--json-bytes=latin1", f],
                             capture_output=True, text=True, encoding="utf-8")
        floats = record_floats(f)
        if got.returncode != 0 or ref.returncode != 0:
            print(f"{f}: driver exit {got.returncode}, cat exit {ref.returncode}: "
                  f"{got.stderr.strip()} {ref.stderr.strip()}", file=sys.stderr)
            failed += 1
            continue
        glines = got.stdout.splitlines()
        rlines = ref.stdout.splitlines()
        if len(glines) != len(rlines) or not glines:
            print(f"{f}: driver printed {len(glines)} records, cat {len(rlines)}", file=sys.stderr)
            failed += 1
            continue
        for gl, rl in zip(glines, rlines):
            g, r = json.loads(gl), json.loads(rl)
            bad = []
            seq = "context" in g
            if g.get("record") != r.get("record") or ("features" not in g and not seq):
                bad.append(f"record {r.get('record')}: driver says {gl[:200]}")
            else:
                group = g["context"] if seq else g["features"]
                ref_group = r.get("context", {}) if seq else r["features"]
                for key, value in group.items():
                    lists = ref_group.get(key, {})
                    have = next(iter(lists.values())) if lists else []
                    want = have if have else defaults.get(key, [])
                    if not same(flatten(value), want):
                        bad.append(f"record {g['record']} {key}: driver {value}, cat {lists}")
                for key, frames in (g.get("feature_lists") or {}).items():
                    ref_frames = r.get("feature_lists", {}).get(key, [])
                    if len(frames) != len(ref_frames):
                        bad.append(f"record {g['record']} list {key}: driver {len(frames)} "
                                   f"frames, cat {len(ref_frames)}")
                        continue
                    for t, (frame, ref) in enumerate(zip(frames, ref_frames)):
                        want = next(iter(ref.values())) if ref else []
                        if not same(flatten(frame), want):
                            bad.append(f"record {g['record']} list {key} frame {t}: "
                                       f"driver {frame}, cat {ref}")
            if "record" in g and g["record"] < len(floats):
                bad.extend(float_bits_differ(g, floats[g["record"]]))
            if bad:
                failed += 1
                if failed <= 5:
                    print(f"{f}: " + "; ".join(bad)[:600], file=sys.stderr)
            else:
                passed += 1
    print(f"{name}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
