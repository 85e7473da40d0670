#!/usr/bin/env python3
"""Sources by URL (featc._remote, through fsspec) against the same files
read from disk.

usage: test_remote.py BUILD CORPUS TMP

A local nginx (Debian's, started here on 127.0.0.1 with a configuration of
its own, stopped at the end) serves the corpus: featc.read, featc.torch
and featc.dask by http:// URL give what the local paths give, and the
access log shows one GET per read of a file, its whole body streamed in
order (after a HEAD for its size).  Parts by byte ranges: a file with its
index beside it (URL.idx) and a seekable GZIP file with its member list
(URL.members) are cut into splits, each read by range requests from where
the index places it (the log: no GET of the data without a Range, and no
split fetching more than its share and a block); every split's batches
equal the local file's split, over featc.read, featc.torch (2 ranks, 2
workers) and featc.dask; an index that lies about a record fails the split
that meets it, naming the index.
memory:// and file:// URLs likewise.  Servers of this script's own lie:
one announces more bytes than it sends (the connection closed early, or
reset); one gives no size and closes at a record boundary (an error, with
an index beside the file or without; the whole body ending where the index
says reads); one answers ranges from the file's start (206 with its
Content-Range, or 200): each read raises OSError naming the URL, never a
short file that reads as whole or records from the wrong place."""
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time

BUILD, CORPUS, TMP = sys.argv[1:4]
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import featc  # noqa: E402
from module_vs_driver import digest as batch_digest  # noqa: E402 (puts tests/oracle on the path)
from framing import records as framed, write_seekable  # noqa: E402
from tally import check, finish  # noqa: E402

FILES = {"mnist": ["tfx__mnist.tfrecord"],
         "taxi": ["tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz"],
         "hadoop": ["tf-ecosystem__tf-records_part-m-00000",
                    "tf-ecosystem__zipped-tf-records_part-m-00000.gz"]}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def digest(batches):
    return [batch_digest(b) for b in batches]


