#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The history site (issue 35) on a scratch repository: a line of commits
# with a side branch merged, R1 and R2 two of them, reviews of the
# commits up to the merge against R1, of the merge (the overlap) and
# those after it against R2, recorded in an order that is not the
# commits' (newest first, the side branch last):
#   1. the points are in the repository's topological order (publish
#      --repo; git rev-list --topo-order agrees), not the order recorded;
#      without the repository they stay as recorded and the page says so;
#      detect --repo finds the change point the site shows (one step in
#      commit order: the same commit, the same id);
#   2. the x axis has each point's short hash, in that order;
#   3. each point has a tooltip: its commit, subject, date, value, CI;
#   4. each point links to the file it was recorded from (the review's
#      index.html, or the review.json when there is no page): every link
#      of every page resolves to an existing file;
#   5. a reference move is drawn only where "history reference set" made
#      it: not for a base that changed in the data alone, not for the
#      first pin, and drawn after "reference set R2";
#   6. style.css, the viewport meta and no fixed-width chart;
#   7. headless Chromium at desktop (1000 px) and phone (390 px) widths
#      paints the series and the move, and at phone width the whole
#      chart fits (its last point is on screen, not cut at the edge); the
#      index paints its styled table headers and the open regression.
# (An open regression that triage closes: lib-history.sh's hist_triage.)
# About 10 s.  Usage: it-history-site.sh HVBENCH
set -u
hv=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
db=$tmp/site.db
g=$tmp/repo

# The repository: R1 C1 C2 C3 [side: S1 S2] C4 merge C5 C6 C7 (R2 = C2).
git init -q "$g" && git -C "$g" config user.email t@t &&
    git -C "$g" config user.name t || bad "git init"
commit() { git -C "$g" commit -q --allow-empty -m "$1" && git -C "$g" rev-parse HEAD; }
R1=$(commit "R1: the reference")
for c in C1 C2 C3; do eval "$c=\$(commit '$c: step $c')"; done
git -C "$g" checkout -q -b side
S1=$(commit "S1: a side commit") S2=$(commit "S2: another side commit")
git -C "$g" checkout -q -
C4=$(commit "C4: after the fork")
git -C "$g" merge -q --no-edit -m "M: merge side" side && M=$(git -C "$g" rev-parse HEAD)
for c in C5 C6 C7; do eval "$c=\$(commit '$c: step $c')"; done
R2=$C2

# The reviews, two cells each: site/1 a slope, site/2 a 10% step at the
# 6th commit in topological order (0.1% noise): a change point there in
# commit order, none that place in the order recorded.  Against R2 half
# as large (M, the overlap, against both).  Recorded newest first, the
# side branch last: not the commits' order.  R1's reviews have a page
# (index.html beside review.json), R2's none.
git -C "$g" rev-list --topo-order --reverse HEAD >"$tmp/topo"
R1=$R1 R2=$R2 C1=$C1 C2=$C2 C3=$C3 C4=$C4 C5=$C5 C6=$C6 C7=$C7 S1=$S1 S2=$S2 M=$M \
    /usr/bin/python3 - "$tmp/rev" "$tmp/topo" <<'PY' || bad "the reviews"
import json, os, sys
e = os.environ
topo = [l.strip() for l in open(sys.argv[2])]
names = ["M", "C4", "C3", "C2", "C1", "S2", "S1", "C7", "C6", "C5", "M"]
rank = {h: i for i, h in enumerate(h for h in topo if h in {e[n] for n in names})}
for k, n in enumerate(names, 1):
    r2 = k > 7
    scale, base = (0.5, e["R2"]) if r2 else (1.0, e["R1"])
    v1 = scale * (1.0 + 0.01 * k)
    v2 = scale * (1.10 if rank[e[n]] >= 5 else 1.0) * (1 + 0.001 * (-1) ** k)
    cell = lambda c, v: {"name": c, "verdicts": {"time": {
        "ratio": round(v, 6), "ci": [round(v - 0.004, 6), round(v + 0.004, 6)], "new": 5.0}}}
    d = os.path.join(sys.argv[1], "%d-%s%s" % (k, n, "-r2" if r2 else ""))
    os.makedirs(d)
    json.dump({"review": {"schema": 1, "base": {"commit": base},
                          "head": {"commit": e[n], "dirty": False}},
               "cells": [cell("site/1", v1), cell("site/2", v2)]},
              open(os.path.join(d, "review.json"), "w"))
    if not r2:
        open(os.path.join(d, "index.html"), "w").write("<html>review %s</html>\n" % n)
PY
for d in $(ls "$tmp/rev" | sort -n); do
    "$hv" history record "$tmp/rev/$d/review.json" --db "$db" >/dev/null 2>&1 || bad "record $d"
done

# publish SITE [options]: the site; $page its one benchmark's page.
publish() {
    _site=$1
    shift
    "$hv" history publish "$_site" --db "$db" "$@" >"$tmp/pub.out" 2>&1 ||
        bad "publish $*: $(cat "$tmp/pub.out")"
    page=$(echo "$_site/bench/"site_1_time-*.html)
}

