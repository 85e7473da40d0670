#!/usr/bin/env python3
"""featc stats against an independent computation: NumPy over the values
that `featc cat --json` prints (the decoded records, by another code path
than the summaries), for every file of the corpus.

usage: stats_check.py FEATC CORPUS TMPDIR [--memory]

Per feature (Example features, SequenceExample context features) and per
feature list:
- counts exact: records present, missing, with Feature{} (frames, for
  lists), list types, values, zeros, NaN, infinities, empty and UTF-8 bytes
  values, values per record (per frame) and frames per record: count, min,
  max; int64 min and max exact;
- mean and std (NumPy's, ddof 0) to 1e-9 of the data's scale;
- every quantile within the stated relative error (`sketches`,
  1%) of np.quantile(method="lower"), the value of rank floor(q (n-1));
- histograms: 20 bins that add up to the count;
- distinct: exact when "exact" says so, else within 4 standard errors;
- top values: with top_error 0, each listed count is the value's exact
  count and the counts are the largest ones, in order; else each count is
  at most top_error below the truth.
Then: the exit status is cat's (1 for records that are not Examples, 2 for
damaged files) and records + other = featc count's records; -j 2 gives the
same figures; shards (a file cut in two, given as two files and as a quoted
pattern) give the figures of the whole; --top, --max-features; the HTML
report is written; usage errors exit 64.  With --memory (make test-stats,
not in the cross-target and sanitizer lanes that run test-cli): only that
the resident memory of stats and count on a 1 GB file stays
within 2x of that on a 10 MB file, or 48 MB over it.
Prints "stats: N passed, M failed".
"""
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

FEATC, CORPUS, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
MEMORY = sys.argv[4:] == ["--memory"]
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
from framing import frame, records  # noqa: E402
import tally  # noqa: E402
from tally import check, finish  # noqa: E402
ALPHA = 0.01


def run(args, stdin=None):
    return tally.run([FEATC] + args, stdin, text=None)


def stats(args):
    rc, out, err = run(["stats", "-q", "--json"] + args)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, err


# ---------------------------------------------------------------- the truth

