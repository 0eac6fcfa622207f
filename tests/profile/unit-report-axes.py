#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py as a person reads it: its charts of results (bars, ratio,
scaling, dist) are on linear axes, bars and ns/op from zero (issue 35: no
log-scale bars); on the log axis the seeds chart keeps (claims from 0.001
to 1000) no two tick labels overlap ("0.03 ... 0.09" ran into "0.1", "40
... 80" overlapped), every axis keeps at least two labels, and the
Environment line is words, not Python values ("CPU scaling False", "load
[1.10938, ...]").
Usage: unit-report-axes.py RENDER_DIR"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from checklib import check, finish  # noqa: E402


def labels(fig, axis):
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    out = []
    for t in axis.get_majorticklabels() + axis.get_minorticklabels():
        if not t.get_visible() or not t.get_text():
            continue
        bb = t.get_window_extent(r)
        lo, hi = sorted(axis.get_view_interval())
        # Only the labels inside the axis are drawn.
        v = t.get_position()[0 if axis.axis_name == "x" else 1]
        if lo <= v <= hi:
            out.append((t.get_text(), bb))
    return out


# (which axis, range, figure size): the ratio chart's x, the bars' y.
cases = [("x", 0.03, 30, (8, 3)), ("x", 0.3, 3, (8, 3)),
         ("x", 0.9, 1.1, (8, 3)), ("x", 0.5, 2, (8, 3)),
         ("y", 35, 90, (6, 4.5)), ("y", 0.02, 150, (6, 4.5)),
         ("y", 8, 400, (6, 4.5)), ("y", 1, 1e5, (6, 4.5))]
for which, lo, hi, size in cases:
    fig, ax = plt.subplots(figsize=size)
    ax.plot([lo, hi], [lo, hi])
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)
    report.log_axis_labels(axis)
    got = labels(fig, axis)
    names = [t for t, _ in got]
    for i in range(len(got)):
        for j in range(i + 1, len(got)):
            if got[i][1].overlaps(got[j][1]):
                check(False, f"{which} {lo}..{hi}: '{got[i][0]}' overlaps "
                             f"'{got[j][0]}' ({names})")
    check(len(got) >= 2, f"{which} {lo}..{hi}: fewer than 2 labels: {names}")
    plt.close(fig)

# The results' charts: every axis linear, ns/op from zero.
drawn = {}


def keep(fig, out, stem):
    drawn[stem] = fig.axes[0]
    return [stem + ".png"]


report.save = keep
rows = [{"group": "f:lookup/threads:%d" % t, "plugins": p, "median": m * t,
         "ci": (m * t * 0.9, m * t * 1.1), "ci_label": "range of 5 rounds",
         "threads": t, "samples": [m * t] * 5, "is_ref": p == "a",
         "ratio": None if p == "a" else 0.5, "ratio_ci": (0.45, 0.55),
         "ratio_ci_label": "range of 5 rounds", "verdict": "improved",
         "threshold": 0.05, "name": f"lookup/{p}/threads:{t}"}
        for t in (1, 2) for p, m in (("a", 20.0), ("b", 10.0))]
out = tempfile.mkdtemp()
for f in (report.chart_bars, report.chart_ratio, report.chart_scaling,
          report.chart_dist):
    f(rows, out)
for stem, ax in drawn.items():
    check(ax.get_xscale() == "linear" and ax.get_yscale() == "linear",
          f"{stem}: axes {ax.get_xscale()}, {ax.get_yscale()}")
for stem in ("bars", "scaling"):
    check(drawn[stem].get_ylim()[0] == 0, f"{stem}: y from {drawn[stem].get_ylim()}")
check(drawn["dist"].get_xlim()[0] == 0, f"dist: x from {drawn['dist'].get_xlim()}")
check(set(drawn) == {"bars", "ratio", "scaling", "dist"}, f"drawn {sorted(drawn)}")
shutil.rmtree(out)

line = report.env_line({"host_name": "vm", "num_cpus": 2, "mhz_per_cpu": 2596,
                        "cpu_scaling_enabled": False,
                        "load_avg": [1.10938, 0.76416, 0.513184]})
check(line == "host vm, 2 CPUs at 2596 MHz, CPU frequency scaling off, "
      "load average 1.11 0.76 0.51", f"environment line: {line}")
line = report.env_line({})
check("None" not in line and "scaling unknown" in line, f"empty context: {line}")
finish()
