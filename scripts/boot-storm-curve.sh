#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# boot-storm-curve.sh: the VMs/s curve of boot-storm as N grows, for
# strategy sets, and each set's breaking point.  One `hvbench run` per
# set, over every N at once (the cells of a run are interleaved in
# rounds, so the Ns of one set share the machine's drift); then a
# markdown table: per set and N, VMs/s (median over repetitions) and the
# p99 boot latency, and the breaking point: the smallest N whose VMs/s
# is under half that of the smallest N, or whose slowest boot exceeds
# --timeout-ms; "> N_max" if none does.
#
#   boot-storm-curve.sh [--sets LIST] [--n LIST] [--repetitions R]
#                       [--timeout-ms T] [--extra 'RUN OPTIONS'] [--out DIR]
#                       [--counters MODE] [--split] [--tabulate]
#
# --tabulate: no runs; the table from the results an earlier --out DIR
# kept (another --timeout-ms, say).  --split: one run per set and N (each
# figure its own load average) instead of one per set.  A second table
# gives per N each set's storm time (s, median), its ratio to the first
# set's, the xenstore daemon's CPU share where the run reports it, and the
# load average before and after the run of that figure.
#
# Sets: all-old (rwlock-ref, hashtbl-copy, numa-2006, append-2, global,
# lock-each), all-new (rcu-noref, persistent, numa, chunked, per-domain,
# name-hash), and +PLUGIN: all-old with that one new plugin in its slot
# (+rcu-noref, +persistent, +numa, +chunked, +per-domain, +name-hash, or
# any other plugin: +job, +cursor, +urcu-ref ...), or SLOT=PLUGIN[:SLOT=
# PLUGIN...]: those plugins, the workload's defaults elsewhere
# (quota=persistent:seclock=job).  A set ending in @oxenstored runs with
# --param xs_server=external beside Debian's real oxenstored
# (scripts/with-oxenstored.sh, its shim FAKEXEN, default
# tests/bin/fakexen.so beside the binary; give --extra the
# xs_client=socket xs_profile=libxl traffic): the third curve of seed
# 000.  Default: all of all-old, all-new and the six single changes.
# Runs use --counters tsc (no allocation-counting pass: it would run every
# storm twice) unless --counters says otherwise.
# HVBENCH names the binary
# (default build/hvbench).  Benchmarks whose figures you keep: run it
# under `flock -x /tmp/hvb-cpu.lock`, a few sets per command.
set -eu
hvb=${HVBENCH:-build/hvbench}
sets="all-old,all-new,+rcu-noref,+persistent,+numa,+chunked,+per-domain,+name-hash"
ns="50,100,200,400,800"
reps=1
timeout_ms=0
extra=""
out=""
tabulate=0
counters=tsc
split=0
usage() {
    sed -n '3,43p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --sets) sets=$2; shift 2 ;;
    --n) ns=$2; shift 2 ;;
    --repetitions) reps=$2; shift 2 ;;
    --timeout-ms) timeout_ms=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --counters) counters=$2; shift 2 ;;
    --split) split=1; shift ;;
    --tabulate) tabulate=1; shift ;;
    -h | --help) usage ;;
    *) echo "boot-storm-curve.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
    esac
done
case $ns in *[!0-9,]* | "" | ,* | *,) echo "boot-storm-curve.sh: bad --n '$ns'" >&2; exit 2 ;; esac
case $reps$timeout_ms in *[!0-9]*) echo "boot-storm-curve.sh: bad number" >&2; exit 2 ;; esac
[ -x "$hvb" ] || { echo "boot-storm-curve.sh: no hvbench at $hvb (HVBENCH)" >&2; exit 2; }
keep=1
if [ $tabulate -eq 1 ] && [ -z "$out" ]; then
    echo "boot-storm-curve.sh: --tabulate needs --out DIR" >&2
    exit 2
fi
if [ -z "$out" ]; then
    out=$(mktemp -d)
    keep=0
fi
mkdir -p "$out"
cleanup() { [ $keep -eq 1 ] || rm -rf "$out"; }
trap cleanup EXIT

# The slot of each new plugin; all-old and all-new.
slot_of() {
    "$hvb" list plugins --json | /usr/bin/python3 -c '
import json, sys
name = sys.argv[1]
for p in json.load(sys.stdin)["plugins"]:
    if p["name"] == name and p["slot"] in ("domlookup", "quota", "pgalloc",
                                           "infolist", "seclock", "namesearch"):
        print(p["slot"]); break' "$1"
}
old="domlookup=rwlock-ref quota=hashtbl-copy pgalloc=numa-2006 infolist=append-2 seclock=global namesearch=lock-each"
new="domlookup=rcu-noref quota=persistent pgalloc=numa infolist=chunked seclock=per-domain namesearch=name-hash"

plugins_of() {
    case $1 in
    *@oxenstored) plugins_of "${1%@oxenstored}" ;;
    *=*) echo "$1" | tr ':' ' ' ;;
    all-old) echo "$old" ;;
    all-new) echo "$new" ;;
    +*)
        p=${1#+}
        s=$(slot_of "$p")
        [ -n "$s" ] || { echo "boot-storm-curve.sh: no plugin '$p' in the six slots" >&2; exit 2; }
        for kv in $old; do
            case $kv in "$s="*) echo "$s=$p" ;; *) echo "$kv" ;; esac
        done | tr '\n' ' '
        ;;
    *) echo "boot-storm-curve.sh: unknown set '$1' (all-old, all-new, +PLUGIN)" >&2; exit 2 ;;
    esac
}

