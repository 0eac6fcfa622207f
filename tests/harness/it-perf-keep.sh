#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The probe keeps its software perf events open for the life of the
# process (harness/measure/probe.c keep_sw()), so that every sample's own
# events no longer flip the kernel's static keys; and every perf fd is
# close-on-exec.  The measurement thread also keeps its own bracket's
# events from one sample to the next (harness/measure/meter.c).  A live
# worker (hvbench worker empty): after its hello it holds perf fds; after
# one sample more (the thread's), and as many after two samples more
# (kept, none leaked per sample); all with O_CLOEXEC.  Where this kernel lets no
# software event open (a run counts no sw_task_clock), there is nothing
# to keep: skip (77), saying why.
# Usage: it-perf-keep.sh HVBENCH
set -u
hv=$1
tmp=$(mktemp -d)
pid=
# shellcheck disable=SC2317 # (called by the trap)
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    exec 3>&- 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
mkfifo "$tmp/in"
"$hv" worker empty -q <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in"

# answers N: wait (10 s at most) until the worker has said N lines.
answers() {
    i=0
    while [ "$(wc -l <"$tmp/out")" -lt "$1" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ "$(wc -l <"$tmp/out")" -ge "$1" ] || {
        echo "FAIL: the worker said $(wc -l <"$tmp/out") lines, not $1: $(cat "$tmp/err")"
        exit 1
    }
}

# perf_fds: the worker's perf event fds, one per line.
perf_fds() {
    for f in /proc/"$pid"/fd/*; do
        [ "$(readlink "$f")" = "anon_inode:[perf_event]" ] && basename "$f"
    done
}

# Does this kernel let software events open?  A run's counters say.
"$hv" run empty -q --repetitions 1 --min-time 0.01 -o "$tmp/r.json" \
    >/dev/null 2>"$tmp/run.err" || { echo "FAIL: run empty: $(cat "$tmp/run.err")"; exit 1; }
if ! grep -q '"sw_task_clock_ns_per_op"' "$tmp/r.json"; then
    echo "SKIP: no software perf events here (run empty counts no sw_task_clock)"
    exit 77
fi
answers 1
n0=$(perf_fds | wc -l)
if [ "$n0" -eq 0 ]; then
    echo "FAIL: software events count here, but the worker keeps no perf fd open"
    exit 1
fi
echo "run 0 1000" >&3
answers 2
n1=$(perf_fds | wc -l)
if [ "$n1" -le "$n0" ]; then
    echo "FAIL: $n0 perf fds after the hello, $n1 after a sample: the measurement thread keeps none"
    exit 1
fi
fail=0
for fd in $(perf_fds); do
    flags=$(awk '/^flags:/ {print $2}' /proc/"$pid"/fdinfo/"$fd")
    # O_CLOEXEC is 02000000 (octal) in fdinfo's flags.
    if [ $((0$flags & 02000000)) -eq 0 ]; then
        echo "FAIL: perf fd $fd has flags $flags: no O_CLOEXEC"
        fail=1
    fi
done
echo "run 0 1000" >&3
echo "run 0 1000" >&3
answers 4
n3=$(perf_fds | wc -l)
if [ "$n3" -ne "$n1" ]; then
    echo "FAIL: $n1 perf fds after a sample, $n3 after two more"
    fail=1
fi
echo quit >&3
answers 5
[ $fail -eq 0 ] && echo "ok: $n0 perf fds after the hello, $n1 kept across samples, all close-on-exec"
exit $fail
