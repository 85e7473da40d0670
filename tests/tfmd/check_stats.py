#!/usr/bin/env python3
"""check_stats.py FEATC CORPUS OUT: featc stats --tfmd-out, read by
python3-protobuf over tests/tfmd/statistics.proto (TFMD's field numbers).

For every Example or SequenceExample file of the corpus, `featc stats --json
FILE --tfmd-out OUT/NAME.pb` and, statistic by statistic, the
DatasetFeatureStatisticsList against the JSON report (which stats_check.py
holds against NumPy): num_examples; per feature (path [key], per feature
list ["##SEQUENCE##", key]) num_non_missing, num_missing, min/max/avg/
tot_num_values (a list's: frames per record), the 10-bucket quantile
histograms adding up to their counts (values per record, a list's
feature_list_length_histogram), the type; numbers: mean, std_dev, num_zeros,
min, median (p50), max, the STANDARD histogram's buckets and num_nan;
UTF-8 bytes: unique, avg_length, top_values and rank_histogram (the values
above the top sketch's error, in order); other bytes: unique and lengths.
The exact figures (records holding each key, values in all) are also
counted from `featc cat --json`, the records decoded by another path.
Then the file is parsed again after a byte is cut off its end: protobuf
must refuse it (the file is one message, written whole).
Prints "tfdv-stats: N passed, M failed"."""
import json
import os
import subprocess
import sys

from protos import check, compile_protos, finish

featc, corpus, out = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
compile_protos(out, ("path.proto", "statistics.proto"))
import statistics_pb2 as S  # noqa: E402
from google.protobuf.message import DecodeError  # noqa: E402



def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def quantile_hist(h, count, what):
    check(h.type == S.Histogram.QUANTILES and len(h.buckets) == 10 and
          close(sum(b.sample_count for b in h.buckets), count) and
          all(b.low_value <= b.high_value for b in h.buckets),
          "%s: a quantile histogram of 10 buckets over %d: %s" % (what, count, h))


def common_of(fs):
    kind = fs.WhichOneof("stats")
    return getattr(fs, kind).common_stats


def check_common(c, j, records, what, per_key):
    per = j[per_key]
    check(c.num_non_missing == j["present"] and c.num_missing == records - j["present"],
          "%s: present %d missing %d, JSON %d of %d" % (what, c.num_non_missing, c.num_missing,
                                                       j["present"], records))
    if per["count"] > 0:
        check(c.min_num_values == per["min"] and c.max_num_values == per["max"] and
              close(c.avg_num_values, per["mean"], 1e-6) and
              c.tot_num_values == round(per["mean"] * per["count"]),
              "%s: values per record %s against %s" % (what, c, per))
        quantile_hist(c.num_values_histogram, per["count"], what)


def check_numeric(n, j, what):
    fin = j["finite"]
    check(n.num_zeros == j["zeros"], "%s: num_zeros" % what)
    if fin["count"] == 0:
        return
    check(close(n.mean, fin["mean"]) and close(n.std_dev, fin["std"]) and
          close(n.min, j.get("min", fin["min"])) and close(n.max, j.get("max", fin["max"])) and
          close(n.median, fin["quantiles"]["p50"]),
          "%s: mean/std/min/median/max %r against %r" % (what, n, fin))
    std = [h for h in n.histograms if h.type == S.Histogram.STANDARD]
    check(len(std) == 1 and std[0].num_nan == j.get("nan", 0) and
          [(b.low_value, b.high_value, b.sample_count) for b in std[0].buckets] ==
          [(lo, hi, float(c)) for lo, hi, c in fin["histogram"]] or
          all(close(b.low_value, lo) and close(b.high_value, hi) and b.sample_count == c
              for b, (lo, hi, c) in zip(std[0].buckets, fin["histogram"])),
          "%s: the standard histogram against %r" % (what, fin["histogram"]))
    q = [h for h in n.histograms if h.type == S.Histogram.QUANTILES]
    check(len(q) == 1, "%s: one quantile histogram" % what)
    if q:
        quantile_hist(q[0], fin["count"], what)


def check_bytes(fs, j, what):
    b = j["bytes"]
    if b["utf8"] == b["count"]:
        check(fs.type == S.FeatureNameStatistics.STRING, "%s: UTF-8 values are STRING" % what)
        st = fs.string_stats
        check(st.unique == round(b["distinct"]["value"]) and st.invalid_utf8_count == 0,
              "%s: unique %d, JSON %r" % (what, st.unique, b["distinct"]))
        if b["length"]["count"]:
            check(close(st.avg_length, b["length"]["mean"], 1e-6), "%s: avg_length" % what)
        # (a value longer than the sketch keeps is a dict in the JSON, and
        # left out of TFDV's list: only whole values are)
        sure = [(t["value"], t["count"]) for t in b["top"]
                if t["count"] > b["top_error"] and isinstance(t["value"], str)]
        got = [(t.value, t.frequency) for t in st.top_values][:len(sure)]
        if len(sure) < len([t for t in b["top"] if t["count"] > b["top_error"]]):
            got = [g for g in got if g[0] in dict(sure)]
        check(got == [(v, float(c)) for v, c in sure] and len(st.top_values) >= len(sure) and
              all(t.frequency > b["top_error"] for t in st.top_values) and
              [r.label for r in st.rank_histogram.buckets] == [t.value for t in st.top_values],
              "%s: top values %r, JSON %r (error %d)" % (what, got, sure, b["top_error"]))
    else:
        check(fs.type == S.FeatureNameStatistics.BYTES, "%s: other bytes are BYTES" % what)
        st = fs.bytes_stats
        ln = b["length"]
        check(st.unique == round(b["distinct"]["value"]) and
              (ln["count"] == 0 or (close(st.avg_num_bytes, ln["mean"], 1e-6) and
                                    st.min_num_bytes == ln["min"] and st.max_num_bytes == ln["max"]
                                    and st.max_num_bytes_int == ln["max"])),
              "%s: bytes_stats %r against %r" % (what, st, b))


