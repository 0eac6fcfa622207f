#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# CLI contract tests: every input error is exit 2 with exactly one line on
# stderr naming the problem; nothing is written to stdout then; a good run
# writes valid, complete JSON atomically.
# Usage: it-cli.sh HVBENCH [EXTERNAL_PLUGIN.so]
set -u
hvbench=$1
skeleton=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_error "PATTERN" ARGS...: exit 2, one stderr line matching PATTERN,
# empty stdout.
expect_error() {
    pattern=$1
    shift
    "$hvbench" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 2 ]; then
        bad "hvbench $*: exit $rc, want 2"
    elif [ "$lines" -ne 1 ]; then
        bad "hvbench $*: $lines stderr lines, want 1: $(cat "$tmp/err")"
    elif ! grep -Eq -e "$pattern" "$tmp/err"; then
        bad "hvbench $*: stderr '$(cat "$tmp/err")' does not match /$pattern/"
    elif [ -s "$tmp/out" ]; then
        bad "hvbench $*: wrote to stdout on error"
    else
        ok
    fi
}

quick="--min-time 0.01 --repetitions 2 -q"

# Commands and usage.
expect_error "unknown command 'frobnicate'" frobnicate
expect_error "unknown list topic 'bogus'.*plugins.*counters" list bogus
expect_error "unknown workload 'nosuch' \(valid: .*lookup" run nosuch
expect_error "bad value 'xml' for --format \(console, json, csv or markdown\)$" run lookup --format xml
expect_error "bad value '0' for --threads" run lookup --threads 0
expect_error "bad value 'x' for --threads" run lookup --threads 1,x
expect_error "bad value '0' for --repetitions" run lookup --repetitions 0
expect_error "bad value '-1' for --min-time" run lookup --min-time -1
expect_error "bad value 'everywhere' for --affinity" run lookup --affinity everywhere
expect_error "bad value 'pmu' for --counters" run lookup --counters pmu
expect_error "bad value 'gdb' for --instrument \(none or callgrind\)$" run lookup --instrument gdb
expect_error "bad value '0' for --iterations" run lookup --iterations 0
expect_error "--resume needs --out FILE" run lookup --resume
expect_error "bad value '0' for --processes" run lookup --processes 0
expect_error "bad value 'x' for --processes" run lookup --processes x
expect_error "--processes does not go with --resume" \
    run lookup --processes 2 --resume --out "$tmp/p.json"
expect_error "--instrument callgrind refuses .*2 threads" \
    run lookup --threads 1,2 --instrument callgrind
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
    expect_error "--counters hw: no hardware counters here: perf_event_open\(cycles\)" \
        run lookup --counters hw --repetitions 1
fi
expect_error "^hvbench: unknown event 'no-such-event' for --events \(libpfm4: event not found" \
    run lookup --events cache-misses,no-such-event
expect_error "unknown event 'no-such-event' for --events" \
    list counters --events no-such-event
expect_error "bad event name '' for --events" run lookup --events cache,
expect_error "--events does not go with --counters none" \
    run lookup --events cache --counters none
expect_error "--events does not go with --counters tsc" \
    run lookup --events perf::PERF_COUNT_SW_PAGE_FAULTS --counters tsc
expect_error "--events goes with 'list counters'" list plugins --events cache
expect_error "compare needs BASE.json NEW.json" compare
expect_error "cannot read '/nonexistent.json'" compare /nonexistent.json /nonexistent.json
expect_error "bad value 'xml' for --format \(console, markdown or json\)$" compare a.json b.json --format xml
expect_error "bad value '-3' for --max-regression" gate a.json b.json --max-regression -3

# Slots, plugins and plugin options: never a fallback to a default.
expect_error "unknown slot 'nosuch' \(workload lookup uses: domlookup\)" \
    run lookup --plugin nosuch=x
expect_error "unknown plugin 'nosuch' for slot domlookup \(valid: .*rcu-noref" \
    run lookup --plugin domlookup=nosuch
expect_error "unknown plugin 'nosuch'" \
    run lookup --plugin domlookup=rcu-ref,nosuch
expect_error "unknown option 'bogus' for plugin domlookup/percpu-ref \(valid: ncpus\)" \
    run lookup --plugin domlookup=percpu-ref:bogus=1
