/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run matrix: a workload crossed with the plugin specs of each slot
 * it exercises, the values of each parameter and the thread counts.  One
 * point is a cell; cells that differ only in their plugins form a group,
 * and the first plugin combination of a group (variant 0) is the one the
 * others are compared with.
 *
 * Order: parameter combinations, then thread counts, then plugin
 * combinations, each in the order given on the command line; so the
 * members of a group are adjacent.
 *
 * Names: "WORKLOAD/slot=plugin[:opt=v...]/.../param=value/.../threads:N"
 * with every slot the workload exercises (defaults included, the options
 * the user gave, canonical values in table order) and the parameters the
 * user gave (canonical values); the full plugin set and every parameter
 * are in the results.
 */
#ifndef HVB_MATRIX_H
#define HVB_MATRIX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hv/plugin.h>
#include <hv/plugin_registry.h>
#include <hvb/affinity.h>
#include <hvb/counters.h>
#include <hvb/params.h>
#include <hvb/workload.h>

#define HVB_MAX_CELLS 256 /* every cell's model is alive for the run */

struct hvb_slot_axis {
    const char *slot; /* from the workload's slot list */
    bool user;        /* named with --plugin */
    size_t nr;
    struct hv_plugin_inst *insts; /* resolved */
    char **labels;                /* name part: "percpu-ref:ncpus=2" */
};

struct hvb_param_axis {
    const struct hv_opt *p;
    bool user; /* given with --param */
    size_t nr;
    struct hv_opt_val *vals;
};

struct hvb_matrix;

/* Run-time state of one cell, kept across its runs. */
struct hvb_cell_rt {
    pthread_mutex_t lock; /* prepare, flags */
    bool prepare_called;  /* cleanup() is owed */
    bool prepare_failed;
    char prepare_error[320];
    _Atomic uint64_t thread_runs; /* seeds: one per thread and run */
    struct hvb_ctr_table flags;   /* counter name -> flags, first wins */
    struct hvb_ctr_table report;  /* hvb_counter_set() inside report() */
    _Atomic bool in_report;       /* thread 0 is inside report() */
    _Atomic bool warned_flags;
    _Atomic bool warned_dropped;
    _Atomic bool warned_affinity;
    _Atomic bool warned_set;
};

/* Defined in harness/run/runner.c, the state's one user. */
int hvb_cell_rt_init(struct hvb_cell_rt *rt);
void hvb_cell_rt_fini(struct hvb_cell_rt *rt);

/* One cell.  The workload sees only .cell. */
struct hvb_mcell {
    struct hvb_cell cell;
    struct hvb_matrix *m;
    size_t index;
    size_t group;
    size_t variant;    /* plugin combination; 0 = reference */
    size_t *slot_sel;  /* per slot axis: index into insts */
    size_t *param_sel; /* per param axis: index into vals */
    char *name;
    char *group_name; /* the name without the plugin parts */
    void *params;     /* the workload's param struct (cell.params) */

    /* Index in the whole matrix (--shard: hvb/shard.h). */
    size_t full_index;
    struct hvb_cell_rt rt;
    bool rt_ready;
};

struct hvb_matrix {
    const struct hvb_workload *w;
    struct hvb_slot_axis *slots;
    size_t nr_slots;
    struct hvb_param_axis *params; /* one per workload parameter */
    size_t nr_params;
    unsigned int *threads;
    size_t nr_threads;
    struct hvb_mcell *cells;
    size_t nr_cells;
    size_t nr_groups;
    size_t nr_variants;
    uint64_t seed;
    enum hvb_affinity affinity;
    /* --shard K/N (hvb/shard.h): 0/0 for the whole matrix. */
    unsigned int shard_k, shard_n;
    size_t full_cells, full_groups;
};

struct hvb_matrix_spec {
    const struct hvb_workload *w;
    const char *const *plugin_args; /* "SLOT=SPEC[,SPEC...]" */
    size_t nr_plugin_args;
    const char *const *param_args; /* "KEY=VALUE[,VALUE...]" */
    size_t nr_param_args;
    const unsigned int *threads; /* at least one */
    size_t nr_threads;
    bool allow_test_only; /* resolve HV_PF_TEST_ONLY plugins */
    uint64_t seed;
    enum hvb_affinity affinity; /* placement of measured threads */

    /* --cell NAME[,NAME...]: only these cells (NULL: every cell). */
    const char *cells;
    /* --shard K/N (0/0: every cell) and --shard-costs FILE (or NULL). */
    unsigned int shard_k, shard_n;
    const char *shard_costs;
    /*
     * Keeps shard K of N of the built matrix before its models exist:
     * hvb_shard_select (the cli room: it reads the costs file, a results
     * document, which the run room cannot).  Required when shard_n > 0.
     */
    int (*shard_select)(struct hvb_matrix *m, unsigned int k, unsigned int n,
                        const char *costs_path, char *err, size_t len);
};

/*
 * hvb_matrix_build - expand @spec into cells (nothing is created yet).
 * Return 0; -EINVAL with @err for a usage or input error (unknown slot,
 * plugin, option, parameter, bad value, duplicate, too many cells); any
 * other -errno with @err for a failure.
 */
int hvb_matrix_build(const struct hvb_matrix_spec *spec,
                     struct hvb_matrix **out, char *err, size_t len);

/*
 * hvb_matrix_check - run the workload's check() on every cell, before
 * anything is built, then hold what the cells need (the workload's
 * mem_need(), summed) against MemAvailable.  -EINVAL (input error) or
 * another -errno, with @err naming the cell.
 */
int hvb_matrix_check(struct hvb_matrix *m, char *err, size_t len);

/*
 * hvb_matrix_create_models - create every cell's struct hv from its
 * plugin set.  -EINVAL for a configuration the model rejects, another
 * -errno for a failure; @err names the cell.
 */
int hvb_matrix_create_models(struct hvb_matrix *m, char *err, size_t len);

/* cleanup() every prepared cell, destroy the models, free everything. */
void hvb_matrix_free(struct hvb_matrix *m);

/*
 * hvb_matrix_compact - keep the cells i of @m (built, models not yet
 * created) where @keep[i], numbered as a run of them alone numbers them
 * (index, group, variant from 0: the first kept of a group is its
 * reference); full_index says where each was (matrix_select.c).
 */
void hvb_matrix_compact(struct hvb_matrix *m, const bool *keep);

/*
 * hvb_matrix_select_cells - keep the cells named in @list ("NAME[,NAME
 * ...]", as run prints them).  0; -EINVAL with @err naming one that is
 * no cell of @m; -ENOMEM.
 */
int hvb_matrix_select_cells(struct hvb_matrix *m, const char *list, char *err,
                            size_t len);

/* Is @name one of the comma-separated names of @list (NULL: none)? */
bool hvb_matrix_listed(const char *list, const char *name);

/* The cell of a struct hvb_cell handed to a workload. */
static inline struct hvb_mcell *hvb_mcell_of(const struct hvb_cell *c)
{
    return container_of(c, struct hvb_mcell, cell);
}

/* The resolved plugin of axis @i in cell @mc. */
static inline const struct hv_plugin_inst *
hvb_mcell_plugin(const struct hvb_mcell *mc, size_t i)
{
    return &mc->m->slots[i].insts[mc->slot_sel[i]];
}

/* The value of parameter axis @i in cell @mc. */
static inline const struct hv_opt_val *
hvb_mcell_param(const struct hvb_mcell *mc, size_t i)
{
    return &mc->m->params[i].vals[mc->param_sel[i]];
}

#endif /* HVB_MATRIX_H */
