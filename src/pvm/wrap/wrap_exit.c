/*
 * wrap_exit.c - pvm_exit.
 *
 * The program's pvm_exit is deferred to the end of the process (runtime.c):
 * the task then still belongs to PVM when it tells the coordinator how it
 * ended, and its logs are closed with that status.  PVM's own uses of
 * pvm_exit, and programs not under Pangaea, pass straight through.
 */
#include "pg_internal.h"

int pvm_exit(void)
{
    PG_RETURN_REAL_UNLESS(exit, pg_app_call(), pg_real.exit());
    if (pg.mode == PANGAEA_LOG) {
        /* The program is done with PVM: what it did must be on disk even
         * if the process dies before it exits. */
        pg_logw_flush(pg.comm);
        pg_logw_flush(pg.exec);
    }
    return 0;
}
