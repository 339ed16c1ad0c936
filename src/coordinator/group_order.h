/*
 * group_order.h - the coordinator keeps the order of group joins and leaves
 * (see group_order.c).
 */
#ifndef PG_GROUP_ORDER_H
#define PG_GROUP_ORDER_H

void pg_go_turn(int src);         /* PG_TAG_GTURN from task src */
void pg_go_done(int src);         /* PG_TAG_GDONE from task src */
void pg_go_task_ended(int tid);   /* a task ended: its turn, if any, ends */

#endif
