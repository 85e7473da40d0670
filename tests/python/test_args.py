#!/usr/bin/env python3
"""Bad arguments and hostile bytes against a spec's module: every call
returns or raises TypeError / ValueError (DataError is one) / OSError, and
the interpreter survives.

usage: test_args.py MODULE_DIR MODULE RECORDS SEED N

RECORDS is a TFRecord file of the module's records; N random mutations of
its bytes go through read() (whole files, damaged) and parse() (single
records, damaged), and random batches (shapes, dtypes, values, missing or
extra keys) through write().  Prints "args-MODULE: N passed, M failed".
"""
import gc
import gzip
import io
import os
import random
import signal
import sys
import tempfile

import numpy as np

moddir, name, records_path, seed, count = sys.argv[1], sys.argv[2], sys.argv[3], \
    int(sys.argv[4]), int(sys.argv[5])
sys.path.insert(0, moddir)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from framing import records  # noqa: E402
mod = __import__(name)
passed = failed = 0
ALLOWED = (TypeError, ValueError, OSError)


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        if failed <= 10:
            print("args-%s: FAIL %s" % (name, what), file=sys.stderr)


def raises(f, kinds, what):
    try:
        f()
    except kinds:
        check(True, "")
        return
    except BaseException as e:  # noqa: BLE001
        check(False, "%s raised %s: %s" % (what, type(e).__name__, e))
        return
    check(False, "%s did not raise" % what)


def survives(f, what):
    try:
        f()
    except ALLOWED:
        pass
    except BaseException as e:  # noqa: BLE001
        check(False, "%s raised %s: %s" % (what, type(e).__name__, e))
        return
    check(True, "")


def plain_batches(batches):
    out = []
    for b in batches:
        parts = b if isinstance(b, tuple) else (b,)
        row = []
        for part in parts:
            if isinstance(part, dict):
                for k in sorted(part):
                    v = part[k]
                    row.append((k, repr(v.tolist() if hasattr(v, "tolist") else v)))
            else:
                row.append(repr(np.asarray(part).tolist()))
        out.append(row)
    return out


def wait_child(pid, seconds=60):
    """The status of a forked child, which is killed (SIGKILL) when it has
    not ended within seconds: a child that hangs before its own alarm is
    set (in a sanitizer's allocator, whose lock another thread of the
    parent held at the fork) is a failed check, not a suite that waits."""
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            return st
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def threads_stop_early(path):
    """Readers with threads closed, dropped or left in a child process while
    batches are in flight; batches that outlive their reader."""
    want = plain_batches(mod.read([path, path], batch_size=2, varlen="ragged"))
    r = mod.read([path, path], batch_size=2, threads=3)
    first = next(r, None)
    r.close()
    check(list(r) == [], "a closed reader with threads still yields")
    for n in (0, 1, 5):
        r = mod.read([path, path, path], batch_size=1, threads=4)
        for _ in range(n):
            next(r, None)
        del r  # dropped with its threads busy
    r = mod.read([path, path], batch_size=2, threads=3, varlen="ragged")
    kept = [next(r, None) for _ in range(3)]
    del r
    kept = [b for b in kept if b is not None]
    check(plain_batches(kept) == want[:len(kept)], "batches that outlived a reader with "
          "threads changed")
    del first
    # fork: the child's copy of a reader has no threads; it says so
    r = mod.read([path, path], batch_size=2, threads=2, varlen="ragged")
    next(r, None)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(30)  # a child that hangs is killed
        try:
            next(r)
            os._exit(1)
        except RuntimeError:
            os._exit(0)
        except BaseException:  # noqa: BLE001
            os._exit(2)
    st = wait_child(pid)
    check(os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, "a reader with threads in a child "
          "process: exit status %r, not a RuntimeError" % st)
    rest = plain_batches(r)
    check(rest == want[len(want) - len(rest):] and len(rest) == len(want) - 1,
          "the parent's reader after fork: %d batches, %d wanted" % (len(rest), len(want) - 1))
    # and a child that drops its copy of a reader whose threads inflate GZIP
    # paths ahead: the parent's threads are not the child's to stop or join
    fd, gz = tempfile.mkstemp(suffix=".tfrecord.gz")
    with os.fdopen(fd, "wb") as f:
        f.write(gzip.compress(open(path, "rb").read()))
    r = mod.read([gz, gz, gz], batch_size=2, threads=2)
    next(r, None)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(30)
        del r
        gc.collect()
        os._exit(0)
    st = wait_child(pid)
    check(os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, "a child dropping a reader that "
          "inflates ahead: exit status %r" % st)
    del r
    os.remove(gz)


