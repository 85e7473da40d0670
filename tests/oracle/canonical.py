#!/usr/bin/python3
"""Byte identity of featc's serializers with protobuf's deterministic
serialization, judged by Python's protobuf (Debian's python3-protobuf).

usage: canonical.py SUITE KIND:FILE...   (KIND: example or sequence)

Each FILE is a TFRecord file of records written by a generated serializer
(tests/oracle/roundtrip.h keeps them).  Every record is parsed by protobuf
as a tf.train.Example or tf.train.SequenceExample and serialized again with
SerializeToString(deterministic=True); the two byte strings must be equal.
Since the round trip in roundtrip.h proves that featc reads its own output
back as the struct it wrote, equality here means: featc's bytes are exactly
what protobuf writes for the Example holding those values.  Records that
protobuf cannot parse count as failures.  The message classes are built
from descriptors here (the .proto of tensorflow/core/example), so no protoc
is needed.  Prints "SUITE: N passed, M failed".
"""
import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool
try:
    from google.protobuf import message_factory
    _get_class = getattr(message_factory, "GetMessageClass", None)
except ImportError:  # pragma: no cover
    message_factory = None
    _get_class = None

F = descriptor_pb2.FieldDescriptorProto


def build_classes():
    fd = descriptor_pb2.FileDescriptorProto()
    fd.name = "featc_test/example.proto"
    fd.package = "tensorflow"
    fd.syntax = "proto3"

    def message(name):
        m = fd.message_type.add()
        m.name = name
        return m

    def field(m, name, number, ftype, label=F.LABEL_OPTIONAL, type_name=None, packed=None,
              oneof=None):
        f = m.field.add()
        f.name, f.number, f.type, f.label = name, number, ftype, label
        if type_name:
            f.type_name = type_name
        if packed is not None:
            f.options.packed = packed
        if oneof is not None:
            f.oneof_index = oneof
        return f

    rep = F.LABEL_REPEATED
    field(message("BytesList"), "value", 1, F.TYPE_BYTES, rep)
    field(message("FloatList"), "value", 1, F.TYPE_FLOAT, rep, packed=True)
    field(message("Int64List"), "value", 1, F.TYPE_INT64, rep, packed=True)
    feat = message("Feature")
    feat.oneof_decl.add().name = "kind"
    field(feat, "bytes_list", 1, F.TYPE_MESSAGE, type_name=".tensorflow.BytesList", oneof=0)
    field(feat, "float_list", 2, F.TYPE_MESSAGE, type_name=".tensorflow.FloatList", oneof=0)
    field(feat, "int64_list", 3, F.TYPE_MESSAGE, type_name=".tensorflow.Int64List", oneof=0)

    def map_of(owner, field_name, entry_name, value_type):
        entry = owner.nested_type.add()
        entry.name = entry_name
        entry.options.map_entry = True
        field(entry, "key", 1, F.TYPE_STRING)
        field(entry, "value", 2, F.TYPE_MESSAGE, type_name=value_type)
        field(owner, field_name, 1, F.TYPE_MESSAGE, rep,
              type_name=".tensorflow.%s.%s" % (owner.name, entry_name))

    map_of(message("Features"), "feature", "FeatureEntry", ".tensorflow.Feature")
    field(message("FeatureList"), "feature", 1, F.TYPE_MESSAGE, rep,
          type_name=".tensorflow.Feature")
    map_of(message("FeatureLists"), "feature_list", "FeatureListEntry",
           ".tensorflow.FeatureList")
    field(message("Example"), "features", 1, F.TYPE_MESSAGE, type_name=".tensorflow.Features")
    seq = message("SequenceExample")
    field(seq, "context", 1, F.TYPE_MESSAGE, type_name=".tensorflow.Features")
    field(seq, "feature_lists", 2, F.TYPE_MESSAGE, type_name=".tensorflow.FeatureLists")

    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)

    def cls(name):
        d = pool.FindMessageTypeByName("tensorflow." + name)
        if _get_class is not None:
            return _get_class(d)
        return message_factory.MessageFactory(pool).GetPrototype(d)

    return {"example": cls("Example"), "sequence": cls("SequenceExample")}


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        if pos + 12 > len(data):
            raise ValueError("%s: truncated header at %d" % (path, pos))
        (n,) = struct.unpack_from("<Q", data, pos)
        start = pos + 12
        if start + n + 4 > len(data):
            raise ValueError("%s: truncated record at %d" % (path, pos))
        yield pos, data[start:start + n]
        pos = start + n + 4


def main(argv):
    suite = argv[1]
    classes = build_classes()
    passed = failed = 0
    for arg in argv[2:]:
        kind, path = arg.split(":", 1)
        cls = classes[kind]
        try:
            for offset, rec in records(path):
                m = cls()
                try:
                    m.ParseFromString(rec)
                    again = m.SerializeToString(deterministic=True)
                except Exception as e:  # noqa: BLE001 - any parse error is a failure
                    again = None
                    why = "protobuf cannot parse it: %s" % e
                if again == rec:
                    passed += 1
                    continue
                if again is not None:
                    k = next((i for i in range(min(len(rec), len(again))) if rec[i] != again[i]),
                             min(len(rec), len(again)))
                    why = "differs from protobuf's at byte %d (featc %d bytes, protobuf %d)" % (
                        k, len(rec), len(again))
                if failed < 10:
                    sys.stderr.write("%s: record at %d: %s\n  featc:    %s\n  protobuf: %s\n" % (
                        path, offset, why, rec[:120].hex(), (again or b"")[:120].hex()))
                failed += 1
        except (OSError, ValueError) as e:
            sys.stderr.write("%s\n" % e)
            failed += 1
    print("%s: %d passed, %d failed" % (suite, passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
