/*
 * wrap_context.c - pvm_newcontext: a PVM context named the same in every
 * run, for the log's ctx.
 *
 * pvm_newcontext hands out numbers from a counter of the daemon, shared
 * by every task (docs/pvm-notes.md): the number depends on the order in
 * which all tasks asked, so it differs from run to run.  A send's and a
 * receive's context are logged (the event's ctx, docs/comm-log-format.md)
 * so that `pangaea -races` offers a receive only the messages of its own
 * context; that needs a name that does not change: 4096 x the maker's
 * ltid + n, for the n-th context the program made in that task (n <
 * 4096; later ones are logged as 0, unknown).  The maker tells the
 * coordinator the name as it makes the context (a round trip: any task
 * that learns the number from it, in a message, learns it after), and a
 * task that meets a number it did not make asks the coordinator once
 * (PG_TAG_CTXNAME, pg_proto.h); the base context stays 0.  Only a
 * recording (and a what-if) names contexts: a replay writes no log.
 */
#include "pg_internal.h"

#define CTX_PER_TASK 4096
#define CACHED 64

static struct { int ctx, name; } known[CACHED];
static int nknown, made;

static void remember(int ctx, int name)
{
    known[nknown % CACHED].ctx = ctx;
    known[nknown % CACHED].name = name;
    nknown++;
}

/* The runtime starts at the program's first wrapped call: this may be
 * it (pvm_mytid is not wrapped). */
static int naming(void)
{
    return pg.mode == PANGAEA_LOG && pg_start() == 0 && pg.ltid > 0 &&
           pg.coord > 0;
}

int pvm_newcontext(void)
{
    int ctx, name;

    pg_real_load();
    ctx = pg_real.newcontext();
    if (ctx <= 0 || pg.depth > 0 || !naming())
        return ctx;
    name = ++made < CTX_PER_TASK ? pg.ltid * CTX_PER_TASK + made : 0;
    remember(ctx, name);
    if (name) {
        pg.depth++;
        pg_coord_ctx_name(ctx, name);
        pg.depth--;
    }
    return ctx;
}

/* The name of context ctx (not 0), from what this task made or asked
 * before, else from the coordinator. */
static int name_of(int ctx)
{
    int i, name;

    for (i = 0; i < nknown && i < CACHED; i++)
        if (known[i].ctx == ctx)
            return known[i].name;
    pg.depth++;
    name = pg_coord_ctx_name(ctx, 0);
    pg.depth--;
    remember(ctx, name);
    return name;
}

void pg_context_note(int ctx)
{
    if (naming() && pg.comm)
        pg_logw_ctx(pg.comm, name_of(ctx));
}
