#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run --shard K/N and merge, without a scheduler: the merged cells are an
# unsharded run's (names, plugins, params, fixed iterations, rounds), each
# with its host; a missing shard is named (status 1), a shard given twice,
# another command line, another build or not a shard is exit 2, and so is
# a shard that is not what its plan made (a cell of no cell of the matrix,
# fewer samples than its summary, a negative time, two files claiming one
# K); compare and gate read the merged file; --plan with --shard-costs
# partitions too.
#
# usage: it-merge.sh HVBENCH
set -u
hvb=$(realpath "$1")
. "$(dirname "$0")/../cli/lib.sh"
PY=/usr/bin/python3
cd "$tmp" || exit 1

M="lookup --plugin domlookup=rwlock-ref,rcu-noref --threads 1,2 --param domains=10,100,1000 --repetitions 3 --iterations 2000"

"$hvb" run $M -q --out whole.json >/dev/null 2>&1 || bad "unsharded run"
for k in 1 2 3 4; do
    "$hvb" run $M --shard $k/4 -q --out s$k.json >/dev/null 2>err$k ||
        bad "shard $k: $(cat err$k)"
done

# All four: exit 0, the unsharded run's cells, in its order.
if "$hvb" merge all.json s1.json s3.json s2.json s4.json 2>merge.err; then ok; else
    bad "merge of 4 shards: $(cat merge.err)"; fi
grep -q "merge: 12 of 12 cells from 4 of 4 shards" merge.err && ok ||
    bad "merge summary: $(cat merge.err)"
$PY - whole.json all.json <<'EOF' && ok || bad "merged cells differ from the unsharded run's"
import json, sys
w = json.load(open(sys.argv[1]))["hvbench"]
m = json.load(open(sys.argv[2]))
h = m["hvbench"]
key = lambda c: (c["index"], c["name"], c["group"], c["variant"], c["threads"],
                 json.dumps(c["plugins"], sort_keys=True),
                 json.dumps(c["params"], sort_keys=True),
                 c["shared_iterations"], c["iterations"], len(c["samples_ns_per_op"]))
a = [key(c) for c in w["cells"]]
b = [key(c) for c in h["cells"]]
assert a == b, (a, b)
# Pairing: a group's cells share one count and the same rounds.
for c in h["cells"]:
    ref = [x for x in h["cells"] if x["group"] == c["group"] and x["variant"] == 0][0]
    assert c["shared_iterations"] == ref["shared_iterations"]
    assert len(c["samples_ns_per_op"]) == len(ref["samples_ns_per_op"])
    assert c["host"] and c["shard"] in (1, 2, 3, 4)
    if c["variant"]:
        assert len(c["paired"]["ratios"]) == 3
assert h["merged"]["complete"] and h["merged"]["missing_shards"] == []
assert h["run"]["cells"] == 12 and "shard" not in h
assert list(h["hosts"]) == [m["context"]["host_name"]]
assert "environment" in h["hosts"][m["context"]["host_name"]]
fam = [r["family_index"] for r in m["benchmarks"]]
assert fam == sorted(fam) and set(fam) == set(range(12)), fam
assert "--shard" not in h["command_line"]
EOF

# compare and gate read it like any results file.
"$hvb" compare all.json --format markdown >cmp.md 2>cmp.err && ok ||
    bad "compare of the merged file: $(cat cmp.err)"
grep -q 'lookup/domlookup=rcu-noref/domains=1000/threads:2' cmp.md && ok ||
    bad "compare rows"
"$hvb" compare whole.json all.json --format json >/dev/null 2>cmp2.err && ok ||
    bad "compare unsharded vs merged: $(cat cmp2.err)"
"$hvb" gate all.json all.json --max-regression 50% >/dev/null 2>gate.err
[ $? -ne 2 ] && ok || bad "gate refused the merged file: $(cat gate.err)"

# A shard missing: named, the rest written, status 1.
"$hvb" merge part.json s1.json s2.json s4.json 2>miss.err
rc=$?
[ $rc -eq 1 ] && ok || bad "missing shard: status $rc, want 1"
grep -q "shard 3/4 missing" miss.err && ok || bad "missing shard not named: $(cat miss.err)"
$PY -c 'import json,sys; h=json.load(open("part.json"))["hvbench"]; assert h["merged"]["missing_shards"]==[3] and len(h["cells"])==10 and not h["merged"]["complete"]' &&
    ok || bad "partial merged document"
"$hvb" compare part.json --format json >/dev/null 2>&1 && ok ||
    bad "compare of a partial merge"

# Refused: a shard twice, another command line, another build, no shard.
expect2() {
    what=$1
    pattern=$2
    shift 2
    "$hvb" merge bad.json "$@" 2>refused.err
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pattern" refused.err && [ ! -e bad.json ]; then
        ok
    else
        bad "$what: status $rc, $(cat refused.err)"
    fi
}
expect2 "shard twice" "is in both" s1.json s2.json s1.json
"$hvb" run lookup --plugin domlookup=rwlock-ref,rcu-ref --threads 1,2 --param domains=10,100,1000 --repetitions 3 --iterations 2000 --shard 2/4 -q --out other.json >/dev/null 2>&1
expect2 "another plugin list" "other command lines" s1.json other.json
"$hvb" run lookup --plugin domlookup=rwlock-ref,rcu-noref --threads 1,2 --param domains=10,100,1000 --repetitions 2 --iterations 2000 --shard 2/4 -q --out reps.json >/dev/null 2>&1
expect2 "other repetitions" "run.repetitions" s1.json reps.json
"$hvb" run $M --shard 2/3 -q --out three.json >/dev/null 2>&1
expect2 "another N" "shard.n" s1.json three.json
$PY -c 'import json; d=json.load(open("s2.json")); d["hvbench"]["git"]["commit"]="0"*40; json.dump(d, open("build.json","w"))'
expect2 "another build" "git.commit" s1.json build.json
expect2 "not a shard" "not the results of a shard" s1.json whole.json
expect2 "not results" "merge:" s1.json /etc/hostname
"$hvb" merge only.json >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "merge without shards"

