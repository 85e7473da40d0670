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
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from module_vs_driver import compare_threads  # noqa: E402


def main():
    moddir, name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
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
    print("threads-%s: %d passed, %d failed" % (name, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
