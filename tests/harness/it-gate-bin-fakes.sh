#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "gate --base-bin" with fake base builds (shell scripts; deterministic,
# no measurement verdict): every failure is exit 2 with its message, and
# the gate and the new build's worker end, whatever the base does:
#
#   - a hello with another build block, from a base that ignores "quit"
#     (it waits for the end of its input, which the new worker held: the
#     gate and both workers hung in a pipe read)
#   - a base whose answers carry no sample ("ok {}"): no samples, exit 2
#   - a base that never says hello, or says it and never answers: killed
#     at --worker-timeout, named; one that closes its output and lives on:
#     killed with its process group within the stop deadline
#
# and, with fake builds that answer with fixed or seeded times, the
# adaptive verdicts and --json: a new build 10% slower is regressed at the
# first look, a base 10% slower improved, identical builds same, noisy
# ones unknown at --max-pairs (or --budget) with an estimate of the pairs
# more, the undecided cell of two alone getting more pairs; bad values of
# the new options are exit 2.
#
# Each gate runs under timeout(1): a hang is a failed check.  The fakes
# write their pids, stopped at exit also on failure.
# Usage: it-gate-bin-fakes.sh HVBENCH
set -u
hv=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
trap 'for p in $(cat "$tmp/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
suite="lookup --plugin domlookup=rwlock-ref"
small="--pairs 1 --rounds 3 --sample-time 0.001"

# fake NAME BODY: $tmp/NAME, a base build whose worker runs BODY (sh),
# with $hello the real worker's hello line for the same arguments.
fake() {
    cat >"$tmp/$1" <<EOF
#!/bin/sh
echo \$\$ >>"$tmp/pids"
shift # "worker"
hello=\$("$hv" worker "\$@" </dev/null | head -n 1)
$2
EOF
    chmod +x "$tmp/$1"
}
fake wrong-build 'echo "hello {\"protocol\": 1, \"cells\": [\"x\"]}"
while read -r l; do :; done'
fake no-samples 'echo "$hello"
while read -r l; do
    case "$l" in cal*) echo "ok {\"iterations\": 1000, \"ns\": 1.0}" ;; *) echo "ok {}" ;; esac
done'
fake mute 'exec sleep 1000'
fake deaf 'echo "$hello"
exec sleep 1000'
fake closer "echo \$\$ >>'$tmp/closer.pids'
"'echo "$hello"
read -r l
exec >&-
exec sleep 1000'

# gate WHAT RC PATTERN ARGS...: as expect, under a 60 s limit.
gate() {
    what=$1 want=$2 pat=$3
    shift 3
    expect "$what" "$want" "$pat" timeout -k 5 60 "$hv" gate "$@"
}
# shellcheck disable=SC2086
gate "a wrong hello from a base that ignores quit" 2 \
    "build.compiler is '(absent)' in the base" \
    --base-bin "$tmp/wrong-build" $small -- $suite
# shellcheck disable=SC2086
gate "a base that returns no samples" 2 "hvbench: .*sample" \
    --base-bin "$tmp/no-samples" $small -- $suite
t0=$(date +%s)
# shellcheck disable=SC2086
gate "a base that never says hello" 2 \
    "the base build's worker ($tmp/mute) did not say hello within 1 s: killed" \
    --base-bin "$tmp/mute" --worker-timeout 1 $small -- $suite
[ $(($(date +%s) - t0)) -lt 20 ] || bad "the hello's deadline took $(($(date +%s) - t0)) s"
# shellcheck disable=SC2086
gate "a base that never answers" 2 \
    "the base build's worker ($tmp/deaf) did not answer 'cal 0 0.001' within 1 s: killed" \
    --base-bin "$tmp/deaf" --worker-timeout 1 $small -- $suite
# A worker that closes its output and lives on: the gate's wait for it
# has a deadline (it hung for ever, the worker orphaned: issue 34, bug 5).
t0=$(date +%s)
# shellcheck disable=SC2086
gate "a base that closes its output and keeps running" 2 "hvbench: " \
    --base-bin "$tmp/closer" --worker-timeout 1 $small -- $suite
