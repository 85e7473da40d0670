"""The parts TFRecord files are read in by several workers (featc.dask's
partitions, featc.torch's shards): byte ranges of uncompressed files (a
range owns the records whose header starts in it), the members of a
seekable GZIP file (one with a member index, FILE.members), and whole files
otherwise (other GZIP files, ZLIB).  A URL is cut likewise when its index
is beside it (URL.idx, or URL.members for GZIP: its parts are read by byte
ranges, featc._remote), and read whole otherwise.  Over all the parts of a
file, every record is read once.

When the parts would be fewer than the readers that share them (readers=:
featc.torch's ranks x workers), the files that can be cut are cut finer,
each into ranges in proportion to its size, none smaller than
MIN_CUT_BYTES, so that every reader gets a part where the files allow."""
import math
import os

from featc._remote import info as _url_info, is_url, kind_of

DEFAULT_SPLIT_BYTES = 64 << 20
# the smallest range a file is cut into for readers=: below it, a part's
# open and its search for its first record cost more than its records
MIN_CUT_BYTES = 64 << 10


def _kind(path):
    with open(path, "rb") as f:
        return kind_of(f.read(2))


def partitions(paths, split_bytes=DEFAULT_SPLIT_BYTES, compression="auto", readers=1):
    """The parts the files are read in: (path, (i, n)) for the i-th of n
    splits, or (path, None) for a whole file.  readers: how many readers
    share them (see the module's doc; split_bytes=None: whole files)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if split_bytes is not None and split_bytes <= 0:
        raise ValueError("split_bytes must be positive")
    files = []  # (path, size, whether it can be cut, its splits)
    for p in paths:
        p = os.fspath(p)
        if is_url(p):
            # (byte ranges only where an index places them: finding a
            # split's first record without one means reading what is before it)
            size, kind, index, _ = _url_info(p)
            if compression != "auto" and compression != kind:
                index = None
            can = bool(size) and index is not None
        else:
            size = os.path.getsize(p)
            kind = _kind(p) if compression == "auto" else compression
            can = size > 0 and (kind == "none" or
                                (kind == "gzip" and os.path.exists(p + ".members")))
        n = max(1, math.ceil(size / split_bytes)) if can and split_bytes is not None else 1
        files.append([p, size, can, n])
    if split_bytes is not None and sum(f[3] for f in files) < readers:
        total = sum(f[1] for f in files if f[2])
        for f in files:
            if f[2]:
                want = math.ceil(readers * f[1] / total)
                f[3] = max(f[3], min(want, max(1, f[1] // MIN_CUT_BYTES)))
    out = []
    for p, _, _, n in files:
        if n == 1:
            out.append((p, None))
        else:
            out.extend((p, (i, n)) for i in range(n))
    return out
