#!/usr/bin/env python3
"""make bench's PyTorch rows: records per second into a training loop.

usage: torch_bench.py DATA BUILD REPS

On the tutorial and wide corpora, batches of 256, each rate the median of
REPS passes over the same file:
- read: the module's read() (NumPy batches), the floor;
- featc.torch: TFRecordDataset through featc.torch.DataLoader with
  num_workers 0 and 2 (split_bytes so that each worker has parts), and
  num_workers=0 shuffled (a buffer of 8192 records);
- the plain-Python way, as the `tfrecord` package does it: an
  IterableDataset that frames records in Python (no CRC check), parses
  each with python3-protobuf's Example.FromString and makes a dict of
  tensors per record, which DataLoader(batch_size=256) collates (over the
  first 20,000 records: it is two orders slower);
- and the loader with 2 workers in batches of 4,096, where torch's cost
  per batch (its transfer between processes) is spread over more records.
"""
import os
import struct
import sys
import time

import torch
import torch.utils.data as tud

data, build, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, os.path.join(build, "python"))
sys.path.insert(0, os.path.join(build, "bench", "py"))
import featc.torch as ft  # noqa: E402
import tf_example_pb2  # noqa: E402

B = 256
PLAIN_RECORDS = 20000


def median(f):
    v = []
    for _ in range(reps):
        t = time.perf_counter()
        n = f()
        v.append((time.perf_counter() - t, n))
    v.sort()
    return v[len(v) // 2]


class PlainDataset(tud.IterableDataset):
    """The plain-Python way: a record at a time."""

    def __init__(self, path, dense, varlen, limit):
        self.path, self.dense, self.varlen, self.limit = path, dense, varlen, limit

    def __iter__(self):
        with open(self.path, "rb") as f:
            buf = f.read()
        pos, n = 0, 0
        while pos < len(buf) and n < self.limit:
            (size,) = struct.unpack_from("<Q", buf, pos)
            ex = tf_example_pb2.Example.FromString(buf[pos + 12:pos + 12 + size])
            pos += 16 + size
            n += 1
            feat = ex.features.feature
            out = {}
            for key, kind in self.dense:
                if kind == "float":
                    out[key] = torch.tensor(feat[key].float_list.value, dtype=torch.float32)
                else:
                    out[key] = torch.tensor(feat[key].int64_list.value, dtype=torch.int64)
            for key in self.varlen:
                out[key] = torch.tensor(feat[key].int64_list.value, dtype=torch.int64)
            yield out


def plain_collate(items):
    """default_collate for the dense ones; VarLen as values and offsets."""
    out = {}
    for key in items[0]:
        vals = [it[key] for it in items]
        if all(v.shape == vals[0].shape for v in vals):
            out[key] = torch.stack(vals)
        else:
            lengths = torch.tensor([len(v) for v in vals])
            out[key] = (torch.cat(vals), torch.cat([torch.zeros(1, dtype=torch.int64),
                                                    lengths.cumsum(0)]))
    return out


def count(batches):
    n = 0
    for b in batches:
        n += len(next(iter(b.values()))) if isinstance(b, dict) else 0
    return n


def main():
    import tutorial
    import wide
    cases = [("tutorial", tutorial, "tutorial.tfrecord",
              [("feature0", "int"), ("feature1", "int"), ("feature3", "float")], []),
             ("wide", wide, "wide.tfrecord",
              [("dense_%02d" % i, "float") for i in range(0, 40, 4)] + [("label", "float")],
              ["ids_%02d" % i for i in range(0, 40, 4)])]
    print()
    print("PyTorch (records/s into the loop, batches of %d, median of %d)" % (B, reps))
    print("%-9s %10s %10s %10s %10s %12s %10s %10s %10s" % (
        "corpus", "read()", "torch w0", "torch w2", "w0 shuf", "plain py w0", "w2 B=4K",
        "w2/read", "w0/plain"))
    for name, mod, file, dense, varlen in cases:
        path = os.path.join(data, file)
        size = os.path.getsize(path)

        def rate(f):
            t, n = median(f)
            return n / t

        r = rate(lambda: count(mod.read(path, batch_size=B)))

        def loader(workers, shuffle=False, batch=B):
            ds = ft.TFRecordDataset(mod, path, batch, shuffle=shuffle,
                                    split_bytes=max(1 << 20, size // 8))
            return lambda: count(ft.DataLoader(ds, num_workers=workers))
        w0, w2, s0 = rate(loader(0)), rate(loader(2)), rate(loader(0, True))
        w2big = rate(loader(2, batch=4096))
        plain = PlainDataset(path, dense, varlen, PLAIN_RECORDS)
        p = rate(lambda: count(tud.DataLoader(plain, batch_size=B, collate_fn=plain_collate)))
        print("%-9s %10.0f %10.0f %10.0f %10.0f %12.0f %10.0f %9.2fx %9.1fx"
              % (name, r, w0, w2, s0, p, w2big, w2 / r, w0 / p))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
