#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The house rules of issues 20 and 37 that a reader can count, checked on
# the source tree (deterministic: no build, no timing):
#
#   1. no harness room over HVB_ROOM_MAX lines of C (its .c, .cc and .h
#      files, its include/ too): a room that grows past it is split along
#      its features, as cli was into cmdline, session, fleet, gate and
#      reproduce;
#   2. no function over HVB_FUNC_MAX lines (from the line of its opening
#      brace in column 0 to its closing one), so a long function stays a
#      sequence of named phases;
#   3. no C file (.c, .cc, .h) over HVB_FILE_MAX lines, so a file stays
#      one concern, split by phase as cmd_gate_bin.c was.
#
# Rules 2 and 3 read every harness room and the model's trees: hv/,
# workloads/, xenstored/ and plugins/.
#
# E.g. a room of 3,600 lines fails with
#   "FAIL: harness/gate: 3600 lines (more than 3500)",
# a function of 120 lines with
#   "FAIL: hv/hv.c: 120 lines in int hv_create(...",
# and a file of 900 lines with
#   "FAIL: harness/gate/compare.c: 900 lines (more than 850 in a file)".
#
# Usage: test-house.sh SOURCE_DIR
set -u
src=$1
room_max=${HVB_ROOM_MAX:-3500}
func_max=${HVB_FUNC_MAX:-100}
file_max=${HVB_FILE_MAX:-850}
bad=0

for d in "$src"/harness/*/; do
    room=${d%/}
    room=${room#"$src"/}
    n=$(find "$d" -name '*.c' -o -name '*.cc' -o -name '*.h' | sort |
        xargs cat | wc -l)
    if [ "$n" -gt "$room_max" ]; then
        echo "FAIL: $room: $n lines (more than $room_max)"
        bad=1
    else
        echo "ok: $room: $n lines"
    fi
done

files=$(cd "$src" && find harness hv workloads xenstored plugins -type f \
    \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) | sort)
IFS='
'
for f in $files; do
    n=$(wc -l <"$src/$f")
    if [ "$n" -gt "$file_max" ]; then
        echo "FAIL: $f: $n lines (more than $file_max in a file)"
        bad=1
    fi
    case $f in *.h) continue ;; esac
    awk -v max="$func_max" -v file="$f" '
        /^[A-Za-z_].*\(/ { name = $0 }
        /^\{/ { start = NR; fn = name }
        /^\}/ && start {
            len = NR - start + 1
            if (len > max) {
                printf "FAIL: %s: %d lines in %s\n", file, len, fn
                bad = 1
            }
            start = 0
        }
        END { exit bad }' "$src/$f" || bad=1
done
[ "$bad" -eq 0 ] && echo "ok: no function over $func_max lines, no file over" \
    "$file_max, in harness/, hv/, workloads/, xenstored/ and plugins/"
exit "$bad"
