#!/usr/bin/env python3
"""check_drift.py FEATC CORPUS OUT: featc validate --against (drift and
skew) against TFDV's measures computed here.

The measures are written here again from TFDV's description
(tensorflow_data_validation/anomalies/metrics.cc: L-infinity distance and
normalized absolute difference over rank histograms, Jensen-Shannon
divergence over rank histograms or over histograms aligned on the union
of their bounds), over the statistics python3-protobuf reads
(tests/tfmd/statistics.proto), and compared with what featc prints:

  - the corpus's Chicago taxi file (424 records) against a copy with
    shifted payment types, fares and hours: those features above their
    thresholds, the others not; its two halves: every feature below;
  - --against FILE, --against-stats STATS and --stats/--against-stats
    print the same measurements; --skew reads skew_comparator and says
    training/serving; --linf and --jsd apply to the features without a
    comparator;
  - random pairs of statistics (ranges, points, infinite and NaN counts,
    shared or different bounds, QUANTILES, rank histograms with repeated
    labels): every measurement equal to this file's within 1e-9;
  - damaged statistics and measures that cannot be made: exit status 2
    and the message.
Prints "tfmd-drift: N passed, M failed"."""
import gzip
import math
import os
import random
import re
import subprocess
import sys

from protos import check, compile_protos, finish
from framing import frame, records as framed, varint  # noqa: E402 (tests/oracle, on protos' path)

featc, corpus, out = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
compile_protos(out, ("path.proto", "schema.proto", "statistics.proto"))
compile_protos(out, ("tf_example.proto",), include=os.path.join(here, "..", "bench"))
import schema_pb2  # noqa: E402
import statistics_pb2 as st  # noqa: E402
import tf_example_pb2 as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402

TAXI = os.path.join(corpus, "tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz")


# ------------------------------------------------------------ TFDV's measures

def rank(f):
    """label bytes -> count, the first of equal labels kept (std::map)."""
    d = {}
    if f is not None and f.HasField("string_stats"):
        for b in f.string_stats.rank_histogram.buckets:
            d.setdefault(b.label.encode(), b.sample_count)
    return d


def histogram(f, quantiles):
    if f is None or not f.HasField("num_stats"):
        return None
    for h in f.num_stats.histograms:
        if h.type == (1 if quantiles else 0):
            return h
    return None


def total(values):
    s = 0.0
    for v in values:
        s += v
    return s


def max_difference(a, b, combined):
    sa, sb = total(a[k] for k in sorted(a)), total(b[k] for k in sorted(b))
    if combined:
        sa = sb = sa + sb
    sa, sb = sa or 1.0, sb or 1.0
    best, label = 0.0, None
    for k in sorted(set(a) | set(b)):
        d = abs(a.get(k, 0.0) / sa - b.get(k, 0.0) / sb)
        if d >= best:
            best, label = d, k
    return best, label


def jsd_maps(a, b):
    sa, sb = total(a[k] for k in sorted(a)), total(b[k] for k in sorted(b))
    kl = 0.0
    for k in sorted(set(a) | set(b)):
        ca, cb = a.get(k, 0.0), b.get(k, 0.0)
        pa, pb = ca / sa, cb / sb
        m = (pa + pb) / 2
        if ca != 0:
            kl += pa * math.log2(pa / m)
        if cb != 0:
            kl += pb * math.log2(pb / m)
    return max(0.0, min(kl / 2, 1.0))


def strip(h):
    ranges, points, inf = [], {}, 0.0
    for b in h.buckets:
        lo, hi, c = b.low_value, b.high_value, b.sample_count
        if not (math.isfinite(lo) and math.isfinite(hi)):
            inf += c
        elif lo == hi:
            points[lo] = points.get(lo, 0.0) + c
        else:
            ranges.append((lo, hi, c))
    return ranges, points, inf, float(h.num_nan)


def spread(ranges, bounds):
    """Each interval of bounds: the count of the range that covers it,
    in proportion to the width."""
    out = []
    for lo, hi in zip(bounds, bounds[1:]):
        c = 0.0
        for a, b, n in ranges:
            if a <= lo and hi <= b:
                c = ((hi - lo) / (b - a)) * n
                break
        out.append(c)
    return out


