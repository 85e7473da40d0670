"""TFRecord files in PyTorch training loops, read by featc's modules.

    import featc.torch
    ds = featc.torch.TFRecordDataset("specs/mnist.feat", "data/train-*.tfrecord",
                                     batch_size=256, shuffle=True, seed=7)
    loader = featc.torch.DataLoader(ds, num_workers=2, pin_memory=True)
    for epoch in range(10):
        ds.set_epoch(epoch)
        for batch in loader:
            images, labels = batch["image_floats"], batch["image_class"]
        torch.save(loader.state_dict(), "ckpt")      # anywhere in the epoch

The dataset yields whole batches (dicts of tensors), so the loader takes
batch_size=None.  Its work is cut into parts (featc._parts: byte ranges of
uncompressed files, the members of a seekable GZIP file, whole files
otherwise), and each DataLoader worker of each rank reads its own share of
the parts: over all workers and ranks every record is read once per epoch.
With shuffle=True the parts' order is drawn per epoch (seed, set_epoch) and
each worker's records pass through a shuffle buffer (read(shuffle=N)),
drawn per record, parsed per batch; the same seed and epoch give the same
stream.  featc.torch.DataLoader (a torch DataLoader) keeps count of the
batches each worker has delivered, so that state_dict() / load_state_dict()
resume mid-epoch with exactly the batches not yet yielded, in the same
order.  Tensors share memory with the batch's block (torch.from_numpy): no
copy.
"""
import copy
import hashlib
import multiprocessing
import os
import warnings
import weakref
from typing import NamedTuple

import numpy as np
import torch
import torch.utils.data as tud
from torch.utils.data._utils.pin_memory import pin_memory as _pin

import featc
from featc import _ring
from featc._parts import DEFAULT_SPLIT_BYTES, MIN_CUT_BYTES, _kind, partitions
from featc._remote import is_url, sources as _sources
from featc._shards import _expand, _mix, _ranks, _shard_parts
from featc._tensors import WIDEN_U16 as _WIDEN_U16, tensor as _tensor
from featc.torch_segments import SegmentBatch, SegmentBatcher

__all__ = ["TFRecordDataset", "DataLoader", "SegmentBatcher", "SegmentBatch", "Ragged",
           "to_torch"]

STATE_VERSION = 2
# A DataLoader worker hands over a bundle of its batches at once (one round
# trip of torch's queue, some 0.35 ms on this 2-core VM, for all of them):
# up to BUNDLE_BATCHES, fewer at an epoch's start (1, 2, 4, ...: the first
# batch is not kept waiting) and where the next would take the bundle's
# tensors past BUNDLE_BYTES (a quarter of a slot of the ring).
BUNDLE_BATCHES = 32
BUNDLE_BYTES = _ring.SLOT_BYTES // 4


class Ragged(NamedTuple):
    """A VarLen or ragged feature: values (flat) and offsets, the row
    splits (int64 [B + 1]; a tuple of them, outermost first, for nested
    ones).  nn.EmbeddingBag(values, offsets, include_last_offset=True)
    takes it as it is."""
    values: object
    offsets: object


def _padded(values, splits):
    """A one-level ragged column as a padded [B, max] tensor and lengths."""
    lengths = splits[1:] - splits[:-1]
    b = lengths.shape[0]
    width = int(lengths.max()) if b > 0 else 0
    out = values.new_zeros((b, width))
    if values.numel() > 0:
        rows = torch.repeat_interleave(torch.arange(b), lengths)
        cols = torch.arange(values.numel()) - torch.repeat_interleave(splits[:-1], lengths)
        out[rows, cols] = values
    return out, lengths


def _value(key, v, varlen, out, batch):
    if type(v) is np.ndarray:  # (the common case first: a tensor over its memory)
        if _WIDEN_U16 and v.dtype == np.uint16:
            v = v.astype(np.int32)
        out[key] = torch.from_numpy(v)
    elif hasattr(v, "row_splits"):  # a module's Ragged
        splits = v.row_splits
        splits = tuple(_tensor(s) for s in splits) if isinstance(splits, tuple) else _tensor(splits)
        values = _tensor(v.values)
        if varlen == "padded" and not isinstance(splits, tuple) and torch.is_tensor(values):
            if key + "/lengths" in batch:
                raise ValueError(
                    "varlen='padded' puts the lengths of %r under %r, which is also a "
                    "feature's key; rename one in the spec, or use varlen='ragged'"
                    % (key, key + "/lengths"))
            out[key], out[key + "/lengths"] = _padded(values, splits)
        else:
            out[key] = Ragged(values, splits)
    elif hasattr(v, "dense_shape"):  # a module's Sparse
        indices, values = _tensor(v.indices), _tensor(v.values)
        if torch.is_tensor(values):
            out[key] = torch.sparse_coo_tensor(indices.t(), values, tuple(v.dense_shape.tolist()))
        else:
            out[key] = (indices, values, _tensor(v.dense_shape))  # bytes values: featc.Bytes
    else:
        out[key] = _tensor(v)


