#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# SIGINT/SIGTERM stop a run cleanly (hvb/watch.h), and a round stuck far
# past --min-time is reported while it runs (issue 11: lookup with every
# param at its maximum never finishes a round under rwlock-ref: its
# reader starves behind the writer).
#   - SIGINT after round 2 of 20: exit 130, the file holds the rounds done
#     (complete false), no temporary or lock file is left, --resume
#     completes it;
#   - SIGTERM during a stuck round: the stall is reported first, exit 143,
#     "nothing written";
#   - --out a pipe (written once, at the end): SIGINT writes the rounds
#     done to it.
# Background jobs of a script start with SIGINT ignored: `env
# --default-signal` gives hvbench the default disposition a terminal's
# Ctrl-C meets.
# Usage: test-interrupt.sh HVBENCH
set -u
hvbench=$1
tmp=$(mktemp -d)
pid=
cat_pid=
cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    [ -n "$cat_pid" ] && kill "$cat_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# (exec: in a background job its pid is the one of hvbench itself)
hvb() { exec env --default-signal=INT,TERM "$hvbench" "$@"; }

# wait_for PATTERN FILE SECONDS: until PATTERN is in FILE.
wait_for() {
    i=0
    while ! grep -q "$1" "$2" 2>/dev/null; do
        [ $i -ge $(($3 * 20)) ] && return 1
        sleep 0.05
        i=$((i + 1))
    done
}

# --- SIGINT between rounds: the rounds done are kept, --resume completes.
run="run lookup --param domains=10 --min-time 0.05 --repetitions 20 --out $tmp/r.json"
hvb $run >/dev/null 2>"$tmp/err" &
pid=$!
if ! wait_for "round 2/20 done" "$tmp/err" 30; then
    bad "SIGINT: round 2 never done: $(cat "$tmp/err")"
fi
kill -INT $pid
wait $pid
rc=$?
pid=
done=$(sed -n 's/.*"rounds_done": \([0-9]*\).*/\1/p' "$tmp/r.json" 2>/dev/null)
if [ $rc -ne 130 ]; then
    bad "SIGINT: exit $rc, want 130: $(tail -3 "$tmp/err")"
elif ! grep -q "interrupted (SIGINT): $done of 20 rounds done, in $tmp/r.json (complete: false" "$tmp/err"; then
    bad "SIGINT: stderr: $(tail -2 "$tmp/err")"
elif [ -z "$done" ] || [ "$done" -lt 2 ] || [ "$done" -ge 20 ] ||
    ! grep -q '"complete": false' "$tmp/r.json"; then
    bad "SIGINT: the file does not hold the rounds done ($done)"
elif [ "$(ls -A "$tmp" | tr '\n' ' ')" != "err r.json " ]; then
    bad "SIGINT: left behind: $(ls -A "$tmp")"
elif ! (hvb $run --resume -q) >/dev/null 2>"$tmp/err2" ||
    ! grep -q '"rounds_done": 20' "$tmp/r.json" ||
    ! grep -q '"complete": true' "$tmp/r.json"; then
    bad "SIGINT: --resume did not complete it: $(cat "$tmp/err2")"
else
    ok
fi

# --- A stuck round (the issue's case): reported, then SIGTERM stops it.
hvb run lookup --plugin domlookup=rwlock-ref --param domains=32751 \
    --param churn=1000000 --param batch=1000000 \
    --param distribution=uniform --min-time 0.05 --repetitions 3 \
    --out "$tmp/stuck.json" >/dev/null 2>"$tmp/err" &
pid=$!
if ! wait_for "still running after" "$tmp/err" 30; then
    bad "stuck: no report of the stall: $(cat "$tmp/err")"
fi
kill -TERM $pid
wait $pid
rc=$?
pid=
if [ $rc -ne 143 ]; then
    bad "stuck: exit $rc, want 143: $(tail -3 "$tmp/err")"
elif ! grep -q "still running after [0-9.]* s (expected about .* from --min-time), in lookup/domlookup=rwlock-ref/.*: a cell may be stuck" "$tmp/err"; then
    bad "stuck: report: $(grep still "$tmp/err")"
elif ! grep -q "interrupted (SIGTERM) before round 1 finished: nothing written" "$tmp/err"; then
    bad "stuck: stderr: $(tail -2 "$tmp/err")"
elif [ -e "$tmp/stuck.json" ] || ls -A "$tmp" | grep -q stuck; then
    bad "stuck: left behind: $(ls -A "$tmp")"
else
    ok
fi

# --- --out a pipe gets the rounds done when interrupted.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/piped.json" &
cat_pid=$!
hvb run lookup --param domains=10 --min-time 0.05 --repetitions 20 \
    --out "$tmp/fifo" >/dev/null 2>"$tmp/err" &
pid=$!
wait_for "round 2/20 done" "$tmp/err" 30 || bad "pipe: round 2 never done"
kill -INT $pid
wait $pid
rc=$?
pid=
# A writer that never opened the pipe must not leave the reader waiting.
timeout 2 sh -c ": >'$tmp/fifo'" 2>/dev/null
wait $cat_pid
cat_pid=
if [ $rc -ne 130 ]; then
    bad "pipe: exit $rc, want 130: $(tail -3 "$tmp/err")"
elif ! grep -q '"complete": false' "$tmp/piped.json" ||
    ! grep -q '"rounds_done": [1-9]' "$tmp/piped.json"; then
    bad "pipe: no document of the rounds done: $(head -c 300 "$tmp/piped.json")"
else
    ok
fi

echo "interrupt: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
