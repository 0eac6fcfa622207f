#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The history's static site (hvbench history publish OUT): from
OUT/data.json (harness/history/history_publish.c) write

  OUT/index.html        every benchmark (cell and metric) with its
                        precision; the open regressions (series whose last
                        change point is a regression nobody has triaged
                        yet) first
  OUT/bench/PAGE.html   one benchmark (PAGE: page_name()): its ratio series (on the first
                        reference's scale across moves of the reference,
                        each move that "history reference set" made
                        marked, and no other) with its CI band, and its
                        absolute series, as inline SVG charts: the points
                        in commit order (the repository's topological
                        order, where publish had it), short hashes on the
                        x axis, each point a link to the review or results
                        file it was recorded from with its commit's
                        subject, date, value and CI as its tooltip; change
                        points marked (red a regression, green an
                        improvement) and listed with their ids and triage
                        labels; the precision of the labelled ones
  OUT/atom.xml          an Atom feed, one entry per change point
  OUT/style.css         the one small stylesheet (a phone's width too)

No server and no script: plain HTML, SVG and CSS, the same bytes for the
same data.  Every file is written to a temporary file made with O_EXCL and
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
import urllib.parse

W, H, PAD, BOTTOM = 900, 360, 56, 96  # BOTTOM: room for the hashes
MAX_TICKS = 30  # hashes on the x axis at most; every Nth beyond
COMMITS = {}  # data.json's commits: {hash: {rank, date, subject}}
REFS = []  # data.json's references: the pins, oldest first

STYLE = """\
/* hvbench history: one small stylesheet, readable on a phone. */
body { font: 15px/1.45 system-ui, sans-serif; color: #222; margin: 0 auto;
       padding: 0.5em 1em 2em; max-width: 960px; }
h1 { font-size: 1.5em; margin: 0.4em 0; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; }
a { color: #1f5fa8; }
code { font-size: 0.92em; background: #f3f3f3; padding: 0 0.2em; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.93em; }
th, td { border: 1px solid #d0d0d0; padding: 0.3em 0.55em; text-align: left;
         vertical-align: top; }
th { background: #f0f3f7; }
tr:nth-child(even) td { background: #fafafa; }
tr.regression td:first-child { border-left: 4px solid #d62728; }
tr.improvement td:first-child { border-left: 4px solid #2ca02c; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
svg.chart { width: 100%; height: auto; max-width: 900px; display: block; }
svg.chart .point:hover { r: 7; }
.note { color: #555; font-size: 0.9em; }
details.points summary { cursor: pointer; color: #1f5fa8; margin: 0.3em 0; }
@media (max-width: 600px) {
  body { font-size: 14px; padding: 0.3em 0.5em 1.5em; }
  th, td { padding: 0.25em 0.35em; }
  svg.chart text { font-size: 17px; }  /* the chart is drawn at ~40% */
}
"""


def head(title, css):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, "
            "initial-scale=1\"><title>%s</title><link rel=\"stylesheet\" "
            "href=\"%s\">" % (html.escape(title), css))


def short(h):
    return (h or "?")[:7]


def commit_of(p):
    return COMMITS.get(p.get("commit") or "", {})


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


def set_at(m):
    """When the pin of @m's new reference was set ("" if unknown)."""
    at = [r.get("set_at") for r in REFS[1:] if r["commit"] == m.get("to")]
    return " (set %s)" % html.escape(at[0]) if at and at[0] else ""


def set_move(m):
    """Was move @m made by "history reference set"?  Its new reference is
    a pin after the first (the first pin moves nothing).  A base that
    changed in the data alone (reviews recorded against another base,
    no pin) is no move of the reference: not drawn."""
    return any(r["commit"] == m.get("to") for r in REFS[1:])


