#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The figures of issue 3 (not part of ctest; minutes):
#   aa       A/A false alarms: N+1 runs of the lookup suite, N compares of
#            consecutive runs; how many flag anything (regressed/improved)
#            and how many say unstable
#   time P   gate power in time mode: N pairs base / +P% real work (200
#            units on every E-th lookup, E calibrated in a paired run)
#   sim P    gate power in callgrind mode: N pairs base / +P% instructions
#   paa      A/A within one run: slowdown:tag=1 vs slowdown:tag=2 (same
#            code), threads 1 and 2, paired rounds; N runs, gate each
#   ptime P  paired gate power: slowdown:tag=1 vs slowdown:work=K (+P%)
#            in one run; N runs.  Small K is not linear (out-of-order
#            execution hides a few loop steps behind the lookup): prefer
#   pevery E paired gate power: slowdown:tag=1 vs slowdown:work=200:every=E
#            (200 units on every E-th lookup: linear in 1/E; E=150 gave
#            about +5%, E=300 about +2% on the 2-vCPU VM); N runs
#   tevery E two-file gate power: a run with every E-th lookup doing 200
#            work units against a run doing the bookkeeping only (as
#            pevery, across two files; with RUN_OPTS="--processes 3 ...");
#            and each base against the one before, an A/A of two runs;
#            N pairs
#   empty    the empty-op baseline: harness overhead per op
# Usage: measure-gate.sh HVBENCH SLOWDOWN.so aa|time P|sim P|empty [N]
# Environment: GATE_OPTS (e.g. "--max-regression 1%") is passed to every
# gate; REPS (default 15) sets the repetitions of the paired runs;
# RUN_OPTS (e.g. "--processes 3 --repetitions 3") is added to every run
# of aa and time.
set -u
hv=$1
so=$2
what=$3
. "$(dirname "$0")/lib.sh"
one() { # one OUT [env] : one slowdown cell, ~1.5 s
    out=$1
    shift
    # shellcheck disable=SC2086
    env "$@" "$hv" run lookup --plugin "domlookup=$so" -q --min-time 0.05 \
        --repetitions 10 ${RUN_OPTS:-} -o "$out" >/dev/null 2>&1
}
cgone() {
    out=$1
    shift
    env "$@" "$hv" run lookup --plugin "domlookup=$so" -q \
        --instrument callgrind --repetitions 3 -o "$out" >/dev/null 2>&1
}
# tally RC WHAT: count a gate's exit status and its first row's change
# (in $tmp/g, its output), say them as gate WHAT $i, and move on to i+1
tally() {
    [ "$1" -eq 1 ] && caught=$((caught + 1))
    [ "$1" -eq 3 ] && unstable=$((unstable + 1))
    row=$(grep -A1 '^benchmark' "$tmp/g" | tail -1)
    changes="$changes $(echo "$row" | awk '{print $4}')"
    echo "$2 $i: exit $1: $(echo "$row" | awk '{print $4, $5, $6}'); $(grep summary "$tmp/g")"
    i=$((i + 1))
}
caught=0 unstable=0 changes=""
case $what in
aa)
    n=${4:-20}
    suite="lookup --plugin domlookup=rwlock-ref,rcu-ref,rcu-noref,percpu-ref,urcu-ref --threads 1,2 --param distribution=hot -q ${RUN_OPTS:-}"
    # shellcheck disable=SC2086
    "$hv" run $suite -o "$tmp/r0.json" >/dev/null 2>&1
    flagged=0 unstable=0 i=1
    while [ "$i" -le "$n" ]; do
        # shellcheck disable=SC2086
        "$hv" run $suite -o "$tmp/r$i.json" >/dev/null 2>&1
        "$hv" compare "$tmp/r$((i - 1)).json" "$tmp/r$i.json" >"$tmp/c" 2>&1
        s=$(tail -1 "$tmp/c")
        echo "compare $i: $s"
        echo "$s" | grep -Eq "summary: (0 regressed, 0 improved)" ||
            flagged=$((flagged + 1))
        echo "$s" | grep -q ", 0 unstable" || unstable=$((unstable + 1))
        i=$((i + 1))
    done
    echo "A/A: $flagged of $n compares flagged a regression or improvement; $unstable said unstable"
    ;;
