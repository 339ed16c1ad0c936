/*
 * comm_from_xml.c - writes a binary communication log from its XML form:
 *
 *   comm_from_xml IN.xml OUT.comm.pgc
 *
 * Design.  The tests edit recorded logs to make a replay diverge, stall or
 * refuse them; communication logs are binary, so an edit is `pangaea
 * -dump`, a change to the XML, and this tool, which reads the XML through
 * the library's reader (every check of the format applies) and writes
 * each event again with pg_logw_event.  The header (ltid, program, host,
 * selection, recording) is kept.  A log cut short by a death stays cut: the output is
 * not closed then (its events are all in it).  Exit 0, or 1 with a
 * message naming the file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pg_log.h"

int main(int argc, char **argv)
{
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;
    pg_logw *w;
    int rc;

    if (argc != 3) {
        fprintf(stderr, "usage: comm_from_xml IN.xml OUT.comm.pgc\n");
        return 1;
    }
    r = pg_logr_open(argv[1], PG_LOG_COMM, &h, &err);
    if (r)
        pg_log_recording_set(h.recording); /* the log stays its recording's */
    w = r ? pg_logw_open_sel(argv[2], PG_LOG_COMM, h.ltid, h.program, h.host,
                             h.select, &err) : NULL;
    if (!w) {
        fprintf(stderr, "comm_from_xml: %s\n", err.msg);
        return 1;
    }
    while ((rc = pg_logr_next(r, &ev, &err)) == 1)
        if (pg_logw_event(w, &ev) < 0) {
            fprintf(stderr, "comm_from_xml: %s: event %ld refused\n", argv[2],
                    ev.seq);
            return 1;
        }
    if (rc < 0 && !pg_logr_cut(r)) {
        fprintf(stderr, "comm_from_xml: %s\n", err.msg);
        return 1;
    }
    pg_logr_close(r);
    if (rc < 0) /* cut: leave it unclosed, as its task left it */
        return 0;
    return pg_logw_close(w) == 0 ? 0 : 1;
}
