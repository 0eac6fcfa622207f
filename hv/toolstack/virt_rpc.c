/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libvirtd RPC layer (hv/virt_rpc.h): virNetServer's worker pool and
 * the per-client request cap, in-process.
 *
 * Worked example, max_client_requests = 5, one client, 7 callers:
 * calls 1-5 are read at once (in flight 5) and queue for workers; calls
 * 6 and 7 wait in the client's pending list (throttled) until call 1
 * ends: then call 6 is read (in flight 5 again).  With 20 ordinary
 * workers busy, a sixth call of another client waits in the queue
 * (queued) until a worker is free; a priority call goes to one of the 5
 * priority workers instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/lock.h>
#include <hv/thread.h>
#include <hv/trace.h>
#include <hv/virt_rpc.h>

static HV_LOCK_CLASS(server_class, "virNetServer");

struct fifo {
    struct hv_rpc_call *head, **tail;
};

struct hv_rpc_client {
    struct hv_rpc_server *s;
    unsigned int inflight, inflight_max;
    struct fifo pending; /* not read yet: the cap */
};

struct hv_rpc_server {
    struct hv_rpc_config cfg;
    hv_mutex_t lock;
    pthread_cond_t work;      /* ordinary workers: a call, or quit */
    pthread_cond_t prio_work; /* priority workers: a priority call */
    struct fifo normal, prio;
    bool quit;
    pthread_t *threads;
    unsigned int nr_threads;
    /* Statistics, under the lock. */
    unsigned int busy, waiting; /* ordinary workers running / calls queued */
    uint64_t t_last, t_reset;
    struct hv_rpc_stats st;
};

struct worker_arg {
    struct hv_rpc_server *s;
    bool prio;
    unsigned int index;
};

static void fifo_init(struct fifo *f)
{
    f->head = NULL;
    f->tail = &f->head;
}

static void fifo_push(struct fifo *f, struct hv_rpc_call *c)
{
    c->next = NULL;
    *f->tail = c;
    f->tail = &c->next;
}

static struct hv_rpc_call *fifo_pop(struct fifo *f)
{
    struct hv_rpc_call *c = f->head;

    if ( c != NULL && (f->head = c->next) == NULL )
        f->tail = &f->head;
    return c;
}

void hv_rpc_config_init(struct hv_rpc_config *cfg)
{
    cfg->max_workers = 20;
    cfg->prio_workers = 5;
    cfg->max_client_requests = 5;
}

/* Account the busy-worker integral up to now (lock held). */
static void busy_tick(struct hv_rpc_server *s, int delta)
{
    uint64_t now = hv_now_ns();

    s->st.busy_ns += (uint64_t)s->busy * (now - s->t_last);
    s->t_last = now;
    s->busy += delta;
    if ( s->busy > s->st.busy_max )
        s->st.busy_max = s->busy;
}

/* The server reads @c from its client: it joins a worker queue. */
static void dispatch(struct hv_rpc_server *s, struct hv_rpc_call *c)
{
    c->t_read = hv_now_ns();
    c->client->inflight++;
    if ( c->client->inflight > c->client->inflight_max )
        c->client->inflight_max = c->client->inflight;
    if ( !c->prio && s->busy + s->waiting >= s->cfg.max_workers )
        s->st.queued++; /* every ordinary worker is taken */
    s->waiting += !c->prio;
    fifo_push(c->prio ? &s->prio : &s->normal, c);
    /* One wake-up per call, as virThreadPoolSendJob does. */
    pthread_cond_signal(&s->work);
    if ( c->prio )
        pthread_cond_signal(&s->prio_work);
}

/* Ordinary workers take the oldest call; priority ones priority calls. */
static struct hv_rpc_call *take(struct hv_rpc_server *s, bool prio_worker)
{
    struct hv_rpc_call *n = s->normal.head, *p = s->prio.head;

    if ( p != NULL && (prio_worker || n == NULL || p->t_read <= n->t_read) )
        return fifo_pop(&s->prio);
    if ( !prio_worker && n != NULL )
        return fifo_pop(&s->normal);
    return NULL;
}

static void *worker_main(void *arg)
{
    struct worker_arg *wa = arg;
    struct hv_rpc_server *s = wa->s;
    struct hv_rpc_call *c;

    hv_thread_role(wa->prio ? "libvirtd-prio" : "libvirtd-worker");
    hv_trace_name_thread("libvirtd %sworker %u", wa->prio ? "prio " : "",
                         wa->index);
    hv_mutex_lock(&s->lock);
    for ( ;; )
    {
        while ( !s->quit && (c = take(s, wa->prio)) == NULL )
            hv_idle_cond_wait(wa->prio ? &s->prio_work : &s->work, &s->lock);
        if ( s->quit )
            break;
        c->t_start = hv_now_ns();
        s->waiting -= !c->prio;
        s->st.queue_ns += c->t_start - c->t_read;
        if ( !wa->prio )
            busy_tick(s, +1);
        hv_mutex_unlock(&s->lock);

        if ( hv_trace_active() )
            hv_trace_adopt(c->trace_tid);
        c->rc = c->fn(c->arg);
        if ( hv_trace_active() )
            hv_trace_adopt(0);

        hv_mutex_lock(&s->lock);
        if ( !wa->prio )
            busy_tick(s, -1);
        c->t_end = hv_now_ns();
        c->done = true;
        c->client->inflight--;
        {
            struct hv_rpc_call *next = fifo_pop(&c->client->pending);

            if ( next != NULL )
            {
                s->st.throttle_ns += hv_now_ns() - next->t_submit;
                dispatch(s, next);
            }
        }
        pthread_cond_signal(&c->done_cond);
    }
    hv_mutex_unlock(&s->lock);
    free(wa);
    return NULL;
}

