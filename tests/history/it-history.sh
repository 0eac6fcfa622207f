#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench history (issue 22), on scratch SQLite databases (the checks
# shared with it-history-pg.sh are lib-history.sh's):
#   1. record a results file and a review file, export them back (JSON
#      and CSV): every cell's time and counters, the review's ratios with
#      their CIs, commits, branch, machine; schema version 2, WAL; import
#      of a directory records its results and reviews and skips the rest;
#      a file of schema 1 is migrated to 2 on open, its runs kept.
#   2. Bad input is exit 2 with one line: not JSON, neither kind, a
#      database of a newer schema, a PostgreSQL URL that cannot connect,
#      no FILE.
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
#   9. backfill --list on a scratch repository with a merge: every commit
#      of the range, or its first-parent line, every Nth.
# About 20 s.  Usage: it-history.sh HVBENCH
set -u
hv=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
. "$here/lib-history.sh"
db=$tmp/h.db

# 1. record, export.
hist_inputs
hist_record_export "$db" "$tmp/e"
[ "$(sqlite3 "$db" 'PRAGMA user_version; PRAGMA journal_mode;' | tr '\n' ' ')" = "3 wal " ] &&
    ok || bad "schema version or journal mode"

# import: a directory's results and reviews, other JSON skipped.
mkdir -p "$tmp/dir/sub"
cp "$tmp/r.json" "$tmp/dir/a.json"
cp "$tmp/review.json" "$tmp/dir/sub/review.json"
echo '{"a": 1}' >"$tmp/dir/sub/other.json"
"$hv" history import "$tmp/dir" --db "$tmp/i.db" >"$tmp/i.out" 2>&1 &&
    grep -q "^imported 2 file(s), .*; skipped 1 JSON file" "$tmp/i.out" &&
    [ "$(sqlite3 "$tmp/i.db" 'SELECT count(*) FROM runs')" = 2 ] && ok ||
    bad "import: $(cat "$tmp/i.out")"

# 2. Bad input: exit 2, one line; schemas newer and older.
hist_bad_input "$db"
hist_one "postgres" "^hvbench: history: postgresql://h@$tmp/none/db: connection to server on socket" \
    "$hv" history export --db "postgresql://h@/db?host=$tmp/none"
cp "$db" "$tmp/v1.db"
hist_schema "$tmp/v1.db"

# 3. Two recorders at once.
hist_concurrent "$tmp/c.db"
[ "$(sqlite3 "$tmp/c.db" 'PRAGMA integrity_check')" = ok ] && ok ||
    bad "integrity_check after the concurrent records"

# 4. kill -9 inside a record's transaction.
hist_kill9 "$db"
[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] && ok ||
    bad "integrity_check after the kill"

# 5. detect.
hist_detect "$tmp/s.db" "$tmp/d.out"

# 6. publish: the site of the step and A/A series.
hist_publish "$tmp/s.db" "$tmp/site"
page=$(echo "$tmp/site/bench/"step_0_time-*.html)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/chrome" --hide-scrollbars --window-size=1000,700 \
        --virtual-time-budget=3000 --screenshot="$tmp/shot.png" "file://$page" \
        >/dev/null 2>&1
    /usr/bin/python3 - "$tmp/shot.png" <<'PY' && ok || bad "publish: the page as Chromium paints it"
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
    skip_part "no chromium: the site's screenshot"
fi

# 7. triage.
hist_triage "$tmp/s.db" "$tmp/d.out" "$tmp/site2"

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
    grep -q '^mv/1  time  ratio  at run 32 (commit X31, after X30): .* (+3\.[0-9]*%, 95% CI \[+[0-9.]*%, +[0-9.]*%\]).* regression' "$tmp/mv-with.out" &&
    grep -q '^1 ratio series across moves of their reference: chained by the overlaps; 0 move(s) without one' "$tmp/mv-with.out" ||
    bad "the chained series: $(cat "$tmp/mv-with.out")"
[ "$(grep -c '^mv/1  time  ratio  at run' "$tmp/mv-without.out")" = 1 ] &&
    grep -q '^mv/1  time  ratio  at run 31 (commit X31, after X30): .* regression' "$tmp/mv-without.out" &&
    grep -q '1 move(s) without one' "$tmp/mv-without.out" ||
    bad "the broken series: $(cat "$tmp/mv-without.out")"
/usr/bin/python3 - "$tmp/mv-with.db" "$tmp/mv-with.out" <<'PY' || bad "the change's CI (Welch's, scipy's t)"
import math, re, sqlite3, sys
from scipy import stats
v = [r[0] for r in sqlite3.connect(sys.argv[1]).execute(
    "SELECT value FROM points WHERE series = 'ratio' ORDER BY run_id")]
