#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian package (make package, packaging/install.cmake): built with
# cpack from this build, its files and dependencies checked (dpkg-deb -c,
# -I), installed with apt-get, run from the installed files alone, and
# removed again, also when a check fails or the test is interrupted.
#
#   it-package.sh CPACK BUILD_DIR SOURCE_DIR
#
# "The installed files alone": the commands run from a scratch directory
# with a bare environment (PATH=/usr/bin:/bin, no HVB_* variable), in a
# mount namespace where the source and build trees are empty directories
# (unshare -m), so neither a path baked in at build time nor the build
# tree can be what they find.  Where a namespace cannot be had the checks
# run with the trees in place and say so.
#
# It installs a package as root: it skips (77) when not root, off Debian
# (no dpkg or apt-get), and when a package called hvbench is installed
# already (its own, or the user's: never clobbered, never removed).
set -u
cpack=$1
build=$2
src=$3

skip() {
    echo "SKIP: $*"
    exit 77
}

[ "$(id -u)" -eq 0 ] || skip "not root: installing a package needs root"
for t in dpkg dpkg-deb dpkg-query apt-get; do
    command -v "$t" >/dev/null 2>&1 || skip "no $t: not a Debian system"
done
st=$(dpkg-query -W -f='${Status}' hvbench 2>/dev/null)
case "$st" in
"" | "unknown ok not-installed" | "deinstall ok config-files") ;;
*) skip "a package hvbench is on this machine already ($st): not replaced" ;;
esac

