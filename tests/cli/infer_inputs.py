#!/usr/bin/python3
"""Writes the TFRecord inputs of the `featc infer` CLI tests into DIR, with
Python's protobuf (descriptors of tests/oracle/canonical.py), framed by
tests/oracle/framing.py.

usage: infer_inputs.py DIR
  conflict.tfrecord  key "a" is int64 in records 0 and 2, float in record 1
  keys.tfrecord      keys that are not C names, clash when made into one, or
                     differ only in case; counts that vary; a Feature{}
  mixed.tfrecord     an Example, then a SequenceExample whose list "a" is
                     int64 in one frame and bytes in another
  wide.tfrecord      one Example of 4097 keys: one more than a spec may hold
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "oracle"))
from canonical import build_classes  # noqa: E402
from framing import frame  # noqa: E402

C = build_classes()


def write(path, payloads):
    with open(path, "wb") as f:
        for p in payloads:
            f.write(frame(p))


def example(features):
    ex = C["example"]()
    ex.features.SetInParent()
    for key, (kind, values) in features.items():
        f = ex.features.feature[key]
        if kind is None:
            continue  # Feature{} without a list
        getattr(f, kind).SetInParent()
        getattr(f, kind).value.extend(values)
    return ex.SerializeToString(deterministic=True)


def sequence(context, lists):
    se = C["sequence"]()
    se.context.SetInParent()
    se.feature_lists.SetInParent()
    for key, (kind, values) in context.items():
        getattr(se.context.feature[key], kind).value.extend(values)
    for key, frames in lists.items():
        fl = se.feature_lists.feature_list[key]
        for kind, values in frames:
            getattr(fl.feature.add(), kind).value.extend(values)
    return se.SerializeToString(deterministic=True)


def main(out):
    write(os.path.join(out, "conflict.tfrecord"), [
        example({"a": ("int64_list", [1]), "b": ("bytes_list", [b"x"])}),
        example({"a": ("float_list", [1.5]), "b": ("bytes_list", [b"y"])}),
        example({"a": ("int64_list", [2]), "b": ("bytes_list", [b"z"])}),
    ])
    keys = []
    for i in range(4):
        keys.append(example({
            "image/encoded": ("bytes_list", [b"\x89PNG"]),
            "image.encoded": ("int64_list", [i]),
            "1st": ("float_list", [0.5] * (i + 1)),
            "class": ("int64_list", [i, i]),
            "x": ("int64_list", list(range(i))),
            "x_count": ("int64_list", [7]),
            "A": ("float_list", [1.0]),
            "a": ("float_list", [2.0]),
            "caf\u00e9": ("bytes_list", [b"\xc3\xa9"]),
            "": ("int64_list", [-1]),
            "max": ("int64_list", [3]),
            "quote\"back\\slash": ("int64_list", [1]),
            "empty": (None, None),
        }))
    write(os.path.join(out, "keys.tfrecord"), keys)
    write(os.path.join(out, "mixed.tfrecord"), [
        example({"c": ("int64_list", [1])}),
        sequence({"c": ("int64_list", [2])},
                 {"a": [("int64_list", [1]), ("bytes_list", [b"q"])],
                  "b": [("float_list", [1.0, 2.0])]}),
    ])
    # Examples without features (empty payloads): nothing to infer; a batch
    # of them holds no values at all
    write(os.path.join(out, "empty.tfrecord"), [b""] * 4)
    write(os.path.join(out, "wide.tfrecord"),
          [example({"k%04d" % i: ("int64_list", [i]) for i in range(4097)})])


if __name__ == "__main__":
    main(sys.argv[1])