def f32(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return float(np.float32(v))


def values_of(feature):
    """(kind, values) of a cat --json Feature; kind None for {}."""
    if "bytes_list" in feature:
        return "bytes", [s.encode("latin-1") for s in feature["bytes_list"]]
    if "float_list" in feature:
        return "float", [f32(v) for v in feature["float_list"]]
    if "int64_list" in feature:
        return "int64", [int(v) for v in feature["int64_list"]]
    return None, []


class Truth:
    def __init__(self):
        self.present = 0
        self.empty = 0
        self.types = {}
        self.per = []
        self.frames = []
        self.vals = {"bytes": [], "float": [], "int64": []}

    def add(self, feature):
        kind, vals = values_of(feature)
        if kind is None:
            self.empty += 1
            return False
        self.types[kind] = self.types.get(kind, 0) + 1
        self.per.append(len(vals))
        self.vals[kind].extend(vals)
        return True


def truth_of(path):
    """records decoded, and the Truth of every feature and list, from cat."""
    rc, out, _ = run(["cat", "--json", "--json-bytes=latin1", path])
    feats, lists, n = {}, {}, 0
    for line in out.decode("utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("type") not in ("Example", "SequenceExample"):
            continue  # a record cat cannot decode either
        n += 1
        for key, feature in rec.get("features", rec.get("context", {})).items():
            t = feats.setdefault(key, Truth())
            if t.add(feature):
                t.present += 1
        for key, frames in rec.get("feature_lists", {}).items():
            t = lists.setdefault(key, Truth())
            t.present += 1
            t.frames.append(len(frames))
            for fr in frames:
                t.add(fr)
    return rc, n, feats, lists


# ---------------------------------------------------------------- comparing

def close(a, b, scale, what):
    check(abs(a - b) <= 1e-9 * max(scale, 1e-300), "%s: %r, numpy %r" % (what, a, b))


def check_dist(d, xs, what, float32=False):
    """a "count/min/max/mean/std/quantiles/histogram" object against xs.
    float32: xs are a float list's; min, max, the quantiles and the
    histogram's ends are float32 values, printed as such, read back so."""
    xs = np.asarray(xs, dtype=np.float64)
    if float32 and d["count"] > 0:
        d = dict(d, min=f32(d["min"]), max=f32(d["max"]),
                 quantiles={k: f32(v) for k, v in d["quantiles"].items()})
        h = [list(b) for b in d["histogram"]]
        h[0][0], h[-1][1] = f32(h[0][0]), f32(h[-1][1])
        if all(b[0] == b[1] for b in d["histogram"]):
            for b in h:
                b[0] = b[1] = f32(b[0])
        d["histogram"] = h
    check(d["count"] == len(xs), "%s count %d, expected %d" % (what, d["count"], len(xs)))
    if len(xs) == 0:
        return
    check(d["min"] == xs.min() and d["max"] == xs.max(),
          "%s min/max %r %r, expected %r %r" % (what, d["min"], d["max"], xs.min(), xs.max()))
    scale = float(np.abs(xs).max())
    close(d["mean"], float(xs.mean()), scale, what + " mean")
    close(d["std"], float(xs.std()), scale, what + " std")
    distinct = len(set(xs.tolist()))
    check(d["exact"] == (distinct <= 256), "%s: exact %r with %d distinct values"
          % (what, d["exact"], distinct))
    if "collapsed" not in d:
        for name, v in d["quantiles"].items():
            q = int(name[1:]) / 100.0
            exact = float(np.quantile(xs, q, method="lower"))
            if d["exact"]:
                check(v == exact, "%s %s: %r, numpy %r (exact)" % (what, name, v, exact))
            check(abs(v - exact) <= ALPHA * abs(exact) + 1e-12 * scale,
                  "%s %s: %r, numpy %r" % (what, name, v, exact))
    h = d["histogram"]
    if d["exact"]:
        # the same bins by the same arithmetic: counts exact
        n = len(h)
        point = all(b[0] == b[1] for b in h) and n > 1
        lo = h[0][0]
        hi = lo + n if point else h[-1][1]
        want = [0] * n
        for v in xs.tolist():
            j = 0 if hi <= lo else int(min(max((v - lo) / ((hi - lo) / n), 0), n - 1))
            want[j] += 1
        check([b[2] for b in h] == want, "%s exact histogram %r, numpy %r"
              % (what, [b[2] for b in h], want))
    check(sum(b[2] for b in h) == len(xs), "%s histogram adds up to %d" % (what, sum(b[2] for b in h)))
    check(h[0][0] == xs.min() and h[-1][1] == xs.max(), what + " histogram spans min..max")
    if all(b[0] == b[1] for b in h) and len(h) > 1:
        # a bin per integer; below 50 each has a bucket of its own: exact
        check(all(float(v) == int(v) for v in xs), what + " point bins for integers")
        if np.abs(xs).max() < 50:
            got = [b[2] for b in h]
            want = [int((xs == b[0]).sum()) for b in h]
            check(got == want, "%s histogram %r, expected %r" % (what, got, want))


def check_distinct(d, values, what, err):
    n = len(set(values))
    if d["exact"]:
        check(d["value"] == n, "%s distinct %r, expected %d" % (what, d["value"], n))
    else:
        check(n > 256 and abs(d["value"] - n) <= 4 * err * n,
              "%s distinct estimate %r, exact %d" % (what, d["value"], n))


def check_top(b, vals, what):
    counts = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    err = b["top_error"]
    exact_sorted = sorted(counts.values(), reverse=True)
    listed = []
    for item in b["top"]:
        val = item["value"]
        if isinstance(val, dict):
            prefix = val["shortened"].encode("utf-8", "surrogateescape")
            match = [v for v in counts if len(v) == val["bytes"] and v.startswith(prefix)]
        else:
            raw = val.encode("utf-8", "surrogateescape")
            match = [raw] if raw in counts else []
        if len(match) != 1:
            check(len(match) > 1, "%s top value %r is not a value" % (what, val))
            continue
        true = counts[match[0]]
        listed.append(item["count"])
        if err == 0:
            check(item["count"] == true, "%s top %r: %d, exact %d" % (what, val, item["count"], true))
        else:
            check(true - err <= item["count"] <= true,
                  "%s top %r: %d, exact %d, error %d" % (what, val, item["count"], true, err))
    if err == 0:
        check(listed == exact_sorted[:len(listed)],
              "%s top counts %r, expected %r" % (what, listed, exact_sorted[:len(listed)]))
        check(len(b["top"]) == min(10, len(counts)), "%s: %d top values" % (what, len(b["top"])))


def check_key(k, t, records, what, sketches, is_list):
    check(k["present"] == t.present, "%s present %d, expected %d" % (what, k["present"], t.present))
    check(k["missing"] == records - t.present, "%s missing" % what)
    check(k["empty_frames" if is_list else "empty"] == t.empty, "%s empty %r, expected %d"
          % (what, k.get("empty_frames", k.get("empty")), t.empty))
    check(k["types"] == t.types, "%s types %r, expected %r" % (what, k["types"], t.types))
    if is_list:
        check_dist(k["frames"], t.frames, what + " frames")
    check_dist(k["values_per_frame" if is_list else "values_per_record"], t.per,
               what + " values per " + ("frame" if is_list else "record"))
    err = sketches["distinct_standard_error"]
    if t.vals["int64"] or "int64" in k:
        ints = t.vals["int64"]
        x = k.get("int64")
        check(x is not None and x["count"] == len(ints), what + " int64 count")
        if x is not None and ints:
            check(x["min"] == min(ints) and x["max"] == max(ints), what + " int64 min/max exact")
            check(x["zeros"] == ints.count(0), what + " int64 zeros")
            check_dist(x["finite"], ints, what + " int64")
            check_distinct(x["distinct"], ints, what + " int64", err)
    if t.vals["float"] or "float" in k:
        fl = t.vals["float"]
        x = k.get("float")
        check(x is not None and x["count"] == len(fl), what + " float count")
        if x is not None:
            fin = [v for v in fl if math.isfinite(v)]
            check(x["nan"] == sum(1 for v in fl if v != v), what + " nan")
            check(x["inf"] == fl.count(math.inf) and x["-inf"] == fl.count(-math.inf),
                  what + " inf")
            check(x["zeros"] == sum(1 for v in fin if v == 0), what + " float zeros")
            check_dist(x["finite"], fin, what + " float", float32=True)
    if t.vals["bytes"] or "bytes" in k:
        bs = t.vals["bytes"]
        x = k.get("bytes")
        check(x is not None and x["count"] == len(bs), what + " bytes count")
        if x is not None:
            check(x["empty"] == sum(1 for v in bs if not v), what + " bytes empty")
            utf8 = 0
            for v in bs:
                try:
                    v.decode("utf-8")
                    utf8 += 1
                except UnicodeDecodeError:
                    pass
            check(x["utf8"] == utf8, what + " utf8 %d, expected %d" % (x["utf8"], utf8))
            check_dist(x["length"], [len(v) for v in bs], what + " bytes length")
            check_distinct(x["distinct"], bs, what + " bytes", err)
            check_top(x, bs, what)


def compare(s, truth, what):
    _, n, feats, lists = truth
    check(s["examples"] + s["sequence_examples"] == n,
          "%s: %d records decoded, cat printed %d" % (what, s["examples"] + s["sequence_examples"], n))
    check(sorted(k["name"] for k in s["features"]) == sorted(feats),
          "%s feature names %r" % (what, [k["name"] for k in s["features"]]))
    check(sorted(k["name"] for k in s["feature_lists"]) == sorted(lists), what + " list names")
    check([k["name"].encode("utf-8") for k in s["features"]] ==
          sorted(k["name"].encode("utf-8") for k in s["features"]), what + " sorted bytewise")
    for k in s["features"]:
        if k["name"] in feats:
            check_key(k, feats[k["name"]], n, "%s %s" % (what, k["name"]), s["sketches"], False)
    for k in s["feature_lists"]:
        if k["name"] in lists:
            check_key(k, lists[k["name"]], n, "%s list %s" % (what, k["name"]), s["sketches"], True)


def same_figures(a, b, what, exact_floats=False):
    """Two stats objects: counts equal, floats to 1e-9 (merge order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        check(sorted(a) == sorted(b), "%s: keys %r vs %r" % (what, sorted(a), sorted(b)))
        # top values past the counters' capacity depend on the merge order
        # (each within top_error of the truth: checked against numpy)
        approx_top = a.get("top_error", 0) > 0 or b.get("top_error", 0) > 0
        for key in a:
            if approx_top and key in ("top", "top_error"):
                continue
            if key in b and key not in ("files", "path"):
                same_figures(a[key], b[key], what + "." + key, exact_floats)
    elif isinstance(a, list) and isinstance(b, list):
        check(len(a) == len(b), "%s: lengths %d vs %d" % (what, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            same_figures(x, y, "%s[%d]" % (what, i), exact_floats)
    elif isinstance(a, float) or isinstance(b, float):
        ok = a == b if exact_floats else abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)
        check(ok, "%s: %r vs %r" % (what, a, b))
    else:
        check(a == b, "%s: %r vs %r" % (what, a, b))


def significant(text):
    """The significant digits of a number's text ("0.0417" -> "417")."""
    mant = text.lstrip("-").lower().split("e")[0].replace(".", "")
    return mant.strip("0") or "0"


def float32_texts(path, what):
    """Every float list's min, max and quantiles in the JSON text: the
    shortest text that reads back as that float32, as cat prints it."""
    _, out, _ = run(["stats", "-q", "--json", path])
    raw = json.loads(out, parse_float=lambda t: ("float", t))
    seen = 0
    for k in raw["features"] + raw["feature_lists"]:
        x = k.get("float")
        if x is None or x["finite"]["count"] == 0:
            continue
        d = x["finite"]
        texts = [d["min"], d["max"]] + list(d["quantiles"].values())
        for v in texts:
            t = v[1] if isinstance(v, tuple) else str(v)
            short = np.format_float_scientific(np.float32(t), unique=True, trim="-")
            seen += 1
            check(significant(t) == significant(short),
                  "%s %s: %s is not float32's shortest (%s)" % (what, k["name"], t, short))
    return seen


def figures():
    n = float32_texts(os.path.join(CORPUS, "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz"),
                      "penguin")
    check(n >= 40, "float32 texts: only %d values seen" % n)
    files = sorted(f for f in os.listdir(CORPUS)
                   if not f.endswith((".md", ".tsv")) and f != "NOTICE")
    for f in files:
        path = os.path.join(CORPUS, f)
        truth = truth_of(path)
        rc, s, err = stats([path])
        check(s is not None, f + ": JSON")
        if s is None:
            continue
        check(rc == truth[0], "%s: exit %d, cat's %d (%s)" % (f, rc, truth[0], err.strip()))
        crc, out, _ = run(["count", path])
        total = int(out.split()[0]) if out else -1
        check(s["records"] + s["other"] == total and s["files"][0]["records"] == total,
              "%s: %d + %d other records, count %d" % (f, s["records"], s["other"], total))
        check(len(s["other_records"]) == min(5, s["other"]), f + ": other records listed")
        check((rc == 2) == ("error" in s["files"][0]), f + ": a failed file has its error")
        compare(s, truth, f)
        # -j 2: the same figures (moments to rounding: the merge order)
        rc2, s2, _ = stats(["-j", "2", path])
        check(rc2 == rc and s2 is not None, "%s: -j 2 exit %d" % (f, rc2))
        if s2 is not None:
            same_figures(s, s2, f + " -j2")

    # shards: a file cut in two gives the figures of the whole
    for f in ("tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz",
              "tfx__mnist.tfrecord", "lingvo__wmt14_ende_wpm_32k_test.tfrecord"):
        path = os.path.join(CORPUS, f)
        data = open(path, "rb").read()
        if f.endswith(".gz"):
            import gzip
            data = gzip.decompress(data)
        recs = list(records(data))
        cut = 0
        off = 0
        for i, r in enumerate(recs):
            off += 16 + len(r)
            if i + 1 == len(recs) // 3:
                cut = off
        parts = [os.path.join(TMP, "shard-%05d-of-00002" % i) for i in range(2)]
        open(parts[0], "wb").write(data[:cut])
        open(parts[1], "wb").write(data[cut:])
        whole = os.path.join(TMP, "whole")
        open(whole, "wb").write(data)
        _, sw, _ = stats([whole])
        for args, name in ((parts, "two files"), ([os.path.join(TMP, "shard-*-of-*")], "a pattern"),
                           (["-j", "2"] + parts, "two files, -j 2")):
            rc, sp, err = stats(args)
            check(rc == 0 and sp is not None and len(sp["files"]) == 2,
                  "%s as %s: exit %d %s" % (f, name, rc, err))
            if sp is not None and sw is not None:
                same_figures(sw, sp, "%s as %s" % (f, name))
                compare(sp, truth_of(whole), "%s as %s" % (f, name))
    rc, _, err = stats([os.path.join(TMP, "nothing-*-here")])
    check(rc == 2 and "no file matches" in err, "a pattern that matches nothing: %d %s" % (rc, err))

    # hostile records: corpus payloads with bytes changed, cut or repeated
    import random
    rng = random.Random(26)
    payloads = []
    for f in ("pytorch-data__sequence_example.tfrecord",
              "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz",
              "lingvo__wmt14_ende_wpm_32k_test.tfrecord", "tf-ranking__train_elwc.tfrecord"):
        data = open(os.path.join(CORPUS, f), "rb").read()
        if f.endswith(".gz"):
            import gzip
            data = gzip.decompress(data)
        payloads += list(records(data))[:20]
    mutated = []
    for i in range(600):
        p = bytearray(rng.choice(payloads))
        kind = i % 3
        if kind == 0 and p:
            for _ in range(rng.randint(1, 4)):
                p[rng.randrange(len(p))] = rng.randrange(256)
        elif kind == 1 and p:
            p = p[:rng.randrange(len(p))]
        else:
            p = p + p[:rng.randrange(len(p) + 1)]
        mutated.append(bytes(p))
    hostile = os.path.join(TMP, "mutated.tfrecord")
    with open(hostile, "wb") as out:
        for p in mutated:
            out.write(frame(p))
    truth = truth_of(hostile)
    rc, s, err = stats([hostile])
    check(rc in (0, 1) and s is not None and s["records"] + s["other"] == len(mutated),
          "mutated records: exit %d, %s" % (rc, err[:200]))
    if s is not None:
        check(rc == truth[0], "mutated records: exit %d, cat's %d" % (rc, truth[0]))
        compare(s, truth, "mutated")
        rc2, s2, _ = stats(["-j", "2", hostile])
        if s2 is not None:
            same_figures(s, s2, "mutated -j2")

    # --spec: the verdicts of featc check --data, record for record
    verdict_files = [os.path.join(CORPUS, f) for f in (
        "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz", "tfx__mnist.tfrecord",
        "tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz",
        "pytorch-data__sequence_example.tfrecord", "tf-ranking__train_elwc.tfrecord",
        "tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz")] + [hostile]
    specs_dir = os.path.join(REPO, "specs")
    for spec in sorted(os.listdir(specs_dir)):
        spec = os.path.join(specs_dir, spec)
        for f in verdict_files:
            what = "--spec=%s %s" % (os.path.basename(spec), os.path.basename(f))
            _, out, _ = run(["check", spec, "--data", "--json", "-q", f])
            parsed, kinds, first, bytes_at = 0, {}, {}, {}
            for n, line in enumerate(out.decode("utf-8").splitlines()):
                rec = json.loads(line)
                if "error" not in rec:
                    parsed += 1
                    continue
                text = rec["error"].split("): ", 1)[1]
                # (texts that differ only in the byte they name are one kind,
                # "at byte N", with the first bytes listed beside it)
                at = re.findall(r"at byte (\d+)", text)
                text = re.sub(r"at byte \d+", "at byte N", text)
                kinds[text] = kinds.get(text, 0) + 1
                first.setdefault(text, n)
                if at:
                    bytes_at.setdefault(text, [])
                    if int(at[0]) not in bytes_at[text] and len(bytes_at[text]) < 4:
                        bytes_at[text].append(int(at[0]))
            for args in ([], ["-j", "2"]):
                rc, st, err = stats(args + ["--spec=" + spec, f])
                sp = st["spec"] if st is not None else None
                check(sp is not None and sp["parsed"] == parsed
                      and sp["failed"] == sum(kinds.values()),
                      "%s %s: %r, check --data: %d parsed, %d failed"
                      % (what, args, sp and (sp["parsed"], sp["failed"]), parsed,
                         sum(kinds.values())))
                if sp is None:
                    continue
                got = {e["error"]: e["count"] for e in sp["errors"]}
                want = dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[:16]) \
                    if len(kinds) > 16 else kinds
                check(len(kinds) > 16 or (got == want and sp["other_errors"] == 0),
                      "%s %s: errors %r, check --data %r" % (what, args, got, kinds))
                check(all(e["record"] == first[e["error"]] for e in sp["errors"]
                          if e["error"] in first),
                      "%s %s: first records" % (what, args))
                check(args or all(e["at_byte"] == bytes_at.get(e["error"], [])
                                  for e in sp["errors"] if e["error"] in first),
                      "%s %s: the first bytes: %r, check --data %r"
                      % (what, args, [e["at_byte"] for e in sp["errors"]], bytes_at))
                check((rc == 1) == (sp["failed"] > 0 or st["other"] > 0) or rc == 2,
                      "%s %s: exit %d" % (what, args, rc))
    rc, _, err = stats(["--message=x", os.path.join(CORPUS, "tfx__mnist.tfrecord")])
    check(rc == 64, "--message without --spec: exit %d" % rc)
    rc, _, err = stats(["--spec=" + os.path.join(TMP, "none.feat"),
                        os.path.join(CORPUS, "tfx__mnist.tfrecord")])
    check(rc == 2 and "none.feat" in err, "--spec of a missing file: exit %d %s" % (rc, err))

    # --top, --max-features
    p = os.path.join(CORPUS, "tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz")
    rc, s, _ = stats(["--top=2", p])
    check(rc == 0 and all(len(k["bytes"]["top"]) <= 2 for k in s["features"] if "bytes" in k),
          "--top=2")
    rc, s, _ = stats(["--max-features=3", p])
    check(rc == 0 and len(s["features"]) == 3 and s["dropped_keys"] > 0,
          "--max-features=3: %d features, %d dropped" % (len(s["features"]), s["dropped_keys"]))
    rc, s1, _ = stats(["--top=0", p])
    check(rc == 0 and all(k["bytes"]["top"] == [] for k in s1["features"] if "bytes" in k), "--top=0")
    for bad in (["--top=65"], ["--top=x"], ["--max-features=0"], ["-j", "1025"], ["-j", "-1"],
                ["--crc=maybe"], ["--bogus"]):
        rc, _, err = run(["stats"] + bad + [p])
        check(rc == 64, "usage error %r: exit %d" % (bad, rc))
    # -j 0: one thread per CPU, the figures of one thread
    rc, s0, _ = stats(["-j", "0", p])
    rc1, s1, _ = stats([p])
    check(rc == rc1 == 0 and s0 is not None, "-j 0: exit %d" % rc)
    if s0 is not None and s1 is not None:
        same_figures(s1, s0, "-j 0")
    # a file that cannot be read: its error on stderr, nothing on stdout
    for args in (["/nonexistent/x.tfrecord"], ["--json", "/nonexistent/x.tfrecord"],
                 ["/nonexistent/x.tfrecord", "/nonexistent/y.tfrecord"]):
        rc, out, err = run(["stats", "-q"] + args)
        check(rc == 2 and out == b"" and "cannot open" in err,
              "stats %r: exit %d, stdout %r" % (args, rc, out[:80]))
    # the table and the report
    rc, out, _ = run(["stats", "-q", p])
    check(rc == 0 and b"numeric features" in out and b"trip_start_hour" in out
          and b"bytes features" in out and b'"Cash" 66.7%' in out
          and b"feature pickup_census_tract: never a value (an empty Feature{} in 424 records)"
          in out, "the table")
    html = os.path.join(TMP, "report.html")
    rc, out, _ = run(["stats", "-q", "--html=" + html, p])
    text = open(html, encoding="utf-8").read() if os.path.exists(html) else ""
    check(rc == 0 and text.startswith("<!DOCTYPE html>") and "trip_start_hour" in text
          and "<script" not in text and "http" not in text.replace("http-equiv", ""),
          "--html writes a self-contained report")
    rc, out, _ = run(["stats", "-q", "--html=" + html, "--spec=" + os.path.join(REPO, "specs",
                      "penguin.feat"), p])
    text = open(html, encoding="utf-8").read() if os.path.exists(html) else ""
    check(rc == 1 and "<h2>Spec</h2>" in text and "0 of 424 records parse" in text
          and "is required but could not be found" in text and b"0 of 424 records parse" in out,
          "--spec in the table and the report: exit %d" % rc)
    rc, _, err = run(["stats", "-q", "--html=" + os.path.join(TMP, "no", "such", "dir.html"), p])
    check(rc == 2 and "dir.html" in err, "--html into a missing folder: exit %d %s" % (rc, err))


def memory():
    """a 1 GB file against a 10 MB one (pages read past are given back), for
    stats and for count, which reads through fc_input as verify and cat do
    (and kept the whole mapped file resident: 1.13 GB), alone and in splits
    on two threads"""
    src = open(os.path.join(CORPUS, "tfx__mnist.tfrecord"), "rb").read()
    # command: (argv, what it may hold beyond the small file's peak, in kB):
    # the release window (16 MiB read, 16 MiB behind it: 48 MB with slack),
    # and in splits, each thread's split (walked whole before it is read,
    # 64 MiB at most), given back when it is done
    commands = {"stats": (["stats", "-q", "--json"], 48 << 10), "count": (["count"], 48 << 10),
                "count -j 2": (["count", "-j", "2"], (48 + 2 * 64) << 10)}
    rss = {}
    for size in (10 << 20, 1 << 30):
        big = os.path.join(TMP, "big.tfrecord")
        with open(big, "wb") as out:
            written = 0
            while written < size:
                out.write(src)
                written += len(src)
        for name, (argv, _) in commands.items():
            # GNU time's %M: the peak of featc alone (a child of this process
            # would count this process's pages, copied or shared before its exec)
            p = subprocess.run(["/usr/bin/time", "-f", "%M", FEATC] + argv + [big],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            rss[name, size] = int(p.stderr.split()[-1]) if p.stderr.split() else 0
            check(p.returncode == 0, "%s of %d bytes: exit %d" % (name, written, p.returncode))
        os.remove(big)
    for name, (_, slack) in commands.items():
        check(rss[name, 1 << 30] <= max(2 * rss[name, 10 << 20], rss[name, 10 << 20] + slack),
              "%s: RSS 1 GB: %d kB, 10 MB: %d kB" % (name, rss[name, 1 << 30],
                                                     rss[name, 10 << 20]))
        print("%s-memory: max RSS %d kB on 10 MB, %d kB on 1 GB"
              % (name, rss[name, 10 << 20], rss[name, 1 << 30]))


def main():
    if MEMORY:
        memory()
    else:
        figures()
    return finish("stats-memory" if MEMORY else "stats")


if __name__ == "__main__":
    sys.exit(main())
