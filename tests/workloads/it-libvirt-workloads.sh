#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Smoke test of the libvirt workloads (seed 003), small: parallel-create
# and define-domain run under the old and the fixed seclock x namesearch
# pair and report their per-API percentiles and what is modelled (the
# interface filter's delay and its real shell included); the
# worker pool never runs more than max_workers ordinary calls and the
# per-connection cap throttles; lockstat names the model's lock classes;
# bad parameters are usage errors (exit 2).
#   it-libvirt-workloads.sh HVBENCH
set -eu
hvb=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
py=/usr/bin/python3
pairs="--plugin seclock=global,per-domain --plugin namesearch=lock-each,name-hash"
small="--param label_us=1000 --param qemu_us=1000 --param define_us=50
       --param nwfilter_us=500"

fail() { echo "FAIL: $*" >&2; exit 1; }

"$hvb" run parallel-create $pairs $small --threads 1,8 --repetitions 1 \
    --param rounds=2 --param max_workers=4 --param max_client_requests=3 \
    --out "$out/pc.json" >/dev/null 2>"$out/pc.err" ||
    { cat "$out/pc.err" >&2; fail "parallel-create"; }
"$py" - "$out/pc.json" <<'PY' || fail "parallel-create counters"
import json, sys
d = json.load(open(sys.argv[1]))
runs = [b for b in d["benchmarks"] if b.get("run_type") != "aggregate"]
assert len(runs) == 8, len(runs)
for b in runs:
    for k in ("define_p50_ms", "define_p99_ms", "create_p50_ms",
              "create_p90_ms", "lookup_p50_ms", "pool_busy_max",
              "label_spawn_us_real", "label_us_modelled", "qemu_us_modelled",
              "nwfilter_us_modelled", "nwfilter_spawn_us_real",
              "setall_helper"):
        assert k in b, (b["name"], k)
    assert b["define_p50_ms"] <= b["define_p99_ms"], b["name"]
    # Bounded pool: at most max_workers ordinary calls at once.
    assert 1 <= b["pool_busy_max"] <= 4, (b["name"], b["pool_busy_max"])
    assert b["label_us_modelled"] == 1000
    assert b["nwfilter_us_modelled"] == 500
    # Seed 003's calibration: SetAllLabel runs no helper by default.
    assert b["setall_helper"] == 0, b["name"]
    if b["name"].endswith("threads:8"):
        # 8 callers on one connection capped at 3: some wait.
        assert b.get("client_throttled_frac", 0) > 0, b["name"]
    else:
        assert b.get("client_throttled_frac", 0) == 0, b["name"]
PY

"$hvb" run define-domain $pairs $small --repetitions 1 --min-time 0.05 \
    --param existing=20 --param inflight=2 --out "$out/dd.json" \
    >/dev/null 2>"$out/dd.err" || { cat "$out/dd.err" >&2; fail "define-domain"; }
grep -q define_p50_ms "$out/dd.json" || fail "define-domain: no define_p50_ms"
grep -q creations_per_s "$out/dd.json" || fail "define-domain: no creations"

"$hvb" lockstat parallel-create --plugin seclock=global \
    --plugin namesearch=lock-each $small --threads 4 --repetitions 1 \
    --param rounds=2 >"$out/ls.txt" 2>/dev/null || fail "lockstat"
for cls in virSecurityManager virDomainObjList virDomainObj virNetServer \
    virNWFilterUpdate ebiptablesExecCLI; do
    grep -q "^$cls (mutex)" "$out/ls.txt" || fail "lockstat: no $cls"
done

set +e
"$hvb" run define-domain --param existing=2 --param inflight=3 \
    >/dev/null 2>&1
[ $? -eq 2 ] || fail "inflight > existing not a usage error"
"$hvb" run parallel-create --param max_client_requests=0 >/dev/null 2>&1
[ $? -eq 2 ] || fail "max_client_requests=0 not a usage error"
"$hvb" run parallel-create --plugin seclock=nolock >/dev/null 2>&1
[ $? -eq 2 ] || fail "the test-only seclock=nolock is not refused"
echo "libvirt workloads: ok"
