#!/usr/bin/env python3
"""check_export.py FEATC OUT SPEC...: featc export --tfmd, checked by
protobuf's own text parser and by a round trip.

tests/tfmd/schema.proto (TFMD's messages and field numbers) is compiled by
protoc into OUT; then for each message of each SPEC:
- `featc export --tfmd --message M SPEC` either writes a schema that
  python3-protobuf's text_format parses as a tensorflow.metadata.v0.Schema
  (an unknown field, a wrong type or a malformed text fails), or refuses
  with one of the errors export documents (a default of several values, a
  RaggedFeature partition or per-frame RaggedFeature TFMD cannot say);
- `featc import --tfmd` of that schema gives back a spec whose feature
  descriptions (`featc export --tf`, read through a stand-in tf module) are
  those of the original, feature for feature, but for the features export
  warned about, and a feature list's frames (TFXIO reads a list as a
  RaggedFeature: featc imports it as VarLen frames, so only its key and
  type are compared).
The schemas of tests/tfmd that say nothing TFMD lacks (all but unknown.pbtxt
and the err- ones) are parsed by text_format too: they are TFMD's text.
Prints "tfmd-export: N passed, M failed"."""
import glob
import os
import re
import subprocess
import sys
import types

from protos import check, compile_protos, finish

featc, out, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
compile_protos(out, ("path.proto", "schema.proto"))
import schema_pb2  # noqa: E402
from google.protobuf import text_format  # noqa: E402



class Rec:
    def __init__(self, name, *args, **kw):
        self.name, self.args, self.kw = name, args, kw

    def key(self):
        def k(v):
            if isinstance(v, Rec):
                return v.key()
            if isinstance(v, (list, tuple)):
                return tuple(k(x) for x in v)
            if isinstance(v, float):
                return ("float", repr(v))
            return v
        return (self.name, k(self.args), tuple(sorted((n, k(v)) for n, v in self.kw.items())))


def maker(name):
    return lambda *a, **k: Rec(name, *a, **k)


tf = types.ModuleType("tensorflow")
tf.int64, tf.float32, tf.string, tf.int32 = "int64", "float", "bytes", "int32"
tf.io = types.SimpleNamespace(
    FixedLenFeature=maker("FixedLenFeature"), VarLenFeature=maker("VarLenFeature"),
    FixedLenSequenceFeature=maker("FixedLenSequenceFeature"),
    SparseFeature=maker("SparseFeature"), RaggedFeature=maker("RaggedFeature"))
for part in ("RowSplits", "RowLengths", "RowStarts", "RowLimits", "ValueRowIds",
             "UniformRowLength"):
    setattr(tf.io.RaggedFeature, part, maker(part))
tf.feature_column = types.SimpleNamespace(
    categorical_column_with_hash_bucket=maker("hash_bucket"), indicator_column=maker("indicator"),
    sequence_categorical_column_with_hash_bucket=maker("sequence_hash_bucket"))
sys.modules["tensorflow"] = tf


