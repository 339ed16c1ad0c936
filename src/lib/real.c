/*
 * real.c - the real libpvm3 functions behind the wrappers.
 *
 * The library defines pvm_send & co. under their own names, so a program
 * linked with -lpangaea ahead of -lpvm3, or run with the library preloaded,
 * calls Pangaea first.  dlsym(RTLD_NEXT) finds the definition that comes
 * after ours in the search order: libpvm3's.  One table, filled once from
 * the list of wrapped calls (pg_calls.def).
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

/* Finds, once, the calls of pg_calls.def whose group column is `group`.
 * The casts go through void * on purpose: dlsym returns object pointers. */
static void load(int group)
{
    static int loaded[2];

    if (loaded[group])
        return;
#define PG_CALL(name, ret, params, grp)                                        \
    if (grp == group)                                                          \
        *(void **)&pg_real.name = find("pvm_" #name);
#define PG_LIBC(name, ret, params)                                             \
    if (group == 0)                                                            \
        *(void **)&pg_real.name = find(#name);
#define PG_NAMED(name, ret, params, args, grp)                                \
    if (grp == group)                                                          \
        *(void **)&pg_real.name = find("pvm_" #name);
#include "pg_calls.def"
#undef PG_CALL
    loaded[group] = 1;
}

void pg_real_load(void)
{
    load(0);
}

/* Only a program that calls a group function has libgpvm3 loaded. */
void pg_real_load_group(void)
{
    load(1);
}
