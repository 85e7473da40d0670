#!/usr/bin/env python3
"""Damages the payloads of a TFRecord file's records, keeping the framing
valid (the CRCs are computed again), so that the parsers, not the reader,
meet the damage.

usage: damage.py IN OUT SEED

About a third of the records get one change: a byte set to a random value,
a byte dropped, or the record cut short.  Deterministic for a seed."""
import random
import sys

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/oracle")
from framing import frame, records  # noqa: E402


def main():
    src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(seed)
    out = bytearray()
    for r in records(open(src, "rb").read()):
        r = bytearray(r)
        if r and rng.random() < 0.33:
            i = rng.randrange(len(r))
            what = rng.randrange(3)
            if what == 0:
                r[i] = rng.randrange(256)
            elif what == 1:
                del r[i]
            else:
                del r[i:]
        out += frame(bytes(r))
    open(dst, "wb").write(bytes(out))


if __name__ == "__main__":
    main()
