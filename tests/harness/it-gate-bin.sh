#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The paired two-build gate (hvbench gate --base-bin): A/A with the same
# binary passes; a real slowdown of the new build (the tests-only
# slowdown plugin doing extra work, switched on by an environment
# variable the base build's wrapper clears) is exit 1; builds configured
# differently (a wrapper that rewrites the base worker's build block),
# a missing base binary and one that is not a worker are exit 2; and
# the same under callgrind (--metric sim_instructions), and both sim_
# metrics from one run (--metric sim_instructions,sim_cycles, a --json
# file each by %m).  The two time
# checks may also be an honest "unstable" (exit 3 with the reason, lib.sh
# expect_live: on a machine whose CPUs are busy with other work), never
# the other answer; the two under callgrind are exact.
# Usage: it-gate-bin.sh HVBENCH SLOWDOWN.so [quick]
set -u
hv=$1
so=$2
. "$(dirname "$0")/lib.sh"
suite="lookup --plugin domlookup=$so"
small="--pairs 12 --rounds 8 --sample-time 0.005"

# The base build: this hvbench without the slowdown's work.
base_build "$tmp/base" "$hv"
# A base build configured differently: its hello says -O0.
cat >"$tmp/o0" <<EOF
#!/bin/sh
"$hv" "\$@" | sed -u 's/"cflags":"/"cflags":"-O0 /'
EOF
chmod +x "$tmp/o0"

# shellcheck disable=SC2086
expect_live "A/A, same binary, 10%" 0 "gate: pass" "$hv" gate --base-bin "$tmp/base" \
    --max-regression 10% --markdown "$tmp/aa.md" $small -- $suite
[ "$rc" -eq 0 ] && want="## hvbench gate: ✅ pass" || want="## hvbench gate: "
grep -q "$want" "$tmp/aa.md" || { bad "A/A markdown"; cat "$tmp/aa.md"; }
# A slower new build: 200 work units on every 10th lookup.
# shellcheck disable=SC2086
HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY=10 expect_live "new build, 200 units every 10th lookup" 1 \
    "gate: FAIL: regression" "$hv" gate --base-bin "$tmp/base" \
    --max-regression 10% $small -- $suite
# shellcheck disable=SC2086
expect "builds configured differently" 2 "build.cflags is '-O0" "$hv" gate \
    --base-bin "$tmp/o0" $small -- $suite
expect "no such base binary" 2 "no-such-hvbench" "$hv" gate \
    --base-bin "$tmp/no-such-hvbench" -- $suite
expect "base binary not a worker" 2 "does not speak the worker protocol" "$hv" gate \
    --base-bin /bin/true -- $suite
expect "run options refused" 2 "refused the run options" "$hv" gate \
    --base-bin "$tmp/base" -- lookup --processes 2
expect "no workload" 2 "needs '-- WORKLOAD" "$hv" gate --base-bin "$tmp/base"
expect "unknown gate option" 2 "unknown option" "$hv" gate --base-bin "$tmp/base" \
    --bogus -- $suite

if [ "${3:-}" != quick ] && command -v valgrind >/dev/null; then
    expect "sim_instructions A/A" 0 "gate: pass" "$hv" gate --base-bin "$tmp/base" \
        --metric sim_instructions -- $suite
    # One work unit on every lookup: a few instructions more (> 0.5%).
    HVB_SLOWDOWN_WORK=1 expect "sim_instructions new build slower" 1 \
        "gate: FAIL: regression" "$hv" gate --base-bin "$tmp/base" \
        --metric sim_instructions -- $suite
    # Both sim_ metrics from one callgrind run: a file each, each its own
    # metric and verdict, one work unit more per lookup regressing both.
    HVB_SLOWDOWN_WORK=1 expect "sim_instructions,sim_cycles in one run" 1 \
        "gate: FAIL: regression" "$hv" gate --base-bin "$tmp/base" \
        --metric sim_instructions,sim_cycles --json "$tmp/sim-%m.json" -- $suite
    for m in sim_instructions sim_cycles; do
        [ "$(jq -r '[.gate.metric, .cells[0].verdict] | join(" ")' "$tmp/sim-$m.json" 2>&1)" = \
            "$m regressed" ] || bad "--metric sim_instructions,sim_cycles: $m's file: $(head -c 300 "$tmp/sim-$m.json")"
    done
    expect "several metrics, one not sim_" 2 "gate 'time' on its own" "$hv" gate \
        --base-bin "$tmp/base" --metric sim_instructions,time -- $suite
    expect "several metrics, one --json" 2 "put %m in it" "$hv" gate \
        --base-bin "$tmp/base" --metric sim_instructions,sim_cycles --json "$tmp/x.json" -- $suite
fi
exit $fail
