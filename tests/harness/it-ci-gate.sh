#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/ci-gate.sh, the script .ci/run and the example CI
# configurations call (a thin caller of hvbench review): no parent
# commit passes and says so; a base that is no hvbench is exit 2 (one
# older than the worker is paired by runs: it-gate-runs.sh); the same
# build passes; a new
# build with more instructions per op fails unless the acceptance file
# names the benchmark, and then its time regression (printed) does not
# block.  The base is this hvbench behind a wrapper (--base-bin) that
# clears the slowdown plugin's work.
# Usage: it-ci-gate.sh SOURCE_DIR HVBENCH SLOWDOWN.so
set -u
src=$1
hv=$2
so=$3
. "$(dirname "$0")/lib.sh"
base_build "$tmp/base" "$hv"
echo "lookup --plugin domlookup=$so" >"$tmp/suite"
echo "lookup/domlookup=slowdown/threads:1  the test's accepted regression" \
    >"$tmp/accept"
# Small gates; the regressed cells explained by one short profile and
# lock round per build (the explanations' content is review's test:
# 4 and 2 rounds of 0.25 s took 11 of each regressed review's 16 s).
export HVB_GATE_OPTS="--pairs 3 --rounds 4 --sample-time 0.005 --flame-rounds 1 --lock-rounds 1 --flame-time 0.05"

# A repository of one commit: no parent to gate against.
mkdir -p "$tmp/repo/scripts"
cp "$src/scripts/ci-gate.sh" "$tmp/repo/scripts/"
cp "$tmp/suite" "$tmp/repo/suite"
git -C "$tmp/repo" init -q &&
    git -C "$tmp/repo" -c user.name=t -c user.email=t@t add -A &&
    git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -qm one ||
    { bad "git"; exit 1; }
expect "no parent commit" 0 "No base commit" \
    "$tmp/repo/scripts/ci-gate.sh" --new-bin "$hv" --suite suite

ci=$src/scripts/ci-gate.sh
expect "a base that is no hvbench" 2 "is not an hvbench build" \
    "$ci" --new-bin "$hv" --base-bin /bin/true --suite "$tmp/suite"
# The same build, review's default metrics: sim_instructions and
# sim_cycles block; the review's directory is kept (--out).
expect "same build" 0 "sim_instructions, sim_cycles: pass" \
    "$ci" --new-bin "$hv" --base-bin "$tmp/base" --suite "$tmp/suite" \
    --markdown "$tmp/md" --out "$tmp/kept"
grep -q "hvbench CI gate: ✅ pass" "$tmp/md" ||
    { bad "--markdown"; cat "$tmp/md"; }
for f in review.json review.md review.txt junit.xml index.html; do
    [ -s "$tmp/kept/$f" ] || bad "--out: no $f kept"
done
# A slower new build (200 work units on every 10th lookup), in time and in instructions.
HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY=10 GITHUB_ACTIONS=true expect \
    "slower new build, not accepted" 1 "regression not accepted" \
    "$ci" --new-bin "$hv" --base-bin "$tmp/base" --suite "$tmp/suite" \
    --accept /dev/null --metric time,sim_instructions --out "$tmp/slow"
# The annotations review wrote are GitHub's to read (their content is
# the view's test: this base is a wrapper script, which callgrind's
# function rows do not follow).
[ -f "$tmp/slow/github-annotations.txt" ] || bad "no github-annotations.txt"
grep -q '<failure type="regressed"' "$tmp/slow/junit.xml" ||
    bad "junit.xml does not fail the slower build"
HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY=10 expect \
    "slower new build, accepted (time does not block)" 0 \
    "regression accepted" \
    "$ci" --new-bin "$hv" --base-bin "$tmp/base" --suite "$tmp/suite" \
    --accept "$tmp/accept" --metric time,sim_instructions
# Time is reported, not blocking: regressed, or on a loaded machine an
# honest unknown (3 pairs x 4 rounds); the block is instructions'.
grep -q '`sim_instructions` decides the exit status; `time` is reported' "$tmp/out" &&
    grep -Eq '\| \*\*(regressed|unknown)\*\* [0-9.]+ → [0-9.]+ ' "$tmp/out" ||
    bad "the time verdict is not in the summary"
expect "bad option" 2 "unknown option '--bogus'" "$ci" --bogus x
exit $fail
