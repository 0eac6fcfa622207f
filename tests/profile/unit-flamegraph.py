#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""flamegraph.py on synthetic folded stacks: the SVG is well-formed XML
with the expected frames, speedscope samples and weights match, and the
diff of two profiles lists a removed function as vanished; in the
differential SVGs every frame's text contrasts >= 4.5:1 with its fill
(black on dark blue was 2.3:1) and a function that grew a little, next
to one that vanished, is clearly red (it was drawn nearly white).
Usage: unit-flamegraph.py RENDER_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, finish  # noqa: E402

render = os.path.join(sys.argv[1], "flamegraph.py")


def contrast(x, y):
    """WCAG 2 contrast ratio of two sRGB colours."""
    def lum(rgb):
        lin = [v / 255 / 12.92 if v / 255 <= 0.04045
               else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(x), lum(y)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


with tempfile.TemporaryDirectory() as d:
    a = os.path.join(d, "a.folded")
    b = os.path.join(d, "b.folded")
    with open(a, "w") as f:
        f.write("main;lookup;read_lock 40\nmain;lookup;hash_walk 20\n"
                "main;lookup;get_domain 30\nmain;other 10\nmain;grow_fn 10\n")
    with open(b, "w") as f:
        f.write("main;lookup;hash_walk 20\nmain;lookup;rcu_read_lock 5\n"
                "main;other 10\nmain;grow_fn 14\n")
    svg, ss = os.path.join(d, "a.svg"), os.path.join(d, "a.json")
    subprocess.run([sys.executable, render, "render", "--title", "t", a, svg, ss], check=True)
    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    names = {g.get("data-name") for g in root.iter(ns + "g") if g.get("class") == "f"}
    for fr in ("main", "lookup", "read_lock", "hash_walk", "get_domain", "other"):
        check(fr in names, f"frame {fr} in the SVG")
    check(root.find(ns + "script") is not None, "the SVG has its script")
    doc = json.load(open(ss))
    p = doc["profiles"][0]
    check(len(p["samples"]) == len(p["weights"]) == 5, "speedscope samples/weights")
    check(sum(p["weights"]) == 110, "speedscope total weight")
    check(all(i < len(doc["shared"]["frames"]) for s in p["samples"] for i in s),
          "speedscope frame indices")
    out = subprocess.run([sys.executable, render, "diff", a, b, os.path.join(d, "diff")],
                         check=True, capture_output=True, text=True).stdout
    vanished = [l.split()[1] for l in out.splitlines() if l.startswith("vanished")]
    appeared = [l.split()[1] for l in out.splitlines() if l.startswith("appeared")]
    check("read_lock" in vanished and "get_domain" in vanished, f"vanished: {vanished}")
    check("rcu_read_lock" in appeared, f"appeared: {appeared}")
    md = open(os.path.join(d, "diff.md")).read()
    check("| `read_lock` | vanished |" in md, "markdown lists read_lock as vanished")
    for v in ("before", "after"):
        root = ET.parse(os.path.join(d, f"diff-{v}.svg")).getroot()
        for g in root.iter(ns + "g"):
            if g.get("class") != "f":
                continue
            fill = tuple(int(x) for x in
                         g.find(ns + "rect").get("fill")[4:-1].split(","))
            text = (255, 255, 255) if g.find(ns + "text").get("class") == "w" \
                else (0, 0, 0)
            c = contrast(fill, text)
            check(c >= 4.5, f"{v}: {g.get('data-name')}: text contrast {c:.2f}")
            if v == "after" and g.get("data-name") == "grow_fn":
                r, gr, b = fill
                check(r - gr >= 60 and r - b >= 60,
                      f"grow_fn (10 -> 14) is not clearly red: {fill}")
    # A cell's long name: the title wraps between the buttons, and the
    # heading's lines (and a differential's legend) stay above the frames.
    long = "/".join(["boot-storm"] + [f"slot{i}=plugin-name-{i}" for i in range(12)])
    for args, name in ((["render", "--title", long, "--subtitle", long, a], "long.svg"),
                       (["diff", "--title", long, a,
                         os.path.join(d, "b.folded")], "long")):
        out = os.path.join(d, name)
        subprocess.run([sys.executable, render] + args + [out], check=True,
                       capture_output=True)
        root = ET.parse(out if out.endswith(".svg") else out + "-after.svg").getroot()
        texts = [t for t in root.iter(ns + "text") if t.get("id") is None
                 and t.get("text-anchor") == "middle"]
        title = [t for t in texts if t.get("font-size") == "16"]
        check(len(title) >= 3 and "".join(t.text for t in title) == long and
              all(len(t.text) <= 96 for t in title),
              f"{name}: the title wraps in lines of <= 96: {[t.text for t in title]}")
        in_frames = {id(g.find(ns + "text")) for g in root.iter(ns + "g")}
        low = max(float(t.get("y")) for t in root.iter(ns + "text")
                  if t.get("id") is None and id(t) not in in_frames)
        top = min(float(g.find(ns + "rect").get("y")) for g in root.iter(ns + "g")
                  if g.get("class") == "f")
        check(low < top, f"{name}: heading or legend (y {low}) over the frames (y {top})")
finish()
