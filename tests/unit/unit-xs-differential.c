/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit-xs-differential [SEEDS [OPS]]: the model's xenstore under every
 * quota plugin against the naive reference store (tests/common/xs-ref.c),
 * in lockstep over one seeded stream of random requests per seed
 * (default 100 seeds x 10,000 requests).
 *
 * Compared after every request: the errno, the answer (length and bytes:
 * values, children lists, perms text), the tid of a transaction start,
 * and every domain's quota count.  Every 500 requests and at the end:
 * the whole tree (paths in walk order, values, perms), the commit path
 * counters (fast, coalesce, replay, conflicts), open transactions, and
 * the model's own check (quota == recount, children maps in order).
 *
 * The stream: 5 domains (dom0 and 1..4) writing, reading, listing,
 * removing and chmod-ing under their homes, /vm and /, absolute and
 * relative; transactions (up to 3 per domain at once) with commits that
 * take each of the three paths; domain releases; and a share of bad
 * input: invalid paths, over-long paths, values and answers, bad perms,
 * unknown or foreign tids.  The limits are small (maxent 12, maxsize 64,
 * maxtxn 2, maxops 12) so that every one of them is reached.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"
#include <hv/hv.h>
#include <hv/plugin.h>
#include <hv/xenstore.h>

#include "xs-ref.h"

#define MAX_PLUGINS 8
#define NDOM        5
#define TSLOTS      3

static const char *plugins[MAX_PLUGINS];
static unsigned int nr_plugins, nr_seeds = 100, nr_ops = 10000;

static void config(struct hv_xs_config *xs)
{
    hv_xs_config_init(xs);
    xs->maxent = 12;
    xs->maxsize = 64;
    xs->maxtxn = 2;
    xs->maxops = 12;
}

static struct hv *machine(const char *plugin)
{
    struct hv_config cfg;
    struct hv *hv;

    hv_config_init(&cfg);
    cfg.nr_cpus = 1;
    config(&cfg.xs);
    hv = tl_hv_create_cfg(&cfg, "quota", plugin);
    assert_non_null(hv);
    return hv;
}

/* One random request (or a domain release: op == HV_XS_OP_NR). */
struct gen {
    struct hv_xs_req q;
    char path[HV_XS_ABS_PATH_MAX + 64];
    char value[HV_XS_PAYLOAD_MAX + 16];
    struct hv_xs_perm perms[4];
    size_t cap;
    bool release;
};

static void gen_path(uint64_t *s, struct gen *g, domid_t caller)
{
    static const char *const names[] = {"a", "b", "c"};
    unsigned int depth = 1 + tl_rand(s) % 3, i, r = tl_rand(s) % 40;
    size_t off = 0;

    switch ( r )
    {
    case 0:
        strcpy(g->path, "/");
        return;
    case 1:
        strcpy(g->path, tl_rand(s) % 2 ? "/a//b" : "/a/");
        return;
    case 2:
        strcpy(g->path, tl_rand(s) % 2 ? "a b" : "");
        return;
    case 3:
        memset(g->path, 'x', HV_XS_ABS_PATH_MAX + 1);
        g->path[0] = tl_rand(s) % 2 ? '/' : 'x';
        g->path[tl_rand(s) % 2 ? HV_XS_ABS_PATH_MAX + 1
                               : HV_XS_REL_PATH_MAX + 1] = '\0';
        return;
    }
    if ( r < 20 )
        off = snprintf(
            g->path, sizeof(g->path), "/local/domain/%u",
            (unsigned int)(tl_rand(s) % 2 ? caller : tl_rand(s) % NDOM));
    else if ( r < 26 )
        off = snprintf(g->path, sizeof(g->path), "/vm");
    else if ( r < 29 )
        off = 0; /* from the root */
    for ( i = 0; i < depth; i++ )
        off += snprintf(g->path + off, sizeof(g->path) - off, "%s%s",
                        off || r < 29 ? "/" : "", names[tl_rand(s) % 3]);
}

/*
 * The request mix, in draws out of MIX_DRAWS.  What the rows leave (6 in
 * 24) are reads; on the first of those draws, one time in 8, the caller's
 * domain (never dom0) is also released.  Same draws, same sequence: a seed
 * names the same run as before the mix was a table.
 */
