#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# An A/A history (issue 22): N reviews of one build against itself
# (lookup rcu-noref and rwlock-ref, time, 2 pairs each), recorded, then
# each series' spread (sd/mean), the ratio series beside the absolute
# one, and history detect over both.  The ratio should be the narrower
# and have no change point; the absolute one moves with the machine.
# Usage: scripts/history-aa.sh HVBENCH [N] (default 30; scratch in /tmp/aa)
set -u
H=$(realpath "$1")
N=${2:-30}
B=/tmp/aa-bin/hvbench
repo=$(cd "$(dirname "$0")/.." && pwd)
rm -rf /tmp/aa /tmp/aa.db*; mkdir -p /tmp/aa /tmp/aa-bin
cp "$H" "$B"
i=1
while [ $i -le $N ]; do
  "$H" review HEAD HEAD --repo "$repo" --base-bin $B --head-bin $B --metric time --pairs 2 --max-pairs 2 --explain none -q --out /tmp/aa/$i -- lookup --plugin domlookup=rcu-noref,rwlock-ref --threads 1 >/dev/null 2>&1
  "$H" history record /tmp/aa/$i/review.json --db /tmp/aa.db >/dev/null || echo "record $i failed"
  i=$((i+1))
done
/usr/bin/python3 - <<'PY'
import sqlite3, statistics as st
c = sqlite3.connect("/tmp/aa.db")
for cell, in c.execute("SELECT DISTINCT cell FROM points"):
    for s in ("ratio", "absolute"):
        v = [r[0] for r in c.execute("SELECT value FROM points WHERE cell=? AND series=? ORDER BY run_id", (cell, s))]
        print("%-40s %-8s n=%d mean=%.4g sd/mean=%.2f%%" % (cell, s, len(v), st.mean(v), 100*st.stdev(v)/st.mean(v)))
PY
"$H" history detect --db /tmp/aa.db
