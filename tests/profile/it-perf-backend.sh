#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench profile --backend perf: lookup/rwlock-ref's folded stacks (from
# perf record -g + perf script) contain the plugin's lock function under
# the cell's root frame, the SVG and speedscope files are there, and
# --diff still lists rwlock_ref_lock as vanished.  Skipped (77) without
# perf (Debian linux-perf) or without permission to use it.
# Usage: it-perf-backend.sh HVBENCH
set -u
hvbench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if ! command -v perf >/dev/null 2>&1; then
    echo "SKIP: perf is not installed (Debian linux-perf)"
    exit 77
fi
if ! perf record -q -o "$tmp/probe.data" -e cpu-clock:u -- true \
        >/dev/null 2>&1; then
    echo "SKIP: perf record is not permitted here (perf_event_paranoid)"
    exit 77
fi

if ! "$hvbench" profile lookup --backend perf \
        --plugin domlookup=rwlock-ref,rcu-noref --threads 1 \
        --min-time 0.1 --repetitions 2 -q --out "$tmp/p" \
        --diff domlookup=rwlock-ref,rcu-noref >"$tmp/out" 2>"$tmp/err"; then
    bad "profile --backend perf failed: $(cat "$tmp/err")"
else
    f="$tmp/p/lookup_domlookup=rwlock-ref_threads_1.folded"
    grep -q ";rwlock_ref_lock[; ]" "$f" || bad "rwlock_ref_lock not in $f"
    grep -q '^lookup/' "$f" &&
        bad "a stack of $f starts with its cell's name (the file names it)"
    grep -q '_ZN' "$f" && bad "mangled C++ names in $f"
    for x in svg speedscope.json; do
        [ -s "${f%.folded}.$x" ] || bad "no ${f%.folded}.$x"
    done
    grep -q '"backend": "perf"' "$tmp/p/results.json" ||
        bad "results.json does not name the perf backend"
    grep -q '^vanished  *rwlock_ref_lock' "$tmp/out" ||
        bad "diff does not list rwlock_ref_lock as vanished"
fi
PATH=/nonexistent "$hvbench" profile lookup --backend perf \
    --out "$tmp/q" >/dev/null 2>"$tmp/err2"
[ $? -eq 2 ] || bad "--backend perf without perf: want exit 2"
[ "$(wc -l <"$tmp/err2")" -eq 1 ] || bad "want one line: $(cat "$tmp/err2")"
echo "$fail failed"
[ $fail -eq 0 ]