def to_torch(batch, varlen="ragged"):
    """A batch of a module's read() as tensors: arrays as tensors over the
    same memory; Ragged as featc.torch.Ragged (or with varlen='padded' a
    padded tensor and KEY/lengths), Sparse as torch.sparse_coo_tensor;
    featc.Bytes as they are.  A sequence_example's (context, feature_lists,
    lengths) becomes three dicts; fixed-frame lists are already padded
    [B, T, ...], and with their lengths go to pack_padded_sequence."""
    if isinstance(batch, tuple):
        return tuple(to_torch(d, varlen) for d in batch)
    out = {}
    for key, v in batch.items():
        _value(key, v, varlen, out, batch)
    return out


def _rebuild_sparse(indices, values, size):
    return torch.sparse_coo_tensor(indices, values, size)


class _SparseParts:
    """A sparse COO tensor on its way from a DataLoader worker: torch 1.13
    cannot send a sparse tensor between processes (the worker's queue fails
    on it, and the loop waits forever), so its indices and values cross as
    dense tensors (in the batch's shared block) and unpickle as the sparse
    tensor again, in the main process."""
    __slots__ = ("indices", "values", "size")

    def __init__(self, indices, values, size):
        self.indices, self.values, self.size = indices, values, size

    def __reduce__(self):
        return (_rebuild_sparse, (self.indices, self.values, self.size))

    def tensor(self):
        return _rebuild_sparse(self.indices, self.values, self.size)


def _each(x, fn):
    """x with fn applied to each leaf of its dicts, lists and plain tuples
    (a named tuple, Ragged, is a leaf)."""
    if isinstance(x, dict):
        return {k: _each(v, fn) for k, v in x.items()}
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(_each(v, fn) for v in x)
    if isinstance(x, list):
        return [_each(v, fn) for v in x]
    return fn(x)


def _sparse_out(x):
    """x with each sparse tensor as _SparseParts (for a worker's queue)."""
    return _each(x, lambda t: _SparseParts(t._indices(), t._values(), tuple(t.shape))
                 if torch.is_tensor(t) and t.is_sparse else t)


def _sparse_in(x):
    """x with each _SparseParts as its sparse tensor again."""
    return _each(x, lambda t: t.tensor() if isinstance(t, _SparseParts) else t)


def _tensors(x, out):
    """The dense CPU tensors in a converted batch, in order."""
    if torch.is_tensor(x):
        if not x.is_sparse:
            out.append(x)
    elif isinstance(x, _SparseParts):
        out.append(x.indices)
        out.append(x.values)
    elif isinstance(x, dict):
        for v in x.values():
            _tensors(v, out)
    elif isinstance(x, tuple):
        for v in x:
            _tensors(v, out)


def _replace(x, new, parts=_SparseParts):
    """x with each dense tensor t as new[id(t)], and each _SparseParts as
    parts(...) of its replaced indices and values."""
    if torch.is_tensor(x):
        return new[id(x)] if not x.is_sparse else x
    if isinstance(x, _SparseParts):
        return parts(new[id(x.indices)], new[id(x.values)], x.size)
    if isinstance(x, dict):
        return {k: _replace(v, new, parts) for k, v in x.items()}
    if isinstance(x, Ragged):
        return Ragged(_replace(x.values, new, parts), _replace(x.offsets, new, parts))
    if isinstance(x, tuple):
        return tuple(_replace(v, new, parts) for v in x)
    return x


def _shared(batch):
    """In a DataLoader worker: the batch's tensors as views of one block of
    shared memory, so that it crosses to the main process as one storage
    (one file descriptor) rather than one per tensor, each of which torch
    would copy into shared memory of its own.  One copy of the batch."""
    ts = []
    _tensors(batch, ts)
    if len(ts) < 2:
        return batch
    offsets, total = [], 0
    for t in ts:
        total = (total + 63) & ~63
        offsets.append(total)
        total += t.numel() * t.element_size()
    storage = torch.empty(0, dtype=torch.uint8).storage()._new_shared(max(total, 1))
    buf = torch.empty(0, dtype=torch.uint8)
    buf.set_(storage, 0, (max(total, 1),), (1,))
    new = {}
    for t, off in zip(ts, offsets):
        n = t.numel() * t.element_size()
        v = buf[off:off + n].view(t.dtype).view(t.shape)
        v.copy_(t)
        new[id(t)] = v
    return _replace(batch, new)


