#!/usr/bin/env python3
"""records.py OUT_DIR: the records of the embedded test (tests/embedded/check.c)
as TFRecord files built into the program, OUT_DIR/records.c.

For specs/tutorial.feat and specs/taobao.feat each: random records of the
spec's shape (defaults left out, extra features, duplicate keys, unpacked
lists, keys in any order) and damaged ones (a wrong type, too many values,
a bound exceeded, a partition that does not add up, cut short, a byte
changed), framed as TFRecord; the last frame's data CRC is wrong, so the
reader's error path runs too.  Deterministic (a fixed seed)."""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'oracle'))
from framing import frame, varint  # noqa: E402


def field(num, wire, body):
    if wire == 2:
        return varint(num << 3 | 2) + varint(len(body)) + body
    return varint(num << 3 | wire) + body


def feature(kind, values, rng):
    """A Feature: kind 'b', 'f' or 'i'; lists sometimes unpacked."""
    if kind == 'b':
        return field(1, 2, b''.join(field(1, 2, v) for v in values))
    if kind == 'f':
        if values and rng.random() < 0.2:
            body = b''.join(field(1, 5, struct.pack('<f', v)) for v in values)
        else:
            body = field(1, 2, b''.join(struct.pack('<f', v) for v in values)) if values else b''
        return field(2, 2, body)
    if values and rng.random() < 0.2:
        body = b''.join(field(1, 0, varint(v)) for v in values)
    else:
        body = field(1, 2, b''.join(varint(v) for v in values)) if values else b''
    return field(3, 2, body)


def example(entries, rng):
    rng.shuffle(entries)
    body = b''.join(field(1, 2, field(1, 2, k.encode()) + field(2, 2, f)) for k, f in entries)
    return field(1, 2, body)


def word(rng):
    return bytes(rng.choice(b'abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(0, 12)))


def number(rng):
    return rng.choice([0.0, -0.0, 1.5, -2.25, 3.4e38, 1e-45, rng.uniform(-1e6, 1e6)])


def tutorial(rng, damage):
    spec = {'feature0': ('i', lambda: [rng.randint(0, 1)]),
            'feature1': ('i', lambda: [rng.randint(0, 4)]),
            'feature2': ('b', lambda: [word(rng)]),
            'feature3': ('f', lambda: [number(rng)])}
    entries = []
    for key, (kind, make) in spec.items():
        if rng.random() < 0.85:
            entries.append([key, kind, make()])
    return entries


def taobao(rng, damage):
    entries = [['city', 'b', [word(rng)]], ['pay', 'f', [number(rng)]]]
    if rng.random() < 0.7:
        entries.append(['use_day', 'i', [rng.randint(-5, 1 << 40)]])
    if rng.random() < 0.8:
        entries.append(['poi', 'b', [word(rng) for _ in range(rng.randint(0, 70 if damage else 64))]])
    n = rng.randint(0, 8)
    items = rng.sample(range(100000), n)
    entries.append(['item', 'i', items])
    entries.append(['rating', 'f', [number(rng) for _ in range(n)]])
    lengths = [rng.randint(0, 5) for _ in range(rng.randint(0, 6))]
    entries.append(['session_lengths', 'i', lengths])
    entries.append(['session_items', 'b', [word(rng) for _ in range(sum(lengths))]])
    return entries


def damage_entries(entries, rng):
    """One semantic fault: a wrong type, one value too many, a short list."""
    e = rng.choice(entries)
    fault = rng.randint(0, 2)
    if fault == 0:
        e[1] = {'b': 'i', 'i': 'f', 'f': 'b'}[e[1]]
        e[2] = {'b': [word(rng)], 'i': [7], 'f': [0.5]}[e[1]]
    elif fault == 1:
        e[2] = e[2] + e[2][:1] if e[2] else {'b': [b'x'], 'i': [1], 'f': [1.0]}[e[1]]
    else:
        e[2] = e[2][:-1]


def build(make, rng, n):
    records = []
    for k in range(n):
        damaged = k % 3 == 2
        entries = make(rng, damaged)
        if damaged and entries and rng.random() < 0.5:
            damage_entries(entries, rng)
        if rng.random() < 0.3:
            kind = rng.choice('bif')
            entries.append([word(rng).decode() + '_extra', kind, {'b': [b'x'], 'i': [1], 'f': [1.0]}[kind]])
        if entries and rng.random() < 0.1:
            entries.append(list(rng.choice(entries)))  # a duplicate key: the last wins
        rec = example([(k_, feature(kind, vals, rng)) for k_, kind, vals in entries], rng)
        if damaged and rng.random() < 0.5:
            rec = bytearray(rec)
            if rng.random() < 0.5 and rec:
                del rec[rng.randrange(len(rec)):]
            elif rec:
                rec[rng.randrange(len(rec))] = rng.randrange(256)
            rec = bytes(rec)
        records.append(rec)
    return b''.join(frame(r) for r in records) + frame(records[0], bad_crc=True)


def c_array(name, data):
    lines = ['const unsigned char %s[%d] = {' % (name, len(data))]
    for i in range(0, len(data), 16):
        lines.append('    ' + ', '.join('0x%02x' % b for b in data[i:i + 16]) + ',')
    lines.append('};')
    lines.append('const size_t %s_len = %d;' % (name, len(data)))
    return '\n'.join(lines) + '\n'


def main():
    rng = random.Random(20261124)
    out = ['/* Written by tests/embedded/records.py; the records of check.c. */',
           '#include <stddef.h>', '',
           'extern const unsigned char emb_tutorial_file[];', 'extern const size_t emb_tutorial_file_len;',
           'extern const unsigned char emb_taobao_file[];', 'extern const size_t emb_taobao_file_len;', '']
    out.append(c_array('emb_tutorial_file', build(tutorial, rng, 240)))
    out.append(c_array('emb_taobao_file', build(taobao, rng, 240)))
    with open(sys.argv[1] + '/records.c', 'w') as f:
        f.write('\n'.join(out))


main()
