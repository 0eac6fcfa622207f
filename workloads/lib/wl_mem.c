/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the memory workloads; see wl_mem.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hv/pgalloc.h>

#include "wl_mem.h"

/* The model memory for @need_bytes: reserved pages, remainders, a filler. */
static uint64_t with_slack(uint64_t need_bytes)
{
    return (need_bytes + (need_bytes >> 4) + (16ull << 20)) &
           ~(uint64_t)(HV_PAGE_SIZE - 1);
}

static bool emulated(const struct wl_mem_params *mp)
{
    return strcmp(mp->topology, "host") != 0;
}

/* The topology the cell's model will have; 0 or -EINVAL with @err. */
static int parse(const struct wl_mem_params *mp, uint64_t need_bytes,
                 struct hv_topology *t, char *err, size_t len)
{
    return hv_topology_parse(t, mp->topology, mp->distance,
                             with_slack(need_bytes), 4, err, len);
}

int wl_mem_check(struct hvb_cell *c, const struct wl_mem_params *mp,
                 uint64_t node, uint64_t need_bytes)
{
    static struct hv_topology t;
    uint64_t pages = 0;
    unsigned int n;
    char err[256];

    if ( parse(mp, need_bytes, &t, err, sizeof(err)) )
    {
        hvb_cell_error(c, "%s", err);
        return -EINVAL;
    }
    /* Node n of 2 would wrap to n % 2 and be labelled n. */
    if ( node >= t.nr_nodes )
    {
        hvb_cell_error(c,
                       "node=%llu is out of range: topology '%s' has %u "
                       "node(s), 0..%u",
                       (unsigned long long)node, mp->topology, t.nr_nodes,
                       t.nr_nodes - 1);
        return -EINVAL;
    }
    /* An emulated topology is what the user wrote: it must hold the cell. */
    for ( n = 0; n < t.nr_nodes; n++ )
        pages += t.node_pages[n] ? t.node_pages[n] - 1 : 0;
    if ( emulated(mp) && pages < need_bytes >> HV_PAGE_SHIFT )
    {
        hvb_cell_error(c, "topology '%s' has %llu MiB, the cell needs %llu",
                       mp->topology,
                       (unsigned long long)(pages >> (20 - HV_PAGE_SHIFT)),
                       (unsigned long long)(need_bytes >> 20));
        return -EINVAL;
    }
    return 0;
}

uint64_t wl_mem_need(const struct wl_mem_params *mp, uint64_t need_bytes,
                     uint64_t touched_bytes)
{
    static struct hv_topology t; /* large; check() runs on one thread */
    uint64_t pages = 0;
    unsigned int n;
    char err[256];

    if ( parse(mp, need_bytes, &t, err, sizeof(err)) )
        return 0; /* check() says why */
    for ( n = 0; n < t.nr_nodes; n++ )
        pages += t.node_pages[n];
    /* The frame table and node map of every page, and what is written. */
    return pages * (sizeof(struct hv_page_info) + 1) + touched_bytes;
}

bool wl_mem_scrubbed(const struct wl_mem_params *mp)
{
    return mp->scrub == 1;
}

void wl_mem_configure(const struct wl_mem_params *mp, struct hv_config *cfg,
                      uint64_t need_bytes)
{
    cfg->topology = mp->topology;
    cfg->distance = mp->distance;
    cfg->scrub = wl_mem_scrubbed(mp);
    cfg->zones = mp->zones == 1 ? HV_ZONES_BITWIDTH : HV_ZONES_DOM;
    cfg->mem_bytes = with_slack(need_bytes);
}

int wl_mem_domain(struct hvb_cell *c, domid_t id, unsigned int node,
                  struct hv_domain **out)
{
    unsigned int cpu = hv_node_nearest_cpu(c->hv, node);
    int rc;

    rc = hv_domain_create(c->hv, id, 0, out);
    if ( rc == 0 )
        rc = hv_domain_set_vcpus(*out, &cpu, 1);
    return rc;
}

int wl_mem_op(struct hv_cpu *cpu, struct hv_domain *d, bool up,
              unsigned long nr, unsigned int order, unsigned long batch,
              unsigned int memflags)
{
    unsigned long done = 0;
    int rc;

    while ( done < nr )
    {
        struct hv_memop op = {
            .nr_extents = nr - done < batch ? nr - done : batch,
            .extent_order = order,
            .memflags = memflags,
        };

        do
            rc = up ? hv_increase_reservation(cpu, d, &op)
                    : hv_decrease_reservation(cpu, d, &op);
        while ( rc == -ERESTART );
        if ( rc )
            return rc;
        done += op.nr_extents;
    }
    return 0;
}

struct hv_cpu *wl_mem_prepare_cpu(struct hvb_cell *c)
{
    return hv_cpu_enter(c->hv, hv_nr_cpus(c->hv) - 1);
}

void wl_mem_snap(const struct hv_cpu *cpu, struct wl_mem_snap *s)
{
    memcpy(s->v, cpu->perfc, sizeof(s->v));
}

void wl_mem_counters(struct hvb_thread *t, const struct wl_mem_snap *before)
{
    const uint64_t *now = t->cpu->perfc, *b = before->v;
    double n = (double)(now[HV_PERFC_pgalloc_alloc] -
                        b[HV_PERFC_pgalloc_alloc]),
           div = n * t->nthreads;

    if ( n == 0 )
        return;
#define PER_EXTENT(name, c)  \
    hvb_counter_add(t, name, \
                    (double)(now[HV_PERFC_##c] - b[HV_PERFC_##c]) / div, 0)
    PER_EXTENT("probes_per_extent", pgalloc_probe);
    PER_EXTENT("nodes_per_extent", pgalloc_node_scan);
    PER_EXTENT("remote_per_extent", pgalloc_remote);
#undef PER_EXTENT
}

double wl_mem_locality(struct hvb_thread *t, struct hv_domain *d,
                       unsigned int node, uint64_t pages[HV_MAX_NUMNODES])
{
    uint64_t total = hv_domain_node_pages(d, pages);
    double frac = total ? (double)pages[node] / (double)total : 0;

    hvb_counter_add(t, "local_frac", frac / t->nthreads, 0);
    return frac;
}

unsigned int wl_mem_vcpu_node(struct hv_domain *d)
{
    return hv_topology(d->hv)->cpu_to_node[d->vcpu_processor[0]];
}
