#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Issue 35: report's table, its ratio chart and `gate FILE` apply one
# rule and say the same.  A fixture of 5 paired rounds (from a short
# real run, its samples replaced) holds, against each group's reference
# rwlock-ref (drifting +-20% from round to round):
#   threads:1 rcu-noref  x0.52, both cells cpu-share<90% (a busy VM):
#                        improved, the flag a note, not a veto
#   threads:1 rcu-ref    x1.00: unchanged
#   threads:2 rcu-noref  x0.9 .. x1.3: unstable, the range across +5%
#   threads:2 rcu-ref    x1.01: unchanged
# gate exits 3 and prints the unstable row's reason on one line; the
# report's verdict column, its ratio chart's data (ratio.json: marker
# and fill per point) and a headless Chromium screenshot (green and
# grey markers, no red) say the same, the interval columns say "range of
# 5 rounds", every axis is linear, and "How to read this" links to a
# docs/running.md that exists.  The same fixture with threads:2
# rcu-noref at x1.3 is regressed: exit 1, a filled red point.
# With --plant ci-chart the chart marks points by "interval excludes 1"
# (report.py before issue 35): the check must fail (negative control).
# Usage: it-report-rule.sh HVBENCH [--plant ci-chart] [SHOT.png]
set -u
hvbench=$1
plant=
[ "${2:-}" = --plant ] && { plant=$3; shift 2; }
shot=${2:-}
. "$(dirname "$0")/../cli/lib.sh"
render=$(dirname "$0")/../../harness/profile/render
browser=$(command -v chromium || command -v chromium-browser || true)

