"""Truncated backpropagation through time in PyTorch, fed by featc's segment
batcher: the PyTorch version of elman_rnn.c (TensorFlow's
batch_sequences_with_states with a state-saving RNN).

1. Writes OUTDIR/clips.tfrecord.gz: 192 SequenceExamples of specs/elman.feat,
   each a clip with an id, a label and 1 to 60 steps of 3 inputs; the label
   says whether the first input summed over the clip's last 3 steps is
   positive.
2. Trains a torch.nn.GRU(3, 5) and a linear head for 6 epochs with truncated
   BPTT: featc.torch.SegmentBatcher cuts each clip into segments of 8 steps
   and hands out batches of 16 segments of different clips, each with the
   hidden state h its clip's previous segment saved; the loss is taken at
   each clip's last segment, gradients stop at segment boundaries.
3. Checks that the state carried across segments equals the GRU run over
   each whole clip at once (to 1e-5: float32 sums in another order).

usage: PYTHONPATH=build/python python3 examples/bptt_torch.py OUTDIR
"""
import os
import sys

import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence

import elman  # the module make python builds from specs/elman.feat
import featc.torch

NCLIPS, EPOCHS = 192, 6


def write_clips(path):
    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 61, NCLIPS)
    x = np.zeros((NCLIPS, 60, 3), np.float32)
    for c, n in enumerate(lengths):
        x[c, :n] = rng.standard_normal((n, 3))
    label = np.array([x[c, max(0, n - 3):n, 0].sum() > 0 for c, n in enumerate(lengths)])
    context = {"id": np.array([b"clip%03d" % c for c in range(NCLIPS)], dtype=object),
               "label": label.astype(np.int64)}
    elman.write(path, (context, {"x": x}, {"x": lengths}), compression="gzip")
    return x, lengths


def run_segment(gru, batch):
    """The GRU over one batch's segments from their saved states: the state
    after each segment's last valid step, [B, 5]."""
    x = batch.sequences["x"]
    packed = pack_padded_sequence(x, batch.length, batch_first=True, enforce_sorted=False)
    _, hn = gru(packed, batch.state("h").unsqueeze(0).contiguous())
    return hn[0]


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "clips.tfrecord.gz")
    x, lengths = write_clips(path)
    batches = featc.torch.SegmentBatcher(elman, path, key="id", batch_size=16, capacity=32,
                                         shuffle=True, seed=1)
    hidden = batches.states["h"][1][0]  # state h : float[5] in the spec
    torch.manual_seed(0)
    gru = torch.nn.GRU(3, hidden, batch_first=True)
    head = torch.nn.Linear(hidden, 1)
    opt = torch.optim.Adam(list(gru.parameters()) + list(head.parameters()), lr=0.03)
    losses = []
    for epoch in range(EPOCHS):
        batches.set_epoch(epoch)
        total, right, n = 0.0, 0, 0
        for batch in batches:
            h = run_segment(gru, batch)
            last = batch.sequence == batch.sequence_count - 1
            if last.any():
                logit = head(h[last]).squeeze(1)
                y = batch.context["label"][last].float()
                loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, y,
                                                                            reduction="sum")
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.item()
                right += int(((logit > 0).float() == y).sum())
                n += int(last.sum())
            batch.save_state("h", h)
        losses.append(total / n)
        print("epoch %d: %d clips, loss %.4f, accuracy %.3f" % (epoch, n, total / n, right / n))
    if not losses[-1] < losses[0]:
        sys.exit("the loss did not go down: %s" % losses)

    # the state carried across segments == the whole clip at once
    carried = {}
    with torch.no_grad():
        for batch in featc.torch.SegmentBatcher(elman, path, key="id"):
            h = run_segment(gru, batch)
            for i in range(batch.batch_size):
                if batch.sequence[i] == batch.sequence_count[i] - 1:
                    carried[batch.key[i].split(b":", 1)[1]] = h[i]
            batch.save_state("h", h)
        packed = pack_padded_sequence(torch.from_numpy(x), torch.from_numpy(lengths),
                                      batch_first=True, enforce_sorted=False)
        _, whole = gru(packed)
    diff = max(float((carried[b"clip%03d" % c] - whole[0, c]).abs().max())
               for c in range(NCLIPS))
    print("%d clips: segmented vs whole, max |difference| %.2g" % (len(carried), diff))
    if len(carried) != NCLIPS or diff > 1e-5:
        sys.exit("the segmented states differ from the whole clips'")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")
