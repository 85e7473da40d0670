#!/usr/bin/env python3
"""featc cat's output over the whole corpus, pinned: the dump contract
(docs/design.md, docs/record-tools.md "cat") must not change by accident.

usage: cat_golden.py FEATC CORPUS GOLDEN [--update]

For every corpus file (damaged ones included) and each of text, --json,
--utf8, and --json with --json-bytes=base64, =latin1 and =latin1 --utf8: the exit status, the size and the SHA-256 of
standard output, against GOLDEN (tests/cli/cat_golden.tsv).  The outputs
run to tens of megabytes, so they are pinned by hash; a change shows which
file and mode moved, and `make update-cat-golden` rewrites GOLDEN for
review (diff the two featc builds' outputs before committing it).
Prints "cat-golden: N passed, M failed".
"""
import hashlib
import os
import subprocess
import sys

FEATC, CORPUS, GOLDEN = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
UPDATE = "--update" in sys.argv[4:]
MODES = [("text", []), ("json", ["--json"]), ("text-utf8", ["--utf8"]),
         ("json-base64", ["--json", "--json-bytes=base64"]),
         ("json-latin1", ["--json", "--json-bytes=latin1"]),
         ("json-latin1-utf8", ["--json", "--json-bytes=latin1", "--utf8"])]


def main():
    files = sorted(f for f in os.listdir(CORPUS)
                   if f not in ("MANIFEST.md", "MANIFEST.tsv", "NOTICE")
                   and not f.endswith((".idx", ".members")))
    rows = []
    for f in files:
        for mode, args in MODES:
            # from the corpus folder, by file name: text output names the file
            p = subprocess.run([FEATC, "cat"] + args + [f], cwd=CORPUS,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            rows.append("%s\t%s\t%d\t%d\t%s" % (f, mode, p.returncode, len(p.stdout),
                                               hashlib.sha256(p.stdout).hexdigest()))
    if UPDATE:
        with open(GOLDEN, "w") as out:
            out.write("# file\tmode\texit\tbytes\tsha256 (tests/cli/cat_golden.py)\n")
            out.write("\n".join(rows) + "\n")
        print("cat-golden: %d rows written to %s" % (len(rows), GOLDEN))
        return 0
    want = {}
    for line in open(GOLDEN):
        if line.startswith("#") or not line.strip():
            continue
        parts = line.rstrip("\n").split("\t")
        want[(parts[0], parts[1])] = line.rstrip("\n")
    passed = failed = 0
    for row in rows:
        key = tuple(row.split("\t")[:2])
        if want.get(key) == row:
            passed += 1
        else:
            failed += 1
            if failed > 20:
                continue
            print("FAIL: cat %s %s: got %s, pinned %s" % (key[1], key[0], row.split("\t")[2:],
                                                          (want.get(key) or "nothing").split("\t")[2:]),
                  file=sys.stderr)
    extra = set(want) - {tuple(r.split("\t")[:2]) for r in rows}
    for key in sorted(extra):
        failed += 1
        print("FAIL: %s %s pinned but not in the corpus" % key, file=sys.stderr)
    print("cat-golden: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