time | sim)
    p=$4
    n=${5:-20}
    if [ "$what" = time ]; then
        # 200 units on every E-th lookup (a few units a lookup are not
        # linear: see ptime), E from the paired ratio of 200 units a
        # lookup to none, in one run.
        "$hv" run lookup --plugin "domlookup=$so:tag=1,$so:work=200" -q \
            --min-time 0.05 --repetitions 10 -o "$tmp/w.json" >/dev/null 2>&1
        k=200
        every=$(/usr/bin/python3 -c "
import json
r = json.load(open('$tmp/w.json'))['hvbench']['cells'][1]['paired']['median']
print(max(1, round((r - 1) / ($p / 100))))")
    else
        cgone "$tmp/b1.json"
        cgone "$tmp/w.json" HVB_SLOWDOWN_WORK=100
        cgone "$tmp/b.json" HVB_SLOWDOWN_EVERY=100
        k=$(/usr/bin/python3 -c "
u = ($(median "$tmp/w.json" sim_instructions_per_op) - $(median "$tmp/b1.json" sim_instructions_per_op)) / 100
print(max(1, round($p * $(median "$tmp/b.json" sim_instructions_per_op) / u)))")
        every=100
    fi
    i=1
    t0=$(date +%s)
    while [ "$i" -le "$n" ]; do
        if [ "$what" = time ]; then
            one "$tmp/b.json" HVB_SLOWDOWN_EVERY=$every
            one "$tmp/s.json" HVB_SLOWDOWN_WORK="$k" HVB_SLOWDOWN_EVERY=$every
            # shellcheck disable=SC2086
            "$hv" gate "$tmp/b.json" "$tmp/s.json" --metric time \
                ${GATE_OPTS:-} >"$tmp/g" 2>&1
        else
            cgone "$tmp/b.json" HVB_SLOWDOWN_EVERY=$every
            cgone "$tmp/s.json" HVB_SLOWDOWN_WORK="$k" HVB_SLOWDOWN_EVERY=$every
            "$hv" gate "$tmp/b.json" "$tmp/s.json" --metric sim_instructions \
                >"$tmp/g" 2>&1
        fi
        tally $? pair
    done
    echo "$what +$p% (k=$k every=$every): caught $caught of $n, unstable $unstable, $(($(date +%s) - t0)) s"
    ;;
tevery | pevery)
    n=${5:-20}
    i=1
    t0=$(date +%s)
    while [ "$i" -le "$n" ]; do
        if [ "$what" = tevery ]; then
            one "$tmp/b.json" HVB_SLOWDOWN_EVERY="$4"
            one "$tmp/s.json" HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY="$4"
            files="$tmp/b.json $tmp/s.json --metric time"
        else
            "$hv" run lookup --plugin "domlookup=$so:tag=1,$so:work=200:every=$4" \
                -q --min-time 0.05 --repetitions "${REPS:-30}" \
                -o "$tmp/p.json" >/dev/null 2>&1
            files="$tmp/p.json"
        fi
        # shellcheck disable=SC2086
        "$hv" gate $files ${GATE_OPTS:-} >"$tmp/g" 2>&1
        tally $? pair
        # tevery: this base against the last one, an A/A of two runs
        if [ "$what" = tevery ] && [ -f "$tmp/bprev.json" ]; then
            # shellcheck disable=SC2086
            "$hv" gate "$tmp/bprev.json" "$tmp/b.json" --metric time \
                ${GATE_OPTS:-} >"$tmp/g" 2>&1
            echo "  A/A of the bases: exit $?: $(grep -A1 '^benchmark' "$tmp/g" | tail -1 | awk '{print $4, $5, $6, $9, $10, $11}')"
        fi
        [ "$what" = tevery ] && cp "$tmp/b.json" "$tmp/bprev.json"
    done
    [ "$what" = tevery ] && label=tevery || label=every
    echo "$label=$4: exit 1 in $caught of $n, exit 3 in $unstable, $(($(date +%s) - t0)) s; changes:$changes"
    ;;
paa | ptime)
    n=${5:-20}
    [ "$what" = paa ] && n=${4:-20}
    k=0
    if [ "$what" = ptime ]; then
        "$hv" run lookup --plugin "domlookup=$so:tag=1,$so:work=200" -q \
            --min-time 0.05 --repetitions 10 -o "$tmp/w.json" >/dev/null 2>&1
        k=$(/usr/bin/python3 -c "
import json
c = json.load(open('$tmp/w.json'))['hvbench']['cells']
t = c[0]['summary']['median']; r = c[1]['paired']['median']
print(max(1, round($4 / 100 * 200 / (r - 1))))")
        /usr/bin/python3 -c "
import json
c = json.load(open('$tmp/w.json'))['hvbench']['cells']
print('effective slowdown: %.1f%%' % ((c[1]['paired']['median'] - 1) / 200 * $k * 100))"
    fi
    i=1
    t0=$(date +%s)
    while [ "$i" -le "$n" ]; do
        if [ "$what" = paa ]; then
            "$hv" run lookup --plugin "domlookup=$so:tag=1,$so:tag=2" \
                --threads 1,2 -q --min-time 0.05 --repetitions "${REPS:-15}" \
                -o "$tmp/p.json" >/dev/null 2>&1
        else
            "$hv" run lookup --plugin "domlookup=$so:tag=1,$so:work=$k" -q \
                --min-time 0.05 --repetitions "${REPS:-15}" -o "$tmp/p.json" \
                >/dev/null 2>&1
        fi
        # shellcheck disable=SC2086
        "$hv" gate "$tmp/p.json" ${GATE_OPTS:-} >"$tmp/g" 2>&1
        tally $? run
    done
    echo "$what ${4:-} (k=$k): exit 1 in $caught of $n, exit 3 in $unstable, $(($(date +%s) - t0)) s"
    ;;
empty)
    "$hv" run empty --param batch=1,64,1000 -q --repetitions 10
    ;;
esac
