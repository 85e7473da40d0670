#!/usr/bin/env python3
"""Memory of the Python modules: reading a large file batch by batch keeps
the process's resident size bounded.  File objects without a buffer are
read in pieces (issue 43): a 1 GB file object is read in a new process
whose peak resident size (VmHWM) stays under 100 MB at threads=1 and
2, with the record count of its path; /dev/zero as a file object fails at
its first record; an exception its read() raises mid-stream is the one
raised, after the batches before it.

usage: test_memory.py BUILD SRC MB OUT

Writes OUT, SRC's records repeated to about MB megabytes (a TFRecord file
concatenated with itself is one), reads it with the tutorial module in
batches of 256, dropping each batch, with threads=1 and with threads=2, and samples the resident set size
(/proc/self/status) every 64 batches: the anonymous memory (RssAnon) must
stay within 64 MB of where it started, and the whole resident size (VmRSS,
which counts the mapped file's pages while they are resident: the reader
gives back the pages it has read past) within 128 MB.  Prints the figures and
"memory: N passed, M failed".
"""
import io
import os
import subprocess
import sys

build, src, mb, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, os.path.join(build, "python"))
import tutorial  # noqa: E402


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    with open(src, "rb") as f:
        chunk = f.read()
    with open(out, "wb") as f:
        written = 0
        while written < mb << 20:
            f.write(chunk)
            written += len(chunk)
    passed = failed = 0
    counts = []
    for threads in (1, 2):
        base_anon, base_rss = status("RssAnon"), status("VmRSS")
        peak_anon = peak_rss = 0
        records = batches = 0
        for b in tutorial.read(out, batch_size=256, threads=threads):
            records += len(b["feature0"])
            batches += 1
            if batches % 64 == 0:
                peak_anon = max(peak_anon, status("RssAnon"))
                peak_rss = max(peak_rss, status("VmRSS"))
        grow = peak_anon - base_anon
        print("memory: threads=%d: %d MB file, %d records in %d batches; RssAnon %.1f -> peak "
              "%.1f MB (+%.1f), VmRSS %.1f -> peak %.1f MB"
              % (threads, written >> 20, records, batches, base_anon / 2**20, peak_anon / 2**20,
                 grow / 2**20, base_rss / 2**20, peak_rss / 2**20))
        ok = grow < 64 << 20 and peak_rss - base_rss < 128 << 20 and records > 0
        passed += ok
        failed += not ok
        counts.append(records)
    ok = counts[0] == counts[1]
    passed += ok
    failed += not ok
    fp, ff = file_objects(out, chunk, written)
    passed += fp
    failed += ff
    bp, bf = big_slots(src, chunk)
    passed += bp
    failed += bf
    os.unlink(out)
    print("memory: %d passed, %d failed" % (passed, failed))
    return 0 if not failed else 1

CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import tutorial
n = 0
with open(sys.argv[2], "rb") as f:
    for b in tutorial.read(f, batch_size=256, threads=int(sys.argv[3])):
        n += len(b["feature0"])
with open("/proc/self/status") as f:  # VmHWM: this address space's peak (ru_maxrss
    hwm = [l.split()[1] for l in f if l.startswith("VmHWM:")]  # keeps the forker's)