def start_nginx(root):
    port = free_port()
    prefix = os.path.join(os.path.abspath(TMP), "nginx")
    os.makedirs(os.path.join(prefix, "logs"), exist_ok=True)
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""daemon off;
master_process off;
pid %(p)s/nginx.pid;
error_log %(p)s/logs/error.log;
events { worker_connections 64; }
http {
    log_format ranged '$request $status $body_bytes_sent range=$http_range';
    access_log %(p)s/logs/access.log ranged;
    client_body_temp_path %(p)s/body;
    proxy_temp_path %(p)s/proxy;
    fastcgi_temp_path %(p)s/fastcgi;
    uwsgi_temp_path %(p)s/uwsgi;
    scgi_temp_path %(p)s/scgi;
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s;
        location / { }
    }
}
""" % {"p": prefix, "port": port, "root": os.path.abspath(root)})
    proc = subprocess.Popen(["nginx", "-p", prefix, "-c", conf], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("nginx did not start: %s" % proc.stderr.read().decode())
            time.sleep(0.05)
    return proc, port, os.path.join(prefix, "logs", "access.log")


class Liar(socketserver.BaseRequestHandler):
    """A server that lies, by the first part of the path:
    /short/NAME, /reset/NAME: the file's length announced, half its bytes
      sent, then the connection closed (short) or reset (reset);
    /nosize/NAME: no size anywhere (no Content-Length, ranges ignored), the
      body cut at a record boundary halfway, then closed;
    /nosizeidx/NAME: the same, with the index NAME.idx beside it;
    /nosizefull/NAME: no size, the whole body, the index beside it;
    /rangestart/NAME: the size announced, and every range answered 206 with
      the right length from the file's start, Content-Range saying so;
    /range200/NAME: every range answered 200 with the file's first bytes.
    data: NAME -> bytes, and cut: NAME -> the record boundary nearest half."""
    data, cut = {}, {}

    def handle(self):
        req = b""
        while b"\r\n\r\n" not in req:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            req += chunk
        lines = req.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
        method, path = lines[0].split(" ")[:2]
        rng = next((ln.split("=", 1)[1] for ln in lines[1:]
                    if ln.lower().startswith("range:") and "=" in ln), None)
        kind, name = path.strip("/").split("/", 1)
        if name.endswith(".idx"):
            if kind == "nosize":
                self.request.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                                     b"Connection: close\r\n\r\n")
                self.request.close()
                return
            body = self.data[name]
            self.send(method, "200 OK", {"Content-Length": len(body)}, body)
            return
        body = self.data[name]
        if kind in ("short", "reset"):
            self.send(method, "200 OK", {"Content-Length": len(body)}, body[:len(body) // 2])
            if kind == "reset":
                self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                        b"\x01\x00\x00\x00\x00\x00\x00\x00")
        elif kind in ("nosize", "nosizeidx"):
            self.send(method, "200 OK", {}, body[:self.cut[name]])
        elif kind == "nosizefull":
            self.send(method, "200 OK", {}, body)
        elif rng is None:
            self.send(method, "200 OK", {"Content-Length": len(body)}, body)
        else:
            a, b = (int(x) for x in rng.split("-"))
            n = b - a + 1
            if kind == "rangestart":
                self.send(method, "206 Partial Content", {
                    "Content-Length": n, "Content-Range": "bytes 0-%d/%d" % (n - 1, len(body))},
                    body[:n])
            else:
                self.send(method, "200 OK", {"Content-Length": n}, body[:n])
        self.request.close()

    def send(self, method, status, headers, body):
        head = "HTTP/1.1 %s\r\n%sContent-Type: application/octet-stream\r\nConnection: close" \
            "\r\n\r\n" % (status, "".join("%s: %s\r\n" % kv for kv in headers.items()))
        self.request.sendall(head.encode() + (b"" if method == "HEAD" else body))


BLOCK = 256 << 10  # the most a split's reader asks for at once (fc_input's first buffer)


def served(www):
    """The folder nginx serves: the corpus (links), and for the parts test
    mnist with its index, a seekable GZIP copy with its member list, and a
    copy whose index lies about two records (one entry for both)."""
    os.makedirs(www)
    for f in os.listdir(CORPUS):
        os.symlink(os.path.abspath(os.path.join(CORPUS, f)), os.path.join(www, f))
    raw = open(os.path.join(CORPUS, FILES["mnist"][0]), "rb").read()
    lines, pos = [], 0
    for rec in framed(raw):
        lines.append((pos, len(rec) + 16))
        pos += len(rec) + 16
    for name, entries in (("ranged.tfrecord", lines),
                          ("liar.tfrecord", lines[:600] + [(lines[600][0], lines[600][1] +
                                                            lines[601][1])] + lines[602:])):
        with open(os.path.join(www, name), "wb") as f:
            f.write(raw)
        with open(os.path.join(www, name + ".idx"), "w") as f:
            f.write("".join("%d %d\n" % e for e in entries))
    write_seekable(raw, os.path.join(www, "ranged.tfrecord.gz"), 100 << 10)
    return raw


def rows(batches):
    """mnist's records, from batches: (class, image bytes) each."""
    out = []
    for b in batches:
        f = b["image_floats"].numpy().tobytes() if hasattr(b["image_floats"], "numpy") \
            else b["image_floats"].tobytes()
        k = len(f) // max(1, len(b["image_class"]))
        out.extend((c, f[i * k:(i + 1) * k]) for i, c in enumerate(b["image_class"].tolist()))
    return out


