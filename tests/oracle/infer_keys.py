#!/usr/bin/env python3
"""An inferred spec names every key of the file it was inferred from.

usage: infer_keys.py FEATC DRIVER_JSON FILE

The keys of every record (`featc cat --json`: Example features, or
SequenceExample context features and feature lists) must all appear in the
driver's output, whose objects hold every field of the spec.  Exit 1 with
the missing keys otherwise."""
import json
import subprocess
import sys


def main():
    featc, driver_json, path = sys.argv[1:4]
    cat = subprocess.run([featc, "cat", "--json", path], capture_output=True, text=True,
                         encoding="utf-8", check=True)
    want_f, want_l = set(), set()
    for line in cat.stdout.splitlines():
        r = json.loads(line)
        want_f.update((r.get("features") or r.get("context") or {}).keys())
        want_l.update((r.get("feature_lists") or {}).keys())
    have_f, have_l = set(), set()
    with open(driver_json, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            have_f.update((r.get("features") or r.get("context") or {}).keys())
            have_l.update((r.get("feature_lists") or {}).keys())
    missing = sorted(want_f - have_f) + ["list " + k for k in sorted(want_l - have_l)]
    if missing:
        print("the inferred spec leaves out: " + ", ".join(missing)[:400], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