def source_target(src):
    """What a point links to: a review's page (index.html beside its
    review.json, else review.md, else review.json), or the results file;
    None where it is not there (a relative path is the recorder's: read
    from here)."""
    if not src:
        return None
    src = os.path.abspath(src)
    if os.path.basename(src) == "review.json":
        d = os.path.dirname(src)
        for f in ("index.html", "review.md", "review.json"):
            if os.path.isfile(os.path.join(d, f)):
                return os.path.join(d, f)
        return None
    return src if os.path.isfile(src) else None


def href(target, page_dir):
    """@target as a link from a page in @page_dir: relative, so the site
    and the reviews beside it move together."""
    rel = os.path.relpath(target, page_dir)
    return "/".join(urllib.parse.quote(x) for x in rel.split(os.sep))


def hover(s, p):
    """A point's tooltip: its commit, subject, date, value and CI, the
    file it came from."""
    c = commit_of(p)
    lo, hi = ci(p)
    lines = ["%s %s" % ((p.get("commit") or "?")[:12], c.get("subject", ""))]
    lines.append("committed %s" % c["date"] if c.get("date") else
                 "recorded %s" % (p.get("at") or "?"))
    v = "%s %.6g" % (s["series"], value(p))
    if lo is not None and hi is not None:
        v += ", 95%% CI [%.6g, %.6g]" % (lo, hi)
    if p.get("chained") and p["chained"].get("value") is not None and \
            p["chained"]["value"] != p["value"]:
        v += " (chained; as recorded %.6g)" % p["value"]
    lines.append(v + (" " + s["unit"] if s.get("unit") else ""))
    lines.append("run %d, from %s" % (p["run"], p.get("source") or "-"))
    return "\n".join(lines)


def axis_caption(s):
    if s.get("order") == "commits":
        return "commit (the repository's topological order)"
    return "commit (in the order recorded: the repository was not given " \
        "or lacks some)"


