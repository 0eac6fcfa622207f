#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run --trace end to end (check-trace.py checks each file):
#  1. boot-storm (small): valid Chrome Trace Event Format, one row per
#     thread, the boot phases, a getinfolist poll, a xenstore
#     transaction and an RCU grace period present, times monotonic per
#     row and within the run (results.json's hvbench.trace and its
#     written time), requests on the xenstore wire (xs_client=socket)
#     and the daemon's row, each request it served within the client's
#     wait for it,
#     profile passes --trace through;
#  2. parallel-create, seclock=global namesearch=lock-each, 6 clients:
#     the convoy, waits for virSecurityManager (class, site) staggered
#     on the clients' rows, holds only with --trace-holds; the negative
#     control, seclock=per-domain, must fail the same convoy check;
#  3. --processes 2: one file, a process per child and cell, the
#     children's times in order, no child's file left; a tiny
#     --trace-max-events: the cap honoured (per child, then on the
#     merged file), said on stderr and in otherData;
#  4. bad input, exit 2 with one line: a directory or a dangling link at
#     FILE, a bad --trace-lock-ns, --trace-max-events or --trace-holds
#     without --trace.
# Usage: it-trace.sh HVBENCH
set -u
hvbench=$1
here=$(dirname "$0")
check="/usr/bin/python3 $here/check-trace.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

small="--param vms=6 --param clients=3 --param mem_kib=64 --param xs_nodes=40
 --param poll_ms=1 --param churn=0 --param churn_domains=0 --param label_us=300
 --param qemu_us=0 --param define_us=0 --param spawn=0 -r 1 -q"
# shellcheck disable=SC2086
if ! "$hvbench" run boot-storm $small --trace "$tmp/bs.json" \
        --out "$tmp/bs-results.json" >/dev/null 2>"$tmp/err"; then
    bad "1: boot-storm --trace failed: $(cat "$tmp/err")"
else
    $check "$tmp/bs.json" --results "$tmp/bs-results.json" \
        --names boot,define,label,create,populate,xenstore,getinfolist,transaction,"grace period" ||
        bad "1: boot-storm's trace"
fi
# shellcheck disable=SC2086
# The xenstore wire (xs_client=socket): its requests.
if ! "$hvbench" run boot-storm --param vms=4 --param clients=2 \
        --param xs_client=socket --param xs_profile=libxl --param label_us=0 \
        --param qemu_us=0 -r 1 -q --trace "$tmp/wire.json" \
        >/dev/null 2>"$tmp/err"; then
    bad "1: boot-storm xs_client=socket --trace failed: $(cat "$tmp/err")"
else
    $check "$tmp/wire.json" --names WRITE,TRANSACTION_START,TRANSACTION_END \
        --served READ,TRANSACTION_START,TRANSACTION_END ||
        bad "1: the wire's requests, the daemon's row"
fi
# (few params: profile names its files by the cell)
if ! "$hvbench" profile boot-storm --param vms=4 --param clients=2 -r 1 -q \
        --trace "$tmp/pr.json" \
        --out "$tmp/prof" >/dev/null 2>"$tmp/err"; then
    bad "1: profile --trace failed: $(cat "$tmp/err")"
else
    $check "$tmp/pr.json" --results "$tmp/prof/results.json" \
        --names define,label || bad "1: profile's trace"
fi

pc="--param rounds=1 --param existing=5 --threads 6 -r 1 -q
 --plugin namesearch=lock-each"
for sl in global per-domain; do
    # shellcheck disable=SC2086
    "$hvbench" run parallel-create $pc --plugin seclock=$sl \
        --trace "$tmp/pc-$sl.json" >/dev/null 2>"$tmp/err" ||
        bad "2: parallel-create seclock=$sl failed: $(cat "$tmp/err")"
done
$check "$tmp/pc-global.json" --names define,create,lookup \
    --wait virSecurityManager --convoy virSecurityManager:4 ||
    bad "2: no convoy of virSecurityManager waits under seclock=global"
