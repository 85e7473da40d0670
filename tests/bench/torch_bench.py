#!/usr/bin/env python3
"""make bench's PyTorch rows: records per second into a training loop.

usage: torch_bench.py DATA BUILD REPS

On the tutorial and wide corpora, batches of 256, each rate the median of
REPS passes over the same file:
- read: the module's read() (NumPy batches) with threads=1 and 2, the floor;
- featc.torch: TFRecordDataset through featc.torch.DataLoader with
  num_workers=0 and threads 1 and 2 (2: every core here, the default),
  num_workers=2 (a thread each; the file cut for them, as featc.torch
  cuts a file smaller than split_bytes),
  and num_workers=0 shuffled (a buffer of 8192 records);
- the plain-Python way, as the `tfrecord` package does it: an
  IterableDataset that frames records in Python (no CRC check), parses
  each with python3-protobuf's Example.FromString and makes a dict of
  tensors per record, which DataLoader(batch_size=256) collates (over the
  first 20,000 records: it is two orders slower);
- and the loader with 2 workers in batches of 4,096, where torch's cost
  per batch (its transfer between processes) is spread over more records.
Then the ratios the targets are set in, paired (timing.py: 2 x REPS + 1
rounds of A B in turns, median (min-max)), as lines for scripts:
    ratio NAME LINK MEDIAN MIN MAX
with LINK torch-t2/read-t2 (the loader at num_workers=0, threads=2, against
read(threads=2)), torch-t2/torch-t1, read-t2/read-t1, torch-w2/read-t1
(2 workers against read(), a new loader each pass: its workers' start and
stop included) and torch-w2p/read-t1 (one loader with 2 persistent
workers, an epoch a pass, as a training loop runs them).
"""
import os
import struct
import sys
import time

import torch
import torch.utils.data as tud

from timing import paired, quote

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
    print("PyTorch (records/s into the loop, batches of %d, median of %d; t: threads, "
          "w: workers)" % (B, reps))
    print("%-9s %10s %10s %10s %10s %10s %10s %12s %10s %10s" % (
        "corpus", "read() t1", "read() t2", "w0 t1", "w0 t2", "w2", "w0 t2 shuf",
        "plain py w0", "w2 B=4K", "w0/plain"))
    ratio_lines, table = [], []
    for name, mod, file, dense, varlen in cases:
        path = os.path.join(data, file)

        def rate(f):
            t, n = median(f)
            return n / t

        def read(threads):
            return lambda: count(mod.read(path, batch_size=B, threads=threads))

        def loader(workers, threads=None, shuffle=False, batch=B):
            ds = ft.TFRecordDataset(mod, path, batch, shuffle=shuffle, threads=threads)
            return lambda: count(ft.DataLoader(ds, num_workers=workers))

        def persistent(workers):
            dl = ft.DataLoader(ft.TFRecordDataset(mod, path, B), num_workers=workers,
                               persistent_workers=True)
            return lambda: count(dl)
        r1, r2 = rate(read(1)), rate(read(2))
        w0t1, w0t2, w2 = rate(loader(0, 1)), rate(loader(0, 2)), rate(loader(2))
        s0 = rate(loader(0, 2, True))
        w2big = rate(loader(2, batch=4096))
        plain = PlainDataset(path, dense, varlen, PLAIN_RECORDS)
        p = rate(lambda: count(tud.DataLoader(plain, batch_size=B, collate_fn=plain_collate)))
        print("%-9s %10.0f %10.0f %10.0f %10.0f %10.0f %10.0f %12.0f %10.0f %9.1fx"
              % (name, r1, r2, w0t1, w0t2, w2, s0, p, w2big, w0t2 / p))
        sys.stdout.flush()
        links = {}
        for link, fa, fb in (("torch-t2/read-t2", loader(0, 2), read(2)),
                             ("torch-t2/torch-t1", loader(0, 2), loader(0, 1)),
                             ("read-t2/read-t1", read(2), read(1)),
                             ("torch-w2/read-t1", loader(2), read(1)),
                             ("torch-w2p/read-t1", persistent(2), read(1))):
            links[link] = paired(fa, fb, 2 * reps + 1)[0]
            ratio_lines.append("ratio %s %s %.3f %.3f %.3f" % ((name, link) + links[link]))
        table.append((name, links))
    print("  paired, median (min-max) of %d rounds:" % (2 * reps + 1))
    keys = ("torch-t2/read-t2", "torch-t2/torch-t1", "read-t2/read-t1", "torch-w2/read-t1",
            "torch-w2p/read-t1")
    print("  %-9s %-18s %-18s %-18s %-18s %-18s" % (("corpus",) + keys))
    for name, links in table:
        print("  %-9s %-18s %-18s %-18s %-18s %-18s" % ((name,) + tuple(quote(links[k])
                                                                       for k in keys)))
    for line in ratio_lines:
        print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