print(n, hwm[0])
"""


class Failing(io.RawIOBase):
    """The bytes of data, then OSError from read() once `after` are given."""

    def __init__(self, data, after):
        self.data, self.at, self.after = data, 0, after

    def readable(self):
        return True

    def read(self, n=-1):
        if self.at >= self.after:
            raise OSError(5, "the disk went away")
        n = len(self.data) - self.at if n < 0 else n
        b = self.data[self.at:min(self.at + n, self.after)]
        self.at += len(b)
        return b


def file_objects(path, chunk, written):
    """(passed, failed) of the file-object checks."""
    passed = failed = 0
    with open(path, "ab") as f:  # to 1 GB
        while written < 1 << 30:
            f.write(chunk)
            written += len(chunk)
    want = sum(len(b["feature0"]) for b in tutorial.read(path, batch_size=4096))
    for threads in (1, 2):
        p = subprocess.run([sys.executable, "-c", CHILD, os.path.join(build, "python"), path,
                            str(threads)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = p.stdout.decode().split()
        ok = p.returncode == 0 and len(out) == 2 and int(out[0]) == want and \
            int(out[1]) < 100 * 1024
        print("memory: a %d MB file object, threads=%d: %s records (path: %d), peak RSS %s KB"
              % (written >> 20, threads, out[0] if out else "?", want,
                 out[1] if len(out) > 1 else "?"))
        if not ok:
            print("memory: FAIL file object: %r %r" % (p.stdout, p.stderr[-500:]))
        passed += ok
        failed += not ok
    try:
        for _ in tutorial.read(open("/dev/zero", "rb")):
            pass
        ok = False
    except featc_error() as e:
        ok = "corrupted record at 0" in str(e)
    passed += ok
    failed += not ok
    if not ok:
        print("memory: FAIL /dev/zero as a file object")
    got, exc = 0, None
    try:
        for b in tutorial.read(Failing(chunk, len(chunk) // 2), batch_size=64):
            got += len(b["feature0"])
    except OSError as e:
        exc = e
    ok = exc is not None and "the disk went away" in str(exc) and got > 0
    passed += ok
    failed += not ok
    if not ok:
        print("memory: FAIL read() raising: %d records, %r" % (got, exc))
    return passed, failed


def big_slots(path, chunk):
    """(passed, failed) of readers whose slots are big buffers (a batch of
    32,768 tutorial records is 1.6 MB of copies: reader.c's SLOT_BIG), taken
    from the module's spares and given back to them while other readers
    hold theirs: every batch equals the in-memory read's (records in place:
    no slot), with readers of 1 and 2 threads alternating, one dropped
    half-way and a new one begun beside the other.  Their bytes columns
    (430 KB) are packs kept as spares too (arrays.c's PACK_MIN): every
    other batch is held to the end and checked again there, and no two
    held batches' columns may share a byte of memory."""
    B = 32768
    want = [(b["feature0"].copy(), b["feature1"].copy(), b["feature2"].tolist(),
             b["feature3"].copy()) for b in tutorial.read(chunk, batch_size=B)]

    def same(b, w):
        return len(b["feature0"]) == len(w[0]) and (b["feature0"] == w[0]).all() and \
            (b["feature1"] == w[1]).all() and b["feature2"].tolist() == w[2] and \
            (b["feature3"] == w[3]).all()

    bad, held = [], []
    readers = {1: enumerate(tutorial.read(path, batch_size=B, threads=1)),
               2: enumerate(tutorial.read(path, batch_size=B, threads=2))}
    seen = {1: 0, 2: 0, 3: 0}
    for step in range(3 * len(want)):
        for name in sorted(readers):
            try:
                got = next(readers[name], None)
            except Exception as e:  # (a slot's records overwritten by another's)
                bad.append((name, str(e)[:200]))
                got = None
            if got is None:
                continue
            i, b = got
            seen[name] += 1
            if i >= len(want) or not same(b, want[i]):
                bad.append((name, i))
            elif i % 2 == 0:
                held.append((name, i, b))
        if step == len(want) // 2:
            del readers[1]  # its slot to the spares, then taken by reader 3's
            readers[3] = enumerate(tutorial.read(path, batch_size=B, threads=2))
    for name, i, b in held:
        if not same(b, want[i]):
            bad.append(("held", name, i))
    spans = []
    for name, i, b in held:
        for key in ("feature0", "feature1", "feature3"):
            spans.append((b[key].__array_interface__["data"][0], b[key].nbytes, name, i, key))
        for part in ("data", "offsets"):
            a = getattr(b["feature2"], part)
            spans.append((a.__array_interface__["data"][0], a.nbytes, name, i, part))
    spans.sort()
    for x, y in zip(spans, spans[1:]):
        if x[0] + x[1] > y[0]:
            bad.append(("shared", x[2:], y[2:]))
    ok = len(want) > 4 and not bad and len(held) > 4 and seen[2] == len(want) and seen[3] == len(want) and \
        0 < seen[1] < len(want)
    print("memory: big slots: %d batches of %d; read %s; wrong %s"
          % (len(want), B, seen, bad[:5]))
    return int(ok), int(not ok)


def featc_error():
    sys.path.insert(0, os.path.join(build, "python"))
    import featc
    return featc.DataError


if __name__ == "__main__":
    sys.exit(main())
