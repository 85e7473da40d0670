#!/usr/bin/env python3
"""featc.torch against one sequential read of the same files.

usage: test_torch.py BUILD CORPUS BENCH_DATA TMP

For each set of sources (a slice of make bench's tutorial corpus, plain and
cut into byte ranges, as one GZIP file, as seekable GZIP with its member
list; corpus files through their specs, plain and GZIP), with DataLoader
num_workers 0, 1, 2 and simulated ranks (2 and 3), shuffled or not: the
records of every rank together are the records of mod.read() over the same
files, each once (as a multiset; unshuffled on one rank and worker, in the
same order).  With a seed, the same stream twice; another epoch, another
order of the same records.  even='drop' and 'pad': the same number of
batches on every rank.  state_dict() after k batches, then a new
loader's load_state_dict(): exactly the rest, in the same order (0, 1, 2
workers; persistent workers over two epochs).  drop_last, varlen='padded'
and 'sparse', pin_memory and a collate_fn; wrong arguments."""
import gzip
import os
from collections import Counter
import shutil
import struct
import sys
import time

import numpy as np
import torch
import torch.utils.data as tud

BUILD, CORPUS, BENCH, TMP = sys.argv[1:5]
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import featc  # noqa: E402
import featc.torch as ft  # noqa: E402
from framing import write_seekable  # noqa: E402
from tally import check, finish  # noqa: E402


def value_rows(v, n):
    """The per-record parts of one column of a batch (as to_torch gives)."""
    if isinstance(v, ft.Ragged):
        splits = v.offsets if isinstance(v.offsets, tuple) else (v.offsets,)
        out = []
        for b in range(n):
            lo, hi = int(splits[0][b]), int(splits[0][b + 1])
            shape = [hi - lo]
            for s in splits[1:]:
                lo, hi = int(s[lo]), int(s[hi])
                shape.append(hi - lo)
            vals = v.values
            if torch.is_tensor(vals):
                part = vals[lo:hi].numpy().tobytes()
            else:
                part = b"|".join(vals[i] for i in range(lo, hi))
            out.append((tuple(shape), part))
        return out
    if torch.is_tensor(v):
        if v.is_sparse:
            d = v.to_dense()
            return [d[b].numpy().tobytes() for b in range(n)]
        return [v[b].numpy().tobytes() for b in range(n)]
    if hasattr(v, "offsets") and hasattr(v, "shape"):  # featc Bytes
        per = 1
        for s in v.shape[1:]:
            per *= s
        return [tuple(v[b * per + i] for i in range(per)) for b in range(n)]
    raise TypeError("no rows for %r" % type(v))


def rows_in(v):
    if isinstance(v, ft.Ragged):
        return len(v.offsets[0] if isinstance(v.offsets, tuple) else v.offsets) - 1
    return v.shape[0]


def batch_rows(batch):
    """The records of a batch, each a tuple of its columns' parts (a
    sequence_example's padded lists cut to each record's length: the
    padding depends on the batch)."""
    dicts = batch if isinstance(batch, (tuple, list)) else (batch,)
    lengths = dicts[2] if len(dicts) == 3 else {}
    cols, n = [], None
    for j, d in enumerate(dicts):
        for key in sorted(d):
            v = d[key]
            if n is None:
                n = rows_in(v)
            if j == 1 and key in lengths and torch.is_tensor(v) and not v.is_sparse:
                cols.append([v[b][:int(lengths[key][b])].numpy().tobytes() for b in range(n)])
            elif j == 1 and key in lengths and hasattr(v, "offsets"):  # bytes frames
                per = len(v) // max(1, n)
                cols.append([tuple(v[b * per + i] for i in range(int(lengths[key][b])))
                             for b in range(n)])
            else:
                cols.append(value_rows(v, n))
    return list(zip(*cols)) if cols else []


def sequential(mod, files, **kw):
    out = []
    for b in mod.read(files, batch_size=64, varlen="ragged", **kw):
        out.extend(batch_rows(ft.to_torch(b)))
    return out


def loader_rows(ds, workers, **kw):
    out, sizes = [], []
    for b in ft.DataLoader(ds, num_workers=workers, **kw):
        r = batch_rows(b)
        out.extend(r)
        sizes.append(len(r))
    return out, sizes


def key(r):
    return repr(r)


def same_multiset(a, b):
    return sorted(map(key, a)) == sorted(map(key, b))


def head(src, dst, records):
    data = open(src, "rb").read()
    pos = 0
    for _ in range(records):
        if pos >= len(data):
            break
        (n,) = struct.unpack_from("<Q", data, pos)
        pos += 16 + n
    with open(dst, "wb") as f:
        f.write(data[:pos])


FULL = ((1, 0), (1, 1), (1, 2), (2, 0), (2, 2), (3, 0), (3, 1))
SOME = ((1, 0), (1, 2), (3, 1))


