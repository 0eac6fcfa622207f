#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""flamegraph.py review on synthetic per-round folded stacks, as review
writes them (4 rounds a build, one manifest for the review's cells):

  same   head's rounds are base's, shuffled, and a frame seen once in one
         round of one build: no coloured frame in either graph;
  spin   rcu_ref_lock's self grows by ~2000 per op: it alone is red, its
         ancestors (hv_domain_lock_by_id, lookup_thread, the engine) grey;
  noise  hv_put_domain's rounds move apart by less than their spreads
         together: grey, and flagged within the spread in "top";

one colour scale in every graph (the legend's figure), the engine's
frames one "[benchmark engine]" frame (no "+0x" frame), search and zoom
still there; a manifest without cells: one line of error.  --plant
inclusive colours by the inclusive change (the old rule) and must fail
(ctest flamegraph-diff-inclusive: lookup_thread red).
Usage: unit-flamediff.py RENDER_DIR [--plant inclusive]"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, sys.argv[1])
from checklib import check, finish  # noqa: E402
import flamediff  # noqa: E402
import flamegraph  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
ENGINE = ("[libbenchmark.so.1.7.1+0x2d6ee];benchmark::internal::"
          "LambdaBenchmark<(anon)::run::{lambda#1}>::Run;wrapped_body;"
          "hvb_runner_body")
BASE = {  # frame under lookup_thread: its count in each of 4 rounds
    "hv_domain_lock_by_id;rcu_ref_lock": [147, 150, 141, 155],
    "hv_put_domain": [100, 101, 100, 101],
    "hv_domain_lock_by_id": [23, 20, 25, 22],
    "": [6, 8, 5, 7],
    "hvb_keep_running_batch;hvb_engine_keep_running": [1, 0, 2, 1],
}


def planted_judge(node, per_sample):
    """The rule before: every frame coloured by its inclusive change."""
    node.d = node.b - node.a
    node.state = "grew" if node.d > 0 else "shrank" if node.d < 0 else "same"
    for kid in node.kids.values():
        planted_judge(kid, per_sample)


def write_rounds(d, cell, side, frames, extra=None):
    """One folded file per round; its manifest rows."""
    rows = []
    for r in range(4):
        path = os.path.join(d, f"{cell}-{side}-{r}.folded")
        with open(path, "w") as f:
            for fr, counts in frames.items():
                if counts[r]:
                    stack = ";".join(x for x in (ENGINE, "lookup_thread", fr) if x)
                    f.write(f"{stack} {counts[r]}\n")
            if extra and extra[0] == r:
                f.write(f"{ENGINE};lookup_thread;{extra[1]} 1\n")
        rows.append({"folded": os.path.basename(path), "ns_per_sample": 0.5})
    return rows


def graph(path):
    """{frame name: (state, fill)} of an SVG, and the SVG's text."""
    root = ET.parse(path).getroot()
    out = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "f":
            out.setdefault(g.get("data-name"), []).append(
                (g.get("data-state"), g.find(NS + "rect").get("fill")))
    return out, open(path).read()


def coloured(frames):
    grey = "rgb(%d,%d,%d)" % flamegraph.GREY
    return sorted(n for n, v in frames.items() for _, fill in v if fill != grey)


def roles():
    """The wall view's roles: ranked by the change on CPU and waiting
    (a pool's idle time grows most and comes after them), idle stacks
    after the waits, a build without roles joined with one that has."""
    def rounds(spec, side):
        return [{tuple(k.split(";")): v[side][r] for k, v in spec.items()}
                for r in range(4)]
    spec = {
        "[thread: xenstored];serve;htc_copy":
            ([100, 102, 98, 101], [50, 51, 49, 50]),
        "[thread: client];xsd_client_request;read;[off-cpu]":
            ([400, 402, 398, 401], [300, 301, 299, 300]),
        "[thread: libvirtd-worker];hv_idle_cond_wait_at;[off-cpu: idle]":
            ([1000, 1001, 999, 1000], [3000, 3001, 2999, 3000]),
        "[thread: poller];poll_once;[off-cpu]":
            ([10, 12, 9, 11], [11, 10, 12, 10]),
    }
    a, b = rounds(spec, 0), rounds(spec, 1)
    rows = flamediff.role_rows(a, b, 0.5)
    order = [r["role"] for r in rows]
    check(order == ["client", "xenstored", "poller", "libvirtd-worker"],
          f"roles ranked {order}")
    w = rows[3]
    check(abs(w["idle"]["delta"] - 2000) < 1e-9 and w["within_spread"] and
          not rows[0]["within_spread"], f"the pool's row: {w}")
    check(abs(rows[1]["on"]["delta"] + 50.25) < 1e-9 and
          rows[1]["waiting"]["delta"] == 0, f"xenstored's row: {rows[1]}")
    st = [r["stack"] for r in flamediff.stack_rows(a, b, 0.5)
          if not r["within_spread"]]
    check(st and st[-1].endswith("[off-cpu: idle]") and len(st) == 3,
          f"the idle stack not last of those that changed: {st}")
    check(flamediff.stack_label(tuple(
        "[thread: client];xsd_client_request;read;[off-cpu]".split(";"))) ==
        "client: xsd_client_request; read; [off-cpu]", "a label's role")
    plain = [{k[1:]: v for k, v in r.items()} for r in a]
    ja, jb = flamediff.join_roles(plain, b)
    check(ja == plain and all(flamediff.role_of(k) is None
                              for r in jb for k in r) and
          jb[0][("serve", "htc_copy")] == 50,
          "a build without roles: the other's role frames not taken off")
    check(flamediff.join_roles(a, b) == (a, b), "both with roles: changed")
    check(flamediff.role_rows(plain, plain, 0.5) == [], "rows without roles")
    # Two waits that read the same in their last frames (the review of
    # seed 000 showed two rows "client: ...; xpath; xo_req; ...; read;
    # [off-cpu]"): their labels grow until they differ; a third stack,
    # alone, keeps its short label.
    two = {"[thread: client];main;boot;hotplug;xpath;xo_req;req;read;[off-cpu]":
           ([5, 5, 5, 5], [3, 3, 3, 3]),
           "[thread: client];main;boot;devices;xpath;xo_req;req;read;[off-cpu]":
           ([4, 4, 4, 4], [2, 2, 2, 2]),
           "[thread: client];main;boot;a;b;c;d;e;[off-cpu]":
           ([1, 1, 1, 1], [1, 1, 1, 1])}
    labels = [r["label"] for r in
              flamediff.stack_rows(rounds(two, 0), rounds(two, 1), 0.5)]
    check(sorted(labels) == [
        "client: ...; b; c; d; e; [off-cpu]",
        "client: ...; devices; xpath; xo_req; req; read; [off-cpu]",
        "client: ...; hotplug; xpath; xo_req; req; read; [off-cpu]"],
          f"labels that read the same: {labels}")


def main():
    if "--plant" in sys.argv:
        flamegraph.judge = planted_judge
    shuffled = {k: v[2:] + v[:2] for k, v in BASE.items()}
    spin = dict(shuffled)
    spin["hv_domain_lock_by_id;rcu_ref_lock"] = [2147, 2150, 2141, 2155]
    noise = dict(shuffled)
    noise["hv_put_domain"] = [101.5, 102.5, 102, 102]
    with tempfile.TemporaryDirectory() as d:
        cells = {}
        for name, head, extra in (("same", shuffled, (2, "xorshift")),
                                  ("spin", spin, None), ("noise", noise, None)):
            cells[name] = {"prefix": name, "rounds_folded": [
                write_rounds(d, name, "base", BASE, (1, "vanishing_rare")),
                write_rounds(d, name, "head", head, extra)]}
        man = os.path.join(d, "graphs.json")
        with open(man, "w") as f:
            json.dump({"unit": "CPU ns/op", "root": ".", "cells": cells}, f)
        sys.argv = ["flamegraph.py", "review", "--json",
                    os.path.join(d, "out.json"), man]
        flamegraph.main()
        out = json.load(open(os.path.join(d, "out.json")))
        scale = out["scale"]
        check(abs(scale - 1000) < 1e-6, f"the scale is spin's change: {scale}")
        for name in cells:
            for side in ("after", "before"):
                frames, text = graph(os.path.join(d, f"{name}-{side}.svg"))
                col = coloured(frames)
                what = f"{name}-{side}"
                check("[benchmark engine]" in frames and
                      not any("+0x" in n or n.startswith("benchmark::")
                              for n in frames), f"{what}: engine frames: {sorted(frames)}")
                check(f"+{flamegraph.num(scale)} CPU ns/op" in text and
                      "+1000 CPU ns/op" in text, f"{what}: legend scale")
                check('id="search"' in text and "function zoom" in text and
                      all(n for n in frames), f"{what}: search and zoom")
                if name == "spin":
                    check(col == ["rcu_ref_lock"], f"{what}: coloured {col}")
                    check(frames["rcu_ref_lock"][0][0] == "grew", f"{what}: state")
                else:
                    check(col == [], f"{what}: coloured {col}")
            check(out["cells"][name]["coloured"] == (1 if name == "spin" else 0),
                  f"{name}: coloured count {out['cells'][name]['coloured']}")
        t = out["cells"]["spin"]["top"][0]
        check(t["name"] == "rcu_ref_lock" and not t["within_spread"] and
              abs(t["change"] - 1000) < 1e-6, f"spin's top: {t}")
        t = out["cells"]["noise"]["top"]
        check(t and t[0]["name"] == "hv_put_domain" and t[0]["within_spread"]
              and all(x["within_spread"] for x in t), f"noise's top: {t}")
        check(all(x["within_spread"] for x in out["cells"]["same"]["top"]),
              f"same's top: {out['cells']['same']['top']}")
        rows = out["cells"]["spin"]["self"]
        check(rows[0]["function"] == "rcu_ref_lock" and
              abs(rows[0]["baseline_pct"] - 100 * 148.25 / 279) < 0.01,
              f"spin's ranking: {rows[0]}")
        # Bad input: one line that names the file and what is wrong.
        with open(man, "w") as f:
            json.dump({"unit": "CPU ns/op"}, f)
        r = subprocess.run([sys.executable, flamegraph.__file__, "review",
                            "--json", os.path.join(d, "x.json"), man],
                           capture_output=True, text=True)
        check(r.returncode != 0 and r.stderr.count("\n") == 1 and
              r.stderr.startswith(f"flamegraph.py: review: {man}: no 'cells'"),
              f"a manifest without cells: {r.returncode} {r.stderr!r}")
    roles()
    # Figures as a reader takes them: ns per op in the unit of its size.
    for x, unit, want in ((84000, "CPU ns/op", ("84", "CPU µs/op")),
                          (2.5e7, "wall ns/op", ("25", "wall ms/op")),
                          (9.52e6, "CPU ns/op", ("9520", "CPU µs/op")),
                          (500, "CPU ns/op", ("500", "CPU ns/op")),
                          (50000, "samples", ("50000", "samples"))):
        got = flamegraph.per_op(x, unit)
        check(got == want, f"per_op({x}, {unit!r}) = {got}, want {want}")
    finish()


main()