class _Tagged:
    """A batch with the shard that read it and its place in that shard's
    stream (what featc.torch.DataLoader counts)."""
    __slots__ = ("shard", "index", "batch")

    def __init__(self, shard, index, batch):
        self.shard, self.index, self.batch = shard, index, batch

    def pin_memory(self):
        return _Tagged(self.shard, self.index, _pin(self.batch))


class _Bundle:
    """Batches index, index + 1, ... of one shard's stream, handed over by
    a worker of featc.torch.DataLoader at once; batches is a list (or on
    the way, the ring's token that unpickles as one)."""
    __slots__ = ("shard", "index", "batches")

    def __init__(self, shard, index, batches):
        self.shard, self.index, self.batches = shard, index, batches

    def pin_memory(self):
        return _Bundle(self.shard, self.index, [_pin(b) for b in self.batches])


def _nbytes(batch):
    ts = []
    _tensors(batch, ts)
    return sum(t.numel() * t.element_size() for t in ts)


def _bundle_end(k):
    """Where a bundle that starts at batch k of its shard's stream ends at
    the most: batches 0, 1-2, 3-6, 7-14, ... up to BUNDLE_BATCHES - 1,
    then BUNDLE_BATCHES at a time.  A function of k alone, so that a
    resumed stream ends its bundles where the first pass did."""
    if k < BUNDLE_BATCHES - 1:
        return min((1 << (k + 1).bit_length()) - 1, BUNDLE_BATCHES - 1)
    return k + BUNDLE_BATCHES - (k - BUNDLE_BATCHES + 1) % BUNDLE_BATCHES


def _bundled(shard, stream, first):
    """A worker's (k, batch) stream as _Bundles, each ended at _bundle_end
    of its start (the first, after `first` batches when that is given: a
    resumed bundle's rest) or before a batch that would take its tensors
    past BUNDLE_BYTES."""
    items, start, size, end = [], 0, 0, None
    for k, batch in stream:
        n = _nbytes(batch)
        if items and (k == end or size + n > BUNDLE_BYTES):
            yield _Bundle(shard, start, items)
            items, size = [], 0
        if not items:
            start = k
            end = k + first if first else _bundle_end(k)
            first = None
        items.append(batch)
        size += n
    if items:
        yield _Bundle(shard, start, items)


