/* SPDX-License-Identifier: GPL-2.0-only */
/* The environment ledger; see hvb/env.h. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hv/hypercall.h>
#include <hvb/env.h>

/* The first line of @path without its newline, or NULL. */
static json_t *first_line(const char *path)
{
    char buf[256];
    FILE *f = fopen(path, "r");

    if ( f == NULL )
        return json_null();
    if ( fgets(buf, sizeof(buf), f) == NULL )
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return json_string(buf);
}

/*
 * The value of the first "@key : value" line of /proc/cpuinfo into @out;
 * false if there is none.
 */
static bool cpuinfo(const char *key, char *out, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    size_t klen = strlen(key);
    char line[8192], *v;
    bool found = false;

    if ( f == NULL )
        return false;
    while ( !found && fgets(line, sizeof(line), f) )
    {
        if ( strncmp(line, key, klen) != 0 ||
             (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':') ||
             (v = strchr(line, ':')) == NULL )
            continue;
        v += strspn(v + 1, " \t") + 1;
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, len, "%s", v);
        found = true;
    }
    fclose(f);
    return found;
}

static json_t *cpuinfo_json(const char *key)
{
    char v[256];

    return cpuinfo(key, v, sizeof(v)) ? json_string(v) : json_null();
}

static json_t *hypervisor(void)
{
    char flags[8192];

    if ( !cpuinfo("flags", flags, sizeof(flags)) ||
         strstr(flags, "hypervisor") == NULL )
        return json_string("none");
    if ( access("/sys/hypervisor/type", R_OK) == 0 )
        return first_line("/sys/hypervisor/type");
    if ( access("/sys/class/dmi/id/sys_vendor", R_OK) == 0 )
        return first_line("/sys/class/dmi/id/sys_vendor");
    return json_string("yes (cpuinfo 'hypervisor' flag; vendor unknown)");
}

/* Total steal time (USER_HZ ticks) of all CPUs, or -1. */
static long long steal_ticks(void)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    int n;

    if ( f == NULL )
        return -1;
    n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
               &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    return n == 8 ? (long long)v[7] : -1;
}

static json_t *loadavg(void)
{
    double l[3];
    json_t *a = json_array();

    if ( getloadavg(l, 3) == 3 )
        for ( int i = 0; i < 3; i++ )
            json_array_append_new(a, json_real(l[i]));
    return a;
}

json_t *hvb_env_boundary_costs(void)
{
    json_t *o = json_object();
    unsigned int b;

    for ( b = 0; b < HV_BOUNDARY_NR; b++ )
    {
        json_t *e = json_object();
        char err[256] = "";
        double ns;

        if ( hv_boundary_measure(b, &ns, err, sizeof(err)) == 0 )
            json_object_set_new(e, "crossing_ns", json_real(ns));
        else
            json_object_set_new(e, "error", json_string(err));
        json_object_set_new(o, hv_boundary_name(b), e);
    }
    return o;
}

/* The NUMA nodes the kernel shows (node0, node1, ...), or null. */
static json_t *numa_nodes(void)
{
    DIR *d = opendir("/sys/devices/system/node");
    struct dirent *de;
    long long n = 0;

    if ( d == NULL )
        return json_null();
    while ( (de = readdir(d)) != NULL )
        if ( strncmp(de->d_name, "node", 4) == 0 && de->d_name[4] >= '0' &&
             de->d_name[4] <= '9' )
            n++;
    closedir(d);
    return n ? json_integer(n) : json_null();
}

json_t *hvb_env_before(void)
{
    json_t *e = json_object();
    struct utsname u;
    long long st = steal_ticks();

    if ( uname(&u) == 0 )
    {
        char k[400];

        snprintf(k, sizeof(k), "%s %s %s", u.sysname, u.release, u.machine);
        json_object_set_new(e, "kernel", json_string(k));
    }
    json_object_set_new(
        e, "clocksource",
        first_line(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource"));
    json_object_set_new(e, "cpu_model", cpuinfo_json("model name"));
    json_object_set_new(e, "microcode", cpuinfo_json("microcode"));
    json_object_set_new(e, "hypervisor", hypervisor());
    json_object_set_new(e, "vcpus_online",
                        json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_set_new(e, "numa_nodes", numa_nodes());
    json_object_set_new(
        e, "governor",
        access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", R_OK)
            ? json_string("none (no cpufreq)")
            : first_line(
                  "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
    json_object_set_new(e, "aslr",
                        first_line("/proc/sys/kernel/randomize_va_space"));
    json_object_set_new(e, "perf_event_paranoid",
                        first_line("/proc/sys/kernel/perf_event_paranoid"));
    json_object_set_new(e, "hypercall_boundary", hvb_env_boundary_costs());
    json_object_set_new(e, "load_avg_before", loadavg());
    json_object_set_new(e, "steal_ticks_before",
                        st < 0 ? json_null() : json_integer(st));
    return e;
}

void hvb_env_after(json_t *e)
{
    long long st = steal_ticks();

    json_object_set_new(e, "load_avg_after", loadavg());
    json_object_set_new(e, "steal_ticks_after",
                        st < 0 ? json_null() : json_integer(st));
}
