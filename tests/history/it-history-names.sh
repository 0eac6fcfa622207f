#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Cell names as they come, and an OUT with something planted in it
# (issue 34, bugs 10, 12, 13):
#   - a 514-character cell with a lasting +5% step: one series, the
#     step found, --fail-on regression exit 1 (a key cut at 512 made
#     every point its own series: no change, exit 0);
#   - a 1,602-character cell in two metrics: two series, two pages (a
#     key cut at 1,600 merged them); a 252-character one: a page with a
#     short name (Python died on "File name too long");
#   - cells lookup/x/0 and lookup_x/0: a page each, each linked once;
#   - publish into an OUT whose index.html, atom.xml and data.json are
#     symlinks to files elsewhere: those files untouched, the links
#     replaced; an OUT whose bench/ is a symlink: exit 2, nothing written
#     behind it;
#   - (defects) two machines' runs of one cell: two series, each line
#     and page naming its machine; --machine and --branch select for
#     detect, export and publish; a CSV field that is a formula gets a
#     leading '; a commit with an escape sequence, --pvalue 0.01abc,
#     --no-overlap with --overlap and a directory given to record are
#     exit 2 with one line; --machine defaults to the file's
#     context.host_name; a history we may read but not write exports.
# usage: it-history-names.sh HVBENCH
set -u
hvb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
# name N: a cell prefix of N characters.
name() { /usr/bin/python3 -c "print('c' * $1)"; }
# synth DB PREFIX STEP [METRIC]: 40 points, the step from point 20 on.
synth() {
    /usr/bin/python3 "$here/synth.py" - 1 40 20 "$3" 0.005 7 "$2" |
        sed "s/'time', 'ratio'/'${4:-time}', 'ratio'/" | sqlite3 "$1"
}
db() { "$hvb" history export --db "$1" >/dev/null 2>&1 || bad "make $1"; }

db "$tmp/a.db"
synth "$tmp/a.db" "$(name 512)" 0.05
"$hvb" history detect --db "$tmp/a.db" --fail-on regression >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^1 change point(s) in 1 series, 1 regression" "$tmp/out" &&
    ok || bad "a 514-character cell: exit $rc, $(tail -1 "$tmp/out")"

db "$tmp/b.db"
synth "$tmp/b.db" "$(name 1600)" 0.05
synth "$tmp/b.db" "$(name 1600)" 0.05 sim_instructions
synth "$tmp/b.db" "$(name 250)" 0
synth "$tmp/b.db" lookup/x 0.05
synth "$tmp/b.db" lookup_x 0
"$hvb" history publish "$tmp/site" --db "$tmp/b.db" >"$tmp/out" 2>&1
rc=$?
longest=$(ls "$tmp/site/bench" 2>/dev/null | awk '{ if (length > n) n = length } END { print n + 0 }')
[ $rc -eq 0 ] && grep -q "^history publish: 5 series" "$tmp/out" &&
    [ "$(ls "$tmp/site/bench" | wc -l)" -eq 5 ] && [ "$longest" -le 80 ] && ok ||
    bad "long and clashing names: exit $rc, $(ls "$tmp/site/bench" 2>&1 | wc -l) pages (longest $longest), $(tail -2 "$tmp/out")"
# Each page linked once from the index, lookup/x's regression to its own.
/usr/bin/python3 - "$tmp/site" <<'PY' && ok || bad "the index's links"
import os, re, sys
site = sys.argv[1]
idx = open(os.path.join(site, "index.html")).read()
links = re.findall(r'href="bench/([^"#]*)"', idx)
pages = sorted(os.listdir(os.path.join(site, "bench")))
assert sorted(set(links)) == pages, (links, pages)
opened = idx.split("Every benchmark")[0]
x = [p for p in pages if p.startswith("lookup_x_0_time-")]
assert len(x) == 2
mine = [p for p in x if "lookup/x/0" in open(os.path.join(site, "bench", p)).read()]
assert len(mine) == 1 and 'href="bench/%s#ratio"' % mine[0] in opened, opened
PY

# Symlinks planted in OUT (plain names).
db "$tmp/c.db"
synth "$tmp/c.db" plain 0.05
mkdir "$tmp/pub" "$tmp/victim"
for f in index.html atom.xml data.json; do
    echo precious >"$tmp/victim/$f"
    ln -s "$tmp/victim/$f" "$tmp/pub/$f"
done
"$hvb" history publish "$tmp/pub" --db "$tmp/c.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/victim/index.html" "$tmp/victim/atom.xml" "$tmp/victim/data.json")" = "precious
precious
precious" ] && [ ! -L "$tmp/pub/index.html" ] && [ ! -L "$tmp/pub/data.json" ] && ok ||
    bad "symlinks in OUT: exit $rc, victims: $(head -c 40 "$tmp/victim/index.html"), $(tail -1 "$tmp/out")"