# 1, 2, 3, 4 and the base change that is no move (no reference pinned).
publish "$tmp/s1" --repo "$g"
/usr/bin/python3 - "$tmp/s1" "$page" "$tmp/topo" <<'PY' && ok || bad "1-4: the order, the axis, the tooltips, the links"
import html, json, os, re, sys, urllib.parse
site, page, topo = sys.argv[1:4]
topo = [l.strip() for l in open(topo)]
d = json.load(open(os.path.join(site, "data.json")))
s = [s for s in d["series"] if s["series"] == "ratio" and s["cell"] == "site/1"][0]
runs = [p["run"] for p in s["points"]]
assert runs != sorted(runs), "recorded in commit order: the test proves nothing"
commits = [p["commit"] for p in s["points"]]
distinct = [c for i, c in enumerate(commits) if i == 0 or commits[i - 1] != c]
want = [c for c in topo if c in set(commits)]
assert s["order"] == "commits" and distinct == want, (distinct, want)
for a, b in zip(s["points"], s["points"][1:]):  # a commit's points by run
    assert a["commit"] != b["commit"] or a["run"] < b["run"]
text = open(page).read()
svg = text[text.index("<svg"):text.index("</svg>")]
ticks = re.findall(r'<text class="tick"[^>]*>([0-9a-f]+)</text>', svg)
drawn = [p for p in s["points"] if not (p.get("chained") or {}).get("stray")]
assert ticks == [p["commit"][:7] for p in drawn], (ticks, drawn)
titles = re.findall(r'<circle class="point"[^>]*><title>([^<]*)</title>', svg)
assert len(titles) == len(drawn), (len(titles), len(drawn))
for t, p in zip(titles, drawn):
    t = html.unescape(t)
    c = d["commits"][p["commit"]]
    assert t.startswith(p["commit"][:12] + " " + c["subject"]), t
    assert "committed " + c["date"] in t and "ratio %.6g" % p["chained"]["value"] in t, t
    assert "95% CI [" in t, t
assert any("C4: after the fork" in html.unescape(t) for t in titles)
links = re.findall(r'<a href="([^"]+)"><circle class="point"', svg)
assert len(links) == len(drawn), (len(links), len(drawn))
pages = [l for l in links if l.endswith("/index.html")]
assert len(pages) == 7 and len(links) - len(pages) == 4, links
for root, _, files in os.walk(site):
    for f in files:
        if f.endswith(".html"):
            for l in re.findall(r'href="([^"#]+)', open(os.path.join(root, f)).read()):
                if "://" in l:
                    continue
                t = os.path.join(root, urllib.parse.unquote(html.unescape(l)))
                assert os.path.isfile(t), (f, l)
# No reference pinned: the R1 -> R2 base change is in data.json, not a
# move of the reference on the page.
assert len(s["moves"]) == 1 and d["references"] == [], (s["moves"], d["references"])
assert 'class="move"' not in text and "no move of the reference" in text
print("ok: %d points in topological order, %d ticks, %d links" % (len(drawn), len(ticks), len(links)))
PY

# Without the repository: as recorded, and said.
publish "$tmp/s0"
grep -q 'commit (in the order recorded' "$page" &&
    /usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["series"][0]; r=[p["run"] for p in s["points"]]; assert s["order"]=="recorded" and r==sorted(r), r' "$tmp/s0/data.json" &&
    ok || bad "without --repo: the order recorded"
