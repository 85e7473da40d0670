#!/usr/bin/env python3
"""One open per file per job: each command below opens each data file it
reads exactly once (a second open is a window for the file to change
between the two, and reads whatever the name holds by then).

The opens are counted by an LD_PRELOAD shim (opens_shim.c, built here with
the host's cc) that logs every name passed to open, openat and fopen; the
dynamic loader's own opens are not logged.  Run on the host lane only (the
sanitizer and 32-bit lanes' programs take no foreign preload).

usage: opens.py FEATC CORPUS TMPDIR
"""
import os
import shutil
import subprocess
import sys
from tally import check, finish, run

featc, corpus, tmp = (os.path.abspath(a) for a in sys.argv[1:4])
here = os.path.dirname(os.path.abspath(__file__))
shim = os.path.join(tmp, "opens.so")
subprocess.run([os.environ.get("HOST_CC", "cc"), "-shared", "-fPIC", "-O1", "-o", shim,
                os.path.join(here, "opens_shim.c"), "-ldl"], check=True)

os.chdir(tmp)
shutil.copy(os.path.join(corpus, "pytorch-data__example.tfrecord"), "a.tfr")
shutil.copy(os.path.join(corpus, "tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz"),
            "b.gz")
# a GZIP file of several members, whose parts are found by its member index
subprocess.run([featc, "convert", "a.tfr", "-o", "tmp.arrow"], check=True)
log = os.path.join(tmp, "opens.log")


def opens(argv):
    """The exit status and the names argv opened, counted."""
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, LD_PRELOAD=shim, FEATC_OPENS_LOG=log)
    p = subprocess.run([featc] + argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    counts = {}
    if os.path.exists(log):
        for name in open(log, encoding="utf-8", errors="replace").read().splitlines():
            counts[name] = counts.get(name, 0) + 1
    return p.returncode, counts, p.stderr.decode("utf-8", "replace")


rc, spec, err = run([featc, "infer", "a.tfr"])
open("a.feat", "w").write(spec)
check(rc == 0, "infer a.tfr: exit %d" % rc)

jobs = [
    (["count", "a.tfr"], ["a.tfr"]),
    (["verify", "a.tfr"], ["a.tfr"]),
    (["index", "a.tfr"], ["a.tfr"]),
    (["index", "--check", "a.tfr"], ["a.tfr", "a.tfr.idx"]),
    (["count", "--split", "1/2", "a.tfr"], ["a.tfr"]),
    (["count", "--records", "1:3", "a.tfr"], ["a.tfr", "a.tfr.idx"]),
    (["count", "b.gz"], ["b.gz"]),
    (["count", "--split", "0/2", "b.gz"], ["b.gz"]),  # no member index yet: a scan
    (["index", "b.gz"], ["b.gz"]),
    (["index", "--check", "b.gz"], ["b.gz", "b.gz.members"]),
    (["count", "--split", "1/2", "b.gz"], ["b.gz", "b.gz.members"]),
    (["convert", "a.tfr", "-o", "x.arrow"], ["a.tfr"]),  # infer, then convert
    (["convert", "a.tfr", "-o", "x_out"], ["a.tfr"]),  # the way found by the first bytes
    (["convert", "-j", "2", "a.tfr", "b.gz", "-o", "y.arrow"], ["a.tfr", "b.gz"]),
    (["convert", "--spec", "a.feat", "a.tfr", "-o", "z.arrow"], ["a.tfr", "a.feat"]),
    (["convert", "--spec", "a.feat", "tmp.arrow", "-o", "back.tfrecord"], ["tmp.arrow", "a.feat"]),
]
for argv, files in jobs:
    rc, counts, err = opens(argv)
    what = "featc " + " ".join(argv)
    check(rc == 0, "%s: exit %d: %s" % (what, rc, err.strip()[:300]))
    for f in files:
        check(counts.get(f, 0) == 1, "%s opens %s %d times (once is right)"
              % (what, f, counts.get(f, 0)))
check(sum(1 for n in open(log, encoding="utf-8").read().splitlines() if n) > 1,
      "the shim logged too little to mean anything")
sys.exit(finish("opens"))
