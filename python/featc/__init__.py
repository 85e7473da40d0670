"""featc for Python: TFRecord files through featc's generated parsers.

A spec's module (``featc compile --python``, built by ``make python`` or by
:func:`load`) reads batches as NumPy arrays in ``tf.io.parse_example``'s
layouts.  This package finds and builds those modules and reads with them;
:mod:`featc.dask` spreads the reading over a Dask cluster.

    import featc
    mod = featc.load("specs/mnist.feat")          # compiled once, cached
    for batch in mod.read("mnist.tfrecord", batch_size=256):
        images, labels = batch["image_floats"], batch["image_class"]
"""
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import types

from . import _remote
from ._types import Bytes, DataError, Ragged, Sparse, register as _register

__all__ = ["load", "read", "records", "write", "write_parquet", "segment_batches", "module_path", "BuildError",
           "DataError", "Bytes", "Ragged", "Sparse"]

__version__ = "0.1.0"


class BuildError(RuntimeError):
    """A spec could not be compiled into a module: the compiler's message."""


def _featc_program():
    exe = os.environ.get("FEATC") or shutil.which("featc")
    if not exe:
        raise BuildError("featc is not installed: put it on PATH or name it in $FEATC")
    return os.path.abspath(exe)


def _layout(exe):
    """The include directory and the two libraries a module links, found
    beside the featc program: PREFIX/bin/featc with PREFIX/include and
    PREFIX/lib (or its multiarch folder, lib64, or $FEATC_LIBDIR), or a build
    tree's BUILD/featc with BUILD/../include."""
    import sysconfig
    here = os.path.dirname(exe)
    inc = os.path.join(here, "..", "include")
    libs = [os.environ.get("FEATC_LIBDIR") or "", os.path.join(here, "..", "lib"),
            os.path.join(here, "..", "lib", sysconfig.get_config_var("MULTIARCH") or ""),
            os.path.join(here, "..", "lib64"), here]
    for lib in libs:
        if (os.path.exists(os.path.join(inc, "featc", "fc_python.h")) and
                os.path.exists(os.path.join(lib, "libfeatc_python.a")) and
                os.path.exists(os.path.join(lib, "libfeatc_codecs.a"))):
            return os.path.abspath(inc), os.path.abspath(lib)
    raise BuildError("featc's Python layer (include/featc/fc_python.h, libfeatc_python.a, "
                     "libfeatc_codecs.a) "
                     "is not beside %s: run make python (or make install)" % exe)


def _link_libs(lib):
    """What the codecs' and the runtime's archives need after them:
    libfeatc_codecs.libs and libfeatc.libs, written by make beside them
    (libzstd and libsnappy where the build found them; ISA-L when the
    runtime was built with it)."""
    out = []
    for name, default in (("libfeatc_codecs.libs", []), ("libfeatc.libs", ["-lz", "-lm", "-pthread"])):
        try:
            with open(os.path.join(lib, name)) as f:
                out += f.read().split()
        except OSError:
            out += default
    return out


