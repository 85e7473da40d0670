"""Sources by URL: opened through fsspec (http://, https://, file://,
memory://, and whatever implementations are installed) and read in pieces,
as a module's read() reads any file object: memory is a batch's and the
largest record's, not the file's.

The length the server gave is a claim, checked: a read that ends before it
(a dropped connection, a truncated body) or goes past it raises OSError
naming the URL and the byte offset, and so does any error of the transport,
whose exception is chained; never a short read that looks like the end of
the file.

A part of a URL (a split, the members of a seekable GZIP file) is read by
byte ranges: the module's reader seeks to where the URL's index (URL.idx)
or member list (URL.members) places the part, and reads on from there, each
read one range request of the bytes it asks for, so that a worker fetches
its part (and at most one read past its end), never the whole file.  The index is fetched
once per process and URL, and is a claim the reader checks record by
record (or member by member), as it checks a local one."""
import os
import sys

__all__ = ["is_url", "open_url", "sources", "RemoteFile", "info"]

_INFO = {}  # url -> (size, kind, index name, index text): what parts are cut by


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


def _fs(url, **storage_options):
    try:
        import fsspec
    except ImportError as e:
        raise ImportError("reading %s needs fsspec (Debian: python3-fsspec; http:// "
                          "also python3-aiohttp)" % url) from e
    return fsspec.core.url_to_fs(url, **storage_options)


def _size(fs, path):
    try:
        return fs.size(path)
    except (NotImplementedError, TypeError, ValueError, KeyError):
        return None


def _asks_http(fs):
    """fs is fsspec's HTTP file system, whose session this module asks
    itself (to see the status and Content-Range of an answer)."""
    protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return "http" in protocols and all(hasattr(fs, a)
                                       for a in ("set_session", "encode_url", "kwargs"))


def _http_get(fs, path, start, end, body=True):
    """GET path with Range: bytes=start-(end - 1), through fsspec's own
    session: (status, Content-Range, the body, or None when body is False:
    then it is not read)."""
    from fsspec.asyn import sync

    async def get():
        kw = fs.kwargs.copy()
        headers = dict(kw.pop("headers", None) or {})
        headers["Range"] = "bytes=%d-%d" % (start, end - 1)
        session = await fs.set_session()
        async with session.get(fs.encode_url(path), headers=headers, **kw) as r:
            data = await r.read() if body else None
            if body:
                fs._raise_not_found_for_status(r, path)
            return r.status, r.headers.get("Content-Range"), data

    return sync(fs.loop, get)


def _range(fs, path, url, start, end, size=None):
    """Bytes [start, end) of a URL, exactly, or OSError.  Over HTTP the
    answer is checked, not believed: a 206 whose Content-Range is the range
    asked for (and the size, when known), and a body of that length; a
    server that ignores the range (200, the file's start) or answers another
    one is an error, not records read from the wrong place.  Other file
    systems' cat_file reads the range itself; its length is checked."""
    if end <= start:
        return b""
    if _asks_http(fs):
        status, crange, body = _http_get(fs, path, start, end)
        want = "bytes %d-%d/" % (start, end - 1)
        if status != 206:
            raise OSError("%s: bytes %d to %d asked for, and the server answered %d, not 206 "
                          "Partial Content (it ignores ranges)" % (url, start, end, status))
        if crange is None or not crange.startswith(want) or (
                size is not None and crange[len(want):] not in (str(size), "*")):
            raise OSError("%s: bytes %d to %d asked for, and the server sent Content-Range: "
                          "%s" % (url, start, end, crange))
    else:
        body = fs.cat_file(path, start, end)
    if len(body) != end - start:
        raise OSError("%s: bytes %d to %d asked for, %d sent%s" % (
            url, start, end, len(body),
            "" if size is None else " (of the %d the server announced)" % size))
    return body


def _http_size(fs, path):
    """The size an HTTP server gives through a range request (Content-Range:
    bytes 0-0/SIZE) when it gave none otherwise, or None; the body is not
    read."""
    if not _asks_http(fs):
        return None
    try:
        status, crange, _ = _http_get(fs, path, 0, 1, body=False)
    except Exception:  # noqa: BLE001 (no size, as before)
        return None
    if status == 206 and crange and crange.startswith("bytes 0-0/"):
        total = crange[len("bytes 0-0/"):]
        if total.isdigit():
            return int(total)
    return None


def _index_end(text):
    """Where the records of a DALI index (offset size lines) end, or None."""
    try:
        last = [ln for ln in text.decode("ascii").splitlines() if ln.strip()][-1].split()
        return int(last[0]) + int(last[1])
    except (IndexError, ValueError, UnicodeDecodeError, AttributeError):
        return None


def kind_of(head):
    """What a file's first two bytes say it is, as featc's detection says:
    'gzip', 'zlib' (a zlib header whose check is right) or 'none'."""
    if head == b"\x1f\x8b":
        return "gzip"
    if len(head) == 2 and head[0] == 0x78 and (head[0] * 256 + head[1]) % 31 == 0:
        return "zlib"
    return "none"


