#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The CTest fixture "scratch-repo" (tests/review/CMakeLists.txt): the
# scratch repository of this tree that the review and bisect tests
# (and the history backfill inside it-bisect.sh) work on, and its builds,
# made once per ctest run instead of once per test:
#
#   DIR/repo      this tree's tracked and untracked (not ignored) files
#                 committed as GOOD, then 6 commits: the 3rd does not
#                 build, the 4th mends it, the 5th makes rcu_ref_lock
#                 spin (slow_rcu_ref), the 6th makes lock-hold's holder
#                 hold twice as long (slow_lock_hold: a wait, lookup
#                 untouched), the others add a line to NOTES.txt
#   DIR/cache     the build cache, GOOD, the 4th, 5th and 6th built in it
#                 (one cold build, the others from its ccache); the 1st to
#                 3rd are left to the tests that are about building them
#                 (bisect meets the 3rd's failure, backfill --fleet slurm
#                 builds the 1st and 2nd on the cluster)
#   DIR/commits   good=SHA c1=SHA ... c6=SHA, for ". DIR/commits"
#
# The tests read DIR/repo and never change it (one that commits or edits
# the work tree clones it first: git clone --shared, same commits); they
# add entries to DIR/cache (each key names its commit, so two tests never
# build one entry, and one being built is locked), never remove or plant
# one: a test of broken or hostile cache entries has a cache of its own
# (it-build-cache.sh).
#
#   fixture-scratch.sh setup HVBENCH SOURCE_DIR DIR   (FIXTURES_SETUP)
#   fixture-scratch.sh cleanup DIR                    (FIXTURES_CLEANUP;
#                                 HVB_TEST_KEEP=1 keeps DIR for a look)
set -u
here=$(cd "$(dirname "$0")" && pwd)
what=${1:-}

if [ "$what" = cleanup ] && [ $# -eq 2 ]; then
    if [ -n "${HVB_TEST_KEEP:-}" ]; then
        echo "kept $2"
    else
        rm -rf "$2"
    fi
    exit 0
fi
if [ "$what" != setup ] || [ $# -ne 4 ]; then
    echo "usage: $0 setup HVBENCH SOURCE_DIR DIR | cleanup DIR" >&2
    exit 2
fi
# Without valgrind its tests skip (77) before they look for it; a
# skipped set-up would fail them instead.
command -v valgrind >/dev/null || { echo "no valgrind: nothing made"; exit 0; }
hvb=$(realpath "$2")
src=$(realpath "$3")
dir=$4
repo=$dir/repo cache=$dir/cache
# shellcheck source=tests/review/lib-scratch-repo.sh
. "$here/lib-scratch-repo.sh"

# What an interrupted run left is not trusted: made afresh.
rm -rf "$dir" && mkdir -p "$dir" || exit 1
t0=$(date +%s)
scratch_repo "$src" "$repo" || { echo "FAIL: the scratch repository"; exit 1; }
good=$(git_ rev-parse HEAD)
echo "good=$good" >"$dir/commits.tmp"
n=1
while [ $n -le 6 ]; do
    case $n in
    3) printf '#error this revision does not build\n' >>"$repo/hv/domain.c" ;;
    4) sed -i '$d' "$repo/hv/domain.c" ;;
    5) slow_rcu_ref "$repo" || { echo "FAIL: the slowdown did not apply"; exit 1; } ;;
    6) slow_lock_hold "$repo" || { echo "FAIL: the hold did not apply"; exit 1; } ;;
    *) echo "$n" >>"$repo/NOTES.txt"
       git_ add NOTES.txt ;;
    esac
    git_ commit -q -a -m "commit $n" || exit 1
    echo "c$n=$(git_ rev-parse HEAD)" >>"$dir/commits.tmp"
    n=$((n + 1))
done
# shellcheck source=/dev/null
. "$dir/commits.tmp" # good, c1 ... c6

# The builds, each by a review of two of them (the cheapest that builds:
# a few time pairs, nothing explained); each must say "built".
# shellcheck disable=SC2154 # c4 ... c6: from commits.tmp
for pair in "$good $c4" "$c5 $c6"; do
    # shellcheck disable=SC2086
    set -- $pair
    (cd "$repo" && "$hvb" review "$1" "$2" --cache "$cache" \
        --out "$dir/review" --metric time --pairs 2 --max-pairs 2 \
        --rounds 3 --sample-time 0.005 --explain none \
        -- lookup --plugin domlookup=rcu-ref --threads 1 \
        >"$dir/review.out" 2>"$dir/review.err")
    rc=$?
    if [ $rc -eq 2 ] || [ "$(grep -c "review: [a-z]* built in $cache/" "$dir/review.err")" -ne 2 ]; then
        echo "FAIL: building ${1%"${1#????????????}"} and ${2%"${2#????????????}"}: exit $rc"
        cat "$dir/review.err"
        for log in "$cache"/*/build.log; do
            echo "--- $log"
            tail -20 "$log"
        done
        exit 1
    fi
    grep "review: [a-z]* built in" "$dir/review.err"
done
rm -rf "$dir/review" "$dir/review.out" "$dir/review.err"
mv "$dir/commits.tmp" "$dir/commits"
echo "scratch repository and 4 builds in $dir: $(($(date +%s) - t0)) s"