def descriptions(spec):
    """The dicts of `featc export --tf SPEC`."""
    r = subprocess.run([featc, "export", "--tf", spec], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    ns = {}
    exec(compile(r.stdout, spec, "exec"), ns)
    return {k: v for k, v in ns.items() if isinstance(v, dict) and k.isupper()}


def dtype(rec):
    """A feature description's dtype, wherever its class takes it."""
    if "dtype" in rec.kw:
        return rec.kw["dtype"]
    return rec.args[1] if rec.name in ("FixedLenFeature", "FixedLenSequenceFeature") else rec.args[0]


def canon(schema, warned):
    """The schema with its repeated messages sorted (a proto compares them in
    order), without the features export warned about."""
    c = schema_pb2.Schema()
    c.CopyFrom(schema)
    kept = [f for f in c.feature if f.name not in warned]
    del c.feature[:]
    c.feature.extend(kept)
    for field in ("feature", "sparse_feature"):
        items = sorted(getattr(c, field), key=lambda m: m.SerializeToString(deterministic=True))
        del getattr(c, field)[:]
        getattr(c, field).extend(items)
    for f in c.feature:
        if f.HasField("struct_domain"):
            # a list of frames of k values is [k, k], which featc imports
            # as VarLen frames (TFXIO reads both as a RaggedFeature): [0, k]
            for g in f.struct_domain.feature:
                g.value_count.ClearField("min")
            items = sorted(f.struct_domain.feature, key=lambda m: m.SerializeToString(deterministic=True))
            del f.struct_domain.feature[:]
            f.struct_domain.feature.extend(items)
    return c.SerializeToString(deterministic=True)


REFUSALS = ("default_value is one value", "partitions are row_length and uniform_row_length",
            "RaggedFeature per frame has no TFMD schema")


def one(spec, message, tag):
    r = subprocess.run([featc, "export", "--tfmd", "--message", message, spec],
                       capture_output=True, text=True)
    if r.returncode != 0:
        check(r.returncode == 1 and any(x in r.stderr for x in REFUSALS) and r.stdout == "",
              "%s: export --tfmd exited %d: %s" % (tag, r.returncode, r.stderr.strip()[:300]))
        return
    try:
        parsed = text_format.Parse(r.stdout, schema_pb2.Schema())
        check(True, "")
    except text_format.ParseError as e:
        check(False, "%s: protobuf's text parser refuses the export: %s" % (tag, e))
        return
    # a SparseFeature's dense shape said twice (TFXIO takes dense_shape, and
    # without it the index features' int_domain): both the same
    by_name = {f.name: f for f in parsed.feature}
    for sf in parsed.sparse_feature:
        names = [ix.name for ix in sf.index_feature]
        sizes = [d.size for d in sf.dense_shape.dim]
        # (a key indexing several dimensions: its int_domain covers the largest)
        dims = [max(z for n, z in zip(names, sizes) if n == name) for name in names]
        doms = [by_name[name].int_domain.max + 1 if name in by_name else None for name in names]
        check(dims == doms, "%s: sparse_feature %s: dense_shape %r, int_domains %r"
              % (tag, sf.name, dims, doms))
    warned = set(re.findall(r"warning: '([^']+)'", r.stderr))
    schema = os.path.join(out, tag + ".pbtxt")
    spec2 = os.path.join(out, tag + ".feat")
    open(schema, "w").write(r.stdout)
    imp = subprocess.run([featc, "import", "--tfmd", "--message", message, "-o", spec2, schema],
                         capture_output=True, text=True)
    if imp.returncode != 0:
        check(False, "%s: import of the export fails: %s" % (tag, imp.stderr.strip()[:300]))
        return
    # and the spec read back says what the first one said: its own export
    # is the same schema (features in any order)
    again = subprocess.run([featc, "export", "--tfmd", "--message", message, spec2],
                           capture_output=True, text=True)
    try:
        check(again.returncode == 0 and
              canon(text_format.Parse(again.stdout, schema_pb2.Schema()), warned) ==
              canon(parsed, warned),
              "%s: the imported spec's export is another schema:\n%s" % (tag, again.stdout[:1500]))
    except text_format.ParseError as e:
        check(False, "%s: the second export does not parse: %s" % (tag, e))
    a, b = descriptions(spec), descriptions(spec2)
    if a is None or b is None:
        check(False, "%s: export --tf fails" % tag)
        return
    for name, features in a.items():
        if not (name.startswith(message.upper() + "_")) or "COLUMNS" in name:
            continue
        if name not in b:
            check(False, "%s: %s is gone after the round trip" % (tag, name))
            continue
        lists = name.endswith("_SEQUENCE_FEATURES")
        for key, d in features.items():
            cname = re.sub(r"\W", "_", key) if isinstance(key, str) else key
            if key in warned or cname in warned:
                continue
            got = b[name].get(key)
            if got is None:
                # a key renamed on import (its representation's name)
                check(False, "%s: %s[%r] is gone after the round trip" % (tag, name, key))
                continue
            if lists:
                check(dtype(got) == dtype(d), "%s: list %r is %r after the round trip, was %r"
                      % (tag, key, dtype(got), dtype(d)))
            else:
                check(got.key() == d.key(), "%s: %s[%r] after the round trip: %r, was %r"
                      % (tag, name, key, got.key(), d.key()))


for spec in specs:
    text = open(spec, encoding="utf-8", errors="replace").read()
    for kind, message in re.findall(r"^\s*(example|sequence_example)\s+(\w+)", text, re.M):
        one(spec, message, os.path.basename(spec)[:-5] + "-" + message)

for schema in sorted(glob.glob(os.path.join(here, "*.pbtxt"))):
    base = os.path.basename(schema)
    if base.startswith("err-") or base == "unknown.pbtxt":
        continue
    try:
        text_format.Parse(open(schema).read(), schema_pb2.Schema())
        check(True, "")
    except text_format.ParseError as e:
        check(False, "%s is not TFMD's text: %s" % (base, e))

sys.exit(finish("tfmd-export"))
