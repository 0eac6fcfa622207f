#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# with-oxenstored.sh FAKEXEN_SO COMMAND [ARGS...]: run COMMAND beside
# Debian's real oxenstored (xen-utils-4.17), the reference daemon, with
# XENSTORED_PATH set to its socket and OXENSTORED_PID to its pid.
# oxenstored listens on the compiled-in /var/run/xenstored/socket: one at
# a time on this machine, so an exclusive lock guards it for the whole
# command; it is stopped by its pid (and its socket removed) when COMMAND
# ends or fails.  FAKEXEN_SO is the tests' shim (tests/xenstored/fakexen.c,
# built as build/tests/bin/fakexen.so) that lets it start without Xen.
# Dom0's own domain is initialised as on a host (no --no-domain-init): its
# ring, /proc/xen/xsd_kva there, is a zeroed page of a file here and its
# port (xsd_port) 1, so dom0's domain connection exists, idle; INTRODUCE
# needs it (oxenstored fires @introduceDomain on dom0's behalf).
# OXENSTORED_MAXWATCHEVENTS (default 1024, Debian's and Xen's) sets
# quota-maxwatchevents: a watch's queue in the daemon.  When one fills,
# 4.17's writers wait, and its events go on only at the next write that
# fires a watch: with every client waiting on a reply, none comes
# (boot-storm xs_server=external at 150 VMs here), so a storm's curve
# raises it (docs/seeds.md, seed 000).
# Exit 77 when oxenstored is not installed; else COMMAND's status.
set -u
shim=$1
shift
case ${OXENSTORED_MAXWATCHEVENTS:-1024} in
*[!0-9]* | "") echo "with-oxenstored: bad OXENSTORED_MAXWATCHEVENTS" >&2; exit 2 ;;
esac
ox=/usr/lib/xen-4.17/bin/oxenstored
[ -x $ox ] || { echo "with-oxenstored: $ox not installed" >&2; exit 77; }
[ -r "$shim" ] || { echo "with-oxenstored: no shim $shim" >&2; exit 2; }
lock=/tmp/hvb-oxenstored.lock
sock=/var/run/xenstored/socket
tmp=$(mktemp -d /tmp/hvb-oxenstored.XXXXXX)
exec 9>"$lock"
flock -x 9
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$sock" /var/run/xenstored/socket_ro /var/run/xenstored/db
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cat >"$tmp/oxenstored.conf" <<CONF
pid-file = $tmp/oxenstored.pid
quota-maxentity = 1000
quota-maxsize = 2048
quota-maxwatch = 100
quota-transaction = 10
quota-maxrequests = 1024
quota-path-max = 1024
quota-maxoutstanding = 1024
quota-maxwatchevents = ${OXENSTORED_MAXWATCHEVENTS:-1024}
persistent = false
xenstored-kva = $tmp/xsd_kva
xenstored-port = $tmp/xsd_port
xenstored-log-file = $tmp/xenstored.log
xenstored-log-level = warn
access-log-file = $tmp/access.log
access-log-special-ops = false
CONF
if ! mkdir -p /var/run/xenstored 2>/dev/null || [ ! -w /var/run/xenstored ]; then
    echo "with-oxenstored: /var/run/xenstored not writable (not root?)" >&2
    exit 77
fi
rm -f "$sock"
head -c 4096 /dev/zero >"$tmp/xsd_kva"
printf 1 >"$tmp/xsd_port" # read_file_single_integer: no newline
LD_PRELOAD=$shim $ox --no-fork \
    --config-file "$tmp/oxenstored.conf" >"$tmp/out" 2>&1 </dev/null &
pid=$!
i=0
while [ ! -S "$sock" ] && kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.05
    i=$((i + 1))
done
sleep 0.1 # it makes its socket before dom0's domain: still there?
if [ ! -S "$sock" ] || ! kill -0 $pid 2>/dev/null; then
    echo "with-oxenstored: oxenstored did not start: $(cat "$tmp/out")" >&2
    exit 1
fi
XENSTORED_PATH=$sock OXENSTORED_PID=$pid "$@"