grep -q '"name":"hold ' "$tmp/pc-global.json" &&
    bad "2: hold events without --trace-holds"
# shellcheck disable=SC2086
"$hvbench" run parallel-create $pc --plugin seclock=global --trace-holds \
    --trace "$tmp/pc-holds.json" >/dev/null 2>"$tmp/err" ||
    bad "2: parallel-create --trace-holds failed: $(cat "$tmp/err")"
$check "$tmp/pc-holds.json" --names "hold virSecurityManager" \
    --convoy virSecurityManager:4 || bad "2: --trace-holds"
if $check "$tmp/pc-per-domain.json" --convoy virSecurityManager:4 \
        2>"$tmp/neg"; then
    bad "2: negative control: a convoy found under seclock=per-domain"
fi

# --processes: each child's timeline in one file, a process per child.
# shellcheck disable=SC2086
if ! "$hvbench" run boot-storm $small --processes 2 --plugin quota=hashtbl-copy,persistent \
        --trace "$tmp/procs.json" --out "$tmp/procs-results.json" \
        >/dev/null 2>"$tmp/err"; then
    bad "3: --processes 2 --trace failed: $(cat "$tmp/err")"
else
    $check "$tmp/procs.json" --results "$tmp/procs-results.json" \
        --processes 2 --names boot,getinfolist || bad "3: --processes' trace"
    ls -A "$tmp" | grep -q "hvbench-process" &&
        bad "3: a child's file left behind: $(ls -A "$tmp")"
fi
# shellcheck disable=SC2086
"$hvbench" run boot-storm $small --processes 2 --trace "$tmp/pcap.json" \
    --trace-max-events 25 >/dev/null 2>"$tmp/err" ||
    bad "3: the capped run of 2 processes failed: $(cat "$tmp/err")"
grep -q "warning: trace: the oldest 25 of 50 events of the 2 processes not written" \
    "$tmp/err" || bad "3: the merged cap not said: $(cat "$tmp/err")"
$check "$tmp/pcap.json" --max-events 25 --over-cap --processes 2 ||
    bad "3: the merged cap"

# shellcheck disable=SC2086
"$hvbench" run boot-storm $small --trace "$tmp/cap.json" \
    --trace-max-events 25 >/dev/null 2>"$tmp/err" ||
    bad "3: the capped run failed: $(cat "$tmp/err")"
grep -q "warning: trace: the oldest [0-9]* of [0-9]* events not written (--trace-max-events 25)" \
    "$tmp/err" || bad "3: the cap not said on stderr: $(cat "$tmp/err")"
$check "$tmp/cap.json" --max-events 25 --over-cap || bad "3: the cap"

usage() { # NAME ARGS...: exit 2, one line on stderr
    name=$1
    shift
    # shellcheck disable=SC2086
    "$hvbench" run boot-storm $small "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] || bad "4: $name: exit $rc, not 2"
    [ "$(wc -l <"$tmp/err")" = 1 ] ||
        bad "4: $name: not one line: $(cat "$tmp/err")"
}
mkdir "$tmp/dir"
ln -s "$tmp/nowhere/x.json" "$tmp/dangling"
usage directory --trace "$tmp/dir"
usage "dangling link" --trace "$tmp/dangling"
usage "--trace-lock-ns -1" --trace "$tmp/x.json" --trace-lock-ns -1
usage "--trace-lock-ns 1q" --trace "$tmp/x.json" --trace-lock-ns 1q
usage "--trace-max-events 0" --trace "$tmp/x.json" --trace-max-events 0
usage "--trace-max-events alone" --trace-max-events 10
usage "--trace-holds alone" --trace-holds
[ -e "$tmp/x.json" ] && bad "4: a refused run wrote its trace"

[ "$fail" = 0 ] || exit 1
echo "trace: ok"
