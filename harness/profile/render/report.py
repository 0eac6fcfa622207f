#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""hvbench report: charts and an offline HTML page from results files.

  report.py --out DIR --ledger JSON [--gate FILE] RESULT.json...

Reads the hvbench results (docs/schema.md): per cell the raw samples
(hvbench.cells[].samples_ns_per_op), the summary, the ratio to the
group's reference, lock tables (cells[].lockstat) and profiles
(cells[].profile, hvbench.profile).

Every interval, ratio and verdict comes from C, through --gate (what
`hvbench report` computed with gate's code: {PATH: gate's JSON view,
with "cells": each cell's median interval}): nothing is bootstrapped or
judged here.  A variant's ratio is the paired ratio gate judges (the
median of its per-round ratios to the reference), its interval (a 95%
CI, or with fewer than 6 rounds the rounds' range, said so), its
verdict and, when unstable, gate's reason; the table, the ratio chart's
markers and `hvbench gate FILE` say the same.  Without gate's row the
file's cells[].paired; a file with neither (no paired rounds) shows the
ratio of medians (ratio_to_reference), not judged.  The notes name every
noise flag the file recorded (cells[].noise_flags, e.g. cpu-share<90%).

Charts (PNG and SVG, no timestamps or software tags in the metadata),
all on linear axes, bars from zero:
bars.*   grouped bars per group (workload, params, threads) and plugin,
         median ns/op with its interval (bars offset by hand: Debian's
         matplotlib 3.6 has no grouped_bar)
ratio.*  paired ratio to the reference with its interval, the
         threshold's band around 1.0 shaded; the marker is gate's
         verdict: filled improved or regressed, hollow unchanged, a cross
         unstable (the reason in the table); ratio.json is its data as
         drawn (each point's verdict, marker and fill)
scaling.* ns/op against threads, when a run has several thread counts
dist.*   per-sample distributions (box plot + the points)
seeds.*  with --seeds DIR (a reproduce directory, hvbench reproduce): each
         seed claim's ratio beside the one measured here, dots on a log
         axis (the claims span 0.001 to 1000), the band within 2x of the
         seed's shaded

Each page starts with "How to read this", linked to docs/running.md
(copied beside the page, docs/running.md, from the source tree or the
installed documentation).
"""
import argparse
import html
import json
import math
import os
import shutil
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "hvbench"
plt.rcParams["figure.dpi"] = 100
PNG_META = {"Software": None}
SVG_META = {"Date": None, "Creator": None}


def die(msg):
    print(f"hvbench: report: {msg}", file=sys.stderr)
    sys.exit(2)


def load(paths):
    runs = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            die(f"cannot read '{p}': {e}")
        hv = doc.get("hvbench") if isinstance(doc, dict) else None
        if not isinstance(hv, dict) or not isinstance(hv.get("cells"), list):
            die(f"'{p}' is not an hvbench results file (no hvbench.cells)")
        runs.append((p, doc))
    return runs


def median(xs):
    s = sorted(xs)
    n = len(s)
    return (s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2) if n else float("nan")


def plugin_label(cell):
    parts = []
    for slot, p in (cell.get("plugins") or {}).items():
        parts.append(p.get("label") or p.get("name") or "?")
    return ",".join(parts) or "-"


def paired_of(c, judged):
    """(ratio, interval, verdict, why, interval label) of variant cell @c:
    gate's row @judged, else the file's paired ratio, else None."""
    if judged:
        ci = judged.get("ci95") or [None, None]
        iv = judged.get("interval") or {}
        return (judged.get("ratio"), ci if None not in ci else None,
                judged.get("verdict"), judged.get("why"), iv.get("label"))
    p = c.get("paired")
    if isinstance(p, dict) and p.get("median") is not None:
        n = len(p.get("ratios") or [])
        label = f"range of {n} rounds" if p.get("interval") == "range" else "95% CI"
        return p["median"], p.get("ci95"), None, None, label
    return None


def median_interval(cell, judged):
    """(interval, label) of cell @cell's median, from C (gate's "cells")."""
    iv = judged.get(cell.get("name")) or {}
    if not iv.get("ci"):
        return None, None
    return iv["ci"], (f"range of {iv['n']} rounds" if iv.get("interval") == "range"
                      else "95% CI")


def collect(runs, gate=None):
    """One row per cell of every run; @gate: {PATH: gate's JSON view}."""
    rows = []
    for path, doc in runs:
        cells = doc["hvbench"]["cells"]
        view = (gate or {}).get(path) or {}
        judged = {b.get("name"): b for b in view.get("benchmarks") or []}
        threshold = view.get("threshold")
        refs = {}
        for c in cells:
            if c.get("variant") == 0:
                refs[c.get("group")] = c
        for c in cells:
            xs = [x for x in (c.get("samples_ns_per_op") or []) if x is not None]
            med = (c.get("summary") or {}).get("median")
            if med is None and xs:
                med = median(xs)
            ci, ci_label = median_interval(c, view.get("cells") or {})
            ref = refs.get(c.get("group"))
            paired = paired_of(c, judged.get(c.get("name"))) if ref is not c else None
            if paired:
                ratio, rci, verdict, why, rci_label = paired
            else:
                ratio, verdict, why = c.get("ratio_to_reference"), None, None
                rci, rci_label = None, None
            rows.append({
                "file": path, "run": doc, "cell": c, "name": c.get("name", "?"),
                "group": f"{os.path.basename(path)}:{c.get('group_name', c.get('group'))}",
                "group_label": c.get("group_name", str(c.get("group"))),
                "plugins": plugin_label(c), "threads": c.get("threads", 1),
                "samples": xs, "median": med, "ci": ci, "ci_label": ci_label,
                "ratio": ratio, "ratio_ci": rci, "ratio_ci_label": rci_label,
                "paired": bool(paired), "verdict": verdict, "verdict_why": why,
                "threshold": threshold,
                "noise": list(c.get("noise_flags") or []),
                "cv": (c.get("summary") or {}).get("cv"),
                "is_ref": c.get("variant") == 0, "status": c.get("status", "ok"),
            })
    return rows


def one_label(labels, default):
    """The column head of intervals named @labels: their one name, or
    "interval" when they differ (each cell then names its own)."""
    names = set(x for x in labels if x)
    return names.pop() if len(names) == 1 else default if not names else "interval"


def instrumented(doc):
    """A lockstat or profile run: its timings include the instrument."""
    h = doc["hvbench"]
    return "lockstat" in h or "profile" in h


def minor_label(v, lo, hi):
    """The label of minor tick @v on a log axis showing [lo, hi], or "":
    every minor tick within a factor of 3 (a narrow ratio axis has
    nothing else to read), 2 and 5 within a factor of 30, none beyond.
    Labelling all of them made "0.03 ... 0.09" run into "0.1"."""
    if v <= 0 or lo <= 0 or hi / lo > 30:
        return ""
    m = v / 10 ** math.floor(math.log10(v) + 1e-9)
    if hi / lo <= 3 or any(abs(m - k) < 1e-6 for k in (2, 5)):
        return f"{v:g}"
    return ""


def log_axis_labels(axis):
    """Plain numbers on a log axis; minor ticks labelled where there is
    room for them (decided at draw time, from the axis' final range)."""
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))

    def minor(v, _):
        lo, hi = sorted(axis.get_view_interval())
        return minor_label(v, lo, hi)
    axis.set_minor_formatter(matplotlib.ticker.FuncFormatter(minor))
    axis.set_tick_params(which="minor", labelsize=7)


