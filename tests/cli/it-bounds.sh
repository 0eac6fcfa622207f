#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Hardening (issue 11): nothing lost, bounded by the machine, no crash on
# bad input.  Each case failed before its fix:
#   - a temporary file left by a killed writer is removed by the next write
#     of the same --out (a live writer's is kept); kill -9 at ten moments
#     of a run, then one more run: nothing but the results file is left;
#   - a second run writing one --out while the first runs is exit 2 naming
#     the first one's pid, and the first one's file stays complete;
#   - --out paths that cannot be written are exit 2 before any round, with
#     the reason in the message (a 100 KB name is cut, not the reason);
#   - memwrite node=5 on 2 nodes is exit 2 (it wrapped to node 1);
#   - netio guests=1000 runs (guest and churn domids collided);
#   - plugin specs that set an option twice or end in ':' are exit 2;
#   - a plugin .so whose entry returns one header is exit 2 (was SIGSEGV),
#     and so is a header whose slot, name, summary, option table or an
#     option's text points outside the .so (slot, name: SIGSEGV; the
#     others were accepted);
#   - a cell that needs more memory than the machine has is exit 2 naming
#     both figures, before it starts.
# Usage: it-bounds.sh HVBENCH BROKEN_ONEHDR.so
set -u
hvbench=$1
onehdr=$2
. "$(dirname "$0")/lib.sh"
quick="lookup --param domains=10 --min-time 0.01 --repetitions 2"

