#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench history (issue 22), on scratch databases:
#   1. record a results file and a review file, export them back (JSON
#      and CSV): every cell's time and counters, the review's ratios with
#      their CIs, commits, branch, machine; schema version 2, WAL; import
#      of a directory records its results and reviews and skips the rest;
#      a file of schema 1 is migrated to 2 on open, its runs kept.
#   2. Bad input is exit 2 with one line: not JSON, neither kind, a
#      database of a newer schema, a PostgreSQL URL (not yet), no FILE.
#   3. Two recorders at once, 15 files each, from a file neither has
#      created yet (both first opens set WAL at once: "database is
#      locked" before it was retried): all 30 runs land, the file passes
#      integrity_check.
#   4. kill -9 in the middle of a record (HVB_HISTORY_TEST_PAUSE holds it
#      inside its transaction): nothing of it is left, the next record
#      works.
#   5. detect: a 2% step at point 60 of a series with 1% noise is found
#      there (a regression; --fail-on regression is exit 1), an A/A series
#      of 300 points has none (exit 0), the glob selects; the p printed
#      is Welch's (scipy agrees).
#   6. publish: index.html with the open regression, a page per benchmark
#      with its chart and change marked, an Atom feed of one entry; the
#      page in headless Chromium paints the series and the change (where
#      Chromium is installed).
#   7. triage: detect's ids, labels kept across detects, the precision
#      on the site; bad ids and labels are exit 2.
#   8. A reference moved with an overlap: 20 reviews against R1, the
#      overlap X20 against R2 (ratios half as large), 20 more against R2
#      with a 3% step at X31: detect on the chained series finds the step
#      at X31 and nothing at the move; the same without the overlap is a
#      break (nothing compared across it), the step still found; backfill
#      and reference set pin and refuse as they should.
# About 20 s.  Usage: test-history.sh HVBENCH
set -u
hv=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
fail=0
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
bad() { fail=1; echo "FAIL: $*"; }
db=$tmp/h.db

# A results file and a review file to record.
"$hv" run lookup --plugin domlookup=rwlock-ref,rcu-noref --repetitions 2 \
    --min-time 0.01 -q -o "$tmp/r.json" >/dev/null 2>&1 || bad "run"
cat >"$tmp/review.json" <<'EOF'
{"review": {"schema": 1, "base": {"commit": "aaaa"}, "head": {"commit": "bbbb", "dirty": false}},
 "cells": [{"name": "lookup/domlookup=rcu-ref/threads:1",
            "verdicts": {"time": {"ratio": 1.021, "ci": [1.012, 1.03], "new": 9.38},
                         "sim_instructions": {"ratio": 1.0, "ci": [1.0, 1.0], "new": 55.1}}}]}
EOF

# 1. record, export.
"$hv" history record "$tmp/r.json" "$tmp/review.json" --db "$db" --branch main \
    --machine ci-1 >"$tmp/rec.out" 2>&1 || bad "record: $(cat "$tmp/rec.out")"
grep -q "recorded .*review.json: run 2, 4 points (review, commit bbbb)" "$tmp/rec.out" ||
    bad "record's line: $(cat "$tmp/rec.out")"
"$hv" history export --db "$db" >"$tmp/e.json" || bad "export"
/usr/bin/python3 - "$tmp/e.json" "$tmp/r.json" <<'PY' || bad "export's points"
import json, sys
e = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))["hvbench"]
cells = [c["name"] for c in r["cells"]]
t = {p["cell"]: p["value"] for p in e if p["run"] == 1 and p["metric"] == "time"}
assert sorted(t) == sorted(cells), t
for c in r["cells"]:
    assert abs(t[c["name"]] - c["summary"]["median"]) < 1e-9, c["name"]
