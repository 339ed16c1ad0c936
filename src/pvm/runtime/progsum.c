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
