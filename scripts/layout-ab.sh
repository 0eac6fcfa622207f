#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A/B of two builds over randomised code layouts (Mytkowicz et al.,
# "Producing wrong data without doing anything obviously wrong", 2009;
# Curtsinger and Berger's Stabilizer, 2013).  A paired `gate --base-bin`
# compares one layout of each build; where the code under study did not
# change, the layout alone can move a short loop by a few percent and the
# gate calls it a regression.  This relinks each build N times with lld
# shuffling the input sections (--shuffle-sections '.text*=SEED': every
# object's code lands elsewhere, functions keep their 64-byte alignment),
# gates every relinked binary against one fixed reference (NEW's own
# hvbench) in the same paired way, and compares the two builds' means
# over layouts (Welch's t, 95%).
#
# Worked example (issue 37, Intel Xeon VM, docs/running.md): b2b765e
# against ffdc9fb, the rcu-noref cell.  The paired gate of the two
# default links said +2.56% "regressed" with identical instructions; over
# 8 layouts each, the last line read
#   new vs base over layouts: +0.25% [-0.40%, +0.90%] (Welch, df 10):
#   within the layouts' spread
#
# Usage: scripts/layout-ab.sh BASE_BUILD NEW_BUILD [N] [CELL OPTIONS...]
#   BASE_BUILD, NEW_BUILD: CMake build directories whose hvbench is built;
#   N: layouts per build, at least 2 (default 8).
#   e.g. scripts/layout-ab.sh /tmp/before/build build 8
# Environment: HVB_GATE_OPTS, more gate options (e.g. "--pairs 4").
set -eu
[ $# -ge 2 ] || {
    echo "usage: $0 BASE_BUILD NEW_BUILD [N] [CELL OPTIONS...]" >&2
    exit 2
}
base=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
n=${3:-8}
case $n in
'' | *[!0-9]* | 0 | 1)
    echo "$0: N: a number of layouts, at least 2 (not '$n')" >&2
    exit 2
    ;;
esac
shift 2
[ $# -eq 0 ] || shift
[ $# -gt 0 ] || set -- lookup --plugin domlookup=rcu-noref --threads 1
command -v ld.lld >/dev/null || {
    echo "$0: ld.lld not found (apt-get install lld)" >&2
    exit 2
}
for b in "$base" "$new"; do
    [ -f "$b/CMakeFiles/hvbench.dir/link.txt" ] || {
        echo "$0: $b: not a build directory with hvbench" >&2
        exit 2
    }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# relink BUILD SEED OUT: the build's own link line, lld, shuffled sections
relink() {
    (cd "$1" && eval "$(sed "s| -o hvbench | -o $3 |" \
        CMakeFiles/hvbench.dir/link.txt) -fuse-ld=lld \
        -Wl,--shuffle-sections='.text*=$2'")
}

ref=$new/hvbench
s=1
while [ "$s" -le "$n" ]; do
    for side in base new; do
        if [ "$side" = base ]; then dir=$base; else dir=$new; fi
        relink "$dir" "$s" "$tmp/$side-$s"
        # shellcheck disable=SC2086
        row=$("$ref" gate ${HVB_GATE_OPTS:-} --base-bin "$ref" --new-bin "$tmp/$side-$s" \
            -- "$@" 2>/dev/null | grep '^[a-z0-9_-]*/' || true)
        [ "$(printf '%s\n' "$row" | grep -c .)" -eq 1 ] || {
            echo "$0: the cell must give exactly one row: $*" >&2
            exit 2
        }
        # the row: name base new change [lo, hi] p verdict ...
        printf '%s %s %s\n' "$side" "$s" "$row" | tee -a "$tmp/rows" |
            awk '{ printf "%-5s layout %-3s %-8s %s %s %s\n",
                   $1, $2, $6, $7, $8, $10 }'
    done
    s=$((s + 1))
done

awk '
function t975(df) {             # Student t, two-sided 95%
    split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23 2.20 2.18 " \
          "2.16 2.14 2.13 2.12 2.11 2.10 2.09 2.09", t, " ")
    df = int(df)
    return df < 1 ? t[1] : df <= 20 ? t[df] : 2.0
}
{
    v = $6; sub(/%$/, "", v); v += 0
    k = $1; n[k]++; sum[k] += v; sq[k] += v * v
    if (!(k in lo) || v < lo[k]) lo[k] = v
    if (!(k in hi) || v > hi[k]) hi[k] = v
}
END {
    for (k in n) {
        m[k] = sum[k] / n[k]
        var[k] = n[k] > 1 ? (sq[k] - n[k] * m[k] * m[k]) / (n[k] - 1) : 0
        printf "%-5s over %d layouts: mean %+.2f%%, sd %.2f, %+.2f%% to %+.2f%% " \
               "(each against %s)\n", k, n[k], m[k], sqrt(var[k]), lo[k],
               hi[k], "NEW as linked"
    }
    a = var["base"] / n["base"]; b = var["new"] / n["new"]
    d = m["new"] - m["base"]; se = sqrt(a + b)
    df = se > 0 ? (a + b) ^ 2 / (a * a / (n["base"] - 1) + \
                                 b * b / (n["new"] - 1)) : 1
    h = t975(df) * se
    printf "new vs base over layouts: %+.2f%% [%+.2f%%, %+.2f%%] " \
           "(Welch, df %.0f): %s\n", d, d - h, d + h, df,
           (d - h > 0 || d + h < 0) ? "changed beyond the layouts'"'"' spread" \
                                    : "within the layouts'"'"' spread"
}' "$tmp/rows"