def sharding(name, mod, files, split_bytes, batch_size=100, configs=SOME):
    want = sequential(mod, files)
    check(len(want) > 0, "%s: records to read" % name)
    for shuffle in (False, True):
        for ranks, workers in configs:
            got = []
            for rank in range(ranks):
                ds = ft.TFRecordDataset(mod, files, batch_size, shuffle=shuffle, seed=11,
                                        shuffle_buffer=500, rank=rank, world_size=ranks,
                                        split_bytes=split_bytes)
                rows, sizes = loader_rows(ds, workers)
                got.extend(rows)
                check(all(s == batch_size for s in sizes[:-1]) or workers > 1 or ranks > 1,
                      "%s: batches of %d but %r" % (name, batch_size, sizes[:8]))
            label = "%s, shuffle=%s, %d rank(s), %d worker(s)" % (name, shuffle, ranks, workers)
            check(same_multiset(got, want), "%s: %d records, one read %d (or others)"
                  % (label, len(got), len(want)))
            if not shuffle and ranks == 1 and workers <= 1:
                check(got == want, "%s: not in the file's order" % label)
            if shuffle and ranks == 1 and workers == 0:
                check(got != want or len(want) < 3, "%s: not shuffled" % label)


def evenness(name, mod, files, split_bytes, batch_size=64, changed_words=None):
    """even='drop' and 'pad': every rank yields the same number of batches
    per epoch (shuffled or not, 0, 1 and 2 workers): the fewest ('drop') or
    the most ('pad') that any rank yields without even=; 'drop' reads each
    record at most once, 'pad' reads every record."""
    want = sequential(mod, files)
    for ranks, workers in ((2, 0), (3, 0), (2, 2), (3, 1)):
        for even in ("drop", "pad"):
            for shuffle, epoch in ((False, 0), (True, 1)):
                natural = []  # (each rank's batches without even=)
                for rank in range(ranks):
                    ds = ft.TFRecordDataset(mod, files, batch_size, shuffle=shuffle, seed=3,
                                            shuffle_buffer=100, rank=rank, world_size=ranks,
                                            split_bytes=split_bytes)
                    ds.set_epoch(epoch)
                    natural.append(len(loader_rows(ds, workers)[1]))
                per, got = [], []
                for rank in range(ranks):
                    ds = ft.TFRecordDataset(mod, files, batch_size, shuffle=shuffle, seed=3,
                                            shuffle_buffer=100, rank=rank, world_size=ranks,
                                            split_bytes=split_bytes, even=even)
                    ds.set_epoch(epoch)
                    rows, sizes = loader_rows(ds, workers)
                    per.append(len(sizes))
                    got.extend(rows)
                label = "%s, even=%s, %d ranks, %d workers, shuffle=%s" % (
                    name, even, ranks, workers, shuffle)
                keys, all_keys = sorted(map(key, got)), sorted(map(key, want))
                target = min(natural) if even == "drop" else max(natural)
                check(per == [target] * ranks, "%s: batches per rank %s, want %d each (%s "
                      "without)" % (label, per, target, natural))
                if even == "drop":
                    # (as a multiset: the three files hold the same records)
                    have, full = Counter(keys), Counter(all_keys)
                    sub = all(have[k] <= full[k] for k in have)
                    check(sub, "%s: %d of %d records, each once" % (label, len(got), len(want)))
                else:
                    check(set(keys) == set(all_keys) and len(got) >= len(want),
                          "%s: %d records, every one of %d" % (label, len(got), len(want)))
    # the counts are a claim: a file that grows or shrinks after the dataset
    # counted it fails the epoch, it does not pad or drop by stale counts
    data = open(files[0], "rb").read()
    changed = os.path.join(TMP, "changed.tfrecord")
    cut = 0  # (a record boundary near a third: no record cut, just fewer of them)
    while cut < len(data) // 3:
        cut += 16 + struct.unpack_from("<Q", data, cut)[0]
    for how, new in (("more", data + data), ("fewer", data[:cut])):
        with open(changed, "wb") as f:
            f.write(data)
        ds = ft.TFRecordDataset(mod, [changed], batch_size, even="pad", rank=0, world_size=2,
                                split_bytes=split_bytes)
        with open(changed, "wb") as f:
            f.write(new)
        try:
            n = len(loader_rows(ds, 0)[1])
            check(False, "%s: %s records than counted: %d batches, no error" % (name, how, n))
        except RuntimeError as e:
            # (parts cut for the readers are counted when the loader starts:
            # the file's change is seen then)
            check((changed_words or how + " batches than") in str(e), "%s: %s records than counted: %s"
                  % (name, how, e))
    try:
        ft.TFRecordDataset(mod, files, 8, even="both")
        check(False, "even='both' accepted")
    except ValueError:
        check(True, "even='both' refused")


def determinism(name, mod, files, split_bytes):
    def stream(epoch, workers=2, seed=5, **kw):
        ds = ft.TFRecordDataset(mod, files, 64, shuffle=True, seed=seed, shuffle_buffer=300,
                                split_bytes=split_bytes)
        ds.set_epoch(epoch)
        return loader_rows(ds, workers, **kw)[0]
    a, b = stream(0), stream(0)
    check(a == b, "%s: the same seed and epoch gave two streams" % name)
    c = stream(1)
    check(c != a and same_multiset(a, c), "%s: epoch 1 is not another order of epoch 0" % name)
    check(stream(0, seed=6) != a, "%s: another seed, the same stream" % name)
    # persistent workers see set_epoch
    ds = ft.TFRecordDataset(mod, files, 64, shuffle=True, seed=5, shuffle_buffer=300,
                            split_bytes=split_bytes)
    loader = ft.DataLoader(ds, num_workers=2, persistent_workers=True)
    epochs = []
    for e in (0, 1):
        ds.set_epoch(e)
        epochs.append([r for bt in loader for r in batch_rows(bt)])
    check(epochs[0] == a and epochs[1] == c,
          "%s: persistent workers read other streams than fresh ones" % name)


