#!/usr/bin/env python3
"""make bench's chain: each corpus from the bytes to the tensors, in one run.

usage: chain.py DATA BUILD REPS CHAIN

This host's speed drifts (one binary moved 1.6x between two runs minutes
apart), so every ratio here comes from passes that took turns in one process
(A B A B ...), as the median (min-max) of the rounds' ratios; a ratio of two
medians from separate runs would measure the drift.

- the links (BUILD/bench/pairs_NAME, tests/bench/pairs.c, 2 x REPS + 1
  rounds): the per-record parse and the C batch API (batches of 256:
  fc_batch_parse, fc_batch_parse_seq for the sequence corpus) over the file
  in memory, the reader alone and the batch path over the file, and for the
  GZIP corpora ISA-L's isal_inflate alone, the reader and the batch path over
  FILE.gz; its table is printed as it comes;
- walk: the CRC-only walk, from CHAIN (tests/bench/bench.c wrote it in the
  same run: per corpus "NAME walk=W parse=P");
- arrow: the same batches as Arrow arrays (batch_rate_NAME ... pair: each
  batch bound into a new block, parsed, exported by fc_arrow_export and
  released), each pass right after one of the C batch API;
- convert: `featc convert FILE --spec SPEC -o OUT.arrow` (the spec compiled
  at run time, batches of 1,024, the IPC file written to DATA; before each
  pass, untimed, the last one's output removed and the disk synced:
  timing.fresh), in turns
  with a batch_rate_NAME process over the same file (B records a batch, one
  pass): convert/batch is the paired ratio of the two whole processes'
  rates;
- py1, py2: the Python module's read(batch_size=256) with threads=1 and 2,
  in turns;
- py1/batch: read(threads=1) against the C batch API over the same file
  (BUILD/bench/batch_rate_NAME.so's batch_rate_pass through ctypes: the
  same fc_input, copy into an arena and fc_batch_parse as batch_rate, its
  buffers bound once), in turns in this process;
- py2shards: read() with threads=2 over the corpus cut into 4 GZIP shards
  (DATA/shards/, written once: the records in 4 runs, gzip level 6).
Rates are MB/s of the file's bytes (for GZIP rows, of the compressed file),
medians.  It ends with lines for scripts:
    chain NAME walk=W parse=P batch=B py1=Y1 py2=Y2
    chain NAME.gz inflate=I reader=R batch=B py2shards=Y
    ratio NAME LINK MEDIAN MIN MAX      (one per paired link)
    arrow NAME batch=B arrow=A ratio=R convert=C
"""
import ctypes
import gzip
import os
import struct
import subprocess
import sys
import time

from timing import fresh, paired, quote

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


