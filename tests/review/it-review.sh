#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench review on the scratch repository of the fixture scratch-repo
# (fixture-scratch.sh: this tree committed as GOOD, ..., the 4th commit,
# then the 5th that slows one plugin's hot path, rcu_ref_lock spinning 64
# times more; the 4th and 5th built in its cache), here "base" and
# "slow".  In two parts, two tests:
#
#   time (ctest review; both CPUs: its time verdicts want them)
#   - review base slow: regressed, in time and in sim_instructions, and
#     rcu_ref_lock on top of the function diff with more instructions and
#     on top of the flame graph's self-time changes, above the base in
#     every round; in the after graph it alone is coloured, its callers
#     grey, and the page shows it first beside the graph;
#   - review slow slow (A/A): sim_instructions SAME (time SAME, or an
#     honest unknown on a loaded machine);
#
#   sim (ctest review-sim; exact verdicts, beside other tests)
#   - asked again: both builds found in the cache, nothing built; the
#     spin loop's lines in rcu_ref_lock's line block, new, head > base;
#   - review slow base: improved, rcu_ref_lock's self time shrank and
#     the spin loop's lines are gone from its line block;
#   - the working tree with the slowdown uncommitted: reviewed against
#     HEAD, "uncommitted changes included", dirty in review.json;
#   - a commit that does not build: exit 2 with its log's last lines;
#   - not a repository, a revision that is none, two suites: exit 2.
#
# The fixture built base and slow (and, doing so, showed a first review
# building and the next finding); here the dirty tree is built (from
# the fixture's ccache, seconds) and the broken commit fails to.  The
# time part reads the fixture's repository; the sim part clones it (git
# clone --shared: the same commits), as the dirty tree and the broken
# commit change it.
#   wait (ctest review-wait; a cell that waits, explained)
#   - review slow c6 -- lock-hold lock=mutex hold_ns=200000: the 6th
#     commit holds the lock twice as long; the wall view's first stack
#     is the waiter asleep in the mutex's futex, the wait view's the
#     lock class, each grown by ~hold_ns beyond the rounds' spread; the
#     comment and the page have "Where the time waits", callgrind is
#     skipped and says why.  Negative controls: A/A (c6 c6) fails the
#     same check; --wall-views none draws no wall view.
#
# usage: it-review.sh HVBENCH SCRATCH_DIR time|sim|wait
set -u
hvb=$(realpath "$1")
fix=$(realpath "$2")
part=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
# HVB_TEST_KEEP=1: keep the scratch directory (clone, outputs).
[ -n "${HVB_TEST_KEEP:-}" ] && trap 'echo "kept $tmp"' EXIT
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
[ -s "$fix/commits" ] || { echo "FAIL: no fixture in $fix (ctest runs scratch-repo-setup first)"; exit 1; }
# shellcheck source=/dev/null
. "$fix/commits" # good, c1 ... c6
# shellcheck disable=SC2154
base=$c4 slow=$c5
repo=$fix/repo cache=$fix/cache
. "$here/lib-scratch-repo.sh" # git_
W="lookup --plugin domlookup=rcu-ref --threads 1"

# review OUT ARGS...: hvbench review in the scratch repo; $rc, OUT/err.
review() {
    o=$tmp/$1
    shift
    mkdir -p "$o"
    (cd "$repo" && timeout -k 10 1500 "$hvb" review --cache "$cache" \
        --out "$o" "$@" >"$o.stdout" 2>"$o.stderr")
    rc=$?
}
v() { jq -r ".cells[0].verdicts.$2.verdict" "$tmp/$1/review.json"; }

# shot OUT: OUT/index.html as headless Chromium paints it, its pixels of
# the page's regressed colour (#fdd) and same colour (#efe) counted: "R S"
# (or "skip" without chromium).
shot() {
    browser=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$browser" ] || { echo skip; return; }
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/chrome" --hide-scrollbars --window-size=1200,900 \
        --virtual-time-budget=3000 --screenshot="$tmp/$1.png" "file://$tmp/$1/index.html" \
        >/dev/null 2>&1
    /usr/bin/python3 - "$tmp/$1.png" <<'PY'
import sys
from PIL import Image
c = Image.open(sys.argv[1]).convert("RGB").getcolors(1 << 22) or []
n = lambda rgb: sum(k for k, x in c if sum(abs(a - b) for a, b in zip(x, rgb)) < 12)
print(n((255, 221, 221)), n((238, 255, 238)))
PY
}