def save(fig, out, stem):
    # bbox_inches="tight" keeps long labels and outside legends in frame.
    fig.savefig(os.path.join(out, stem + ".png"), metadata=PNG_META,
                bbox_inches="tight")
    fig.savefig(os.path.join(out, stem + ".svg"), metadata=SVG_META,
                bbox_inches="tight")
    plt.close(fig)
    return [stem + ".png", stem + ".svg"]


def chart_bars(rows, out):
    """Bars from zero on a linear axis: a bar's length is its median."""
    groups = list(dict.fromkeys(r["group"] for r in rows))
    plugins = list(dict.fromkeys(r["plugins"] for r in rows))
    w = 0.8 / max(1, len(plugins))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(groups) + 2), 4.5))
    for i, p in enumerate(plugins):
        xs, ys, lo, hi = [], [], [], []
        for gi, g in enumerate(groups):
            for r in rows:
                if r["group"] == g and r["plugins"] == p and r["median"] is not None:
                    xs.append(gi + (i - (len(plugins) - 1) / 2) * w)
                    ys.append(r["median"])
                    ci = r["ci"] or (r["median"], r["median"])
                    lo.append(max(0, r["median"] - ci[0]))
                    hi.append(max(0, ci[1] - r["median"]))
        ax.bar(xs, ys, w, yerr=[lo, hi], capsize=3, label=p)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([g.split(":", 1)[1] for g in groups], rotation=20, ha="right",
                       fontsize=8)
    ax.set_ylim(bottom=0)
    label = one_label([r["ci_label"] for r in rows], "95% CI")
    ax.set_ylabel(f"median ns/op (whiskers: {label})")
    ax.set_title("Time per operation by plugin (lower is better)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return save(fig, out, "bars")


# The ratio chart's marker per gate verdict: (colour, marker, filled).
VERDICT_MARK = {"improved": ("tab:green", "o", True),
                "regressed": ("tab:red", "o", True),
                "unchanged": ("black", "o", False),
                "unstable": ("tab:grey", "X", True),
                None: ("tab:grey", "o", False)}


def chart_ratio(rows, out):
    """Each variant's paired ratio and interval on a linear axis, the
    marker gate's verdict (VERDICT_MARK), the threshold's band shaded."""
    rr = [r for r in rows if not r["is_ref"] and r["ratio"]]
    if not rr:
        return []
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rr) + 1.8))
    ts = [r["threshold"] for r in rr if r["threshold"] is not None]
    if ts:
        ax.axvspan(1 - max(ts), 1 + max(ts), color="0.9", zorder=0)
    xs, drawn = [1.0], []
    for i, r in enumerate(rr):
        ci = r["ratio_ci"]
        colour, marker, filled = VERDICT_MARK.get(r["verdict"], VERDICT_MARK[None])
        if ci:
            ax.plot([ci[0], ci[1]], [i, i], color=colour, lw=2)
            xs += ci
        ax.plot([r["ratio"]], [i], marker, color=colour,
                mfc=colour if filled else "white", ms=8)
        drawn.append({"name": r["name"], "ratio": r["ratio"], "interval": ci,
                      "verdict": r["verdict"], "marker": marker,
                      "colour": colour, "filled": filled})
        xs.append(r["ratio"])
        ax.annotate(f"{r['ratio']:.3g} {r['verdict'] or 'not judged'}",
                    (r["ratio"], i), textcoords="offset points", xytext=(8, 4),
                    fontsize=8)
    ax.axvline(1.0, color="black", lw=1)
    pad = 0.08 * (max(xs) - min(xs) or 1)
    ax.set_xlim(max(0, min(xs) - pad), max(xs) + 3 * pad)
    ax.set_ylim(-0.6, len(rr) - 0.4)
    ax.set_yticks(range(len(rr)))
    ax.set_yticklabels([r["name"] for r in rr], fontsize=7)
    label = one_label([r["ratio_ci_label"] for r in rr], "95% CI")
    band = f"shaded: 1 \u00b1 {max(ts) * 100:.3g}%, gate's threshold" if ts else ""
    ax.set_xlabel("paired ratio to the group's reference: median of the per-round "
                  f"ratios (< 1 faster)\nline: its {label}; {band}\nmarker: gate's "
                  "verdict, filled improved or regressed, hollow unchanged, X unstable")
    ax.set_title("A/B paired ratio and gate's verdict")
    fig.tight_layout()
    # The chart's data as drawn, for a reader or a test: ratio.json.
    with open(os.path.join(out, "ratio.json"), "w", encoding="utf-8") as f:
        json.dump({"xscale": ax.get_xscale(), "xlim": list(ax.get_xlim()),
                   "points": drawn}, f, indent=1)
    return save(fig, out, "ratio")


