#!/usr/bin/env python3
"""A spec's Python module against its generated JSON driver (the C batch API).

usage: module_vs_driver.py NAME MODULE_DIR MODULE DRIVER [--extras DUMP] FILE...

For batch sizes 1, 7, 64 and 256, VarLen features as SparseTensors and as
ragged: the batches MODULE.read(FILES) yields, turned into the driver's
JSON (docs/design.md's batch contract), equal what `DRIVER --batch B
[--ragged] FILES` prints, batch by batch, value for value (floats by their
bits, bytes by their bytes), and a batch that fails raises DataError whose
text is the driver's error text.  MODULE.parse(record) equals the driver's
per-record object for every record (parse_single_example's rules).  With
--extras, DUMP (tests/python/dump_extras.c, built for the spec) prints the
C batch API's bucket ids and hot vectors, which the JSON leaves out, and
those are compared too.  Also: the reader over bytes, over a file object
and over a list of sources gives the same batches as over paths, and
threads=2 and 3 give the batches and errors of threads=1.  write() of the
records one by one (parse()'s dicts, and the same with plain Python values
from a generator) writes the bytes write() of batches of one writes.

Prints "NAME: N passed, M failed" (checks).
"""
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/oracle")
from convert import batch_to_json, f32bits, plain, record_to_json, same  # noqa: E402
from framing import frame, records  # noqa: E402


