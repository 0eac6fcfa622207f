#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The view's files as their readers take them (tests/review/CMakeLists.txt,
# view-rendered): unit-view's junit.xml files against the JUnit schema
# (xmllint), and its review.md rendered by cmark-gfm with GitHub's table
# extension: a table of the one moved cell, a line naming the six the
# same in every metric, the hostile subject as text in
# a <code>, no raw HTML left (cmark-gfm's safe mode says where it was
# omitted), and a negative control: a planted <script> is caught.
#
# Usage: check-view.sh JUNIT_XSD DIR
set -u
xsd=$1 dir=$2
for t in xmllint cmark-gfm; do
    command -v $t >/dev/null || { echo "SKIP: no $t"; exit 77; }
done
fail=0
for x in "$dir/spin.junit.xml" "$dir/aa.junit.xml"; do
    xmllint --noout --schema "$xsd" "$x" || { echo "FAIL: $x"; fail=1; }
done
grep -q '<failure type="regressed" message="sim_instructions +24.35%' \
    "$dir/spin.junit.xml" || { echo "FAIL: no sim_instructions failure"; fail=1; }
if grep -q '<failure\|<error' "$dir/aa.junit.xml"; then
    echo "FAIL: the A/A review's blocking metrics fail in junit.xml"
    fail=1
fi
# A planted broken file must fail the schema: the check can fail.
sed 's/<testcase classname/<testcase bogus="1" classname/' \
    "$dir/spin.junit.xml" >"$dir/planted.junit.xml"
if xmllint --noout --schema "$xsd" "$dir/planted.junit.xml" 2>/dev/null; then
    echo "FAIL: the schema let a planted attribute through"
    fail=1
fi

# html_ok FILE: a table of the moved cell, the others named in a line,
# the subject escaped, no raw HTML.
html_ok() {
    cmark-gfm -e table "$1" >"$1.html" || return 1
    [ "$(grep -c '<tr>' "$1.html")" -eq 2 ] || { echo "not 1 row"; return 1; }
    [ "$(grep '^<p>The same in every metric: ' "$1.html" | grep -o '<code>' | wc -l)" -eq 6 ] ||
        { echo "not 6 cells the same"; return 1; }
    grep -q '<code>domlookup: spin in `rcu_ref_lock` &lt;script&gt;' "$1.html" ||
        { echo "the subject is not a code span"; return 1; }
    if grep -q '<script\|raw HTML omitted' "$1.html"; then
        echo "raw HTML in the rendered comment"
        return 1
    fi
}
html_ok "$dir/spin.md" || { echo "FAIL: spin.md as GitHub renders it"; fail=1; }
{ cat "$dir/spin.md"; echo '<script>x</script>'; } >"$dir/planted.md"
if html_ok "$dir/planted.md" >/dev/null; then
    echo "FAIL: a planted <script> went unnoticed"
    fail=1
fi
[ $fail -eq 0 ] && echo "PASS: junit.xml valid, review.md renders clean"
exit $fail
