#!/usr/bin/env python3
"""read(threads=N) in a module built with ThreadSanitizer (run.sh preloads
gcc's libtsan into Debian's Python, with halt_on_error: a data race ends the
process with TSan's report and exit status 66).

usage: test_threads.py MODULE_DIR MODULE FILE...

The batches and errors of threads=2 and 3 against threads=1
(module_vs_driver.compare_threads: paths, bytes, file objects, a missing
source, sources cut short or with a byte flipped), then readers with 2 to 4
threads closed and dropped while batches are in flight.  Prints
"threads-MODULE: N passed, M failed".
"""
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from module_vs_driver import compare_threads  # noqa: E402


def tiny_file(path, n):
    """A file of the first n records of path (fewer if it has fewer)."""
    data = open(path, "rb").read()
    pos = 0
    for _ in range(n):
        if pos + 8 > len(data):
            break
        pos = min(len(data), pos + 16 + int.from_bytes(data[pos:pos + 8], "little"))
    fd, out = tempfile.mkstemp(suffix=".tfrecord")
    with os.fdopen(fd, "wb") as f:
        f.write(data[:pos])
    return out


def plain(mod, sources, bsize, threads):
    """The batches of a read, each as its keys and values' bytes, or the
    error's text."""
    out, r = [], mod.read(sources, batch_size=bsize, threads=threads)
    while True:
        try:
            b = next(r)
        except StopIteration:
            return out
        except (mod.DataError, OSError) as e:
            out.append(str(e))
            continue
        out.append(sorted((k, repr(v)) for k, v in b.items()))


def main():
    moddir, name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    # a read that hangs ends the run (no tally line: a failure); about 75 s
    # under ThreadSanitizer here
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(900)
    sys.path.insert(0, moddir)
    mod = __import__(name)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            if failed <= 10:
                print("threads-%s: FAIL %s" % (name, what), file=sys.stderr)

    compare_threads(mod, files, check)
    for threads in (2, 3, 4):
        for n in (0, 1, 3):
            r = mod.read(files * 3, batch_size=1 + n, threads=threads)
            for _ in range(n):
                next(r, None)
            if n % 2:
                r.close()
                check(list(r) == [], "a closed reader with threads still yields")
            del r
    # sources of a few records each: the threads read a whole source and
    # stop at its end before the caller's thread, which opened it, goes on
    # (a slot it had in hand then belonged to the threads: it queued a stale
    # one, and the read hung)
    tiny = tiny_file(files[0], 5)
    missing = tiny + ".missing"
    for sources in ([tiny], [tiny, tiny], [tiny, missing, tiny]):
        for threads in (2, 3):
            for bsize in (1, 2, 7):
                want = plain(mod, sources, bsize, 1)
                same = all(plain(mod, sources, bsize, threads) == want for _ in range(40))
                check(same, "threads=%d over %d small sources, B=%d: not threads=1's batches"
                      % (threads, len(sources), bsize))
    os.remove(tiny)
    print("threads-%s: %d passed, %d failed" % (name, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
