"""Plain-Python forms of the modules' value types, which batches take when
they are pickled (to and from Dask workers, for instance): each spec's
module has types of its own, which another process may not have loaded."""
import collections
import copyreg
import operator

import numpy as np

Ragged = collections.namedtuple("Ragged", "values row_splits")
Ragged.__doc__ = "A ragged tensor: values and row splits (one array, or a tuple outermost first)."
Sparse = collections.namedtuple("Sparse", "indices values dense_shape")
Sparse.__doc__ = "A sparse tensor (tf.SparseTensor's parts)."


class DataError(ValueError):
    """A record or file featc could not read or parse.  str() is the whole
    message; .message featc's text (TensorFlow's first), .record the
    record's index in its file, .offset its byte offset, .path the file,
    .status featc's status name.  Every module's DataError derives from it."""


class Bytes:
    """Bytes values of a column: data (uint8) with offsets (int64 [n + 1]),
    flat, in shape; b[i] is the i-th value as bytes, b[i:j:k] the values a
    slice selects as a one-dimensional Bytes."""

    def __init__(self, data, offsets, shape):
        self.data = np.asarray(data, dtype=np.uint8)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.shape = tuple(shape)

    def __len__(self):
        return len(self.offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):  # the values selected, flat, as a 1-D Bytes
            vals = self.tolist()[i]
            ends = np.cumsum([len(v) for v in vals], dtype=np.int64)
            return Bytes(np.frombuffer(b"".join(vals), dtype=np.uint8),
                         np.concatenate([np.zeros(1, np.int64), ends]), (len(vals),))
        i = operator.index(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("featc.Bytes index out of range")
        return self.data[self.offsets[i]:self.offsets[i + 1]].tobytes()

    def tolist(self):
        raw = self.data.tobytes()
        o = self.offsets.tolist()
        return [raw[o[i]:o[i + 1]] for i in range(len(o) - 1)]

    def to_numpy(self):
        a = np.empty(len(self), dtype=object)
        a[:] = self.tolist()
        return a.reshape(self.shape)

    def __reduce__(self):
        return (Bytes, (self.data, self.offsets, self.shape))

    def __repr__(self):
        return "featc.Bytes(shape=%r, %d values, %d bytes)" % (self.shape, len(self),
                                                             int(self.offsets[-1]))


def _bytes_reduce(b):
    return (Bytes, (np.array(b.data), np.array(b.offsets), b.shape))


def _error_reduce(e):
    return (_error, (type(e).__name__, str(e), dict(e.__dict__)))


def _error(name, text, attrs):
    e = DataError(text)
    e.__dict__.update(attrs)
    return e


def register(mod):
    """Makes mod's values pickle as the plain forms above."""
    copyreg.pickle(mod.Bytes, _bytes_reduce)
    copyreg.pickle(mod.Ragged, lambda r: (Ragged, tuple(r)))
    copyreg.pickle(mod.Sparse, lambda s: (Sparse, tuple(s)))
    copyreg.pickle(mod.DataError, _error_reduce)
