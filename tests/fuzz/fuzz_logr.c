/*
 * fuzz_logr.c - libFuzzer target for the log reader (pg_log.h).
 *
 * Design.  The reader and the validator take a path, so each input is put
 * in an anonymous memory file (memfd_create, no disk, nothing left behind)
 * and handed over as /proc/self/fd/N.  Per input: pg_logr_open +
 * pg_logr_next to the end (or the first error) as a communication log and
 * as an execution log (the first bytes choose the reader: the binary
 * communication log of log_binr.c for the magic "PGCL", seeds
 * tests/fuzz/corpus/NAME.comm.pgc, else the XML reader), touching every string and array of every event so
 * that AddressSanitizer sees a bad pointer or length; then
 * pg_log_validate against schema/pangaea-log.xsd.  Errors are the normal
 * outcome for most inputs: only a crash, a sanitizer report or a hang is a
 * finding.  The same function serves `make check` through replay_corpus.c
 * (a plain main() over files), built without libFuzzer.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pg_log.h"

#ifndef PG_SCHEMA_DIR
#define PG_SCHEMA_DIR "schema"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink; /* keeps the touches below from being elided */

static void touch_str(const char *s)
{
    if (s)
        sink += strlen(s);
}

static void touch_event(const pg_event *ev)
{
    int i;

    touch_str(ev->call);
    touch_str(ev->program);
    touch_str(ev->where);
    for (i = 0; i < ev->nto; i++)
        sink += (size_t)ev->to[i];
    for (i = 0; i < ev->argc; i++)
        touch_str(ev->argv[i]);
    if (ev->argv && ev->argv[ev->argc] != NULL)
        __builtin_trap(); /* argv must end in NULL */
    for (i = 0; i < ev->nchild; i++) {
        sink += (size_t)ev->child_ltid[i];
        touch_str(ev->child_host[i]);
    }
}

static void read_all(const char *path, pg_log_kind kind)
{
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r = pg_logr_open(path, kind, &h, &err);
    long n = 0;

    if (!r)
        return;
    touch_str(h.program);
    touch_str(h.host);
    touch_str(h.select);
    while (pg_logr_next(r, &ev, &err) == 1) {
        touch_event(&ev);
        if (++n > 10000000)
            break;
    }
    pg_logr_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    pg_err err;
    int fd = memfd_create("fuzz_logr", 0);
    size_t off = 0;
    ssize_t w;

    if (fd < 0)
        return 0;
    while (off < size && (w = write(fd, data + off, size - off)) > 0)
        off += (size_t)w;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    read_all(path, PG_LOG_COMM);
    read_all(path, PG_LOG_EXEC);
    pg_log_validate(path, PG_SCHEMA_DIR "/pangaea-log.xsd", &err);
    close(fd);
    return 0;
}
