#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Synthetic series into a history database (its schema made by hvbench):
   synth.py DB SERIES POINTS STEP_AT STEP SIGMA SEED [CELL-PREFIX]
SERIES series of POINTS points each, N(1, SIGMA) (a ratio series), the
mean times 1+STEP from point STEP_AT on (STEP_AT < 0: no step).  One run
per point, the points of all series in it (as CI records them).  DB "-":
the SQL on stdout instead, one transaction that SQLite and PostgreSQL
both read (synth.py - 1 9 -1 0 0.01 1 | psql URL; the same values)."""
import random
import sqlite3
import sys

db, nser, npts, at, step, sigma, seed = sys.argv[1:8]
prefix = sys.argv[8] if len(sys.argv) > 8 else "synth"
nser, npts, at = int(nser), int(npts), int(at)
step, sigma = float(step), float(sigma)
rng = random.Random(int(seed))
RUN = ("INSERT INTO runs (recorded_at, kind, commit_hash) "
       "VALUES ('2026-12-02T00:00:00Z', 'review', '%040x')")
POINTS = "INSERT INTO points (run_id, cell, metric, series, value, unit) VALUES "


def runs():
    """Per run: its number and its points (cell, value)."""
    for i in range(npts):
        mean = 1.0 + (step if 0 <= at <= i else 0.0)
        yield i, [("%s/%d" % (prefix, s), rng.gauss(mean, sigma))
                  for s in range(nser)]


if db == "-":
    out = sys.stdout
    out.write("BEGIN;\n")
    for i, pts in runs():
        out.write(RUN % (i + 1) + ";\n" + POINTS + ",\n".join(
            "((SELECT max(id) FROM runs), '%s', 'time', 'ratio', %r, "
            "'new/base')" % p for p in pts) + ";\n")
    out.write("COMMIT;\n")
else:
    c = sqlite3.connect(db)
    with c:
        for i, pts in runs():
            run = c.execute(RUN % (i + 1)).lastrowid
            c.executemany(POINTS + "(?, ?, 'time', 'ratio', ?, 'new/base')",
                          [(run, cell, v) for cell, v in pts])
