#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Issue 23: the report shows what gate judged, and the run's noise flags
# reach every view.  An A/B run shares CPU 0 with a busy loop (both
# pinned there by taskset), so every cell carries cpu-share<90% in the
# JSON; then:
#   - the run's console says so (it said nothing);
#   - gate's noise column names it (it did not), also for cells that
#     record no flags (gate --base-bin's): from their task-clock;
#   - the report's ratio column is gate's paired ratio and CI (it was the
#     ratio of medians with a bootstrap CI of its own), a verdict column
#     says gate's verdict, and the notes name the flag (they did not).
# Usage: it-report-gate.sh HVBENCH
set -u
hvbench=$1
. "$(dirname "$0")/../cli/lib.sh"

taskset -c 0 sh -c 'while :; do :; done' &
busy=$!
track $busy
taskset -c 0 "$hvbench" run lookup --plugin domlookup=rwlock-ref,rcu-noref \
    --param domains=10 --min-time 0.02 --repetitions 5 \
    --out "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" || {
    echo "FAIL: run: $(tail -5 "$tmp/err")"; exit 1; }
kill $busy
untrack $busy
flags=$(/usr/bin/python3 -c '
import json, sys
cells = json.load(open(sys.argv[1]))["hvbench"]["cells"]
print(sum("cpu-share<90%" in c["noise_flags"] for c in cells), len(cells))
' "$tmp/r.json")
if [ "$flags" != "2 2" ]; then
    echo "FAIL: the shared CPU left cpu-share<90% on $flags cells"
    exit 1
fi

# The run's console.
if grep -q "cpu-share<90% on 2 of 2 cells" "$tmp/err" &&
    grep -q "cpu-share<90%: the measured threads were descheduled" "$tmp/err"; then
    ok
else
    bad "run console: no cpu-share<90% line: $(tail -4 "$tmp/err")"
fi

# Gate's noise column: both sides (reference and variant) carry it.
"$hvbench" gate "$tmp/r.json" --allow-unstable >"$tmp/gate" 2>&1
if grep -q "rcu-noref.*both cpu-share<90%" "$tmp/gate"; then
    ok
else
    bad "gate: no cpu-share<90% in the noise column: $(cat "$tmp/gate")"
fi

# A cell that records no flags (gate --base-bin's samples): gate finds
# the CPU share from its task-clock and wall-time samples.
/usr/bin/python3 - "$tmp/r.json" "$tmp/bare.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["hvbench"]["cells"]:
    del c["noise_flags"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$hvbench" gate "$tmp/bare.json" --allow-unstable >"$tmp/gate" 2>&1
if grep -q "rcu-noref.*both cpu-share<90%" "$tmp/gate"; then
    ok
else
    bad "gate, no recorded flags: no cpu-share<90%: $(cat "$tmp/gate")"
fi

# A cell whose threads wait by design: on CPU 5% of its wall
# (task-clock), runnable without a CPU 1% (run delay): not descheduled.
# Its run delay at 50% of the wall: descheduled.  Without run delay,
# task-clock alone says cpu-share<90% (the old rule, for older files).
waiting() { # waiting IN OUT DELAY_SHARE|none
    /usr/bin/python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["hvbench"]["cells"]:
    c.pop("noise_flags", None)
    ctr = c["counters"]
    wall = c["samples_ns_per_op"]
    ctr["sw_task_clock_ns_per_op"]["samples"] = [0.05 * w for w in wall]
    ctr.pop("sched_run_delay_ns_per_op", None)
    if sys.argv[3] != "none":
        ctr["sched_run_delay_ns_per_op"] = {
            "flags": ["per_op"],
            "samples": [float(sys.argv[3]) * w for w in wall]}
json.dump(d, open(sys.argv[2], "w"))
PY
}
for case in "0.01 no" "0.5 yes" "none yes"; do
    set -- $case
    waiting "$tmp/r.json" "$tmp/w.json" "$1"
    "$hvbench" gate "$tmp/w.json" --allow-unstable >"$tmp/gate" 2>&1
    if grep -q "cpu-share<90%" "$tmp/gate"; then got=yes; else got=no; fi
    [ "$got" = "$2" ] && ok ||
        bad "a waiting cell, run delay $1 of the wall: cpu-share<90% $got, wanted $2: $(cat "$tmp/gate")"
done

# The report against gate's own numbers (compare's JSON view, one code).
"$hvbench" compare "$tmp/r.json" --format json >"$tmp/g.json" || exit 1
"$hvbench" report "$tmp/r.json" --out "$tmp/rep" 2>"$tmp/rerr" || {
    echo "FAIL: report: $(cat "$tmp/rerr")"; exit 1; }
/usr/bin/python3 - "$tmp/g.json" "$tmp/rep/index.html" >"$tmp/check" <<'PY'
import html, json, re, sys

g = json.load(open(sys.argv[1]))["benchmarks"][0]
page = open(sys.argv[2], encoding="utf-8").read()


def fmt(x):
    return f"{x:.4g}"


head = re.search(r"<table><tr><th class=l>cell</th>.*?</tr>", page).group(0)
cols = [html.unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<th[^>]*>.*?</th>", head)]
row = re.search(r"<tr><td class=l>" + re.escape(g["name"]) + r"</td>.*?</tr>", page).group(0)
cells = [html.unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>.*?</td>", row)]
got = dict(zip(cols, cells))
bad = []
if got.get("paired ratio") != fmt(g["ratio"]):
    bad.append(f"ratio {got.get('paired ratio')!r}, gate's {fmt(g['ratio'])}")
want_ci = fmt(g["ci95"][0]) + " - " + fmt(g["ci95"][1])
head = "ratio " + g["interval"]["label"]
if got.get(head) != want_ci:
    bad.append(f"{head} {got.get(head)!r}, gate's {want_ci} ({cols})")
verdict = [v for k, v in got.items() if k.startswith("verdict (gate, 5%)")]
if not verdict or not verdict[0].startswith(g["verdict"]):
    bad.append(f"verdict {verdict!r}, gate's {g['verdict']}")
if "cpu-share<90%" not in got.get("notes", ""):
    bad.append(f"notes {got.get('notes')!r} lack cpu-share<90%")
print("; ".join(bad) or "ok")
PY
if [ "$(cat "$tmp/check")" = ok ]; then
    ok
else
    bad "report: $(cat "$tmp/check")"
fi
finish report-gate
