#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Synthetic series into a history database (its schema made by hvbench):
   synth.py DB SERIES POINTS STEP_AT STEP SIGMA SEED [CELL-PREFIX]
SERIES series of POINTS points each, N(1, SIGMA) (a ratio series), the
mean times 1+STEP from point STEP_AT on (STEP_AT < 0: no step).  One run
per point, the points of all series in it (as CI records them)."""
import random
import sqlite3
import sys

db, nser, npts, at, step, sigma, seed = sys.argv[1:8]
prefix = sys.argv[8] if len(sys.argv) > 8 else "synth"
nser, npts, at = int(nser), int(npts), int(at)
step, sigma = float(step), float(sigma)
rng = random.Random(int(seed))
c = sqlite3.connect(db)
with c:
    for i in range(npts):
        cur = c.execute("INSERT INTO runs (recorded_at, kind, commit_hash) "
                        "VALUES ('2026-12-02T00:00:00Z', 'review', ?)",
                        ("%040x" % (i + 1),))
        run = cur.lastrowid
        mean = 1.0 + (step if 0 <= at <= i else 0.0)
        c.executemany(
            "INSERT INTO points (run_id, cell, metric, series, value, unit) "
            "VALUES (?, ?, 'time', 'ratio', ?, 'new/base')",
            [(run, "%s/%d" % (prefix, s), rng.gauss(mean, sigma))
             for s in range(nser)])
