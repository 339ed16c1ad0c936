/*
 * log_read.c - reads a task's log (see pg_log.h) back one event at a time.
 *
 * Design.  The format sits on log_xml.c's strict streaming walk, which owns
 * libxml2, the file, the sticky first error and the string arena; this
 * file knows the format: the root, the header, and each kind of event.  An
 * event is copied into arrays the reader owns and reuses (the arena for
 * strings, growable arrays for ltids, string offsets and pointers), which
 * is why the pointers of a pg_event live until the next call, and why
 * memory depends on the largest event, never on the length of the log.
 *
 * Beyond what the schema says, the reader checks what replay relies on:
 * seq counts 1, 2, 3..., nothing follows <end>, a spawn starts no more
 * tasks than it asked for, and the limits of pg_log.h hold.  A log that
 * stops before its closing root tag (a task that crashed, a disk that
 * filled) yields its events and then an error that names the file.
 */
#include "pg_log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "log_xml.h"

struct pg_logr {
    pg_lx x;         /* first: the walk over the file */
    char *path;      /* x.path points here */
    pg_log_kind kind;
    long seq;        /* seq of the last event returned */
    int ended;       /* <end> was read: no event may follow */
    int done;        /* the document ended cleanly */
    int cut;         /* it stops, after complete events, without closing */
    pg_lx_vec ltids; /* int: <to> or <child> ltids */
    pg_lx_vec offs;  /* size_t: arena offsets of the args, then the hosts */
    pg_lx_vec ptrs;  /* char *: argv, NULL, then the child hosts */
};

#define NSPEC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *root_name(pg_log_kind kind)
{
    return kind == PG_LOG_EXEC ? "pangaea-exec" : "pangaea-comm";
}

/* ---- root and header ------------------------------------------------- */

static int read_root(pg_logr *r, pg_err *err)
{
    pg_lx *x = &r->x;
    const char *want = root_name(r->kind);
    int type = pg_lx_step_markup(x, err);

    if (type <= 0)
        return type < 0 ? -1 : pg_lx_fail(x, err, "empty, no log in it");
    if (pg_lx_at(x, type, root_name(!r->kind)))
        return pg_lx_fail(x, err, "the wrong kind of log: <%s> where <%s> "
                          "was expected", root_name(!r->kind), want);
    if (!pg_lx_at(x, type, want))
        return pg_lx_fail(x, err, "root <%.40s>, not <%s>: not a Pangaea log",
                          pg_lx_name(x), want);
    if (xmlTextReaderHasAttributes(x->xr) == 1)
        return pg_lx_fail(x, err, "<%s> has attributes", want);
    if (xmlTextReaderIsEmptyElement(x->xr))
        return pg_lx_fail(x, err, "<%s> has no <header>", want);
    return 0;
}

/* Checks the version before anything else of the header: a log of another
 * version may differ in everything else, and that is the message to give. */
static int check_version(pg_logr *r, pg_err *err)
{
    pg_lx *x = &r->x;
    const char *v;
    long version;

    if (xmlTextReaderMoveToAttribute(x->xr, BAD_CAST "version") != 1)
        return 0; /* missing: pg_lx_attrs says so */
    v = (const char *)xmlTextReaderConstValue(x->xr);
    xmlTextReaderMoveToElement(x->xr);
    if (v && pg_lx_parse_long(v, &version) == 0 && version != PG_LOG_VERSION)
        return pg_lx_fail(x, err, "written by log format version %ld, this "
                          "Pangaea reads version %d", version,
                          PG_LOG_VERSION);
    return 0;
}

