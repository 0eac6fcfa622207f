#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench history with PostgreSQL as its store (issue 22): a scratch
# server from Debian's packages (scripts/pg-local.sh: initdb in $tmp, as
# nobody when root, its socket in $tmp and no TCP listener), stopped by
# its pid at exit, also on failure.  The checks of it-history.sh that
# apply (lib-history.sh), and against SQLite:
#   1. record and export (JSON, CSV): the export equals SQLite's of the
#      same files but for the time recorded; $HVBENCH_DB takes the URL;
#      the schema's version is 3 (table schema_version).
#   2. Bad input: exit 2 with one line: lib-history's, a newer schema,
#      a server that is not there, a bad port, a database that does not
#      exist (its URL's password not printed); a database of schema 1 is
#      migrated to 3.
#   3. Two recorders at once into a new database (both migrate it): all
#      30 runs land.
#   4. kill -9 mid-record: nothing of it is left, the next record works
#      (the server released its lock).
#   5. detect: lib-history's step and A/A; the same series in SQLite give
#      the same lines.
#   6. publish: lib-history's site; its data.json equals SQLite's but for
#      the database's name, which has no password.
#   7. triage: lib-history's labels, kept in PostgreSQL's changes table.
# Skipped (77) with the reason where PostgreSQL is not installed.  About
# 15 s.  Usage: it-history-pg.sh HVBENCH SOURCE_DIR
set -u
hv=$(realpath "$1")
src=$(realpath "$2")
here=$src/tests/history
. "$src/tests/cli/lib.sh"
pg=$tmp/pg
stop_pg() {
    "$src/scripts/pg-local.sh" stop "$pg" >/dev/null 2>&1
    cleanup
}
trap stop_pg EXIT
trap 'exit 1' HUP INT PIPE TERM

url=$("$src/scripts/pg-local.sh" start "$pg" 2>"$tmp/start.err")
started $? "the local PostgreSQL" "$tmp/start.err"
base=${url%%\?*}           # postgresql://hv@/hv
opts=${url#*\?}            # host=DIR&port=N
at() { echo "${base%/*}/$1?$opts"; } # at DBNAME: its URL
newdb() { q "$url" "CREATE DATABASE $1" && at "$1"; }
. "$here/lib-history.sh"

# 1. record, export; equal to SQLite's.
hist_inputs
hist_record_export "$url" "$tmp/e"
hist_record_export "$tmp/h.db" "$tmp/l"
/usr/bin/python3 - "$tmp/e.json" "$tmp/l.json" <<'PY' && ok || bad "export: PostgreSQL's is not SQLite's"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for p in a + b:
    del p["recorded_at"]
assert a == b and len(a) > 20, (len(a), len(b))
PY
[ "$(cut -d, -f1,3- "$tmp/e.csv")" = "$(cut -d, -f1,3- "$tmp/l.csv")" ] && ok ||
    bad "export csv: PostgreSQL's is not SQLite's"
HVBENCH_DB=$url "$hv" history export --format csv >"$tmp/env.csv" &&
    [ "$(wc -l <"$tmp/env.csv")" -eq "$(($(q "$url" 'SELECT count(*) FROM points') + 1))" ] &&
    ok || bad "HVBENCH_DB=URL"
[ "$(q "$url" 'SELECT version FROM schema_version')" = 3 ] && ok || bad "schema_version"

# 2. Bad input; schemas newer and older (on a database of their own).
hist_bad_input "$url"
m=$(newdb m)
"$hv" history record "$tmp/r.json" --db "$m" >/dev/null 2>&1 || bad "record into m"
hist_schema "$m"
[ "$(q "$m" 'SELECT version FROM schema_version')" = 3 ] && ok || bad "migrated to 3"
hist_one "no server" "postgresql://hv@$tmp/none:5433/hv: connection to server on socket .* failed: No such file" \
    "$hv" history export --db "postgresql://hv@/hv?host=$tmp/none&port=5433"
hist_one "bad port" 'invalid integer value "notaport" for connection option "port"' \
    "$hv" history export --db "postgres://hv@localhost:notaport/hv"
hist_one "no database" "^hvbench: history: postgresql://hv@$tmp/.*/nosuch: .*database \"nosuch\" does not exist" \
    "$hv" history export --db "postgresql://hv:sekrit@/nosuch?$opts"
hist_one "no database, password=" "^hvbench: history: postgresql://hv@$tmp/.*/nosuch: .*database \"nosuch\" does not exist" \
    "$hv" history export --db "postgresql://hv@/nosuch?password=sekrit&$opts"
grep -q sekrit "$tmp/o" && bad "the password printed: $(cat "$tmp/o")"

# 3. Two recorders at once, into a new database.
hist_concurrent "$(newdb c)"

# 4. kill -9 inside a record's transaction.
hist_kill9 "$url"

# 5. detect, on the same series in SQLite too.
hist_detect "$(newdb s)" "$tmp/d.out"
hist_detect "$tmp/s.db" "$tmp/ld.out"
cmp -s "$tmp/d.out" "$tmp/ld.out" && ok ||
    bad "detect: PostgreSQL's is not SQLite's: $(diff "$tmp/d.out" "$tmp/ld.out")"

# 6. publish, through a URL with a password (the server trusts anyone).
hist_publish "postgresql://hv:sekrit@/s?$opts" "$tmp/site"
"$hv" history publish "$tmp/lsite" --db "$tmp/s.db" >/dev/null 2>&1
/usr/bin/python3 - "$tmp/site/data.json" "$tmp/lsite/data.json" <<'PY' && ok || bad "publish: PostgreSQL's data.json"
import json, sys
a, b = (json.load(open(f + "")) for f in sys.argv[1:])
assert a["db"].startswith("postgresql://hv@/") and a["db"].endswith("/s") and "sekrit" not in a["db"], a["db"]
a["db"] = b["db"]
assert a == b
PY

# 7. triage: the change points' table and labels in PostgreSQL too.
hist_triage "$(at s)" "$tmp/d.out" "$tmp/site2"

finish history-pg
