#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench xenstored at its file-descriptor limit: 32 descriptors, one
# client connected first, then 40 more at once.  The daemon must go on
# serving the first client and those it could take, drop the others
# (they read EOF), keep its log to a few lines, and stop on SIGTERM with
# its socket and pid file removed.  (Before the fix accept4()'s EMFILE
# spun the accept loop: ~195,000 log lines a second, SIGTERM ignored.)
# Usage: it-xsd-fdlimit.sh HVBENCH
set -u
hvbench=$1
command -v prlimit >/dev/null || { echo "prlimit (util-linux) missing"; exit 77; }
. "$(dirname "$0")/../cli/lib.sh"

sock=$tmp/sock
prlimit --nofile=32:32 "$hvbench" xenstored --socket "$sock" \
    --pid-file "$tmp/pid" --log "$tmp/log" ||
    { echo "FAIL: daemon did not start"; exit 1; }
pid=$(cat "$tmp/pid")
# SIGKILL at exit whatever happens: a spinning daemon ignores SIGTERM.
trap 'kill -9 "$pid" 2>/dev/null; cleanup' EXIT

# The flood, from one Python process: prints "first=1 served=N dropped=M".
/usr/bin/python3 - "$sock" >"$tmp/flood" 2>&1 <<'EOF'
import socket, struct, sys

path = sys.argv[1]
XS_READ = 2

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s

def read_root(s, rid):
    """1: answered, 0: dropped (EOF or reset), raises on a time-out."""
    try:
        s.sendall(struct.pack("<IIII", XS_READ, rid, 0, 2) + b"/\0")
        return 1 if len(s.recv(4096)) >= 16 else 0
    except (ConnectionResetError, BrokenPipeError):
        return 0

first = conn()
ok = read_root(first, 1)
flood = [conn() for _ in range(40)]
try:
    served = sum(read_root(s, 100 + i) for i, s in enumerate(flood))
    first_again = read_root(first, 2)
except socket.timeout:
    print("timed out: the daemon serves no one")
    sys.exit(1)
print("first=%d served=%d dropped=%d" % (ok & first_again, served,
                                         len(flood) - served))
EOF
res=$(cat "$tmp/flood")
case "$res" in
first=1\ served=*\ dropped=*) ok ;;
*) bad "flood: $res" ;;
esac
served=$(echo "$res" | sed -n 's/.*served=\([0-9]*\).*/\1/p')
dropped=$(echo "$res" | sed -n 's/.*dropped=\([0-9]*\).*/\1/p')
[ "${served:-0}" -ge 16 ] && ok || bad "served only ${served:-?} of 40"
[ "${dropped:-0}" -ge 1 ] && ok || bad "no client dropped at 32 descriptors"

# The log: bounded, and it says so (the drops' line, once a second at
# most, waited for; a spinning accept loop logged ~195,000 lines a
# second).
i=0
while ! grep -q "out of file descriptors" "$tmp/log" && [ $i -lt 100 ]; do
    sleep 0.05
    i=$((i + 1))
done
lines=$(wc -l <"$tmp/log")
[ "$lines" -le 20 ] && ok || bad "log has $lines lines (want <= 20)"
grep -q "out of file descriptors: [0-9]* clients* dropped" "$tmp/log" && ok ||
    bad "no drop line in the log"

# After the flood a new client is served again, and the daemon's stats
# (CONTROL stats, as xenstore-control) count the clients it dropped.
/usr/bin/python3 -c '
import socket, struct, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
s.sendall(struct.pack("<IIII", 0, 7, 0, 6) + b"stats\0")
print(s.recv(4096)[16:].decode())' "$sock" >"$tmp/stats" 2>&1 && ok ||
    bad "a client after the flood is not served: $(cat "$tmp/stats")"
grep -qx "accept_dropped $dropped" "$tmp/stats" && ok ||
    bad "stats: $(grep accept_dropped "$tmp/stats"), flood dropped $dropped"

# SIGTERM stops it within 5 s, socket and pid file gone.
term "$pid" && ok || bad "still running 5 s after SIGTERM"
[ ! -e "$sock" ] && ok || bad "socket left behind"
[ ! -e "$tmp/pid" ] && ok || bad "pid file left behind"
grep -q "stopped:" "$tmp/log" && ok || bad "no 'stopped' line"

finish xsd-fdlimit
