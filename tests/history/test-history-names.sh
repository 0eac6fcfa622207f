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
#     behind it.
# usage: test-history-names.sh HVBENCH
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

finish history-names
