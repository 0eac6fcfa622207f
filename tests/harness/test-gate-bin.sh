#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The paired two-build gate (hvbench gate --base-bin): A/A with the same
# binary passes; a real slowdown of the new build (the tests-only
# slowdown plugin doing extra work, switched on by an environment
# variable the base build's wrapper clears) is exit 1; builds configured
# differently (a wrapper that rewrites the base worker's build block),
# a missing base binary and one that is not a worker are exit 2; and
# the same under callgrind (--metric sim_instructions).
# Usage: test-gate-bin.sh HVBENCH SLOWDOWN.so [quick]
set -u
hv=$1
so=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
suite="lookup --plugin domlookup=$so"
small="--pairs 12 --rounds 8 --sample-time 0.005"

# The base build: this hvbench without the slowdown's work.
cat >"$tmp/base" <<EOF
#!/bin/sh
unset HVB_SLOWDOWN_WORK
exec "$hv" "\$@"
EOF
# A base build configured differently: its hello says -O0.
cat >"$tmp/o0" <<EOF
#!/bin/sh
"$hv" "\$@" | sed -u 's/"cflags":"/"cflags":"-O0 /'
EOF
chmod +x "$tmp/base" "$tmp/o0"

# expect WHAT RC [PATTERN] -- gate args...: the gate's exit status is RC
# and its output matches PATTERN.
expect() {
    what=$1 want=$2 pat=$3
    shift 4
    "$hv" gate "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -q -- "$pat" "$tmp/out"; then
        echo "FAIL: $what: exit $rc (want $want, output matching '$pat'):"
        cat "$tmp/out"
        fail=1
    else
        echo "ok: $what: exit $rc: $(grep -E '^gate:|hvbench:' "$tmp/out" | head -1)"
    fi
}

# shellcheck disable=SC2086
expect "A/A, same binary, 10%" 0 "gate: pass" -- --base-bin "$tmp/base" \
    --max-regression 10% --markdown "$tmp/aa.md" $small -- $suite
grep -q "## hvbench gate: ✅ pass" "$tmp/aa.md" ||
    { echo "FAIL: A/A markdown"; cat "$tmp/aa.md"; fail=1; }
# A slower new build: 200 work units on every 10th lookup.
# shellcheck disable=SC2086
HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY=10 expect "new build, 200 units every 10th lookup" 1 \
    "gate: FAIL: regression" -- --base-bin "$tmp/base" \
    --max-regression 10% $small -- $suite
# shellcheck disable=SC2086
expect "builds configured differently" 2 "build.cflags is '-O0" -- \
    --base-bin "$tmp/o0" $small -- $suite
expect "no such base binary" 2 "no-such-hvbench" -- \
    --base-bin "$tmp/no-such-hvbench" -- $suite
expect "base binary not a worker" 2 "does not speak the worker protocol" -- \
    --base-bin /bin/true -- $suite
expect "run options refused" 2 "refused the run options" -- \
    --base-bin "$tmp/base" -- lookup --processes 2
expect "no workload" 2 "needs '-- WORKLOAD" -- --base-bin "$tmp/base"
expect "unknown gate option" 2 "unknown option" -- --base-bin "$tmp/base" \
    --bogus -- $suite

if [ "${3:-}" != quick ] && command -v valgrind >/dev/null; then
    expect "sim_instructions A/A" 0 "gate: pass" -- --base-bin "$tmp/base" \
        --metric sim_instructions -- $suite
    # One work unit on every lookup: a few instructions more (> 0.5%).
    HVB_SLOWDOWN_WORK=1 expect "sim_instructions new build slower" 1 \
        "gate: FAIL: regression" -- --base-bin "$tmp/base" \
        --metric sim_instructions -- $suite
fi
exit $fail
