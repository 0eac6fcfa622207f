#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench profile and lockstat end to end.  profile: the folded stacks of
# lookup/rwlock-ref contain its known frames (static functions of the
# plugin and the workload included), its stacks start at the thread's
# root frames (not the cell's name) and share stacks with another cell's
# file, as FlameGraph's difffolded.pl needs; the SVG
# is well-formed; speedscope samples and weights match; --diff lists
# rwlock_ref_lock as vanished going to rcu-noref; a leaf sampled before
# its frame is set up keeps its caller; C++ names are demangled.  lockstat: at 2
# threads rwlock-ref's domlist_lock shows contended read acquisitions;
# rcu-noref takes no domlist_lock on the lookup path.
# Usage: it-profile.sh HVBENCH
set -u
hvbench=$1
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

quick="--min-time 0.05 --repetitions 2 -q"
if ! "$hvbench" profile lookup --plugin domlookup=rwlock-ref,rcu-noref \
        --threads 2 $quick --out "$tmp/p" \
        --diff domlookup=rwlock-ref,rcu-noref >"$tmp/out" 2>"$tmp/err"; then
    bad "profile failed: $(cat "$tmp/err")"
else
    f="$tmp/p/lookup_domlookup=rwlock-ref_threads_2.folded"
    for fr in rwlock_ref_lock lookup_thread hvb_runner_body; do
        grep -q ";$fr[; ]" "$f" || bad "frame $fr not in $f"
    done
    # hv_put_domain's fast path has no frame: its caller is restored.
    grep -q ';hvb_runner_body;hv_put_domain ' "$f" &&
        bad "hv_put_domain's caller lookup_thread missing in $f"
    grep -q '_ZN' "$f" && bad "mangled C++ names in $f"
    # The stacks start at the thread's root frames, the cell is in the
    # file name only: the standard diff workflow (FlameGraph's
    # "difffolded.pl a.folded b.folded", not packaged by Debian) joins the
    # two cells' files by stack text, as this awk does.
    g="$tmp/p/lookup_domlookup=rcu-noref_threads_2.folded"
    grep -q '^lookup/' "$f" "$g" && bad "a stack starts with its cell's name"
    common=$(awk '{ k = $0; sub(/ [0-9.]+$/, "", k) }
        FNR == NR { a[k] = 1; next } k in a { print k }' "$f" "$g")
    echo "$common" | grep -q ';hvb_runner_body;lookup_thread$' ||
        bad "no stack in common between the cells' folded files: $common"
    grep -q '^vanished  *rwlock_ref_lock' "$tmp/out" ||
        bad "diff does not list rwlock_ref_lock as vanished: $(cat "$tmp/out")"
    $py - "$tmp/p" <<'PY' || bad "profile outputs malformed"
import json, sys, xml.etree.ElementTree as ET, glob
d = sys.argv[1]
for svg in glob.glob(d + "/*.svg"):
    ET.parse(svg)
for ss in glob.glob(d + "/*.speedscope.json"):
    p = json.load(open(ss))["profiles"][0]
    assert len(p["samples"]) == len(p["weights"]) > 0, ss
r = json.load(open(d + "/results.json"))
assert r["hvbench"]["profile"]["lost_samples"] >= 0
assert all(c["profile"]["samples"] > 0 for c in r["hvbench"]["cells"])
PY
fi

if ! "$hvbench" lockstat lookup --plugin domlookup=rwlock-ref,rcu-noref \
        --threads 2 $quick --out "$tmp/l.json" >"$tmp/lout" 2>"$tmp/lerr"; then
    bad "lockstat failed: $(cat "$tmp/lerr")"
else
    grep -q 'domlist_lock (read)' "$tmp/lout" || bad "no domlist_lock row printed"
    $py - "$tmp/l.json" <<'PY' || bad "lockstat results wrong"
import json, sys
cells = json.load(open(sys.argv[1]))["hvbench"]["cells"]
rw = [c for c in cells if "rwlock-ref" in c["name"]][0]["lockstat"]
rcu = [c for c in cells if "rcu-noref" in c["name"]][0]["lockstat"]
reads = [x for x in rw if x["class"] == "domlist_lock" and x["kind"] == "read"]
assert reads and reads[0]["contended"] > 0, reads
assert reads[0]["function"] == "rwlock_ref_lock", reads
assert not [x for x in rcu if x["class"] == "domlist_lock"], rcu
PY
fi
"$hvbench" profile lookup --out "$tmp/x" --diff nonsense >/dev/null 2>&1
[ $? -eq 2 ] || bad "profile --diff nonsense: want exit 2"
"$hvbench" profile lookup >/dev/null 2>&1
[ $? -eq 2 ] || bad "profile without --out: want exit 2"
echo "$fail failed"
[ $fail -eq 0 ]
