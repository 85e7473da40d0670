"""Truncated backpropagation through time in PyTorch over featc's segment
batcher (a sequence_example's segments block: TensorFlow's
SequenceQueueingStateSaver, batch_sequences_with_states).

    import featc.torch
    batches = featc.torch.SegmentBatcher("specs/elman.feat", "clips.tfrecord.gz", key="id")
    for batch in batches:                        # batch_size segments of num_unroll steps
        x = batch.sequences["x"]                 # [B, num_unroll, 3]
        h0 = batch.state("h")                    # [B, 5]: as the previous segment left it
        out, hn = gru(pack_padded_sequence(x, batch.length, batch_first=True,
                                           enforce_sorted=False), h0.unsqueeze(0))
        ...                                      # loss, backward, step
        batch.save_state("h", hn[0].detach())    # the next segment of each sequence starts here

Each example (a record) is cut into segments of num_unroll steps; a batch
takes segments of batch_size different examples, oldest first, with their
context and the states saved after their previous segment (the initial
states, zero unless given, for a first segment).  Every state must be saved
before the next batch: that is what makes the next segments ready.  The
batcher lives in the process that trains (it needs the states back), so it
is an iterable, not a DataLoader dataset; records are read with read()'s
threads.  Ranks read disjoint parts of the sources (as TFRecordDataset's
shards), each with its own batcher.
"""
import torch

import featc
from featc._parts import DEFAULT_SPLIT_BYTES, partitions
from featc._shards import _expand, _mix, _ranks, _shard_parts
from featc._tensors import tensor as _tensor

__all__ = ["SegmentBatcher", "SegmentBatch"]


class SegmentBatch:
    """One batch of segments as tensors, TensorFlow's NextQueuedSequenceBatch:
    key and next_key (lists of bytes: "%05d_of_%05d:KEY", the next segment's
    or "STOP:KEY"), sequence (this segment's index), sequence_count, length
    (valid steps: pack_padded_sequence's lengths), total_length,
    insertion_index (int64 [B]); context (name -> [B, ...]) and sequences
    (name -> [B, num_unroll, ...], zero past length; a VarLen feature is
    padded, with its counts under NAME/lengths); state(name) and
    save_state(name, values).  The tensors are the batch's own (copies of
    the batcher's memory)."""

    def __init__(self, segmenter, batch):
        self._segmenter = segmenter
        self.key = batch["key"]
        self.next_key = batch["next_key"]
        self.batch_size = len(self.key)
        for name in ("sequence", "sequence_count", "length", "total_length", "insertion_index"):
            setattr(self, name, torch.from_numpy(batch[name]))
        self.context = {k: _tensor(v) for k, v in batch["context"].items()}
        self.sequences = {k: _tensor(v) for k, v in batch["sequences"].items()}
        self._states = {k: torch.from_numpy(v) for k, v in batch["states"].items()}

    def state(self, name):
        """State name as the previous segment of each entry left it: [B, ...]."""
        try:
            return self._states[name]
        except KeyError:
            raise KeyError("state %r was not declared (the states: %s)"
                           % (name, ", ".join(self._states))) from None

    def save_state(self, name, values):
        """Saves state name for this batch ([B, ...], in the batch's order;
        a tensor is detached and copied to the CPU).  Entries whose segment
        was their example's last are not kept."""
        if torch.is_tensor(values):
            values = values.detach().to("cpu").numpy()
        self._segmenter.save_state(name, values)


class SegmentBatcher:
    """Batches of segments (SegmentBatch) of the sequence_examples in sources.

    spec: what featc.load takes; its sequence_example (message=, else the
    first with one) has a segments block, whose settings num_unroll,
    batch_size, capacity and allow_small_batch may be overridden here.
    sources: a path, a glob, or a list of them.  key: a context feature (one
    bytes or int64 value) that names each example (default: its ordinal in
    this rank's stream).  shuffle: the parts' order drawn per epoch (seed,
    set_epoch) and the records drawn from a buffer of shuffle_buffer.  rank,
    world_size: as TFRecordDataset's.  threads, and the other keywords
    (compression, crc, max_record_size of the records read, ...), go to
    read(); max_record_size bounds both."""

    def __init__(self, spec, sources, *, message=None, key=None, num_unroll=None,
                 batch_size=None, capacity=None, allow_small_batch=None, shuffle=False,
                 shuffle_buffer=1024, seed=0, rank=None, world_size=None,
                 split_bytes=DEFAULT_SPLIT_BYTES, threads=1, **read_options):
        self._mod = featc.load(spec)
        self.settings = {"message": message, "key": key, "num_unroll": num_unroll,
                         "batch_size": batch_size, "capacity": capacity,
                         "allow_small_batch": allow_small_batch,
                         "max_record_size": read_options.get("max_record_size")}
        probe = self._mod.segments(**self.settings)  # (the settings checked now)
        self.num_unroll, self.batch_size = probe.num_unroll, probe.batch_size
        self.capacity, self.states = probe.capacity, probe.states
        self.rank, self.world_size = _ranks(rank, world_size)
        self.paths = _expand(sources)
        self.parts = partitions(self.paths, split_bytes, read_options.get("compression", "auto"))
        if shuffle and (not isinstance(shuffle_buffer, int) or shuffle_buffer < 1):
            raise ValueError("shuffle_buffer must be a positive int, not %r" % (shuffle_buffer,))
        self.shuffle, self.shuffle_buffer, self.seed = bool(shuffle), shuffle_buffer, int(seed)
        self.threads = threads
        self.read_options = dict(read_options)
        self.read_options["message"] = probe.message
        self.epoch = 0
        self.segmenter = None

    def set_epoch(self, epoch):
        """The epoch the next iteration reads (its parts' order and shuffle)."""
        self.epoch = int(epoch)

    def records(self):
        """This rank's records in this epoch, in the order the batcher takes them."""
        mine = _shard_parts(self.parts, self.shuffle, self.seed, self.epoch, self.rank,
                            self.world_size)
        if not mine:
            return iter(())
        return featc.records([p for p, _ in mine], self._mod, splits=[s for _, s in mine],
                             shuffle=self.shuffle_buffer if self.shuffle else 0,
                             seed=_mix(self.seed, self.epoch, self.rank), threads=self.threads,
                             **self.read_options)

    def __iter__(self):
        self.segmenter = seg = self._mod.segments(**self.settings)
        for batch in featc.segment_batches(seg, self.records()):
            yield SegmentBatch(seg, batch)
