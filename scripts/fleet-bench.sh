#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What "hvbench fleet slurm" costs: the same matrix run plain and through
# the fleet in N shards, alternately, PAIRS times each; prints the wall
# times (markdown) and then, per variant cell, the paired ratio to its
# reference of the last plain run beside the merged one's, with whether
# their 95% CIs overlap.  Needs a Slurm cluster (SLURM_CONF; e.g.
# scripts/slurm-local.sh start DIR).  Run it alone on the machine:
#
#   flock -x /tmp/hvb-cpu.lock scripts/fleet-bench.sh build/hvbench OUT 4 2 \
#       lookup --plugin domlookup=rwlock-ref,rcu-ref,rcu-noref,percpu-ref,urcu-ref \
#       --param domains=10,100,1000,10000 --threads 1,2
#
# usage: fleet-bench.sh HVBENCH OUTDIR SHARDS PAIRS WORKLOAD [run options]
set -eu
hvb=$(realpath "$1")
out=$2
shards=$3
pairs=$4
shift 4
mkdir -p "$out"
out=$(realpath "$out")

now() { date +%s.%N; }
echo "| run | command | wall (s) |"
echo "|---|---|---:|"
p=1
while [ "$p" -le "$pairs" ]; do
    t0=$(now)
    "$hvb" run "$@" -q --out "$out/plain-$p.json" >/dev/null 2>"$out/plain-$p.err"
    t1=$(now)
    rm -rf "$out/fleet-$p"
    "$hvb" fleet slurm --shards "$shards" --dir "$out/fleet-$p" --poll 0.2 -q \
        -- run "$@" >/dev/null 2>"$out/fleet-$p.err"
    t2=$(now)
    echo "$t0 $t1 $t2" | awk -v p="$p" -v n="$shards" '{
        printf "| %d | plain | %.1f |\n| %d | fleet slurm, %d shards | %.1f |\n",
            p, $2 - $1, p, n, $3 - $2 }'
    p=$((p + 1))
done

/usr/bin/python3 - "$out/plain-$pairs.json" "$out/fleet-$pairs/merged.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["hvbench"]["cells"]
b = {c["name"]: c for c in json.load(open(sys.argv[2]))["hvbench"]["cells"]}
print()
print("| cell | plain ratio [95% CI] | merged ratio [95% CI] | CIs overlap |")
print("|---|---:|---:|---|")
n = agree = 0
for c in a:
    if not c.get("paired"):
        continue
    m = b[c["name"]]
    x, y = c["paired"], m["paired"]
    over = x["ci95"][0] <= y["ci95"][1] and y["ci95"][0] <= x["ci95"][1]
    n += 1
    agree += over
    print("| `%s` | %.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] | %s |" % (
        c["name"], x["median"], x["ci95"][0], x["ci95"][1],
        y["median"], y["ci95"][0], y["ci95"][1], "yes" if over else "**no**"))
print()
print("%d of %d paired ratios: the CIs overlap" % (agree, n))
EOF