# Scratch space outside both trees (they are hidden below).
base=${TMPDIR:-/tmp}
case "$base/" in
"$src"/* | "$build"/*) base=/tmp ;;
esac
tmp=$(mktemp -d "$base/hvbench-package.XXXXXX") || exit 1
chmod 755 "$tmp" # apt-get reads the .deb as user _apt
installed=0
fails=0

cleanup() {
    if [ "$installed" -eq 1 ]; then
        echo "removing hvbench"
        timeout 180 apt-get remove -y -qq --purge \
            -o DPkg::Lock::Timeout=120 hvbench >"$tmp/remove.log" 2>&1 ||
            dpkg --purge hvbench >>"$tmp/remove.log" 2>&1 ||
            cat "$tmp/remove.log"
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# ---- build ----------------------------------------------------------
start=$(date +%s)
if ! timeout 120 "$cpack" -G DEB --config "$build/CPackConfig.cmake" \
        -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1; then
    cat "$tmp/cpack.log"
    echo "FAIL: cpack"
    exit 1
fi
set -- "$tmp"/pkg/hvbench_*.deb
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "FAIL: cpack wrote no single hvbench_*.deb: $*"
    exit 1
fi
deb=$1
echo "built $(basename "$deb"): $(wc -c <"$deb") bytes" \
    "in $(($(date +%s) - start)) s"

# ---- files ----------------------------------------------------------
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/hvbench /usr/share/hvbench/render/report.py \
    /usr/share/hvbench/render/flamegraph.py \
    /usr/lib/hvbench/plugins/skeleton.so \
    /usr/share/doc/hvbench/examples/skeleton.c \
    /usr/include/hvbench/hv/plugin.h /usr/include/hvbench/hv/domlookup.h; do
    grep -qx "$f" "$tmp/files" || fail "$f is not in the package"
done
# Test-only objects and build leftovers stay out; everything is in /usr.
grep -E 'broken-|v1-(sized|larger)|slowdown|fakexen|hvb_layer|xs-load|irq-cost|\.a$|CMake' \
    "$tmp/files" | sed 's/^/FAIL: in the package: /' >"$tmp/extra"
grep -v '^/usr/' "$tmp/files" | sed 's/^/FAIL: outside \/usr: /' >>"$tmp/extra"
if [ -s "$tmp/extra" ]; then
    cat "$tmp/extra"
    fails=$((fails + $(wc -l <"$tmp/extra")))
fi
# The man pages and the completion are in the package when the build
# wrote them (another change generates them from the option rows).
man=0
if ls "$build"/man/man1/*.1 >/dev/null 2>&1; then
    man=1
    for p in "$build"/man/man1/*.1; do
        grep -qx "/usr/share/man/man1/$(basename "$p")" "$tmp/files" ||
            fail "man page $(basename "$p") is not in the package"
    done
else
    echo "note: the build wrote no man pages ($build/man/man1): man checks skipped"
fi
comp=0
if [ -f "$build/completion/hvbench" ]; then
    comp=1
    grep -qx /usr/share/bash-completion/completions/hvbench "$tmp/files" ||
        fail "the completion is not in the package"
else
    echo "note: the build wrote no completion ($build/completion/hvbench):" \
        "completion checks skipped"
fi

# ---- control: the runtime dependencies ------------------------------
[ "$(dpkg-deb -f "$deb" Package)" = hvbench ] || fail "Package is not hvbench"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] ||
    fail "Architecture $(dpkg-deb -f "$deb" Architecture) is not this machine's"
depends=$(dpkg-deb -f "$deb" Depends)
for d in libbenchmark liburcu libdw1 libpfm4 libjemalloc2 libjansson4 \
    libc6 python3; do
    echo "$depends" | grep -q "\\b$d" || fail "Depends does not name $d: $depends"
done
dpkg-deb -f "$deb" Recommends | grep -q python3-matplotlib ||
    fail "Recommends does not name python3-matplotlib"
dpkg-deb -I "$deb" >"$tmp/info"
grep -q '^ Package: hvbench$' "$tmp/info" ||
    fail "dpkg-deb -I: no control of package hvbench"

# ---- install --------------------------------------------------------
# Only hvbench itself: a dependency apt would have to fetch and leave
# behind (apt-get remove does not take it away) is a skip, not an install.
apt_install="apt-get install --no-install-recommends -o DPkg::Lock::Timeout=120"
# shellcheck disable=SC2086 # $apt_install is a list of words
timeout 120 $apt_install -s "$deb" >"$tmp/sim.log" 2>&1 || {
    cat "$tmp/sim.log"
    echo "FAIL: apt-get install -s $deb"
    exit 1
}
others=$(awk '$1 == "Inst" && $2 != "hvbench" {printf " %s", $2}' "$tmp/sim.log")
[ -z "$others" ] || skip "installing the package would also install$others"
installed=1 # from here on the trap removes it, whatever happens
# shellcheck disable=SC2086
if ! timeout 180 $apt_install -y -qq \
        "$deb" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    echo "FAIL: apt-get install $deb"
    exit 1
fi
echo "installed: $(dpkg-query -W -f='${Package} ${Version} ${Status}' hvbench)"

# ---- run from the installed files alone -----------------------------
cat >"$tmp/inside.sh" <<'EOF'
set -u
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# run NAME CMD...: CMD's output in NAME.log, shown when it fails.
run() {
    name=$1
    shift
    if ! timeout 60 "$@" >"$name.log" 2>&1; then
        sed 's/^/    /' "$name.log" | tail -n 20
        fail "$*"
        return 1
    fi
}
[ "$(command -v hvbench)" = /usr/bin/hvbench ] ||
    fail "hvbench on PATH is $(command -v hvbench), not /usr/bin/hvbench"
run list hvbench list && {
    grep -q lookup list.log || fail "hvbench list: no workload lookup"
    grep -q rcu-noref list.log || fail "hvbench list: no plugin rcu-noref"
}
quick="--min-time 0.01 --repetitions 1"
# shellcheck disable=SC2086 # $quick is two options
run run hvbench run lookup --plugin domlookup=rcu-noref $quick --out r.json &&
    { [ -s r.json ] || fail "hvbench run wrote no r.json"; }
# The installed external plugin, resolved against the installed binary.
# shellcheck disable=SC2086
run skeleton hvbench run lookup $quick \
    --plugin domlookup=/usr/lib/hvbench/plugins/skeleton.so --out s.json
# The plugin template built from the installed source and headers.
if command -v cc >/dev/null 2>&1; then
    run cc cc -shared -fPIC -fvisibility=hidden -DHV_PLUGIN_SHARED \
        -I/usr/include/hvbench -o my.so \
        /usr/share/doc/hvbench/examples/skeleton.c &&
        # shellcheck disable=SC2086
        run my hvbench run lookup $quick --plugin domlookup=./my.so
else
    echo "note: no cc: the template is not built from the installed headers"
fi
# The render scripts (report.py) from /usr/share/hvbench.
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    run report hvbench report r.json --out rep &&
        { [ -s rep/index.html ] || fail "hvbench report wrote no index.html"; }
else
    echo "note: no python3-matplotlib: hvbench report not run"
fi
if [ "$HVB_T_MAN" -eq 1 ]; then
    if command -v man >/dev/null 2>&1; then
        run man man -w hvbench &&
            { grep -q '^/usr/share/man/man1/hvbench\.1' man.log ||
                fail "man -w hvbench: $(cat man.log)"; }
    else
        echo "note: no man (man-db): man -w not run"
    fi
fi
if [ "$HVB_T_COMP" -eq 1 ]; then
    c=/usr/share/bash-completion/completions/hvbench
    [ -f "$c" ] || fail "$c is not installed"
    if command -v bash >/dev/null 2>&1; then
        run complete bash -c ". $c && complete -p hvbench"
    fi
fi
exit "$fails"
EOF
mkdir "$tmp/run" "$tmp/empty"
cd "$tmp/run" || exit 1
hide="mount --bind $tmp/empty $src"
case "$build/" in
"$src"/*) ;;
*) hide="$hide && mount --bind $tmp/empty $build" ;;
esac
envrun="env -i PATH=/usr/bin:/bin HOME=$tmp/run LC_ALL=C HVB_T_MAN=$man"
envrun="$envrun HVB_T_COMP=$comp sh $tmp/inside.sh"
if unshare -m true 2>/dev/null; then
    echo "running /usr/bin/hvbench with $src and $build hidden"
    unshare -m sh -c "{ $hide && [ ! -e $src/CMakeLists.txt ]; } ||
        { echo 'FAIL: cannot hide $src'; exit 1; }; $envrun"
    rc=$?
else
    echo "note: no mount namespace here (unshare -m): the source and" \
        "build trees stay in place"
    $envrun
    rc=$?
fi
[ "$rc" -eq 0 ] || fails=$((fails + rc))
cd / || exit 1

# ---- remove ---------------------------------------------------------
if timeout 180 apt-get remove -y -qq --purge -o DPkg::Lock::Timeout=120 \
        hvbench >"$tmp/remove.log" 2>&1; then
    installed=0
else
    cat "$tmp/remove.log"
    fail "apt-get remove hvbench"
fi
[ -e /usr/bin/hvbench ] && fail "/usr/bin/hvbench is still there after remove"
st=$(dpkg-query -W -f='${Status}' hvbench 2>/dev/null)
case "$st" in
"" | "unknown ok not-installed") ;;
*) fail "after remove, hvbench is '$st'" ;;
esac

echo "$fails failed check(s), $(($(date +%s) - start)) s"
[ "$fails" -eq 0 ]
