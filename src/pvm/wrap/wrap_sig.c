/*
 * wrap_sig.c - pvm_sendsig: a signal lands, in replay, where it landed
 * when recorded.
 *
 * A signal sent with pvm_sendsig reaches its task through the daemons, at
 * an instant that depends on timing: what the receiver's handler sees
 * (how far a loop got, which message came first) differs from run to
 * run.  Where it landed is known only in the receiver, and only by code
 * that runs when it lands, so:
 *  - a sender under `pangaea` sends signal S (1..31) to a task of the run
 *    as SIGRTMIN+S-1.  Every task catches those 31 real-time signals from
 *    its start (unless the program had set them otherwise), and the
 *    handler raises S itself at once: the program's own handler, or S's
 *    default action, runs there, nested, as if S had come;
 *  - recording, the handler first appends "signal N S I" to the task's
 *    signals file (ltid-N.signals.pgc, docs/comm-log-format.md): N is the
 *    number of PVM calls the program had begun (pg.calls, counted where
 *    every call passes, PG_RETURN_REAL_UNLESS_AT), I whether it landed inside
 *    call N (a wrapper was at work) or after it returned.  One write(2):
 *    safe in a handler, and there even when S ends the task;
 *  - replaying, the sender sends the mapped signal again but returns what
 *    the recorded call did ("sent CC" lines of its own file), and the
 *    receiver's handler only counts it; the receiver raises S itself: one
 *    that landed inside call N as call N begins (the program cannot tell,
 *    and one that ends the task ends it inside that call, as recorded: its
 *    log stops there), one that landed after call N as call N returns
 *    (PG_LEAVE, through pg_stop_now and pg_signals_leave), or, for a call
 *    that has no end of its own to hook, as the next call begins.  Between
 *    two PVM calls the program runs its own code only, so the program sees
 *    the signal land between the same two calls;
 *  - and it raises S there only once the sender's signal has come
 *    (await_signal), as the landing followed the sender's call when
 *    recorded.  Raised sooner, a signal that ends the task could end it
 *    before PVM delivered the messages it had sent (PVM 3.4 then loses
 *    them: docs/pvm-notes.md), messages its recorded receivers took.  A
 *    landing inside a call that sends or starts tasks does not wait: what
 *    the sender waited for may be that call's own message.  Polls that
 *    found nothing are calls too (the recorded misses replay as many), so
 *    a busy-wait loop stops at the same turn.
 * Named limits (README, "What replay guarantees"): a signal that ends its
 * task after polls that found nothing: their count rides on the next event,
 * which never comes, so the replay diverges at the first poll; the instant
 * within the program's own computation between two PVM calls is not kept (a
 * handler that sets a flag a computation polls without calling PVM may land
 * at another iteration), and is named at run time, once per task, in
 * recording and replay (say_own_code); a signal sent to a task outside the run, or a
 * number outside 1..31, is sent as asked and named as not replayed; a
 * program that sets handlers on real-time signals itself takes them from
 * Pangaea (its pvm_sendsig signals then reach its handlers); a system call a
 * signal interrupts is restarted (SA_RESTART) whatever the program's own
 * handler asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_internal.h"

#define NMAPPED 31 /* signals 1..31 travel as SIGRTMIN+0..30 */

volatile long pg_sig_at = LONG_MAX;
volatile sig_atomic_t pg_sig_entering;

static char path[4200]; /* this task's signals file */
static int fd = -1;     /* recording: opened at the first line */

struct landing {
    long call;
    int sig;
    int inside; /* it landed inside call `call`, not after it returned */
};
static struct landing *due; /* replay: the recorded landings, in order */
static size_t ndue, cap_due, next_due;
static int *sent;           /* replay: what each recorded pvm_sendsig did */
/* Replay: mapped signals that came, and those a landing consumed; ours,
 * the signals whose mapped one Pangaea catches (the program took none). */
static volatile sig_atomic_t arrived[NMAPPED + 1];
static long used[NMAPPED + 1];
static char ours[NMAPPED + 1];
static size_t nsent, cap_sent, next_sent;
static int loaded;          /* replay: the file was read */

static void load(void);
/* The first signal that landed in the program's own code, and the call
 * it came after (say_own_code). */
static volatile sig_atomic_t own_sig;
static volatile long own_call;

static int mapped(int sig)
{
    return sig >= 1 && sig <= NMAPPED && SIGRTMIN + sig - 1 <= SIGRTMAX;
}

/* Decimal digits of v at p (async-signal-safe); returns their count. */
static size_t put_long(char *p, long v)
{
    char rev[24];
    size_t n = 0, i;
    unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;

    do
        rev[n++] = '0' + u % 10;
    while ((u /= 10) && n < sizeof rev);
    i = 0;
    if (v < 0)
        p[i++] = '-';
    while (n)
        p[i++] = rev[--n];
    return i;
}

/* Appends "WORD V0 V1 ...\n" (n numbers) to the signals file with one
 * write(2), from a handler or not. */
