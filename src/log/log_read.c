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

#include <fcntl.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "log_bin.h"
#include "log_table.h"
#include "log_xml.h"

struct pg_logr {
    pg_lx x;         /* first: the walk over the file */
    pg_br *bin;      /* or a binary communication log (log_binr.c) */
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
    if (v && pg_lx_parse_long(v, &version) == 0 &&
        (version < PG_LOG_VERSION_MIN || version > PG_LOG_VERSION))
        return pg_lx_fail(x, err, "written by log format version %ld, this "
                          "Pangaea reads versions %d to %d", version,
                          PG_LOG_VERSION_MIN, PG_LOG_VERSION);
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
        version < PG_LOG_VERSION_MIN || version > PG_LOG_VERSION)
        return pg_lx_fail(x, err, "bad version \"%.40s\"", x->arena + s[1]);
    if (pg_lx_parse_long(x->arena + s[2], &ltid) || ltid < 0 ||
        ltid > INT_MAX)
        return pg_lx_fail(x, err, "<header> has a bad ltid=\"%.40s\"",
                          x->arena + s[2]);
    const char *select = s[5] == (size_t)-1 ? "" : x->arena + s[5];
    const char *exe = s[6] == (size_t)-1 ? "" : x->arena + s[6];
    const char *sum = s[7] == (size_t)-1 ? "" : x->arena + s[7];
    const char *cwd = s[8] == (size_t)-1 ? "" : x->arena + s[8];
    const char *rec = s[9] == (size_t)-1 ? "" : x->arena + s[9];

    if (strlen(program) >= sizeof h->program || strlen(host) >= sizeof h->host ||
        strlen(select) >= sizeof h->select || strlen(exe) >= sizeof h->exe ||
        strlen(cwd) >= sizeof h->cwd)
        return pg_lx_fail(x, err, "<header> has a program or host name too "
                          "long");
    if (!pg_log_recording_ok(rec))
        return pg_lx_fail(x, err, "<header> recording=\"%.40s\" is not a "
                          "recording's identity (hex digits)", rec);
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
    strcpy(h->cwd, cwd);
    strcpy(h->recording, rec);
    return 0;
}

