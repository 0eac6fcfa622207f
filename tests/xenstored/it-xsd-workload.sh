#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The xenstore-ls workload with client=socket: every request through the
# server of hvbench xenstored in the same run; a listing that loses or
# fails a request reports the "failed" counter.  client=socket with
# request_ns is a usage error.
# Usage: it-xsd-workload.sh HVBENCH
set -u
hvbench=$1
tmp=$(mktemp -d /tmp/hvb-xsd-wl.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$hvbench" run xenstore-ls --param domains=20 --param subtrees=3 \
    --param client=socket,inproc --plugin quota=hashtbl-copy,persistent \
    --threads 1,2 --repetitions 1 --min-time 0.01 -q \
    --out "$tmp/r.json" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: run: $(cat "$tmp/err")"; fail=1; }
cells=$(grep -o "\"run_name\": \"xenstore-ls[^\"]*\"" "$tmp/r.json" | sort -u | wc -l)
[ "$cells" -eq 8 ] || { echo "FAIL: $cells cells with listing_ms, want 8"; fail=1; }
if grep -q '"failed"' "$tmp/r.json"; then
    echo "FAIL: a listing failed requests"
    fail=1
fi
"$hvbench" run xenstore-ls --param client=socket --param request_ns=10 \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "request_ns models what client=socket" "$tmp/err" ||
    { echo "FAIL: client=socket with request_ns: $(cat "$tmp/err")"; fail=1; }
[ $fail -eq 0 ] && echo "xsd-workload: ok"
exit $fail