mkdir "$tmp/pub2" "$tmp/victim2"
ln -s "$tmp/victim2" "$tmp/pub2/bench"
"$hvb" history publish "$tmp/pub2" --db "$tmp/c.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "bench: a symlink" "$tmp/out" && [ -z "$(ls -A "$tmp/victim2")" ] && ok ||
    bad "bench/ a symlink: exit $rc, behind it: $(ls "$tmp/victim2" | head -2), $(tail -1 "$tmp/out")"

# Two machines, one cell (defects): never one series.  ci-a steps +5%
# at point 20, ci-b is flat 3% above ci-a's start; mixed, each point
# alternating, they made noise or a change of neither.
db "$tmp/m.db"
synth "$tmp/m.db" two 0.05
sqlite3 "$tmp/m.db" "UPDATE runs SET machine = 'ci-a', branch = 'main'"
/usr/bin/python3 "$here/synth.py" - 1 40 -1 0 0.005 9 two | sqlite3 "$tmp/m.db"
sqlite3 "$tmp/m.db" "UPDATE runs SET machine = 'ci-b', branch = 'dev' WHERE machine IS NULL;
    UPDATE points SET value = value * 1.03 WHERE run_id IN (SELECT id FROM runs WHERE machine = 'ci-b')"
"$hvb" history detect --db "$tmp/m.db" >"$tmp/out" 2>&1
grep -q "in 2 series, 1 regression" "$tmp/out" && grep -q "^two/0  time  ratio  on ci-a  at run 21 " "$tmp/out" &&
    ok || bad "two machines: $(cat "$tmp/out")"
"$hvb" history detect --db "$tmp/m.db" --machine ci-b --fail-on change >"$tmp/out" 2>&1 &&
    grep -q "^0 change point(s) in 1 series" "$tmp/out" && ok || bad "--machine ci-b: $(cat "$tmp/out")"
"$hvb" history detect --db "$tmp/m.db" --branch main >"$tmp/out" 2>&1 &&
    grep -q "^1 change point(s) in 1 series" "$tmp/out" && ok || bad "--branch main: $(cat "$tmp/out")"
"$hvb" history export --db "$tmp/m.db" --machine ci-b --format csv >"$tmp/out" 2>&1 &&
    [ "$(grep -c ',"ci-b",' "$tmp/out")" = 40 ] && ! grep -q "ci-a" "$tmp/out" && ok ||
    bad "export --machine: $(head -3 "$tmp/out")"
# ci-a's change labelled: counted on ci-a's page, not ci-b's.
"$hvb" history triage "$(sqlite3 "$tmp/m.db" 'SELECT min(id) FROM changes')" real \
    --db "$tmp/m.db" >/dev/null 2>&1 || bad "triage on two machines"
"$hvb" history publish "$tmp/msite" --db "$tmp/m.db" >"$tmp/out" 2>&1 &&
    [ "$(ls "$tmp/msite/bench" | wc -l)" -eq 2 ] && grep -q "two/0 on ci-b" "$tmp/msite/index.html" &&
    grep -q "precision 100% (1 of 1 labelled" "$tmp/msite/index.html" &&
    grep -q "two/0 on ci-b</a></td><td>time</td><td>ratio</td><td class=\"num\">40</td><td class=\"num\">0</td><td>-</td>" "$tmp/msite/index.html" &&
    ok || bad "publish, two machines: $(ls "$tmp/msite/bench" 2>&1), $(cat "$tmp/out")"

# A cell that is a formula, a commit with an escape sequence, a number
# with a tail, contradicting options: refused or made harmless.
db "$tmp/f.db"
synth "$tmp/f.db" "=HYPERLINK(1)" 0
"$hvb" history export --db "$tmp/f.db" --format csv 2>&1 | sed -n 2p | grep -q "\"'=HYPERLINK(1)/0\"" &&
    ok || bad "a formula in CSV: $("$hvb" history export --db "$tmp/f.db" --format csv 2>&1 | sed -n 2p)"
