/*
 * logio.c - the cost of the communication log format alone, per event:
 * writing (pg_logw_recv / pg_logw_send, binary, docs/comm-log-format.md),
 * reading back (pg_logr_next) and checking (pg_log_check_cut: one read
 * through, what `pangaea -replay` does to every comm log before a replay
 * starts; validate_ns keeps its name in the report).  No PVM, no tasks.
 *
 *   logio [N [DIR]]    N events (default 200000) of each kind, alternating
 *                      send and receive as in a round trip; files in DIR
 *                      (default /tmp)
 *
 * Built against the runtime library's static archive (it uses the
 * internal log API, src/log/pg_log.h).  Prints
 *     BENCH name=logio n=N write_ns=... read_ns=... validate_ns=...
 *           bytes=BYTES_PER_EVENT write_user_ns=... write_sys_ns=...
 *           read_user_ns=... read_sys_ns=...
 * ns per event, wall time with clock_gettime; the *_user/_sys ones are
 * CPU time (getrusage, 1-4 ms resolution: use a large N).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pg_log.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process so far: user and system apart, to tell the
 * encoder's cost from the kernel's (page faults of the mapped log). */
static void cpu(double *user, double *sys)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    *user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    *sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000, i, got = 0;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    char path[4096];
    pg_log_header h;
    pg_event ev;
    pg_logw *w;
    pg_logr *r;
    pg_err err;
    struct stat st;
    double t0, t1, t2, t3, t = 1.7e9, u0, s0, u1, s1, u2, s2;
    int to = 2, cc;
    /* sends and receives as in a round trip: ids 1, 2, 3... each way, a
     * time stamp every 100 us */

    snprintf(path, sizeof path, "%s/logio-%d.comm.pgc", dir, (int)getpid());
    w = pg_logw_open(path, PG_LOG_COMM, 1, "/path/to/program", "host", &err);
    if (!w) {
        fprintf(stderr, "logio: %s\n", err.msg);
        return 1;
    }
    cpu(&u0, &s0);
    t0 = now();
    for (i = 0; i < n; i++) {
        t += 1e-4;
        if (i % 2 == 0)
            cc = pg_logw_send(w, t, "pvm_send", 1, (int)(i / 2 + 1), 8, 1, &to);
        else
            cc = pg_logw_recv(w, t, "pvm_recv", 2, 2, (int)(i / 2 + 1), 8);
        if (cc < 0) {
            fprintf(stderr, "logio: write failed\n");
            return 1;
        }
    }
    pg_logw_end(w, t, 0);
    pg_logw_close(w);
    t1 = now();
    cpu(&u1, &s1);
    r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
    if (!r) {
        fprintf(stderr, "logio: %s\n", err.msg);
        return 1;
    }
    while ((cc = pg_logr_next(r, &ev, &err)) == 1)
        got++;
    pg_logr_close(r);
    t2 = now();
    cpu(&u2, &s2);
    if (cc < 0 || got != n + 1) {
        fprintf(stderr, "logio: read %ld events: %s\n", got,
                cc < 0 ? err.msg : "count differs");
        return 1;
    }
    if (pg_log_check_cut(path, PG_LOG_COMM, &got, &err) != 0) {
        fprintf(stderr, "logio: %s\n", err.msg);
        return 1;
    }
    t3 = now();
    stat(path, &st);
    unlink(path);
    printf("BENCH name=logio n=%ld write_ns=%.0f read_ns=%.0f validate_ns=%.0f"
           " bytes=%.1f write_user_ns=%.0f write_sys_ns=%.0f read_user_ns=%.0f"
           " read_sys_ns=%.0f\n", n, (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / n,
           (t3 - t2) * 1e9 / n, (double)st.st_size / n, (u1 - u0) * 1e9 / n,
           (s1 - s0) * 1e9 / n, (u2 - u1) * 1e9 / n, (s2 - s1) * 1e9 / n);
    return 0;
}
