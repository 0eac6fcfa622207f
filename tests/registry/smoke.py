#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The smoke test of one workload, driven by the registry:
#
#   smoke.py HVBENCH WORKLOAD
#
# Everything comes from `HVBENCH list --json`: the workload's slots, every
# (non-test-only) plugin of each slot, and the workload's own smoke params
# (.smoke in its file, "K=V[,V...] ...", where threads=N[,M] replaces the
# default thread counts 1,2).  It runs
#
#   HVBENCH run WORKLOAD --plugin SLOT=P1,P2,...  (every slot it uses)
#       --param K=V[,V...]...  --threads 1,2 --repetitions 1
#       --min-time 0.001 --out TMP/r.json
#
# in one process and checks the exit status and the results document: it
# parses, says complete with no failed cell, and has exactly the expected
# cells (plugins x smoke values x threads, no more, no fewer), each "ok"
# with one positive finite sample, the params it was given, and no
# non-zero "failed" counter (a request the workload saw fail).
#
# Worked example: xs-read uses slot quota (hashtbl-copy, persistent) and
# declares .smoke = "domains=16": 2 plugins x 1 value x 2 thread counts =
# 4 cells, about 0.1 s.  A new plugin of quota makes it 6 with no edit.
#
# Where the cross product of the slots' plugins passes MAX_CROSS cells
# (boot-storm: 6 x 2 x 3 x 3 x 3 x 2 = 648 combinations, past the
# matrix's 256), each slot is varied alone in a run of its own, the other
# slots at the workload's defaults: every plugin still runs in every slot
# the workload uses (19 cells for boot-storm), not every combination.
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

THREADS = [1, 2]
TIMEOUT_S = 120
MAX_CROSS = 64


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def registry(hvb):
    r = subprocess.run([hvb, "list", "--json"], capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 0:
        fail("hvbench list --json: exit %d: %s" % (r.returncode,
                                                  r.stderr.strip()))
    return json.loads(r.stdout)


def smoke_params(w):
    """The workload's .smoke as ([(key, [values])], threads)."""
    spec = w.get("smoke")
    if spec is None:
        fail("workload %s declares no .smoke params (add .smoke = \"K=V "
             "...\" to its HVB_REGISTER_WORKLOAD, see "
             "harness/include/hvb/workload.h)" % w["name"])
    names = {p["name"]: p for p in w["params"]}
    out, threads = [], THREADS
    for word in spec.split():
        k, sep, v = word.partition("=")
        if not sep or not v:
            fail("%s: .smoke word '%s' is not K=V" % (w["name"], word))
        if k == "threads":
            threads = [int(t) for t in v.split(",")]
            continue
        if k not in names:
            fail("%s: .smoke names '%s', not a param of it" % (w["name"], k))
        out.append((k, v.split(",")))
    return out, threads, names


def same_value(param, given, recorded):
    """A recorded param value equals the one given (decimal uints)."""
    if param["type"] == "uint" and given.isdigit():
        return recorded == int(given)
    return str(recorded) == given


def main():
    if len(sys.argv) != 3:
        print("usage: smoke.py HVBENCH WORKLOAD", file=sys.stderr)
        return 2
    hvb, name = sys.argv[1], sys.argv[2]
    reg = registry(hvb)
    ws = [w for w in reg["workloads"] if w["name"] == name]
    if len(ws) != 1:
        fail("workload %s: %d in `hvbench list --json`" % (name, len(ws)))
    w = ws[0]
    slots = {s["name"]: s["plugins"] for s in reg["slots"]}
    params, threads, pdefs = smoke_params(w)

    cross = 1
    for sl in w["slots"]:
        if not slots.get(sl):
            fail("%s uses slot %s, which has no plugin" % (name, sl))
        cross *= len(slots[sl])
    if cross <= MAX_CROSS:
        runs = [list(w["slots"])]
    else:
        runs = [[sl] for sl in w["slots"]]
    total = 0
    for varied in runs:
        total += smoke_run(hvb, name, w, slots, varied, params, threads,
                           pdefs)
    print("smoke %s: %d cells ok" % (name, total))
    return 0


def smoke_run(hvb, name, w, slots, varied, params, threads, pdefs):
    """One run varying the plugins of the slots @varied; its cell count."""
    cmd = [hvb, "run", name]
    for s in varied:
        cmd += ["--plugin", "%s=%s" % (s, ",".join(slots[s]))]
    for k, vs in params:
        cmd += ["--param", "%s=%s" % (k, ",".join(vs))]
    cmd += ["--threads", ",".join(map(str, threads)), "--repetitions", "1",
            "--min-time", "0.001"]

    # The expected cells: one per plugin combination x value x threads.
    want = set()
    for combo in itertools.product(*[slots[s] for s in varied]):
        for vals in itertools.product(*[vs for _, vs in params]):
            for t in threads:
                want.add((combo, vals, t))

    with tempfile.TemporaryDirectory(prefix="hvb-smoke-") as tmp:
        out = os.path.join(tmp, "r.json")
        cmd += ["--out", out]
        print("+ " + " ".join(cmd), flush=True)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            fail("%s: still running after %d s" % (name, TIMEOUT_S))
        if r.returncode != 0:
            fail("%s: exit %d\n%s" % (name, r.returncode, r.stderr.strip()))
        try:
            with open(out) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail("%s: results document: %s" % (name, e))

    h = doc.get("hvbench", {})
    run = h.get("run", {})
    if run.get("workload") != name:
        fail("run.workload is %r" % run.get("workload"))
    if run.get("complete") is not True or run.get("failed_cells") != 0:
        fail("run not complete (complete %r, failed_cells %r)" %
             (run.get("complete"), run.get("failed_cells")))
    cells = h.get("cells", [])
    if run.get("cells") != len(want) or len(cells) != len(want):
        fail("%d cells expected (%s), run.cells %r, %d in the document" %
             (len(want), " x ".join("%d %s" % (len(slots[s]), s)
                                    for s in varied) or "no slot",
              run.get("cells"), len(cells)))

    seen = set()
    gb = {b["name"] for b in doc.get("benchmarks", [])
          if b.get("run_type") == "iteration"}
    for c in cells:
        cn = c.get("name", "?")
        combo = tuple(c["plugins"][s]["name"] for s in varied)
        vals = []
        for k, vs in params:
            got = c["params"].get(k)
            match = [v for v in vs if same_value(pdefs[k], v, got)]
            if not match:
                fail("%s: param %s=%r, not one of the given %s" %
                     (cn, k, got, ",".join(vs)))
            vals.append(match[0])
        key = (combo, tuple(vals), c.get("threads"))
        if key not in want or key in seen:
            fail("%s: unexpected or repeated cell" % cn)
        seen.add(key)
        if c.get("status") != "ok" or c.get("error") is not None:
            fail("%s: status %r: %s" % (cn, c.get("status"), c.get("error")))
        smp = c.get("samples_ns_per_op", [])
        if len(smp) != 1 or not (math.isfinite(smp[0]) and smp[0] > 0):
            fail("%s: samples_ns_per_op %r" % (cn, smp))
        if cn not in gb:
            fail("%s: no Google Benchmark run of this name" % cn)
        failed = c.get("counters", {}).get("failed")
        if failed and any(x != 0 for x in failed.get("samples", [])):
            fail("%s: counter 'failed' = %r" % (cn, failed["samples"]))
        print("ok  %s  %.1f ns/op" % (cn, smp[0]))
    return len(seen)


if __name__ == "__main__":
    sys.exit(main())
