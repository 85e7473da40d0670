#!/usr/bin/env python3
"""featc cat's options for big and odd files: --limit, --skip, --max-bytes,
--utf8 and --raw, against the corpus and the bytes of its records.

usage: cat_options.py FEATC CORPUS TMPDIR

- --limit and --skip select records across files, in order (record numbers
  stay per file); --limit 0 prints nothing; the files after the limit are
  not opened; a damaged file met while skipping still fails;
- --raw, --raw=hex, --raw=base64 (text and JSON) give back every record's
  bytes exactly (tests/oracle/framing.py reads them independently);
- --max-bytes shortens exactly the values longer than N, to their first N
  bytes (UTF-8 ones between characters), with their length;
- --json-bytes: over every Example file of the corpus, the default form
  (UTF-8 text as text, other values as {"base64": ...}) and base64 give
  each value's bytes back through json.loads, as latin1 does, in strict
  UTF-8 output;
- --utf8 with --json-bytes=latin1: each bytes value is its UTF-8 text when
  it is well-formed UTF-8, else the Latin-1 form: checked value for value
  over files with text and binary values;
- on a terminal, output gathered across records is written record by
  record: a record read from a pipe shows before the next one is sent, and
  each record before the error of the next one;
- usage errors exit 64.
Prints "cat-options: N passed, M failed".
"""
import base64
import gzip
import json
import os
import select
import subprocess
import sys
import time

FEATC, CORPUS, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
from framing import frame, records  # noqa: E402
import tally  # noqa: E402
from tally import check, finish  # noqa: E402


def run(*args):
    return tally.run([FEATC, "cat", *args], text="strict")


def jlines(out):
    return [json.loads(line) for line in out.splitlines()]


