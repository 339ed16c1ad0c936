/*
 * log_xml.h - private to the log module (log_read.c, log_schema.c): a
 * strict, streaming walk over one XML file with libxml2's xmlTextReader.
 *
 * A pg_lx owns the file descriptor, the reader, the first error (sticky:
 * once a file is found bad every later call repeats the message) and an
 * arena for the strings of the element being read.  Functions that can
 * fail fill `err` and return -1, as everywhere in Pangaea.
 */
#ifndef PG_LOG_XML_H
#define PG_LOG_XML_H

#include <stddef.h>

#include <libxml/xmlreader.h>

#include "pg_err.h"

typedef struct pg_lx {
    xmlTextReaderPtr xr;
    int fd;
    int at_zero;      /* met the zeros that follow a log cut short */
    int cut;          /* the data stopped inside the root: we closed it */
    char root[16];    /* "pangaea-comm"/"pangaea-exec", once seen */
    char tail[32];    /* the last bytes of data, to see how it ended */
    const char *path; /* the caller's; must outlive the pg_lx */
    int failed;       /* `fail` holds the error, repeated from now on */
    pg_err fail;
    char *arena;      /* strings of the current element, NUL-separated */
    size_t used, cap;
} pg_lx;

/* A growable array of elements of one size. */
typedef struct pg_lx_vec {
    void *p;
    size_t n, cap;
} pg_lx_vec;

/* Opens path read-only and starts a reader on it (no network, no entity
 * substitution, no DTD loading, no decompression).  0, or -1 and err. */
int pg_lx_open(pg_lx *x, const char *path, pg_err *err);
void pg_lx_close(pg_lx *x);

/* libxml2 error handler (structured) keeping the first error of the pg_lx
 * passed as its argument as "path:line:column: message". */
#if LIBXML_VERSION >= 21200 /* 2.12 made the error argument const */
void pg_lx_on_error(void *lx, const xmlError *e);
#else
void pg_lx_on_error(void *lx, xmlErrorPtr e);
#endif

/* Records a complaint about the current node as "path:line: what". */
int pg_lx_fail(pg_lx *x, pg_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Next node that is not a comment: its XML_READER_TYPE_*, 0 at the end of
 * the file, -1 on error.  Refuses DOCTYPEs, processing instructions and
 * entity references. */
int pg_lx_step(pg_lx *x, pg_err *err);
/* Next element or end tag, past blanks; refuses text. */
int pg_lx_step_markup(pg_lx *x, pg_err *err);
/* Name of the current node ("?" if none). */
const char *pg_lx_name(pg_lx *x);
/* 1 if the current node (of type `type`) is an element called name. */
int pg_lx_at(pg_lx *x, int type, const char *name);
/* Passes over the end tag of an element that must have no content;
 * `empty` is what xmlTextReaderIsEmptyElement said at its start. */
int pg_lx_no_content(pg_lx *x, const char *elem, int empty, pg_err *err);

/* Appends len bytes of s to the arena string that starts at `off`,
 * within PG_LOG_MAX_STR and PG_LOG_MAX_EVENT; keeps it NUL-terminated. */
int pg_lx_arena_add(pg_lx *x, size_t off, const char *s, size_t len,
                    pg_err *err);
/* Ends the string started at `off` (its NUL is kept). */
int pg_lx_arena_end(pg_lx *x, size_t off, pg_err *err);
/* Stores a whole string; its offset goes to *off. */
int pg_lx_arena_put(pg_lx *x, const char *s, size_t *off, pg_err *err);

/* Room for one more element of size elem at the end of v (NULL and err
 * when out of memory). */
void *pg_lx_push(pg_lx *x, pg_lx_vec *v, size_t elem, pg_err *err);

/* Strict numbers: an optional sign and digits, nothing else (no blanks,
 * no exponent), read without strtod so the locale cannot change them. */
int pg_lx_parse_long(const char *s, long *out);
int pg_lx_parse_decimal(const char *s, double *out);

/* What an attribute holds, and where it goes. */
typedef enum {
    PG_LX_INT,   /* int *          any int                          */
    PG_LX_COUNT, /* int *          an int >= 0                      */
    PG_LX_SEQ,   /* long *         a long >= 1                      */
    PG_LX_TIME,  /* double *       a decimal                        */
    PG_LX_STR,   /* size_t *       arena offset of the string       */
    PG_LX_CALL   /* size_t *       same, a pg_log_call_known() name */
} pg_lx_type;

typedef struct pg_lx_attr {
    const char *name;
    pg_lx_type type;
    void *dst;
    int optional; /* may be absent (dst then keeps its value) */
} pg_lx_attr;

/* Reads the attributes of the current element: each must be one of spec
 * (at most 32), each of spec must be there.  Leaves the reader on the
 * element. */
int pg_lx_attrs(pg_lx *x, const char *elem, const pg_lx_attr *spec, int n,
                pg_err *err);

#endif
