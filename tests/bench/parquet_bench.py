#!/usr/bin/env python3
"""make bench's Parquet rows: featc convert to Parquet against DuckDB
writing the same table, and featc convert from Parquet against DuckDB
reading the same file, paired.

usage: parquet_bench.py DATA BUILD REPS

For each bench corpus: featc convert FILE --spec SPEC -o OUT.parquet --codec
zstd (a whole process: read, parse, export, write; -j 1 and -j 0, one
thread per CPU), and DuckDB (@duckdb/node-api from BUILD/npm, which make
deps-test installs) writing the table of that file, loaded into its memory
beforehand, to Parquet with ZSTD (COPY ... TO, its default threads) in a
process of its own that waits for each turn (tests/bench/duckdb_copy.js:
no start-up or load in its passes). The passes take turns (A B A B ...,
2 x REPS + 1 rounds, timing.py's paired) and the ratio is featc's rate
over DuckDB's (above 1: featc faster), median (min-max).

Then the other way, over the file DuckDB wrote (ZSTD, its own encodings,
one or two row groups): featc convert IN.parquet --spec SPEC -o OUT.tfrecord
(a whole process: map, decode each row group into Arrow arrays, fill each
record's struct, serialize, frame; -j 1 and -j 0, which cuts the groups
into pieces) against DuckDB reading that file into a new table in its
memory (CREATE TABLE AS SELECT * FROM read_parquet, its default threads),
in turns as above.  Before each pass, untimed, the output of the pass
before (featc's, DuckDB's) is removed and the disk synced (timing.fresh
says why).  Ends with lines for scripts:
    parquet NAME jobs=J featc=SECONDS duckdb=SECONDS ratio=MEDIAN MIN MAX
    parquet-in NAME jobs=J featc=SECONDS duckdb=SECONDS ratio=MEDIAN MIN MAX
    parquet-in-jobs NAME groups=G j2=SECONDS j1=SECONDS ratio=MEDIAN MIN MAX
(the last over featc's own file cut into at least 12 row groups, whole
groups on the threads, -j 2 against -j 1 in turns).
"""
import os
import subprocess
import sys

from timing import fresh, paired, quote

data, build, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
CORPORA = [("tutorial", "specs/tutorial.feat"), ("wide", "tests/bench/wide.feat"),
           ("sequence", "tests/bench/clip.feat")]
NODE_MODULES = os.path.join(build, "npm", "node_modules")