def resume(name, mod, files, split_bytes):
    # (cap: the workers' bundles closed by their bytes, every 2 batches of
    # 50 records (1,000 bytes of tensors each) past the first 3, where a
    # resumed bundle's rest must end where it did, not where it would)
    bundle_bytes = ft.BUNDLE_BYTES
    for workers, rank, ranks, even, cap in (
            (0, 0, 1, None, None), (1, 0, 1, None, None), (2, 0, 1, None, None),
            (2, 1, 2, None, None), (2, 1, 3, "pad", None), (0, 2, 3, "pad", None),
            (2, 0, 1, None, 2500)):
        ft.BUNDLE_BYTES = cap or bundle_bytes

        def make(rank=rank, ranks=ranks, even=even):
            return ft.TFRecordDataset(mod, files, 50, shuffle=True, seed=3,
                                      shuffle_buffer=200, rank=rank, world_size=ranks,
                                      split_bytes=split_bytes, even=even)
        full = [batch_rows(b) for b in ft.DataLoader(make(), num_workers=workers)]
        stops = {0, 1, len(full) // 2, len(full) - 1, len(full)}
        if cap:  # (inside a bundle of 2: after an odd number of batches)
            stops |= {7, len(full) // 2 + 1}
        for stop in sorted(stops):
            if stop > len(full):
                continue
            loader = ft.DataLoader(make(), num_workers=workers)
            first = []
            state = loader.state_dict()
            for i, b in enumerate(loader):
                if i == stop:
                    break
                first.append(batch_rows(b))
                state = loader.state_dict()
            del loader
            again = ft.DataLoader(make(), num_workers=workers)
            again.load_state_dict(state)
            rest = [batch_rows(b) for b in again]
            check(first + rest == full, "%s: resumed after %d of %d batches with %d "
                  "worker(s), rank %d of %d, even=%s, bundles of %s bytes: %d batches, "
                  "not the %d left" % (name, stop, len(full), workers, rank, ranks, even,
                                       cap or "up to %d" % bundle_bytes, len(rest),
                                       len(full) - stop))
            if ranks == 1 and stop == len(full) // 2:
                # the epoch after it is a whole one (of this rank alone
                # when there are several: its share is drawn again)
                again.dataset.set_epoch(1)
                nxt = [r for b in again for r in batch_rows(b)]
                check(same_multiset(nxt, [r for b in full for r in b]),
                      "%s: the epoch after a resumed one is not whole (%d workers)"
                      % (name, workers))
    ft.BUNDLE_BYTES = bundle_bytes


class _FakeRagged:
    """What to_torch takes for a module's one-level Ragged."""
    def __init__(self, values, splits):
        self.values, self.row_splits = np.asarray(values), np.asarray(splits)


def padded_clash():
    """varlen='padded' puts x's lengths under x/lengths: a feature with that
    key is an error, whichever of the two comes first, never one silently
    replacing the other."""
    x = _FakeRagged([1, 2, 3], [0, 1, 3])
    for batch in ({"x": x, "x/lengths": np.array([7, 7])},
                  {"x/lengths": np.array([7, 7]), "x": x}):
        try:
            ft.to_torch(batch, varlen="padded")
            check(False, "padded: x/lengths clash not refused (%s first)" % next(iter(batch)))
        except ValueError as e:
            check("'x/lengths', which is also a feature's key" in str(e),
                  "padded clash message: %s" % e)
    out = ft.to_torch({"x": x, "y/lengths": np.array([7, 7])}, varlen="padded")
    check(out["x/lengths"].tolist() == [1, 2] and out["y/lengths"].tolist() == [7, 7],
          "padded: lengths beside an unrelated */lengths key")


def conversions(mod, files):
    ds = ft.TFRecordDataset(mod, files, 32, varlen="padded")
    b = next(iter(ds))
    raw = next(iter(mod.read(files, batch_size=32, varlen="ragged")))
    for key, v in raw.items():
        if hasattr(v, "row_splits") and not isinstance(v.row_splits, tuple) and \
                isinstance(v.values, np.ndarray):
            splits = v.row_splits
            lengths = splits[1:] - splits[:-1]
            check(np.array_equal(b[key + "/lengths"].numpy(), lengths),
                  "padded %s: lengths" % key)
            pad = b[key].numpy()
            ok = pad.shape == (len(lengths), int(lengths.max()) if len(lengths) else 0)
            for i in range(len(lengths)):
                ok = ok and np.array_equal(pad[i, :lengths[i]], v.values[splits[i]:splits[i + 1]])
                ok = ok and not pad[i, lengths[i]:].any()
            check(ok, "padded %s: the values and zeros" % key)
        elif isinstance(v, np.ndarray):
            t = b[key]
            check(torch.equal(t, torch.from_numpy(v)), "%s: the tensor's values" % key)
            t.view(-1)[0] += 1  # shares memory with the block: a view of it sees the change
            check(b[key].view(-1)[0] == t.view(-1)[0], "%s: a copy" % key)
    sp = next(iter(ft.TFRecordDataset(mod, files, 32, varlen="sparse")))
    raw = next(iter(mod.read(files, batch_size=32, varlen="sparse")))
    for key, v in raw.items():
        if hasattr(v, "dense_shape") and isinstance(v.values, np.ndarray):
            d = sp[key].to_dense().numpy()
            want = np.zeros(tuple(v.dense_shape), v.values.dtype)
            want[tuple(v.indices.T)] = v.values
            check(np.array_equal(d, want), "sparse %s: the dense values" % key)


def sparse_workers(mod, files):
    """Sparse tensors from DataLoader workers: torch 1.13 cannot send them
    between processes (the worker's queue failed on them and the loop
    waited forever); they cross as their parts and arrive as sparse tensors,
    equal to one process's, through featc.torch.DataLoader (with and
    without a collate_fn) and torch's own DataLoader."""
    # (ratings whole: write() took its component keys, item and rating,
    # without a word and wrote none of them, until it refused such keys)
    mod.write(files[0], [{"city": b"c%d" % (i % 3), "pay": 1.5 * i, "poi": [b"p", b"q"][:i % 3],
                          "ratings": featc.Sparse(np.arange(i % 4).reshape(-1, 1),
                                                  np.full(i % 4, 0.5, np.float32),
                                                  np.array([100000]))}
                         for i in range(100)])
    ds = ft.TFRecordDataset(mod, files, 16, varlen="sparse")

    def tensors(b):
        """A batch's tensors by key: whether sparse, and their values."""
        return {k: (v.is_sparse, v.to_dense() if v.is_sparse else v) for k, v in b.items()
                if torch.is_tensor(v)}
    want = [tensors(b) for b in ft.DataLoader(ds, num_workers=0)]
    check(any(v.is_sparse and v._nnz() > 0 for v in next(iter(ds)).values()
              if torch.is_tensor(v)),
          "sparse workers: the spec has a sparse output, with values")
    for what, make in (("featc.torch.DataLoader, 2 workers",
                        lambda: ft.DataLoader(ds, num_workers=2, timeout=30)),
                       ("torch's DataLoader, 1 worker",
                        lambda: tud.DataLoader(ds, batch_size=None, num_workers=1, timeout=30)),
                       ("a collate_fn, 2 workers",
                        lambda: ft.DataLoader(ds, num_workers=2, timeout=30,
                                              collate_fn=lambda b: b))):
        try:
            got = [tensors(b) for b in make()]
        except RuntimeError as e:  # (the timeout: the old hang)
            check(False, "sparse tensors from workers, %s: %s" % (what, e))
            continue
        same = len(got) == len(want) and all(
            g.keys() == w.keys() and all(g[k][0] == w[k][0] and torch.equal(g[k][1], w[k][1])
                                         for k in w)
            for g, w in zip(sorted(got, key=repr), sorted(want, key=repr)))
        check(same, "sparse tensors from workers, %s: %d batches, one process %d"
              % (what, len(got), len(want)))


class CountRows:
    """A collate_fn: the batch's rows and its first tensor doubled."""
    def __call__(self, b):
        first = next(v for v in b.values() if torch.is_tensor(v))
        return {"n": torch.tensor([len(batch_rows(b))]), "twice": first * 2}


def ring_files():
    """Ring files of this process, in /dev/shm or still mapped (a map of a
    removed file keeps its pages)."""
    with open("/proc/self/maps") as f:
        mapped = [line.split(None, 5)[5].strip() for line in f if "/featc-ring-" in line]
    return [f for f in os.listdir("/dev/shm")
            if f.startswith("featc-ring-%d-" % os.getpid())] + mapped


def ring_handover(mod, files):
    """featc.torch.DataLoader's workers hand batches over through its ring
    of shared memory (featc/_ring.py): every batch, the same ones torch's
    way gives (a slot too small for them), after a collate_fn too; its file
    is gone once the loop ends or breaks, and with persistent workers once
    the loader is."""
    import gc
    import featc._ring as R
    files_left = ring_files
    ds = ft.TFRecordDataset(mod, files, 64, shuffle=True, seed=4, shuffle_buffer=200,
                            split_bytes=1 << 15)
    want = sorted(map(key, loader_rows(ds, 0)[0]))
    for workers in (1, 2):
        loader = ft.DataLoader(ds, num_workers=workers)
        batches = [batch_rows(b) for b in loader]
        check(sorted(map(key, (r for b in batches for r in b))) == want,
              "ring, %d workers: not every record once" % workers)
        check(loader._ring is not None and loader._ring.taken == len(batches) > 0,
              "ring, %d workers: %s of %d batches through the ring"
              % (workers, loader._ring and loader._ring.taken, len(batches)))
        old = R.SLOT_BYTES
        R.SLOT_BYTES = 128  # (no batch fits: torch's way)
        try:
            small = ft.DataLoader(ds, num_workers=workers)
            theirs = [batch_rows(b) for b in small]
        finally:
            R.SLOT_BYTES = old
        check(small._ring.taken == 0 and theirs == batches,
              "ring, %d workers: %d batches through a ring too small; torch's way gives "
              "other batches" % (workers, small._ring.taken))
        def collated():
            loader = ft.DataLoader(ds, num_workers=workers, collate_fn=CountRows())
            return [(int(b["n"]), b["twice"].sum().item()) for b in loader], loader._ring.taken
        got, taken = collated()
        R.SLOT_BYTES = 128
        try:
            theirs, _ = collated()
        finally:
            R.SLOT_BYTES = old
        check(sum(n for n, _ in got) == len(want) and taken == len(got) and got == theirs,
              "ring, %d workers, a collate_fn: %r, torch's way %r" % (workers, got[:3],
                                                                       theirs[:3]))
    # workers started by spawn (the ring's semaphores go with them as they start)
    loader = ft.DataLoader(ds, num_workers=2, multiprocessing_context="spawn")
    batches = [batch_rows(b) for b in loader]
    check(sorted(map(key, (r for b in batches for r in b))) == want and
          loader._ring.taken == len(batches),
          "ring, spawn: %d batches, %d through the ring" % (len(batches), loader._ring.taken))
    check(files_left() == [], "ring: files left after the loops: %r" % files_left())
    for i, b in enumerate(ft.DataLoader(ds, num_workers=2)):
        if i == 2:
            break
    gc.collect()
    check(files_left() == [], "ring: files left after a loop broken off: %r" % files_left())
    loader = ft.DataLoader(ds, num_workers=2, persistent_workers=True)
    e0 = [batch_rows(b) for b in loader]
    e1 = [batch_rows(b) for b in loader]
    ring_path = loader._ring.path  # (its file, and its map in this process)
    check(e0 == e1 and loader._ring.taken == len(e0) + len(e1) and
          files_left() == [os.path.basename(ring_path), ring_path],
          "ring, persistent workers: %d and %d batches, %d through the ring, files %r"
          % (len(e0), len(e1), loader._ring.taken, files_left()))
    del loader
    gc.collect()
    check(files_left() == [], "ring: files left after a persistent loader: %r" % files_left())


def worker_failures(mod, files):
    """A worker that raises is that exception in the loop; one that dies
    (os._exit, a signal) is a RuntimeError within seconds: never a wait."""
    ds = ft.TFRecordDataset(mod, files, 16)

    def boom(b):
        raise ValueError("collate failed on purpose")

    for what, fn, kind, words in (("raises", boom, ValueError, "on purpose"),
                                  ("dies", lambda b: os._exit(3), RuntimeError, "exited")):
        start = time.time()
        try:
            for _ in ft.DataLoader(ds, num_workers=1, collate_fn=fn):
                pass
            check(False, "a worker that %s: the loop ended without an error" % what)
        except kind as e:
            check(words in str(e) and time.time() - start < 30,
                  "a worker that %s: %s after %.1f s" % (what, e, time.time() - start))
    # one of two workers killed (SIGKILL, as the OOM killer does) after it
    # handed batches through the ring: torch's error for a dead worker (its
    # text names the signal or says the worker exited, by which of its
    # checks sees it first), the batches before it, and no ring file left.
    # Each worker hands over bundles (batches 0, 1-2, 3-6, 7-14, 15-30,
    # 31-62, 63-94, ...); worker 1 dies collating its batch 70, in its
    # seventh bundle, torch's task 13, which torch asks for (2 tasks ahead
    # per worker) only as it gives the loop task 9, worker 1's batches
    # 15-30: by then tasks 0-8 were yielded (46 batches) and 0-9 came
    # through the ring (62)
    import gc
    import signal
    big = ft.TFRecordDataset(mod, files, 16, split_bytes=1 << 14)
    start, got = time.time(), 0
    try:
        loader = ft.DataLoader(big, num_workers=2, collate_fn=KillAt(1, 70, signal.SIGKILL))
        for _ in loader:
            got += 1
        check(False, "a worker killed: the loop ended without an error after %d batches" % got)
    except RuntimeError as e:
        check(("killed by signal" in str(e) or "exited unexpectedly" in str(e)) and got >= 46 and
              loader._ring.taken >= 62 and time.time() - start < 30,
              "a worker killed: %s after %d batches (%s through the ring), %.1f s"
              % (e, got, loader._ring.taken, time.time() - start))
    del loader
    gc.collect()
    check(ring_files() == [], "a worker killed: ring files left: %r" % ring_files())


class KillAt:
    """A collate_fn (picklable) that kills worker `worker` with `sig` as it
    collates its batch number `at`, and passes the others on."""

    def __init__(self, worker, at, sig):
        self.worker, self.at, self.sig, self.seen = worker, at, sig, 0

    def __call__(self, b):
        if tud.get_worker_info().id == self.worker:
            if self.seen == self.at:
                os.kill(os.getpid(), self.sig)
            self.seen += 1
        return b


def options(mod, files):
    got = loader_rows(ft.TFRecordDataset(mod, files, 100, drop_last=True, split_bytes=1 << 15),
                      2)[1]
    check(all(s == 100 for s in got), "drop_last: batch sizes %r" % got[:8])
    class Count:
        def __call__(self, b):
            return {"n": len(batch_rows(b))}
    for workers in (0, 1):
        out = [b["n"] for b in ft.DataLoader(ft.TFRecordDataset(mod, files, 100),
                                             num_workers=workers, collate_fn=Count(),
                                             pin_memory=True)]
        check(sum(out) == len(sequential(mod, files)),
              "collate_fn and pin_memory, %d workers: %d records" % (workers, sum(out)))
    # in the main process, the batches torch's own loader gives, and a state
    # taken mid-epoch counts what was yielded
    ds = ft.TFRecordDataset(mod, files, 100, shuffle=True, seed=2, shuffle_buffer=100)
    mine = [batch_rows(b) for b in ft.DataLoader(ds, num_workers=0)]
    theirs = [batch_rows(b) for b in tud.DataLoader(ds, batch_size=None, num_workers=0)]
    check(mine == theirs, "num_workers=0: other batches than torch's DataLoader's")
    loader = ft.DataLoader(ds, num_workers=0)
    for i, b in enumerate(loader):
        if i == 2:
            break
    check(loader.state_dict()["counts"] == {0: 3},
          "num_workers=0: counts %r after 3 batches" % (loader.state_dict()["counts"],))
    for kw, what in (({"rank": 2, "world_size": 2}, ValueError),
                     ({"rank": 0}, ValueError), ({"varlen": "dense"}, ValueError),
                     ({"batch_size": 0}, ValueError), ({"shuffle": True, "shuffle_buffer": 0},
                                                       ValueError)):
        args = dict(kw)
        bs = args.pop("batch_size", 10)
        try:
            ft.TFRecordDataset(mod, files, bs, **args)
            check(False, "%r: accepted" % kw)
        except what:
            check(True, "")
    try:
        ft.TFRecordDataset(mod, os.path.join(TMP, "nothing-*.tfrecord"))
        check(False, "a glob without matches: accepted")
    except FileNotFoundError:
        check(True, "")
    a = ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1), num_workers=1)
    b = ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=2), num_workers=1)
    try:
        b.load_state_dict(a.state_dict())
        check(False, "a state of another seed: accepted")
    except ValueError as e:
        check("seed" in str(e), "another seed's state: %s" % e)
    try:
        ft.DataLoader(ft.TFRecordDataset(mod, files, 10), batch_size=4)
        check(False, "a loader batch_size: accepted")
    except ValueError:
        check(True, "")
    forged_states(mod, files)