# expect_error "PATTERN" ARGS...: exit 2, one stderr line matching PATTERN,
# and no round run.  Under an 8 GB address-space limit: a check that let a
# huge cell through must not take the machine's memory with it.
expect_error() {
    pattern=$1
    shift
    (ulimit -v 8000000 && exec "$hvbench" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        bad "hvbench $*: exit $rc, want 2: $(tail -c 600 "$tmp/err")"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        bad "hvbench $*: want one stderr line: $(tail -c 600 "$tmp/err")"
    elif ! grep -Eq -e "$pattern" "$tmp/err"; then
        bad "hvbench $*: '$(cat "$tmp/err")' does not match /$pattern/"
    else
        ok
    fi
}

# --- A: stale temporaries of a dead writer are removed, a live one's kept.
mkdir "$tmp/a"
sh -c 'exit 0' &
dead=$!
wait
touch "$tmp/a/.r.json.$dead.abcdef" "$tmp/a/.r.json.$$.ghijkl"
if ! "$hvbench" run $quick -q --out "$tmp/a/r.json" >/dev/null 2>"$tmp/err"; then
    bad "stale: run failed: $(cat "$tmp/err")"
elif [ -e "$tmp/a/.r.json.$dead.abcdef" ]; then
    bad "stale: the dead writer's temporary file is still there"
elif [ ! -e "$tmp/a/.r.json.$$.ghijkl" ]; then
    bad "stale: a live process's temporary file was removed"
elif [ "$(ls -A "$tmp/a" | tr '\n' ' ')" != ".r.json.$$.ghijkl r.json " ]; then
    bad "stale: left behind: $(ls -A "$tmp/a")"
else
    ok
fi

# --- A: the real thing: kill -9 at ten moments of a run, then one run.
mkdir "$tmp/k"
for d in 05 10 15 20 25 30 35 40 45 50; do
    "$hvbench" run lookup --param domains=10 --min-time 0.02 --repetitions 8 \
        -q --out "$tmp/k/r.json" >/dev/null 2>&1 &
    k=$!
    track $k
    sleep 0.$d
    kill -KILL $k 2>/dev/null
    wait $k 2>/dev/null
    untrack $k
done
left=$(ls -A "$tmp/k" | tr '\n' ' ')
if ! "$hvbench" run $quick -q --out "$tmp/k/r.json" >/dev/null 2>"$tmp/err"; then
    bad "kill -9: the next run failed: $(cat "$tmp/err")"
elif [ "$(ls -A "$tmp/k")" != "r.json" ]; then
    bad "kill -9: left after the next run: $(ls -A "$tmp/k") (before it: $left)"
else
    ok
fi

# --- A: one writer per --out.  The first runs ~1 s; the second is refused.
"$hvbench" run lookup --param domains=10 --min-time 0.05 --repetitions 12 \
    -q --out "$tmp/a/two.json" >/dev/null 2>"$tmp/first.err" &
bg=$!
track $bg
i=0
while [ ! -e "$tmp/a/.two.json.lock" ] && [ $i -lt 100 ]; do
    sleep 0.05
    i=$((i + 1))
done
expect_error "cannot write results to '$tmp/a/two.json': another hvbench \(pid $bg\) is writing it" \
    run $quick --out "$tmp/a/two.json"
wait $bg
rc=$?
untrack $bg
if [ $rc -ne 0 ]; then
    bad "lock: the first run failed: $(cat "$tmp/first.err")"
elif ! grep -q '"rounds_done": 12' "$tmp/a/two.json" ||
    ! grep -q '"complete": true' "$tmp/a/two.json"; then
    bad "lock: the first run's file is not its complete 12 rounds"
elif [ -e "$tmp/a/.two.json.lock" ]; then
    bad "lock: the lock file outlived the run"
else
    ok
fi

# --- G: bad --out paths are refused before round 1, with the reason.
long=$(printf "%0102400d" 0)
expect_error "cannot write results to '/proc/x.json': cannot create a file in '/proc': " \
    run $quick --out /proc/x.json
expect_error "cannot write results to '$tmp/a/sub/': a file name cannot end in '/'" \
    run $quick --out "$tmp/a/sub/"
expect_error "cannot write results to '$tmp/a/0+\.\.\.\[[0-9]+ bytes\]\.\.\.0+\.json': File name too long" \
    run $quick --out "$tmp/a/$long.json"

# --- B: a node the topology does not have.
expect_error "node=5 is out of range: topology '2x1G' has 2 node\(s\), 0\.\.1" \
    run memwrite --param topology=2x1G --param node=5 --param size_mb=16 \
    --repetitions 1
expect_error "node=2 is out of range" \
    run balloon --param topology=2x1G --param node=2 --param size_mb=16 \
    --param start_mb=8 --repetitions 1

# --- E: netio at its documented maximum of guests.
if ! "$hvbench" run netio --param guests=1000 --param grants=1 \
    --param churn_domains=10 --repetitions 1 --min-time 0.01 -q \
    --out "$tmp/netio.json" >/dev/null 2>"$tmp/err"; then
    bad "netio guests=1000: $(cat "$tmp/err")"
elif ! grep -q '"complete": true' "$tmp/netio.json"; then
    bad "netio guests=1000: no complete result"
else
    ok
fi

# --- F: ambiguous plugin specs, a plugin returning one header.
expect_error "plugin spec 'percpu-ref:ncpus=1:ncpus=2' sets option ncpus twice" \
    run $quick --plugin domlookup=percpu-ref:ncpus=1:ncpus=2
expect_error "plugin spec 'percpu-ref:' has an empty option" \
    run $quick --plugin domlookup=percpu-ref:
expect_error "plugin spec 'percpu-ref::ncpus=1' has an empty option" \
    run $quick --plugin domlookup=percpu-ref::ncpus=1
expect_error "returned a plugin header, not a NULL-ended list" \
    run $quick --plugin "domlookup=$onehdr"
# Right magic and ABI, a pointer outside the .so (slot, name: SIGSEGV).
ext=$(dirname "$onehdr")
for f in "slot string" "name string" "summary string" "option table" \
    "option row 0's text"; do
    v=$(echo "$f" | sed 's/ string//; s/option table/opts/; s/option row.*/help/')
    expect_error "broken-wild$v.so: .*header 0: its $f is not inside the plugin's loaded segments" \
        run $quick --plugin "domlookup=$ext/broken-wild$v.so"
done

# --- C: what a cell needs against what the machine has.
expect_error "memwrite/.*size_mb=1048576.*needs about [0-9.]+ GiB of memory; the machine has [0-9.]+ GiB available \(MemAvailable\)" \
    run memwrite --param size_mb=1048576 --repetitions 1
expect_error "balloon/.*needs about [0-9.]+ GiB of memory; the machine has [0-9.]+ GiB available" \
    run balloon --param size_mb=2097152 --param domains=3 --param scrub=on \
    --repetitions 1
expect_error "increase-reservation/.*needs about [0-9.]+ GiB of memory; the machine has" \
    run increase-reservation --param size_mb=4194304 --param scale_pct=150 \
    --param scrub=on --repetitions 1
# Cells live side by side: their needs add up (each 60% of what is free).
mb=$(awk '/^MemAvailable:/ { print int($2 / 1024 * 0.6) }' /proc/meminfo)
expect_error "the 2 cells of this run need about [0-9.]+ GiB of memory together .*; the machine has [0-9.]+ GiB available" \
    run memwrite --param size_mb=$mb,$((mb + 1)) --repetitions 1
expect_error "xenstore-ls/.*needs about [0-9.]+ GiB of memory; the machine has" \
    run xenstore-ls --param domains=32751 --param dirs=1000 \
    --param leaves=1000 --param subtrees=32751 --repetitions 1
# The topology given bounds it too: 4 GiB into 2 x 1 GiB.
expect_error "memwrite/.*topology '2x1G' has 2047 MiB, the cell needs 4096" \
    run memwrite --param topology=2x1G --param size_mb=4096 --repetitions 1

finish bounds
