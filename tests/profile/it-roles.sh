#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The off-CPU and wall views by thread role (hv/thread.h), on seed 000's
# cell: boot-storm over the xenstore wire, libxl's requests, 20 VMs,
# quota=hashtbl-copy against persistent, --view wall --diff.
#
# Roles: every folded line starts with "[thread: ROLE]"; the storm's
# clients, the xenstore daemon and libvirtd's pool are there by name.
# Idle: the pool's wait for a call (hv_idle_cond_wait_at), the daemon's
# for a request (hv_idle_epoll_wait) and a watcher's for an event
# (hv_idle_poll) end in "[off-cpu: idle]",
# counted in results.json's idle_ns_per_op and on stderr; a client's wait
# for the daemon's reply (xsd_client_request) does not.  Exec: the label
# helper (/bin/true, spawned per VM) runs another program, whose frames
# this process's maps cannot name: after its exec its stacks read
# "[thread: true];[after exec]" and its kernel frames, and no frame of
# any thread is a raw "[hvbench+0x...]" address (the PLT stubs are named
# "malloc@plt", as perf names them).  parallel-create's clients, the
# harness's threads, are "client" while they run it.  The differential:
# its .md leads with the "Threads by role" table, ranked by the change on
# CPU and waiting, idle time apart; its stack table ranks idle stacks
# after the others.
#
# Usage: it-roles.sh HVBENCH
hvbench=$1
# shellcheck source=../common/testlib.sh
. "$(dirname "$0")/../common/testlib.sh"

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the sched_switch tracepoint needs root"
    exit 77
fi

"$hvbench" profile boot-storm --plugin quota=hashtbl-copy,persistent \
    --param xs_client=socket --param xs_profile=libxl --param vms=20 \
    --repetitions 1 --view wall --diff quota=hashtbl-copy,persistent \
    --out "$tmp/w" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; bad "boot-storm --view wall --diff failed"; exit 1; }

for f in "$tmp"/w/boot-storm*-wall.folded; do
    name=${f##*/}
    grep -qv '^\[thread: [^];]*\];' "$f" &&
        bad "$name: a line without its role: $(grep -v '^\[thread: ' "$f" | head -1)"
    for role in client xenstored libvirtd-worker; do
        grep -q "^\[thread: $role\];" "$f" || bad "$name: no role $role"
    done
    grep -q '^\[thread: libvirtd-worker\];.*hv_idle_cond_wait_at;.*;\[off-cpu: idle\] ' "$f" ||
        bad "$name: the pool's wait for a call is not idle"
    grep -q '^\[thread: xenstored\];.*hv_idle_epoll_wait;.*;\[off-cpu: idle\] ' "$f" ||
        bad "$name: the daemon's wait for a request is not idle"
    grep -q '^\[thread: xenbus-watch\];.*hv_idle_poll;.*;\[off-cpu: idle\] ' "$f" ||
        bad "$name: the watcher's wait for an event is not idle"
    grep -q '^\[thread: client\];.*;xsd_client_request;read;.*;\[off-cpu\] ' "$f" ||
        bad "$name: no client wait on a reply"
    grep -q 'xsd_client_request;.*\[off-cpu: idle\] ' "$f" &&
        bad "$name: a client's wait on a reply called idle"
    grep -q '^\[thread: true\];\[after exec\][; ]' "$f" ||
        bad "$name: the helper's time after its exec is not there"
    grep '^\[thread: true\];' "$f" | grep -v '^\[thread: true\];\[after exec\][; ]' |
        grep -q '\[ld-linux\|\[libc\.so' &&
        bad "$name: the helper's frames named with this process's maps"
    grep -q '\[hvbench+0x' "$f" &&
        bad "$name: a raw frame: $(grep -o '\[hvbench+0x[0-9a-f]*\]' "$f" | head -1)"
done
grep -q '@plt' "$tmp"/w/boot-storm*-wall.folded ||
    echo "note: no PLT stub sampled (not checked)"

# parallel-create's clients are the harness's threads (thread 0 the main
# one), named "client" while they run it: a role is the name a thread
# had when it left the CPU, not its last.
"$hvbench" profile parallel-create --threads 2 --iterations 3 -r 1 -q \
    --view offcpu --out "$tmp/p" >/dev/null 2>"$tmp/perr" ||
    bad "parallel-create --view offcpu: $(cat "$tmp/perr")"
f=$(ls "$tmp"/p/parallel-create*-offcpu.folded)
grep -q '^\[thread: client\];.*hv_rpc_call;' "$f" ||
    bad "parallel-create: no client waiting on its call"
grep -q '^\[thread: hvbench\];.*hv_rpc_call;' "$f" &&
    bad "parallel-create: a client's call under the harness's name"

jq -e '[.hvbench.cells[].profile | .idle_ns_per_op > 0 and
        .idle_ns_per_op < .off_cpu_ns_per_op] | all' "$tmp/w/results.json" \
    >/dev/null || bad "idle_ns_per_op: $(jq -c '[.hvbench.cells[].profile |
        {idle_ns_per_op, off_cpu_ns_per_op}]' "$tmp/w/results.json")"
grep -q 'modelled sleeps [0-9.]*, idle [1-9]' "$tmp/err" ||
    bad "stderr: no idle time: $(grep 'wall ' "$tmp/err" | head -1)"

md=$(ls "$tmp"/w/diff-wall-*.md)
first=$(grep -n '^## ' "$md" | head -1)
case $first in
*"## Threads by role"*) ;;
*) bad "diff .md: its first table is not by role: $first" ;;
esac
# The role table: ranked by the change on CPU and waiting (idle apart).
/usr/bin/python3 - "$md" <<'PY' || bad "diff .md: the role table's ranking"
import re, sys
text = open(sys.argv[1]).read()
table = text.split("## Threads by role")[1].split("\n## ")[0]
key, roles = [], set()
for line in table.splitlines():
    if not line.startswith("| `"):
        continue
    cells = [c.strip() for c in line.split("|")[1:-1]]
    roles.add(cells[0].split("`")[1])
    d = [float(re.match(r"[-+0-9.e]+", cells[i]).group()) for i in (2, 4)]
    key.append((" (within spread)" in line, -(abs(d[0]) + abs(d[1]))))
# The table's figures have 4 digits: a sum of two may swap two close rows.
ok = all(a[0] < b[0] or (a[0] == b[0] and -b[1] <= -a[1] * 1.001 + 1)
         for a, b in zip(key, key[1:]))
ok = ok and {"client", "xenstored", "libvirtd-worker"} <= roles
if not ok:
    print("roles", sorted(roles), "keys", key)
sys.exit(0 if ok else 1)
PY
grep -q 'role .*on CPU.*waiting.*idle' "$tmp/out" ||
    bad "console: no role table: $(head -5 "$tmp/out")"
# In the stack table, no idle stack above one that is not (same group).
/usr/bin/python3 - "$md" <<'PY' || bad "diff .md: an idle stack ranked above a wait"
import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| `")]
stacks = [l for l in rows if "<sub>" in l and "within spread" not in l]
idle = [("[off-cpu: idle]</sub>" in l) for l in stacks]
sys.exit(1 if idle != sorted(idle) else 0)
PY
[ $fail -eq 0 ] && echo "ok: the off-CPU and wall views by thread role"
exit "$fail"
