/* SPDX-License-Identifier: GPL-2.0-only */
/* Thread placement; see hvb/affinity.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <hvb/affinity.h>

/* The set the process started with, read once. */
static cpu_set_t allowed;
static unsigned int nr_allowed;
static pthread_once_t allowed_once = PTHREAD_ONCE_INIT;

static void read_allowed(void)
{
    if ( sched_getaffinity(0, sizeof(allowed), &allowed) != 0 )
    {
        CPU_ZERO(&allowed);
        CPU_SET(0, &allowed);
    }
    nr_allowed = (unsigned int)CPU_COUNT(&allowed);
}

bool hvb_affinity_parse(const char *s, enum hvb_affinity *out)
{
    if ( strcmp(s, "spread") == 0 )
        *out = HVB_AFFINITY_SPREAD;
    else if ( strcmp(s, "none") == 0 )
        *out = HVB_AFFINITY_NONE;
    else
        return false;
    return true;
}

const char *hvb_affinity_name(enum hvb_affinity a)
{
    return a == HVB_AFFINITY_SPREAD ? "spread" : "none";
}

/* CPUs the process may run on (at least 1). */
static unsigned int hvb_affinity_cpus(void)
{
    pthread_once(&allowed_once, read_allowed);
    return nr_allowed ? nr_allowed : 1;
}

int hvb_affinity_apply(enum hvb_affinity a, unsigned int index,
                       unsigned int nthreads)
{
    unsigned int want, cpu, seen = 0;
    cpu_set_t one;

    if ( a == HVB_AFFINITY_NONE || nthreads < 2 )
        return 0;
    want = index % hvb_affinity_cpus();
    for ( cpu = 0; cpu < CPU_SETSIZE; cpu++ )
    {
        if ( !CPU_ISSET(cpu, &allowed) )
            continue;
        if ( seen++ == want )
        {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            return -pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
        }
    }
    return -ESRCH;
}
