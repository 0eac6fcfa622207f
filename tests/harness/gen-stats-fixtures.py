#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Expected values of hvbench's statistics (harness/stats/stats.c), computed by
# scipy on fixed data.  The output is committed as
# tests/harness/fixtures/stats.json; unit-stats checks the C code against it,
# and the "stats-scipy" test (when /usr/bin/python3 has scipy) regenerates
# it and checks the committed copy still matches.
# Usage: gen-stats-fixtures.py > stats.json
import json
import sys

import numpy as np
from scipy import stats

DATA = {
    "small": [5.19, 5.21, 5.18, 5.30, 5.22],
    "odd7": [22.56, 21.9, 23.4, 22.1, 25.0, 22.3, 22.8],
    "ties": [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 10.0],
    "outlier": [10.0, 10.1, 9.9, 10.05, 9.95, 10.02, 30.0, 10.0, 9.98, 10.01],
    "wide": [float(x) for x in np.round(np.random.default_rng(7).lognormal(3, 0.3, 31), 4)],
    "shifted": [float(x) for x in np.round(np.random.default_rng(8).lognormal(3.05, 0.3, 29), 4)],
}
PAIRS = [("small", "odd7"), ("ties", "outlier"), ("wide", "shifted"),
         ("small", "ties"), ("odd7", "wide")]


def describe(v):
    a = np.array(v)
    med = float(np.median(a))
    mad = float(stats.median_abs_deviation(a))
    out = 0
    if mad > 0:
        out = int(np.sum(np.abs(0.6745 * (a - med) / mad) > 3.5))
    sd = float(np.std(a, ddof=1))
    return {"n": len(v), "mean": float(np.mean(a)), "median": med,
            "stddev": sd, "cv": sd / abs(float(np.mean(a))),
            "min": float(a.min()), "max": float(a.max()), "mad": mad,
            "outliers": out}


def main():
    out = {"generator": "scipy " + __import__("scipy").__version__,
           "data": DATA, "describe": {}, "mannwhitneyu": [],
           "bootstrap_median": {}, "bootstrap_ratio": []}
    for k, v in DATA.items():
        out["describe"][k] = describe(v)
        r = stats.bootstrap((np.array(v),), np.median, method="percentile",
                            n_resamples=20000, random_state=1)
        out["bootstrap_median"][k] = [float(r.confidence_interval.low),
                                      float(r.confidence_interval.high)]
    for a, b in PAIRS:
        r = stats.mannwhitneyu(DATA[a], DATA[b])
        out["mannwhitneyu"].append({"x": a, "y": b, "u1": float(r.statistic),
                                    "p": float(r.pvalue)})
        rb = stats.bootstrap(
            (np.array(DATA[a]), np.array(DATA[b])),
            lambda x, y, axis=-1: np.median(y, axis=axis) / np.median(x, axis=axis),
            method="percentile", n_resamples=20000, random_state=1,
            vectorized=True)
        out["bootstrap_ratio"].append({"x": a, "y": b,
                                       "ci": [float(rb.confidence_interval.low),
                                              float(rb.confidence_interval.high)]})
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


main()