assert all(p["branch"] == "main" and p["machine"] == "ci-1" for p in e)
assert any(p["metric"] == "tsc_cycles" for p in e if p["run"] == 1)
rv = [p for p in e if p["run"] == 2]
ratio = [p for p in rv if p["series"] == "ratio" and p["metric"] == "time"][0]
assert (ratio["value"], ratio["ci_lo"], ratio["ci_hi"]) == (1.021, 1.012, 1.03), ratio
assert ratio["commit"] == "bbbb" and ratio["base_commit"] == "aaaa", ratio
assert [p["value"] for p in rv if p["series"] == "absolute" and p["metric"] == "time"] == [9.38]
print("export: %d points" % len(e))
PY
"$hv" history export --db "$db" --format csv --series ratio --out "$tmp/e.csv" ||
    bad "export csv"
[ "$(head -1 "$tmp/e.csv")" = "run,recorded_at,kind,commit,base_commit,branch,machine,cell,metric,series,value,ci_lo,ci_hi,unit" ] &&
    [ "$(wc -l <"$tmp/e.csv")" -eq 3 ] || bad "csv: $(cat "$tmp/e.csv")"
[ "$(sqlite3 "$db" 'PRAGMA user_version; PRAGMA journal_mode;' | tr '\n' ' ')" = "2 wal " ] ||
    bad "schema version or journal mode"

# import: a directory's results and reviews, other JSON skipped.
mkdir -p "$tmp/dir/sub"
cp "$tmp/r.json" "$tmp/dir/a.json"
cp "$tmp/review.json" "$tmp/dir/sub/review.json"
echo '{"a": 1}' >"$tmp/dir/sub/other.json"
"$hv" history import "$tmp/dir" --db "$tmp/i.db" >"$tmp/i.out" 2>&1 &&
    grep -q "^imported 2 file(s), .*; skipped 1 JSON file" "$tmp/i.out" &&
    [ "$(sqlite3 "$tmp/i.db" 'SELECT count(*) FROM runs')" = 2 ] ||
    bad "import: $(cat "$tmp/i.out")"

# 2. Bad input: exit 2, one line.
one() { # WHAT PATTERN CMD...: exit 2 and one line matching PATTERN
    what=$1 pat=$2
    shift 2
    "$@" >"$tmp/o" 2>&1
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/o")" -eq 1 ] && grep -q "$pat" "$tmp/o" ||
        bad "$what: exit $rc: $(cat "$tmp/o")"
}
one "not JSON" "expected" "$hv" history record /etc/passwd --db "$db"
echo '{"a": 1}' >"$tmp/x.json"
one "neither kind" "neither hvbench results" "$hv" history record "$tmp/x.json" --db "$db"
one "no file" "needs FILE" "$hv" history record --db "$db"
one "postgres" "PostgreSQL is not supported yet" "$hv" history export --db postgresql://h/db
one "no subcommand" "needs record, import, backfill, reference, export, detect, triage or publish" "$hv" history
one "import, no path" "history import needs PATH" "$hv" history import --db "$db"
cp "$db" "$tmp/new.db"
sqlite3 "$tmp/new.db" "PRAGMA user_version = 7"
one "newer schema" "schema version 7, but this hvbench knows up to 2" \
    "$hv" history export --db "$tmp/new.db"
one "bad pvalue" "bad value '2' for --pvalue" "$hv" history detect --db "$db" --pvalue 2
# A file of schema 1 (this one, its version 2 tables dropped) is migrated.
cp "$db" "$tmp/v1.db"
sqlite3 "$tmp/v1.db" "DROP TABLE changes; DROP TABLE refs; PRAGMA user_version = 1"
runs1=$(sqlite3 "$tmp/v1.db" 'SELECT count(*) FROM runs')
"$hv" history triage --db "$tmp/v1.db" >/dev/null 2>&1 &&
    [ "$(sqlite3 "$tmp/v1.db" 'PRAGMA user_version')" = 2 ] &&
    [ "$(sqlite3 "$tmp/v1.db" 'SELECT count(*) FROM runs')" = "$runs1" ] &&
    sqlite3 "$tmp/v1.db" 'SELECT count(*) FROM changes, refs' >/dev/null ||
    bad "migration 1 -> 2"

# 3. Two recorders at once.
for k in 1 2; do
    (i=0; while [ $i -lt 15 ]; do
        "$hv" history record "$tmp/r.json" --db "$tmp/c.db" >/dev/null 2>>"$tmp/c$k.err" ||
            echo "record $k.$i failed" >>"$tmp/c$k.err"
        i=$((i + 1))
    done) &
    pids="$pids $!"
