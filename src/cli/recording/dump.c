/*
 * dump.c - `pangaea -dump [LOGDIR] [LTID]`: the communication logs of a
 * recording as XML, one document per task in ltid order (or the one task
 * asked for), each valid against schema/pangaea-log.xsd.
 *
 * Design.  Communication logs are binary (docs/comm-log-format.md); this
 * is how people and tools read them.  Each log is streamed through
 * pg_log_dump (log_dump.c), which writes every event from the event
 * table, so the dump knows every kind the reader does.  A log cut short by
 * its task's death ends with a comment saying so and counts as read; a
 * corrupt one is closed after its last good event, named on stderr, and
 * makes the exit status 2, after the other logs are dumped.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_log.h"
#include "races.h"
#include "top.h"

#define DEFAULT_LOGDIR "logs" /* as -display and -tasks (postmortem.c) */

static int dump_usage(const char *why)
{
    fprintf(stderr, "pangaea: %s\nusage: pangaea -dump [LOGDIR] [LTID]\n"
            "LOGDIR defaults to %s/\n", why, DEFAULT_LOGDIR);
    return TOP_EXIT_USAGE;
}

static int dump_one(const char *dir, int ltid)
{
    char path[PATH_MAX + 64];
    pg_err err;

    pg_log_path(path, sizeof path, dir, ltid, PG_LOG_COMM);
    if (access(path, F_OK) < 0 && errno == ENOENT) {
        fprintf(stderr, "pangaea: no task ltid %d in %s (%s is missing; "
                "pangaea -tasks %s lists the tasks)\n", ltid, dir, path, dir);
        return TOP_EXIT_USAGE;
    }
    pg_log_dump_site = pg_site_name; /* file:line of each call site */
    if (pg_log_dump(path, PG_LOG_COMM, stdout, &err) < 0) {
        fflush(stdout);
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_USAGE;
    }
    return 0;
}

/* `-dump 2`: a lone number that is no directory is an ltid of logs/. */
static int lone_ltid(int argc, char **argv)
{
    struct stat st;

    return argc == 3 && argv[2][0] &&
           strspn(argv[2], "0123456789") == strlen(argv[2]) &&
           stat(argv[2], &st) < 0;
}

int top_dump(int argc, char **argv)
{
    const char *dir = argc > 2 ? argv[2] : DEFAULT_LOGDIR;
    char *dflt[] = { argv[0], argv[1], DEFAULT_LOGDIR, NULL, NULL };
    int *ids = NULL, n, i, rc = 0;
    char *end;
    long ltid;

    if (lone_ltid(argc, argv)) {
        dflt[3] = argv[2];
        return top_dump(4, dflt);
    }
    if (argc > 4)
        return dump_usage("too many arguments");
    if (argc == 4) {
        errno = 0;
        ltid = strtol(argv[3], &end, 10);
        if (errno || *end || end == argv[3] || ltid < 0 || ltid > INT_MAX)
            return dump_usage("LTID must be a task's ltid (0, 1, 2...)");
        rc = dump_one(dir, (int)ltid);
        return fflush(stdout) ? TOP_EXIT_FAILED : rc;
    }
    n = top_log_ltids(dir, 0, &ids);
    if (n < 0) {
        fprintf(stderr, "pangaea: cannot read the log directory %s: %s\n",
                dir, strerror(errno));
        return TOP_EXIT_USAGE;
    }
    if (n == 0)
        fprintf(stderr, "pangaea: no communication log (ltid-N.comm.pgc) in "
                "%s: record a run first with pangaea -log\n", dir);
    for (i = 0; i < n; i++)
        if (dump_one(dir, ids[i]))
            rc = TOP_EXIT_USAGE;
    free(ids);
    if (fflush(stdout) != 0)
        rc = TOP_EXIT_FAILED;
    return n == 0 ? TOP_EXIT_USAGE : rc;
}
