#!/usr/bin/env python3
"""featc check SPEC --data against the generated parsers: the descriptors the
compiler builds in memory, read by the runtime's general path, must give the
values and the errors of the code `featc compile --driver` generates.

usage: check_data.py FEATC BUILD CORPUS TMPDIR [RANDOM_SPECS RECORDS_PER_SPEC]
(the drivers are built with $CC, default cc, against BUILD/libfeatc.a)

- every spec of specs/ and tests/specs, and RANDOM_SPECS random specs
  (tests/oracle/random_specs.py, seed 7), compiled with --driver and built;
- each driver and `featc check SPEC --data --json` read: every corpus file
  (specs/ only: the files mostly fail, which tests the errors), and
  RECORDS_PER_SPEC random records written for the spec's own keys
  (values of the right and wrong types and counts, Feature{}, duplicate and
  unknown keys, packed and unpacked lists, frames, cut and changed bytes);
- the two outputs must be equal byte for byte, and so must the exit status;
- then the plain output (errors, summary, exit status) and the options.
Prints "check-data: N passed, M failed" and how many records parsed and
failed on both sides.
"""
import os
import random
import re
import struct
import subprocess
import sys

FEATC, BUILD, CORPUS, TMP = sys.argv[1:5]
NRANDOM = int(sys.argv[5]) if len(sys.argv) > 5 else 12
PER_SPEC = int(sys.argv[6]) if len(sys.argv) > 6 else 300
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
from framing import frame, varint  # noqa: E402
import tally  # noqa: E402
from tally import check, finish  # noqa: E402
parsed = errors = 0


def run(args):
    return tally.run(args, text=None)


def build_driver(spec, out):
    os.makedirs(out, exist_ok=True)
    rc, _, err = run([FEATC, "compile", "-o", out, "--driver", spec])
    if rc != 0:
        return None, None
    base = os.path.basename(spec)[:-len(".feat")]
    exe = os.path.join(out, "driver")
    cc = os.environ.get("CC", "cc").split()
    rc, _, err = run(cc + ["-std=c99", "-O1", "-D_POSIX_C_SOURCE=200809L",
                      "-I" + os.path.join(REPO, "include"), "-I" + out, "-o", exe,
                      os.path.join(out, base + ".c"), os.path.join(out, base + "_main.c"),
                      os.path.join(BUILD, "libfeatc.a")] +
                     os.environ.get("LIBS_Z", "-lz").split() + ["-lm", "-lpthread"])
    if rc != 0:
        print(err, file=sys.stderr)
        return None, None
    return exe, os.path.join(out, base + ".c")


# ------------------------------------------------------------ the spec's keys

DESC = re.compile(r'^\s+\{"((?:[^"\\]|\\.)*)", (\d+), "\w+", FC_TYPE_(\w+), FC_KIND_(\w+), '
                  r'(\d+), \{[\d, ]*\}, (\d+), (\d+), (?:(\d+), )?')


def c_unescape(s):
    out = bytearray()
    i = 0
    while i < len(s):
        if s[i] == "\\":
            if s[i + 1] in "01234567":
                out.append(int(s[i + 1:i + 4], 8))
                i += 4
            else:
                out.append(ord(s[i + 1]))
                i += 2
        else:
            out.append(ord(s[i]))
            i += 1
    return bytes(out)


def keys_of(source):
    """[(key, type, kind, elems, max, max_frames or None, is_list)] from NAME.c."""
    keys, section = [], None
    for line in open(source, encoding="latin-1"):
        if "static const fc_field_desc" in line:
            section = "field"
        elif "static const fc_list_desc" in line:
            section = "list"
        elif line.startswith("};"):
            section = None
        elif section:
            m = DESC.match(line)
            if m:
                key = c_unescape(m.group(1))
                keys.append((key, m.group(3).lower(), m.group(4), int(m.group(6)),
                             int(m.group(7)), int(m.group(8)) if m.group(8) else None,
                             section == "list"))
    return keys


# ------------------------------------------------------------ random records

