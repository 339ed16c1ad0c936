/* err.c - see pg_err.h. */
#include "pg_err.h"

#include <stdio.h>

int pg_err_set(pg_err *err, const char *fmt, ...)
{
    va_list ap;

    if (err) {
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}
