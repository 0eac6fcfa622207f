# SPDX-License-Identifier: GPL-2.0-only
"""What a differential flame graph judges: per-round self values of every
frame of two builds, whether a change lies within the rounds' spread,
and the ranking of functions.  No drawing (flamegraph.py draws).

Within the spread.  Each build ran the cell in rounds (review: AB BA AB
BA); a frame's self value (CPU ns/op spent in the frame itself, not in
its callees) is known per round.  A frame's change is

    d = mean(head rounds) - mean(base rounds)

and it lies *within the rounds' spread*, drawn grey, unless both

    |d| > (max - min of base rounds) + (max - min of head rounds)
    |d| > one sample's worth (the larger build's mean ns/op per sample)

The first says the change is larger than both builds' ranges together
(so every head round lies beyond every base round); with 4 rounds a side
it paints a frame of an unchanged cell about once in 1000 (0.1%: a
simulation of normal and Poisson counts), where "the ranges do not
overlap" alone painted 3%.  The second keeps a frame seen once per round
in one build and never in the other grey.  With one round a side (no
spread: "hvbench profile --diff") only the second applies.

Worked example, 4 rounds a side, CPU ns/op, 0.03 ns/op per sample:

    rcu_ref_lock   base 0.20 0.25 0.22 0.18   head 55.1 56.3 54.8 57.0
        d = +55.6 > 0.07 + 2.2: coloured red (grew)
    lookup_thread  base 1.10 1.30 1.05 1.22   head 1.21 1.02 1.31 1.15
        d = +0.005 < 0.25 + 0.29: grey
    hv_put_domain  base 2.00 2.40 2.10 2.30   head 2.60 2.90 2.70 2.80
        d = +0.55 < 0.40 + 0.30: grey, although the ranges are apart

A frame present in no round of one build and outside the spread in the
other appeared (head only) or vanished (base only), judged on its
inclusive values (a new caller has no self time of its own).
"""
import re

# Google Benchmark and the harness around the measured body; a run of
# these (and of unnamed addresses next to them) is one frame.
ENGINE = re.compile(r"^(\[libbenchmark[^\]]*\]|benchmark::.*|wrapped_body|"
                    r"hvb_runner_body|hvb_engine_.*|hvb_keep_running.*)$")
RAW = re.compile(r"^\[[^\]]*\+0x[0-9a-fA-F]+\]$")
ENGINE_FRAME = "[benchmark engine]"


def fold_engine(stack):
    """("[libbenchmark.so.1.7.1+0x2d6ee]", "benchmark::...::Run",
    "wrapped_body", "hvb_runner_body", "lookup_thread") ->
    ("[benchmark engine]", "lookup_thread"): each run of engine frames and
    raw addresses that holds an engine frame becomes one frame."""
    out, run = [], []

    def flush():
        if any(ENGINE.match(f) for f in run):
            out.append(ENGINE_FRAME)
        else:
            out.extend(run)
        run.clear()

    for fr in stack:
        if ENGINE.match(fr) or RAW.match(fr):
            run.append(fr)
        else:
            flush()
            out.append(fr)
    flush()
    return tuple(out)


def spread(v):
    return max(v) - min(v) if v else 0.0


def mean(v):
    return sum(v) / len(v) if v else 0.0


def within_spread(a, b, per_sample):
    """The rule above: @a, @b per-round values, @per_sample ns/op."""
    d = abs(mean(b) - mean(a))
    return d <= spread(a) + spread(b) or d <= per_sample


class Node:
    """A frame: per-round self and inclusive values of both builds."""
    __slots__ = ("name", "kids", "self", "incl", "state", "d")

    def __init__(self, name, na, nb):
        self.name, self.kids = name, {}
        self.self = ([0.0] * na, [0.0] * nb)
        self.incl = ([0.0] * na, [0.0] * nb)
        self.state, self.d = "same", 0.0

    @property
    def a(self):
        return mean(self.incl[0])

    @property
    def b(self):
        return mean(self.incl[1])

    def self_mean(self, k):
        return mean(self.self[k])


def build_tree(rounds_a, rounds_b):
    """@rounds_a, @rounds_b: per round {stack tuple: ns/op}."""
    na, nb = len(rounds_a), len(rounds_b)
    root = Node("all", na, nb)
    for k, rounds in enumerate((rounds_a, rounds_b)):
        for r, stacks in enumerate(rounds):
            for stack, v in stacks.items():
                node = root
                node.incl[k][r] += v
                for fr in stack:
                    if fr not in node.kids:
                        node.kids[fr] = Node(fr, na, nb)
                    node = node.kids[fr]
                    node.incl[k][r] += v
                node.self[k][r] += v
    return root


