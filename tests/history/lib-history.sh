# SPDX-License-Identifier: GPL-2.0-only
#
# The checks it-history.sh (SQLite) and it-history-pg.sh (PostgreSQL)
# share, sourced after tests/cli/lib.sh ($tmp, track, ok, bad) with $hv
# (hvbench) and $here (this directory) set.  Every DB below is what --db
# takes: a SQLite file or a postgresql:// URL (psql reads it too).

# q DB SQL: the SQL's result, one value a line.
q() {
    case $1 in
    postgres://* | postgresql://*) psql -X -q -At -v ON_ERROR_STOP=1 "$1" -c "$2" ;;
    *) sqlite3 "$1" "$2" ;;
    esac
}
# load DB: run the SQL on stdin (synth.py's) in DB.
load() {
    case $1 in
    postgres://* | postgresql://*) psql -X -q -At -v ON_ERROR_STOP=1 "$1" >/dev/null ;;
    *) sqlite3 "$1" ;;
    esac
}

# set_version DB N: the schema version DB says it has.
set_version() {
    case $1 in
    postgres://* | postgresql://*) q "$1" "UPDATE schema_version SET version = $2" ;;
    *) q "$1" "PRAGMA user_version = $2" ;;
    esac
}

# $tmp/r.json (a results file of 2 cells) and $tmp/review.json.
hist_inputs() {
    "$hv" run lookup --plugin domlookup=rwlock-ref,rcu-noref --repetitions 2 \
        --min-time 0.01 -q -o "$tmp/r.json" >/dev/null 2>&1 || bad "run"
    cat >"$tmp/review.json" <<'JSON'
{"review": {"schema": 1, "base": {"commit": "aaaa"}, "head": {"commit": "bbbb", "dirty": false}},
 "cells": [{"name": "lookup/domlookup=rcu-ref/threads:1",
            "verdicts": {"time": {"ratio": 1.021, "ci": [1.012, 1.03], "new": 9.38},
                         "sim_instructions": {"ratio": 1.0, "ci": [1.0, 1.0], "new": 55.1}}}]}
JSON
}

# hist_record_export DB OUT: record both files, export them back into
# OUT.json and OUT.csv; every cell's time and counters, the review's
# ratio with its CI, commits, branch, machine.
hist_record_export() {
    "$hv" history record "$tmp/r.json" "$tmp/review.json" --db "$1" --branch main \
        --machine ci-1 >"$tmp/rec.out" 2>&1 || bad "record: $(cat "$tmp/rec.out")"
    grep -q "recorded .*review.json: run 2, 4 points (review, commit bbbb)" "$tmp/rec.out" &&
        ok || bad "record's line: $(cat "$tmp/rec.out")"
    "$hv" history export --db "$1" >"$2.json" || bad "export"
    /usr/bin/python3 - "$2.json" "$tmp/r.json" <<'PY' && ok || bad "export's points"
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
    "$hv" history export --db "$1" --format csv --series ratio --out "$2.csv" ||
        bad "export csv"
    [ "$(head -1 "$2.csv")" = "run,recorded_at,kind,commit,base_commit,branch,machine,cell,metric,series,value,ci_lo,ci_hi,unit" ] &&
        [ "$(wc -l <"$2.csv")" -eq 3 ] && ok || bad "csv: $(cat "$2.csv")"
}

# hist_one WHAT PATTERN CMD...: exit 2 and one line matching PATTERN.
hist_one() {
    _what=$1 _pat=$2
    shift 2
    "$@" >"$tmp/o" 2>&1
    _rc=$?
    [ $_rc -eq 2 ] && [ "$(wc -l <"$tmp/o")" -eq 1 ] && grep -q "$_pat" "$tmp/o" &&
        ok || bad "$_what: exit $_rc: $(cat "$tmp/o")"
}

# hist_bad_input DB: a file that is not JSON, of neither kind, no FILE...
hist_bad_input() {
    hist_one "not JSON" "expected" "$hv" history record /etc/passwd --db "$1"
    echo '{"a": 1}' >"$tmp/x.json"
    hist_one "neither kind" "neither hvbench results" "$hv" history record "$tmp/x.json" --db "$1"
    hist_one "no file" "needs FILE" "$hv" history record --db "$1"
    hist_one "no subcommand" "history needs a sub-command: record, import, backfill, reference, export, detect, triage or publish" "$hv" history
    hist_one "unknown subcommand" "unknown sub-command .recrod. of history (record, import, .*); did you mean .record.?" "$hv" history recrod
    hist_one "import, no path" "history import needs PATH" "$hv" history import --db "$1"
    hist_one "bad pvalue" "bad value '2' for --pvalue" "$hv" history detect --db "$1" --pvalue 2
}