def jsd_histograms(h1, h2):
    r1, p1, i1, n1 = strip(h1)
    r2, p2, i2, n2 = strip(h2)
    b1 = {x for lo, hi, _ in r1 for x in (lo, hi)}
    b2 = {x for lo, hi, _ in r2 for x in (lo, hi)}
    # TFDV rebuckets when the sets of bounds differ; where they are equal
    # but the buckets are not (a gap on one side) it stops on a CHECK:
    # featc rebuckets then too
    if b1 != b2 or [r[:2] for r in r1] != [r[:2] for r in r2]:
        bounds = sorted(b1 | b2)
        c1, c2 = spread(r1, bounds), spread(r2, bounds)
        n1 = n2 = 0.0  # a rebucketed Histogram has no num_nan
    else:
        c1, c2 = [c for _, _, c in r1], [c for _, _, c in r2]
    for v in sorted(set(p1) | set(p2)):
        c1.append(p1.get(v, 0.0))
        c2.append(p2.get(v, 0.0))
    if i1:
        c1.append(i1)
        c2.append(0.0)
    if i2:
        c1.append(0.0)
        c2.append(i2)
    if n1 > 0 or n2 > 0:
        c1 += [0.0, n1]
        c2 += [n2, 0.0]
    s1, s2 = total(c1), total(c2)
    if s1 == 0 or s2 == 0:
        return None
    p, q = [c / s1 for c in c1], [c / s2 for c in c2]
    m = [(x + y) / 2 for x, y in zip(p, q)]

    def kl(x):
        r = 0.0
        for a, b in zip(x, m):
            if a > 0 and b > 0:
                r += a * math.log2(a / b)
        return r
    return max(0.0, min((kl(p) + kl(q)) / 2, 1.0))


def measure(kind, fa, fb, quantiles=False):
    """(value, label) of TFDV's measure kind, or None where it makes none."""
    a, b = rank(fa), rank(fb)
    if kind in ("L_INFTY", "NORMALIZED_ABSOLUTE_DIFFERENCE"):
        return max_difference(a, b, kind != "L_INFTY")
    if a and b:
        return jsd_maps(a, b), None
    h1, h2 = histogram(fa, quantiles), histogram(fb, quantiles)
    if h1 is not None and h2 is not None:
        v = jsd_histograms(h1, h2)
        return None if v is None else (v, None)
    return None


# ------------------------------------------------------------ files


def records(path):
    return framed(gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read())


def write(name, payloads):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        for p in payloads:
            f.write(frame(p))
    return path


def stats_of(files, name):
    path = os.path.join(out, name)
    r = subprocess.run([featc, "stats", "--tfmd-out", path] + files, capture_output=True)
    check(r.returncode == 0, "stats --tfmd-out %s: exit %d %s" % (name, r.returncode, r.stderr[-300:]))
    return path


def read_stats(path):
    lst = st.DatasetFeatureStatisticsList()
    lst.ParseFromString(open(path, "rb").read())
    feats = {}
    for f in lst.datasets[0].features:
        key = "/".join(f.path.step) if f.HasField("path") else f.name
        feats.setdefault(key, f)
    return feats


