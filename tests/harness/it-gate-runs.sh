#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds older than the two-build worker (main's first 88 commits), paired
# by whole run processes ("worker --run-bin", "gate --base-runs",
# review's fallback), with fake old builds: the real hvbench behind a
# script that has no worker (and, for the oldest, no --iterations), and
# logs every run it is asked for (but --help).
#
#   1. The protocol: a hello with the cells and "by_runs"; "cal" and
#      "run" answered from whole runs, one process answering each of its
#      cells once ("run 0 N" then "run 1 N": one process; "run 0 N"
#      again: another); a bad command is "err", quit is "bye".
#   2. An old build without --iterations: "by_time" in the hello, its
#      samples run by --min-time.
#   3. gate --base-runs sim_instructions, the same build twice: same,
#      +0.00%, and it says so; the same with a new build whose slowdown
#      plugin does 200 more units per op: regressed.
#   4. review with the fake old base: the note, "paired_by": "runs",
#      review.md says so; a binary that is no hvbench is exit 2.
# About 20 s.  Usage: it-gate-runs.sh HVBENCH SLOWDOWN.so
set -u
hv=$(realpath "$1")
so=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
ok() { :; }

# old NAME [noiter]: $tmp/NAME, an "old build" (no worker, no gate
# --base-bin; with noiter no --iterations either); its runs in NAME.log.
old() {
    cat >"$tmp/$1" <<EOF
#!/bin/sh
unset HVB_SLOWDOWN_WORK # the slowdown is the new build's
case "\$1" in
worker) echo "hvbench: unknown command 'worker'" >&2; exit 2 ;;
gate) [ "\$2" = --base-bin ] && { echo "hvbench: unknown option '--base-bin'" >&2; exit 2; } ;;
run) [ "\$2" = --help ] && [ "${2:-}" = noiter ] && { "$hv" run --help | grep -v -- --iterations; exit 0; }
     [ "\$2" = --help ] || echo "\$*" >>"$tmp/$1.log" ;;
esac
exec "$hv" "\$@"
EOF
    chmod +x "$tmp/$1"
}
old old
old oldest noiter
line="lookup --plugin domlookup=rwlock-ref,rcu-noref --threads 1"

# 1. The protocol, by hand.
printf 'cal 0 0.01\nrun 0 5000\nrun 1 5000\nrun 0 5000\nbogus\nquit\n' |
    "$hv" worker --run-bin "$tmp/old" $line --quiet >"$tmp/p.out" 2>"$tmp/p.err"
head -1 "$tmp/p.out" | sed 's/^hello //' >"$tmp/hello.json"
[ "$(jq -r '.by_runs and (.cells | length == 2) and (.by_time | not)' "$tmp/hello.json")" = true ] &&
    ok || bad "hello: $(head -c 300 "$tmp/p.out")"
[ "$(grep -c '^ok ' "$tmp/p.out")" -eq 4 ] && grep -q '^err bad command' "$tmp/p.out" &&
    [ "$(tail -1 "$tmp/p.out")" = bye ] && ok ||
    bad "answers: $(cat "$tmp/p.out" "$tmp/p.err")"
sed -n 2p "$tmp/p.out" | grep -q '"iterations"' &&
    sed -n 3p "$tmp/p.out" | grep -q '"counters"' && ok || bad "cal/run replies"
# hello, cal, run 0 and 1 (one process), run 0 again.
[ "$(wc -l <"$tmp/old.log")" -eq 4 ] && [ "$(grep -c -- '--iterations 5000' "$tmp/old.log")" -eq 2 ] &&
    ok || bad "processes: $(cat "$tmp/old.log")"

# 2. No --iterations: by time.
printf 'cal 0 0.01\nrun 0 5000\nquit\n' |
    "$hv" worker --run-bin "$tmp/oldest" $line --quiet >"$tmp/q.out" 2>&1
head -1 "$tmp/q.out" | grep -q '"by_time":true' &&
    ! grep -q -- --iterations "$tmp/oldest.log" &&
    [ "$(grep -c -- '--min-time' "$tmp/oldest.log")" -eq 3 ] && ok ||
    bad "no --iterations: $(cat "$tmp/q.out" "$tmp/oldest.log")"

# 3. The gate by runs, deterministic.
expect "by runs, A/A" 0 "same" "$hv" gate --base-bin "$tmp/old" --base-runs \
    --metric sim_instructions -- lookup --plugin domlookup=rcu-noref --threads 1
grep -q "predates the worker: each sample of either build is a whole 'run' process" "$tmp/out" ||
    bad "the gate does not say it paired by runs"
grep -q "+0.00%" "$tmp/out" || bad "A/A by runs: not +0.00%"
HVB_SLOWDOWN_WORK=200 expect "by runs, slower new" 1 "regressed" \
    "$hv" gate --base-bin "$tmp/old" --base-runs --metric sim_instructions \
    -- lookup --plugin "domlookup=$so" --threads 1

# 4. review falls back to runs for an old base.
mkdir -p "$tmp/rv"
(cd "$(dirname "$hv")" && "$hv" review HEAD HEAD --base-bin "$tmp/old" \
    --head-bin "$hv" --metric sim_instructions --out "$tmp/rv" \
    -- lookup --plugin domlookup=rcu-noref --threads 1 >"$tmp/rv.out" 2>"$tmp/rv.err")
rc=$?
[ $rc -eq 0 ] && grep -q "predates the two-build worker: both builds are paired by whole run processes" "$tmp/rv.err" &&
    [ "$(jq -r .paired_by "$tmp/rv/review.json")" = runs ] &&
    grep -q "paired by whole run processes" "$tmp/rv/review.md" && ok ||
    bad "review by runs: exit $rc, $(tail -3 "$tmp/rv.err")"
(cd "$(dirname "$hv")" && "$hv" review HEAD HEAD --base-bin /bin/true \
    --head-bin "$hv" -- lookup >"$tmp/t.out" 2>"$tmp/t.err")
rc=$?
[ $rc -eq 2 ] && grep -q "is not an hvbench build" "$tmp/t.err" && ok ||
    bad "review of /bin/true: exit $rc, $(cat "$tmp/t.err")"

[ "$fail" -eq 0 ] && echo "gate by runs: all passed"
exit "$fail"
