#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The results name the commit the binary was built from (the build's
# gitinfo.h), not whatever git says when it runs: with a `git` on PATH
# that answers another commit and a clean tree, a run still records the
# build's commit and dirty flag.  (Before, buildinfo.c asked git at run
# time: the fake's commit was recorded, and an installed binary recorded
# the source tree's latest commit or "unknown".)
# Usage: it-buildinfo.sh HVBENCH GITINFO_H
set -u
hvbench=$1
gitinfo=$2
. "$(dirname "$0")/lib.sh"

want=$(sed -n 's/^#define HVB_GIT_COMMIT "\(.*\)"$/\1/p' "$gitinfo")
want_dirty=$(sed -n 's/^#define HVB_GIT_DIRTY \(.*\)$/\1/p' "$gitinfo")
[ -n "$want" ] && ok || bad "no HVB_GIT_COMMIT in $gitinfo"

mkdir "$tmp/bin"
cat >"$tmp/bin/git" <<'FAKE'
#!/bin/sh
case "$*" in
*rev-parse*--is-inside-work-tree*) echo true ;;
*rev-parse*HEAD*) echo 0123456789abcdef0123456789abcdef01234567 ;;
esac
exit 0
FAKE
chmod +x "$tmp/bin/git"
PATH="$tmp/bin:$PATH" "$hvbench" run empty --min-time 0.01 --repetitions 1 \
    --out "$tmp/r.json" >/dev/null 2>"$tmp/err" && ok ||
    bad "run: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/r.json" "$want" "$want_dirty" <<'PY' && ok || bad "recorded commit"
import json, sys
git = json.load(open(sys.argv[1]))["hvbench"]["git"]
want_dirty = {"1": True, "0": False, "-1": None}[sys.argv[3]]
if git.get("commit") != sys.argv[2] or git.get("dirty") != want_dirty:
    print("FAIL: recorded %r, built from %s dirty %s" % (git, sys.argv[2],
                                                           sys.argv[3]))
    sys.exit(1)
PY
finish buildinfo
