#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# boot-storm through the CLI, small: under all-old and all-new strategy
# sets every VM boots, is enumerated, and teardown leaks nothing; the
# counters are there and ordered (p50 <= p90 <= p99 <= max); an arrival
# rate spaces the boots out; a timeout counts slow boots; lockstat names
# the lock classes of every subsystem; boot-storm-curve.sh prints its
# table with a breaking point; bad parameters are usage errors (exit 2,
# one line).
#   it-boot-storm.sh HVBENCH SOURCE_DIR
set -eu
hvb=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
py=/usr/bin/python3
small="--param label_us=500 --param qemu_us=200 --param define_us=20
 --param topology=2x256M --param mem_kib=1024 --repetitions 1"
old="--plugin domlookup=rwlock-ref --plugin quota=hashtbl-copy
 --plugin pgalloc=numa-2006 --plugin infolist=append-2
 --plugin seclock=global --plugin namesearch=lock-each"
new="--plugin domlookup=rcu-noref --plugin quota=persistent
 --plugin pgalloc=numa --plugin infolist=chunked
 --plugin seclock=per-domain --plugin namesearch=name-hash"

fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck disable=SC2086
for set in old new; do
    eval "plugins=\$$set"
    "$hvb" run boot-storm $plugins $small --param vms=30 --param poll_ms=2 \
        --out "$out/$set.json" >/dev/null 2>"$out/$set.err" ||
        { cat "$out/$set.err" >&2; fail "boot-storm $set"; }
done
"$py" - "$out/old.json" "$out/new.json" <<'PY' || fail "boot-storm counters"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    runs = [b for b in d["benchmarks"] if b.get("run_type") != "aggregate"]
    assert len(runs) == 1, len(runs)
    b = runs[0]
    assert b["iterations"] == 30, b["iterations"]
    for k in ("vms_per_s", "boot_p50_ms", "boot_p90_ms", "boot_p99_ms",
              "boot_max_ms", "phase_define_ms_mean", "phase_label_ms_mean",
              "phase_create_ms_mean", "phase_populate_ms_mean",
              "phase_xenstore_ms_mean", "poller_cpu_share_pct",
              "grant_cpu_share_pct", "grant_maps_per_s", "polls",
              "storm_wall_ms", "label_us_modelled"):
        assert k in b, (f, k)
    assert b["vms_per_s"] > 0
    assert b["boot_p50_ms"] <= b["boot_p90_ms"] <= b["boot_p99_ms"] \
        <= b["boot_max_ms"], b
    assert b["boot_max_ms"] <= b["storm_wall_ms"] + 1, b
    assert b["boots_failed"] == 0, b["boots_failed"]
    assert b["vms_enumerated"] == 30, b["vms_enumerated"]
    assert b["grant_map_failed"] == 0, b["grant_map_failed"]
    assert b["polls"] > 0 and b["grant_maps_per_s"] > 0, b
    for k in ("teardown_leaked_pages", "teardown_leaked_xs_nodes",
              "teardown_leaked_domains"):
        assert b[k] == 0, (f, k, b[k])
    # VMs/s is N over the storm's wall time.
    assert abs(b["vms_per_s"] * b["storm_wall_ms"] / 1e3 - 30) < 3, b
PY

# xs_profile=libxl over sockets: one toolstack client, no churn, so VM i
# (from 0) finds i + 1 domains in getinfolist (the model's domain table
# holds the VMs, not dom0) and i + 1 vbd backends (its own included): the
# counts of docs/xenstored.md's table (lib-xl-profile.py), counted by
# the run's daemon.  Both quota strategies, nothing leaked.
# shellcheck disable=SC2086
"$hvb" run boot-storm --plugin quota=hashtbl-copy,persistent $small \
    --param vms=4 --param clients=1 --param churn=0 --param churn_domains=0 \
    --param xs_client=socket --param xs_profile=libxl \
    --out "$out/xl.json" >/dev/null 2>"$out/xl.err" ||
    { cat "$out/xl.err" >&2; fail "boot-storm xs_profile=libxl"; }
# Every counter kept: the cell reports more than the 48 a thread's table
# once held, and none may be dropped.
grep -q "counters dropped" "$out/xl.err" &&
    { cat "$out/xl.err" >&2; fail "boot-storm xs_profile=libxl: counters dropped"; }
"$py" "$src/tests/workloads/lib-xl-profile.py" "$out/xl.json" \
    xs_events_dropped=0 >"$out/xl.cells" || fail "xs_profile=libxl counts"
"$py" - "$out/xl.json" <<'PY' || fail "xs_profile=libxl quota copies"
import json, sys
runs = [b for b in json.load(open(sys.argv[1]))["benchmarks"]
        if b.get("run_type") != "aggregate"]
