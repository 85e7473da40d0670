#!/usr/bin/env python3
"""make bench's chain: each corpus from the bytes to the tensors, in one run.

usage: chain.py DATA BUILD REPS CHAIN

CHAIN is the file tests/bench/bench.c wrote in the same run: per corpus
"NAME walk=W parse=P" (the CRC-only walk and the generated per-record parse)
and per GZIP corpus "NAME.gz inflate=I reader=R" (ISA-L's isal_inflate
alone, and fc_reader, CRC-verified records).  This script adds, on the same
files:
- batch: the C batch API, batches of 256 (BUILD/bench/batch_rate_NAME:
  fc_batch_parse, fc_batch_parse_seq for the sequence corpus), over the
  plain file and over the GZIP file, each pass from the file's open to its
  close (the mapping too), as a Python read() of a path;
- memory: the same batches over the file read into memory first
  (batch_rate_NAME ... mem), as bench.c's walk and parse are timed: the
  batch path's own cost beside the per-record parse, without the mapping;
- arrow: the same batches as Arrow arrays (batch_rate_NAME ... pair: each
  batch bound into a new block, parsed, exported by fc_arrow_export and
  released), over the plain file, each pass after one of the C batch API:
  arrow/batch is the median of those neighbouring passes' ratios, which a
  shared machine's drift from run to run does not move as it moves two
  separate runs' medians;
- convert: `featc convert FILE --spec SPEC -o OUT.arrow` (the spec compiled
  at run time, the runtime's general parse path, batches of 1,024, the IPC
  file written to DATA);
- py1, py2: the Python module's read(batch_size=256) with threads=1 and 2;
- py2shards: read() with threads=2 over the corpus cut into 4 GZIP shards
  (DATA/shards/, written once: the records in 4 runs, gzip level 6).
Every rate is MB/s of the file's bytes (for GZIP rows, of the compressed
file), the median of REPS passes.  It prints a table with the ratios, then
one line per corpus for scripts:
    chain NAME walk=W parse=P batch=B py1=Y1 py2=Y2
    chain NAME.gz inflate=I reader=R batch=B py2shards=Y
    arrow NAME batch=B arrow=A ratio=R convert=C
    memory NAME parse=P batch=M
"""
import gzip
import os
import struct
import subprocess
import sys
import time

data, build, reps, chain_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, os.path.join(build, "python"))
B = 256
CORPORA = [("tutorial", "tutorial", "tutorial.tfrecord"), ("wide", "wide", "wide.tfrecord"),
           ("sequence", "clip", "sequence.tfrecord")]
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SPECS = {"tutorial": "specs/tutorial.feat", "wide": "tests/bench/wide.feat",
         "sequence": "tests/bench/clip.feat"}


def median(f):
    v = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        v.append(time.perf_counter() - t)
    v.sort()
    return v[len(v) // 2]


def read_all(mod, source, threads):
    for _ in mod.read(source, batch_size=B, threads=threads):
        pass


def c_batch(name, path, *mode):
    out = subprocess.run([os.path.join(build, "bench", "batch_rate_" + name), path, str(B),
                          str(reps)] + list(mode), check=True, stdout=subprocess.PIPE).stdout
    rates = [float(x) for x in out.split()]  # (pair: batch, arrow, their ratio)
    return rates[0] if len(rates) == 1 else rates


def shards(name, path, n=4):
    """The corpus's records in n GZIP files (written once)."""
    folder = os.path.join(data, "shards")
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, "%s-%05d-of-%05d.tfrecord.gz" % (name, i, n)) for i in range(n)]
    if all(os.path.exists(p) for p in paths):
        return paths
    buf = open(path, "rb").read()
    frames, pos = [], 0
    while pos < len(buf):
        (k,) = struct.unpack_from("<Q", buf, pos)
        frames.append((pos, pos + 16 + k))
        pos += 16 + k
    per = (len(frames) + n - 1) // n
    for i, p in enumerate(paths):
        part = frames[i * per:(i + 1) * per]
        body = buf[part[0][0]:part[-1][1]] if part else b""
        with open(p + ".tmp", "wb") as f:
            f.write(gzip.compress(body, compresslevel=6))
        os.replace(p + ".tmp", p)
    return paths


