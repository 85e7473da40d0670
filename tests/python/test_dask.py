#!/usr/bin/env python3
"""The featc package and featc.dask on a distributed.LocalCluster.

usage: test_dask.py BUILD CORPUS BENCH_DATA TMP

BUILD/python holds the package and the modules (make python python-bench);
BENCH_DATA make bench's corpora (tests/bench/gen).  Checks:
  - featc.load compiles a spec (with BUILD/featc) into a module that reads
    what make python's does, and writes its type stubs, which parse;
  - arrays outlive their reader and batch; a featc.DataError catches any
    module's error;
  - on LocalCluster(n_workers=2, processes=True): read_tfrecords over corpus
    files and the bench corpora cut into many splits (byte ranges, and the
    members of a seekable GZIP file) gives exactly the records a single
    process reads, in order (compared through the records the module's
    serializer writes for them); a damaged file fails the computation with
    featc's message naming the file, record and offset; write_tfrecords then
    read_tfrecords round-trips, for a bag and for a dataframe.
Prints "dask: N passed, M failed".
"""
import ast
import gc
import os
import shutil
import subprocess
import sys

build, corpus, bench, tmp = sys.argv[1:5]
sys.path.insert(0, os.path.join(build, "python"))
os.environ["FEATC"] = os.path.abspath(os.path.join(build, "featc"))
os.environ["PYTHONPATH"] = os.path.abspath(os.path.join(build, "python")) + (
    ":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")

import numpy as np  # noqa: E402

import featc  # noqa: E402
import featc.dask  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from framing import records  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("dask: FAIL %s" % what, file=sys.stderr)


def mod_of(name):
    return featc.load(os.path.join(build, "python", name + ".abi3.so"))


def serialized(mod, batches, **kw):
    """The records the module's serializer writes for the batches."""
    path = os.path.join(tmp, "serialized.tfrecord")
    mod.write(path, list(batches), **kw)
    with open(path, "rb") as f:
        return records(f.read())