def validate(*args):
    r = subprocess.run([featc, "validate"] + list(args), capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout, r.stderr


LINE = re.compile(r"^(.+): (drift|skew) ([A-Z_]+): (\S+), threshold (\S+)$")


def measurements(stdout):
    got = {}
    for line in stdout.splitlines():
        m = LINE.match(line)
        if m:
            got[(m.group(1), m.group(3))] = (m.group(2), float(m.group(4)), float(m.group(5)))
    return got


def close(x, y):
    return abs(x - y) <= 1e-12 + 1e-8 * abs(y)  # featc prints 9 significant digits


def agree(what, stdout, cur, prev, quantiles=()):
    """Every measurement featc printed equals this file's from the two
    statistics; returns them."""
    got = measurements(stdout)
    check(len(got) > 0, "%s: no measurement printed" % what)
    for (key, kind), (_, value, _) in sorted(got.items()):
        ref = measure(kind, cur.get(key), prev.get(key), key in quantiles)
        check(ref is not None and close(value, ref[0]),
              "%s: %s %s: featc %r, TFDV's measure %r" % (what, key, kind, value, ref))
    return got


# ------------------------------------------------------------ the taxi data

taxi = records(TAXI)
check(len(taxi) == 424, "the taxi file holds %d records, 424 expected" % len(taxi))
half1 = write("half1.tfrecord", taxi[:212])
half2 = write("half2.tfrecord", taxi[212:])
whole = write("whole.tfrecord", taxi)

PAY = {b"Cash": b"Credit Card", b"Credit Card": b"Cash"}


def shift(payload):
    ex = tf.Example.FromString(payload)
    fs = ex.features.feature
    if "payment_type" in fs:
        v = fs["payment_type"].bytes_list.value
        v[:] = [PAY.get(x, x) for x in v]
    if "fare" in fs:
        v = fs["fare"].float_list.value
        v[:] = [x * 2 + 5 for x in v]
    if "trip_start_hour" in fs:
        v = fs["trip_start_hour"].int64_list.value
        v[:] = [(x + 8) % 24 for x in v]
    return ex.SerializeToString()


shifted = write("shifted.tfrecord", [shift(p) for p in taxi])

exported = subprocess.run([featc, "export", "--tfmd", os.path.join(here, "..", "..", "specs",
                                                                   "taxi.feat")],
                          capture_output=True, text=True, check=True).stdout
schema = text_format.Parse(exported, schema_pb2.Schema())
THRESHOLDS = {"payment_type": ("infinity_norm", 0.1), "company": ("infinity_norm", 0.1),
              "fare": ("jensen_shannon_divergence", 0.1),
              "trip_start_hour": ("jensen_shannon_divergence", 0.1),
              "trip_miles": ("jensen_shannon_divergence", 0.1),
              "trip_start_day": ("jensen_shannon_divergence", 0.1)}
for f in schema.feature:
    if f.name in THRESHOLDS:
        kind, t = THRESHOLDS[f.name]
        getattr(f.drift_comparator, kind).threshold = t
        getattr(f.skew_comparator, kind).threshold = t / 10
    if f.name == "company":
        f.drift_comparator.normalized_abs_difference.threshold = 0.1
        f.drift_comparator.jensen_shannon_divergence.threshold = 0.1
schema_path = os.path.join(out, "taxi_drift.pbtxt")
with open(schema_path, "w") as f:
    f.write(text_format.MessageToString(schema))
plain_path = os.path.join(out, "taxi.pbtxt")
with open(plain_path, "w") as f:
    f.write(exported)

s_whole, s_half1, s_half2, s_shifted = (read_stats(stats_of([p], n)) for p, n in (
    (whole, "whole.pb"), (half1, "half1.pb"), (half2, "half2.pb"), (shifted, "shifted.pb")))

# two halves of one file: below every threshold
rc, so, se = validate("--schema", schema_path, half1, "--against", half2)
check(rc == 0, "halves: exit %d (%s%s)" % (rc, so[-400:], se[-300:]))
got = agree("halves", so, s_half1, s_half2)
check(len(got) == 8, "halves: %d measurements, 8 expected (%s)" % (len(got), sorted(got)))
for (key, kind), (mode, v, t) in sorted(got.items()):
    check(mode == "drift" and v <= t, "halves: %s %s %g above %g" % (key, kind, v, t))
check("no anomalies: 212 Examples" in so, "halves: no 'no anomalies' line: %s" % so[-300:])

# the whole file against its shifted copy: the shifted features above
rc, so, se = validate("--schema", schema_path, whole, "--against", shifted)
check(rc == 1, "shifted: exit %d, 1 expected (%s)" % (rc, se[-300:]))
got = agree("shifted", so, s_whole, s_shifted)
above = {(k, kind) for (k, kind), (_, v, t) in got.items() if v > t}
check(above == {("payment_type", "L_INFTY"), ("fare", "JENSEN_SHANNON_DIVERGENCE"),
                ("trip_start_hour", "JENSEN_SHANNON_DIVERGENCE")},
      "shifted: above their thresholds: %s" % sorted(above))
linf = measure("L_INFTY", s_whole["payment_type"], s_shifted["payment_type"])
check("payment_type: COMPARATOR_L_INFTY_HIGH: The Linfty distance between current and previous "
      "is %.6g (up to six significant digits), above the threshold 0.1. The feature value with "
      "maximum difference is: %s" % (linf[0], linf[1].decode()) in so,
      "shifted: payment_type's anomaly text: %s" % so)
check("fare: COMPARATOR_JENSEN_SHANNON_DIVERGENCE_HIGH: The approximate Jensen-Shannon "
      "divergence between current and previous is " in so, "shifted: fare's anomaly text")
check(so.count("_HIGH: ") == 3, "shifted: %d anomalies, 3 expected" % so.count("_HIGH: "))

# the same through the statistics: --against-stats, and --stats with it
rc2, so2, _ = validate("--schema", schema_path, whole, "--against-stats",
                       os.path.join(out, "shifted.pb"))
check(rc2 == rc and so2 == so, "--against-stats: not the output of --against FILE")
rc3, so3, _ = validate("--schema", schema_path, "--stats", os.path.join(out, "whole.pb"),
                       "--against-stats", os.path.join(out, "shifted.pb"))
check(rc3 == 1 and measurements(so3) == measurements(so),
      "--stats/--against-stats: exit %d, other measurements" % rc3)

# --skew: skew_comparator's thresholds (a tenth), training and serving
rc, so, se = validate("--schema", schema_path, half1, "--against", half2, "--skew")
got = agree("skew", so, s_half1, s_half2)
check(all(mode == "skew" for mode, _, _ in got.values()) and len(got) == 6,
      "--skew: %s" % sorted(got.items()))
check(("between training and serving is" in so) == (rc == 1),
      "--skew: exit %d and the anomaly texts disagree: %s" % (rc, so[-300:]))

# --linf and --jsd: every feature without a comparator
rc, so, se = validate("--schema", plain_path, whole, "--against", shifted, "--linf", "0.05",
                      "--jsd", "0.05")
got = agree("flags", so, s_whole, s_shifted)
kinds = {k: kind for (k, kind) in got}
check(kinds.get("company") == "L_INFTY" and kinds.get("payment_type") == "L_INFTY" and
      kinds.get("fare") == "JENSEN_SHANNON_DIVERGENCE" and len(got) == 17,
      "flags: %d measurements %s" % (len(got), sorted(kinds.items())))
check("pickup_census_tract: drift JENSEN_SHANNON_DIVERGENCE: not measured: neither data has "
      "values of it" in so, "flags: a feature without values in both is not measured")
rc, so, se = validate("--schema", schema_path, whole, "--against", shifted, "--linf", "0.0001")
check(("company", "L_INFTY") in measurements(so) and
      measurements(so)[("company", "L_INFTY")][2] == 0.1,
      "a schema comparator wins over --linf")

# usage
for args, want in ((["--schema", schema_path, whole, "--skew"], "--skew, --linf and --jsd"),
                   (["--schema", schema_path, "--stats", "x.pb"], "--stats is compared"),
                   (["--schema", schema_path, "--stats", "x.pb", "--against-stats", "y.pb", whole],
                    "no FILE with it"),
                   (["--schema", schema_path, whole, "--against", whole, "--linf", "-1"],
                    "a threshold is a number >= 0")):
    rc, so, se = validate(*args)
    check(rc == 64 and want in se, "usage %s: exit %d %s" % (args, rc, se[-200:]))


# ------------------------------------------------------------ random statistics

def feature(ds, key, kind, rnd, seq=False):
    f = ds.features.add()
    if rnd.random() < 0.5 or seq:
        f.path.step.extend(["##SEQUENCE##", key] if seq else [key])
    else:
        f.name = key
    if kind == "str":
        f.type = st.FeatureNameStatistics.STRING
        labels = rnd.sample(["a", "b", "c", "dd", "é", "ab", "", "z"], rnd.randint(1, 6))
        for i, lab in enumerate(labels + rnd.sample(labels, min(len(labels), rnd.randint(0, 2)))):  # repeats
            b = f.string_stats.rank_histogram.buckets.add()
            b.low_rank = b.high_rank = i
            b.label = lab
            b.sample_count = float(rnd.randint(1, 60))
        return f
    f.type = st.FeatureNameStatistics.FLOAT
    for htype in (0, 1):
        h = f.num_stats.histograms.add()
        h.type = htype
        layout(h, rnd)
    return f


BOUNDS = [-3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 4.0, 7.5, 10.0]


def layout(h, rnd, bounds=None):
    """Sorted, non-overlapping ranges over some of BOUNDS (or bounds),
    points among them, maybe an infinite bucket and NaNs."""
    if bounds is None:
        bounds = sorted(rnd.sample(BOUNDS, rnd.randint(2, len(BOUNDS))))
    for lo, hi in zip(bounds, bounds[1:]):
        if rnd.random() < 0.15:
            continue  # a gap
        b = h.buckets.add()
        b.low_value, b.high_value = lo, hi
        b.sample_count = float(rnd.randint(0, 40))
        if rnd.random() < 0.2:
            p = h.buckets.add()
            p.low_value = p.high_value = hi
            p.sample_count = float(rnd.randint(0, 10))
    if rnd.random() < 0.2:
        b = h.buckets.add()
        b.low_value, b.high_value = bounds[-1], math.inf
        b.sample_count = float(rnd.randint(1, 5))
    if rnd.random() < 0.3:
        h.num_nan = rnd.randint(1, 6)
    if sum(b.sample_count for b in h.buckets) + h.num_nan == 0:
        b = h.buckets.add()
        b.low_value = b.high_value = bounds[0]
        b.sample_count = 1.0
    return bounds


def same_layout(src, dst, rnd):
    """dst: src's buckets with other counts (no rebucketing)."""
    for b in src.buckets:
        c = dst.buckets.add()
        c.low_value, c.high_value = b.low_value, b.high_value
        c.sample_count = float(rnd.randint(1, 40))
    dst.num_nan = rnd.randint(0, 4)


rnd = random.Random(48)
pairs = 0
paths_taken = {"same bounds, NaNs kept": 0, "rebucketed": 0, "points": 0, "infinite": 0,
               "repeated labels": 0}


def note_paths(fa, fb, quantiles_):
    if fa.HasField("string_stats"):
        for f in (fa, fb):
            labels = [b.label for b in f.string_stats.rank_histogram.buckets]
            paths_taken["repeated labels"] += len(labels) != len(set(labels))
        return
    r1, p1, i1, n1 = strip(histogram(fa, quantiles_))
    r2, p2, i2, n2 = strip(histogram(fb, quantiles_))
    same = [r[:2] for r in r1] == [r[:2] for r in r2]
    paths_taken["same bounds, NaNs kept"] += same and (n1 > 0 or n2 > 0)
    paths_taken["rebucketed"] += not same
    paths_taken["points"] += bool(p1 or p2)
    paths_taken["infinite"] += bool(i1 or i2)
for trial in range(60):
    lists = []
    for side in range(2):
        lst = st.DatasetFeatureStatisticsList()
        lists.append(lst.datasets.add())
        lists[-1].num_examples = 100
    syn = schema_pb2.Schema()
    quantiles = set()
    wanted = []  # (key, measure)
    for k in range(6):
        key = "f%d" % k
        kind = "str" if k % 3 == 0 else "num"
        seq = k == 5
        fa = feature(lists[0], key, kind, rnd, seq)
        fb = feature(lists[1], key, kind, rnd, seq)
        if kind == "num" and rnd.random() < 0.4:  # the same bounds: NaNs kept
            for ha, hb in zip(fa.num_stats.histograms, fb.num_stats.histograms):
                del hb.buckets[:]
                same_layout(ha, hb, rnd)
        parent = syn
        if seq:
            s = next((f for f in syn.feature if f.name == "##SEQUENCE##"), None)
            if s is None:
                s = syn.feature.add()
                s.name, s.type = "##SEQUENCE##", schema_pb2.STRUCT
            parent = s.struct_domain
        f = parent.feature.add()
        f.name = key
        f.type = schema_pb2.BYTES if kind == "str" else schema_pb2.FLOAT
        shown = ("##SEQUENCE##/" if seq else "") + key
        if kind == "str":
            f.drift_comparator.infinity_norm.threshold = 0.2
            f.drift_comparator.normalized_abs_difference.threshold = 0.1
            wanted += [(shown, "L_INFTY"), (shown, "NORMALIZED_ABSOLUTE_DIFFERENCE")]
        f.drift_comparator.jensen_shannon_divergence.threshold = 0.05
        wanted.append((shown, "JENSEN_SHANNON_DIVERGENCE"))
        if kind == "num" and rnd.random() < 0.5:
            f.drift_comparator.jensen_shannon_divergence.source.type = \
                schema_pb2.HistogramSelection.QUANTILES
            quantiles.add(("##SEQUENCE##/" if seq else "") + key)
        note_paths(fa, fb, shown in quantiles)
    paths = []
    for side, ds in enumerate(lists):
        lst = st.DatasetFeatureStatisticsList()
        lst.datasets.add().CopyFrom(ds)
        paths.append(os.path.join(out, "syn%d-%d.pb" % (trial, side)))
        with open(paths[-1], "wb") as fh:
            fh.write(lst.SerializeToString())
    sp = os.path.join(out, "syn%d.pbtxt" % trial)
    with open(sp, "w") as fh:
        fh.write(text_format.MessageToString(syn))
    rc, so, se = validate("--schema", sp, "--stats", paths[0], "--against-stats", paths[1])
    cur, prev = read_stats(paths[0]), read_stats(paths[1])
    got = measurements(so)
    unmeasured = 0
    for key, kind in wanted:
        ref = measure(kind, cur.get(key), prev.get(key), key in quantiles)
        if ref is None:  # a histogram without values on a side: TFDV measures nothing
            unmeasured += 1
            check((key, kind) not in got and
                  ("%s: NOT_MEASURED: " % key in so or
                   "%s: drift %s: not measured: neither" % (key, kind) in so),
                  "random %d: %s %s: measured %r where TFDV cannot" % (trial, key, kind,
                                                                       got.get((key, kind))))
        else:
            check((key, kind) in got and close(got[(key, kind)][1], ref[0]),
                  "random %d: %s %s: featc %r, TFDV's measure %r" % (trial, key, kind,
                                                                      got.get((key, kind)), ref))
    n_above = sum(1 for _, v, t in got.values() if v > t)
    check(len(got) + unmeasured == len(wanted) == 10 and
          rc == (1 if n_above or "NOT_MEASURED" in so else 0) and
          so.count("_HIGH: ") == n_above,
          "random %d: %d measurements, exit %d, %d above (%s)" % (trial, len(got), rc, n_above,
                                                                   se[-300:]))
    pairs += 1


# ------------------------------------------------------------ what cannot be measured

def one_feature_stats(name, build):
    lst = st.DatasetFeatureStatisticsList()
    f = lst.datasets.add().features.add()
    f.path.step.append("x")
    build(f)
    path = os.path.join(out, name)
    with open(path, "wb") as fh:
        fh.write(lst.SerializeToString())
    return path


def numeric(buckets, nan=0):
    def build(f):
        h = f.num_stats.histograms.add()
        h.num_nan = nan
        for lo, hi, c in buckets:
            b = h.buckets.add()
            b.low_value, b.high_value, b.sample_count = lo, hi, c
    return build


def strings(pairs_):
    def build(f):
        for lab, c in pairs_:
            b = f.string_stats.rank_histogram.buckets.add()
            b.label, b.sample_count = lab, c
    return build


def one_schema(name, comparator, type_="FLOAT"):
    path = os.path.join(out, name)
    with open(path, "w") as fh:
        fh.write('feature { name: "x" type: %s drift_comparator { %s { threshold: 0.1 } } }\n'
                 % (type_, comparator))
    return path


good = one_feature_stats("good.pb", numeric([(0, 1, 5), (1, 2, 5)]))
jsd_schema = one_schema("jsd.pbtxt", "jensen_shannon_divergence")
linf_schema = one_schema("linf.pbtxt", "infinity_norm")
cases = [
    ("overlapping buckets", jsd_schema, numeric([(0, 2, 5), (1, 3, 5)]),
     2, "x: JENSEN_SHANNON_DIVERGENCE cannot be measured: the histogram's buckets overlap"),
    ("L-infinity of a numeric feature", linf_schema, numeric([(0, 1, 5)]),
     2, "x: L_INFTY cannot be measured: the statistics have no rank histogram"),
    ("numeric against string", jsd_schema, strings([("a", 3)]),
     2, "must be either both numeric or both string"),
    ("no values in the current data", jsd_schema, numeric([(0, 1, 0)]),
     1, "x: NOT_MEASURED: the previous data has values of it, the current data none"),
]
for what, sch, build, want_rc, want in cases:
    cur = one_feature_stats("case.pb", build)
    rc, so, se = validate("--schema", sch, "--stats", cur, "--against-stats", good)
    check(rc == want_rc and want in so + se, "%s: exit %d (%d expected): %s%s" %
          (what, rc, want_rc, so[-200:], se[-200:]))
def unlisted(f):
    f.string_stats.common_stats.tot_num_values = 5  # values, but none in the rank histogram


rc, so, se = validate("--schema", one_schema("slinf.pbtxt", "infinity_norm", "BYTES"),
                      "--stats", one_feature_stats("unlisted.pb", unlisted), "--against-stats",
                      one_feature_stats("listed.pb", strings([("a", 3)])))
check(rc == 2 and "x: L_INFTY cannot be measured: its statistics list none of its values" in se,
      "a rank histogram that lists none of the values: exit %d %s" % (rc, se))

def field(num, payload):  # a length-delimited field, by hand
    return varint(num << 3 | 2) + varint(len(payload)) + payload


# a rank_histogram given twice: protobuf merges the two (here 9 labels, then
# the same 9 again), as the one of 9 read back
once = st.StringStatistics()
for i in range(9):
    bucket = once.rank_histogram.buckets.add()
    bucket.label, bucket.sample_count = "v%d" % i, float(i + 1)
twice = once.SerializeToString() * 2
path_twice = os.path.join(out, "twice.pb")
with open(path_twice, "wb") as fh:
    fh.write(field(1, field(3, field(1, b"x") + field(4, twice))))
path_once = one_feature_stats("once.pb", lambda f: f.string_stats.CopyFrom(once))
rc, so, se = validate("--schema", one_schema("twice.pbtxt", "infinity_norm", "BYTES"),
                      "--stats", path_twice, "--against-stats", path_once)
check(rc == 0 and "x: drift L_INFTY: 0, threshold 0.1" in so,
      "a rank histogram given twice: exit %d %s%s" % (rc, so, se))
zero = one_feature_stats("zero.pb", strings([("a", 0), ("b", 2)]))
rc, so, se = validate("--schema", one_schema("sjsd.pbtxt", "jensen_shannon_divergence", "BYTES"),
                      "--stats", zero, "--against-stats", zero)
check(rc == 2 and "sample_count is not positive" in se, "a zero count in a rank histogram: %s" % se)

# damaged statistics: the byte offset, exit 2
good_bytes = open(good, "rb").read()
damaged = [
    ("cut", good_bytes[:-3], "a length of"),
    ("two datasets", good_bytes + good_bytes, "2 datasets"),
    ("no dataset", b"", "0 datasets"),
    ("a varint field 1", b"\x08\x01", "wire type 0, expected 2"),
    ("a group", b"\x0b", "wire type 3"),
    ("a long length", b"\x0a\xff\xff\xff\xff\x0f", "a length of"),
    ("NaN bound", open(one_feature_stats("nan.pb", numeric([(math.nan, 1, 1)])), "rb").read(),
     "bounds are NaN or out of order"),
    ("low above high", open(one_feature_stats("rev.pb", numeric([(2, 1, 1)])), "rb").read(),
     "bounds are NaN or out of order"),
    ("negative count", open(one_feature_stats("neg.pb", numeric([(0, 1, -1)])), "rb").read(),
     "not a finite number >= 0"),
]
for what, data, want in damaged:
    path = os.path.join(out, "damaged.pb")
    with open(path, "wb") as fh:
        fh.write(data)
    rc, so, se = validate("--schema", jsd_schema, "--stats", good, "--against-stats", path)
    check(rc == 2 and "damaged.pb: not a DatasetFeatureStatisticsList: byte " in se and want in se,
          "damaged (%s): exit %d: %s" % (what, rc, se[-300:]))

# statistics over 16 MiB (wide data, long keys) are statistics, read as
# such: validate refused them as "larger than 16777216 bytes; not a spec"
big = st.DatasetFeatureStatisticsList()
ds = big.datasets.add()
ds.num_examples = 1
for i in range(20000):
    f = ds.features.add()
    f.path.step.append("feature_%06d_" % i + "x" * 900)
    f.type = st.FeatureNameStatistics.INT
    f.num_stats.common_stats.num_non_missing = 1
big_path = os.path.join(out, "big.pb")
with open(big_path, "wb") as fh:
    fh.write(big.SerializeToString())
rc, so, se = validate("--schema", jsd_schema, "--stats", big_path, "--against-stats", big_path)
check(os.path.getsize(big_path) > 16 << 20 and rc in (0, 1) and "larger than" not in se,
      "statistics of %d bytes: exit %d: %s" % (os.path.getsize(big_path), rc, se[-300:]))

check(pairs == 60, "random pairs compared: %d" % pairs)
print("paths: %s" % sorted(paths_taken.items()))
for what, n in sorted(paths_taken.items()):
    check(n >= 5, "random statistics: %s in %d features only" % (what, n))
finish("tfmd-drift")