expect_error "bad value '999' for option ncpus.*\[0, 256\]" \
    run lookup --plugin domlookup=percpu-ref:ncpus=999
expect_error "bad value 'x' for option ncpus" \
    run lookup --plugin domlookup=percpu-ref:ncpus=x
expect_error "option ncpus .*needs a value" \
    run lookup --plugin domlookup=percpu-ref:ncpus
expect_error "unknown plugin 'rcu-broken'" \
    run lookup --plugin domlookup=rcu-broken
expect_error "cannot load plugin $tmp/none.so" \
    run lookup --plugin "domlookup=$tmp/none.so"
printf 'not an ELF file\n' >"$tmp/junk.so"
expect_error "cannot load plugin $tmp/junk.so" \
    run lookup --plugin "domlookup=$tmp/junk.so"

# Workload parameters.
expect_error "unknown param 'bogus' for workload lookup \(valid: domains, " \
    run lookup --param bogus=1
expect_error "bad value '0' for param domains of workload lookup" \
    run lookup --param domains=0
expect_error "bad value 'lukewarm' for param distribution.*hot, uniform" \
    run lookup --param distribution=lukewarm
expect_error "bad value '12q' for param domains" \
    run lookup --param domains=12q
expect_error "param" run lookup --param domains
expect_error "knownalive is unsafe with churn > 0" \
    run lookup --plugin domlookup=knownalive --param churn=10

# Output files: an unwritable path is an input error, nothing left behind.
expect_error "$tmp/nodir/x.json" run lookup $quick --out "$tmp/nodir/x.json"

# A good run: console table on stdout, JSON written atomically.
if "$hvbench" run lookup $quick --plugin domlookup=rwlock-ref,rcu-noref \
        --threads 1,2 --param domains=10,20 --out "$tmp/r.json" \
        >"$tmp/table" 2>"$tmp/err"; then
    ok
else
    bad "good run failed: $(cat "$tmp/err")"
fi
rows=$(grep -c '^lookup/' "$tmp/table")
[ "$rows" -eq 8 ] && ok || bad "console table has $rows cell rows, want 8"
grep -q 'lookup/domlookup=rcu-noref/domains=20/threads:2' "$tmp/table" &&
    ok || bad "cell name missing from the table"
ls "$tmp" | grep -q '\.tmp' && bad "temporary file left behind" || ok

python3 - "$tmp/r.json" <<'PY' && ok || bad "JSON content"
import json, sys
r = json.load(open(sys.argv[1]))
assert set(["context", "benchmarks", "hvbench"]) <= set(r), r.keys()
h = r["hvbench"]
assert h["schema_version"] == 1
assert h["run"]["affinity"] == "spread"
assert "commit" in json.dumps(h)
it = [b for b in r["benchmarks"] if b["run_type"] == "iteration"]
assert len(it) == 8 * 2, len(it)
for b in it:
    for k in ("name", "real_time", "cpu_time", "time_unit", "iterations",
              "threads", "repetitions", "repetition_index"):
        assert k in b, (k, b)
    assert b["real_time"] > 0 and b["iterations"] > 0
agg = [b for b in r["benchmarks"] if b["run_type"] == "aggregate"]
assert {b["aggregate_name"] for b in agg} >= {"mean", "median", "stddev"}
text = json.dumps(h)
assert "rcu-noref" in text and "rwlock-ref" in text
# The ledger says which CPU measured it (a string where cpuinfo has one).
env = h["environment"]
cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
       if l.startswith("model name")]
assert env["cpu_model"] == (cpu[0] if cpu else None), env.get("cpu_model")
assert "microcode" in env, env.keys()
PY

# --processes 2: two children, their rounds pooled into one file.
if "$hvbench" run lookup $quick --plugin domlookup=rcu-noref,rwlock-ref \
    --processes 2 --out "$tmp/p.json" >"$tmp/ptable" 2>"$tmp/perr"; then
    ok
else
    bad "--processes 2 run failed: $(cat "$tmp/perr")"
fi
grep -q '^lookup/domlookup=rwlock-ref/threads:1' "$tmp/ptable" &&
    ok || bad "--processes 2: no console table on stdout"
ls -a "$tmp" | grep -q 'hvbench-process' &&
    bad "--processes: a child's file left behind" || ok
