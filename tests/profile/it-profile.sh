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
# rcu-noref takes no domlist_lock on the lookup path.  boot-storm's
# CPU view and differential weigh every thread's samples by their period.
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
# A macro workload: its work runs in threads the harness does not
# measure (boot-storm's clients, daemon, pools), under one thread that
# joins them.  A cpu-clock sample is worth its period over the cell's
# ops, so the figures per op are every thread's: the differential's
# total is the cells' cpu_ns_per_op, well above the measured thread's
# own CPU time (the old scale, by which they read ~1000x too small).
bs="--param vms=20 --param label_us=0 --param qemu_us=0 -r 1 -q"
# shellcheck disable=SC2086
if ! "$hvbench" profile boot-storm --plugin quota=hashtbl-copy,persistent $bs \
        --out "$tmp/bs" --diff quota=hashtbl-copy,persistent \
        >"$tmp/bsout" 2>"$tmp/err"; then
    bad "profile boot-storm failed: $(cat "$tmp/err")"
else
    $py - "$tmp/bs/results.json" "$tmp/bsout" <<'PY' || bad "boot-storm's CPU per op"
import json, re, sys
r = json.load(open(sys.argv[1]))
hz = r["hvbench"]["profile"]["frequency_hz"]
tot = []
for c in r["hvbench"]["cells"]:
    p = c["profile"]
    w = (10**9 // hz) / p["ops"]
    assert abs(p["ns_per_sample"] - w) < 1e-6 * w, (p, w)
    assert abs(p["cpu_ns_per_op"] - w * p["samples"]) < 1e-3 * w, p
    assert p["cpu_ns_per_op"] > 5 * c["cpu_summary"]["median"], \
        (p["cpu_ns_per_op"], c["cpu_summary"]["median"])
    tot.append(p["cpu_ns_per_op"])
m = re.search(r"^total (\S+) -> (\S+) CPU ns/op", open(sys.argv[2]).read(), re.M)
assert m and all(abs(float(x) - t) <= 1e-3 * t for x, t in zip(m.groups(), tot)), \
    (m and m.groups(), tot)
PY
fi
"$hvbench" profile lookup --out "$tmp/x" --diff nonsense >/dev/null 2>&1
[ $? -eq 2 ] || bad "profile --diff nonsense: want exit 2"
"$hvbench" profile lookup >/dev/null 2>&1
[ $? -eq 2 ] || bad "profile without --out: want exit 2"
echo "$fail failed"
[ $fail -eq 0 ]