def chart_scaling(rows, out):
    threads = sorted(set(r["threads"] for r in rows))
    if len(threads) < 2:
        return []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p in dict.fromkeys(r["plugins"] for r in rows):
        pts = sorted((r["threads"], r["median"], r["ci"]) for r in rows
                     if r["plugins"] == p and r["median"] is not None)
        if not pts:
            continue
        xs = [t for t, _, _ in pts]
        ys = [m for _, m, _ in pts]
        lo = [m - (c or (m, m))[0] for _, m, c in pts]
        hi = [(c or (m, m))[1] - m for _, m, c in pts]
        ax.errorbar(xs, ys, yerr=[lo, hi], capsize=2, marker="o", label=p)
    ax.set_ylim(bottom=0)
    ax.set_xticks(threads)
    ax.set_xticklabels([str(t) for t in threads])
    ax.set_xlabel("measured threads")
    ax.set_ylabel("median ns/op (wall time / all threads' ops)")
    ax.set_title("Scaling")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out, "scaling")


def chart_dist(rows, out):
    rr = [r for r in rows if r["samples"]]
    if not rr:
        return []
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rr) + 1.5))
    ax.boxplot([r["samples"] for r in rr], vert=False, widths=0.5)
    for i, r in enumerate(rr, 1):
        ax.plot(r["samples"], [i] * len(r["samples"]), "k.", alpha=0.5, ms=4)
    ax.set_yticks(range(1, len(rr) + 1))
    ax.set_yticklabels([r["name"] for r in rr], fontsize=7)
    ax.set_xlim(left=0)
    ax.set_xlabel("ns/op, one point per repetition")
    ax.set_title("Per-sample distributions")
    fig.tight_layout()
    return save(fig, out, "dist")


