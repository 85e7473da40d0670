#!/usr/bin/env python3
"""Runs or compiles every snippet of README.md, docs/*.md and the folders'
README.md files that says it can, and checks that each relative link of
theirs names a file of the tree (and, with #anchor, one of its headings).

Each snippet is marked by an HTML comment on the line before its fence:

<!-- runnable: ... -->   before a ```sh block: the block runs with `sh -e`.
<!-- transcript: ... --> before a ``` block of `$ COMMAND` lines, each followed
                         by what it prints: the commands run in turn, and each
                         one's standard output must be the lines after it, byte
                         for byte (so a sample output cannot go stale).
<!-- c: program [FILE] --> before a ```c block: a whole program, compiled and
                         linked with the runtime and the generated code of the
                         specs it includes; with FILE, the block must also be
                         that file of the tree, byte for byte.
<!-- c: unit [SPEC...] --> before a ```c block: a translation unit with no
                         main (a function to call, say), compiled with the
                         headers generated from each SPEC, not linked.
<!-- c: fragment [SPEC...] [; DECLARATIONS] --> before a ```c block: the
                         block's statements, after DECLARATIONS, become the body
                         of a function (its #include lines go first), compiled
                         with the headers generated from each SPEC.
<!-- c: not compiled: WHY --> a ```c block that is not C to compile (a list of
                         signatures, say), and why.
<!-- file: PATH -->      before a block of any language: the block must be the
                         file PATH of the tree, byte for byte (a configuration
                         file a test uses as the doc shows it, say).

A ```c block without a mark fails the suite, so that no C snippet escapes.

Shell blocks and transcripts run in a fresh temporary folder that looks like the
top of a built tree (every top-level entry of the tree linked, build/ first on
PATH, no make flags inherited), as a reader would run them after `make`.  They
may write only out/ there, the folder the README says git ignores; anything
else they leave behind fails the block.

usage: run.py ROOT BUILD   (ROOT: the top of the tree)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

RUNNABLE, TRANSCRIPT, C_MARK, FILE_MARK = "<!-- runnable:", "<!-- transcript:", "<!-- c:", "<!-- file:"
# each mark: the kind of snippet, and the fence it must come before
FENCES = {RUNNABLE: ("sh", "```sh"), TRANSCRIPT: ("transcript", "```"), C_MARK: ("c", "```c")}
WARN = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Werror"]
FRAGMENT_QUIET = ["-Wno-unused-variable", "-Wno-unused-but-set-variable",
                  "-Wno-unused-function", "-Wno-unused-parameter"]


class Snippet:
    def __init__(self, path, line, kind, mark, text):
        self.path, self.line, self.kind, self.mark, self.text = path, line, kind, mark, text

    def where(self):
        return f"{self.path}:{self.line}"


def snippets(path, rel):
    """Every marked block of the file, and an error for each unmarked C block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, errors = [], []
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        if fence.startswith("```"):
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            text = "\n".join(lines[i + 1:j]) + "\n"
            mark = lines[i - 1].strip() if i > 0 else ""
            prefix = next((p for p in FENCES if mark.startswith(p)), None)
            if mark.startswith(FILE_MARK) and mark.endswith("-->"):
                out.append(Snippet(rel, i + 2, "file", mark[len(FILE_MARK):-3].strip(), text))
            elif prefix is not None and fence != FENCES[prefix][1]:
                errors.append(f"{rel}:{i}: the mark {mark!r} does not fit a {fence} block")
            elif prefix is not None:
                out.append(Snippet(rel, i + 2, FENCES[prefix][0], mark[4:-3].strip(), text))
            elif fence == "```c":
                errors.append(f"{rel}:{i + 1}: a ```c block without a <!-- c: ... --> mark "
                              "(program, unit, fragment or not compiled: why)")
            i = j
        i += 1
    return out, errors


