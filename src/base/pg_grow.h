/*
 * pg_grow.h - a growable array (grow.c), shared by the library, the
 * command and the coordinator.
 */
#ifndef PG_GROW_H
#define PG_GROW_H

#include <stddef.h>

/* Makes room for `need` elements of `size` bytes in the array *pp (a
 * pointer to the array's pointer) of capacity *cap, doubling it.  0, or -1
 * when out of memory (*pp and *cap are then unchanged). */
int pg_grow(void *pp, size_t *cap, size_t need, size_t size);

#endif
