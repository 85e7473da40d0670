#!/usr/bin/env python3
"""Writes fuzz_parquet's seeds (tests/fuzz/seeds/fuzz_parquet): Parquet
files DuckDB writes (@duckdb/node-api, as make deps-test installs it) and
featc writes.

usage: parquet_seeds.py FEATC NODE_MODULES OUT

- DuckDB: a table of 30 rows of every type featc reads (BIGINT, INTEGER,
  UINTEGER, FLOAT, DOUBLE, BOOLEAN, BLOB, VARCHAR; lists, lists of lists, a
  struct holding a list; NULLs at every level) with each codec DuckDB offers
  and pages v1 and v2, row groups of 10;
- featc: fuzz_arrow's seeds of tests/specs/batch.feat's e and q and
  sparse.feat's s, back to records and on to Parquet (ZSTD, row groups of 3
  rows, pages of 64 bytes), and DuckDB's V2 rewrite of each: the schemas
  fuzz_parquet converts rows through."""
import os
import subprocess
import sys

FEATC, NODE_MODULES, OUT = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
ENV = dict(os.environ, NODE_PATH=NODE_MODULES)
CODECS = ["uncompressed", "snappy", "gzip", "zstd", "brotli", "lz4_raw"]


def duckdb(*sql):
    subprocess.run(["node", os.path.join(REPO, "tests", "arrow", "duckdb_write.js")] + list(sql),
                   check=True, env=ENV)


def main():
    os.makedirs(OUT, exist_ok=True)
    table = ("SELECT i::BIGINT AS a, i::INTEGER AS i32, i::UINTEGER AS u32, (i / 4)::FLOAT AS f, "
             "(i / 3)::DOUBLE AS d, i % 2 = 0 AS bo, ('b' || (i % 4))::BLOB AS b, "
             "CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || i END AS s, "
             "CASE WHEN i % 5 = 0 THEN NULL ELSE range(i % 4)::BIGINT[] END AS l, "
             "[[i::FLOAT, NULL], [], NULL] AS ll, {'x': i, 'y': [i, NULL]} AS st "
             "FROM range(30) r(i)")
    sql = []
    for c in CODECS:
        for v in ("V1", "V2"):
            sql.append("COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION %s, PARQUET_VERSION %s, "
                       "ROW_GROUP_SIZE 10)" % (table, os.path.join(OUT, "duckdb-%s-%s.parquet"
                                                                   % (c, v)), c, v))
    seeds = os.path.join(HERE, "seeds", "fuzz_arrow")
    for arrow, spec, msg in (("batch_e.arrow", "batch.feat", "e"),
                             ("batch_q.arrow", "batch.feat", "q"),
                             ("sparse.arrow", "sparse.feat", "s")):
        sp = os.path.join(REPO, "tests", "specs", spec)
        rec = os.path.join(OUT, "tmp.tfrecord")
        pq = os.path.join(OUT, "featc-%s-%s.parquet" % (spec[:-5], msg))
        subprocess.run([FEATC, "convert", "-q", os.path.join(seeds, arrow), "--spec", sp,
                        "--message", msg, "-o", rec], check=True)
        subprocess.run([FEATC, "convert", "-q", rec, "--spec", sp, "--message", msg, "-o", pq,
                        "--codec", "zstd", "--row-group-size", "3", "--page-size", "64"],
                       check=True)
        os.unlink(rec)
        sql.append("COPY (SELECT * FROM read_parquet('%s')) TO '%s' (FORMAT parquet, "
                   "COMPRESSION snappy, PARQUET_VERSION V2, ROW_GROUP_SIZE 4)"
                   % (pq, pq.replace("featc-", "duckdb-v2-")))
    duckdb(*sql)


if __name__ == "__main__":
    main()
