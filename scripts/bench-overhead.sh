#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The cost of seeing, measured in paired, interleaved rounds: each round
# runs the same lookup cell (1 thread) plain, under `hvbench profile` (the
# in-process sampler at ~1 kHz) and under `hvbench lockstat`, in an order
# that rotates from round to round, and, given a second binary built with
# -DHVB_LOCKSTAT=OFF, with the lockstat hooks compiled out, and, where
# perf(1) is installed, under `perf record -e cpu-clock -c 1000000`
# without call chains: a control that only takes the same 1 kHz timer
# interrupt (the kernel writes IP, TID and time; no stack walk, no
# reader), so "profile / perf-bare" is what the sampler adds beyond the
# interrupt every cpu-clock profiler pays, and "perf-bare / plain" is
# that interrupt's price on this machine.  Per plugin it
# prints the median of the per-round ratios of median ns/op with a 95%
# bootstrap confidence interval (paired rounds cancel most of a shared
# machine's drift; the interval says how much is left).
# Usage: scripts/bench-overhead.sh HVBENCH [HVBENCH_NO_LOCKSTAT] [ROUNDS]
#                                  [PLUGIN...]
# (default: 15 rounds, plugins rcu-noref rwlock-ref)
set -eu
hv=${1:-build/hvbench}
nols=${2:-}
rounds=${3:-15}
[ $# -gt 3 ] && shift 3 || set --
plugins=${*:-rcu-noref rwlock-ref}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ns() { awk 'NR==2 {print $2}'; }

one() { # ARM PLUGIN: median ns/op of one run
    opts="lookup --plugin domlookup=$2 --threads 1 --min-time 0.2 -r 3 -q"
    case $1 in
    plain) "$hv" run $opts | ns ;;
    prof) "$hv" profile $opts -F 1000 --out "$tmp/p" 2>/dev/null | ns ;;
    ls) "$hv" lockstat $opts | ns ;;
    off) "$nols" run $opts | ns ;;
    bare) perf record -q -o "$tmp/perf.data" -e cpu-clock -c 1000000 -- \
        "$hv" run $opts 2>/dev/null | ns ;;
    esac
}

arms="plain prof ls"
[ -n "$nols" ] && arms="$arms off"
command -v perf >/dev/null 2>&1 && arms="$arms bare"
for pl in $plugins; do
    i=0
    while [ $i -lt "$rounds" ]; do
        # Rotate the order: round i starts with arm i mod (number of arms).
        order=$(echo $arms | awk -v r=$i '{for (k = 0; k < NF; k++)
            printf "%s ", $((k + r) % NF + 1)}')
        for a in $order; do
            eval "v_$a=\$(one $a $pl)"
        done
        echo "$v_plain $v_prof $v_ls ${v_off:-0} ${v_bare:-0}" >>"$tmp/$pl"
        i=$((i + 1))
    done
done

/usr/bin/python3 - "$tmp" "$rounds" ${nols:+off} $plugins <<'PY'
import random, statistics, sys
d, rounds, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
off = bool(args) and args[0] == "off"
plugins = args[1:] if off else args
rng = random.Random(1)

def ci(r):
    m = [statistics.median(rng.choices(r, k=len(r))) for _ in range(2000)]
    m.sort()
    return m[int(0.025 * len(m))], m[int(0.975 * len(m)) - 1]

for pl in plugins:
    rows = [list(map(float, l.split())) for l in open(f"{d}/{pl}")]
    print(f"lookup/{pl}, 1 thread, {rounds} paired rounds "
          f"(plain median {statistics.median(r[0] for r in rows):.2f} ns/op):")
    arms = [("profile ~1 kHz / plain", 1, 0), ("lockstat on / plain", 2, 0)]
    if off:
        arms.append(("lockstat compiled in / out", 0, 3))
    if all(r[4] > 0 for r in rows):
        arms.append(("perf-bare 1 kHz / plain", 4, 0))
        arms.append(("profile / perf-bare", 1, 4))
    for name, a, b in arms:
        r = [x[a] / x[b] for x in rows]
        lo, hi = ci(r)
        print(f"  {name:28s} median ratio {statistics.median(r):.4f} "
              f"(95% CI {lo:.4f}..{hi:.4f}; "
              f"{100 * (statistics.median(r) - 1):+.1f}%)")
PY
