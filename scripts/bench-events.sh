#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What the profiler's events cost, per task against CPU-wide
# (docs/profiling.md, "Which tasks the events watch"): each round runs a
# macro cell (boot-storm over the xenstore wire, 300 VMs, about 3,300
# context switches per VM) and a micro one (lock-hold, one switch per
# op) plain, then under "hvbench profile --view cpu|offcpu|wall" with
# per-task events (HVBENCH_PERF_PER_TASK=1) and CPU-wide ones, one after
# the other.  It prints each run's median ns/op and, at the end, each
# profiled run's ratio to plain (the median over the rounds).  Needs
# root for CPU-wide events (else both are per task, and it says so).
# Usage: scripts/bench-events.sh [HVBENCH] [ROUNDS]   (default 2 rounds)
set -eu
hv=${1:-build/hvbench}
rounds=${2:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bs="boot-storm --plugin quota=hashtbl-copy --param xs_client=socket"
bs="$bs --param xs_profile=libxl --param vms=300 -r 1"
lh="lock-hold --param lock=mutex --param hold_ns=20000 --threads 1"
lh="$lh --min-time 0.5 -r 1"
median() { jq -r '.hvbench.cells[0].summary.median' "$1"; }
[ "$(id -u)" = 0 ] || echo "not root: CPU-wide events fall back to per task"
r=1
while [ "$r" -le "$rounds" ]; do
    for w in bs lh; do
        args=$bs; [ $w = lh ] && args=$lh
        # shellcheck disable=SC2086
        "$hv" run $args -o "$tmp/o.json" >/dev/null 2>&1
        echo "$r $w plain - $(median "$tmp/o.json")" | tee -a "$tmp/all"
        for v in cpu offcpu wall; do
            for mode in per-task cpu-wide; do
                e=HVBENCH_PERF_PER_TASK=0
                [ $mode = per-task ] && e=HVBENCH_PERF_PER_TASK=1
                # shellcheck disable=SC2086
                env "$e" "$hv" profile $args --view $v -o "$tmp/p" \
                    >/dev/null 2>&1
                echo "$r $w $v $mode $(median "$tmp/p/results.json")" |
                    tee -a "$tmp/all"
            done
        done
    done
    r=$((r + 1))
done
/usr/bin/python3 - "$tmp/all" <<'PY'
import collections, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
plain = {(r, w): float(x) for r, w, v, m, x in rows if v == "plain"}
ratio = collections.defaultdict(list)
for r, w, v, m, x in rows:
    if v != "plain":
        ratio[(w, v, m)].append(float(x) / plain[(r, w)])
for w in ("bs", "lh"):
    print("%s plain %.1f ns/op (median)" % (w, statistics.median(
        x for (r, ww), x in plain.items() if ww == w)))
    for (ww, v, m), xs in sorted(ratio.items()):
        if ww == w:
            print("  --view %-6s %-8s x%.2f" % (v, m, statistics.median(xs)))
PY