def driver_lines(driver, args, files):
    p = subprocess.run([driver] + args + files, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = [json.loads(l) for l in p.stdout.decode("utf-8").splitlines() if l.strip()]
    return lines, p.stderr.decode("utf-8", "replace"), p.returncode


def typed_from_driver(desc, values, got):
    """Whether got (a feature's typed values, flat) is NumPy's conversion
    of the driver's record values of it; True where NumPy's astype is not
    the conversion (decode_raw of bytes) or the driver has no plain values."""
    if desc.get("record_dtype") not in ("int64", "float32") or values is None or \
            isinstance(values, dict):
        return True

    def flat(x):
        if isinstance(x, list):
            for y in x:
                yield from flat(y)
        else:
            yield float(x) if isinstance(x, str) else x
    rec = np.asarray(list(flat(values)),
                     dtype=np.int64 if desc["record_dtype"] == "int64" else np.float32)
    want = rec.astype(got.dtype)
    if want.shape != got.shape:
        return False
    if got.dtype.kind == "f":
        return np.array_equal(want, got, equal_nan=True) and \
            (np.signbit(want) == np.signbit(got))[~np.isnan(want)].all()
    return want.tobytes() == got.tobytes()


def module_batches(mod, source, errors=None, **kw):
    """Each batch as the driver's JSON object, or {"error": text}."""
    out = []
    it = mod.read(source, **kw)
    while True:
        try:
            b = next(it)
        except StopIteration:
            break
        except errors or mod.DataError as e:
            out.append({"error": str(e), "exc": e})
            continue
        out.append(b)
    return out


def compare_threads(mod, files, check):
    """threads=N: the batches and errors of threads=1, in the same order,
    over paths, over bytes and file objects, over a list of sources with a
    missing file in it (an error between the records of two), and over
    sources cut short or with a byte flipped (the reader fails after some
    records of a batch, then goes on with the next source).  Then the same
    over GZIP paths, which threads inflate ahead (python/ext/prefetch.c):
    several, mixed with plain ones, a missing one, and GZIP files cut short
    or with a byte of the compressed stream flipped."""
    missing = files[0] + ".missing"
    blobs = [open(f, "rb").read() for f in files]
    tmp = tempfile.mkdtemp(prefix="featc-threads-")

    def flipped(b):
        b = bytearray(b)
        if b:
            b[len(b) // 2] ^= 0x40
        return bytes(b)

    def gz_files(tag, alter):
        paths = []
        for k, b in enumerate(blobs):
            path = os.path.join(tmp, "%s-%d.tfrecord.gz" % (tag, k))
            with open(path, "wb") as f:
                f.write(alter(gzip.compress(b, compresslevel=1)))
            paths.append(path)
        return paths
    gzs = gz_files("whole", lambda z: z)
    cut = gz_files("cut", lambda z: z[:len(z) * 2 // 3])
    flip = gz_files("flipped", flipped)

    def seekable(tag, alter_gz=lambda z: z, alter_list=lambda m: m, grow=b""):
        """The records of every file, repeated to some 600 kB, as seekable
        GZIP (a member per 16 kB of records) with its member list beside it
        (FILE.members): threads inflate its pieces at once.  alter_gz and
        alter_list damage the file or the list after the list is written;
        grow is a member appended after it."""
        stream = b"".join(blobs)
        reps = max(1, min(200, 600000 // max(1, len(stream))))
        cuts = [0] if stream else []
        pos = 0
        while pos < len(stream):
            n = int.from_bytes(stream[pos:pos + 8], "little")
            pos = min(pos + 12 + n + 4, len(stream))  # (a damaged length: the rest)
            if pos - cuts[-1] >= 16384 or pos == len(stream):
                cuts.append(pos)
        path = os.path.join(tmp, "seekable-%s.tfrecord.gz" % tag)
        # a line per member: its offset, its stream offset, its first record
        lines, off, idx, z = [], 0, 0, b""
        for _ in range(reps):
            for a, b in zip(cuts, cuts[1:]):
                lines.append("%d %d %d" % (len(z), off, idx))
                z += gzip.compress(stream[a:b], compresslevel=1)
                idx += len(records(stream[a:b]))
                off += b - a
        with open(path, "wb") as f:
            f.write(alter_gz(z) + grow)
        with open(path + ".members", "w") as f:
            f.write("".join(line + "\n" for line in alter_list(lines)))
        return [path]
    def plain_files(tag, alter):
        paths = []
        for k, b in enumerate(blobs):
            path = os.path.join(tmp, "%s-%d.tfrecord" % (tag, k))
            with open(path, "wb") as f:
                f.write(alter(b))
            paths.append(path)
        return paths
    # (paths are read by the threads themselves, each framing the batch it
    # parses: python/ext/reader.c, gather_and_parse; bytes are not)
    cut_paths = plain_files("cut", lambda b: b[:len(b) * 2 // 3])
    flip_paths = plain_files("flipped", flipped)
    grown = gzip.compress(blobs[0], compresslevel=1) if blobs else b""
    seek = seekable("whole")
    seek_stale = seekable("stale", alter_list=lambda m: [m[0]] + [
        " ".join(str(int(v) + 7) for v in line.split()) for line in m[1:]])
    seek_grown = seekable("grown", grow=grown)
    seek_cut = seekable("cut", alter_gz=lambda z: z[:len(z) * 2 // 3])
    seek_flip = seekable("flipped", alter_gz=flipped)
    cases = [("paths", lambda: files, (1, 7, 64), ("sparse", "ragged")),
             ("bytes", lambda: blobs, (1, 7, 64), ("sparse", "ragged")),
             ("file objects", lambda: [open(f, "rb") for f in files], (1, 7, 64),
              ("sparse", "ragged")),
             ("a missing source", lambda: files + [missing] + files, (1, 7, 64),
              ("sparse", "ragged")),
             ("cut sources", lambda: [b[:len(b) * 2 // 3] for b in blobs] + blobs, (1, 7, 64),
              ("sparse", "ragged")),
             ("flipped sources", lambda: [flipped(b) for b in blobs] + blobs, (1, 7, 64),
              ("sparse", "ragged")),
             ("paths cut short", lambda: cut_paths + files + cut_paths, (1, 7, 64),
              ("sparse", "ragged")),
             ("flipped paths", lambda: flip_paths + files + flip_paths, (1, 7, 64),
              ("sparse", "ragged")),
             ("one GZIP path cut short", lambda: cut[:1], (7, 64), ("sparse",)),
             ("one GZIP path flipped", lambda: flip[:1], (7,), ("sparse",)),
             ("GZIP paths, with plain ones", lambda: gzs + files + gzs + gzs, (7, 64),
              ("sparse",)),
             ("GZIP paths, a missing one", lambda: gzs + [missing + ".gz"] + gzs, (7,),
              ("sparse",)),
             ("GZIP paths cut short", lambda: cut + gzs + cut, (7, 64), ("sparse",)),
             ("GZIP paths flipped", lambda: flip + gzs + flip, (7,), ("sparse",)),
             ("a seekable GZIP path", lambda: seek, (7, 64), ("sparse",)),
             ("a seekable GZIP path whose member list is stale", lambda: seek_stale, (64,),
              ("sparse",)),
             ("a seekable GZIP path grown after its member list", lambda: seek_grown, (64,),
              ("sparse",)),
             ("a seekable GZIP path cut short", lambda: seek_cut + files, (64,), ("sparse",)),
             ("a seekable GZIP path flipped", lambda: seek_flip + files, (64,), ("sparse",))]
    for label, sources, bsizes, varlens in cases:
        for bsize in bsizes:
            for varlen in varlens:
                want = [digest(b) for b in module_batches(
                    mod, sources(), (mod.DataError, OSError), batch_size=bsize, varlen=varlen)]
                for threads in (2, 3):
                    got = [digest(b) for b in module_batches(
                        mod, sources(), (mod.DataError, OSError), batch_size=bsize,
                        varlen=varlen, threads=threads)]
                    check(got == want, "threads=%d over %s, B=%d %s: %d batches and errors "
                          "where threads=1 gives %d, first difference at %s"
                          % (threads, label, bsize, varlen, len(got), len(want),
                             next((k for k, (g, w) in enumerate(zip(got, want)) if g != w),
                                  min(len(got), len(want)))))
    shutil.rmtree(tmp, ignore_errors=True)


def main():
    args = sys.argv[1:]
    name, moddir, modname, driver = args[:4]
    rest = args[4:]
    extras = None
    if rest and rest[0] == "--extras":
        extras, rest = rest[1], rest[2:]
    files = rest
    sys.path.insert(0, moddir)
    mod = __import__(modname)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            if failed <= 10:
                print("%s: FAIL %s" % (name, what), file=sys.stderr)

    for bsize in (1, 7, 64, 256):
        for ragged in (False, True):
            opts = ["--batch", str(bsize)] + (["--ragged"] if ragged else [])
            want, err, rc = driver_lines(driver, opts, files)
            got = module_batches(mod, files, batch_size=bsize,
                                 varlen="ragged" if ragged else "sparse")
            if rc == 2:  # a file unreadable to its end: the module raises too
                check(got and "error" in got[-1] and got[-1]["error"].split(": ", 1)[1]
                      in err, "B=%d: the driver says %r; the module %r"
                      % (bsize, err.strip(), got[-1] if got else None))
                got = got[:-1]
                # the driver goes on filling the batch with the next file
                # where the module hands out the records before the error
                if len(files) > 1:
                    continue
            # the driver prints one empty batch for input without records;
            # the module yields none
            if not got and len(want) == 1 and "error" not in want[0] and empty_batch(want[0]):
                check(True, "")
                continue
            check(len(got) == len(want), "B=%d %s: %d batches, the driver %d"
                  % (bsize, opts, len(got), len(want)))
            for k, (g, w) in enumerate(zip(got, want)):
                if "error" in w or "error" in g:
                    check(g.get("error") == w.get("error"), "B=%d batch %d: error %r, the "
                          "driver %r" % (bsize, k, g.get("error"), w.get("error")))
                    continue
                j = batch_to_json(g, k)
                check(same(j, w), "B=%d %s batch %d differs:\n  module %s\n  driver %s"
                      % (bsize, opts, k, short(plain(j)), short(w)))
    # one record at a time: parse() against the driver's per-record objects
    want, err, rc = driver_lines(driver, [], files)
    records = []
    for f in files:
        records.extend(read_records(f))
    if rc != 2:
        check(len(records) == len(want), "%d records, the driver printed %d"
              % (len(records), len(want)))
        # features with `as`: the driver's records print the record's values,
        # parse() gives the tensors; those are compared with read()'s batch
        # of the record instead (which the batches above hold to the driver)
        sch = mod.schema[mod.messages[0]]
        typed = {(sec, k) for sec in ("features", "context", "feature_lists")
                 for k, d in sch.get(sec, {}).items() if "record_dtype" in d}
        ones = module_batches(mod, files, batch_size=1) if typed else []
        for n, (rec, w) in enumerate(zip(records, want)):
            try:
                parsed = mod.parse(rec)
                got = record_to_json(parsed, n)
            except mod.DataError as e:
                check("error" in w and w["error"].endswith("): " + str(e)),
                      "record %d: parse() raised %r; the driver %r" % (n, str(e), w))
                continue
            if typed:
                def sections(x):  # a record's or a batch's dicts by section
                    if isinstance(x, tuple):
                        return {"context": x[0], "feature_lists": x[1]}
                    return {"features": x} if isinstance(x, dict) and "error" not in x else {}
                feats = sections(parsed)
                one = sections(ones[n] if n < len(ones) else {"error": "missing"})
                for sec, k in sorted(typed):
                    if k not in feats.get(sec, {}):
                        continue
                    g = feats[sec][k]
                    b = one[sec].get(k) if sec in one else None
                    bv = getattr(b, "values", b)
                    gv = getattr(g, "values", g)
                    ga = np.asarray(gv).reshape(-1)
                    if "error" in (ones[n] if n < len(ones) else {}):
                        # read() refuses the record (parse_example's rules, not
                        # parse_single_example's): NumPy's conversion of the
                        # driver's values instead, where NumPy converts alone
                        check(typed_from_driver(sch[sec][k], w.get(sec, {}).get(k), ga),
                              "record %d: parse()'s %s %r, NumPy's of the driver's %r"
                              % (n, k, g, w.get(sec, {}).get(k)))
                        continue
                    ba = None if b is None else \
                        np.asarray(bv if hasattr(b, "values") else np.asarray(bv)[0]).reshape(-1)
                    # (bit for bit: NaN payloads and signed zeros too)
                    check(ba is not None and ga.dtype == ba.dtype and
                          ga.tobytes() == ba.tobytes(),
                          "record %d: parse()'s %s %r, read()'s %r" % (n, k, g, b))
                for sec, k in typed:
                    got.get(sec, {}).pop(k, None)
                    w.get(sec, {}).pop(k, None)
            check(same(got, w), "record %d differs:\n  module %s\n  driver %s"
                  % (n, short(plain(got)), short(w)))
    # other sources give what paths give
    if rc != 2:
        base = [normal(b) for b in module_batches(mod, files, batch_size=7)]
        blobs = [open(f, "rb").read() for f in files]
        for label, src in (("bytes", blobs), ("memoryview", [memoryview(b) for b in blobs]),
                           ("BytesIO", [io.BytesIO(b) for b in blobs]),
                           ("file object", [open(f, "rb") for f in files])):
            got = [normal(b) for b in module_batches(mod, src, batch_size=7)]
            check(got == renamed(base, files, label),
                  "%s sources give other batches than paths" % label)
    compare_threads(mod, files, check)
    if extras is not None:
        compare_extras(mod, extras, files, check)
    if rc != 2:
        roundtrip(mod, files, check)
        records_roundtrip(mod, records, check)
    print("%s: %d passed, %d failed" % (name, passed, failed))
    return 1 if failed else 0


def roundtrip(mod, files, check):
    """write() then read(): every batch (sparse and ragged) reads back the same,
    but for a VarLen feature a SparseFeature also reads: write() writes it from
    the SparseFeature, in index order, so it is compared as a multiset."""
    import os
    import tempfile
    sch = mod.schema[mod.messages[0]]
    shared = {k for sec in ("features", "context") for k, d in sch.get(sec, {}).items()
              if "read_by" in d}

    def comparable(b):
        j = plain(batch_to_json(b, 0))
        for sec in ("features", "context"):
            for k in shared & set(j.get(sec, {})):
                v = j[sec][k]
                j[sec][k] = sorted(json.dumps(x) for x in v["values"]) if "values" in v else v
        return json.dumps(j, sort_keys=True, default=str)
    for varlen in ("sparse", "ragged"):
        for comp in ("none", "gzip"):
            for k, b in enumerate(module_batches(mod, files, batch_size=64, varlen=varlen)):
                if "error" in b and isinstance(b, dict) and "exc" in b:
                    continue
                fd, tmp = tempfile.mkstemp(suffix=".tfrecord")
                os.close(fd)
                try:
                    try:
                        n = mod.write(tmp, b, compression=comp)
                    except ValueError as e:
                        # Sparse VarLen feature lists cannot be written
                        if varlen == "sparse" and "read with varlen='ragged'" in str(e):
                            break
                        raise
                    try:
                        back = list(mod.read(tmp, batch_size=max(n, 1), varlen=varlen))
                    except mod.DataError as e:
                        back = []
                        print("roundtrip: %s" % e, file=sys.stderr)
                    want = comparable(b)
                    got = comparable(back[0]) if len(back) == 1 else None
                    check(got == want, "write %s %s batch %d reads back otherwise:\n  wrote %s\n"
                          "  read  %s" % (varlen, comp, k, short(want), short(got)))
                finally:
                    os.unlink(tmp)


def pythonic(v):
    """A record's value as plain Python: lists, ints, floats, bytes (a
    Ragged or Sparse keeps its type, with lists inside)."""
    if isinstance(v, tuple) and hasattr(v, "row_splits"):
        splits = v.row_splits
        splits = tuple(pythonic(x) for x in splits) if isinstance(splits, tuple) else pythonic(splits)
        return type(v)((pythonic(v.values), splits))
    if isinstance(v, tuple) and hasattr(v, "dense_shape"):
        return type(v)(tuple(pythonic(x) for x in v))
    if hasattr(v, "to_numpy"):  # featc Bytes
        return v.tolist()
    if isinstance(v, np.ndarray) or isinstance(v, np.generic):
        # a float32 NaN's bits do not survive a Python float (NaN is
        # quietened on the way): such values stay arrays
        if v.dtype.kind == "f" and np.isnan(v).any():
            return v
        return v.tolist()
    return v


def records_roundtrip(mod, raw, check):
    """write() of every record as parse() gives it, and as plain Python values
    from a generator, writes what write() of batches of one record writes,
    byte for byte."""
    import os
    import tempfile
    try:
        parsed = [mod.parse(r) for r in raw]
    except mod.DataError:
        return  # records the spec refuses: nothing to write back
    paths = []
    for _ in range(3):
        fd, tmp = tempfile.mkstemp(suffix=".tfrecord")
        os.close(fd)
        paths.append(tmp)
    try:
        data = b"".join(frame(r) for r in raw)
        try:
            # batches of one: a larger batch pads rows and frames to its longest
            batches = list(mod.read(data, batch_size=1, varlen="ragged")) if raw else []
            n = mod.write(paths[0], batches)
        except ValueError as e:
            check(False, "write() of the batches: %s" % e)
            return

        def as_python(rec):
            if isinstance(rec, dict):
                return {k: pythonic(v) for k, v in rec.items()}
            return tuple({k: pythonic(v) for k, v in part.items()} for part in rec)
        plain_records = (as_python(rec) for rec in parsed)
        for label, items, path in (("parse()'s records", parsed, paths[1]),
                                   ("plain Python records", plain_records, paths[2])):
            try:
                m = mod.write(path, items)
            except (ValueError, TypeError) as e:
                check(False, "write() of %s: %s" % (label, e))
                continue
            same_bytes = open(path, "rb").read() == open(paths[0], "rb").read()
            check(m == n and same_bytes, "write() of %s: %d records (the batches %d), %s bytes"
                  % (label, m, n, "the same" if same_bytes else "other"))
    finally:
        for p in paths:
            os.unlink(p)


def empty_batch(w):
    def zero(v):
        if isinstance(v, dict):
            if "shape" in v:
                return v["shape"][:1] == [0]
            if "dense_shape" in v:
                return v["dense_shape"][:1] == [0]
            if "row_splits" in v:
                rs = v["row_splits"]
                return (rs[0] if rs and isinstance(rs[0], list) else rs) == [0]
            return all(zero(x) for x in v.values())
        return True
    return all(zero(v) for k, v in w.items() if k != "batch")


def digest(b):
    """A batch (or an error) as a hash of every array's dtype, shape and
    bytes, and the names and kinds around them: equal for equal batches,
    floats by their bits.  (Much cheaper than normal() for the many
    batches compare_threads reads.)"""
    if isinstance(b, dict) and "exc" in b:
        return "error: " + b["error"]
    h = hashlib.sha256()

    def walk(v):
        h.update(type(v).__name__.encode() + b"(")
        if isinstance(v, dict):
            for k in sorted(v):
                h.update(k.encode() + b"=")
                walk(v[k])
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif isinstance(v, np.ndarray) or np.isscalar(v):
            a = np.asarray(v)
            h.update(str((a.dtype.str, a.shape)).encode())
            h.update(np.ascontiguousarray(a).tobytes())
        elif hasattr(v, "offsets"):  # Bytes
            walk((np.asarray(v.data), np.asarray(v.offsets), tuple(v.shape)))
        elif hasattr(v, "indices"):  # Sparse
            walk((v.indices, v.values, v.dense_shape))
        elif hasattr(v, "row_splits"):  # Ragged
            walk((v.values, v.row_splits))
        elif v is None or isinstance(v, (int, bytes, str)):
            h.update(repr(v).encode())
        else:
            raise TypeError("digest: %r" % type(v))
        h.update(b")")
    walk(b)
    return h.hexdigest()


def normal(b):
    """A batch as comparable plain data."""
    if "error" in b and isinstance(b, dict) and "exc" in b:
        return {"error": b["error"]}
    return json.dumps(plain(batch_to_json(b, 0)), sort_keys=True, default=str)


def renamed(batches, files, label):
    """Errors name the source: a path, <bytes> for bytes-like objects, a
    file object's name, or <file> for one without (BytesIO)."""
    if label == "file object":
        return batches
    out = []
    for b in batches:
        if isinstance(b, dict):
            e = b["error"]
            for f in files:
                e = e.replace(f, "<file>" if label == "BytesIO" else "<bytes>")
            b = {"error": e}
        out.append(b)
    return out


def read_records(path):
    import gzip
    import zlib
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    elif data[:1] == b"\x78":
        try:
            data = zlib.decompress(data)
        except zlib.error:
            pass
    return records(data)


def short(v, n=600):
    s = json.dumps(v, default=str)
    return s if len(s) <= n else s[:n] + "..."


def compare_extras(mod, dump, files, check):
    """Bucket ids and hot vectors: the module's against the C batch API's."""
    for bsize in (1, 7, 64):
        p = subprocess.run([dump, str(bsize)] + files, stdout=subprocess.PIPE)
        want = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
        got = []
        for b in module_batches(mod, files, batch_size=bsize):
            if "error" in b:
                got.append({"error": True})
                continue
            d = b if isinstance(b, dict) else b[0]
            if isinstance(b, tuple):
                d = dict(b[0])
                d.update(b[1])
            row = {}
            for k, v in d.items():
                if "/" in k and k.rsplit("/", 1)[1] in ("buckets", "one_hot", "multi_hot"):
                    a = np.asarray(v)
                    row[k] = a.reshape(-1).tolist() if a.dtype != np.float32 else \
                        [f32bits(x) for x in a.reshape(-1)]
            got.append(row)
        check(len(got) == len(want), "extras B=%d: %d batches, C %d" % (bsize, len(got), len(want)))
        for k, (g, w) in enumerate(zip(got, want)):
            check(g == w, "extras B=%d batch %d:\n  module %s\n  C      %s"
                  % (bsize, k, short(g), short(w)))


if __name__ == "__main__":
    sys.exit(main())