def records_write_errors(recs, rng):
    """write() of records one by one: an item that is not a record, or a
    record with a value of the wrong kind, is refused with a message that
    names the record (and the feature); damaged records never crash."""
    parsed = []
    for r in recs[:40]:
        try:
            parsed.append(mod.parse(r))
        except mod.DataError:
            pass
    if not parsed:
        return
    good = parsed[0]
    # a record with no feature is still a record: two of them, two records
    # (or, where the spec requires a feature, an error that names it)
    fd, tmp0 = tempfile.mkstemp()
    os.close(fd)
    try:
        empty = ({}, {}) if isinstance(good, tuple) else {}
        n = mod.write(tmp0, [empty, empty])
        data, framed = open(tmp0, "rb").read(), 0
        while len(data) >= 16:
            data = data[16 + int.from_bytes(data[:8], "little"):]
            framed += 1
        check(n == 2 and framed == 2, "write([empty, empty]) gave %r, %d records" % (n, framed))
    except ValueError as e:
        check(str(e).startswith("record 0: the batch lacks ") and "the spec requires" in str(e),
              "write([empty, empty]) says %r" % str(e))
    finally:
        os.remove(tmp0)
    try:
        mod.write(os.devnull, [good, 5])
        check(False, "write([record, 5]) did not raise")
    except TypeError as e:
        check(str(e).startswith(("record 1: a record or a batch is a dict",
                                 "record 1: a sequence_example record is (context, feature_lists)")),
              "write([record, 5]) says %r" % str(e))
    def parts_of(rec):
        return rec if isinstance(rec, tuple) else (rec,)
    parts = parts_of(good)
    # (KEY/buckets, KEY/one_hot, KEY/multi_hot are computed from the values:
    # write() does not read them)
    keys = [(i, k) for i, part in enumerate(parts) for k in part
            if not k.endswith(("/buckets", "/one_hot", "/multi_hot"))]
    for i, k in keys[:6]:
        bad = tuple(dict(p) for p in parts)
        bad[i][k] = "text"
        item = bad if isinstance(good, tuple) else bad[0]
        try:
            mod.write(os.devnull, iter([good, good, item]))
            check(False, "a record whose %s is 'text' was written" % k)
        except (TypeError, ValueError) as e:
            check(str(e).startswith("record 2: ") and k in str(e),
                  "a record whose %s is 'text': %r" % (k, str(e)))
    fd, tmp = tempfile.mkstemp()
    os.close(fd)
    try:
        for n in range(count // 4):
            items = [tuple(dict(p) for p in parts_of(rng.choice(parsed))) for _ in range(rng.randrange(1, 5))]
            part = rng.choice(rng.choice(items))
            if part:
                k = rng.choice(list(part))
                part[k] = rng.choice([np.zeros((2, 3, 2)), [b"x", 3], -1, b"", [],
                                      np.arange(rng.randrange(40)), None])
            items = [it if isinstance(good, tuple) else it[0] for it in items]
            survives(lambda: mod.write(tmp, items), "write(damaged records %d)" % n)
    finally:
        os.unlink(tmp)


def bytes_slices(path):
    """Every bytes column of a batch: b[i] and b[i:j:k] agree with the
    list of its values (tolist), for the module's Bytes and for the plain
    featc.Bytes a batch becomes when pickled."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "featc_types", os.path.join(here, "..", "..", "python", "featc", "_types.py"))
    types = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(types)
    Plain = types.Bytes
    batch = next(iter(mod.read(path, batch_size=7)), None)
    if not isinstance(batch, dict):
        return
    cols = [v for v in batch.values() if hasattr(v, "offsets") and hasattr(v, "tolist")]
    for b in cols:
        plain = Plain(b.data, b.offsets, b.shape)
        for col in (b, plain):
            vals = col.tolist()
            for sl in (slice(None, 2), slice(1, None), slice(None, None, -1), slice(5, 2),
                       slice(-3, None, 2), slice(0, 10**9)):
                try:
                    got = col[sl]
                except Exception as e:  # noqa: BLE001 (a failed check, not a stop)
                    check(False, "%s[%r] raised %s: %s" % (type(col).__name__, sl,
                                                          type(e).__name__, e))
                    continue
                check(got.tolist() == vals[sl] and got.shape == (len(vals[sl]),) and
                      len(got) == len(vals[sl]),
                      "%s[%r] gave %r, want %r" % (type(col).__name__, sl, got.tolist(), vals[sl]))
            if vals:
                survives(lambda: check(col[-1] == vals[-1] and col[0] == vals[0],
                                       "%s[-1]" % type(col).__name__), "Bytes[-1]")
            raises(lambda: col[len(vals)], IndexError, "Bytes index past the end")
            raises(lambda: col["x"], TypeError, "Bytes['x']")


def unknown_keys(path):
    """write() takes back what read() gives (hashed features' KEY/buckets and
    hot vectors included), and refuses a key that is no feature, list or
    fixed-frame length of the message (a misspelt key: a record written
    without its value otherwise), naming it."""
    batch = next(iter(mod.read(path, batch_size=4, varlen="ragged")), None)
    if batch is None:
        return
    out = os.path.join(os.path.dirname(path), "unknown-keys.tfrecord")
    try:
        mod.write(out, batch)
        check(True, "")
    except BaseException as e:  # noqa: BLE001
        check(False, "read()'s batch written back raised %s: %s" % (type(e).__name__, e))
    dicts = list(batch[:3]) if isinstance(batch, tuple) else [batch]
    for i in range(len(dicts)):
        bad = [dict(d) for d in dicts]
        bad[i]["no such key"] = bad[i][next(iter(bad[i]))] if bad[i] else np.zeros(4)
        try:
            mod.write(out, tuple(bad) if isinstance(batch, tuple) else bad[0])
            check(False, "a batch with 'no such key' in dict %d written" % i)
        except ValueError as e:
            check("'no such key' is no " in str(e), "unknown key in dict %d: %s" % (i, e))


def main():
    data = open(records_path, "rb").read()
    path = records_path
    # wrong arguments, each with the exception it must raise
    raises(lambda: mod.read(path, batch_size=0), ValueError, "batch_size=0")
    raises(lambda: mod.read(path, batch_size=-5), ValueError, "batch_size=-5")
    raises(lambda: mod.read(path, batch_size=10**30), ValueError, "batch_size=10**30")
    raises(lambda: mod.read(path, batch_size="7"), TypeError, "batch_size='7'")
    raises(lambda: mod.read(path, compression="lz4"), ValueError, "compression='lz4'")
    raises(lambda: mod.read(path, compression=3), TypeError, "compression=3")
    raises(lambda: mod.read(path, crc="maybe"), ValueError, "crc='maybe'")
    raises(lambda: mod.read(path, varlen="dense"), ValueError, "varlen='dense'")
    raises(lambda: mod.read(path, split=(3, 3)), ValueError, "split=(3, 3)")
    raises(lambda: mod.read(path, split=(0, 0)), ValueError, "split=(0, 0)")
    raises(lambda: mod.read(path, split=(-1, 2)), ValueError, "split=(-1, 2)")
    raises(lambda: mod.read(path, split="0/2"), TypeError, "split='0/2'")
    raises(lambda: mod.read(path, split=(0, 2), byte_range=(0, 9)), ValueError, "both parts")
    raises(lambda: mod.read(path, byte_range=(9, 3)), ValueError, "byte_range=(9, 3)")
    raises(lambda: mod.read(path, message="nope"), ValueError, "message='nope'")
    raises(lambda: mod.read(path, message=7), TypeError, "message=7")
    raises(lambda: mod.read(42), TypeError, "source=42")
    raises(lambda: mod.read([path, 42]), TypeError, "a list with 42")
    raises(lambda: next(mod.read("/nonexistent/x.tfrecord")), OSError, "a missing file")
    raises(lambda: next(mod.read(os.path.dirname(path))), ValueError, "a directory")
    raises(lambda: next(mod.read(io.StringIO("text"))), TypeError, "a text file object")
    raises(lambda: mod.parse(42), TypeError, "parse(42)")
    raises(lambda: mod.parse("text"), TypeError, "parse('text')")
    raises(lambda: mod.write("/nonexistent/dir/x", {}), (OSError, ValueError), "write to nowhere")
    raises(lambda: mod.write(os.devnull, 42), TypeError, "write(batch=42)")
    raises(lambda: mod.write(os.devnull, {}, compression="auto"), ValueError, "write auto")
    raises(lambda: mod.read(path, max_record_size=0), ValueError, "max_record_size=0")
    raises(lambda: mod.read(path, threads=-1), ValueError, "threads=-1")
    raises(lambda: mod.read(path, threads=1025), ValueError, "threads=1025")
    raises(lambda: mod.read(path, threads="2"), TypeError, "threads='2'")
    raises(lambda: mod.read(path, threads=2.0), TypeError, "threads=2.0")
    threads_stop_early(path)
    bytes_slices(path)
    unknown_keys(path)
    # a closed reader ends
    r = mod.read(path)
    r.close()
    check(list(r) == [], "a closed reader still yields")
    with mod.read(path, batch_size=3) as r:
        first = next(r, None)
    check(first is not None or not data, "the context manager reads")
    # hostile bytes: whole files and single records, mutated
    rng = random.Random(seed)
    recs = records(data)
    for i in range(count):
        b = bytearray(data[:rng.randrange(1, 1 << 16)] if data else b"")
        for _ in range(rng.randrange(1, 8)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        for crc in ("verify", "skip", "none"):
            survives(lambda: [x for x in mod.read(bytes(b), batch_size=rng.randrange(1, 40),
                                                  crc=crc, varlen=rng.choice(["sparse", "ragged"]),
                                                  threads=rng.choice([1, 2, 3]))],
                     "read(mutated file %d, crc=%s)" % (i, crc))
        # shuffled, skipped and split (shuffle.c, the mixed gather)
        survives(lambda: [x for x in mod.read([bytes(b), bytes(b)], batch_size=rng.randrange(1, 40),
                                              shuffle=rng.randrange(1, 60), seed=i,
                                              skip=rng.randrange(0, 30),
                                              splits=[(0, 2), (rng.randrange(3), 3)],
                                              threads=rng.choice([1, 2, 3]))],
                 "read(mutated file %d, shuffled, skipped, split)" % i)
        if recs:
            r = bytearray(rng.choice(recs))
            for _ in range(rng.randrange(1, 6)):
                if r:
                    r[rng.randrange(len(r))] = rng.randrange(256)
            if r and rng.random() < 0.3:
                del r[rng.randrange(len(r)):]
            survives(lambda: mod.parse(bytes(r)), "parse(mutated record %d)" % i)
    # write(): the batches read, then damaged
    batches = list(mod.read(path, batch_size=17, varlen="ragged"))[:8]
    fd, tmp = tempfile.mkstemp()
    os.close(fd)
    try:
        for i in range(count // 4):
            if not batches:
                break
            b = rng.choice(batches)
            if isinstance(b, tuple):
                b = tuple(dict(x) for x in b)
                d = rng.choice(b[:2])
            else:
                b = dict(b)
                d = b
            if d:
                k = rng.choice(list(d))
                what = rng.randrange(6)
                if what == 0:
                    del d[k]
                elif what == 1:
                    d[k] = np.zeros((rng.randrange(4), rng.randrange(4)))
                elif what == 2:
                    d[k] = "text"
                elif what == 3:
                    d[k] = [b"x", 3]
                elif what == 4:
                    d[k] = np.full(rng.randrange(1, 40), rng.randrange(-5, 5))
                else:
                    d["not a key %d" % i] = np.zeros(3)
            survives(lambda: mod.write(tmp, b, compression=rng.choice(["none", "gzip", "zlib"])),
                     "write(damaged batch %d)" % i)
    finally:
        os.unlink(tmp)
    records_write_errors(recs, rng)
    # messages (issue 43): a missing index file is named, not the data; a
    # write that runs out of room says how many records reached the file
    try:
        next(mod.read(records_path, index="/nonexistent.idx", split=(0, 2)))
        check(False, "a missing index did not raise")
    except FileNotFoundError as e:
        check(e.filename == "/nonexistent.idx", "missing index names %r" % e.filename)
    except BaseException as e:  # noqa: BLE001
        check(False, "missing index raised %s: %s" % (type(e).__name__, e))
    first = next(mod.read(records_path, batch_size=64, varlen="ragged"), None)
    if first is not None and os.path.exists("/dev/full"):
        try:
            mod.write("/dev/full", first)
            check(False, "a write to /dev/full did not raise")
        except OSError as e:
            check(e.errno == 28 and e.filename == "/dev/full" and e.records == 0 and
                  "0 records reached the file whole" in str(e),
                  "a full device: %r %r" % (e, getattr(e, "records", None)))
    # compression in TensorFlow's spellings too ("GZIP", "ZLIB", "" for
    # none), through the runtime's parser as the CLI reads it
    if first is not None:
        fd, tmp = tempfile.mkstemp()
        os.close(fd)
        try:
            for tf_word, ours in (("GZIP", "gzip"), ("ZLIB", "zlib"), ("", "none")):
                try:
                    n = mod.write(tmp, first, compression=ours)
                    want = open(tmp, "rb").read()
                    again = list(mod.read(tmp, batch_size=64, varlen="ragged", compression=ours))
                    m = mod.write(tmp, first, compression=tf_word)
                    back = list(mod.read(tmp, batch_size=64, varlen="ragged",
                                         compression=tf_word))
                    check(n > 0 and m == n and open(tmp, "rb").read() == want and
                          plain_batches(back) == plain_batches(again), "compression=%r" % tf_word)
                except ValueError as e:
                    check(False, "compression=%r: %s" % (tf_word, e))
        finally:
            os.unlink(tmp)
    raises(lambda: mod.read(path, compression="gzip2"), ValueError, "compression='gzip2'")
    raises(lambda: mod.read(path, sync="crc"), ValueError, "sync='crc'")
    raises(lambda: mod.read(path, sync=1), TypeError, "sync=1")
    print("args-%s: %d passed, %d failed" % (name, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