def judge(node, per_sample):
    """Each frame's state: grew, shrank, appeared, vanished, or same
    (grey: unchanged or within the spread); d its self change."""
    ia, ib = node.incl
    node.d = node.self_mean(1) - node.self_mean(0)
    if not any(ia) and any(ib) and not within_spread(ia, ib, per_sample):
        node.state = "appeared"
    elif any(ia) and not any(ib) and not within_spread(ia, ib, per_sample):
        node.state = "vanished"
    elif node.d != 0 and not within_spread(*node.self, per_sample):
        node.state = "grew" if node.d > 0 else "shrank"
    else:
        node.state = "same"
    for kid in node.kids.values():
        judge(kid, per_sample)


def frames(node):
    yield node
    for kid in node.kids.values():
        yield from frames(kid)


def largest_change(root):
    """The largest |self change| of a grew or shrank frame (0: none)."""
    return max((abs(n.d) for n in frames(root) if n.state in ("grew", "shrank")),
               default=0.0)


def function_rows(rounds_a, rounds_b, per_sample):
    """Every function's self and inclusive values summed over its frames,
    per round; ranked by the magnitude of the self change (perf diff's
    order), with the base share of the total (perf diff's Baseline)."""
    per = {}
    for k, rounds in enumerate((rounds_a, rounds_b)):
        for r, stacks in enumerate(rounds):
            for stack, v in stacks.items():
                for fr in set(stack):
                    row = per.setdefault(fr, ([[0.0] * len(rounds_a),
                                               [0.0] * len(rounds_b)],
                                              [[0.0] * len(rounds_a),
                                               [0.0] * len(rounds_b)]))
                    row[1][k][r] += v
                if stack:
                    per[stack[-1]][0][k][r] += v
    total_a = mean([sum(s.values()) for s in rounds_a])
    rows = []
    for fn, (sf, inc) in per.items():
        sa, sb = mean(sf[0]), mean(sf[1])
        kind = ("appeared" if not any(inc[0]) else
                "vanished" if not any(inc[1]) else
                "grew" if sb > sa else "shrank" if sb < sa else "same")
        rows.append({"function": fn, "change": kind,
                     "baseline_pct": 100 * sa / total_a if total_a else 0.0,
                     "self_base": sa, "self_head": sb, "self_delta": sb - sa,
                     "self_base_rounds": sf[0], "self_head_rounds": sf[1],
                     "within_spread": within_spread(sf[0], sf[1], per_sample),
                     "base": mean(inc[0]), "head": mean(inc[1])})
    rows.sort(key=lambda x: (-abs(x["self_delta"]), x["function"]))
    return rows


# The off-CPU and wall views root each stack at its thread's role (its
# name in the kernel, hv/thread.h); a wait for work ends in IDLE.
ROLE = re.compile(r"^\[thread: (.*)\]$")
IDLE = "[off-cpu: idle]"


def role_of(stack):
    """("[thread: client]", "start_thread", ...) -> "client"; else None."""
    m = ROLE.match(stack[0]) if stack else None
    return m.group(1) if m else None


def join_roles(rounds_a, rounds_b):
    """Two builds' rounds whose stacks join: where one build roots them at
    the thread's role and the other does not (a build before roles), the
    role frames are taken off."""
    def rooted(rounds):
        return any(role_of(k) for r in rounds for k in r)

    def strip(rounds):
        out = []
        for r in rounds:
            d = {}
            for k, v in r.items():
                k = k[1:] if role_of(k) else k
                d[k] = d.get(k, 0.0) + v
            out.append(d)
        return out

    if rooted(rounds_a) == rooted(rounds_b):
        return rounds_a, rounds_b
    return strip(rounds_a), strip(rounds_b)


def role_rows(rounds_a, rounds_b, per_sample):
    """Per role, per round, the time on CPU, off CPU waiting (a reply, a
    lock, the CPU) and idle (waiting for work); ranked by the change of
    the first two (idle time is nobody's wait), those beyond the rounds'
    spread first.  [] where the stacks have no roles."""
    parts = ("on", "waiting", "idle")
    per = {}
    for k, rounds in enumerate((rounds_a, rounds_b)):
        for r, stacks in enumerate(rounds):
            for stack, v in stacks.items():
                role = role_of(stack)
                if role is None:
                    continue
                row = per.setdefault(role, {p: ([0.0] * len(rounds_a),
                                                [0.0] * len(rounds_b))
                                            for p in parts})
                leaf = stack[-1]
                part = ("idle" if leaf == IDLE else
                        "waiting" if leaf.startswith("[off-cpu") else "on")
                row[part][k][r] += v
    rows = []
    for role, row in per.items():
        out = {"role": role}
        for p in parts:
            a, b = row[p]
            out[p] = {"base": mean(a), "head": mean(b),
                      "delta": mean(b) - mean(a), "base_rounds": a,
                      "head_rounds": b,
                      "within_spread": within_spread(a, b, per_sample)}
        out["busy_delta"] = out["on"]["delta"] + out["waiting"]["delta"]
        out["within_spread"] = (out["on"]["within_spread"] and
                                out["waiting"]["within_spread"])
        rows.append(out)
    rows.sort(key=lambda x: (x["within_spread"],
                             -(abs(x["on"]["delta"]) +
                               abs(x["waiting"]["delta"])), x["role"]))
    return rows


