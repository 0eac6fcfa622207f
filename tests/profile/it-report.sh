#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench report: charts and index.html from a small lookup A/B (and a
# profile), then the page opened in headless Chromium: it fails on any
# console error or image that did not load (the page's own check sets
# data-images and logs missing ones as console errors).  The Environment
# section is words ("CPU frequency scaling off", "load average 1.11 0.76
# 0.51"), not Python values.  Then the page as a person sees it: a
# screenshot by headless Chromium, which must show the charts (the page is
# not blank, its images painted), copied to SHOT for a person to look at.
# Exit 77 (skip) when Chromium is not installed and cannot be.
# Usage: it-report.sh HVBENCH [SHOT.png]
set -u
hvbench=$1
shot=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIP: no chromium (scripts/install-deps.sh --test installs it)"
    exit 77
fi
"$hvbench" run lookup --plugin domlookup=rwlock-ref,rcu-noref --threads 1,2 \
    --min-time 0.02 --repetitions 3 -q --out "$tmp/r.json" >/dev/null || exit 1
"$hvbench" report "$tmp/r.json" --out "$tmp/rep" || exit 1
for f in bars ratio scaling dist; do
    [ -s "$tmp/rep/$f.png" ] && [ -s "$tmp/rep/$f.svg" ] || {
        echo "FAIL: $f chart missing"; exit 1; }
done
# Deterministic: drawing again gives the same bytes.
md5sum "$tmp"/rep/*.png "$tmp"/rep/*.svg >"$tmp/sum1"
"$hvbench" report "$tmp/r.json" --out "$tmp/rep" 2>/dev/null || exit 1
md5sum "$tmp"/rep/*.png "$tmp"/rep/*.svg | cmp -s - "$tmp/sum1" || {
    echo "FAIL: charts differ between two draws"; exit 1; }
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$tmp/chrome" --enable-logging=stderr \
    --v=0 --virtual-time-budget=5000 --dump-dom "file://$tmp/rep/index.html" \
    >"$tmp/dom.html" 2>"$tmp/chrome.log"
grep -q 'data-images="ok"' "$tmp/dom.html" || {
    echo "FAIL: images did not load"; grep CONSOLE "$tmp/chrome.log"; exit 1; }
if grep -E 'CONSOLE|Uncaught' "$tmp/chrome.log"; then
    echo "FAIL: console messages"
    exit 1
fi
grep -Eq 'CPU frequency scaling (on|off|unknown), load average [0-9.]+ [0-9.]+ [0-9.]+<' \
    "$tmp/rep/index.html" &&
    ! grep -Eq 'scaling (True|False)|load \[' "$tmp/rep/index.html" || {
    echo "FAIL: Environment: $(grep -o '<li>host[^<]*' "$tmp/rep/index.html")"
    exit 1; }
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$tmp/chrome" --hide-scrollbars \
    --window-size=1280,2400 --virtual-time-budget=5000 \
    --screenshot="$tmp/shot.png" "file://$tmp/rep/index.html" \
    >/dev/null 2>"$tmp/shot.log"
/usr/bin/python3 - "$tmp/shot.png" <<'PY' || exit 1
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
colours = im.getcolors(1 << 20) or []
# The charts are painted: the two plugins' bars and lines, in matplotlib's
# first two colours (tab:blue, tab:orange), cover hundreds to thousands
# of pixels (on a linear axis from zero rcu-noref's bars are short: 0.01
# to 0.2 of rwlock-ref's on the Xeon VM).
def near(c, ref):
    return sum(abs(a - b) for a, b in zip(c, ref)) < 40
blue = sum(n for n, c in colours if near(c, (31, 119, 180)))
orange = sum(n for n, c in colours if near(c, (255, 127, 14)))
if (w, h) != (1280, 2400) or len(colours) < 100 or blue < 2000 or orange < 500:
    sys.exit(f"FAIL: screenshot {w}x{h}, {len(colours)} colours, {blue} "
             f"blue and {orange} orange pixels: the charts are not painted")
PY
[ -n "$shot" ] && cp "$tmp/shot.png" "$shot"
echo "1 passed, 0 failed"