static int read_header(pg_logr *r, pg_log_header *h, pg_err *err)
{
    pg_lx *x = &r->x;
    size_t s[10] = { 0, 0, 0, 0, 0, (size_t)-1, (size_t)-1, (size_t)-1,
                     (size_t)-1, (size_t)-1 };
    const pg_lx_attr spec[] = {
        {"format", PG_LX_STR, &s[0]}, {"version", PG_LX_STR, &s[1]},
        {"ltid", PG_LX_STR, &s[2]},   {"program", PG_LX_STR, &s[3]},
        {"host", PG_LX_STR, &s[4]},   {"select", PG_LX_STR, &s[5], 1},
        {"exe", PG_LX_STR, &s[6], 1}, {"sha256", PG_LX_STR, &s[7], 1},
        {"cwd", PG_LX_STR, &s[8], 1}, {"recording", PG_LX_STR, &s[9], 1},
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

/* The attribute list of kind d, from the table: the common fields, then
 * the kind's own (list fields are elements, read apart).  Strings land in
 * offs[] as arena offsets until the arena stops moving; optional fields
 * start out absent. */
static int make_spec(const pg_evdesc *d, pg_event *ev, size_t *offs,
                     pg_lx_attr *spec)
{
    static const pg_lx_type lx[] = {
        [PG_FT_SEQ] = PG_LX_SEQ,   [PG_FT_TIME] = PG_LX_TIME,
        [PG_FT_INT] = PG_LX_INT,   [PG_FT_COUNT] = PG_LX_COUNT,
        [PG_FT_MSGID] = PG_LX_INT, [PG_FT_STR] = PG_LX_STR,
        [PG_FT_CALL] = PG_LX_CALL, [PG_FT_QCALL] = PG_LX_STR,
        [PG_FT_WHAT] = PG_LX_STR,  [PG_FT_INTS] = PG_LX_STR,
    };
    int nc, i, n = 0;
    const pg_field *c = pg_ev_common(&nc), *f;

    for (i = 0; i < nc + d->nfields; i++) {
        f = i < nc ? &c[i] : &d->fields[i - nc];
        offs[i] = (size_t)-1; /* an absent string: none (link_strings
                               * reads every field's, lists' too) */
        if (f->type == PG_FT_TO || f->type == PG_FT_ARGS ||
            f->type == PG_FT_CHILDREN)
            continue;
        if (f->optional)
            *PG_FIELD_PTR(ev, f, int) = f->absent;
        spec[n].name = f->name;
        spec[n].type = lx[f->type];
        spec[n].dst = spec[n].type == PG_LX_STR || spec[n].type == PG_LX_CALL
                          ? (void *)&offs[i] : PG_FIELD_PTR(ev, f, void);
        spec[n++].optional = f->optional;
    }
    return n;
}

/* A list of ints, "1 3" (rivals, format 8), into r->ltids (a <recv>
 * has no <to>): ev's count and pointer. */
static int parse_ints(pg_logr *r, const pg_evdesc *d, const pg_field *f,
                      const char *s, pg_event *ev, pg_err *err)
{
    char *end;
    long v;

    while (*s) {
        v = strtol(s, &end, 10);
        if (end == s || v <= 0 || v > INT_MAX || (*end && *end != ' ') ||
            r->ltids.n >= PG_LOG_MAX_LIST)
            return pg_lx_fail(&r->x, err, "<%s> %s=\"%.40s\": not a list "
                              "of positive numbers, one space between",
                              d->name, f->name, s);
        if (push_ltid(r, (int)v, err))
            return -1;
        s = *end ? end + 1 : end;
    }
    *PG_FIELD_PTR(ev, f, int) = (int)r->ltids.n;
    ev->rivals = r->ltids.p;
    return 0;
}

/* Points the string fields of ev into the arena and checks the fields
 * whose values come from a list. */
static int link_strings(pg_logr *r, const pg_evdesc *d, pg_event *ev,
                        const size_t *offs, pg_err *err)
{
    int nc, i, w;
    const pg_field *f;
    const char *s;

    pg_ev_common(&nc);
    for (i = 0; i < d->nfields; i++) {
        f = &d->fields[i];
        s = offs[nc + i] == (size_t)-1 ? "" : r->x.arena + offs[nc + i];
        if (f->type == PG_FT_INTS && parse_ints(r, d, f, s, ev, err))
            return -1;
        if (f->type == PG_FT_STR || f->type == PG_FT_CALL ||
            f->type == PG_FT_QCALL)
            *PG_FIELD_PTR(ev, f, const char *) = s;
        if (f->type == PG_FT_QCALL && !pg_log_query_known(s))
            return pg_lx_fail(&r->x, err, "<%s> %s=\"%.40s\": not "
                              "a call a <query> may name (pvm_pstat, "
                              "pvm_recvinfo, pvm_kill, ...)", d->name,
                              f->name, s);
        if (f->type != PG_FT_WHAT)
            continue;
        for (w = PG_NOTICE_EXIT; w <= PG_NOTICE_HOSTADD; w++)
            if (!strcmp(s, pg_notice_name(w)))
                break;
        if (w > PG_NOTICE_HOSTADD)
            return pg_lx_fail(&r->x, err, "<%s> %s=\"%.40s\": not exit, "
                              "hostdelete or hostadd", d->name, f->name, s);
        *PG_FIELD_PTR(ev, f, pg_notice_what) = (pg_notice_what)w;
    }
    return 0;
}

/* The <to> elements of a <send>. */
static int read_tos(pg_logr *r, pg_event *ev, int empty, pg_err *err)
{
    pg_lx *x = &r->x;
    int type;

    while (!empty &&
           (type = pg_lx_step_markup(x, err)) != XML_READER_TYPE_END_ELEMENT) {
        if (type < 0)
            return -1;
        if (!pg_lx_at(x, type, "to"))
            return pg_lx_fail(x, err, "<send> holds other than <to>");
        if (read_to(r, err))
            return -1;
    }
    ev->nto = (int)r->ltids.n;
    ev->to = r->ltids.p;
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

/* The <arg> and <child> elements of a <spawn>. */
static int read_spawn_items(pg_logr *r, pg_event *ev, int empty,
                            pg_err *err)
{
    pg_lx *x = &r->x;
    int type, argc = 0;

    while (!empty &&
           (type = pg_lx_step_markup(x, err)) != XML_READER_TYPE_END_ELEMENT)
        if (type < 0 || read_spawn_item(r, type, &argc, err))
            return -1;
    if ((long)r->ltids.n > ev->count)
        return pg_lx_fail(x, err, "<spawn> with %zu <child> for count=\"%d\"",
                          r->ltids.n, ev->count);
    return link_spawn(r, ev, argc, err);
}

/* One event: its attributes as the table lists them, then its elements. */
static int read_fields(pg_logr *r, const pg_evdesc *d, pg_event *ev,
                       int empty, pg_err *err)
{
    size_t offs[32];
    pg_lx_attr spec[32];
    int n = make_spec(d, ev, offs, spec);

    if (pg_lx_attrs(&r->x, d->name, spec, n, err) ||
        link_strings(r, d, ev, offs, err))
        return -1;
    ev->kind = d->kind;
    if (d->kind == PG_EV_SEND)
        return read_tos(r, ev, empty, err);
    if (d->kind == PG_EV_SPAWN)
        return read_spawn_items(r, ev, empty, err);
    return pg_lx_no_content(&r->x, d->name, empty, err);
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
    const pg_evdesc *d;
    int empty = xmlTextReaderIsEmptyElement(x->xr), rc;

    if (r->ended)
        return pg_lx_fail(x, err, "<%.40s> after <end>", name);
    x->used = r->ltids.n = r->offs.n = 0;
    memset(ev, 0, sizeof *ev);
    d = pg_ev_by_name(name, r->kind);
    if (!d)
        return pg_lx_fail(x, err, "unknown element <%.40s> in a %s log", name,
                          r->kind == PG_LOG_EXEC ? "exec" : "comm");
    rc = read_fields(r, d, ev, empty, err);
    r->ended = d->kind == PG_EV_END;
    if (rc)
        return -1;
    if (ev->seq != r->seq + 1)
        return pg_lx_fail(x, err, "seq %ld where %ld was due", ev->seq,
                          r->seq + 1);
    r->seq = ev->seq;
    return 1;
}

/* ---- the API --------------------------------------------------------- */

/* Communication logs are binary; an XML one (a -dump, an older recording)
 * is read too: the first bytes say which. */
static int is_binary(const char *path)
{
    pg_err ignored;
    int fd = pg_log_open_read(path, &ignored), bin;

    if (fd < 0)
        return 0; /* the XML walk names the error */
    bin = pg_br_is_binary(fd);
    close(fd);
    return bin;
}

/* A log named ltid-N.* (pg_log_path) must be task N's: swapped or copied
 * logs of other tasks would be read as this one's, and a replay would wait
 * for messages that never come.  Other names (a dump) are not checked. */
static int check_name(const char *path, const pg_log_header *h, pg_err *err)
{
    const char *base = strrchr(path, '/');
    int ltid = pg_log_name_split(base ? base + 1 : path, NULL);

    if (ltid < 0 || ltid == h->ltid)
        return 0;
    return pg_err_set(err, "%s: its header says ltid %d: the log of another "
                      "task (swapped or copied logs?)", path, h->ltid);
}

/* The recording of the directory that holds `path`: the identity in its
 * ltid-0.exec.xml (pangaea's own log), kept per thread for the last
 * directory asked about while that file stays the same.  0, or -1 when
 * there is no such file to compare with; -2 and err when it is bad. */
static int dir_recording(const char *path, char *id, pg_err *err)
{
    static __thread struct {
        char ref[4200], id[PG_LOG_RECORDING_MAX + 1];
        dev_t dev;
        ino_t ino;
        struct timespec mtime;
    } last;
    const char *slash = strrchr(path, '/');
    char ref[4200];
    pg_log_header h;
    struct stat st;
    pg_logr *r;

    snprintf(ref, sizeof ref, "%.*s%sltid-0.exec.xml",
             slash ? (int)(slash - path) : 0, path, slash ? "/" : "");
    if (stat(ref, &st) < 0 || !S_ISREG(st.st_mode))
        return -1;
    if (!strcmp(ref, last.ref) && st.st_dev == last.dev &&
        st.st_ino == last.ino && st.st_mtim.tv_sec == last.mtime.tv_sec &&
        st.st_mtim.tv_nsec == last.mtime.tv_nsec) {
        strcpy(id, last.id);
        return 0;
    }
    if (!(r = pg_logr_open(ref, PG_LOG_EXEC, &h, err)))
        return -2;
    pg_logr_close(r);
    snprintf(last.ref, sizeof last.ref, "%s", ref);
    strcpy(last.id, h.recording);
    last.dev = st.st_dev, last.ino = st.st_ino, last.mtime = st.st_mtim;
    strcpy(id, h.recording);
    return 0;
}

int pg_log_same_recording(const char *path, const char *id, pg_err *err)
{
    const char *base = strrchr(path, '/');
    const char *rest = NULL;
    char ref[PG_LOG_RECORDING_MAX + 1];
    int ltid, cc;

    base = base ? base + 1 : path;
    ltid = pg_log_name_split(base, &rest);
    if (ltid < 0 || (ltid == 0 && !strcmp(rest, "exec.xml")))
        return 0; /* no log of a recording, or the one compared with */
    if ((cc = dir_recording(path, ref, err)) == -1 || (cc == 0 &&
                                                       !strcmp(ref, id)))
        return 0;
    if (cc < 0)
        return -1;
    return pg_err_set(err, "%s is a log of %s%s, but its directory holds "
                      "%s%s (its ltid-0.exec.xml): a log copied in from "
                      "another recording?", path, *id ? "recording " : "",
                      *id ? id : "a recording without an identity (made "
                      "before they had one)", *ref ? "recording " : "",
                      *ref ? ref : "a recording without an identity");
}

static pg_logr *opened(pg_logr *r, const char *path,
                       const pg_log_header *h, pg_err *err)
{
    if (check_name(path, h, err) == 0 &&
        pg_log_same_recording(path, h->recording, err) == 0)
        return r;
    pg_logr_close(r);
    return NULL;
}

pg_logr *pg_logr_open(const char *path, pg_log_kind kind,
                      pg_log_header *hdr, pg_err *err)
{
    pg_log_header scratch;
    pg_err scratch_err;
    pg_logr *r;

    err = pg_err_or(err, &scratch_err);
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
    if (is_binary(path)) {
        if (kind != PG_LOG_COMM)
            pg_err_set(err, "%s: the wrong kind of log: a binary "
                       "communication log where an execution log was "
                       "expected", path);
        else if ((r->bin = pg_br_open(path, hdr ? hdr : &scratch, err)))
            return opened(r, path, hdr ? hdr : &scratch, err);
        pg_logr_close(r);
        return NULL;
    }
    if (pg_lx_open(&r->x, r->path, err) == 0 && read_root(r, err) == 0 &&
        read_header(r, hdr ? hdr : &scratch, err) == 0)
        return opened(r, path, hdr ? hdr : &scratch, err);
    pg_logr_close(r);
    return NULL;
}

/* The XML log's next event (pg_logr_next's slow half). */
static int next_xml(pg_logr *r, pg_event *ev, pg_err *err)
{
    int type;

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

static __attribute__((noinline)) int next_slow(pg_logr *r, pg_event *ev,
                                               pg_err *err)
{
    pg_err scratch;

    err = pg_err_or(err, &scratch);
    if (!r || !ev)
        return pg_err_set(err, "pg_logr_next: no reader or event");
    return next_xml(r, ev, err);
}

/* A binary log's events go straight to its reader (which takes a NULL
 * err), without the scratch error (and its stack guard) set up per event
 * of a replay. */
int pg_logr_next(pg_logr *r, pg_event *ev, pg_err *err)
{
    if (r && ev && r->bin)
        return pg_br_next(r->bin, ev, err);
    return next_slow(r, ev, err);
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
    if (r && r->bin)
        return pg_br_cut(r->bin);
    return r && r->cut;
}

int pg_logr_follow(pg_logr *r, pg_err *err)
{
    return r && r->bin ? pg_br_follow(r->bin, err) : 1;
}

long pg_logr_decoded(const pg_logr *r)
{
    return r && r->bin ? pg_br_decoded(r->bin) : 0;
}

void pg_logr_close(pg_logr *r)
{
    if (!r)
        return;
    if (r->bin)
        pg_br_close(r->bin);
    else
        pg_lx_close(&r->x);
    free(r->ltids.p);
    free(r->offs.p);
    free(r->ptrs.p);
    free(r->path);
    free(r);
}