def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def feature(rng, typ, n):
    """A Feature of kind typ with n values (packed or not)."""
    if typ == "empty":
        return b""
    if typ == "bytes":
        vals = [bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 3, 8])))
                for _ in range(n)]
        return ld(1, b"".join(ld(1, v) for v in vals))
    if typ == "float":
        vals = [rng.choice([0.0, 1.5, -2.25, 3e38, float("inf"), float("nan"), rng.random()])
                for _ in range(n)]
        if rng.random() < 0.7 or n == 0:
            body = ld(1, b"".join(struct.pack("<f", v) for v in vals)) if n else b""
        else:
            body = b"".join(varint(1 << 3 | 5) + struct.pack("<f", v) for v in vals)
        return ld(2, body)
    vals = [rng.choice([0, 1, -1, 2**63 - 1, -2**63, rng.randrange(-1000, 1000)]) for _ in range(n)]
    enc = [varint(v & 0xFFFFFFFFFFFFFFFF) for v in vals]
    if rng.random() < 0.7 or n == 0:
        body = ld(1, b"".join(enc)) if n else b""
    else:
        body = b"".join(varint(1 << 3) + e for e in enc)
    return ld(3, body)


def count_for(rng, kind, elems, mx):
    r = rng.random()
    if kind == "FIXED":
        want = elems
    elif kind == "ROWS":
        want = elems * rng.randint(0, max(1, min(mx, 3)))
    else:
        want = rng.randint(0, max(1, min(mx, 6)))
    if r < 0.92:
        return want
    return rng.choice([0, 1, want + 1, max(0, want - 1), mx + 1, elems * (mx + 1)])


def some_feature(rng, typ, kind, elems, mx):
    r = rng.random()
    if r < 0.03:
        return feature(rng, "empty", 0)
    if r < 0.06:
        typ = rng.choice(["bytes", "float", "int64"])
    return feature(rng, typ, min(count_for(rng, kind, elems, mx), 64))


def features_map(rng, keys):
    entries = []
    for key, typ, kind, elems, mx, _, _ in keys:
        if rng.random() < 0.85:
            entries.append((key, some_feature(rng, typ, kind, elems, mx)))
            if rng.random() < 0.05:  # a duplicate key: the last one counts
                entries.append((key, some_feature(rng, typ, kind, elems, mx)))
    if rng.random() < 0.3:
        entries.append((b"unknown/%d" % rng.randrange(5), feature(rng, "int64", 2)))
    rng.shuffle(entries)
    return b"".join(ld(1, ld(1, k) + ld(2, v)) for k, v in entries)


def lists_map(rng, lists):
    entries = []
    for key, typ, kind, elems, mx, frames, _ in lists:
        if rng.random() < 0.85:
            n = rng.randint(0, max(1, min(frames or 4, 5)))
            if rng.random() < 0.05:
                n = (frames or 4) + 1
            body = b"".join(ld(1, some_feature(rng, typ, kind, elems, mx)) for _ in range(n))
            entries.append((key, body))
    rng.shuffle(entries)
    return b"".join(ld(1, ld(1, k) + ld(2, v)) for k, v in entries)


def record(rng, keys):
    fields = [k for k in keys if not k[6]]
    lists = [k for k in keys if k[6]]
    if lists or any(k[5] is not None for k in keys):
        body = ld(1, features_map(rng, fields)) + ld(2, lists_map(rng, lists))
    else:
        body = ld(1, features_map(rng, fields))
    r = rng.random()
    if r < 0.04 and body:  # cut
        body = body[:rng.randrange(len(body))]
    elif r < 0.08 and body:  # a byte changed
        b = bytearray(body)
        b[rng.randrange(len(b))] = rng.randrange(256)
        body = bytes(b)
    return body


# ------------------------------------------------------------ comparisons

def same(driver, spec, files, what, tally=None):
    global parsed, errors
    rd, od, _ = run([driver] + files)
    rc, oc, err = run([FEATC, "check", spec, "--data", "--json", "-q"] + files)
    check(rd == rc and od == oc, "%s: exit %d (driver %d), outputs %s%s"
          % (what, rc, rd, "equal" if od == oc else "differ",
             "" if od == oc else ": first difference at line %d" % first_diff(od, oc)))
    for line in od.splitlines():
        bad = line.startswith(b'{"record":') and b'"error":' in line[:40]
        errors += bad
        parsed += not bad
        if tally is not None:
            tally[bad] += 1


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            print("  driver: %s\n  check:  %s" % (x[:300], y[:300]), file=sys.stderr)
            return i
    return min(len(a.splitlines()), len(b.splitlines()))


