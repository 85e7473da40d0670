#!/usr/bin/env python3
"""read(format='arrow') through Arrow's PyCapsule interface, read back by a
consumer written from the specifications (arrow_consumer.c, built by
run.sh), against parse() of each record: an independent path, the
single-record parser.

usage: test_arrow.py BUILD CONSUMER_DIR [MODULE_DIR:NAME:FILE ...]

For every corpus spec over its files (and each MODULE_DIR:NAME:FILE given:
tests/specs modules over their random valid records, every feature kind),
in batches of 7 with 1 and 2 threads, format='arrow' (32-bit offsets) and
'arrow-large' (64-bit): each batch's rows by
__arrow_c_array__ equal parse()'s values of its records (the columns Arrow
has: every feature, KEY/buckets; not the hot vectors); the reader's
__arrow_c_stream__ gives every record; a batch exported twice gives the
same rows; a capsule outlives its batch; a damaged file is a stream error
after the records before it; format='numpy' readers have no stream."""
import os
import sys

BUILD, CONSUMER = sys.argv[1:3]
EXTRA = sys.argv[3:]
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, CONSUMER)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import numpy as np  # noqa: E402

import arrow_consumer  # noqa: E402
import featc  # noqa: E402
from tally import check, finish  # noqa: E402

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
SPECS = {"penguin": ["tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz"],
         "mnist": ["tfx__mnist.tfrecord"],
         "pascal_voc": ["tf-models__pascal_voc_seg_val-00000-of-00001.tfrecord"],
         "taxi": ["tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz"],
         "hadoop": ["tf-ecosystem__tf-records_part-m-00000",
                    "tf-ecosystem__zipped-tf-records_part-m-00000.gz"],
         "fake_sequence": ["pytorch-data__sequence_example.tfrecord"],
         "transform_sequence": ["tf-transform__sequence_example_data_tfrecord.gz"],
         "tfx_sequence": ["tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz"]}


def plain(v):
    """A parse() value as nested Python lists, as a row of Arrow reads."""
    if isinstance(v, (bytes, int, float)):
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if hasattr(v, "dense_shape"):  # (a module's Sparse, or featc's)
        return {"indices": np.asarray(v.indices).tolist(), "values": plain(v.values)}
    if hasattr(v, "row_splits"):
        flat = plain(v.values)
        splits = v.row_splits if isinstance(v.row_splits, tuple) else (v.row_splits,)
        for s in reversed(splits):
            s = np.asarray(s).tolist()
            flat = [flat[s[i]:s[i + 1]] for i in range(len(s) - 1)]
        return flat
    if hasattr(v, "offsets") and hasattr(v, "shape"):  # Bytes
        flat = v.tolist()
        for d in reversed(tuple(v.shape)[1:]):
            flat = [flat[i:i + d] for i in range(0, len(flat), d)]
        return flat
    raise TypeError("no plain form for %r" % type(v))


def expected(mod, record):
    got = mod.parse(record)
    if isinstance(got, tuple):  # (context, feature_lists)
        merged = dict(got[0])
        for k, v in got[1].items():  # (a key in both: feature_lists/KEY)
            merged[("feature_lists/" + k) if k in got[0] else k] = v
        got = merged
    return {k: plain(v) for k, v in got.items()}


def same(rows, records, mod, what):
    if len(rows) != len(records):
        check(False, "%s: %d rows for %d records" % (what, len(rows), len(records)))
        return
    for i, (row, rec) in enumerate(zip(rows, records)):
        want = expected(mod, rec)
        for k in row:
            # (parse() gives a scalar feature's bucket id as an array of one;
            # Arrow lays the ids out as the values: a scalar)
            if k.endswith("/buckets") and isinstance(row[k], int) and want.get(k) == [row[k]]:
                want[k] = row[k]
            # (and a feature list's ids flat; Arrow keeps them in their frames)
            if (k.endswith("/buckets") and isinstance(row[k], list) and
                    all(isinstance(f, list) for f in row[k]) and
                    want.get(k) == [x for f in row[k] for x in f]):
                want[k] = row[k]
        missing = [k for k in row if k not in want]
        bad = [k for k in row if k in want and repr(row[k]) != repr(want[k])]
        if missing or bad:
            k = (bad or missing)[0]
            check(False, "%s: record %d, column %r: arrow %r, parse %r"
                  % (what, i, k, repr(row.get(k))[:200], repr(want.get(k))[:200]))
            return
    check(True, what)


def test_module(mod, files, label):
    records = list(featc.records(files, mod))
    check(len(records) > 0, "%s: records" % label)
    for threads, fmt in ((1, "arrow"), (2, "arrow"), (1, "arrow-large")):
        rows = []
        for b in mod.read(files, batch_size=7, format=fmt, threads=threads):
            check(b.num_rows <= 7, "%s: a batch of %d" % (label, b.num_rows))
            rows.extend(arrow_consumer.rows(b))
        same(rows, records, mod, "%s, %s __arrow_c_array__, threads=%d"
             % (label, fmt, threads))
    for fmt in ("arrow", "arrow-large"):
        reader = mod.read(files, batch_size=5, format=fmt)
        same(arrow_consumer.stream_rows(reader), records, mod,
             "%s, %s __arrow_c_stream__" % (label, fmt))


def main():
    for name, files in SPECS.items():
        test_module(featc.load(name), [os.path.join(CORPUS, f) for f in files], name)
    for spec in EXTRA:
        d, name, path = spec.split(":", 2)
        sys.path.insert(0, d)
        test_module(__import__(name), [path], name)
        sys.path.pop(0)
    mnist = featc.load("mnist")
    path = os.path.join(CORPUS, SPECS["mnist"][0])
    b = next(iter(mnist.read(path, batch_size=3, format="arrow")))
    first = arrow_consumer.rows(b)
    check(arrow_consumer.rows(b) == first and len(first) == 3, "a batch exported twice")
    pair = b.__arrow_c_array__()
    del b  # (the capsule keeps the batch's memory)

    class Holder:
        def __init__(self, pair):
            self.pair = pair

        def __arrow_c_array__(self, requested_schema=None):
            return self.pair
    check(arrow_consumer.rows(Holder(pair)) == first, "a capsule outlives its batch")
    before = arrow_consumer.releases()
    arrow_consumer.rows(mnist.read(path, batch_size=4, format="arrow").__next__())
    check(arrow_consumer.releases() - before == 2, "one release of the array, one of the schema")
    # a damaged file: the records before it, then the error, through the stream
    tut = featc.load("tutorial")
    bad = os.path.join(CORPUS, "tf-models-CRLF-DAMAGED__pets_examples.record")
    good = os.path.join(CORPUS, "tf-ecosystem__tf-records_part-m-00000")
    try:
        arrow_consumer.stream_rows(tut.read([good, bad], batch_size=3, format="arrow"))
        check(False, "a damaged file: no stream error")
    except RuntimeError as e:
        check("pets_examples" in str(e), "a damaged file: the stream's error names it: %s" % e)
    try:
        mnist.read(path).__arrow_c_stream__()
        check(False, "format='numpy' gave an Arrow stream")
    except TypeError:
        check(True, "format='numpy': no Arrow stream")
    for bad_args in ({"format": "feather"}, {"format": "arrow", "raw": True}):
        try:
            mnist.read(path, **bad_args)
            check(False, "read(%s) accepted" % bad_args)
        except (ValueError, TypeError):
            check(True, "read(%s) refused" % bad_args)
    return finish("arrow-python")


if __name__ == "__main__":
    sys.exit(main())
