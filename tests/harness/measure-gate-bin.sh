#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The figures of issue 14 for the paired two-build gate, and the two-file
# gate beside it (not part of ctest; minutes).  Every gate runs under the
# exclusive CPU lock (/tmp/hvb-cpu.lock), one lock per gate; the seconds
# reported are the gate's own (both runs for the two-file gate), not the
# wait for the lock.
#
#   aa N         N paired gates of this build against itself, the 1-thread
#                lookup strategies (THREADS=2 for the 2-thread cells)
#   aacell N     N paired gates of this build against itself (the same
#                binary twice), the slowdown cell doing no work
#   slow E N     N paired gates, the slowdown cell: the new build does 200
#                work units on every E-th lookup, the base build only the
#                bookkeeping (E=300: +3.0%, E=450: +1.9% on the 2-vCPU VM)
#   twofile-aa N     N two-file gates as docs/gating.md says: two runs with
#                --processes 3 --repetitions 3 of the same build, gate
#   twofile-slow E N the same, the second run doing the work of 'slow E'
#   builds OTHER     this hvbench and OTHER (two builds of the same
#                source), each gated against the other, both ways
#   issue14      all of them, as measured for docs/gating.md (batches of
#                gates, one exclusive lock per batch)
#   issue21      the adaptive gate's targets (docs/gating.md): 20 gates of
#                a +1% slowdown (slow E, E calibrated first by two gates
#                from E=90, or SLOW_E) and 20 A/A (aacell), one lock
#                per gate; per gate its verdict, pairs and seconds from
#                --json, then the count of each and the median seconds
#
# Usage: measure-gate-bin.sh HVBENCH SLOWDOWN.so MODE ARGS...
# Environment: THR (default 2%) the --max-regression of every gate;
# GATE_OPTS more gate options (e.g. "--pairs 8 --rounds 8");
# HVB_LOCK_HELD=1: the caller holds the exclusive lock (several gates
# per lock on a busy machine: flock -x /tmp/hvb-cpu.lock env
# HVB_LOCK_HELD=1 measure-gate-bin.sh ...).
set -u
hv=$(readlink -f "$1")
so=$(readlink -f "$2")
what=$3
thr=${THR:-2%}
threads=${THREADS:-1}
lock=/tmp/hvb-cpu.lock
. "$(dirname "$0")/lib.sh"
five="lookup --plugin domlookup=rwlock-ref,rcu-ref,rcu-noref,percpu-ref,urcu-ref --threads $threads"
slowcell="lookup --plugin domlookup=$so"
base_build "$tmp/base" "$hv"

# locked CMD...: run CMD under the exclusive lock (unless the caller holds
# it: HVB_LOCK_HELD=1, for several gates per lock on a busy machine); its
# seconds to $tmp/s.
locked() {
    if [ "${HVB_LOCK_HELD:-0}" = 1 ]; then
        date +%s.%N >"$tmp/t0"
        "$@"
    else
        flock -x "$lock" sh -c 'date +%s.%N >"$0"; exec "$@"' "$tmp/t0" "$@"
    fi
    rc=$?
    echo "$(date +%s.%N) - $(cat "$tmp/t0")" | bc >"$tmp/s"
    return $rc
}

ones=0 threes=0 secs=0 changes="" all_s=""
tally() { # tally RC: gate $i's line; count RC, add its seconds and changes
    echo "gate $i: exit $1, $(cat "$tmp/s") s: $(grep '^summary' "$tmp/g")"
    grep -E ' (regressed|improved|unstable|unknown) ' "$tmp/g"
    # The adaptive gate's --json: each cell's verdict, pairs, CI.
    [ -s "$tmp/g.json" ] && /usr/bin/python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    print("  json: %s %s after %d pairs, ratio %.4f CI [%.4f, %.4f], more_pairs %s" % (
        c["name"], c["verdict"], c["pairs"], c["ratio"], c["ci"][0], c["ci"][1],
        c["more_pairs"]))' "$tmp/g.json"
    rm -f "$tmp/g.json"
    [ "$1" -eq 2 ] && cat "$tmp/g"
    i=$((i + 1))
    [ "$1" -eq 1 ] && ones=$((ones + 1))
    [ "$1" -eq 3 ] && threes=$((threes + 1))
    all_s="$all_s $(cat "$tmp/s")"
    secs=$(echo "$secs + $(cat "$tmp/s")" | bc)
    changes="$changes $(awk '/^benchmark/ {on=1; next} /^summary/ {on=0}
        on {printf "%s%s", sep, $4; sep=","}' "$tmp/g")"
}

i=1
case $what in
aa | aacell | slow)
    if [ "$what" = aa ]; then
        n=${4:-20} suite=$five base=$hv
    elif [ "$what" = aacell ]; then
        n=${4:-20} suite=$slowcell base=$hv
    else
        n=${5:-20} suite=$slowcell base=$tmp/base
        export HVB_SLOWDOWN_EVERY="$4" HVB_SLOWDOWN_WORK=200
    fi
    while [ "$i" -le "$n" ]; do
        # shellcheck disable=SC2086
        locked "$hv" gate --base-bin "$base" --max-regression "$thr" \
            --json "$tmp/g.json" ${GATE_OPTS:-} -- $suite >"$tmp/g" 2>&1
        tally $?
    done
    ;;
