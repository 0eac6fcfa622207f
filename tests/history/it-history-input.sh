#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# history's --db, every command's standard output, and import and record
# of files (issue 34, bugs 6, 7, 11, 15):
#   - a mistyped --db ("", file:...?mode=memory, postgresql:/x, a URL
#     libpq cannot read) is exit 2 with one line, and nothing is made in
#     the current directory; PostgreSQL:// (any case) is a URL;
#   - a PostgreSQL password never shows in a message, also with '?' or
#     '/' in it (the URL as libpq reads it: user, host, port, database);
#   - a write to a full disk (/dev/full) is exit 2 for export, list,
#     completion and help;
#   - import twice adds nothing (the same content is skipped and said);
#     a named path that cannot be read is exit 2; record goes on past a
#     bad file and says how many were not recorded.
# usage: it-history-input.sh HVBENCH
set -u
hvb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir "$tmp/w"
# db SPEC: history export --db SPEC in an empty directory; $rc, $tmp/err.
db() {
    (cd "$tmp/w" && timeout 60 "$hvb" history export --db "$1" \
        >/dev/null 2>"$tmp/err")
    rc=$?
}
for spec in "" "file:x.db?mode=memory" "postgresql:/x" "sqlite:x.db" \
    "postgresql://hv:s3c/r3t@localhost:1/hv"; do
    db "$spec"
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        [ -z "$(ls -A "$tmp/w")" ] && ! grep -q "r3t" "$tmp/err" && ok ||
        bad "--db '$spec': exit $rc, left $(ls -A "$tmp/w"), $(cat "$tmp/err")"
done
for spec in "PostgreSQL://hv:s3c?r3t@localhost:1/hv" \
    "postgresql://hv:s3c?r3t@localhost:1/hv" "POSTGRES://hv:s3c@localhost:1/hv"; do
    db "$spec"
    [ $rc -eq 2 ] && grep -q "^hvbench: history: postgresql://hv@localhost:1/hv: " "$tmp/err" &&
        ! grep -q "s3c\|r3t" "$tmp/err" && [ -z "$(ls -A "$tmp/w")" ] && ok ||
        bad "--db '$spec': exit $rc, left $(ls -A "$tmp/w"), $(cat "$tmp/err")"
done
db "$tmp/ok.db"
[ $rc -eq 0 ] && ok || bad "a plain path: exit $rc, $(cat "$tmp/err")"

# import and record (bug 15): a directory imported twice adds nothing the
# second time; a named symlink is followed and a named R.JSON read; a
# missing path is exit 2 with nothing recorded; record a bad b c records
# a and c and is exit 2 naming one not recorded.
"$hvb" run lookup --repetitions 2 --min-time 0.01 -q -o "$tmp/r.json" >/dev/null 2>&1 ||
    bad "run"
mkdir -p "$tmp/imp/sub" "$tmp/one"
cp "$tmp/r.json" "$tmp/imp/a.json"
sed 's/^{/{ /' "$tmp/r.json" >"$tmp/imp/sub/B.JSON"
runs() { sqlite3 "$tmp/imp.db" 'SELECT count(*) FROM runs' 2>/dev/null; }
"$hvb" history import "$tmp/imp" --db "$tmp/imp.db" >"$tmp/out" 2>&1 &&
    grep -q "^imported 2 file(s)" "$tmp/out" && [ "$(runs)" = 2 ] && ok ||
    bad "import: $(cat "$tmp/out")"
"$hvb" history import "$tmp/imp" --db "$tmp/imp.db" >"$tmp/out" 2>&1 &&
    grep -q "^imported 0 file(s), 0 points; .* 2 recorded already (the same content)" "$tmp/out" &&
    [ "$(runs)" = 2 ] && ok || bad "import twice: $(runs) runs, $(cat "$tmp/out")"
"$hvb" history import "$tmp/imp" "$tmp/nothere" --db "$tmp/imp2.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "nothere: No such file or directory" "$tmp/out" &&
    [ "$(sqlite3 "$tmp/imp2.db" 'SELECT count(*) FROM runs')" = 0 ] && ok ||
    bad "import of a missing path: exit $rc, $(cat "$tmp/out")"
ln -s "$tmp/r.json" "$tmp/one/link.json"
cp "$tmp/imp/sub/B.JSON" "$tmp/one/R.JSON"
"$hvb" history import "$tmp/one/link.json" "$tmp/one/R.JSON" --db "$tmp/imp3.db" >"$tmp/out" 2>&1 &&
    grep -q "^imported 2 file(s)" "$tmp/out" && ok ||
    bad "import of a named symlink and R.JSON: $(cat "$tmp/out")"
echo '{"a": 1}' >"$tmp/bad.json"
"$hvb" history record "$tmp/r.json" "$tmp/bad.json" "$tmp/imp/sub/B.JSON" --db "$tmp/rec.db" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "bad.json: neither" "$tmp/out" && grep -q "1 of 3 file(s) not recorded" "$tmp/out" &&
    [ "$(sqlite3 "$tmp/rec.db" 'SELECT count(*) FROM runs')" = 2 ] && ok ||
    bad "record with a bad file between: exit $rc, $(cat "$tmp/out")"
"$hvb" history record "$tmp/r.json" --db "$tmp/rec.db" >"$tmp/out" 2>&1 &&
    grep -q "^skipped .*r.json: already recorded as run 1 (the same content)" "$tmp/out" &&
    [ "$(sqlite3 "$tmp/rec.db" 'SELECT count(*) FROM runs')" = 2 ] && ok ||
    bad "record twice: $(cat "$tmp/out")"

if [ -w /dev/full ]; then
    for cmd in "history export --db $tmp/ok.db" list "completion bash" --help; do
        # shellcheck disable=SC2086
        "$hvb" $cmd >/dev/full 2>"$tmp/err"
        rc=$?
        [ $rc -eq 2 ] && grep -q "writing the standard output" "$tmp/err" && ok ||
            bad "$cmd > /dev/full: exit $rc, $(cat "$tmp/err")"
    done
else
    echo "SKIP: no /dev/full"
    exit 77
fi
finish it-history-input