def kind_of(j):
    t = j["types"]
    best = "int64" if t.get("int64", 0) >= t.get("float", 0) else "float"
    return "bytes" if t.get("bytes", 0) > t.get(best, 0) else best


def truth(path):
    """Records holding each key, and values in all, from cat --json."""
    r = subprocess.run([featc, "cat", "--json", path], capture_output=True, text=True)
    present, values = {}, {}
    for line in r.stdout.splitlines():
        rec = json.loads(line)
        feats = rec.get("features", rec.get("context", {}))
        for k, v in feats.items():
            lst = next(iter(v.values()), None) if v else None
            if lst is not None:
                present[k] = present.get(k, 0) + 1
                values[k] = values.get(k, 0) + len(lst)
    return present, values


def one(name):
    path = os.path.join(corpus, name)
    pb = os.path.join(out, name + ".pb")
    r = subprocess.run([featc, "stats", "--json", path, "--tfmd-out", pb], capture_output=True,
                       text=True)
    if r.returncode == 2:
        return  # a damaged file (test-stats checks those reports)
    if r.returncode not in (0, 1):  # (1: records that are not Examples)
        check(False, "%s: stats exited %d: %s" % (name, r.returncode, r.stderr[:200]))
        return
    if "runtime error" in r.stderr or "Sanitizer" in r.stderr or not os.path.exists(pb):
        check(False, "%s: stats exited %d without its file: %s" % (name, r.returncode,
                                                                   r.stderr[-300:]))
        return
    j = json.loads(r.stdout)
    if j["examples"] + j["sequence_examples"] == 0:
        return
    data = open(pb, "rb").read()
    lst = S.DatasetFeatureStatisticsList()
    try:
        lst.ParseFromString(data)
    except DecodeError as e:
        check(False, "%s: protobuf cannot parse the file: %s" % (name, e))
        return
    check(len(lst.datasets) == 1 and
          lst.datasets[0].num_examples == j["examples"] + j["sequence_examples"],
          "%s: one dataset of %d examples" % (name, j["examples"] + j["sequence_examples"]))
    ds = lst.datasets[0]
    by_path = {tuple(f.path.step): f for f in ds.features}
    records = j["examples"] + j["sequence_examples"]
    present, values = truth(path)
    for fj in j["features"]:
        what = "%s: %s" % (name, fj["name"])
        fs = by_path.get((fj["name"],))
        if fs is None:
            check(False, what + ": no statistics")
            continue
        c = common_of(fs)
        check_common(c, fj, records, what, "values_per_record")
        check(c.num_non_missing == present.get(fj["name"], 0) and
              c.tot_num_values == values.get(fj["name"], 0),
              "%s: %d records and %d values, cat --json counts %d and %d" %
              (what, c.num_non_missing, c.tot_num_values, present.get(fj["name"], 0),
               values.get(fj["name"], 0)))
        kind = kind_of(fj)
        if kind == "bytes" and "bytes" in fj:
            check_bytes(fs, fj, what)
        elif kind in fj:
            check(fs.type == (S.FeatureNameStatistics.INT if kind == "int64"
                              else S.FeatureNameStatistics.FLOAT), what + ": type")
            check_numeric(fs.num_stats, fj[kind], what)
    for lj in j["feature_lists"]:
        what = "%s: list %s" % (name, lj["name"])
        fs = by_path.get(("##SEQUENCE##", lj["name"]))
        if fs is None:
            check(False, what + ": no statistics")
            continue
        c = common_of(fs)
        check_common(c, lj, j["sequence_examples"], what, "frames")
        if lj["frames"]["count"]:
            quantile_hist(c.feature_list_length_histogram, lj["frames"]["count"], what)
        vpf = lj["values_per_frame"]
        check(len(c.presence_and_valency_stats) == 2 and
              c.presence_and_valency_stats[0].tot_num_values == vpf["count"] and
              c.presence_and_valency_stats[1].num_non_missing == vpf["count"] and
              c.presence_and_valency_stats[1].tot_num_values ==
              sum(lj.get(k, {}).get("count", 0) for k in ("bytes", "float", "int64")),
              "%s: presence and valency of frames and values" % what)
        kind = kind_of(lj)
        if kind == "bytes" and "bytes" in lj:
            check_bytes(fs, lj, what)
        elif kind in lj:
            check_numeric(fs.num_stats, lj[kind], what)
    if j["feature_lists"]:
        st = by_path.get(("##SEQUENCE##",))
        check(st is not None and st.type == S.FeatureNameStatistics.STRUCT and
              st.struct_stats.common_stats.num_non_missing == j["sequence_examples"],
              "%s: the ##SEQUENCE## struct" % name)
    cut = S.DatasetFeatureStatisticsList()
    try:
        cut.ParseFromString(data[:-1])
        check(False, "%s: a file cut short still parses" % name)
    except DecodeError:
        check(True, "")


for name in sorted(os.listdir(corpus)):
    if name.startswith(("MANIFEST", "NOTICE")):
        continue
    one(name)
sys.exit(finish("tfdv-stats"))
