/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The NUMA topology: parse an emulated spec ("4x1G", "1G+0+1G-nocpu") and
 * a SLIT table, or read the host's nodes through libnuma when it has
 * several; map model CPUs to nodes; derive a domain's node affinity from
 * the CPUs its vCPUs run on (Xen's domain_update_node_affinity()).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HV_HAVE_LIBNUMA
#include <numa.h>
#endif

#include <hv/topology.h>

#include "private.h"

/* "1G", "512M", "0": bytes, binary units.  -EINVAL. */
static int parse_size(const char **p, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = *p;

    if ( !isdigit((unsigned char)*s) )
        return -EINVAL;
    for ( ; isdigit((unsigned char)*s); s++ )
    {
        if ( v > (1ull << 40) )
            return -EINVAL;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    switch ( *s )
    {
    case 'K':
    case 'k':
        v <<= 10, s++;
        break;
    case 'M':
    case 'm':
        v <<= 20, s++;
        break;
    case 'G':
    case 'g':
        v <<= 30, s++;
        break;
    case 'T':
    case 't':
        v <<= 40, s++;
        break;
    default:
        break;
    }
    *p = s;
    *out = v;
    return 0;
}

static int parse_emulated(struct hv_topology *t, const char *spec, char *err,
                          size_t len)
{
    const char *p = spec;

    t->nr_nodes = 0;
    for ( ;; )
    {
        uint64_t count = 1, size;
        bool nocpu = false;
        const char *q = p;

        /* [N x] SIZE [-nocpu] */
        if ( parse_size(&q, &size) == 0 && *q == 'x' && q != p &&
             isdigit((unsigned char)q[1]) )
        {
            count = 0;
            while ( isdigit((unsigned char)*p) )
                count = count * 10 + (uint64_t)(*p++ - '0');
            p++; /* 'x' */
        }
        if ( parse_size(&p, &size) )
            goto bad;
        if ( strncmp(p, "-nocpu", 6) == 0 )
        {
            nocpu = true;
            p += 6;
        }
        if ( size % HV_PAGE_SIZE || count == 0 ||
             t->nr_nodes + count > HV_MAX_NUMNODES )
            goto bad;
        while ( count-- )
        {
            t->node_pages[t->nr_nodes] = size >> HV_PAGE_SHIFT;
            t->node_has_cpus[t->nr_nodes] = !nocpu;
            t->host_node[t->nr_nodes] = -1;
            t->nr_nodes++;
        }
        if ( *p == '\0' )
            break;
        if ( *p++ != '+' )
            goto bad;
    }
    return 0;

bad:
    snprintf(err, len,
             "bad topology '%s' (want e.g. 4x1G, 1G+0+1G, 2x1G+512M-nocpu; "
             "sizes in 4 KiB multiples, at most %u nodes)",
             spec, HV_MAX_NUMNODES);
    return -EINVAL;
}

static int parse_distance(struct hv_topology *t, const char *spec, char *err,
                          size_t len)
{
    unsigned int v[HV_MAX_NUMNODES * 2], n = 0, i, j;
    const char *p = spec;
    unsigned int *vals = v;

    if ( spec == NULL || *spec == '\0' )
        spec = p = "10:20";
    /* Count the values first: a full matrix needs N*N. */
    for ( i = 1, p = spec; *p; p++ )
        i += *p == ':';
    if ( i == t->nr_nodes * t->nr_nodes && i > 2 )
        vals = calloc(i, sizeof(*vals));
    else if ( i > 2 )
        goto bad;
    if ( vals == NULL )
        goto bad;
    for ( p = spec;; )
    {
        unsigned long x;
        char *end;

        if ( !isdigit((unsigned char)*p) )
            goto bad_free;
        x = strtoul(p, &end, 10);
        if ( x < 1 || x > 254 )
            goto bad_free;
        vals[n++] = (unsigned int)x;
        p = end;
        if ( *p == '\0' )
            break;
        if ( *p++ != ':' )
            goto bad_free;
    }
    for ( i = 0; i < t->nr_nodes; i++ )
        for ( j = 0; j < t->nr_nodes; j++ )
        {
            if ( n == 1 )
                t->distance[i][j] = i == j ? vals[0] : HV_REMOTE_DIST;
            else if ( n == 2 )
                t->distance[i][j] = i == j ? vals[0] : vals[1];
            else
                t->distance[i][j] = vals[i * t->nr_nodes + j];
        }
    for ( i = 0; i < t->nr_nodes; i++ )
        for ( j = 0; j < t->nr_nodes; j++ )
            if ( i != j && t->distance[i][j] < t->distance[i][i] )
                goto bad_free;
    if ( vals != v )
        free(vals);
    return 0;

bad_free:
    if ( vals != v )
        free(vals);
bad:
    snprintf(err, len,
             "bad distance '%s' (want LOCAL:REMOTE such as 10:21, or %u "
             "values row-major joined by ':'; remote >= local)",
             spec, t->nr_nodes * t->nr_nodes);
    return -EINVAL;
}

#ifdef HV_HAVE_LIBNUMA
/* The host's nodes, if it has several.  1 if used, 0 if not. */
static int host_topology(struct hv_topology *t, uint64_t bytes)
{
    int n, i, k = 0, nr_mem = 0;

    if ( numa_available() < 0 || (n = numa_num_configured_nodes()) < 2 )
        return 0;
    for ( i = 0; i <= numa_max_node() && k < HV_MAX_NUMNODES; i++ )
    {
        long long free_b;

        if ( numa_node_size64(i, &free_b) < 0 )
            continue;
        t->host_node[k++] = i;
    }
    t->nr_nodes = (unsigned int)k;
    for ( i = 0; i < k; i++ )
        nr_mem += numa_node_size64(t->host_node[i], NULL) > 0;
    for ( i = 0; i < k; i++ )
    {
        struct bitmask *cpus = numa_allocate_cpumask();

        t->node_pages[i] = numa_node_size64(t->host_node[i], NULL) > 0 && nr_mem
                               ? (bytes / (uint64_t)nr_mem) >> HV_PAGE_SHIFT
                               : 0;
        t->node_has_cpus[i] = cpus != NULL &&
                              numa_node_to_cpus(t->host_node[i], cpus) == 0 &&
                              numa_bitmask_weight(cpus) > 0;
        if ( cpus )
            numa_free_cpumask(cpus);
    }
    t->real = true;
    return 1;
}
#else
static int host_topology(struct hv_topology *t, uint64_t bytes)
{
    return 0;
}
#endif

/* Emulated: model CPUs in equal blocks over the nodes that have CPUs. */
static void map_cpus_emulated(struct hv_topology *t)
{
    unsigned int nodes[HV_MAX_NUMNODES], n = 0, i;

    for ( i = 0; i < t->nr_nodes; i++ )
        if ( t->node_has_cpus[i] )
            nodes[n++] = i;
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        t->cpu_to_node[i] = n ? nodes[(uint64_t)i * n / t->nr_cpus] : 0;
        t->cpu_to_host_cpu[i] = -1;
    }
}

#ifdef HV_HAVE_LIBNUMA
/* Real: model CPU i runs on the i-th host CPU (mod the host's CPUs). */
static void map_cpus_real(struct hv_topology *t)
{
    int ncpu = numa_num_configured_cpus(), i;
    unsigned int k;

    for ( i = 0; i < (int)t->nr_cpus; i++ )
    {
        int host = ncpu > 0 ? i % ncpu : 0, hn = numa_node_of_cpu(host);

        t->cpu_to_host_cpu[i] = host;
        t->cpu_to_node[i] = 0;
        for ( k = 0; k < t->nr_nodes; k++ )
            if ( t->host_node[k] == hn )
                t->cpu_to_node[i] = k;
    }
}
#else
static void map_cpus_real(struct hv_topology *t)
{
    map_cpus_emulated(t);
}
#endif

int hv_topology_parse(struct hv_topology *t, const char *spec,
                      const char *distance, uint64_t host_bytes,
                      unsigned int nr_cpus, char *err, size_t len)
{
    unsigned int i;
    int rc;

    memset(t, 0, sizeof(*t));
    t->nr_cpus = nr_cpus;
    if ( nr_cpus == 0 || nr_cpus > HV_ARRAY_SIZE(t->cpu_to_node) )
    {
        snprintf(err, len, "bad number of CPUs for the topology");
        return -EINVAL;
    }
    if ( host_bytes == 0 )
        host_bytes = 256ull << 20;
    if ( spec == NULL || strcmp(spec, "host") == 0 )
    {
        if ( host_topology(t, host_bytes) == 0 )
        {
            t->nr_nodes = 1;
            t->node_pages[0] = host_bytes >> HV_PAGE_SHIFT;
            t->node_has_cpus[0] = true;
            t->host_node[0] = -1;
        }
    }
    else if ( (rc = parse_emulated(t, spec, err, len)) != 0 )
        return rc;
    rc = parse_distance(t, distance, err, len);
    if ( rc )
        return rc;
    for ( i = 0; i < t->nr_nodes && !t->node_has_cpus[i]; i++ )
        ;
    if ( i == t->nr_nodes )
    {
        snprintf(err, len, "topology '%s' has no node with CPUs",
                 spec ? spec : "host");
        return -EINVAL;
    }
    {
        uint64_t total = 0;

        for ( i = 0; i < t->nr_nodes; i++ )
            total += t->node_pages[i];
        if ( total < 2 || total >= (1ull << 31) )
        {
            snprintf(err, len,
                     "topology '%s': memory must be 8 KiB .. 8 TiB in all",
                     spec ? spec : "host");
            return -EINVAL;
        }
    }
    if ( t->real )
        map_cpus_real(t);
    else
        map_cpus_emulated(t);
    return 0;
}

const struct hv_topology *hv_topology(const struct hv *hv)
{
    return &hv->topo;
}

int hv_node_first_cpu(const struct hv *hv, unsigned int node)
{
    unsigned int i;

    for ( i = 0; i < hv->topo.nr_cpus; i++ )
        if ( hv->topo.cpu_to_node[i] == node )
            return (int)i;
    return -1;
}

unsigned int hv_node_nearest_cpu(const struct hv *hv, unsigned int node)
{
    unsigned int i;
    int cpu;

    for ( i = 0; i < hv->topo.nr_nodes; i++ )
        if ( (cpu = hv_node_first_cpu(hv, (node + i) % hv->topo.nr_nodes)) >=
             0 )
            return (unsigned int)cpu;
    return 0;
}

int hv_domain_set_vcpus(struct hv_domain *d, const unsigned int *cpus,
                        unsigned int nr)
{
    struct hv *hv = d->hv;
    uint64_t mask = 0;
    unsigned int i;

    if ( nr == 0 || nr > HV_MAX_VCPUS )
        return -EINVAL;
    for ( i = 0; i < nr; i++ )
        if ( cpus[i] >= hv->topo.nr_cpus )
            return -EINVAL;
    hv_spin_lock(&hv->heap.lock);
    /*
     * getdomaininfo reads the vCPUs unlocked, as soon as the domain is
     * in the list: the entries first, then their count with release (as
     * Xen publishes d->vcpu[] before the vCPU list's next pointer).
     */
    for ( i = 0; i < nr; i++ )
    {
        __atomic_store_n(&d->vcpu_processor[i], (uint16_t)cpus[i],
                         __ATOMIC_RELAXED);
        mask |= 1ull << hv->topo.cpu_to_node[cpus[i]];
    }
    __atomic_store_n(&d->nr_vcpus, nr, __ATOMIC_RELEASE);
    d->node_affinity = mask;
    /* Start the round robin on the first vCPU's node. */
    d->last_alloc_node = hv->topo.cpu_to_node[cpus[0]];
    hv_spin_unlock(&hv->heap.lock);
    return 0;
}

int hv_topology_pin_cpu(const struct hv *hv, unsigned int cpu)
{
    cpu_set_t set;

    if ( !hv->topo.real || cpu >= hv->topo.nr_cpus ||
         hv->topo.cpu_to_host_cpu[cpu] < 0 )
        return -ENOTSUP;
    CPU_ZERO(&set);
    CPU_SET(hv->topo.cpu_to_host_cpu[cpu], &set);
    return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}