# The flame graph of a review: fl OUT FILTER.
fl() { jq -r ".cells[0].flame$2" "$tmp/$1/review.json"; }

case $part in
time)
    review ab "$base" "$slow" -- $W
    [ $rc -eq 1 ] && [ "$(v ab sim_instructions)" = regressed ] &&
        [ "$(v ab time)" = regressed ] && ok ||
        bad "review base slow: exit $rc, $(v ab time) / $(v ab sim_instructions): $(tail -5 "$tmp/ab.stderr")"
    f=$(jq -r '.cells[0].functions[0].function' "$tmp/ab/review.json")
    d=$(jq -r '.cells[0].functions[0] | (.head_ir_per_op - .base_ir_per_op > 10)' "$tmp/ab/review.json")
    [ "$f" = rcu_ref_lock ] && [ "$d" = true ] && ok ||
        bad "the function diff's top row: $f (grew by more than 10 Ir/op: $d)"
    for x in review.md index.html review.json review.txt junit.xml; do
        [ -s "$tmp/ab/$x" ] && ok || bad "no $x"
    done
    # The answer first (issue 35): the comment's first item is the cell,
    # slower, with the function; the mail keeps to 72 columns; JUnit
    # fails the cell in sim_instructions.
    sed -n 3p "$tmp/ab/review.md" | grep -q "^- lookup rcu-ref, 1 thread: .*slower.*rcu_ref_lock" &&
        [ "$(awk 'length > 72' "$tmp/ab/review.txt" | wc -l)" -eq 0 ] &&
        grep -q '<failure type="regressed" message="sim_instructions' "$tmp/ab/junit.xml" &&
        ok || bad "the answer: $(sed -n 3p "$tmp/ab/review.md"); $(grep -c failure "$tmp/ab/junit.xml") failure(s)"
    # The flame graph between the builds: the slowed function grew most in
    # self time in every round (its rounds' ranges do not overlap), and the
    # graphs are there.
    [ "$(fl ab .self[0].function)" = rcu_ref_lock ] &&
        [ "$(fl ab '.self[0] | (.self_head_rounds | min) > (.self_base_rounds | max)')" = true ] &&
        [ "$(fl ab .rounds)" = 4 ] && ok ||
        bad "the flame graph's top self change: $(fl ab '.self[0]' | jq -c .)"
    for x in after_svg before_svg table; do
        grep -q . "$tmp/ab/$(fl ab ".$x")" && ok || bad "flame: no $x"
    done
    grep -q "<svg" "$tmp/ab/$(fl ab .after_svg)" &&
        grep -q "Differential flame graph, 4 interleaved rounds" "$tmp/ab/review.md" &&
        grep -q "<object type=\"image/svg+xml\"" "$tmp/ab/index.html" && ok ||
        bad "the flame graph is not in the report"
    # The after graph colours rcu_ref_lock by its self change and leaves
    # its callers grey, the engine one named frame; beside the graph the
    # frames that changed most lead with it (issue 35).
    svg=$tmp/ab/$(fl ab .after_svg)
    st() { grep -o "data-name=\"$1\" data-state=\"[a-z]*\"" "$svg" | sed 's/.*="//; s/"$//' | sort -u | tr '\n' ' '; }
    # A caller is grey, or (a loaded machine: a real side effect beyond
    # 4 rounds' spread) coloured by a self change under a tenth of
    # rcu_ref_lock's, never by its inclusive one.
    small() {
        [ "$(st "$(printf '%s' "$1" | sed 's/[][]/\\&/g')")" = "same " ] ||
            [ "$(fl ab " | (.self | map(select(.function == \"rcu_ref_lock\")) | .[0].self_delta | fabs) as \$r |
                (.self | map(select(.function == \"$1\")) | .[0].self_delta // 0 | fabs) < 0.1 * \$r")" = true ]
    }
    [ "$(st rcu_ref_lock)" = "grew " ] && small hv_domain_lock_by_id &&
        small lookup_thread && small '[benchmark engine]' &&
        ! grep -q 'data-depth="1" data-name="[^"]*+0x' "$svg" &&
        [ "$(fl ab '.top[0] | (.name == "rcu_ref_lock") and (.within_spread | not)')" = true ] &&
        grep -q "^Changed most (self CPU [^ ]*s/op" "$tmp/ab/review.md" &&
        grep -q 'class="flame-top"' "$tmp/ab/index.html" && ok ||
        bad "the flame graph's colours: rcu_ref_lock $(st rcu_ref_lock), its callers $(st hv_domain_lock_by_id)/$(st lookup_thread)/$(st '\[benchmark engine\]'), top $(fl ab '.top[0]' | jq -c .), self changes $(fl ab ' | [.self[] | {function, self_delta, within_spread, self_base_rounds, self_head_rounds}]' | jq -c .)"
    # The lock table delta: rcu-ref's cell takes the update lock; per op.
    [ "$(jq -r '.cells[0].locks | (.by == "wait_ns_per_op") and (.rows | length > 0)' "$tmp/ab/review.json")" = true ] &&
        grep -q "Lock table delta, 2 alternating rounds" "$tmp/ab/review.md" && ok ||
        bad "the lock table delta: $(jq -c '.cells[0].locks' "$tmp/ab/review.json")"
    # The page as a reader sees it: the regression in its colour (the
    # answer's line and the table's cells), and in the A/A page below none.
    px=$(shot ab)
    case $px in
    skip) echo "note: no chromium: the page's screenshot skipped" ;;
    *) [ "${px% *}" -gt 2000 ] && ok ||
        bad "the review page as Chromium paints it: $px regressed/same pixels" ;;
    esac
    grep -q "rcu_ref_lock" "$tmp/ab/review.md" &&
        grep -q "$(echo "$slow" | cut -c1-12)" "$tmp/ab/review.md" &&
        ok || bad "review.md lacks the function or the commit"
    [ "$(jq -r .review.head.commit "$tmp/ab/review.json")" = "$slow" ] &&
        [ "$(jq -r .review.base.commit "$tmp/ab/review.json")" = "$base" ] && ok ||
        bad "review.json's commits"

    # The metrics checked (sim_cycles, a third gate, is ab's).  An A/A
    # review passes whatever time says: sim_instructions blocks, time is
    # reported (issue 35).
    review aa "$slow" "$slow" --metric time,sim_instructions -- $W
    t=$(v aa time)
    [ "$(v aa sim_instructions)" = same ] && { [ "$t" = same ] || [ "$t" = unknown ]; } &&
        [ $rc -eq 0 ] && ! grep -q "<failure\|<error" "$tmp/aa/junit.xml" &&
        [ "$(jq -c .review.blocking "$tmp/aa/review.json")" = '["sim_instructions"]' ] && ok ||
        bad "A/A: exit $rc, time $t, sim_instructions $(v aa sim_instructions)"
    px=$(shot aa)
    case $px in
    skip) ;;
    *) [ "${px% *}" -lt 50 ] && [ "${px#* }" -gt 2000 ] && ok ||
        bad "the A/A page as Chromium paints it: $px regressed/same pixels" ;;
    esac
    [ "$t" = unknown ] && echo "note: A/A time unknown here (loaded machine?): $(jq -c '.cells[0].verdicts.time | {ratio, ci, pairs}' "$tmp/aa/review.json")"
    ;;
sim)
    # On a branch of its own at the slow commit, with no upstream (review's
    # default BASE is then HEAD's, as in a repository of one's own).
    git clone -q --shared --no-checkout "$fix/repo" "$tmp/repo" || exit 1
    repo=$tmp/repo
    git_ checkout -q -b review "$slow" || exit 1

    review again "$base" "$slow" --metric sim_instructions --flame-rounds 0 \
        --lock-rounds 0 -- $W
    [ $rc -eq 1 ] && grep -q "base found" "$tmp/again.stderr" &&
        grep -q "head found" "$tmp/again.stderr" &&
        [ "$(jq -r .review.head.build.cached "$tmp/again/review.json")" = true ] &&
        ok || bad "a second review built again: exit $rc, $(grep review: "$tmp/again.stderr")"
    # The line-level diff: rcu_ref_lock's row lists the spin loop's lines,
    # new in head (no base line) with more Ir/op than base, head's range
    # around them; review.md and index.html show the block.
    r='.cells[0].functions[] | select(.function == "rcu_ref_lock")'
    spin=$(jq -r "[$r | .lines[] | select((.src | test(\"spin\")) and .base_line == null and .head > .base)] | length" "$tmp/again/review.json")
    range=$(jq -r "$r | .head_lines" "$tmp/again/review.json")
    lo=${range%-*} hi=${range#*-}
    inside=$(jq -r "[$r | .lines[] | select(.head_line != null) | .head_line >= $lo and .head_line <= $hi] | all" "$tmp/again/review.json" 2>/dev/null)
    [ "$spin" -ge 2 ] && [ "$inside" = true ] &&
        grep -q '^rcu_ref_lock (plugins/domlookup/rcu-ref.c:[0-9]*-[0-9]*), Ir/op by line$' "$tmp/again/review.md" &&
        grep -q '^  new .*spin' "$tmp/again/review.md" &&
        grep -q '<table class="lines">' "$tmp/again/index.html" && ok ||
        bad "rcu_ref_lock's lines: $spin spin lines, range $range ($inside): $(jq -c "$r" "$tmp/again/review.json")"

    # Two profile rounds: the sign of the change is checked, ab's four
    # rounds have the rest.
    review ba "$slow" "$base" --metric sim_instructions --flame-rounds 2 \
        --lock-rounds 0 -- $W
    [ $rc -eq 0 ] && [ "$(v ba sim_instructions)" = improved ] && ok ||
        bad "review slow base: exit $rc, $(v ba sim_instructions)"
    [ "$(fl ba .self[0].function)" = rcu_ref_lock ] &&
        [ "$(fl ba '.self[0].self_delta < 0')" = true ] && ok ||
        bad "reverse flame graph: $(fl ba '.self[0]' | jq -c .)"
    # Its lines: the spin loop's gone (no head line, base > head), in
    # rcu-ref.c (where it moved, not domain.h where the base spends most).
    gone=$(jq -r "[$r | select(.file == \"plugins/domlookup/rcu-ref.c\") | .lines[] | select((.src | test(\"spin\")) and .head_line == null and .base > .head)] | length" "$tmp/ba/review.json")
    [ "$gone" -ge 2 ] && ok ||
        bad "the reverse's lines: $gone spin lines gone: $(jq -c "$r" "$tmp/ba/review.json")"

    # The slowdown undone in the working tree, not committed.
    git_ show "$base:plugins/domlookup/rcu-ref.c" >"$repo/plugins/domlookup/rcu-ref.c"
    review dirty --metric sim_instructions --flame-rounds 0 --lock-rounds 0 \
        --explain none -- $W
    [ $rc -eq 0 ] && grep -q "uncommitted changes included" "$tmp/dirty.stderr" &&
        [ "$(jq -r .review.head.dirty "$tmp/dirty/review.json")" = true ] &&
        [ "$(jq -r .review.base.commit "$tmp/dirty/review.json")" = "$slow" ] &&
        [ "$(v dirty sim_instructions)" = improved ] && ok ||
        bad "the working tree: exit $rc, $(v dirty sim_instructions), $(tail -3 "$tmp/dirty.stderr")"
    git_ checkout -q -- .

    printf '#error this revision does not build\n' >>"$repo/hv/domain.c"
    git_ commit -q -a -m broken
    review broken --metric sim_instructions -- $W
    [ $rc -eq 2 ] && grep -q "does not build" "$tmp/broken.stderr" &&
        grep -q "#error this revision does not build" "$tmp/broken.stderr" && ok ||
        bad "a revision that does not build: exit $rc, $(tail -3 "$tmp/broken.stderr")"

    review norepo --repo /proc -- $W
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/norepo.stderr")" -eq 1 ] && ok ||
        bad "not a repository: exit $rc, $(cat "$tmp/norepo.stderr")"
    review norev nosuchrev -- $W
    [ $rc -eq 2 ] && grep -q "'nosuchrev' is not a commit" "$tmp/norev.stderr" && ok ||
        bad "a revision that is none: exit $rc, $(cat "$tmp/norev.stderr")"
    review twosuites --suite x -- $W
    [ $rc -eq 2 ] && ok || bad "--suite and '--': exit $rc"
    # The gate's options and the blocking metrics are checked before any
    # build (issue 35): one line, exit 2, nothing built.
    review badpairs --pairs 0 -- $W
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/badpairs.stderr")" -eq 1 ] &&
        ! grep -q build "$tmp/badpairs.stderr" && ok ||
        bad "--pairs 0: exit $rc, $(cat "$tmp/badpairs.stderr")"
    review badblock --metric sim_instructions --block time -- $W
    [ $rc -eq 2 ] && grep -q "names 'time', which is not gated" "$tmp/badblock.stderr" &&
        [ "$(wc -l <"$tmp/badblock.stderr")" -eq 1 ] && ok ||
        bad "--block of a metric not gated: exit $rc, $(cat "$tmp/badblock.stderr")"
    ;;
