#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The build cache against planted entries and a broken machine (issue
# 34, bugs 4 and 9), on a scratch project of one C file (builds in a
# second or two; the built "hvbench" is no hvbench, so every review
# ends at exit 2 after its builds, which is all this test needs):
#   - cmake missing from PATH: exit 2 "could not be built here", not
#     remembered; with cmake back, the same commit builds;
#   - a commit the compiler rejects: "does not build", remembered; one
#     whose configure fails: "does not build", not remembered;
#   - a symlink planted where an entry goes (its key is predictable):
#     refused, exit 2, nothing behind it removed or written; the same
#     for a lock file planted as a symlink;
#   - a cache root writable by others, or a symlink planted at the
#     /tmp fallback (no HOME): refused, exit 2.
# usage: it-build-cache.sh HVBENCH
set -u
hvb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
command -v cmake >/dev/null || { echo "SKIP: no cmake"; exit 77; }
repo=$tmp/repo cache=$tmp/cache
# One options key whatever PATH holds: ccache (on PATH or not) is off.
export HVBENCH_CCACHE=0
. "$here/lib-scratch-repo.sh" # git_
mkdir "$repo" "$tmp/bin"
cat >"$repo/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(scratch C)
add_executable(hvbench main.c)
CM
echo 'int main(void) { return 0; }' >"$repo/main.c"
git_ init -q && git_ add -A && git_ commit -q -m good || exit 1
good=$(git_ rev-parse HEAD)
# A PATH with git and rm but no cmake.
for t in git rm; do ln -s "$(command -v $t)" "$tmp/bin/$t"; done

# review REV [ENV...]: review REV against itself; $rc, $tmp/err.
review() {
    r=$1
    shift
    (cd "$repo" && timeout -k 5 240 env "$@" "$hvb" review --cache "$cache" \
        --out "$tmp/out" --metric time "$r" "$r" -- lookup \
        >/dev/null 2>"$tmp/err")
    rc=$?
}
key() { sed -n 's/.*building \([0-9a-f-]*\) .*/\1/p' "$tmp/err" | head -1; }

review "$good" PATH="$tmp/bin"
k=$(key)
[ $rc -eq 2 ] && grep -q "could not be built here: cmake could not run here (not found on PATH)" "$tmp/err" &&
    [ -n "$k" ] && [ ! -e "$cache/$k/failed" ] && ok ||
    bad "cmake missing: exit $rc, stamp $(ls "$cache/$k" 2>&1), $(head -3 "$tmp/err")"
review "$good"
[ $rc -eq 2 ] && grep -q "base built" "$tmp/err" && [ -e "$cache/$k/ok" ] && ok ||
    bad "with cmake back the commit was not built: exit $rc, $(head -4 "$tmp/err")"

echo '#error the compiler rejects this commit' >>"$repo/main.c"
git_ commit -q -a -m broken
review HEAD
kb=$(key)
[ $rc -eq 2 ] && grep -q "does not build (the compiler failed" "$tmp/err" &&
    [ -e "$cache/$kb/failed" ] && ok ||
    bad "a compiler failure: exit $rc, $(head -3 "$tmp/err")"
review HEAD
[ $rc -eq 2 ] && grep -q "remembered" "$tmp/err" && ok ||
    bad "a compiler failure not remembered: $(head -3 "$tmp/err")"

# A commit whose CMakeLists.txt is broken: does not build (bisect skips
# it), but not remembered (a package missing here fails the same way).
git_ revert --no-edit HEAD >/dev/null || exit 1
echo 'this is not cmake(' >>"$repo/CMakeLists.txt"
git_ commit -q -a -m "broken cmake"
review HEAD
kc=$(key)
[ $rc -eq 2 ] && grep -q "does not build (cmake's configure failed" "$tmp/err" &&
    [ ! -e "$cache/$kc/failed" ] && ok ||
    bad "a failed configure: exit $rc, stamp $(ls "$cache/$kc" 2>&1), $(head -3 "$tmp/err")"

# A symlink planted where the next commit's entry goes.
git_ revert --no-edit HEAD >/dev/null || exit 1
review HEAD PATH="$tmp/bin"
kp=$(key)
mkdir -p "$tmp/victim/src" "$tmp/victim/build"
echo precious >"$tmp/victim/src/file"
rm -rf "${cache:?}/$kp" && ln -s "$tmp/victim" "$cache/$kp"
review HEAD
[ $rc -eq 2 ] && grep -q "a symlink, not a directory" "$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" -le 2 ] && [ -f "$tmp/victim/src/file" ] &&
    [ ! -e "$tmp/victim/build.log" ] && ok ||
    bad "a planted entry symlink: exit $rc, victim: $(ls "$tmp/victim" "$tmp/victim/src" 2>&1), $(head -3 "$tmp/err")"
rm "$cache/$kp" "$cache/$kp.lock" && ln -s "$tmp/victim/lock" "$cache/$kp.lock"
review HEAD
[ $rc -eq 2 ] && [ ! -e "$tmp/victim/lock" ] && ok ||
    bad "a planted lock symlink: exit $rc, $(head -3 "$tmp/err")"
rm -f "$cache/$kp.lock"

mkdir -m 0777 "$tmp/open" && chmod 0777 "$tmp/open"
(cd "$repo" && "$hvb" review --cache "$tmp/open" --out "$tmp/out" HEAD HEAD \
    -- lookup >/dev/null 2>"$tmp/err")
rc=$?
[ $rc -eq 2 ] && grep -q "writable by others" "$tmp/err" && ok ||
    bad "a cache root writable by others: exit $rc, $(cat "$tmp/err")"

fb=/tmp/hvbench-builds-$(id -u)
if [ ! -e "$fb" ] && [ ! -L "$fb" ]; then
    mkdir "$tmp/victim2" && ln -s "$tmp/victim2" "$fb"
    (cd "$repo" && env -u HOME -u XDG_CACHE_HOME -u HVBENCH_CACHE "$hvb" \
        review --out "$tmp/out" HEAD HEAD -- lookup >/dev/null 2>"$tmp/err")
    rc=$?
    rm -f "$fb"
    [ $rc -eq 2 ] && grep -q "a symlink, not a directory" "$tmp/err" &&
        [ -z "$(ls -A "$tmp/victim2")" ] && ok ||
        bad "a symlink planted at the /tmp fallback: exit $rc, $(cat "$tmp/err")"
else
    echo "note: $fb exists: the fallback's planted symlink not tried"
fi
finish it-build-cache
