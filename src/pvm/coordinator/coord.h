/*
 * coord.h - what the coordinator's files share: coordinator.c (tasks,
 * translations, ends) and group_order.c (turns of group joins and leaves).
 */
#ifndef PG_COORD_H
#define PG_COORD_H

#include <stddef.h>

/* *pp with room for `need` items of `size` bytes (pg_grow); exits the
 * coordinator when memory runs out. */
void pg_co_grow(void *pp, size_t *cap, size_t need, size_t size);

void pg_go_turn(int src);         /* PG_TAG_GTURN from task src */
void pg_go_done(int src);         /* PG_TAG_GDONE from task src */
void pg_go_task_ended(int tid);   /* a task ended: its turn, if any, ends */

#endif
