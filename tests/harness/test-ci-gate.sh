#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/ci-gate.sh, the script .ci/run and the example CI
# configurations call: no parent commit passes and says so; a base that
# predates the worker passes and says so; the same build passes; a new
# build with more instructions per op fails unless the acceptance file
# names the benchmark, and then its time regression (printed) does not
# block.  The base is this hvbench behind a wrapper (--base-bin) that
# clears the slowdown plugin's work.
# Usage: test-ci-gate.sh SOURCE_DIR HVBENCH SLOWDOWN.so
set -u
src=$1
hv=$2
so=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cat >"$tmp/base" <<EOF
#!/bin/sh
unset HVB_SLOWDOWN_WORK
exec "$hv" "\$@"
EOF
chmod +x "$tmp/base"
echo "lookup --plugin domlookup=$so" >"$tmp/suite"
echo "lookup/domlookup=slowdown/threads:1  the test's accepted regression" \
    >"$tmp/accept"
export HVB_GATE_OPTS="--pairs 3 --rounds 4 --sample-time 0.005"

# expect WHAT RC PATTERN CMD...: CMD exits RC and its output matches
# PATTERN.
expect() {
    what=$1 want=$2 pat=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$want" ] || ! cat "$tmp/out" "$tmp/err" | grep -q -- "$pat"; then
        echo "FAIL: $what: exit $rc (want $want, summary matching '$pat'):"
        cat "$tmp/out" "$tmp/err"
        fail=1
    else
        echo "ok: $what: exit $rc"
    fi
}

# A repository of one commit: no parent to gate against.
mkdir -p "$tmp/repo/scripts"
cp "$src/scripts/ci-gate.sh" "$tmp/repo/scripts/"
cp "$tmp/suite" "$tmp/repo/suite"
git -C "$tmp/repo" init -q &&
    git -C "$tmp/repo" -c user.name=t -c user.email=t@t add -A &&
    git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -qm one ||
    { echo "FAIL: git"; exit 1; }
expect "no parent commit" 0 "No base commit" \
    "$tmp/repo/scripts/ci-gate.sh" --new-bin "$hv" --suite suite

ci=$src/scripts/ci-gate.sh
expect "base predates the worker" 0 "predates" \
    "$ci" --new-bin "$hv" --base-bin /bin/true --suite "$tmp/suite"
expect "same build" 0 "sim_instructions: pass" \
    "$ci" --new-bin "$hv" --base-bin "$tmp/base" --suite "$tmp/suite" \
    --markdown "$tmp/md"
grep -q "hvbench gate: ✅ pass" "$tmp/md" ||
    { echo "FAIL: --markdown"; cat "$tmp/md"; fail=1; }
# A slower new build (200 work units on every 10th lookup), in time and in instructions.
HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY=10 expect \
    "slower new build, not accepted" 1 "regression not accepted" \
    "$ci" --new-bin "$hv" --base-bin "$tmp/base" --suite "$tmp/suite" \
    --accept /dev/null
HVB_SLOWDOWN_WORK=200 HVB_SLOWDOWN_EVERY=10 expect \
    "slower new build, accepted (time does not block)" 0 \
    "regression accepted" \
    "$ci" --new-bin "$hv" --base-bin "$tmp/base" --suite "$tmp/suite" \
    --accept "$tmp/accept"
grep -q "time: exit 1 (time verdicts are printed" "$tmp/out" ||
    { echo "FAIL: the time regression is not in the summary"; fail=1; }
expect "bad option" 2 "unknown option '--bogus'" "$ci" --bogus x
exit $fail
