#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The stable-layout build (HVB_STABLE_LAYOUT, CMakeLists.txt): every flag
# the build added is recorded in a result's build.cflags, and none is
# when the build added none, so two results say whether their layouts
# are comparable.
# Usage: it-layout.sh HVBENCH "FLAGS THE BUILD ADDED"
set -u
hvbench=$1
flags=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$hvbench" run empty --min-time 0.01 --repetitions 1 -q -o "$tmp/r.json" \
    >/dev/null || { echo "FAIL: run"; exit 1; }
cflags=$(/usr/bin/python3 -c "
import json, sys
print(json.load(open(sys.argv[1]))['hvbench']['build']['cflags'])" "$tmp/r.json")
fail=0
for f in $flags; do
    case " $cflags " in
    *" $f "*) ;;
    *) echo "FAIL: '$f' not in build.cflags '$cflags'"; fail=1 ;;
    esac
done
if [ -z "$flags" ]; then
    case "$cflags" in
    *falign-functions* | *branches-within*)
        echo "FAIL: no layout flags built, yet cflags '$cflags'"
        fail=1
        ;;
    esac
fi
[ "$fail" -eq 0 ] && echo "layout flags recorded: '$cflags'"
exit "$fail"
