#!/usr/bin/env python3
"""Sources by URL (featc._remote, through fsspec) against the same files
read from disk.

usage: test_remote.py BUILD CORPUS TMP

A local nginx (Debian's, started here on 127.0.0.1 with a configuration of
its own, stopped at the end) serves the corpus: featc.read, featc.torch
and featc.dask by http:// URL give what the local paths give, and the
access log shows one GET per read of a file, its whole body streamed in
order (after a HEAD for its size).
memory:// and file:// URLs likewise.  A server of this script's own lies:
it announces more bytes than it sends (the connection closed early, or
reset): the read raises OSError naming the URL and the byte offset, never
a short file that reads as whole."""
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
from module_vs_driver import digest as batch_digest  # noqa: E402
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
    """HEAD and GET of /short/NAME and /reset/NAME: the file's length
    announced, half its bytes sent, then the connection closed (short) or
    reset (reset)."""
    data = {}

    def handle(self):
        req = b""
        while b"\r\n\r\n" not in req:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            req += chunk
        line = req.split(b"\r\n", 1)[0].decode()
        method, path = line.split(" ")[:2]
        kind, name = path.strip("/").split("/", 1)
        body = self.data[name]
        head = ("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: application/octet-stream"
                "\r\nConnection: close\r\n\r\n" % len(body)).encode()
        if method == "HEAD":
            self.request.sendall(head)
            return
        self.request.sendall(head + body[:len(body) // 2])
        if kind == "reset":
            self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                    b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.request.close()


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    proc, port, log = start_nginx(CORPUS)
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

    # a server that announces more than it sends
    Liar.data = {"mnist.tfrecord": raw}
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
    srv.shutdown()
    shutil.rmtree(TMP, ignore_errors=True)
    return finish("remote")


if __name__ == "__main__":
    sys.exit(main())
