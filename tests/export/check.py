#!/usr/bin/env python3
"""check.py EXPORT.py DESC.json: `featc export --tf` against the generated
descriptors.

EXPORT.py (featc export --tf SPEC) runs against a stand-in `tensorflow`
module that records each call (no TensorFlow is needed, nor imported); the
recorded feature descriptions are compared with DESC.json, the descriptors
of the C code featc generates for the same spec (desc.c): for every
message, the same keys in each dict, and for each feature its class,
dtype, shape, default (floats bit for bit as float32), allow_missing, the
SparseFeature's keys, size and already_sorted, the RaggedFeature's value
key, partitions and row_splits_dtype, and the hash-bucket feature columns.
Prints "export-NAME: N passed, M failed" (NAME from argv[3])."""
import json
import struct
import sys
import types


class Rec:
    """A recorded call: the constructor's name and its arguments."""

    def __init__(self, name, *args, **kw):
        self.name, self.args, self.kw = name, args, kw


def maker(name):
    return lambda *a, **k: Rec(name, *a, **k)


tf = types.ModuleType('tensorflow')
tf.int64, tf.float32, tf.string, tf.int32 = 'int64', 'float', 'bytes', 'int32'
tf.io = types.SimpleNamespace(
    FixedLenFeature=maker('FixedLenFeature'), VarLenFeature=maker('VarLenFeature'),
    FixedLenSequenceFeature=maker('FixedLenSequenceFeature'), SparseFeature=maker('SparseFeature'),
    RaggedFeature=maker('RaggedFeature'))
for part in ('RowSplits', 'RowLengths', 'RowStarts', 'RowLimits', 'ValueRowIds', 'UniformRowLength'):
    setattr(tf.io.RaggedFeature, part, maker(part))
tf.feature_column = types.SimpleNamespace(
    categorical_column_with_hash_bucket=maker('hash_bucket'), indicator_column=maker('indicator'),
    sequence_categorical_column_with_hash_bucket=maker('sequence_hash_bucket'))
sys.modules['tensorflow'] = tf

PARTS = {1: 'RowSplits', 2: 'RowLengths', 3: 'RowStarts', 4: 'RowLimits', 5: 'ValueRowIds',
         6: 'UniformRowLength'}
FIXED, VARLEN, ROWS, SPARSE, RAGGED = range(5)

export_path, desc_path, name = sys.argv[1:4]
ns = {}
exec(compile(open(export_path).read(), export_path, 'exec'), ns)
descs = [json.loads(line) for line in open(desc_path) if line.strip()]
passed, failed = 0, 0


