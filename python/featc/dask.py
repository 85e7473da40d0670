"""TFRecord files over a Dask cluster, read and written by featc's modules.

    import featc.dask
    from distributed import Client, LocalCluster
    client = Client(LocalCluster(n_workers=2))
    bag = featc.dask.read_tfrecords(["a.tfrecord", "b.tfrecord"], "specs/mnist.feat")
    n = bag.map(lambda b: len(b["image_class"])).sum().compute()
    df = featc.dask.read_tfrecords(paths, "specs/penguin.feat", dataframe=True)

Partitions are parts of files, each read on a worker by the spec's module:
byte ranges of uncompressed files (split_bytes each; a range owns the
records whose header starts in it), the members of a seekable GZIP file
(one with a member index, FILE.members, as `featc index` writes), and whole
files otherwise (other GZIP files, ZLIB).  Every record is read once; the
bag's order is the files' order, and within a file the records' order.
Workers load the module from the file the client loaded it from (a shared
file system, as LocalCluster has).
"""
import os

import dask
import dask.bag as db
import numpy as np

import featc
from featc._parts import DEFAULT_SPLIT_BYTES, partitions
from featc._remote import sources as _sources

__all__ = ["read_tfrecords", "write_tfrecords", "partitions", "batch_to_frame", "frame_to_batch"]

def _read_part(module_file, name, path, split, options):
    mod = featc.load(module_file, name=name)
    return list(mod.read(_sources(path), split=split, **options))


def batch_to_frame(batch, schema):
    """A batch of an Example whose features are scalars or fixed shapes as
    a pandas DataFrame: a column per scalar, per value of a fixed shape
    (KEY[i] or KEY[i,j]...), bytes as Python bytes objects."""
    import pandas as pd
    cols = {}
    for key, d in schema["features"].items():
        v = batch[key]
        if d["kind"] != "fixed":
            raise ValueError("%s is %s: only scalars and fixed shapes make dataframe columns"
                             % (key, d["kind"]))
        a = v.to_numpy() if d["dtype"] == "bytes" else np.asarray(v)
        shape = d["shape"]
        if not shape:
            cols[key] = a
            continue
        flat = a.reshape(a.shape[0], -1)
        for j, idx in enumerate(np.ndindex(*shape)):
            cols["%s[%s]" % (key, ",".join(map(str, idx)))] = flat[:, j]
    return pd.DataFrame(cols)


def frame_to_batch(df, schema):
    """The inverse of batch_to_frame: a batch for the module's write().  A
    column that is no feature's (nor a value of one's fixed shape), and a
    shaped feature with some of its columns but not all, are ValueErrors:
    their values would not be written."""
    batch = {}
    n = len(df)
    known = set()
    for key, d in schema["features"].items():
        shape = tuple(d["shape"])
        dtype = object if d["dtype"] == "bytes" else np.dtype(d["dtype"])
        if not shape:
            known.add(key)
            if key not in df:
                continue
            batch[key] = np.asarray(df[key].to_numpy(), dtype=dtype)
            continue
        names = ["%s[%s]" % (key, ",".join(map(str, idx))) for idx in np.ndindex(*shape)]
        known.update(names)
        have = [c in df for c in names]
        if not all(have):
            if any(have):
                raise ValueError("the dataframe has %d of the %d columns of %s, not %s"
                                 % (sum(have), len(names), key,
                                    ", ".join(c for c, h in zip(names, have) if not h)[:200]))
            continue
        a = np.empty((n, len(names)), dtype=dtype)
        for j, c in enumerate(names):
            a[:, j] = df[c].to_numpy()
        if d.get("record_dtype") == "bytes":  # `as T[dims]`: the record's bytes again
            little = a.astype(a.dtype.newbyteorder("<"))
            batch[key] = np.array([row.tobytes() for row in little], dtype=object)
            continue
        batch[key] = a.reshape((n,) + shape)
    stray = [str(c) for c in df.columns if c not in known]
    if stray:
        raise ValueError("the dataframe's columns %s are no feature's (a feature's columns: "
                         "KEY, or KEY[i,...] for a fixed shape)" % ", ".join(stray)[:300])
    return batch


