/*
 * live_pos.c - a task's place in its run, and its control block, for
 * `pangaea -log|-replay -live`.
 *
 * Design.  A replay writes no log, so the live view could not see how far
 * a task got, nor which recorded message a waiting task waits for.  Rather
 * than add a message per event (the 1996 Pangaea doubled the program's
 * traffic that way), each task maps one small file, PANGAEA_LIVE/ltid-N.pos,
 * and stores two numbers in it: the events it has consumed and whether it
 * waits in a receive.  That is two stores per event, no system call.
 * `pangaea` reads the file and the recording (which it has) and works out
 * the rest: the events replayed so far are the recorded ones up to seq;
 * the message a waiting task waits for is its next recorded receive.
 *
 * The same page carries the task's control block (live_pos.h), in a
 * recording under -live too: pangaea holds a task at its next PVM call by
 * writing to it, and the task says there what call it holds in (gate.c).
 * The run's breakpoints are in one more file, PANGAEA_LIVE/control, that
 * pangaea makes and every task maps.  Only runs under -live set
 * PANGAEA_LIVE; then a task that cannot make its file says so and runs
 * unwatched.
 */
#define _GNU_SOURCE
#include "live_pos.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pg_internal.h"

struct pg_live_pos *pg_live;
struct pg_live_ctl *pg_live_ctl;

/* The breakpoints, if pangaea made the file (read-write: hit counts). */
static void open_ctl(const char *dir)
{
    char path[4200];
    void *map;
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, PG_LIVE_CTL_FILE);
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return;
    map = mmap(NULL, sizeof *pg_live_ctl, PROT_READ | PROT_WRITE, MAP_SHARED,
               fd, 0);
    close(fd);
    if (map != MAP_FAILED &&
        ((struct pg_live_ctl *)map)->magic == PG_LIVE_CTL_MAGIC)
        pg_live_ctl = map;
    else if (map != MAP_FAILED)
        munmap(map, sizeof *pg_live_ctl);
}

/* The page said "resume all" (and no "pause all" since). */
static int all_go(void)
{
    return pg_live_ctl &&
           __atomic_load_n(&pg_live_ctl->all_go, __ATOMIC_SEQ_CST);
}

void pg_live_pos_open(void)
{
    const char *dir = getenv(PG_ENV_LIVE), *hold = getenv(PG_ENV_HOLD);
    char path[4200];
    void *map;
    int fd;

    if (!dir || !*dir || pg.ltid < 0 || pg_live)
        return;
    snprintf(path, sizeof path, "%s/ltid-%d.pos", dir, pg.ltid);
    /* Never O_TRUNC: pangaea may have the file mapped already, and a file
     * cut to 0 under its mapping is a SIGBUS in pangaea when it reads it.
     * The size is set, then the page cleared through the mapping. */
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || ftruncate(fd, sizeof *pg_live) < 0) {
        pg_warn("the live view will not see this task: cannot make %s: %s",
                path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    map = mmap(NULL, sizeof *pg_live, PROT_READ | PROT_WRITE, MAP_SHARED,
               fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        pg_warn("the live view will not see this task: cannot map %s: %s",
                path, strerror(errno));
        return;
    }
    memset(map, 0, sizeof *pg_live); /* magic 0: not a page until set */
    open_ctl(dir);
    pg_live = map;
    pg_live->ltid = pg.ltid;
    pg_live->seq = 0;
    pg_live->waiting = 0;
    pg_live->pid = (int32_t)syscall(SYS_getpid); /* the real one */
    if (hold && !strcmp(hold, "1") && pg.ltid > 0 && !all_go()) /* -hold */
        pg_live->pause = pg_live->gate = 1;
    __atomic_store_n(&pg_live->magic, PG_LIVE_MAGIC, __ATOMIC_SEQ_CST);
    /* "resume all" said between the test above and the page showing (it
     * then let go only the tasks it saw): this one goes too */
    if (pg_live->pause && all_go())
        pg_live->pause = pg_live->gate = 0;
}
