#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The project's own regression gate, and the script the example CI
# configurations (examples/ci/) call: build the base commit beside this
# one, run the paired two-build gate (hvbench gate --base-bin) on every
# line of the suite file, in time (printed, never blocking) and in
# sim_instructions under callgrind (blocking), and print one markdown
# summary.  A sim_instructions regression fails (exit 1) unless the
# acceptance file names its benchmark:
#
#   # BENCHMARK  REASON
#   lookup/domlookup=rcu-ref/threads:1  refcount now checked twice (#12)
#
# Where there is no base (no parent commit), or the base hvbench has no
# worker (it predates 'gate --base-bin'), it says so and passes.
#
# Usage: scripts/ci-gate.sh [--new-bin FILE] [--base REV | --base-bin FILE]
#            [--suite FILE] [--accept FILE] [--markdown FILE]
#   --new-bin   this build's hvbench (default build/hvbench)
#   --base      the commit to gate against (default HEAD^); it is built
#               in a temporary directory with this build's CMake options
#   --base-bin  an hvbench already built from the base (no build)
#   --suite     one gate per line, WORKLOAD [run options] (default
#               .ci/gate-suite)
#   --accept    accepted sim_instructions regressions (default
#               .ci/accepted-regressions)
#   --markdown  also write the summary to FILE (a PR comment)
# Environment: HVB_GATE_OPTS, more options for every time gate (e.g.
# "--pairs 6"); JOBS, build parallelism (default nproc).
set -u
cd "$(dirname "$0")/.." || exit 2
new=build/hvbench base_rev=HEAD^ base_bin="" suite=.ci/gate-suite
accept=.ci/accepted-regressions md_out=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "ci-gate: $1 needs a value" >&2; exit 2; }
    case $1 in
    --new-bin) new=$2 ;;
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

if [ -z "$base_bin" ]; then
    if ! base_sha=$(git rev-parse --verify -q "$base_rev^{commit}"); then
        printf '## hvbench CI gate\n\nNo base commit (%s): nothing to gate against; pass.\n' \
            "$base_rev" >"$md"
        finish 0
    fi
    cache=$(dirname "$new")/CMakeCache.txt
    opts=""
    for v in CMAKE_BUILD_TYPE HVB_STABLE_LAYOUT HVB_LOCKSTAT; do
        val=$(sed -n "s/^$v:[A-Z]*=//p" "$cache" 2>/dev/null)
        [ -n "$val" ] && opts="$opts -D$v=$val"
    done
    echo "ci-gate: building the base $base_sha ($base_rev) with$opts" >&2
    mkdir -p "$tmp/src"
    # shellcheck disable=SC2086
    if ! git archive "$base_sha" | tar -x -C "$tmp/src" ||
        ! cmake -S "$tmp/src" -B "$tmp/build" -DHVB_ENABLE_TESTING=OFF \
            $opts >"$tmp/build.log" 2>&1 ||
        ! cmake --build "$tmp/build" --target hvbench \
            -j "${JOBS:-$(nproc)}" >>"$tmp/build.log" 2>&1; then
        tail -20 "$tmp/build.log" >&2
        echo "ci-gate: the base $base_sha does not build" >&2
        exit 2
    fi
    base_bin=$tmp/build/hvbench
fi

# The base predates the worker: no paired gate possible.
if ! "$base_bin" gate --base-bin "$base_bin" --help 2>/dev/null |
    grep -q -- '--pairs'; then
    printf '## hvbench CI gate\n\nThe base hvbench (%s) predates `gate --base-bin`: nothing to gate against; pass.\n' \
        "$base_bin" >"$md"
    finish 0
fi

status=0
printf '# hvbench CI gate\n\nBase %s, new %s.\n' \
    "${base_sha:-$base_bin}" "$(git rev-parse -q HEAD 2>/dev/null)" >"$md"
n=0
while read -r line; do
    case $line in '' | '#'*) continue ;; esac
    n=$((n + 1))
    for metric in time sim_instructions; do
        extra=${HVB_GATE_OPTS:-}
        [ "$metric" = sim_instructions ] && extra=""
        # shellcheck disable=SC2086
        "$new" gate --base-bin "$base_bin" --metric "$metric" \
            --markdown "$tmp/g.md" $extra -- $line </dev/null >"$tmp/g.out" 2>&1
        rc=$?
        cat "$tmp/g.out" >&2
        printf '\n---\n\n`%s`, %s: ' "$line" "$metric" >>"$md"
        if [ "$metric" = time ]; then
            echo "exit $rc (time verdicts are printed, not blocking)" >>"$md"
        elif [ "$rc" -eq 1 ]; then
            # Every regressed row must be accepted by name.
            bad=$(awk '/^benchmark/ {on=1; next} /^summary/ {on=0}
                on { for (i = 2; i <= NF; i++) if ($i == "regressed") print $1 }' \
                "$tmp/g.out" | while read -r b; do
                    grep -q "^$b[[:space:]]" "$accept" 2>/dev/null || echo "$b"
                done)
            if [ -n "$bad" ]; then
                echo "❌ regression not accepted in $accept: $(echo $bad)" >>"$md"
                status=1
            else
                echo "regression accepted in $accept" >>"$md"
            fi
        elif [ "$rc" -eq 0 ]; then
            echo "pass" >>"$md"
        else
            echo "exit $rc: not judged (see the log)" >>"$md"
        fi
        [ -s "$tmp/g.md" ] && { echo; sed 's/^## /### /' "$tmp/g.md"; } >>"$md"
        rm -f "$tmp/g.md"
    done
done <"$suite"
[ "$n" -gt 0 ] || { echo "ci-gate: $suite has no gate" >&2; exit 2; }
finish $status
