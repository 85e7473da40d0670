#!/usr/bin/env python3
"""The segment batcher from Python (python/ext/segments.c: mod.segments(),
featc.segment_batches, featc.torch.SegmentBatcher) and read(raw=True).

usage: test_segments.py BUILD TMP [ASAN_DIR|-] [SEGMENT_DIR]

With ASAN_DIR (an elman module built with ASan and UBSan, imported before
BUILD's; tests/python/run.sh preloads the sanitizers) everything but the
PyTorch part runs, and the line is "segments-asan".  With SEGMENT_DIR (the
module of tests/specs/segment.feat) VarLen context features and lists,
bytes, rank-2 context and two states of two types are checked too, on
SequenceExamples encoded here.

Writes clips of specs/elman.feat (ids, labels, 1 to 64 steps of 3 inputs)
and feeds them to the batcher with the spec's settings and with others.
Every batch is compared, field by field, with a model written here from
fc_segment.h's contract (segments of num_unroll frames, zero-padded; a batch
takes the oldest ready examples; segment_batches fills to capacity before
each batch), with states saved as a known function of key and segment so
that the states each segment starts from are checked too.  Then: keys from
a context feature, initial states, length=, every error the API can meet,
read(raw=True) against the file's framing, SegmentBatcher over ranks and
epochs, and a torch GRU run over segments with its state carried, which
must equal the GRU over each whole clip to 1e-5 (float32 sums over the same
steps; no training here: examples/bptt_torch.py trains)."""
import os
import shutil
import struct
import sys

import numpy as np

BUILD, TMP = sys.argv[1:3]
ASAN = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
SEGMENT_DIR = sys.argv[4] if len(sys.argv) > 4 else None
sys.path.insert(0, os.path.join(BUILD, "python"))
if ASAN:
    sys.path.insert(0, ASAN)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import elman  # noqa: E402
import featc  # noqa: E402
import tutorial  # noqa: E402
from tally import check, finish  # noqa: E402

HID = 5


def write_clips(path, lengths, labels=None, seed=3, compression="none"):
    rng = np.random.default_rng(seed)
    n = len(lengths)
    x = np.zeros((n, max(lengths), 3), np.float32)
    for c, t in enumerate(lengths):
        x[c, :t] = rng.standard_normal((t, 3))
    ids = ["clip%03d" % c for c in range(n)]
    labels = np.arange(n) % 2 if labels is None else np.asarray(labels)
    context = {"id": np.array([i.encode() for i in ids], dtype=object),
               "label": labels.astype(np.int64)}
    elman.write(path, (context, {"x": x}, {"x": np.asarray(lengths)}), compression=compression)
    return [{"id": ids[c], "label": int(labels[c]), "x": x[c, :t]} for c, t in enumerate(lengths)]


def saved_value(key, seq):
    """The state saved after segment seq of the example keyed key."""
    return np.full(HID, (sum(key.encode()) % 97) * 100 + seq, np.float32)


