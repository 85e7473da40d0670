#!/usr/bin/env python3
"""footprint.py ARCH ELF MAP CI_DIR ROOT [BOUNDS]: one row of `make footprint`.

Sizes: every input section the linker kept (MAP, GNU ld's -Map), summed by
kind (text, rodata, data, bss) and by owner: featc (the runtime's objects
and the generated code), libc (newlib's mem*, or the host's stand-ins),
libgcc, and the harness (the entry point and the caller's objects, which
are the user's and not counted).

Stack: the deepest chain of calls below ROOT (the harness function that
calls featc; its own frame, which holds the caller's fc_error and message
struct, is the user's and not counted), from gcc's -fstack-usage figures
in the -fcallgraph-info=su files of CI_DIR.  An indirect call may reach
any function whose address the linked program takes (a relocation other
than a call or branch names it: the ELF is linked with --emit-relocs), but
for the calls whose pointer type admits only some (INDIRECT below).  A
function without a figure (newlib's, libgcc's) is measured from its
prologue (pushes and stack adjustment).  Recursion, or a frame of dynamic
size, is an error: then no bound exists; but for BOUNDS, "NAME:N,...":
recursion the messages of the job bound, where NAME may appear up to N
times on a chain (nanopb's pb_decode_inner recurses once per nested
message).

Prints: text rodata data bss featc_rom libs_rom total_rom stack, tab-separated."""
import glob
import os
import re
import subprocess
import sys

arch, elf, mapfile, ci_dir, root = sys.argv[1:6]
tool = 'arm-none-eabi-' if arch == 'arm' else ''


bounds = {}
if len(sys.argv) > 6 and sys.argv[6]:
    for item in sys.argv[6].split(','):
        name, n = item.split(':')
        bounds[name] = int(n)


def owner(path):
    base = os.path.basename(path)
    if 'libgcc' in path:
        return 'libgcc'
    if 'libmem' in path or 'libc' in base or base.startswith('mem.o'):
        return 'libc'
    if base.startswith('fp_') or base.startswith('entry'):
        return 'harness'
    return 'featc'


def kind(section):
    for k in ('text', 'rodata', 'data', 'bss'):
        if section == '.' + k or section.startswith('.' + k + '.'):
            return k
    if section == 'COMMON':
        return 'bss'
    return None


sizes = {}
with open(mapfile) as f:
    lines = f.read().split('\n')
start = next(i for i, l in enumerate(lines) if l.startswith('Linker script and memory map'))
pending = None
for line in lines[start:]:
    m = re.match(r'^ (\.\S+|COMMON)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)', line)
    if m:
        sec, size, path = m.group(1), int(m.group(2), 16), m.group(3)
    elif pending is not None:
        m = re.match(r'^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)', line)
        sec, pending = pending, None
        if not m:
            continue
        size, path = int(m.group(1), 16), m.group(2)
    else:
        m = re.match(r'^ (\.\S+|COMMON)\s*$', line)
        if m:
            pending = m.group(1)
        continue
    k = kind(sec)
    if k is None or size == 0:
        continue
    key = (owner(path), k)
    sizes[key] = sizes.get(key, 0) + size

