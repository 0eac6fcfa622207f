#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The history's static site (hvbench history publish OUT): from
OUT/data.json (harness/history/history_publish.c) write

  OUT/index.html        every benchmark (cell and metric) with its
                        precision; the open regressions (series whose last
                        change point is a regression) first
  OUT/bench/PAGE.html   one benchmark (PAGE: page_name()): its ratio series (on the first
                        reference's scale across moves of the reference,
                        each move marked) with its CI band, and its
                        absolute series, as inline SVG charts; change
                        points marked (red a regression, green an
                        improvement) and listed with their ids and triage
                        labels, each linked to the review it was recorded
                        from; the precision of the labelled ones
  OUT/atom.xml          an Atom feed, one entry per change point

No server and no script: plain HTML and SVG, the same bytes for the same
data.  Every file is written to a temporary file made with O_EXCL and
renamed into place: a symlink planted in OUT is replaced, never written
through.  Usage: history_site.py DATA.json OUT
"""
import hashlib
import html
import json
import os
import re
import stat
import sys
import tempfile

W, H, PAD = 900, 320, 50


def slug(s):
    return re.sub(r"[^A-Za-z0-9.=-]", "_", s)


def page_name(key):
    """A benchmark's page: a readable prefix and a hash of the whole key,
    short, unique and stable.  (The slug alone made "lookup/x" and
    "lookup_x" one page, and a 250-character cell a name too long.)"""
    h = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
    return "%s-%s" % (slug(key)[:48], h[:16])


MACHINES = set()  # every series' machine: more than one, pages say which


def on(s):
    return " on %s" % s.get("machine") if len(MACHINES) > 1 else ""


def name(s):
    return "%s %s %s%s" % (s["cell"], s["metric"], s["series"], on(s))


def bench(s):
    """The benchmark a series is of: its cell and metric (and machine,
    where the history holds more than one: never mixed)."""
    return "%s %s%s" % (s["cell"], s["metric"], on(s))


def value(p):
    """A point as drawn: on the chained scale where there is one."""
    c = p.get("chained")
    return c["value"] if c and c["value"] is not None else p["value"]


def ci(p):
    c = p.get("chained")
    return c["ci"] if c else p["ci"]


def precision(series):
    """(real + expected, labelled) over the change points kept."""
    good = sum(s["triage"]["real"] + s["triage"]["expected"] for s in series)
    return good, good + sum(s["triage"]["noise"] for s in series)


def precision_text(series):
    good, n = precision(series)
    if not n:
        return "no change point triaged yet"
    return "precision %.0f%% (%d of %d labelled: real or expected)" % (
        100.0 * good / n, good, n)


def chart(s):
    """An SVG of series s: the points, their CI band, the changes.  A
    stray (a review against a base that is no reference) is on no
    reference's scale: not drawn."""
    pts = [p for p in s["points"] if not (p.get("chained") or {}).get("stray")]
    vals = [value(p) for p in pts]
    lo = [ci(p)[0] if ci(p)[0] is not None else value(p) for p in pts]
    hi = [ci(p)[1] if ci(p)[1] is not None else value(p) for p in pts]
    ymin, ymax = min(lo + vals), max(hi + vals)
    if ymax == ymin:
        ymin, ymax = ymin - 0.5 * abs(ymin or 1) * 0.01, ymax + 0.5 * abs(ymax or 1) * 0.01
    n = len(pts)

    def x(i):
        return PAD + (W - 2 * PAD) * (i / (n - 1) if n > 1 else 0.5)

    def y(v):
        return H - PAD - (H - 2 * PAD) * (v - ymin) / (ymax - ymin)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" role="img" aria-label="%s">' %
           (W, H, W, H, html.escape(name(s)))]
    out.append('<rect width="%d" height="%d" fill="white"/>' % (W, H))
    if any(ci(p)[0] is not None for p in pts):
        band = ["%.1f,%.1f" % (x(i), y(hi[i])) for i in range(n)]
        band += ["%.1f,%.1f" % (x(i), y(lo[i])) for i in reversed(range(n))]
        out.append('<polygon class="ci" points="%s" fill="#9ecae1" '
                   'fill-opacity="0.5"/>' % " ".join(band))
    out.append('<polyline class="series" points="%s" fill="none" '
               'stroke="#1f77b4" stroke-width="1.5"/>' %
               " ".join("%.1f,%.1f" % (x(i), y(v)) for i, v in enumerate(vals)))
    for c in s["changes"]:
        col = "#d62728" if c["kind"] == "regression" else "#2ca02c"
        xi = x(c["index"] - 0.5)
        out.append('<line class="%s" x1="%.1f" x2="%.1f" y1="%d" y2="%d" '
                   'stroke="%s" stroke-width="3"/>' %
                   (c["kind"], xi, xi, PAD, H - PAD, col))
    for m in s.get("moves", []):
        xi = x(m["index"] - 0.5)
        out.append('<line class="move" x1="%.1f" x2="%.1f" y1="%d" y2="%d" '
                   'stroke="#7f7f7f" stroke-dasharray="6,4"/>' %
                   (xi, xi, PAD, H - PAD))
        out.append('<text x="%.1f" y="%d" font-size="10">reference %s%s'
                   '</text>' % (xi + 2, PAD - 4, html.escape(
                       (m["to"] or "?")[:8]), "" if m["overlap"] else
                       " (break)"))
    for v in (ymin, ymax):
        out.append('<text x="4" y="%.1f" font-size="11">%.5g</text>' %
                   (y(v) + 4, v))
    out.append('<text x="%d" y="%d" font-size="11">point (in the order '
               'recorded)</text>' % (W // 2 - 60, H - 10))
    out.append("</svg>")
    return "\n".join(out)


def review_link(p):
    src = p.get("source") or ""
    if src.endswith("review.json"):
        page = os.path.join(os.path.dirname(os.path.abspath(src)), "index.html")
        return '<a href="file://%s">review</a>' % html.escape(page)
    return html.escape(src) if src else "-"


def change_text(c):
    """+3.44%, 95% CI [+2.91%, +3.97%]: the change and its CI."""
    b = c["before"]
    if not b:
        return "-"
    out = "%+.2f%%" % (100 * (c["after"] / b - 1))
    lo, hi = (c.get("diff_ci") or [None, None])[:2]
    if lo is not None and hi is not None:
        out += ", 95%% CI [%+.2f%%, %+.2f%%]" % (100 * lo / b, 100 * hi / b)
    return out


def changes_table(s):
    rows = []
    for c in s["changes"]:
        p, q = s["points"][c["index"]], s["points"][c["index"] - 1]
        rows.append("<tr class=\"%s\"><td>#%s</td><td>%s</td><td><code>%s"
                    "</code></td><td><code>%s</code></td><td>%.6g &rarr; %.6g "
                    "(%s)</td><td>%.2g</td><td>%s</td><td>%s</td></tr>" %
                    (c["kind"], c.get("id", "?"), c["kind"],
                     html.escape((p["commit"] or "?")[:12]),
                     html.escape((q["commit"] or "?")[:12]), c["before"],
                     c["after"], change_text(c), c["p"],
                     html.escape(c.get("label") or "untriaged") +
                     (": " + html.escape(c["note"]) if c.get("note") else ""),
                     review_link(p)))
    return ("<table border=\"1\"><tr><th>id</th><th>kind</th><th>at commit"
            "</th><th>after</th><th>mean before &rarr; after (change, its CI)"
            "</th><th>p</th><th>triage</th><th>recorded from</th></tr>%s"
            "</table>" %
            ("".join(rows) or "<tr><td colspan=\"8\">none</td></tr>"))


def moves_text(s):
    out = []
    for m in s.get("moves", []):
        if m["overlap"]:
            out.append("<li>reference %s &rarr; %s at point %d: chained by "
                       "the overlap review of %s (factor %.6g)</li>" % (
                           html.escape((m["from"] or "?")[:12]),
                           html.escape((m["to"] or "?")[:12]), m["index"],
                           html.escape((m["overlap"] or "?")[:12]),
                           m["factor"]))
        else:
            out.append("<li>reference %s &rarr; %s at point %d without an "
                       "overlap: the series breaks there, nothing is "
                       "compared across it</li>" % (
                           html.escape((m["from"] or "?")[:12]),
                           html.escape((m["to"] or "?")[:12]), m["index"]))
    return "<ul class=\"moves\">%s</ul>" % "".join(out) if out else ""


def page(group):
    title = bench(group[0])
    parts = []
    for s in sorted(group, key=lambda s: s["series"] != "ratio"):
        what = ("paired ratio head/reference, on the first reference's scale"
                if s["series"] == "ratio" else "absolute figure")
        parts.append("<h2 id=\"%s\">%s (%s)</h2><p>%d points, unit %s.</p>"
                     "\n%s\n%s<h3>Change points</h3>%s" % (
                         s["series"], html.escape(s["series"]), what,
                         len(s["points"]), html.escape(s.get("unit") or "-"),
                         chart(s), moves_text(s), changes_table(s)))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s"
            "</title></head><body><p><a href=\"../index.html\">all "
            "benchmarks</a></p><h1>%s</h1><p class=\"precision\">%s. Label a "
            "change point with <code>hvbench history triage ID "
            "real|noise|expected</code>.</p>%s</body></html>\n" %
            (html.escape(title), html.escape(title),
             html.escape(precision_text(group)), "".join(parts)))


def groups(series):
    """The series by benchmark, in the order first seen."""
    out = {}
    for s in series:
        out.setdefault(bench(s), []).append(s)
    return out


def index(series):
    open_ = [s for s in series
             if s["changes"] and s["changes"][-1]["kind"] == "regression"]

    def row(s):
        last = s["changes"][-1] if s["changes"] else None
        return ("<tr><td><a href=\"bench/%s.html#%s\">%s</a></td><td>%s</td>"
                "<td>%s</td><td>%d</td><td>%d</td><td>%s</td></tr>" %
                (page_name(bench(s)), s["series"], html.escape(s["cell"] + on(s)),
                 html.escape(s["metric"]), s["series"], len(s["points"]),
                 len(s["changes"]), last["kind"] if last else "-"))

    def brow(key, group):
        good, n = precision(group)
        return ("<tr><td><a href=\"bench/%s.html\">%s</a></td><td>%s</td>"
                "<td>%s</td><td>%d</td><td>%s</td></tr>" %
                (page_name(key), html.escape(group[0]["cell"] + on(group[0])),
                 html.escape(group[0]["metric"]),
                 ", ".join(s["series"] for s in group),
                 sum(len(s["changes"]) for s in group),
                 "%.0f%% (%d/%d)" % (100.0 * good / n, good, n) if n else "-"))
    head = ("<tr><th>cell</th><th>metric</th><th>series</th><th>points</th>"
            "<th>change points</th><th>last change</th></tr>")
    bhead = ("<tr><th>cell</th><th>metric</th><th>series</th><th>change "
             "points</th><th>precision (triaged)</th></tr>")
    g = groups(series)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hvbench "
            "history</title><link rel=\"alternate\" type=\"application/atom+xml\" "
            "href=\"atom.xml\"></head><body><h1>hvbench history</h1>"
            "<h2 id=\"open\">Open regressions (%d)</h2><table border=\"1\">%s%s"
            "</table><h2>Every benchmark (%d)</h2><p>%s.</p><table border=\"1\">"
            "%s%s</table><p><a href=\"atom.xml\">Atom feed</a> of the change "
            "points.</p></body></html>\n" %
            (len(open_), head, "".join(row(s) for s in open_), len(g),
             html.escape(precision_text(series)), bhead,
             "".join(brow(k, v) for k, v in g.items())))