static void put_line(const char *word, const long *v, int n)
{
    char line[120];
    size_t len = strlen(word);
    int i;

    if (fd < 0)
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return; /* the comm log's own writes report a full or lost disk */
    memcpy(line, word, len);
    for (i = 0; i < n; i++) {
        line[len++] = ' ';
        len += put_long(line + len, v[i]);
    }
    line[len++] = '\n';
    if (write(fd, line, len) < 0)
        return;
}

/* A mapped signal came: noted (recording), then raised as itself; in a
 * replay counted only: its recorded landing raises it. */
static void on_mapped(int rt)
{
    int saved = errno, sig = rt - SIGRTMIN + 1;

    if (pg.mode == PANGAEA_REPLAY) {
        arrived[sig]++;
        return;
    }
    int entering = pg_sig_entering && pg.depth == 0;
    /* landed in a wrapper before it counted its call: inside that call,
     * which the program has made (it sees the signal after it) */
    long v[3] = { pg.calls + entering, sig, pg.depth > 0 || entering };

    if (pg.mode == PANGAEA_LOG)
        put_line("signal", v, 3);
    if (!v[2] && !own_sig) { /* named at the next call (pg_sig_gate) */
        own_sig = sig;
        own_call = v[0];
        pg_sig_at = 0;
    }
    errno = saved;
    raise(sig);
}

/* A signal that landed after call N returned landed in the program's own
 * code, at an instant neither counted nor kept: a replay raises it as
 * call N returns, and what the program did meanwhile may differ.  Said
 * once per task, in recording and in replay, outside the handler. */
static void say_own_code(void)
{
    static int said;
    char what[160];

    if (!own_sig || said)
        return;
    snprintf(what, sizeof what, "where signal %d landed in the program's "
             "own code, between its PVM calls %ld and %ld,", (int)own_sig,
             (long)own_call, (long)own_call + 1);
    pg_name_once(what, &said);
}

/* Replay: waits until signal sig, sent again by the replayed sender, has
 * come (see the top of this file), reporting a wait that lasts past
 * PANGAEA_STALL as any replay wait; it is then consumed. */