class Tree:
    """A temporary folder that looks like the top of the built tree."""

    def __init__(self, root, build):
        self.work = tempfile.mkdtemp(prefix="featc-readme.")
        self.names = set()
        for name in os.listdir(root):
            if name in ("build", "out", ".git"):
                continue
            os.symlink(os.path.join(root, name), os.path.join(self.work, name))
            self.names.add(name)
        os.symlink(build, os.path.join(self.work, "build"))
        self.names |= {"build", "out"}
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
        env["PATH"] = build + os.pathsep + env.get("PATH", "")
        self.env = env

    def run(self, script):
        return subprocess.run(["sh", "-e", "-c", script], cwd=self.work, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=600)

    def litter(self):
        """What the snippet wrote outside out/."""
        return sorted(set(os.listdir(self.work)) - self.names)

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)


def transcript(s):
    """[(command, expected output)] of a transcript block."""
    steps = []
    for line in s.text.splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append([line[2:], ""])
        elif not steps:
            raise ValueError(f"{s.where()}: a transcript starts with '$ COMMAND'")
        else:
            steps[-1][1] += line
    return steps


def run_shell(s, root, build):
    tree = Tree(root, build)
    try:
        steps = transcript(s) if s.kind == "transcript" else [(s.text, None)]
        for command, want in steps:
            r = tree.run(command)
            if r.returncode != 0:
                return (f"{s.where()}: the block exits {r.returncode}:\n{command}"
                        f"--- stderr:\n{r.stderr[-1500:]}")
            if want is not None and r.stdout != want:
                return (f"{s.where()}: the transcript's output is not what the command "
                        f"prints now:\n$ {command}--- {s.path}\n{want}--- now\n{r.stdout}")
        left = tree.litter()
        if left:
            return f"{s.where()}: the block leaves {', '.join(left)} outside out/"
        return None
    finally:
        tree.close()


def compile_c(s, root, build, cc):
    words = s.mark[len("c:"):].split(None, 1)
    what, rest = words[0], (words[1] if len(words) > 1 else "")
    if what == "not":
        if not re.match(r"c: not compiled: \S", s.mark):
            return f"{s.where()}: write <!-- c: not compiled: WHY -->"
        return None
    gen = os.path.join(build, "gen-specs")
    work = tempfile.mkdtemp(prefix="featc-readme-c.")
    try:
        if what == "program":
            if rest:
                with open(os.path.join(root, rest), encoding="utf-8") as f:
                    if f.read() != s.text:
                        return f"{s.where()}: the block is not {rest} as it is in the tree"
            specs = re.findall(r'^#include "(\w+)\.h"', s.text, re.M)
            source = s.text
            link = True
        elif what == "unit":
            specs = [os.path.splitext(os.path.basename(n))[0] for n in rest.split()]
            source = s.text
            link = False
        elif what == "fragment":
            names, _, decls = rest.partition(";")
            specs = [os.path.splitext(os.path.basename(n))[0] for n in names.split()]
            head = ["#include <stdio.h>", "#include <string.h>", "#include <featc/fc.h>"]
            head += [f'#include "{n}.h"' for n in specs]
            body = []
            for line in s.text.splitlines():
                (head if line.startswith("#include") else body).append(line)
            source = "\n".join(head + ["void readme_fragment(void);",
                                       "void readme_fragment(void)", "{", decls.strip()]
                               + body + ["}", ""])
            link = False
        else:
            return f"{s.where()}: a C mark says program, unit, fragment or not compiled"
        for n in specs:
            if not os.path.exists(os.path.join(gen, n + ".h")):
                return f"{s.where()}: no generated {n}.h in {gen} (a spec of specs/?)"
        src = os.path.join(work, "snippet.c")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        args = [cc] + WARN + ([] if link else FRAGMENT_QUIET) + [
            "-I" + os.path.join(root, "include"), "-I" + gen, src]
        if link:
            libs = open(os.path.join(build, "libfeatc.libs")).read().split()
            args += [os.path.join(gen, n + ".c") for n in specs]
            args += [os.path.join(build, "libfeatc.a")] + libs + ["-o", os.path.join(work, "a.out")]
        else:
            args += ["-c", "-o", os.path.join(work, "snippet.o")]
        r = subprocess.run(args, capture_output=True, text=True, errors="replace")
        if r.returncode != 0:
            return f"{s.where()}: the C {what} does not compile:\n{r.stderr[-2000:]}--- as compiled:\n{source}"
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def slug(heading):
    """A heading's anchor as GitHub makes it."""
    h = re.sub(r"[`*_]", "", heading.strip().lower())
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def broken_links(root, rel):
    """Each relative link of the Markdown file rel that names no file of the
    tree, or a heading its file does not have."""
    text = open(os.path.join(root, rel), encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # links in code are not links
    out = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(root, os.path.dirname(rel), path)) if path \
            else os.path.join(root, rel)
        if not os.path.exists(full):
            out.append(f"{rel}: the link ({target}) names no file of the tree")
        elif anchor and full.endswith(".md"):
            heads = re.findall(r"^#+ (.*)$", open(full, encoding="utf-8").read(), re.M)
            if anchor not in {slug(h) for h in heads}:
                out.append(f"{rel}: the link ({target}) names no heading of {os.path.relpath(full, root)}")
    return out