/* Interprets the header's strings, now that the version is known right. */
static int check_header(pg_logr *r, pg_log_header *h, const size_t *s,
                        pg_err *err)
{
    pg_lx *x = &r->x;
    const char *format = x->arena + s[0], *program = x->arena + s[3],
               *host = x->arena + s[4];
    long version, ltid;

    if (strcmp(format, root_name(r->kind)) != 0)
        return pg_lx_fail(x, err, "format \"%.40s\" in a <%s>", format,
                          root_name(r->kind));
    if (pg_lx_parse_long(x->arena + s[1], &version) ||
        version != PG_LOG_VERSION)
        return pg_lx_fail(x, err, "bad version \"%.40s\"", x->arena + s[1]);
    if (pg_lx_parse_long(x->arena + s[2], &ltid) || ltid < 0 ||
        ltid > INT_MAX)
        return pg_lx_fail(x, err, "<header> has a bad ltid=\"%.40s\"",
                          x->arena + s[2]);
    const char *select = s[5] == (size_t)-1 ? "" : x->arena + s[5];
    const char *exe = s[6] == (size_t)-1 ? "" : x->arena + s[6];
    const char *sum = s[7] == (size_t)-1 ? "" : x->arena + s[7];

    if (strlen(program) >= sizeof h->program || strlen(host) >= sizeof h->host ||
        strlen(select) >= sizeof h->select || strlen(exe) >= sizeof h->exe)
        return pg_lx_fail(x, err, "<header> has a program or host name too "
                          "long");
    if (*sum && (strlen(sum) != 64 || strspn(sum, "0123456789abcdef") != 64))
        return pg_lx_fail(x, err, "<header> sha256=\"%.70s\" is not a "
                          "SHA-256 in hex", sum);
    h->kind = r->kind;
    h->version = (int)version;
    h->ltid = (int)ltid;
    strcpy(h->program, program);
    strcpy(h->host, host);
    strcpy(h->select, select);
    strcpy(h->exe, exe);
    strcpy(h->sha256, sum);
    return 0;
}

static int read_header(pg_logr *r, pg_log_header *h, pg_err *err)
{
    pg_lx *x = &r->x;
    size_t s[8] = { 0, 0, 0, 0, 0, (size_t)-1, (size_t)-1, (size_t)-1 };
    const pg_lx_attr spec[] = {
        {"format", PG_LX_STR, &s[0]}, {"version", PG_LX_STR, &s[1]},
        {"ltid", PG_LX_STR, &s[2]},   {"program", PG_LX_STR, &s[3]},
        {"host", PG_LX_STR, &s[4]},   {"select", PG_LX_STR, &s[5], 1},
        {"exe", PG_LX_STR, &s[6], 1}, {"sha256", PG_LX_STR, &s[7], 1},
    };
    int type = pg_lx_step_markup(x, err), empty;

    if (type < 0)
        return -1;
    if (!pg_lx_at(x, type, "header"))
        return pg_lx_fail(x, err, "no <header> first in the log");
    empty = xmlTextReaderIsEmptyElement(x->xr);
    x->used = 0;
    if (check_version(r, err) ||
        pg_lx_attrs(x, "header", spec, NSPEC(spec), err) ||
        check_header(r, h, s, err))
        return -1;
    return pg_lx_no_content(x, "header", empty, err);
}

/* ---- comm events ----------------------------------------------------- */

static int push_ltid(pg_logr *r, int ltid, pg_err *err)
{
    int *slot = pg_lx_push(&r->x, &r->ltids, sizeof *slot, err);

    if (!slot)
        return -1;
    *slot = ltid;
    return 0;
}

static int read_to(pg_logr *r, pg_err *err)
{
    int ltid, empty = xmlTextReaderIsEmptyElement(r->x.xr);
    const pg_lx_attr spec[] = {{"ltid", PG_LX_INT, &ltid}};

    if (r->ltids.n >= PG_LOG_MAX_LIST)
        return pg_lx_fail(&r->x, err, "more than %d <to>", PG_LOG_MAX_LIST);
    if (pg_lx_attrs(&r->x, "to", spec, NSPEC(spec), err) ||
        push_ltid(r, ltid, err))
        return -1;
    return pg_lx_no_content(&r->x, "to", empty, err);
}

