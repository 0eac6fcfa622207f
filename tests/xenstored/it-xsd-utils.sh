#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench xenstored driven by Debian's xenstore-utils through
# XENSTORED_PATH, output compared exactly; the read-only socket; Xen's own
# test-xenstore (xen-utils-4.17); the command's errors; a clean SIGTERM.
# Usage: it-xsd-utils.sh HVBENCH QUOTA_PLUGIN
# Exit 77 (skipped) when xenstore-utils is not installed.
set -u
hvbench=$1
plugin=${2:-persistent}
command -v xenstore-ls >/dev/null || { echo "xenstore-utils missing"; exit 77; }
# $tmp, ok/bad/finish, and `track PID`: killed at exit, also on failure.
. "$(dirname "$0")/../cli/lib.sh"

# same NAME EXPECTED ACTUAL
same() {
    if [ "$2" = "$3" ]; then ok; else
        bad "$1: got"
        printf '%s\n' "$3" | sed 's/^/    /'
        echo "  want"
        printf '%s\n' "$2" | sed 's/^/    /'
    fi
}

# The command is in the help.
"$hvbench" --help | grep -q "^  xenstored --socket PATH" && ok || bad "--help"
"$hvbench" help xenstored | grep -q "^usage: hvbench xenstored" && ok ||
    bad "help xenstored"

# Errors of the command: exit 2, one line.
"$hvbench" xenstored >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "needs --socket" "$tmp/err" && ok || bad "no --socket"
"$hvbench" xenstored --socket "$tmp/x" --plugin quota=nosuch \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "bad plugin"
"$hvbench" xenstored --socket "$tmp/x" --plugin domlookup=x \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "quota=NAME" "$tmp/err" && ok || bad "other slot"
"$hvbench" xenstored --socket "$tmp/$(printf '%0120d' 0)" \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "longer than" "$tmp/err" && ok || bad "long path"

sock=$tmp/sock
"$hvbench" xenstored --socket "$sock" --ro-socket "$tmp/ro" \
    --plugin quota="$plugin" --pid-file "$tmp/pid" --log "$tmp/log" ||
    { echo "FAIL: daemon did not start"; exit 1; }
pid=$(cat "$tmp/pid")
track "$pid"
[ -S "$sock" ] && [ -S "$tmp/ro" ] && ok || bad "sockets not there"

# A second daemon on a live socket is refused.
"$hvbench" xenstored --socket "$sock" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "in use" "$tmp/err" && ok || bad "live socket"

export XENSTORED_PATH="$sock"
xenstore-write /t/a hello /t/b "two words" /t/c/d "" && ok || bad "write"
same "read" "hello" "$(xenstore-read /t/a)"
same "read 2" "hello
two words" "$(xenstore-read /t/a /t/b)"
xenstore-chmod /t/a n5 r7 && ok || bad "chmod"
same "ls -p" 'a = "hello"  . . . . . . . . . . . . . . . . . . . . . . . .  (n5,r7)
b = "two words"  . . . . . . . . . . . . . . . . . . . . . .  (n0)
c = "" . . . . . . . . . . . . . . . . . . . . . . . . . . .  (n0)
 d = ""  . . . . . . . . . . . . . . . . . . . . . . . . . .  (n0)' \
    "$(xenstore-ls -p /t)"
same "ls" 't = ""
 a = "hello"
 b = "two words"
 c = ""
  d = ""' "$(xenstore-ls /)"
same "list" "a
b
c" "$(xenstore-list /t)"
xenstore-exists /t/a && ok || bad "exists"
xenstore-exists /t/zz && bad "exists missing" || ok
xenstore-rm /t/c && ok || bad "rm"
same "after rm" "a
b" "$(xenstore-list /t)"
same "read missing" "" "$(xenstore-read /t/zz 2>/dev/null)"
xenstore-read /t/zz >/dev/null 2>&1 && bad "read missing: exit 0" || ok
# Relative paths live under /local/domain/0 for a socket client.
xenstore-write rel/x 1 && same "relative" "1" \
    "$(xenstore-read /local/domain/0/rel/x)"
xenstore-write "/t/bad path" v 2>/dev/null && bad "bad path accepted" || ok

# watch: the initial event, then one per change below, none for others.
: >"$tmp/watch"
xenstore-watch -n 3 /t >"$tmp/watch" &
wpid=$!
track "$wpid"
i=0
while [ "$(wc -l <"$tmp/watch")" -lt 1 ] && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
xenstore-write /other 1 /t/a again
xenstore-rm /t/b
i=0
while kill -0 $wpid 2>/dev/null && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill $wpid 2>/dev/null
same "watch" "/t
/t/a
/t/b" "$(cat "$tmp/watch")"

# The read-only socket reads, and refuses writes with EACCES.
same "ro read" "again" "$(XENSTORED_PATH=$tmp/ro xenstore-read /t/a)"
XENSTORED_PATH=$tmp/ro xenstore-write /t/ro x 2>/dev/null &&
    bad "ro write accepted" || ok
xenstore-exists /t/ro && bad "ro write happened" || ok

# CONTROL check: the quota equals the recount of owners over the tree.
ctl=/usr/lib/xen-4.17/bin/xenstore-control
[ -x $ctl ] && same "control check" "OK" "$($ctl check 2>&1)"

# Xen's own test-xenstore (READ, WRITE, DIRECTORY, RM, transactions,
# including 'ta err': EAGAIN on a conflicting commit).
txs=/usr/lib/xen-4.17/bin/test-xenstore
if [ -x $txs ]; then
    $txs >"$tmp/txs" 2>&1 && ok || bad "test-xenstore: $(cat "$tmp/txs")"
    grep -q failed "$tmp/txs" && bad "test-xenstore: $(cat "$tmp/txs")"
fi

kill -0 "$pid" && ok || bad "daemon died"
term "$pid" && ok || bad "still running after SIGTERM"
untrack "$pid"
[ -e "$sock" ] && bad "socket left" || ok
[ -e "$tmp/ro" ] && bad "ro socket left" || ok
[ -e "$tmp/pid" ] && bad "pid file left" || ok
grep -q "stopped" "$tmp/log" && ok || bad "log: $(cat "$tmp/log")"

# --foreground: stays attached, logs to stderr, SIGINT stops it cleanly.
"$hvbench" xenstored --foreground --socket "$tmp/fg" --plugin quota="$plugin" \
    2>"$tmp/fg.err" &
pid=$!
track "$pid"
i=0
while [ ! -S "$tmp/fg" ] && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
same "foreground" "v" "$(XENSTORED_PATH=$tmp/fg sh -c \
    'xenstore-write /f v && xenstore-read /f')"
kill -INT "$pid"
wait "$pid" && ok || bad "foreground: exit status $?"
untrack "$pid"
[ -e "$tmp/fg" ] && bad "foreground: socket left" || ok
grep -q "serving $tmp/fg" "$tmp/fg.err" && ok || bad "fg log: $(cat "$tmp/fg.err")"

finish "xsd-utils ($plugin)"
