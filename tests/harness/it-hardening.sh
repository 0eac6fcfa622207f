#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Hardening (issue 11): verdicts that must not be wrong, on results files
# edited from one quick real run (harness/output/results_read.c checks every file
# read back), and outputs that leave nothing out:
#
#   1. samples of 1e308, 0, -5, NaN-like strings: exit 2 naming the file,
#      the cell and the field (they passed, "improved" or "regressed");
#   2. a zero sample of a metric that cannot be zero (tsc_cycles): exit 2;
#   3. a file of an interrupted run: gate refuses it (exit 2) unless
#      --allow-incomplete; compare warns;
#   4. a --markdown file that cannot be written: exit 2, never 1;
#   5. 6 against 100,000 samples: bounded memory and time (it took 6 GB
#      and 25 s at 8,000);
#   6. report reads files through the same check: a future schema and a
#      non-numeric sample are one line, exit 2 (not a Python traceback);
#   7. profile --diff naming a slot or plugin that does not run: exit 2
#      before anything is measured (it was ignored, exit 0);
#   8. --format csv and markdown carry the perfc.* counters the console
#      and JSON show (they were left out);
#   9. profile --diff's console table marks a function name it cuts;
#  10. --resume under other settings (--min-time, --seed, --affinity,
#      --no-interleave, --iterations, --counters): exit 2 naming the first
#      (it merged the rounds and labelled them all with the new ones);
#  11. --resume validates what it reads back: shared_iterations of 1e15,
#      -5, or two in one group; negative or non-numeric samples: exit 2;
#  12. a counter that is 0 in some rounds stays 0 in those rows, through
#      --resume and --processes (it went missing).
#
# Usage: it-hardening.sh HVBENCH
set -u
hvbench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=1; echo "FAIL: $*"; }
py=/usr/bin/python3

"$hvbench" run lookup --param domains=10 --min-time 0.01 --repetitions 1 \
    --processes 3 -q -o "$tmp/base.json" >/dev/null 2>&1 || bad "base run"

