#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Every header in every include dir compiles on its own: a translation
# unit of the one line "#include <X.h>" for each, so a header that uses
# what it does not include (FILE without <stdio.h>) fails here rather
# than in the next file that happens to include it first.  A header that
# says "intended to be included multiple times" is an X-macro table
# (hv/perfc-defn.h), not a header of its own, and is left out.
#
#   check-headers.sh CC 'CFLAGS' INCLUDE_DIR...
#
# The include dirs are also the -I list.  Before the headers, a header
# known to be broken must fail the same check (the test can fail).
set -u
cc=$1
cflags=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
iflags=""
for d in "$@"; do
    iflags="$iflags -I$d"
done

# check HEADER (as #include <HEADER> names it) [EXTRA_FLAGS]: 0 if it
# compiles alone; the compiler's first lines in $tmp/err otherwise.
check() {
    printf '#include <%s>\n' "$1" >"$tmp/tu.c"
    # shellcheck disable=SC2086 # flags are lists of words
    $cc $cflags $iflags ${2:-} -fsyntax-only "$tmp/tu.c" >"$tmp/err" 2>&1
}

mkdir "$tmp/inc"
printf '#ifndef BAD_H\n#define BAD_H\nvoid bad(FILE *f);\n#endif\n' \
    >"$tmp/inc/bad.h"
if check bad.h "-I$tmp/inc"; then
    echo "FAIL: a header using FILE without <stdio.h> compiled alone:" \
        "the check cannot fail"
    exit 1
fi

n=0
bad=0
for d in "$@"; do
    for h in $(cd "$d" && find . -name '*.h' | sed 's|^\./||' | sort); do
        if grep -q 'intended to be included multiple times' "$d/$h"; then
            continue
        fi
        n=$((n + 1))
        if ! check "$h"; then
            bad=$((bad + 1))
            echo "FAIL: $d/$h does not compile on its own:"
            head -n 4 "$tmp/err" | sed 's/^/    /'
        fi
    done
done
if [ "$n" -eq 0 ]; then
    echo "FAIL: no header found in $*"
    exit 1
fi
echo "$n headers, $bad not self-contained"
[ "$bad" -eq 0 ]
