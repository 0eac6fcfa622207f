#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The gate self-test (DESIGN §5-6, issue 3), with the tests-only slowdown
# plugin (slowdown.c: rcu-noref plus HVB_SLOWDOWN_* work per lookup):
#
#   1. A vs A passes: callgrind mode (deterministic: sim_instructions
#      and sim_cycles) exits 0; time mode
#      never exits 1 (0, or 3 when the shared machine is too noisy).
#   2. +25% real work per op fails in time mode (exit 1); the amount is
#      calibrated here, paired in one run, as 200 work units on every
#      E-th lookup.  Live, across two files (this VM's drift between
#      runs) and paired in one run (2b: a loaded machine), it may be
#      unstable (exit 3, with the reason), never a pass; on fixed
#      samples, of two files (2c) and of one paired file (2b), it always
#      fails.
#   3. +1% instructions fails in callgrind mode (exit 1), every time.
#   4. A deliberately jittery cell is reported unstable (exit 3); with
#      --allow-unstable it is listed as not gated (exit 0).
#   5. Input errors are exit 2 with one line.
#   6. allocs_per_op (the untimed counting pass): exact counts, no hook
#      cost in a timed sample, --processes, gate --metric allocs.
#   7. Two files of one process each get no time verdict (one-process).
#   Timing checks accept an honest "unstable" (lib.sh unsure) where a
#   loaded machine gives one; what must fail is also checked on fixed
#   samples (2b, 2c, 2d) or in instructions (3): the same every run.
#
# Usage: it-gate.sh HVBENCH SLOWDOWN.so
set -u
hvbench=$1
so=$2
. "$(dirname "$0")/lib.sh"

# Eight worker processes of 3 rounds a file.  A time verdict across two
# files rests on the variance between processes (7 below checks that
# one process gets none), and on a VM that variance can be large: the
# same build's 1-thread lookup cell was seen at 6.2 to 10.3 ns from
# process to process on the CI's Xeon VM, so two processes a side can all land on one side
# of it; eight average it down.  The work is set by the environment so
# that the cell names of both files agree, always at the same width
# (HVB_SLOWDOWN_WORK=000 or =200), so that both runs start with
# environments, and so stacks, of the same size.
run() { # run OUT WORK EVERY : the slowdown cell, WORK units every EVERY-th
    out=$1
    env "HVB_SLOWDOWN_WORK=$(printf %03d "$2")" \
        "HVB_SLOWDOWN_EVERY=$(printf %04d "$3")" "$hvbench" run lookup \
        --plugin "domlookup=$so" -q --min-time 0.03 --processes 8 \
        --repetitions 3 -o "$out" >/dev/null 2>>"$tmp/log" ||
        bad "run $out $2 $3"
}
cg() { # cg OUT [env...] : the same under callgrind
    out=$1
    shift
    env "$@" "$hvbench" run lookup --plugin "domlookup=$so" -q \
        --instrument callgrind --repetitions 3 -o "$out" >/dev/null 2>&1 ||
        bad "callgrind run $out $*"
}
gate() { # gate WANT BASE NEW [options]
    want=$1
    shift
    "$hvbench" gate "$@" >"$tmp/gate.out" 2>&1
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        bad "gate $* exited $rc, want $want"
        cat "$tmp/gate.out"
    fi
    return $rc
}
# 1. A vs A.
cg "$tmp/cg-a1.json"
cg "$tmp/cg-a2.json"
gate 0 "$tmp/cg-a1.json" "$tmp/cg-a2.json" --metric sim_instructions
gate 0 "$tmp/cg-a1.json" "$tmp/cg-a2.json" --metric sim_cycles
# No counting pass under callgrind: allocs are absent, with the reason.
/usr/bin/python3 - "$tmp/cg-a1.json" <<'PY' || bad "callgrind run counted allocs"
import json, sys
h = json.load(open(sys.argv[1]))["hvbench"]
p = h["counters"]["counters"]["allocs_per_op"]
assert not p["available"] and "callgrind" in p["reason"], p
assert all("allocs_per_op" not in c["counters"] for c in h["cells"])
PY
# Time-mode A/A: never a regression.  The gate's CI is a 95% one, so a
# false alarm has a small nominal rate even with the 5% threshold; two
# in a row (fresh files each time) is a broken gate.
for try in 1 2; do
    run "$tmp/a1.json" 0 1
    run "$tmp/a2.json" 0 1
    "$hvbench" gate "$tmp/a1.json" "$tmp/a2.json" >"$tmp/gate.out" 2>&1
    rc=$?
    [ "$rc" -ne 1 ] && break
    echo "note: time-mode A/A attempt $try called a regression:"
    cat "$tmp/gate.out"