def expect(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print('export-%s: %s' % (name, what))


def key_hex(k):
    return (k.encode('utf-8') if isinstance(k, str) else k).hex()


def f32(v):
    return struct.pack('<f', float(v)).hex()


def default_hex(f, value):
    """The exported default as desc.json writes it."""
    if value is None:
        return None
    vals = value if isinstance(value, list) else [value]
    if f['type'] == 'int64':
        return [int(v) for v in vals]
    if f['type'] == 'float':
        return [f32(v) for v in vals]
    return [v.hex() for v in vals]


def check_feature(msg, f, r, lists):
    where = '%s: feature %s' % (msg, bytes.fromhex(f['key']))
    kw = r.kw
    if lists and f['kind'] != RAGGED:
        if f['kind'] == FIXED:
            expect(r.name == 'FixedLenSequenceFeature' and r.args[1] == f['type'] and
                   list(r.args[0]) == f['dims'] and kw.get('allow_missing') == bool(f['allow_missing']),
                   '%s: %s%s %s, not a FixedLenSequenceFeature(%s, %s, allow_missing=%d)' %
                   (where, r.name, r.args, kw, f['dims'], f['type'], f['allow_missing']))
        else:
            expect(r.name == 'VarLenFeature' and r.args[0] == f['type'], '%s: %s%s' % (where, r.name, r.args))
        return
    if f['kind'] == FIXED:
        expect(r.name == 'FixedLenFeature' and list(r.args[0]) == f['dims'] and r.args[1] == f['type'],
               '%s: %s%s, not FixedLenFeature(%s, %s)' % (where, r.name, r.args, f['dims'], f['type']))
        expect(default_hex(f, kw.get('default_value')) == f['default'],
               '%s: default %r, the descriptor has %r' % (where, kw.get('default_value'), f['default']))
    elif f['kind'] == ROWS:
        expect(r.name == 'FixedLenSequenceFeature' and list(r.args[0]) == f['dims'] and
               r.args[1] == f['type'] and kw.get('allow_missing') is True,
               '%s: %s%s %s' % (where, r.name, r.args, kw))
        expect(default_hex(f, kw.get('default_value')) == f['default'],
               '%s: padding %r, the descriptor has %r' % (where, kw.get('default_value'), f['default']))
    elif f['kind'] == VARLEN:
        expect(r.name == 'VarLenFeature' and r.args == (f['type'],), '%s: %s%s' % (where, r.name, r.args))
    elif f['kind'] == SPARSE:
        expect(r.name == 'SparseFeature' and [key_hex(k) for k in kw['index_key']] == f['index'] and
               key_hex(kw['value_key']) == f['value'] and kw['dtype'] == f['type'] and
               list(kw['size']) == f['dims'] and kw['already_sorted'] == bool(f['sorted']),
               '%s: %s %s' % (where, r.name, kw))
    else:
        parts = [[k for k, v in PARTS.items() if v == p.name][0] for p in kw['partitions']]
        args = [p.args[0] if p.name == 'UniformRowLength' else key_hex(p.args[0]) for p in kw['partitions']]
        expect(r.name == 'RaggedFeature' and r.args == (f['type'],) and key_hex(kw['value_key']) == f['value'] and
               [[k, a] for k, a in zip(parts, args)] == f['parts'] and
               kw['row_splits_dtype'] == ('int64' if f['split64'] else 'int32'),
               '%s: %s%s %s, the descriptor has %s' % (where, r.name, r.args, kw, f))


def check_dict(msg, got, want, lists):
    shown = [f for f in want if not f.get('hidden')]
    expect(got is not None, '%s: no dict' % msg)
    if got is None:
        return
    expect([key_hex(k) for k in got] == [f['key'] for f in shown],
           '%s: keys %s, the descriptor has %s' % (msg, [key_hex(k) for k in got], [f['key'] for f in shown]))
    by_key = {key_hex(k): v for k, v in got.items()}
    for f in shown:
        if f['key'] in by_key:
            check_feature(msg, f, by_key[f['key']], lists)


def check_columns(msg, got, want, lists=False):
    hashed = [f for f in want if f.get('hash')]
    if not hashed:
        expect(got is None, '%s: feature columns without hash buckets' % msg)
        return
    expect(got is not None and [key_hex(k) for k in got] == [f['key'] for f in hashed],
           '%s: feature columns %s' % (msg, got and list(got)))
    for f in hashed:
        c = (got or {}).get(bytes.fromhex(f['key']).decode('utf-8', 'surrogateescape'))
        if c is None:
            continue
        inner = c.args[0] if c.name == 'indicator' else c
        expect((c.name == 'indicator') == bool(f.get('hot')) and
               inner.name == ('sequence_hash_bucket' if lists else 'hash_bucket') and
               key_hex(inner.args[0]) == f['key'] and inner.args[1] == f['hash'] and
               inner.kw['dtype'] == f['type'], '%s: column %s' % (msg, f['key']))


for d in descs:
    upper = d['name'].upper()
    if d['sequence']:
        check_dict(d['name'], ns.get(upper + '_CONTEXT_FEATURES'), d['features'], False)
        check_dict(d['name'], ns.get(upper + '_SEQUENCE_FEATURES'), d['lists'], True)
    else:
        check_dict(d['name'], ns.get(upper + '_FEATURES'), d['features'], False)
    check_columns(d['name'], ns.get(upper + '_FEATURE_COLUMNS'), d['features'])
    if d['sequence']:
        check_columns(d['name'], ns.get(upper + '_SEQUENCE_FEATURE_COLUMNS'), d['lists'], True)
expect(len(descs) > 0, 'no message in the descriptors')
print('export-%s: %d passed, %d failed' % (name, passed, failed))
sys.exit(1 if failed else 0)
