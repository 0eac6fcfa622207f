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
#     each against GOOD, the ratio above 1 from the 5th on;
#   - GOOD against a BAD before the slowdown (the 4th): "nothing to
#     find", exit 0;
#   - bad arguments are exit 2.
# About 5 builds of 30-40 s on 2 vCPUs.  Usage: test-bisect.sh HVBENCH SRC
set -u
hvb=$(realpath "$1")
src=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
[ -n "${HVB_TEST_KEEP:-}" ] && trap 'echo "kept $tmp"' EXIT
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
repo=$tmp/repo cache=$tmp/cache
git_() { git -C "$repo" -c user.name=t -c user.email=t@example.org "$@"; }

mkdir "$repo"
(cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - ) |
    tar -xf - -C "$repo" 2>/dev/null
git_ init -q && git_ add -A && git_ commit -q -m good || exit 1
good=$(git_ rev-parse HEAD)
n=1
while [ $n -le 6 ]; do
    case $n in
    3) printf '#error this revision does not build\n' >>"$repo/hv/domain.c" ;;
    4) sed -i '$d' "$repo/hv/domain.c" ;;
    5) sed -i 's/^    hv_rcu_read_lock(cpu);$/    hv_rcu_read_lock(cpu);\n    {\n        volatile unsigned int spin = 0;\n\n        while ( spin < 64 )\n            spin++;\n    }/' \
           "$repo/plugins/domlookup/rcu-ref.c"
       grep -q "spin < 64" "$repo/plugins/domlookup/rcu-ref.c" || { echo "FAIL: no slowdown"; exit 1; } ;;
    *) echo "$n" >>"$repo/NOTES.txt"
       git_ add NOTES.txt ;;
    esac
    git_ commit -q -a -m "commit $n" || exit 1
    eval "c$n=\$(git_ rev-parse HEAD)"
    n=$((n + 1))
done
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

finish test-bisect
