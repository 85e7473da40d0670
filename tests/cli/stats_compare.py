#!/usr/bin/env python3
"""featc stats --html --compare in headless Chromium (stats_html.py's
browser): two datasets in one report.

usage: stats_compare.py FEATC CORPUS TMPDIR

Three comparisons: the corpus's Chicago taxi file against a copy with its
payment types swapped, fares doubled and hours moved (written here), the
taxi file against the penguin file (no feature in common), and a
SequenceExample file against itself.  For each:
- the page loads with no console error and no request but its own;
- every feature of both (`stats --json`) is on the page, with a row per
  dataset, and "not in this data" where a dataset lacks it;
- each numeric feature both datasets hold has its two histograms drawn over
  one range (SVG rects of both classes with a rendered size), each string
  feature its top values side by side, with each dataset's share of the
  value (against `stats --json`'s counts);
- the drift of each feature equals what `featc validate --against` prints
  for it (9 digits), and exactly the features above 0.1 are marked;
- at 1280 and 800 px nothing spills out of the page or a card, at 1280 no
  table needs its scroll box, a screenshot of each is a PNG of several
  colours.
Prints "stats-compare: N passed, M failed"."""
import gzip
import json
import os
import re
import subprocess
import sys

from tally import check, finish  # noqa: E402
from stats_html import Browser, load, shoot  # noqa: E402

FEATC, CORPUS, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tfmd"))
from protos import compile_protos  # noqa: E402
from framing import frame, records  # noqa: E402 (tests/oracle, on protos' path)

TAXI = "tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz"
PENGUIN = "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz"
SEQUENCE = "tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz"


def shifted_taxi():
    compile_protos(TMP, ("tf_example.proto",), include=os.path.join(HERE, "..", "bench"))
    import tf_example_pb2 as tf
    out = bytearray()
    for payload in records(gzip.open(os.path.join(CORPUS, TAXI)).read()):
        ex = tf.Example.FromString(payload)
        fs = ex.features.feature
        pay = fs["payment_type"].bytes_list.value
        pay[:] = [{b"Cash": b"Credit Card", b"Credit Card": b"Cash"}.get(x, x) for x in pay]
        fs["fare"].float_list.value[:] = [x * 2 + 5 for x in fs["fare"].float_list.value]
        fs["trip_start_hour"].int64_list.value[:] = [
            (x + 8) % 24 for x in fs["trip_start_hour"].int64_list.value]
        out += frame(ex.SerializeToString())
    path = os.path.join(TMP, "taxi_shifted.tfrecord")
    with open(path, "wb") as f:
        f.write(out)
    return path


PROBE = """(() => {
  const rows = [];
  for (const tr of document.querySelectorAll('tr.ka')) {
    const next = tr.nextElementSibling;
    const name = tr.querySelector('td.n').textContent;
    const drift = tr.querySelector('td.drift');
    const rects = cls => [...tr.querySelectorAll('svg.cmp rect.' + cls)]
      .map(r => r.getBoundingClientRect()).filter(b => b.width > 0 && b.height > 0).length;
    rows.push({name, a: tr.innerText, b: next ? next.innerText : '',
               drift: drift.getAttribute('data-drift'), hot: drift.classList.contains('hot'),
               bars_a: rects('a'), bars_b: rects('b'),
               top: [...tr.querySelectorAll('.tv span')].map(s => s.textContent),
               list: !!tr.closest('table').querySelector('th') &&
                     tr.closest('table').querySelector('tr').innerText.includes('per frame')});
  }
  return JSON.stringify({rows, text: document.body.innerText});
})()"""


def stats_json(path):
    p = subprocess.run([FEATC, "stats", "-q", "--json", path], capture_output=True, text=True)
    return json.loads(p.stdout)


