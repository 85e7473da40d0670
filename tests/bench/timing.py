"""Paired timing for make bench's Python rows (chain.py, torch_bench.py).

This host's speed drifts (one binary moved 1.6x between two runs minutes
apart), so a ratio comes from passes that take turns in one process
(A B A B ...): the median (min-max) of the rounds' ratios."""
import time


def paired(fa, fb, rounds):
    """fa and fb in turns, each once first unmeasured: (median, min, max)
    of rate(a)/rate(b) by round, and each one's median time."""
    ratios, ta, tb = [], [], []
    fa()
    fb()
    for _ in range(rounds):
        t = time.perf_counter()
        fa()
        a = time.perf_counter() - t
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
