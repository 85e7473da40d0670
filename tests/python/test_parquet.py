#!/usr/bin/env python3
"""write_parquet() against featc convert: the same Parquet file, byte for
byte, and its errors.

usage: test_parquet.py [--no-corpus] FEATC BUILD OUT [MODULE_DIR:NAME:FILE:SPEC ...]

For every corpus spec over its files (make python's modules) and each
MODULE_DIR:NAME:FILE:SPEC given (tests/specs modules over their random
valid records: every feature kind, SequenceExamples too), in each codec
this build writes: write_parquet(dest, files) equals `featc convert FILES
--spec SPEC -o OUT.parquet --codec C` byte for byte (the CLI's files are
the ones test-arrow has DuckDB and hyparquet read), and so do the reader
itself given as data, another object's Arrow stream, read options
(batch_size, threads) and 'arrow-large' against --large; the count
returned is the records'.  Row groups and pages of a chosen size against
the CLI's --row-group-size and --page-size.  Errors: a damaged file raises
DataError with its record and offset (as read() does) and leaves nothing
at dest (an older file there untouched, no temporary file beside it); a
codec unknown or missing, a file object for dest, read options with an
Arrow stream, format='numpy': each its exception, nothing written.
--no-corpus leaves the corpus specs out (run.sh's run with an ASan
module)."""
import glob
import os
import subprocess
import sys

NO_CORPUS = sys.argv[1:2] == ["--no-corpus"]
ARGS = sys.argv[2:] if NO_CORPUS else sys.argv[1:]
FEATC, BUILD, OUT = ARGS[:3]
EXTRA = ARGS[3:]
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import featc  # noqa: E402
from tally import check, finish  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CORPUS = os.path.join(ROOT, "tests", "corpus")
SPECS = {"penguin": ["tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz"],
         "mnist": ["tfx__mnist.tfrecord"],
         "taxi": ["tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz"],
         "hadoop": ["tf-ecosystem__tf-records_part-m-00000",
                    "tf-ecosystem__zipped-tf-records_part-m-00000.gz"],
         "fake_sequence": ["pytorch-data__sequence_example.tfrecord"],
         "tfx_sequence": ["tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz"]}


def codecs():
    """The codecs this featc writes, from featc --version."""
    v = subprocess.run([FEATC, "--version"], stdout=subprocess.PIPE, text=True).stdout
    names = v.split("parquet: ", 1)[1].split(";")[0].split(")")[0]
    return names.split("+")


def cli(files, spec, out, *opts):
    p = subprocess.run([FEATC, "convert", "-q", *files, "--spec", spec, "-o", out, *opts],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0, "featc convert %s: exit %d: %s" % (out, p.returncode, p.stderr[-300:]))
    with open(out, "rb") as f:
        return f.read()


def same(path, want, what):
    try:
        with open(path, "rb") as f:
            got = f.read()
    except OSError as e:
        check(False, "%s: %s" % (what, e))
        return
    check(got == want, "%s: %d bytes, featc convert's %d%s" % (
        what, len(got), len(want),
        "" if len(got) != len(want) else
        " (first difference at %d)" % next(i for i in range(len(got)) if got[i] != want[i])
        if got != want else ""))


def leftovers(dest):
    return [p for p in glob.glob(dest + ".*")]


class Stream:
    """Another object's Arrow stream: written through the C stream, not as a
    featc reader."""

    def __init__(self, reader):
        self.reader = reader

    def __arrow_c_stream__(self, requested_schema=None):
        return self.reader.__arrow_c_stream__()


def one(mod, name, files, spec, cs):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    nrec = sum(len(b) for b in mod.read(files, batch_size=1000, raw=True))
    for c in cs:
        want = cli(files, spec, os.path.join(d, "cli-%s.parquet" % c), "--codec", c)
        dest = os.path.join(d, "py-%s.parquet" % c)
        n = mod.write_parquet(dest, files, codec=c)
        check(n == nrec, "%s %s: %r rows returned, %d records" % (name, c, n, nrec))
        same(dest, want, "%s %s: write_parquet" % (name, c))
        check(not leftovers(dest), "%s %s: temporary files left: %s" % (name, c, leftovers(dest)))
    c = cs[-1]
    want = cli(files, spec, os.path.join(d, "cli-%s.parquet" % c), "--codec", c)
    # the reader as data, another object's stream, read options, featc.write_parquet
    dest = os.path.join(d, "reader.parquet")
    mod.write_parquet(dest, mod.read(files, batch_size=7, format="arrow"), codec=c)
    same(dest, want, "%s: a reader given as data" % name)
    dest = os.path.join(d, "stream.parquet")
    mod.write_parquet(dest, Stream(mod.read(files, batch_size=5, format="arrow")), codec=c)
    same(dest, want, "%s: another object's Arrow stream" % name)
    dest = os.path.join(d, "threads.parquet")
    mod.write_parquet(dest, files, codec=c, batch_size=3, threads=2)
    same(dest, want, "%s: batch_size=3, threads=2" % name)
    dest = os.path.join(d, "featc.parquet")
    featc.write_parquet(dest, files, mod, codec=c)
    same(dest, want, "%s: featc.write_parquet" % name)
    want = cli(files, spec, os.path.join(d, "cli-large.parquet"), "--codec", c, "--large")
    dest = os.path.join(d, "large.parquet")
    mod.write_parquet(dest, files, codec=c, format="arrow-large")
    same(dest, want, "%s: format='arrow-large' against --large" % name)
    want = cli(files, spec, os.path.join(d, "cli-small.parquet"), "--codec", "none",
               "--row-group-size", "3", "--page-size", "100")
    dest = os.path.join(d, "small.parquet")
    mod.write_parquet(dest, files, codec="none", row_group_size=3, page_size=100)
    same(dest, want, "%s: row_group_size=3, page_size=100" % name)