def chart_seeds(claims, out):
    """Each claim's seed ratio (black; a bar for a range) beside the ratio
    measured here (a dot with its CI): green when the direction matches
    and the magnitude is within 2x, orange when only the direction does,
    red when it does not; a claim the model cannot measure is named."""
    if not claims:
        return []
    fig, ax = plt.subplots(figsize=(9, 0.5 * len(claims) + 1.8))
    xs = []
    for i, c in enumerate(claims):
        lo, hi = c["seed_ratio"]
        ax.fill_betweenx([i - 0.3, i + 0.3], lo / 2, hi * 2, color="0.92")
        if lo == hi:
            ax.plot([lo], [i], "kD", ms=6)
        else:
            ax.plot([lo, hi], [i, i], "k-", lw=4)
        xs += [lo / 2, hi * 2]
        m = c.get("measured") or {}
        r = m.get("ratio")
        if c["status"] != "measured" or r is None:
            ax.annotate("not reproducible here" if c["status"] == "not-reproducible"
                        else "failed", (hi * 2, i), textcoords="offset points",
                        xytext=(6, -3), fontsize=7)
            continue
        colour = ("tab:grey" if c.get("direction_resolved") is False
                  else "tab:green" if c["direction_matches"] and c["within_2x"]
                  else "tab:orange" if c["direction_matches"] else "tab:red")
        ci = m.get("ci95")
        if ci:
            ax.plot(ci, [i, i], color=colour, lw=2)
            xs += ci
        ax.plot([r], [i], "o", color=colour, ms=8)
        xs.append(r)
        ax.annotate(f"{r:.3g}", (r, i), textcoords="offset points", xytext=(6, 4),
                    fontsize=7)
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_xscale("log")
    pos = [x for x in xs if x and x > 0]
    ax.set_xlim(min(pos + [0.5]) / 1.5, max(pos + [2]) * 1.5)
    ax.set_yticks(range(len(claims)))
    ax.set_yticklabels([f"{c['seed']}: {c['figure'][:60]}" for c in claims], fontsize=7)
    ax.invert_yaxis()
    log_axis_labels(ax.xaxis)
    ax.set_xlabel("ratio (log): the seed's (black) and the one measured here "
                  "(dot, 95% CI)\nshaded: within 2x of the seed's; green: direction "
                  "and magnitude, orange: direction only, red: neither, grey: CI spans 1")
    ax.set_title("Seeds: each claim beside the same figure measured here")
    fig.tight_layout()
    return save(fig, out, "seeds")


