"""TFRecord framing and protobuf varints, by hand, for the Python test
scripts that write records (no protobuf library needed): CRC-32C
(Castagnoli, table-driven), TensorFlow's masked CRC, one framed record,
the records of a stream, and a stream as seekable GZIP with its member
list.  Used by tests/cli/names.py, tests/cli/infer_inputs.py,
tests/embedded/records.py and tests/python."""
import gzip
import struct

POLY = 0x82F63B78
TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ POLY if _c & 1 else _c >> 1
    TABLE.append(_c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload, bad_crc=False):
    """length, masked CRC of the length, payload, masked CRC of the payload
    (its lowest bit flipped with bad_crc)."""
    head = struct.pack('<Q', len(payload))
    tail = masked(payload) ^ (1 if bad_crc else 0)
    return head + struct.pack('<I', masked(head)) + payload + struct.pack('<I', tail)


def records(data):
    """The payloads of a TFRecord stream, in order (the lengths trusted, no
    CRC checked); a record cut short ends the list."""
    out, pos = [], 0
    while pos + 12 <= len(data):
        (n,) = struct.unpack_from('<Q', data, pos)
        if pos + 16 + n > len(data):
            break
        out.append(bytes(data[pos + 12:pos + 12 + n]))
        pos += 16 + n
    return out


def varint(v):
    """A protobuf varint; negative int64 values as their 64-bit two's complement."""
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def write_seekable(stream, path, member_bytes):
    """The TFRecord stream as seekable GZIP at path, a member per
    member_bytes of whole records (level 1), and its member list beside it
    (PATH.members: "offset stream_offset first_record" per member, as
    featc index writes it)."""
    z, lines, start, pos, first = b"", [], 0, 0, 0
    while pos < len(stream):
        (n,) = struct.unpack_from('<Q', stream, pos)
        pos += 16 + n
        if pos - start >= member_bytes or pos >= len(stream):
            lines.append("%d %d %d" % (len(z), start, first))
            z += gzip.compress(stream[start:pos], compresslevel=1)
            first += len(records(stream[start:pos]))
            start = pos
    with open(path, "wb") as f:
        f.write(z)
    with open(path + ".members", "w") as f:
        f.write("".join(line + "\n" for line in lines))
