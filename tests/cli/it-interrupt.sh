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
#     done to it;
#   - --processes: the child running is stopped, its file removed.
# Background jobs of a script start with SIGINT ignored: `env
# --default-signal` gives hvbench the default disposition a terminal's
# Ctrl-C meets.
# Usage: it-interrupt.sh HVBENCH
set -u
hvbench=$1
. "$(dirname "$0")/lib.sh"
# (exec: in a background job its pid is the one of hvbench itself)
hvb() { exec env --default-signal=INT,TERM "$hvbench" "$@"; }

# start ARGS...: hvbench ARGS in the background, stderr in $tmp/err.
start() {
    hvb "$@" >/dev/null 2>"$tmp/err" &
    pid=$!
    track $pid
}

# stop SIGNAL: send it once PATTERN ($2) is on stderr (within 30 s); $rc.
stop() {
    wait_for "$2" "$tmp/err" 30 || bad "$1: '$2' never on stderr: $(cat "$tmp/err")"
    kill -"$1" $pid
    wait $pid
    rc=$?
    untrack $pid
}

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
start $run
stop INT "round 2/20 done"
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
start run lookup --plugin domlookup=rwlock-ref --param domains=32751 \
    --param churn=1000000 --param batch=1000000 \
    --param distribution=uniform --min-time 0.05 --repetitions 3 \
    --out "$tmp/stuck.json"
stop TERM "still running after"
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
track $cat_pid
start run lookup --param domains=10 --min-time 0.05 --repetitions 20 \
    --out "$tmp/fifo"
stop INT "round 2/20 done"
# A writer that never opened the pipe must not leave the reader waiting.
timeout 2 sh -c ": >'$tmp/fifo'" 2>/dev/null
wait $cat_pid
untrack $cat_pid
if [ $rc -ne 130 ]; then
    bad "pipe: exit $rc, want 130: $(tail -3 "$tmp/err")"
elif ! grep -q '"complete": false' "$tmp/piped.json" ||
    ! grep -q '"rounds_done": [1-9]' "$tmp/piped.json"; then
    bad "pipe: no document of the rounds done: $(head -c 300 "$tmp/piped.json")"
else
    ok
fi

# --- --processes: the child running is stopped too, its file removed.
mkdir "$tmp/pr"
start run lookup --param domains=10 --processes 3 --repetitions 5 \
    --min-time 0.05 --out "$tmp/pr/r.json"
stop INT "process 1/3 done"
if [ $rc -ne 130 ]; then
    bad "processes: exit $rc, want 130: $(tail -3 "$tmp/err")"
elif ! grep -q "interrupted (SIGINT) in process 2 of 3: nothing written" "$tmp/err"; then
    bad "processes: stderr: $(tail -2 "$tmp/err")"
elif [ -n "$(ls -A "$tmp/pr")" ]; then
    bad "processes: left behind: $(ls -A "$tmp/pr")"
elif pgrep -f "$tmp/pr/.hvbench-process" >/dev/null; then
    bad "processes: a child still runs"
else
    ok
fi

finish interrupt