done
wait
pids=""
[ "$(sqlite3 "$tmp/c.db" 'SELECT count(*) FROM runs')" = 30 ] &&
    [ "$(sqlite3 "$tmp/c.db" 'PRAGMA integrity_check')" = ok ] &&
    [ ! -s "$tmp/c1.err" ] && [ ! -s "$tmp/c2.err" ] ||
    bad "concurrent records: $(sqlite3 "$tmp/c.db" 'SELECT count(*) FROM runs') runs; $(cat "$tmp/c1.err" "$tmp/c2.err")"

# 4. kill -9 inside a record's transaction.
before=$(sqlite3 "$db" 'SELECT count(*) FROM runs; SELECT count(*) FROM points' | tr '\n' ' ')
HVB_HISTORY_TEST_PAUSE=0.2 "$hv" history record "$tmp/r.json" --db "$db" >/dev/null 2>&1 &
victim=$!
pids=$victim
sleep 1
kill -9 "$victim"
wait "$victim" 2>/dev/null
pids=""
after=$(sqlite3 "$db" 'SELECT count(*) FROM runs; SELECT count(*) FROM points' | tr '\n' ' ')
[ "$before" = "$after" ] && [ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] ||
    bad "kill -9 mid-record left something: before $before, after $after"
"$hv" history record "$tmp/r.json" --db "$db" >/dev/null 2>&1 ||
    bad "a record after the kill"

# 5. detect.
"$hv" history export --db "$tmp/s.db" >/dev/null
/usr/bin/python3 "$here/synth.py" "$tmp/s.db" 1 120 60 0.02 0.01 3 step
/usr/bin/python3 "$here/synth.py" "$tmp/s.db" 1 300 -1 0 0.01 4 aa
"$hv" history detect 'step/*' --db "$tmp/s.db" --fail-on regression >"$tmp/d.out" 2>&1
rc=$?
# Run ids: the step series's 120 runs first; point 60 is run 61.
[ $rc -eq 1 ] && [ "$(grep -c '^step/0 .* regression  #[0-9]*$' "$tmp/d.out")" -eq 1 ] &&
    grep -q "^step/0  time  ratio  at run 6[0-2] " "$tmp/d.out" ||
    bad "the step: exit $rc: $(cat "$tmp/d.out")"
"$hv" history detect 'aa/*' --db "$tmp/s.db" --fail-on change >"$tmp/a.out" 2>&1 ||
    bad "A/A has change points: $(cat "$tmp/a.out")"
grep -q "^0 change point(s) in 1 series" "$tmp/a.out" || bad "A/A: $(cat "$tmp/a.out")"
/usr/bin/python3 - "$tmp/s.db" "$tmp/d.out" <<'PY' || bad "Welch's p"
import re, sqlite3, sys
from scipy import stats
m = re.search(r"at run (\d+) .* p ([0-9.e+-]+)", open(sys.argv[2]).read())
at, p = int(m.group(1)), float(m.group(2))
v = [r[0] for r in sqlite3.connect(sys.argv[1]).execute(
    "SELECT value FROM points WHERE cell = 'step/0' ORDER BY run_id")]
want = stats.ttest_ind(v[:at - 1], v[at - 1:], equal_var=False).pvalue * (50 - 10 + 1)
assert abs(p - want) <= 0.05 * want, (p, want)
print("Welch p x 41 splits: %.3g, scipy %.3g" % (p, want))
PY

# 6. publish: the site of the step and A/A series.
"$hv" history publish "$tmp/site" --db "$tmp/s.db" >"$tmp/pub.out" 2>&1 &&
    grep -q "^history publish: 2 series, 1 change point(s), 1 open regression(s)" "$tmp/pub.out" ||
    bad "publish: $(cat "$tmp/pub.out")"
page=$tmp/site/bench/step_0_time.html
grep -q '<line class="regression"' "$page" && grep -q '<polyline class="series"' "$page" &&
    grep -q 'Open regressions (1)' "$tmp/site/index.html" &&
    grep -q 'href="bench/step_0_time.html"' "$tmp/site/index.html" ||
    bad "publish: the pages"
