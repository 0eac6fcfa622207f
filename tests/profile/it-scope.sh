#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Which tasks the profiler's events watch (hvb/perf_rings.h).  As root
# they are CPU-wide, and the reader keeps this process tree's records:
#
# Children: parallel-create spawns its label helper (/bin/true), a
# process of its own, twice per VM.  --view offcpu counts the helpers
# among the cell's threads, CPU-wide as per task (HVBENCH_PERF_PER_TASK=1,
# the events that follow a process's children by inheritance): the two
# counts are equal, and with spawn=0 (no helper) the count is at least
# one thread per op lower.  That last check is the negative control:
# the count does see the children.
#
# Other processes: a busy loop (another process) runs beside
# "profile lookup" at 1 thread, on the other CPU.  It must be seen
# (other_tasks_records > 0) and left out: the cell's samples per second
# of its thread's CPU time stay within 40% of those of a run alone (the
# loop's samples in the cell's time would about double them).
#
# As nobody (perf_event_paranoid > 0): the events fall back to per task,
# with a warning, and results.json says "per-task".
#
# Usage: it-scope.sh HVBENCH
hvbench=$1
# shellcheck source=../common/testlib.sh
. "$(dirname "$0")/../common/testlib.sh"

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: CPU-wide events and the sched_switch tracepoint need root"
    exit 77
fi

pc="parallel-create --threads 2 --iterations 3 --repetitions 1 -q"
pc="$pc --view offcpu"
threads() { jq -r '.hvbench.cells[0].profile.threads' "$1/results.json"; }
events() { jq -r '.hvbench.profile.events' "$1/results.json"; }
# shellcheck disable=SC2086
"$hvbench" profile $pc --out "$tmp/w" >/dev/null 2>"$tmp/err" ||
    bad "parallel-create CPU-wide: $(cat "$tmp/err")"
# shellcheck disable=SC2086
HVBENCH_PERF_PER_TASK=1 "$hvbench" profile $pc --out "$tmp/t" \
    >/dev/null 2>"$tmp/err" || bad "parallel-create per task: $(cat "$tmp/err")"
grep -q "warning: profile: events per task (HVBENCH_PERF_PER_TASK=1)" \
    "$tmp/err" || bad "per task: no warning: $(cat "$tmp/err")"
# shellcheck disable=SC2086
"$hvbench" profile $pc --param spawn=0 --out "$tmp/s" >/dev/null \
    2>"$tmp/err" || bad "parallel-create spawn=0: $(cat "$tmp/err")"
if [ $fail -eq 0 ]; then
    w=$(threads "$tmp/w") t=$(threads "$tmp/t") s=$(threads "$tmp/s")
    ops=$(jq -r '.hvbench.cells[0].profile.ops' "$tmp/w/results.json")
    [ "$(events "$tmp/w")" = cpu-wide ] ||
        bad "as root the events are not CPU-wide: $(events "$tmp/w")"
    [ "$(events "$tmp/t")" = per-task ] ||
        bad "HVBENCH_PERF_PER_TASK=1: events $(events "$tmp/t")"
    [ "$w" = "$t" ] ||
        bad "threads: $w CPU-wide, $t per task (the children not followed?)"
    [ "$s" -le $((w - ops)) ] ||
        bad "threads: $w with the helper, $s without, over $ops ops"
fi

# The cell's samples per second of its thread's CPU time (task-clock),
# alone and then beside a busy loop on the CPU it leaves.
lk="lookup --threads 1 --min-time 0.5 --repetitions 1 -q"
cat >"$tmp/rate.py" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["hvbench"]["cells"][0]
cpu = c["counters"]["sw_task_clock_ns_per_op"]["summary"]["median"]
print("%.6f" % (c["profile"]["samples"] / (cpu * sum(c["iterations"]) / 1e9)))
PY
# shellcheck disable=SC2086
"$hvbench" profile $lk --out "$tmp/a" >/dev/null 2>"$tmp/err" ||
    bad "lookup: $(cat "$tmp/err")"
sh -c 'while :; do :; done' &
loop=$!
# shellcheck disable=SC2086
"$hvbench" profile $lk --out "$tmp/l" >/dev/null 2>"$tmp/err" ||
    bad "lookup beside a busy loop: $(cat "$tmp/err")"
kill "$loop"
wait "$loop" 2>/dev/null
if [ -f "$tmp/a/results.json" ] && [ -f "$tmp/l/results.json" ]; then
    jq -e '.hvbench.profile.events == "cpu-wide" and
        .hvbench.profile.other_tasks_records > 0' "$tmp/l/results.json" \
        >/dev/null || bad "the busy loop was not seen: $(jq -c \
            .hvbench.profile "$tmp/l/results.json")"
    alone=$($py "$tmp/rate.py" "$tmp/a/results.json")
    beside=$($py "$tmp/rate.py" "$tmp/l/results.json")
    echo "samples per CPU second: $alone alone, $beside beside the loop"
    $py -c "import sys; r = $beside / $alone; sys.exit(not 0.6 <= r <= 1.4)" ||
        bad "beside a busy loop the cell has $beside samples per CPU second," \
            "alone $alone: the loop's samples kept?"
fi

if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ]; then
    echo "SKIP part: perf_event_paranoid > 2: nobody may not profile at all"
elif nobody_ready "the per-task fallback"; then
    # shellcheck disable=SC2086
    $as_nobody "$hvbench" profile $lk --out "$tmp/n/o" >/dev/null \
        2>"$tmp/n/err" || bad "lookup as nobody: $(cat "$tmp/n/err")"
    grep -q "events per task (not permitted CPU-wide" "$tmp/n/err" ||
        bad "as nobody: no warning: $(cat "$tmp/n/err")"
    [ -f "$tmp/n/o/results.json" ] && [ "$(events "$tmp/n/o")" = per-task ] ||
        bad "as nobody: results.json does not say per-task"
fi

[ $fail -eq 0 ] && echo "ok: the profiler's events watch this process tree"
exit "$fail"