# hist_schema DB: a database of a newer schema is refused; one of schema
# 1 (DB, its version 2 and 3 tables and column dropped) is migrated on
# open, runs kept.
hist_schema() {
    set_version "$1" 7
    hist_one "newer schema" "schema version 7, but this hvbench knows up to 3" \
        "$hv" history export --db "$1"
    q "$1" "DROP TABLE changes; DROP TABLE refs; DROP INDEX runs_content;
        ALTER TABLE runs DROP COLUMN content_sha256" && set_version "$1" 1
    _runs=$(q "$1" 'SELECT count(*) FROM runs')
    "$hv" history triage --db "$1" >/dev/null 2>&1 &&
        [ "$(q "$1" 'SELECT count(*) FROM runs')" = "$_runs" ] &&
        q "$1" 'SELECT count(*) FROM changes, refs' >/dev/null &&
        q "$1" 'SELECT count(content_sha256) FROM runs' >/dev/null && ok ||
        bad "migration 1 -> 3"
}

# hist_concurrent DB: two recorders at once, 15 files each (each its own
# content: r.json after 1 to 30 spaces), into DB that neither has opened
# yet (both first opens migrate at once): all 30 land.
hist_concurrent() {
    _pids=
    for _k in 1 2; do
        (i=0; while [ $i -lt 15 ]; do
            _f=$tmp/c$_k-$i.json
            { printf '%*s' $((_k * 15 + i - 14)) ''; cat "$tmp/r.json"; } >"$_f"
            "$hv" history record "$_f" --db "$1" >/dev/null 2>>"$tmp/c$_k.err" ||
                echo "record $_k.$i failed" >>"$tmp/c$_k.err"
            i=$((i + 1))
        done) &
        track $!
        _pids="$_pids $!"
    done
    wait
    for _p in $_pids; do untrack "$_p"; done
    [ "$(q "$1" 'SELECT count(*) FROM runs')" = 30 ] &&
        [ ! -s "$tmp/c1.err" ] && [ ! -s "$tmp/c2.err" ] && ok ||
        bad "concurrent records: $(q "$1" 'SELECT count(*) FROM runs') runs; $(cat "$tmp/c1.err" "$tmp/c2.err")"
}

# in_tx DB: a write transaction of another connection is open in DB:
# SQLite refuses a BEGIN IMMEDIATE (WAL's one writer), PostgreSQL lists
# a connection with a transaction begun.
in_tx() {
    case $1 in
    postgres://* | postgresql://*)
        [ "$(q "$1" "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid()")" != 0 ] ;;
    *) ! sqlite3 "$1" ".timeout 0" "BEGIN IMMEDIATE" "ROLLBACK" >/dev/null 2>&1 ;;
    esac
}

# hist_kill9 DB: kill -9 inside a record's transaction (its points 0.2 s
# apart: HVB_HISTORY_TEST_PAUSE; killed as soon as in_tx sees it open)
# leaves nothing of it: the counts unchanged, and the same file recorded
# afterwards as new.  A file of its own content: r.json is recorded in
# DB already, and a record of it is skipped before any transaction (so
# the kill, a second later, found nothing to interrupt).
hist_kill9() {
    _counts="SELECT count(*) FROM runs UNION ALL SELECT count(*) FROM points"
    _before=$(q "$1" "$_counts" | tr '\n' ' ')
    { printf '%*s' 64 ''; cat "$tmp/r.json"; } >"$tmp/k9.json"
    HVB_HISTORY_TEST_PAUSE=0.2 "$hv" history record "$tmp/k9.json" --db "$1" >/dev/null 2>&1 &
    _victim=$!
    track $_victim
    _i=0
    until in_tx "$1"; do
        if [ $_i -ge 600 ] || ! kill -0 "$_victim" 2>/dev/null; then
            bad "kill -9 mid-record: its transaction never seen open"
            break
        fi
        sleep 0.05
        _i=$((_i + 1))
    done
    kill -9 "$_victim"
    wait "$_victim" 2>/dev/null
    untrack $_victim
    _after=$(q "$1" "$_counts" | tr '\n' ' ')
    [ "$_before" = "$_after" ] && ok ||
        bad "kill -9 mid-record left something: before $_before, after $_after"
    timeout 60 "$hv" history record "$tmp/k9.json" --db "$1" >"$tmp/k9.out" 2>&1 &&
        grep -q "^recorded " "$tmp/k9.out" && ok ||
        bad "a record after the kill: $(cat "$tmp/k9.out")"
}