[ $(($(date +%s) - t0)) -lt 30 ] || bad "the closed worker's wait took $(($(date +%s) - t0)) s"
# The closed worker is gone (a zombie at most, until init reaps it),
# waited for up to 5 s.  By its own pids: it is "sleep 1000" by now.
alive() {
    st=$(ps -o stat= -p "$1" 2>/dev/null)
    [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}
[ -s "$tmp/closer.pids" ] || bad "the closer fake never ran"
for p in $(cat "$tmp/closer.pids" 2>/dev/null); do
    i=0
    while alive "$p" && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    alive "$p" && bad "the closed worker $p is still running"
done
gate "a bad --worker-timeout" 2 "worker-timeout" --base-bin "$tmp/deaf" \
    --worker-timeout never -- $suite
"$hv" gate --base-bin x --help | grep -q -- "--worker-timeout S" ||
    bad "--worker-timeout not in gate --base-bin --help"

# The adaptive gate on fake builds that answer every "run" at once with
# a time of their own (Python, seeded by a count of the starts: the same
# every run): deterministic verdicts.  measured NAME EXPR: $tmp/NAME, a
# build whose sample of cell c takes EXPR ns (r: a random.Random seeded
# by the process's start).
measured() {
    fake "$1" 'n=$(cat "'"$tmp/starts-$1"'" 2>/dev/null || echo 0)
echo $((n + 1)) >"'"$tmp/starts-$1"'"
echo "$hello"
exec /usr/bin/python3 -c "
import random, sys
r = random.Random($n)
for l in sys.stdin:
    w = l.split()
    if w[0] == \"quit\":
        break
    c = int(w[1])
    ns = 10 if w[0] == \"cal\" else '"$2"'
    print(\"ok {\\\"iterations\\\": 1000, \\\"ns\\\": %.6f, \\\"counters\\\": {}}\" % ns, flush=True)
print(\"bye\", flush=True)
"'
}
measured ten '10'
measured eleven '11'
measured noisy '10 * (0.8 + 0.4 * r.random())'
# Cell 0 ten per cent slower, cell 1 noisy.
measured mixed '(11 if c == 0 else 10 * (0.8 + 0.4 * r.random()))'
two="lookup --plugin domlookup=rwlock-ref,rcu-ref"
adapt="--pairs 2 --max-pairs 6 --look-every 2 --rounds 3 --max-regression 1%"

# json FILE PYTHON: FILE, gate --json's document, passes the asserts of
# PYTHON (d: the document, c: its first cell).
json() {
    /usr/bin/python3 - "$1" "$2" <<'PY' || bad "$1: $2"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cells"][0]
g = d["gate"]
for k in ("metric", "threshold", "pairs_min", "pairs_max", "method"):
    assert k in g, k
for side in ("base", "new"):
    assert {"version", "git", "build"} <= set(d[side]), d[side].keys()
for x in d["cells"]:
    assert {"name", "verdict", "ratio", "ci", "pairs", "rounds", "iterations",
            "more_pairs", "p"} <= set(x), x
    assert x["verdict"] in ("same", "regressed", "improved", "unknown"), x
assert "Bonferroni" in g["method"] and "Benjamini-Hochberg" in g["method"]
exec(sys.argv[2])
PY
}
# shellcheck disable=SC2086
gate "a new build 10% slower: regressed at the first look" 1 \
    "gate: FAIL: regression" --base-bin "$tmp/ten" --new-bin "$tmp/eleven" \
    --json "$tmp/slow.json" $adapt -- $suite
json "$tmp/slow.json" 'assert c["verdict"] == "regressed" and d["verdict"] == "regressed"
assert c["pairs"] == 2 and c["more_pairs"] == 0 and d["exit"] == 1, c
assert abs(c["ratio"] - 1.1) < 1e-9 and c["ci"][0] > 1.01 and c["p"] < 0.01, c
assert g["pairs_min"] == 2 and g["pairs_max"] == 6 and g["threshold"] == 0.01
assert g["looks"] == 1 and g["looks_max"] == 3 and abs(g["alpha_look"] - 0.05 / 3) < 1e-9
assert c["rounds"] == 3 and c["iterations"] == 1000'
grep -q "new $tmp/eleven" "$tmp/out" || bad "--new-bin not the new build: $(head -1 "$tmp/out")"
# shellcheck disable=SC2086
gate "a base 10% slower: improved, a pass" 0 "gate: pass" --base-bin "$tmp/eleven" \
    --new-bin "$tmp/ten" --json "$tmp/fast.json" $adapt -- $suite
json "$tmp/fast.json" 'assert c["verdict"] == "improved" and d["exit"] == 0, c
assert abs(c["ratio"] - 1 / 1.1) < 1e-9 and c["ci"][1] < 0.99 and c["pairs"] == 2, c'
# shellcheck disable=SC2086
gate "identical builds: same at the first look" 0 "gate: pass" --base-bin "$tmp/ten" \
    --new-bin "$tmp/ten" --json "$tmp/same.json" $adapt -- $suite
json "$tmp/same.json" 'assert c["verdict"] == "same" and d["verdict"] == "same", c
assert c["ci"] == [1, 1] and c["pairs"] == 2 and c["p"] == 1 and d["exit"] == 0, c'
# shellcheck disable=SC2086
gate "noisy builds: unknown once --max-pairs is spent" 3 "gate: UNKNOWN" \
    --base-bin "$tmp/noisy" --new-bin "$tmp/noisy" --json "$tmp/noisy.json" \
    $adapt -- $suite
json "$tmp/noisy.json" 'assert c["verdict"] == "unknown" and d["exit"] == 3, c
assert c["pairs"] == 6 and c["more_pairs"] > 0 and g["looks"] == 3, c
assert c["ci"][0] < 0.99 and c["ci"][1] > 1.01, c'
grep -q "about [0-9]* more would decide it" "$tmp/out" ||
    bad "no estimate of the pairs more: $(cat "$tmp/out")"
# shellcheck disable=SC2086
gate "unknown with --allow-unstable: a pass" 0 "not gated" --base-bin "$tmp/noisy" \
    --new-bin "$tmp/noisy" --json "$tmp/noisy2.json" --allow-unstable $adapt -- $suite
json "$tmp/noisy2.json" 'assert c["verdict"] == "unknown" and d["exit"] == 0'
# Only the undecided cell gets more pairs.
# shellcheck disable=SC2086
gate "two cells: one regressed at once, the other unknown at the budget" 1 \
    "gate: FAIL: regression" --base-bin "$tmp/ten" --new-bin "$tmp/mixed" \
    --json "$tmp/mixed.json" $adapt -- $two
json "$tmp/mixed.json" 'a, b = d["cells"]
assert a["verdict"] == "regressed" and a["pairs"] == 2, a
assert b["verdict"] == "unknown" and b["pairs"] == 6 and b["more_pairs"] > 0, b
assert d["verdict"] == "regressed" and d["exit"] == 1'
# --budget: no pair past it (the first --pairs always run).
# shellcheck disable=SC2086
gate "noisy builds, --budget 0.001: unknown after the first --pairs" 3 \
    "gate: UNKNOWN" --base-bin "$tmp/noisy" --new-bin "$tmp/noisy" \
    --json "$tmp/budget.json" --budget 0.001 $adapt -- $suite
json "$tmp/budget.json" 'assert c["pairs"] == 2 and g["looks"] == 1 and g["budget"] == 0.001, c'
# builds_verdict() on fixed samples, against a band of 1%: +0.5% is
# same, +1.5% regressed (beyond the band but inside twice it: a band
# widened to 2t called it same and no test saw it), -1.5% improved; a
# seeded +3% with 1% noise regressed, its CI about 1.03 and beyond the
# band, p_beyond small.
measured tenhalf '10.05'
measured ten15 '10.15'
measured ninehalf '9.85'
measured noisy3 '10.3 * (1 + 0.01 * r.gauss(0, 1))'
band="--pairs 4 --max-pairs 4 --rounds 5 --max-regression 1%"
for v in tenhalf:0:same ten15:1:regressed ninehalf:0:improved noisy3:1:regressed; do
    b=${v%%:*} w=${v#*:} verdict=${v##*:}
    # shellcheck disable=SC2086
    gate "fixed samples, $b: $verdict" "${w%%:*}" "gate: " --base-bin "$tmp/ten" \
        --new-bin "$tmp/$b" --json "$tmp/band-$b.json" $band -- $suite
    json "$tmp/band-$b.json" "assert c['verdict'] == '$verdict', c"
done
json "$tmp/band-ten15.json" 'assert c["ci"] == [1.015, 1.015] or abs(c["ci"][0] - 1.015) < 1e-9, c
assert c["p_beyond"] < 0.05 and d["exit"] == 1, c'
json "$tmp/band-tenhalf.json" 'assert abs(c["ratio"] - 1.005) < 1e-9 and c["ci"][1] < 1.01, c'
json "$tmp/band-noisy3.json" 'assert 1.01 < c["ci"][0] < 1.03 < c["ci"][1] < 1.06, c
assert c["p_beyond"] < 0.05, c'

# A base without the metric's counter, or with it as a string or null,
# and one whose time is 1e308: exit 2 naming the counter or the sample
# (they printed nan, -100.00%, "p 0*" and exit 3, and "improved").
# answered NAME REPLY: $tmp/NAME answers every run with "ok REPLY".
answered() {
    printf 'ok %s\n' "$2" >"$tmp/$1.reply"
    fake "$1" 'echo "$hello"
while read -r l; do
    case "$l" in
    quit*) break ;;
    cal*) echo "ok {\"iterations\": 1000, \"ns\": 10}" ;;
    *) cat "'"$tmp/$1.reply"'" ;;
    esac
done
echo bye'
}
answered withctr '{"iterations": 1000, "ns": 10, "counters": {"widgets_per_op": 5}}'
answered noctr '{"iterations": 1000, "ns": 10, "counters": {}}'
answered strctr '{"iterations": 1000, "ns": 10, "counters": {"widgets_per_op": "5"}}'
answered nullctr '{"iterations": 1000, "ns": 10, "counters": {"widgets_per_op": null}}'
answered huge '{"iterations": 1000, "ns": 1e308, "counters": {}}'
for b in noctr:"has no counter widgets_per_op samples" \
    strctr:"counters.widgets_per_op.samples.0. is a string" \
    nullctr:"counters.widgets_per_op.samples.0. is null"; do
    # shellcheck disable=SC2086
    gate "a base ${b%%:*}" 2 "the base build.*${b#*:}" --base-bin "$tmp/${b%%:*}" \
        --new-bin "$tmp/withctr" --metric widgets $adapt -- $suite
done
# shellcheck disable=SC2086
gate "a base whose time is 1e308" 2 "samples_ns_per_op.0. is beyond 1e15: not a time sample" \
    --base-bin "$tmp/huge" --new-bin "$tmp/ten" $adapt -- $suite
# An internal failure (no file descriptor for a worker's pipe) is exit 2,
# never the 1 that CI reads as "regressed".
# shellcheck disable=SC2086
(ulimit -n 5 && exec "$hv" gate --base-bin "$tmp/ten" --new-bin "$tmp/ten" \
    $adapt -- $suite) >"$tmp/out" 2>&1
rc=$?
report_expect "no pipe for a worker" 2 "Too many open files"

# Progress on a terminal: a line per pair.
if command -v script >/dev/null; then
    # shellcheck disable=SC2086
    script -qec "\"$hv\" gate --base-bin \"$tmp/noisy\" --new-bin \"$tmp/noisy\" $adapt -- $suite" \
        /dev/null >"$tmp/tty" 2>&1
    grep -q "gate --base-bin: pair 3 (2 to 6), 1 of 1 cell(s) undecided" "$tmp/tty" ||
        bad "no progress on a terminal: $(cat "$tmp/tty")"
fi

# Bad values: exit 2, one line.
gate "--max-pairs below --pairs" 2 "max-pairs 3 is below --pairs 4" --base-bin "$tmp/ten" \
    --pairs 4 --max-pairs 3 -- $suite
gate "--max-pairs 0" 2 "bad value '0' for --max-pairs" --base-bin "$tmp/ten" \
    --max-pairs 0 -- $suite
gate "--budget not a time" 2 "bad value 'soon' for --budget" --base-bin "$tmp/ten" \
    --budget soon -- $suite
gate "--look-every 0" 2 "bad value '0' for --look-every" --base-bin "$tmp/ten" \
    --look-every 0 -- $suite
gate "too many looks" 2 "more than 50" --base-bin "$tmp/ten" --pairs 1 \
    --max-pairs 100 --look-every 1 -- $suite
gate "--json a directory" 2 "cannot write json to '$tmp'" --base-bin "$tmp/ten" \
    --json "$tmp" -- $suite
gate "no such --new-bin" 2 "new-bin $tmp/no-such: No such file" --base-bin "$tmp/ten" \
    --new-bin "$tmp/no-such" -- $suite
"$hv" gate --base-bin x --help >"$tmp/help"
for w in "--new-bin FILE" "--json FILE" "--max-pairs N" "--budget S" \
    "--look-every N" "time|cycles|tsc_cycles|sim_instructions|sim_cycles|M"; do
    grep -q -- "$w" "$tmp/help" || bad "'$w' not in gate --base-bin --help"
done
# The worker refuses a count it cannot hold, a fraction, a sign, NaN (it
# converted 99999999999999999999 to int64_t: undefined behaviour).
for c in "run 0 99999999999999999999" "run 0 -5" "run 0 1.5" "run -0 10" \
    "cal 0 nan" "cal 0 inf"; do
    printf '%s\nquit\n' "$c" | "$hv" worker $suite 2>/dev/null | sed -n 2p >"$tmp/out"
    grep -q "^err bad command '$c'" "$tmp/out" || bad "worker '$c': $(cat "$tmp/out")"
done
exit $fail
