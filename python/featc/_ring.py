"""Batches from DataLoader workers through a ring of shared memory
(featc.torch.DataLoader with num_workers > 0).

torch hands a worker's tensors to the main process by moving each storage
to shared memory of its own and passing its file descriptor: some 2.5 ms a
batch on this VM, more than parsing the batch took.  Here the loader makes
one file in /dev/shm for its workers before they start, a region of SLOTS
slots per worker, and a semaphore per worker counting its free slots.  A
worker writes its batch's tensors into its next slot and sends torch's
queue a small token (_RingBatch: the slot, the tensors' places, the
batch's structure and its non-tensor leaves); when the main process
unpickles the token (torch's queue does that as the batch arrives, in the
order the worker sent it) the tensors are copied out of the slot into
memory of its own, one block per batch, and the slot is given back.  A
token carries a bundle of batches (featc.torch's workers hand over several
at once: torch's queue costs a round trip per item).  A bundle larger than
a slot crosses as before (torch's way, one shared block a batch), as does
everything when no ring could be made.

Where it allocates: the ring file (SLOTS x slot_bytes per worker, tmpfs
pages only where batches were written) and the copies in the main process
(one block per batch, as torch's own way: a tensor kept keeps its batch's
block).
The file is removed when the loader's iteration ends (its workers gone) or
the loader is collected, and at exit."""
import atexit
import mmap
import os
import secrets

import numpy as np
import torch

SLOT_BYTES = 16 << 20
_ALIGN = 64
_RINGS = {}  # in the main process: path -> _Ring (what tokens are taken through)


_NUMPY = {t: np.dtype(n) for t, n in (
    (torch.float64, "f8"), (torch.float32, "f4"), (torch.float16, "f2"), (torch.int64, "i8"),
    (torch.int32, "i4"), (torch.int16, "i2"), (torch.int8, "i1"), (torch.uint8, "u1"),
    (torch.bool, "?"))}


def _open_map(path):
    """The ring file's bytes, mapped shared, as a plain array (slices of a
    np.memmap are memmaps, slower to make)."""
    with open(path, "r+b") as f:
        return np.frombuffer(mmap.mmap(f.fileno(), 0), dtype=np.uint8)


class _Hole:
    """A tensor's place in a token's batch: the index of its bytes."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


class Ring:
    """The main process's side: the file, its map, and the semaphores."""

    def __init__(self, workers, slots, slot_bytes, ctx, ragged, sparse):
        self.path = "/dev/shm/featc-ring-%d-%s" % (os.getpid(), secrets.token_hex(6))
        self.workers, self.slots, self.slot_bytes = workers, slots, slot_bytes
        # featc.torch's Ragged, which a batch may hold, and its builder of a
        # sparse tensor from its parts (what a _SparseParts unpickles by)
        self.ragged, self.sparse = ragged, sparse
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, workers * slots * slot_bytes)
            self.map = _open_map(self.path)
        except BaseException:
            os.unlink(self.path)
            raise
        finally:
            os.close(fd)
        self.free = [ctx.Semaphore(slots) for _ in range(workers)]
        self.taken = 0  # batches handed over
        _RINGS[self.path] = self
        atexit.register(self.close)

    def close(self):
        """Removes the file and lets go of the map (a map of the removed
        file would keep its written pages), and of the exit hook."""
        _RINGS.pop(self.path, None)
        atexit.unregister(self.close)
        self.map = None
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def writer(self):
        """What a worker takes with it (pickled with the loader's collate)."""
        return RingWriter(self.path, self.workers, self.slots, self.slot_bytes, self.free)