def main():
    if not os.path.isdir(os.path.join(NODE_MODULES, "@duckdb", "node-api")):
        print("parquet: no DuckDB in %s (make deps-test installs it): rows left out"
              % NODE_MODULES)
        return
    env = dict(os.environ, NODE_PATH=NODE_MODULES)
    lines, ins, jobs_in = [], [], []
    print()
    print("Parquet (ZSTD): featc convert TFRecords -> Parquet against DuckDB writing the same"
          " table from memory; ratio featc/DuckDB, paired, median (min-max) of %d rounds"
          % (2 * reps + 1))
    print("  %-10s %4s %12s %12s   %s" % ("corpus", "-j", "featc s", "DuckDB s", "featc/DuckDB"))
    for name, spec in CORPORA:
        src = os.path.join(data, name + ".tfrecord")
        out = os.path.join(data, name + ".parquet")
        theirs = os.path.join(data, name + ".duckdb.parquet")
        conv = [os.path.join(build, "featc"), "convert", "-q", src, "--spec",
                os.path.join(REPO, spec), "-o", out, "--codec", "zstd"]
        subprocess.run(conv, check=True)
        duck = subprocess.Popen(["node", os.path.join(HERE, "duckdb_copy.js"), out, theirs,
                                 "zstd"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                env=env, text=True)
        ready = duck.stdout.readline().strip()
        if not ready.startswith("ready"):
            raise RuntimeError("duckdb_copy.js: " + ready)

        def duck_do(what):
            duck.stdin.write(what + "\n")
            duck.stdin.flush()
            if duck.stdout.readline().strip() != "done":
                raise RuntimeError("duckdb_copy.js stopped")

        def duck_write():
            duck_do("write")

        def duck_read():
            duck_do("read")

        for jobs in ("1", "0"):
            r, ta, tb = paired(lambda: subprocess.run(conv + ["-j", jobs], check=True),
                               duck_write, 2 * reps + 1, before_a=fresh(out),
                               before_b=fresh(theirs))
            print("  %-10s %4s %12.3f %12.3f   %s  (%s)" % (name, jobs, ta, tb, quote(r),
                                                           ready))
            lines.append("parquet %s jobs=%s featc=%.4f duckdb=%.4f ratio=%.3f %.3f %.3f"
                         % ((name, jobs, ta, tb) + r))
        # the other way: both read the file DuckDB wrote
        back_out = os.path.join(data, name + ".back.tfrecord")
        back = [os.path.join(build, "featc"), "convert", "-q", theirs, "--spec",
                os.path.join(REPO, spec), "-o", back_out]
        for jobs in ("1", "0"):
            r, ta, tb = paired(lambda: subprocess.run(back + ["-j", jobs], check=True),
                               duck_read, 2 * reps + 1, before_a=fresh(back_out),
                               before_b=fresh())
            ins.append("  %-10s %4s %12.3f %12.3f   %s" % (name, jobs, ta, tb, quote(r)))
            lines.append("parquet-in %s jobs=%s featc=%.4f duckdb=%.4f ratio=%.3f %.3f %.3f"
                         % ((name, jobs, ta, tb) + r))
        duck.stdin.write("quit\n")
        duck.stdin.flush()
        duck.wait()
        # from Parquet on threads: featc's file cut into at least 12 row groups
        # (convert -j takes one thread per 4 groups, none under 8), -j 2 / -j 1
        rows = int(subprocess.run([os.path.join(build, "featc"), "count", src], check=True,
                                  capture_output=True, text=True).stdout.split()[0])
        per = max(1, rows // 12)
        groups = os.path.join(data, name + ".groups.parquet")
        subprocess.run(conv[:-3] + [groups, "--codec", "zstd", "--row-group-size", str(per)],
                       check=True)
        many = [os.path.join(build, "featc"), "convert", "-q", groups, "--spec",
                os.path.join(REPO, spec), "-o", back_out]
        r, ta, tb = paired(lambda: subprocess.run(many + ["-j", "2"], check=True),
                           lambda: subprocess.run(many + ["-j", "1"], check=True), 2 * reps + 1,
                           before_a=fresh(back_out), before_b=fresh(back_out))
        ngroups = -(-rows // per)
        jobs_in.append("  %-10s %6d %12.3f %12.3f   %s" % (name, ngroups, ta, tb, quote(r)))
        lines.append("parquet-in-jobs %s groups=%d j2=%.4f j1=%.4f ratio=%.3f %.3f %.3f"
                     % ((name, ngroups, ta, tb) + r))
    print()
    print("Parquet in: featc convert IN.parquet -> TFRecords against DuckDB reading the same "
          "file (DuckDB's, ZSTD) into memory; ratio featc/DuckDB, paired")
    print("  %-10s %4s %12s %12s   %s" % ("corpus", "-j", "featc s", "DuckDB s",
                                         "featc/DuckDB"))
    for line in ins:
        print(line)
    print()
    print("Parquet in on threads: featc convert IN.parquet -j 2 against -j 1, featc's file "
          "(ZSTD) in row groups of a twelfth of the rows; ratio -j 2/-j 1, paired")
    print("  %-10s %6s %12s %12s   %s" % ("corpus", "groups", "-j 2 s", "-j 1 s", "-j2/-j1"))
    for line in jobs_in:
        print(line)
    for line in lines:
        print(line)


main()
