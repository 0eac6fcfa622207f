#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Between-process spread per placement (issue 14): N separate processes of
# the same 1-thread lookup cell for each placement, the placements
# interleaved in time (process i of every placement runs before process
# i+1 of any), so that a drift of the machine over seconds lands on all of
# them alike.  Prints one row per placement: the processes' medians (min,
# median, max, max/min) and how many fall in the upper of two clusters
# (split at the largest gap between sorted medians, counted only when that
# gap is at least 15% of the lower cluster's top).
# Usage: placement-spread.sh HVBENCH [N] [CELL OPTIONS...]
set -eu
hvbench=$1
n=${2:-10}
shift 2 || shift $#
[ $# -gt 0 ] || set -- lookup --plugin domlookup=rcu-noref --threads 1 \
    --repetitions 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
placements="float pin0 pin1 pin1-noaslr"
i=0
while [ $i -lt "$n" ]; do
    for p in $placements; do
        case $p in
        float) pre="" ;;
        pin0) pre="taskset -c 0" ;;
        pin1) pre="taskset -c 1" ;;
        pin1-noaslr) pre="setarch $(uname -m) -R taskset -c 1" ;;
        esac
        $pre "$hvbench" run "$@" --affinity none -q 2>/dev/null |
            awk '$1 ~ /^[a-z-]+\// { print $2; exit }' >>"$tmp/$p"
    done
    i=$((i + 1))
done
printf '%-12s %3s %8s %8s %8s %8s %s\n' placement n min median max max/min \
    "upper cluster"
for p in $placements; do
    sort -g "$tmp/$p" | awk -v p="$p" '
    { v[NR] = $1 }
    END {
        gap = 0; at = 0
        for (i = 1; i < NR; i++)
            if (v[i + 1] - v[i] > gap) { gap = v[i + 1] - v[i]; at = i }
        up = (at > 0 && gap >= 0.15 * v[at]) ? NR - at : 0
        med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%-12s %3d %8.2f %8.2f %8.2f %8.2f %d of %d%s\n", p, NR, v[1],
               med, v[NR], v[NR] / v[1], up, NR,
               up ? sprintf(" (from %.2f)", v[at + 1]) : ""
    }'
done
