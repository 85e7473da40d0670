#!/usr/bin/env python3
"""check_validate.py FEATC OUT: featc validate against files with planted
anomalies.

Writes TFRecord files of tf.train.Examples (python3-protobuf over
tests/bench/tf_example.proto, framed with their masked CRC-32C here) for
tests/tfmd/validate.pbtxt: 40 good records, then each anomaly kind planted
in a known number of records, one kind per file; `featc validate` must
report exactly that kind, for exactly that feature and number of records,
with the first planted record, and exit 1; the good records alone give
"no anomalies" and exit 0.  The same through the spec featc import writes
for the schema (--schema NAME.feat), for the kinds a spec can say.
Prints "tfmd-validate: N passed, M failed"."""
import os
import re
import subprocess
import sys

from protos import check, compile_protos, finish
from framing import frame  # noqa: E402 (tests/oracle, on protos' path)

featc, out = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.join(here, "..", "bench")
compile_protos(out, ("tf_example.proto",), include=bench)
import tf_example_pb2 as tf  # noqa: E402


def example(**features):
    ex = tf.Example()
    for key, value in features.items():
        f = ex.features.feature[key]
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            f.bytes_list.value.extend(value)
        elif isinstance(value, list) and value and isinstance(value[0], float):
            f.float_list.value.extend(value)
        elif isinstance(value, list):
            f.int64_list.value.extend(value)
    return ex.SerializeToString()


def good(i):
    return dict(a=[i % 11], b=[0.5], c=[b"x" if i % 2 else b"y"], d=[i], e=[1.0, 2.0],
                g=[b"red"])


def write(name, records):
    path = os.path.join(out, name + ".tfrecord")
    with open(path, "wb") as f:
        for r in records:
            f.write(frame(example(**r)))
    return path


def plant(change, at=(3, 17, 29)):
    recs = [good(i) for i in range(40)]
    for i in at:
        change(recs[i])
    return recs


def without(key):
    return lambda r: r.pop(key)


def setter(key, value):
    return lambda r: r.__setitem__(key, value)


# kind, feature, the change, records changed (first, count), spec can say it
CASES = [
    # (the spec imported has a as VarLen, which says nothing of presence)
    ("FEATURE_TYPE_LOW_FRACTION_PRESENT", "a", without("a"), False),
    # (e, of a fixed shape, is required in the spec too)
    ("FEATURE_TYPE_LOW_FRACTION_PRESENT", "e", without("e"), True),
    ("FEATURE_TYPE_HIGH_NUMBER_VALUES", "a", setter("a", [1, 2]), True),
    ("INT_TYPE_BIG_INT", "a", setter("a", [42]), False),
    ("INT_TYPE_SMALL_INT", "a", setter("a", [-3]), False),
    ("UNEXPECTED_DATA_TYPE", "a", setter("a", [1.5]), True),
    ("FLOAT_TYPE_BIG_FLOAT", "b", setter("b", [2.5]), False),
    ("FLOAT_TYPE_SMALL_FLOAT", "b", setter("b", [-0.5]), False),
    ("FLOAT_TYPE_HAS_NAN", "b", setter("b", [float("nan")]), False),
    ("ENUM_TYPE_UNEXPECTED_STRING_VALUES", "c", setter("c", [b"z"]), False),
    ("ENUM_TYPE_UNEXPECTED_STRING_VALUES", "g", setter("g", [b"blue"]), False),
    ("FEATURE_TYPE_LOW_NUMBER_VALUES", "e", setter("e", [1.0]), True),
    ("SCHEMA_NEW_COLUMN", "zz", setter("zz", [7]), True),
]
LINE = re.compile(r"^(\S+): (\w+): (\d+) records?(?:: (.*?))?(?:; first: (\S+) record (\d+))?$")


def validate(schema, path, extra=()):
    r = subprocess.run([featc, "validate", "--schema", schema, path] + list(extra),
                       capture_output=True, text=True)
    found = [LINE.match(line) for line in r.stdout.splitlines()]
    return r, [m.groups() for m in found if m]


schema = os.path.join(here, "validate.pbtxt")
spec = os.path.join(out, "validate.feat")
subprocess.run([featc, "import", "--tfmd", "--max-values", "8", "-o", spec, schema],
               check=True, capture_output=True)
clean = write("clean", [good(i) for i in range(40)])
for s in (schema, spec):
    r, got = validate(s, clean)
    check(r.returncode == 0 and got == [] and r.stdout.startswith("no anomalies: 40 Examples"),
          "%s: the good records: exit %d, %r" % (s, r.returncode, r.stdout))
# presence by count: d in 2 records of 40 (min_count 30)
recs = [good(i) for i in range(40)]
for i, rec in enumerate(recs):
    if i not in (5, 6):
        rec.pop("d")
r, got = validate(schema, write("few-d", recs))
check(r.returncode == 1 and [g[:3] for g in got] == [("d", "FEATURE_TYPE_LOW_NUMBER_PRESENT", "38")],
      "min_count: %r" % got)
for n, (kind, feature, change, spec_too) in enumerate(CASES):
    path = write("case%d" % n, plant(change))
    for s in (schema, spec) if spec_too else (schema,):
        r, got = validate(s, path)
        want = [(feature, kind, "3")]
        first = [g[4:] for g in got]
        ok = r.returncode == 1 and [g[:3] for g in got] == want
        if kind != "FEATURE_TYPE_LOW_FRACTION_PRESENT":
            ok = ok and first == [(path, "3")]
        check(ok, "%s planted in %s (schema %s): exit %d, found %r" %
              (kind, feature, os.path.basename(s), r.returncode, got))
sys.exit(finish("tfmd-validate"))