python3 - "$tmp/p.json" <<'PY' && ok || bad "--processes 2 JSON"
import json, sys
r = json.load(open(sys.argv[1]))
h = r["hvbench"]
assert h["run"]["processes"] == 2 and h["run"]["repetitions"] == 4, h["run"]
assert h["run"]["complete"] and h["run"]["rounds_done"] == 4
it = [b for b in r["benchmarks"] if b["run_type"] == "iteration"]
assert len(it) == 2 * 2 * 2, len(it)
for cell in {b["name"] for b in it}:
    idx = sorted(b["repetition_index"] for b in it if b["name"] == cell)
    assert idx == [0, 1, 2, 3], (cell, idx)
assert len(h["cells"][1]["paired"]["ratios"]) == 4
PY

# --format json on stdout parses, and names the default plugin it ran.
"$hvbench" run lookup $quick --format json >"$tmp/s.json" 2>/dev/null &&
python3 - "$tmp/s.json" <<'PY' && ok || bad "--format json / default plugin"
import json, sys
r = json.load(open(sys.argv[1]))
assert any("domlookup=rcu-noref" in b["name"] for b in r["benchmarks"]), \
    [b["name"] for b in r["benchmarks"]]
PY

# One workload per file, named as the file: workloads/{micro,macro}/NAME.c
# registers workload NAME, and every listed workload has its file.
src=$(cd "$(dirname "$0")/../.." && pwd)
"$hvbench" list workloads --json >"$tmp/wl.json" &&
python3 - "$tmp/wl.json" "$src" <<'PY' && ok || bad "workload files == registered workloads"
import json, os, sys
d = json.load(open(sys.argv[1]))
ws = d["workloads"]
names = {w["name"]: w["kind"] for w in (ws if isinstance(ws, list) else ws.values())}
files = {}
for kind in ("micro", "macro"):
    for f in os.listdir(os.path.join(sys.argv[2], "workloads", kind)):
        if f.endswith(".c"):
            files[f[:-2]] = kind
assert names == files, (sorted(names.items()), sorted(files.items()))
PY

# Extra perf events (--events).  Software ones through libpfm4's perf::
# PMU are counted everywhere perf_event_open is allowed: the task clock
# of the group agrees with the built-in software group's.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)
sw="perf::PERF_COUNT_SW_TASK_CLOCK,perf::PERF_COUNT_SW_PAGE_FAULTS"
for i in 1 2; do
    "$hvbench" run lookup $quick --events "$sw" --out "$tmp/ev$i.json" \
        >/dev/null 2>&1 || bad "run --events $sw failed"
done
if [ "$paranoid" -le 2 ]; then
    python3 - "$tmp/ev1.json" <<'PY' && ok || bad "--events $sw: counters"
import json, sys
h = json.load(open(sys.argv[1]))["hvbench"]
p = h["counters"]["counters"]
for k in ("perf_count_sw_task_clock_per_op", "perf_count_sw_page_faults_per_op"):
    assert p[k]["available"] and "libpfm4" in p[k]["source"], p[k]
assert h["counters"]["events"] == ["perf::PERF_COUNT_SW_TASK_CLOCK",
                                   "perf::PERF_COUNT_SW_PAGE_FAULTS"]
c = h["cells"][0]["counters"]
tc = c["perf_count_sw_task_clock_per_op"]["summary"]["median"]
ref = c["sw_task_clock_ns_per_op"]["summary"]["median"]
assert 0 < tc and 0.5 < tc / ref < 2, (tc, ref)
pf = c["perf_count_sw_page_faults_per_op"]["samples"]
assert len(pf) == 2 and all(0 <= v < 1 for v in pf), pf
cov = c["perf_coverage"]["samples"]
assert all(0 < v <= 1 for v in cov), cov
PY
    "$hvbench" compare "$tmp/ev1.json" "$tmp/ev2.json" \
        --metric perf_count_sw_task_clock >"$tmp/evc" 2>&1 &&
        grep -q '^metric: perf_count_sw_task_clock: perf_event_open perf::PERF_COUNT_SW_TASK_CLOCK' "$tmp/evc" &&
        grep -q '^lookup/domlookup=rcu-noref/threads:1 ' "$tmp/evc" &&
        ok || bad "compare --metric perf_count_sw_task_clock: $(cat "$tmp/evc")"
