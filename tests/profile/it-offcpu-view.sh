#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench profile --view offcpu|wall end to end (issue 36).
#
# Accuracy: lock-hold with lock=mutex (a sleeping lock: the waiter
# blocks in a futex) holds the lock 200 us per op.  From the kernel's
# sched_switch records, the time the waiter spent off CPU in the
# stacks through its mutex lock (lh_thread, pthread_mutex_lock; asleep
# in the futex or, on a busy machine, preempted there) must be
# within 10% of the waiter's own clock around that call (lock_call_ns,
# the same run), and within 10% of the model's lock view (--view wait,
# a second run).  Those stacks end in the kernel's futex frames and the
# leaf '[off-cpu]'.  A loaded machine stretches the waits of both runs
# unevenly: the pair is tried three times, and 77 if it never held.
#
# Wall: on + off CPU = wall for every thread of the cell within 5% (the
# issue's bound) beyond three standard errors of its sampled on-CPU share
# (at 4999 Hz a thread on CPU with 2,700 samples is known to +-1.9%; the
# 5% alone failed about one run in 30),
# for lock-hold (the waiter off CPU, the holder on) and lookup (on
# CPU); the folded weights sum to results.json's figures.
#
# Seed 003 (parallel-create, seclock=global, namesearch=lock-each): of
# the cell's threads' waits in a mutex, the security manager's queue
# (global_label blocked in pthread_mutex_lock) is the heaviest, and at
# least 5% of all their off-CPU time (idle pool threads included).  Its
# 225 threads' wall time is accounted for within 5% (the worst thread
# 25%): threads asleep at either end of the cell count (they were not:
# 34% went missing, one thread 100%).
#
# --diff: the wall view's differential files.  Without the tracepoint
# (run as nobody: tracefs is root's) --view offcpu falls back to the
# wait view and says so in results.json; --view wall is exit 2.
#
# Negative control (--plant wrong-wait): the accuracy check held to a
# waiter's clock 15% longer than it was must FAIL.
#
# Usage: it-offcpu-view.sh HVBENCH [--plant wrong-wait]
hvbench=$1
plant=${3:-}
# shellcheck source=../common/testlib.sh
. "$(dirname "$0")/../common/testlib.sh"
scale=1
[ "$plant" = wrong-wait ] && scale=1.15

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the sched_switch tracepoint with call chains needs root"
    exit 77
fi

# sum.py DIR VIEW: "mutex_ns total_ns json_total lock_call_ns" of a run.
cat >"$tmp/sum.py" <<'PY'
import glob, json, sys
d, view = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/results.json"))
prof = r["hvbench"]["cells"][0]["profile"]
assert prof["view"] == view, prof
mutex = total = 0.0
for line in open(glob.glob(d + "/*-%s.folded" % view)[0]):
    stack, w = line.rsplit(" ", 1)
    frames, w = stack.split(";"), float(w)
    total += w
    if view == "wait" and "lh_thread" in frames:
        mutex += w  # the lock view: '...;lh_thread;[wait] lock-hold'
    elif "lh_thread" in frames and any("pthread_mutex_lock" in f
                                       for f in frames) and \
            (view != "offcpu" or frames[-1].startswith("[off-cpu")):
        if frames[-1] == "[off-cpu]":  # it slept in the futex
            assert any(f.startswith("futex") and f.endswith("_[k]")
                       for f in frames), stack
        mutex += w
run = r["hvbench"]["profile"]
assert run["view"] == view, run
if view != "wait":
    assert "sched:sched_switch" in run["event"], run
    assert run["lost_switches"] == 0, run
key = {"offcpu": "off_cpu_ns_per_op", "wall": "wall_ns_per_op",
       "wait": "wait_ns_per_op"}[view]
