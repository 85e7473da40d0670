"""What featc.torch and featc.torch_segments share, below both: the paths
of a source list, the ranks of a job, and each shard's parts of an epoch."""
import glob
import os
import random

import torch

from featc._remote import is_url


def _expand(sources):
    """Paths from a path, a glob or a list of them, in order (a glob's
    matches sorted); a glob that matches nothing is an error."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    out = []
    for s in sources:
        s = os.fspath(s)
        if not is_url(s) and any(c in s for c in "*?["):
            found = sorted(glob.glob(s))
            if not found:
                raise FileNotFoundError("no file matches %r" % s)
            out.extend(found)
        else:
            out.append(s)
    return out


def _mix(*words):
    """A 64-bit seed from several integers (each epoch and shard its own)."""
    x = 0x6A09E667F3BCC908
    for w in words:
        x = (x ^ (int(w) & 0xFFFFFFFFFFFFFFFF)) * 0x100000001B3 & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 29
    return x


def _ranks(rank, world_size):
    """rank and world_size as given, else torch.distributed's when it is
    initialised, else 0 of 1; checked."""
    if rank is None and world_size is None:
        dist = torch.distributed
        if dist.is_available() and dist.is_initialized():
            rank, world_size = dist.get_rank(), dist.get_world_size()
        else:
            rank, world_size = 0, 1
    if rank is None or world_size is None:
        raise ValueError("rank and world_size: both or neither")
    if not (isinstance(world_size, int) and world_size >= 1 and isinstance(rank, int) and
            0 <= rank < world_size):
        raise ValueError("rank %r of world_size %r: needs 0 <= rank < world_size"
                         % (rank, world_size))
    return rank, world_size


def _shard_parts(parts, shuffle, seed, epoch, shard, shards):
    """The parts shard reads in epoch: every shards-th of the epoch's order
    (drawn from seed and epoch when shuffle is set)."""
    order = list(range(len(parts)))
    if shuffle:
        random.Random(_mix(seed, epoch)).shuffle(order)
    return [parts[i] for i in order[shard::shards]]