fi
expect_error "metric cache_misses: BASE has no cache_misses_per_op" \
    compare "$tmp/ev1.json" "$tmp/ev2.json" --metric cache_misses
# Every message that lists the metrics lists them all, from the one table
# of compare_metric.c (the "no such counter" one had lost allocs).
one_cell="$src/tests/fuzz/corpus-results/one-cell.json"
all_metrics="time, tsc_cycles, cycles, instructions, sim_instructions, sim_cycles, alloc_bytes, allocs, or M"
expect_error "bad value 'No-such' for --metric \($all_metrics for a counter" \
    compare --metric No-such "$one_cell" "$one_cell"
expect_error "BASE has no no_such_per_op \(no such counter; metrics: $all_metrics for a counter" \
    compare --metric no_such "$one_cell" "$one_cell"

# A hardware event without a PMU (this VM): absent with its reason, in the
# counter line and the results, and the run goes on.
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ "$paranoid" -le 2 ]; then
    "$hvbench" run lookup --min-time 0.01 --repetitions 2 \
        --events cache-misses \
        --out "$tmp/cm.json" >/dev/null 2>"$tmp/cm.err" &&
        ok || bad "run --events cache-misses failed: $(cat "$tmp/cm.err")"
    grep -q '^hvbench: counters: .*unavailable:.* cache_misses (perf_event_open(cache-misses)=ENOENT: no such PMU event' \
        "$tmp/cm.err" && ok || bad "--events cache-misses: counter line"
    python3 - "$tmp/cm.json" <<'PY' && ok || bad "--events cache-misses: JSON"
import json, sys
h = json.load(open(sys.argv[1]))["hvbench"]
p = h["counters"]["counters"]["cache_misses_per_op"]
assert p["available"] is False and "ENOENT" in p["reason"], p
assert p["event"] == "cache-misses", p
for cell in h["cells"]:
    assert "cache_misses_per_op" not in cell["counters"], cell["counters"]
PY
    expect_error "metric cache_misses: BASE has no cache_misses_per_op \(perf_event_open\(cache-misses\)=ENOENT" \
        compare "$tmp/cm.json" "$tmp/cm.json" --metric cache_misses
    "$hvbench" list counters --events cache,perf::PERF_COUNT_SW_PAGE_FAULTS \
        >"$tmp/lce" 2>&1 &&
        grep -q 'counters: time.*perf_count_sw_page_faults.*unavailable:.* cache_references (.*ENOENT.*cache_misses (' "$tmp/lce" &&
        ok || bad "list counters --events: $(cat "$tmp/lce")"
fi

# Listing.
"$hvbench" list plugins >"$tmp/l" 2>&1 && grep -q 'percpu-ref' "$tmp/l" &&
    grep -q 'ncpus' "$tmp/l" && ! grep -q 'rcu-broken' "$tmp/l" &&
    ok || bad "list plugins"
"$hvbench" list workloads --json >"$tmp/w.json" &&
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'lookup' in json.dumps(d)" \
        "$tmp/w.json" && ok || bad "list workloads --json"
"$hvbench" list counters >"$tmp/lc" 2>&1 && grep -q 'tsc_cycles' "$tmp/lc" &&
    ok || bad "list counters: $(cat "$tmp/lc")"
"$hvbench" list counters --json >"$tmp/lc.json" &&
    python3 - "$tmp/lc.json" <<'PY' && ok || bad "list counters --json"
import json, sys
c = json.load(open(sys.argv[1]))["counters"]["counters"]
for k in ("alloc_bytes_per_op", "allocs_per_op", "frees_per_op"):
    assert (c[k].get("source") if c[k]["available"] else c[k].get("reason")), c[k]
PY
for c in list run; do
    "$hvbench" $c --help >/dev/null 2>&1 && ok || bad "$c --help"
done

# An external plugin loaded by path runs and is recorded as such.
if [ -n "$skeleton" ]; then
    if "$hvbench" run lookup $quick --plugin "domlookup=$skeleton" \
            --format json >"$tmp/x.json" 2>"$tmp/err" &&
        grep -q "$skeleton" "$tmp/x.json"; then
        ok
    else
        bad "external plugin run: $(cat "$tmp/err")"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