"$hvb" run lookup --repetitions 2 --min-time 0.01 -q -o "$tmp/r.json" >/dev/null 2>&1 || bad "run"
/usr/bin/python3 - "$tmp/r.json" "$tmp/esc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["hvbench"]["git"]["commit"] = "abc\x1b[2J\nreal"
json.dump(d, open(sys.argv[2], "w"))
PY
"$hvb" history record "$tmp/esc.json" --db "$tmp/f.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "a commit holds a control character" "$tmp/out" && ok ||
    bad "a commit with an escape: exit $rc, $(cat "$tmp/out")"
"$hvb" history detect --db "$tmp/f.db" --pvalue 0.01abc >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "bad value '0.01abc' for --pvalue" "$tmp/out" && ok ||
    bad "--pvalue 0.01abc: exit $rc, $(cat "$tmp/out")"
"$hvb" history reference set HEAD --no-overlap --overlap HEAD^ --db "$tmp/f.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "contradict" "$tmp/out" && ok ||
    bad "--no-overlap --overlap: exit $rc, $(cat "$tmp/out")"
"$hvb" history record "$tmp" --db "$tmp/f.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "a directory (history import PATH walks one)" "$tmp/out" && ok ||
    bad "recording a directory: exit $rc, $(cat "$tmp/out")"
# The file's own host name, not the recorder's, where --machine is not given.
sed 's/"host_name": "[^"]*"/"host_name": "ci-runner-7"/' "$tmp/r.json" >"$tmp/r7.json"
"$hvb" history record "$tmp/r7.json" --db "$tmp/f.db" >/dev/null 2>&1 &&
    [ "$(sqlite3 "$tmp/f.db" "SELECT machine FROM runs ORDER BY id DESC LIMIT 1")" = ci-runner-7 ] &&
    ok || bad "machine from context.host_name: $(sqlite3 "$tmp/f.db" 'SELECT machine FROM runs')"

# backfill given one revision: every ancestor, said (no build: --list).
git init -q "$tmp/g" && for i in 1 2 3; do
    git -C "$tmp/g" -c user.name=t -c user.email=t@e commit -q --allow-empty -m "c$i"
done
"$hvb" history backfill HEAD --list --repo "$tmp/g" --db "$tmp/f.db" >"$tmp/out" 2>"$tmp/err" &&
    [ "$(wc -l <"$tmp/out")" -eq 3 ] &&
    grep -q "warning: 'HEAD' is one revision: every one of its 3 ancestors" "$tmp/err" && ok ||
    bad "backfill HEAD: $(cat "$tmp/err")"
"$hvb" history backfill HEAD~2..HEAD --list --repo "$tmp/g" --db "$tmp/f.db" >"$tmp/out" 2>"$tmp/err" &&
    [ "$(wc -l <"$tmp/out")" -eq 2 ] && [ ! -s "$tmp/err" ] && ok ||
    bad "backfill HEAD~2..HEAD: $(cat "$tmp/err")"

# A pinned reference R1 and, recorded into the same history, an A/A
# review of X10 and a review of X20 against another base (B): strays,
# left out and said; no move, no change (X10 against itself started a
# move and chained every later point).
/usr/bin/python3 - "$tmp/aa" <<'PY'
import json, os, random, sys
rng = random.Random(3)
os.makedirs(sys.argv[1])
k = 0
def review(base, head, v):
    global k
    k += 1
    json.dump({"review": {"schema": 1, "base": {"commit": base},
                          "head": {"commit": head, "dirty": False}},
               "cells": [{"name": "aa/1", "verdicts": {"time": {
                   "ratio": v, "ci": [v * 0.998, v * 1.002], "new": 10 * v}}}]},
              open("%s/%03d.json" % (sys.argv[1], k), "w"))
for i in range(1, 41):
    review("R1" * 20, "X%d" % i, rng.gauss(1, 0.003))
    if i == 10:
        review("X10", "X10", rng.gauss(1, 0.003))
    if i == 20:
        review("B" * 40, "X20", 1.44 * rng.gauss(1, 0.003))
PY
"$hvb" history import "$tmp/aa" --db "$tmp/aa.db" >/dev/null 2>&1 || bad "import aa"
sqlite3 "$tmp/aa.db" "INSERT INTO refs (commit_hash, set_at) VALUES ('$(printf 'R1%.0s' $(seq 20))', 'then')"
"$hvb" history detect --db "$tmp/aa.db" --series ratio >"$tmp/out" 2>&1
grep -q "^2 point(s) of reviews against a base that is no pinned reference left out" "$tmp/out" &&
    grep -q "^0 change point(s) in 1 series" "$tmp/out" && ! grep -q "across moves" "$tmp/out" && ok ||
    bad "strays: $(cat "$tmp/out")"

# A history others may read but not write (a shared file, its directory
# not ours): export reads it (the WAL pragma refused it).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    mkdir "$tmp/ro"
    cp "$tmp/m.db" "$tmp/ro/h.db"
    chmod 755 "$tmp" "$tmp/ro"
    chmod 644 "$tmp/ro/h.db"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$hvb" history export \
        --db "$tmp/ro/h.db" --format csv >"$tmp/out" 2>&1 &&
        [ "$(wc -l <"$tmp/out")" -eq 81 ] && ok ||
        bad "a read-only history: $(head -2 "$tmp/out")"
else
    echo "note: the read-only history part needs root and setpriv: not run"
fi

finish history-names
