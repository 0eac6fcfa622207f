# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the shell tests (". .../common/testlib.sh" after setting
# nothing): $tmp, a directory removed on exit; fail and skip counters;
# bad MESSAGE, a FAIL line counted; py, Debian's Python.
set -u
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
skip=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run_attempts LABEL runs the caller's
# attempt() up to three times.  attempt returns 0 (pass), 1 (fail: a
# FAIL line naming LABEL and the attempt, fail incremented) or 2 (the
# machine disturbed the measurement: tried again; after three, a SKIP
# line and skip=1, never a pass).
run_attempts() {
    _n=0
    while :; do
        _n=$((_n + 1))
        attempt
        _rc=$?
        [ $_rc -eq 0 ] && return 0
        if [ $_rc -eq 1 ]; then
            bad "$1 (attempt $_n)"
            return 1
        fi
        if [ $_n -ge 3 ]; then
            echo "SKIP: $1: the machine disturbed it 3 times"
            skip=1
            return 2
        fi
    done
}

# nobody_ready PART: can the caller run hvbench as nobody ($as_nobody)?
# It needs setpriv, and nobody must reach the drawing scripts (a clone
# under a private directory, mktemp -d's 0700, hides them, and the
# drawing fails).  If so, $tmp/n is made for nobody's files; if not, a
# "SKIP part" line names PART and it returns 1.
as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
nobody_ready() {
    _render="$(cd "$(dirname "$0")/../.." && pwd)/harness/profile/render/flamegraph.py"
    if ! command -v setpriv >/dev/null; then
        echo "SKIP part: no setpriv: $1"
        return 1
    fi
    if ! $as_nobody test -r "$_render"; then
        echo "SKIP part: nobody cannot read $_render: $1 untested"
        return 1
    fi
    mkdir -p "$tmp/n" && chmod 777 "$tmp/n" "$tmp"
}