twofile-aa | twofile-slow)
    if [ "$what" = twofile-aa ]; then
        n=${4:-10} suite=$five work=0
    else
        n=${5:-10} suite=$slowcell work=200
        export HVB_SLOWDOWN_EVERY="$4"
    fi
    while [ "$i" -le "$n" ]; do
        # shellcheck disable=SC2086
        locked sh -c '"$1" run $2 --processes 3 --repetitions 3 -q -o "$3/a.json" &&
            HVB_SLOWDOWN_WORK=$5 "$1" run $2 --processes 3 --repetitions 3 -q \
                -o "$3/b.json" &&
            "$1" gate "$3/a.json" "$3/b.json" --max-regression "$4"' \
            sh "$hv" "$suite" "$tmp" "$thr" "$work" >"$tmp/g" 2>&1
        tally $?
    done
    ;;
builds)
    # Two builds of the same source (e.g. build/hvbench and the tree from
    # git archive built elsewhere, as scripts/ci-gate.sh does), each the
    # base of the other, under one lock: what link-time layout alone does.
    other=$(readlink -f "$4")
    for w in "alloc-extent" "$five"; do
        for pair in "$hv $other" "$other $hv"; do
            set -- $pair
            echo "== new $1, base $2: $w"
            # shellcheck disable=SC2086
            locked "$1" gate --base-bin "$2" --max-regression "$thr" -- $w \
                >"$tmp/g" 2>&1
            grep -E 'threads:[0-9]+  |^gate' "$tmp/g"
        done
    done
    exit 0
    ;;
issue21)
    # The table of docs/gating.md for the adaptive gate: one lock per gate
    # (others' work goes on between them), the load average before each
    # batch.
    # E for a +1% change on this machine (SLOW_E sets it): one 8-pair
    # gate of E=90, scaled to +1% (the work per slowed lookup is fixed, so
    # the change goes as 1 / E), then one 16-pair gate at that E, scaled
    # again (the first step is not linear: cache effects of a slowdown on
    # every 90th lookup).  900 was +1% on the AMD VM, +1.7% on an Intel
    # one.
    e=${SLOW_E:-}
    if [ -z "$e" ]; then
        e=90 pairs=8
        for step in 1 2; do
            HVB_SLOWDOWN_EVERY=$e HVB_SLOWDOWN_WORK=200 locked "$hv" gate \
                --base-bin "$tmp/base" --pairs $pairs --max-pairs $pairs \
                --json "$tmp/c.json" -- $slowcell >"$tmp/g" 2>&1
            out=$(/usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["cells"][0]["ratio"]
print(max(1, round(int(sys.argv[2]) * (r - 1) / 0.01)), "%+.2f%%" % (100 * (r - 1)))' \
                "$tmp/c.json" "$e") || {
                cat "$tmp/g"
                exit 2
            }
            # shellcheck disable=SC2086
            set -- $out
            echo "== calibration $step: E=$e changed the cell by $2 ($pairs pairs), so E=$1 for +1%"
            e=$1 pairs=16
        done
    fi
    for b in "slow $e 20" "aacell 20"; do
        echo "== $b, THR=$thr, GATE_OPTS=${GATE_OPTS:-}; load average before: $(cat /proc/loadavg)"
        # shellcheck disable=SC2086
        "$0" "$hv" "$so" $b
    done
    echo "load average after: $(cat /proc/loadavg)"
    exit 0
    ;;
issue14)
    # The table of docs/gating.md: batches of gates (THREADS THRESHOLD MODE
    # ARGS), each batch under one exclusive lock of at most about 3 minutes.
    for b in "1 2% aa 7" "1 2% slow 300 10" "1 2% twofile-slow 300 5" \
        "1 2% twofile-aa 5" "1 2% slow 450 10" "1 2% twofile-slow 450 5" \
        "1 2% aa 7" "2 2% aa 5" "1 1% slow 450 10" "1 1% aa 7"; do
        # shellcheck disable=SC2086
        set -- $b
        t=$1 th=$2
        shift 2
        flock -x "$lock" env HVB_LOCK_HELD=1 THREADS="$t" THR="$th" "$0" \
            "$hv" "$so" "$@"
    done
    exit 0
    ;;
*)
    echo "usage: $0 HVBENCH SLOWDOWN.so aa N|aacell N|slow E N|twofile-aa N|twofile-slow E N|builds OTHER|issue14|issue21" >&2
    exit 2
    ;;
esac
med=$(echo "$all_s" | tr ' ' '\n' | sed '/^$/d' | sort -n |
    awk '{v[NR] = $1} END {printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
echo "$what ${4:-} threads=$threads thr=$thr: $n gates: exit 1 in $ones, exit 3 in $threes, exit 0 in $((n - ones - threes)); $(echo "scale=1; $secs / $n" | bc) s per gate (median $med); changes:$changes"
