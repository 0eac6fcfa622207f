# SPDX-License-Identifier: GPL-2.0-only
#
# What the gate tests and the gate measurement scripts of tests/harness
# share (sourced: . "$(dirname "$0")/lib.sh"):
#
#   $tmp, $fail        a scratch directory, removed at exit, and the
#                      script's verdict (0 until bad is called)
#   bad MSG...         say FAIL: MSG and set fail
#   base_build F HV    write F, the "base build" for --base-bin: HV with
#                      the slowdown plugin's work (HVB_SLOWDOWN_WORK)
#                      cleared, so that only the new build does it
#   median FILE KEY    the median of cell 0's KEY: time, or a counter
#                      (sim_instructions_per_op, ...)
#   expect WHAT RC PATTERN CMD...
#                      CMD exits RC and its output (stdout and stderr
#                      together) matches PATTERN: say ok with the
#                      verdict's line, or FAIL with the whole output
#
# Example: expect "A/A" 0 "gate: pass" "$hv" gate a.json b.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() {
    fail=1
    echo "FAIL: $*"
}

base_build() {
    cat >"$1" <<EOF
#!/bin/sh
unset HVB_SLOWDOWN_WORK
exec "$2" "\$@"
EOF
    chmod +x "$1"
}

median() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["hvbench"]["cells"][0]
print(c["summary"]["median"] if sys.argv[2] == "time"
      else c["counters"][sys.argv[2]]["summary"]["median"])
PY
}

expect() {
    what=$1 want=$2 pat=$3
    shift 3
    "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -q -- "$pat" "$tmp/out"; then
        bad "$what: exit $rc (want $want, output matching '$pat'):"
        cat "$tmp/out"
    else
        echo "ok: $what: exit $rc: $(grep -E '^gate|hvbench:' "$tmp/out" | head -1)"
    fi
}
