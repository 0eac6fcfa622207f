#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The project's own regression gate, and the script the example CI
# configurations (examples/ci/) call: a thin caller of `hvbench review`
# (docs/review.md), which builds the base commit in its build cache with
# this build's CMake options and gates every line of the suite on the
# two builds paired.  The blocking metrics decide (review --block;
# default sim_instructions and sim_cycles under callgrind, exact on a
# shared runner; time is measured and reported, too noisy there to
# block on).  A blocking regression fails (exit 1) unless the acceptance
# file names its benchmark:
#
#   # BENCHMARK  REASON
#   lookup/domlookup=rcu-ref/threads:1  refcount now checked twice (#12)
#
# Where there is no base (no parent commit), it says so and passes; a
# base older than the two-build worker is paired by whole run processes
# (review says so).  The review's directory is kept (--out): review.md,
# the comment, is printed and, with --markdown, written; review.txt (a
# mail reply), junit.xml (a test report), index.html and the flame
# graphs are there for the CI to keep as artifacts.
#
# Usage: scripts/ci-gate.sh [--new-bin FILE] [--base REV | --base-bin FILE]
#            [--suite FILE] [--metric M,...] [--block M,...] [--accept FILE]
#            [--out DIR] [--markdown FILE]
#   --new-bin   gate this hvbench as the new build (default: review
#               builds HEAD in its cache beside the base, so both are
#               built alike, at source paths of one length; build/hvbench
#               only runs review)
#   --base      the commit to gate against (default HEAD^)
#   --base-bin  an hvbench already built from the base (no build)
#   --suite     one gate per line, WORKLOAD [run options] (default
#               .ci/gate-suite)
#   --metric    what each line is gated in (default: review's, time,
#               sim_instructions and sim_cycles)
#   --block     the metrics that decide (default: review's)
#   --accept    accepted regressions (default .ci/accepted-regressions)
#   --out       the review's directory, kept (default build/ci-review)
#   --markdown  also write the summary to FILE (a PR comment)
# Environment: HVB_GATE_OPTS, more review options for the gates (e.g.
# "--pairs 6"); JOBS, build parallelism (default nproc); HVBENCH_CACHE,
# the build cache.
set -u
cd "$(dirname "$0")/.." || exit 2
new=build/hvbench new_given="" base_rev=HEAD^ base_bin="" suite=.ci/gate-suite
accept=.ci/accepted-regressions md_out="" out=build/ci-review metric="" block=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "ci-gate: $1 needs a value" >&2; exit 2; }
    case $1 in
    --new-bin) new=$2 new_given=1 ;;
    --base) base_rev=$2 ;;
    --base-bin) base_bin=$2 ;;
    --suite) suite=$2 ;;
    --metric) metric=$2 ;;
    --block) block=$2 ;;
    --accept) accept=$2 ;;
    --out) out=$2 ;;
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
mkdir -p "$out" || exit 2
md=$out/ci-summary.md

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
rm -f "$out/review.json"
set -- "$base_rev" HEAD --suite "$suite" --out "$out" --explain changed
[ -n "$metric" ] && set -- "$@" --metric "$metric"
[ -n "$block" ] && set -- "$@" --block "$block"
[ -n "$new_given" ] && set -- "$@" --head-bin "$new"
[ -n "$base_bin" ] && set -- "$@" --base-bin "$base_bin"
[ -n "${JOBS:-}" ] && set -- "$@" --jobs "$JOBS"
# shellcheck disable=SC2086
"$new" review "$@" ${HVB_GATE_OPTS:-} </dev/null >"$out/review.stdout" 2>"$out/review.stderr"
rc=$?
cat "$out/review.stderr" "$out/review.stdout" >&2
json=$out/review.json
if [ $rc -eq 2 ] || [ ! -s "$json" ]; then
    tail -5 "$out/review.stderr" >&2
    exit 2
fi

cp "$out/review.md" "$md"
# On GitHub Actions, each moved cell's costliest function annotated at
# its source lines in the pull request's diff (review writes them).
if [ "${GITHUB_ACTIONS:-}" = true ] && [ -f "$out/github-annotations.txt" ]; then
    cat "$out/github-annotations.txt"
fi
# Every regression in a blocking metric must be accepted by name.
status=0
regressed=$(jq -r '.review.blocking as $b | .cells[] |
    select([.verdicts[$b[]]?.verdict] | index("regressed")) | .name' "$json")
unknown=$(jq -r '.review.blocking as $b | [.cells[] |
    select([.verdicts[$b[]]?.verdict] | index("unknown"))] | length' "$json")
blocking=$(jq -r '.review.blocking | join(", ")' "$json")
bad=$(printf '%s\n' "$regressed" | while read -r b; do
    [ -n "$b" ] || continue
    grep -q "^${b}[[:space:]]" "$accept" 2>/dev/null || echo "$b"
done)
{
    printf '\n---\n\n'
    if [ -n "$bad" ]; then
        printf -- '- %s: ❌ regression not accepted in %s: %s\n' "$blocking" \
            "$accept" "$(printf '%s\n' "$bad" | tr '\n' ' ')"
        status=1
    elif [ -n "$regressed" ]; then
        printf -- '- %s: regression accepted in %s\n' "$blocking" "$accept"
    elif [ "$unknown" -gt 0 ]; then
        printf -- '- %s: %s cell(s) not decided (see review.md)\n' "$blocking" "$unknown"
        status=3
    else
        printf -- '- %s: pass\n' "$blocking"
    fi
    if [ $status -eq 0 ]; then
        printf '\n**hvbench CI gate: ✅ pass**\n'
    else
        printf '\n**hvbench CI gate: ❌ fail (exit %d)**\n' "$status"
    fi
} >>"$md"
finish $status
