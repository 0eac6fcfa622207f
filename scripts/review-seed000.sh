#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Seed 000 as a reviewer meets it: a commit that makes oxenstored's quota
# table persistent, reviewed with "hvbench review" (two builds, the gate
# in process pairs, the wall and wait views' differentials in
# interleaved rounds).  A scratch copy of this tree, two commits:
#   base  "oxenstored: quota as a hash table copied per request": the
#         plugin quota=persistent is hashtbl-copy.c under that name (the
#         2014 code);
#   head  "oxenstored: make Quota.t pure": persistent.c as it is.
# Both run the same command line, boot-storm over the wire with libxl's
# requests, so the review compares code, not options.  The review
# (review.json, review.md, index.html) lands in OUT/review.  One op is a
# whole storm (some 6 s at 300 VMs here), so the gate runs 3 rounds per
# cell and pair, not its 100: about 10 minutes in all on 2 vCPUs.
#
# Usage: scripts/review-seed000.sh HVBENCH OUT [VMS] [ROUNDS]
#   e.g. scripts/review-seed000.sh build/hvbench /tmp/s0 300 2
# As root (the wall view's sched_switch tracepoint).  VMS default 300,
# ROUNDS (--flame-rounds, also the wall views' rounds) default 2.
set -u
hvb=$(realpath "$1")
out=$(mkdir -p "$2" && cd "$2" && pwd)
vms=${3:-300}
rounds=${4:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
repo=$out/repo
. "$src/tests/review/lib-scratch-repo.sh"

rm -rf "$repo" "$out/review"
scratch_repo "$src" "$repo" || exit 1
q=$repo/plugins/quota
cp "$q/persistent.c" "$out/persistent.c"
sed -e 's/HV_PLUGIN_HDR("quota", "hashtbl-copy"/HV_PLUGIN_HDR("quota", "persistent"/' \
    -e 's/hashtbl_copy_ops/persistent_ops/g' "$q/hashtbl-copy.c" >"$q/persistent.c"
grep -q 'HV_PLUGIN_HDR("quota", "persistent"' "$q/persistent.c" || {
    echo "review-seed000: the base's plugin did not apply" >&2
    exit 1
}
git_ commit -q -a -m "oxenstored: quota as a hash table copied per request" ||
    exit 1
base=$(git_ rev-parse HEAD)
cp "$out/persistent.c" "$q/persistent.c"
git_ commit -q -a -m "oxenstored: make Quota.t pure" || exit 1
head=$(git_ rev-parse HEAD)

cd "$repo" || exit 1
"$hvb" review "$base" "$head" --cache "$out/cache" --out "$out/review" \
    --metric time --pairs 2 --max-pairs 3 --rounds 3 --explain all \
    --lock-rounds 0 \
    --flame-rounds "$rounds" --wall-views all -- \
    boot-storm --plugin quota=persistent --param xs_client=socket \
    --param xs_profile=libxl --param vms="$vms"
