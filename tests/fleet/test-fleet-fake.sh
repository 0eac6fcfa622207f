#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "hvbench fleet slurm" against a fake Slurm (fake-slurm/slurm as sinfo,
# sbatch and squeue first on PATH; no cluster, deterministic, a few
# seconds):
#
#   - sinfo listing 5,000 nodes (170 KB) with 200 KB on stderr: read to
#     the end, not a deadlock (--dry-run prints the script)
#   - squeue listing more RUNNING tasks than the fleet has: the counts
#     stay within the fleet (no "18446744073709551615 pending")
#   - sbatch printing "Submitted batch job 77": not a job id, exit 2
#   - a sinfo, sbatch or squeue that never returns: killed at the
#     deadline (--slurm-timeout, $HVB_SLURM_TIMEOUT), exit 2 naming it
#
# Every hvbench here runs under timeout(1), so a regression is a failed
# check, not a hung test.
# usage: test-fleet-fake.sh HVBENCH
set -u
hvb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cd "$tmp" || exit 1
# A hanging fake writes its pid there: stopped at exit, also on failure.
cleanup_fakes() {
    for p in $(cat "$tmp/fake/hang.pids" 2>/dev/null); do kill "$p" 2>/dev/null; done
    cleanup
}
trap cleanup_fakes EXIT
trap 'exit 1' INT TERM
mkdir bin fake
for c in sinfo sbatch squeue; do ln -s "$here/fake-slurm/slurm" "bin/$c"; done
PATH=$tmp/bin:$PATH
export FAKE_DIR=$tmp/fake PATH
unset HVB_SLURM_TIMEOUT

M="lookup --plugin domlookup=rwlock-ref,rcu-noref --param domains=10,100 --repetitions 2 --iterations 1000"

# fleet ARGS...: hvbench fleet slurm under a 30 s limit; $rc, out, err.
fleet() {
    rm -f fake/*.calls fake/tasks fake/task-*
    timeout -k 5 30 "$hvb" fleet slurm "$@" >out 2>err
    rc=$?
}

# A big sinfo: every node read, the pipes drained together.
FAKE_SINFO=big fleet --dir "$tmp/big" --dry-run -- run $M
[ $rc -eq 0 ] && grep -q -- '--array=1,2' out && ok ||
    bad "sinfo of 5,000 nodes and 200 KB of stderr: status $rc, $(head -c 300 err)"

# squeue over the count: 2 running at most, never a wrapped count.
FAKE_SINFO="nodes 2" FAKE_SQUEUE=over fleet --dir "$tmp/over" --poll 0.05 -- run $M
[ $rc -eq 0 ] && grep -q "fleet: 0 pending, 2 running, 0 done" err &&
    ! grep -q "18446744073709551615" err && grep -q "merge: 4 of 4 cells" err &&
    ok || bad "squeue listing more tasks than the fleet's: status $rc, $(cat err)"

# sbatch that is not --parsable output: refused.
FAKE_SINFO="nodes 2" FAKE_SBATCH=wordy fleet --dir "$tmp/wordy" -- run $M
[ $rc -eq 2 ] && grep -q "sbatch printed 'Submitted batch job 77', not a job id" err &&
    ok || bad "sbatch printing 'Submitted batch job 77': status $rc, $(cat err)"
FAKE_SINFO="nodes 2" fleet --dir "$tmp/parsable" -- run $M
[ $rc -eq 0 ] && grep -q "2 shards; job 77$" err && ok ||
    bad "sbatch printing 77: status $rc, $(cat err)"

# Deadlines: each Slurm command, by option and by environment.
t0=$(date +%s)
FAKE_SINFO=hang HVB_SLURM_TIMEOUT=1 fleet --dir "$tmp/hang1" -- run $M
[ $rc -eq 2 ] && grep -q "sinfo did not answer within 1 s: killed" err &&
    [ $(($(date +%s) - t0)) -lt 10 ] && ok ||
    bad "a sinfo that hangs, HVB_SLURM_TIMEOUT=1: status $rc, $(cat err)"
FAKE_SINFO=detach HVB_SLURM_TIMEOUT=0.5 fleet --dir "$tmp/detach" -- run $M
[ $rc -eq 2 ] && grep -q "sinfo did not answer within 0.5 s: killed" err && ok ||
    bad "a sinfo that closes its output and hangs: status $rc, $(cat err)"
FAKE_SINFO="nodes 2" FAKE_SBATCH=hang fleet --slurm-timeout 0.5 --dir "$tmp/hang2" -- run $M
[ $rc -eq 2 ] && grep -q "sbatch did not answer within 0.5 s: killed" err && ok ||
    bad "a sbatch that hangs, --slurm-timeout 0.5: status $rc, $(cat err)"
FAKE_SINFO="nodes 2" FAKE_SQUEUE=hang fleet --slurm-timeout 0.2 --poll 0.05 --dir "$tmp/hang3" -- run $M
[ $rc -eq 2 ] && grep -q "squeue did not answer within 0.2 s: killed (--slurm-timeout sets the limit) (10 times in a row" err &&
    ok || bad "a squeue that hangs: status $rc, $(cat err)"
fleet --slurm-timeout soon --dir "$tmp/bad" -- run $M
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && ok || bad "--slurm-timeout soon: status $rc, $(cat err)"
"$hvb" fleet --help | grep -q -- "--slurm-timeout S" && ok || bad "--slurm-timeout not in --help"

finish test-fleet-fake
