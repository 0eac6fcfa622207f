#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Flame graphs from folded stacks, standard library only.

  flamegraph.py render [--title T] [--subtitle S] [--unit U] FOLDED SVG [SPEEDSCOPE]
  flamegraph.py diff [--title T] [--scale-a X] [--scale-b Y] [--unit U] A B PREFIX

render: an interactive SVG (hover shows name, value and percent; click
zooms; "Search" highlights a regular expression and shows the matched
percent; "Reset zoom"), and speedscope's JSON format.

diff: A and B are scaled (per op: scale = CPU ns/op / samples) and drawn
twice, PREFIX-after.svg (widths of B, coloured by what changed: red grew,
blue shrank, purple new) and PREFIX-before.svg (widths of A; dark blue:
vanished); PREFIX.md and stdout get the table of functions that grew,
shrank, appeared and vanished, ranked by the change of their inclusive
value.  The SVGs need no network.
"""
import argparse
import hashlib
import html
import json
import re
import sys

WIDTH = 1200
FRAME_H = 16
FONT = 12
PAD_TOP = 50
PAD_BOTTOM = 40
MIN_W = 0.1


def read_folded(path):
    stacks = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            m = re.match(r"^(.*)\s+(\d+(?:\.\d*)?)$", line)
            if not m:
                sys.exit(f"flamegraph.py: {path}:{n}: not a folded stack line")
            key = tuple(m.group(1).split(";"))
            stacks[key] = stacks.get(key, 0.0) + float(m.group(2))
    return stacks


class Node:
    __slots__ = ("name", "a", "b", "kids")

    def __init__(self, name):
        self.name, self.a, self.b, self.kids = name, 0.0, 0.0, {}


def build_tree(sa, sb=None):
    root = Node("all")
    for side, stacks in (("a", sa), ("b", sb or {})):
        for stack, v in stacks.items():
            node = root
            setattr(node, side, getattr(node, side) + v)
            for fr in stack:
                node = node.kids.setdefault(fr, Node(fr))
                setattr(node, side, getattr(node, side) + v)
    return root


def name_colour(name):
    h = hashlib.md5(name.encode()).digest()
    return (205 + h[0] % 50, 80 + h[1] % 130, 40 + h[2] % 50)


def diff_colour(a, b, maxd, side):
    """Red grew, blue shrank, by how much the frame itself changed (a
    frame that doubled is half-way saturated however small it is: scaled
    by the largest change alone, a function that grew next to one that
    vanished was drawn nearly white) or by its share of the largest change,
    whichever is more.  Any change is at least a visible tint."""
    if side == "b" and a == 0 and b > 0:
        return (170, 90, 220)  # appeared
    if side == "a" and b == 0 and a > 0:
        return (40, 60, 170)  # vanished
    d = b - a
    if maxd <= 0 or d == 0:
        return (235, 235, 235)
    t = max(abs(d) / maxd, abs(d) / max(a, b))
    t = 0.25 + 0.75 * min(1.0, t)
    c = int(235 - 200 * t)
    return (235, c, c) if d > 0 else (c, c, 235)


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


def render_svg(root, path, title, subtitle, unit, side="a", diff=False):
    total = getattr(root, side)
    rows = []
    maxd = 0.0

    def depth_of(node, d):
        m = d
        for k in node.kids.values():
            m = max(m, depth_of(k, d + 1))
        return m

    if diff:
        # The largest change of a function (the root sums all of them).
        stack = list(root.kids.values())
        while stack:
            n = stack.pop()
            maxd = max(maxd, abs(n.b - n.a))
            stack.extend(n.kids.values())
    maxdepth = depth_of(root, 0)
    height = PAD_TOP + (maxdepth + 1) * FRAME_H + PAD_BOTTOM
    scale = (WIDTH - 20) / total if total > 0 else 0

    def walk(node, x, d):
        v = getattr(node, side)
        w = v * scale
        if w < MIN_W:
            return
        y = height - PAD_BOTTOM - (d + 1) * FRAME_H
        pct = 100.0 * v / total if total else 0
        if diff:
            info = (f"{node.name} (before {node.a:.4g}, after {node.b:.4g} {unit}, "
                    f"change {node.b - node.a:+.4g})")
            fill = diff_colour(node.a, node.b, maxd, side)
        else:
            info = f"{node.name} ({v:.6g} {unit}, {pct:.2f}%)"
            fill = name_colour(node.name)
        rows.append(
            f'<g class="f" data-depth="{d}" data-name="{html.escape(node.name, True)}">'
            f"<title>{html.escape(info)}</title>"
            f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{FRAME_H - 1}" '
            f'fill="{css(fill)}" data-fill="{css(fill)}" rx="2" ry="2"/>'
            f'<text class="{text_on(fill)}" x="{x + 3:.2f}" '
            f'y="{y + FRAME_H - 4}"></text></g>')
        cx = x
        for k in sorted(node.kids):
            child = node.kids[k]
            walk(child, cx, d + 1)
            cx += getattr(child, side) * scale

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
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="16">'
        f"{html.escape(title)}</text>",
        f'<text x="{WIDTH / 2}" y="38" text-anchor="middle">{html.escape(subtitle)}</text>',
        '<text id="reset" class="btn" x="10" y="20">Reset zoom</text>',
        f'<text id="search" class="btn" x="{WIDTH - 110}" y="20">Search</text>',
        f'<text id="matched" x="{WIDTH - 160}" y="{height - 12}"> </text>',
        f'<text id="details" x="10" y="{height - 12}"> </text>',
    ]
    out.extend(rows)
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def write_speedscope(stacks, path, name, unit):
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
            "type": "sampled", "name": name, "unit": "none",
            "startValue": 0, "endValue": sum(weights),
            "samples": samples, "weights": weights,
        }],
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=None, sort_keys=True)
        f.write("\n")


def function_totals(stacks):
    """Inclusive (each function once per stack) and self values."""
    incl, self_ = {}, {}
    for stack, v in stacks.items():
        for fr in set(stack):
            incl[fr] = incl.get(fr, 0.0) + v
        if stack:
            self_[stack[-1]] = self_.get(stack[-1], 0.0) + v
    return incl, self_


def diff_table(sa, sb, unit):
    ia, selfa = function_totals(sa)
    ib, selfb = function_totals(sb)
    rows = []
    for fn in set(ia) | set(ib):
        a, b = ia.get(fn, 0.0), ib.get(fn, 0.0)
        kind = ("appeared" if a == 0 else "vanished" if b == 0 else
                "grew" if b > a else "shrank" if b < a else "same")
        rows.append((kind, fn, a, b, b - a, selfa.get(fn, 0.0), selfb.get(fn, 0.0)))
    order = {"grew": 0, "appeared": 1, "shrank": 2, "vanished": 3, "same": 4}
    rows.sort(key=lambda r: (order[r[0]], -abs(r[4]), r[1]))
    return rows


def cmd_diff(args):
    # The stacks start at the threads' roots (the cell is in the file
    # name), so the two cells' stacks join as difffolded.pl joins them.
    sa = {k: v * args.scale_a for k, v in read_folded(args.a).items()}
    sb = {k: v * args.scale_b for k, v in read_folded(args.b).items()}
    root = build_tree(sa, sb)
    ta, tb = root.a, root.b
    render_svg(root, args.prefix + "-after.svg", args.title,
               f"widths: after ({tb:.4g} {args.unit}); red grew, blue shrank, purple new",
               args.unit, side="b", diff=True)
    render_svg(root, args.prefix + "-before.svg", args.title,
               f"widths: before ({ta:.4g} {args.unit}); red will grow, blue will shrink, "
               "dark blue vanishes", args.unit, side="a", diff=True)
    rows = diff_table(sa, sb, args.unit)
    md = [f"# {args.title}", "",
          f"Total: before {ta:.4g}, after {tb:.4g} {args.unit} "
          f"({(tb - ta) / ta * 100 if ta else 0:+.1f}%). Inclusive values per function.",
          "", f"| change | function | before ({args.unit}) | after ({args.unit}) | delta | delta % of before total |",
          "|---|---|---:|---:|---:|---:|"]
    con = [f"{args.title}", f"total {ta:.4g} -> {tb:.4g} {args.unit}",
           f"{'change':<9} {'function':<60} {'before':>10} {'after':>10} {'delta':>10}"]
    shown = {}
    for kind, fn, a, b, d, _, _ in rows:
        if kind == "same" or (ta and abs(d) / ta < 0.001):
            continue
        shown[kind] = shown.get(kind, 0) + 1
        pct = d / ta * 100 if ta else 0
        md.append(f"| {kind} | `{fn}` | {a:.4g} | {b:.4g} | {d:+.4g} | {pct:+.1f}% |")
        if shown[kind] <= 15:
            # A name cut to the column ends in "…" (the .md has it whole).
            name = fn if len(fn) <= 60 else fn[:59] + "…"
            con.append(f"{kind:<9} {name:<60} {a:>10.4g} {b:>10.4g} {d:>+10.4g}")
    with open(args.prefix + ".md", "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    if args.json:
        # Every function, inclusive and self, for a caller to rank itself.
        doc = {"unit": args.unit, "before_total": ta, "after_total": tb,
               "functions": [{"change": k, "function": fn, "before": a,
                              "after": b, "self_before": x, "self_after": y}
                             for k, fn, a, b, _, x, y in rows]}
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, sort_keys=True)
            f.write("\n")
    print("\n".join(con))
    print(f"diff: {args.prefix}-after.svg, {args.prefix}-before.svg, {args.prefix}.md")


def cmd_render(args):
    stacks = read_folded(args.folded)
    root = build_tree(stacks)
    render_svg(root, args.svg, args.title, args.subtitle, args.unit)
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
    d.add_argument("--unit", default="samples")
    d.add_argument("--json", help="also write every function's figures here")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument("prefix")
    args = ap.parse_args()
    if args.cmd == "render":
        cmd_render(args)
    else:
        cmd_diff(args)


if __name__ == "__main__":
    main()
