#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The bisection benchmark of issue 22: a scratch copy of this tree, GOOD
# then N commits (default 64), the SLOW-th (default 40) making
# rcu_ref_lock spin (as tests/review/it-bisect.sh's 5th), every other
# one changing a comment in hv/domain.c; bisected sequentially, then
# with --fleet slurm -k K (default 3) on a single-node Slurm
# (scripts/slurm-local.sh, as root; stopped at exit).  Each bisect has
# its own, cold build cache, so its builds are counted: for each, the
# commit found, rounds, reviews, builds and wall time on one line.
#
# Usage: scripts/bisect-bench.sh HVBENCH OUT [N] [SLOW] [K]
#   e.g. flock -x /tmp/hvb-cpu.lock scripts/bisect-bench.sh build/hvbench /tmp/bb
set -u
hvb=$(realpath "$1")
out=$(mkdir -p "$2" && cd "$2" && pwd)
n=${3:-64}
slow=${4:-40}
k=${5:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
repo=$out/repo
W="lookup --plugin domlookup=rcu-ref --threads 1"
. "$src/tests/review/lib-scratch-repo.sh"
trap '"$src/scripts/slurm-local.sh" stop "$out/slurm" >/dev/null 2>&1' EXIT

rm -rf "$repo" "$out"/cache-* "$out"/seq "$out"/fleet
scratch_repo "$src" "$repo" || exit 1
good=$(git_ rev-parse HEAD)
i=1
while [ "$i" -le "$n" ]; do
    if [ "$i" -eq "$slow" ]; then
        slow_rcu_ref "$repo" || exit 1
    else
        printf '/* bisect-bench: commit %d */\n' "$i" >>"$repo/hv/domain.c"
    fi
    git_ commit -q -a -m "commit $i" || exit 1
    i=$((i + 1))
done
want=$(git_ rev-parse HEAD~$((n - slow)))

# run NAME ARGS...: one bisect with a cold cache; its line.
run() {
    name=$1
    shift
    t0=$(date +%s)
    (cd "$repo" && "$hvb" bisect "$good" HEAD --cache "$out/cache-$name" \
        --out "$out/$name" "$@" -- $W >"$out/$name.stdout" 2>"$out/$name.stderr")
    rc=$?
    t=$(($(date +%s) - t0))
    j=$out/$name/bisect.json
    found=$(jq -r .found "$j")
    [ "$found" = "$want" ] && verdict=right || verdict="WRONG (want $want)"
    builds=$(ls "$out/cache-$name"/*/ok "$out/cache-$name"/*/failed 2>/dev/null | wc -l)
    bs=$(cat "$out/cache-$name"/*/ok 2>/dev/null | jq -s 'map(.build_s) | add | floor')
    printf '%-6s exit %d, found %.12s (%s), %d rounds, %d reviews, %d builds (%s s building), %d s\n' \
        "$name" "$rc" "$found" "$verdict" "$(jq '.rounds | length' "$j")" \
        "$(jq '.steps | length' "$j")" "$builds" "$bs" "$t"
}

echo "$n commits after ${good%"${good#????????????}"}, the ${slow}th slows rcu_ref_lock; $(nproc) vCPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
run seq
"$src/scripts/slurm-local.sh" start "$out/slurm" >/dev/null || exit 1
export SLURM_CONF=$out/slurm/slurm.conf
run fleet --fleet slurm -k "$k"
