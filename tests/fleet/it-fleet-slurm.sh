#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "hvbench fleet slurm" on a real single-node Slurm cluster that this test
# starts (scripts/slurm-local.sh: munged, slurmctld, slurmd in a temporary
# directory, unique ports) and stops by pid at exit, also on failure:
#
#   - 4 shards of a 12-cell matrix as one job array: the merged cells are
#     an unsharded run's cell set (plugins, params, fixed iterations,
#     rounds, paired ratios), each with its host
#   - task 3 cancelled on purpose (scancel JOB_3): its shard is named
#     missing, status 1; --resume submits shard 3 alone, leaves the other
#     shard files untouched, and the merge is then complete
#   - --resume while the job runs, or with another run command, is exit
#     2; --dry-run prints the script (--exclusive, the array) and submits
#     nothing
#   - --per-host: the whole matrix on the node, the hosts table
#
# Skipped (77) with the reason where it cannot run (not root, no Slurm).
# usage: it-fleet-slurm.sh HVBENCH SOURCE_DIR
set -u
hvb=$(realpath "$1")
src=$(realpath "$2")
. "$src/tests/cli/lib.sh"
PY=/usr/bin/python3
cluster="$tmp/slurm"
cleanup_slurm() {
    "$src/scripts/slurm-local.sh" stop "$cluster" >/dev/null 2>&1
    cleanup
}
trap cleanup_slurm EXIT
trap 'exit 1' INT TERM

"$src/scripts/slurm-local.sh" start "$cluster" >"$tmp/start.out" 2>"$tmp/start.err"
started $? "the local Slurm" "$tmp/start.err"
export SLURM_CONF="$cluster/slurm.conf"
PATH=$PATH:/usr/sbin
cd "$tmp" || exit 1

M="lookup --plugin domlookup=rwlock-ref,rcu-noref --threads 1,2 --param domains=10,100,1000 --repetitions 3 --iterations 3000"

# --dry-run: the script on stdout, nothing written or submitted.
"$hvb" fleet slurm --shards 4 --dir "$tmp/dry" --dry-run -- run $M >dry.out 2>dry.err
rc=$?
[ $rc -eq 0 ] && grep -q -- '--exclusive' dry.out && grep -q -- '--array=1,2,3,4' dry.out &&
    grep -q -- '--shard "$K/4"' dry.out && [ ! -e "$tmp/dry" ] && ok ||
    bad "--dry-run: status $rc, $(cat dry.err)"

"$hvb" run $M -q --out whole.json >/dev/null 2>&1 || bad "unsharded run"

# Submit 4 shards in the background, cancel task 3 once the job is known.
"$hvb" fleet slurm --shards 4 --dir "$tmp/f" --poll 0.2 -- run $M >f.out 2>f.err &
fleet=$!
track $fleet
job=
i=0
while [ -z "$job" ] && [ $i -lt 300 ]; do
    job=$(sed -n 's/.*; job \([0-9][0-9]*\)$/\1/p' f.err)
    [ -n "$job" ] || sleep 0.1
    i=$((i + 1))
done
if [ -n "$job" ]; then
    # --resume while the job runs would run shards twice: refused.
    "$hvb" fleet slurm --resume --dir "$tmp/f" -- run $M >/dev/null 2>busy.err
    [ $? -eq 2 ] && grep -q "still pending or running" busy.err && ok ||
        bad "--resume while the job runs: $(cat busy.err)"
    scancel "${job}_3" && ok || bad "scancel ${job}_3"
else
    bad "no job id from fleet: $(cat f.err)"
fi
wait $fleet
rc=$?
untrack $fleet
[ $rc -eq 1 ] && ok || bad "fleet with a cancelled task: status $rc, want 1: $(cat f.err)"
grep -q "shard 3/4 failed or was cancelled" f.err && ok || bad "cancelled shard not named: $(cat f.err)"
grep -q "shard 3/4 missing" f.err && ok || bad "merge did not name shard 3: $(cat f.err)"
[ -e f/shard-1.json ] && [ -e f/shard-2.json ] && [ -e f/shard-4.json ] && [ ! -e f/shard-3.json ] &&
    ok || bad "shard files after the cancel: $(ls f)"
