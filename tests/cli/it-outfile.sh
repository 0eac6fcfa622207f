#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Output files never destroy what their name stands for (harness/output/outfile.c).
# As root, "--out /dev/null" used to rename a regular file over the device.
# Device nodes of our own (mknod in a temporary directory: the same kind as
# /dev/null, /dev/full, /dev/mem) stand in for the real ones, so a failure
# here cannot break the machine.  Not root: skipped (exit 77).
# Usage: it-outfile.sh HVBENCH
set -u
hvbench=$1
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! mknod "$tmp/null" c 1 3 2>/dev/null; then
    echo "skipped: needs root and mknod (device nodes of the test's own)"
    exit 77
fi
mknod "$tmp/full" c 1 7
mknod "$tmp/mem" c 1 1
mknod "$tmp/blk" b 7 250
quick="lookup --param domains=10 --min-time 0.01 --repetitions 2 -q"

# is_dev PATH TYPE MAJ MIN: still a device node of that number.
is_dev() {
    [ "$(stat -c '%F %t:%T' "$1")" = "$2 $(printf '%x:%x' "$3" "$4")" ]
}

# /dev/null: written in place, still the device, exit 0.
"$hvbench" run $quick --out "$tmp/null" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ]; then
    bad "--out null: exit $rc: $(cat "$tmp/err")"
elif ! is_dev "$tmp/null" "character special file" 1 3; then
    bad "--out null: the device was replaced: $(stat -c %F "$tmp/null")"
elif ls -A "$tmp" | grep -q '^\.'; then
    bad "--out null: left a temporary file: $(ls -A "$tmp")"
else
    ok
fi

# /dev/full: every write is checked: exit 1, the file and errno named,
# never "results written", the device stays.
"$hvbench" run $quick --out "$tmp/full" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 1 ]; then
    bad "--out full: exit $rc, want 1: $(cat "$tmp/err")"
elif ! grep -q "cannot write results to '$tmp/full' (writing): No space left on device" "$tmp/err"; then
    bad "--out full: stderr: $(cat "$tmp/err")"
elif grep -q "results written" "$tmp/err"; then
    bad "--out full: claimed success: $(cat "$tmp/err")"
elif ! is_dev "$tmp/full" "character special file" 1 7; then
    bad "--out full: the device was replaced"
else
    ok
fi

# Other devices are refused before the run (exit 2, one line), untouched.
for dev in mem:"character device 1:1" blk:"block device"; do
    name=${dev%%:*}
    want=${dev#*:}
    "$hvbench" run $quick --out "$tmp/$name" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
        ! grep -q "cannot write results to '$tmp/$name': it is a $want" \
            "$tmp/err"; then
        bad "--out $name: exit $rc: $(cat "$tmp/err")"
    elif grep -q "round" "$tmp/err"; then
        bad "--out $name: refused only after running"
    else
        ok
    fi
done
is_dev "$tmp/mem" "character special file" 1 1 && ok || bad "mem replaced"
is_dev "$tmp/blk" "block special file" 7 250 && ok || bad "blk replaced"

# A FIFO with a reader gets exactly one complete document.
mkfifo "$tmp/fifo"
timeout 60 cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
track $reader
"$hvbench" run $quick --repetitions 3 --out "$tmp/fifo" >/dev/null 2>"$tmp/err"
rc=$?
wait "$reader"
untrack $reader
if [ "$rc" -ne 0 ]; then
    bad "--out fifo: exit $rc: $(cat "$tmp/err")"
elif ! /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["hvbench"]["run"]["complete"]' "$tmp/from-fifo" 2>"$tmp/py"; then
    bad "--out fifo: not one complete document: $(cat "$tmp/py")"
elif [ ! -p "$tmp/fifo" ]; then
    bad "--out fifo: the FIFO was replaced"
else
    ok
fi
# A FIFO with no reader: refused, not blocked forever.
rm -f "$tmp/from-fifo"
timeout 60 "$hvbench" run $quick --out "$tmp/fifo" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "it is a pipe with no reader" "$tmp/err"; then
    bad "--out fifo without reader: exit $rc: $(cat "$tmp/err")"
else
    ok
fi
# --resume needs a file it can read back.
"$hvbench" run $quick --resume --out "$tmp/null" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "resume needs --out FILE" "$tmp/err" && ok ||
    bad "--resume --out null: $(cat "$tmp/err")"

# A link to a regular file: the target is replaced, the link stays.
echo old >"$tmp/target.json"
ln -s target.json "$tmp/link.json"
"$hvbench" run $quick --out "$tmp/link.json" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] || [ ! -L "$tmp/link.json" ] ||
    ! grep -q '"hvbench"' "$tmp/target.json"; then
    bad "--out link: exit $rc, link $(stat -c %F "$tmp/link.json")"
else
    ok
fi
ln -s nowhere.json "$tmp/dangling.json"
"$hvbench" run $quick --out "$tmp/dangling.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "symbolic link to nothing" "$tmp/err" && ok ||
    bad "--out dangling link: $(cat "$tmp/err")"

# gate --markdown at a device: written in place, the device stays; at a
# refused device, refused before comparing.
"$hvbench" run $quick --out "$tmp/a.json" >/dev/null 2>&1
"$hvbench" gate "$tmp/a.json" "$tmp/a.json" --markdown "$tmp/null" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] || ! is_dev "$tmp/null" "character special file" 1 3; then
    bad "gate --markdown null: exit $rc: $(cat "$tmp/err")"
else
    ok
fi
"$hvbench" gate "$tmp/a.json" "$tmp/a.json" --markdown "$tmp/blk" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 2 ] || [ -s "$tmp/out" ] ||
    ! is_dev "$tmp/blk" "block special file" 7 250; then
    bad "gate --markdown blk: exit $rc: $(cat "$tmp/err")"
else
    ok
fi

finish outfile