static int read_send(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    pg_lx *x = &r->x;
    size_t call;
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},     {"t", PG_LX_TIME, &ev->t},
        {"call", PG_LX_CALL, &call},      {"tag", PG_LX_INT, &ev->tag},
        {"msgid", PG_LX_INT, &ev->msgid}, {"bytes", PG_LX_COUNT, &ev->bytes},
        {"misses", PG_LX_COUNT, &ev->misses, 1},
    };
    int type;

    if (pg_lx_attrs(x, "send", spec, NSPEC(spec), err))
        return -1;
    while (!empty &&
           (type = pg_lx_step_markup(x, err)) != XML_READER_TYPE_END_ELEMENT) {
        if (type < 0)
            return -1;
        if (!pg_lx_at(x, type, "to"))
            return pg_lx_fail(x, err, "<send> holds other than <to>");
        if (read_to(r, err))
            return -1;
    }
    ev->kind = PG_EV_SEND;
    ev->call = x->arena + call;
    ev->nto = (int)r->ltids.n;
    ev->to = r->ltids.p;
    return 0;
}

static int read_recv(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    size_t call;
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},     {"t", PG_LX_TIME, &ev->t},
        {"call", PG_LX_CALL, &call},      {"from", PG_LX_INT, &ev->from},
        {"tag", PG_LX_INT, &ev->tag},     {"msgid", PG_LX_INT, &ev->msgid},
        {"bytes", PG_LX_COUNT, &ev->bytes},
        {"misses", PG_LX_COUNT, &ev->misses, 1},
    };

    if (pg_lx_attrs(&r->x, "recv", spec, NSPEC(spec), err) ||
        pg_lx_no_content(&r->x, "recv", empty, err))
        return -1;
    ev->kind = PG_EV_RECV;
    ev->call = r->x.arena + call;
    return 0;
}

static int read_notice(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    static const char *const names[] = { "exit", "hostdelete", "hostadd" };
    size_t call, what;
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},   {"t", PG_LX_TIME, &ev->t},
        {"call", PG_LX_CALL, &call},    {"tag", PG_LX_INT, &ev->tag},
        {"what", PG_LX_STR, &what},     {"ltid", PG_LX_INT, &ev->from},
        {"bytes", PG_LX_COUNT, &ev->bytes},
        {"misses", PG_LX_COUNT, &ev->misses, 1},
    };
    int i;

    if (pg_lx_attrs(&r->x, "notice", spec, NSPEC(spec), err) ||
        pg_lx_no_content(&r->x, "notice", empty, err))
        return -1;
    for (i = 0; i < 3 && strcmp(r->x.arena + what, names[i]); i++)
        ;
    if (i == 3)
        return pg_lx_fail(&r->x, err, "<notice> what=\"%.40s\": not exit, "
                          "hostdelete or hostadd", r->x.arena + what);
    ev->kind = PG_EV_NOTICE;
    ev->what = (pg_notice_what)(i + 1);
    ev->call = r->x.arena + call;
    return 0;
}

static int read_query(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    size_t call, about;
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},   {"t", PG_LX_TIME, &ev->t},
        {"call", PG_LX_STR, &call},     {"about", PG_LX_STR, &about},
        {"value", PG_LX_INT, &ev->value},
        {"misses", PG_LX_COUNT, &ev->misses, 1},
    };

    if (pg_lx_attrs(&r->x, "query", spec, NSPEC(spec), err) ||
        pg_lx_no_content(&r->x, "query", empty, err))
        return -1;
    if (!pg_log_query_known(r->x.arena + call))
        return pg_lx_fail(&r->x, err, "<query> call=\"%.40s\": not "
                          "pvm_pstat, pvm_mstat or pvm_gsize",
                          r->x.arena + call);
    ev->kind = PG_EV_QUERY;
    ev->call = r->x.arena + call;
    ev->about = r->x.arena + about;
    return 0;
}

static int read_gettid(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    size_t group;
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},     {"t", PG_LX_TIME, &ev->t},
        {"group", PG_LX_STR, &group},     {"inst", PG_LX_INT, &ev->inst},
        {"ltid", PG_LX_INT, &ev->from},
        {"order", PG_LX_COUNT, &ev->order, 1},
        {"misses", PG_LX_COUNT, &ev->misses, 1},
    };

    ev->order = -1;
    if (pg_lx_attrs(&r->x, "gettid", spec, NSPEC(spec), err) ||
        pg_lx_no_content(&r->x, "gettid", empty, err))
        return -1;
    ev->kind = PG_EV_GETTID;
    ev->group = r->x.arena + group;
    return 0;
}