def pairs(name, path):
    """The links of pairs_NAME: its rates {contender: (med, lo, hi)} and
    ratios {link: (med, lo, hi)}; its table printed."""
    out = subprocess.run([os.path.join(build, "bench", "pairs_" + name), name, path, str(B),
                          str(2 * reps + 1)], check=True, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    rates, ratios = {}, {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "rate":
            rates[f[2]] = tuple(float(x) for x in f[3:6])
        elif f and f[0] == "ratio":
            ratios[f[2]] = tuple(float(x) for x in f[3:6])
        else:
            print(line)
    return rates, ratios


def read_all(mod, source, threads):
    for _ in mod.read(source, batch_size=B, threads=threads):
        pass


def c_batch(name, path, *mode):
    out = subprocess.run([os.path.join(build, "bench", "batch_rate_" + name), path, str(B),
                          str(reps)] + list(mode), check=True, stdout=subprocess.PIPE).stdout
    rates = [float(x) for x in out.split()]  # (pair: batch, arrow, their ratio)
    return rates[0] if len(rates) == 1 else rates


def c_pass(name, path):
    """One C batch pass over path, in this process (batch_rate_NAME.so)."""
    lib = ctypes.CDLL(os.path.join(build, "bench", "batch_rate_%s.so" % name))
    lib.batch_rate_pass.restype = ctypes.c_double
    lib.batch_rate_pass.argtypes = [ctypes.c_char_p, ctypes.c_long]

    def one():
        if lib.batch_rate_pass(path.encode(), B) < 0:
            raise RuntimeError("batch_rate_%s.so: the pass over %s failed" % (name, path))
    return one


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
        name, *kv = line.split()
        got[name] = dict((k, float(v)) for k, v in (p.split("=") for p in kv))
    rows, lines, ratio_lines, arrow_lines = [], [], [], []
    for name, modname, file in CORPORA:
        mod = __import__(modname)
        path = os.path.join(data, file)
        mb = os.path.getsize(path) / 1e6
        rates, links = pairs(name, path)
        r = {"walk": got.get(name, {}).get("walk", 0), "parse": rates["parse"][0],
             "memory": rates["batch"][0], "batch": rates["file"][0], "links": links}
        r["pair_batch"], r["arrow"], r["arrow_ratio"] = c_batch(name, path, "pair")
        out = os.path.join(data, name + ".arrow")
        conv = [os.path.join(build, "featc"), "convert", "-q", path, "--spec",
                os.path.join(REPO, SPECS[name]), "-o", out]
        crun = lambda: subprocess.run(conv, check=True)
        # the convert process against a batch_rate process over the same
        # file, in turns (both whole processes: start-up, read, parse)
        brun = lambda: subprocess.run([os.path.join(build, "bench", "batch_rate_" + name), path,
                                       str(B), "1"], check=True, stdout=subprocess.DEVNULL)
        links["convert/batch"], tc, _ = paired(crun, brun, 2 * reps + 1, before_a=fresh(out),
                                               before_b=fresh())
        r["convert"] = mb / tc
        py, t1, t2 = paired(lambda: read_all(mod, path, 2), lambda: read_all(mod, path, 1),
                            2 * reps + 1)
        r["py2"], r["py1"] = mb / t1, mb / t2
        links["py2/py1"] = py
        links["py1/batch"] = paired(lambda: read_all(mod, path, 1), c_pass(name, path),
                                    2 * reps + 1)[0]
        rows.append((name, r))
        lines.append("chain %s walk=%.1f parse=%.1f batch=%.1f py1=%.1f py2=%.1f"
                     % (name, r["walk"], r["parse"], r["batch"], r["py1"], r["py2"]))
        for link in ("batch/parse", "file/batch", "file/reader", "py2/py1", "py1/batch",
                     "convert/batch"):
            ratio_lines.append("ratio %s %s %.3f %.3f %.3f" % ((name, link) + links[link]))
        arrow_lines.append("arrow %s batch=%.1f arrow=%.1f ratio=%.3f convert=%.1f"
                           % (name, r["pair_batch"], r["arrow"], r["arrow_ratio"],
                              r["convert"]))
        gz = path + ".gz"
        if "gzreader" in rates and os.path.exists(gz):
            g = {"inflate": rates["inflate"][0], "reader": rates["gzreader"][0],
                 "batch": rates["gzbatch"][0], "links": links}
            parts = shards(name, path)
            smb = sum(os.path.getsize(p) for p in parts) / 1e6
            read_all(mod, parts, 2)
            g["py2shards"] = smb / median(lambda: read_all(mod, parts, 2))
            rows.append((name + ".gz", g))
            lines.append("chain %s.gz inflate=%.1f reader=%.1f batch=%.1f py2shards=%.1f"
                         % (name, g["inflate"], g["reader"], g["batch"], g["py2shards"]))
            for link in ("gzreader/inflate", "gzbatch/gzreader"):
                ratio_lines.append("ratio %s.gz %s %.3f %.3f %.3f" % ((name, link) + links[link]))

    print()
    print("The chain, bytes to tensors (MB/s of the file's bytes, medians; batches of %d;"
          " ratios paired, median (min-max) of %d rounds)" % (B, 2 * reps + 1))
    print("  %-10s %8s %8s %8s %8s %8s %8s %8s   %-18s %-18s %-18s %-18s %-18s" % (
        "corpus", "walk", "parse", "in mem", "C batch", "Arrow", "py 1", "py 2",
        "batch/parse (mem)", "file/batch", "file/reader", "py2/py1", "py1/batch"))
    for name, r in rows:
        if "walk" in r:
            k = r["links"]
            print("  %-10s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f   %-18s %-18s %-18s %-18s"
                  " %-18s"
                  % (name, r["walk"], r["parse"], r["memory"], r["batch"], r["arrow"],
                     r["py1"], r["py2"], quote(k["batch/parse"]), quote(k["file/batch"]),
                     quote(k["file/reader"]), quote(k["py2/py1"]), quote(k["py1/batch"])))
    print("  Arrow: %-10s %9s %9s %9s   %11s %-18s" % ("corpus", "C batch", "Arrow", "convert",
                                                    "arrow/batch", "convert/batch (processes)"))
    for name, r in rows:
        if "convert" in r:
            print("         %-10s %9.1f %9.1f %9.1f   %10.2fx %-18s" % (
                name, r["pair_batch"], r["arrow"], r["convert"], r["arrow_ratio"],
                quote(r["links"]["convert/batch"])))
    print("  %-12s %9s %9s %9s %11s   %-18s %-18s" % (
        "GZIP", "inflate", "reader", "C batch", "py 2 (4 sh)", "reader/inflate",
        "batch/reader"))
    for name, r in rows:
        if "inflate" in r:
            k = r["links"]
            print("  %-12s %9.1f %9.1f %9.1f %11.1f   %-18s %-18s" % (
                name, r["inflate"], r["reader"], r["batch"], r["py2shards"],
                quote(k["gzreader/inflate"]), quote(k["gzbatch/gzreader"])))
    print()
    for line in lines + ratio_lines + arrow_lines:
        print(line)


if __name__ == "__main__":
    main()