def main():
    rng = random.Random(26)
    corpus = sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS)
                    if not f.endswith((".md", ".tsv")) and f != "NOTICE")
    rdir = os.path.join(TMP, "random-specs")
    os.makedirs(rdir, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(REPO, "tests", "oracle", "random_specs.py"),
                    "7", str(NRANDOM), rdir], check=True)
    specs = sorted(os.path.join(REPO, "specs", f) for f in os.listdir(os.path.join(REPO, "specs"))
                   if f.endswith(".feat"))
    tspecs = sorted(os.path.join(REPO, "tests", "specs", f)
                    for f in os.listdir(os.path.join(REPO, "tests", "specs")) if f.endswith(".feat"))
    rspecs = sorted(os.path.join(rdir, f) for f in os.listdir(rdir) if f.endswith(".feat"))
    nrec = 0
    rtally = [0, 0]
    for spec in specs + tspecs + rspecs:
        name = os.path.basename(spec)[:-5]
        what = os.path.relpath(spec, REPO) if spec.startswith(REPO) else "random " + name
        out = os.path.join(TMP, "build-" + ("r-" if spec in rspecs else "") + name)
        driver, source = build_driver(spec, out)
        check(driver is not None, what + ": compiles and builds")
        if driver is None:
            continue
        if spec in specs:
            for f in corpus:
                same(driver, spec, [f], "%s on %s" % (what, os.path.basename(f)))
        keys = keys_of(source)
        check(len(keys) > 0, "%s: keys found in %s" % (what, source))
        data = os.path.join(out, "random.tfrecord")
        with open(data, "wb") as f:
            for _ in range(PER_SPEC):
                f.write(frame(record(rng, keys)))
        nrec += PER_SPEC
        same(driver, spec, [data], "%s on %d random records" % (what, PER_SPEC), rtally)
    print("check-data: %d records parsed and %d failed alike; of them %d random records over "
          "%d specs: %d parsed, %d failed" % (parsed, errors, nrec, len(specs + tspecs + rspecs),
                                              rtally[0], rtally[1]))

    # the plain output
    pen = os.path.join(REPO, "specs", "penguin.feat")
    pdata = os.path.join(CORPUS, "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz")
    mnist = os.path.join(CORPUS, "tfx__mnist.tfrecord")
    rc, out, _ = run([FEATC, "check", pen, "--data", pdata])
    check(rc == 0 and out == ("%s: 100 records, 0 failed\n" % pdata).encode(),
          "a clean file: %d %r" % (rc, out[:200]))
    rc, out, _ = run([FEATC, "check", "--max-errors=2", pen, "--data", pdata, mnist])
    lines = out.decode().splitlines()
    want_err = ("%s: record 0 (offset 0): Feature: body_mass_g (data type: float) is required "
                "but could not be found." % mnist)
    check(rc == 1 and want_err in lines and len([x for x in lines if ": record " in x]) == 2
          and "%s: 1000 records, 1000 failed" % mnist in lines
          and "total: 1100 records in 2 files, 1000 failed" in lines
          and "(998 errors not shown: --max-errors=2)" in lines
          and any(x.strip().startswith("1000  Feature: body_mass_g") for x in lines),
          "failures, the summary: %d %r" % (rc, lines[:8]))
    damaged = os.path.join(CORPUS, "tf-models-CRLF-DAMAGED__pets_examples.record")
    rc, out, err = run([FEATC, "check", pen, "--data", damaged])
    check(rc == 2 and "damaged" in out.decode() and "featc: " + damaged in err,
          "a damaged file: %d %r %r" % (rc, out, err))
    rc, _, err = run([FEATC, "check", "--message=nope", pen, "--data", pdata])
    check(rc == 1 and "no message named 'nope'" in err, "an unknown message: %d %s" % (rc, err))
    seqspec = os.path.join(REPO, "specs", "movie.feat")
    rc, _, _ = run([FEATC, "check", "--message=movie", seqspec, "--data", pdata])
    check(rc in (0, 1), "--message names a message")
    for bad in (["--json", pen], ["--tf", "--data", pen, pdata], ["--data"],
                ["--max-errors=x", "--data", pen, pdata], ["--crc=maybe", "--data", pen, pdata]):
        rc, _, err = run([FEATC, "check"] + bad)
        check(rc == 64, "usage error %r: exit %d %s" % (bad, rc, err))
    return finish("check-data")


if __name__ == "__main__":
    sys.exit(main())
