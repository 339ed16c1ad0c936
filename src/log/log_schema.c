/*
 * log_schema.c - validates a log against schema/pangaea-log.xsd, and the
 * small facts of the format that are not tied to reading or writing: the
 * names of log files, the mark of a recording that did not end well
 * (pg_logdir_incomplete: read by `pangaea` and by the MPI library alike)
 * and the PVM calls a log may name.
 *
 * Design.  Validation streams: the schema is plugged into the same strict
 * walk the reader uses (log_xml.c: our descriptor, no network, no entities,
 * no DOCTYPE) by xmlTextReaderSetSchema, so checking a long log costs no
 * more memory than reading it and a log cannot make libxml2 open another
 * file.  The file is walked twice, first for well-formedness alone: with
 * the schema plugged in, libxml2 2.9 no longer reports parse errors to the
 * reader's handler, and they are the errors that need a line and column.  The first error, of the XML or
 * of the schema, comes back as "file:line:column: message".  The schema is
 * parsed again on every call: validation is for tests and tools, not for
 * the hot path.
 */
#define _GNU_SOURCE
#include "pg_log.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/xmlschemas.h>

#include "log_xml.h"

static xmlSchemaPtr load_schema(const char *xsd_path, pg_err *err)
{
    pg_lx px = {.path = xsd_path, .fd = -1}; /* only to collect errors */
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(xsd_path);
    xmlSchemaPtr schema = NULL;

    if (pc) {
        xmlSchemaSetParserStructuredErrors(pc, pg_lx_on_error, &px);
        schema = xmlSchemaParse(pc);
        xmlSchemaFreeParserCtxt(pc);
    }
    if (!schema) {
        if (px.failed)
            *err = px.fail;
        else
            pg_err_set(err, "%s: cannot load the schema", xsd_path);
    }
    return schema;
}

/* Walks the whole file, with the schema plugged in or not. */
static int walk(const char *path, xmlSchemaPtr schema, pg_err *err)
{
    pg_lx x;
    int type;

    if (pg_lx_open(&x, path, err))
        return -1;
    /* The reader's error handler is passed on to the schema by SetSchema.
     * Setting it again after would crash libxml2 2.9 on malformed XML (the
     * parser hands the relay the schema's SAX plug as if it were the
     * reader); as it is, parser errors are lost once the plug is in, which
     * is why the first walk is without it. */
    if (schema && xmlTextReaderSetSchema(x.xr, schema) != 0) {
        pg_lx_close(&x);
        return pg_err_set(err, "%s: cannot use the schema", path);
    }
    while ((type = pg_lx_step(&x, err)) > 0)
        ;
    if (type == 0 && schema && xmlTextReaderIsValid(x.xr) != 1)
        type = pg_err_set(err, "%s: not valid against the schema", path);
    pg_lx_close(&x); /* before the schema it uses */
    return type;
}

int pg_log_validate(const char *path, const char *xsd_path, pg_err *err)
{
    pg_err scratch;
    xmlSchemaPtr schema;
    int rc;

    err = pg_err_or(err, &scratch);
    if (!path || !xsd_path)
        return pg_err_set(err, "pg_log_validate: no path");
    schema = load_schema(xsd_path, err);
    if (!schema)
        return -1;
    /* first well-formed, then valid: see walk() */
    rc = walk(path, NULL, err);
    if (rc == 0)
        rc = walk(path, schema, err);
    xmlSchemaFree(schema);
    return rc;
}

int pg_log_path(char *buf, int size, const char *dir, int ltid,
                pg_log_kind kind)
{
    int n;

    if (!buf || size <= 0 || !dir || ltid < 0 ||
        (kind != PG_LOG_COMM && kind != PG_LOG_EXEC))
        return -1;
    n = snprintf(buf, (size_t)size, "%s/ltid-%d.%s", dir, ltid,
                 kind == PG_LOG_EXEC ? "exec.xml" : "comm.pgc");
    return (n < 0 || n >= size) ? -1 : 0;
}

int pg_logdir_incomplete(const char *dir)
{
    char mark[PATH_MAX + 32], word[sizeof PG_LOGDIR_COMPLETE_WORD] = "";
    struct stat st;
    int fd;
    ssize_t n;

    snprintf(mark, sizeof mark, "%s/%s", dir, PG_LOGDIR_INCOMPLETE);
    if (lstat(mark, &st) < 0) /* a link itself counts */
        return 0;
    fd = open(mark, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    n = fd < 0 ? -1 : read(fd, word, sizeof word - 1);
    if (fd >= 0)
        close(fd);
    return n != (ssize_t)strlen(PG_LOGDIR_COMPLETE_WORD) ||
           strcmp(word, PG_LOGDIR_COMPLETE_WORD);
}

int pg_log_name_ltid(const char *name, pg_log_kind kind)
{
    const char *rest;
    int ltid = pg_log_name_split(name, &rest);

    if (ltid < 0 || (kind != PG_LOG_COMM && kind != PG_LOG_EXEC))
        return -1;
    return strcmp(rest, kind == PG_LOG_EXEC ? "exec.xml" : "comm.pgc") ? -1
                                                                       : ltid;
}