def file_records(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return records(data)


def from_text(v):
    """A bytes value of --json-bytes=text: its text, or {"base64": ...}."""
    if isinstance(v, dict) and set(v) == {"base64"}:
        raw = base64.b64decode(v["base64"], validate=True)
        try:
            raw.decode("utf-8")
            return None  # well-formed UTF-8 must show as text
        except UnicodeDecodeError:
            return raw
    return v.encode("utf-8") if isinstance(v, str) else None


def json_bytes_forms():
    """Every bytes value of the corpus through json.loads: the default
    (--json-bytes=text) and base64 give back the record's bytes, as latin1
    does; the default's output is strict UTF-8 with no lone surrogate, and
    shows text as text (a UTF-8 value is a JSON string of its text)."""
    for f in sorted(os.listdir(CORPUS)):
        path = os.path.join(CORPUS, f)
        if "DAMAGED" in f or not os.path.isfile(path) or f.startswith(("MANIFEST", "NOTICE")):
            continue
        rc0, out0, _ = tally.run([FEATC, "cat", "--json", "--json-bytes=latin1", path])
        if rc0 != 0:
            continue  # not Examples (cat --raw covers those)
        want = [[v.encode("latin-1") for v in values(o)] for o in jlines(out0)]
        p = subprocess.run([FEATC, "cat", "--json", path], capture_output=True)
        try:
            text = p.stdout.decode("utf-8", "strict")
        except UnicodeDecodeError as e:
            check(False, "cat --json %s is not UTF-8: %s" % (f, e))
            continue
        check(p.returncode == 0 and "\\udc" not in text,
              "cat --json %s: exit %d, or a lone surrogate" % (f, p.returncode))
        got = [[from_text(v) for v in values(o)] for o in jlines(text)]
        check(got == want, "cat --json %s: the values do not give the record's bytes back" % f)
        rc, out, _ = run("--json", "--json-bytes=base64", path)
        got = [[base64.b64decode(v, validate=True) for v in values(o)] for o in jlines(out)]
        check(rc == 0 and got == want, "cat --json --json-bytes=base64 %s" % f)
    rc, out, _ = run("--json", "--limit", "1", TEXT)
    check(rc == 0 and "▁Republican" in out, "cat --json shows UTF-8 text as text")


def on_terminal(*args):
    """featc cat ARGS with standard output and error on one pseudo-terminal:
    all it showed, in order, with the terminal's CR LF as LF."""
    master, slave = os.openpty()
    p = subprocess.Popen([FEATC, "cat"] + list(args), stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            p.kill()
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    p.wait()
    return p.returncode, shown.replace(b"\r\n", b"\n").decode("utf-8", "replace")


def streams_on_terminal(first, rest):
    """featc cat - on a terminal, fed record `first` alone through a pipe:
    whether it was shown (its values) before `rest` was sent."""
    master, slave = os.openpty()
    r, w = os.pipe()
    p = subprocess.Popen([FEATC, "cat", "-"], stdin=r, stdout=slave, stderr=slave)
    os.close(slave)
    os.close(r)
    os.write(w, first)
    shown, deadline = b"", time.time() + 20
    while b"}\r\n}" not in shown and time.time() < deadline:  # the record's end
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            shown += os.read(master, 65536)
    before = b"}\r\n}" in shown
    os.write(w, rest)
    os.close(w)
    while True:  # drain, so that cat can finish
        ready, _, _ = select.select([master], [], [], 30)
        try:
            chunk = os.read(master, 65536) if ready else b""
        except OSError:
            chunk = b""
        if not chunk:
            break
    os.close(master)
    rc = p.wait()
    return before, rc


def values(obj):
    """Every bytes value of a cat --json object, in order."""
    out = []
    for sec in ("features", "context"):
        for v in obj.get(sec, {}).values():
            out.extend(v.get("bytes_list", []))
    for frames in obj.get("feature_lists", {}).values():
        for v in frames:
            out.extend(v.get("bytes_list", []))
    return out


MNIST = os.path.join(CORPUS, "tfx__mnist.tfrecord")
ONE = os.path.join(CORPUS, "pwnall-tfrecord__data.tfrecord")
IMAGES = os.path.join(CORPUS, "tfrecord_lite__images.tfrecord")
TEXT = os.path.join(CORPUS, "lingvo__wmt14_ende_wpm_32k_test.tfrecord")
VOC = os.path.join(CORPUS, "tf-models__pascal_voc_seg_val-00000-of-00001.tfrecord")
SKETCHY = os.path.join(CORPUS, "deepmind-research__sketchy_example_data.tfrecords")
ODD = os.path.join(CORPUS, "tf-ranking__train_elwc.tfrecord")  # not Examples (ELWC)


def main():
    # --limit and --skip
    rc, out, _ = run("--json", "--skip", "3", "--limit", "2", MNIST)
    got = [o["record"] for o in jlines(out)]
    check(rc == 0 and got == [3, 4], "--skip 3 --limit 2: records %r" % got)
    rc, out, _ = run("--json", "--skip=1", "--limit=2", ONE, MNIST)
    got = [(os.path.basename(o["file"]), o["record"]) for o in jlines(out)]
    check(rc == 0 and got == [("tfx__mnist.tfrecord", 0), ("tfx__mnist.tfrecord", 1)],
          "--skip 1 --limit 2 over two files: %r" % got)
    rc, out, _ = run("--json", "--limit", "0", MNIST)
    check(rc == 0 and out == "", "--limit 0 printed %r" % out[:80])
    rc, out, err = run("--json", "--limit", "1", ONE, os.path.join(TMP, "missing"))
    check(rc == 0 and len(jlines(out)) == 1 and err == "",
          "the file after the limit is opened: exit %d, %r" % (rc, err))
    rc, out, _ = run("--json", "--skip", "1000", MNIST)
    check(rc == 0 and out == "", "--skip past the end printed %r" % out[:80])
    data = open(MNIST, "rb").read()
    cut = os.path.join(TMP, "cut.tfrecord")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2 + 7])
    rc, out, err = run("--json", "--skip", "100000", cut)
    check(rc == 2 and out == "" and "truncated record" in err,
          "skipping over damage: exit %d, %r" % (rc, err))
    full = jlines(run("--json", MNIST)[1])
    rc, out, _ = run("--json", "--skip", "990", MNIST)
    check(jlines(out) == full[990:], "--skip 990 differs from the whole file's end")
    # --raw in every form gives the records' bytes back
    for path in (IMAGES, ODD, MNIST):
        want = file_records(path)
        rc, out, _ = run("--json", "--raw=hex", path)
        got = [bytes.fromhex(o["hex"]) for o in jlines(out)]
        check(rc == 0 and got == want, "--raw=hex --json %s" % os.path.basename(path))
        rc, out, _ = run("--json", "--raw=base64", path)
        got = [base64.b64decode(o["base64"]) for o in jlines(out)]
        check(rc == 0 and got == want, "--raw=base64 --json %s" % os.path.basename(path))
        rc, out, _ = run("--json", "--raw", path)
        objs = jlines(out)
        got = [o["raw"].encode("latin-1") for o in objs]
        check(rc == 0 and got == want and [o["size"] for o in objs] == [len(r) for r in want],
              "--raw --json %s" % os.path.basename(path))
        rc, out, _ = run("--raw=base64", path)
        got = [base64.b64decode(line[len("base64: "):]) for line in out.splitlines()
               if line.startswith("base64: ")]
        check(rc == 0 and got == want, "--raw=base64 (text) %s" % os.path.basename(path))
        rc, out, _ = run("--raw=hex", "--max-bytes", "10", path)
        lines = [line for line in out.splitlines() if line.startswith("hex: ")]
        ok = len(lines) == len(want)
        for line, r in zip(lines, want):
            h = line[5:].split("  #")[0]
            ok = ok and bytes.fromhex(h) == r[:10]
            ok = ok and (("# shortened: first 10 of %d bytes" % len(r)) in line) == (len(r) > 10)
        check(rc == 0 and ok, "--raw=hex --max-bytes 10 (text) %s" % os.path.basename(path))
    rc, out, err = run("--json", ODD)
    check(rc == 1, "without --raw, the ELWC file is not Examples: exit %d" % rc)
    # on a terminal: record 0 shown before record 1's error, both before record 2
    good = file_records(MNIST)
    mixed = os.path.join(TMP, "mixed.tfrecord")
    with open(mixed, "wb") as f:
        f.write(frame(good[0]) + frame(file_records(ODD)[0]) + frame(good[1]))
    for mode in ([], ["--json"]):
        rc, shown = on_terminal(*(mode + [mixed]))
        head0 = shown.find('"record":0' if mode else "record 0 (")
        body0 = shown.find("int64_list")
        err1 = shown.find("featc: %s: record 1: " % mixed)
        head2 = shown.find('"record":2' if mode else "record 2 (")
        check(rc == 1 and 0 <= head0 < body0 < err1 < head2,
              "cat %s on a terminal: exit %d, record 0 at %d (values at %d), record 1's "
              "error at %d, record 2 at %d" % (" ".join(mode), rc, head0, body0, err1, head2))
    before, rc = streams_on_terminal(frame(good[0]), frame(good[1]))
    check(before and rc == 0, "cat - on a terminal: record 0 not shown before record 1 was "
          "sent (exit %d)" % rc)
    # --max-bytes: exactly the longer values, to their first N bytes
    default = jlines(run("--json", "--json-bytes=latin1", IMAGES)[1])
    for n in (1, 8, 15000, 20000):
        rc, out, _ = run("--json", "--json-bytes=latin1", "--max-bytes", str(n), IMAGES)
        ok = rc == 0
        for d, s in zip(default, jlines(out)):
            for a, b in zip(values(d), values(s)):
                raw = a.encode("latin-1")
                if len(raw) > n:
                    ok = ok and b == {"shortened": raw[:n].decode("latin-1"), "bytes": len(raw)}
                else:
                    ok = ok and b == a
        check(ok, "--max-bytes %d --json" % n)
    rc, out, _ = run("--max-bytes", "8", "--limit", "1", IMAGES)
    check(rc == 0 and 'value: "\\377\\330\\377\\340\\000\\020JF"  # shortened: first 8 of '
          '17858 bytes' in out, "--max-bytes 8 in text format")
    rc, out, _ = run("--json", "--json-bytes=latin1", "--utf8", "--max-bytes", "4", "--limit", "1",
                     TEXT)
    # "▁A" is 4 bytes; "▁Republican" (13) shows "▁R"; --max-bytes 2 of "▁A" nothing
    rc2, out2, _ = run("--json", "--json-bytes=latin1", "--utf8", "--max-bytes", "2", "--limit", "1",
                       TEXT)
    check(rc2 == 0 and values(jlines(out2)[0])[0] == {"shortened": "", "bytes": 4},
          "--utf8 --max-bytes 2 inside a character: %r" % values(jlines(out2)[0])[:1])
    words = values(jlines(out)[0])
    check(words[0] == "▁A" and words[1] == {"shortened": "▁R", "bytes": 13},
          "--utf8 --max-bytes 4 cuts between characters: %r" % words[:2])
    # --utf8 with latin1: text where the bytes are UTF-8, latin1's form elsewhere
    for path in (TEXT, VOC, SKETCHY, IMAGES):
        d = jlines(run("--json", "--json-bytes=latin1", path)[1])
        rc, out, _ = run("--json", "--json-bytes=latin1", "--utf8", path)
        u = jlines(out)
        ok, texts = rc == 0 and len(d) == len(u), 0
        for a_obj, b_obj in zip(d, u):
            for a, b in zip(values(a_obj), values(b_obj)):
                raw = a.encode("latin-1")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    text = None
                if text is not None and text != a:
                    texts += 1
                ok = ok and b == (text if text is not None else a)
        check(ok, "--utf8 %s: a value not as its UTF-8 text or its default form"
              % os.path.basename(path))
        if path == TEXT:
            check(texts > 0, "--utf8 %s: no value with non-ASCII text" % os.path.basename(path))
    json_bytes_forms()
    rc, out, _ = run("--utf8", "--limit", "1", TEXT)
    check(rc == 0 and 'value: "▁Republican"' in out, "--utf8 in text format")
    rc, out, _ = run("--limit", "1", TEXT)
    check(rc == 0 and 'value: "\\342\\226\\201Republican"' in out, "text format without --utf8")
    # usage errors
    for bad in (["--limit", "x"], ["--limit=-1"], ["--skip", ""], ["--max-bytes", "0"],
                ["--raw=octal"], ["--max-bytes", "1Q"], ["--json-bytes=hex"]):
        rc, _, err = run(*(bad + [MNIST]))
        check(rc == 64 and "Try 'featc cat --help'" in err, "%r: exit %d, %r" % (bad, rc, err[:100]))
    return finish("cat-options")


if __name__ == "__main__":
    sys.exit(main())