out=$("$hv" history publish "$tmp/s9" --db "$db" --repo "$tmp/nothere" 2>&1)
[ $? -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q 'not a git repository' &&
    ok || bad "publish --repo not a repository: $out"

# detect and the site agree: site/2's step at the 6th commit in
# topological order is the one change point of detect --repo and of the
# site (the same commit, the same id); detect without the repository
# reads the order recorded and finds nothing there.
"$hv" history detect 'site/2' --series ratio --repo "$g" --db "$db" >"$tmp/d.out" 2>&1 || bad "detect --repo"
(cd "$tmp" && "$hv" history detect 'site/2' --series ratio --db "$db") >"$tmp/d0.out" 2>&1 || bad "detect"
/usr/bin/python3 - "$tmp/s1/data.json" "$tmp/topo" "$tmp/d.out" "$tmp/d0.out" <<'PY' && ok || bad "detect and the site: $(cat "$tmp/d.out" "$tmp/d0.out")"
import json, re, sys
d = json.load(open(sys.argv[1]))
s = [s for s in d["series"] if s["series"] == "ratio" and s["cell"] == "site/2"][0]
topo = [l.strip() for l in open(sys.argv[2]) if l.strip() in d["commits"]]
assert len(s["changes"]) == 1, s["changes"]
c = s["changes"][0]
at = s["points"][c["index"]]["commit"]
assert at == topo[5] and c["kind"] == "regression", (at, topo)
lines = re.findall(r"^site/2  time  ratio  at run \d+ \(commit (\w+), .*#(\d+)", open(sys.argv[3]).read(), re.M)
assert lines == [(at[:12], str(c["id"]))], (lines, at, c)
assert at[:12] not in open(sys.argv[4]).read()
print("ok: one change at %s (#%d), detect and the site" % (at[:7], c["id"]))
PY

# 5. The first pin moves nothing (the R2 reviews are strays then); after
# "reference set R2" the move is drawn, labelled with R2's short hash.
"$hv" history reference set "$R1" --no-overlap --repo "$g" --db "$db" >/dev/null 2>&1 || bad "pin R1"
publish "$tmp/s2" --repo "$g"
! grep -q 'class="move"' "$page" && ok || bad "5: a move drawn after the first pin"
"$hv" history reference set "$R2" --no-overlap --repo "$g" --db "$db" >/dev/null 2>&1 || bad "reference set R2"
publish "$tmp/s3" --repo "$g"
r2=$(echo "$R2" | cut -c1-7)
[ "$(grep -c '<line class="move"' "$page")" = 1 ] &&
    grep -q "<text class=\"move-label\"[^>]*>reference $r2" "$page" && ok ||
    bad "5: the move after reference set"

# 6. The stylesheet, the viewport, a chart that scales.
[ -s "$tmp/s3/style.css" ] && grep -q 'max-width: 600px' "$tmp/s3/style.css" &&
    grep -q '<meta name="viewport" content="width=device-width' "$page" &&
    grep -q '<link rel="stylesheet" href="../style.css">' "$page" &&
    grep -q '<link rel="stylesheet" href="style.css">' "$tmp/s3/index.html" &&
    ! grep -q '<svg[^>]* width="[0-9]' "$page" && ok || bad "6: the stylesheet and the viewport"
# The points as a table too (a phone has no hover): 11, each its subject.
[ "$(sed -n '/<h2 id="ratio"/,/<\/details>/p' "$page" | grep -o '<tr><td><code>' | wc -l)" = 11 ] &&
    grep -q '<td>C4: after the fork</td>' "$page" && ok || bad "6: the points' table"
# The index: site/2's step an open regression, the tables styled.
grep -q 'Open regressions (1)' "$tmp/s3/index.html" &&
    grep -q '<tr class="regression"><td><a href="bench/site_2_time-' "$tmp/s3/index.html" &&
    ok || bad "6: the open regression on the index"

# 7. Chromium: desktop and phone widths.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    for w in 1000,800 390,844; do
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --user-data-dir="$tmp/chrome" --hide-scrollbars --window-size=$w \
            --virtual-time-budget=3000 --screenshot="$tmp/index-${w%,*}.png" \
            "file://$tmp/s3/index.html" >/dev/null 2>&1
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --user-data-dir="$tmp/chrome" --hide-scrollbars --window-size=$w \
            --virtual-time-budget=3000 --screenshot="$tmp/shot-${w%,*}.png" "file://$page" \
            >/dev/null 2>&1
        [ -n "${HVB_SITE_SHOTS:-}" ] && cp "$tmp/shot-${w%,*}.png" "$tmp/index-${w%,*}.png" "$HVB_SITE_SHOTS/"
    done
    /usr/bin/python3 - "$tmp/shot-1000.png" "$tmp/shot-390.png" <<'PY' && ok || bad "7: the page as Chromium paints it"
import sys
from PIL import Image
near = lambda x, r: sum(abs(a - b) for a, b in zip(x, r)) < 20
for f in sys.argv[1:]:
    im = Image.open(f).convert("RGB")
    w, h = im.size
    px = im.load()
    blue = [(x, y) for x in range(w) for y in range(h) if near(px[x, y], (31, 119, 180))]
    # The move: a dashed vertical line, a column of grey (text's grey
    # edges are a few pixels a column).
    grey = max(sum(1 for y in range(h) if near(px[x, y], (127, 127, 127)))
               for x in range(w))
    assert len(blue) > (150 if w > 600 else 40) and (grey > 40 or w < 600), (f, len(blue), grey)
    xs = [x for x, _ in blue]
    # The whole series on screen: from the left part to short of the edge.
    assert min(xs) < 0.2 * w and 0.6 * w < max(xs) < w - 6, (f, w, min(xs), max(xs))
    print("%s: %dx%d, %d blue (the series, x %d-%d), a grey column of %d (the move)" %
          (f, w, h, len(blue), min(xs), max(xs), grey))
PY
    /usr/bin/python3 - "$tmp/index-1000.png" "$tmp/index-390.png" <<'PY' && ok || bad "7: the index as Chromium paints it"
import sys
from PIL import Image
near = lambda x, r: sum(abs(a - b) for a, b in zip(x, r)) < 4
for f in sys.argv[1:]:
    im = Image.open(f).convert("RGB")
    c = im.getcolors(1 << 20) or []
    th = sum(n for n, x in c if near(x, (240, 243, 247)))  # styled headers
    red = sum(n for n, x in c if near(x, (214, 39, 40)))  # the open regression
    assert th > 300 and red > 40, (f, th, red)
    print("%s: %d header, %d red (the open regression) pixels" % (f, th, red))
PY
else
    skip_part "no chromium: the site's screenshots"
fi

finish history-site
