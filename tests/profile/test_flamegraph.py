#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""flamegraph.py on synthetic folded stacks: the SVG is well-formed XML
with the expected frames, speedscope samples and weights match, and the
diff of two profiles lists a removed function as vanished.
Usage: test_flamegraph.py RENDER_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

render = os.path.join(sys.argv[1], "flamegraph.py")
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as d:
    a = os.path.join(d, "a.folded")
    b = os.path.join(d, "b.folded")
    with open(a, "w") as f:
        f.write("main;lookup;read_lock 40\nmain;lookup;hash_walk 20\n"
                "main;lookup;get_domain 30\nmain;other 10\n")
    with open(b, "w") as f:
        f.write("main;lookup;hash_walk 20\nmain;lookup;rcu_read_lock 5\n"
                "main;other 10\n")
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
    check(len(p["samples"]) == len(p["weights"]) == 4, "speedscope samples/weights")
    check(sum(p["weights"]) == 100, "speedscope total weight")
    check(all(i < len(doc["shared"]["frames"]) for s in p["samples"] for i in s),
          "speedscope frame indices")
    out = subprocess.run([sys.executable, render, "diff", a, b, os.path.join(d, "diff")],
                         check=True, capture_output=True, text=True).stdout
    vanished = [l.split()[1] for l in out.splitlines() if l.startswith("vanished")]
    appeared = [l.split()[1] for l in out.splitlines() if l.startswith("appeared")]
    check("read_lock" in vanished and "get_domain" in vanished, f"vanished: {vanished}")
    check("rcu_read_lock" in appeared, f"appeared: {appeared}")
    md = open(os.path.join(d, "diff.md")).read()
    check("| vanished | `read_lock` |" in md, "markdown lists read_lock as vanished")
    for v in ("before", "after"):
        ET.parse(os.path.join(d, f"diff-{v}.svg"))
print(f"{7 + 8 - fails} passed, {fails} failed")
sys.exit(1 if fails else 0)
