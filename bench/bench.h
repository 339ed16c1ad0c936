/*
 * bench.h - what the benchmark programs share.
 *
 * The benchmarks are plain PVM programs (pvm3.h, -lpvm3 only): they never
 * see Pangaea, which `pangaea` preloads into them like into any unmodified
 * binary.  So a program measures only what it can see itself: the wall
 * time of its timed section (clock_gettime, CLOCK_MONOTONIC), taken after
 * its tasks are spawned and warmed up and before they are told to stop,
 * so that pvmd start-up, spawning and logs being opened or closed are not
 * in a per-call figure.  It prints one result line,
 *
 *     BENCH name=NAME key=value ...
 *
 * which bench/run.sh finds behind the "[1] " that `pangaea` puts in front
 * of a task's output.  Fields common to all: secs (the timed section),
 * n (the calls or messages in it), us (microseconds per call or message)
 * hwm_kb (VmHWM of the printing task, from /proc/self/status: its
 * peak resident memory over its whole life), and where given usr and sys
 * (the printing task's own CPU time in the timed section, getrusage, in
 * microseconds per call or message).
 *
 * Children are spawned by the absolute path of the running executable
 * (/proc/self/exe), as the pvmd resolves relative paths from its own
 * directory.  Any PVM error ends the program with a message and status 1
 * after killing the children it started.
 */
#ifndef BENCH_H
#define BENCH_H

#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#define BENCH_MAXKIDS 128

static const char *bench_name = "bench";
__attribute__((unused)) static int bench_kids[BENCH_MAXKIDS];
__attribute__((unused)) static int bench_nkids;

__attribute__((unused)) static void bench_die(const char *what, int code)
{
    int i;

    fprintf(stderr, "%s: %s failed (PVM error %d)\n", bench_name, what, code);
    for (i = 0; i < bench_nkids; i++)
        if (bench_kids[i] > 0)
            pvm_kill(bench_kids[i]);
    pvm_exit();
    exit(1);
}

__attribute__((unused)) static int bench_check(const char *what, int rc)
{
    if (rc < 0)
        bench_die(what, rc);
    return rc;
}

/* The clock is read by a system call, not by libc's clock_gettime: under
 * `pangaea` that one is the program's, recorded and given back in replay
 * (src/pvm/wrap/wrap_time.c), and a replay would print the recording's
 * figures.  (One call costs ~0.1 us more; two per timed section.) */
__attribute__((unused)) static double bench_now(void)
{
    struct timespec ts;

    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time (user, system) this process has used so far, in seconds. */
__attribute__((unused)) static void bench_cpu(double *usr, double *sys)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    *usr = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    *sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The absolute path of this executable, to spawn copies of it. */
static const char *bench_self(void)
{
    static char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);

    if (n <= 0) {
        fprintf(stderr, "%s: cannot read /proc/self/exe\n", bench_name);
        exit(1);
    }
    path[n] = 0;
    return path;
}

/* Spawns one copy of this program with the given arguments; returns its tid. */
__attribute__((unused)) static int bench_spawn(char **args)
{
    int tid = 0, n;

    n = pvm_spawn((char *)bench_self(), args, PvmTaskDefault, "", 1, &tid);
    if (n != 1)
        bench_die("pvm_spawn", n < 0 ? n : tid);
    if (bench_nkids < BENCH_MAXKIDS)
        bench_kids[bench_nkids++] = tid;
    return tid;
}

/* VmHWM of this process in kB, or -1. */
__attribute__((unused)) static long bench_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/* Sends `len` bytes of `buf` (PvmDataDefault) to `tid` with `tag`. */
__attribute__((unused)) static void bench_send_bytes(int tid, int tag, char *buf, int len)
{
    bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
    if (len > 0)
        bench_check("pvm_pkbyte", pvm_pkbyte(buf, len, 1));
    bench_check("pvm_send", pvm_send(tid, tag));
}

__attribute__((unused)) static int bench_int_arg(int argc, char **argv, int i, int def, int min)
{
    char *end;
    long v;

    if (i >= argc)
        return def;
    v = strtol(argv[i], &end, 10);
    if (*argv[i] == 0 || *end || v < min || v > 100000000) {
        fprintf(stderr, "%s: bad argument %s\n", bench_name, argv[i]);
        exit(2);
    }
    return (int)v;
}

#endif
