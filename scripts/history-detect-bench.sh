#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The figures of docs/history.md "Measured here": `history detect` on
# synthetic ratio series (tests/history/synth.py, Gaussian noise, sigma 1%),
# with its defaults:
#   speed         100 series x 10,000 points, detect's wall time (best of 3)
#   false alarms  the change points in those 10^6 A/A points, per 1,000
#   power         100 series of 200 points with a 2% step at point 100:
#                 how many have a change point within 5 points of it, and
#                 how many other change points there are
# Usage: scripts/history-detect-bench.sh HVBENCH   (about a minute)
set -eu
hv=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
synth="/usr/bin/python3 $here/../tests/history/synth.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$hv" history export --db "$tmp/s.db" >/dev/null # the schema
"$hv" history export --db "$tmp/p.db" >/dev/null
$synth "$tmp/s.db" 100 10000 -1 0 0.01 1
$synth "$tmp/p.db" 100 200 100 0.02 0.01 7 step

best=
for _ in 1 2 3; do
    t0=$(date +%s.%N)
    "$hv" history detect --db "$tmp/s.db" >"$tmp/aa.out" 2>&1 || true
    t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc)
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s; fi
done
aa=$(sed -n 's/^\([0-9]*\) change point(s) in .*/\1/p' "$tmp/aa.out")
"$hv" history detect --db "$tmp/p.db" >"$tmp/p.out" 2>&1 || true
# A line per change point: "CELL  time  ratio  at run N ..."; point 100
# is run 101.
found=$(awk '$4 == "at" && $5 == "run" {
        d = $6 - 101; if (d < 0) d = -d
        if (d <= 5 && !($1 in hit)) { hit[$1] = 1; n++ } else other++ }
    END { printf "%d %d\n", n, other }' "$tmp/p.out")

echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo "commit: $("$hv" --version 2>/dev/null | head -1)"
printf 'speed: 100 series x 10,000 points in %.2f s (best of 3)\n' "$best"
printf "false alarms: %s change points in 10^6 points: %.3f per 1,000\n" "$aa" "$(echo "scale=3; $aa / 1000" | bc)"
echo "power: a 2% step found within 5 points in ${found% *} of 100 series (${found#* } other change points)"
