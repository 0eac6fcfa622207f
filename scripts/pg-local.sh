#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A scratch PostgreSQL server in one directory, to try "hvbench history
# --db postgresql://..." (and for ctest history-pg), from Debian's
# postgresql package (/usr/lib/postgresql/VERSION/bin).
#
#   scripts/pg-local.sh start DIR   initdb DIR/data (trust auth, user hv,
#                                   database hv), postgres with its socket
#                                   in DIR and no TCP listener, its pid in
#                                   DIR/pid; prints the URL to give --db
#   scripts/pg-local.sh stop DIR    stop it by that pid (fast shutdown,
#                                   then SIGKILL after 10 s)
#
# As root, the server runs as user nobody (postgres refuses root); DIR is
# then made nobody's.  Exit 77 (with the reason) where it cannot run:
# PostgreSQL not installed.  E.g.
#
#   $ scripts/pg-local.sh start /tmp/pg
#   postgresql://hv@/hv?host=/tmp/pg&port=5433
#   $ hvbench history record r.json --db 'postgresql://hv@/hv?host=/tmp/pg&port=5433'
#   $ scripts/pg-local.sh stop /tmp/pg
set -eu
dir=${2:-}
port=5433 # only names the socket file: there is no TCP listener

stop() {
    [ -f "$dir/pid" ] || return 0
    pid=$(cat "$dir/pid")
    kill -INT "$pid" 2>/dev/null || return 0
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$dir/pid"
}

as_server= # the command prefix to run as the server's user
[ "$(id -u)" -ne 0 ] || as_server="runuser -u nobody --"

start() {
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/postgres" ]; then
        echo "PostgreSQL is not installed (Debian: apt-get install postgresql)" >&2
        exit 77
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" -eq 0 ]; then
        chown nobody "$dir"
        # nobody must reach DIR through its parents (mktemp's are 0700).
        p=$dir
        while p=$(dirname "$p") && [ "$p" != / ]; do
            [ "$(stat -c %U "$p")" = root ] && chmod o+x "$p"
        done
    fi
    $as_server "$bin/initdb" -D "$dir/data" -U hv --auth=trust --no-sync \
        -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
        echo "initdb failed: $(tail -3 "$dir/initdb.log")" >&2
        exit 1
    }
    # A simple command (a function would keep the caller's stdout open:
    # "$(pg-local.sh start D)" would never end).  As root $! is runuser's;
    # the server's own pid is in postmaster.pid.
    $as_server "$bin/postgres" -D "$dir/data" -k "$dir" -p $port \
        -c listen_addresses= </dev/null >"$dir/postgres.log" 2>&1 &
    i=0
    until [ -S "$dir/.s.PGSQL.$port" ] && [ -s "$dir/data/postmaster.pid" ] &&
        "$bin/pg_isready" -q -h "$dir" -p $port -U hv; do
        i=$((i + 1))
        if [ $i -gt 150 ]; then
            echo "postgres did not start: $(tail -3 "$dir/postgres.log")" >&2
            exit 1
        fi
        sleep 0.1
    done
    head -1 "$dir/data/postmaster.pid" >"$dir/pid"
    $as_server "$bin/createdb" -h "$dir" -p $port -U hv hv
    echo "postgresql://hv@/hv?host=$dir&port=$port"
}

case ${1:-}:$dir in
start:?*) start ;;
stop:?*) stop ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