static int read_leave(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    size_t group;
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},     {"t", PG_LX_TIME, &ev->t},
        {"group", PG_LX_STR, &group},     {"order", PG_LX_COUNT, &ev->order},
        {"misses", PG_LX_COUNT, &ev->misses, 1},
    };

    if (pg_lx_attrs(&r->x, "leave", spec, NSPEC(spec), err) ||
        pg_lx_no_content(&r->x, "leave", empty, err))
        return -1;
    ev->kind = PG_EV_LEAVE;
    ev->group = r->x.arena + group;
    return 0;
}

static int read_end(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},
        {"t", PG_LX_TIME, &ev->t},
        {"status", PG_LX_INT, &ev->status},
        {"misses", PG_LX_COUNT, &ev->misses, 1},
    };

    if (pg_lx_attrs(&r->x, "end", spec, NSPEC(spec), err) ||
        pg_lx_no_content(&r->x, "end", empty, err))
        return -1;
    ev->kind = PG_EV_END;
    r->ended = 1;
    return 0;
}

/* ---- exec events ----------------------------------------------------- */

/* An <arg> may say enc="hex" (the writer's form for bytes XML cannot
 * carry); 1 if it does, 0 if it has no attribute, -1 for anything else. */
static int arg_encoding(pg_lx *x, pg_err *err)
{
    xmlChar *enc;
    int hex;

    if (xmlTextReaderHasAttributes(x->xr) != 1)
        return 0;
    enc = xmlTextReaderGetAttribute(x->xr, BAD_CAST "enc");
    hex = enc && !strcmp((const char *)enc, "hex") &&
          xmlTextReaderAttributeCount(x->xr) == 1;
    xmlFree(enc);
    return hex ? 1 : pg_lx_fail(x, err, "<arg> has attributes other than "
                                "enc=\"hex\"");
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes the hex string at s in place: pairs of digits, no NUL byte. */
static int unhex(pg_lx *x, char *s, pg_err *err)
{
    size_t i, n = strlen(s);
    int hi, lo;

    if (n % 2)
        return pg_lx_fail(x, err, "<arg enc=\"hex\"> holds an odd number "
                          "of digits");
    for (i = 0; i < n / 2; i++) {
        hi = hex_digit(s[2 * i]);
        lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0 || (hi | lo) == 0)
            return pg_lx_fail(x, err, "<arg enc=\"hex\"> holds other than "
                              "hex digits of non-zero bytes");
        s[i] = (char)(hi << 4 | lo);
    }
    s[n / 2] = 0;
    return 0;
}

/* Reads the text of an <arg> into the arena; its offset goes to r->offs. */
static int read_arg(pg_logr *r, pg_err *err)
{
    pg_lx *x = &r->x;
    size_t *off = pg_lx_push(x, &r->offs, sizeof *off, err);
    int type, empty = xmlTextReaderIsEmptyElement(x->xr), hex;
    const char *text;

    if (!off)
        return -1;
    *off = x->used;
    if ((hex = arg_encoding(x, err)) < 0)
        return -1;
    while (!empty &&
           (type = pg_lx_step(x, err)) != XML_READER_TYPE_END_ELEMENT) {
        if (type != XML_READER_TYPE_TEXT && type != XML_READER_TYPE_CDATA &&
            type != XML_READER_TYPE_WHITESPACE &&
            type != XML_READER_TYPE_SIGNIFICANT_WHITESPACE)
            return type < 0 ? -1 : pg_lx_fail(x, err, "<arg> holds other "
                                              "than text");
        text = (const char *)xmlTextReaderConstValue(x->xr);
        if (text && pg_lx_arena_add(x, *off, text, strlen(text), err))
            return -1;
    }
    if (pg_lx_arena_end(x, *off, err))
        return -1;
    return hex ? unhex(x, x->arena + *off, err) : 0;
}

static int read_child(pg_logr *r, pg_err *err)
{
    size_t *off = pg_lx_push(&r->x, &r->offs, sizeof *off, err);
    int ltid, empty = xmlTextReaderIsEmptyElement(r->x.xr);
    const pg_lx_attr spec[] = {{"ltid", PG_LX_INT, &ltid},
                               {"host", PG_LX_STR, off}};

    if (!off || pg_lx_attrs(&r->x, "child", spec, NSPEC(spec), err) ||
        push_ltid(r, ltid, err))
        return -1;
    return pg_lx_no_content(&r->x, "child", empty, err);
}