static void stop_workers(struct hv_rpc_server *s)
{
    unsigned int i;

    hv_mutex_lock(&s->lock);
    s->quit = true;
    pthread_cond_broadcast(&s->work);
    pthread_cond_broadcast(&s->prio_work);
    hv_mutex_unlock(&s->lock);
    for ( i = 0; i < s->nr_threads; i++ )
        pthread_join(s->threads[i], NULL);
    s->nr_threads = 0;
}

int hv_rpc_server_create(const struct hv_rpc_config *cfg,
                         struct hv_rpc_server **out, char *err, size_t len)
{
    struct hv_rpc_server *s;
    unsigned int i, n;
    int rc = 0;

    *out = NULL;
    if ( cfg->max_workers == 0 || cfg->max_workers > 1024 ||
         cfg->prio_workers > 1024 || cfg->max_client_requests == 0 )
    {
        snprintf(err, len,
                 "RPC: max_workers must be 1..1024, prio_workers 0..1024, "
                 "max_client_requests >= 1");
        return -EINVAL;
    }
    s = calloc(1, sizeof(*s));
    n = cfg->max_workers + cfg->prio_workers;
    if ( s == NULL || (s->threads = calloc(n, sizeof(*s->threads))) == NULL )
    {
        free(s);
        return -ENOMEM;
    }
    s->cfg = *cfg;
    hv_mutex_init(&s->lock, &server_class);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->prio_work, NULL);
    fifo_init(&s->normal);
    fifo_init(&s->prio);
    s->t_last = s->t_reset = hv_now_ns();
    for ( i = 0; i < n && rc == 0; i++ )
    {
        struct worker_arg *wa = malloc(sizeof(*wa));

        if ( wa == NULL )
        {
            rc = -ENOMEM;
            break;
        }
        wa->s = s;
        wa->prio = i >= cfg->max_workers;
        wa->index = i;
        rc = -pthread_create(&s->threads[i], NULL, worker_main, wa);
        if ( rc )
            free(wa);
        else
            s->nr_threads++;
    }
    if ( rc )
    {
        snprintf(err, len, "RPC: cannot start worker %u: %s", i, strerror(-rc));
        hv_rpc_server_destroy(s);
        return rc;
    }
    *out = s;
    return 0;
}

void hv_rpc_server_destroy(struct hv_rpc_server *s)
{
    if ( s == NULL )
        return;
    stop_workers(s);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->prio_work);
    hv_mutex_destroy(&s->lock);
    free(s->threads);
    free(s);
}

struct hv_rpc_client *hv_rpc_client_open(struct hv_rpc_server *s)
{
    struct hv_rpc_client *c = calloc(1, sizeof(*c));

    if ( c != NULL )
    {
        c->s = s;
        fifo_init(&c->pending);
    }
    return c;
}

void hv_rpc_client_close(struct hv_rpc_client *c)
{
    free(c);
}

int hv_rpc_call(struct hv_rpc_client *cl, struct hv_rpc_call *call)
{
    struct hv_rpc_server *s = cl->s;
    int rc;

    call->client = cl;
    call->trace_tid = hv_trace_active() ? hv_trace_tid() : 0;
    call->done = false;
    call->t_submit = hv_now_ns();
    call->t_read = call->t_start = call->t_end = 0;
    pthread_cond_init(&call->done_cond, NULL);
    hv_mutex_lock(&s->lock);
    s->st.calls++;
    if ( cl->inflight < s->cfg.max_client_requests )
        dispatch(s, call);
    else
    {
        s->st.throttled++;
        fifo_push(&cl->pending, call);
    }
    while ( !call->done )
        hv_cond_wait(&call->done_cond, &s->lock);
    rc = call->rc;
    hv_mutex_unlock(&s->lock);
    pthread_cond_destroy(&call->done_cond);
    return rc;
}

void hv_rpc_stats(struct hv_rpc_server *s, struct hv_rpc_stats *st)
{
    hv_mutex_lock(&s->lock);
    busy_tick(s, 0);
    *st = s->st;
    st->elapsed_ns = hv_now_ns() - s->t_reset;
    st->max_workers = s->cfg.max_workers;
    hv_mutex_unlock(&s->lock);
}

void hv_rpc_stats_reset(struct hv_rpc_server *s)
{
    hv_mutex_lock(&s->lock);
    memset(&s->st, 0, sizeof(s->st));
    s->t_last = s->t_reset = hv_now_ns();
    s->st.busy_max = s->busy;
    hv_mutex_unlock(&s->lock);
}

unsigned int hv_rpc_client_inflight_max(struct hv_rpc_client *c)
{
    unsigned int n;

    hv_mutex_lock(&c->s->lock);
    n = c->inflight_max;
    hv_mutex_unlock(&c->s->lock);
    return n;
}
