#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Smoke test of the memory workloads: each runs once, small, under every
# pgalloc plugin on an emulated 2-node topology; memwrite says "modelled";
# a bad topology or distance is a usage error (exit 2).
#   it-memory-workloads.sh HVBENCH
set -eu
hvb=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
plugins=pgalloc=first-node,numa-2006,numa
common="--repetitions 1 --min-time 0.01 --param topology=2x64M+0"

fail() { echo "FAIL: $*" >&2; exit 1; }

"$hvb" run alloc-extent --plugin $plugins $common --param order=0,9 \
    --param batch=8 --param prefill_pct=100 --out "$out/ax.json" >/dev/null 2>&1 ||
    fail "alloc-extent"
"$hvb" run increase-reservation --plugin $plugins $common \
    --param size_mb=16,96 --out "$out/ir.json" >/dev/null 2>&1 ||
    fail "increase-reservation"
# dom0_mb: dom0 holds 32 of node 0's 64 MiB, so a 48 MiB domain finds 32
# there (2/3 local) instead of all 48 (1 local), under every plugin.
"$hvb" run increase-reservation --plugin $plugins $common \
    --param size_mb=48 --param dom0_mb=0,32 --out "$out/d0.json" \
    >/dev/null 2>&1 || fail "increase-reservation dom0_mb"
jq -e '[.hvbench.cells[] | .params.dom0_mb as $d
        | .counters.local_frac.summary.median as $f
        | if $d == 0 then $f == 1
          else $f > 0.6 and $f < 0.7 end] | length == 6 and all' \
    "$out/d0.json" >/dev/null || fail "dom0_mb does not hold node 0's memory"
"$hvb" run increase-reservation $common --param size_mb=48 \
    --param dom0_mb=200 >/dev/null 2>&1 && fail "dom0_mb past the topology"
"$hvb" run balloon --plugin $plugins $common --param size_mb=48 \
    --param start_mb=8 --param domains=2 --out "$out/bl.json" >/dev/null 2>&1 ||
    fail "balloon"
"$hvb" run memwrite --plugin $plugins $common --param size_mb=16 \
    --param node=1 --param distance=10:15 --out "$out/mw.json" \
    >/dev/null 2>"$out/mw.err" || fail "memwrite"
grep -q modelled "$out/mw.err" || fail "memwrite does not say modelled"
grep -q mib_per_s_modelled "$out/mw.json" || fail "no modelled counter"
grep -q probes_per_extent "$out/bl.json" || fail "no probes_per_extent"

set +e
"$hvb" run balloon --param topology=2x8G:10 >/dev/null 2>&1
[ $? -eq 2 ] || fail "the DESIGN.md form 2x8G:10,21 is not rejected"
"$hvb" run balloon --param topology=3y1G >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad topology not a usage error"
"$hvb" run balloon --param topology=2x1G --param distance=10:5 \
    >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad distance not a usage error"
echo "memory workloads: ok"