def chart(s, page_dir):
    """An SVG of series s: the points, their CI band, the changes, the
    reference moves "history reference set" made.  A stray (a review
    against a base that is no reference) is on no reference's scale: not
    drawn.  E.g. 3 points of commits ab12cd3.., ef45..., 0a1b...: three
    linked circles over the ticks "ab12cd3", "ef45678", "0a1b2c3"."""
    keep = [not (p.get("chained") or {}).get("stray") for p in s["points"]]
    pts = [p for p, k in zip(s["points"], keep) if k]
    if not pts:
        return ("<p class=\"note\">No point on a pinned reference's scale: "
                "every review of this series is against another base.</p>")
    at = [sum(keep[:i]) for i in range(len(keep) + 1)]  # index -> drawn
    vals = [value(p) for p in pts]
    lo = [ci(p)[0] if ci(p)[0] is not None else value(p) for p in pts]
    hi = [ci(p)[1] if ci(p)[1] is not None else value(p) for p in pts]
    ymin, ymax = min(lo + vals), max(hi + vals)
    if ymax == ymin:
        ymin, ymax = ymin - 0.5 * abs(ymin or 1) * 0.01, ymax + 0.5 * abs(ymax or 1) * 0.01
    n = len(pts)
    left, right, top, bottom = PAD + 14, W - 16, 28, H - BOTTOM

    def x(i):
        return left + (right - left) * (i / (n - 1) if n > 1 else 0.5)

    def y(v):
        return bottom - (bottom - top) * (v - ymin) / (ymax - ymin)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="chart" '
           'viewBox="0 0 %d %d" preserveAspectRatio="xMinYMin meet" '
           'role="img" aria-label="%s">' % (W, H, html.escape(name(s)))]
    out.append('<rect width="%d" height="%d" fill="white"/>' % (W, H))
    out.append('<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d" '
               'stroke="#bbb"/>' % (left, right, bottom, bottom))
    if any(ci(p)[0] is not None for p in pts):
        band = ["%.1f,%.1f" % (x(i), y(hi[i])) for i in range(n)]
        band += ["%.1f,%.1f" % (x(i), y(lo[i])) for i in reversed(range(n))]
        out.append('<polygon class="ci" points="%s" fill="#9ecae1" '
                   'fill-opacity="0.5"/>' % " ".join(band))
    out.append('<polyline class="series" points="%s" fill="none" '
               'stroke="#1f77b4" stroke-width="2"/>' %
               " ".join("%.1f,%.1f" % (x(i), y(v)) for i, v in enumerate(vals)))
    for c in s["changes"]:
        col = "#d62728" if c["kind"] == "regression" else "#2ca02c"
        xi = x(at[c["index"]] - 0.5)
        out.append('<line class="%s" x1="%.1f" x2="%.1f" y1="%d" y2="%d" '
                   'stroke="%s" stroke-width="3"><title>%s #%s at %s: %s'
                   '</title></line>' %
                   (c["kind"], xi, xi, top, bottom, col, c["kind"],
                    c.get("id", "?"), html.escape(short(
                        s["points"][c["index"]].get("commit"))),
                    html.escape(change_text(c))))
    for m in s.get("moves", []):
        if not set_move(m):
            continue
        xi = x(at[m["index"]] - 0.5)
        out.append('<line class="move" x1="%.1f" x2="%.1f" y1="%d" y2="%d" '
                   'stroke="#7f7f7f" stroke-width="2" stroke-dasharray="6,4"/>' %
                   (xi, xi, top, bottom))
        out.append('<text class="move-label" x="%.1f" y="%d" font-size="13">'
                   'reference %s%s</text>' % (xi + 3, top - 8, html.escape(
                       short(m["to"])), "" if m["overlap"] else " (break)"))
    step = max(1, -(-n // MAX_TICKS))
    for i, p in enumerate(pts):
        cx, cy = x(i), y(vals[i])
        dot = ('<circle class="point" cx="%.1f" cy="%.1f" r="4.5" '
               'fill="#1f77b4"><title>%s</title></circle>' %
               (cx, cy, html.escape(hover(s, p))))
        t = source_target(p.get("source"))
        out.append('<a href="%s">%s</a>' % (html.escape(href(t, page_dir)), dot)
                   if t else dot)
        if i % step == 0:
            out.append('<text class="tick" x="%.1f" y="%d" font-size="14" '
                       'font-family="monospace" text-anchor="end" '
                       'transform="rotate(-55 %.1f %d)">%s</text>' %
                       (cx + 4, bottom + 14, cx + 4, bottom + 14,
                        html.escape(short(p.get("commit")))))
    for v in (ymin, (ymin + ymax) / 2, ymax):
        out.append('<text x="4" y="%.1f" font-size="13">%.5g</text>' %
                   (y(v) + 4, v))
    out.append('<text class="caption" x="%d" y="%d" font-size="14" '
               'text-anchor="middle">%s</text>' %
               ((left + right) // 2, H - 6, html.escape(axis_caption(s))))
    out.append("</svg>")
    return "\n".join(out)


def points_table(s, page_dir, most=100):
    """The points as a table, newest first (at most @most): what the
    chart's tooltips say, for a phone (no hover) and a screen reader."""
    rows = []
    for p in reversed(s["points"][-most:]):
        c = commit_of(p)
        lo, hi = ci(p)
        rows.append("<tr><td><code>%s</code></td><td>%s</td><td>%s</td>"
                    "<td class=\"num\">%.6g</td><td>%s</td><td>%s</td></tr>" %
                    (html.escape(short(p.get("commit"))),
                     html.escape(c.get("subject", "")),
                     html.escape((c.get("date") or p.get("at") or "")[:10]),
                     value(p), "[%.6g, %.6g]" % (lo, hi)
                     if lo is not None and hi is not None else "-",
                     review_link(p, page_dir)))
    n = len(s["points"])
    return ("<details class=\"points\"><summary>The points, newest first%s"
            "</summary><div class=\"scroll\"><table><tr><th>commit</th><th>"
            "subject</th><th>date</th><th>value</th><th>95%% CI</th><th>"
            "recorded from</th></tr>%s</table></div></details>" %
            (" (the last %d of %d)" % (most, n) if n > most else "",
             "".join(rows)))


def review_link(p, page_dir):
    t = source_target(p.get("source"))
    if t is None:
        return html.escape(p.get("source") or "-") + (
            " (not found)" if p.get("source") else "")
    what = "review" if t.endswith((".html", ".md")) or \
        os.path.basename(t) == "review.json" else "results"
    return '<a href="%s">%s</a>' % (html.escape(href(t, page_dir)), what)


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


def changes_table(s, page_dir):
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
                     review_link(p, page_dir)))
    return ("<div class=\"scroll\"><table><tr><th>id</th><th>kind</th><th>at commit"
            "</th><th>after</th><th>mean before &rarr; after (change, its CI)"
            "</th><th>p</th><th>triage</th><th>recorded from</th></tr>%s"
            "</table></div>" %
            ("".join(rows) or "<tr><td colspan=\"8\">none</td></tr>"))


def moves_text(s):
    out = []
    for m in s.get("moves", []):
        if not set_move(m):
            out.append("<li>the base changed %s &rarr; %s at point %d with no "
                       "<code>history reference set</code>: no move of the "
                       "reference (not drawn)</li>" % (
                           html.escape((m["from"] or "?")[:12]),
                           html.escape((m["to"] or "?")[:12]), m["index"]))
        elif m["overlap"]:
            out.append("<li>reference %s &rarr; %s%s at point %d: chained by "
                       "the overlap review of %s (factor %.6g)</li>" % (
                           html.escape((m["from"] or "?")[:12]),
                           html.escape((m["to"] or "?")[:12]), set_at(m),
                           m["index"],
                           html.escape((m["overlap"] or "?")[:12]),
                           m["factor"]))
        else:
            out.append("<li>reference %s &rarr; %s%s at point %d without an "
                       "overlap: the series breaks there, nothing is "
                       "compared across it</li>" % (
                           html.escape((m["from"] or "?")[:12]),
                           html.escape((m["to"] or "?")[:12]), set_at(m),
                           m["index"]))
    return "<ul class=\"moves\">%s</ul>" % "".join(out) if out else ""


def page(group, page_dir):
    title = bench(group[0])
    parts = []
    for s in sorted(group, key=lambda s: s["series"] != "ratio"):
        what = ("paired ratio head/reference, on the first reference's scale"
                if s["series"] == "ratio" else "absolute figure")
        parts.append("<h2 id=\"%s\">%s (%s)</h2><p>%d points, unit %s. "
                     "<span class=\"note\">Hover a point for its commit, "
                     "date, value and CI; click it for the file it was "
                     "recorded from.</span></p>\n%s\n%s<h3>Change points</h3>"
                     "%s" % (
                         s["series"], html.escape(s["series"]), what,
                         len(s["points"]), html.escape(s.get("unit") or "-"),
                         chart(s, page_dir) + points_table(s, page_dir),
                         moves_text(s), changes_table(s, page_dir)))
    return ("%s</head><body><p><a href=\"../index.html\">all "
            "benchmarks</a></p><h1>%s</h1><p class=\"precision\">%s. Label a "
            "change point with <code>hvbench history triage ID "
            "real|noise|expected</code>.</p>%s</body></html>\n" %
            (head(title, "../style.css"), html.escape(title),
             html.escape(precision_text(group)), "".join(parts)))


def groups(series):
    """The series by benchmark, in the order first seen."""
    out = {}
    for s in series:
        out.setdefault(bench(s), []).append(s)
    return out


def is_open(s):
    """An open regression: the series' last change point is a regression
    nobody has triaged.  Labelled (real, noise or expected), it closes:
    someone looked at it, and the page keeps its label."""
    last = s["changes"][-1] if s["changes"] else None
    return bool(last) and last["kind"] == "regression" and not last.get("label")


def index(series):
    open_ = [s for s in series if is_open(s)]
    closed = [s for s in series if s["changes"] and not is_open(s) and
              s["changes"][-1]["kind"] == "regression"]

    def row(s):
        last = s["changes"][-1]
        p = s["points"][last["index"]]
        return ("<tr class=\"regression\"><td><a href=\"bench/%s.html#%s\">"
                "%s</a></td><td>%s</td><td>%s</td><td><code>%s</code></td>"
                "<td>%s</td><td>#%s %s</td></tr>" %
                (page_name(bench(s)), s["series"], html.escape(s["cell"] + on(s)),
                 html.escape(s["metric"]), s["series"],
                 html.escape(short(p.get("commit"))),
                 html.escape(change_text(last)), last.get("id", "?"),
                 html.escape(last.get("label") or "untriaged")))

    def brow(key, group):
        good, n = precision(group)
        return ("<tr><td><a href=\"bench/%s.html\">%s</a></td><td>%s</td>"
                "<td>%s</td><td class=\"num\">%d</td><td class=\"num\">%d"
                "</td><td>%s</td></tr>" %
                (page_name(key), html.escape(group[0]["cell"] + on(group[0])),
                 html.escape(group[0]["metric"]),
                 ", ".join(s["series"] for s in group),
                 max(len(s["points"]) for s in group),
                 sum(len(s["changes"]) for s in group),
                 "%.0f%% (%d/%d)" % (100.0 * good / n, good, n) if n else "-"))

    def table(h, rows, empty):
        return "<div class=\"scroll\"><table>%s%s</table></div>" % (
            h, rows or "<tr><td colspan=\"6\">%s</td></tr>" % empty)
    rhead = ("<tr><th>cell</th><th>metric</th><th>series</th><th>at commit"
             "</th><th>change (its CI)</th><th>change point</th></tr>")
    bhead = ("<tr><th>cell</th><th>metric</th><th>series</th><th>points</th>"
             "<th>change points</th><th>precision (triaged)</th></tr>")
    g = groups(series)
    return ("%s<link rel=\"alternate\" type=\"application/atom+xml\" "
            "href=\"atom.xml\"></head><body><h1>hvbench history</h1>"
            "<h2 id=\"open\">Open regressions (%d)</h2><p class=\"note\">"
            "Series whose last change point is a regression nobody has "
            "triaged: <code>hvbench history triage ID real|noise|expected"
            "</code> closes one.</p>%s<h2 id=\"triaged\">Triaged regressions "
            "(%d)</h2>%s<h2>Every benchmark (%d)</h2><p>%s.</p>%s<p><a "
            "href=\"atom.xml\">Atom feed</a> of the change points.</p>"
            "</body></html>\n" %
            (head("hvbench history", "style.css"), len(open_),
             table(rhead, "".join(row(s) for s in open_), "none"),
             len(closed), table(rhead, "".join(row(s) for s in closed),
                                "none"), len(g),
             html.escape(precision_text(series)),
             table(bhead, "".join(brow(k, v) for k, v in g.items()), "none")))


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
    doc = json.load(open(data))
    series = doc["series"]
    COMMITS.update(doc.get("commits") or {})
    REFS.extend(doc.get("references") or [])
    MACHINES.update(s.get("machine") for s in series)
    bench_dir = os.path.join(out, "bench")
    own_dir(bench_dir)
    for key, group in groups(series).items():
        write(os.path.join(bench_dir, page_name(key) + ".html"),
              page(group, os.path.abspath(bench_dir)))
    write(os.path.join(out, "index.html"), index(series))
    write(os.path.join(out, "style.css"), STYLE)
    write(os.path.join(out, "atom.xml"), atom(series))
    nch = sum(len(s["changes"]) for s in series)
    nopen = sum(1 for s in series if is_open(s))
    print("history publish: %d series, %d change point(s), %d open "
          "regression(s): %s" % (len(series), nch, nopen,
                                 os.path.join(out, "index.html")))


if __name__ == "__main__":
    main()