def drift_lines(a, b):
    """validate --against's measurements of every feature, by name."""
    spec = subprocess.run([FEATC, "infer", a], capture_output=True, text=True).stdout
    sp = os.path.join(TMP, "inferred.feat")
    with open(sp, "w") as f:
        f.write(spec)
    p = subprocess.run([FEATC, "validate", "--schema", sp, "--linf", "0.1", "--jsd", "0.1", a,
                        "--against", b], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    got = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(.+): drift ([A-Z_]+): (\S+), threshold", line)
        if m:
            got[m.group(1).replace("##SEQUENCE##/", "")] = (m.group(2), float(m.group(3)))
    return got


def compare(browser, session, name, a, b, shot, common=True):
    html = os.path.join(TMP, name + ".html")
    p = subprocess.run([FEATC, "stats", "-q", "--html=" + html, a, "--compare", b],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0 and os.path.exists(html), "%s: report written (%s)" % (name, p.stderr))
    page = load(browser, session, html, PROBE, name)
    sa, sb = stats_json(a), stats_json(b)
    keys = {}
    for side, s in ((0, sa), (1, sb)):
        for k in s["features"] + s["feature_lists"]:
            keys.setdefault(k["name"], [None, None])[side] = k
    rows = {r["name"]: r for r in page["rows"]}
    check(len(rows) == len(keys) and len(keys) > 0,
          "%s: %d feature rows for %d features" % (name, len(rows), len(keys)))
    drifts = drift_lines(a, b) if common else {}
    for key, (ka, kb) in sorted(keys.items()):
        r = rows.get(key)
        if r is None:
            check(False, "%s: %r has no row" % (name, key))
            continue
        for k, text in ((ka, r["a"]), (kb, r["b"])):
            check((k is None) == ("not in this data" in text),
                  "%s: %r: a row says 'not in this data' wrongly: %r" % (name, key, text[:120]))
        numeric = [t for t in ("int64", "float") if ka and kb and t in ka and t in kb and
                   ka[t]["finite"]["count"] > 0 and kb[t]["finite"]["count"] > 0]
        text_values = ka and kb and "bytes" in ka and "bytes" in kb and "int64" not in ka \
            and "float" not in ka
        if numeric:
            check(r["bars_a"] > 0 and r["bars_b"] > 0,
                  "%s: %r: overlaid histograms drawn %d + %d" % (name, key, r["bars_a"],
                                                                r["bars_b"]))
        if text_values and ka["bytes"]["top"] and \
                ka["bytes"]["top"][0]["count"] > ka["bytes"]["top_error"]:
            top = ka["bytes"]["top"][0]
            shares = [100.0 * c / s["bytes"]["count"] if s else 0
                      for s, c in ((ka, top["count"]),
                                   (kb, next((t["count"] for t in kb["bytes"]["top"]
                                              if t["value"] == top["value"]), 0)))]
            want = "%.1f%% / %.1f%%" % tuple(shares)
            shown = dict(zip(r["top"][0::2], r["top"][1::2]))  # value -> its shares
            check(shown.get(top["value"]) == want, "%s: %r: top value %r shown as %r, not %r"
                  % (name, key, top["value"], shown.get(top["value"]), want))
        if not common or ka is None or kb is None:
            check(r["drift"] is None, "%s: %r: a drift without both datasets" % (name, key))
            continue
        if key in drifts:
            kind, value = drifts[key]
            got = (r["drift"] or "").split()
            check(len(got) == 2 and got[0] == kind and abs(float(got[1]) - value) <=
                  1e-9 + 1e-8 * value,
                  "%s: %r: drift %r, validate --against says %s %r" % (name, key, r["drift"],
                                                                       kind, value))
            check(r["hot"] == (value > 0.1), "%s: %r: marked %s at %r" % (name, key, r["hot"],
                                                                          value))
    for width in (1280, 800):
        lay, img, colours = shoot(browser, session, width, shot.replace(".png", "-%d.png" % width),
                                  name)
        check(not lay["sci"], "%s: numbers in e-notation %r" % (name, lay["sci"][:5]))
        if width == 1280:
            check(lay["scrolling"] == 0, "%s at 1280 px: %d tables need their scroll box"
                  % (name, lay["scrolling"]))
        print("stats-compare: %s at %d px: %d features, %d drifts, screenshot %d bytes, "
              "%d colours" % (name, width, len(rows), len(drifts), len(img), colours))
    return drifts


def main():
    profile = os.path.join(TMP, "chromium-profile-compare")
    os.makedirs(profile, exist_ok=True)
    taxi, shifted = os.path.join(CORPUS, TAXI), shifted_taxi()
    b = Browser(profile)
    try:
        session = b.page()
        drifts = compare(b, session, "taxi-shifted", taxi, shifted,
                         os.path.join(TMP, "compare-taxi.png"))
        hot = sorted(k for k, (_, v) in drifts.items() if v > 0.1)
        check(hot == ["fare", "payment_type", "trip_start_hour"],
              "taxi against its shifted copy: drift above 0.1 for %r" % hot)
        compare(b, session, "taxi-penguin", taxi, os.path.join(CORPUS, PENGUIN),
                os.path.join(TMP, "compare-disjoint.png"), common=False)
        seq = os.path.join(CORPUS, SEQUENCE)
        drifts = compare(b, session, "sequence-itself", seq, seq,
                         os.path.join(TMP, "compare-sequence.png"))
        check(drifts and all(v == 0 for _, v in drifts.values()),
              "a file against itself: drifts %r" % sorted(drifts.items())[:4])
    except (OSError, EOFError, RuntimeError, KeyError, ValueError) as e:
        check(False, "chromium: %s" % e)
    finally:
        b.close()
    return finish("stats-compare")


if __name__ == "__main__":
    sys.exit(main())
