#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The cost of seeing: ABAB rounds of the same lookup cell plain, under
# `hvbench profile` (sampler at 1 kHz) and under `hvbench lockstat`, and,
# given a second binary built with -DHVB_LOCKSTAT=OFF, with the lockstat
# hooks compiled out.  Prints the median of the per-round ratios (paired
# rounds cancel most of a noisy machine's drift).
# Usage: scripts/bench-overhead.sh HVBENCH [HVBENCH_NO_LOCKSTAT] [ROUNDS] [PLUGIN]
set -eu
hv=${1:-build/hvbench}
nols=${2:-}
rounds=${3:-7}
plugin=${4:-rwlock-ref}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts="lookup --plugin domlookup=$plugin --threads 1 --min-time 0.2 -r 3 -q"
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ns() { awk 'NR==2 {print $2}'; }
i=0
while [ $i -lt "$rounds" ]; do
    base=$("$hv" run $opts | ns)
    prof=$("$hv" profile $opts --out "$tmp/p" 2>/dev/null | ns)
    ls=$("$hv" lockstat $opts | ns)
    echo "$prof $base" | awk '{print $1/$2}' >>"$tmp/prof"
    echo "$ls $base" | awk '{print $1/$2}' >>"$tmp/ls"
    if [ -n "$nols" ]; then
        off=$("$nols" run $opts | ns)
        echo "$base $off" | awk '{print $1/$2}' >>"$tmp/in"
    fi
    i=$((i + 1))
done
echo "lookup/$plugin, $rounds paired rounds, median ratio of ns/op:"
echo "  profile at ~1 kHz / plain run:            $(med <"$tmp/prof")"
echo "  lockstat enabled / plain run:             $(med <"$tmp/ls")"
[ -n "$nols" ] &&
    echo "  lockstat compiled in (off) / compiled out: $(med <"$tmp/in")"
exit 0