# hist_detect DB OUT: a 2% step at point 60 of a series with 1% noise is
# found there (a regression; --fail-on regression is exit 1), an A/A
# series of 300 points has none, the glob selects; the p printed is
# Welch's (scipy agrees).  detect's lines in OUT.
hist_detect() {
    "$hv" history export --db "$1" >/dev/null # the schema, made
    { /usr/bin/python3 "$here/synth.py" - 1 120 60 0.02 0.01 3 step &&
        /usr/bin/python3 "$here/synth.py" - 1 300 -1 0 0.01 4 aa; } | load "$1"
    "$hv" history detect 'step/*' --db "$1" --fail-on regression >"$2" 2>&1
    _rc=$?
    # Run ids: the step series's 120 runs first; point 60 is run 61.
    [ $_rc -eq 1 ] && [ "$(grep -c '^step/0 .* regression  #[0-9]*$' "$2")" -eq 1 ] &&
        grep -q "^step/0  time  ratio  at run 6[0-2] " "$2" && ok ||
        bad "the step: exit $_rc: $(cat "$2")"
    "$hv" history detect 'aa/*' --db "$1" --fail-on change >"$tmp/a.out" 2>&1 &&
        grep -q "^0 change point(s) in 1 series" "$tmp/a.out" && ok ||
        bad "A/A: $(cat "$tmp/a.out")"
    "$hv" history export --db "$1" --metric time >"$tmp/d.json" || bad "export"
    /usr/bin/python3 - "$tmp/d.json" "$2" <<'PY' && ok || bad "Welch's p"
import json, re, sys
from scipy import stats
m = re.search(r"at run (\d+) .* p ([0-9.e+-]+)", open(sys.argv[2]).read())
at, p = int(m.group(1)), float(m.group(2))
v = [q["value"] for q in json.load(open(sys.argv[1])) if q["cell"] == "step/0"]
want = stats.ttest_ind(v[:at - 1], v[at - 1:], equal_var=False).pvalue * (50 - 10 + 1)
assert abs(p - want) <= 0.05 * want, (p, want)
print("Welch p x 41 splits: %.3g, scipy %.3g" % (p, want))
PY
}

# hist_publish DB SITE: the site of hist_detect's series: the open
# regression in index.html, its page with the chart and the change, an
# Atom feed of one entry.
hist_publish() {
    "$hv" history publish "$2" --db "$1" >"$tmp/pub.out" 2>&1 &&
        grep -q "^history publish: 2 series, 1 change point(s), 1 open regression(s)" "$tmp/pub.out" &&
        ok || bad "publish: $(cat "$tmp/pub.out")"
    _page=$(echo "$2/bench/"step_0_time-*.html)
    grep -q '<line class="regression"' "$_page" && grep -q '<polyline class="series"' "$_page" &&
        grep -q 'Open regressions (1)' "$2/index.html" &&
        grep -q 'href="bench/step_0_time-[0-9a-f]\{16\}.html"' "$2/index.html" && ok ||
        bad "publish: the pages"
    /usr/bin/python3 - "$2/atom.xml" <<'PY' && ok || bad "publish: the Atom feed"
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
e = d.getElementsByTagName("entry")
assert len(e) == 1 and "regression" in e[0].getElementsByTagName("title")[0].firstChild.data
PY
}

# hist_triage DB DETECT-OUT SITE: label hist_detect's change (its id in
# DETECT-OUT) real: the label kept across detects, listed, the precision
# on the site, the regression no longer open there (triaged: closed);
# bad ids and labels are exit 2.
hist_triage() {
    _id=$(sed -n 's/^step\/0 .* regression  #\([0-9]*\)$/\1/p' "$2")
    "$hv" history triage "$_id" real --note "the 2% step" --db "$1" >"$tmp/t.out" 2>&1 &&
        grep -q "^change point #$_id: real" "$tmp/t.out" && ok || bad "triage: $(cat "$tmp/t.out")"
    "$hv" history detect 'step/*' --db "$1" >"$tmp/d2.out" 2>&1
    grep -q "regression  #$_id real$" "$tmp/d2.out" && ok ||
        bad "triage: the label kept: $(cat "$tmp/d2.out")"
    "$hv" history triage --db "$1" >"$tmp/t.out" 2>&1 &&
        grep -q "^#$_id  step/0  time  ratio  at run .*  real: the 2% step$" "$tmp/t.out" && ok ||
        bad "triage: the list: $(cat "$tmp/t.out")"
    hist_one "triage, unknown id" "no change point #999" "$hv" history triage 999 real --db "$1"
    hist_one "triage, bad label" "label 'maybe': real, noise or expected" "$hv" history triage "$_id" maybe --db "$1"
    hist_one "triage, no label" "needs a label" "$hv" history triage "$_id" --db "$1"
    hist_one "triage, bad id" "'x1' is not a change point id" "$hv" history triage x1 real --db "$1"
    "$hv" history publish "$3" --db "$1" >"$tmp/pub.out" 2>&1 &&
        grep -q "^history publish: 2 series, 1 change point(s), 0 open regression(s)" "$tmp/pub.out" &&
        grep -q 'Open regressions (0)' "$3/index.html" &&
        grep -q 'Triaged regressions (1)' "$3/index.html" &&
        grep -q "<td>#$_id real</td>" "$3/index.html" &&
        grep -q 'precision 100% (1 of 1 labelled' "$3/bench/"step_0_time-*.html &&
        grep -q "<td>#$_id</td><td>regression</td>.*<td>real: the 2% step</td>" "$3/bench/"step_0_time-*.html &&
        ok || bad "triage: the precision on the site"
}