/usr/bin/python3 - "$tmp/site/atom.xml" <<'PY' || bad "publish: the Atom feed"
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
e = d.getElementsByTagName("entry")
assert len(e) == 1 and "regression" in e[0].getElementsByTagName("title")[0].firstChild.data
PY
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/chrome" --hide-scrollbars --window-size=1000,700 \
        --virtual-time-budget=3000 --screenshot="$tmp/shot.png" "file://$page" \
        >/dev/null 2>&1
    /usr/bin/python3 - "$tmp/shot.png" <<'PY' || bad "publish: the page as Chromium paints it"
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
c = im.getcolors(1 << 20) or []
near = lambda x, r: sum(abs(a - b) for a, b in zip(x, r)) < 60
red = sum(n for n, x in c if near(x, (214, 39, 40)))
blue = sum(n for n, x in c if near(x, (31, 119, 180)))
assert red > 300 and blue > 300, (red, blue)
print("screenshot: %d red (the change) and %d blue (the series) pixels" % (red, blue))
PY
else
    echo "note: no chromium: the site's screenshot is not checked"
fi

# 7. triage.
id=$(sed -n 's/^step\/0 .* regression  #\([0-9]*\)$/\1/p' "$tmp/d.out")
"$hv" history triage "$id" real --note "the 2% step" --db "$tmp/s.db" >"$tmp/t.out" 2>&1 &&
    grep -q "^change point #$id: real" "$tmp/t.out" || bad "triage: $(cat "$tmp/t.out")"
"$hv" history detect 'step/*' --db "$tmp/s.db" >"$tmp/d2.out" 2>&1
grep -q "regression  #$id real$" "$tmp/d2.out" || bad "triage: the label kept: $(cat "$tmp/d2.out")"
"$hv" history triage --db "$tmp/s.db" >"$tmp/t.out" 2>&1 &&
    grep -q "^#$id  step/0  time  ratio  at run .*  real: the 2% step$" "$tmp/t.out" ||
    bad "triage: the list: $(cat "$tmp/t.out")"
one "triage, unknown id" "no change point #999" "$hv" history triage 999 real --db "$tmp/s.db"
one "triage, bad label" "label 'maybe': real, noise or expected" "$hv" history triage "$id" maybe --db "$tmp/s.db"
one "triage, no label" "needs a label" "$hv" history triage "$id" --db "$tmp/s.db"
one "triage, bad id" "'x1' is not a change point id" "$hv" history triage x1 real --db "$tmp/s.db"
"$hv" history publish "$tmp/site2" --db "$tmp/s.db" >/dev/null 2>&1 &&
    grep -q 'precision 100% (1 of 1 labelled' "$tmp/site2/bench/step_0_time.html" &&
    grep -q "<td>#$id</td><td>regression</td>.*<td>real</td>" "$tmp/site2/bench/step_0_time.html" ||
    bad "triage: the precision on the site"

# 8. A reference moved, with an overlap and without.
/usr/bin/python3 - "$tmp/mv" <<'PY'
import json, os, random, sys
rng = random.Random(5)
def review(path, base, head, v, scale=1.0):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump({"review": {"schema": 1, "base": {"commit": base},
                          "head": {"commit": head, "dirty": False}},
               "cells": [{"name": "mv/1", "verdicts": {"time": {
                   "ratio": v, "ci": [v * 0.998, v * 1.002], "new": 10 * v / scale}}}]},
              open(path, "w"))
k = 0
for overlap in (True, False):
    d = os.path.join(sys.argv[1], "with" if overlap else "without")
    for i in range(1, 41):
        step = 1.03 if i >= 31 else 1.0
        if i == 21 and overlap:
            k += 1
            review("%s/%03d.json" % (d, k), "R2" * 20, "X20", 0.5 * rng.gauss(1, 0.003), 0.5)
        base, scale = ("R1" * 20, 1.0) if i <= 20 else ("R2" * 20, 0.5)
        k += 1
        review("%s/%03d.json" % (d, k), base, "X%d" % i, scale * step * rng.gauss(1, 0.003), scale)