#define MIX_DRAWS 24
static const struct {
    enum hv_xs_op op;
    unsigned int draws;
} mix[] = {
    {HV_XS_WRITE, 4},     {HV_XS_MKDIR, 2},     {HV_XS_RM, 2},
    {HV_XS_SET_PERMS, 2}, {HV_XS_DIRECTORY, 3}, {HV_XS_GET_PERMS, 1},
    {HV_XS_TXN_START, 2}, {HV_XS_TXN_END, 2},
};

static void gen(uint64_t *s, uint32_t tids[NDOM][TSLOTS], struct gen *g)
{
    domid_t caller = tl_rand(s) % NDOM;
    unsigned int slot = tl_rand(s) % TSLOTS, i, r;

    memset(&g->q, 0, sizeof(g->q));
    g->release = false;
    g->q.caller = caller;
    g->q.path = g->path;
    g->cap = tl_rand(s) % 16 ? HV_XS_PAYLOAD_MAX : tl_rand(s) % 8;
    gen_path(s, g, caller);
    r = tl_rand(s) % 8;
    g->q.tid = r < 3    ? tids[caller][slot]
               : r == 3 ? (uint32_t)(tl_rand(s) % 8)
                        : 0;
    /* Draw from mix; past its rows, a read (the first of those may release). */
    r = tl_rand(s) % MIX_DRAWS;
    for ( i = 0; i < HV_ARRAY_SIZE(mix) && r >= mix[i].draws; i++ )
        r -= mix[i].draws;
    g->q.op = i < HV_ARRAY_SIZE(mix) ? mix[i].op : HV_XS_READ;
    switch ( g->q.op )
    {
    case HV_XS_WRITE:
        g->q.value = g->value;
        r = tl_rand(s) % 32;
        g->q.value_len = r == 0 ? 65 + tl_rand(s) % 2 : r == 1 ? 4090 : r % 6;
        memset(g->value, 'v', g->q.value_len);
        g->value[0] = 'a' + tl_rand(s) % 3;
        break;
    case HV_XS_SET_PERMS:
        g->q.perms = g->perms;
        g->q.nr_perms = 1 + tl_rand(s) % 3;
        for ( i = 0; i < 4; i++ )
            g->perms[i] = (struct hv_xs_perm){i == 0 && caller && tl_rand(s) % 4
                                                  ? caller
                                                  : tl_rand(s) % (NDOM + 1),
                                              tl_rand(s) % 4};
        if ( tl_rand(s) % 64 == 0 )
            g->perms[tl_rand(s) % 3].perm = 4; /* invalid */
        if ( tl_rand(s) % 64 == 0 )
            g->perms[tl_rand(s) % 3].id = DOMID_FIRST_RESERVED;
        break;
    case HV_XS_TXN_START:
        g->q.tid = tl_rand(s) % 16 ? 0 : 1;
        break;
    case HV_XS_TXN_END:
        g->q.tid = tl_rand(s) % 16 ? tids[caller][slot]
                                   : tids[(caller + 1) % NDOM][slot];
        g->q.commit = tl_rand(s) % 5 != 0;
        break;
    case HV_XS_READ:
        if ( r == 0 )
            g->release = tl_rand(s) % 8 == 0 && caller != 0;
        break;
    default:
        break; /* the path is all it takes */
    }
}

struct dump {
    char *buf;
    size_t len, cap;
};

static void dump_fn(const char *path, const char *value, size_t vlen,
                    const struct hv_xs_perm *perms, unsigned int np, void *arg)
{
    struct dump *d = arg;
    char tmp[256];
    size_t need, l;
    unsigned int i;

    need = strlen(path) + vlen + 16 + np * 8;
    if ( d->len + need > d->cap )
    {
        d->cap = (d->len + need) * 2;
        d->buf = realloc(d->buf, d->cap);
        assert_non_null(d->buf);
    }
    d->len += sprintf(d->buf + d->len, "%s=", path);
    memcpy(d->buf + d->len, value, vlen);
    d->len += vlen;
    for ( i = 0; i < np; i++ )
    {
        l = snprintf(tmp, sizeof(tmp), " %u:%u", perms[i].id, perms[i].perm);
        memcpy(d->buf + d->len, tmp, l);
        d->len += l;
    }
    d->buf[d->len++] = '\n';
}

