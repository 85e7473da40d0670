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
and every feature list has cat's frames, frame by frame.  Prints
"NAME: N passed, M failed", N and M in records.
"""
import json
import math
import re
import struct
import subprocess
import sys


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


def main():
    name, featc, driver, spec = sys.argv[1:5]
    files = sys.argv[5:]
    defaults = spec_defaults(spec)
    passed = failed = 0
    for f in files:
        got = subprocess.run([driver, f], capture_output=True, text=True, encoding="latin-1")
        ref = subprocess.run([featc, "cat", "--json", f], capture_output=True, text=True,
                             encoding="latin-1")
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
