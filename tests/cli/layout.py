#!/usr/bin/env python3
"""The product's layout, as docs/design.md states it: cli/main.c over
cli/commands/ over cli/base/, and in every folder a stack of files.

Checks, from the sources and the objects `make` built:
  - no file of cli/base/ includes a header of cli/commands/ (a helper
    includes no command), and nothing below main.c includes main.c's;
  - no circle among the files of cli/: with A -> B when A's object uses a
    function or variable B's object defines (nm), the graph has no cycle
    (stats.c and its HTML writer once called each other);
  - no base/ object uses a symbol a commands/ object defines;
  - no circle among the files of any folder of the product: compiler/,
    runtime/core/, runtime/hosted/, runtime/fallback/ (objects of `make
    all`), python/ext/ (objects of `make python`: with --python, which the
    host's test-cli gives; the cross lanes build no Python layer), and the
    modules of python/featc/ by their imports (a late import included);
  - a private header named after a file X.c declares only X.c's functions
    (validate.h once declared validate_drift.c's), unless it opens as a
    folder's shared header: "/* What ... share".

usage: layout.py ROOT BUILD [--python]
"""
import os
import re
import subprocess
import sys
from tally import check, finish  # noqa: E402

root, build = sys.argv[1], sys.argv[2]
with_python = "--python" in sys.argv[3:]
cli = os.path.join(root, "cli")


def files(ext):
    out = []
    for d, _, names in os.walk(cli):
        out += [os.path.relpath(os.path.join(d, n), cli) for n in names if n.endswith(ext)]
    return sorted(out)


def layer(rel):
    return "main" if "/" not in rel else rel.split("/")[0]


# ---- includes: resolve each quoted include as the compiler would (the
# including file's folder, then cli/), and check its layer
sources = files(".c") + files(".h")
check(len(sources) > 10, "cli/ has %d sources" % len(sources))
rank = {"base": 0, "commands": 1, "main": 2}
for rel in sources:
    text = open(os.path.join(cli, rel), encoding="utf-8").read()
    for inc in re.findall(r'^#\s*include\s+"([^"]+)"', text, re.M):
        here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
        target = here if os.path.exists(os.path.join(cli, here)) else os.path.normpath(inc)
        if not os.path.exists(os.path.join(cli, target)):
            check(False, "%s includes \"%s\", which is not in cli/" % (rel, inc))
            continue
        check(rank[layer(target)] <= rank[layer(rel)],
              "%s (%s) includes %s (%s), a layer above it" % (rel, layer(rel), target, layer(target)))

# ---- objects: who uses whom
objs = {}
for rel in files(".c"):
    o = os.path.join(build, "obj", "cli", rel[:-2] + ".o")
    check(os.path.exists(o), "no object %s (make all builds it)" % o)
    if os.path.exists(o):
        objs[rel] = o
defined, used = {}, {}
for rel, o in objs.items():
    out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
    used[rel] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used[rel].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined[parts[2]] = rel
edges = {rel: sorted({defined[s] for s in used[rel] if s in defined and defined[s] != rel})
         for rel in objs}
for rel, outs in edges.items():
    for t in outs:
        check(rank[layer(t)] <= rank[layer(rel)],
              "%s (%s) calls into %s (%s), a layer above it" % (rel, layer(rel), t, layer(t)))

# cycles, by depth-first search (each one reported once, from its least file)
def circles(edges):
    state, stack, cycles = {}, [], []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in edges[n]:
            if state.get(m) == 1:
                cyc = stack[stack.index(m):]
                cycles.append(cyc[cyc.index(min(cyc)):] + cyc[:cyc.index(min(cyc))])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)
    return "; ".join(" -> ".join(c + [c[0]]) for c in cycles)


cycles = circles(edges)
check(not cycles, "circles among cli/'s files: " + cycles)
check(sum(len(v) for v in edges.values()) > 10, "the use graph has too few edges to mean anything")


# ---- every other folder of the product: its files' objects, who uses whom
def object_graph(folder, objdir):
    srcs = sorted(n for n in os.listdir(os.path.join(root, folder)) if n.endswith(".c"))
    objs = {}
    for n in srcs:
        o = os.path.join(build, objdir, folder, n[:-2] + ".o")
        check(os.path.exists(o), "no object %s (make builds it)" % o)
        if os.path.exists(o):
            objs[n] = o
    defs, uses = {}, {}
    for n, o in objs.items():
        uses[n] = set()
        for line in subprocess.run(["nm", o], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                uses[n].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBR":
                defs[parts[2]] = n
    return {n: sorted({defs[x] for x in uses[n] if x in defs and defs[x] != n}) for n in objs}


def import_graph(folder, package):
    """Module -> the package's modules it imports, anywhere in its text."""
    import ast
    mods = sorted(n[:-3] for n in os.listdir(os.path.join(root, folder)) if n.endswith(".py"))
    out = {}
    for m in mods:
        tree = ast.parse(open(os.path.join(root, folder, m + ".py"), encoding="utf-8").read())
        got = set()
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [node.module + "." + a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                if parts[0] == package and len(parts) > 1 and parts[1] in mods and parts[1] != m:
                    got.add(parts[1])
        out[m] = sorted(got)
    return out


folders = [("compiler", "obj"), ("runtime/core", "obj"), ("runtime/hosted", "obj"),
           ("runtime/fallback", "obj")]
if with_python:
    folders.append(("python/ext", "pic"))
for folder, objdir in folders:
    g = object_graph(folder, objdir)
    check(sum(len(v) for v in g.values()) > 0 or len(g) < 3, "%s: no use among its files found" % folder)
    cyc = circles(g)
    check(not cyc, "circles among %s's files: %s" % (folder, cyc))
g = import_graph("python/featc", "featc")
check(len(g) > 3 and sum(len(v) for v in g.values()) > 3, "python/featc: too few modules or imports")
cyc = circles(g)
check(not cyc, "circles among python/featc's modules: %s" % cyc)


# ---- headers named after what they declare
all_defs = {}
for folder, objdir in folders + [("cli", "obj"), ("cli/base", "obj"), ("cli/commands", "obj"),
                                 ("cli/commands/stats", "obj")]:
    for n in os.listdir(os.path.join(root, folder)):
        o = os.path.join(build, objdir, folder, n[:-2] + ".o")
        if n.endswith(".c") and os.path.exists(o):
            for line in subprocess.run(["nm", o], capture_output=True, text=True,
                                       check=True).stdout.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDBR":
                    all_defs[parts[2]] = os.path.join(folder, n)
named = 0
for folder, _ in folders + [("cli/base", 0), ("cli/commands", 0), ("cli/commands/stats", 0)]:
    for n in sorted(os.listdir(os.path.join(root, folder))):
        own = os.path.join(folder, n[:-2] + ".c")
        if not n.endswith(".h") or not os.path.exists(os.path.join(root, own)):
            continue
        text = open(os.path.join(root, folder, n), encoding="utf-8").read()
        first = text.lstrip().split("*/")[0]
        if first.startswith("/* What ") and re.search(r"\bshare\b", first):
            continue
        body = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        others = sorted({"%s (%s)" % (f, all_defs[f]) for f in re.findall(r"\b(\w+)\s*\(", body)
                         if f in all_defs and all_defs[f] != own})
        named += 1
        check(not others, "%s/%s, named after %s, declares other files' functions: %s"
              % (folder, n, own, ", ".join(others[:5])))
check(named > 8, "only %d headers named after a file were found" % named)

sys.exit(finish("layout"))