def main():
    got = {}
    for line in open(chain_file):
        name, *pairs = line.split()
        got[name] = dict((k, float(v)) for k, v in (p.split("=") for p in pairs))
    rows, lines, arrow_lines, memory_lines = [], [], [], []
    for name, modname, file in CORPORA:
        mod = __import__(modname)
        path = os.path.join(data, file)
        mb = os.path.getsize(path) / 1e6
        read_all(mod, path, 1)  # the page cache
        r = dict(got.get(name, {}))
        r["batch"] = c_batch(name, path)
        r["memory"] = c_batch(name, path, "mem")
        r["pair_batch"], r["arrow"], r["arrow_ratio"] = c_batch(name, path, "pair")
        out = os.path.join(data, name + ".arrow")
        conv = [os.path.join(build, "featc"), "convert", "-q", path, "--spec",
                os.path.join(REPO, SPECS[name]), "-o", out]
        r["convert"] = mb / median(lambda: subprocess.run(conv, check=True))
        r["py1"] = mb / median(lambda: read_all(mod, path, 1))
        r["py2"] = mb / median(lambda: read_all(mod, path, 2))
        rows.append((name, r))
        lines.append("chain %s walk=%.1f parse=%.1f batch=%.1f py1=%.1f py2=%.1f"
                     % (name, r.get("walk", 0), r.get("parse", 0), r["batch"], r["py1"],
                        r["py2"]))
        memory_lines.append("memory %s parse=%.1f batch=%.1f" % (name, r.get("parse", 0),
                                                                 r["memory"]))
        arrow_lines.append("arrow %s batch=%.1f arrow=%.1f ratio=%.3f convert=%.1f"
                           % (name, r["pair_batch"], r["arrow"], r["arrow_ratio"],
                              r["convert"]))
        gz = path + ".gz"
        if name + ".gz" in got and os.path.exists(gz):
            g = dict(got[name + ".gz"])
            g["batch"] = c_batch(name, gz)
            parts = shards(name, path)
            smb = sum(os.path.getsize(p) for p in parts) / 1e6
            read_all(mod, parts, 2)
            g["py2shards"] = smb / median(lambda: read_all(mod, parts, 2))
            rows.append((name + ".gz", g))
            lines.append("chain %s.gz inflate=%.1f reader=%.1f batch=%.1f py2shards=%.1f"
                         % (name, g["inflate"], g["reader"], g["batch"], g["py2shards"]))
    print()
    print("The chain, bytes to tensors (MB/s of the file's bytes, median of %d; batches of %d)"
          % (reps, B))
    print("  %-10s %9s %9s %9s %9s %9s %9s   %11s %11s %9s %9s" % (
        "corpus", "walk", "parse", "C batch", "Arrow", "py 1", "py 2", "batch/parse",
        "arrow/batch", "py1/batch", "py2/py1"))
    for name, r in rows:
        if "walk" in r:
            print("  %-10s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f   %10.2fx %10.2fx %8.2fx %8.2fx"
                  % (name, r["walk"], r["parse"], r["batch"], r["arrow"], r["py1"], r["py2"],
                     r["batch"] / r["parse"], r["arrow_ratio"], r["py1"] / r["batch"],
                     r["py2"] / r["py1"]))
    print("  In memory: %-10s %9s %9s   %11s   (the file read in first, as walk and parse are)"
          % ("corpus", "parse", "C batch", "batch/parse"))
    for name, r in rows:
        if "memory" in r:
            print("             %-10s %9.1f %9.1f   %10.2fx" % (
                name, r.get("parse", 0), r["memory"],
                r["memory"] / r["parse"] if r.get("parse") else 0))
    print("  Arrow: %-10s %9s %9s %9s   %11s %12s" % ("corpus", "C batch", "Arrow", "convert",
                                                     "arrow/batch", "convert/batch"))
    for name, r in rows:
        if "convert" in r:
            print("         %-10s %9.1f %9.1f %9.1f   %10.2fx %11.2fx" % (
                name, r["pair_batch"], r["arrow"], r["convert"], r["arrow_ratio"],
                r["convert"] / r["pair_batch"]))
    print("  %-12s %9s %9s %9s %10s   %14s %12s" % (
        "GZIP", "inflate", "reader", "C batch", "py 2 (4 sh)", "reader/inflate",
        "batch/reader"))
    for name, r in rows:
        if "inflate" in r:
            print("  %-12s %9.1f %9.1f %9.1f %10.1f   %13.2fx %11.2fx" % (
                name, r["inflate"], r["reader"], r["batch"], r["py2shards"],
                r["reader"] / r["inflate"], r["batch"] / r["reader"]))
    print()
    for line in lines + memory_lines + arrow_lines:
        print(line)


if __name__ == "__main__":
    main()