want = prof[key] * (1 - prof.get("unaccounted_share", 0))
assert abs(total - want) <= 1e-3 * want + 1e-6, (total, want)
print("%.1f %.1f %.1f %.1f %.4f %.4f %.4f %.4f" % (mutex, total, want,
      r["benchmarks"][0].get("lock_call_ns", 0),
      prof.get("unaccounted_share", 0),
      prof.get("worst_thread_unaccounted_share", 0),
      prof.get("preempted_ns_per_op", 0) / prof.get("wall_ns_per_op", 1),
      prof.get("worst_thread_sampling_error", 0)))
PY

# within A B F P: is A within P% of B x F?
within() {
    $py -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]) * \
float(sys.argv[3]); sys.exit(abs(a - b) > float(sys.argv[4]) / 100 * b)" \
        "$@"
}

lh="lock-hold --threads 1 --iterations 2000 --repetitions 1 -q
    --param lock=mutex --param hold_ns=200000"

# One accuracy attempt: 0 pass, 1 fail, 2 disturbed (the two runs'
# waiter clocks more than 10% apart).
attempt() {
    rm -rf "$tmp/o" "$tmp/w"
    # shellcheck disable=SC2086
    if ! "$hvbench" profile $lh --view offcpu --out "$tmp/o" \
            >/dev/null 2>"$tmp/err" ||
        ! "$hvbench" profile $lh --view wait --out "$tmp/w" \
            >/dev/null 2>>"$tmp/err"; then
        echo "profile lock-hold failed: $(cat "$tmp/err")"
        return 1
    fi
    o=$($py "$tmp/sum.py" "$tmp/o" offcpu 2>&1) || {
        echo "off-CPU files wrong: $o"
        return 1
    }
    w=$($py "$tmp/sum.py" "$tmp/w" wait 2>&1) || {
        echo "wait files wrong: $w"
        return 1
    }
    set -- $o
    om=$1 oclock=$4
    set -- $w
    wm=$1 wclock=$4
    echo "off CPU in the mutex $om ns/op (its waiter's clock $oclock);" \
        "the lock view $wm (its waiter's clock $wclock)"
    if ! within "$om" "$oclock" "$scale" 10; then
        echo "off-CPU wait $om ns/op not within 10% of the waiter's" \
            "clock $oclock (x $scale)"
        return 1
    fi
    within "$om" "$wm" 1 10 && return 0
    within "$oclock" "$wclock" 1 10 || return 2
    echo "off-CPU wait $om ns/op not within 10% of the lock view's $wm"
    return 1
}

run_attempts accuracy
[ "$plant" = wrong-wait ] && exit "$fail"

