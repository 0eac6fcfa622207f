#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Ctrl-C and SIGTERM on review, bisect and history backfill (issue 34,
# bug 8).  Each child runs in a process group of its own, so the
# terminal's signal reaches hvbench alone; it must pass it on, wait for
# its children, keep what finished and exit 128 + the signal.  A fake
# cmake on PATH (it records its pid and its child's, then sleeps) stands
# for a long build:
#   - review, SIGINT during the build: exit 130 and "interrupted
#     (SIGINT)"; the fake cmake and its child are gone when review has
#     exited; the entry is not remembered as "does not build" and its
#     lock is free;
#   - review, SIGTERM: the same with 143;
#   - review with prebuilt builds, SIGINT during a long gate: 130, no
#     gate or worker of it left, nothing written to its output after;
#   - bisect and history backfill, SIGINT during a step's build (in the
#     review they run): 130, the build gone;
#   - (defects) --build-timeout kills a build step, also of bisect's and
#     backfill's reviews; --max-pairs below the
#     gate's pairs is said before any build; bisect GOOD GOOD is exit 0;
#     the default suite is HEAD's as committed.
# usage: it-review-interrupt.sh HVBENCH
set -u
hvb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
command -v flock >/dev/null || { echo "SKIP: no flock"; exit 77; }
repo=$tmp/repo cache=$tmp/cache
export HVBENCH_CCACHE=0
. "$here/lib-scratch-repo.sh" # git_
mkdir "$repo" "$tmp/bin"
echo 'int main(void) { return 0; }' >"$repo/main.c"
git_ init -q && git_ add -A && git_ commit -q -m one &&
    echo '/* two */' >>"$repo/main.c" && git_ commit -q -a -m two &&
    echo '/* three */' >>"$repo/main.c" && git_ commit -q -a -m three || exit 1
for t in git rm; do ln -s "$(command -v $t)" "$tmp/bin/$t"; done
# The fake cmake: its pid and its child's (a sleep) in $tmp/pids.
cat >"$tmp/bin/cmake" <<EOF2
#!/bin/sh
$(command -v sleep) 300 &
echo "\$\$ \$!" >>"$tmp/pids"
wait
EOF2
chmod +x "$tmp/bin/cmake"

# start ARGS...: hvbench ARGS in $repo, in the background with the
# default SIGINT a terminal's Ctrl-C meets; $pid, stderr in $tmp/err.
start() {
    : >"$tmp/pids"
    (cd "$repo" && exec env --default-signal=INT,TERM PATH="$tmp/bin" \
        "$hvb" "$@" >/dev/null 2>"$tmp/err") &
    pid=$!
    track $pid
}
# wait_for FILE PATTERN: until PATTERN is in FILE (30 s).
wait_for() {
    i=0
    while ! grep -q "$2" "$1" 2>/dev/null; do
        [ $i -ge 600 ] && return 1
        sleep 0.05
        i=$((i + 1))
    done
}
# stop SIG: SIGNAL to $pid; $rc once it has exited (killed at 60 s).
stop() {
    kill -"$1" $pid
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL $pid 2>/dev/null
    wait $pid
    rc=$?
    untrack $pid
}
# alive: the fake cmake's processes still there (none, if all is well;
# a zombie is gone: init here may be slow to reap).
alive() {
    for p in $(cat "$tmp/pids"); do
        st=$(ps -o stat= -p "$p" 2>/dev/null)
        [ -n "$st" ] && [ "${st#Z}" = "$st" ] && echo "$p"
    done
}
# check WHAT WANT: exit WANT, said, no fake cmake left.
check() {
    left=$(alive)
    for p in $left; do kill -KILL "$p" 2>/dev/null; done
    [ $rc -eq "$2" ] && grep -q "interrupted (SIG" "$tmp/err" &&
        [ -z "$left" ] && ok ||
        bad "$1: exit $rc (want $2), left running: '$left', $(tail -3 "$tmp/err")"
}

review="review --cache $cache --out $tmp/out --metric time HEAD^ HEAD -- lookup"
start $review
wait_for "$tmp/pids" " " || bad "review: the fake cmake never ran: $(cat "$tmp/err")"
stop INT
check "review, SIGINT" 130
k=$(sed -n 's/.*building \([0-9a-f-]*\) .*/\1/p' "$tmp/err" | head -1)
[ -n "$k" ] && [ ! -e "$cache/$k/failed" ] && flock -n "$cache/$k.lock" true &&
    ok || bad "review, SIGINT: entry '$k' remembered or still locked: $(ls "$cache" 2>&1)"

start $review
wait_for "$tmp/pids" " " || bad "review: the fake cmake never ran"
stop TERM
check "review, SIGTERM" 143

# Prebuilt builds: the gate runs; SIGINT during it.
start review --base-bin "$hvb" --head-bin "$hvb" --out "$tmp/gout" \
    --metric time --pairs 400 --max-pairs 400 HEAD^ HEAD -- lookup \
    --param domains=10
# SIGINT once the gate (its --json under gout) has started its workers.
gate_working() {
    for g in $(pgrep -f "$tmp/gout/gates/"); do
        pgrep -P "$g" >/dev/null && return 0
    done
    return 1
}
i=0
until gate_working; do
    [ $i -ge 600 ] && { bad "gate never started its workers: $(cat "$tmp/err")"; break; }
    sleep 0.05
    i=$((i + 1))