PY
for w in with without; do
    "$hv" history import "$tmp/mv/$w" --db "$tmp/mv-$w.db" >/dev/null 2>&1 || bad "import $w"
    "$hv" history detect --series ratio --db "$tmp/mv-$w.db" >"$tmp/mv-$w.out" 2>&1
done
[ "$(grep -c '^mv/1  time  ratio  at run' "$tmp/mv-with.out")" = 1 ] &&
    grep -q '^mv/1  time  ratio  at run 32 (commit X31, after X30): .* (+3\.[0-9]*%).* regression' "$tmp/mv-with.out" &&
    grep -q '^1 ratio series across moves of their reference: chained by the overlaps; 0 move(s) without one' "$tmp/mv-with.out" ||
    bad "the chained series: $(cat "$tmp/mv-with.out")"
[ "$(grep -c '^mv/1  time  ratio  at run' "$tmp/mv-without.out")" = 1 ] &&
    grep -q '^mv/1  time  ratio  at run 31 (commit X31, after X30): .* regression' "$tmp/mv-without.out" &&
    grep -q '1 move(s) without one' "$tmp/mv-without.out" ||
    bad "the broken series: $(cat "$tmp/mv-without.out")"
"$hv" history publish "$tmp/mv-site" --db "$tmp/mv-with.db" >/dev/null 2>&1 || bad "publish mv"
/usr/bin/python3 - "$tmp/mv-site/data.json" <<'PY' || bad "the chained values in data.json"
import json, sys
s = [s for s in json.load(open(sys.argv[1]))["series"] if s["series"] == "ratio"][0]
m = s["moves"]
assert len(m) == 1 and m[0]["index"] == 20 and m[0]["overlap"] == "X20", m
assert abs(m[0]["factor"] - 2.0) < 0.02, m
p = s["points"]
assert p[20]["chained"]["anchor"] and not p[21]["chained"]["anchor"]
assert abs(p[25]["chained"]["value"] / p[25]["value"] - m[0]["factor"]) < 1e-9
assert all(abs(q["chained"]["value"] - 1) < 0.02 for q in p[:30] if not q["chained"]["anchor"])
PY
grep -q 'class="move"' "$tmp/mv-site/bench/mv_1_time.html" &&
    grep -q 'chained by the overlap review of X20' "$tmp/mv-site/bench/mv_1_time.html" ||
    bad "the move on the page"
# The reference: none pinned yet; set with no history pins it; --commit.
"$hv" history reference --db "$tmp/ref.db" | grep -q '^no reference pinned' &&
    ! "$hv" history reference --commit --db "$tmp/ref.db" >/dev/null 2>&1 ||
    bad "reference: none pinned"
here_commit=$(git -C "$here" rev-parse HEAD 2>/dev/null)
if [ -n "$here_commit" ]; then
    (cd "$here" && "$hv" history reference set HEAD --db "$tmp/ref.db") >"$tmp/ref.out" 2>&1 &&
        [ "$("$hv" history reference --commit --db "$tmp/ref.db")" = "$here_commit" ] ||
        bad "reference set: $(cat "$tmp/ref.out")"
    # Reviews recorded against another base: moving needs the overlap's workload.
    (cd "$here" && "$hv" history reference set HEAD --db "$tmp/mv-with.db") >"$tmp/ref.out" 2>&1
    [ $? -eq 2 ] && grep -q "needs -- WORKLOAD" "$tmp/ref.out" || bad "reference set without a workload: $(cat "$tmp/ref.out")"
    (cd "$here" && "$hv" history reference set HEAD --no-overlap --db "$tmp/mv-with.db") >"$tmp/ref.out" 2>&1 &&
        grep -q "without an overlap: the ratio series break here" "$tmp/ref.out" ||
        bad "reference set --no-overlap: $(cat "$tmp/ref.out")"
fi
one "reference, bad" "takes nothing, or set REV" "$hv" history reference move x --db "$tmp/ref.db"

[ "$fail" -eq 0 ] && echo "history: all passed"
exit "$fail"
