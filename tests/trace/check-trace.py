#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a Chrome Trace Event Format file written by 'hvbench run --trace'.

check-trace.py TRACE [--results R] [--names a,b] [--wait CLASS]
               [--convoy CLASS:K] [--max-events N] [--over-cap]

Always: valid JSON; otherData (clock, origin, counts); a process_name per
pid and a thread_name per (pid, tid) of the events; every event complete
("X") with ts, dur >= 0; per thread, events in file order do not go back
in time and nest or follow each other, within EPS (but for lock holds:
a lock taken hand over hand, virDomainObjList then virDomainObj, is held
across the other's end); with --results,
every event lies within the run (the origin after hvbench.run's start
and the events' ends before its written time).  --names: each of these
event names is present.  --wait CLASS: "wait CLASS" events with class,
site (file:line) and wait_ns >= the threshold.  --convoy CLASS:K: waits
for CLASS on at least K distinct "client" rows, staggered (at least 3
clients wait at one instant, and their waits end one after the other,
at least 1 us apart).  --served NAMES: the daemon's row ("xenstored") has
requests of each of these names (cat "xenstored", args conn), and each
one lies within a wire request of the same name on a client's row (one
clock).  --processes N: otherData.processes is N, each cell a process per
child ("(process K of N)"), each child's events after the one before
it.  --max-events N: at most N events written;  --over-cap: the
cap was reached and said so (otherData.over_cap > 0).
Exit 0 or 1 with the first failure on stderr.
"""
import argparse
import json
import re
import sys

# us: lock events are timed with the TSC, mapped onto CLOCK_MONOTONIC
# (tens of ns off), the rest with CLOCK_MONOTONIC itself.
EPS = 0.2


def fail(msg):
    print("check-trace: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: not JSON: %s" % (path, e))


def check_meta(doc):
    od = doc.get("otherData")
    if not isinstance(od, dict):
        fail("no otherData")
    for k in ("clock", "origin_monotonic_ns", "origin_realtime_ns", "events",
              "overwritten", "over_cap", "max_events", "lock_threshold_ns"):
        if k not in od:
            fail("otherData has no %s" % k)
    if od["clock"] != "CLOCK_MONOTONIC":
        fail("clock %r" % od["clock"])
    ev = doc.get("traceEvents")
    if not isinstance(ev, list):
        fail("no traceEvents list")
    return od, ev


def split(ev):
    procs, threads, xs = {}, {}, []
    for e in ev:
        ph = e.get("ph")
        if ph == "M" and e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif ph == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif ph == "X":
            xs.append(e)
        else:
            fail("unexpected event %r" % e)
    return procs, threads, xs


def check_rows(procs, threads, xs):
    rows = {}
    for e in xs:
        for k in ("name", "cat", "pid", "tid", "ts", "dur"):
            if k not in e:
                fail("event without %s: %r" % (k, e))
        if e["ts"] < 0 or e["dur"] < 0:
            fail("negative time: %r" % e)
        if e["pid"] not in procs:
            fail("pid %d has no process_name" % e["pid"])
        if (e["pid"], e["tid"]) not in threads:
            fail("(pid, tid) %r has no thread_name" % ((e["pid"], e["tid"]),))
        rows.setdefault((e["pid"], e["tid"]), []).append(e)
    for key, r in rows.items():
        open_ = []
        for a, b in zip(r, r[1:]):
            if b["ts"] < a["ts"]:
                fail("%s: ts goes back: %r then %r" % (threads[key], a, b))
        for e in r:
            end = e["ts"] + e["dur"]
            while open_ and open_[-1]["ts"] + open_[-1]["dur"] <= e["ts"] + EPS:
                open_.pop()
            top = open_[-1] if open_ else None
            if top is None or end <= top["ts"] + top["dur"] + EPS:
                open_.append(e)
            elif top["ts"] + EPS >= e["ts"]:
                # top is inside e, written first because it seems to
                # start a few ns earlier (a lock event's TSC time): the
                # "stop" phase of a VM and its first wait virNetServer.
                open_[-1:] = [e, top]
            elif not (e["name"].startswith("hold ") or
                      top["name"].startswith("hold ")):
                fail("%s: %r crosses %r" % (threads[key], e, top))
    return rows


def check_within(od, xs, results):
    run = load(results)["hvbench"]["run"]
    written = run.get("written")
    span = (written - od["origin_realtime_ns"]) * 1e6 if written else None
    if span is not None and span < 0:
        fail("origin after the results were written")
    for e in xs:
        if span is not None and e["ts"] + e["dur"] > span + 1e3:
            fail("event past the run's end: %r" % e)
    tr = load(results)["hvbench"].get("trace")
    if not tr or tr.get("events") != od["events"]:
        fail("hvbench.trace of the results does not match: %r" % tr)


def check_wait(xs, cls, threshold):
    waits = [e for e in xs if e["name"] == "wait " + cls]
    if not waits:
        fail("no 'wait %s' event" % cls)
    for e in waits:
        a = e.get("args", {})
        if a.get("class") != cls or not re.match(r"^[\w.-]+:\d+$",
                                                  a.get("site", "")):
            fail("wait without class or site: %r" % e)
        if a.get("wait_ns", -1) < threshold:
            fail("wait below the threshold: %r" % e)
    return waits


def check_convoy(xs, threads, spec, threshold):
    cls, k = spec.rsplit(":", 1)
    waits = [e for e in check_wait(xs, cls, threshold)
             if threads[(e["pid"], e["tid"])].startswith("client ")]
    rows = {(e["pid"], e["tid"]) for e in waits}
    if len(rows) < int(k):
        fail("waits for %s on %d client rows, want >= %s" %
             (cls, len(rows), k))
    # The most waits at one instant (a wait's start): a convoy has them
    # on distinct clients, ending one after the other.
    best = []
    for s in waits:
        at = [e for e in waits if e["ts"] <= s["ts"] < e["ts"] + e["dur"]]
        if len(at) > len(best):
            best = at
    ends = sorted(e["ts"] + e["dur"] for e in best)
    if len({(e["pid"], e["tid"]) for e in best}) < 3:
        fail("fewer than 3 clients wait for %s at once: %r" % (cls, best))
    if any(b - a < 1.0 for a, b in zip(ends, ends[1:])):
        fail("waits for %s not staggered (ends %r)" % (cls, ends))


def check_served(xs, threads, names):
    wire = {}
    for e in xs:
        if e["cat"] == "wire":
            wire.setdefault(e["name"], []).append((e["ts"], e["ts"] + e["dur"]))
    for n in names:
        served = [e for e in xs if e["cat"] == "xenstored" and e["name"] == n]
        if not served:
            fail("the daemon served no %s" % n)
        for e in served:
            if threads[(e["pid"], e["tid"])] != "xenstored" or \
                    "conn" not in e.get("args", {}):
                fail("a request served off the daemon's row: %r" % e)
            a, b = e["ts"], e["ts"] + e["dur"]
            if not any(s - EPS <= a and b <= t + EPS
                       for s, t in wire.get(n, [])):
                fail("the daemon's %r is within no client's %s" % (e, n))


def check_processes(od, procs, xs, n):
    if od.get("processes") != n or len(procs) % n:
        fail("%r processes of %d cells, want %d" %
             (od.get("processes"), len(procs), n))
    cells = len(procs) // n
    for pid, name in procs.items():
        want = "(process %d of %d)" % (pid // cells + 1, n)
        if not name.endswith(want):
            fail("pid %d is %r, want ...%s" % (pid, name, want))
    spans = [None] * n
    for e in xs:
        k = e["pid"] // cells
        a, b = e["ts"], e["ts"] + e["dur"]
        spans[k] = (min(a, spans[k][0]), max(b, spans[k][1])) if spans[k] \
            else (a, b)
    for k in range(1, n):
        if spans[k] and spans[k - 1] and spans[k][0] < spans[k - 1][1]:
            fail("process %d's events start before process %d's end: %r" %
                 (k + 1, k, spans))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--results")
    ap.add_argument("--names", default="")
    ap.add_argument("--wait", action="append", default=[])
    ap.add_argument("--convoy")
    ap.add_argument("--served", default="")
    ap.add_argument("--processes", type=int)
    ap.add_argument("--max-events", type=int)
    ap.add_argument("--over-cap", action="store_true")
    a = ap.parse_args()
    doc = load(a.trace)
    od, ev = check_meta(doc)
    procs, threads, xs = split(ev)
    if len(xs) != od["events"]:
        fail("%d events, otherData says %d" % (len(xs), od["events"]))
    if not xs:
        fail("no events")
    check_rows(procs, threads, xs)
    if a.results:
        check_within(od, xs, a.results)
    names = {e["name"] for e in xs}
    for n in filter(None, a.names.split(",")):
        if n not in names:
            fail("no event named %r (have %s)" % (n, sorted(names)[:30]))
    for cls in a.wait:
        check_wait(xs, cls, od["lock_threshold_ns"])
    if a.convoy:
        check_convoy(xs, threads, a.convoy, od["lock_threshold_ns"])
    if a.processes:
        check_processes(od, procs, xs, a.processes)
    if a.served:
        check_served(xs, threads, a.served.split(","))
    if a.max_events is not None and len(xs) > a.max_events:
        fail("%d events, the cap is %d" % (len(xs), a.max_events))
    if a.over_cap and not od["over_cap"] > 0:
        fail("the cap was not reported: %r" % od)
    print("check-trace: %s: %d events on %d threads of %d cells: ok" %
          (a.trace, len(xs), len(threads), len(procs)))


if __name__ == "__main__":
    main()