# Wall: on + off = wall within 5% + 3 standard errors of the sampling,
# the files' sums the JSON's.  An
# attempt whose threads were preempted for over a quarter of their wall
# (a busy machine: the sampled on-CPU part then swings) was disturbed.
attempt() {
    rm -rf "$tmp/wall"
    # shellcheck disable=SC2086
    if ! "$hvbench" profile $w --view wall -q --out "$tmp/wall" \
            >/dev/null 2>"$tmp/err"; then
        echo "profile $w --view wall failed: $(cat "$tmp/err")"
        return 1
    fi
    if ! got=$($py "$tmp/sum.py" "$tmp/wall" wall 2>&1); then
        echo "wall files of $w wrong: $got"
        return 1
    fi
    for f in "$tmp"/wall/*-wall.svg "$tmp"/wall/*-wall.speedscope.json; do
        [ -s "$f" ] || { echo "missing $f"; return 1; }
    done
    set -- $got
    echo "wall view of ${w%% *}: accounted $3 ns/op, not accounted $5" \
        "(the worst thread $6, its sampling +-$8; preempted $7 of the wall)"
    $py -c "import sys; sys.exit(abs(float(sys.argv[1])) > 0.05 + \
3 * float(sys.argv[2]))" "$6" "$8" && return 0
    $py -c "import sys; sys.exit(float(sys.argv[1]) <= 0.25)" "$7" && return 2
    echo "${w%% *}: on + off CPU not within 5% + 3 x $8 of a thread's wall ($6)"
    return 1
}
for w in "lock-hold --threads 1 --iterations 2000 --repetitions 1
          --param lock=mutex --param hold_ns=200000 --frequency 4999" \
    "lookup --threads 1 --min-time 0.3 --repetitions 1 --frequency 4999"; do
    run_attempts "wall view of ${w%% *}"
done

# Seed 003 from the kernel: the security manager's queue.
rm -rf "$tmp/s"
if ! "$hvbench" profile parallel-create --plugin seclock=global \
        --plugin namesearch=lock-each --threads 20 \
        --param max_client_requests=50 --repetitions 1 -q --view wall \
        --out "$tmp/s" >/dev/null 2>"$tmp/err"; then
    bad "seed 003 --view offcpu failed: $(cat "$tmp/err")"
else
    out=$($py - "$tmp/s" <<'PY' 2>&1
import collections, glob, json, sys
tot, locks = 0.0, collections.Counter()
prof = json.load(open(sys.argv[1] + "/results.json"))["hvbench"]["cells"][0]["profile"]
un, worst = prof["unaccounted_share"], prof["worst_thread_unaccounted_share"]
print("%.1f%% of the threads' wall not accounted for, the worst thread %.1f%%"
      % (un * 100, worst * 100))
if abs(un) > 0.05 or worst > 0.25:
    sys.exit(1)
for line in open(glob.glob(sys.argv[1] + "/*-wall.folded")[0]):
    stack, w = line.rsplit(" ", 1)
    f = [x for x in stack.split(";") if not x.endswith("_[k]")]
    tot += float(w)
    for i, x in enumerate(f):
        if "pthread_mutex_lock" in x and f[-1] == "[off-cpu]":
            locks[f[i - 1]] += float(w)  # who waited for a mutex
            break
top, sec = locks.most_common(1)[0]
print("security manager queue %.1f of %.1f ms/op off CPU; the heaviest "
      "mutex wait is in %s" % (locks["global_label"] / 1e6, tot / 1e6, top))
sys.exit(top != "global_label" or sec < 0.05 * tot)
PY
    ) || bad "seed 003: $out"
    echo "seed 003: $out"
fi

# --diff of the wall view.
rm -rf "$tmp/d"
if ! "$hvbench" profile lookup --plugin domlookup=rwlock-ref,rcu-noref \
        --threads 1 --min-time 0.2 --repetitions 1 -q --view wall \
        --diff domlookup=rwlock-ref,rcu-noref --out "$tmp/d" \
        >"$tmp/dout" 2>"$tmp/err"; then
    bad "--view wall --diff failed: $(cat "$tmp/err")"
else
    ls "$tmp"/d/diff-wall-*.svg >/dev/null 2>&1 ||
        bad "no diff-wall-*.svg: $(ls "$tmp/d")"
fi

# Without the tracepoint (nobody may not read tracefs).
if nobody_ready "the fallback without the tracepoint"; then
    # shellcheck disable=SC2086
    $as_nobody "$hvbench" profile $lh --iterations 100 --view offcpu \
        --out "$tmp/n/o" >/dev/null 2>"$tmp/n/err"
    rc=$?
    [ $rc -eq 0 ] || bad "offcpu as nobody: exit $rc: $(cat "$tmp/n/err")"
    grep -q "the off-CPU view shows the model's lock waits alone" \
        "$tmp/n/err" || bad "offcpu as nobody: no warning"
    jq -e '.hvbench.profile.requested_view == "offcpu" and
        (.hvbench.profile.fallback | length > 0) and
        .hvbench.profile.view == "wait"' "$tmp/n/o/results.json" \
        >/dev/null || bad "offcpu as nobody: results.json does not say so"
    # shellcheck disable=SC2086
    $as_nobody "$hvbench" profile $lh --view wall --out "$tmp/n/w" \
        >/dev/null 2>"$tmp/n/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/n/err")" -eq 1 ] ||
        bad "wall as nobody: exit $rc, $(cat "$tmp/n/err")"
fi

[ $fail -eq 0 ] && [ $skip -eq 1 ] && exit 77
[ $fail -eq 0 ] && echo "ok: off-CPU and wall views"
exit "$fail"
