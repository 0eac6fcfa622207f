/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Passing Ctrl-C on to the processes hvbench started (hvb/interrupt.h).
 *
 * Worked example: "hvbench review" is building HEAD (cmake in group
 * 4242, its compilers under it) and running the base's gate (group
 * 4250, whose workers are groups of their own, started by that gate the
 * same way).  Ctrl-C sends SIGINT to the terminal's foreground group:
 * review alone.  on_signal() records SIGINT and kill()s -4242 and -4250;
 * the gate, catching it too, passes it on to its workers.  hvb_exec_run()
 * sees its children end (or, HVB_INTERRUPT_GRACE_S later, kills the
 * groups), the build step fails as "interrupted" (never remembered as
 * the commit's failure; the cache entry's lock is released only once
 * the build is gone), and review says what it kept and exits 130.
 * Before this, the builds and gates ran on under init and wrote into
 * the review's output after it had exited.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hv/compiler.h>
#include <hvb/interrupt.h>

#define MAX_GROUPS 256

static volatile sig_atomic_t caught;
static volatile pid_t groups[MAX_GROUPS];
static struct sigaction old_int, old_term;
static bool catching;
static double noticed_at; /* monotonic s when a wait first saw it */

static void on_signal(int sig)
{
    int saved = errno;
    size_t i;

    if ( !caught )
        caught = sig;
    for ( i = 0; i < MAX_GROUPS; i++ )
        if ( groups[i] > 0 )
            kill(-groups[i], sig);
    errno = saved;
}

void hvb_interrupt_catch(void)
{
    struct sigaction sa = {.sa_handler = on_signal};

    if ( catching )
        return;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    /* Ignored when we started (nohup, a script's background job): so be. */
    if ( old_int.sa_handler == SIG_IGN )
        sigaction(SIGINT, &old_int, NULL);
    if ( old_term.sa_handler == SIG_IGN )
        sigaction(SIGTERM, &old_term, NULL);
    catching = true;
}

int hvb_interrupted(void)
{
    return caught;
}

pid_t hvb_interrupt_fork(void)
{
    sigset_t block, old;
    size_t i;
    pid_t pid;
    int e;

    if ( caught )
    {
        errno = EINTR;
        return -1;
    }
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    for ( i = 0; i < MAX_GROUPS && groups[i] != 0; i++ )
        ;
    if ( i == MAX_GROUPS )
    {
        sigprocmask(SIG_SETMASK, &old, NULL);
        errno = EAGAIN;
        return -1;
    }
    groups[i] = -1; /* taken */
    pid = fork();
    if ( pid == 0 )
    {
        setpgid(0, 0);
        if ( catching )
        {
            sigaction(SIGINT, &old_int, NULL);
            sigaction(SIGTERM, &old_term, NULL);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 0;
    }
    if ( pid > 0 )
        setpgid(pid, pid); /* whichever of the two runs first */
    e = errno;
    groups[i] = pid > 0 ? pid : 0;
    sigprocmask(SIG_SETMASK, &old, NULL); /* a pending signal: sent on */
    errno = e;
    return pid;
}

pid_t hvb_interrupt_waitpid(pid_t pid, int *status, int options)
{
    siginfo_t si = {.si_pid = 0};
    pid_t r;

    /* The leader, a zombie until reaped, keeps its group's id ours. */
    if ( caught &&
         waitid(P_PID, (id_t)pid, &si,
                WEXITED | WNOWAIT | (options & WNOHANG)) == 0 &&
         si.si_pid == pid )
        kill(-pid, SIGKILL);
    r = waitpid(pid, status, options);
    if ( r == pid )
        hvb_interrupt_forget(pid);
    return r;
}

void hvb_interrupt_forget(pid_t pid)
{
    size_t i;

    for ( i = 0; i < MAX_GROUPS; i++ )
        if ( groups[i] == pid )
            groups[i] = 0;
}

double hvb_interrupt_deadline(double deadline)
{
    double now;

    if ( !caught )
        return deadline;
    now = (double)hv_now_ns() * 1e-9;
    if ( noticed_at == 0 )
        noticed_at = now;
    return deadline < noticed_at + HVB_INTERRUPT_GRACE_S
               ? deadline
               : noticed_at + HVB_INTERRUPT_GRACE_S;
}

int hvb_interrupt_status(const char *what, const char *kept)
{
    int sig = caught ? caught : SIGINT;

    fprintf(stderr, "hvbench: %s: interrupted (%s)%s%s\n", what,
            sig == SIGTERM ? "SIGTERM" : "SIGINT", kept ? "; " : "",
            kept ? kept : "");
    return 128 + sig;
}
