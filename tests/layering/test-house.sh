#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The house rules of issue 20 that a reader can count, checked on the
# source tree (deterministic: no build, no timing):
#
#   1. no harness room over HVB_ROOM_MAX lines of C (its .c, .cc and .h
#      files, its include/ too): a room that grows past it is split along
#      its features, as cli was into cmdline, session, fleet, gate and
#      reproduce;
#   2. no function over HVB_FUNC_MAX lines in the command rooms (from
#      the line of its opening brace in column 0 to its closing one), so
#      a long command stays a sequence of named phases.
#
# E.g. a room of 3,600 lines fails with
#   "FAIL: harness/gate: 3600 lines (more than 3500)".
#
# Usage: test-house.sh SOURCE_DIR
set -u
src=$1
room_max=${HVB_ROOM_MAX:-3500}
func_max=${HVB_FUNC_MAX:-100}
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

for room in cli cmdline session fleet gate twobuild reproduce review builds changes history bisect; do
    for f in "$src"/harness/$room/*.c; do
        awk -v max="$func_max" -v file="${f#"$src"/}" '
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
            END { exit bad }' "$f" || bad=1
    done
done
[ "$bad" -eq 0 ] && echo "ok: no function over $func_max lines in the command rooms"
exit "$bad"