class TFRecordDataset(tud.IterableDataset):
    """Batches of TFRecord files as dicts of tensors (see the module's doc).

    spec: what featc.load takes (a module, its name, NAME.abi3.so, a .feat
    spec).  sources: a path, a glob, or a list of them.  batch_size: records
    per batch (the last batch of each worker's share may be short; with
    drop_last=True it is dropped).  shuffle: the parts' order drawn per
    epoch and records drawn from a buffer of shuffle_buffer records.
    rank, world_size: this process's place among distributed ranks
    (default: torch.distributed's when it is initialised, else 0 of 1).
    split_bytes: the size of the byte ranges uncompressed files and seekable
    GZIP files are cut into, at the most: where the parts are fewer than the
    readers (world_size x num_workers), those files are cut finer, down to
    ranges of MIN_CUT_BYTES, so that every reader gets a part (None: whole
    files).  even: None (each shard yields what it has),
    'drop' or 'pad': every rank yields the same number of batches per epoch,
    as DistributedDataParallel needs (the fewest any rank has, the rest
    dropped; or the most, the short ranks' workers starting their streams
    over), from each part's record count, counted once when the dataset is
    made (parts cut for the readers: when the loader starts, of the files
    as they were when the dataset was made, or an error).  varlen: 'ragged'
    (Ragged values and offsets), 'padded' (a padded tensor and KEY/lengths)
    or 'sparse' (sparse COO tensors).  threads: parse threads per reader
    (read(threads=)); None: every core the process may run on when the
    dataset is read in the main process (num_workers=0), one in a worker
    (docs/torch.md says when threads pay).
    Other keywords (compression, crc, max_record_size, message) go to read()."""

    def __init__(self, spec, sources, batch_size=256, *, shuffle=False, shuffle_buffer=8192,
                 seed=0, rank=None, world_size=None, split_bytes=DEFAULT_SPLIT_BYTES,
                 drop_last=False, varlen="ragged", threads=1, even=None, **read_options):
        super().__init__()
        mod = featc.load(spec)
        self._mod = mod
        self._module_file = featc.module_path(mod)
        self._module_name = mod.__name__
        if varlen not in ("ragged", "padded", "sparse"):
            raise ValueError("varlen must be 'ragged', 'padded' or 'sparse', not %r" % (varlen,))
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError("batch_size must be a positive int, not %r" % (batch_size,))
        if shuffle and (not isinstance(shuffle_buffer, int) or shuffle_buffer < 1):
            raise ValueError("shuffle_buffer must be a positive int, not %r" % (shuffle_buffer,))
        rank, world_size = _ranks(rank, world_size)
        self.paths = _expand(sources)
        self.parts = partitions(self.paths, split_bytes, read_options.get("compression", "auto"))
        self.split_bytes = split_bytes
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.shuffle_buffer = shuffle_buffer
        self.seed = int(seed)
        self.rank, self.world_size = rank, world_size
        self.drop_last = bool(drop_last)
        if even not in (None, "drop", "pad"):
            raise ValueError("even must be None, 'drop' or 'pad', not %r" % (even,))
        self.even = even
        self.varlen = varlen
        if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool)
                                    or threads < 1):
            raise ValueError("threads must be a positive int or None, not %r" % (threads,))
        self.threads = threads
        self.read_options = dict(read_options)
        if varlen != "sparse":
            self.read_options["varlen"] = "ragged"
        # each part's records, for even= (counted here, before workers start)
        self.counts = (record_counts(mod, self.parts, **self._count_options()) if even else None)
        # what the counts are true of: the files as they were counted
        self._counted = {p: _stat(p) for p in self.paths} if even else None
        self._cut = {}  # readers -> the parts they share, where self.parts are too few
        # the epoch, shared with the workers (persistent ones included)
        self._epoch = multiprocessing.RawValue("q", 0)
        self._tracked = False
        self._ringed = False  # (featc.torch.DataLoader's workers hand batches over by its ring)
        # {"epoch", "counts": {shard: batches}, "rotation", "last", "open"}
        self._resume = None

    # -- pickling: workers load the module again from its file
    def __getstate__(self):
        d = self.__dict__.copy()
        d["_mod"] = None
        return d

    def _module(self):
        if self._mod is None:
            self._mod = featc.load(self._module_file, name=self._module_name)
        return self._mod

    @property
    def epoch(self):
        return self._epoch.value

    def set_epoch(self, epoch):
        """The epoch the next iteration reads (its order of parts and
        shuffle draws), as DistributedSampler.set_epoch; seen by persistent
        workers too."""
        self._epoch.value = int(epoch)

    def _count_options(self):
        return {k: v for k, v in self.read_options.items() if k in _COUNT_OPTIONS}

    def parts_for(self, readers):
        """The parts `readers` readers (world_size x workers) share: the
        parts, or where they are fewer than the readers, the files cut
        finer (see split_bytes)."""
        if len(self.parts) >= readers or self.split_bytes is None:
            return self.parts
        if readers not in self._cut:
            self._cut[readers] = partitions(self.paths, self.split_bytes,
                                            self.read_options.get("compression", "auto"),
                                            readers=readers)
        return self._cut[readers]

    def shard_parts(self, epoch, shard, shards):
        """The parts shard (0 <= shard < shards, over all ranks and
        workers) reads in epoch: every shards-th of the epoch's order."""
        return _shard_parts(self.parts_for(shards), self.shuffle, self.seed, epoch, shard, shards)

    def idle_readers(self, workers):
        """When the world_size x workers readers outnumber the parts, the
        text of the warning that says how many get none, why each file is
        one part, and what cuts it; else None."""
        shards = self.world_size * max(1, workers)
        parts = self.parts_for(shards)
        if len(parts) >= shards:
            return None
        whole = [p for p, split in parts if split is None]
        cut = sorted({p for p, split in parts if split is not None})
        why = []
        for p in whole[:4]:
            if is_url(p):
                why.append("%s has no index beside it (featc index writes FILE.idx, or "
                           "FILE.members for GZIP, which a server then serves)" % p)
                continue
            kind = _kind(p) if self.read_options.get("compression", "auto") == "auto" \
                else self.read_options["compression"]
            if kind == "gzip" and os.path.exists(p + ".members"):
                why.append("%s (%d bytes) is too small to cut by its members into more ranges "
                           "of at least %d bytes" % (p, os.path.getsize(p), MIN_CUT_BYTES))
            elif kind == "gzip":
                why.append("%s is GZIP without a member index: featc index %s writes %s.members, "
                           "by whose members it is cut (a file of one member, as TensorFlow "
                           "writes, stays one part: store it uncompressed, or write it with "
                           "members, fc_writer_options.member_records)" % (p, p, p))
            elif kind == "zlib":
                why.append("%s is ZLIB, which is read from its first byte only: store it "
                           "uncompressed or as GZIP with members" % p)
            elif self.split_bytes is None:
                why.append("%s is read whole: split_bytes=None" % p)
            else:
                why.append("%s (%d bytes) is too small to cut into more ranges of at least "
                           "%d bytes (a file this small is read at full speed in the main "
                           "process: num_workers=0)" % (p, os.path.getsize(p),
                                                                  MIN_CUT_BYTES))
        if len(whole) > 4:
            why.append("and %d more files" % (len(whole) - 4))
        for p in cut[:4]:
            why.append("%s is cut into ranges of at least %d bytes, %d of them"
                       % (p, MIN_CUT_BYTES, sum(1 for q, s in parts if q == p)))
        return ("featc.torch: %d readers (world_size %d x num_workers %d) share %d part%s of %d "
                "file%s: %d of them get none and idle.  %s"
                % (shards, self.world_size, max(1, workers), len(parts),
                   "" if len(parts) == 1 else "s", len(self.paths),
                   "" if len(self.paths) == 1 else "s", shards - len(parts), "; ".join(why)))

    def _natural(self, parts):
        """The batches a shard reading these parts (path, split) yields."""
        missing = [p for p in parts if p not in self.counts]
        if missing:  # (parts cut for the readers: counted when first needed, of the same files)
            for path in sorted({p for p, _ in missing}):
                if _stat(path) != self._counted[path]:
                    raise RuntimeError("even=: %s changed since the dataset was made and its "
                                       "records counted: make the dataset again" % path)
            self.counts.update(record_counts(self._module(), missing, **self._count_options()))
        n = sum(self.counts[p] for p in parts)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def quota(self, epoch, shard, workers):
        """The batches shard yields in epoch with even= (None without):
        every rank's workers together yield the same number, the fewest
        any rank has ('drop': taken off its workers with the most) or the
        most ('pad': added to its workers with the fewest that have any)."""
        if not self.even:
            return None
        shards = self.world_size * workers
        nat = [self._natural(self.shard_parts(epoch, s, shards)) for s in range(shards)]
        totals = [sum(nat[r * workers:(r + 1) * workers]) for r in range(self.world_size)]
        target = min(totals) if self.even == "drop" else max(totals)
        r = shard // workers
        q = nat[r * workers:(r + 1) * workers]
        while sum(q) > target:
            j = max(range(workers), key=lambda w: (q[w], w))
            q[j] -= 1
        while sum(q) < target:
            have = [w for w in range(workers) if nat[r * workers + w] > 0]
            if not have:
                raise ValueError("even='pad': rank %d has no records to pad its %d batches "
                                 "with" % (r, target))
            j = min(have, key=lambda w: (q[w], w))
            q[j] += 1
        return q[shard - r * workers]

    def _stream(self, epoch, shard, shards, skip_batches):
        mine = self.shard_parts(epoch, shard, shards)
        if not mine and tud.get_worker_info() is not None and not self._tracked:
            # (a plain torch DataLoader's worker: featc's DataLoader says it at its start)
            warnings.warn(self.idle_readers(shards // self.world_size) or "no part",
                          RuntimeWarning, stacklevel=2)
        quota = self.quota(epoch, shard, shards // self.world_size)
        if not mine or quota == 0:
            return
        natural = None
        if quota is not None:
            natural = self._natural(mine)
            if natural == 0:
                return
        k = skip_batches
        # (with even='pad', a shard past its natural batches starts its
        # stream over: the same seed, the same batches again.  The counts
        # are a claim: a pass that gives more or fewer batches than they
        # say is an error, never a quota met with other records or a
        # stream started over without end)
        while quota is None or k < quota:
            start = k if natural is None else k % natural
            end = None if natural is None else k - start + natural
            reader = self._module().read(
                _sources([p for p, _ in mine]), batch_size=self.batch_size,
                splits=[s for _, s in mine],
                shuffle=self.shuffle_buffer if self.shuffle else 0,
                seed=_mix(self.seed, epoch, shard), skip=start * self.batch_size,
                threads=self._threads(), **self.read_options)
            with reader:
                for b in reader:
                    if self.drop_last and _rows(b) < self.batch_size:
                        break
                    if end is not None and k >= end:  # (before the quota: pad's
                        # every record, even with the quota at the pass's end)
                        self._counts_changed(shard, natural, "more")
                    if quota is not None and k >= quota:
                        break
                    yield k, to_torch(b, self.varlen)
                    k += 1
            if quota is None:
                return
            if k < quota and k != end:
                self._counts_changed(shard, natural, "fewer")

    def _threads(self):
        """The parse threads of this reader: threads=, or with None every
        core in the main process and one in a worker (where the workers
        share the cores)."""
        if self.threads is not None:
            return self.threads
        if tud.get_worker_info() is not None:
            return 1
        return usable_cores()

    @staticmethod
    def _counts_changed(shard, natural, how):
        raise RuntimeError("even=: shard %d's parts give %s batches than the %d counted when "
                           "the dataset was made (a file changed since): make the dataset "
                           "again" % (shard, how, natural))

    def __iter__(self):
        # (not a generator: the resume is taken now, once; a persistent
        # worker's next iteration starts its epoch from the beginning)
        info = tud.get_worker_info()
        workers, wid = (info.num_workers, info.id) if info is not None else (1, 0)
        epoch = self.epoch
        resume, self._resume = self._resume, None
        slot, skip, first = wid, 0, None
        if resume is not None and resume["epoch"] == epoch:
            slot = (wid + resume["rotation"]) % workers
        shard = self.rank * workers + slot
        if resume is not None and resume["epoch"] == epoch:
            skip = resume["counts"].get(shard, 0)
            if shard == resume["last"] and resume["open"]:
                first = resume["open"]  # (the rest of the bundle it was in)
        return self._tag(shard, self._stream(epoch, shard, self.world_size * workers, skip),
                         first)

    def _tag(self, shard, stream, first):
        if tud.get_worker_info() is None:
            for k, batch in stream:
                yield _Tagged(shard, k, batch) if self._tracked else batch
            return
        # (featc's loader's ring takes the batches after the collate_fn;
        # else one shared block crosses per batch, torch's way)
        out = ((k, _sparse_out(b) if self._ringed else _shared(_sparse_out(b)))
               for k, b in stream)
        if self._tracked:
            yield from _bundled(shard, out, first)
        else:
            for _, batch in out:
                yield batch


_COUNT_OPTIONS = ("compression", "crc", "max_record_size", "message")


def usable_cores():
    """The cores this process may run on (its CPU affinity, as taskset or
    a container's cpuset sets it), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _stat(path):
    """A file's size and time of change (None for a URL): what says it is
    the file that was counted."""
    if is_url(path):
        return None
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def record_counts(module, parts, **options):
    """The records of each part (path, split), by reading them unparsed:
    {part: count}.  A damaged part raises here, as its read would."""
    mod = featc.load(module)
    out = {}
    for path, split in parts:
        n = 0
        for b in mod.read(_sources(path), batch_size=4096, splits=[split], raw=True, **options):
            n += len(b)
        out[(path, split)] = n
    return out


def _rows(batch):
    """The records in a batch of read()."""
    if isinstance(batch, tuple):
        for d in batch:
            if d:
                return _rows(d)
        return 0
    for v in batch.values():
        if isinstance(v, np.ndarray):
            return v.shape[0]
        if hasattr(v, "row_splits"):
            s = v.row_splits
            return len(s[0] if isinstance(s, tuple) else s) - 1
        if hasattr(v, "dense_shape"):
            return int(v.dense_shape[0])
        if hasattr(v, "shape"):
            return v.shape[0]
    return 0


class _Collate:
    """The loader's collate_fn: the user's applied to the batch inside a
    tagged one (none given: the batch as it is, already tensors); in a
    worker, the result put in the loader's ring (featc/_ring.py) when it
    has one."""

    def __init__(self, fn):
        self.fn = fn
        self.ring = None  # a RingWriter, set by the loader before its workers start

    def __call__(self, item):
        info = tud.get_worker_info()
        worker = info is not None
        if isinstance(item, _Bundle):  # (in a worker of featc's loader)
            batches = [self._apply(b, worker) for b in item.batches]
            if self.ring is not None:
                token = self.ring.put(batches, _tensors, _replace, info.id)
                batches = token if token is not None else [_shared(b) for b in batches]
            return _Bundle(item.shard, item.index, batches)
        if isinstance(item, _Tagged):
            return _Tagged(item.shard, item.index, self._apply(item.batch, worker))
        return self._apply(item, worker)

    def _apply(self, batch, worker):
        if self.fn is None:
            return batch
        # (the user's function sees sparse tensors; what it returns crosses
        # from a worker as _SparseParts, as the dataset's batches do)
        batch = self.fn(_sparse_in(batch))
        return _sparse_out(batch) if worker else batch


class DataLoader(tud.DataLoader):
    """A torch DataLoader over a TFRecordDataset (batch_size=None: the
    dataset's batches are the loader's) that counts the batches each
    worker has delivered, for state_dict() and load_state_dict().  Every
    DataLoader option works as in torch (num_workers, persistent_workers,
    pin_memory, collate_fn, which gets each batch)."""

    def __init__(self, dataset, batch_size=None, **kw):
        if not isinstance(dataset, TFRecordDataset):
            raise TypeError("featc.torch.DataLoader reads a featc.torch.TFRecordDataset")
        if batch_size is not None:
            raise ValueError("the dataset makes the batches (TFRecordDataset(batch_size=...)): "
                             "the loader takes batch_size=None")
        ds = copy.copy(dataset)  # (shares the epoch with the caller's dataset)
        ds._tracked = True
        readers = ds.world_size * max(1, kw.get("num_workers", 0))
        if ds.even:  # (the parts these readers share counted now, before the workers copy ds)
            ds._natural(ds.parts_for(readers))
        idle = ds.idle_readers(kw.get("num_workers", 0))
        if idle is not None:
            warnings.warn(idle, RuntimeWarning, stacklevel=2)
        kw["collate_fn"] = _Collate(kw.get("collate_fn"))
        super().__init__(ds, batch_size=None, **kw)
        self._counts = {}
        self._last = None
        self._open = 0  # batches of the last one's bundle not yet yielded
        self._ring = None

    def __iter__(self):
        ds = self.dataset
        resume = ds._resume
        self._counts = dict(resume["counts"]) if resume is not None else {}
        self._last = resume["last"] if resume is not None else None
        self._open = resume["open"] if resume is not None else 0
        ring = None
        if self.num_workers == 0:
            it = self._in_process()
        else:
            ring = self._ring_for_workers()
            it = super().__iter__()  # (the workers start here, with the resume in their copy)
            ds._resume = None  # (with none, the dataset's own iterator took it)
        try:
            for t in it:
                if isinstance(t, _Bundle):
                    # (by index: `for j, b in enumerate(...)` here, a profiler
                    # set (cProfile, sys.setprofile), crashed Debian's Python
                    # 3.11.2 in its garbage collector, bundles of 32 batches)
                    n = len(t.batches)
                    for j in range(n):
                        self._counts[t.shard] = t.index + j + 1
                        self._last, self._open = t.shard, n - j - 1
                        yield t.batches[j]
                    continue
                self._counts[t.shard] = t.index + 1
                self._last, self._open = t.shard, 0
                yield t.batch
        finally:
            if ring is not None and not self.persistent_workers:
                # (the workers stop now, not when a traceback that holds
                # the iterator goes: a loader forked before that would copy
                # it; then the ring goes)
                stop = getattr(it, "_shutdown_workers", None)
                if stop is not None:
                    stop()
                ring.close()

    def _ring_for_workers(self):
        """The shared-memory ring the workers hand batches over by
        (featc/_ring.py): one per iteration, or for the loader's life with
        persistent workers (made before they start).  None where it cannot
        be made: batches then cross torch's way."""
        if self.persistent_workers and getattr(self, "_iterator", None) is not None:
            return self._ring
        ctx = self.multiprocessing_context or multiprocessing.get_context()
        try:
            ring = _ring.Ring(self.num_workers, (self.prefetch_factor or 2) + 2,
                              _ring.SLOT_BYTES, ctx, Ragged, _rebuild_sparse)
        except (OSError, ValueError):
            self.collate_fn.ring, self.dataset._ringed = None, False
            return None
        self.collate_fn.ring, self.dataset._ringed = ring.writer(), True
        self._ring = ring
        if self.persistent_workers:  # (else the iteration's end closes it)
            weakref.finalize(self, ring.close)
        return ring

    def _in_process(self):
        """num_workers=0: the dataset's batches as torch's single-process
        iterator gives them (through collate_fn, pinned with pin_memory when
        CUDA is there), without its cost per batch (its fetcher and profiler
        annotation: some 17 us a batch here, about what a tutorial batch's
        parse takes on one thread)."""
        collate = self.collate_fn
        pin = self.pin_memory and torch.cuda.is_available()
        device = getattr(self, "pin_memory_device", "") or None
        for t in iter(self.dataset):
            t = collate(t)
            yield _pin(t, device) if pin else t

    def _workers(self):
        return max(1, self.num_workers)

    def _identity(self):
        """What a state is only true of: the parts (each file's path and
        size, and its splits), the spec (its module's schema), and every
        setting the stream depends on."""
        ds = self.dataset
        h = hashlib.sha256()
        for path, split in ds.parts_for(ds.world_size * self._workers()):
            size = None if is_url(path) else os.path.getsize(path)
            h.update(repr((os.fspath(path), size, split)).encode("utf-8", "surrogatepass"))
        mod = ds._module()
        spec = hashlib.sha256(repr((mod.__name__, mod.schema)).encode()).hexdigest()[:16]
        settings = {"shuffle": ds.shuffle, "shuffle_buffer": ds.shuffle_buffer,
                    "drop_last": ds.drop_last, "varlen": ds.varlen, "even": ds.even,
                    "read_options": sorted((k, repr(v)) for k, v in ds.read_options.items())}
        return {"parts_digest": h.hexdigest()[:32], "spec": spec,
                "settings": repr(sorted(settings.items()))}

    def state_dict(self):
        """Where the loader is: the epoch, and how many batches each shard
        (rank x worker) has delivered, with what the state is true of (the
        parts of the files, by path and size; the spec; the settings).
        load_state_dict() on a loader over the same dataset resumes there."""
        ds = self.dataset
        state = {"version": STATE_VERSION, "epoch": ds.epoch, "seed": ds.seed,
                 "batch_size": ds.batch_size,
                 "parts": len(ds.parts_for(ds.world_size * self._workers())), "rank": ds.rank,
                 "world_size": ds.world_size, "num_workers": self._workers(),
                 "counts": dict(self._counts), "last": self._last, "open": self._open}
        state.update(self._identity())
        return state

    def load_state_dict(self, state):
        """Resume where state_dict() was taken: the next iteration yields
        exactly the batches that were not yet yielded, in the same order.
        The state is a claim, checked: one taken over other files (or the
        same files changed), another spec or other settings, or with counts
        no shard of this loader can reach, raises ValueError saying what."""
        ds = self.dataset
        if not isinstance(state, dict):
            raise ValueError("a loader state is a dict (state_dict()), not %s"
                             % type(state).__name__)
        want = {"version": STATE_VERSION, "seed": ds.seed, "batch_size": ds.batch_size,
                "parts": len(ds.parts_for(ds.world_size * self._workers())), "rank": ds.rank,
                "world_size": ds.world_size,
                "num_workers": self._workers()}
        want.update(self._identity())
        what = {"parts_digest": "the files (paths, sizes) or their parts",
                "spec": "the spec", "settings": "the settings (shuffle, drop_last, varlen, "
                "even, read options)"}
        for k, v in want.items():
            if state.get(k) != v or type(state.get(k)) is not type(v):
                raise ValueError("the state was taken with %s=%r; this loader has %r (resume "
                                 "needs the same %s)" % (k, state.get(k), v, what.get(
                                     k, "files, spec, batch size, seed, ranks and workers")))
        if self.persistent_workers and getattr(self, "_iterator", None) is not None:
            raise RuntimeError("load_state_dict() before the persistent workers start: make "
                               "a new loader")
        workers = self._workers()
        shards = range(ds.rank * workers, (ds.rank + 1) * workers)
        epoch, last, counts = state.get("epoch"), state.get("last"), state.get("counts")
        open_ = state.get("open", 0)  # (a state of before bundles has none: 0)

        def is_int(x):
            return isinstance(x, int) and not isinstance(x, bool)

        if not is_int(epoch) or epoch < 0:
            raise ValueError("the state's epoch is %r, not an int >= 0" % (epoch,))
        if last is not None and (not is_int(last) or last not in shards):
            raise ValueError("the state's last shard is %r, not one of this rank's shards "
                             "%d to %d" % (last, shards[0], shards[-1]))
        if not is_int(open_) or not 0 <= open_ < BUNDLE_BATCHES or (open_ and last is None):
            raise ValueError("the state's open is %r, not the batches left of the last "
                             "shard's bundle (an int from 0 to %d; 0 with no last shard)"
                             % (open_, BUNDLE_BATCHES - 1))
        if not isinstance(counts, dict):
            raise ValueError("the state's counts are %r, not a dict" % (counts,))
        # a shard's batches cannot outnumber its records, and a record takes
        # 16 bytes at least (of a compressed file, 16 of what deflate can
        # make of a byte, 1032 at most): a count past that is no count of
        # these files
        bound, most = {}, {}  # most: a file's bytes of records at the most, once per file
        for shard in shards:
            size = 0
            for path, split in ds.shard_parts(epoch, shard, ds.world_size * workers):
                if path not in most:
                    most[path] = 0 if is_url(path) else os.path.getsize(path) * (
                        1 if _kind(path) == "none" else 1032)
                size += most[path] if split is None else -(-most[path] // split[1])
            bound[shard] = -(-size // 16)
        # (keys as a JSON round trip leaves them, decimal strings, are taken)
        counts = {int(k) if isinstance(k, str) and k.isdigit() else k: v
                  for k, v in counts.items()}
        for k, v in counts.items():
            if not is_int(k) or k not in shards:
                raise ValueError("the state counts batches of shard %r, not one of this rank's "
                                 "shards %d to %d" % (k, shards[0], shards[-1]))
            if not is_int(v) or v < 0 or (not any(is_url(p) for p, _ in ds.parts) and
                                          v > bound[k] and ds.even != "pad"):
                raise ValueError("the state says shard %d delivered %r batches, which its "
                                 "parts cannot hold (at most %d)" % (k, v, bound[k]))
        # (the workers' turns go on with the shard after the last one's,
        # or with the last one's while its bundle has batches left)
        rotation = 0 if last is None else (last - ds.rank * workers + (
            0 if open_ else 1)) % workers
        ds._resume = {"epoch": epoch, "rotation": rotation, "last": last,
                      "counts": dict(counts), "open": open_}
        ds.set_epoch(epoch)
        self._counts = dict(ds._resume["counts"])
        self._last = last