class RingWriter:
    """A worker's side: its region of the ring, opened at its first batch."""

    def __init__(self, path, workers, slots, slot_bytes, free):
        self.path, self.workers, self.slots, self.slot_bytes = path, workers, slots, slot_bytes
        self.free = free
        self.map = None
        self.sent = 0
        self.parent = None

    def __getstate__(self):
        d = self.__dict__.copy()
        d["map"] = None
        return d

    def put(self, batches, tensors_of, replace, worker):
        """The batches (a list) as one token of the ring, or None when they
        do not fit in a slot (or the ring is gone): the caller sends them
        torch's way.  tensors_of and replace are featc.torch's walks of a
        batch: its dense tensors in order, and the batch with each replaced
        (a _SparseParts by what replace's third argument makes of its
        parts).  Each batch's tensors lie together: ends holds each one's
        first and past-the-last byte, and past its last tensor."""
        ts, places, ends, total = [], [], [], 0
        for batch in batches:
            first = len(ts)
            tensors_of(batch, ts)
            total = (total + _ALIGN - 1) & ~(_ALIGN - 1)  # (a block of its own: aligned)
            start = total
            for t in ts[first:]:
                total = (total + _ALIGN - 1) & ~(_ALIGN - 1)
                n = t.numel() * t.element_size()
                places.append((total, n, _NUMPY[t.dtype], tuple(t.shape)))
                total += n
            ends.append((start, total, len(ts)))
        if total > self.slot_bytes:
            return None
        if self.map is None:
            try:
                self.map = _open_map(self.path)
            except OSError:
                return None
            self.parent = os.getppid()
        self._wait(worker)
        slot = self.sent % self.slots
        self.sent += 1
        base = (worker * self.slots + slot) * self.slot_bytes
        for t, (off, n, _, _) in zip(ts, places):
            if n:
                src = t.contiguous().view(-1).view(torch.uint8).numpy()
                self.map[base + off:base + off + n] = src
        holes = {id(t): _Hole(i) for i, t in enumerate(ts)}
        skeletons = [replace(b, holes, _SparseHoles) for b in batches]
        return _RingBatch(self.path, worker, base, places, ends, skeletons)

    def _wait(self, worker):
        """A free slot of this worker's; a main process that is gone (this
        worker's parent changed) is an error, not a wait without end."""
        while not self.free[worker].acquire(timeout=1.0):
            if os.getppid() != self.parent:
                raise RuntimeError("featc.torch: the main process is gone while this worker "
                                   "waited for a free slot of its ring")


def _take(path, worker, base, places, ends, skeletons):
    """In the main process, as torch's queue unpickles a token: its
    batches, each one's tensors copied out of the slot into one block of
    their own, and the slot given back."""
    ring = _RINGS.get(path)
    if ring is None:
        raise RuntimeError("featc.torch: a batch of ring %s came after its loader ended" % path)
    m, out, i = ring.map, [], 0
    for start, end, last in ends:
        block = m[base + start:base + end].copy()
        for off, n, dtype, shape in places[i:last]:
            off -= start
            out.append(torch.from_numpy(block[off:off + n].view(dtype).reshape(shape)))
        i = last
    ring.free[worker].release()
    ring.taken += len(skeletons)
    return [_unhole(s, out, ring) for s in skeletons]


class _SparseHoles:
    """A sparse tensor's place in a token: its indices' and values' holes
    (a _SparseParts would be made a tensor as the token unpickles, before
    its holes are filled)."""
    __slots__ = ("indices", "values", "size")

    def __init__(self, indices, values, size):
        self.indices, self.values, self.size = indices, values, size

    def __getstate__(self):
        return (self.indices, self.values, self.size)

    def __setstate__(self, state):
        self.indices, self.values, self.size = state


def _unhole(x, tensors, ring):
    """The batch with its tensors put back (the main process's side): a
    sparse tensor as a sparse tensor, as a _SparseParts unpickles."""
    if isinstance(x, _Hole):
        return tensors[x.i]
    if isinstance(x, _SparseHoles):
        return ring.sparse(tensors[x.indices.i], tensors[x.values.i], x.size)
    if isinstance(x, dict):
        return {k: _unhole(v, tensors, ring) for k, v in x.items()}
    if isinstance(x, ring.ragged):
        return ring.ragged(_unhole(x.values, tensors, ring), _unhole(x.offsets, tensors, ring))
    if isinstance(x, tuple):
        return tuple(_unhole(v, tensors, ring) for v in x)
    return x


class _RingBatch:
    """Batches in a slot of the ring, on their way to the main process
    (where they unpickle as the list of them)."""
    __slots__ = ("path", "worker", "base", "places", "ends", "skeletons")

    def __init__(self, path, worker, base, places, ends, skeletons):
        self.path, self.worker, self.base = path, worker, base
        self.places, self.ends, self.skeletons = places, ends, skeletons

    def __reduce__(self):
        return (_take, (self.path, self.worker, self.base, self.places, self.ends,
                        self.skeletons))