static void compare_all(struct hv *hv, const char *plugin, struct xs_ref *ref,
                        unsigned int seed, unsigned int step)
{
    struct dump a = {NULL, 0, 0}, b = {NULL, 0, 0};
    struct hv_xs_stats sa, sb;
    char err[256];

    hv_xs_walk(hv_xs(hv), dump_fn, &a);
    xs_ref_walk(ref, dump_fn, &b);
    if ( a.len != b.len || memcmp(a.buf, b.buf, a.len) )
        fail_msg("seed %u step %u %s: trees differ\nmodel:\n%.*s\nref:\n%.*s",
                 seed, step, plugin, (int)a.len, a.buf, (int)b.len, b.buf);
    free(a.buf);
    free(b.buf);
    hv_xs_get_stats(hv_xs(hv), &sa);
    xs_ref_stats(ref, &sb);
    if ( sa.nodes != sb.nodes || sa.commits_fast != sb.commits_fast ||
         sa.commits_coalesce != sb.commits_coalesce ||
         sa.commits_replay != sb.commits_replay ||
         sa.conflicts != sb.conflicts || sa.open_txns != sb.open_txns )
        fail_msg("seed %u step %u %s: stats: nodes %lu/%lu fast %lu/%lu "
                 "coalesce %lu/%lu replay %lu/%lu conflicts %lu/%lu "
                 "open %u/%u",
                 seed, step, plugin, (unsigned long)sa.nodes,
                 (unsigned long)sb.nodes, (unsigned long)sa.commits_fast,
                 (unsigned long)sb.commits_fast,
                 (unsigned long)sa.commits_coalesce,
                 (unsigned long)sb.commits_coalesce,
                 (unsigned long)sa.commits_replay,
                 (unsigned long)sb.commits_replay, (unsigned long)sa.conflicts,
                 (unsigned long)sb.conflicts, sa.open_txns, sb.open_txns);
    if ( hv_xs_check(hv_xs(hv), err, sizeof(err)) )
        fail_msg("seed %u step %u %s: %s", seed, step, plugin, err);
}

/* Totals over the run: evidence that every path was taken. */
static unsigned long errs[5], paths[4];

static void tally(int rc)
{
    errs[rc == -HV_XS_EQUOTA ? 0
         : rc == -EACCES     ? 1
         : rc == -E2BIG      ? 2
         : rc == -EAGAIN     ? 3
                             : 4]++;
}

/* @g on the reference and every model, compared; the reference's rc. */
static int step_all(struct hv **hv, struct xs_ref *ref, struct gen *g,
                    unsigned int seed, unsigned int step, uint32_t *tid)
{
    char want[HV_XS_PAYLOAD_MAX], got[HV_XS_PAYLOAD_MAX];
    struct hv_xs_rsp rr = {.buf = want, .cap = g->cap};
    unsigned int i;
    domid_t d;
    int rc;

    if ( g->release )
        rc = xs_ref_domain_release(ref, g->q.caller);
    else
        rc = xs_ref_request(ref, &g->q, &rr);
    tally(rc);
    for ( i = 0; i < nr_plugins; i++ )
    {
        struct hv_xs_rsp r = {.buf = got, .cap = g->cap};
        int rc2 = g->release ? hv_xs_domain_release(hv_xs(hv[i]), g->q.caller)
                             : hv_xs_request(hv_xs(hv[i]), &g->q, &r);

        if ( rc2 != rc )
            fail_msg("seed %u step %u %s: op %d caller %u tid %u path "
                     "%.64s: model %d, ref %d",
                     seed, step, plugins[i], g->release ? -1 : (int)g->q.op,
                     g->q.caller, g->q.tid, g->path, rc2, rc);
        if ( !g->release && rc == 0 &&
             (r.len != rr.len || r.tid != rr.tid || memcmp(got, want, rr.len)) )
            fail_msg("seed %u step %u %s: op %d path %.64s: answers "
                     "differ (len %zu/%zu tid %u/%u)",
                     seed, step, plugins[i], (int)g->q.op, g->path, r.len,
                     rr.len, r.tid, rr.tid);
        for ( d = 0; d < NDOM; d++ )
            if ( hv_xs_quota(hv_xs(hv[i]), d) != xs_ref_quota(ref, d) )
                fail_msg("seed %u step %u %s: quota of dom%u %d, ref %d", seed,
                         step, plugins[i], d, hv_xs_quota(hv_xs(hv[i]), d),
                         xs_ref_quota(ref, d));
    }
    *tid = rr.tid;
    return rc;
}

