#!/usr/bin/python3
"""Prints the expected bytes of tests/unit/test_serialize.c: the messages its
cases build, serialized by Python's protobuf with deterministic=True (the
same descriptors as tests/oracle/canonical.py).  Run it again after
changing a case:  /usr/bin/python3 tests/unit/serialize_vectors.py"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "oracle"))
from canonical import build_classes  # noqa: E402

C = build_classes()
NAN_PAYLOAD = struct.unpack("<f", bytes.fromhex("0100c07f"))[0]  # 0x7fc00001


def example(features):
    ex = C["example"]()
    ex.features.SetInParent()
    for key, (kind, values) in features.items():
        f = ex.features.feature[key]
        getattr(f, kind).SetInParent()
        getattr(f, kind).value.extend(values)
    return ex


def sequence(context, lists):
    se = C["sequence"]()
    se.context.SetInParent()
    se.feature_lists.SetInParent()
    for key, (kind, values) in context.items():
        f = se.context.feature[key]
        getattr(f, kind).SetInParent()
        getattr(f, kind).value.extend(values)
    for key, (kind, frames) in lists.items():
        fl = se.feature_lists.feature_list[key]
        fl.SetInParent()
        for values in frames:
            f = fl.feature.add()
            getattr(f, kind).SetInParent()
            getattr(f, kind).value.extend(values)
    return se


CASES = [
    ("required_only", example({"s": ("int64_list", [5]), "f3": ("float_list", [1, 2, 3])})),
    ("write_defaults", example({
        "s": ("int64_list", [5]), "f3": ("float_list", [1, 2, 3]), "d": ("int64_list", [7]),
        "b2": ("bytes_list", [b"x", b"y"]), "a/b": ("float_list", [0.5])})),
    ("presence", example({
        "s": ("int64_list", [-1]), "f3": ("float_list", [float("inf"), -0.0, NAN_PAYLOAD]),
        "d": ("int64_list", [7]), "v": ("int64_list", []),
        "vb": ("bytes_list", [b"", b"", b"\x00\xff"]),
        "r": ("float_list", [1.5, -2.5]), "a/b": ("float_list", [0.25])})),
    ("sequence", sequence({"c": ("int64_list", [-(1 << 63)])}, {
        "fr": ("int64_list", [[3], [4]]), "vu": ("int64_list", [[1, 2], [3, 4]]),
        "v": ("bytes_list", [[]]), "fm": ("float_list", [])})),
    ("sequence_empty", sequence({}, {"x": ("int64_list", [])})),
]

for name, msg in CASES:
    data = msg.SerializeToString(deterministic=True)
    rows = [", ".join("0x%02x" % b for b in data[i:i + 12]) for i in range(0, len(data), 12)]
    print("static const unsigned char want_%s[%d] = {\n    %s};" % (
        name, len(data), ",\n    ".join(rows)))
