#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench report: charts and index.html from a small lookup A/B (and a
# profile), then the page opened in headless Chromium: it fails on any
# console error or image that did not load (the page's own check sets
# data-images and logs missing ones as console errors).  Exit 77 (skip)
# when Chromium is not installed and cannot be.
# Usage: test-report.sh HVBENCH
set -u
hvbench=$1
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
echo "1 passed, 0 failed"
