#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# history's --db and every command's standard output (issue 34, bugs 6,
# 7, 11):
#   - a mistyped --db ("", file:...?mode=memory, postgresql:/x, a URL
#     libpq cannot read) is exit 2 with one line, and nothing is made in
#     the current directory; PostgreSQL:// (any case) is a URL;
#   - a PostgreSQL password never shows in a message, also with '?' or
#     '/' in it (the URL as libpq reads it: user, host, port, database);
#   - a write to a full disk (/dev/full) is exit 2 for export, list,
#     completion and help.
# usage: test-history-input.sh HVBENCH
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
finish test-history-input
