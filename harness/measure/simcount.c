/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Callgrind's counts (--instrument callgrind, hvb/meter.h): a sample's
 * instructions, sim_instructions_per_op, and from callgrind's cache
 * simulation an estimate of its cycles, sim_cycles_per_op, with the
 * raw events it is made of (sim_ir_per_op ... sim_dlmw_per_op), so that
 * other weights can be applied later.
 *
 * The simulated caches are pinned: the parent runs valgrind with
 * hvb_meter_cg_options() (--cache-sim=yes --I1=32768,8,64
 * --D1=32768,8,64 --LL=8388608,16,64), never with the host's geometry,
 * which valgrind would otherwise detect: two machines would simulate
 * two caches and disagree.  Each sample zeroes the counts, switches
 * instrumentation on, then off, and dumps (meter.c).  Switching
 * instrumentation also clears callgrind's simulated caches
 * (CLG_(set_instrument_state)), so every sample starts cold whatever
 * ran before it: a cell's counts do not depend on the other cells of
 * the run or on their order.  The probe dumps once, before any sample,
 * to read what callgrind simulates (dump 1); sample k is dump k + 1.
 *
 * A dump (cg.out.N) names its caches and events, and ends with their
 * totals, e.g. one sample of lookup with rcu-ref:
 *
 *   desc: I1 cache: 32768 B, 64 B, 8-way associative
 *   desc: D1 cache: 32768 B, 64 B, 8-way associative
 *   desc: LL cache: 8388608 B, 64 B, 16-way associative
 *   events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
 *   totals: 1383456 427659 204129 55 40 7 55 40 7
 *
 * Every access hits in L1, in LL or goes to RAM, and costs 1, 5 or 35
 * cycles (the estimate of iai-callgrind, now gungraun, after
 * pythonspeed's "consistent benchmarking in CI"):
 *
 *   RAM     = ILmr + DLmr + DLmw                  = 55 + 40 + 7  = 102
 *   LL hits = I1mr + D1mr + D1mw - RAM            = 102 - 102    = 0
 *   L1 hits = Ir + Dr + Dw - (I1mr + D1mr + D1mw) = 2015244 - 102
 *                                                 = 2015142
 *   cycles  = L1 hits + 5 x LL hits + 35 x RAM    = 2015142 + 3570
 *                                                 = 2018712
 *
 * Each total becomes a per-op counter, divided by the sample's 20032
 * operations: sim_cycles_per_op 100.77, sim_instructions_per_op =
 * sim_ir_per_op 69.06.  Here RAM is every L1 miss: the caches start
 * cold and the cell's code and data fit in L1, so a line is missed
 * once, in L1 and LL alike.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include <hv/strbuf.h>
#include <hvb/meter.h>
#include <hvb/workload.h>

#include "private.h"

/* The pinned geometry: valgrind's --I1/--D1/--LL=size,assoc,line. */
static const struct sim_cache {
    const char *name;
    unsigned int size, assoc, line;
} caches[HVB_SIM_CACHES] = {
    {"I1", 32768, 8, 64},
    {"D1", 32768, 8, 64},
    {"LL", 8388608, 16, 64},
};

/* Cycles of an access that hits in L1, in LL, or goes to RAM. */
#define L1_CYCLES  1
#define LL_CYCLES  5
#define RAM_CYCLES 35

enum sim_ev {
    IR,
    DR,
    DW,
    I1MR,
    D1MR,
    D1MW,
    ILMR,
    DLMR,
    DLMW,
    NR_EV
};
static const char *const ev_names[NR_EV] = {
    "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"};
static const char *const ev_keys[NR_EV] = {
    "sim_ir_per_op",   "sim_dr_per_op",   "sim_dw_per_op",
    "sim_i1mr_per_op", "sim_d1mr_per_op", "sim_d1mw_per_op",
    "sim_ilmr_per_op", "sim_dlmr_per_op", "sim_dlmw_per_op"};
static const char *const ev_help[NR_EV] = {
    "instruction fetches", "data reads",        "data writes",
    "I1 misses (fetches)", "D1 misses (reads)", "D1 misses (writes)",
    "LL misses (fetches)", "LL misses (reads)", "LL misses (writes)"};
#define ALL_EV ((1u << NR_EV) - 1)

/* What a dump holds: its totals, which events it has, its caches. */
struct sim_dump {
    double v[NR_EV];
    unsigned int named, have; /* bit per enum sim_ev: events:, totals: */
    char events[160];         /* its "events:" line */
    char cache[HVB_SIM_CACHES][96];
    char creator[64];
};

const char *const *hvb_meter_cg_options(void)
{
    static char opt[HVB_SIM_CACHES][48];
    static const char *av[HVB_SIM_CACHES + 2];
    unsigned int i;

    av[0] = "--cache-sim=yes";
    for ( i = 0; i < HVB_SIM_CACHES; i++ )
    {
        snprintf(opt[i], sizeof(opt[i]), "--%s=%u,%u,%u", caches[i].name,
                 caches[i].size, caches[i].assoc, caches[i].line);
        av[i + 1] = opt[i];
    }
    av[HVB_SIM_CACHES + 1] = NULL;
    return av;
}

bool hvb_meter_sim_raw(const char *counter)
{
    unsigned int i;

    for ( i = 0; i < NR_EV; i++ )
        if ( strcmp(counter, ev_keys[i]) == 0 )
            return true;
    return false;
}

/* Drop a line's end; copy what follows @prefix into @dst. */
static void take(char *dst, size_t len, const char *line, size_t prefix)
{
    size_t n = strcspn(line + prefix, "\r\n");

    if ( n >= len )
        n = len - 1;
    memcpy(dst, line + prefix, n);
    dst[n] = '\0';
}

/*
 * The events of @d->events, and with @nums ("totals: N N ..." in their
 * order; a dump of nothing has "totals: 0") their totals: sets @d->named
 * and @d->have.
 */
static void take_totals(struct sim_dump *d, const char *nums)
{
    char names[sizeof(d->events)], *save = NULL, *name, *end;
    bool more = nums != NULL;
    unsigned int i;
    double v = 0;

    d->named = d->have = 0;
    snprintf(names, sizeof(names), "%s", d->events);
    for ( name = strtok_r(names, " ", &save); name != NULL;
          name = strtok_r(NULL, " ", &save) )
    {
        if ( more )
        {
            v = strtod(nums, &end);
            more = end != nums;
            nums = end;
        }
        for ( i = 0; i < NR_EV; i++ )
            if ( strcmp(name, ev_names[i]) == 0 )
            {
                d->named |= 1u << i;
                d->v[i] = more ? v : 0;
                d->have |= more ? 1u << i : 0;
            }
    }
}

/* Read callgrind's dump @n (cg.out.@n of the dump directory): 0, -errno. */
static int read_dump(unsigned int n, struct sim_dump *d)
{
    char path[PATH_MAX + 32], line[512];
    bool bol = true; /* @line starts a line, not the rest of a long one */
    char totals[sizeof(line)] = "";
    unsigned int i;
    FILE *f;

    memset(d, 0, sizeof(*d));
    snprintf(path, sizeof(path), "%s/cg.out.%u", hvb_meter_cfg.cg_dir, n);
    f = fopen(path, "r");
    if ( f == NULL )
        return -errno;
    while ( fgets(line, sizeof(line), f) )
    {
        if ( bol && strncmp(line, "events: ", 8) == 0 )
            take(d->events, sizeof(d->events), line, 8);
        else if ( bol && strncmp(line, "totals: ", 8) == 0 )
            snprintf(totals, sizeof(totals), "%s", line + 8);
        else if ( bol && strncmp(line, "creator: ", 9) == 0 )
            take(d->creator, sizeof(d->creator), line, 9);
        else if ( bol && strncmp(line, "desc: ", 6) == 0 )
            for ( i = 0; i < HVB_SIM_CACHES; i++ )
                if ( strncmp(line + 6, caches[i].name, 2) == 0 &&
                     strncmp(line + 8, " cache: ", 8) == 0 )
                    take(d->cache[i], sizeof(d->cache[i]), line, 16);
        bol = strchr(line, '\n') != NULL;
    }
    fclose(f);
    take_totals(d, totals[0] ? totals : NULL);
    return 0;
}

/* Cycles of the totals @v: L1 hits + 5 x LL hits + 35 x RAM. */
static double sim_cycles(const double *v)
{
    double ram = v[ILMR] + v[DLMR] + v[DLMW];
    double l1_miss = v[I1MR] + v[D1MR] + v[D1MW];

    return L1_CYCLES * (v[IR] + v[DR] + v[DW] - l1_miss) +
           LL_CYCLES * (l1_miss - ram) + RAM_CYCLES * ram;
}

void hvb_meter_sim_probe(void)
{
    char want[96];
    struct sim_dump d;
    unsigned int i;
    int rc;

    CALLGRIND_DUMP_STATS_AT("hvbench-probe");
    atomic_store(&hvb_meter_cfg.cg_dumps, 1);
    rc = read_dump(1, &d);
    if ( rc )
    {
        /* Another valgrind tool: callgrind's requests do nothing. */
        hvb_meter_cfg.callgrind = false;
        snprintf(hvb_meter_cfg.cg_why, sizeof(hvb_meter_cfg.cg_why),
                 "no callgrind dump (%s): valgrind runs another tool?",
                 strerror(-rc));
        snprintf(hvb_meter_cfg.sim_why, sizeof(hvb_meter_cfg.sim_why), "%s",
                 hvb_meter_cfg.cg_why);
        return;
    }
    snprintf(hvb_meter_cfg.cg_creator, sizeof(hvb_meter_cfg.cg_creator), "%s",
             d.creator);
    if ( d.named != ALL_EV )
    {
        snprintf(hvb_meter_cfg.sim_why, sizeof(hvb_meter_cfg.sim_why),
                 "callgrind runs without its cache simulation (events: %s)",
                 d.events);
        return;
    }
    for ( i = 0; i < HVB_SIM_CACHES; i++ )
    {
        snprintf(want, sizeof(want), "%u B, %u B, %u-way associative",
                 caches[i].size, caches[i].line, caches[i].assoc);
        if ( strcmp(d.cache[i], want) )
        {
            snprintf(hvb_meter_cfg.sim_why, sizeof(hvb_meter_cfg.sim_why),
                     "callgrind simulates %s cache '%s', not the pinned '%s'",
                     caches[i].name, d.cache[i], want);
            return;
        }
    }
    hvb_meter_cfg.sim = true;
}

void hvb_meter_sim_add(struct hvb_ctr_table *ctrs)
{
    struct sim_dump d;
    unsigned int i;

    if ( read_dump(atomic_fetch_add(&hvb_meter_cfg.cg_dumps, 1) + 1, &d) )
        return;
    if ( d.have & (1u << IR) )
        hvb_ctr_add(ctrs, "sim_instructions_per_op", d.v[IR], HVB_CTR_PER_OP);
    if ( !hvb_meter_cfg.sim || (d.have & ALL_EV) != ALL_EV )
        return;
    for ( i = 0; i < NR_EV; i++ )
        hvb_ctr_add(ctrs, ev_keys[i], d.v[i], HVB_CTR_PER_OP);
    hvb_ctr_add(ctrs, "sim_cycles_per_op", sim_cycles(d.v), HVB_CTR_PER_OP);
}

/* "I1 32768 B 8-way, D1 ..., LL 8388608 B 16-way, 64 B lines". */
static const char *geometry(void)
{
    static char s[160];
    struct hv_strbuf b;
    unsigned int i;

    hv_strbuf_init(&b, s, sizeof(s));
    for ( i = 0; i < HVB_SIM_CACHES; i++ )
        hv_strbuf_join(&b, ", ", "%s %u B %u-way", caches[i].name,
                       caches[i].size, caches[i].assoc);
    hv_strbuf_join(&b, ", ", "%u B lines", caches[0].line);
    return s;
}

void hvb_meter_sim_line(FILE *f)
{
    if ( hvb_meter_cfg.sim )
        fprintf(f, ", sim_cycles (%s)", geometry());
}

void hvb_meter_sim_json(json_t *probe, json_t *counters)
{
    char src[320];
    json_t *cg, *c, *w;
    unsigned int i;

    json_object_set_new(
        counters, "sim_instructions_per_op",
        hvb_meter_probe_entry(hvb_meter_cfg.callgrind,
                              "valgrind callgrind Ir between client requests",
                              hvb_meter_cfg.cg_why));
    snprintf(src, sizeof(src),
             "callgrind's cache simulation (%s): L1 hits + %d x LL hits + "
             "%d x RAM, over instruction fetches and data accesses",
             geometry(), LL_CYCLES, RAM_CYCLES);
    json_object_set_new(
        counters, "sim_cycles_per_op",
        hvb_meter_probe_entry(hvb_meter_cfg.sim, src, hvb_meter_cfg.sim_why));
    for ( i = 0; i < NR_EV; i++ )
    {
        snprintf(src, sizeof(src), "callgrind event %s: %s", ev_names[i],
                 ev_help[i]);
        json_object_set_new(counters, ev_keys[i],
                            hvb_meter_probe_entry(hvb_meter_cfg.sim, src,
                                                  hvb_meter_cfg.sim_why));
    }
    if ( !hvb_meter_cfg.callgrind )
        return;
    cg = json_object();
    json_object_set_new(cg, "creator", json_string(hvb_meter_cfg.cg_creator));
    json_object_set_new(cg, "cache_sim", json_boolean(hvb_meter_cfg.sim));
    c = json_object();
    for ( i = 0; i < HVB_SIM_CACHES; i++ )
        json_object_set_new(c, caches[i].name,
                            json_pack("{sI sI sI}", "size_bytes",
                                      (json_int_t)caches[i].size, "assoc",
                                      (json_int_t)caches[i].assoc, "line_bytes",
                                      (json_int_t)caches[i].line));
    json_object_set_new(cg, "caches", c);
    w = json_pack("{si si si}", "l1_hit", L1_CYCLES, "ll_hit", LL_CYCLES, "ram",
                  RAM_CYCLES);
    json_object_set_new(cg, "cycle_weights", w);
    json_object_set_new(probe, "callgrind", cg);
}