/* Points argv and the child hosts into the arena, now that it no longer
 * moves: ptrs = argv[0..argc-1], NULL, host[0..nchild-1]. */
static int link_spawn(pg_logr *r, pg_event *ev, int argc, pg_err *err)
{
    size_t i, n = r->offs.n, *offs = r->offs.p;
    char **p;

    r->ptrs.n = 0;
    for (i = 0; i <= n; i++) {
        p = pg_lx_push(&r->x, &r->ptrs, sizeof *p, err);
        if (!p)
            return -1;
        if (i == (size_t)argc)
            *p = NULL;
        else
            *p = r->x.arena + offs[i < (size_t)argc ? i : i - 1];
    }
    p = r->ptrs.p;
    ev->argc = argc;
    ev->argv = p;
    ev->nchild = (int)r->ltids.n;
    ev->child_ltid = r->ltids.p;
    ev->child_host = (const char *const *)(p + argc + 1);
    return 0;
}

/* One element inside <spawn>: <arg>s first, then <child>ren. */
static int read_spawn_item(pg_logr *r, int type, int *argc, pg_err *err)
{
    pg_lx *x = &r->x;
    int is_arg = pg_lx_at(x, type, "arg");

    if (!is_arg && !pg_lx_at(x, type, "child"))
        return pg_lx_fail(x, err, "<spawn> holds other than <arg> and "
                          "<child>");
    if (is_arg && r->ltids.n > 0)
        return pg_lx_fail(x, err, "<arg> after <child>");
    if ((is_arg ? (size_t)*argc : r->ltids.n) >= PG_LOG_MAX_LIST)
        return pg_lx_fail(x, err, "more than %d <%s>", PG_LOG_MAX_LIST,
                          is_arg ? "arg" : "child");
    *argc += is_arg;
    return is_arg ? read_arg(r, err) : read_child(r, err);
}

static int read_spawn(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    pg_lx *x = &r->x;
    size_t program, where;
    const pg_lx_attr spec[] = {
        {"seq", PG_LX_SEQ, &ev->seq},     {"t", PG_LX_TIME, &ev->t},
        {"program", PG_LX_STR, &program}, {"flags", PG_LX_INT, &ev->flags},
        {"where", PG_LX_STR, &where},     {"count", PG_LX_COUNT, &ev->count},
    };
    int type, argc = 0;

    if (pg_lx_attrs(x, "spawn", spec, NSPEC(spec), err))
        return -1;
    while (!empty &&
           (type = pg_lx_step_markup(x, err)) != XML_READER_TYPE_END_ELEMENT)
        if (type < 0 || read_spawn_item(r, type, &argc, err))
            return -1;
    if ((long)r->ltids.n > ev->count)
        return pg_lx_fail(x, err, "<spawn> with %zu <child> for count=\"%d\"",
                          r->ltids.n, ev->count);
    ev->kind = PG_EV_SPAWN;
    ev->program = x->arena + program;
    ev->where = x->arena + where;
    return link_spawn(r, ev, argc, err);
}

/* ---- the document ---------------------------------------------------- */

/* After the root's end tag: nothing but comments, then the end. */
static int read_trailer(pg_logr *r, pg_err *err)
{
    int type = pg_lx_step_markup(&r->x, err);

    if (type != 0)
        return type < 0 ? -1 : pg_lx_fail(&r->x, err, "content after </%s>",
                                          root_name(r->kind));
    r->done = 1;
    return 0;
}

