/*
 * test_log_table.c - the event table (src/log/pg_events.def) against
 * schema/pangaea-log.xsd, both ways.
 *
 * Design.  The schema is parsed with libxml2 as a tree; for each root
 * (<pangaea-comm>, <pangaea-exec>) every element it may hold but <header>
 * is an event, and its complex type gives its attributes (directly or
 * through attribute groups, followed recursively) with use="required" or
 * "optional", and the elements it may hold.  Every schema event must be a
 * row of the table for that log, with exactly the table's fields (the
 * common ones, seq, t and misses, included) and the same optionality; and
 * every row of the table must be an event of the schema for each log it
 * names.  So neither can gain or lose a field without the other.
 *
 * The same for the call codes: the schema's enumerations of message and
 * query calls are the log's code tables (pg_msg_calls, pg_query_calls,
 * made from pg_calls.def's code columns), in code order, and every code
 * up to the last has a name, used once.
 */
#include <check.h>

#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "log_table.h"

#define XSD PG_SCHEMA_DIR "/pangaea-log.xsd"

static xmlDocPtr doc;

static int is_xs(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static char *prop(xmlNodePtr n, const char *name)
{
    return (char *)xmlGetProp(n, BAD_CAST name);
}

/* The top-level xs:<what> called name. */
static xmlNodePtr top(const char *what, const char *name)
{
    xmlNodePtr n;
    char *v;
    int hit;

    for (n = xmlDocGetRootElement(doc)->children; n; n = n->next) {
        if (!is_xs(n, what) || !(v = prop(n, "name")))
            continue;
        hit = !strcmp(v, name);
        xmlFree(v);
        if (hit)
            return n;
    }
    return NULL;
}

/* What the schema says of one event: "name:R" or "name:O" per attribute,
 * "<name>" per element, each followed by a space, sorted by appearance. */
struct shape {
    char attrs[1024];
    char elems[256];
};

static void add_attrs(xmlNodePtr type, struct shape *s);

static void add_one(xmlNodePtr n, struct shape *s)
{
    char *name, *use, *ref;

    if (is_xs(n, "attribute")) {
        name = prop(n, "name");
        use = prop(n, "use");
        ck_assert_ptr_nonnull(name);
        snprintf(s->attrs + strlen(s->attrs), sizeof s->attrs - strlen(s->attrs),
                 "%s:%c ", name, use && !strcmp(use, "required") ? 'R' : 'O');
        xmlFree(name);
        xmlFree(use);
    } else if (is_xs(n, "attributeGroup")) {
        ref = prop(n, "ref");
        ck_assert_ptr_nonnull(ref);
        ck_assert_msg(top("attributeGroup", ref), "no group %s", ref);
        add_attrs(top("attributeGroup", ref), s);
        xmlFree(ref);
    } else if (is_xs(n, "element")) {
        name = prop(n, "name");
        snprintf(s->elems + strlen(s->elems), sizeof s->elems - strlen(s->elems),
                 "<%s> ", name);
        xmlFree(name);
    } else if (is_xs(n, "sequence") || is_xs(n, "choice")) {
        add_attrs(n, s);
    }
}

static void add_attrs(xmlNodePtr type, struct shape *s)
{
    xmlNodePtr n;

    for (n = type->children; n; n = n->next)
        add_one(n, s);
}

/* The same, from the table: the common fields, then the kind's. */
static void table_shape(const pg_evdesc *d, struct shape *s)
{
    const pg_field *c;
    int nc, i;

    memset(s, 0, sizeof *s);
    c = pg_ev_common(&nc);
    for (i = 0; i < nc + d->nfields; i++) {
        const pg_field *f = i < nc ? &c[i] : &d->fields[i - nc];
        char *p = f->type >= PG_FT_TO ? s->elems : s->attrs;
        size_t size = f->type >= PG_FT_TO ? sizeof s->elems : sizeof s->attrs;

        if (f->type >= PG_FT_TO)
            snprintf(p + strlen(p), size - strlen(p), "<%s> ", f->name);
        else
            snprintf(p + strlen(p), size - strlen(p), "%s:%c ", f->name,
                     f->optional ? 'O' : 'R');
    }
}

static int word_cmp(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Sorted copy of a space-separated list, to compare as sets. */
static void sorted(const char *in, char *out, size_t size)
{
    char words[64][64], buf[1024];
    int n = 0, i;
    char *w;

    snprintf(buf, sizeof buf, "%s", in);
    for (w = strtok(buf, " "); w && n < 64; w = strtok(NULL, " "))
        snprintf(words[n++], 64, "%s", w);
    qsort(words, (size_t)n, sizeof words[0], word_cmp);
    out[0] = 0;
    for (i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s ", words[i]);
}

static void same_set(const char *what, const char *a, const char *b)
{
    char sa[1024], sb[1024];

    sorted(a, sa, sizeof sa);
    sorted(b, sb, sizeof sb);
    ck_assert_msg(!strcmp(sa, sb), "%s: schema [%s], table [%s]", what, sa,
                  sb);
}

/* Every element a root may hold but <header>, as "name type" pairs. */
static int root_events(const char *root, char names[][64], char types[][64])
{
    xmlNodePtr stack[64], n;
    int sp = 0, k = 0;
    char *name, *type;

    stack[sp++] = top("element", root);
    ck_assert_ptr_nonnull(stack[0]);
    while (sp > 0) {
        for (n = stack[--sp]->children; n; n = n->next) {
            if (n->type != XML_ELEMENT_NODE)
                continue;
            if (!is_xs(n, "element")) {
                stack[sp++] = n;
                continue;
            }
            name = prop(n, "name");
            type = prop(n, "type");
            if (strcmp(name, "header") && k < 32) {
                snprintf(names[k], 64, "%s", name);
                snprintf(types[k++], 64, "%s", type);
            }
            xmlFree(name);
            xmlFree(type);
        }
    }
    return k;
}

static void check_root(const char *root, pg_log_kind log)
{
    char names[32][64], types[32][64], what[128];
    struct shape schema, table;
    const pg_evdesc *d;
    int n = root_events(root, names, types), i;

    ck_assert_int_gt(n, 0);
    for (i = 0; i < n; i++) {
        d = pg_ev_by_name(names[i], log);
        ck_assert_msg(d, "<%s> of <%s> is not in pg_events.def", names[i],
                      root);
        memset(&schema, 0, sizeof schema);
        ck_assert_msg(top("complexType", types[i]), "no type %s", types[i]);
        add_attrs(top("complexType", types[i]), &schema);
        table_shape(d, &table);
        snprintf(what, sizeof what, "<%.60s> attributes", names[i]);
        same_set(what, schema.attrs, table.attrs);
        snprintf(what, sizeof what, "<%.60s> elements", names[i]);
        same_set(what, schema.elems, table.elems);
    }
}

START_TEST(test_every_schema_event_is_a_row_with_the_same_fields)
{
    check_root("pangaea-comm", PG_LOG_COMM);
    check_root("pangaea-exec", PG_LOG_EXEC);
}
END_TEST

static int in_root(const char *root, const char *name)
{
    char names[32][64], types[32][64];
    int n = root_events(root, names, types), i;

    for (i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

START_TEST(test_every_row_is_an_event_of_the_schema_for_its_logs)
{
    int n, i;
    const pg_evdesc *d = pg_ev_all(&n);

    ck_assert_int_ge(n, 8);
    for (i = 0; i < n; i++) {
        ck_assert_msg(d[i].logs & (PG_IN_COMM | PG_IN_EXEC), "%s: no log",
                      d[i].name);
        ck_assert_ptr_eq(pg_ev_desc(d[i].kind), &d[i]);
        if (d[i].logs & PG_IN_COMM)
            ck_assert_msg(in_root("pangaea-comm", d[i].name),
                          "<%s> is not in the schema's <pangaea-comm>",
                          d[i].name);
        if (d[i].logs & PG_IN_EXEC)
            ck_assert_msg(in_root("pangaea-exec", d[i].name),
                          "<%s> is not in the schema's <pangaea-exec>",
                          d[i].name);
    }
}
END_TEST

START_TEST(test_a_field_missing_from_the_table_would_be_seen)
{
    /* The comparison itself must be able to fail: a shape lacking one
     * attribute differs from the schema's. */
    struct shape schema = {{0}}, table;
    char sa[1024], sb[1024];

    add_attrs(top("complexType", "recv"), &schema);
    table_shape(pg_ev_by_name("recv", PG_LOG_COMM), &table);
    *strstr(table.attrs, "bytes:R ") = 0;
    sorted(schema.attrs, sa, sizeof sa);
    sorted(table.attrs, sb, sizeof sb);
    ck_assert_str_ne(sa, sb);
}
END_TEST

/* The values of the schema's simpleType `name`, "a b c " in order. */
static void enum_values(const char *name, char *out, size_t size)
{
    xmlNodePtr t = top("simpleType", name), r, e;
    char *v;

    ck_assert_msg(t, "no simpleType %s in the schema", name);
    out[0] = 0;
    for (r = t->children; r; r = r->next)
        for (e = is_xs(r, "restriction") ? r->children : NULL; e; e = e->next)
            if (is_xs(e, "enumeration") && (v = prop(e, "value"))) {
                snprintf(out + strlen(out), size - strlen(out), "%s ", v);
                xmlFree(v);
            }
}

static void table_values(const char *const *calls, int n, char *out,
                         size_t size)
{
    int i;

    out[0] = 0;
    for (i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s ", calls[i]);
}

START_TEST(test_the_schema_names_the_call_codes_in_order)
{
    char schema[2048], table[2048];

    enum_values("call", schema, sizeof schema);
    table_values(pg_msg_calls, pg_n_msg_calls, table, sizeof table);
    ck_assert_str_eq(schema, table);
    enum_values("queryCall", schema, sizeof schema);
    table_values(pg_query_calls, pg_n_query_calls, table, sizeof table);
    ck_assert_str_eq(schema, table);
}
END_TEST

static void named_once(const char *const *calls, int n)
{
    int i, j;

    for (i = 0; i < n; i++) {
        ck_assert_msg(calls[i] != NULL, "call code %d has no row", i);
        for (j = 0; j < i; j++)
            ck_assert_msg(strcmp(calls[i], calls[j]), "%s has codes %d and %d",
                          calls[i], j, i);
    }
}

START_TEST(test_every_call_code_has_one_name)
{
    named_once(pg_msg_calls, pg_n_msg_calls);
    named_once(pg_query_calls, pg_n_query_calls);
    ck_assert_int_eq(pg_call_index(pg_query_calls, pg_n_query_calls,
                                   "pvm_kill"), 6);
    ck_assert_int_eq(pg_call_index(pg_msg_calls, pg_n_msg_calls,
                                   "pvm_addmhf"), 9);
}
END_TEST

START_TEST(test_the_kinds_traits_agree)
{
    const pg_evdesc *d;
    int n, i;

    d = pg_ev_all(&n);
    for (i = 0; i < n; i++) {
        /* what a replay passes over, a race-only log does not keep */
        ck_assert_msg(!d[i].replay_passes || d[i].min == PG_MIN_DROP,
                      "<%s>: passed over in replay, kept by -min", d[i].name);
        ck_assert_msg(d[i].replay_passes || d[i].min != PG_MIN_DROP,
                      "<%s>: a replay needs it, -min drops it", d[i].name);
        /* a drawn message is listed */
        ck_assert_msg(!d[i].message || d[i].shown, "<%s>", d[i].name);
    }
    ck_assert(pg_ev_desc(PG_EV_SITE)->replay_passes &&
              !pg_ev_desc(PG_EV_SITE)->shown);
    ck_assert(pg_ev_desc(PG_EV_POLL)->race_receive &&
              !pg_ev_desc(PG_EV_SEND)->race_receive);
}
END_TEST

/* A query past code 15 goes through the binary log with the escape and
 * comes back as it was; code 15's own (pvm_hosts) stays itself. */
START_TEST(test_a_query_past_code_15_is_written_with_the_escape)
{
    char path[] = "/tmp/pg_test_escape.XXXXXX";
    const char *late = pg_query_calls[PG_QUERY_ESCAPE + 1];
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logw *w;
    pg_logr *r;
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    close(fd);
    w = pg_logw_open(path, PG_LOG_COMM, 1, "prog", "host", &err);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(pg_logw_query(w, 1.0, late, "LINUX64 x", 7), 0);
    ck_assert_int_eq(pg_logw_query(w, 2.0, "pvm_hosts", "add a b", 2), 0);
    ck_assert_int_ne(pg_logw_query(w, 3.0, "pvm_hosts", "pvm_x", 2), 0);
    ck_assert_int_eq(pg_logw_end(w, 4.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_ptr_eq(ev.call, late); /* the table's own string */
    ck_assert_str_eq(ev.about, "LINUX64 x");
    ck_assert_int_eq(ev.value, 7);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_str_eq(ev.call, "pvm_hosts");
    ck_assert_str_eq(ev.about, "add a b");
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_END);
    pg_logr_close(r);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("event table");
    TCase *tc = tcase_create("table vs schema");
    int failed;

    doc = xmlReadFile(XSD, NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
    if (!doc) {
        fprintf(stderr, "cannot read %s\n", XSD);
        return 1;
    }
    tcase_add_test(tc, test_every_schema_event_is_a_row_with_the_same_fields);
    tcase_add_test(tc, test_every_row_is_an_event_of_the_schema_for_its_logs);
    tcase_add_test(tc, test_a_field_missing_from_the_table_would_be_seen);
    tcase_add_test(tc, test_the_schema_names_the_call_codes_in_order);
    tcase_add_test(tc, test_every_call_code_has_one_name);
    tcase_add_test(tc, test_the_kinds_traits_agree);
    tcase_add_test(tc, test_a_query_past_code_15_is_written_with_the_escape);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    xmlFreeDoc(doc);
    return failed ? 1 : 0;
}