if [ "$plant" = ci-chart ]; then
    mkdir "$tmp/render"
    cp "$render"/*.py "$tmp/render/"
    sed -i 's/colour, marker, filled = VERDICT_MARK.get(r\["verdict"\], VERDICT_MARK\[None\])/colour, marker, filled = ("tab:green", "o", bool(ci and (ci[1] < 1 or ci[0] > 1)))/' \
        "$tmp/render/report.py"
    grep -q 'ci\[1\] < 1 or' "$tmp/render/report.py" || {
        echo "FAIL: the plant did not apply"; exit 1; }
    HVB_RENDER_DIR=$tmp/render
    export HVB_RENDER_DIR
fi

"$hvbench" run lookup --plugin domlookup=rwlock-ref,rcu-noref,rcu-ref \
    --threads 1,2 --repetitions 5 --min-time 0.005 -q -o "$tmp/run.json" \
    >/dev/null 2>"$tmp/err" || { echo "FAIL: run: $(tail -3 "$tmp/err")"; exit 1; }
fixture() { # fixture OUT T2-RCU-NOREF-FACTORS
    /usr/bin/python3 - "$tmp/run.json" "$@" <<'PY'
import json, math, statistics, sys
src, out, wide = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(src))
cells = d["hvbench"]["cells"]
ref = [10 * (1 + 0.2 * math.sin(1.7 * k)) for k in range(5)]
jit = [1 + 0.01 * (k % 3 - 1) for k in range(5)]
f = {("rcu-noref", 1): [0.52 * j for j in jit], ("rcu-ref", 1): jit,
     ("rcu-noref", 2): [float(x) for x in wide.split(",")],
     ("rcu-ref", 2): [1.01 * j for j in jit]}
for c in cells:
    plugin = c["name"].split("domlookup=")[1].split("/")[0]
    t = c["threads"]
    v = ref if c["variant"] == 0 else [x * k for x, k in zip(ref, f[(plugin, t)])]
    c["samples_ns_per_op"] = v
    c["summary"]["median"] = statistics.median(v)
    c["summary"]["cv"] = statistics.stdev(v) / statistics.mean(v)
    c["noise_flags"] = ["cpu-share<90%"] if t == 1 and plugin != "rcu-ref" else []
json.dump(d, open(out, "w"))
PY
}
fixture "$tmp/fx.json" 0.9,1.0,1.1,1.2,1.3
fixture "$tmp/reg.json" 1.3,1.31,1.29,1.3,1.3

# gate FILE: its verdicts, exit status and reason line.
"$hvbench" gate "$tmp/fx.json" >"$tmp/gate" 2>&1
rc=$?
[ $rc -eq 3 ] && ok || bad "gate fx.json exited $rc, want 3: $(cat "$tmp/gate")"
"$hvbench" gate "$tmp/fx.json" --allow-unstable >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "gate fx.json --allow-unstable exited $rc, want 0"
"$hvbench" gate "$tmp/reg.json" >"$tmp/gate-reg" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "gate reg.json exited $rc, want 1: $(cat "$tmp/gate-reg")"

check() { # check FIXTURE GATE-OUT REPORT-DIR: the views agree
    "$hvbench" compare "$1" --format json >"$tmp/g.json" || return 1
    "$hvbench" report "$1" --out "$3" 2>"$tmp/rerr" || {
        echo "report: $(cat "$tmp/rerr")"; return 0; }
    /usr/bin/python3 - "$tmp/g.json" "$2" "$3" <<'PY'
import html, json, os, re, sys
g = json.load(open(sys.argv[1]))
gate = open(sys.argv[2], encoding="utf-8").read()
out = sys.argv[3]
page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
chart = json.load(open(os.path.join(out, "ratio.json")))
bad = []
text = lambda c: html.unescape(re.sub("<[^>]+>", "", c))
head = re.search(r"<table><tr><th class=l>cell</th>.*?</tr>", page).group(0)
cols = [text(c) for c in re.findall(r"<th[^>]*>.*?</th>", head)]
for want in ("range of 5 rounds", "ratio range of 5 rounds"):
    if want not in cols:
        bad.append(f"no column '{want}' in {cols}")
points = {p["name"]: p for p in chart["points"]}
for b in g["benchmarks"]:
    name, v = b["name"], b["verdict"]
    line = [l for l in gate.splitlines() if l.startswith(name + " ")]
    if not line or f"  {v}  " not in line[0]:
        bad.append(f"{name}: gate's console {line} lacks {v}")
    row = re.search(r"<tr><td class=l>" + re.escape(name) + r"</td>.*?</tr>", page)
    got = dict(zip(cols, [text(c) for c in re.findall(r"<td[^>]*>.*?</td>",
                                                      row.group(0))]))
    cell = [x for k, x in got.items() if k.startswith("verdict")][0]
    want = v + (": " + b["why"] if b["why"] else "")
    if cell != want:
        bad.append(f"{name}: table says {cell!r}, gate {want!r}")
    if b["why"] and f"unstable: {name}: {b['why']}" not in gate:
        bad.append(f"{name}: gate prints no reason line '{b['why']}'")
    p = points.get(name) or {}
    # Filled dots are the decided changes, an X the undecided.
    dot = p.get("filled") and p.get("marker") == "o"
    if p.get("verdict") != v or dot != (v in ("improved", "regressed")) or \
            (v == "unstable") != (p.get("marker") == "X"):
        bad.append(f"{name}: chart draws {p}, gate says {v}")
if chart["xscale"] != "linear":
    bad.append(f"ratio chart x scale {chart['xscale']}")
m = re.search(r'<p class=how><b>How to read this.</b>.*?<a href="([^"#]+)[^"]*">', page)
if not m or not os.path.isfile(os.path.join(out, m.group(1))):
    bad.append(f"How to read this: no link to a file that exists ({m and m.group(1)})")
print("; ".join(bad) or "ok")
PY
}
for x in fx reg; do
    r=$(check "$tmp/$x.json" "$tmp/$([ $x = fx ] && echo gate || echo gate-reg)" \
        "$tmp/rep-$x")
    [ "$r" = ok ] && ok || bad "$x: $r"
done

# The page as a person sees it: the ratio chart's markers in gate's
# colours (tab:green improved; tab:grey the unstable X; tab:red only in
# the regressed fixture).
shoot() { # shoot DIR PNG: "green grey red" pixel counts of the ratio chart
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync \
        --user-data-dir="$tmp/chrome" --hide-scrollbars \
        --window-size=1200,1800 --virtual-time-budget=3000 \
        --screenshot="$2" "file://$1/ratio-only.html" >/dev/null 2>&1
    /usr/bin/python3 - "$2" <<'PY'
import sys
from PIL import Image
c = Image.open(sys.argv[1]).convert("RGB").getcolors(1 << 22) or []
n = lambda rgb: sum(k for k, x in c if sum(abs(a - b) for a, b in zip(x, rgb)) < 30)
print(n((44, 160, 44)), n((127, 127, 127)), n((214, 39, 40)))
PY
}
if [ -z "$browser" ]; then
    skip_part "no chromium: the screenshot"
else
    for x in fx reg; do
        # The ratio chart alone, as the page shows it (its <img>).
        printf '<img src="ratio.png">\n' >"$tmp/rep-$x/ratio-only.html"
    done
    set -- $(shoot "$tmp/rep-fx" "$tmp/fx.png")
    [ "$1" -gt 50 ] && [ "$2" -gt 20 ] && [ "$3" -eq 0 ] && ok ||
        bad "fx screenshot: green $1, grey $2, red $3 pixels (want >50, >20, 0)"
    set -- $(shoot "$tmp/rep-reg" "$tmp/reg.png")
    [ "$3" -gt 50 ] && ok || bad "reg screenshot: red $3 pixels (want >50)"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update \
        --disable-sync --user-data-dir="$tmp/chrome" --hide-scrollbars \
        --window-size=1200,1600 --virtual-time-budget=3000 \
        --screenshot="$tmp/page.png" "file://$tmp/rep-fx/index.html" \
        >/dev/null 2>&1
    [ -n "$shot" ] && cp "$tmp/page.png" "$shot"
fi
finish report-rule
