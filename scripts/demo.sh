#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo suite: the seed-004 A/B of the domain-lookup strategies at 1 and
# 2 threads, printed as a table and written to OUTDIR (results/latest).
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