ch = v[:20] + [x * v[19] / v[20] for x in v[21:]]  # chained, anchor out
a, b = ch[:30], ch[30:]
m = lambda x: sum(x) / len(x)
s2 = lambda x: sum((y - m(x)) ** 2 for y in x) / (len(x) - 1) / len(x)
df = (s2(a) + s2(b)) ** 2 / (s2(a) ** 2 / 29 + s2(b) ** 2 / 9)
t = stats.t.ppf(0.975, df) * math.sqrt(s2(a) + s2(b))
want = [100 * (m(b) - m(a) - t) / m(a), 100 * (m(b) - m(a) + t) / m(a)]
got = re.search(r"mv/1  time  ratio .*95% CI \[([-+0-9.]+)%, ([-+0-9.]+)%\]",
                open(sys.argv[2]).read())
assert all(abs(float(g) - w) < 0.006 for g, w in zip(got.groups(), want)), (got.groups(), want)
PY
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
# No "history reference set" made it (the bases changed in the data
# alone): chained, said, but no move of the reference drawn.
! grep -q 'class="move"' "$tmp/mv-site/bench/"mv_1_time-*.html &&
    grep -q 'the base changed R1R1R1R1R1R1 &rarr; R2R2R2R2R2R2 at point 20 with no <code>history reference set</code>' "$tmp/mv-site/bench/"mv_1_time-*.html ||
    bad "the base change on the page: not drawn as a move"
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
else
    skip_part "not a git checkout: reference set"
fi
hist_one "reference, bad" "takes nothing, or set REV" "$hv" history reference move x --db "$tmp/ref.db"

# 9. backfill --list: a range with a merge, all its commits or the
# first-parent line (no build: --list stops before any review).
g="$tmp/g"
git init -q "$g" && git -C "$g" config user.email t@t && git -C "$g" config user.name t
for c in a b; do echo $c >"$g/$c"; git -C "$g" add $c; git -C "$g" commit -qm $c; done
git -C "$g" checkout -qb side HEAD~1
echo s >"$g/s"; git -C "$g" add s; git -C "$g" commit -qm s
git -C "$g" checkout -q - && git -C "$g" merge -q --no-edit side
all=$(cd "$g" && "$hv" history backfill HEAD~2..HEAD --list | wc -l)
fp=$(cd "$g" && "$hv" history backfill HEAD~2..HEAD --list --first-parent | wc -l)
ev=$(cd "$g" && "$hv" history backfill HEAD~2..HEAD --list --every 2 | wc -l)
[ "$all" = 3 ] && [ "$fp" = 2 ] && [ "$ev" = 2 ] &&
    [ "$(cd "$g" && "$hv" history backfill HEAD~2..HEAD --list --first-parent | tail -1)" = "$(git -C "$g" rev-parse HEAD)" ] ||
    bad "backfill --list: $all commits, $fp first-parent, $ev every 2nd"
hist_one "backfill, no workload" "needs REV-RANGE -- WORKLOAD" sh -c "cd '$g' && '$hv' history backfill HEAD~2..HEAD"

# 9. The parent-relative workflow of docs/history.md (issue 34, bug 3):
# "review HEAD^ HEAD" on every commit, a lasting +5% step at X16 (each
# ratio's CI +-0.6%, 0.3% noise), is caught at X16 (the ratios chained
# into a level); without the step, the level's random walk is no change.
/usr/bin/python3 - "$tmp/par" <<'PY'
import json, os, random, sys
for step in (True, False):
    rng = random.Random(11)
    d = os.path.join(sys.argv[1], "step" if step else "flat")
    os.makedirs(d)
    for i in range(1, 31):
        v = (1.05 if step and i == 16 else 1.0) * rng.gauss(1, 0.003)
        json.dump({"review": {"schema": 1, "base": {"commit": "X%d" % (i - 1)},
                              "head": {"commit": "X%d" % i, "dirty": False}},
                   "cells": [{"name": "par/1", "verdicts": {"time": {
                       "ratio": v, "ci": [v - 0.006, v + 0.006], "new": 10 * v}}}]},
                  open(os.path.join(d, "%03d.json" % i), "w"))
PY
for w in step flat; do
    "$hv" history import "$tmp/par/$w" --db "$tmp/par-$w.db" >/dev/null 2>&1 || bad "import par $w"
    "$hv" history detect --series ratio --fail-on regression --db "$tmp/par-$w.db" >"$tmp/par-$w.out" 2>&1
    eval "rc_$w=\$?"
done
[ "$rc_step" -eq 1 ] && [ "$(grep -c '^par/1  time  ratio  at run' "$tmp/par-step.out")" = 1 ] &&
    grep -q '^par/1  time  ratio  at run 16 (commit X16, after X15): .* (+[45]\.[0-9]*%.* regression' "$tmp/par-step.out" && ok ||
    bad "the parent-relative step: exit $rc_step, $(cat "$tmp/par-step.out")"
[ "$rc_flat" -eq 0 ] && ! grep -q '^par/1  time  ratio  at run' "$tmp/par-flat.out" && ok ||
    bad "the parent-relative flat series: exit $rc_flat, $(cat "$tmp/par-flat.out")"

finish history
