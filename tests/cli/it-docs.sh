#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One table of commands, one set of rows per command's options (issue
# 20): --help, the manual pages and the bash completion are made from
# them, and the parser reads the same rows.  Checks that
# - every option a form's --help shows parses (never "unknown option",
#   "takes no value" or "needs a value"), long and short, for every
#   command of the top-level help, every other form a command's --help
#   names ("compare --hosts", "gate --base-bin") and every sub-command
#   ("history record", from the completion's rows);
# - every row of a command (as the completion lists them) is in its help
#   and in its manual page (or those of the command it takes the options
#   of: run), and every row of a sub-command in its own --help, in its
#   command's --help and in its section of the manual page;
# - each page the build wrote renders with no warning (man --warnings -l,
#   groff -ww -z) and the build's pages are the binary's;
# - the completion offers the registry's workloads, slots, plugins
#   (SLOT=NAME) and params, run in bash with COMP_WORDS set;
# - a typo'd command, workload and plugin say "did you mean";
# - --version has the version, git commit and build type.
# Usage: it-docs.sh HVBENCH MAN1-DIR COMPLETION-FILE
set -u
hvbench=$1
mandir=$2
completion=$3
. "$(dirname "$0")/lib.sh"

commands=$("$hvbench" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | sort -u)
[ -n "$commands" ] && ok || bad "no commands in hvbench --help"

. "$completion"
# The forms: "CMD", the prefix that selects another form of it (from
# "its other form:" in CMD --help: "'hvbench gate --base-bin X --help'"),
# and "CMD SUB" for each sub-command.
other_forms() {
    "$hvbench" "$1" --help | tr '\n' ' ' | tr -s ' ' |
        grep -o "'hvbench $1 --[a-z-]*\( X\)\{0,1\} --help'" |
        sed -e "s/^'hvbench //" -e "s/ --help'\$//" -e "s| X\$|=$tmp/none|"
}
forms() {
    for c in $commands; do
        echo "$c"
        other_forms "$c"
        for s in ${_hvbench_subs[$c]-}; do echo "$c $s"; done
    done
}
# The forms it must find are there.
forms >"$tmp/forms"
for f in "compare --hosts" "gate --base-bin=$tmp/none" "history record" \
    "history triage"; do
    grep -qxF -- "$f" "$tmp/forms" && ok ||
        bad "no form '$f' among: $(cat "$tmp/forms")"
done

# opts_shown FORM...: the options its --help lists, "-c" and "--name[=]"
# ("=" when it takes a value).
opts_shown() {
    "$hvbench" "$@" --help | sed -n \
        -e 's/^  \(-[a-zA-Z]\), \(--[a-z][-a-z]*\)\( [^ ]\)\{0,1\}.*/\1\3\n\2\3/p' \
        -e 's/^  \(--[a-z][-a-z]*\)\( [^ ]\)\{0,1\}.*/\1\2/p' |
        sed 's/ .$/=/'
}

# Every form's --help is exit 0, on stdout alone.
forms | while read -r form; do
    "$hvbench" $form --help >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ] || [ -s "$tmp/err" ] || ! grep -q '^usage: ' "$tmp/out"; then
        echo "FAIL: $form --help: exit $rc, $(cat "$tmp/err")"
        echo x >>"$tmp/help-failed"
    fi
done
[ -e "$tmp/help-failed" ] && bad "a --help that fails" || ok

# Every option shown parses.
forms | while read -r form; do
    shown=$(opts_shown $form)
    if [ -z "$shown" ]; then
        "$hvbench" $form --help | grep -q "options of 'hvbench run'" ||
            echo "FAIL: $form --help lists no option" >>"$tmp/parse-failed"
        continue
    fi
    for o in $shown; do
        case $o in
        --help | -h) continue ;;
        --*=) args="${o}1" ;;
        -?=) args="${o%=} 1" ;;
        *) args=$o ;;
        esac
        # reproduce with an option that parses goes on to run every
        # seed (385 s; --out=1 and -o 1 were killed at 20 s each): its
        # runs fail at once, after the parse this checks.
        (cd "$tmp" && HVB_REPRODUCE_EXE=/bin/false timeout 20 \
            "$hvbench" $form $args </dev/null >/dev/null 2>"$tmp/err")
        if grep -q "unknown option\|takes no value\|needs a value" "$tmp/err"; then
            echo "FAIL: hvbench $form $args: $(cat "$tmp/err")"
            echo x >>"$tmp/parse-failed"
        fi
    done
done
[ -e "$tmp/parse-failed" ] && bad "options shown that do not parse" || ok

