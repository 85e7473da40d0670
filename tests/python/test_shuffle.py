#!/usr/bin/env python3
"""read()'s shuffle=, seed=, skip= and splits= (python/ext/shuffle.c and
reader.c), which featc.torch stands on.

usage: test_shuffle.py BUILD BENCH_DATA TMP

shuffle: the same records, another order; the same seed the same stream
whatever the batch size and threads; another seed another stream; a buffer
larger than the file.  skip=k: the stream from its k-th record.  splits:
per-source splits whose records, over all i of n, are the file's, once, in
order (plain and seekable GZIP), beside whole sources.  A damaged source
among others: the same batches and errors with 1 and 3 threads.  Wrong
arguments raise."""
import os
import shutil
import struct
import sys

BUILD, BENCH, TMP = sys.argv[1:4]
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import tutorial  # noqa: E402
from module_vs_driver import digest, module_batches  # noqa: E402 (puts tests/oracle on the path)
from framing import write_seekable  # noqa: E402 (from tests/oracle)
from tally import check, finish  # noqa: E402


def rows(b):
    f2 = b["feature2"].tolist()
    return list(zip(b["feature0"].tolist(), b["feature1"].tolist(), f2,
                    b["feature3"].tolist()))


def stream(src, **kw):
    out = []
    for b in tutorial.read(src, **kw):
        out.extend(rows(b))
    return out


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    data = open(os.path.join(BENCH, "tutorial.tfrecord"), "rb").read()
    pos = 0
    for _ in range(5000):
        (n,) = struct.unpack_from("<Q", data, pos)
        pos += 16 + n
    small = os.path.join(TMP, "small.tfrecord")
    with open(small, "wb") as f:
        f.write(data[:pos])
    base = stream(small, batch_size=100)
    check(len(base) == 5000, "5000 records: %d" % len(base))

    s1 = stream(small, batch_size=100, shuffle=700, seed=9)
    check(sorted(s1) == sorted(base) and s1 != base, "shuffle: another order of the records")
    for bs, th in ((1, 1), (37, 1), (100, 3), (256, 2)):
        check(stream(small, batch_size=bs, shuffle=700, seed=9, threads=th) == s1,
              "shuffle: batch_size=%d threads=%d drew another stream" % (bs, th))
    s2 = stream(small, batch_size=100, shuffle=700, seed=10)
    check(s2 != s1 and sorted(s2) == sorted(base), "another seed: another order")
    big = stream(small, batch_size=100, shuffle=1 << 20, seed=9)
    check(sorted(big) == sorted(base) and big != base, "a buffer larger than the file")
    one = stream(small, batch_size=100, shuffle=1, seed=9)
    check(one == base, "a buffer of one record: the file's order")
    # a record's place is spread over the stream (buffer 700: the first
    # record comes out somewhere within its first few thousand draws)
    firsts = [stream(small, batch_size=500, shuffle=700, seed=k).index(base[0]) for k in range(8)]
    check(len(set(firsts)) >= 6, "the first record's places over 8 seeds: %r" % firsts)

    for k in (0, 1, 99, 100, 4999, 5000, 9000):
        check(stream(small, batch_size=100, skip=k) == base[k:], "skip=%d" % k)
        check(stream(small, batch_size=64, shuffle=700, seed=9, skip=k, threads=2) == s1[k:],
              "skip=%d, shuffled" % k)

    gz = os.path.join(TMP, "small.tfrecord.gz")
    write_seekable(data[:pos], gz, 20000)
    for src in (small, gz):
        for n in (1, 2, 5, 13):
            got = []
            for i in range(n):
                got.extend(stream([src], batch_size=77, splits=[(i, n)]))
            check(got == base, "%s in %d splits: %d records" % (os.path.basename(src), n,
                                                               len(got)))
        h0 = stream([src], batch_size=77, splits=[(0, 2)])
        h1 = stream([src], batch_size=77, splits=[(1, 2)])
        both = stream([src, src, src], batch_size=77, splits=[(0, 2), None, (1, 2)])
        check(h0 and h1 and both == h0 + base + h1, "splits with None beside them")
        got = stream([src, src], batch_size=77, splits=[(0, 2), (1, 2)], shuffle=300, seed=4)
        check(sorted(got) == sorted(base), "splits, shuffled")

    # a damaged source among good ones: threads 1 and 3 alike, shuffled
    bad = os.path.join(TMP, "bad.tfrecord")
    b = bytearray(data[:pos])
    b[len(b) // 2] ^= 0x40
    with open(bad, "wb") as f:
        f.write(b)
    srcs = [small, bad, small]
    for kw in ({}, {"shuffle": 500, "seed": 1}):
        got = module_batches(tutorial, srcs, batch_size=64, **kw)
        want = [digest(b) for b in got]
        check(any(d.startswith("error: ") for d in want), "the damaged file fails (%r)" % kw)
        n = sum(len(b["feature0"]) for b in got if "exc" not in b)
        check(n < 3 * 5000 and n > 2 * 5000, "records around the error: %d (%r)" % (n, kw))
        check([digest(b) for b in module_batches(tutorial, srcs, batch_size=64, threads=3,
                                                 **kw)] == want,
              "threads=3 over a damaged source: other batches or errors (%r)" % kw)

    for kw, exc in (({"shuffle": -1}, ValueError), ({"shuffle": "x"}, TypeError),
                    ({"seed": 1.5}, TypeError), ({"skip": -2}, ValueError),
                    ({"splits": [(0, 2), (1, 2)]}, ValueError),
                    ({"splits": [(2, 2)]}, ValueError), ({"splits": [(0, 0)]}, ValueError),
                    ({"splits": [(0, 2)], "split": (0, 2)}, ValueError),
                    ({"splits": [(0, 2)], "byte_range": (0, 9)}, ValueError),
                    ({"splits": 5}, TypeError)):
        try:
            stream(small, **kw)
            check(False, "%r: accepted" % kw)
        except exc:
            check(True, "")
        except Exception as e:  # noqa: BLE001 (the wrong kind is the failure)
            check(False, "%r: %s, not %s" % (kw, type(e).__name__, exc.__name__))
    with open(small, "rb") as f:
        try:
            stream(f, splits=[(0, 2)])
            check(False, "splits of a file object: accepted")
        except ValueError:
            check(True, "")
    check(stream(small, seed=-1, shuffle=10) == stream(small, seed=(1 << 64) - 1, shuffle=10),
          "a seed is its low 64 bits")
    shutil.rmtree(TMP, ignore_errors=True)
    return finish("shuffle")


if __name__ == "__main__":
    sys.exit(main())
