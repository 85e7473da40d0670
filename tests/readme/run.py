#!/usr/bin/env python3
"""Runs every shell block of README.md marked as runnable, verbatim.

A block is runnable when the line before its ```sh fence is
<!-- runnable: ... -->.  Each block runs with `sh -e` in a fresh folder that
holds the tree's include/, specs/, examples/, tests/ and build/ (as links),
with build/ first on PATH, as a reader who ran `make` would run it from the
top of the tree.  A block passes when every command succeeds.

A transcript is a ``` block marked <!-- transcript: ... --> whose first line
is `$ COMMAND`: COMMAND runs the same way, and its standard output must be
the rest of the block, byte for byte (so a sample output cannot go stale).

usage: run.py README BUILD
"""
import os
import shutil
import subprocess
import sys
import tempfile

MARK = "<!-- runnable:"
TRANSCRIPT = "<!-- transcript:"


def blocks(path, mark=MARK, fence="```sh"):
    """(line number, text) of each block marked with mark."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith(mark):
            if i + 1 >= len(lines) or lines[i + 1].strip() != fence:
                raise SystemExit(f"{path}:{i + 1}: a {mark} mark must come right before a {fence} block")
            j = i + 2
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            out.append((i + 3, "\n".join(lines[i + 2:j]) + "\n"))
            i = j
        i += 1
    return out


def main():
    readme, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    root = os.path.dirname(readme)
    found = [(line, text, None) for line, text in blocks(readme)]
    for line, text in blocks(readme, TRANSCRIPT, "```"):
        first, _, want = text.partition("\n")
        if not first.startswith("$ "):
            raise SystemExit(f"{readme}:{line}: a transcript starts with '$ COMMAND'")
        found.append((line, first[2:] + "\n", want))
    passed = failed = 0
    if len(found) < 3:
        print(f"readme: only {len(found)} runnable blocks in {readme}; the marks are gone?")
        failed += 1
    for line, text, want in found:
        work = tempfile.mkdtemp(prefix="featc-readme.")
        try:
            for name in ("include", "specs", "examples", "tests"):
                os.symlink(os.path.join(root, name), os.path.join(work, name))
            os.symlink(build, os.path.join(work, "build"))
            env = dict(os.environ, PATH=build + os.pathsep + os.environ.get("PATH", ""))
            r = subprocess.run(["sh", "-e", "-c", text], cwd=work, env=env,
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               errors="replace", timeout=300)
            if r.returncode == 0 and want is not None and r.stdout != want:
                failed += 1
                print(f"FAIL: README.md:{line}: the transcript's output is not what the command "
                      f"prints now:\n--- README\n{want}--- now\n{r.stdout}", file=sys.stderr)
            elif r.returncode == 0:
                passed += 1
            else:
                failed += 1
                print(f"FAIL: README.md:{line}: the block exits {r.returncode}:\n{text}"
                      f"--- stderr:\n{r.stderr[-1500:]}", file=sys.stderr)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"readme: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
