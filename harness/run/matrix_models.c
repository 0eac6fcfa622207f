/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cells of a built matrix made real (hvb/matrix.h): the workload's
 * check() of each cell and the memory they need together, then each
 * cell's model from its plugin set.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hv/hv.h>
#include <hvb/matrix.h>

/* MemAvailable of /proc/meminfo in bytes; 0 if unknown. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    char line[128];

    if ( f == NULL )
        return 0;
    while ( fgets(line, sizeof(line), f) != NULL )
        if ( sscanf(line, "MemAvailable: %llu kB", &kb) == 1 )
            break;
    fclose(f);
    return (uint64_t)kb << 10;
}

#define GIB(b) ((double)(b) / (double)(1ull << 30))

/*
 * Every cell's model and state live from create_models to the end of the
 * run, so the cells' needs add up.  Worked example, on a machine with
 * 20.1 GiB available:
 *
 *   memwrite size_mb=16384   16 GiB written + 48 MiB frame table + slack
 *                            = about 17.1 GiB: runs
 *   memwrite size_mb=32768   about 34.2 GiB: exit 2 "memwrite/...: needs
 *                            about 34.2 GiB of memory; the machine has
 *                            20.1 GiB available (MemAvailable)"
 */
static int check_memory(const struct hvb_matrix *m, char *err, size_t len)
{
    uint64_t avail = mem_available(), need, total = 0, most = 0;
    const struct hvb_mcell *big = NULL;
    size_t i;

    if ( m->w->mem_need == NULL || avail == 0 )
        return 0;
    for ( i = 0; i < m->nr_cells; i++ )
    {
        need = m->w->mem_need(&m->cells[i].cell);
        total = total + need < total ? UINT64_MAX : total + need;
        if ( big == NULL || need > most )
            big = &m->cells[i], most = need;
    }
    if ( most > avail )
        snprintf(err, len,
                 "%s: needs about %.1f GiB of memory; the machine has %.1f "
                 "GiB available (MemAvailable)",
                 big->name, GIB(most), GIB(avail));
    else if ( total > avail )
        snprintf(err, len,
                 "the %zu cells of this run need about %.1f GiB of memory "
                 "together (%s the most, %.1f GiB); the machine has %.1f GiB "
                 "available (MemAvailable): run fewer at once",
                 m->nr_cells, GIB(total), big->name, GIB(most), GIB(avail));
    else
        return 0;
    return -EINVAL;
}

int hvb_matrix_check(struct hvb_matrix *m, char *err, size_t len)
{
    size_t i;
    int rc;

    for ( i = 0; m->w->check != NULL && i < m->nr_cells; i++ )
    {
        struct hvb_mcell *mc = &m->cells[i];

        mc->cell.error[0] = '\0';
        rc = m->w->check(&mc->cell);
        if ( rc == 0 )
            continue;
        snprintf(err, len, "%s: %s", mc->name,
                 mc->cell.error[0] ? mc->cell.error : strerror(-rc));
        return rc < 0 ? rc : -EINVAL;
    }
    return check_memory(m, err, len);
}

static int apply_slot(struct hv_config *cfg, const char *name,
                      const struct hv_plugin_inst *inst)
{
    const struct hv_slot *slot = hv_slot_find(name);

    if ( slot == NULL )
        return -ENOTSUP;
    /* A shallow copy: hv_create() copies it again; the matrix owns it. */
    cfg->plugins[slot->id] = *inst;
    return 0;
}

int hvb_matrix_create_models(struct hvb_matrix *m, char *err, size_t len)
{
    char why[256];
    size_t i, s;
    int rc;

    for ( i = 0; i < m->nr_cells; i++ )
    {
        struct hvb_mcell *mc = &m->cells[i];
        struct hv_config cfg;

        hv_config_init(&cfg);
        if ( cfg.nr_cpus < mc->cell.threads + 1 )
            cfg.nr_cpus = mc->cell.threads + 1;
        for ( s = 0; s < m->nr_slots; s++ )
            if ( apply_slot(&cfg, m->slots[s].slot, hvb_mcell_plugin(mc, s)) )
            {
                snprintf(err, len, "slot %s is not a slot of the model",
                         m->slots[s].slot);
                return -ENOTSUP;
            }
        if ( m->w->configure )
            m->w->configure(&mc->cell, &cfg);
        why[0] = '\0';
        rc = hv_create(&cfg, &mc->cell.hv, why, sizeof(why));
        if ( rc )
        {
            mc->cell.hv = NULL;
            snprintf(err, len, "%s: cannot create the model: %s", mc->name,
                     why[0] ? why : strerror(-rc));
            return rc;
        }
    }
    return 0;
}