# mut OUT PYTHON: a copy of base.json with cell 0 as c, hvbench as h.
mut() {
    $py - "$tmp/base.json" "$tmp/$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["hvbench"]
c = h["cells"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}

# want RC GREP CMD...: exit status RC, and one stderr line matching GREP.
want() {
    rc=$1
    pat=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$rc" ]; then
        bad "$* exited $got, want $rc: $(cat "$tmp/err")"
    elif [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; then
        bad "$*: stderr: $(cat "$tmp/err")"
    elif [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        bad "$*: not one line: $(cat "$tmp/err")"
    fi
}

cell="cell 0 'lookup/domlookup=rcu-noref/domains=10/threads:1'"

# 1. Samples that are not measurements.
mut huge.json 'c["samples_ns_per_op"][1] = 1e308'
mut zero.json 'c["samples_ns_per_op"] = [0, 0, 0]'
mut neg.json 'c["samples_ns_per_op"][2] = -5'
mut str.json 'c["samples_ns_per_op"][0] = "fast"'
mut ctr.json 'c["counters"]["tsc_cycles_per_op"]["samples"][0] = -1'
mut inf.json 'c["cpu_samples_ns_per_op"][0] = 1e300'
want 2 "'$tmp/huge.json': $cell: samples_ns_per_op\[1\] is 1e+308" \
    "$hvbench" gate "$tmp/base.json" "$tmp/huge.json"
want 2 "'$tmp/zero.json': $cell: samples_ns_per_op\[0\] is 0" \
    "$hvbench" gate "$tmp/base.json" "$tmp/zero.json"
want 2 "'$tmp/neg.json': $cell: samples_ns_per_op\[2\] is -5" \
    "$hvbench" gate "$tmp/neg.json" "$tmp/neg.json"
want 2 "samples_ns_per_op\[0\] is \"fast\"" \
    "$hvbench" compare "$tmp/base.json" "$tmp/str.json"
want 2 "counters.tsc_cycles_per_op.samples\[0\] is -1" \
    "$hvbench" gate "$tmp/base.json" "$tmp/ctr.json" --metric tsc_cycles
want 2 "cpu_samples_ns_per_op\[0\] is 1e+300" \
    "$hvbench" gate "$tmp/base.json" "$tmp/inf.json"

# 2. Zero cycles per op: not a measurement (0 -> x was "improved").
mut tsc0.json 'c["counters"]["tsc_cycles_per_op"]["samples"] = [0, 0, 0]'
want 2 "'$tmp/tsc0.json': cell '.*': counters.tsc_cycles_per_op.samples\[0\] is 0" \
    "$hvbench" gate "$tmp/tsc0.json" "$tmp/base.json" --metric tsc_cycles
# ... but zero allocations are a value (a path that never allocates).
mut alloc0.json 'c["counters"]["allocs_per_op"] = {"flags": ["per_op"], "samples": [0, 0, 0]}'
want 0 "" "$hvbench" compare "$tmp/alloc0.json" "$tmp/alloc0.json" \
    --metric allocs

# 3. Interrupted runs.
mut inc.json 'h["run"]["rounds_done"] = 2; h["run"]["complete"] = False'
want 2 "'$tmp/inc.json' is from an interrupted run (2 of 3 rounds done)" \
    "$hvbench" gate "$tmp/base.json" "$tmp/inc.json"
"$hvbench" gate "$tmp/base.json" "$tmp/inc.json" --allow-incomplete \
    >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -ne 2 ] && grep -q "warning: '$tmp/inc.json' is from an interrupted" \
    "$tmp/err" || bad "--allow-incomplete: exit $rc: $(cat "$tmp/err")"
want 0 "warning: '$tmp/inc.json' is from an interrupted run" \
    "$hvbench" compare "$tmp/base.json" "$tmp/inc.json"
mut lie.json 'h["run"]["rounds_done"] = 2'
want 2 "run: complete is true with 2 of 3 rounds done" \
    "$hvbench" gate "$tmp/base.json" "$tmp/lie.json"

# 4. --markdown that cannot be written (/dev/full is written in place).
if [ -w /dev/full ]; then
    "$hvbench" gate "$tmp/base.json" "$tmp/base.json" --allow-unstable \
        --markdown /dev/full >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "cannot write markdown to '/dev/full'" \
        "$tmp/err" || bad "--markdown /dev/full: exit $rc: $(cat "$tmp/err")"
fi

# 5. 6 against 100,000 samples: under 1 GB of address space, 60 s.
synth() { # synth OUT N SEED PROCESSES: N samples of ~20 ns/op
    mut "$1" "
import random
random.seed($3)
n = $2
c['samples_ns_per_op'] = [20 + random.random() for _ in range(n)]
c['cpu_samples_ns_per_op'] = c['samples_ns_per_op']
c['iterations'] = [1000] * n
c['counters'] = {}
h['run'].update(repetitions=n, rounds_done=n, processes=$4)"
}
synth few.json 6 1 3
synth many.json 100000 2 4
(ulimit -v 1048576 && timeout 60 "$hvbench" compare "$tmp/few.json" \
    "$tmp/many.json" --format json >"$tmp/big.out" 2>"$tmp/err")
rc=$?
if [ "$rc" -ne 0 ]; then
    bad "6 vs 100k samples: exit $rc: $(cat "$tmp/err")"
else
    $py - "$tmp/big.out" <<'PY' || bad "6 vs 100k samples: $(cat "$tmp/big.out")"
import json, sys
r = json.load(open(sys.argv[1]))["benchmarks"][0]
assert r["mannwhitney_p"] is not None and 0 <= r["mannwhitney_p"] <= 1, r
assert None not in r["ci95"] and r["ci95"][0] < 1 < r["ci95"][1], r
PY
fi

# 6. report reads through the same check.
if $py -c 'import matplotlib' 2>/dev/null; then
    mut future.json 'h["schema_version"] = 99'
    want 2 "'$tmp/future.json' has results schema version 99" \
        "$hvbench" report "$tmp/future.json" --out "$tmp/rep"
    want 2 "'$tmp/str.json': $cell: samples_ns_per_op\[0\] is \"fast\"" \
        "$hvbench" report "$tmp/str.json" --out "$tmp/rep"
fi

# 7. profile --diff.
prof() { # prof DIFF: a profile run that must be refused
    want 2 "$2" "$hvbench" profile lookup --param domains=10 --min-time 0.01 \
        --repetitions 1 -q --diff "$1" --out "$tmp/prof"
    [ -e "$tmp/prof/results.json" ] && bad "--diff $1: it ran"
}
prof nosuch=a,b "bad value 'nosuch=a,b' for --diff: SLOT=A,B with SLOT one of lookup's slots (domlookup)"
prof domlookup=rcu-noref,nosuch "domlookup=nosuch does not run (this run's domlookup plugins: rcu-noref"
prof domlookup=rwlock-ref,rcu-noref "domlookup=rwlock-ref does not run"
prof domlookup=rcu-noref,rcu-noref "A and B are one plugin"

# 8. Every counter in csv and markdown.
for f in csv markdown; do
    "$hvbench" run lookup --param domains=10 --min-time 0.01 --repetitions 1 \
        -q --format $f >"$tmp/t.$f" 2>/dev/null || bad "--format $f run"
    grep -q "perfc.dom_lookup=1" "$tmp/t.$f" ||
        bad "--format $f has no perfc.dom_lookup: $(cat "$tmp/t.$f")"
done

# 9. A long name in the diff table ends in a marker, whole in the .md.
long=hv_domain_lookup_with_a_name_that_is_much_longer_than_the_column_is_wide
printf 'main;%s 40\nmain;other 10\n' "$long" >"$tmp/a.folded"
printf 'main;other 10\n' >"$tmp/b.folded"
$py "$(dirname "$0")/../../harness/profile/render/flamegraph.py" diff "$tmp/a.folded" \
    "$tmp/b.folded" "$tmp/d" >"$tmp/d.out" 2>&1 || bad "flamegraph.py diff"
grep -q "^vanished  $(echo "$long" | cut -c1-59)… " "$tmp/d.out" ||
    bad "diff table: no marker on a cut name: $(cat "$tmp/d.out")"
grep -q "\`$long\`" "$tmp/d.md" || bad "diff .md: the name is not whole"

# 10. --resume under other settings.
rargs="lookup --plugin domlookup=rwlock-ref,rcu-noref --param domains=10
       --min-time 0.01 --repetitions 3 -q"
# shellcheck disable=SC2086
"$hvbench" run $rargs -o "$tmp/full.json" >/dev/null 2>&1 || bad "resume base"
# partial OUT [PYTHON]: full.json as an interrupted run of 2 rounds.
partial() {
    $py - "$tmp/full.json" "$tmp/$1" "${2:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["hvbench"]
h["run"]["rounds_done"] = 2
h["run"]["complete"] = False
c = h["cells"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
resume() { # resume WANT GREP FILE [options]
    w=$1
    g=$2
    f=$3
    shift 3
    # shellcheck disable=SC2086
    want "$w" "$g" "$hvbench" run $rargs -o "$tmp/$f" --resume "$@"
}
for o in "--min-time 0.02|--min-time (run.min_time_s) is 0.01 there, 0.02 here" \
    "--seed 7|--seed (run.seed) is 1 there, 7 here" \
    "--affinity none|--affinity (run.affinity) is \"spread\" there, \"none\" here" \
    "--no-interleave|--no-interleave (run.interleaved) is true there, false here" \
    "--iterations 1000|--iterations (run.iterations) is 0 there, 1000 here" \
    "--counters tsc|--counters (counters.mode) is \"auto\" there, \"tsc\" here"; do
    partial p.json
    opt=${o%%|*}
    # shellcheck disable=SC2086
    resume 2 "was measured with other settings: ${o#*|}" p.json $opt
    $py -c "import json,sys; assert json.load(open(sys.argv[1]))['hvbench']['run']['rounds_done'] == 2" \
        "$tmp/p.json" || bad "--resume $opt touched the file"
done
partial p.json
resume 0 "" p.json
$py -c "import json,sys; assert json.load(open(sys.argv[1]))['hvbench']['run']['complete']" \
    "$tmp/p.json" || bad "--resume with the same settings did not complete"

# 11. What --resume reads back.
partial si.json 'c["shared_iterations"] = 10**15'
resume 2 "cell 0 '.*': shared_iterations is 1000000000000000: want an integer in 0..10000000000000" si.json
partial si2.json 'c["shared_iterations"] = 10**12'
resume 2 "cell 0: shared_iterations 1000000000000 at .* ns/op is a round of .* s, not one that --min-time 0.01 calibrates" si2.json
partial neg.json 'c["shared_iterations"] = -5'
resume 2 "cell 0 '.*': shared_iterations is -5" neg.json
partial grp.json 'h["cells"][1]["shared_iterations"] += 1'
resume 2 "cells 0 and 1 of group 0 have shared_iterations .*: a group shares one count" grp.json
partial ns.json 'c["samples_ns_per_op"][0] = -3'
resume 2 "samples_ns_per_op\[0\] is -3" ns.json
partial nn.json 'c["counters"]["tsc_cycles_per_op"]["samples"][1] = "x"'
resume 2 "counters.tsc_cycles_per_op.samples\[1\] is \"x\"" nn.json

# 12. A zero is a value: round 0 of cell 0 had no context switch.
partial z.json '
k = "sw_context_switches_per_op"
c["counters"][k]["samples"][0] = 0
c["counters"][k]["samples"][1] = 2e-6
for r in d["benchmarks"]:
    if r.get("run_type") == "iteration" and r["family_index"] == 0:
        r[k] = [0, 2e-6, 2e-6][r["repetition_index"]]'
resume 0 "" z.json
$py - "$tmp/z.json" <<'PY' || bad "--resume lost a zero counter"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["benchmarks"] if r.get("run_type") == "iteration"
        and r["family_index"] == 0]
assert rows[0].get("sw_context_switches_per_op") == 0, rows[0]
assert d["hvbench"]["cells"][0]["counters"]["sw_context_switches_per_op"]["samples"][0] == 0
PY
# --processes: every row has every sw_* counter its process measured.
"$hvbench" run lookup --param domains=10,1k --processes 2 --repetitions 2 \
    --min-time 0.01 -q -o "$tmp/pp.json" >/dev/null 2>&1 || bad "--processes run"
$py - "$tmp/pp.json" <<'PY' || bad "--processes: a counter went missing from a row"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["benchmarks"]:
    if r.get("run_type") == "iteration":
        for k in ("sw_context_switches_per_op", "sw_cpu_migrations_per_op"):
            assert k in r, (r["name"], r["repetition_index"], k)
PY

exit $fail
