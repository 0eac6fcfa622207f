#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The project's own regression gate, and the script the example CI
# configurations (examples/ci/) call: a thin caller of `hvbench review`
# (docs/review.md), which builds the base commit in its build cache with
# this build's CMake options and gates every line of the suite on the
# two builds paired, in time (printed, never blocking: a shared runner's
# time is too noisy to block on) and in sim_instructions under callgrind
# (blocking).  A sim_instructions regression fails (exit 1) unless the
# acceptance file names its benchmark:
#
#   # BENCHMARK  REASON
#   lookup/domlookup=rcu-ref/threads:1  refcount now checked twice (#12)
#
# Where there is no base (no parent commit), it says so and passes; a
# base older than the two-build worker is paired by whole run processes
# (review says so).  The
# summary (review's review.md, then the gate's verdict line) is printed
# and, with --markdown, written.
#
# Usage: scripts/ci-gate.sh [--new-bin FILE] [--base REV | --base-bin FILE]
#            [--suite FILE] [--accept FILE] [--markdown FILE]
#   --new-bin   gate this hvbench as the new build (default: review
#               builds HEAD in its cache beside the base, so both are
#               built alike, at source paths of one length; build/hvbench
#               only runs review)
#   --base      the commit to gate against (default HEAD^)
#   --base-bin  an hvbench already built from the base (no build)
#   --suite     one gate per line, WORKLOAD [run options] (default
#               .ci/gate-suite)
#   --accept    accepted sim_instructions regressions (default
#               .ci/accepted-regressions)
#   --markdown  also write the summary to FILE (a PR comment)
# Environment: HVB_GATE_OPTS, more review options for the gates (e.g.
# "--pairs 6"); JOBS, build parallelism (default nproc); HVBENCH_CACHE,
# the build cache.
set -u
cd "$(dirname "$0")/.." || exit 2
new=build/hvbench new_given="" base_rev=HEAD^ base_bin="" suite=.ci/gate-suite
accept=.ci/accepted-regressions md_out=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "ci-gate: $1 needs a value" >&2; exit 2; }
    case $1 in
    --new-bin) new=$2 new_given=1 ;;
    --base) base_rev=$2 ;;
    --base-bin) base_bin=$2 ;;
    --suite) suite=$2 ;;
    --accept) accept=$2 ;;
    --markdown) md_out=$2 ;;
    *)
        echo "ci-gate: unknown option '$1' (see the head of $0)" >&2
        exit 2
        ;;
    esac
    shift 2
done
for f in "$new" "$suite"; do
    [ -e "$f" ] || { echo "ci-gate: $f: no such file" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
md=$tmp/summary.md

finish() { # finish STATUS: print (and write) the summary, exit STATUS
    cat "$md"
    [ -n "$md_out" ] && cp "$md" "$md_out"
    exit "$1"
}

if ! git rev-parse --verify -q "$base_rev^{commit}" >/dev/null; then
    if [ -z "$base_bin" ]; then
        printf '## hvbench CI gate\n\nNo base commit (%s): nothing to gate against; pass.\n' \
            "$base_rev" >"$md"
        finish 0
    fi
    base_rev=HEAD # only names the given base binary
fi
set -- "$base_rev" HEAD --suite "$suite" \
    --metric time,sim_instructions --out "$tmp/review" --explain changed
[ -n "$new_given" ] && set -- "$@" --head-bin "$new"
[ -n "$base_bin" ] && set -- "$@" --base-bin "$base_bin"
[ -n "${JOBS:-}" ] && set -- "$@" --jobs "$JOBS"
# shellcheck disable=SC2086
"$new" review "$@" ${HVB_GATE_OPTS:-} </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/err" "$tmp/out" >&2
json=$tmp/review/review.json
[ $rc -ne 2 ] && [ -s "$json" ] || { tail -5 "$tmp/err" >&2; exit 2; }

cp "$tmp/review/review.md" "$md"
# Every sim_instructions regression must be accepted by name.
status=0
bad=$(jq -r '.cells[] | select(.verdicts.sim_instructions.verdict == "regressed") | .name' "$json" |
    while read -r b; do
        grep -q "^$b[[:space:]]" "$accept" 2>/dev/null || echo "$b"
    done)
regressed=$(jq -r '[.cells[] | select(.verdicts.sim_instructions.verdict == "regressed")] | length' "$json")
unknown=$(jq -r '[.cells[] | select(.verdicts.sim_instructions.verdict == "unknown")] | length' "$json")
time_v=$(jq -r '[.cells[].verdicts.time.verdict // empty] | unique | join(", ")' "$json")
{
    printf '\n---\n\n'
    printf -- '- time: %s (time verdicts are printed, not blocking)\n' "${time_v:-none}"
    if [ -n "$bad" ]; then
        printf -- '- sim_instructions: ❌ regression not accepted in %s: %s\n' \
            "$accept" "$(echo $bad)"
        status=1
    elif [ "$regressed" -gt 0 ]; then
        printf -- '- sim_instructions: regression accepted in %s\n' "$accept"
    elif [ "$unknown" -gt 0 ]; then
        printf -- '- sim_instructions: %s cell(s) not judged (see the log)\n' "$unknown"
        status=3
    else
        printf -- '- sim_instructions: pass\n'
    fi
    if [ $status -eq 0 ]; then
        printf '\n**hvbench CI gate: ✅ pass**\n'
    else
        printf '\n**hvbench CI gate: ❌ fail (exit %d)**\n' "$status"
    fi
} >>"$md"
finish $status
