#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo suite: the seed-004 A/B of the domain-lookup strategies at 1 and
# 2 threads, printed as a table and written to OUTDIR (results/latest).
# Then the lock table and a profile with a differential flame graph of
# rwlock-ref vs rcu-noref, and the report (OUTDIR/index.html).
# Usage: scripts/demo.sh HVBENCH OUTDIR
set -eu
hvbench=${1:-build/hvbench}
outdir=${2:-results/latest}
mkdir -p "$outdir"

echo "== hvbench demo: domain lookup, rwlock -> RCU -> no-ref RCU (seed 004)" >&2
"$hvbench" run lookup \
    --plugin domlookup=rwlock-ref,rcu-ref,rcu-noref,percpu-ref,urcu-ref \
    --threads 1,2 --param distribution=hot \
    --repetitions 5 --min-time 0.1 \
    --out "$outdir/lookup.json"
echo "results: $outdir/lookup.json" >&2

echo "== lock contention of the same A/B at 2 threads" >&2
"$hvbench" lockstat lookup --plugin domlookup=rwlock-ref,rcu-noref \
    --threads 2 --param distribution=hot --repetitions 3 --min-time 0.05 -q \
    --out "$outdir/lockstat.json"

echo "== profile and differential flame graph rwlock-ref -> rcu-noref" >&2
"$hvbench" profile lookup --plugin domlookup=rwlock-ref,rcu-noref \
    --threads 2 --param distribution=hot --repetitions 3 --min-time 0.2 -q \
    --diff domlookup=rwlock-ref,rcu-noref --out "$outdir/profile"

echo "== report" >&2
"$hvbench" report "$outdir/lookup.json" "$outdir/lockstat.json" \
    "$outdir/profile/results.json" --out "$outdir"
echo "report: $outdir/index.html" >&2