def seeds_section(d, out):
    """HTML of the seeds section of reproduce directory @d, its chart, and
    the runs' results files and logs copied beside the page (seeds/)."""
    e = html.escape
    try:
        with open(os.path.join(d, "reproduce.json"), encoding="utf-8") as f:
            t = json.load(f)
        claims, runs = t["claims"], t["runs"]
    except (OSError, ValueError, KeyError, TypeError) as x:
        die(f"'{d}' is not a reproduce directory: {x}")
    same = os.path.abspath(d) == os.path.abspath(out)
    dst = out if same else os.path.join(out, "seeds")
    href = {}
    for r in runs:
        for key in ("file", "log"):
            f = r.get(key)
            if not f or "/" in f or not os.path.exists(os.path.join(d, f)):
                continue
            if not same:
                os.makedirs(dst, exist_ok=True)
                shutil.copyfile(os.path.join(d, f), os.path.join(dst, f))
            href[(r["seed"], r["name"], key)] = f if same else f"seeds/{f}"
    images = chart_seeds(claims, out)
    inv = t.get("invocation", {})
    h = ["<h2 id='seeds'>Seeds: each claim beside the figure measured here</h2>",
         f"<p>hvbench reproduce{' --quick' if inv.get('quick') else ''}, "
         f"invocation <code>{e(str(inv.get('id')))}</code>: "
         f"{t.get('summary', {}).get('measured', 0)} of {len(claims)} claims measured, "
         f"{t.get('summary', {}).get('direction_mismatches', 0)} in the other direction, "
         f"{t.get('summary', {}).get('within_2x', 0)} within 2x of the seed. Every figure "
         "comes from a results file one of its runs wrote (linked below); "
         "profiles are not recorded by reproduce: rerun a row's command with "
         "<code>hvbench profile</code> for its flame graph.</p>",
         "<table><tr><th>seed</th><th class=l>the claim</th><th>seed ratio</th>"
         "<th class=l>measured here</th><th>ratio of ratios</th><th>direction</th>"
         "<th>within 2x</th><th class=l>how it was measured</th><th class=l>runs</th></tr>"]
    for c in claims:
        lo, hi = c["seed_ratio"]
        sr = f"{lo:.3g}x" if lo == hi else f"{lo:.3g}-{hi:.3g}x"
        m = c.get("measured") or {}
        if c["status"] == "measured":
            ci = m.get("ci95")
            meas = (f"{fmt(m.get('num_value'), 3)} / {fmt(m.get('den_value'), 3)} "
                    f"{e(m.get('unit', ''))} = <b>{fmt(m.get('ratio'), 3)}x</b>"
                    + (f" [{fmt(ci[0], 3)}, {fmt(ci[1], 3)}]" if ci else "")
                    + f" ({e(m.get('method', ''))})")
            d_ok, w_ok = c["direction_matches"], c["within_2x"]
            if c.get("direction_resolved") is False:
                dcell = f"<td class=warn>unclear (CI spans 1; point: {'yes' if d_ok else 'no'})</td>"
            else:
                dcell = f"<td class={'good' if d_ok else 'bad'}>{'yes' if d_ok else 'NO'}</td>"
            wcell = f"<td class={'good' if w_ok else 'warn'}>{'yes' if w_ok else 'no'}</td>"
            ror = fmt(c.get("ratio_of_ratios"), 3)
        else:
            meas = (("<b>not reproducible here</b>: " if c["status"] == "not-reproducible"
                     else "<b class=bad>failed</b>: ") + e(str(c.get("reason"))))
            dcell = wcell = "<td>n/a</td>"
            ror = "-"
        links = []
        for side in ("num", "den"):
            run = (m.get(side) or [None])[0]
            for key in ("file", "log"):
                u = href.get((c["seed"], run, key))
                if u and (u, key) not in [(x, y) for x, y, _ in links]:
                    links.append((u, key, run))
        lk = "<br>".join(f'<a href="{e(u)}">{e(run)} {"results" if k == "file" else "log"}</a>'
                         for u, k, run in links) or "-"
        how = e(str(c.get("how") or "-"))
        also = c.get("also")
        if also and also.get("ratio") is not None:
            how += (f"<br>This invocation: {e(also['what'])} {also['num']:.4g} / "
                    f"{also['den']:.4g} = <b>{also['ratio']:.3g}</b>")
        if c.get("earlier"):
            how += f"<br><i>Earlier, not this invocation's:</i> {e(c['earlier'])}"
        h.append(f"<tr><td>{e(c['seed'])}</td><td class=l>{e(c['claim'])}<br>"
                 f"<small>{e(c['figure'])}</small></td><td>{sr}</td>"
                 f"<td class=l>{meas}</td><td>{ror}</td>{dcell}{wcell}"
                 f"<td class=l><small>{how}</small></td>"
                 f"<td class=l>{lk}</td></tr>")
    h.append("</table>")
    for png in images:
        if png.endswith(".png"):
            h.append(f'<p><a href="{e(png[:-4])}.svg"><img src="{e(png)}" alt="{e(png)}"></a></p>')
    h.append("<h3>Runs</h3><table><tr><th class=l>run</th><th>pid</th><th>exit</th>"
             "<th>seconds</th><th class=l>command</th></tr>")
    for r in runs:
        h.append(f"<tr><td class=l>{e(r['seed'])}-{e(r['name'])}</td><td>{r.get('pid')}</td>"
                 f"<td>{r.get('exit_status')}</td>"
                 f"<td>{(r.get('ended_unix_s', 0) - r.get('started_unix_s', 0)):.1f}</td>"
                 f"<td class=l><code>{e(' '.join(r.get('command', [])))}</code></td></tr>")
    h.append("</table>")
    return h, images


def fmt(x, d=4):
    return "-" if x is None else f"{x:.{d}g}"


def env_line(ctx):
    """The machine in words: "host vm, 2 CPUs at 2596 MHz, CPU frequency
    scaling off, load average 1.11 0.76 0.51" (it printed Python's
    "CPU scaling False, load [1.10938, 0.76416, 0.513184]")."""
    def known(v):
        return "unknown" if v is None else str(v)
    scaling = {True: "on", False: "off"}.get(ctx.get("cpu_scaling_enabled"),
                                             "unknown")
    load = ctx.get("load_avg")
    if isinstance(load, list) and load and \
            all(isinstance(x, (int, float)) for x in load):
        load = " ".join(f"{x:.2f}" for x in load)
    return (f"host {known(ctx.get('host_name'))}, {known(ctx.get('num_cpus'))} CPUs "
            f"at {known(ctx.get('mhz_per_cpu'))} MHz, CPU frequency scaling "
            f"{scaling}, load average {known(load)}")


