/*
 * group_order.c - one order for the joins and leaves of each PVM group.
 *
 * The group server hands out the lowest free instance, so the instance a
 * join gets depends on every join and leave before it, by any task.  Tasks
 * cannot see that order; the coordinator makes one.  A task asks for its
 * turn in group G before it joins or leaves and says when it is done; only
 * one task at a time has a turn in G, and each turn has a number, 0, 1, ...
 * When recording, turns go in the order asked, and the task logs its
 * number.  In replay, a task asks for the number it logged, and gets the
 * turn when every turn before it in G is done.  So the server sees the
 * joins and leaves in the recorded order, and hands out the recorded
 * instances.  A task that ends in its turn gives it up.  A what-if run
 * (src/pvm/runtime/whatif.c) follows the first P turns of a group as recorded and
 * asks for the others with -2 - P: the next, once turn P is reached.
 */
#include <pvm3.h>
#include <string.h>

#include "coord.h"
#include "pg_proto.h"

struct order {
    char name[256];
    int next;       /* the number of the next turn */
    int holder;     /* tid that has the turn, or 0 */
};

struct ask {
    int tid, want;  /* want: a turn number, -1 for the next, -2 - P for the
                       next from turn P on */
    char name[256];
};

static struct order *orders;
static int norders;
static size_t cap_orders;
static struct ask *asks;
static int nasks;
static size_t cap_asks;

/* The order of group `name`, made if new.  Making one may move orders[]:
 * a pointer from here is good only until the next order_of() (grant()). */
static struct order *order_of(const char *name)
{
    int i;

    for (i = 0; i < norders; i++)
        if (!strcmp(orders[i].name, name))
            return &orders[i];
    pg_co_grow(&orders, &cap_orders, norders + 1, sizeof *orders);
    memset(&orders[norders], 0, sizeof *orders);
    strncpy(orders[norders].name, name, sizeof orders[norders].name - 1);
    return &orders[norders++];
}

/* Gives every turn that can be given now. */
static void grant(void)
{
    struct order *o;
    int i = 0;

    while (i < nasks) {
        o = order_of(asks[i].name);
        if (o->holder || (asks[i].want >= 0 && asks[i].want != o->next) ||
            (asks[i].want <= -2 && o->next < -2 - asks[i].want)) {
            i++;
            continue;
        }
        o->holder = asks[i].tid;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&o->next, 1, 1);
        pvm_send(asks[i].tid, PG_TAG_GTURN_R);
        asks[i] = asks[--nasks];
        i = 0; /* the order may matter: look again from the start */
    }
}

void pg_go_turn(int src)
{
    struct ask a;

    memset(&a, 0, sizeof a);
    a.tid = src;
    pvm_upkint(&a.want, 1, 1);
    pvm_upkstr(a.name);
    pg_co_grow(&asks, &cap_asks, nasks + 1, sizeof *asks);
    asks[nasks++] = a;
    grant();
}

static void end_turn(struct order *o)
{
    o->holder = 0;
    o->next++;
    grant(); /* may move orders[]: o is not used after this */
}

void pg_go_done(int src)
{
    char name[256];
    struct order *o;

    pvm_upkstr(name);
    o = order_of(name);
    if (o->holder == src)
        end_turn(o);
}

void pg_go_task_ended(int tid)
{
    int i;

    for (i = 0; i < nasks; i++)
        if (asks[i].tid == tid)
            asks[i--] = asks[--nasks];
    for (i = 0; i < norders; i++)
        if (orders[i].holder == tid)
            end_turn(&orders[i]);
}
