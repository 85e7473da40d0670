"""Sources by URL: opened through fsspec (http://, https://, file://,
memory://, and whatever implementations are installed) and read in pieces,
as a module's read() reads any file object: memory is a batch's and the
largest record's, not the file's.

The length the server gave is a claim, checked: a read that ends before it
(a dropped connection, a truncated body) or goes past it raises OSError
naming the URL and the byte offset, and so does any error of the transport,
whose exception is chained; never a short read that looks like the end of
the file."""
import os
import sys

__all__ = ["is_url", "open_url", "sources", "RemoteFile"]


def _after_fork():
    """In a forked child (a DataLoader worker, a Dask process): fsspec's
    event loop thread is the parent's and does not run here; its async
    file systems (HTTP) would wait on it forever.  A new one is started at
    the next use."""
    asyn = sys.modules.get("fsspec.asyn")
    if asyn is not None:
        asyn.reset_lock()


os.register_at_fork(after_in_child=_after_fork)


def is_url(s):
    """A str (or os.PathLike) naming a URL: SCHEME://..."""
    if isinstance(s, os.PathLike):
        s = os.fspath(s)
    return isinstance(s, str) and "://" in s and s.split("://", 1)[0].isidentifier()


class RemoteFile:
    """A URL's bytes, read(n) in order; opened at the first read and
    closed at the end, so that a list of them holds one connection at a
    time."""

    def __init__(self, url, block_size=1 << 20, **storage_options):
        self.url, self.name = url, url
        self._block, self._opts = block_size, storage_options
        self._f, self.size, self.pos, self._done = None, None, 0, False

    def _open(self):
        try:
            import fsspec
        except ImportError as e:
            raise ImportError("reading %s needs fsspec (Debian: python3-fsspec; http:// "
                              "also python3-aiohttp)" % self.url) from e
        try:
            fs, path = fsspec.core.url_to_fs(self.url, **self._opts)
            try:
                self.size = fs.size(path)
            except (NotImplementedError, TypeError, ValueError, KeyError):
                self.size = None
            if self.url.split("://", 1)[0].lower() in ("http", "https"):
                # one GET, its body streamed in order: no range requests,
                # which a server that ignores Range would answer with the
                # file's start (and fsspec take it for the range asked)
                self._f = fs.open(path, "rb", block_size=0)
            else:
                self._f = fs.open(path, "rb", block_size=self._block)
        except FileNotFoundError as e:
            raise FileNotFoundError("%s: not found (%s)" % (self.url, e)) from e
        except Exception as e:  # noqa: BLE001 (every transport's own kinds)
            raise OSError("%s: cannot open: %s: %s" % (self.url, type(e).__name__, e)) from e

    def read(self, n=-1):
        if self._done:
            return b""
        if self._f is None:
            self._open()
        try:
            b = self._f.read(n)
        except Exception as e:  # noqa: BLE001
            self._drop()
            raise OSError("%s: the read at byte %d failed: %s: %s"
                          % (self.url, self.pos, type(e).__name__, e)) from e
        self.pos += len(b)
        if self.size is not None:
            if self.pos > self.size:
                self._drop()
                raise OSError("%s: %d bytes read, more than the %d the server announced"
                              % (self.url, self.pos, self.size))
            if not b and n != 0 and self.pos < self.size:
                self._drop()
                raise OSError("%s: the data ends at byte %d of the %d the server announced"
                              % (self.url, self.pos, self.size))
        if not b and n != 0:
            self.close()
            self._done = True
        return b

    def _drop(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (the read's error is the one to raise)
            self._f = None

    def readable(self):
        return True

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<featc.RemoteFile %s at %d>" % (self.url, self.pos)


def open_url(url, block_size=1 << 20, **storage_options):
    """url as a RemoteFile (opened at its first read).  The size comes from
    the file system (HTTP: Content-Length, or a HEAD request); without one,
    only the transport's own errors show a cut."""
    return RemoteFile(url, block_size, **storage_options)


def sources(src):
    """A read() source (or list of them) with each URL as a RemoteFile."""
    if isinstance(src, (list, tuple)):
        return [open_url(s) if is_url(s) else s for s in src]
    return open_url(src) if is_url(src) else src