/* Homes: /local/domain/<d> owned by d, as the toolstack makes them. */
static void homes(struct hv **hv, struct xs_ref *ref, unsigned int seed)
{
    struct gen g;
    uint32_t tid;
    domid_t d;

    memset(&g, 0, sizeof(g));
    g.cap = HV_XS_PAYLOAD_MAX;
    g.q.path = g.path;
    g.q.perms = g.perms;
    g.q.nr_perms = 1;
    for ( d = 1; d < NDOM; d++ )
    {
        snprintf(g.path, sizeof(g.path), "/local/domain/%u", d);
        g.q.op = HV_XS_MKDIR;
        assert_int_equal(step_all(hv, ref, &g, seed, 0, &tid), 0);
        g.perms[0] = (struct hv_xs_perm){d, HV_XS_PERM_NONE};
        g.q.op = HV_XS_SET_PERMS;
        assert_int_equal(step_all(hv, ref, &g, seed, 0, &tid), 0);
    }
}

static void run_seed(unsigned int seed)
{
    struct hv *hv[MAX_PLUGINS];
    struct xs_ref *ref;
    struct hv_xs_config cfg;
    struct hv_xs_stats st;
    uint32_t tids[NDOM][TSLOTS] = {{0}}, tid;
    uint64_t s = 0x9E3779B97F4A7C15ull * seed + 1;
    unsigned int i, step;
    struct gen g;
    int rc;

    config(&cfg);
    ref = xs_ref_create(&cfg);
    for ( i = 0; i < nr_plugins; i++ )
        hv[i] = machine(plugins[i]);
    homes(hv, ref, seed);
    for ( step = 0; step < nr_ops; step++ )
    {
        gen(&s, tids, &g);
        rc = step_all(hv, ref, &g, seed, step, &tid);
        if ( !g.release && g.q.op == HV_XS_TXN_START && rc == 0 )
        {
            /* keep it in a free slot, or forget an old one (left open) */
            for ( i = 0; i < TSLOTS - 1 && tids[g.q.caller][i]; i++ )
                ;
            tids[g.q.caller][i] = tid;
        }
        if ( !g.release && g.q.op == HV_XS_TXN_END )
            for ( i = 0; i < TSLOTS; i++ )
                if ( tids[g.q.caller][i] == g.q.tid )
                    tids[g.q.caller][i] = 0;
        if ( g.release )
        {
            memset(tids[g.q.caller], 0, sizeof(tids[g.q.caller]));
            homes(hv, ref, seed); /* the domid comes back */
        }
        if ( step % 500 == 499 || step + 1 == nr_ops )
            for ( i = 0; i < nr_plugins; i++ )
                compare_all(hv[i], plugins[i], ref, seed, step);
    }
    xs_ref_stats(ref, &st);
    paths[0] += st.commits_fast;
    paths[1] += st.commits_coalesce;
    paths[2] += st.commits_replay;
    paths[3] += st.conflicts;
    for ( i = 0; i < nr_plugins; i++ )
        hv_destroy(hv[i]);
    xs_ref_destroy(ref);
}

static void test_differential(void **state)
{
    unsigned int seed;

    for ( seed = 1; seed <= nr_seeds; seed++ )
        run_seed(seed);
    printf("%u seeds x %u requests, %u plugins: EQUOTA %lu EACCES %lu "
           "E2BIG %lu EAGAIN %lu other %lu; commits fast %lu coalesce %lu "
           "replay %lu conflicts %lu\n",
           nr_seeds, nr_ops, nr_plugins, errs[0], errs[1], errs[2], errs[3],
           errs[4], paths[0], paths[1], paths[2], paths[3]);
    /* every limit and every commit path was exercised */
    assert_true(errs[0] && errs[1] && errs[2]);
    assert_true(paths[0] && paths[1] && paths[2] && paths[3]);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_differential),
    };
    const struct hv_plugin_hdr *h;
    unsigned int i;

    if ( argc > 1 )
        nr_seeds = strtoul(argv[1], NULL, 0);
    if ( argc > 2 )
        nr_ops = strtoul(argv[2], NULL, 0);
    if ( !tl_registry_init("unit-xs-differential") )
        return 1;
    for ( i = 0; (h = hv_plugin_at(i)) != NULL; i++ )
        if ( strcmp(h->slot, "quota") == 0 && !(h->flags & HV_PF_TEST_ONLY) &&
             nr_plugins < MAX_PLUGINS )
            plugins[nr_plugins++] = h->name;
    return cmocka_run_group_tests_name("xs-differential", tests, NULL, NULL);
}
