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
#   unsure FILE [THR]  FILE, a gate's console output, has "unstable" (two
#                      builds: "unknown") rows and each says why: a noise
#                      flag that makes a row unstable, or a CI that reaches
#                      past +THR% (default 5) while its lower bound does
#                      not (or, two builds, past -THR% while its upper
#                      bound does not)
#   expect_live WHAT RC PATTERN CMD...
#                      a timing check on a machine that may be loaded
#                      (other work on its CPUs): as expect, or exit 3
#                      that is unsure (with --max-regression P% in CMD,
#                      THR is P) -- never another exit status
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

unsure() {
    /usr/bin/python3 - "$1" "${2:-5}" <<'PY'
import re, sys
thr, rows = float(sys.argv[2]), 0
for line in open(sys.argv[1]):
    m = re.match(r"\S+\s+\S+\s+\S+\s+[+-][0-9.]+%\s+"
                 r"\[([+-][0-9.]+)%, ([+-][0-9.]+)%\]\s+\S+\s+(?:unstable|unknown)\b(.*)",
                 line)
    if not m:
        continue
    rows += 1
    lo, hi = float(m.group(1)), float(m.group(2))
    flag = re.search(r"cv>=10%|min/max>=50%|fewer-than-3|one-process|"
                     r"cpu-share<90%", m.group(3))
    if not (flag or lo <= thr < hi or lo < -thr <= hi):
        sys.exit(1)
sys.exit(0 if rows else 1)
PY
}

# expect_live: expect, or an honest "unstable" (see above).
expect_live() {
    what=$1 want=$2 pat=$3
    shift 3
    lthr=$(echo "$*" | sed -n 's/.*--max-regression \([0-9.]*\)%.*/\1/p')
    "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -eq 3 ] && [ "$rc" -ne "$want" ] &&
        unsure "$tmp/out" "${lthr:-5}"; then
        echo "note: $what: exit 3, unstable on this machine now:"
        grep -E ' (unstable|unknown) |^gate' "$tmp/out"
        return
    fi
    report_expect "$what" "$want" "$pat"
}

expect() {
    what=$1 want=$2 pat=$3
    shift 3
    "$@" >"$tmp/out" 2>&1
    rc=$?
    report_expect "$what" "$want" "$pat"
}

# report_expect WHAT RC PATTERN: CMD's exit status $rc and output
# $tmp/out against RC and PATTERN.
report_expect() {
    if [ "$rc" -ne "$2" ] || ! grep -q -- "$3" "$tmp/out"; then
        bad "$1: exit $rc (want $2, output matching '$3'):"
        cat "$tmp/out"
    else
        echo "ok: $1: exit $rc: $({ grep '^gate' "$tmp/out" ||
            grep 'hvbench:' "$tmp/out"; } | head -1)"
    fi
}
