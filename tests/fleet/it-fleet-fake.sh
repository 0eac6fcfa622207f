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
#   - bisect and history backfill --fleet slurm (harness/hstore/
#     history_fleet.c) on a 6-commit repository that does not build: one
#     job array of BAD and 3 midpoints (a case per task, its status
#     beside its log), every step "does not build", exit 2; the backfill's
#     array, nothing recorded; a hanging sbatch killed at --slurm-timeout;
#     usage errors (another engine, --partition alone, a blank in --out)
#
# Every hvbench here runs under timeout(1), so a regression is a failed
# check, not a hung test.
# usage: it-fleet-fake.sh HVBENCH
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

# bisect --fleet slurm: a repository whose commits do not build (each
# review fails in a second), so the job's tasks run for real.
git_() { git -C "$tmp/repo" -c user.name=t -c user.email=t@example.org "$@"; }
mkdir repo && git_ init -q && for n in 0 1 2 3 4 5 6; do
    echo $n >"$tmp/repo/f" && git_ add f && git_ commit -q -m "c$n"
done
rm -f fake/*.calls fake/tasks fake/task-*
B="--cache $tmp/cache --repo $tmp/repo"
timeout -k 5 60 "$hvb" bisect HEAD~6 HEAD --fleet slurm -k 3 $B --out "$tmp/bis" -- lookup >out 2>err
rc=$?
j=$tmp/bis/bisect.json
[ $rc -eq 2 ] && grep -q "BAD could not be reviewed" err && grep -q "4 review(s) as Slurm job 77" err &&
    [ "$(jq -c '.rounds[0].verdicts' "$j")" = '["does not build","does not build","does not build","does not build"]' ] &&
    [ "$(jq -c '[.rounds[0].commits[] | .[0:7]]' "$j")" = "[\"$(git_ rev-parse --short=7 HEAD~5)\",\"$(git_ rev-parse --short=7 HEAD~3)\",\"$(git_ rev-parse --short=7 HEAD~2)\",\"$(git_ rev-parse --short=7 HEAD)\"]" ] &&
    [ "$(ls bis/steps/*.status | wc -l)" -eq 4 ] && grep -q "^4) '$hvb' 'review' " bis/fleet/round-1.sh &&
    grep -q -- "--exclusive" bis/fleet/round-1.sh && [ "$(jq -r '.fleet + " " + (.k|tostring)' "$j")" = "slurm 3" ] &&
    ok || bad "bisect --fleet on fake Slurm: status $rc, $(cat err) $(jq -c .rounds "$j" 2>/dev/null)"
rm -f fake/*.calls fake/tasks fake/task-*
timeout -k 5 60 "$hvb" history backfill HEAD~2..HEAD --fleet slurm $B --db "$tmp/h.db" --out "$tmp/bf" -- lookup >out 2>err
[ $? -eq 2 ] && grep -q "2 review(s) as Slurm job 77" err && grep -q "nothing recorded" err &&
    [ "$(ls bf/*.status | wc -l)" -eq 2 ] && ok || bad "backfill --fleet on fake Slurm: $(cat err)"
FAKE_SBATCH=hang timeout -k 5 30 "$hvb" bisect HEAD~6 HEAD --fleet slurm --slurm-timeout 0.5 $B --out "$tmp/bis2" -- lookup >out 2>err
[ $? -eq 2 ] && grep -q "sbatch did not answer within 0.5 s: killed" err && ok ||
    bad "bisect --fleet, a sbatch that hangs: $(cat err)"
"$hvb" bisect HEAD~6 HEAD --fleet pbs $B -- lookup >out 2>err
[ $? -eq 2 ] && grep -q "the engine is slurm" err && ok || bad "--fleet pbs: $(cat err)"
"$hvb" history backfill HEAD~2..HEAD --partition p $B -- lookup >out 2>err
[ $? -eq 2 ] && grep -q "are --fleet slurm's" err && ok || bad "--partition without --fleet: $(cat err)"
"$hvb" bisect HEAD~6 HEAD --fleet slurm --out "$tmp/a b" $B -- lookup >out 2>err
[ $? -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && ok || bad "--out with a blank: $(cat err)"

finish it-fleet-fake