static void await_signal(int sig)
{
    struct timespec slice = { 0, 200000000 };
    struct pg_wait wait;
    sigset_t set, old;
    char msg[200];
    int rt = SIGRTMIN + sig - 1;

    if (ours[sig] && arrived[sig] <= used[sig]) {
        sigemptyset(&set);
        sigaddset(&set, rt); /* from now on taken here, not by on_mapped */
        pthread_sigmask(SIG_BLOCK, &set, &old);
        pg_wait_start(&wait);
        while (arrived[sig] <= used[sig])
            if (sigtimedwait(&set, NULL, &slice) == rt)
                arrived[sig]++;
            else if (pg_wait_overdue(&wait)) {
                snprintf(msg, sizeof msg, "waits at its call %ld for signal "
                         "%d, which landed there when recorded and nobody "
                         "has sent yet", pg.calls, sig);
                pg_wait_report(msg);
            }
        pg_wait_end(&wait);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    used[sig]++;
}

/* Replay: the landings due by call `upto`, raised in their order. */
static void land(long upto)
{
    int sig;

    while (next_due < ndue && due[next_due].call <= upto) {
        if (!due[next_due].inside && !own_sig) {
            own_sig = due[next_due].sig;
            own_call = due[next_due].call;
        }
        sig = due[next_due++].sig;
        await_signal(sig);
        raise(sig);
    }
    say_own_code();
    pg_sig_at = next_due < ndue ? due[next_due].call : LONG_MAX;
}

/* Whether a signal landing inside `call` may wait for its sender there:
 * not when the call sends or starts tasks (the sender may be waiting for
 * just that), from the call table's `what` column. */
static int may_wait_in(const char *call)
{
#define PG_CALL(name, ret, params, group, what, space, code, gate)             \
    if (!strcmp(call, "pvm_" #name))                                           \
        return !strcmp(#what, "RECV") || !strcmp(#what, "QUERY");
#include "pg_calls.def"
#undef PG_CALL
    return 0;
}

void pg_sig_gate(const char *call)
{
    int sig;

    if (pg.mode != PANGAEA_REPLAY) {
        pg_sig_at = LONG_MAX;
        say_own_code();
        return;
    }
    load();
    land(pg.calls - 1); /* the last call had no end to land them at */
    while (next_due < ndue && due[next_due].call == pg.calls &&
           due[next_due].inside) { /* before its work: the program cannot */
        sig = due[next_due++].sig; /* tell, and a fatal one ends it here */
        if (may_wait_in(call))
            await_signal(sig);
        else
            used[sig]++; /* it may come later: counted as come */
        raise(sig);
    }
    pg_sig_at = next_due < ndue ? due[next_due].call : LONG_MAX;
    if (next_due < ndue && due[next_due].call == pg.calls)
        pg_stop_armed |= PG_STOP_SIG;
}

static void sig_leave(void)
{
    land(pg.calls);
}

static void sig_finish(void)
{
    if (pg.mode == PANGAEA_REPLAY && loaded)
        land(pg.calls);
    say_own_code();
}

/* One line of the recorded signals file, kept for the replay. */
static void load_line(const char *line, long lineno)
{
    long a;
    int b, in;
    char word[16];

    if (sscanf(line, "%15s %ld %d %d", word, &a, &b, &in) == 4 &&
        !strcmp(word, "signal") && a >= 0 && mapped(b) &&
        (in == 0 || in == 1)) {
        if (pg_grow(&due, &cap_due, ndue + 1, sizeof *due) < 0)
            pg_fatal("out of memory");
        due[ndue++] = (struct landing){ a, b, in };
    } else if (sscanf(line, "%15s %ld", word, &a) == 2 &&
               !strcmp(word, "sent") && a >= INT_MIN && a <= 0) {
        if (pg_grow(&sent, &cap_sent, nsent + 1, sizeof *sent) < 0)
            pg_fatal("out of memory");
        sent[nsent++] = (int)a;
    } else {
        pg_fatal("%s:%ld: not a line of a signals file (\"signal CALL "
                 "SIGNAL INSIDE\" or \"sent RESULT\"): %.80s", path, lineno,
                 line);
    }
}

/* Read at the program's first call (pg_sig_at starts at 0), once the
 * task is enrolled: a bad file is then a fatal error `pangaea` reports. */
static void load(void)
{
    char line[200];
    long lineno = 0;
    FILE *f;

    if (loaded)
        return;
    loaded = 1;
    if (!(f = fopen(path, "re")))
        return; /* no signal was sent or came: no file */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        load_line(line, ++lineno);
    }
    fclose(f);
    pg_sig_at = ndue ? due[0].call : LONG_MAX;
}

static void sig_start(void)
{
    struct sigaction sa, old;
    int s;

    if (pg.ltid <= 0 || (pg.mode != PANGAEA_LOG && pg.mode != PANGAEA_REPLAY))
        return;
    snprintf(path, sizeof path, "%s/ltid-%d.signals.pgc", pg.logdir, pg.ltid);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_mapped;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (s = 1; s <= NMAPPED; s++)
        if (mapped(s) && sigaction(SIGRTMIN + s - 1, NULL, &old) == 0 &&
            old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
            ours[s] = sigaction(SIGRTMIN + s - 1, &sa, NULL) == 0;
    if (pg.mode == PANGAEA_REPLAY)
        pg_sig_at = 0; /* the first call reads the recorded landings */
}

/* runtime.c and stop.c sit below this file: they call it through these
 * hooks, set before runtime.c's own constructor (which has no priority,
 * so runs after every constructor given one below 65535) starts the task. */
__attribute__((constructor(65000))) static void hooks(void)
{
    pg_signals_start = sig_start;
    pg_signals_finish = sig_finish;
    pg_signals_leave = sig_leave;
}

/* Replay: what the recorded pvm_sendsig returned. */
static int recorded_sent(int ltid, int sig)
{
    char msg[300];

    if (next_sent < nsent)
        return sent[next_sent++];
    snprintf(msg, sizeof msg, "pvm_sendsig(ltid %d, %d): the recording sent "
             "%zu signal%s with pvm_sendsig, the program sends more (%.200s)",
             ltid, sig, nsent, nsent == 1 ? "" : "s", path);
    pg_replay_say_diverged(msg);
    pg_end_task(PG_REP_DIVERGED, msg, PG_EXIT_DIVERGED);
    return -1;
}

int pvm_sendsig(int tid, int sig)
{
    static int said;
    int ltid, cc, ours = pg.mode == PANGAEA_LOG || pg.mode == PANGAEA_REPLAY;
    long result;

    pg_real_load();
    PG_RETURN_REAL_UNLESS(sendsig, pg_app_call() && pg.ltid != 0, pg_real.sendsig(tid, sig));
    PG_ENTER();
    ltid = pg_ltid_of(tid);
    if (ours && sig == 0) /* a probe that the task exists: nothing lands */
        ours = 0;
    else if (ours && (ltid <= 0 || !mapped(sig))) {
        pg_name_once("pvm_sendsig (to a task outside the run, or a signal "
                     "outside 1..31)", &said);
        ours = 0;
    }
    if (!ours) {
        cc = pg_real.sendsig(tid, sig); /* as asked (and -none: as is) */
    } else if (pg.mode == PANGAEA_REPLAY) {
        load();
        cc = recorded_sent(ltid, sig);
        if (cc == 0) /* sent when recorded: its landing waits for it */
            pg_real.sendsig(tid, SIGRTMIN + sig - 1);
    } else {
        cc = pg_real.sendsig(tid, SIGRTMIN + sig - 1);
        result = cc;
        put_line("sent", &result, 1);
    }
    PG_LEAVE();
    return cc;
}
