#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Seed 000's benchmark through the socket, and the daemon's requests/s,
# under each quota plugin of hvbench xenstored and against the real
# oxenstored (xen-utils-4.17, started by scripts/with-oxenstored.sh).
#
#   scripts/xenstored-bench.sh seed [--domains N] [--subtrees S]
#       [--repeat R] [--targets "hashtbl-copy persistent oxenstored"]
#     The seed's create.py (scripts/seed000/create.py, pyxs) gives domains
#     1..N-1 their 261 nodes each (the seed: N = 1000), then the seed's
#     `xenstore-ls /quotatest/1 ... /quotatest/S` runs R times (the seed:
#     S = 100, `perf stat -r 10`).  One line per target: seconds per
#     listing (mean and standard deviation), requests per listing (counted
#     by hvbench xenstored, the same client and tree on oxenstored),
#     requests/s.
#
#   scripts/xenstored-bench.sh rps [--domains D] [--seconds T]
#       [--targets ...]
#     D domains hold quota (one node each), then xs-load's READ and WRITE
#     from 1 and 2 clients for T seconds each.  One line per target x op x
#     clients.
#
# --pin same|split|none (default same): the daemon on CPU 0 and every
# client on CPU 0 too (same), on CPU 1 (split), or where the scheduler puts
# them (none).  A request is a round trip between two processes: on this
# 2-vCPU VM a client on the daemon's CPU took 19.5 us per xenstore-ls
# request, one on the other CPU 46 us (a cross-CPU wake-up is an IPI,
# costly under nested virtualisation), unpinned anything between, run to
# run - more than the quota strategies' difference.
#
# The build: $HVB_BUILD (default ./build): hvbench, xs-load,
# tests/bin/fakexen.so.  Run it under the exclusive CPU lock when the
# figures matter: flock -x /tmp/hvb-cpu.lock scripts/xenstored-bench.sh ...
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${HVB_BUILD:-$here/../build}
mode=${1:-}
[ $# -gt 0 ] && shift
domains=1000
subtrees=100
repeat=3
seconds=3
targets="hashtbl-copy persistent oxenstored"
pin=same
one=
while [ $# -gt 0 ]; do
    case $1 in
    --domains) domains=$2; shift 2 ;;
    --subtrees) subtrees=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --pin) pin=$2; shift 2 ;;
    --one) one=$2; shift 2 ;; # internal: XENSTORED_PATH is set
    *) echo "xenstored-bench: unknown option '$1'" >&2; exit 2 ;;
    esac
done
case $pin in
same) dpin="taskset -c 0" cpin="taskset -c 0" ;;
split) dpin="taskset -c 0" cpin="taskset -c 1" ;;
none) dpin="" cpin="" ;;
*) echo "xenstored-bench: --pin same|split|none" >&2; exit 2 ;;
esac
case $mode in
seed | rps) ;;
*) echo "usage: xenstored-bench.sh seed|rps [options] (see the script)" >&2
   exit 2 ;;
esac

# The seed's tree: per subtree 1 + 9 x (2 + 29 x 4) requests.
per_listing=$((subtrees * (1 + 9 * (2 + 29 * 4))))

ctl_requests() {
    /usr/lib/xen-4.17/bin/xenstore-control stats 2>/dev/null |
        awk '$1 == "requests" { print $2 }'
}

# One target, its daemon listening on $XENSTORED_PATH.
run_one() {
    target=$1
    if [ "$mode" = rps ]; then
        $cpin "$build/xs-load" --socket "$XENSTORED_PATH" --domains "$domains" ||
            return 1
        for op in read write; do
            for c in 1 2; do
                r=$($cpin "$build/xs-load" --socket "$XENSTORED_PATH" --op $op \
                    --clients $c --seconds "$seconds") || return 1
                echo "$r" | awk -v t="$target" -v d="$domains" \
                    -v p="$pin" '{ printf "%-13s domains %5d  %-5s clients %d  %9.0f requests/s  (pin %s)\n", t, d, $2, $4, $10, p }'
            done
        done
        return 0
    fi
    t0=$(date +%s.%N)
    $cpin /usr/bin/python3 "$here/seed000/create.py" "$domains" || return 1
    t1=$(date +%s.%N)
    paths=$(seq 1 "$subtrees" | sed 's|^|/quotatest/|')
    before=$(ctl_requests)
    times=""
    i=0
    while [ $i -lt "$repeat" ]; do
        s=$(date +%s.%N)
        # shellcheck disable=SC2086
        $cpin xenstore-ls $paths >/dev/null || return 1
        e=$(date +%s.%N)
        times="$times $(awk "BEGIN { print $e - $s }")"
        i=$((i + 1))
    done
    after=$(ctl_requests)
    if [ -n "$before" ] && [ -n "$after" ]; then
        counted=$(((after - before - 1) / repeat)) # the 2nd stats request
        [ "$counted" -eq "$per_listing" ] ||
            echo "xenstored-bench: $target counted $counted requests per listing, the tree gives $per_listing" >&2
    fi
    echo "$times" | awk -v t="$target" -v d="$domains" -v s="$subtrees" -v p="$pin" \
        -v n="$per_listing" -v c="$(awk "BEGIN { print $t1 - $t0 }")" '{
        for (i = 1; i <= NF; i++) { sum += $i; sq += $i * $i }
        m = sum / NF; sd = NF > 1 ? sqrt((sq - NF * m * m) / (NF - 1)) : 0
        printf "%-13s domains %4d  subtrees %3d  create %6.1f s  listing %7.3f s +- %5.3f (%d runs)  %6d requests  %7.0f requests/s  (pin %s)\n",
            t, d - 1, s, c, m, sd, NF, n, n / m, p }'
}

# Stop our daemon of this round by its pid, remove its directory.
stop_daemon() {
    [ -s "$tmp/pid" ] && kill "$(cat "$tmp/pid")"
    i=0
    while [ -e "$tmp/pid" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    rm -rf "$tmp"
}

if [ -n "$one" ]; then
    run_one "$one"
    exit $?
fi

[ "$mode" = seed ] && [ "$subtrees" -ge "$domains" ] &&
    { echo "xenstored-bench: --subtrees must be < --domains" >&2; exit 2; }
status=0
for t in $targets; do
    if [ "$t" = oxenstored ]; then
        $dpin "$here/with-oxenstored.sh" "$build/tests/bin/fakexen.so" \
            "$0" "$mode" --one oxenstored --domains "$domains" \
            --subtrees "$subtrees" --repeat "$repeat" --seconds "$seconds" \
            --pin "$pin"
        rc=$?
        [ $rc -eq 77 ] && { echo "oxenstored    not available (skipped)"; continue; }
        [ $rc -ne 0 ] && status=1
        continue
    fi
    tmp=$(mktemp -d /tmp/hvb-xsd-bench.XXXXXX)
    trap 'stop_daemon; exit 130' INT TERM
    $dpin "$build/hvbench" xenstored --socket "$tmp/sock" --plugin "quota=$t" \
        --pid-file "$tmp/pid" --log "$tmp/log" || { status=1; continue; }
    XENSTORED_PATH=$tmp/sock run_one "$t" || status=1
    stop_daemon
    trap - INT TERM
done
exit $status
