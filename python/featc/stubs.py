"""Type stubs (.pyi) for a spec's module, from its schema, so that editors
complete feature names and know their array types.

    python3 -m featc.stubs MODULE [OUT.pyi]     (MODULE as featc.load takes it)
"""
import sys

_DTYPE = {"int64": "np.int64", "float32": "np.float32"}


def _value(d, single=False):
    t = d["dtype"]
    kind = d["kind"]
    if kind in ("sparse",) or (kind == "varlen" and not single):
        return "Sparse | Ragged"
    if kind == "ragged":
        return "Ragged"
    if t == "bytes":
        return "bytes | Bytes" if single else "Bytes"
    return "npt.NDArray[%s]" % _DTYPE.get(t, "np." + t)  # (`as` types: np.uint8, ...)


def _typed_dict(name, feats, single=False):
    lines = []
    fields = []
    for key, d in sorted(feats.items()):
        fields.append((key, _value(d, single)))
        for suffix in ("buckets", "one_hot", "multi_hot"):
            if suffix == "buckets" and "hash_buckets" in d:
                fields.append((key + "/buckets", "npt.NDArray[np.int64]"))
            elif d.get("hot") == suffix:
                fields.append((key + "/" + suffix, "npt.NDArray[np.float32]"))
    lines.append("%s = TypedDict(%r, {" % (name, name))
    for key, t in fields:
        lines.append("    %r: %s," % (key, t))
    lines.append("})")
    return lines


def stub(mod):
    """The .pyi text for mod."""
    out = ['"""Type stubs of the featc module %s (from %s, featc %s)."""'
           % (mod.__name__, mod.spec, mod.featc_version),
           "from typing import Any, BinaryIO, Iterator, Literal, Sequence, TypedDict, Union",
           "import os",
           "import numpy as np",
           "import numpy.typing as npt",
           "",
           "class DataError(ValueError):",
           "    message: str",
           "    record: int | None",
           "    offset: int | None",
           "    path: str | None",
           "    status: str",
           "",
           "class Bytes:",
           "    shape: tuple[int, ...]",
           "    offsets: npt.NDArray[np.int64]",
           "    data: npt.NDArray[np.uint8]",
           "    def __len__(self) -> int: ...",
           "    def __getitem__(self, i: int) -> bytes: ...",
           "    def tolist(self) -> list[bytes]: ...",
           "    def to_numpy(self) -> npt.NDArray[np.object_]: ...",
           "",
           "class Ragged(tuple):",
           "    values: Any",
           "    row_splits: Union[npt.NDArray[np.int64], tuple[npt.NDArray[np.int64], ...]]",
           "",
           "class Sparse(tuple):",
           "    indices: npt.NDArray[np.int64]",
           "    values: Any",
           "    dense_shape: npt.NDArray[np.int64]",
           "",
           "Source = Union[str, os.PathLike, bytes, bytearray, memoryview, BinaryIO]",
           "",
           "spec: str",
           "featc_version: str",
           "messages: tuple[str, ...]",
           "schema: dict[str, dict[str, Any]]",
           ""]
    batch_types = []
    for i, name in enumerate(mod.messages):
        d = mod.schema[name]
        cls = "".join(p.capitalize() for p in name.split("_"))
        if d["kind"] == "example":
            out += _typed_dict(cls + "Batch", d["features"])
            out += _typed_dict(cls + "Record", d["features"], single=True)
            batch, record = cls + "Batch", cls + "Record"
        else:
            out += _typed_dict(cls + "Context", d["context"])
            out += _typed_dict(cls + "FeatureLists", d["feature_lists"])
            out.append("%sLengths = dict[str, npt.NDArray[np.int64]]" % cls)
            batch = "tuple[%sContext, %sFeatureLists, %sLengths]" % (cls, cls, cls)
            record = "tuple[dict[str, Any], dict[str, Any]]"
        out.append("")
        batch_types.append((name, batch, record, i == 0))
    first = batch_types[0]
    out += ["class Reader(Iterator[%s]):" % first[1],
            "    records: int",
            "    batches: int",
            "    def __next__(self) -> %s: ..." % first[1],
            "    def close(self) -> None: ...",
            "    def __enter__(self) -> 'Reader': ...",
            "    def __exit__(self, *args: Any) -> None: ...",
            "    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...",
            "",
            "def read(source: Union[Source, Sequence[Source]], batch_size: int = 256, *,",
            "         compression: Literal['auto', 'none', 'zlib', 'gzip'] = 'auto',",
            "         crc: Literal['verify', 'skip', 'none'] = 'verify',",
            "         split: tuple[int, int] | None = None,",
            "         byte_range: tuple[int, int | None] | None = None,",
            "         varlen: Literal['sparse', 'ragged'] = 'sparse',",
            "         message: %s | None = None," % " | ".join(
                "Literal[%r]" % n for n, _, _, _ in batch_types),
            "         max_record_size: int | None = None,",
            "         sync: Literal['walk', 'checksum'] = 'walk',",
            "         index: str | os.PathLike | None = None,",
            "         threads: int = 1,",
            "         splits: Sequence[tuple[int, int] | None] | None = None,",
            "         shuffle: int = 0, seed: int = 0, skip: int = 0,",
            "         raw: bool = False,",
            "         format: Literal['numpy', 'arrow'] = 'numpy') -> Reader: ...",
            "",
            "class ArrowBatch:",
            "    num_rows: int",
            "    def __arrow_c_schema__(self) -> Any: ...",
            "    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[Any, Any]: ...",
            "",
            "def parse(record: bytes | bytearray | memoryview, *, message: str | None = None) -> %s: ..."
            % first[2],
            "",
            "def write(dest: Union[str, os.PathLike, BinaryIO], batch: Any, *,",
            "          compression: Literal['none', 'zlib', 'gzip'] = 'none',",
            "          message: str | None = None, append: bool = False,",
            "          write_defaults: bool = False) -> int: ...",
            "",
            # (every module has segments(); it raises ValueError without a segments block)
            "class Segmenter:",
            "    num_unroll: int",
            "    batch_size: int",
            "    capacity: int",
            "    in_flight: int",
            "    inserted: int",
            "    finished: int",
            "    batches: int",
            "    closed: bool",
            "    done: bool",
            "    waiting: bool",
            "    message: str",
            "    states: dict[str, tuple[np.dtype[Any], tuple[int, ...]]]",
            "    def insert(self, record: bytes | bytearray | memoryview,",
            "               key: str | bytes | None = None, *, length: int | None = None,",
            "               initial: dict[str, Any] | None = None) -> bool: ...",
            "    def next(self) -> dict[str, Any] | None: ...",
            "    def save_state(self, name: str, values: Any) -> None: ...",
            "    def close(self) -> None: ...",
            "",
            "def segments(*, message: str | None = None, num_unroll: int | None = None,",
            "             batch_size: int | None = None, capacity: int | None = None,",
            "             allow_small_batch: bool | None = None, key: str | None = None,",
            "             max_record_size: int | None = None) -> Segmenter: ...",
            ""]
    return "\n".join(out)


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: python3 -m featc.stubs MODULE [OUT.pyi]", file=sys.stderr)
        return 64
    import featc
    text = stub(featc.load(argv[1]))
    if len(argv) == 3:
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
