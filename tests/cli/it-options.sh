#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# One option engine (issue 12): plugin options (--plugin SLOT=NAME:K=V)
# and workload params (--param K=V) are read by the same parser
# (hv/opt.c): decimal only ("010" is ten; "0x10" is refused), k/M/G
# suffixes on both, the canonical value in cell names and results, and
# the same message for the same bad value.
# Usage: it-options.sh HVBENCH
set -u
hvbench=$1
. "$(dirname "$0")/lib.sh"

quick="--min-time 0.001 --repetitions 1 -q"

# refuse NAME ARGS...: exit 2 and one stderr line, kept in $tmp/NAME.
refuse() {
    name=$1
    shift
    "$hvbench" "$@" >"$tmp/out" 2>"$tmp/$name"
    rc=$?
    if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/$name")" -ne 1 ] ||
        [ -s "$tmp/out" ]; then
        bad "hvbench $*: exit $rc, stderr '$(cat "$tmp/$name")', want exit 2 and one line"
        return 1
    fi
    ok
}

# cell JSON CELL ARGS...: `hvbench run ARGS` succeeds, writes $tmp/JSON
# and prints the one cell CELL.
cell() {
    json=$1
    name=$2
    shift 2
    if "$hvbench" run "$@" $quick --out "$tmp/$json" >"$tmp/table" \
            2>"$tmp/err"; then
        ok
    else
        bad "hvbench run $*: $(cat "$tmp/err")"
    fi
    grep -q "^$name " "$tmp/table" && ok ||
        bad "hvbench run $*: cell $(grep '/threads:' "$tmp/table"), want $name"
}

# "010" is ten for both, in the cell name and in the results.
cell r.json lookup/domlookup=percpu-ref:ncpus=10/domains=10/threads:1 \
    lookup --plugin domlookup=percpu-ref:ncpus=010 --param domains=010
/usr/bin/python3 - "$tmp/r.json" <<'PY' && ok || bad "010 in the results"
import json, sys
c = json.load(open(sys.argv[1]))["hvbench"]["cells"][0]
p = c["plugins"]["domlookup"]
assert c["name"] == "lookup/domlookup=percpu-ref:ncpus=10/domains=10/threads:1", c["name"]
assert p["options"]["ncpus"] == 10, p
assert p["label"] == "percpu-ref:ncpus=10" and p["spec"] == "percpu-ref:ncpus=10", p
assert c["params"]["domains"] == 10, c["params"]
PY

# k/M/G suffixes on both: quota's buckets and the quota-txn params.
cell k.json quota-txn/quota=hashtbl-copy:buckets=2000/domains=1000/threads:1 \
    quota-txn --plugin quota=hashtbl-copy:buckets=2k --param domains=1k
/usr/bin/python3 - "$tmp/k.json" <<'PY' && ok || bad "suffixes in the results"
import json, sys
c = json.load(open(sys.argv[1]))["hvbench"]["cells"][0]
assert c["plugins"]["quota"]["options"]["buckets"] == 2000, c["plugins"]
assert c["params"]["domains"] == 1000, c["params"]
PY

# The same bad value, the same message: only the row and its bounds differ.
shape="^hvbench: bad value '%s' for (option ncpus of plugin domlookup/percpu-ref|param domains of workload lookup) \(an integer in \[[0-9]+, [0-9]+\]; k/M/G suffixes multiply by 1000\)$"
for v in 0x10 12q -1 2.5 1kk 99999999999999999999 40k; do
    refuse opt run lookup --plugin "domlookup=percpu-ref:ncpus=$v" &&
        refuse par run lookup --param "domains=$v" || continue
    # shellcheck disable=SC2059
    re=$(printf "$shape" "$v")
    grep -Eq -e "$re" "$tmp/opt" && ok || bad "--plugin $v: $(cat "$tmp/opt")"
    grep -Eq -e "$re" "$tmp/par" && ok || bad "--param $v: $(cat "$tmp/par")"
    sed 's/option ncpus of plugin domlookup\/percpu-ref/X/; s/\[0, 256\]/B/' \
        "$tmp/opt" >"$tmp/opt.n"
    sed 's/param domains of workload lookup/X/; s/\[1, 32751\]/B/' \
        "$tmp/par" >"$tmp/par.n"
    cmp -s "$tmp/opt.n" "$tmp/par.n" && ok ||
        bad "messages differ: '$(cat "$tmp/opt")' vs '$(cat "$tmp/par")'"
done

# Bounds and choices.
refuse b1 run lookup --plugin domlookup=percpu-ref:ncpus=257 &&
    { grep -q "\[0, 256\]" "$tmp/b1" && ok || bad "bounds: $(cat "$tmp/b1")"; }
refuse b2 run lookup --param domains=32752 &&
    { grep -q "\[1, 32751\]" "$tmp/b2" && ok || bad "bounds: $(cat "$tmp/b2")"; }
refuse e1 run lookup --param distribution=warm &&
    { grep -q "bad value 'warm' for param distribution of workload lookup (one of: hot, uniform)$" \
        "$tmp/e1" && ok || bad "enum: $(cat "$tmp/e1")"; }

# Canonical values find duplicates however they are spelt.
refuse d1 run lookup --param domains=10,010 &&
    { grep -q "param domains: value 10 given twice" "$tmp/d1" && ok ||
        bad "duplicate param: $(cat "$tmp/d1")"; }
refuse d2 run lookup --plugin domlookup=percpu-ref:ncpus=2,percpu-ref:ncpus=02 &&
    { grep -q "given twice (as percpu-ref:ncpus=2)" "$tmp/d2" && ok ||
        bad "duplicate plugin: $(cat "$tmp/d2")"; }

# --cell: only the named cells run, numbered as a run of them alone
# (the first kept of a group its reference); a name of no cell refused.
L=lookup/domlookup
"$hvbench" run lookup --plugin domlookup=rwlock-ref,rcu-ref --threads 1,2 \
    --cell $L=rcu-ref/threads:2 --plan >"$tmp/plan" 2>"$tmp/err" &&
    [ "$(jq -c '[.cells, .cells_total, .list[0].full_index, .list[0].group]' "$tmp/plan")" = "[1,4,3,0]" ] &&
    ok || bad "--cell --plan: $(cat "$tmp/plan" "$tmp/err")"
if "$hvbench" run lookup --plugin domlookup=rwlock-ref,rcu-ref,rcu-noref \
    --cell $L=rcu-noref/threads:1,$L=rcu-ref/threads:1 $quick --out "$tmp/c.json" \
    >/dev/null 2>"$tmp/err"; then
    # Matrix order, whatever the order named; rcu-ref the reference.
    [ "$(jq -c '[.hvbench.cells[] | [.name, .variant]]' "$tmp/c.json")" = \
        "[[\"$L=rcu-ref/threads:1\",0],[\"$L=rcu-noref/threads:1\",1]]" ] &&
        ok || bad "--cell cells: $(jq -c '[.hvbench.cells[] | [.name, .variant]]' "$tmp/c.json")"
else
    bad "--cell run: $(cat "$tmp/err")"
fi
refuse cell run lookup --plugin domlookup=rwlock-ref,rcu-ref --cell $L=rcu-ref/thread:1 &&
    { grep -q "no cell of this run.*did you mean '$L=rcu-ref/threads:1'" "$tmp/cell" && ok ||
        bad "unknown --cell: $(cat "$tmp/cell")"; }
refuse cell0 run lookup --cell "" ||:

finish it-options
