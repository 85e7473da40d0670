#!/usr/bin/env python3
"""make bench's Python rows: featc's module against Python protobuf, and
against the C batch API, on the tutorial and wide corpora.

usage: python_bench.py DATA BUILD REPS

featc: MODULE.read(FILE, batch_size=256) to the end (every batch's NumPy
arrays built), and the same with threads=2 (the caller's thread and one
worker parse batches while the caller frames the next records).  Python protobuf (python3-protobuf, Debian's; the
tf.train.Example message compiled by protoc --python_out into BUILD/bench/py):
the file read, records framed in Python (lengths, no CRC check), each record
parsed with Example.FromString, and the same arrays built per batch of 256
(dense features with np.array, VarLen as values plus row splits, bytes as
lists).  C batch API: BUILD/bench/batch_rate_SPEC (fc_batch_parse in batches
of 256 over the mapped file).  Each rate is the median of REPS passes, in MB
of the file per second.
"""
import os
import struct
import subprocess
import sys
import time

import numpy as np

data, build, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, os.path.join(build, "python"))
sys.path.insert(0, os.path.join(build, "bench", "py"))
import tf_example_pb2  # noqa: E402

B = 256


def median(f):
    v = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        v.append(time.perf_counter() - t)
    v.sort()
    return v[len(v) // 2]


def featc_pass(mod, path, threads=1):
    n = 0
    for b in mod.read(path, batch_size=B, threads=threads):
        n += 1
    return n


def frames(buf):
    pos, end = 0, len(buf)
    while pos < end:
        (n,) = struct.unpack_from("<Q", buf, pos)
        yield buf[pos + 12:pos + 12 + n]
        pos += 16 + n


def protobuf_pass(path, dense, varlen, scalar_bytes):
    """Arrays as the module builds them: dense [B, ...] floats/ints, VarLen
    int64 values + row splits, bytes scalars as lists of bytes."""
    with open(path, "rb") as f:
        buf = memoryview(f.read())
    batch = []

    def flush():
        feats = [ex.features.feature for ex in batch]
        for key, kind, shape in dense:
            if kind == "float":
                np.array([ft[key].float_list.value for ft in feats], dtype=np.float32).reshape(
                    (len(feats),) + shape)
            else:
                np.array([ft[key].int64_list.value for ft in feats], dtype=np.int64).reshape(
                    (len(feats),) + shape)
        for key in varlen:
            vals = [ft[key].int64_list.value for ft in feats]
            np.cumsum([0] + [len(v) for v in vals])
            np.fromiter((x for v in vals for x in v), dtype=np.int64)
        for key in scalar_bytes:
            [ft[key].bytes_list.value[0] for ft in feats]
        batch.clear()

    for rec in frames(buf):
        batch.append(tf_example_pb2.Example.FromString(rec))
        if len(batch) == B:
            flush()
    if batch:
        flush()


def c_rate(spec, path):
    out = subprocess.run([os.path.join(build, "bench", "batch_rate_" + spec), path, str(B),
                          str(reps)], check=True, stdout=subprocess.PIPE).stdout
    return float(out)


def main():
    import tutorial
    import wide
    wide_dense = [("dense_%02d" % i, "float", (16,)) for i in range(0, 40, 4)] + \
        [("label", "float", ())]
    cases = [
        ("tutorial", tutorial, "tutorial.tfrecord",
         ([("feature0", "int", ()), ("feature1", "int", ()), ("feature3", "float", ())], [],
          ["feature2"])),
        ("wide", wide, "wide.tfrecord",
         (wide_dense, ["ids_%02d" % i for i in range(0, 40, 4)],
          ["tag_%02d" % i for i in range(0, 20, 4)])),
    ]
    print()
    print("Python (batches of %d, NumPy arrays; MB/s of the file, median of %d)" % (B, reps))
    print("%-10s %10s %12s %8s %10s %12s %10s %8s" % (
        "corpus", "featc py", "py protobuf", "ratio", "C batch", "py / C", "2 threads", "2 / 1"))
    for name, mod, file, (dense, varlen, sbytes) in cases:
        path = os.path.join(data, file)
        size = os.path.getsize(path) / 1e6
        featc_pass(mod, path)  # warm the page cache
        f = size / median(lambda: featc_pass(mod, path))
        p = size / median(lambda: protobuf_pass(path, dense, varlen, sbytes))
        c = c_rate(name, path)
        f2 = size / median(lambda: featc_pass(mod, path, 2))
        print("%-10s %10.1f %12.1f %7.1fx %10.1f %11.2fx %10.1f %7.2fx"
              % (name, f, p, f / p, c, f / c, f2, f2 / f))


if __name__ == "__main__":
    main()
