#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# boot-storm's xs_profile=libxl traffic against Debian's real oxenstored
# (xs_server=external, through scripts/with-oxenstored.sh and the shim
# fakexen.so): 4 VMs under each quota plugin, one after the other on the
# same daemon; every boot succeeds, INTRODUCE included; the per-VM
# requests, connections and events (counted by the clients) are
# docs/xenstored.md's table, as the run's own daemon counts them; the
# daemon's CPU share is there; the cells say the quota plugin does not
# apply; after the teardown the daemon holds no VM (RELEASE) and no VM's
# nodes.  Without a daemon, a one-line error.  Exit 77 (skipped) where
# oxenstored is not installed (with-oxenstored.sh's own 77); the daemon is
# stopped by its pid by with-oxenstored.sh, also on failure.
#   it-boot-storm-oxenstored.sh HVBENCH FAKEXEN_SO SOURCE_DIR
set -eu
hvb=$1
shim=$2
src=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
py=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }
xl="--param label_us=500 --param qemu_us=200 --param define_us=20
 --param topology=2x256M --param mem_kib=1024 --repetitions 1 --param vms=4
 --param clients=1 --param churn=0 --param churn_domains=0
 --param xs_client=socket --param xs_profile=libxl --param xs_server=external
 --counters none"

# No daemon at XENSTORED_PATH: the cell fails with the socket's name.
set +e
# shellcheck disable=SC2086
XENSTORED_PATH=$out/none "$hvb" run boot-storm $xl >/dev/null 2>"$out/none.err"
rc=$?
set -e
[ $rc -ne 0 ] || fail "no daemon: exit 0"
grep -q "xs_server=external: $out/none: No such file or directory" \
    "$out/none.err" || { cat "$out/none.err" >&2; fail "no daemon: message"; }

set +e
"$src/scripts/with-oxenstored.sh" "$shim" sh -c '
    "$1" run boot-storm --plugin quota=hashtbl-copy,persistent $2 \
        --out "$3/ox.json" >/dev/null 2>"$3/ox.err" || exit 3
    # After the teardown: no VM introduced, no VM node left.
    "$4" - >"$3/after.txt" <<PY || exit 4
import os, socket, struct
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["XENSTORED_PATH"])
def req(t, body):
    s.sendall(struct.pack("<IIII", t, 1, 0, len(body)) + body)
    h = b""
    while len(h) < 16:
        h += s.recv(16 - len(h))
    ln = struct.unpack("<IIII", h)[3]
    b = b""
    while len(b) < ln:
        b += s.recv(ln - len(b))
    return b
print("introduced", [req(17, b"%d\0" % i) for i in range(1, 5)])
print("domains", req(1, b"/local/domain\0"))
print("vm", req(1, b"/vm\0"))
PY
    echo "pid $OXENSTORED_PID" >>"$3/after.txt"
' sh "$hvb" "$xl" "$out" "$py"
rc=$?
set -e
[ $rc -ne 77 ] || exit 77
[ $rc -eq 0 ] || { cat "$out/ox.err" >&2; fail "against oxenstored: $rc"; }
grep -q "^introduced \[b'F\\\\x00', b'F\\\\x00', b'F\\\\x00', b'F\\\\x00'\]$" \
    "$out/after.txt" || { cat "$out/after.txt" >&2; fail "VMs still introduced"; }
grep -q "^domains b'0\\\\x00'$" "$out/after.txt" &&
    grep -q "^vm b''$" "$out/after.txt" ||
    { cat "$out/after.txt" >&2; fail "VM nodes left in oxenstored"; }
pid=$(sed -n 's/^pid //p' "$out/after.txt")
! kill -0 "$pid" 2>/dev/null || fail "oxenstored ($pid) still running"
! grep -q "counters dropped" "$out/ox.err" || fail "over the counter limit"
[ "$(grep -c 'the quota plugin .* does not apply' "$out/ox.err")" -eq 2 ] ||
    { cat "$out/ox.err" >&2; fail "no quota note per cell"; }

# The counts of docs/xenstored.md's table, as it-boot-storm.sh's
# in-run case, here counted by the clients; two cells, both external.
"$py" "$src/tests/workloads/lib-xl-profile.py" "$out/ox.json" \
    xs_counts_client_side=1 xs_quota_plugin_applies=0 >"$out/ox.cells" ||
    fail "xs_server=external counts"
[ "$(grep -c '/xs_server=external/' "$out/ox.cells")" -eq 2 ] ||
    { cat "$out/ox.cells" >&2; fail "not two external cells"; }
"$py" - "$out/ox.json" <<'PY' || fail "xs_server=external counters"
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "aggregate":
        continue
    # the daemon's counters a client cannot see are not reported
    assert "xs_quota_copies_per_vm" not in b and \
        "xs_events_dropped" not in b, b["name"]
    assert 0 < b["xs_server_cpu_pct"] <= 100, b["xs_server_cpu_pct"]
PY
echo "boot-storm against oxenstored: ok"
