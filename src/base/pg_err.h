/*
 * pg_err.h - errors as values that carry a message.
 *
 * A function that can fail takes a `pg_err *` last and, on failure, fills it
 * with one line that names what went wrong and where (file, line, column,
 * task, event), then returns -1.  The caller decides whether to print it.
 */
#ifndef PG_ERR_H
#define PG_ERR_H

#include <stdarg.h>

typedef struct pg_err {
    char msg[1024];
} pg_err;

/* Fills err (if not NULL) with a printf-style message; always returns -1. */
int pg_err_set(pg_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* err, or `scratch` when the caller passed none (NULL): for a function
 * whose helpers fill the error they are given. */
static inline pg_err *pg_err_or(pg_err *err, pg_err *scratch)
{
    return err ? err : scratch;
}

#endif