assert sorted(b["name"].split("/quota=")[1].split("/")[0] for b in runs) \
    == ["hashtbl-copy", "persistent"], [b["name"] for b in runs]
for b in runs:
    # every request pays at least one copy, save those inside a txn
    assert b["xs_quota_copies_per_vm"] > 300, b["xs_quota_copies_per_vm"]
    assert 0 < b["xs_server_cpu_pct"] <= 100, b["xs_server_cpu_pct"]
    # the run's own daemon counted them: no client-side marks
    assert "xs_counts_client_side" not in b and \
        "xs_quota_plugin_applies" not in b, b["name"]
PY

# Arrivals at 100/s: 20 VMs take at least 190 ms; a 1 ms timeout counts.
# shellcheck disable=SC2086
"$hvb" run boot-storm $new $small --param vms=20 --param rate=100 \
    --param timeout_ms=1 --out "$out/rate.json" >/dev/null 2>&1 ||
    fail "boot-storm rate=100"
"$py" - "$out/rate.json" <<'PY' || fail "arrival rate / timeout"
import json, sys
b = [b for b in json.load(open(sys.argv[1]))["benchmarks"]
     if b.get("run_type") != "aggregate"][0]
assert b["storm_wall_ms"] >= 190, b["storm_wall_ms"]
assert b["boots_over_timeout"] == 20, b["boots_over_timeout"]
PY

# lockstat: the libvirt, domain table, heap, grant and sysctl classes.
# shellcheck disable=SC2086
"$hvb" lockstat boot-storm $old $small --param vms=20 >"$out/ls.txt" \
    2>/dev/null || fail "lockstat"
for cls in virSecurityManager virDomainObjList heap_lock domlist_lock \
    grant_table_lock sysctl_lock; do
    grep -q "^$cls (" "$out/ls.txt" || fail "lockstat: no $cls"
done

# The curve script: two Ns, one set, a table with its breaking point.
HVBENCH=$hvb "$src/scripts/boot-storm-curve.sh" --sets all-new \
    --n 10,20 --extra "$small" --out "$out/curve" >"$out/curve.txt" \
    2>"$out/curve.err" ||
    { cat "$out/curve.err" >&2; fail "boot-storm-curve.sh"; }
grep -q "^| all-new | [0-9.]* ([0-9]*) | [0-9.]* ([0-9]*) | > 20 |" \
    "$out/curve.txt" || { cat "$out/curve.txt" >&2; fail "curve: all-new row"; }
# Tabulated again with a 1 ms timeout: it breaks at the smallest N.
HVBENCH=$hvb "$src/scripts/boot-storm-curve.sh" --sets all-new --n 10,20 \
    --timeout-ms 1 --out "$out/curve" --tabulate >"$out/curve1.txt" ||
    fail "curve --tabulate"
grep -q "| N=10 (a boot > 1 ms) |" "$out/curve1.txt" ||
    { cat "$out/curve1.txt" >&2; fail "curve: no timeout breaking point"; }
# A set of named plugins, split runs (one per N, its load average), the
# storm table: both sets' seconds and the second's ratio to the first.
HVBENCH=$hvb "$src/scripts/boot-storm-curve.sh" --sets all-new,quota=hashtbl-copy \
    --n 10,20 --split --counters none --extra "$small" --out "$out/curve2" \
    >"$out/curve2.txt" 2>"$out/curve2.err" ||
    { cat "$out/curve2.err" >&2; fail "curve: split"; }
[ -f "$out/curve2/quota=hashtbl-copy.n20.json" ] || fail "curve: no split file"
grep -q "/quota=hashtbl-copy/" "$out/curve2/quota=hashtbl-copy.n10.json" ||
    fail "curve: named set not run"
grep -Eq "^\| 20 \| [0-9.e+-]+ \(-; [0-9.]+-[0-9.]+\) \| [0-9.e+-]+ \(-; [0-9.]+-[0-9.]+\) \| [0-9.]+x \|$" \
    "$out/curve2.txt" || { cat "$out/curve2.txt" >&2; fail "curve: storm table"; }

set +e
for bad in "--param vms=0" "--param mem_kib=6" "--threads 2" \
    "--param xs_profile=libxl" "--param xs_client=socket" \
    "--param xs_server=external" "--param xs_server=x" \
    "--param xs_nodes=10" "--param vms=5000" "--plugin domlookup=knownalive"; do
    # shellcheck disable=SC2086
    "$hvb" run boot-storm $bad >/dev/null 2>"$out/bad.err"
    rc=$?
    [ $rc -eq 2 ] || fail "'$bad': exit $rc, not 2"
    [ "$(grep -vc '^hvbench: note\|^hvbench: counters\|^hvbench: host' "$out/bad.err")" -eq 1 ] ||
        { cat "$out/bad.err" >&2; fail "'$bad': not one line"; }
done
echo "boot-storm: ok"
