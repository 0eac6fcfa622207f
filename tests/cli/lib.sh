# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the CLI test scripts (. "$(dirname "$0")/lib.sh"): a
# temporary directory $tmp removed at exit, processes registered with
# `track PID` killed at exit (also when the test fails half-way), and the
# pass/fail counts with ok, bad and finish.
tmp=$(mktemp -d)
tracked=
track() { tracked="$tracked $1"; }
untrack() { tracked=$(echo "$tracked" | sed "s/ $1\$//; s/ $1 / /"); }
cleanup() {
    for p in $tracked; do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
# term PID: SIGTERM, then wait up to 5 s; true when PID is gone.
term() {
    kill -TERM "$1" 2>/dev/null
    _i=0
    while kill -0 "$1" 2>/dev/null && [ $_i -lt 50 ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    ! kill -0 "$1" 2>/dev/null
}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# finish NAME: the summary line; the exit status says whether all passed.
# skip_part WHY: a part not run here; the test then ends as skipped (77:
# SKIP_RETURN_CODE), never as passed, unless something failed.
skipped=
skip_part() {
    echo "SKIP (a part): $*"
    skipped="$skipped${skipped:+; }$*"
}
finish() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] || return 1
    if [ -n "$skipped" ]; then
        echo "SKIP: not run here: $skipped"
        exit 77
    fi
}
# started RC WHAT ERRFILE: after "scripts/*-local.sh start" (exit RC,
# stderr in ERRFILE): exit 77 with SKIP and its reason where it cannot
# run, 1 with FAIL where WHAT did not start.
started() {
    if [ "$1" -eq 77 ]; then
        echo "SKIP: $(cat "$3")"
        exit 77
    fi
    if [ "$1" -ne 0 ]; then
        echo "FAIL: $2 did not start: $(cat "$3")"
        exit 1
    fi
}
