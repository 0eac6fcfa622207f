#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The trace of a boot-storm in a real viewer: speedscope (npm registry,
# installed once into CACHE), served with its trace on 127.0.0.1, opened
# in headless Chromium with #profileURL=...&view=sandwich.  The rendered
# page must name the file's threads ("(1/N)", N the threads of the file,
# and "client 0 (tid 1)": rows are numbered in name order) and list the
# first thread's events in its sandwich table (define, populate, ...).
# Negative control: the same file cut in half must show none of it.
# 77 (skipped, with the reason): no chromium, no npm, or the registry
# cannot be reached.
# Usage: it-trace-viewer.sh HVBENCH CACHE
set -u
hvbench=$1
cache=$2
version=1.25.0
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server"; rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || skip "no chromium (scripts/install-deps.sh --test)"
command -v npm >/dev/null || skip "no npm (scripts/install-deps.sh --test)"
release="$cache/node_modules/speedscope/dist/release"
if [ ! -f "$release/index.html" ] ||
        ! grep -q "\"version\": \"$version\"" \
            "$cache/node_modules/speedscope/package.json"; then
    mkdir -p "$cache"
    timeout 300 npm install --prefix "$cache" --no-audit --no-fund \
        --ignore-scripts --loglevel=error "speedscope@$version" \
        >"$tmp/npm.log" 2>&1 ||
        skip "npm install speedscope@$version: $(tail -1 "$tmp/npm.log")"
fi

site="$tmp/site"
cp -r "$release" "$site"
"$hvbench" run boot-storm --param vms=6 --param clients=3 \
    --param mem_kib=64 --param xs_nodes=40 --param poll_ms=1 \
    --param churn=0 --param churn_domains=0 --param label_us=300 \
    --param qemu_us=0 --param define_us=0 --param spawn=0 -r 1 -q \
    --trace "$site/trace.json" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: boot-storm --trace: $(cat "$tmp/err")"; exit 1; }
size=$(wc -c <"$site/trace.json")
head -c $((size / 2)) "$site/trace.json" >"$site/half.json"
threads=$(grep -c '"thread_name"' "$site/trace.json")

port=$(/usr/bin/python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$site" && exec /usr/bin/python3 -m http.server --bind 127.0.0.1 \
    "$port" >/dev/null 2>&1) &
server=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
    /usr/bin/python3 -c "import urllib.request as u
u.urlopen('http://127.0.0.1:$port/index.html')" 2>/dev/null && break
    sleep 0.5
done

# FILE SECONDS: the page's text (tags dropped), as headless Chromium
# renders it (a file speedscope cannot read leaves it on an alert until
# the timeout).
render() {
    url="http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/$1&view=sandwich"
    timeout "$2" "$browser" --headless --no-sandbox --disable-gpu \
        --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync \
        --user-data-dir="$tmp/chrome" --window-size=1400,4000 \
        --virtual-time-budget=10000 --dump-dom "$url" 2>/dev/null |
        sed 's/<[^>]*>/\n/g' >"$tmp/$1.txt"
}

# FILE: does the page show the trace?  Says what is missing on stdout.
shown() {
    ok=0
    grep -q "(1/$threads)" "$tmp/$1.txt" ||
        { echo "  $1: no '(1/$threads)' thread selector"; ok=1; }
    grep -q "client 0 (tid 1)" "$tmp/$1.txt" ||
        { echo "  $1: no row 'client 0 (tid 1)'"; ok=1; }
    for ev in boot define label create populate xenstore; do
        grep -q "^$ev {\"vm\":" "$tmp/$1.txt" ||
            { echo "  $1: no event '$ev' in the sandwich table"; ok=1; }
    done
    return $ok
}

render trace.json 60
shown trace.json || bad "speedscope does not show the trace"
render half.json 15
shown half.json >/dev/null &&
    bad "negative control: the half file shown as if whole"

[ "$fail" = 0 ] || exit 1
echo "trace-viewer: speedscope $version shows $threads threads: ok"
