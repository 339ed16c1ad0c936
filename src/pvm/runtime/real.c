/*
 * real.c - the real libpvm3 functions behind the wrappers.
 *
 * The library defines pvm_send & co. under their own names, so a program
 * linked with -lpangaea ahead of -lpvm3, or run with the library preloaded,
 * calls Pangaea first.  dlsym(RTLD_NEXT) finds the definition that comes
 * after ours in the search order: libpvm3's.  One table, filled once from
 * the list of wrapped calls (pg_calls.def).
 *
 * libgpvm3 may not be loaded although the program calls groups: linked
 * `-lpangaea -lgpvm3 --as-needed`, a program whose group calls are all
 * Pangaea's (since it wraps every one a program uses, pvm_freezegroup
 * too) does not need libgpvm3 in the linker's eyes, and it is dropped.
 * Its calls are then looked up in libgpvm3.so.3, loaded here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "pg_internal.h"

struct pg_real pg_real;

/* libgpvm3, loaded by us when the program did not load it. */
static void *find_group(const char *name)
{
    static void *lib;

    if (!lib)
        lib = dlopen("libgpvm3.so.3", RTLD_NOW | RTLD_GLOBAL);
    return lib ? dlsym(lib, name) : NULL;
}

static void *find(const char *name, int group)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (!f && group)
        f = find_group(name);

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
#define PG_CALL(name, ret, params, grp, ...)                                   \
    if (grp == group)                                                          \
        *(void **)&pg_real.name = find("pvm_" #name, group);
#define PG_LIBC(name, ret, params)                                             \
    if (group == 0)                                                            \
        *(void **)&pg_real.name = find(#name, 0);
#define PG_NAMED(name, ret, params, args, grp)                                \
    if (grp == group)                                                          \
        *(void **)&pg_real.name = find("pvm_" #name, group);
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