def hosts_table(runs, ledger):
    """Hosts side by side when the runs (or a merged file's hvbench.hosts)
    come from more than one machine; rows that differ are marked.  The rows
    are the ledger's as hvbench passes them (--ledger, from one table in
    harness/output/ledger.c), those of the machine: of each host a merged file
    keeps its environment and counters, e.g. {"label": "vCPUs", "object":
    "environment", "key": "vcpus_online"}."""
    e = html.escape
    hosts = {}
    for _, doc in runs:
        hv = doc["hvbench"]
        for name, h in (hv.get("hosts") or {}).items():
            hosts.setdefault(name, h)
        name = (doc.get("context") or {}).get("host_name") or "unknown"
        hosts.setdefault(name, {"environment": hv.get("environment") or {},
                                "counters": hv.get("counters") or {}})
    if len(hosts) < 2:
        return []
    names = sorted(hosts)
    out = ["<h2>Hosts</h2><table><tr><th class=l></th>"]
    out += [f"<th class=l>{e(n)}</th>" for n in names]
    out.append("</tr>")

    def pmu(h):
        c = ((h.get("counters") or {}).get("counters") or {}).get("cycles_per_op") or {}
        return "yes (PMU)" if c.get("available") else "no"

    rows = []
    for r in ledger:
        if r["object"] == "environment":
            rows.append((r["label"], [str((hosts[n].get("environment") or {}).get(r["key"], "?"))
                                      for n in names]))
        elif r["object"] == "counters" and r.get("key") is None:
            rows.append((r["label"], [pmu(hosts[n]) for n in names]))
    for label, vals in rows:
        differ = len(set(vals)) > 1
        cls = " class='l warn'" if differ else " class=l"
        out.append(f"<tr><td{cls}>{'&#9888; ' if differ else ''}{e(label)}</td>")
        out += [f"<td{cls}>{e(v)}</td>" for v in vals]
        out.append("</tr>")
    out.append("</table><p>Rows marked &#9888; differ between the hosts: a "
               "difference between their results may be the machines'.</p>")
    return out


def interval_text(ci, label, head):
    """An interval cell: "lo - hi", its own name added where the column's
    head is "interval" (the cells' intervals differ)."""
    if not ci:
        return "-"
    return f"{fmt(ci[0])} - {fmt(ci[1])}" + (f" ({label})" if head == "interval" and label else "")


def docs_link(out):
    """docs/running.md copied beside the page (out/docs/running.md), from
    the source tree (render/ is harness/profile/render) or the installed
    documentation (share/hvbench/render -> share/doc/hvbench); its
    relative href, or None when neither has it."""
    here = os.path.dirname(os.path.abspath(__file__))
    for src in (os.path.join(here, "..", "..", "..", "docs", "running.md"),
                os.path.join(here, "..", "..", "doc", "hvbench", "running.md")):
        if os.path.isfile(src):
            os.makedirs(os.path.join(out, "docs"), exist_ok=True)
            shutil.copyfile(src, os.path.join(out, "docs", "running.md"))
            return "docs/running.md"
    return None


def how_to_read(out, ts):
    """The page's "How to read this" paragraph, linked to running.md."""
    href = docs_link(out)
    more = (f'<a href="{href}#paired-ab-rounds">docs/running.md</a>' if href
            else "docs/running.md in hvbench's source")
    band = " or ".join(f"{t * 100:.3g}%" for t in ts) or "the threshold"
    return ("<p class=how><b>How to read this.</b> Each row is a cell, its "
            "median ns/op and that median's interval. A variant's paired ratio "
            "is the median of its per-round ratios to its group's reference "
            "(below 1: faster), measured in the same rounds, so the machine's "
            "drift cancels; its interval is a 95% bootstrap CI, or with fewer "
            "than 6 rounds the rounds' range, and the column says which. The "
            "verdict is <code>hvbench gate</code>'s on this file, t being "
            f"{band}: regressed when the whole interval lies above 1 + t, "
            "improved when it lies below 1 &minus; t, unstable (with the "
            "reason) when it reaches above 1 + t without lying there, "
            "unchanged otherwise; the ratio chart marks the same verdicts. "
            "Noise flags "
            "such as cpu-share&lt;90% (other work on the machine) are notes: "
            f"the paired interval already carries them. More: {more}.</p>")