static int read_event(pg_logr *r, pg_event *ev, pg_err *err)
{
    pg_lx *x = &r->x;
    const char *name = pg_lx_name(x);
    int empty = xmlTextReaderIsEmptyElement(x->xr), rc;

    if (r->ended)
        return pg_lx_fail(x, err, "<%.40s> after <end>", name);
    x->used = r->ltids.n = r->offs.n = 0;
    memset(ev, 0, sizeof *ev);
    if (strcmp(name, "end") == 0)
        rc = read_end(r, ev, empty, err);
    else if (r->kind == PG_LOG_COMM && strcmp(name, "send") == 0)
        rc = read_send(r, ev, empty, err);
    else if (r->kind == PG_LOG_COMM && strcmp(name, "recv") == 0)
        rc = read_recv(r, ev, empty, err);
    else if (r->kind == PG_LOG_COMM && strcmp(name, "gettid") == 0)
        rc = read_gettid(r, ev, empty, err);
    else if (r->kind == PG_LOG_COMM && strcmp(name, "notice") == 0)
        rc = read_notice(r, ev, empty, err);
    else if (r->kind == PG_LOG_COMM && strcmp(name, "query") == 0)
        rc = read_query(r, ev, empty, err);
    else if (r->kind == PG_LOG_COMM && strcmp(name, "leave") == 0)
        rc = read_leave(r, ev, empty, err);
    else if (r->kind == PG_LOG_EXEC && strcmp(name, "spawn") == 0)
        rc = read_spawn(r, ev, empty, err);
    else
        return pg_lx_fail(x, err, "unknown element <%.40s> in a %s log", name,
                          r->kind == PG_LOG_EXEC ? "exec" : "comm");
    if (rc)
        return -1;
    if (ev->seq != r->seq + 1)
        return pg_lx_fail(x, err, "seq %ld where %ld was due", ev->seq,
                          r->seq + 1);
    r->seq = ev->seq;
    return 1;
}

/* ---- the API --------------------------------------------------------- */

pg_logr *pg_logr_open(const char *path, pg_log_kind kind,
                      pg_log_header *hdr, pg_err *err)
{
    pg_log_header scratch;
    pg_err scratch_err;
    pg_logr *r;

    if (!err)
        err = &scratch_err;
    if (!path || (kind != PG_LOG_COMM && kind != PG_LOG_EXEC)) {
        pg_err_set(err, "pg_logr_open: no path or bad kind");
        return NULL;
    }
    r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        pg_err_set(err, "%s: out of memory", path);
        free(r);
        return NULL;
    }
    r->kind = kind;
    if (pg_lx_open(&r->x, r->path, err) == 0 && read_root(r, err) == 0 &&
        read_header(r, hdr ? hdr : &scratch, err) == 0)
        return r;
    pg_logr_close(r);
    return NULL;
}

int pg_logr_next(pg_logr *r, pg_event *ev, pg_err *err)
{
    pg_err scratch;
    int type;

    if (!err)
        err = &scratch;
    if (!r || !ev)
        return pg_err_set(err, "pg_logr_next: no reader or event");
    if (r->x.failed) {
        *err = r->x.fail;
        return -1;
    }
    if (r->done)
        return 0;
    type = pg_lx_step_markup(&r->x, err);
    if (type == XML_READER_TYPE_END_ELEMENT && r->x.cut && (r->cut = 1))
        return pg_lx_fail(&r->x, err, "stops after event %ld without closing"
                          ": the task was killed or crashed, or the file was "
                          "cut", r->seq);
    if (type == XML_READER_TYPE_END_ELEMENT)
        return read_trailer(r, err);
    if (type == 0)
        return pg_lx_fail(&r->x, err, "ends before </%s>: truncated",
                          root_name(r->kind));
    return type < 0 ? -1 : read_event(r, ev, err);
}

int pg_log_check_cut(const char *path, pg_log_kind kind, long *events,
                     pg_err *err)
{
    pg_logr *r = pg_logr_open(path, kind, NULL, err);
    pg_event ev;
    int cc;

    *events = 0;
    if (!r)
        return -1;
    while ((cc = pg_logr_next(r, &ev, err)) == 1)
        (*events)++;
    if (cc < 0 && pg_logr_cut(r))
        cc = 1;
    pg_logr_close(r);
    return cc;
}

int pg_logr_cut(const pg_logr *r)
{
    return r && r->cut;
}

void pg_logr_close(pg_logr *r)
{
    if (!r)
        return;
    pg_lx_close(&r->x);
    free(r->ltids.p);
    free(r->offs.p);
    free(r->ptrs.p);
    free(r->path);
    free(r);
}