def atom(series):
    entries = []
    newest = ""
    for s in series:
        for c in s["changes"]:
            p = s["points"][c["index"]]
            at = p["at"] or "1970-01-01T00:00:00Z"
            newest = max(newest, at)
            entries.append(
                "<entry><id>tag:hvbench,2026:%s:%d</id><title>%s: %s at %s"
                "</title><updated>%s</updated><link href=\"bench/%s.html\"/>"
                "<summary>%.6g to %.6g, p %.2g</summary></entry>" %
                (page_name(name(s)), p["run"], c["kind"],
                 html.escape(name(s)), html.escape((p["commit"] or "?")[:12]),
                 at, page_name(bench(s)), c["before"], c["after"], c["p"]))
    return ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns="
            "\"http://www.w3.org/2005/Atom\"><title>hvbench history: change "
            "points</title><id>tag:hvbench,2026:history</id><updated>%s"
            "</updated>%s</feed>\n" %
            (newest or "1970-01-01T00:00:00Z", "".join(entries)))


def own_dir(path):
    """@path made where missing; a directory of this user's (not a
    symlink), else a one-line error and exit 2."""
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        pass
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        fail("%s: %s, not a directory of this user's: refused, nothing "
             "written there" % (path, "a symlink" if stat.S_ISLNK(st.st_mode)
                                else "not ours"))


def fail(why):
    sys.stderr.write("hvbench: history publish: %s\n" % why)
    sys.exit(2)


def write(path, text):
    """@text as @path, atomically, never through a symlink at @path."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    data, out = sys.argv[1], sys.argv[2]
    series = json.load(open(data))["series"]
    MACHINES.update(s.get("machine") for s in series)
    own_dir(os.path.join(out, "bench"))
    for key, group in groups(series).items():
        write(os.path.join(out, "bench", page_name(key) + ".html"),
              page(group))
    write(os.path.join(out, "index.html"), index(series))
    write(os.path.join(out, "atom.xml"), atom(series))
    nch = sum(len(s["changes"]) for s in series)
    nopen = sum(1 for s in series if s["changes"] and
                s["changes"][-1]["kind"] == "regression")
    print("history publish: %d series, %d change point(s), %d open "
          "regression(s): %s" % (len(series), nch, nopen,
                                 os.path.join(out, "index.html")))


if __name__ == "__main__":
    main()