# Shards that are not what their plan made: refused, exit 2, named.
# edit OUT PYTHON: s2.json changed by PYTHON (on d, its document) into OUT.
edit() {
    $PY -c "
import json, sys
d = json.load(open('s2.json'))
h = d['hvbench']
c = h['cells'][0]
$2
json.dump(d, open(sys.argv[1], 'w'))" "$1"
}
edit p5.json 'c["params"]["domains"] = 5; c["name"] = c["name"].replace("domains=10/", "domains=5/")'
expect2 "a cell not in the matrix" "where the plan of shard 2/4 has" s1.json p5.json s3.json s4.json
edit p6.json 'c["params"]["domains"] = 5'
expect2 "a cell's params not its name's" "params.domains is not the value its name says" s1.json p6.json
edit few.json 'c["summary"]["n"] = 12'
expect2 "fewer samples than the summary says" "3 samples but summary.n 12" s1.json few.json
edit cut.json 'c["samples_ns_per_op"] = c["samples_ns_per_op"][:1]'
expect2 "samples cut short" "1 samples, 3 cpu samples, 3 iterations for 3 rounds done" s1.json cut.json
edit neg.json 'd["benchmarks"][0]["real_time"] = -1'
expect2 "a negative real_time" "benchmarks\[0\] has a real_time or cpu_time" s1.json neg.json
edit k1.json 'h["shard"]["k"] = 1'
expect2 "two files claim shard 1/4" "shard 1/4 is in both 's1.json' and 'k1.json'" s1.json k1.json s3.json s4.json

# compare --hosts: one column per host, the rows that differ marked.
$PY -c '
import json
d = json.load(open("whole.json"))
d["context"]["host_name"] = "numa-box"
d["hvbench"]["environment"]["cpu_model"] = "Other CPU"
d["hvbench"]["environment"]["numa_nodes"] = 4
json.dump(d, open("other-host.json", "w"))'
"$hvb" compare --hosts whole.json other-host.json >hosts.md 2>hosts.err && ok ||
    bad "compare --hosts: $(cat hosts.err)"
grep -q "2 hosts side by side" hosts.md && grep -q "| numa-box |" hosts.md &&
    grep -q "⚠️ CPU model | \*\*" hosts.md && grep -q "⚠️ NUMA nodes" hosts.md &&
    grep -q "^| hardware counters | " hosts.md && grep -q "^| kernel | " hosts.md &&
    grep -q 'lookup/domlookup=rcu-noref/domains=1000/threads:2` | [0-9.e+-]* ([0-9.]* \[' hosts.md &&
    ok || bad "compare --hosts table: $(cat hosts.md)"
"$hvb" compare --hosts whole.json /etc/hostname >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "compare --hosts with a file that is not results"

# report: the same hosts table on its page (the ledger, differences marked),
# its machine rows from the one table of ledger rows (hvbench passes them).
"$hvb" report whole.json other-host.json --out rep >/dev/null 2>rep.err && ok ||
    bad "report of two hosts: $(cat rep.err)"
grep -q "<h2>Hosts</h2>" rep/index.html && grep -q "&#9888; CPU model" rep/index.html &&
    ! grep -q "&#9888; kernel" rep/index.html && ok || bad "report's hosts table"
grep -q "&#9888; NUMA nodes<" rep/index.html && grep -q ">hardware counters<" rep/index.html &&
    grep -q ">microcode<" rep/index.html && ! grep -q ">git commit<" rep/index.html &&
    ok || bad "report's hosts rows: $(grep -o '<h2>Hosts.*' rep/index.html)"
"$hvb" report whole.json --out rep1 >/dev/null 2>&1
! grep -q "<h2>Hosts</h2>" rep1/index.html && ok || bad "a hosts table for one host"

# --shard-costs (calibrated) partitions the matrix too, and differently
# from the estimate when one group is far longer.
$PY - whole.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["hvbench"]["cells"]:
    if c["name"].endswith("domains=1000/threads:2"):
        c["samples_ns_per_op"] = [x * 50 for x in c["samples_ns_per_op"]]
json.dump(d, open("costs.json", "w"))
EOF
for k in 1 2 3 4; do
    "$hvb" run $M --shard $k/4 --shard-costs costs.json --plan >plan$k.json 2>/dev/null ||
        bad "--plan --shard $k/4 --shard-costs"
done
$PY - plan1.json plan2.json plan3.json plan4.json <<'EOF' && ok || bad "--shard-costs partition"
import json, sys
cells = []
for p in sys.argv[1:]:
    cells += [c["full_index"] for c in json.load(open(p))["list"]]
assert sorted(cells) == list(range(12)), cells
first = [c["full_index"] for c in json.load(open(sys.argv[1]))["list"]]
assert first == [10, 11], first  # the long group alone in shard 1
EOF
"$hvb" run $M --shard-costs costs.json --plan >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--shard-costs without --shard"

finish it-merge