def _meta(schema):
    import pandas as pd
    cols = {}
    for key, d in schema["features"].items():
        if d["kind"] != "fixed":
            raise ValueError("%s is %s: a dataframe needs every feature a scalar or of a fixed "
                             "shape (read the bag instead)" % (key, d["kind"]))
        dt = object if d["dtype"] == "bytes" else np.dtype(d["dtype"])
        shape = d["shape"]
        names = [key] if not shape else ["%s[%s]" % (key, ",".join(map(str, idx)))
                                         for idx in np.ndindex(*shape)]
        for c in names:
            cols[c] = pd.Series([], dtype=dt)
    return pd.DataFrame(cols)


def _part_frame(module_file, name, path, split, options, schema):
    import pandas as pd
    batches = _read_part(module_file, name, path, split, options)
    if not batches:
        return _meta(schema)
    return pd.concat([batch_to_frame(b, schema) for b in batches], ignore_index=True)


def read_tfrecords(paths, module, split_bytes=DEFAULT_SPLIT_BYTES, batch_size=256,
                   dataframe=False, message=None, **options):
    """A dask.bag of the files' batches (each what module.read gives), or
    with dataframe=True a dask.dataframe of their records (an Example whose
    features are all scalars or fixed shapes).  module is what featc.load
    takes; options go to module.read (varlen, crc, compression, ...).  A
    record that fails fails the computation with featc's DataError, which
    names the file, record and offset."""
    mod = featc.load(module)
    module_file = featc.module_path(mod)
    name = mod.__name__
    msg = message or mod.messages[0]
    opts = dict(options, batch_size=batch_size, message=msg)
    parts = partitions(paths, split_bytes, options.get("compression", "auto"))
    if dataframe:
        import dask.dataframe as dd
        schema = mod.schema[msg]
        if schema["kind"] != "example":
            raise ValueError("a dataframe reads an example, not the sequence_example %s" % msg)
        meta = _meta(schema)
        return dd.from_delayed([dask.delayed(_part_frame)(module_file, name, p, s, opts, schema)
                                for p, s in parts], meta=meta)
    return db.from_delayed([dask.delayed(_read_part)(module_file, name, p, s, opts)
                            for p, s in parts])


def _shard_name(pattern, i, n):
    tag = "%05d-of-%05d" % (i, n)
    return pattern.replace("*", tag) if "*" in pattern else "%s-%s" % (pattern, tag)


def _write_part(module_file, name, path, items, message, compression, frame_schema):
    mod = featc.load(module_file, name=name)
    if frame_schema is not None:
        items = [frame_to_batch(items, frame_schema)] if len(items) else []
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        mod.write(tmp, list(items), message=message, compression=compression)
        os.replace(tmp, path)  # a shard appears whole or not at all
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_tfrecords(data, path_pattern, module, compression="none", message=None,
                    compute=True):
    """Writes each partition of a bag of batches (as read_tfrecords gives)
    or of a dataframe (as read_tfrecords(dataframe=True) gives) as one
    TFRecord shard, NAME-00003-of-00016 (or path_pattern with * replaced by
    00003-of-00016), compressed as asked ('none', 'zlib', 'gzip').  Returns
    the shards' paths (with compute=False, the delayed objects that write
    them)."""
    if compression not in ("none", "zlib", "gzip"):
        raise ValueError("compression must be 'none', 'zlib' or 'gzip', not %r" % (compression,))
    mod = featc.load(module)
    module_file = featc.module_path(mod)
    msg = message or mod.messages[0]
    frame_schema = None if isinstance(data, db.Bag) else mod.schema[msg]
    parts = data.to_delayed()
    n = len(parts)
    tasks = [dask.delayed(_write_part)(module_file, mod.__name__, _shard_name(path_pattern, i, n),
                                       part, msg, compression, frame_schema)
             for i, part in enumerate(parts)]
    if not compute:
        return tasks
    return list(dask.compute(*tasks))