# The rows, from the completion (each command's forms and inherited rows).
for c in $commands; do
    text="$("$hvbench" "$c" --help)"
    case $c in
    compare) text="$text$("$hvbench" compare --hosts --help)" ;;
    gate) text="$text$("$hvbench" gate --base-bin x --help)" ;;
    esac
    man=$(groff -man -Tutf8 -P-cbou "$mandir/hvbench-$c.1" 2>/dev/null)
    if echo "$text" | grep -q "options of 'hvbench run'"; then
        text="$text$("$hvbench" run --help)"
        echo "$man" | grep -q "hvbench-run(1)" &&
            man="$man$(groff -man -Tutf8 -P-cbou "$mandir/hvbench-run.1")"
    fi
    rows=${_hvbench_opts[$c]}
    [ -n "$rows" ] || bad "completion has no options for $c"
    for o in $rows; do
        pat=" $o\\( \\|,\\|\$\\)"
        echo "$text" | grep -q -- "$pat" || bad "$c: row $o not in --help"
        echo "$man" | grep -q -- "$pat" || bad "$c: row $o not in hvbench-$c(1)"
    done
    # A sub-command's rows: in its own --help, in its part of the
    # command's --help and in its section of the manual page.
    for s in ${_hvbench_subs[$c]-}; do
        text=$("$hvbench" "$c" "$s" --help)
        all=$("$hvbench" "$c" --help | sed -n "/^options of .*'$c $s'/,/^\$/p")
        sec=$(echo "$man" | sed -n "/^$c $s\$/,/^[A-Za-z]/p")
        rows=${_hvbench_opts["$c $s"]-}
        [ -n "$rows" ] || bad "completion has no options for '$c $s'"
        for o in $rows; do
            pat=" $o\\( \\|,\\|\$\\)"
            echo "$text" | grep -q -- "$pat" || bad "$c $s: row $o not in its --help"
            echo "$all" | grep -q -- "$pat" || bad "$c $s: row $o not in '$c --help'"
            echo "$sec" | grep -q -- "$pat" || bad "$c $s: row $o not in hvbench-$c(1)"
        done
    done
done
ok

# Every page renders without a warning, and is what the binary writes.
"$hvbench" help --man-dir "$tmp/man1" && ok || bad "help --man-dir"
pages=0
for p in "$mandir"/hvbench*.1; do
    pages=$((pages + 1))
    w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
    [ -z "$w" ] && ok || bad "man --warnings -l $p: $w"
    w=$(groff -ww -z -man "$p" 2>&1)
    [ -z "$w" ] && ok || bad "groff -ww $p: $w"
    cmp -s "$p" "$tmp/man1/${p##*/}" && ok || bad "$p is not the binary's"
done
[ "$pages" -eq $(($(echo "$commands" | wc -w) + 1)) ] && ok ||
    bad "$pages pages for $(echo "$commands" | wc -w) commands and hvbench(1)"
"$hvbench" help --man run | grep -q '^\.SH OPTIONS' && ok ||
    bad "help --man run"
"$hvbench" completion bash | cmp -s - "$completion" && ok ||
    bad "$completion is not the binary's"

# complete WORD...: the completions of the last word, one a line.
complete_words() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _hvbench
    printf '%s\n' "${COMPREPLY[@]}"
}
# offers WANT WORD...: every line of WANT among the completions.
offers() {
    want=$1
    shift
    got=$(complete_words "$@")
    missing=$(echo "$want" | grep -vxF -f <(echo "$got"))
    [ -n "$want" ] && [ -z "$missing" ] && ok ||
        bad "completing '$*': no '$(echo $missing)' in '$(echo $got)'"
}
"$hvbench" list --json >"$tmp/list.json"
reg() {
    /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = {x["name"]: x for x in d["workloads"]}
what, arg = sys.argv[2], sys.argv[3:]
if what == "workloads":
    print("\n".join(w))
elif what == "slots":
    print("\n".join(s + "=" for s in w[arg[0]]["slots"]))
elif what == "plugins":
    s = [x for x in d["slots"] if x["name"] == arg[0]][0]
    print("\n".join(arg[0] + "=" + p for p in s["plugins"]))
elif what == "params":
    print("\n".join(p["name"] + "=" for p in w[arg[0]]["params"]))
' "$tmp/list.json" "$@"
}
# The script calls COMP_WORDS[0]: the binary under test.
offers "$(reg workloads)" "$hvbench" run ""
offers "$(reg workloads)" "$hvbench" profile ""
offers "$(reg slots lookup)" "$hvbench" run lookup --plugin ""
offers "$(reg plugins domlookup)" "$hvbench" run lookup --plugin domlookup=
offers "rcu-noref" "$hvbench" run lookup --plugin domlookup = rcu-n
offers "$(reg params lookup)" "$hvbench" run lookup -t 2 --param ""
offers "$(reg slots xs-write)" "$hvbench" gate --base-bin x -- xs-write --plugin ""
offers "$(reg workloads)" "$hvbench" fleet slurm -- run ""
offers "run" "$hvbench" ru
offers "--threads" "$hvbench" run lookup --thr
offers "$(printf 'console\ncsv')" "$hvbench" run lookup --format c
offers "--base-bin" "$hvbench" gate --base
offers "--diff" "$hvbench" profile lookup --di
offers "$(printf 'record\nreference')" "$hvbench" history re
offers "--fail-on" "$hvbench" history detect --fail
offers "regression" "$hvbench" history detect --fail-on r
complete_words "$hvbench" history record --fail | grep -q -- --fail-on &&
    bad "history record offers detect's --fail-on" || ok

# Did you mean.
expect_dym() {
    want=$1
    shift
    "$hvbench" "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "did you mean '$want'?\$" "$tmp/err" && ok ||
        bad "hvbench $*: exit $rc, '$(cat "$tmp/err")', want did you mean '$want'"
}
expect_dym run rnu
expect_dym compare compre
expect_dym lookup run lokup
expect_dym rcu-noref run lookup --plugin domlookup=rcu-nref
expect_dym domlookup run lookup --plugin domlokup=rcu-noref
expect_dym domains run lookup --param domain=1
"$hvbench" frobnicate 2>&1 | grep -q "did you mean" &&
    bad "frobnicate: a suggestion for a name far from every command" || ok

"$hvbench" --version | grep -Eq '^hvbench [0-9][^ ]* \(git ([0-9a-f]{12}|unknown)(, dirty)?; [A-Za-z]+\)$' &&
    ok || bad "--version: $("$hvbench" --version)"

finish docs