def test_parts(base, log, www):
    """Splits of URLs with an index, by range requests."""
    import featc.torch as ft
    import featc.dask as fd
    mod = featc.load("mnist")
    with open(log) as f:
        seen = len(f.read().splitlines())
    for name, n in (("ranged.tfrecord", 5), ("ranged.tfrecord.gz", 4)):
        path, url = os.path.join(www, name), base + name
        size = os.path.getsize(path)
        whole = rows(featc.read(path, mod, batch_size=40))
        got, ok = [], True
        for i in range(n):
            local = digest(mod.read(path, split=(i, n), batch_size=40))
            batches = list(featc.read(url, mod, splits=[(i, n)], batch_size=40))
            ok = ok and digest(batches) == local
            got.extend(rows(batches))
        check(ok, "%s: each of %d splits by URL = the local split" % (name, n))
        check(got == whole, "%s: the splits in order are the file's records (%d of %d)"
              % (name, len(got), len(whole)))
        with open(log) as f:
            lines = f.read().splitlines()
        new, seen = lines[seen:], len(lines)
        data = [x.split() for x in new if x.startswith("GET /%s " % name)]
        unranged = [x for x in data if x[5] == "range=-"]
        check(data and not unranged, "%s: every GET of the data has a Range (%d GETs; "
              "without: %r)" % (name, len(data), unranged[:2]))
        sent = sum(int(x[4]) for x in data)
        # each split: its share, and at most one read of the reader's buffer
        # (256 KiB) past its end, and the 12 bytes of the file's head that
        # say what it is
        bound = size + n * (BLOCK + 64)
        check(sent <= bound, "%s: %d bytes sent for %d splits of %d bytes (bound %d)"
              % (name, sent, n, size, bound))
        print("%s: %d splits by %d range requests, %d bytes of the file's %d sent"
              % (name, n, len(data), sent, size))
        check(any(x.startswith("GET /%s.%s " % (name, "members" if name.endswith(".gz")
                                                 else "idx")) for x in new),
              "%s: its index fetched" % name)
    # featc.torch: 2 ranks x 2 workers over the two URLs, split_bytes small
    urls = [base + "ranged.tfrecord", base + "ranged.tfrecord.gz"]
    locs = [os.path.join(www, "ranged.tfrecord"), os.path.join(www, "ranged.tfrecord.gz")]

    want = sorted(rows(featc.read(locs, mod, batch_size=25)))
    got = []
    for rank in range(2):
        ds = ft.TFRecordDataset(mod, urls, 25, split_bytes=300 << 10, rank=rank, world_size=2)
        check(len(ds.parts) > 4, "torch: the URLs cut into %d parts" % len(ds.parts))
        try:
            got.extend(rows(ft.DataLoader(ds, num_workers=2, timeout=60)))
        except RuntimeError as e:
            check(False, "torch by URL parts: %s" % e)
    check(sorted(got) == want and want, "torch, 2 ranks x 2 workers by URL parts: %d records, "
          "from disk %d" % (len(got), len(want)))
    parts = fd.partitions(urls, 300 << 10)
    bag = fd.read_tfrecords(urls, mod, split_bytes=300 << 10, batch_size=25)
    n = sum(len(b["image_class"]) for b in bag.compute(scheduler="sync"))
    check(len(parts) > 4 and n == len(want), "dask by URL parts: %d parts, %d records"
          % (len(parts), n))
    # an index that lies: the split that meets it fails, naming the index
    # (with the message, record and offset of the same split of the local file)
    url, path = base + "liar.tfrecord", os.path.join(www, "liar.tfrecord")
    failed = []
    for i in range(5):
        try:
            list(featc.read(url, mod, splits=[(i, 5)], batch_size=40))
        except mod.DataError as e:
            try:
                list(mod.read(path, split=(i, 5), index=path + ".idx", batch_size=40))
                failed.append((i, str(e), "the local split reads"))
            except mod.DataError as le:
                failed.append((i, str(e), (e.message.replace(url, path), e.record, e.offset) ==
                               (le.message, le.record, le.offset) or (e.message, le.message)))
    check(len(failed) == 1 and "liar.tfrecord.idx" in failed[0][1] and
          "index entry 600" in failed[0][1] and failed[0][2] is True,
          "a lying index: one split fails, as the local file's: %r" % failed)
    # no index beside a URL: read whole (one part)
    check(fd.partitions([base + FILES["mnist"][0]], 300 << 10) ==
          [(base + FILES["mnist"][0], None)], "no index: one part")
    try:
        list(featc.read(base + FILES["mnist"][0], mod, splits=[(0, 2)]))
        check(False, "a split of a URL without an index: read")
    except mod.DataError as e:
        check("needs its index" in str(e), "a split without an index: %s" % e)


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    www = os.path.join(TMP, "www")
    served(www)
    proc, port, log = start_nginx(www)
    base = "http://127.0.0.1:%d/" % port
    try:
        for spec, files in FILES.items():
            mod = featc.load(spec)
            local = [os.path.join(CORPUS, f) for f in files]
            want = digest(featc.read(local, mod, batch_size=50))
            got = digest(featc.read([base + f for f in files], mod, batch_size=50))
            check(got == want and want, "%s by http://: %d batches, from disk %d"
                  % (spec, len(got), len(want)))
            one = digest(featc.read(base + files[0], mod, batch_size=50))
            check(one == digest(featc.read(local[0], mod, batch_size=50)),
                  "%s: one URL, not a list" % spec)
            fu = digest(featc.read(["file://" + os.path.abspath(p) for p in local], mod,
                                   batch_size=50))
            check(fu == want, "%s by file://" % spec)
        with open(log) as f:
            lines = f.read().splitlines()
        gets = [x for x in lines if x.startswith("GET ")]
        for spec, files in FILES.items():
            for f in files:
                mine = [x.split() for x in gets if x.split()[1] == "/" + f]
                size = os.path.getsize(os.path.join(CORPUS, f))
                check(mine and all(m[3] == "200" and int(m[4]) == size and m[5] == "range=-"
                                   for m in mine),
                      "%s: each GET one whole body, streamed: %r" % (f, mine[:3]))
        check(any(x.startswith("HEAD ") for x in lines), "the size is asked: %r" % lines[:2])

        # featc.torch by URL: every record once
        import featc.torch as ft
        mod = featc.load("hadoop")
        urls = [base + f for f in FILES["hadoop"]]
        local = [os.path.join(CORPUS, f) for f in FILES["hadoop"]]
        try:  # (timeout: a worker whose fsspec waits on the parent's event loop hangs)
            rows = sorted(repr(sorted((k, v.numpy().tobytes() if hasattr(v, "numpy") else
                                       repr(v)) for k, v in b.items()))
                          for b in ft.DataLoader(ft.TFRecordDataset(mod, urls, 1), num_workers=2,
                                                 timeout=60))
        except RuntimeError as e:
            rows = []
            check(False, "featc.torch by URL, 2 workers: %s" % e)
        want = sorted(repr(sorted((k, v.numpy().tobytes() if hasattr(v, "numpy") else repr(v))
                                  for k, v in b.items()))
                      for b in ft.DataLoader(ft.TFRecordDataset(mod, local, 1), num_workers=0))
        check(rows == want and want, "featc.torch by URL: %d records, from disk %d"
              % (len(rows), len(want)))
        try:
            list(featc.read(base + "no-such-file.tfrecord", mod))
            check(False, "a missing URL: read")
        except OSError as e:
            check("no-such-file" in str(e), "a missing URL: %s" % e)
        test_parts(base, log, www)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)

    # memory://
    import fsspec
    mem = fsspec.filesystem("memory")
    raw = open(os.path.join(CORPUS, FILES["mnist"][0]), "rb").read()
    with mem.open("/featc-test/mnist.tfrecord", "wb") as f:
        f.write(raw)
    mod = featc.load("mnist")
    check(digest(featc.read("memory:///featc-test/mnist.tfrecord", mod, batch_size=50)) ==
          digest(featc.read(os.path.join(CORPUS, FILES["mnist"][0]), mod, batch_size=50)),
          "memory:// reads as the file")

    # servers that lie: more announced than sent, no size at all, ranges
    # answered from the file's start
    offsets, pos = [], 0
    for rec in framed(raw):
        offsets.append((pos, len(rec) + 16))
        pos += len(rec) + 16
    Liar.data = {"mnist.tfrecord": raw,
                 "mnist.tfrecord.idx": "".join("%d %d\n" % e for e in offsets).encode()}
    Liar.cut = {"mnist.tfrecord": offsets[len(offsets) // 2][0]}
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Liar)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    lport = srv.server_address[1]
    for kind in ("short", "reset"):
        url = "http://127.0.0.1:%d/%s/mnist.tfrecord" % (lport, kind)
        try:
            n = sum(len(b["image_class"]) for b in featc.read(url, mod, batch_size=50))
            check(False, "%s: %d records read, no error" % (kind, n))
        except OSError as e:
            check(url in str(e) and "byte" in str(e), "%s: the error names the URL and the "
                  "byte: %s" % (kind, e))
        except mod.DataError as e:
            check(False, "%s: a DataError (%s), where the transport failed" % (kind, e))
    featc._remote._INFO.clear()
    want_all = sum(len(b["image_class"]) for b in featc.read(
        os.path.join(CORPUS, FILES["mnist"][0]), mod, batch_size=50))
    for kind, words in (("nosize", "the server gave no size"),
                        ("nosizeidx", "the data ends at byte %d of the %d its index places"
                         % (Liar.cut["mnist.tfrecord"], len(raw)))):
        url = "http://127.0.0.1:%d/%s/mnist.tfrecord" % (lport, kind)
        try:
            n = sum(len(b["image_class"]) for b in featc.read(url, mod, batch_size=50))
            check(False, "%s: %d records of %d read, no error" % (kind, n, want_all))
        except OSError as e:
            check(url in str(e) and words in str(e), "%s: %s" % (kind, e))
    url = "http://127.0.0.1:%d/nosizefull/mnist.tfrecord" % lport
    try:
        n = sum(len(b["image_class"]) for b in featc.read(url, mod, batch_size=50))
        check(n == want_all, "nosizefull: %d records of %d" % (n, want_all))
    except OSError as e:
        check(False, "nosizefull, whole and ending where its index says: %s" % e)
    for kind, words in (("rangestart", "the server sent Content-Range: bytes 0-"),
                        ("range200", "the server answered 200, not 206")):
        url = "http://127.0.0.1:%d/%s/mnist.tfrecord" % (lport, kind)
        try:
            n = sum(len(b["image_class"]) for b in featc.read(url, mod, batch_size=50,
                                                                split=(1, 2)))
            check(False, "%s: split (1, 2) read %d records, no error" % (kind, n))
        except OSError as e:
            check(url in str(e) and words in str(e), "%s: %s" % (kind, e))
        except mod.DataError as e:
            check(False, "%s: a DataError (%s), where the server lied" % (kind, e))
    srv.shutdown()
    shutil.rmtree(TMP, ignore_errors=True)
    return finish("remote")


if __name__ == "__main__":
    sys.exit(main())
