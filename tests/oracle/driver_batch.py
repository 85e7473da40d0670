#!/usr/bin/env python3
"""The generated driver's --batch output against its own per-record output.

usage: driver_batch.py NAME DRIVER SPEC FILE...

Runs DRIVER once per record and then with --batch B (B = 1, 7, 64) and
--batch B --ragged, and checks every batch object of docs/design.md's batch
contract against the per-record objects stacked here, by the layout rules
of docs/tf-semantics.md section 2.4: dense features {"shape","values"} ([B]+shape;
feature lists [B,T]+frame padded with 0 / "", lengths [B]); VarLen features
{"indices","values","dense_shape"} with [b,i] (lists [b,t,i]) indices, or
{"values","row_splits"} (lists: splits over frames, then over values).  A
batch with a failing record must report the first one.  Prints
"NAME: N passed, M failed", N and M in batches.
"""
import json
import re
import subprocess
import sys


def spec_kinds(path):
    """key -> 'varlen' | 'rows' | 'fixed', from `KEY [as NAME] : TYPE [SHAPE]` lines."""
    out = {}
    pat = re.compile(r'^\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*))(?:\s+as\s+\w+)?'
                     r'\s*:\s*(?:int64|float|bytes)\s*(\[[^\]]*\])?')
    for line in open(path, encoding="utf-8"):
        m = pat.match(line.split("//")[0])
        if m:
            key = m.group(1) if m.group(1) is not None else m.group(2)
            shape = (m.group(3) or "").replace(" ", "")
            out[key] = "varlen" if shape == "[]" else "rows" if shape.startswith("[?") else "fixed"
    return out


def flat(v):
    if isinstance(v, list):
        r = []
        for x in v:
            r.extend(flat(x))
        return r
    return [v]


def shape_of(v):
    s = []
    while isinstance(v, list):
        s.append(len(v))
        v = v[0] if v else None
    return s


def zero_like(vals):
    return "" if any(isinstance(x, str) and x not in ("nan", "inf", "-inf") for x in vals) else 0


def expect_dense_padded(rows_per_rec, frame_shape, pad):
    """rows_per_rec: for each record a list of rows (each a nested value)."""
    most = max((len(r) for r in rows_per_rec), default=0)
    size = 1
    for d in frame_shape:
        size *= d
    vals = []
    for rows in rows_per_rec:
        f = flat(rows)
        vals.extend(f + [pad] * (most * size - len(f)))
    return [len(rows_per_rec), most] + frame_shape, vals


def check_batch(obj, recs, kinds, ragged, seq):
    """Problems of one batch object against its records' objects."""
    bad = []
    errs = [i for i, r in enumerate(recs) if "error" in r]
    if errs:
        first = recs[errs[0]]["error"].split(":")[0]  # "record N (offset X of F)"
        if "error" not in obj or not obj["error"].startswith(first):
            bad.append("record %d fails alone, the batch says %s" % (errs[0], str(obj)[:200]))
        return bad
    if "error" in obj:
        return ["every record parses alone, the batch fails: " + obj["error"]]
    n = len(recs)
    groups = [("context", "context", False), ("feature_lists", "feature_lists", True)] if seq \
        else [("features", "features", False)]
    for bkey, rkey, is_list in groups:
        for key, t in obj[bkey].items():
            values = [r[rkey][key] for r in recs]
            kind = kinds.get(key, "fixed")
            if kind == "varlen":
                if is_list:
                    trip = [(b, ti, k, x) for b, fr in enumerate(values)
                            for ti, frame in enumerate(fr) for k, x in enumerate(frame)]
                    want_vals = [x[3] for x in trip]
                    if ragged:
                        outer, inner, nf, nv = [0], [0], 0, 0
                        for fr in values:
                            for frame in fr:
                                nf += 1
                                nv += len(frame)
                                inner.append(nv)
                            outer.append(nf)
                        want = {"values": want_vals, "row_splits": [outer, inner]}
                    else:
                        most_t = max((len(fr) for fr in values), default=0)
                        most_k = max((len(fm) for fr in values for fm in fr), default=0)
                        want = {"indices": [[a, b, c] for a, b, c, _ in trip],
                                "values": want_vals, "dense_shape": [n, most_t, most_k]}
                else:
                    if ragged:
                        splits = [0]
                        for v in values:
                            splits.append(splits[-1] + len(v))
                        want = {"values": flat(values), "row_splits": splits}
                    else:
                        want = {"indices": [[b, i] for b, v in enumerate(values)
                                            for i in range(len(v))],
                                "values": flat(values),
                                "dense_shape": [n, max((len(v) for v in values), default=0)]}
            elif is_list or kind == "rows":
                frame_shape = next((shape_of(fr[0]) for fr in values if fr), None)
                if frame_shape is None:
                    frame_shape = t["shape"][2:]
                shp, vals = expect_dense_padded(values, frame_shape, zero_like(flat(values)))
                want = {"shape": shp, "values": vals}
                if is_list and obj["lengths"].get(key) != [len(v) for v in values]:
                    bad.append("%s: lengths %s" % (key, obj["lengths"].get(key)))
            else:
                want = {"shape": [n] + shape_of(values[0]), "values": flat(values)}
            if t != want:
                bad.append("%s: got %s\n    want %s" % (key, json.dumps(t)[:300],
                                                         json.dumps(want)[:300]))
    return bad


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()], p.stderr


def main():
    name, driver, spec = sys.argv[1:4]
    files = sys.argv[4:]
    kinds = spec_kinds(spec)
    seq = "sequence_example" in open(spec, encoding="utf-8").read()
    rc1, recs, err1 = run([driver] + files)
    passed = failed = 0
    for size in (1, 7, 64):
        for ragged in (False, True):
            cmd = [driver, "--batch", str(size)] + (["--ragged"] if ragged else []) + files
            rc, objs, err = run(cmd)
            chunks = [recs[i:i + size] for i in range(0, len(recs), size)]
            if rc != rc1 or len(objs) != len(chunks):
                print("%s: %s: exit %d / %d objects, per record exit %d / %d chunks; %s"
                      % (name, " ".join(cmd[1:4]), rc, len(objs), rc1, len(chunks), err[:200]),
                      file=sys.stderr)
                failed += 1
                continue
            for k, (obj, chunk) in enumerate(zip(objs, chunks)):
                bad = [] if obj.get("batch") == k else ["batch number %s" % obj.get("batch")]
                bad += check_batch(obj, chunk, kinds, ragged, seq)
                if bad:
                    if failed < 5:
                        print("%s: --batch %d%s, batch %d:\n  %s" % (
                            name, size, " --ragged" if ragged else "", k, "\n  ".join(bad[:3])),
                            file=sys.stderr)
                    failed += 1
                else:
                    passed += 1
    print("%s: %d passed, %d failed" % (name, passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
