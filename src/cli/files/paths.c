/*
 * paths.c - where `pangaea` finds its coordinator, the library it preloads
 * into tasks, and the schema: relative to its own executable.
 *
 * Design.  `pangaea` runs from two layouts, and tells them apart by what
 * lies beside its executable (/proc/self/exe, links resolved), never by an
 * environment variable or a path compiled in:
 *   build tree   build/pangaea, build/pangaea-coord, build/libpangaea.so;
 *                the schema in the source tree, ../schema
 *   installed    BIN/pangaea, BIN/../lib/pangaea/{pangaea-coord,
 *                libpangaea.so}, BIN/../share/pangaea/pangaea-log.xsd
 *                (`make install`; lib/pangaea/libpangaea.so links to the
 *                library in LIBDIR, so a program linked with -lpangaea and
 *                the preloaded copy are one file, loaded once)
 * A build tree is recognised by pangaea-coord beside the executable.  Only
 * when neither layout holds (a unit test binary) does the schema come from
 * the source tree the binary was built in (PG_SCHEMA_DIR).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "top.h"

static char libexec[PATH_MAX], schema[PATH_MAX];

static int exists(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* The directory of our executable, "" if /proc cannot say. */
static void self_dir(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    char *slash;

    out[n > 0 ? n : 0] = 0;
    slash = strrchr(out, '/');
    if (slash)
        *slash = 0;
}

static void find(void)
{
    char self[PATH_MAX - 64]; /* room for what follows it */

    if (libexec[0])
        return;
    self_dir(self, sizeof self);
    if (exists(self, "pangaea-coord")) { /* the build tree */
        snprintf(libexec, sizeof libexec, "%s", self);
        snprintf(schema, sizeof schema, "%s/../schema", self);
    } else { /* installed */
        snprintf(libexec, sizeof libexec, "%s/../lib/pangaea", self);
        snprintf(schema, sizeof schema, "%s/../share/pangaea", self);
    }
    if (!exists(schema, "pangaea-log.xsd"))
        snprintf(schema, sizeof schema, "%s", PG_SCHEMA_DIR);
}

const char *top_libexec_dir(void)
{
    find();
    return libexec;
}

const char *top_schema_dir(void)
{
    find();
    return schema;
}
