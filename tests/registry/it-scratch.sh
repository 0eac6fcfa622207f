#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A new plugin or workload is one file: shown in a scratch copy of the
# tree.  Three files are added and nothing else is edited:
#
#   plugins/domlookup/scratch-ref.c     rcu-ref under a new name
#   plugins/domlookup/scratch-unsafe.c  the negative control rcu-broken
#                                       (frees with no grace period) as a
#                                       built-in flagged HV_PF_NO_CHURN
#   workloads/micro/scratch-read.c      xs-read under a new name
#
# then the copy is configured and only the binaries these tests need are
# built, and it checks that
#   build         they compile into hvbench and the test binaries;
#   list          `hvbench list --json` shows the three;
#   smoke         smoke-scratch-read exists and passes, and smoke-lookup
#                 runs both new plugins;
#   conformance   conformance-domlookup runs scratch-ref and skips
#                 scratch-unsafe's churn tests by its flag; unit-plugin
#                 (sources == registry) passes;
#   torture       torture-, asan-torture-, tsan-torture-scratch-ref exist,
#                 torture-scratch-ref passes, and scratch-unsafe has none;
# and two negative controls, each one edit of a new file: without its
# HV_PF_NO_CHURN, torture-scratch-unsafe appears and FAILS (the torture
# catches the early free); without its .smoke, smoke-scratch-read FAILS
# naming the missing field.
#
# About 30 s on 2 vCPUs: configure, 4 binaries of the copy, 3 rebuilds.
#
#   it-scratch.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hvb-scratch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/src
b=$tmp/build
log=$tmp/log
targets="hvbench torture-domlookup conformance-domlookup unit-plugin"

fail() {
    echo "FAIL: $*"
    [ -s "$log" ] && tail -n 30 "$log"
    exit 1
}
step() { echo "== $*"; }

# The tree as it is (tracked and untracked files git does not ignore),
# without any build directory.
step "copy $src"
mkdir -p "$tree"
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z -co --exclude-standard |
        tar -cf - --null --no-recursion --ignore-failed-read -T - \
            2>/dev/null) | tar -xf - -C "$tree"
else
    (cd "$src" && tar -cf - --exclude='./build*' .) | tar -xf - -C "$tree"
fi

# new_file FROM TO SED: TO is FROM renamed by SED; it must differ.
new_file() {
    sed "$3" "$tree/$1" >"$tree/$2"
    ! cmp -s "$tree/$1" "$tree/$2" || fail "renaming $1 changed nothing"
}
new_file plugins/domlookup/rcu-ref.c plugins/domlookup/scratch-ref.c \
    's/\brcu_ref_/scratch_ref_/g; s/"rcu-ref"/"scratch-ref"/'
cp "$tree/tests/plugins/rcu-broken.c" "$tree/rcu-broken.c"
new_file rcu-broken.c plugins/domlookup/scratch-unsafe.c \
    's/\brcu_broken_/scratch_unsafe_/g; s/"rcu-broken"/"scratch-unsafe"/;
     s/\.flags = HV_PF_TEST_ONLY,/.flags = HV_PF_NO_CHURN,/'
rm "$tree/rcu-broken.c"
new_file workloads/micro/xs-read.c workloads/micro/scratch-read.c \
    's/\bxs_read_/scratch_read_/g; s/"xs-read"/"scratch-read"/'
grep -q 'flags = HV_PF_NO_CHURN,' "$tree/plugins/domlookup/scratch-unsafe.c" ||
    fail "scratch-unsafe.c is not flagged HV_PF_NO_CHURN"

build() {
    cmake --build "$b" -j2 --target $targets >"$log" 2>&1 ||
        fail "build of the scratch copy"
}
step "build (configure, then $targets)"
t0=$(date +%s)
# Tortures of 1 s: these runs show the tests exist and can fail, the
# tree's own ctest soaks the plugins.
cmake -S "$tree" -B "$b" -DCMAKE_BUILD_TYPE=Release -DHVB_WERROR=ON \
    -DHVB_TORTURE_SECONDS=1 \
    >"$log" 2>&1 || fail "configure of the scratch copy"
build
echo "   $(($(date +%s) - t0)) s"

step "list"
"$b/hvbench" list --json >"$tmp/list.json" || fail "hvbench list --json"
/usr/bin/python3 - "$tmp/list.json" <<'EOF' || fail "hvbench list"
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["name"]: x["flags"] for x in d["plugins"] if x["slot"] == "domlookup"}
w = {x["name"]: x for x in d["workloads"]}
assert p.get("scratch-ref") == [], p
assert p.get("scratch-unsafe") == ["no_churn"], p
assert w["scratch-read"]["slots"] == ["quota"], w.get("scratch-read")
assert w["scratch-read"]["smoke"] == w["xs-read"]["smoke"]
EOF

ctest_names() { ctest --test-dir "$b" -N | sed -n 's/^ *Test *#[0-9]*: //p'; }
step "the tests ctest makes from the registry"
ctest_names >"$tmp/names"
for t in smoke-scratch-read torture-scratch-ref asan-torture-scratch-ref \
        tsan-torture-scratch-ref; do
    grep -qx "$t" "$tmp/names" || fail "no test $t"
done
for t in torture-scratch-unsafe asan-torture-scratch-unsafe \
        tsan-torture-scratch-unsafe; do
    grep -qx "$t" "$tmp/names" && fail "$t exists (scratch-unsafe is no_churn)"
done

step "smoke, conformance, torture in the scratch build"
ctest --test-dir "$b" --output-on-failure \
    -R '^(smoke-scratch-read|smoke-lookup|conformance-domlookup|unit-plugin|torture-scratch-ref)$' \
    >"$log" 2>&1 || fail "ctest in the scratch build"
grep -q '100% tests passed, 0 tests failed out of 5' "$log" ||
    fail "not 5 tests run"
ctest --test-dir "$b" -V -R '^(smoke-lookup|conformance-domlookup)$' \
    >"$log" 2>&1 || fail "ctest -V"
for s in 'lookup/domlookup=scratch-ref/' 'lookup/domlookup=scratch-unsafe/' \
        'domlookup/scratch-ref' \
        'scratch-unsafe: HV_PF_NO_CHURN .*skipped'; do
    grep -q "$s" "$log" || fail "'$s' not in the smoke/conformance output"
done

step "negative control: scratch-unsafe without HV_PF_NO_CHURN"
sed -i 's/\.flags = HV_PF_NO_CHURN,//' "$tree/plugins/domlookup/scratch-unsafe.c"
build
ctest_names | grep -qx torture-scratch-unsafe ||
    fail "no torture-scratch-unsafe once the flag is gone"
if ctest --test-dir "$b" -R '^torture-scratch-unsafe$' >"$log" 2>&1; then
    fail "torture-scratch-unsafe passed: the torture cannot fail"
fi
grep -q 'FAILURE\|VIOLATION\|violation' "$b/Testing/Temporary/LastTest.log" ||
    fail "torture-scratch-unsafe failed without naming a violation"

step "negative control: scratch-read without .smoke"
sed -i '/\.smoke = /d' "$tree/workloads/micro/scratch-read.c"
build
if ctest --test-dir "$b" -R '^smoke-scratch-read$' --output-on-failure \
        >"$log" 2>&1; then
    fail "smoke-scratch-read passed with no .smoke"
fi
grep -q 'declares no .smoke' "$log" || fail "smoke did not name .smoke"
echo "scratch: ok ($(($(date +%s) - t0)) s)"