def thread_counts(mod, files):
    """threads=1 by default; None: every usable core in the main process,
    one in a worker; the stream is the same whatever the threads (shuffled,
    and resumed)."""
    def make(threads, seed=3):
        return ft.TFRecordDataset(mod, files, 64, shuffle=True, seed=seed, shuffle_buffer=300,
                                  split_bytes=1 << 15, threads=threads)

    class Spy:
        """The module, with the threads= each read() got."""
        def __init__(self, mod):
            self.mod, self.seen = mod, []

        def read(self, *a, **kw):
            self.seen.append(kw.get("threads"))
            return self.mod.read(*a, **kw)
    cores = ft.usable_cores()
    check(ft.TFRecordDataset(mod, files, 64).threads == 1, "threads: the default is not 1")
    for threads, want in ((None, cores), (1, 1), (2, 2), (3, 3)):
        ds = make(threads)
        spy = Spy(mod)
        ds._mod = spy  # (the dataset itself: a DataLoader reads a copy, without the module)
        rows = [r for b in ds for r in batch_rows(b)]
        check(rows == loader_rows(make(threads), 0)[0],
              "threads=%r: the dataset and its loader give two streams" % (threads,))
        check(spy.seen and set(spy.seen) == {want},
              "threads=%r in the main process: read() got threads=%r, want %d (usable cores %d)"
              % (threads, sorted(set(spy.seen)), want, cores))
        if threads is None:
            base = rows
        check(rows == base, "threads=%r: another stream than threads=None's" % (threads,))

    class Probe(tud.IterableDataset):
        def __init__(self, ds):
            super().__init__()
            self.ds = ds

        def __iter__(self):
            yield self.ds._threads()
    got = list(tud.DataLoader(Probe(make(None)), num_workers=1, batch_size=None))
    check(got == [1], "threads=None in a worker: %r threads, want 1" % (got,))
    got = list(tud.DataLoader(Probe(make(2)), num_workers=1, batch_size=None))
    check(got == [2], "threads=2 in a worker: %r threads, want 2" % (got,))
    check(loader_rows(make(None), 2)[0] == loader_rows(make(1), 2)[0],
          "threads=None and 1 with 2 workers: two streams")
    # a state taken with threads=2 resumes with the default threads
    full = [batch_rows(b) for b in ft.DataLoader(make(2), num_workers=0)]
    loader = ft.DataLoader(make(2), num_workers=0)
    first = []
    for i, b in enumerate(loader):
        first.append(batch_rows(b))
        if i == len(full) // 2:
            break
    state = loader.state_dict()
    again = ft.DataLoader(make(None), num_workers=0)
    again.load_state_dict(state)
    check(first + [batch_rows(b) for b in again] == full,
          "a threads=2 state resumed with threads=None: not the rest of the epoch")
    for bad in (0, -1, 1.5, True, "2"):
        try:
            make(bad)
            check(False, "threads=%r: accepted" % (bad,))
        except ValueError as e:
            check("threads must be a positive int or None" in str(e), "threads=%r: %s" % (bad, e))


