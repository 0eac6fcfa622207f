#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian 12 packages hvbench needs to build and test.
# With --test: only the heavy test-only ones (chromium, for the report
# page and trace viewer tests; npm, for the trace viewer's speedscope;
# xen-utils-4.17, the real oxenstored and test-xenstore for the
# xenstored tests); ctest's report-browser-setup runs this.
# Also Slurm and munge, for the fleet-slurm and bisect tests, PostgreSQL,
# for the history-pg test (tests/history/), and ccache, which the build
# cache's builds go through where it is installed.
# As root: apt-get installs what is missing.  Otherwise: print the one
# apt-get line to run and exit 2.  Prints nothing when all is there.
set -eu

PACKAGES="
    build-essential cmake pkg-config git clang-format
    clang libclang-rt-14-dev
    libbenchmark-dev
    liburcu-dev
    libjansson-dev
    libcmocka-dev
    libdw-dev
    linux-perf
    python3-matplotlib python3-numpy
    libnuma-dev
    libjemalloc-dev libpfm4-dev valgrind python3-scipy
    xenstore-utils python3-pyxs libxen-dev
    python3-yaml bc git jq
    libsqlite3-dev libpq-dev libboost-dev libssl-dev
"
if [ "${1:-}" = "--test" ]; then
    PACKAGES="chromium"
    PACKAGES="$PACKAGES xen-utils-4.17" # test-xenstore, oxenstored
    PACKAGES="$PACKAGES slurmctld slurmd slurm-client munge" # fleet-slurm
    PACKAGES="$PACKAGES postgresql" # history-pg
    PACKAGES="$PACKAGES ccache" # the build cache's builds (review, bisect)
    PACKAGES="$PACKAGES cmark-gfm" # review.md rendered as GitHub would (review-tree)
    PACKAGES="$PACKAGES libxml2-utils" # xmllint: junit.xml against its schema
    PACKAGES="$PACKAGES lld" # scripts/layout-ab.sh's relinks (layout-ab)
    # npm: speedscope from the npm registry (trace-viewer); an npm that
    # came with another nodejs (NodeSource's) is used as it is.
    command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
            grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ] && [ "${1:-}" = "--test" ]; then
    echo "hvbench: note: not root; tests needing$missing will be skipped" >&2
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "hvbench: missing Debian packages; run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 2
fi

echo "hvbench: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
