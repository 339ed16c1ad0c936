/*
 * wrap_named.c - the PVM calls Pangaea does not replay, named when used.
 *
 * pg_api.def accounts for every call libpvm3 and libgpvm3 export; the
 * few a program may call whose effect or answer a replay does not give
 * back (a signal sent, output collected, the virtual machine halted, a
 * group frozen...) are PG_NAMED rows of pg_calls.def, and their wrappers
 * are made here from those rows.  A wrapper lets the call through as the
 * program made it (no PG_ENTER: what PVM does inside it is handled as
 * before), but first says once, at the call's first use, in recording and
 * in replay alike, "pvm_X is not replayed: this run may not repeat", and
 * logs it, before the call (pvm_halt never returns), as a <query
 * call="not_replayed" about="pvm_X" value="0">: `pangaea -races` counts
 * them, and a replay checks that the program makes the call at the same
 * point (it diverges otherwise).
 * The value a replay returns is the real call's, not the recorded one:
 * that is what "not replayed" means.
 */
#include <stdio.h>

#include "pg_internal.h"

/* A call of the program's own (pangaea itself, ltid 0, is not a task of
 * the run), inside PANGAEA_ONLY's selection. */
static int named_app(void)
{
    return pg_app_call() && pg.ltid != 0;
}

/* The call's place among the task's events: logged (recording), checked
 * (replay, a what-if while it follows its old logs). */
static void place(const char *call)
{
    if (!pg_selected(-1))
        return;
    PG_ENTER();
    if (pg_replaying())
        pg_replay_query("not_replayed", call);
    if (pg.mode == PANGAEA_LOG)
        pg_record_query("not_replayed", call, 0);
    PG_LEAVE();
}

#define PG_NAMED(name, ret, params, args, group)                               \
    ret pvm_##name params                                                      \
    {                                                                          \
        static int said;                                                       \
                                                                               \
        if (group)                                                             \
            pg_real_load_group();                                              \
        else                                                                   \
            pg_real_load(); /* pangaea's own calls come early */               \
        PG_RETURN_REAL_UNLESS(name, named_app(), pg_real.name args);           \
        pg_name_once("pvm_" #name, &said);                                     \
        place("pvm_" #name);                                                   \
        return pg_real.name args;                                              \
    }
#include "pg_calls.def"