def idle_warnings(mod, small, gz):
    """Readers (ranks x workers) that outnumber the parts: featc.torch.DataLoader
    warns once, naming why each file gives too few parts and the fix; none
    when every reader has a part (a small file cut for them)."""
    import warnings
    size = os.path.getsize(small)
    tiny = os.path.join(TMP, "tiny.tfrecord")
    head(small, tiny, 300)
    check(os.path.getsize(tiny) < 2 * (64 << 10), "tiny.tfrecord is below two ranges")
    for files, kw, workers, words in (
            ([gz], {}, 2, ["1 of them get none", "GZIP without a member index",
                           "featc index " + gz]),
            ([small], {"split_bytes": size + 1}, 2, None),
            ([small], {}, 2, None),
            ([tiny], {}, 2, ["1 of them get none", "(%d bytes) is too small to cut into more "
                             "ranges of at least 65536 bytes" % os.path.getsize(tiny),
                             "num_workers=0"]),
            ([small], {"split_bytes": size // 2 + 1, "rank": 0, "world_size": 2}, 2, None),
            ([small], {"rank": 0, "world_size": 2}, 4,
             ["8 readers (world_size 2 x num_workers 4) share %d parts" % (size // (64 << 10)),
              "cut into ranges of at least 65536 bytes, %d of them" % (size // (64 << 10))]),
            ([small], {"split_bytes": None}, 2, ["is read whole: split_bytes=None"]),
            ([small], {"split_bytes": size // 2 + 1}, 2, None),
            ([gz], {}, 0, None)):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            ft.DataLoader(ft.TFRecordDataset(mod, files, 10, **kw), num_workers=workers)
        texts = [str(w.message) for w in got if issubclass(w.category, RuntimeWarning)]
        if words is None:
            check(texts == [], "%r, %d workers: warned %r" % (kw, workers, texts))
        else:
            check(len(texts) == 1 and all(w in texts[0] for w in words),
                  "%r, %d workers: warnings %r, wanted one with %r" % (kw, workers, texts, words))


def cut_for_readers(mod, small):
    """A file smaller than split_bytes is cut among the readers (ranks x
    workers): every reader's parts hold records, and all of them hold every
    record once; a seekable GZIP file by its members likewise."""
    stream = os.path.join(TMP, "cut.tfrecord")
    head(os.path.join(BENCH, "tutorial.tfrecord"), stream, 32000)
    seek = os.path.join(TMP, "cut.tfrecord.gz")
    with open(stream, "rb") as f:
        write_seekable(f.read(), seek, 32768)
    check(os.path.getsize(seek) >= 4 * (64 << 10), "cut.tfrecord.gz holds four ranges")
    for path in (small, seek):
        total = sum(ft.record_counts(mod, [(path, None)]).values())
        for readers in (2, 3, 4):
            ds = ft.TFRecordDataset(mod, [path], 10)
            parts = ds.parts_for(readers)
            counts = ft.record_counts(mod, parts)
            check(len(parts) >= readers and sum(counts.values()) == total,
                  "%s, %d readers: %d parts, %d of %d records" % (
                      os.path.basename(path), readers, len(parts), sum(counts.values()), total))
            for shard in range(readers):
                mine = ds.shard_parts(0, shard, readers)
                check(sum(counts[p] for p in mine) > 0, "%s, %d readers: shard %d reads none "
                      "of %r" % (os.path.basename(path), readers, shard, mine))
    sharding("tutorial, cut for the readers", mod, [small], ft.DEFAULT_SPLIT_BYTES, configs=FULL)
    sharding("tutorial, seekable GZIP cut for the readers", mod, [seek], ft.DEFAULT_SPLIT_BYTES)
    evenness("tutorial, cut for the readers", mod, [small], ft.DEFAULT_SPLIT_BYTES,
             changed_words="changed since the dataset was made and its records counted")


def forged_states(mod, files):
    """A loader state is a claim: one taken over other files (as many
    parts), the same file changed, another spec or setting, or with counts,
    epoch, shards or types no loader of these files can have, raises
    ValueError saying what, before any batch."""
    other = os.path.join(TMP, "other.tfrecord")
    shutil.copy(files[0], other)
    with open(other, "ab") as f:  # (one more record: another size, the same parts)
        f.write(open(files[0], "rb").read()[:16 + struct.unpack("<Q", open(
            files[0], "rb").read(8))[0]])
    a = ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1), num_workers=1)
    it = iter(a)
    next(it)
    good = a.state_dict()
    del it

    def refused(state, words, what, loader=None):
        b = loader if loader is not None else ft.DataLoader(
            ft.TFRecordDataset(mod, files, 10, seed=1), num_workers=1)
        try:
            b.load_state_dict(state)
            check(False, "a loader state %s: accepted" % what)
        except ValueError as e:
            check(words in str(e), "a loader state %s: %s" % (what, e))

    refused(good, "files", "of another file of as many parts",
            ft.DataLoader(ft.TFRecordDataset(mod, [other], 10, seed=1), num_workers=1))
    refused(good, "settings", "of other settings",
            ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1, drop_last=True),
                          num_workers=1))
    refused(good, "spec", "of another spec",
            ft.DataLoader(ft.TFRecordDataset(featc.load("mnist"), files, 10, seed=1),
                          num_workers=1))
    for what, change, words in (
            ("whose count is 10**12", {"counts": {0: 10 ** 12}}, "cannot hold"),
            ("whose count is negative", {"counts": {0: -1}}, "cannot hold"),
            ("whose count is a string", {"counts": {0: "3"}}, "cannot hold"),
            ("of a shard that does not exist", {"counts": {7: 1}}, "not one of this rank"),
            ("whose last shard does not exist", {"last": 5}, "last shard"),
            ("of epoch -1", {"epoch": -1}, "epoch"),
            ("whose epoch is a string", {"epoch": "0"}, "epoch"),
            ("whose counts are a list", {"counts": [1]}, "counts"),
            ("whose open bundle is past one", {"open": 32}, "open"),
            ("whose open bundle is negative", {"open": -1}, "open"),
            ("whose open bundle is a string", {"open": "3"}, "open"),
            ("whose open bundle is True", {"open": True}, "open"),
            ("with an open bundle and no last shard", {"open": 3, "last": None}, "open"),
            ("with no digest", {"parts_digest": None}, "files")):
        state = dict(good)
        state.update(change)
        refused(state, words, what)
    b = ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1), num_workers=1)
    b.load_state_dict(good)
    check(len(list(b)) > 0, "the true state loads")
    # one worker's state, taken inside a bundle (batches 1-2: after batch 1),
    # resumes in the main process too (one shard: the same stream), and a
    # state of before bundles (no "open") as one taken between them
    whole = [batch_rows(x) for x in ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1))]
    a = ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1), num_workers=1)
    it = iter(a)
    next(it)
    next(it)
    inside = a.state_dict()
    del it
    for workers, drop in ((0, False), (1, True)):
        b = ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1), num_workers=workers)
        state = {k: v for k, v in inside.items() if not (drop and k == "open")}
        b.load_state_dict(state)
        check(inside["open"] == 1 and [batch_rows(x) for x in b] == whole[2:],
              "a state inside a bundle (open %r), resumed by %d workers%s: not the batches "
              "after the second" % (inside["open"], workers, ", its open dropped"
                                    if drop else ""))
    try:
        ft.DataLoader(ft.TFRecordDataset(mod, files, 10, seed=1), num_workers=1).load_state_dict(
            "state")
        check(False, "a string as a loader state: accepted")
    except ValueError:
        check(True, "")


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    tut = featc.load("tutorial")
    small = os.path.join(TMP, "tutorial.tfrecord")
    head(os.path.join(BENCH, "tutorial.tfrecord"), small, 4000)
    gz = small + ".gz"
    with open(small, "rb") as f, open(gz, "wb") as g:
        g.write(gzip.compress(f.read(), compresslevel=1))
    seek = os.path.join(TMP, "seekable.tfrecord.gz")
    with open(small, "rb") as f:
        write_seekable(f.read(), seek, 65536)
    sets = [("tutorial, byte ranges", tut, [small], 1 << 15, FULL),
            ("tutorial, GZIP", tut, [gz], 1 << 15, SOME),
            ("tutorial, seekable GZIP", tut, [seek], 1 << 13, FULL),
            ("tutorial, three files", tut, [small, gz, seek], 1 << 15, SOME)]
    for spec, files, split in (("mnist", ["tfx__mnist.tfrecord"], 1 << 16),
                               ("taxi", ["tfx__csv_example_gen_Split-eval_data_tfrecord-"
                                         "00000-of-00012.gz"], 1 << 16),
                               ("hadoop", ["tf-ecosystem__tf-records_part-m-00000",
                                           "tf-ecosystem__zipped-tf-records_part-m-00000.gz"],
                                1 << 12),
                               ("fake_sequence", ["pytorch-data__sequence_example.tfrecord"],
                                1 << 10)):
        sets.append(("corpus " + spec, featc.load(spec), [os.path.join(CORPUS, f) for f in files],
                     split, SOME))
    for name, mod, files, split, configs in sets:
        sharding(name, mod, files, split, configs=configs)
    evenness("tutorial, byte ranges", tut, [small], 1 << 15)
    evenness("tutorial, three files", tut, [small, gz, seek], 1 << 15)
    determinism("tutorial", tut, [small], 1 << 15)
    determinism("tutorial, seekable GZIP", tut, [seek], 1 << 13)
    resume("tutorial", tut, [small, gz], 1 << 15)
    conversions(featc.load("mnist"), [os.path.join(CORPUS, "tfx__mnist.tfrecord")])
    conversions(featc.load("hadoop"), [os.path.join(CORPUS, "tf-ecosystem__tf-records_part-m-00000")])
    padded_clash()
    options(tut, [small])
    thread_counts(tut, [small])
    idle_warnings(tut, small, gz)
    cut_for_readers(tut, small)
    sparse_workers(featc.load("taobao"), [os.path.join(TMP, "taobao.tfrecord")])
    worker_failures(tut, [small])
    ring_handover(tut, [small])
    shutil.rmtree(TMP, ignore_errors=True)
    return finish("torch")


if __name__ == "__main__":
    sys.exit(main())