def _cache_dir():
    base = os.environ.get("FEATC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "featc")
    return base


def _run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise BuildError("%s failed (exit %d):\n%s" % (what, p.returncode,
                                                       p.stderr.decode("utf-8", "replace")))


def _build(spec, name, build_dir):
    """Compiles spec into build_dir/NAME.abi3.so and writes NAME.pyi; the path."""
    import sysconfig
    exe = _featc_program()
    inc, lib = _layout(exe)
    with open(spec, "rb") as f:
        text = f.read()
    if build_dir is None:
        # (and the build of featc it links: a module built against another
        # featc's headers and libraries must not be taken from the cache)
        stamp = "".join("%s:%d:%d;" % (p, st.st_size, st.st_mtime_ns) for p, st in
                        ((p, os.stat(p)) for p in (exe, os.path.join(lib, "libfeatc_python.a"),
                                                   os.path.join(lib, "libfeatc_codecs.a"),
                                                   os.path.join(lib, "libfeatc_pic.a"))))
        h = hashlib.sha256(text + name.encode() + exe.encode() + stamp.encode()).hexdigest()[:16]
        build_dir = os.path.join(_cache_dir(), "%s-%s" % (name, h))
    # absolute paths: a path starting with '-' is never taken for an option
    # of featc's or the compiler's
    spec, build_dir = os.path.abspath(spec), os.path.abspath(build_dir)
    so = os.path.join(build_dir, name + ".abi3.so")
    if os.path.exists(so) and os.path.getmtime(so) >= os.path.getmtime(spec):
        return so
    os.makedirs(build_dir, exist_ok=True)
    _run([exe, "compile", "--python", "-o", build_dir, "-b", name, spec], "featc compile")
    cc = os.environ.get("CC", "cc")
    tmp = so + ".%d.tmp" % os.getpid()
    _run([cc, "-std=c99", "-O2", "-fPIC", "-shared", "-fvisibility=hidden",
          "-D_POSIX_C_SOURCE=200809L", "-isystem", sysconfig.get_paths()["include"],
          "-I" + inc, "-I" + build_dir, "-o", tmp,
          os.path.join(build_dir, name + ".c"), os.path.join(build_dir, name + "_py.c"),
          os.path.join(lib, "libfeatc_python.a"), os.path.join(lib, "libfeatc_codecs.a"),
          os.path.join(lib, "libfeatc_pic.a")] +
         _link_libs(lib), "compiling the module")
    os.replace(tmp, so)  # atomic: a concurrent build never imports half a file
    mod = _import_file(name, so)
    from . import stubs
    with open(os.path.join(build_dir, name + ".pyi"), "w", encoding="utf-8") as f:
        f.write(stubs.stub(mod))
    return so


def _import_file(name, path):
    key = "featc._spec." + name + "." + hashlib.sha256(path.encode()).hexdigest()[:12]
    if key in sys.modules:
        return sys.modules[key]
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    mod.__featc_path__ = path
    sys.modules[key] = mod
    _register(mod)
    return mod


def load(spec_or_module, name=None, build_dir=None):
    """A spec's module: a module (returned as is), the name of an importable
    one ("mnist"), the path of a built one (NAME.abi3.so), or a spec
    (NAME.feat), compiled on first use with the featc on PATH (or $FEATC)
    and $CC into build_dir (default: ~/.cache/featc, or $FEATC_CACHE), with
    its type stubs beside it."""
    if isinstance(spec_or_module, types.ModuleType):
        _register(spec_or_module)
        return spec_or_module
    s = os.fspath(spec_or_module)
    if s.endswith(".so"):
        base = os.path.basename(s).split(".")[0]
        return _import_file(name or base, os.path.abspath(s))
    if s.endswith(".feat") or os.sep in s:
        base = name or os.path.basename(s).split(".")[0]
        if not base.isidentifier():
            raise ValueError("the module's name %r is not an identifier: pass name=" % base)
        return _import_file(base, _build(s, base, build_dir))
    mod = importlib.import_module(s)
    _register(mod)
    return mod


def module_path(mod):
    """The file a module was loaded from (for workers that load it again)."""
    mod = load(mod)
    return getattr(mod, "__featc_path__", None) or mod.__file__


def read(source, module, **options):
    """module's read(source, **options): batches of the TFRecord source; a
    URL (http://, file://, memory://, ...) is read through fsspec in pieces
    (featc._remote)."""
    return load(module).read(_remote.sources(source), **options)


def write(dest, batch, module, **options):
    """module's write(dest, batch, **options); the number of records."""
    return load(module).write(dest, batch, **options)


def write_parquet(dest, data, module, **options):
    """module's write_parquet(dest, data, **options): the TFRecord source
    (URLs too, as read() takes them), or any Arrow stream, as a Parquet file
    at dest; the number of rows."""
    if not hasattr(data, "__arrow_c_stream__"):
        data = _remote.sources(data)
    return load(module).write_parquet(dest, data, **options)


def records(source, module, batch_size=256, **options):
    """The records of the TFRecord source one by one (bytes, unparsed), as
    module's read(source, raw=True, **options) gives them in batches:
    every option of read() (splits, shuffle, threads, ...) applies."""
    for batch in read(source, module, batch_size=batch_size, raw=True, **options):
        yield from batch


_END = object()


def segment_batches(segmenter, records):
    """Feeds records (serialized SequenceExamples: an iterable of bytes, such
    as featc.records()) to segmenter (a module's segments()) and yields its
    batches.  Before each batch the segmenter takes records until capacity
    examples are in flight or the records end (then it is closed), so the
    batches depend on the records and the settings alone.  Save every state
    of a batch (segmenter.save_state) before the next is asked for."""
    it = iter(records)
    pending, ended = _END, False
    while True:
        while not ended:
            if pending is _END:
                pending = next(it, _END)
                if pending is _END:
                    ended = True
                    segmenter.close()
                    break
            if not segmenter.insert(pending):
                break
            pending = _END
        batch = segmenter.next()
        if batch is not None:
            yield batch
        elif segmenter.done:
            return
        else:  # (full or closed, and still no batch: the runtime would be wrong)
            raise RuntimeError("the segmenter holds %d examples and hands out no batch"
                               % segmenter.in_flight)
