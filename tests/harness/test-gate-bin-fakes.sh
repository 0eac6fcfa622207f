#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "gate --base-bin" with fake base builds (shell scripts; deterministic,
# no measurement verdict): every failure is exit 2 with its message, and
# the gate and the new build's worker end, whatever the base does:
#
#   - a hello with another build block, from a base that ignores "quit"
#     (it waits for the end of its input, which the new worker held: the
#     gate and both workers hung in a pipe read)
#   - a base whose answers carry no sample ("ok {}"): no samples, exit 2
#   - a base that never says hello, or says it and never answers: killed
#     at --worker-timeout, named
#
# Each gate runs under timeout(1): a hang is a failed check.  The fakes
# write their pids, stopped at exit also on failure.
# Usage: test-gate-bin-fakes.sh HVBENCH
set -u
hv=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
trap 'for p in $(cat "$tmp/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
suite="lookup --plugin domlookup=rwlock-ref"
small="--pairs 1 --rounds 3 --sample-time 0.001"

# fake NAME BODY: $tmp/NAME, a base build whose worker runs BODY (sh),
# with $hello the real worker's hello line for the same arguments.
fake() {
    cat >"$tmp/$1" <<EOF
#!/bin/sh
echo \$\$ >>"$tmp/pids"
shift # "worker"
hello=\$("$hv" worker "\$@" </dev/null | head -n 1)
$2
EOF
    chmod +x "$tmp/$1"
}
fake wrong-build 'echo "hello {\"protocol\": 1, \"cells\": [\"x\"]}"
while read -r l; do :; done'
fake no-samples 'echo "$hello"
while read -r l; do
    case "$l" in cal*) echo "ok {\"iterations\": 1000, \"ns\": 1.0}" ;; *) echo "ok {}" ;; esac
done'
fake mute 'exec sleep 1000'
fake deaf 'echo "$hello"
exec sleep 1000'

# gate WHAT RC PATTERN ARGS...: as expect, under a 60 s limit.
gate() {
    what=$1 want=$2 pat=$3
    shift 3
    expect "$what" "$want" "$pat" timeout -k 5 60 "$hv" gate "$@"
}
# shellcheck disable=SC2086
gate "a wrong hello from a base that ignores quit" 2 \
    "build.compiler is '(absent)' in the base" \
    --base-bin "$tmp/wrong-build" $small -- $suite
# shellcheck disable=SC2086
gate "a base that returns no samples" 2 "hvbench: .*sample" \
    --base-bin "$tmp/no-samples" $small -- $suite
t0=$(date +%s)
# shellcheck disable=SC2086
gate "a base that never says hello" 2 \
    "the base build's worker ($tmp/mute) did not say hello within 1 s: killed" \
    --base-bin "$tmp/mute" --worker-timeout 1 $small -- $suite
[ $(($(date +%s) - t0)) -lt 20 ] || bad "the hello's deadline took $(($(date +%s) - t0)) s"
# shellcheck disable=SC2086
gate "a base that never answers" 2 \
    "the base build's worker ($tmp/deaf) did not answer 'cal 0 0.001' within 1 s: killed" \
    --base-bin "$tmp/deaf" --worker-timeout 1 $small -- $suite
gate "a bad --worker-timeout" 2 "worker-timeout" --base-bin "$tmp/deaf" \
    --worker-timeout never -- $suite
"$hv" gate --base-bin x --help | grep -q -- "--worker-timeout S" ||
    bad "--worker-timeout not in gate --base-bin --help"
exit $fail
