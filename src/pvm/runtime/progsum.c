/*
 * progsum.c - the SHA-256 of the program a task runs.
 *
 * A replay must run the recorded program, not merely one with the same
 * base name (a rebuilt binary behaves otherwise with the same arguments).
 * Each task hashes its own executable (/proc/self/exe: after a wrapper
 * script has exec'd it, the real program) when it opens its logs; the
 * recording keeps path and hash in the execution log's header, the replay
 * compares.  A task started as a script (`#!/usr/bin/env slsh`, a
 * `#!/bin/sh` wrapper that execs the program) is the script: what was
 * spawned is hashed instead of the interpreter: the constructor of the
 * process PVM started (the interpreter, or /usr/bin/env) finds the file
 * the kernel was asked to run (AT_EXECFN) and, if it starts with "#!",
 * names it in PANGAEA_SCRIPT for itself and the program it execs (the
 * same process: the ltid mark "N@PID" says so).  SHA-256 from nettle (nettle-dev): small, no global set-up or
 * configuration files read into every task, unlike libgcrypt or OpenSSL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <unistd.h>

#include "pg_internal.h"

void pg_note_script(void)
{
    const char *fn = (const char *)getauxval(AT_EXECFN);
    char magic[2] = { 0, 0 }, path[PATH_MAX];
    int fd = fn ? open(fn, O_RDONLY | O_CLOEXEC) : -1;

    if (fd >= 0) {
        if (read(fd, magic, 2) != 2)
            magic[0] = 0;
        close(fd);
    }
    if (magic[0] == '#' && magic[1] == '!' && realpath(fn, path))
        setenv(PG_ENV_SCRIPT, path, 1);
    else
        unsetenv(PG_ENV_SCRIPT); /* one a parent process left */
}

const char *pg_task_script(void)
{
    const char *s = getenv(PG_ENV_SCRIPT);

    return s && *s ? s : NULL;
}

/* The SHA-256 of the open file fd, in hex; 0, or -1 (a read failed). */
static int fd_sum(int fd, char hex[65])
{
    struct sha256_ctx ctx;
    uint8_t digest[SHA256_DIGEST_SIZE], buf[65536];
    ssize_t n;
    int i;

    sha256_init(&ctx);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&ctx, n, buf);
    if (n < 0)
        return -1;
    sha256_digest(&ctx, sizeof digest, digest);
    for (i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return 0;
}

/* Only a regular file is read: the path may come from a log, and a FIFO
 * there would hang the reader (opened without waiting, then checked). */
int pg_file_sum(const char *path, char hex[65])
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), cc;
    struct stat st;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    cc = fd_sum(fd, hex);
    close(fd);
    return cc;
}

int pg_exe_sum(char *exe, size_t exe_size, char hex[65])
{
    const char *script = pg_task_script();
    ssize_t n;

    if (script) {
        snprintf(exe, exe_size, "%s", script);
        return pg_file_sum(script, hex);
    }
    n = readlink("/proc/self/exe", exe, exe_size - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    return pg_file_sum("/proc/self/exe", hex);
}
