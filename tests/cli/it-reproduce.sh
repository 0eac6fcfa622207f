#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench reproduce (seed 004, --quick, a short --min-time):
# - the table has its shape: one row per claim of the seed, every column,
#   in markdown and in JSON, and the exit status agrees with it;
# - its figures come from runs of this invocation: each run's pid and the
#   invocation id in the table are the ones its results file records,
#   written after the test started, and a claim's figure is what that
#   file's cells say; a results file planted in DIR beforehand is
#   replaced, never read;
# - a run whose file was not written by its own child (a fake binary that
#   copies an old results file into place) is refused: the claim fails
#   with the reason and the exit status is 1;
# - bad input is exit 2: unknown seed, --out a file, an uncreatable DIR,
#   no --out, a stray argument;
# - hvbench report DIR renders the seeds section;
# - seed 002 (--quick --min-time 0.02, about 10 s): figures of earlier runs (a profile)
#   are printed as such, with their commit and date, and the ratio that
#   bounds the share ratio (r of poll_cpu_us) is this invocation's, the
#   two medians of its results file.
# Usage: it-reproduce.sh HVBENCH
set -u
. "$(dirname "$0")/lib.sh"
hvbench=$1
py=/usr/bin/python3
t0=$(date +%s)

# Bad input: exit 2, one line, nothing run.
"$hvbench" reproduce --seed 999 --out "$tmp/x" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown seed '999'" "$tmp/err" && ok ||
    bad "unknown seed: $(cat "$tmp/err")"
: >"$tmp/afile"
"$hvbench" reproduce --quick --out "$tmp/afile" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "not a directory" "$tmp/err" && ok ||
    bad "--out a file: $(cat "$tmp/err")"
"$hvbench" reproduce --quick --out "$tmp/no/such/dir" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "cannot create directory" "$tmp/err" && ok ||
    bad "--out uncreatable: $(cat "$tmp/err")"
"$hvbench" reproduce --quick 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "needs --out" "$tmp/err" && ok || bad "no --out"
"$hvbench" reproduce --quick --out "$tmp/x" stray 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "stray argument accepted"
"$hvbench" reproduce --min-time 0 --out "$tmp/x" 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "--min-time 0 accepted"
[ -e "$tmp/x/004-lookup.json" ] && bad "a bad command line ran something"
"$hvbench" --help | grep -q "^  reproduce \[--quick\] \[--seed ID\] .*--out DIR" &&
    ok || bad "reproduce not in hvbench --help"
"$hvbench" reproduce --help | grep -q "004 " && ok || bad "reproduce --help"

# A planted results file: a real one, but of another invocation, with a
# figure no run here would give (rwlock-ref 1000x slower).
mkdir -p "$tmp/rp"
"$hvbench" run lookup --plugin domlookup=rwlock-ref,rcu-ref,percpu-ref \
    --threads 1,2 --param distribution=hot --repetitions 2 --min-time 0.01 \
    -q --out "$tmp/old.json" >/dev/null 2>&1 || bad "run lookup"
$py - "$tmp/old.json" "$tmp/rp/004-lookup.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["hvbench"]["cells"]:
    if "rwlock-ref" in c["name"]:
        c["samples_ns_per_op"] = [x * 1000 for x in c["samples_ns_per_op"]]
        c["summary"]["median"] *= 1000
json.dump(d, open(sys.argv[2], "w"))
PY

"$hvbench" reproduce --quick --seed 004 --min-time 0.02 -q --out "$tmp/rp" \
    >"$tmp/out.md" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || bad "reproduce exit $rc: $(cat "$tmp/err")"
$py - "$tmp/rp" "$t0" "$rc" <<'PY' && ok || bad "table or provenance"
import json, os, sys
d, t0, rc = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
t = json.load(open(os.path.join(d, "reproduce.json")))
fail = []
def check(cond, what):
    if not cond:
        fail.append(what)
inv = t["invocation"]
check(inv["quick"] is True and inv["seed"] == "004", "invocation fields")
check(inv["started_unix_s"] >= t0 - 1, "invocation started before the test")
claims = t["claims"]
check(len(claims) == 2 and all(c["seed"] == "004" for c in claims),
      f"claims of seed 004: {len(claims)}")
keys = {"seed", "claim", "figure", "seed_ratio", "how", "status", "measured",
        "ratio_of_ratios", "direction_matches", "direction_resolved",
        "within_2x"}
for c in claims:
    check(keys <= set(c), f"claim keys: {sorted(keys - set(c))}")
    check(c["status"] == "measured", f"claim not measured: {c.get('reason')}")
check(len(t["runs"]) == 1, "one run")
r = t["runs"][0]
res = json.load(open(os.path.join(d, r["file"])))
run = res["hvbench"]["run"]
check(run["pid"] == r["pid"] == r["results"]["pid"], "pid of the writer")
check(run["invocation"] == inv["id"] == r["results"]["invocation"],
      "invocation of the writer")
check(r["started_unix_s"] <= run["written_unix_s"] <= r["ended_unix_s"],
      "written during the run")
check(os.stat(os.path.join(d, r["file"])).st_mtime >= t0 - 1,
      "file older than the test")
cells = {c["name"]: c for c in res["hvbench"]["cells"]}
def cell(sel):
    hit = [c for n, c in cells.items()
           if all(p in n.split("/") for p in sel.split("/"))]
    return hit[0]
