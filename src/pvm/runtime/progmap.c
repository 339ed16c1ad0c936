/*
 * progmap.c - which program a replay from a pack starts for each task.
 *
 * Design.  A pack (`pangaea -pack`) holds each program the recording ran
 * once, by content: PROGDIR/<sha256>/<name>, where <name> is the base name
 * of the executable (so argv[0], messages and a program that looks at its
 * own name see what they saw when recorded).  The programs' old paths need
 * not exist where the pack is replayed, and a spawn names its program as
 * the program wrote it (a bare name found through PVM_PATH, a path of the
 * recording machine).  So the mapping is by task, not by name: the child
 * that gets ltid L ran the executable whose SHA-256 is in L's own
 * execution log header, and that is the copy started.  `pangaea` sets
 * PANGAEA_PROGDIR only when replaying from a pack (it is exported to every
 * task); without it, or for a task whose log has no checksum, the spawn
 * goes as the program asked.  The task itself still compares its
 * executable with the recorded checksum as it starts (replay.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pg_internal.h"

const char *pg_progmap(int ltid, const char *task, char *buf, size_t size)
{
    const char *dir = getenv(PG_ENV_PROGDIR);
    char path[PATH_MAX];
    pg_log_header h;
    pg_logr *r;
    pg_err err;

    if (!dir || !*dir || !pg.logdir[0])
        return task;
    pg_log_path(path, sizeof path, pg.logdir, ltid, PG_LOG_EXEC);
    r = pg_logr_open(path, PG_LOG_EXEC, &h, &err);
    if (!r)
        return task; /* the replay's own check names the missing log */
    pg_logr_close(r);
    if (!h.sha256[0])
        return task;
    snprintf(buf, size, "%s/%s/%s", dir, h.sha256,
             pg_basename(h.exe[0] ? h.exe : h.program));
    return access(buf, X_OK) == 0 ? buf : task;
}