def page(runs, rows, images, out, linked, lock_rows, ledger, seeds=None):
    e = html.escape
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         "<title>hvbench report</title>",
         "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
         "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;"
         "padding:3px 6px;text-align:right}td.l,th.l{text-align:left}"
         ".warn{color:#a40}.good{color:#070}.bad{color:#a00}img{max-width:100%}</style>",
         "</head><body>", "<h1>hvbench report</h1>"]
    h.extend(seeds or [])
    h.append("<h2>Results</h2>")
    if any(instrumented(d) for _, d in runs) and not all(r["run"] is None or instrumented(r["run"]) for r in rows):
        h.append("<p>Timings of lockstat and profile runs include their "
                 "instrument and are not shown here; those runs feed the lock "
                 "tables and flame graphs below.</p>")
    ts = sorted(set(r["threshold"] for r in rows if r["threshold"] is not None))
    h.append(how_to_read(out, ts))
    ci_head = one_label([r["ci_label"] for r in rows], "95% CI")
    rci_head = one_label([r["ratio_ci_label"] for r in rows], "ratio CI")
    h.append("<table><tr><th class=l>cell</th><th>median ns/op</th>"
             f"<th>{e(ci_head)}</th><th>CV</th><th>n</th><th>paired ratio</th>"
             f"<th>{e(rci_head if rci_head == 'ratio CI' else 'ratio ' + rci_head)}</th>"
             f"<th class=l>verdict{' (gate, ' + ', '.join(f'{t * 100:.3g}%' for t in ts) + ')' if ts else ''}</th>"
             "<th class=l>notes</th></tr>")
    warnings = []
    for r in rows:
        notes = []
        if r["cv"] is not None and r["cv"] >= 0.10:
            notes.append(f"noisy (CV {r['cv'] * 100:.0f}%)")
        if r["noise"]:
            notes.append("noise flags: " + ", ".join(r["noise"]))
        if r["status"] != "ok":
            notes.append("failed: " + str(r["cell"].get("error")))
        if len(r["samples"]) < 3:
            notes.append("few samples")
        if notes:
            warnings.append(f"{r['name']}: {', '.join(notes)}")
        v = r["verdict"] or ("reference" if r["is_ref"] else "-")
        cls = {"improved": "good", "regressed": "bad", "unstable": "warn"}.get(v, "")
        if v == "unstable" and r["verdict_why"]:
            v += ": " + r["verdict_why"]
        ratio = fmt(r["ratio"])
        if not (r["paired"] or r["is_ref"] or r["ratio"] is None):
            ratio += " (of medians, not judged)"
        cv = "-" if r["cv"] is None else f"{r['cv'] * 100:.1f}%"
        h.append(f"<tr><td class=l>{e(r['name'])}</td><td>{fmt(r['median'])}</td>"
                 f"<td>{e(interval_text(r['ci'], r['ci_label'], ci_head))}</td>"
                 f"<td>{cv}</td>"
                 f"<td>{len(r['samples'])}</td><td class='{cls}'>{e(ratio)}</td>"
                 f"<td>{e(interval_text(r['ratio_ci'], r['ratio_ci_label'], rci_head))}</td>"
                 f"<td class='l {cls}'>{e(v)}</td>"
                 f"<td class=l>{e('; '.join(notes))}</td></tr>")
    h.append("</table>")
    if warnings:
        h.append("<h2>Noise warnings</h2><ul>")
        h.extend(f"<li class=warn>{e(w)}</li>" for w in warnings)
        h.append("</ul>")
    h.append("<h2>Charts</h2>")
    for png in images:
        if png.endswith(".png"):
            svg = png[:-4] + ".svg"
            h.append(f'<p><a href="{e(svg)}"><img src="{e(png)}" alt="{e(png)}"></a></p>')
    if linked:
        h.append("<h2>Flame graphs and lock tables</h2><ul>")
        for label, href in linked:
            h.append(f'<li><a href="{e(href)}">{e(label)}</a></li>')
        h.append("</ul>")
    locks = [r for r in lock_rows if r["cell"].get("lockstat")]
    if locks:
        h.append("<h2>Lock contention</h2>")
        for r in locks:
            h.append(f"<h3 id='lock-{r['cell'].get('index')}'>{e(r['name'])}</h3><table><tr>"
                     "<th class=l>lock (kind)</th><th class=l>call site</th><th>acquired</th>"
                     "<th>contended</th><th>wait total ns</th><th>wait avg ns</th>"
                     "<th>wait max ns</th><th>hold total ns</th><th>hold max ns</th></tr>")
            for x in r["cell"]["lockstat"]:
                h.append(f"<tr><td class=l>{e(x['class'])} ({e(x['kind'])})</td>"
                         f"<td class=l>{e(x['site'])}</td><td>{x['acquisitions']}</td>"
                         f"<td>{x['contended']}</td><td>{x['wait_ns_total']}</td>"
                         f"<td>{x['wait_ns_avg']:.0f}</td><td>{x['wait_ns_max']}</td>"
                         f"<td>{x['hold_ns_total']}</td><td>{x['hold_ns_max']}</td></tr>")
            h.append("</table>")
    h.extend(hosts_table(runs, ledger))
    h.append("<h2>Environment</h2>")
    for path, doc in runs:
        hv, ctx = doc["hvbench"], doc.get("context", {})
        git = hv.get("git", {})
        b = hv.get("build", {})
        h.append(f"<h3>{e(os.path.basename(path))}</h3><ul>"
                 f"<li>{e(env_line(ctx))}</li>"
                 f"<li>commit {e(str(git.get('commit')))}{' (dirty)' if git.get('dirty') else ''}</li>"
                 f"<li>{e(str(b.get('compiler')))} {e(str(b.get('cflags')))} "
                 f"({e(str(b.get('build_type')))})</li>"
                 f"<li>command: <code>{e(' '.join(hv.get('command_line', [])))}</code></li></ul>")
    # Self-check: a broken image is a console error (the page test fails on it).
    h.append("<script>window.addEventListener('load', function () {"
             " var bad = []; var im = document.images;"
             " for (var i = 0; i < im.length; i++)"
             "  if (!im[i].complete || im[i].naturalWidth === 0) bad.push(im[i].getAttribute('src'));"
             " document.body.setAttribute('data-images', bad.length ? 'missing' : 'ok');"
             " if (bad.length) console.error('hvbench report: missing images: ' + bad.join(', '));"
             "});</script>")
    h.append("</body></html>")
    with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(h) + "\n")


