#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kill -9 at random points during "hvbench run --out" never leaves a torn
# results file (it is absent, or a complete document of the rounds done
# so far), and --resume completes it, keeping the finished rounds and
# running only the missing ones; the rounds keep their counters
# (allocs_per_op of the counting pass included).
# Usage: it-resume.sh HVBENCH [KILLS]
set -u
hvbench=$1
kills=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=1; echo "FAIL: $*"; }

check() { # check FILE -> prints rounds_done, or "torn"
    /usr/bin/python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    r = d["hvbench"]["run"]
    cells = d["hvbench"]["cells"]
    assert all(len(c["samples_ns_per_op"]) == r["rounds_done"] for c in cells)
    # The counting pass's figures travel with the rounds, zeros included.
    for c in cells:
        if r["rounds_done"]:
            s = c["counters"]["allocs_per_op"]["samples"]
            assert len(s) == r["rounds_done"] and set(s) == {0}, s
    assert r["complete"] == (r["rounds_done"] == r["repetitions"])
    print(r["rounds_done"])
except Exception as e:
    print("torn", e)
PY
}

args="lookup --plugin domlookup=rwlock-ref,rcu-noref --min-time 0.01
      --repetitions 12 -q"
i=0
while [ "$i" -lt "$kills" ]; do
    i=$((i + 1))
    out="$tmp/run$i.json"
    # shellcheck disable=SC2086
    "$hvbench" run $args -o "$out" >/dev/null 2>&1 &
    pid=$!
    sleep "$(/usr/bin/python3 -c 'import random; print(random.uniform(0.05, 0.6))')"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if [ -e "$out" ]; then
        done_before=$(check "$out")
        case $done_before in torn*) bad "kill $i: torn file: $done_before" ;; esac
        cp "$out" "$tmp/before.json"
    else
        done_before=0
    fi
    # shellcheck disable=SC2086
    "$hvbench" run $args -o "$out" --resume >/dev/null 2>"$tmp/err" ||
        { bad "kill $i: --resume failed: $(cat "$tmp/err")"; continue; }
    [ "$(check "$out")" = 12 ] || bad "kill $i: resumed file: $(check "$out")"
    if [ "$done_before" != 0 ]; then
        /usr/bin/python3 - "$tmp/before.json" "$out" <<'PY' || bad "kill $i: finished rounds were not kept"
import json, sys
a = json.load(open(sys.argv[1]))["hvbench"]["cells"]
b = json.load(open(sys.argv[2]))["hvbench"]["cells"]
for x, y in zip(a, b):
    n = len(x["samples_ns_per_op"])
    assert x["samples_ns_per_op"] == y["samples_ns_per_op"][:n], x["name"]
    assert x["shared_iterations"] == y["shared_iterations"]
PY
    fi
    echo "kill $i: $done_before of 12 rounds survived; resumed to 12"
done
# --resume of a file of another run is an input error.
# shellcheck disable=SC2086
"$hvbench" run lookup --repetitions 12 -q -o "$tmp/run1.json" --resume \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || bad "--resume of another run's file is not exit 2"
exit "$fail"
