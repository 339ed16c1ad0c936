/*
 * grow.c - the one growable array of the sources: the library, the
 * command and the coordinator each keep lists whose length is known only
 * as they fill (tasks, hosts, pending requests, a log's read-ahead), and
 * each grows them here, by doubling, so that appending stays amortised
 * constant time.  Running out of memory is the caller's to report: the
 * library ends the task with pg_fatal, the command and the coordinator
 * exit with their own message, a loader returns its error.
 */
#include <stdlib.h>

#include "pg_grow.h"

int pg_grow(void *pp, size_t *cap, size_t need, size_t size)
{
    void **p = pp, *q;
    size_t c = *cap ? *cap : 16;

    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}
