/*
 * real.c - the real libpvm3 functions behind the wrappers.
 *
 * The library defines pvm_send & co. under their own names, so a program
 * linked with -lpangaea ahead of -lpvm3, or run with the library preloaded,
 * calls Pangaea first.  dlsym(RTLD_NEXT) finds the definition that comes
 * after ours in the search order: libpvm3's.  One table, filled once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "pg_internal.h"

struct pg_real pg_real;

static void *find(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (!f) {
        fprintf(stderr, "pangaea: cannot find the real %s (is libpvm3 "
                        "loaded?): %s\n", name, dlerror());
        exit(PG_EXIT_FATAL);
    }
    return f;
}

void pg_real_load(void)
{
    static int loaded;

    if (loaded)
        return;
    /* The casts go through void * on purpose: dlsym returns object pointers. */
    *(void **)&pg_real.send = find("pvm_send");
    *(void **)&pg_real.mcast = find("pvm_mcast");
    *(void **)&pg_real.psend = find("pvm_psend");
    *(void **)&pg_real.recv = find("pvm_recv");
    *(void **)&pg_real.nrecv = find("pvm_nrecv");
    *(void **)&pg_real.trecv = find("pvm_trecv");
    *(void **)&pg_real.probe = find("pvm_probe");
    *(void **)&pg_real.precv = find("pvm_precv");
    *(void **)&pg_real.recvf = find("pvm_recvf");
    *(void **)&pg_real.spawn = find("pvm_spawn");
    *(void **)&pg_real.exit = find("pvm_exit");
    *(void **)&pg_real.notify = find("pvm_notify");
    *(void **)&pg_real.pstat = find("pvm_pstat");
    *(void **)&pg_real.mstat = find("pvm_mstat");
    *(void **)&pg_real.parent = find("pvm_parent");
    *(void **)&pg_real.siblings = find("pvm_siblings");
    *(void **)&pg_real.setopt = find("pvm_setopt");
    loaded = 1;
}

/* Only a program that calls a group function has libgpvm3 loaded. */
void pg_real_load_group(void)
{
    static int loaded;

    if (loaded)
        return;
    *(void **)&pg_real.joingroup = find("pvm_joingroup");
    *(void **)&pg_real.barrier = find("pvm_barrier");
    *(void **)&pg_real.lvgroup = find("pvm_lvgroup");
    *(void **)&pg_real.gettid = find("pvm_gettid");
    *(void **)&pg_real.getinst = find("pvm_getinst");
    *(void **)&pg_real.gsize = find("pvm_gsize");
    *(void **)&pg_real.bcast = find("pvm_bcast");
    *(void **)&pg_real.reduce = find("pvm_reduce");
    *(void **)&pg_real.gather = find("pvm_gather");
    *(void **)&pg_real.scatter = find("pvm_scatter");
    loaded = 1;
}
