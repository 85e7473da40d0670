"""The parts TFRecord files are read in by several workers (featc.dask's
partitions, featc.torch's shards): byte ranges of uncompressed files (a
range owns the records whose header starts in it), the members of a
seekable GZIP file (one with a member index, FILE.members), and whole files
otherwise (other GZIP files, ZLIB).  A URL is cut likewise when its index
is beside it (URL.idx, or URL.members for GZIP: its parts are read by byte
ranges, featc._remote), and read whole otherwise.  Over all the parts of a
file, every record is read once."""
import math
import os

from featc._remote import info as _url_info, is_url, kind_of

DEFAULT_SPLIT_BYTES = 64 << 20


def _kind(path):
    with open(path, "rb") as f:
        return kind_of(f.read(2))


def partitions(paths, split_bytes=DEFAULT_SPLIT_BYTES, compression="auto"):
    """The parts the files are read in: (path, (i, n)) for the i-th of n
    splits, or (path, None) for a whole file."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if split_bytes is not None and split_bytes <= 0:
        raise ValueError("split_bytes must be positive")
    out = []
    for p in paths:
        p = os.fspath(p)
        n = 1
        if is_url(p):
            # (byte ranges only where an index places them: finding a
            # split's first record without one means reading what is before it)
            size, kind, index, _ = _url_info(p)
            if compression != "auto" and compression != kind:
                index = None
            if split_bytes is not None and size and index is not None:
                n = max(1, math.ceil(size / split_bytes))
        else:
            size = os.path.getsize(p)
            kind = _kind(p) if compression == "auto" else compression
            if split_bytes is not None and size > 0:
                if kind == "none" or (kind == "gzip" and os.path.exists(p + ".members")):
                    n = max(1, math.ceil(size / split_bytes))
        if n == 1:
            out.append((p, None))
        else:
            out.extend((p, (i, n)) for i in range(n))
    return out
