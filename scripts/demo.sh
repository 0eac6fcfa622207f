#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo: `hvbench reproduce --quick` (every seed's claims beside the
# figures measured here, OUTDIR/reproduce/), then the lock table and a
# profile with a differential flame graph of seed 004's rwlock-ref vs
# rcu-noref, and the report with its seeds section (OUTDIR/index.html).
# A claim measured in the other direction (reproduce's exit 1) is a
# finding, not a failure of the demo: it is said at the end, and the
# report shows it.
# Usage: scripts/demo.sh HVBENCH OUTDIR
set -eu
hvbench=${1:-build/hvbench}
outdir=${2:-results/latest}
mkdir -p "$outdir"

echo "== hvbench demo: every seed's claims beside the figures measured here" >&2
rc=0
"$hvbench" reproduce --quick --out "$outdir/reproduce" || rc=$?
[ "$rc" -le 1 ] || exit "$rc"

echo "== lock contention of seed 004's A/B at 2 threads" >&2
"$hvbench" lockstat lookup --plugin domlookup=rwlock-ref,rcu-noref \
    --threads 2 --param distribution=hot --repetitions 3 --min-time 0.05 -q \
    --out "$outdir/lockstat.json"

echo "== profile and differential flame graph rwlock-ref -> rcu-noref" >&2
"$hvbench" profile lookup --plugin domlookup=rwlock-ref,rcu-noref \
    --threads 2 --param distribution=hot --repetitions 3 --min-time 0.2 -q \
    --diff domlookup=rwlock-ref,rcu-noref --out "$outdir/profile"

echo "== report" >&2
"$hvbench" report "$outdir/reproduce" "$outdir/lockstat.json" \
    "$outdir/profile/results.json" --out "$outdir"
echo "report: $outdir/index.html (seeds: $outdir/reproduce/reproduce.md)" >&2
[ "$rc" -eq 0 ] || echo "note: a claim's direction did not match, or a run" \
    "failed (reproduce exit $rc): see the table" >&2