def main():
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    C = lambda f: os.path.join(corpus, f)  # noqa: E731

    # featc.load compiles a spec; stubs beside it
    built = featc.load(os.path.join(os.path.dirname(__file__), "..", "..", "specs",
                                    "penguin.feat"), build_dir=os.path.join(tmp, "built"))
    pre = mod_of("penguin")
    pf = C("tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz")
    check(serialized(built, built.read(pf, batch_size=16)) ==
          serialized(pre, pre.read(pf, batch_size=16)), "featc.load(spec) reads otherwise")
    pyi = os.path.join(tmp, "built", "penguin.pyi")
    text = open(pyi).read() if os.path.exists(pyi) else ""
    try:
        ast.parse(text)
        ok = "'culmen_length_mm': npt.NDArray[np.float32]" in text
    except SyntaxError:
        ok = False
    check(ok, "penguin.pyi parses and names culmen_length_mm as float32")
    # paths that start with '-' are paths, never options of featc's or cc's
    shutil.copy(os.path.join(os.path.dirname(__file__), "..", "..", "specs", "penguin.feat"),
                os.path.join(tmp, "-penguin.feat"))
    here = os.getcwd()
    os.chdir(tmp)
    try:
        dashed = featc.load("-penguin.feat", name="penguin_dashed", build_dir="-built")
    except Exception as e:  # noqa: BLE001 (a failed check)
        dashed = None
        check(False, "featc.load('-penguin.feat', build_dir='-built'): %s" % e)
    finally:
        os.chdir(here)
    if dashed is not None:
        check(serialized(dashed, dashed.read(pf, batch_size=16)) ==
              serialized(pre, pre.read(pf, batch_size=16)) and
              os.path.exists(os.path.join(tmp, "-built", "penguin_dashed.abi3.so")),
              "featc.load of -penguin.feat into -built reads otherwise")
    try:
        featc.load(os.path.join(tmp, "nope.feat"))
        check(False, "a missing spec loads")
    except (OSError, featc.BuildError):
        check(True, "")

    # arrays outlive their reader
    mn = mod_of("mnist")
    r = mn.read(C("tfx__mnist.tfrecord"), batch_size=5)
    b = next(r)
    keep = {k: np.array(v) for k, v in b.items()}
    views = dict(b)
    del r, b
    gc.collect()
    junk = [np.ones(1 << 16) for _ in range(64)]  # reuse freed memory
    check(all(np.array_equal(views[k], keep[k]) for k in keep), "arrays change after del reader")
    del junk

    # featc.DataError catches a module's error
    tut = mod_of("tutorial")
    damaged = C("tf-models-CRLF-DAMAGED__pets_examples.record")
    try:
        list(tut.read(damaged))
        check(False, "the damaged file reads")
    except featc.DataError as e:
        check(e.path == damaged and e.offset is not None, "DataError attributes %r" % e.__dict__)

    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        run_cluster(client, C)
    finally:
        client.close()
        cluster.close()
    print("dask: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def run_cluster(client, C):
    cases = [
        ("mnist", [C("tfx__mnist.tfrecord")], 16 << 10),
        ("hadoop", [C("tf-ecosystem__tf-records_part-m-00000"),
                    C("tf-ecosystem__zipped-tf-records_part-m-00000.gz")], 64),
        ("penguin", [C("tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz")], 1 << 10),
        ("tfx_sequence", [C("tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz")], 1 << 10),
        ("tutorial", [os.path.join(bench, "tutorial.tfrecord")], 256 << 10),
        ("wide", [os.path.join(bench, "wide.tfrecord")], 1 << 20),
    ]
    # a seekable GZIP file: the tutorial corpus in 64 KiB members, and its
    # member index (featc index)
    seek = os.path.join(tmp, "tutorial-members.tfrecord.gz")
    tutm = mod_of("tutorial")
    tutm.write(seek + ".plain", list(tutm.read(os.path.join(bench, "tutorial.tfrecord"),
                                               batch_size=4096)))
    subprocess.run(["python3", "-c", "import gzip,sys\n"
                    "d=open(sys.argv[1],'rb').read()\n"
                    "o=open(sys.argv[2],'wb')\n"
                    "p=0\n"
                    "import struct\n"
                    "while p<len(d):\n"
                    "  q=p\n"
                    "  while q<len(d) and q-p<65536:\n"
                    "    n=struct.unpack('<Q',d[q:q+8])[0]; q+=16+n\n"
                    "  o.write(gzip.compress(d[p:q])); p=q\n",
                    seek + ".plain", seek], check=True)
    subprocess.run([os.environ["FEATC"], "index", seek], check=True)
    check(os.path.exists(seek + ".members"), "featc index wrote the member index")
    cases.append(("tutorial", [seek], 128 << 10))
    forged_members(mod_of("tutorial"), seek)
    damaged_checksum(mod_of("tutorial"), seek + ".plain")
    for name, files, split in cases:
        mod = mod_of(name)
        parts = featc.dask.partitions(files, split)
        whole = serialized(mod, mod.read(files, batch_size=100))
        bag = featc.dask.read_tfrecords(files, mod, split_bytes=split, batch_size=100)
        got = bag.compute()
        check(bag.npartitions == len(parts) and len(parts) > len(files) or
              all(p[1] is None for p in parts),
              "%s: %d partitions for %d files" % (name, bag.npartitions, len(files)))
        mine = serialized(mod, got)
        check(mine == whole, "%s over %d partitions: %d records, one process %d"
              % (name, len(parts), len(mine), len(whole)))
        print("dask: %s: %d files, %d partitions, %d records" % (name, len(files), len(parts),
                                                                 len(whole)))
    # damaged: the computation fails with featc's message
    damaged = C("tf-models-CRLF-DAMAGED__pets_examples.record")
    try:
        featc.dask.read_tfrecords([C("tfx__mnist.tfrecord"), damaged], mod_of("tutorial"),
                                  split_bytes=64 << 10).compute()
        check(False, "a damaged file computes")
    except featc.DataError as e:
        # whichever partition fails first: a split reports the first damage
        # it meets (docs/record-tools.md, "Splits"), with the record and offset in the text
        text = str(e)
        check(damaged in text and e.record is not None and e.offset is not None and
              "record %d" % e.record in text and str(e.offset) in text,
              "damaged file's error: %r %r" % (text, e.__dict__))
    except Exception as e:  # noqa: BLE001
        check(False, "damaged file raised %s: %s" % (type(e).__name__, e))
    # write_tfrecords then read_tfrecords: a bag
    for name, files, split in cases[:4]:
        mod = mod_of(name)
        bag = featc.dask.read_tfrecords(files, mod, split_bytes=split, batch_size=50)
        for comp in ("none", "gzip", "zlib"):
            out = os.path.join(tmp, "shards-%s-%s" % (name, comp), name)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            paths = featc.dask.write_tfrecords(bag, out, mod, compression=comp)
            n = bag.npartitions
            check(paths == ["%s-%05d-of-%05d" % (out, i, n) for i in range(n)],
                  "%s shard names %r" % (name, paths[:2]))
            back = featc.dask.read_tfrecords(paths, mod, split_bytes=split).compute()
            check(serialized(mod, back) == serialized(mod, mod.read(files)),
                  "%s %s shards read back otherwise" % (name, comp))
    # dataframes: penguin (scalars) and mnist (fixed shapes)
    for name, files, split in (cases[2], cases[0]):
        mod = mod_of(name)
        df = featc.dask.read_tfrecords(files, mod, split_bytes=split, dataframe=True)
        pdf = df.compute()
        sch = mod.schema[mod.messages[0]]
        import pandas as pd
        want = pd.concat([featc.dask.batch_to_frame(b, sch) for b in mod.read(files)],
                         ignore_index=True)
        check(pdf.reset_index(drop=True).equals(want), "%s dataframe differs" % name)
        out = os.path.join(tmp, "df-%s" % name, "part-*.tfrecord")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        paths = featc.dask.write_tfrecords(df, out, mod)
        back = featc.dask.read_tfrecords(paths, mod, dataframe=True).compute()
        check(back.reset_index(drop=True).equals(want), "%s dataframe round trip" % name)
        # a column no feature has, or one of a fixed shape's columns missing:
        # refused, not written without those values
        bad = [(want.assign(labl=1), "labl")]
        shaped = [c for c in want.columns if "[" in c]
        if shaped:
            bad.append((want.drop(columns=[shaped[-1]]), shaped[-1]))
        for frame, col in bad:
            try:
                featc.dask.frame_to_batch(frame, sch)
                check(False, "%s: a dataframe with %s changed made a batch" % (name, col))
            except ValueError as e:
                check(col in str(e), "%s: %s" % (name, e))


def damaged_checksum(mod, plain):
    """A damaged record at the start of split 1 of 2, placed by
    sync='checksum': the sync passes over it, and split 0 reports it (before
    issue 43 both splits read without error, one record short)."""
    with open(plain, "rb") as f:
        data = bytearray(f.read())
    at, half = 0, len(data) // 2
    while at < half:
        at += int.from_bytes(data[at:at + 8], "little") + 16
    data[at + 14] ^= 0x40
    path = os.path.join(tmp, "damaged-middle.tfrecord")
    with open(path, "wb") as f:
        f.write(bytes(data))
    got, err = 0, None
    for k in range(2):
        try:
            for b in mod.read(path, batch_size=4096, split=(k, 2), sync="checksum"):
                got += len(b["feature0"])
        except featc.DataError as e:
            err = str(e)
    check(err is not None and "corrupted record at %d" % (at + 12) in err,
          "sync='checksum' over a record damaged at split 1's start: %s"
          % (err or "no error, %d records" % got))


def forged_members(mod, seek):
    """A member list is a claim (issue 43): read with a stale or forged
    FILE.members, the splits of split= and of featc.dask either give every
    record once, in order, or one of them raises featc.DataError naming the
    list; the lists below must fail."""
    lists = os.path.join(seek + ".members")
    with open(lists) as f:
        true = [tuple(map(int, line.split())) for line in f if line.strip()]
    check(len(true) > 4, "the seekable file has %d members" % len(true))
    whole = serialized(mod, mod.read(seek, batch_size=100))
    forged = {
        "past the end": [(0, 0, 0), (99999999, 3100, 100)],
        "stream offsets shifted": true[:1] + [(c, s + 5, r) for c, s, r in true[1:]],
        "record numbers shifted": true[:2] + [(c, s, r + 1) for c, s, r in true[2:]],
    }
    size = os.path.getsize(seek)
    try:
        for name, ms in forged.items():
            with open(lists, "w") as f:
                f.write("".join("%d %d %d\n" % m for m in ms))
            for n in (2, 3):
                for threads in (1, 2):
                    got, err = [], None
                    try:
                        for k in range(n):
                            got.extend(mod.read(seek, batch_size=100, split=(k, n),
                                                threads=threads))
                    except featc.DataError as e:
                        err = str(e)
                    check(err is not None and lists in err,
                          "split= with a member list %s, %d splits, threads=%d: %s"
                          % (name, n, threads, err or "no error, %d records of %d"
                             % (len(serialized(mod, got)), len(whole))))
            err = None
            try:
                got = featc.dask.read_tfrecords([seek], mod, split_bytes=size // 3 + 1,
                                                batch_size=100).compute()
            except featc.DataError as e:
                err = str(e)
            check(err is not None and lists in err,
                  "featc.dask with a member list %s: %s" % (name, err or "no error, %d of %d"
                                                           % (len(serialized(mod, got)),
                                                              len(whole))))
    finally:
        with open(lists, "w") as f:
            f.write("".join("%d %d %d\n" % m for m in true))


if __name__ == "__main__":
    sys.exit(main())
