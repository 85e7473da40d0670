#!/usr/bin/env python3
"""Memory of the Python modules: reading a large file batch by batch keeps
the process's resident size bounded.

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
import os
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
    os.unlink(out)
    print("memory: %d passed, %d failed" % (passed, failed))
    return 0 if not failed else 1

if __name__ == "__main__":
    sys.exit(main())
