#!/usr/bin/env python3
"""featc stats --html in a real browser: headless Chromium (Debian's
`chromium`), driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ending in NUL on file descriptors 3
and 4, so no WebSocket library is needed).

usage: stats_html.py FEATC CORPUS TMPDIR

For the reports of corpus files (an Example file with numeric and bytes
features, a SequenceExample file with context features and feature lists):
- the page loads with no console error, no exception and no log error;
- no network request other than the report itself;
- the rendered text holds every feature's name (from `featc stats --json`),
  and each feature's summary row has a sparkline histogram with at least one
  drawn bar (an SVG rect of non-zero rendered size);
- a screenshot is a PNG that is not blank (several colours);
- the layout, at 1280 and at 800 px wide (a screenshot of each): nothing
  spills out of the page or of a card (a section, its figures and its
  quantile cells); at 1280 px no table needs its scroll box either;
- the overview has "missing" and "std" columns, a bytes feature's figures
  say they are lengths (" B"), no number is in e-notation, no type is "-",
  and every detail histogram has a count axis (a line, 0 and its top).
Prints "stats-html: N passed, M failed".
"""
import base64
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import time
import zlib
from tally import check, finish  # noqa: E402

FEATC = CORPUS = TMP = None  # main() sets them (stats_compare.py imports the browser)


class Browser:
    def __init__(self, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():
            # through fresh descriptors: a pipe may already sit on 3 or 4,
            # and dup2 onto itself would keep its close-on-exec flag
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        exe = shutil.which("chromium") or "/usr/bin/chromium"
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile,
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=fds)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            r, _, _ = select.select([self.from_r], [], [], left)
            if r:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        i = self.send(method, params, session)
        deadline = time.time() + timeout
        while True:
            m = self.read(deadline)
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m["result"]
            self.events.append(m)

    def wait_event(self, name, timeout=30):
        deadline = time.time() + timeout
        for m in self.events:
            if m.get("method") == name:
                return m
        while True:
            m = self.read(deadline)
            self.events.append(m)
            if m.get("method") == name:
                return m

    def page(self):
        """A new page, attached, with the events the checks read enabled: its
        session id."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable", {}, session)
        return session

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def png_colours(png):
    """The number of distinct pixels of an 8-bit RGB(A) PNG (non-interlaced)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return 0
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    seen = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 8 == 0:
            for x in range(0, stride, bpp * 8):
                seen.add(bytes(line[x:x + 3]))
        prev = line
    return len(seen)


PROBE = """(() => {
  const text = document.body.innerText;
  const rows = [];
  for (const tr of document.querySelectorAll('tr')) {
    const a = tr.querySelector('td.n a');
    if (!a) continue;
    const bars = [...tr.querySelectorAll('svg.spark rect.bin')]
      .map(r => r.getBoundingClientRect()).filter(b => b.width > 0 && b.height > 0);
    rows.push({name: a.textContent, bars: bars.length,
               cells: [...tr.children].map(td => td.textContent),
               head: [...tr.closest('table').querySelector('tr').children].map(th => th.textContent)});
  }
  const details = document.querySelectorAll('section svg.hist rect.bin').length;
  const heads = [...document.querySelectorAll('tr')].filter(tr => tr.querySelector('th.n'))
    .map(tr => [...tr.children].map(th => th.textContent));
  return JSON.stringify({text, rows, details, heads});
})()"""

LAYOUT = """(() => {
  const over = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1)
    over.push('the page: ' + doc.scrollWidth + ' > ' + window.innerWidth);
  for (const el of document.querySelectorAll('section, figure, .q, p, h1, h2, h3')) {
    const box = el.getBoundingClientRect(), host = el.parentElement.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || box.right > host.right + 1)
      over.push(el.tagName + (el.id ? '#' + el.id : '') + ': ' + el.scrollWidth + ' > ' +
                el.clientWidth);
  }
  const scrolling = [...document.querySelectorAll('.scroll')]
    .filter(e => e.scrollWidth > e.clientWidth + 1).length;
  const sci = [...document.querySelectorAll('td, .q div, svg text')].map(e => e.textContent)
    .filter(t => /[0-9][eE][+-]?[0-9]/.test(t));
  const types = [...document.querySelectorAll('td.t')].map(e => e.textContent)
    .filter(t => t.trim() === '-');
  const hists = [...document.querySelectorAll('section svg.hist')];
  const noaxis = hists.filter(h => !h.querySelector('line.axis') ||
                                   h.querySelectorAll('text.ytick').length < 2).length;
  return JSON.stringify({over, scrolling, sci, types, noaxis, hists: hists.length});
})()"""