wait)
    # The 6th commit holds lock-hold's mutex twice as long: its waiter
    # waits ~200 us more per op.  wv OUT VIEW FILTER: the view's entry.
    wv() { jq -r ".cells[0].flame.$2$3" "$tmp/$1/review.json"; }
    # grew OUT VIEW: its first stack grew by half hold_ns to three times
    # it (a busy machine stretches the holder's busy-wait), beyond the
    # rounds' spread, with the frames of the waiter's wait (wall: in the
    # mutex, asleep in the futex; wait: the lock class as the leaf).
    grew() {
        case $2 in
        wall) want='lh_thread;.*pthread_mutex_lock.*\[syscall futex\]; \[off-cpu\]$' ;;
        wait) want='lh_thread; \[wait\] lock-hold$' ;;
        esac
        wv "$1" "$2" '.stacks[0].label' | tr -d ' ' | grep -q "$(printf '%s' "$want" | tr -d ' ')" &&
            [ "$(wv "$1" "$2" '.stacks[0] | (.within_spread | not) and .delta > 100000 and .delta < 600000')" = true ]
    }
    LH="lock-hold --param lock=mutex --param hold_ns=200000 --threads 1"
    # --explain all: on a busy machine the gate may rightly say unknown
    # (descheduled), and the views are still wanted.
    [ "$(id -u)" = 0 ] || { echo "SKIP: the wall view needs root"; exit 77; }
    review w "$slow" "$c6" --metric time --pairs 2 --max-pairs 2 \
        --explain all --lock-rounds 0 -- $LH
    for view in wall wait; do
        grew w $view && ok ||
            bad "the $view view's first stack: $(wv w $view '.stacks[0]' | jq -c '{label: .label, delta: .delta, within_spread: .within_spread}') (exit $rc: $(tail -3 "$tmp/w.stderr"))"
        for x in after_svg before_svg table; do
            grep -q . "$tmp/w/$(wv w $view ".$x")" && ok || bad "$view: no $x"
        done
    done
    # The comment and the page: the section, the ranked rows; callgrind
    # skipped and said why.
    grep -q "^#### Where the time waits" "$tmp/w/review.md" &&
        grep -q '^| stack (wall view) |' "$tmp/w/review.md" &&
        grep -q '^| stack (wait view) |' "$tmp/w/review.md" &&
        grep -q "its threads mostly wait" "$tmp/w/review.md" &&
        grep -q "<h3>Where the time waits</h3>" "$tmp/w/index.html" &&
        grep -q "data=\"$(wv w wall .after_svg)\"" "$tmp/w/index.html" &&
        ok || bad "the waits are not in the report"
    # Negative control: the same check of an A/A review must fail (no
    # stack grew by a hold), and --wall-views none draws no wall view.
    review aa "$c6" "$c6" --metric time --pairs 2 --max-pairs 2 \
        --explain all --lock-rounds 0 -- $LH
    ! grew aa wall && ! grew aa wait && ok ||
        bad "A/A: a stack grew by a hold: $(wv aa wall '.stacks[0]' | jq -c '{label: .label, delta: .delta, within_spread: .within_spread}')"
    review none "$slow" "$c6" --metric time --pairs 2 --max-pairs 2 \
        --explain all --lock-rounds 0 --wall-views none -- $LH
    [ "$(wv none wall '')" = null ] && ! grep -q "Where the time waits" "$tmp/none/review.md" &&
        ok || bad "--wall-views none: $(wv none wall '' | head -c 200)"
    ;;
*)
    echo "usage: $0 HVBENCH SCRATCH_DIR time|sim|wait" >&2
    exit 2
    ;;
esac

finish "it-review ($part)"
