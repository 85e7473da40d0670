#!/usr/bin/env python3
"""Progress on standard error (cat, count, verify, infer, index).

usage: progress.py FEATC CORPUS TMPDIR

- --progress with standard error a pipe: one line per update, the last one
  "featc CMD: S of S (100%), N records, R/s" with the file's size and its
  exact record count (also with -j 2, and over GZIP, by compressed bytes);
  standard output the same as without it;
- standard error a terminal (a pseudo-terminal): a command that runs for
  more than half a second (cat reading a pipe fed slowly) shows progress on
  one line rewritten with \\r and erased at the end; -q shows none; cat
  whose standard output is the terminal too shows none; a quick command
  shows none;
- an error message is not glued to a progress line.
Prints "progress: N passed, M failed".
"""
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import tally  # noqa: E402
from tally import check, finish  # noqa: E402

FEATC, CORPUS, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
SIZE = r"[0-9.]+ (?:B|kB|MB|GB|TB)"


def run(args, stdin=None):
    return tally.run([FEATC] + args, stdin, text="strict")


def human(n):
    units = ["B", "kB", "MB", "GB", "TB"]
    v, u = float(n), 0
    while v >= 1000 and u < 4:
        v /= 1000
        u += 1
    return "%.0f %s" % (v, units[u]) if u == 0 else "%.1f %s" % (v, units[u])


def on_pty(args, stdin_data=None, stdout_file=None, feed_delay=0.0):
    """Runs FEATC ARGS with standard error (and standard output, unless
    stdout_file) on a pseudo-terminal; standard input a pipe fed with
    stdin_data in pieces, feed_delay seconds apart.  Returns (rc, what the
    terminal got)."""
    master, slave = os.openpty()
    out = open(stdout_file, "wb") if stdout_file else None
    p = subprocess.Popen([FEATC] + args, stdin=subprocess.PIPE if stdin_data is not None
                         else subprocess.DEVNULL, stdout=out or slave, stderr=slave)
    os.close(slave)
    got = bytearray()

    def drain():
        while True:
            try:
                b = os.read(master, 65536)
            except OSError:
                return
            if not b:
                return
            got.extend(b)
    t = threading.Thread(target=drain)
    t.start()
    if stdin_data is not None:
        step = max(1, len(stdin_data) // 12)
        for i in range(0, len(stdin_data), step):
            p.stdin.write(stdin_data[i:i + step])
            p.stdin.flush()
            time.sleep(feed_delay)
        p.stdin.close()
    rc = p.wait()
    t.join(timeout=10)
    os.close(master)
    if out:
        out.close()
    return rc, bytes(got).decode("utf-8", "replace")


def main():
    tut = os.path.join(TMP, "tutorial.tfrecord")
    src = os.path.join(CORPUS, "tfx__mnist.tfrecord")
    shutil.copy(src, tut)
    size, records = os.path.getsize(tut), 1000
    gz = os.path.join(CORPUS, "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz")
    last_re = re.compile(r"^featc (\w+): (%s) of (%s) \(100%%\), (\d+) records?, %s/s$"
                         % (SIZE, SIZE, SIZE))
    cases = [("count", [], "%d %s\n" % (records, tut)), ("verify", [], None),
             ("infer", [], None), ("cat", ["--json"], None), ("count", ["-j", "2"], None),
             ("stats", ["--json"], None), ("stats", ["-j", "2"], None),
             ("index", ["-o", os.path.join(TMP, "x.idx")], None)]
    for cmd, extra, want_out in cases:
        rc0, out0, _ = run([cmd] + extra + [tut])
        rc, out, err = run([cmd, "--progress"] + extra + [tut])
        lines = err.splitlines()
        m = last_re.match(lines[-1]) if lines else None
        check(rc == rc0 == 0 and out == out0 and (want_out is None or out == want_out),
              "%s --progress: exit %d, output changed" % (cmd, rc))
        check(m is not None and m.group(1) == cmd and m.group(2) == m.group(3) == human(size)
              and int(m.group(4)) == records,
              "%s %s --progress: last line %r" % (cmd, extra, lines[-1:] if lines else err))
        check(all(line.startswith("featc %s: " % cmd) for line in lines) and "\r" not in err
              and "\033" not in err, "%s --progress to a pipe: %r" % (cmd, err[:200]))
    rc, out, err = run(["count", "--progress", gz])
    m = last_re.match(err.splitlines()[-1]) if err else None
    check(rc == 0 and m is not None and m.group(2) == human(os.path.getsize(gz))
          and m.group(4) == "100", "count --progress over GZIP: %r" % err[-200:])
    rc, out, err = run(["count", "--progress", "-"], stdin=open(tut, "rb"))
    check(rc == 0 and re.search(r"featc count: %s, 1000 records" % SIZE, err) is not None
          and " of " not in err, "count --progress of a stream: %r" % err[-200:])
    # on a terminal
    data = open(tut, "rb").read()
    plain = os.path.join(TMP, "plain.json")
    subprocess.run([FEATC, "cat", "--json", tut], stdout=open(plain, "wb"), check=True)
    shown = os.path.join(TMP, "shown.json")
    rc, tty = on_pty(["cat", "--json", "-"], data, shown, feed_delay=0.12)
    check(rc == 0 and open(shown, "rb").read() == open(plain, "rb").read(),
          "cat - with progress on the terminal: exit %d, output changed" % rc)
    check("\rfeatc cat: " in tty and "records" in tty and tty.endswith("\r\033[K"),
          "cat, a slow pipe, progress on the terminal: %r" % tty[-300:])
    rc, tty = on_pty(["cat", "-q", "--json", "-"], data, shown, feed_delay=0.12)
    check(rc == 0 and tty == "", "cat -q on the terminal printed %r" % tty[:200])
    rc, tty = on_pty(["cat", "--json", "-"], data, None, feed_delay=0.12)
    check(rc == 0 and "featc cat:" not in tty and '"record":0' in tty,
          "cat to the terminal showed progress: %r" % tty[-200:])
    rc, tty = on_pty(["count", os.path.join(CORPUS, "pwnall-tfrecord__data.tfrecord")])
    check(rc == 0 and "featc count:" not in tty, "a quick count showed progress: %r" % tty)
    # an error on a terminal starts on its own line
    odd = os.path.join(CORPUS, "tf-ranking__train_elwc.tfrecord")
    rc, tty = on_pty(["cat", "--json", "-"], open(odd, "rb").read() * 40,
                     os.path.join(TMP, "odd.json"), feed_delay=0.1)
    errs = [line.replace("\033[K", "") for line in re.split(r"[\r\n]", tty)
            if "not an Example" in line]
    check(any("featc cat:" in line for line in re.split(r"[\r\n]", tty)),
          "no progress between the errors: %r" % tty[-300:])
    check(rc == 1 and errs and all(line.startswith("featc: -: record ") for line in errs),
          "errors glued to progress: %r" % errs[:3])
    return finish("progress")


if __name__ == "__main__":
    sys.exit(main())
