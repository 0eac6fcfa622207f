#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench bisect on a scratch repository of this tree (issue 22): GOOD,
# then 6 commits: the 3rd does not build, the 4th mends it, the 5th
# makes rcu_ref_lock spin, the others touch a text file:
#   - bisect GOOD BAD -- lookup rcu-ref, sim_instructions: names the 5th
#     in at most 5 steps (BAD, then the midpoints), each a review whose
#     verdict is in bisect.json; the 3rd is tried, "does not build", and
#     skipped for its neighbour; the found commit's review (its parent
#     against it) is regressed with rcu_ref_lock on top;
#   - history backfill of the 4th to 6th against GOOD records 3 reviews,
#     each against GOOD, the ratio above 1 from the 5th on; history
#     reference set moves the reference to the 4th with the 6th's overlap
#     review (the chain's factor 1: the 4th's instructions are GOOD's);
#   - on a real single-node Slurm (scripts/slurm-local.sh, stopped by pid
#     at exit, also on failure; skipped, saying so, where not root or
#     without Slurm): history backfill GOOD..2nd --fleet slurm records
#     the 1st and 2nd (one job array, in commit order, ratio 1), then the
#     same bisect with --fleet slurm -k 3 names the 5th in 2 rounds
#     (BAD, 1st, 3rd, 4th; then 5th) where the sequential one took 4,
#     every build from the warm cache (no new entry);
#   - GOOD against a BAD before the slowdown (the 4th): "nothing to
#     find", exit 0;
#   - bad arguments are exit 2.
# The repository and the builds of GOOD and the 4th to 6th are the
# fixture scratch-repo's (fixture-scratch.sh), read, never changed; its
# cache is shared, so here the 3rd fails to build and the Slurm backfill
# builds the 1st and 2nd (each a few s from the fixture's ccache).
# Usage: it-bisect.sh HVBENCH SRC SCRATCH_DIR (the fixture's DIR)
set -u
hvb=$(realpath "$1")
src=$(realpath "$2")
fix=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cluster=$tmp/slurm
cleanup_slurm() {
    [ -e "$cluster" ] && "$src/scripts/slurm-local.sh" stop "$cluster" >/dev/null 2>&1
    if [ -n "${HVB_TEST_KEEP:-}" ]; then echo "kept $tmp"; else cleanup; fi
}
trap cleanup_slurm EXIT
trap 'exit 1' INT TERM
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
[ -s "$fix/commits" ] || { echo "FAIL: no fixture in $fix (ctest runs scratch-repo-setup first)"; exit 1; }
. "$fix/commits"
repo=$fix/repo cache=$fix/cache
# The cache's entries of the scratch commits, clean trees (a review
# test running beside this one adds others).
entries() {
    for c in "$good" "$c1" "$c2" "$c3" "$c4" "$c5" "$c6"; do
        ls -d "$cache/${c%"${c#????????????}"}-000000000000-"* 2>/dev/null
    done | grep -vc '[.]lock$'
}
W="lookup --plugin domlookup=rcu-ref --threads 1"

# bisect OUT ARGS...: in the scratch repo; $rc, OUT.stdout, OUT.stderr.
bisect() {
    o=$tmp/$1
    shift
    (cd "$repo" && timeout -k 10 2400 "$hvb" bisect --cache "$cache" \
        --out "$o" "$@" >"$o.stdout" 2>"$o.stderr")
    rc=$?
}

# Steps: c6 differs; c3 does not build, so c4: same; c5: differs.
bisect found "$good" "$c6" -- $W
steps=$(jq '.steps | length' "$tmp/found/bisect.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "$(jq -r .found "$tmp/found/bisect.json")" = "$c5" ] &&
    [ "$steps" -le 5 ] && grep -q "first commit that differs from .*: $c5 (5 of 6)" "$tmp/found.stdout" &&
    ok || bad "bisect: exit $rc, found $(jq -r .found "$tmp/found/bisect.json" 2>/dev/null), $(cat "$tmp/found.stdout") $(tail -5 "$tmp/found.stderr")"
# The 3rd does not build: tried, skipped, said so.
[ "$(jq -r --arg c "$c3" '[.steps[] | select(.commit == $c) | .verdict] | join(",")' "$tmp/found/bisect.json")" = "does not build" ] &&
    ok || bad "the broken commit: $(jq -c '[.steps[] | {commit, verdict}]' "$tmp/found/bisect.json")"
f=$(jq -r '.cells[0].functions[0].function' "$tmp/found/found/review.json" 2>/dev/null)
v=$(jq -r '.cells[0].verdicts.sim_instructions.verdict' "$tmp/found/found/review.json" 2>/dev/null)
[ "$f" = rcu_ref_lock ] && [ "$v" = regressed ] && ok ||
    bad "the found commit's review: top $f, verdict $v"

# history backfill of the 4th to 6th (built already) against GOOD: three
# reviews recorded, the ratio 1 at the 4th and above it from the 5th.
(cd "$repo" && timeout -k 10 2400 "$hvb" history backfill "$c3..$c6" \
    --reference "$good" --cache "$cache" --db "$tmp/h.db" --out "$tmp/bf" \
    -- $W >"$tmp/bf.stdout" 2>"$tmp/bf.stderr")
rc=$?
[ $rc -eq 0 ] && grep -q "^backfilled 3 commit(s) against ${good%"${good#????????????}"}; 0 skipped" "$tmp/bf.stdout" &&
    ok || bad "backfill: exit $rc, $(cat "$tmp/bf.stdout") $(tail -3 "$tmp/bf.stderr")"
r=$(sqlite3 "$tmp/h.db" "SELECT group_concat(x, ' ') FROM (SELECT (p.value > 1.5) AS x FROM points p JOIN runs r ON r.id = p.run_id WHERE p.series = 'ratio' AND p.metric = 'sim_instructions' ORDER BY r.id)")
[ "$r" = "0 1 1" ] && [ "$(sqlite3 "$tmp/h.db" "SELECT count(DISTINCT base_commit) || base_commit FROM runs")" = "1$good" ] &&
    ok || bad "backfill's ratios (above 1.5: 0 1 1 wanted): $r"

# The reference moved from GOOD (backfill pinned it) to the 4th: the
# overlap is the 6th (the newest recorded against GOOD) reviewed against
# the 4th, both built already; the chain's factor is 6/GOOD over 6/4th,
# 1 in sim_instructions (the 4th's instructions are GOOD's).
(cd "$repo" && timeout -k 10 1200 "$hvb" history reference set "$c4" \
    --cache "$cache" --db "$tmp/h.db" --out "$tmp/ref" -- $W \
    >"$tmp/ref.stdout" 2>"$tmp/ref.stderr")
rc=$?
"$hvb" history publish "$tmp/site" --db "$tmp/h.db" >/dev/null 2>&1
factor=$(jq '[.series[] | select(.series == "ratio" and .metric == "sim_instructions") | .moves[0].factor][0]' "$tmp/site/data.json" 2>/dev/null)
[ $rc -eq 0 ] && grep -q "^reference ${good%"${good#????????????}"} -> ${c4%"${c4#????????????}"}, overlap ${c6%"${c6#????????????}"} recorded as run 4" "$tmp/ref.stdout" &&
    [ "$("$hvb" history reference --commit --db "$tmp/h.db")" = "$c4" ] &&
    "$hvb" history detect --db "$tmp/h.db" --series ratio | grep -q "chained by the overlaps; 0 move(s) without one" &&
    /usr/bin/python3 -c "import sys; f = float(sys.argv[1]); assert abs(f - 1) < 0.001, f" "$factor" &&
    ok || bad "reference set: exit $rc, factor $factor, $(cat "$tmp/ref.stdout") $(tail -3 "$tmp/ref.stderr")"

# The same on Slurm: a backfill of the 1st and 2nd as one job array
# (they build there), then bisect -k 3 from the warm cache alone.
if "$src/scripts/slurm-local.sh" start "$cluster" >"$tmp/slurm.out" 2>"$tmp/slurm.err"; then
    export SLURM_CONF="$cluster/slurm.conf"
    (cd "$repo" && timeout -k 10 1200 "$hvb" history backfill "$good..$c2" \
        --fleet slurm --reference "$good" --cache "$cache" --db "$tmp/hf.db" \
        --out "$tmp/bff" -- $W >"$tmp/bff.stdout" 2>"$tmp/bff.stderr")
    rc=$?
    r=$(sqlite3 "$tmp/hf.db" "SELECT group_concat(commit_hash || ':' || (p.value > 1.5), ' ') FROM (SELECT * FROM points ORDER BY run_id) p JOIN runs r ON r.id = p.run_id WHERE p.series = 'ratio' AND p.metric = 'sim_instructions'")
    [ $rc -eq 0 ] && grep -q "^backfilled 2 commit(s) against" "$tmp/bff.stdout" &&
        grep -q "2 review(s) as Slurm job" "$tmp/bff.stderr" && [ "$r" = "$c1:0 $c2:0" ] &&
        ok || bad "backfill --fleet slurm: exit $rc, records $r, $(cat "$tmp/bff.stdout") $(tail -5 "$tmp/bff.stderr")"
    entries=$(entries)
    bisect fleet "$good" "$c6" --fleet slurm -k 3 -- $W
    j=$tmp/fleet/bisect.json
    [ $rc -eq 0 ] && [ "$(jq -r .found "$j")" = "$c5" ] &&
        grep -q "first commit that differs from .*: $c5 (5 of 6)" "$tmp/fleet.stdout" &&
        [ "$(jq -r '.fleet + " " + (.k | tostring)' "$j")" = "slurm 3" ] && ok ||
        bad "bisect --fleet slurm -k 3: exit $rc, found $(jq -r .found "$j" 2>/dev/null), $(cat "$tmp/fleet.stdout") $(tail -5 "$tmp/fleet.stderr")"
    seq_rounds=$(jq '.rounds | length' "$tmp/found/bisect.json")
    [ "$(jq -c '[.rounds[] | .commits | length]' "$j")" = "[4,1]" ] &&
        [ "$(jq '.rounds | length' "$j")" -lt "$seq_rounds" ] &&
        [ "$(jq -r --arg c "$c3" '.rounds[0] | [.commits, .verdicts] | transpose[] | select(.[0] == $c) | .[1]' "$j")" = "does not build" ] &&
        [ "$(jq -r '.rounds[0].jobs | length' "$j")" = 1 ] && ok ||
        bad "k-ary rounds (2, fewer than the sequential $seq_rounds): $(jq -c '[.rounds[] | {commits: [.commits[] | .[0:7]], verdicts}]' "$j")"
    [ "$(entries)" -eq "$entries" ] && ! grep -l "building " "$tmp"/fleet/steps/*.log >/dev/null 2>&1 &&
        ok || bad "bisect --fleet built: $(grep -l "building " "$tmp"/fleet/steps/*.log)"
    "$src/scripts/slurm-local.sh" stop "$cluster" >/dev/null 2>&1
else
    skip_part "the --fleet slurm part: $(cat "$tmp/slurm.err")"
fi
bisect kopt "$good" "$c6" -k 3 -- $W
[ $rc -eq 2 ] && grep -q -- "-k is --fleet slurm's" "$tmp/kopt.stderr" && ok ||
    bad "-k without --fleet: exit $rc, $(cat "$tmp/kopt.stderr")"

bisect none "$good" "$c4" -- $W
[ $rc -eq 0 ] && grep -q "nothing to find" "$tmp/none.stdout" && ok ||
    bad "GOOD against a BAD before the slowdown: exit $rc, $(cat "$tmp/none.stdout" "$tmp/none.stderr")"

bisect args "$good" -- $W
[ $rc -eq 2 ] && ok || bad "one revision: exit $rc"
bisect args2 "$good" "$c6"
[ $rc -eq 2 ] && ok || bad "no workload: exit $rc"
bisect args3 "$c6" "$good" -- $W
[ $rc -eq 2 ] && grep -q "no commit after GOOD" "$tmp/args3.stderr" && ok ||
    bad "BAD before GOOD: exit $rc, $(cat "$tmp/args3.stderr")"

finish it-bisect
