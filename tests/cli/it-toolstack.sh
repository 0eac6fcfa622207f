#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The toolstack from the CLI (seed 002): the infolist plugins and the two
# workloads are listed; the boundary param is recorded in every result
# and a bad one is exit 2; boundary=kvm on a missing device fails with
# the reason, never silently; a run's per-enumeration hypercall counts
# follow the strategies (N/2 + 1 vs N/1024 + 1 vs 1); list counters says
# what one crossing costs, and every run's environment ledger records it.
# Usage: it-toolstack.sh HVBENCH
set -u
hvbench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

"$hvbench" list plugins >"$tmp/plugins" 2>&1 || no "list plugins"
for p in append-2 chunked cursor; do
    grep -q "$p" "$tmp/plugins" || no "plugin $p not listed"
done
grep -q dup-boundary "$tmp/plugins" && no "the test-only plugin is listed"
"$hvbench" list workloads >"$tmp/wl" 2>&1 || no "list workloads"
grep -q getinfolist "$tmp/wl" || no "getinfolist not listed"
grep -q xenopsd-poll "$tmp/wl" || no "xenopsd-poll not listed"
HVB_KVM_DEVICE=/nonexistent/kvm "$hvbench" run empty --min-time 0.01 \
    --repetitions 1 -q -o "$tmp/e.json" >/dev/null 2>&1 || no "run empty"
/usr/bin/python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['hvbench']['environment']['hypercall_boundary']
sys.exit(0 if '/nonexistent/kvm' in e['kvm'].get('error', '') else 1)" \
    "$tmp/e.json" || no "environment: kvm's reason not recorded"
HVB_KVM_DEVICE=/nonexistent/kvm "$hvbench" list counters >"$tmp/ctr" 2>&1 ||
    no "list counters"
grep -q "hypercall boundary.*syscall [0-9]* ns.*kvm unavailable.*/nonexistent/kvm" \
    "$tmp/ctr" || no "list counters: no boundary line: $(cat "$tmp/ctr")"

"$hvbench" run getinfolist --param boundary=bogus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || no "boundary=bogus is not exit 2"
grep -q "none, syscall, kvm" "$tmp/err" || no "boundary=bogus: $(cat "$tmp/err")"
"$hvbench" run xenopsd-poll --threads 2 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || no "xenopsd-poll --threads 2 is not exit 2"

HVB_KVM_DEVICE=/nonexistent/kvm "$hvbench" run getinfolist \
    --param boundary=kvm --param domains=20 --repetitions 1 -q \
    >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] || no "boundary=kvm on a missing device succeeded"
grep -q "boundary=kvm: /nonexistent/kvm: .*No such file" "$tmp/err" ||
    no "missing device, no reason: $(cat "$tmp/err")"

"$hvbench" run getinfolist --plugin infolist=append-2,chunked,cursor \
    --param domains=50 --param boundary=none,syscall --repetitions 1 \
    --min-time 0.01 -q -o "$tmp/r.json" >/dev/null 2>"$tmp/err" ||
    no "run getinfolist: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/r.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
want = {"append-2": 26, "chunked": 2, "cursor": 1}
hb = d["hvbench"]["environment"]["hypercall_boundary"]
if not (hb["none"]["crossing_ns"] > 0 and hb["syscall"]["crossing_ns"] > 0
        and ("crossing_ns" in hb["kvm"] or "error" in hb["kvm"])):
    print("FAIL: environment.hypercall_boundary:", hb); sys.exit(1)
seen = 0
for c in d["hvbench"]["cells"]:
    b = c["params"].get("boundary")
    if b not in ("none", "syscall"):
        print("FAIL: boundary not recorded:", c["params"]); sys.exit(1)
seen = 0
for r in d["benchmarks"]:
    p = r["hvbench"]["plugins"]["infolist"]
    if r.get("run_type") == "aggregate":
        continue
    if r.get("perfc.hypercall") != want[p]:
        print("FAIL:", r["name"], "hypercalls", r.get("perfc.hypercall"),
              "want", want[p]); sys.exit(1)
    if not r.get("hypercall_crossing_ns", 0) > 0:
        print("FAIL:", r["name"], "no hypercall_crossing_ns"); sys.exit(1)
    seen += 1
if seen != 6:
    print("FAIL: %d rows, want 6" % seen); sys.exit(1)
PY
# xenopsd-poll, short: a share in (0, 100], polls and boots happened,
# and a modelled cost says so.
"$hvbench" run xenopsd-poll --plugin infolist=append-2,cursor \
    --param domains=50 --param duration_ms=100 --param boot_work_us=0,50 \
    --repetitions 1 -q -o "$tmp/x.json" >/dev/null 2>"$tmp/err" ||
    no "run xenopsd-poll: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/x.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["benchmarks"] if r.get("run_type") != "aggregate"]
if len(rows) != 4:
    print("FAIL: xenopsd-poll: %d rows, want 4" % len(rows)); sys.exit(1)
for r in rows:
    share = r.get("poller_cpu_share_pct", -1)
    if not (0 < share <= 100 and r.get("polls", 0) > 0 and r.get("boots", 0) > 0):
        print("FAIL: xenopsd-poll", r["name"], share, r.get("polls"), r.get("boots"))
        sys.exit(1)
    # the CPU of one poll, all the poller's CPU over its polls
    per = r.get("poll_cpu_us", -1) * r["polls"] / 1e3
    if not (per > 0 and abs(per - r["poller_cpu_ms"]) <= 1e-3 * r["poller_cpu_ms"]):
        print("FAIL: xenopsd-poll", r["name"], "poll_cpu_us", r.get("poll_cpu_us"))
        sys.exit(1)
    modelled = r["hvbench"]["params"]["boot_work_us"] > 0
    if modelled != ("boot_work_us_modelled" in r):
        print("FAIL: xenopsd-poll", r["name"], "modelled cost not flagged")
        sys.exit(1)
PY
[ "$fail" -eq 0 ] && echo "toolstack CLI ok"
exit "$fail"
