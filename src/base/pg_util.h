/*
 * pg_util.h - small things every part needs and none owns (util.c).
 */
#ifndef PG_UTIL_H
#define PG_UTIL_H

#include <stdio.h>

/* The last component of a path (programs are compared by it). */
const char *pg_basename(const char *path);
/* Wall-clock time stamp of an event (never the program's replayed clock). */
double pg_now(void);
/* Seconds on a monotonic clock (never the program's replayed clock). */
double pg_seconds(void);
/* The SHA-256 of the regular file at path, in hex; 0, or -1. */
int pg_file_sum(const char *path, char hex[65]);
/* What `from` holds, from where it is to its end, written to `to` (a
 * temporary file copied out, a recorded input copied): 0, or -1 when a
 * read or a write failed. */
int pg_copy_stream(FILE *to, FILE *from);
/* -stop's list "L:E,L:E,...": each event E of task `ltid` (E >= 1) put
 * into events[*n], kept ascending, up to max; other tasks' items and
 * malformed ones are passed over (pangaea checked the list). */
void pg_stop_events(const char *list, int ltid, long *events, int *n,
                    int max);

#endif