done
stop INT
left=$(pgrep -r RSD -f "$tmp/gout" || true)
ls -lR --time-style=+%s.%N "$tmp/gout" >"$tmp/before" 2>&1
sleep 2
ls -lR --time-style=+%s.%N "$tmp/gout" >"$tmp/after" 2>&1
[ $rc -eq 130 ] && [ -z "$left" ] && cmp -s "$tmp/before" "$tmp/after" &&
    grep -q "review: interrupted (SIGINT)" "$tmp/err" && ok ||
    bad "gate, SIGINT: exit $rc, left: '$left', $(diff "$tmp/before" "$tmp/after" | head -3), $(tail -3 "$tmp/err")"
for p in $left; do kill -KILL "$p" 2>/dev/null; done

start bisect --cache "$cache" --out "$tmp/bout" --metric time HEAD~2 HEAD -- lookup
wait_for "$tmp/pids" " " || bad "bisect: the fake cmake never ran: $(cat "$tmp/err")"
stop INT
check "bisect, SIGINT" 130

start history backfill --db "$tmp/h.db" --cache "$cache" --out "$tmp/hout" \
    --metric time HEAD~2..HEAD -- lookup
wait_for "$tmp/pids" " " || bad "backfill: the fake cmake never ran: $(cat "$tmp/err")"
stop INT
check "backfill, SIGINT" 130

# The same fake build under --build-timeout 2: killed with its group,
# said as the machine's (timed out), not remembered; and review's other
# defects: --max-pairs below the gate's pairs said before any build,
# bisect GOOD GOOD exit 0 as its help says, the default suite HEAD's as
# committed (an edit in the work tree not read).
: >"$tmp/pids"
t0=$(date +%s)
(cd "$repo" && timeout 60 env PATH="$tmp/bin" "$hvb" review --cache "$cache" --out "$tmp/out" \
    --build-timeout 2 --metric time HEAD^ HEAD -- lookup >/dev/null 2>"$tmp/err")
rc=$?
left=$(alive)
[ $rc -eq 2 ] && grep -q "could not run here (timed out)" "$tmp/err" && [ -z "$left" ] &&
    [ $(($(date +%s) - t0)) -lt 30 ] && ok ||
    bad "--build-timeout 2: exit $rc, left '$left', $(tail -2 "$tmp/err")"
# bisect's and backfill's reviews get it too (they waited the 2 hours).
for c in "bisect --out $tmp/bto1 HEAD~2 HEAD" \
    "history backfill --db $tmp/bto.db --out $tmp/bto2 HEAD~2..HEAD"; do
    o=$(echo "$c" | sed 's/.*--out \([^ ]*\).*/\1/')
    : >"$tmp/pids"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    (cd "$repo" && timeout 60 env PATH="$tmp/bin" "$hvb" $c --cache "$cache" \
        --build-timeout 2 --metric time -- lookup >/dev/null 2>"$tmp/err")
    rc=$?
    left=$(alive)
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ -z "$left" ] &&
        grep -rq "could not run here (timed out)" "$o" &&
        [ $(($(date +%s) - t0)) -lt 40 ] && ok ||
        bad "${c%% *} --build-timeout 2: exit $rc, left '$left', $(tail -2 "$tmp/err")"
done
: >"$tmp/pids"
(cd "$repo" && PATH="$tmp/bin" "$hvb" review --cache "$cache" --out "$tmp/out" \
    --max-pairs 3 HEAD^ HEAD -- lookup >/dev/null 2>"$tmp/err")
rc=$?
[ $rc -eq 2 ] && grep -q "max-pairs 3 is below the gate's --pairs (default 8)" "$tmp/err" &&
    ! grep -q building "$tmp/err" && [ ! -s "$tmp/pids" ] && ok ||
    bad "--max-pairs 3: exit $rc, $(tail -2 "$tmp/err")"
(cd "$repo" && "$hvb" bisect HEAD HEAD -- lookup >"$tmp/o" 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] && grep -q "nothing to bisect" "$tmp/o" && ok ||
    bad "bisect HEAD HEAD: exit $rc, $(cat "$tmp/err")"
mkdir -p "$repo/.ci"
echo "lookup --param domains=10" >"$repo/.ci/gate-suite"
git_ add .ci/gate-suite && git_ commit -q -m suite
echo "# edited, not committed: no gate" >"$repo/.ci/gate-suite"
(cd "$repo" && "$hvb" review --base-bin "$hvb" --head-bin "$hvb" --out "$tmp/sout" \
    --metric time --pairs 2 --max-pairs 2 --rounds 3 --sample-time 0.001 \
    --explain none HEAD^ HEAD >/dev/null 2>"$tmp/err")
rc=$?
grep -q "gate lookup --param domains=10" "$tmp/err" && [ $rc -ne 2 ] && ok ||
    bad "the default suite: exit $rc, $(tail -2 "$tmp/err")"

# bisect's default output is under .git/ (issue 34, bug 1), never in the
# work tree: here with no cmake on PATH, so the first step's review
# fails at once and bisect stops, its bisect.json written.
mkdir "$tmp/nocmake"
for t in git rm; do ln -s "$(command -v $t)" "$tmp/nocmake/$t"; done
(cd "$repo" && timeout 120 env PATH="$tmp/nocmake" "$hvb" bisect --cache "$cache" \
    --metric time HEAD~2 HEAD -- lookup >/dev/null 2>"$tmp/err")
[ -f "$repo/.git/hvbench-bisect/bisect.json" ] && [ ! -e "$repo/hvbench-bisect" ] &&
    [ -z "$(git -C "$repo" status --porcelain --untracked-files=all | grep -v '^ M .ci/')" ] && ok ||
    bad "bisect's default --out: $(ls "$repo" "$repo/.git" | tr '\n' ' '), $(tail -2 "$tmp/err")"

finish review-interrupt