for c in claims:
    m = c["measured"]
    num, den = cell(m["num"][1]), cell(m["den"][1])
    check(abs(m["num_value"] - num["summary"]["median"]) < 1e-9 * num["summary"]["median"],
          "num is the file's median")
    check(abs(m["den_value"] - den["summary"]["median"]) < 1e-9 * den["summary"]["median"],
          "den is the file's median")
    check(m["method"] == "paired" and
          abs(m["ratio"] - num["paired"]["median"]) < 1e-9, "paired ratio")
    check(m["den_value"] < 1000, "the planted rwlock-ref figure was used")
    lo, hi = c["seed_ratio"]
    want_dir = m["ratio"] < 1
    check(c["direction_matches"] == want_dir, "direction")
    ci = m["ci95"]
    check(c["direction_resolved"] == (not (ci[0] <= 1 <= ci[1])),
          "resolved is 'the CI excludes 1'")
    ror = m["ratio"] / lo
    check(abs(c["ratio_of_ratios"] - ror) < 1e-9 * ror, "ratio of ratios")
    check(c["within_2x"] == (0.5 <= ror <= 2), "within 2x")
want = 0 if all(c["direction_matches"] or not c["direction_resolved"]
                for c in claims) else 1
check(rc == want and t["summary"]["exit_status"] == rc, f"exit {rc}, want {want}")
if fail:
    print("\n".join(fail))
    sys.exit(1)
PY
grep -q "^| seed | the claim" "$tmp/out.md" && [ "$(grep -c '^| 004 |' "$tmp/out.md")" -eq 2 ] &&
    cmp -s "$tmp/out.md" "$tmp/rp/reproduce.md" && ok ||
    bad "markdown table on stdout and in reproduce.md"

# Seed 002: the poll's r is computed from this run; the profile's
# figures are labelled as earlier ones (they were printed as this run's).
"$hvbench" reproduce --quick --seed 002 --min-time 0.02 -q --out "$tmp/rp2" >"$tmp/out2.md" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || bad "reproduce --seed 002 exit $rc: $(cat "$tmp/err")"
$py - "$tmp/rp2" <<'PY' && ok || bad "seed 002: this run's r and the earlier figures"
import json, os, re, sys
d = sys.argv[1]
t = json.load(open(os.path.join(d, "reproduce.json")))
res = json.load(open(os.path.join(d, "002-xenopsd-poll.json")))
cells = res["hvbench"]["cells"]
def poll(plugin):
    c = [c for c in cells if "infolist=" + plugin in c["name"].split("/")]
    return c[0]["counters"]["poll_cpu_us"]["summary"]["median"]
share = [c for c in t["claims"] if c.get("also")]
assert len(share) == 1, share
a = share[0]["also"]
assert a["num"] == poll("append-2") and a["den"] == poll("chunked"), a
assert abs(a["ratio"] - a["num"] / a["den"]) < 1e-9 * a["ratio"], a
assert re.match(r"at [0-9a-f]{7,} \(\d{4}-\d\d-\d\d\) on ", share[0]["earlier"]), share[0]
assert not re.search(r"\d+% in|r = 1", share[0]["how"]), share[0]["how"]
PY
grep -q "This invocation: r, one poll's CPU in us (poll_cpu_us), append-2 / chunked: [0-9.]* / [0-9.]* = \*\*[0-9.]*\*\*. \*Earlier, not this invocation's:\* at 736a150" \
    "$tmp/out2.md" && ok || bad "seed 002's row: $(grep '^| 002' "$tmp/out2.md" | tail -1)"

# A child that leaves an old file in place of its own: refused, exit 1.
cat >"$tmp/fake" <<EOF2
#!/bin/sh
while [ \$# -gt 0 ]; do [ "\$1" = --out ] && cp "$tmp/old.json" "\$2"; shift; done
exit 0
EOF2
chmod +x "$tmp/fake"
HVB_REPRODUCE_EXE=$tmp/fake "$hvbench" reproduce --quick --seed 004 -q \
    --out "$tmp/fk" >"$tmp/fk.md" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "was not written by this run" "$tmp/err" &&
    grep -q "failed" "$tmp/fk.md" && ok || bad "a foreign file: exit $rc: $(cat "$tmp/err")"
$py -c "
import json, sys
t = json.load(open(sys.argv[1]))
sys.exit(0 if all(c['status'] == 'failed' for c in t['claims']) and
         t['runs'][0]['results'] is None else 1)" "$tmp/fk/reproduce.json" &&
    ok || bad "a foreign file's claims are not marked failed"

# The report's seeds section.
"$hvbench" report "$tmp/rp" --out "$tmp/rep" >/dev/null 2>"$tmp/err" ||
    bad "report of a reproduce dir: $(cat "$tmp/err")"
grep -q "id='seeds'" "$tmp/rep/index.html" && [ -s "$tmp/rep/seeds.png" ] &&
    [ -s "$tmp/rep/seeds/004-lookup.json" ] &&
    grep -q 'href="seeds/004-lookup.json"' "$tmp/rep/index.html" &&
    [ "$(grep -c 'find_domain_by_id\|per-CPU' "$tmp/rep/index.html")" -ge 2 ] && ok ||
    bad "seeds section not rendered"
"$hvbench" report "$tmp/fk" --out "$tmp/rep2" >/dev/null 2>"$tmp/err" &&
    grep -q "failed" "$tmp/rep2/index.html" && ok ||
    bad "report of a reproduce dir with failed runs: $(cat "$tmp/err")"
mkdir "$tmp/empty"
"$hvbench" report "$tmp/empty" --out "$tmp/rep3" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "not a reproduce directory" "$tmp/err" && ok ||
    bad "report of a plain directory: $(cat "$tmp/err")"
finish it-reproduce