# The kernel frame that names a system call: __x64_sys_futex_[k].
SYSCALL = re.compile(r"^(?:__x64_sys_|__ia32_sys_|__se_sys_|__do_sys_|ksys_)"
                     r"(\w+?)_\[k\]$")
KEEP_FRAMES = 4


def stack_label(stack, keep=KEEP_FRAMES):
    """A stack as a reviewer reads it: the last KEEP_FRAMES frames of the
    program, the system call it slept in, its leaf, after the thread's
    role.  E.g. a wall view's
      [thread: hvbench];...;lh_thread;__pthread_mutex_lock;__lll_lock_wait;
        entry_SYSCALL_64_after_hwframe_[k];...;__x64_sys_futex_[k];
        ...;__schedule_[k];[off-cpu]
    reads "hvbench: ... lh_thread; __pthread_mutex_lock; __lll_lock_wait;
    [syscall futex]; [off-cpu]"; with @keep, that many frames."""
    role = role_of(stack)
    stack = stack[1:] if role else stack
    user = [f for f in stack if not f.endswith("_[k]")]
    leaf = user.pop() if user and user[-1].startswith("[") and \
        user[-1] != ENGINE_FRAME else None
    calls = [m.group(1) for m in map(SYSCALL.match, stack) if m]
    out = (["..."] if len(user) > keep else []) + user[-keep:]
    if calls:
        out.append(f"[syscall {calls[0]}]")
    elif len(user) < len(stack) - (leaf is not None):
        out.append("[kernel]")
    if leaf is not None:
        out.append(leaf)
    return (f"{role}: " if role else "") + "; ".join(out)


def distinct_labels(rows):
    """Rows whose labels read the same (two stacks that differ only
    above their last KEEP_FRAMES frames: one wait reached from two
    callers) get longer labels, each group as few frames longer as makes
    them differ: a reviewer must tell two rows of the table apart."""
    groups = {}
    for r in rows:
        groups.setdefault(r["label"], []).append(r)
    for same in groups.values():
        keep = KEEP_FRAMES
        longest = max(len(r["stack"].split(";")) for r in same)
        while len(same) > 1 and keep < longest:
            keep += 1
            labels = [stack_label(tuple(r["stack"].split(";")), keep)
                      for r in same]
            if len(set(labels)) == len(labels) or keep == longest:
                for r, label in zip(same, labels):
                    r["label"] = label
                break


def stack_rows(rounds_a, rounds_b, per_sample):
    """Every stack's per-round values, ranked as the reviewer asks: the
    stacks whose value per op changed beyond the rounds' spread first,
    each group by the magnitude of the change.  For the wait and wall
    views, whose time sits in leaves ("[off-cpu]", "[wait] CLASS") that
    many stacks share, this says *which* wait changed."""
    per = {}
    for k, rounds in enumerate((rounds_a, rounds_b)):
        for r, stacks in enumerate(rounds):
            for stack, v in stacks.items():
                row = per.setdefault(stack, ([0.0] * len(rounds_a),
                                             [0.0] * len(rounds_b)))
                row[k][r] += v
    rows = []
    for stack, (a, b) in per.items():
        ma, mb = mean(a), mean(b)
        rows.append({"stack": ";".join(stack), "label": stack_label(stack),
                     "change": ("appeared" if not any(a) else
                                "vanished" if not any(b) else
                                "grew" if mb > ma else
                                "shrank" if mb < ma else "same"),
                     "base": ma, "head": mb, "delta": mb - ma,
                     "base_rounds": a, "head_rounds": b,
                     "within_spread": within_spread(a, b, per_sample)})
    distinct_labels(rows)
    # A wait for work (idle) after the others: it delays nobody.
    rows.sort(key=lambda x: (x["within_spread"], x["stack"].endswith(IDLE),
                             -abs(x["delta"]), x["stack"]))
    return rows


def top(rows, n=3):
    """The @n functions that changed most: those outside the spread
    first, each group by magnitude (@rows are ranked already)."""
    pick = sorted(rows, key=lambda x: x["within_spread"])[:n]
    return [{"name": x["function"], "base": x["self_base"],
             "head": x["self_head"], "change": x["self_delta"],
             "kind": x["change"], "within_spread": x["within_spread"]}
            for x in pick]