def errors(mod, name, files, spec):
    d = os.path.join(OUT, name + "-errors")
    os.makedirs(d, exist_ok=True)
    data = open(files[0], "rb").read()
    if files[0].endswith(".gz"):
        return
    # a record's length cut short in the middle of the file
    bad = os.path.join(d, "damaged.tfrecord")
    cut = len(data) // 2
    with open(bad, "wb") as f:
        f.write(data[:cut] + b"\xff" * 8 + data[cut + 8:])
    want = None
    try:
        for _ in mod.read(bad):
            pass
    except featc.DataError as e:
        want = (e.record, e.offset, e.message)
    except ValueError as e:
        want = ("?", str(e))
    dest = os.path.join(d, "out.parquet")
    with open(dest, "wb") as f:
        f.write(b"an older file")
    got = None
    try:
        mod.write_parquet(dest, bad)
    except featc.DataError as e:
        got = (e.record, e.offset, e.message)
    except ValueError as e:
        got = ("?", str(e))
    check(want is not None and got == want,
          "%s: a damaged file: write_parquet raised %r, read() %r" % (name, got, want))
    check(open(dest, "rb").read() == b"an older file",
          "%s: a damaged file: the file at dest changed" % name)
    check(not leftovers(dest), "%s: a damaged file left %s" % (name, leftovers(dest)))
    # the generic stream: the error's text
    try:
        mod.write_parquet(dest, Stream(mod.read(bad, format="arrow")))
        check(False, "%s: a damaged file through a stream: no error" % name)
    except ValueError as e:
        check(want is not None and str(want[-1]) in str(e),
              "%s: a damaged file through a stream: %s" % (name, e))
    check(open(dest, "rb").read() == b"an older file" and not leftovers(dest),
          "%s: a damaged file through a stream: dest changed or a temporary file left" % name)

    def refused(exc, what, *args, **kw):
        try:
            mod.write_parquet(*args, **kw)
            check(False, "%s: %s: no error" % (name, what))
        except exc as e:
            check(True, what)
            return str(e)
        except Exception as e:  # noqa: BLE001
            check(False, "%s: %s: %r, not %s" % (name, what, e, exc.__name__))
        return ""

    msg = refused(ValueError, "codec 'lzo'", dest, files, codec="lzo")
    check("'snappy', 'zstd', 'gzip', 'none'" in msg, "codec 'lzo': %s" % msg)
    refused(ValueError, "codec 7", dest, files, codec=7)
    refused(TypeError, "a file object for dest", open(os.path.join(d, "fo"), "wb"), files)
    refused(TypeError, "read options with a stream", dest, Stream(mod.read(files, format="arrow")),
            threads=2)
    refused(ValueError, "format='numpy'", dest, files, format="numpy")
    refused(TypeError, "a numpy reader as data", dest, mod.read(files))
    refused(ValueError, "row_group_size=0", dest, files, row_group_size=0)
    refused(ValueError, "page_size=-1", dest, files, page_size=-1)
    refused(ValueError, "batch_size=0 (a read() option)", dest, files, batch_size=0)
    check(open(dest, "rb").read() == b"an older file" and not leftovers(dest),
          "%s: refused calls changed dest or left a temporary file" % name)
    missing = [c for c in ("snappy", "zstd") if c not in codecs()]
    for c in missing:
        msg = refused(ValueError, "codec %s without its library" % c, dest, files, codec=c)
        check("lib" + c in msg, "codec %s without its library: %s" % (c, msg))


def main():
    cs = codecs()
    for name, files in [] if NO_CORPUS else sorted(SPECS.items()):
        mod = featc.load(os.path.join(BUILD, "python", name + ".abi3.so"))
        paths = [os.path.join(CORPUS, f) for f in files]
        one(mod, name, paths, os.path.join(ROOT, "specs", name + ".feat"), cs)
    for i, x in enumerate(EXTRA):
        mdir, name, path, spec = x.split(":")
        mod = featc.load(os.path.join(mdir, name + ".abi3.so"))
        one(mod, name, [path], spec, cs)
        if i == 0:
            errors(mod, name, [path], spec)
    return finish("parquet-python-asan" if NO_CORPUS else "parquet-python")


if __name__ == "__main__":
    sys.exit(main())