md5sum f/shard-1.json f/shard-2.json f/shard-4.json >before.md5

# --resume with another command: refused.
"$hvb" fleet slurm --resume --dir "$tmp/f" -- run lookup --repetitions 2 >/dev/null 2>other.err
[ $? -eq 2 ] && grep -q "ran another command" other.err && ok ||
    bad "--resume with another command: $(cat other.err)"

# --resume: shard 3 alone, the others untouched, then complete.
"$hvb" fleet slurm --resume --dir "$tmp/f" --poll 0.2 -- run $M >r.out 2>r.err
rc=$?
[ $rc -eq 0 ] && ok || bad "--resume: status $rc: $(cat r.err)"
grep -q "resuming $tmp/f: shards 3 of 4 to run" r.err && ok || bad "--resume ran more than shard 3: $(cat r.err)"
md5sum -c --quiet before.md5 && ok || bad "--resume rewrote a finished shard"
grep -q "merge: 12 of 12 cells from 4 of 4 shards" r.err && ok || bad "merge after --resume: $(cat r.err)"
$PY - whole.json f/merged.json <<'EOF' && ok || bad "merged cells differ from the unsharded run's"
import json, sys
w = json.load(open(sys.argv[1]))["hvbench"]
h = json.load(open(sys.argv[2]))["hvbench"]
key = lambda c: (c["index"], c["name"], c["group"], c["variant"],
                 json.dumps(c["plugins"], sort_keys=True),
                 json.dumps(c["params"], sort_keys=True),
                 c["shared_iterations"], c["iterations"], len(c["samples_ns_per_op"]))
assert [key(c) for c in w["cells"]] == [key(c) for c in h["cells"]]
for c in h["cells"]:
    assert c["host"]
    if c["variant"]:
        assert len(c["paired"]["ratios"]) == 3
assert h["merged"]["complete"] and len(h["merged"]["shards"]) == 4
EOF
"$hvb" compare f/merged.json --format markdown >/dev/null 2>&1 && ok || bad "compare of the fleet's merge"

# --resume with nothing missing: no job, the merge again.
"$hvb" fleet slurm --resume --dir "$tmp/f" -- run $M >/dev/null 2>n.err
[ $? -eq 0 ] && grep -q "nothing to run" n.err && ok || bad "--resume of a finished fleet: $(cat n.err)"

# A fleet directory in use is not reused without --resume.
"$hvb" fleet slurm --shards 4 --dir "$tmp/f" -- run $M >/dev/null 2>u.err
[ $? -eq 2 ] && grep -q "already holds a fleet" u.err && ok || bad "reused --dir: $(cat u.err)"

# --per-host: the whole matrix on every node (one here), hosts side by side.
"$hvb" fleet slurm --per-host --dir "$tmp/h" --poll 0.2 -- run lookup --plugin domlookup=rwlock-ref,rcu-noref --repetitions 2 --iterations 3000 >h.out 2>h.err
rc=$?
node=$(hostname -s)
[ $rc -eq 0 ] && [ -e "h/host-$node.json" ] && grep -q "1 host side by side" h.out &&
    grep -q "| NUMA nodes |" h.out && grep -q 'lookup/domlookup=rcu-noref/threads:1' h.out &&
    ok || bad "--per-host: status $rc: $(cat h.err)"

# No Slurm client here: exit 2 with the reason.  (A SLURM_CONF naming no
# file makes sinfo itself look for a controller for a minute.)
PATH=/nonexistent "$hvb" fleet slurm --dir "$tmp/x" -- run $M >/dev/null 2>x.err
[ $? -eq 2 ] && grep -q "cannot run sinfo" x.err && ok || bad "no Slurm: $(cat x.err)"

finish it-fleet-slurm