# ---------------------------------------------------------------- stack
nodes, edges = {}, {}
for ci in glob.glob(os.path.join(ci_dir, '*.ci')):
    text = open(ci).read()
    for m in re.finditer(r'node: \{ title: "([^"]+)" label: "([^"]*)"', text):
        title, label = m.group(1), m.group(2)
        fm = re.search(r'\\n(\d+) bytes \(([\w,]+)\)', label)
        if fm:
            # static, or dynamic,bounded (pushes gcc counted): a bound either way
            qual = 'static' if fm.group(2) in ('static', 'dynamic,bounded') else fm.group(2)
            nodes[title] = (int(fm.group(1)), qual)
        else:
            nodes.setdefault(title, None)
    for m in re.finditer(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', text):
        edges.setdefault(m.group(1), set()).add(m.group(2))


def plain(title):
    return title.rsplit(':', 1)[-1]


def base(name):
    return name.split('.', 1)[0]


# functions in the image, and those whose address it takes
syms = subprocess.run([tool + 'nm', elf], capture_output=True, text=True, check=True).stdout
in_image = {base(l.split()[-1]) for l in syms.splitlines() if len(l.split()) == 3 and l.split()[1] in 'tTwW'}
relocs = subprocess.run([tool + 'readelf', '-rW', elf], capture_output=True, text=True, check=True).stdout
calls = {'R_ARM_THM_CALL', 'R_ARM_THM_JUMP24', 'R_ARM_THM_JUMP19', 'R_ARM_THM_JUMP11',
         'R_ARM_THM_JUMP8', 'R_ARM_CALL', 'R_ARM_JUMP24', 'R_ARM_PC24', 'R_X86_64_PLT32'}
taken = set()
for line in relocs.splitlines():
    parts = line.split()
    if len(parts) >= 5 and parts[2].startswith('R_') and parts[2] not in calls:
        name = parts[4]
        if name.startswith('.text.'):
            name = name[len('.text.'):]
        if base(name) in in_image:
            taken.add(base(name))

# prologues of functions without a figure
disasm = subprocess.run([tool + 'objdump', '-d', '--no-show-raw-insn', elf], capture_output=True,
                        text=True, check=True).stdout
prologue = {}
for m in re.finditer(r'^[0-9a-f]+ <([^>]+)>:\n((?:.*\n){0,8})', disasm, re.M):
    need = 8 if arch == 'x86_64' else 0  # the return address x86's call pushes
    for ins in m.group(2).splitlines():
        p = re.search(r'\b(push|stmdb\s+sp!,|vpush)\s*\{([^}]*)\}', ins)
        if p:
            regs = 0
            for r in p.group(2).split(','):
                r = r.strip()
                rng = re.match(r'([a-z]+)(\d+)-[a-z]+(\d+)', r)
                regs += int(rng.group(3)) - int(rng.group(2)) + 1 if rng else 1
            need += regs * (8 if p.group(1) == 'vpush' and 'd' in p.group(2) else 4)
        p = re.search(r'\bsub\s+sp,\s*(?:sp,\s*)?#(\d+)', ins)
        if p:
            need += int(p.group(1))
        p = re.search(r'\bpush\s+%r', ins)
        if p:
            need += 8
        p = re.search(r'\bsub\s+\$0x([0-9a-f]+),%rsp', ins)
        if p:
            need += int(p.group(1), 16)
    prologue[m.group(1)] = need

by_plain = {}
for t in nodes:
    by_plain.setdefault(base(plain(t)), []).append(t)


def frame(title):
    info = nodes.get(title)
    if info is not None:
        if info[1] != 'static':
            sys.exit('footprint: %s has a frame of %s size: no stack bound' % (plain(title), info[1]))
        return info[0]
    return prologue.get(plain(title), 0)


# The runtime's indirect calls whose pointer type admits fewer targets than
# every address taken: fc_ex_scan and fc_ex_scan_batched call only their
# fc_ex_lookup_fn argument, which generated code fills with its NAME_lookup.
# nanopb's pb_read and pb_readbyte call only the stream's read callback,
# which a stream over a buffer sets to buf_read; its decoding functions call
# only the descriptors' field callbacks (the generator's descriptors name
# pb_default_field_callback, and extensions' decoders, for extensions no
# message here has); pb_default_field_callback calls the fields' decode
# callbacks: the decoder's own (nanopb_tutorial.c, nt_*).
_pb_field = re.compile(r'^(pb_default_field_callback|default_extension_decoder)$')
INDIRECT = {'fc_ex_scan': re.compile(r'_lookup$'), 'fc_ex_scan_batched': re.compile(r'_lookup$'),
            'fc_ex_report': re.compile(r'_decode_field$'),
            'pb_read': re.compile(r'^buf_read$'), 'pb_readbyte': re.compile(r'^buf_read$'),
            'decode_field': _pb_field, 'decode_basic_field': _pb_field, 'pb_decode_inner': _pb_field,
            'pb_default_field_callback': re.compile(r'^nt_')}


def targets(title):
    for t in edges.get(title, ()):
        if t == '__indirect_call':
            only = INDIRECT.get(base(plain(title)))
            for name in sorted(taken):
                if only is not None and not only.search(name):
                    continue
                for cand in by_plain.get(name, [name]):
                    yield cand
        else:
            yield t


memo = {}
bounded = sorted(bounds)


def deepest(title, path, counts):
    """The deepest chain from title; counts: how often each bounded
    function is on the path above."""
    name = base(plain(title))
    if name in bounds:
        i = bounded.index(name)
        counts = counts[:i] + (counts[i] + 1,) + counts[i + 1:]
    elif title in path and not any(base(plain(p)) in bounds for p in path[path.index(title):]):
        # a cycle that passes through no bounded function
        sys.exit('footprint: recursion through %s: no stack bound' % ' -> '.join(plain(p) for p in path))
    key = (title, counts)
    if key in memo:
        return memo[key]
    best, chain = 0, []
    for t in targets(title):
        tn = base(plain(t))
        if tn not in in_image:
            continue
        if tn in bounds and counts[bounded.index(tn)] >= bounds[tn]:
            continue
        d, c = deepest(t, path + [title], counts)
        if d > best:
            best, chain = d, c
    memo[key] = (frame(title) + best, [plain(title)] + chain)
    return memo[key]


roots = [t for t in nodes if plain(t) == root]
if not roots:
    sys.exit('footprint: no call graph for %s' % root)
below, chain = 0, []
for t in targets(roots[0]):
    if base(plain(t)) in in_image:
        d, c = deepest(t, [roots[0]], (0,) * len(bounded))
        if d > below:
            below, chain = d, c

get = lambda o, k: sizes.get((o, k), 0)
featc_rom = get('featc', 'text') + get('featc', 'rodata') + get('featc', 'data')
libs_rom = sum(get(o, k) for o in ('libc', 'libgcc') for k in ('text', 'rodata', 'data'))
print('\t'.join(str(v) for v in (get('featc', 'text'), get('featc', 'rodata'), get('featc', 'data'),
                                  get('featc', 'bss'), featc_rom, libs_rom, featc_rom + libs_rom,
                                  below)) + '\t' + ' > '.join(chain))
