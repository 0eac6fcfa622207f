# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the review tests and scripts/bisect-bench.sh: git_, a
# scratch git repository of this tree, and the slowdown they bisect.
#
#   scratch_repo SRC REPO   REPO: SRC's tracked and untracked (not
#                           ignored) files, committed as "good"
#   slow_rcu_ref REPO       make rcu_ref_lock spin 64 times (the
#                           regression to find); false if it did not apply
#   slow_lock_hold REPO     make lock-hold's holder hold twice hold_ns (a
#                           regression that waits: the review's wall and
#                           wait views); false if it did not apply

# git in $repo as a throw-away author.
git_() { git -C "$repo" -c user.name=t -c user.email=t@example.org "$@"; }

scratch_repo() {
    mkdir "$2" || return 1
    (cd "$1" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf -) |
        tar -xf - -C "$2" 2>/dev/null
    git -C "$2" init -q && git -C "$2" add -A &&
        git -C "$2" -c user.name=t -c user.email=t@example.org commit -q -m good
}

slow_rcu_ref() {
    sed -i 's/^    hv_rcu_read_lock(cpu);$/    hv_rcu_read_lock(cpu);\n    {\n        volatile unsigned int spin = 0;\n\n        while ( spin < 64 )\n            spin++;\n    }/' \
        "$1/plugins/domlookup/rcu-ref.c"
    grep -q "spin < 64" "$1/plugins/domlookup/rcu-ref.c"
}

slow_lock_hold() {
    sed -i 's/while ( hv_now_ns() - t0 < s->hold_ns )/while ( hv_now_ns() - t0 < 2 * s->hold_ns )/' \
        "$1/workloads/micro/lock-hold.c"
    grep -q "< 2 \* s->hold_ns" "$1/workloads/micro/lock-hold.c"
}
