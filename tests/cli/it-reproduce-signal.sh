#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench reproduce interrupted, and --resume:
# - SIGTERM or SIGINT to reproduce (a fake child that waits, through
#   $HVB_REPRODUCE_EXE): the child is stopped by the same signal, nothing
#   is left running, exit 143 / 130, the message names the run;
# - a real run interrupted half-way (seed 004, --quick): its finished
#   rounds stay in its file (complete: false), exit 143; --resume goes on
#   from them ("run --resume": the kept rounds' samples unchanged) and the
#   table is written; a file of no reproduce of DIR is run afresh.
# Usage: it-reproduce-signal.sh HVBENCH
set -u
. "$(dirname "$0")/lib.sh"
hvbench=$(realpath "$1")
py=/usr/bin/python3

# gone PID SECONDS: true once PID has ended (at most SECONDS).
gone() {
    i=0
    while kill -0 "$1" 2>/dev/null; do
        [ $i -ge $(($2 * 10)) ] && return 1
        sleep 0.1
        i=$((i + 1))
    done
}
# appear FILE SECONDS: true once FILE exists.
appear() {
    i=0
    while [ ! -s "$1" ]; do
        [ $i -ge $(($2 * 10)) ] && return 1
        sleep 0.1
        i=$((i + 1))
    done
}

cat >"$tmp/fake" <<EOF
#!/bin/sh
echo \$\$ >"$tmp/child.pid"
trap 'echo TERM >"$tmp/child.end"; exit 143' TERM
trap 'echo INT >"$tmp/child.end"; exit 130' INT
while :; do sleep 0.1; done
EOF
chmod +x "$tmp/fake"

for sw in TERM:143 INT:130; do
    s=${sw%:*}
    want=${sw#*:}
    rm -f "$tmp/child.pid" "$tmp/child.end"
    HVB_REPRODUCE_EXE=$tmp/fake "$hvbench" reproduce --quick --seed 004 -q \
        --out "$tmp/f$s" >/dev/null 2>"$tmp/err$s" &
    parent=$!
    track $parent
    if ! appear "$tmp/child.pid" 20; then
        bad "SIG$s: the fake child did not start"
        continue
    fi
    child=$(cat "$tmp/child.pid")
    track "$child"
    kill -"$s" $parent
    if gone $parent 20; then
        wait $parent
        rc=$?
    else
        rc=timeout
    fi
    untrack $parent
    [ "$rc" = "$want" ] && ok || bad "SIG$s: reproduce exit $rc, want $want"
    gone "$child" 5 && [ "$(cat "$tmp/child.end" 2>/dev/null)" = "$s" ] && ok ||
        bad "SIG$s: the child was not stopped by SIG$s (still running: $(kill -0 "$child" 2>/dev/null && echo yes || echo no))"
    grep -q "interrupted (SIG$s) in 004-lookup: stopped it" "$tmp/err$s" && ok ||
        bad "SIG$s: message: $(cat "$tmp/err$s")"
done

# A real run interrupted after its first round, then --resume.
R="reproduce --quick --seed 004 --min-time 0.05 -q --out $tmp/rp"
"$hvbench" $R >/dev/null 2>"$tmp/rp.err" &
parent=$!
track $parent
f=$tmp/rp/004-lookup.json
i=0
while [ $i -lt 600 ] && ! $py -c "
import json, sys
r = json.load(open(sys.argv[1]))['hvbench']['run']
sys.exit(0 if r['rounds_done'] >= 1 else 1)" "$f" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
kill -TERM $parent
gone $parent 30 && wait $parent
rc=$?
untrack $parent
# The child run (its pid in its file) must not go on writing into DIR.
runpid=$($py -c "
import json, sys
print(json.load(open(sys.argv[1]))['hvbench']['run']['pid'])" "$f" 2>/dev/null)
if [ -n "$runpid" ]; then
    track "$runpid"
    ! kill -0 "$runpid" 2>/dev/null && ok || bad "the run child $runpid still runs"
fi
done_rounds=$($py -c "
import json, sys
r = json.load(open(sys.argv[1]))['hvbench']['run']
print(r['rounds_done'] if not r['complete'] else 'complete')" "$f" 2>/dev/null)
case "$done_rounds" in
complete | '')
    skip_part "the run ended before the signal ($done_rounds): interrupt not checked"
    ;;
*)
    [ $rc -eq 143 ] &&
        grep -q "interrupted (SIGTERM) in 004-lookup: stopped it (exit status 143" "$tmp/rp.err" &&
        ok || bad "real run: exit $rc, $(cat "$tmp/rp.err")"
    ;;
esac
cp "$f" "$tmp/kept.json"
"$hvbench" $R --resume >/dev/null 2>"$tmp/res.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || bad "--resume: exit $rc: $(cat "$tmp/res.err")"
$py - "$tmp/kept.json" "$f" "$tmp/rp/reproduce.json" <<'PY' && ok || bad "--resume kept nothing"
import json, sys
old = json.load(open(sys.argv[1]))["hvbench"]
new = json.load(open(sys.argv[2]))["hvbench"]
t = json.load(open(sys.argv[3]))
n = old["run"]["rounds_done"]
assert new["run"]["complete"] and new["run"]["rounds_done"] == 7
for a, b in zip(old["cells"], new["cells"]):
    assert a["samples_ns_per_op"][:n] == b["samples_ns_per_op"][:n], a["name"]
r = t["runs"][0]
assert "--resume" in r["command"], r["command"]
assert r["results"]["pid"] == new["run"]["pid"]
PY

# A file of no reproduce of DIR: run afresh under --resume.
$py -c "
import json, sys
d = json.load(open(sys.argv[1]))
d['hvbench']['run']['invocation'] = 'someone-else'
json.dump(d, open(sys.argv[1], 'w'))" "$f"
"$hvbench" $R --resume >/dev/null 2>"$tmp/res2.err"
rc=$?
$py -c "
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
sys.exit(0 if '--resume' not in r['command'] and r['results'] else 1)" "$tmp/rp/reproduce.json" &&
    ok ||
    bad "a foreign file under --resume: exit $rc, $(cat "$tmp/res2.err")"
"$hvbench" reproduce --help | grep -q -- "--resume" && ok || bad "--resume not in --help"
finish it-reproduce-signal