done
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    bad "A vs A in time mode exited $rc"
    cat "$tmp/gate.out"
fi

# 3. +1% instructions: work units on every 100th lookup, sized from the
# measured Ir of a unit.
# The base runs the same bookkeeping (every 100th lookup, 0 units).
cg "$tmp/cg-w.json" HVB_SLOWDOWN_WORK=100
cg "$tmp/cg-b.json" HVB_SLOWDOWN_EVERY=100
k=$(/usr/bin/python3 -c "
u = ($(median "$tmp/cg-w.json" sim_instructions_per_op) - $(median "$tmp/cg-a1.json" sim_instructions_per_op)) / 100
print(max(1, round($(median "$tmp/cg-b.json" sim_instructions_per_op) / u)))")
cg "$tmp/cg-slow.json" HVB_SLOWDOWN_WORK="$k" HVB_SLOWDOWN_EVERY=100
gate 1 "$tmp/cg-b.json" "$tmp/cg-slow.json" --metric sim_instructions \
    --markdown "$tmp/cg.md"
grep -q "regression" "$tmp/cg.md" || bad "markdown of the +1% gate: no verdict"
grep -q "Ir/op" "$tmp/cg.md" || bad "markdown of the +1% gate: no unit"

# 2. +25% time.  A few work units a lookup need not cost in proportion
# to 200 (out-of-order execution can overlap a short dependent loop with
# the lookup; on the EPYC VM 6 units measured +22.1% where 200 predicted
# +25.0%), so the slowdown is 200 units on every E-th lookup, and E
# comes from the paired ratio of 200 units on every lookup to none, in
# one run: +25% per op is E = (ratio - 1) / 0.25.
"$hvbench" run lookup --plugin "domlookup=$so:tag=1,$so:work=200" -q \
    --min-time 0.05 --repetitions 5 -o "$tmp/w.json" >/dev/null 2>&1 ||
    bad "calibration run"
e=$(/usr/bin/python3 - "$tmp/w.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["hvbench"]["cells"][1]["paired"]["median"]
e = max(1, min(9999, round((r - 1) / 0.25)))
print("calibration: 200 units per lookup: x%.2f per op; +25%%: every %d-th"
      % (r, e), file=sys.stderr)
print(e)
PY
)
# The base does the same bookkeeping (the counter and the modulo by E).
# Three attempts, each with fresh files.
for try in 1 2 3; do
    run "$tmp/b.json" 0 "$e"
    run "$tmp/slow.json" 200 "$e"
    "$hvbench" gate "$tmp/b.json" "$tmp/slow.json" --metric time \
        >"$tmp/gate.out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] && break
done
# Two separate runs on this VM differ by more than their processes
# show: files of the same 8-process A/A have measured -27% [-33, -8]
# and +46% [+20, +52] apart, the machine's state shifting between runs.
# So "unstable" (exit 3), with its reason, is an honest answer here,
# whatever the change it measured; a pass (0) of a real +25% never is,
# nor an error (2).  That the gate says "regressed" where two files
# show it is checked on fixed samples (2c), and of a paired +25% on
# fixed samples too (2b).
if [ "$rc" -eq 3 ] && unsure "$tmp/gate.out"; then
    echo "note: +25% time (E=$e) across two files: unstable on this machine:"
    cat "$tmp/gate.out"
else
    [ "$rc" -eq 1 ] || { bad "+25% time (E=$e) exited $rc"; cat "$tmp/gate.out"; }
fi
rc25=$rc

# 2c. Two files of 8 processes x 3 rounds with fixed samples (the
# layout of b.json): process levels 4% apart around 7 ns, rounds within
# 1% of their level.  NEW = BASE x 1.25 with the processes in another
# order is "regressed" (exit 1); the same order-shuffled BASE is
# "unchanged" (exit 0); one process at twice the level is "unstable"
# (exit 3, min/max or cv); the bootstrap is seeded, so every run agrees.
fixed() { # fixed OUT SCALE ORDER [FAR]: b.json with those samples
    /usr/bin/python3 - "$tmp/b.json" "$@" <<'PY'
import json, sys
src, out, scale, order = sys.argv[1:5]
far = len(sys.argv) > 5
d = json.load(open(src))
h = d["hvbench"]
assert h["run"]["processes"] == 8, h["run"]["processes"]
levels = [7.0 * (1 + 0.04 * (k - 3.5) / 3.5) for k in range(8)]
levels = [levels[int(k)] for k in order]
if far:
    levels[0] *= 2
v = [lv * float(scale) * (1 + 0.01 * r) for lv in levels for r in (-1, 0, 1)]
for c in h["cells"]:
    c["samples_ns_per_op"] = v
    c["noise_flags"] = []
json.dump(d, open(out, "w"))
PY
}
fixed "$tmp/fb.json" 1 01234567
fixed "$tmp/fs.json" 1.25 75316420
fixed "$tmp/fa.json" 1 75316420
fixed "$tmp/ff.json" 1 75316420 far
gate 1 "$tmp/fb.json" "$tmp/fs.json" --metric time
grep -q "regressed" "$tmp/gate.out" || bad "fixed +25%: $(cat "$tmp/gate.out")"
gate 0 "$tmp/fb.json" "$tmp/fa.json" --metric time
gate 3 "$tmp/fb.json" "$tmp/ff.json" --metric time

# 2b. The same +25% paired within one run (variants of one group): the
# per-round ratios cancel the machine's drift, not other work on its
# CPUs.  With two busy loops (nice 19) beside it on this 2-vCPU VM the
# live one has answered "unstable" (the CI reaching past +5%, and E
# calibrated under the same load), so live it must not pass: regressed,
# or unstable with the reason (unsure); that the gate says "regressed"
# of a paired +25% is checked on fixed samples of the same layout: each
# round's reference drifting +-20% with the machine, the variant x1.25
# within 1% of its round (exit 1, every run), and the same rounds
# without the slowdown (exit 0).
"$hvbench" run lookup --plugin "domlookup=$so:every=$e,$so:work=200:every=$e" \
    -q --min-time 0.05 --repetitions 10 -o "$tmp/pair.json" >/dev/null 2>&1
"$hvbench" gate "$tmp/pair.json" --metric time >"$tmp/gate.out" 2>&1
rc=$?
if [ "$rc" -eq 3 ] && unsure "$tmp/gate.out"; then
    echo "note: paired +25% time (E=$e): unstable on this machine now:"
    cat "$tmp/gate.out"
else
    [ "$rc" -eq 1 ] || {
        bad "paired +25% time (E=$e) exited $rc"
        cat "$tmp/gate.out"
    }
fi
paired_fixed() { # paired_fixed OUT SCALE: pair.json, fixed rounds
    /usr/bin/python3 - "$tmp/pair.json" "$@" <<'PY'
import json, math, sys
src, out, scale = sys.argv[1:4]
d = json.load(open(src))
cells = d["hvbench"]["cells"]
assert len(cells) == 2 and cells[1]["variant"] == 1, [c["name"] for c in cells]
ref = [7.0 * (1 + 0.2 * math.sin(1.7 * k)) for k in range(10)]
var = [x * float(scale) * (1 + 0.01 * (k % 3 - 1)) for k, x in enumerate(ref)]
for c, v in zip(cells, (ref, var)):
    c["samples_ns_per_op"] = v
    c["noise_flags"] = []
json.dump(d, open(out, "w"))
PY
}
paired_fixed "$tmp/pf-slow.json" 1.25
paired_fixed "$tmp/pf-aa.json" 1
gate 1 "$tmp/pf-slow.json" --metric time
grep -q "regressed" "$tmp/gate.out" || bad "fixed paired +25%: $(cat "$tmp/gate.out")"
gate 0 "$tmp/pf-aa.json" --metric time
# The same +25% recorded while other work took the CPUs (both cells
# cpu-share<90%): still regressed, the flag shown.  The rounds pair two
# cells of one process of one binary, so the load widens the ratios'
# interval, which decides (issue 35: it was "unstable", exit 3, for a
# -48% the interval showed plainly; the two-build gate keeps its veto).
# The negative control: the same load with ratios spread 0.9 to 1.3, an
# interval across +5%: unstable, exit 3, the reason on one line naming
# the interval and the load.
busy_fixed() { # busy_fixed IN OUT [FACTORS]: cells cpu-share<90%
    /usr/bin/python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = d["hvbench"]["cells"]
for c in cells:
    c["noise_flags"] = ["cpu-share<90%"]
if len(sys.argv) > 3:
    f = [float(x) for x in sys.argv[3].split(",")]
    cells[1]["samples_ns_per_op"] = [x * k for x, k in
                                     zip(cells[0]["samples_ns_per_op"], f)]
json.dump(d, open(sys.argv[2], "w"))
PY
}
busy_fixed "$tmp/pf-slow.json" "$tmp/pf-busy.json"
gate 1 "$tmp/pf-busy.json" --metric time
grep -q "regressed .*both cpu-share<90%" "$tmp/gate.out" ||
    bad "fixed paired +25%, descheduled: $(cat "$tmp/gate.out")"
busy_fixed "$tmp/pf-slow.json" "$tmp/pf-wide.json" \
    0.9,1.0,1.1,1.2,1.3,0.95,1.05,1.15,1.25,1.02
gate 3 "$tmp/pf-wide.json" --metric time
grep -q "^unstable: lookup/[^ ]*: the 95% CI \[[-+0-9.%, ]*\] reaches past +5%: .*(the machine was busy: cpu-share<90%)$" \
    "$tmp/gate.out" ||
    bad "paired, descheduled, across +5%: no reason line: $(cat "$tmp/gate.out")"
# 2d. Paired ratios of 12 processes x 10 rounds (gate --base-bin's
# layout: one process pair each) whose processes sit at levels of their
# own, 0.90 to 1.20 (layout and load luck; per-pair medians of 0.86 and
# 1.18 are seen on the 2-vCPU VM, more under load), rounds within 0.5%
# of their level: an A/A is unstable at 2% (the CI, by process then
# round, spans [-2.5%, +13.5%]; by round alone it was [+3.5%, +9.5%],
# "regressed", the false alarm a loaded machine gave the two-build gate
# in 1 of 20 A/A), and the same x1.25 still regressed.
paired_procs() { # paired_procs OUT SCALE: pair.json as 12 x 10 ratios
    /usr/bin/python3 - "$tmp/pair.json" "$@" <<'PY'
import json, sys
src, out, scale = sys.argv[1:4]
d = json.load(open(src))
h = d["hvbench"]
levels = [0.90, 1.20, 1.00, 1.15, 0.95, 1.10, 1.18, 1.05, 0.92, 1.12, 1.08, 1.02]
ref = [7.0 * (1 + 0.05 * ((p * 7 + r * 3) % 5 - 2)) for p in range(12)
       for r in range(10)]
var = [x * levels[k // 10] * float(scale) * (1 + 0.005 * (k % 3 - 1))
       for k, x in enumerate(ref)]
h["run"].update(processes=12, repetitions=120, rounds_done=120)
for c, v in zip(h["cells"], (ref, var)):
    c["samples_ns_per_op"] = v
    c["noise_flags"] = []
json.dump(d, open(out, "w"))
PY
}
paired_procs "$tmp/pp-aa.json" 1
paired_procs "$tmp/pp-slow.json" 1.25
gate 3 "$tmp/pp-aa.json" --metric time --max-regression 2%
gate 1 "$tmp/pp-slow.json" --metric time --max-regression 2%
# And paired A/A: two variants running the same code never regress.
"$hvbench" run lookup --plugin "domlookup=$so:tag=1,$so:tag=2" -q \
    --min-time 0.05 --repetitions 10 -o "$tmp/paa.json" >/dev/null 2>&1
"$hvbench" gate "$tmp/paa.json" >"$tmp/gate.out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    bad "paired A vs A exited $rc"
    cat "$tmp/gate.out"
fi

# 4. Jitter: the extra work changes every ~25 ms, samples last ~20 ms.
env HVB_SLOWDOWN_JITTER=40 "$hvbench" run lookup --plugin "domlookup=$so" \
    -q --min-time 0.02 --processes 2 --repetitions 4 -o "$tmp/j.json" \
    >/dev/null 2>&1
gate 3 "$tmp/a1.json" "$tmp/j.json" --metric time
# --allow-unstable lets it pass, saying it was not gated, in the console
# and in the markdown, but never hides a regression (the +25% above).
gate 0 "$tmp/a1.json" "$tmp/j.json" --metric time --allow-unstable \
    --markdown "$tmp/j.md"
grep -q "not gated" "$tmp/gate.out" || bad "--allow-unstable: not said"
grep -q "not gated" "$tmp/j.md" || bad "--allow-unstable: not in markdown"
if [ "$rc25" -eq 1 ]; then
    gate 1 "$tmp/b.json" "$tmp/slow.json" --metric time --allow-unstable
fi

# 5. Input errors.
echo '{"broken' >"$tmp/bad.json"
gate 2 "$tmp/a1.json" "$tmp/bad.json"
gate 2 "$tmp/a1.json" "$tmp/a2.json" --metric bogus
gate 2 "$tmp/a1.json" "$tmp/a2.json" --max-regression x
gate 2 "$tmp/a1.json" "$tmp/a2.json" --metric instructions
[ "$(wc -l <"$tmp/gate.out")" -eq 1 ] || bad "error is not one line"
gate 2 "$tmp/a1.json"

# 6. allocs_per_op and frees_per_op (jemalloc hooks, untimed counting
# pass): exact counts (rcu-noref never allocates; the plugin's mallocs
# option gives M pairs per lookup), no hook in a timed sample, the
# figures survive --processes, --counters none leaves them absent with
# the reason, and gate --metric allocs catches one allocation more.
aquick="--min-time 0.02 --repetitions 3 -q"

arun() { # arun OUT M [run args...] : a quick lookup, HVB_SLOWDOWN_MALLOCS=M
    out=$1
    m=$2
    shift 2
    env HVB_SLOWDOWN_MALLOCS="$m" "$hvbench" run lookup $aquick -o "$out" \
        "$@" >/dev/null 2>"$tmp/err" || bad "run $out $*: $(cat "$tmp/err")"
}
# counts FILE WANT_ALLOCS WANT_FREES : every sample of every cell, exactly.
counts() {
    /usr/bin/python3 - "$@" <<'PY' || bad "counts $*"
import json, sys
f, want_a, want_f = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
h = json.load(open(f))["hvbench"]
p = h["counters"]["counters"]["allocs_per_op"]
assert p["available"] and "experimental.hooks" in p["source"], p
for c in h["cells"]:
    n = len(c["samples_ns_per_op"])
    for k, want in (("allocs_per_op", want_a), ("frees_per_op", want_f)):
        s = c["counters"][k]["samples"]
        assert len(s) == n and all(v == want for v in s), (c["name"], k, s)
PY
}

# 6a. rcu-noref: exactly zero, present; the probe line no longer says
# allocs are unavailable.
"$hvbench" run lookup --min-time 0.02 --repetitions 3 \
    --plugin domlookup=rcu-noref -o "$tmp/noref.json" >/dev/null \
    2>"$tmp/noref.err" || bad "rcu-noref run: $(cat "$tmp/noref.err")"
counts "$tmp/noref.json" 0 0
grep -q '^hvbench: counters: .*, allocs (untimed counting pass)' \
    "$tmp/noref.err" || bad "probe line: $(head -1 "$tmp/noref.err")"
grep -q 'unavailable:.*allocs' "$tmp/noref.err" &&
    bad "probe line says allocs are unavailable"

# 6b. A known count: option and environment.
arun "$tmp/m3.json" 0 --plugin "domlookup=$so:mallocs=3"
counts "$tmp/m3.json" 3 3
arun "$tmp/m5.json" 5 --plugin "domlookup=$so"
counts "$tmp/m5.json" 5 5
# Two threads: the measured threads' calls over all their operations.
arun "$tmp/m2t.json" 0 --plugin "domlookup=$so:mallocs=2" --threads 2
counts "$tmp/m2t.json" 2 2

# 6c. No hook in a timed sample: the cost of a pair from a paired run of
# 0 vs 16 pairs per lookup.  Hooked, a pair costs ~55 ns; unhooked ~5 ns,
# beside a lookup of ~7 ns.  In nanoseconds it was a timing check that a
# loaded machine failed (22.8 and 30.9 ns with two busy loops and other
# builds beside it: every time inflated 5x); in lookups of the same
# rounds (the paired ratio) it holds: unhooked 0.7 there and here, hooked
# about 8.
"$hvbench" run lookup --plugin "domlookup=$so:tag=1,$so:mallocs=16" -q \
    --min-time 0.05 --repetitions 5 -o "$tmp/cost.json" >/dev/null 2>&1 ||
    bad "cost run"
/usr/bin/python3 - "$tmp/cost.json" <<'PY' || bad "a timed malloc + free pair costs the hooked slow path"
import json, sys
c = json.load(open(sys.argv[1]))["hvbench"]["cells"]
ns = (c[1]["summary"]["median"] - c[0]["summary"]["median"]) / 16
pair = (c[1]["paired"]["median"] - 1) / 16
print("malloc + free pair in the timed rounds: %.1f ns, %.2f lookups" % (ns, pair))
assert c[1]["counters"]["allocs_per_op"]["summary"]["median"] == 16
assert pair < 3, pair
PY

# 6d. --processes pools the children's figures, zeros included.
arun "$tmp/p.json" 0 --plugin "domlookup=rcu-noref,$so:mallocs=2" \
    --processes 2
/usr/bin/python3 - "$tmp/p.json" <<'PY' || bad "--processes 2 lost the counts"
import json, sys
h = json.load(open(sys.argv[1]))["hvbench"]
assert h["run"]["processes"] == 2
for c, want in zip(h["cells"], (0, 2)):
    s = c["counters"]["allocs_per_op"]["samples"]
    assert len(s) == 6 and all(v == want for v in s), (c["name"], s)
PY
arun "$tmp/none.json" 0 --counters none
/usr/bin/python3 - "$tmp/none.json" <<'PY' || bad "--counters none still counts"
import json, sys
h = json.load(open(sys.argv[1]))["hvbench"]
p = h["counters"]["counters"]["allocs_per_op"]
assert not p["available"] and "--counters none" in p["reason"], p
assert all("allocs_per_op" not in c["counters"] for c in h["cells"])
PY

# 6e. gate --metric allocs (the environment keeps the cell names equal).
arun "$tmp/e3.json" 3 --plugin "domlookup=$so"
arun "$tmp/e3b.json" 3 --plugin "domlookup=$so"
gate 0 "$tmp/e3.json" "$tmp/e3b.json" --metric allocs
gate 1 "$tmp/e3.json" "$tmp/m5.json" --metric allocs --markdown "$tmp/g.md"
grep -q 'allocation calls per op' "$tmp/gate.out" ||
    bad "gate --metric allocs: no source: $(cat "$tmp/gate.out")"
grep -q 'allocs/op' "$tmp/g.md" || bad "gate --metric allocs: no unit"
gate 2 "$tmp/m3.json" "$tmp/none.json" --metric allocs
grep -q 'has no allocs_per_op (not asked (--counters none))' \
    "$tmp/gate.out" || bad "gate without the counter: $(cat "$tmp/gate.out")"
# One file: paired variants, 2 vs 3 allocations per op.
arun "$tmp/pair.json" 0 --plugin "domlookup=$so:mallocs=2,$so:mallocs=3"
gate 1 "$tmp/pair.json" --metric allocs
"$hvbench" compare "$tmp/e3.json" "$tmp/m5.json" --metric allocs \
    >"$tmp/cmp.out" 2>&1 || bad "compare --metric allocs"
grep -q 'regressed' "$tmp/cmp.out" || bad "compare: $(cat "$tmp/cmp.out")"

# 7. Files of one process each: no time verdict however large the change
# (the variance between processes is unknown: A/A across single-process
# runs of the lookup suite false-alarmed 14 times in 20), rows flagged
# one-process; a metric of the code path alone is still judged.
"$hvbench" run lookup --plugin "domlookup=$so" -q --min-time 0.05 \
    --repetitions 5 -o "$tmp/o1.json" >/dev/null 2>&1
env HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY="$e" HVB_SLOWDOWN_MALLOCS=1 \
    "$hvbench" run lookup \
    --plugin "domlookup=$so" -q --min-time 0.05 --repetitions 5 \
    -o "$tmp/o2.json" >/dev/null 2>&1
gate 3 "$tmp/o1.json" "$tmp/o2.json" --metric time
grep -q "one-process" "$tmp/gate.out" || bad "one process: not flagged"
gate 3 "$tmp/o1.json" "$tmp/o2.json" --metric tsc_cycles
gate 1 "$tmp/o1.json" "$tmp/o2.json" --metric allocs

[ "$fail" -eq 0 ] && echo "gate self-test: all passed"
exit "$fail"