shim=${FAKEXEN:-$(dirname "$hvb")/tests/bin/fakexen.so}
# One run of set $1 over the Ns $2 into $3.
run_set() {
    args=""
    wrap=""
    for kv in $(plugins_of "$1"); do args="$args --plugin $kv"; done
    case $1 in
    *@oxenstored)
        args="$args --param xs_server=external"
        wrap="$(dirname "$0")/with-oxenstored.sh $shim"
        ;;
    esac
    echo "boot-storm-curve: $1: N = $2" >&2
    # shellcheck disable=SC2086
    $wrap "$hvb" run boot-storm $args --param "vms=$2" --repetitions "$reps" \
        --counters "$counters" $extra --out "$3" >/dev/null ||
        { echo "boot-storm-curve.sh: the run of $1 (N = $2) failed" >&2; exit 1; }
}

IFS=,
for set in $sets; do
    unset IFS
    [ $tabulate -eq 0 ] || { IFS=,; continue; }
    plugins_of "$set" >/dev/null
    rm -f "$out/$set.json" "$out/$set".n*.json
    if [ $split -eq 0 ]; then
        run_set "$set" "$ns" "$out/$set.json"
    else
        IFS=,
        for n in $ns; do
            unset IFS
            run_set "$set" "$n" "$out/$set.n$n.json"
        done
    fi
    IFS=,
done
unset IFS

/usr/bin/python3 - "$out" "$sets" "$ns" "$timeout_ms" <<'PY'
import glob, json, re, statistics, sys
out, sets, ns, timeout_ms = sys.argv[1], sys.argv[2].split(","), \
    [int(n) for n in sys.argv[3].split(",")], int(sys.argv[4])
ns = sorted(set(ns))
print("| set | " + " | ".join(f"N={n} VMs/s (p99 ms)" for n in ns) +
      " | breaking point |")
print("|---|" + "---|" * (len(ns) + 1))
def load(s):
    """{N: [cells]} of set s, each cell with its run's load averages."""
    files = sorted(glob.glob(f"{glob.escape(out)}/{glob.escape(s)}.json") +
                   glob.glob(f"{glob.escape(out)}/{glob.escape(s)}.n*.json"))
    if not files:
        sys.exit(f"boot-storm-curve.sh: no results of {s} in {out}")
    cells = {}
    for f in files:
        try:
            d = json.load(open(f))
        except (OSError, ValueError) as e:
            sys.exit(f"boot-storm-curve.sh: {f}: {e}")
        env = d.get("hvbench", {}).get("environment", {})
        la = (env.get("load_avg_before", [0])[0],
              env.get("load_avg_after", [0])[0])
        for b in d["benchmarks"]:
            if b.get("run_type") == "aggregate":
                continue
            n = int(re.search(r"/vms=(\d+)", b["name"]).group(1))
            cells.setdefault(n, []).append(dict(b, _load=la))
    return cells

results = {s: load(s) for s in sets}
for s in sets:
    cells = results[s]
    row, base, brk = [], None, None
    for n in ns:
        rs = cells.get(n, [])
        if not rs:
            row.append("-")
            continue
        v = statistics.median(r["vms_per_s"] for r in rs)
        p99 = statistics.median(r["boot_p99_ms"] for r in rs)
        worst = max(r["boot_max_ms"] for r in rs)
        row.append(f"{v:.1f} ({p99:.0f})")
        base = v if base is None else base
        if brk is None and (v < base / 2 or
                            (timeout_ms and worst > timeout_ms)):
            why = "VMs/s halved" if v < base / 2 else \
                f"a boot > {timeout_ms} ms"
            brk = f"N={n} ({why})"
    print(f"| {s} | " + " | ".join(row) + " | " +
          (brk or f"> {ns[-1]}") + " |")
print(f"\nbreaking point: the smallest N with VMs/s < half of N={ns[0]}'s"
      + (f" or a boot over {timeout_ms} ms" if timeout_ms else "") + ".")

# The storm times side by side: ratio to the first set, the daemon's CPU.
print("\n| N | " + " | ".join([f"{s} storm s (xenstored CPU %; load)"
                               for s in sets] +
                              [f"{s} / {sets[0]}" for s in sets[1:]]) + " |")
print("|---|" + "---|" * (2 * len(sets) - 1))
for n in ns:
    row, storm = [], {}
    for s in sets:
        rs = results[s].get(n, [])
        if not rs:
            row.append("-")
            continue
        storm[s] = statistics.median(r["storm_wall_ms"] for r in rs) / 1e3
        cpu = [r["xs_server_cpu_pct"] for r in rs if "xs_server_cpu_pct" in r]
        la = f"{min(r['_load'][0] for r in rs):.1f}-" \
             f"{max(r['_load'][1] for r in rs):.1f}"
        row.append(f"{storm[s]:.3g} (" +
                   (f"{statistics.median(cpu):.0f}" if cpu else "-") +
                   f"; {la})")
    for s in sets[1:]:
        row.append(f"{storm[s] / storm[sets[0]]:.2f}x"
                   if s in storm and sets[0] in storm else "-")
    print(f"| {n} | " + " | ".join(row) + " |")
PY