def link_profiles(runs, out):
    """Copy flame graphs next to the page; return (label, href) pairs."""
    links = []
    for path, doc in runs:
        src = os.path.dirname(os.path.abspath(path))
        for c in doc["hvbench"]["cells"]:
            prof = c.get("profile")
            if not prof:
                continue
            for key in ("flamegraph", "speedscope", "folded"):
                f = prof.get(key)
                if f and os.path.exists(os.path.join(src, f)):
                    dst = os.path.join(out, "profiles", f)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    if os.path.abspath(dst) != os.path.abspath(os.path.join(src, f)):
                        shutil.copyfile(os.path.join(src, f), dst)
                    links.append((f"{c.get('name')}: {key}", f"profiles/{f}"))
        for f in sorted(os.listdir(src)):
            if f.startswith("diff-") and (f.endswith(".svg") or f.endswith(".md")):
                dst = os.path.join(out, "profiles", f)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if os.path.abspath(dst) != os.path.abspath(os.path.join(src, f)):
                    shutil.copyfile(os.path.join(src, f), dst)
                links.append((f"differential: {f}", f"profiles/{f}"))
        for c in doc["hvbench"]["cells"]:
            if c.get("lockstat"):
                links.append((f"{c.get('name')}: lock table", f"#lock-{c.get('index')}"))
    return links


def main():
    ap = argparse.ArgumentParser(prog="hvbench report")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", action="append", default=[],
                    help="a reproduce directory: the seeds section")
    ap.add_argument("--ledger", required=True, type=json.loads,
                    help="the environment rows of the Hosts table (JSON)")
    ap.add_argument("--gate", help="gate's rows of each file (JSON file: "
                    "{PATH: gate's JSON view}, from hvbench report)")
    ap.add_argument("results", nargs="*")
    a = ap.parse_args()
    runs = load(a.results)
    gate = {}
    if a.gate:
        try:
            with open(a.gate, encoding="utf-8") as f:
                gate = json.load(f)
        except (OSError, ValueError) as err:
            die(f"cannot read the gate's rows '{a.gate}': {err}")
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as e:
        die(f"cannot create '{a.out}': {e}")
    all_rows = collect(runs, gate)
    if not all_rows and not a.seeds:
        die("no cells in the results")
    seeds = []
    for d in a.seeds:
        sh, _ = seeds_section(d, a.out)
        seeds += sh
    # Timings come from plain runs; lockstat and profile runs add their
    # instrument's cost, so they only feed the lock tables and flame graphs
    # (unless nothing else was given).
    rows = [r for r in all_rows if not instrumented(r["run"])] or all_rows
    images = []
    if rows:
        images += chart_bars(rows, a.out)
        images += chart_ratio(rows, a.out)
        images += chart_scaling(rows, a.out)
        images += chart_dist(rows, a.out)
    links = link_profiles(runs, a.out)
    page(runs, rows, images, a.out, links, all_rows, a.ledger, seeds)
    print(f"hvbench: report written to {os.path.join(a.out, 'index.html')}", file=sys.stderr)


if __name__ == "__main__":
    main()