def load(browser, session, html, probe, name):
    """Opens the report html, checks that it loads with no console error and
    no request but its own, and returns what the script probe gives."""
    url = "file://" + os.path.abspath(html)
    browser.events = []
    browser.call("Page.navigate", {"url": url}, session)
    browser.wait_event("Page.loadEventFired")
    res = browser.call("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session)
    errors = [m for m in browser.events
              if m.get("method") == "Runtime.exceptionThrown"
              or (m.get("method") == "Runtime.consoleAPICalled"
                  and m["params"]["type"] in ("error", "assert"))
              or (m.get("method") == "Log.entryAdded"
                  and m["params"]["entry"]["level"] == "error")]
    check(not errors, "%s: console errors %r" % (name, errors[:3]))
    requests = [m["params"]["request"]["url"] for m in browser.events
                if m.get("method") == "Network.requestWillBeSent"]
    check(requests == [url], "%s: requests %r" % (name, requests))
    return json.loads(res["result"]["value"])


def shoot(browser, session, width, path, name):
    """At width px: the LAYOUT probe's findings, after a screenshot saved at
    path and checked not blank (its number of colours is returned too)."""
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 1200, "deviceScaleFactor": 1, "mobile": False},
                 session)
    res = browser.call("Runtime.evaluate", {"expression": LAYOUT, "returnByValue": True}, session)
    lay = json.loads(res["result"]["value"])
    check(not lay["over"], "%s at %d px: overflows %r" % (name, width, lay["over"][:5]))
    img = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"},
                                        session)["data"])
    with open(path, "wb") as f:
        f.write(img)
    colours = png_colours(img)
    check(colours >= 4, "%s: the %d px screenshot has %d colours" % (name, width, colours))
    return lay, img, colours


def report(browser, session, corpus_file, shot):
    # Read through a long directory name: the title is the path as given, and a
    # checkout's path can be long (CI's is); the page must wrap it at 800 px too.
    deep = os.path.join(TMP, "a_checkout_under_a_long_directory_name_" * 3)
    os.makedirs(deep, exist_ok=True)
    path = os.path.join(deep, corpus_file)
    if not os.path.lexists(path):
        os.symlink(os.path.abspath(os.path.join(CORPUS, corpus_file)), path)
    html = os.path.join(TMP, corpus_file + ".html")
    p = subprocess.run([FEATC, "stats", "-q", "--json", "--html=" + html, path],
                       stdout=subprocess.PIPE)
    rc, s = p.returncode, json.loads(p.stdout)
    check(rc == 0 and os.path.exists(html), corpus_file + ": report written")
    page = load(browser, session, html, PROBE, corpus_file)
    keys = s["features"] + s["feature_lists"]
    names = [k["name"] for k in keys]
    check(len(names) > 0, corpus_file + ": has features")
    rows = {r["name"]: r["bars"] for r in page["rows"]}
    for k in keys:
        n = k["name"]
        # a key that only ever holds Feature{} has no values to draw
        has_values = any(k.get(t, {}).get("finite", k.get(t, {}).get("length", {}))
                         .get("count", 0) > 0 for t in ("int64", "float", "bytes"))
        check(n in page["text"], "%s: %r is on the page" % (corpus_file, n))
        check((rows.get(n, 0) > 0) == has_values, "%s: %r has a drawn histogram (%r bars)"
              % (corpus_file, n, rows.get(n)))
    check(page["details"] > 0, corpus_file + ": detail histograms drawn")
    overview = [h for h in page["heads"] if h and h[0] == "name"]
    check(overview and all("missing" in h and "std" in h for h in overview),
          "%s: the overview's columns %r" % (corpus_file, overview[:1]))
    cells = {r["name"]: (r["cells"], r["head"]) for r in page["rows"]}
    for k in keys:
        only_bytes = "bytes" in k and "int64" not in k and "float" not in k
        c, head = cells.get(k["name"], (None, None))
        if only_bytes and c and "min" in head and c[head.index("min")] != "-":
            col = head.index("min")
            check(all(c[i].endswith(" B") for i in range(col, col + 5)),
                  "%s: %r's figures do not say they are lengths: %r"
                  % (corpus_file, k["name"], c[col:col + 5]))
    for width in (1280, 800):
        lay, img, colours = shoot(browser, session, width, shot.replace(".png", "-%d.png" % width),
                                  corpus_file)
        if width == 1280:
            check(lay["scrolling"] == 0, "%s at 1280 px: %d tables need their scroll box"
                  % (corpus_file, lay["scrolling"]))
            check(not lay["sci"], "%s: numbers in e-notation %r" % (corpus_file, lay["sci"][:5]))
            check(not lay["types"], "%s: %d features typed '-'" % (corpus_file, len(lay["types"])))
            check(lay["hists"] > 0 and lay["noaxis"] == 0, "%s: %d of %d histograms lack a count "
                  "axis" % (corpus_file, lay["noaxis"], lay["hists"]))
        print("stats-html: %s at %d px: %d features, %d rows drawn, screenshot %d bytes, "
              "%d colours, %d tables scrolled" % (corpus_file, width, len(names),
                                                  sum(1 for n in names if rows.get(n, 0) > 0),
                                                  len(img), colours, lay["scrolling"]))


def main():
    global FEATC, CORPUS, TMP
    FEATC, CORPUS, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
    profile = os.path.join(TMP, "chromium-profile")
    os.makedirs(profile, exist_ok=True)
    b = Browser(profile)
    try:
        session = b.page()
        for f in ("tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz",
                  "tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz",
                  "lingvo__wmt14_ende_wpm_32k_test.tfrecord"):
            report(b, session, f, os.path.join(TMP, f + ".png"))
    except (OSError, EOFError, RuntimeError, KeyError, ValueError) as e:
        check(False, "chromium: %s" % e)
    finally:
        b.close()
    return finish("stats-html")


if __name__ == "__main__":
    sys.exit(main())
