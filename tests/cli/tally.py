"""What the test scripts of tests/cli share.

check(cond, what) counts one check, and prints "FAIL: what" when it fails;
finish(name) prints the "NAME: N passed, M failed" line that tests/run.sh
sums and returns the script's exit status (1 when a check failed).
run(argv) runs a program: its exit status, standard output and standard
error, decoded as the script asks (text="strict": UTF-8, or a failed check;
"escape": UTF-8 with other bytes as lone surrogates; None: bytes), and its
standard error as UTF-8 (other bytes replaced, or as lone surrogates with
text="escape").
"""
import subprocess
import sys

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def finish(name):
    print("%s: %d passed, %d failed" % (name, passed, failed))
    return 1 if failed else 0


def run(argv, stdin=None, text="escape"):
    p = subprocess.run([str(a) for a in argv], stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    out = p.stdout
    if text == "strict":
        try:
            out = out.decode("utf-8")
        except UnicodeDecodeError as e:
            check(False, "%s: standard output is not UTF-8: %s" % (" ".join(map(str, argv)), e))
            out = out.decode("utf-8", "surrogateescape")
    elif text == "escape":
        out = out.decode("utf-8", "surrogateescape")
    return p.returncode, out, p.stderr.decode("utf-8", "surrogateescape" if text == "escape"
                                               else "replace")
