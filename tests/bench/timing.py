"""Paired timing for make bench's Python rows (chain.py, torch_bench.py).

This host's speed drifts (one binary moved 1.6x between two runs minutes
apart), so a ratio comes from passes that take turns in one process
(A B A B ...): the median (min-max) of the rounds' ratios."""
import os
import time


def fresh(*paths):
    """A callable to run untimed before a pass: removes the outputs of the
    pass before, then waits for the disk (sync), so that every pass starts
    from the same state.  On ext4 a rename over an existing file, as
    featc's atomic outputs do, makes the kernel allocate and start writing
    the new file's blocks first (the auto_da_alloc heuristic) and drop the
    old file's pages; and the writeback a pass leaves behind slows whatever
    runs next, the other side of the pair included (docs/performance.md
    gives the figures).  A pass times its own work, not the last pass's
    file."""
    def settle():
        for p in paths:
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        os.sync()
    return settle


def paired(fa, fb, rounds, before_a=None, before_b=None):
    """fa and fb in turns, each once first unmeasured: (median, min, max)
    of rate(a)/rate(b) by round, and each one's median time.  before_a and
    before_b, when given, run untimed before each pass of fa and fb."""
    ratios, ta, tb = [], [], []
    nothing = lambda: None
    before_a = before_a or nothing
    before_b = before_b or nothing
    before_a()
    fa()
    before_b()
    fb()
    for _ in range(rounds):
        before_a()
        t = time.perf_counter()
        fa()
        a = time.perf_counter() - t
        before_b()
        t = time.perf_counter()
        fb()
        b = time.perf_counter() - t
        ratios.append(b / a)
        ta.append(a)
        tb.append(b)
    ratios.sort()
    ta.sort()
    tb.sort()
    return (ratios[len(ratios) // 2], ratios[0], ratios[-1]), ta[len(ta) // 2], tb[len(tb) // 2]


def quote(t):
    """A paired ratio as the tables print it: median (min-max)."""
    return "%.2f (%.2f-%.2f)" % t