def same_file(s, root):
    try:
        with open(os.path.join(root, s.mark), encoding="utf-8") as f:
            if f.read() == s.text:
                return None
    except OSError as e:
        return f"{s.where()}: the block stands for {s.mark}, which cannot be read: {e}"
    return f"{s.where()}: the block is not {s.mark} as it is in the tree"


def make_list(text, name):
    """The words of a `NAME = ...` list of tests/tests.mk, continuation lines included."""
    m = re.search(r"^" + name + r" = ((?:.*\\\n)*.*)$", text, re.M)
    return set(m.group(1).replace("\\\n", " ").split()) if m else set()


def suite_table(root):
    """tests/README.md's table of suites against tests/tests.mk: every suite of
    make test has a row, ✓ marks exactly make check's, 2 exactly the queue's (CROSS_SUITES)."""
    mk = open(os.path.join(root, "tests", "tests.mk"), encoding="utf-8").read()
    check, first, second = (make_list(mk, n) for n in ("CHECK_SUITES", "TEST_SUITES", "CROSS_SUITES"))
    if not (check and first and second):
        return ["tests/tests.mk: CHECK_SUITES, TEST_SUITES or CROSS_SUITES not found"]
    rows = {}
    for line in open(os.path.join(root, "tests", "README.md"), encoding="utf-8"):
        m = re.match(r"\| \[?`([a-z0-9-]+)`\]?(?:\(#[a-z0-9-]+\))? \|.*\| *(\S*) *\|$", line.rstrip())
        if m:
            rows[m.group(1)] = m.group(2)
    out = []
    for suite in sorted(first | second | check):
        if suite not in rows:
            out.append(f"tests/README.md: the suite table has no row for {suite}")
            continue
        want = "✓" if suite in check else "2" if suite in second else ""
        if rows[suite] != want:
            out.append(f"tests/README.md: {suite} is marked '{rows[suite]}', tests/tests.mk says '{want}'")
    return out


def main():
    root, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cc = os.environ.get("CC", "cc")
    files = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    files += [os.path.join(d, "README.md") for d in ("examples", "python", "templates", "tests")
              if os.path.exists(os.path.join(root, d, "README.md"))]
    found, failures = [], []
    for rel in files:
        got, errors = snippets(os.path.join(root, rel), rel)
        found += got
        failures += errors + broken_links(root, rel)
    failures += suite_table(root)
    kinds = {k: sum(1 for s in found if s.kind == k) for k in ("sh", "transcript", "c")}
    if min(kinds.values()) < 2:
        failures.append(f"only {kinds} marked snippets in README.md and docs/; the marks are gone?")
    passed = 0
    for s in found:
        if s.kind == "file":
            why = same_file(s, root)
        else:
            why = compile_c(s, root, build, cc) if s.kind == "c" else run_shell(s, root, build)
        if why:
            failures.append(why)
        else:
            passed += 1
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    files_shown = sum(1 for s in found if s.kind == "file")
    print(f"readme: {kinds['sh']} shell blocks, {kinds['transcript']} transcripts, "
          f"{kinds['c']} C blocks, {files_shown} files shown in {len(files)} files")
    print(f"readme: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