def model(clips, keys, num_unroll, batch_size, capacity, small, initial=None):
    """The batches segment_batches must give: a list of dicts of what each
    entry holds, or ("incomplete", batches) when the end cannot fill one."""
    pending = list(range(len(clips)))
    flight = []  # [example, next segment]
    out = []
    while True:
        while pending and len(flight) < capacity:
            flight.append([pending.pop(0), 0])
        closed = not pending
        if not flight:
            return out
        if len(flight) < batch_size and (not closed or not small):
            return ("incomplete", out) if closed else out
        take = flight[:batch_size]
        batch = []
        for ex, seq in take:
            c = clips[ex]
            t = len(c["x"])
            count = -(-t // num_unroll)
            frames = np.zeros((num_unroll, 3), np.float32)
            part = c["x"][seq * num_unroll:(seq + 1) * num_unroll]
            frames[:len(part)] = part
            if seq == 0:
                state = (np.zeros(HID, np.float32) if initial is None
                         else initial(keys[ex]))
            else:
                state = saved_value(keys[ex], seq - 1)
            batch.append({
                "key": b"%05d_of_%05d:%s" % (seq, count, keys[ex].encode()),
                "next_key": (b"STOP:" + keys[ex].encode() if seq + 1 == count else
                             b"%05d_of_%05d:%s" % (seq + 1, count, keys[ex].encode())),
                "sequence": seq, "sequence_count": count, "length": len(part),
                "total_length": t, "id": c["id"].encode(), "label": c["label"], "x": frames,
                "h": state})
        out.append(batch)
        for entry in take:
            entry[1] += 1
        flight = [e for e in flight if e[1] < -(-len(clips[e[0]]["x"]) // num_unroll)]


def entries(b):
    """A batch of the module as the model's list of dicts."""
    ids = b["context"]["id"].tolist()
    return [{"key": b["key"][i], "next_key": b["next_key"][i],
             "sequence": int(b["sequence"][i]), "sequence_count": int(b["sequence_count"][i]),
             "length": int(b["length"][i]), "total_length": int(b["total_length"][i]),
             "id": ids[i], "label": int(b["context"]["label"][i]), "x": b["sequences"]["x"][i],
             "h": b["states"]["h"][i]} for i in range(len(b["key"]))]


def same(a, b):
    if a.keys() != b.keys():
        return False
    return all(np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k]
               for k in a)


def run(seg, records, keys):
    """Batches of segment_batches, saving the known state values; the
    insertion indices, which must count up from -2^63."""
    got, index = [], []
    for b in featc.segment_batches(seg, records):
        got.append(entries(b))
        index.extend(b["insertion_index"].tolist())
        seg.save_state("h", np.stack([saved_value(k.split(b":", 1)[1].decode(), int(s))
                                      for k, s in zip(b["key"], b["sequence"])]))
    return got, index


def compare(name, got, want):
    check(len(got) == len(want), "%s: %d batches, the model %d" % (name, len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if len(g) != len(w) or not all(same(x, y) for x, y in zip(g, w)):
            check(False, "%s: batch %d differs from the model:\n  got  %s\n  want %s"
                  % (name, i, [e["key"] for e in g], [e["key"] for e in w]))
            return
    check(True, name)


def test_model(clips, path):
    records = list(featc.records(path, elman))
    ids = [c["id"] for c in clips]
    for settings in ({}, {"num_unroll": 5, "batch_size": 3, "capacity": 7},
                     {"num_unroll": 64, "batch_size": 1, "capacity": 1},
                     {"num_unroll": 1, "batch_size": 6, "capacity": 6},
                     {"num_unroll": 3, "batch_size": 2, "capacity": 11}):
        seg = elman.segments(key="id", **settings)
        got, index = run(seg, records, ids)
        want = model(clips, ids, seg.num_unroll, seg.batch_size, seg.capacity, True)
        compare("settings %s" % settings, got, want)
        check(seg.done and seg.in_flight == 0 and seg.finished == len(clips) and
              seg.batches == len(got), "settings %s: done, %d finished, %d batches"
              % (settings, seg.finished, seg.batches))
        first = sorted(set(index))
        check(first[0] == -2**63 and first == list(range(-2**63, -2**63 + len(clips))),
              "settings %s: insertion indices count up from -2^63" % settings)
    # keys: the ordinals by default, an int64 feature's decimal text
    ordinal = [str(i) for i in range(len(clips))]
    got, _ = run(elman.segments(), records, ordinal)
    compare("ordinal keys", got, model(clips, ordinal, 8, 4, 8, True))
    path2 = os.path.join(TMP, "labels.tfrecord")
    clips2 = write_clips(path2, [len(c["x"]) for c in clips], labels=np.arange(len(clips)) * 7)
    rec2 = list(featc.records(path2, elman))
    keys2 = [str(c["label"]) for c in clips2]
    got, _ = run(elman.segments(key="label"), rec2, keys2)
    compare("keys from an int64 feature", got, model(clips2, keys2, 8, 4, 8, True))
    # initial states (the settings above start from zeros)
    init = {c["id"]: np.arange(HID, dtype=np.float32) + len(c["x"]) for c in clips}
    seg = elman.segments(key="id")
    queue = [(r, {"h": init[c["id"]]}) for r, c in zip(records, clips)]
    got = []
    while True:
        while queue and seg.insert(queue[0][0], initial=queue[0][1]):
            queue.pop(0)
        if not queue and not seg.closed:
            seg.close()
        b = seg.next()
        if b is None:
            break
        got.append(entries(b))
        seg.save_state("h", np.stack([saved_value(k.split(b":", 1)[1].decode(), int(s))
                                      for k, s in zip(b["key"], b["sequence"])]))
    compare("initial states", got, model(clips, ids, 8, 4, 8, True, initial=lambda k: init[k]))
    # length= shorter than the frames: the valid steps of the last segment
    seg = elman.segments(key="id", batch_size=1, capacity=1)
    long_clip = max(range(len(clips)), key=lambda c: len(clips[c]["x"]))
    t = len(clips[long_clip]["x"])
    seg.insert(records[long_clip], length=t - 9)
    seg.close()
    lens, totals = [], []
    while True:
        b = seg.next()
        if b is None:
            break
        lens.append(int(b["length"][0]))
        totals.append(int(b["total_length"][0]))
        seg.save_state("h", b["states"]["h"])
    count = -(-t // 8)
    want = [min(8, max(0, t - 9 - 8 * s)) for s in range(count)]
    check(lens == want and set(totals) == {t - 9},
          "length=%d of %d frames: lengths %s totals %s, want %s" % (t - 9, t, lens, totals, want))


def raises(what, exc, fn, text=None, status=None):
    try:
        fn()
    except exc as e:
        ok = (text is None or text in str(e)) and (status is None or
                                                   getattr(e, "status", None) == status)
        check(ok, "%s: %s %r (status %s)" % (what, type(e).__name__, str(e),
                                              getattr(e, "status", None)))
        return
    except Exception as e:  # noqa: BLE001
        check(False, "%s: raised %s %s, not %s" % (what, type(e).__name__, e, exc.__name__))
        return
    check(False, "%s: did not raise %s" % (what, exc.__name__))


def test_errors(records):
    raises("a spec without segments", ValueError, lambda: tutorial.segments(),
           "declares no segments block")
    raises("message without segments", ValueError, lambda: elman.segments(message="nope"),
           "no message named")
    raises("key of a list", ValueError, lambda: elman.segments(key="x"), "not a context feature")
    raises("capacity < batch_size", ValueError, lambda: elman.segments(batch_size=9, capacity=3),
           "capacity must be larger or equal to batch_size")
    raises("num_unroll=0", ValueError, lambda: elman.segments(num_unroll=0), "num_unroll")
    seg = elman.segments(key="id")
    check(seg.insert(records[0]) is True, "insert: True")
    raises("a key in flight", featc.DataError, lambda: seg.insert(records[0]),
           "already has a value in the state saver", "FC_ERR_ARG")
    raises("a record that does not parse", featc.DataError, lambda: seg.insert(b"\xff\xff\xff"),
           "Invalid protocol message input", "FC_ERR_PARSE")
    raises("a record over max_record_size", featc.DataError,
           lambda: elman.segments(max_record_size=10).insert(records[1]),
           "is larger than the declared record max 10", "FC_ERR_ARG")
    raises("length past the frames", featc.DataError,
           lambda: elman.segments().insert(records[0], length=999),
           "Input length should be <= than length from sequences")
    raises("save_state with no batch out", RuntimeError,
           lambda: seg.save_state("h", np.zeros((4, HID))), "no batch is out")
    raises("initial of another shape", ValueError,
           lambda: seg.insert(records[2], initial={"h": np.zeros(4)}), "takes shape (5,)")
    raises("initial of no state", KeyError, lambda: seg.insert(records[2], initial={"g": 1}))
    check(seg.in_flight == 1, "failed inserts changed nothing: %d in flight" % seg.in_flight)
    for r in records[1:8]:
        seg.insert(r)
    check(seg.insert(records[8]) is False and seg.in_flight == 8,
          "insert at capacity: False, nothing changed")
    b = seg.next()
    check(b is not None and len(b["key"]) == 4, "a batch at capacity")
    raises("next() before save_state", RuntimeError, seg.next, 'save_state("h") was not called')
    raises("save_state of another shape", ValueError,
           lambda: seg.save_state("h", np.zeros((3, HID))), "takes shape (4, 5)")
    raises("save_state of no state", KeyError, lambda: seg.save_state("g", np.zeros((4, HID))))
    check(seg.waiting, "waiting for the states")
    seg.save_state("h", [[1.5] * HID] * 4)  # (anything numpy takes)
    check(not seg.waiting, "the states saved")
    b = seg.next()
    check(b is not None and float(b["states"]["h"][1][0]) == 1.5,
          "a list of lists saved as float32")
    seg.save_state("h", b["states"]["h"])
    seg.close()
    raises("insert after close", RuntimeError, lambda: seg.insert(records[9]), "closed")
    small = elman.segments(allow_small_batch=False)
    small.insert(records[0])
    small.close()
    raises("closed with too few for a batch", featc.DataError, small.next,
           "cannot fill a batch", "FC_ERR_INCOMPLETE")
    open_one = elman.segments()
    open_one.insert(records[0])
    check(open_one.next() is None and not open_one.done, "too few and open: None, not done")


def test_raw(path):
    data = open(path, "rb").read()
    want, pos = [], 0
    while pos < len(data):
        (n,) = struct.unpack_from("<Q", data, pos)
        want.append(data[pos + 12:pos + 12 + n])
        pos += 16 + n
    for kw in ({"batch_size": 1}, {"batch_size": 7, "threads": 2}, {"batch_size": 1000}):
        got = [r for b in elman.read(path, raw=True, **kw) for r in b]
        check(got == want, "read(raw=True, %s): the file's records" % kw)
    got = list(featc.records(path, elman, shuffle=5, seed=2))
    check(sorted(got) == sorted(want) and got != want, "records(shuffle=5): the records, mixed")
    check(list(featc.records(path, elman, skip=3)) == want[3:], "records(skip=3)")


def test_torch(clips, path, gz):
    import torch
    import featc.torch
    from torch.nn.utils.rnn import pack_padded_sequence
    ids = sorted(c["id"] for c in clips)
    # ranks: every clip's last segment once over the ranks, disjoint
    for src in (path, gz):
        seen = []
        for rank in range(2):
            sb = featc.torch.SegmentBatcher(elman, src, key="id", rank=rank, world_size=2,
                                            split_bytes=1500)
            for b in sb:
                check(isinstance(b.sequences["x"], torch.Tensor) and
                      b.sequences["x"].shape[1:] == (8, 3), "tensors [B, 8, 3]")
                seen.extend(b.key[i].split(b":", 1)[1].decode() for i in range(b.batch_size)
                            if b.sequence[i] == b.sequence_count[i] - 1)
                b.save_state("h", b.state("h"))
        check(sorted(seen) == ids, "%s over 2 ranks: each clip once (%d of %d)"
              % (os.path.basename(src), len(seen), len(ids)))

    def order(seed, epoch):
        sb = featc.torch.SegmentBatcher(elman, path, key="id", shuffle=True, seed=seed,
                                        shuffle_buffer=8, split_bytes=1500)
        sb.set_epoch(epoch)
        keys = []
        for b in sb:
            keys.extend(b.key)
            b.save_state("h", b.state("h"))
        return keys
    a = order(5, 0)
    check(a == order(5, 0) and a != order(5, 1) and a != order(6, 0),
          "shuffle: the same seed and epoch the same stream; another, another")
    # the state carried across segments == the whole clip at once
    torch.manual_seed(0)
    gru = torch.nn.GRU(3, HID, batch_first=True)
    n = len(clips)
    lengths = torch.tensor([len(c["x"]) for c in clips])
    x = torch.zeros(n, int(lengths.max()), 3)
    for i, c in enumerate(clips):
        x[i, :len(c["x"])] = torch.from_numpy(c["x"])
    with torch.no_grad():
        _, whole = gru(pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False))
        for settings in ({}, {"num_unroll": 3, "batch_size": 5, "capacity": 9}):
            carried = {}
            for b in featc.torch.SegmentBatcher(elman, gz, key="id", **settings):
                packed = pack_padded_sequence(b.sequences["x"], b.length, batch_first=True,
                                              enforce_sorted=False)
                _, hn = gru(packed, b.state("h").unsqueeze(0).contiguous())
                for i in range(b.batch_size):
                    if b.sequence[i] == b.sequence_count[i] - 1:
                        carried[b.key[i].split(b":", 1)[1].decode()] = hn[0, i]
                b.save_state("h", hn[0])
            diff = max(float((carried[c["id"]] - whole[0, i]).abs().max())
                       for i, c in enumerate(clips)) if len(carried) == n else float("inf")
            check(diff <= 1e-5, "GRU %s: the carried state vs the whole clip: max |diff| %g"
                  % (settings, diff))


def _varint(v):
    out = bytearray()
    v = int(v) & ((1 << 64) - 1)
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(num, payload):
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _feature(kind, values):
    """A tf.train.Feature: bytes (1), float (2, packed) or int64 (3, packed)."""
    if kind == "bytes":
        inner = b"".join(_field(1, v) for v in values)
    elif kind == "float":
        inner = _field(1, struct.pack("<%df" % len(values), *values))
    else:
        inner = _field(1, b"".join(_varint(v) for v in values))
    return _field({"bytes": 1, "float": 2, "int64": 3}[kind], inner)


def sequence_example(context, lists):
    """context: key -> (kind, values); lists: key -> (kind, [values per frame])."""
    feats = b"".join(_field(1, _field(1, k.encode()) + _field(2, _feature(*v)))
                     for k, v in context.items())
    fl = b"".join(_field(1, _field(1, k.encode()) +
                         _field(2, b"".join(_field(1, _feature(kind, fr)) for fr in frames)))
                  for k, (kind, frames) in lists.items())
    return _field(1, feats) + _field(2, fl)


def test_varlen(mod_dir):
    """tests/specs/segment.feat: VarLen context and lists (padded, with
    NAME/lengths), bytes, a rank-2 context feature, two states of two types."""
    sys.path.insert(0, mod_dir)
    import segment
    rng = np.random.default_rng(11)
    examples, records = [], []
    for e in range(23):
        t = int(rng.integers(1, 15))
        ex = {"id": b"e%d" % e, "label": int(rng.integers(-5, 5)),
              "tags": [b"t%d" % k * k for k in range(int(rng.integers(0, 5)))],
              "emb": rng.standard_normal(4).astype(np.float32),
              "x": rng.standard_normal((t, 3)).astype(np.float32),
              "w": rng.integers(-1000, 1000, t),
              "toks": [[b"w%d.%d" % (f, k) for k in range(int(rng.integers(0, 4)))]
                       for f in range(t)]}
        examples.append(ex)
        records.append(sequence_example(
            {"id": ("bytes", [ex["id"]]), "label": ("int64", [ex["label"]]),
             "tags": ("bytes", ex["tags"]), "emb": ("float", ex["emb"].tolist())},
            {"x": ("float", [r.tolist() for r in ex["x"]]), "w": ("int64", [[v] for v in ex["w"]]),
             "toks": ("bytes", ex["toks"])}))
    seg = segment.segments(allow_small_batch=True)
    u = seg.num_unroll
    seen, bad = 0, []
    for b in featc.segment_batches(seg, records):
        n = len(b["key"])
        ctx, sq = b["context"], b["sequences"]
        tags, toks = ctx["tags"].tolist(), sq["toks"].tolist()  # (flat)
        for i in range(n):
            e = int(b["key"][i].split(b":", 1)[1])
            s = int(b["sequence"][i])
            ex = examples[e]
            lo, hi = s * u, min((s + 1) * u, len(ex["x"]))
            x = np.zeros((u, 3), np.float32)
            x[:hi - lo] = ex["x"][lo:hi]
            w = np.zeros(u, np.int64)
            w[:hi - lo] = ex["w"][lo:hi]
            tk = [ex["toks"][f] if f < hi else [] for f in range(lo, lo + u)]
            ok = (ctx["id"][i] == ex["id"] and int(ctx["label"][i]) == ex["label"] and
                  tags[4 * i:4 * i + 4] == ex["tags"] + [b""] * (4 - len(ex["tags"])) and
                  int(ctx["tags/lengths"][i]) == len(ex["tags"]) and
                  np.array_equal(ctx["emb"][i], ex["emb"].reshape(2, 2)) and
                  np.array_equal(sq["x"][i], x) and np.array_equal(sq["w"][i], w) and
                  toks[3 * u * i:3 * u * (i + 1)] ==
                  [v for f in tk for v in f + [b""] * (3 - len(f))] and
                  sq["toks/lengths"][i].tolist() == [len(f) for f in tk] and
                  b["states"]["h"][i].tolist() == ([0.0] * 4 if s == 0 else [e, s - 1, 0.5, -1]) and
                  int(b["states"]["steps"][i]) == lo)
            if not ok:
                bad.append(b["key"][i])
            seen += 1
        seg.save_state("h", [[int(k.split(b":", 1)[1]), int(q), 0.5, -1]
                             for k, q in zip(b["key"], b["sequence"])])
        seg.save_state("steps", (b["sequence"] + 1) * u)
    want = sum(-(-len(ex["x"]) // u) for ex in examples)
    check(seen == want and not bad, "segment.feat (VarLen, bytes, two states): %d segments of "
          "%d, differing: %s" % (seen, want, bad[:5]))
    check(seg.states == {"h": (np.dtype("float32"), (4,)), "steps": (np.dtype("int64"), ())},
          "states: %s" % seg.states)


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    lengths = [1, 8, 16, 64, 9, 7, 33, 2, 40, 17, 24, 63, 5, 48, 12, 3, 56, 31, 1, 20, 44, 8,
               15, 29, 60, 6, 38, 11, 27, 50, 4, 19, 35, 10, 64, 22, 13]
    path = os.path.join(TMP, "clips.tfrecord")
    clips = write_clips(path, lengths)
    gz = os.path.join(TMP, "clips.tfrecord.gz")
    write_clips(gz, lengths, compression="gzip")
    test_model(clips, path)
    test_errors(list(featc.records(path, elman)))
    test_raw(path)
    if SEGMENT_DIR:
        test_varlen(SEGMENT_DIR)
    if ASAN:
        check(elman.__file__.startswith(os.path.abspath(ASAN)) or
              elman.__file__.startswith(ASAN), "the sanitized module: %s" % elman.__file__)
        return finish("segments-asan")
    test_torch(clips, path, gz)
    return finish("segments")


if __name__ == "__main__":
    sys.exit(main())
