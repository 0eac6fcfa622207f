#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Flame graphs from folded stacks, standard library only.

  flamegraph.py render [--title T] [--subtitle S] [--unit U] FOLDED SVG [SPEEDSCOPE]
  flamegraph.py diff [--title T] [--scale-a X] [--scale-b Y] [--scale S]
                     [--unit U] [--json J] [--stacks] A B PREFIX
  flamegraph.py review --json J MANIFEST

render: an interactive SVG (hover shows name, value and percent; click
zooms; "Search" highlights a regular expression and shows the matched
percent; "Reset zoom"), and speedscope's JSON format.

diff: A and B are scaled (per op: scale = CPU ns/op / samples) and drawn
twice, PREFIX-after.svg (widths of B) and PREFIX-before.svg (widths of
A), each frame coloured by the change of its *self* value (flamediff.py
says when a change counts): grey unchanged or within the rounds'
spread, red grew, blue shrank (as saturated as the change is of S, the
legend's scale: the largest change unless --scale says), purple
appeared, teal vanished.  PREFIX.md and stdout rank the functions by the
magnitude of their self change, with the baseline share (perf diff's
columns); PREFIX-base.folded, PREFIX-head.folded the merged stacks.

review: every cell of a review (each build's per-round folded files) so
drawn on one scale, the largest change of all; J gets each cell's three
functions that changed most ("top") and its ranking ("self"), and with
"stacks" in the manifest (the wait and wall views, whose time sits in
shared leaves) its whole stacks ranked by their change ("stacks").

Google Benchmark's frames and the harness around the measured body fold
into one "[benchmark engine]" frame.  The SVGs need no network.
"""
import argparse
import hashlib
import html
import json
import math
import os
import re
import sys

from flamediff import (build_tree, fold_engine, frames, function_rows,
                       join_roles, judge, largest_change, role_rows,
                       stack_rows, top)

WIDTH = 1200
FRAME_H = 16
FONT = 12
PAD_TOP = 50
PAD_BOTTOM = 40
MIN_W = 0.1
TOP_SELF = 10
TOP_STACKS = 10  # in the summary; PREFIX.md has STACKS_MD
STACKS_MD = 50


def read_folded(path, scale=1.0):
    """{stack: value * @scale}, the engine's frames folded into one."""
    stacks = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            m = re.match(r"^(.*)\s+(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)$", line)
            if not m:
                sys.exit(f"flamegraph.py: {path}:{n}: not a folded stack line")
            key = fold_engine(m.group(1).split(";"))
            stacks[key] = stacks.get(key, 0.0) + float(m.group(2)) * scale
    return stacks


def name_colour(name):
    h = hashlib.md5(name.encode()).digest()
    return (205 + h[0] % 50, 80 + h[1] % 130, 40 + h[2] % 50)


GREY = (221, 221, 221)
APPEARED = (150, 70, 200)
VANISHED = (0, 115, 115)


def diff_colour(state, d, scale):
    """Grey unless the frame's self change lies outside the rounds'
    spread (flamediff.py); then red grew, blue shrank, as saturated as
    |d| is of @scale, the review's largest change (a visible tint at
    least), purple appeared, teal vanished."""
    if state == "appeared":
        return APPEARED
    if state == "vanished":
        return VANISHED
    if state not in ("grew", "shrank") or scale <= 0:
        return GREY
    c = int(235 - 215 * (0.3 + 0.7 * min(1.0, abs(d) / scale)))
    return (235, c, c) if state == "grew" else (c, c, 235)


def luminance(rgb):
    """WCAG relative luminance of an sRGB colour."""
    lin = [(v / 255) / 12.92 if v <= 10 else ((v / 255 + 0.055) / 1.055) ** 2.4
           for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_on(rgb):
    """Black or white text, whichever contrasts more (always >= 4.5:1;
    black on the dark blue of a vanished frame was 2.3:1)."""
    return "b" if contrast(rgb, (0, 0, 0)) >= contrast(rgb, (255, 255, 255)) else "w"


def css(rgb):
    return "rgb(%d,%d,%d)" % rgb


JS = r"""
<![CDATA[
var svg = document.documentElement, frames = [], details, matchedtxt, zoomed = null;
function init() {
  details = document.getElementById("details");
  matchedtxt = document.getElementById("matched");
  var gs = document.getElementsByClassName("f");
  for (var i = 0; i < gs.length; i++) {
    var g = gs[i], r = g.getElementsByTagName("rect")[0];
    frames.push({g: g, r: r, t: g.getElementsByTagName("text")[0],
      x: +r.getAttribute("x"), w: +r.getAttribute("width"),
      d: +g.getAttribute("data-depth"), name: g.getAttribute("data-name"),
      info: g.getElementsByTagName("title")[0].textContent});
    g.addEventListener("mouseover", (function(f) { return function() {
      details.textContent = f.info; }; })(frames[frames.length - 1]));
    g.addEventListener("mouseout", function() { details.textContent = " "; });
    g.addEventListener("click", (function(f) { return function() { zoom(f); }; })(frames[frames.length - 1]));
  }
  document.getElementById("reset").addEventListener("click", function() { zoom(null); });
  document.getElementById("search").addEventListener("click", function() {
    var term = prompt("Search for (regular expression):", "");
    if (term !== null) search(term);
  });
  draw();
}
function label(f, w) {
  var n = Math.floor(w / 7);
  f.t.textContent = n < 3 ? "" : (f.name.length <= n ? f.name : f.name.substring(0, n - 2) + "..");
}
function draw() {
  var x0 = 10, scale = 1, z = zoomed;
  if (z) { scale = (svg.width.baseVal.value - 20) / z.w; x0 = z.x; }
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i], show = true, x, w;
    if (z) {
      if (f.d < z.d) { x = 10; w = svg.width.baseVal.value - 20;
        show = f.x <= z.x && f.x + f.w >= z.x + z.w - 1e-6; }
      else { x = 10 + (f.x - x0) * scale; w = f.w * scale;
        show = f.x >= z.x - 1e-6 && f.x + f.w <= z.x + z.w + 1e-6; }
    } else { x = f.x; w = f.w; }
    f.g.style.display = show ? "" : "none";
    f.r.setAttribute("x", x); f.r.setAttribute("width", w);
    f.t.setAttribute("x", x + 3); label(f, w);
  }
}
function zoom(f) { zoomed = f; draw(); }
function search(term) {
  var re, total = 0, matched = 0, seen = [];
  try { re = new RegExp(term); } catch (e) { matchedtxt.textContent = "bad expression"; return; }
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i];
    if (f.d === 0) total = f.w;
    if (term !== "" && re.test(f.name)) {
      f.r.setAttribute("fill", "rgb(230,0,230)");
      var inner = false;
      for (var j = 0; j < seen.length; j++)
        if (f.x >= seen[j].x - 1e-6 && f.x + f.w <= seen[j].x + seen[j].w + 1e-6) inner = true;
      if (!inner) { seen.push(f); matched += f.w; }
    } else f.r.setAttribute("fill", f.r.getAttribute("data-fill"));
  }
  matchedtxt.textContent = term === "" ? " " : "Matched: " + (total ? (100 * matched / total).toFixed(1) : "0") + "%";
}
window.addEventListener("load", init);
]]>
"""


def num(x):
    """1000 -> "1000", 55.91 -> "55.9", 0.0123 -> "0.0123"."""
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x


def per_op(x, unit):
    """A figure and its unit as a reader takes them: ns per op in the
    unit of its size, 84000 "CPU ns/op" -> ("84", "CPU µs/op"); any
    other unit as it is."""
    if not unit.endswith("ns/op") or abs(x) < 1e4:
        return num(x), unit
    div, u = (1e6, "ms/op") if abs(x) >= 1e7 else (1e3, "µs/op")
    return "%.3g" % (x / div) if abs(x / div) < 100 else "%.0f" % (x / div), \
        unit[:-5] + u


# Characters of a heading line between the buttons: the title's 16 px
# Verdana (about 9.5 px a character) in the 960 px between "Reset zoom"
# and "Search", the subtitle's 12 px in the whole width.
TITLE_CHARS = 96
SUBTITLE_CHARS = 160


def wrap(text, width):
    """@text in lines of at most @width characters, broken after a '/',
    a ',' or a space where one is (a cell's name is its slots and
    params joined by '/'), else anywhere."""
    lines, cur = [], ""
    for part in re.split(r"(?<=[/, ])", text):
        if cur and len(cur) + len(part) > width:
            lines.append(cur)
            cur = ""
        while len(part) > width:
            lines.append(part[:width])
            part = part[width:]
        cur += part
    return lines + [cur] if cur or not lines else lines


def heading(title, subtitle):
    """The heading's SVG text lines and the height they take below the
    usual one line of each."""
    out, y = [], 20
    for line in wrap(title, TITLE_CHARS):
        out.append(f'<text x="{WIDTH / 2}" y="{y}" text-anchor="middle" '
                   f'font-size="16">{html.escape(line)}</text>')
        y += 18
    for line in wrap(subtitle, SUBTITLE_CHARS):
        out.append(f'<text x="{WIDTH / 2}" y="{y}" text-anchor="middle">'
                   f"{html.escape(line)}</text>")
        y += 16
    return out, y - 54


def legend(scale, unit, rounds, y=46):
    """The colour key of a differential graph: one scale for every graph
    drawn in one call (a review's), said in ns."""
    x, out = 10, []

    def swatch(rgb, text, w=14):
        nonlocal x
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="12" '
                   f'fill="{css(rgb)}" stroke="#888" stroke-width="0.5"/>')
        x += w + 3
        if text:
            out.append(f'<text x="{x}" y="{y + 10}">{html.escape(text)}</text>')
            x += 7 * len(text) + 12

    out.append(f'<text x="{x}" y="{y + 10}">self change per op:</text>')
    x += 140
    v, u = per_op(scale, unit)
    for i, t in enumerate((1.0, 0.5, 0.1)):
        swatch(diff_colour("shrank", t * scale, scale),
               f"-{v}" if i == 0 else "", 18)
    swatch(GREY, "within the rounds' spread", 18)
    for i, t in enumerate((0.1, 0.5, 1.0)):
        swatch(diff_colour("grew", t * scale, scale),
               f"+{v} {u}" if i == 2 else "", 18)
    swatch(APPEARED, "appeared")
    swatch(VANISHED, "vanished")
    out.append(f'<text x="{x}" y="{y + 10}">({rounds})</text>')
    return out


def frame_info(node, side, total, unit, diff):
    v = node.a if side == "a" else node.b
    if not diff:
        pct = 100.0 * v / total if total else 0
        return f"{node.name} ({v:.6g} {unit}, {pct:.2f}%)"
    sa, sb = node.self
    rng = "; rounds %.3g-%.3g / %.3g-%.3g" % (
        min(sa, default=0), max(sa, default=0), min(sb, default=0),
        max(sb, default=0))
    return (f"{node.name}: self {node.self_mean(0):.4g} -> "
            f"{node.self_mean(1):.4g} {unit} ({node.d:+.4g}{rng}"
            f"{', within their spread' if node.state == 'same' and node.d else ''}"
            f"), total {node.a:.4g} -> {node.b:.4g} ({node.state})")


def render_svg(root, path, title, subtitle, unit, side="a", scale=None,
               rounds=""):
    """@scale None: a plain graph coloured by name; else a differential
    one whose frames are coloured by flamediff's judge() on that scale."""
    diff = scale is not None
    total = root.a if side == "a" else root.b
    rows = []
    head, extra = heading(title, subtitle)
    top = PAD_TOP + extra + (24 if diff else 0)

    def depth_of(node, d):
        return max([d] + [depth_of(k, d + 1) for k in node.kids.values()])

    height = top + (depth_of(root, 0) + 1) * FRAME_H + PAD_BOTTOM
    wscale = (WIDTH - 20) / total if total > 0 else 0

    def walk(node, x, d):
        w = (node.a if side == "a" else node.b) * wscale
        if w < MIN_W:
            return
        y = height - PAD_BOTTOM - (d + 1) * FRAME_H
        info = frame_info(node, side, total, unit, diff)
        fill = (diff_colour(node.state, node.d, scale) if diff
                else name_colour(node.name))
        state = f' data-state="{node.state}"' if diff else ""
        rows.append(
            f'<g class="f" data-depth="{d}" data-name="{html.escape(node.name, True)}"{state}>'
            f"<title>{html.escape(info)}</title>"
            f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{FRAME_H - 1}" '
            f'fill="{css(fill)}" data-fill="{css(fill)}" rx="2" ry="2"/>'
            f'<text class="{text_on(fill)}" x="{x + 3:.2f}" '
            f'y="{y + FRAME_H - 4}"></text></g>')
        cx = x
        for k in sorted(node.kids):
            child = node.kids[k]
            walk(child, cx, d + 1)
            cx += (child.a if side == "a" else child.b) * wscale

    walk(root, 10.0, 0)
    out = [
        '<?xml version="1.0" standalone="no"?>',
        f'<svg version="1.1" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" xmlns="http://www.w3.org/2000/svg">',
        "<style>text { font-family: Verdana, sans-serif; font-size: "
        f"{FONT}px; fill: #000; }} .f text.w {{ fill: #fff; }}"
        " .f:hover rect { stroke: #000; stroke-width: 0.5; }"
        " .btn { cursor: pointer; fill: #036; } .f { cursor: pointer; }</style>",
        f"<script type=\"text/ecmascript\">{JS}</script>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#f8f8f0"/>',
        *head,
        '<text id="reset" class="btn" x="10" y="20">Reset zoom</text>',
        f'<text id="search" class="btn" x="{WIDTH - 110}" y="20">Search</text>',
        f'<text id="matched" x="{WIDTH - 160}" y="{height - 12}"> </text>',
        f'<text id="details" x="10" y="{height - 12}"> </text>',
    ]
    if diff:
        out.extend(legend(scale, unit, rounds, 46 + extra))
    out.extend(rows)
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def write_speedscope(stacks, path, name, unit):
    """speedscope's sampled profile; weights in ns per op ("... ns/op",
    the wait view's) are speedscope's nanoseconds, anything else "none"
    (sample counts)."""
    frames, index, samples, weights = [], {}, [], []
    for stack in sorted(stacks):
        idx = []
        for fr in stack:
            if fr not in index:
                index[fr] = len(frames)
                frames.append({"name": fr})
            idx.append(index[fr])
        samples.append(idx)
        weights.append(stacks[stack])
    doc = {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "version": "0.0.1",
        "name": name,
        "exporter": "hvbench",
        "shared": {"frames": frames},
        "profiles": [{
            "type": "sampled", "name": name,
            "unit": "nanoseconds" if unit.endswith("ns/op") else "none",
            "startValue": 0, "endValue": sum(weights),
            "samples": samples, "weights": weights,
        }],
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=None, sort_keys=True)
        f.write("\n")


class Pair:
    """One cell's two builds, per round: {stack: unit per op}."""

    def __init__(self, title, prefix, rounds_a, rounds_b, per_sample,
                 stacks=False):
        self.title, self.prefix = title, prefix
        self.rounds_a, self.rounds_b = join_roles(rounds_a, rounds_b)
        self.per_sample, self.stacks = per_sample, stacks
        self.root = build_tree(self.rounds_a, self.rounds_b)
        self.role_rows = []
        judge(self.root, per_sample)

    def rounds(self):
        n = (len(self.rounds_a), len(self.rounds_b))
        return (f"{n[0]} and {n[1]} rounds" if n != (1, 1) else
                "1 round a build: no spread known")


def mean_stacks(rounds):
    out = {}
    for stacks in rounds:
        for k, v in stacks.items():
            out[k] = out.get(k, 0.0) + v / len(rounds)
    return out


def write_folded(path, stacks):
    with open(path, "w", encoding="utf-8") as f:
        for k in sorted(stacks):
            f.write(f"{';'.join(k)} {stacks[k]:.9g}\n")


def write_tables(p, rows, unit, scale):
    """PREFIX.md and PREFIX.json: every function ranked by the magnitude
    of its self change, as perf diff ranks; the console's first rows."""
    ta, tb = p.root.a, p.root.b
    md = [f"# {p.title}", "",
          f"Total: before {ta:.4g}, after {tb:.4g} {unit} "
          f"({(tb - ta) / ta * 100 if ta else 0:+.1f}%), {p.rounds()}. Self "
          "values per function, ranked by the magnitude of their change; "
          "baseline: the function's self share of the base total "
          "(the stacks ranked by their change first, where asked).",
          *(role_table(p, unit) + stack_table(p, unit) +
            ["", "## Functions ranked by their self change", ""]
            if p.stacks else [""]),
          f"| function | change | baseline | self before ({unit}) | self after "
          f"({unit}) | delta | rounds before | rounds after | inclusive before "
          "-> after |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    con = [p.title, f"total {ta:.4g} -> {tb:.4g} {unit} ({p.rounds()})",
           *role_console(p),
           f"{'change':<9} {'function':<60} {'baseline':>8} {'before':>10} "
           f"{'after':>10} {'delta':>10}"]
    for r in rows:
        # Under 0.1% of the total and within the spread: left out.  A
        # function that appeared, vanished or moved beyond the spread
        # stays however small (the wall view's total is every thread's
        # wall time: a daemon's vanished copy is a sliver of it).
        if r["change"] == "same" or (
                ta and abs(r["self_delta"]) / ta < 0.001 and
                (r["within_spread"] or r["change"] in ("grew", "shrank") and
                 len(p.rounds_a) == 1)):
            continue
        kind = r["change"] + (" (within spread)" if r["within_spread"] else "")
        md.append("| `%s` | %s | %.2f%% | %.4g | %.4g | %+.4g | %.3g-%.3g | "
                  "%.3g-%.3g | %.4g -> %.4g |" % (
                      r["function"].replace("|", "\\|"), kind, r["baseline_pct"], r["self_base"],
                      r["self_head"], r["self_delta"],
                      min(r["self_base_rounds"]), max(r["self_base_rounds"]),
                      min(r["self_head_rounds"]), max(r["self_head_rounds"]),
                      r["base"], r["head"]))
        if len(con) < 33:
            # A name cut to the column ends in "…" (the .md has it whole).
            fn = r["function"]
            name = fn if len(fn) <= 60 else fn[:59] + "…"
            con.append(f"{r['change']:<9} {name:<60} {r['baseline_pct']:>7.2f}% "
                       f"{r['self_base']:>10.4g} {r['self_head']:>10.4g} "
                       f"{r['self_delta']:>+10.4g}"
                       f"{'  (within spread)' if r['within_spread'] else ''}")
    with open(p.prefix + ".md", "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    with open(p.prefix + ".json", "w", encoding="utf-8") as f:
        json.dump({"unit": unit, "before_total": ta, "after_total": tb,
                   "scale": scale, "functions": rows}, f, sort_keys=True)
        f.write("\n")
    return con


ROLES_MD = 20


def role_table(p, unit):
    """PREFIX.md's first table: the threads' time by role."""
    if not p.role_rows:
        return []
    md = ["", f"## Threads by role ({unit})", "",
          "Each thread's time under its role (its name in the kernel): on "
          "CPU, off CPU waiting (for a reply, a lock, the CPU), and idle "
          "(waiting for work: a pool worker with no call, a daemon with no "
          "request). Ranked by the change on CPU and waiting, those beyond "
          "the rounds' spread first: idle time delays nobody.", "",
          "| role | on CPU before -> after | delta | waiting before -> after "
          "| delta | idle before -> after | delta |",
          "|---|---:|---:|---:|---:|---:|---:|"]
    for r in p.role_rows[:ROLES_MD]:
        cells = ["%.4g -> %.4g | %+.4g" % (r[x]["base"], r[x]["head"],
                                           r[x]["delta"])
                 for x in ("on", "waiting", "idle")]
        md.append("| `%s`%s | %s |" % (
            r["role"].replace("|", "\\|"),
            " (within spread)" if r["within_spread"] else "", " | ".join(cells)))
    return md


def role_console(p):
    """The console's lines of the role table (its first 8 roles)."""
    if not p.role_rows:
        return []
    out = [f"{'role':<20} {'on CPU':>10} {'delta':>11} {'waiting':>10} "
           f"{'delta':>11} {'idle':>10} {'delta':>11}"]
    for r in p.role_rows[:8]:
        out.append(f"{r['role']:<20} " + " ".join(
            f"{r[x]['head']:>10.4g} {r[x]['delta']:>+11.4g}"
            for x in ("on", "waiting", "idle")) +
            ("  (within spread)" if r["within_spread"] else ""))
    return out + [""]


def md_literal(text):
    """@text shown as it is inside the table's raw HTML: escaped for HTML,
    and for markdown, whose emphasis would eat the underscores of
    __pthread_mutex_lock;__lll_lock_wait."""
    return (html.escape(text).replace("_", "&#95;").replace("*", "&#42;")
            .replace("|", "\\|"))


def stack_table(p, unit):
    """PREFIX.md's second table: whole stacks ranked by their change."""
    md = ["", f"## Stacks ranked by their change ({unit})", "",
          "Those beyond the rounds' spread first; the label keeps the last "
          "frames of the program, the system call and the leaf (the whole "
          "stack below it).", "",
          f"| stack | change | before ({unit}) | after ({unit}) | delta | "
          "rounds before | rounds after |", "|---|---|---:|---:|---:|---:|---:|"]
    for r in p.stack_rows[:STACKS_MD]:
        if r["change"] == "same":
            continue
        kind = r["change"] + (" (within spread)" if r["within_spread"] else "")
        md.append("| `%s`<br><sub>%s</sub> | %s | %.4g | %.4g | %+.4g | "
                  "%.3g-%.3g | %.3g-%.3g |" % (
                      r["label"].replace("|", "\\|"),
                      md_literal(r["stack"]), kind,
                      r["base"], r["head"], r["delta"], min(r["base_rounds"]),
                      max(r["base_rounds"]), min(r["head_rounds"]),
                      max(r["head_rounds"])))
    return md


def draw(p, unit, scale):
    """@p's two graphs, folded means and tables on the shared @scale;
    returns its entry of the summary and the console lines."""
    what = ("self change coloured, one scale (%s %s); " % per_op(scale, unit) +
            "grey: unchanged or within the rounds' spread")
    render_svg(p.root, p.prefix + "-after.svg", p.title,
               "widths: after (%s %s); %s" % (*per_op(p.root.b, unit), what), unit,
               side="b", scale=scale, rounds=p.rounds())
    render_svg(p.root, p.prefix + "-before.svg", p.title,
               "widths: before (%s %s); %s" % (*per_op(p.root.a, unit), what), unit,
               side="a", scale=scale, rounds=p.rounds())
    write_folded(p.prefix + "-base.folded", mean_stacks(p.rounds_a))
    write_folded(p.prefix + "-head.folded", mean_stacks(p.rounds_b))
    rows = function_rows(p.rounds_a, p.rounds_b, p.per_sample)
    if p.stacks:
        p.stack_rows = stack_rows(p.rounds_a, p.rounds_b, p.per_sample)
        p.role_rows = role_rows(p.rounds_a, p.rounds_b, p.per_sample)
    con = write_tables(p, rows, unit, scale)
    states = [n.state for n in frames(p.root)]
    entry = {"top": top([r for r in rows if r["self_delta"]]),
             "self": rows[:TOP_SELF], "scale": scale,
             "coloured": sum(s != "same" for s in states)}
    if p.stacks:
        entry["stacks"] = p.stack_rows[:TOP_STACKS]
        entry["roles"] = p.role_rows
    return entry, con


def shared_scale(pairs):
    """The largest self change outside the spread of all @pairs, to two
    significant digits up (1 where nothing changed)."""
    m = max((largest_change(p.root) for p in pairs), default=0.0)
    if m <= 0:
        return 1.0
    step = 10 ** (math.floor(math.log10(m)) - 1)
    return math.ceil(m / step - 1e-9) * step


def cmd_diff(args):
    # The stacks start at the threads' roots (the cell is in the file
    # name), so the two cells' stacks join as difffolded.pl joins them.
    p = Pair(args.title, args.prefix, [read_folded(args.a, args.scale_a)],
             [read_folded(args.b, args.scale_b)],
             max(args.scale_a, args.scale_b), args.stacks)
    entry, con = draw(p, args.unit, args.scale or shared_scale([p]))
    print("\n".join(con))
    print(f"diff: {args.prefix}-after.svg, {args.prefix}-before.svg, {args.prefix}.md")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(entry, f, sort_keys=True)
            f.write("\n")


def load_rounds(base, rounds):
    """[{"folded": PATH, "ns_per_sample": X[, "grain": G]}] -> per-round
    stacks, and the mean grain: the smallest change a round can show
    (one sample's worth: X, unless G says; the wait and wall views'
    files are in ns/op already, X 1, their grain a sample's or 0)."""
    out = [read_folded(os.path.join(base, r["folded"]), r["ns_per_sample"])
           for r in rounds]
    return out, sum(r.get("grain", r["ns_per_sample"])
                    for r in rounds) / len(rounds)


def cmd_review(args):
    """Every cell of a review manifest on one scale: MANIFEST is
    {"unit", "root" (paths' base, relative to MANIFEST's folder),
    "stacks" (rank whole stacks too: the wait and wall views), "cells":
    {NAME: {"prefix", "rounds_folded": [[base rounds], [head rounds]]}}}."""
    try:
        with open(args.manifest, encoding="utf-8") as f:
            doc = json.load(f)
        base = os.path.join(os.path.dirname(args.manifest), doc.get("root", "."))
        unit, pairs = doc.get("unit", "CPU ns/op"), {}
        stacks = bool(doc.get("stacks", False))
        for name, c in sorted(doc["cells"].items()):
            if not all(c["rounds_folded"]):
                print(f"flamegraph.py: review: {name}: a build has no round "
                      "with samples, no graph", file=sys.stderr)
                continue
            (ra, wa), (rb, wb) = (load_rounds(base, r) for r in c["rounds_folded"])
            pairs[name] = Pair(f"{name}: base -> head",
                               os.path.join(base, c["prefix"]), ra, rb,
                               max(wa, wb), stacks)
    except KeyError as e:
        sys.exit(f"flamegraph.py: review: {args.manifest}: no {e} in it")
    except (OSError, ValueError, TypeError) as e:
        sys.exit(f"flamegraph.py: review: {args.manifest}: {e}")
    scale = shared_scale(pairs.values())
    out = {"unit": unit, "scale": scale, "cells": {}}
    for name, p in pairs.items():
        out["cells"][name], _ = draw(p, unit, scale)
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(out, f, sort_keys=True)
        f.write("\n")


def cmd_render(args):
    stacks = read_folded(args.folded)
    render_svg(build_tree([stacks], []), args.svg, args.title, args.subtitle,
               args.unit)
    if args.speedscope:
        write_speedscope(stacks, args.speedscope, args.title, args.unit)


def main():
    ap = argparse.ArgumentParser(prog="flamegraph.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("--title", default="Flame graph")
    r.add_argument("--subtitle", default="")
    r.add_argument("--unit", default="samples")
    r.add_argument("folded")
    r.add_argument("svg")
    r.add_argument("speedscope", nargs="?")
    d = sub.add_parser("diff")
    d.add_argument("--title", default="Differential flame graph")
    d.add_argument("--scale-a", type=float, default=1.0)
    d.add_argument("--scale-b", type=float, default=1.0)
    d.add_argument("--scale", type=float, default=0.0,
                   help="the colour scale (default: this graph's largest change)")
    d.add_argument("--unit", default="samples")
    d.add_argument("--json", help="also write the top changes and ranking here")
    d.add_argument("--stacks", action="store_true",
                   help="also rank whole stacks by their change (the wait, "
                   "off-CPU and wall views: their time sits in shared leaves)")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument("prefix")
    v = sub.add_parser("review")
    v.add_argument("--json", required=True, help="the summary of every cell")
    v.add_argument("manifest")
    args = ap.parse_args()
    {"render": cmd_render, "diff": cmd_diff, "review": cmd_review}[args.cmd](args)


if __name__ == "__main__":
    main()