def info(url, **storage_options):
    """(size, kind, index_name, index_text) of a URL: its size, what its
    first bytes say it is ('none', 'gzip', 'zlib'), and the index beside it
    that its parts are placed by (URL.idx for an uncompressed file,
    URL.members for a GZIP one; None, None when there is none).  Fetched
    once per process."""
    if url in _INFO:
        return _INFO[url]
    try:
        fs, path = _fs(url, **storage_options)
        size = _size(fs, path)
        head = _range(fs, path, url, 0, 2, size) if size and size >= 2 else b""
    except FileNotFoundError as e:
        raise FileNotFoundError("%s: not found (%s)" % (url, e)) from e
    except Exception as e:  # noqa: BLE001 (every transport's own kinds)
        raise OSError("%s: cannot open: %s: %s" % (url, type(e).__name__, e)) from e
    kind = kind_of(head)
    name = text = None
    if kind != "zlib" and size:
        name = url + (".members" if kind == "gzip" else ".idx")
        ifs, ipath = _fs(name, **storage_options)
        try:
            text = ifs.cat_file(ipath)
        except FileNotFoundError:
            name = None
        except Exception as e:  # noqa: BLE001
            raise OSError("%s: cannot read: %s: %s" % (name, type(e).__name__, e)) from e
    _INFO[url] = (size, kind, name, text)
    return _INFO[url]


class RemoteFile:
    """A URL's bytes, read(n) in order; opened at the first read and
    closed at the end, so that a list of them holds one connection at a
    time.  seek() moves it (range requests from there on), for the parts
    the module's reader places by the URL's index (featc_index)."""

    def __init__(self, url, block_size=1 << 20, **storage_options):
        self.url, self.name = url, url
        self._block, self._opts = block_size, storage_options
        self._f, self.size, self.pos, self._done = None, None, 0, False
        self._ranged = None  # (fs, path) after a seek: each read a range request
        self._head = b""  # the first bytes read (what kind of file it is)

    def _open(self, ranged=False):
        try:
            fs, path = _fs(self.url, **self._opts)
            self.size = _size(fs, path)
            if ranged:
                if self.size is None:
                    raise OSError("the server gives no size, which a part needs")
                self._ranged = (fs, path)
            elif self.url.split("://", 1)[0].lower() in ("http", "https"):
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

    def _read_range(self, n):
        """After a seek: bytes [pos, pos + n) in one range request, exactly
        as many as asked (to the announced end): a server that ignores the
        range, or sends less, is an error."""
        fs, path = self._ranged
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        if end <= self.pos:
            return b""
        try:
            b = _range(fs, path, self.url, self.pos, end, self.size)
        except OSError:
            raise
        except Exception as e:  # noqa: BLE001
            raise OSError("%s: the read of bytes %d to %d failed: %s: %s"
                          % (self.url, self.pos, end, type(e).__name__, e)) from e
        self.pos = end
        return b

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=0):
        """Where the next read starts: whence 0 (from the start) or 2 (from
        the end: the announced size, which a part needs).  From then on
        each read is a range request."""
        if whence not in (0, 2):
            raise ValueError("seek: whence 0 or 2")
        if self._ranged is None:
            self.close()
            self._open(ranged=True)
        if whence == 2:
            offset += self.size
        if offset < 0:
            raise ValueError("seek: offset %d" % offset)
        self.pos, self._done = offset, False
        return offset

    @property
    def featc_index(self):
        """(name, text) of the index this URL's parts are placed by, or None."""
        _, _, name, text = info(self.url, **self._opts)
        return (name, text) if name is not None else None

    def read(self, n=-1):
        if self._ranged is not None:
            return self._read_range(n)
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
        if len(self._head) < 2:
            self._head += b[:2 - len(self._head)]
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
            if self.size is None:
                self._unknown_end()
            self.close()
            self._done = True
        return b

    def _unknown_end(self):
        """The stream ended at pos and no size was announced: the end is
        taken only where something says the file ends (the server's answer
        to a range request, or, for an uncompressed file, the end of the
        records of its index URL.idx); a connection closed early would
        otherwise read as a short file."""
        fs, path = _fs(self.url, **self._opts)
        size, said = _http_size(fs, path), "the server's range answers announce"
        if size is None and kind_of(self._head) == "none":
            ifs, ipath = _fs(self.url + ".idx", **self._opts)
            try:
                size, said = _index_end(ifs.cat_file(ipath)), "its index places"
            except Exception:  # noqa: BLE001 (no index: no size)
                size = None
        if size is None:
            self._drop()
            raise OSError("%s: the data ended at byte %d, and the server gave no size (no "
                          "Content-Length, no ranges) and no index (URL.idx) says where the "
                          "file ends: a connection closed early cannot be told from the end"
                          % (self.url, self.pos))
        if size != self.pos:
            self._drop()
            raise OSError("%s: the data ends at byte %d of the %d %s"
                          % (self.url, self.pos, size, said))

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
