/*
 * log_table.c - pg_events.def turned into data (see log_table.h).
 *
 * The rows become one array of fields, each tagged with its kind; since
 * the .def lists a kind's fields together, a kind's fields are contiguous,
 * and each description points at its run of them.  That pointer is set
 * once (pthread_once), so finding a kind's fields is an index, not a
 * search: the binary writer and reader do it on every event.
 */
#include "log_table.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define REQ 0, 0, 1
#define OPT(v) 1, (v), 1
#define NEW(v) 1, (v), 3
#define V6(v) 1, (v), 6
#define V7(v) 1, (v), 7
#define V8(v) 1, (v), 8

#define PG_FIELD(kind, name, type, member, presence)                      \
    { name, PG_FT_##type, offsetof(pg_event, member), presence },
static const pg_field fields[] = {
#include "pg_events.def"
};

#define PG_FIELD(kind, name, type, member, presence) PG_EV_##kind,
static const pg_ev_kind field_kind[] = {
#include "pg_events.def"
};

#define PG_COMMON(name, type, member, presence)                           \
    { name, PG_FT_##type, offsetof(pg_event, member), presence },
static const pg_field common[] = {
#include "pg_events.def"
};

#define COMM PG_IN_COMM
#define EXEC PG_IN_EXEC
#define BOTH (PG_IN_COMM | PG_IN_EXEC)
#define ACTS 0
#define PASSES 1
#define OTHER 0
#define RECEIVE 1
#define KEEP PG_MIN_KEEP
#define DECIDE PG_MIN_DECIDE
#define DROP PG_MIN_DROP
#define HIDDEN 0
#define SHOWN 1
#define PG_EVENT(kind, code, name, log, message, replay, races, min, shown)   \
    { PG_EV_##kind, name, log, message, replay, races, min, shown, NULL, 0 },
static pg_evdesc descs[] = {
#include "pg_events.def"
};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static pg_evdesc *by_code[PG_EV_MAX];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void link_fields(void)
{
    int d, i;

    for (d = 0; d < NELEM(descs); d++) {
        for (i = 0; i < NELEM(fields); i++) {
            if (field_kind[i] != descs[d].kind)
                continue;
            if (!descs[d].fields)
                descs[d].fields = &fields[i];
            descs[d].nfields++;
        }
        by_code[descs[d].kind] = &descs[d];
    }
}

const pg_evdesc *pg_ev_desc(int k)
{
    pthread_once(&once, link_fields);
    return k > 0 && k < PG_EV_MAX ? by_code[k] : NULL;
}

const pg_evdesc *pg_ev_all(int *n)
{
    pthread_once(&once, link_fields);
    *n = NELEM(descs);
    return descs;
}

const pg_evdesc *pg_ev_by_name(const char *name, pg_log_kind log)
{
    int d, in = log == PG_LOG_EXEC ? PG_IN_EXEC : PG_IN_COMM;

    pthread_once(&once, link_fields);
    for (d = 0; d < NELEM(descs); d++)
        if ((descs[d].logs & in) && !strcmp(descs[d].name, name))
            return &descs[d];
    return NULL;
}

const pg_field *pg_ev_common(int *n)
{
    *n = NELEM(common);
    return common;
}

int pg_field_present(const pg_field *f, const pg_event *ev)
{
    if (!f->optional)
        return 1;
    return *PG_FIELD_PTR(ev, f, const int) > f->absent;
}

/* The names of the log's call codes, made from pg_calls.def's code
 * columns (the PVM front end's table of calls: its rows say which code
 * each call is written with), indexed by the code.  tests/unit/
 * test_log_table.c checks that no code is left without a name. */
#define CODE_M(c, name) [c] = name,
#define CODE_Q(c, name)
#define CODE_QS(c, name)
#define CODE_N(c, name)
const char *const pg_msg_calls[] = {
#define PG_CALL(name, ret, params, group, what, space, code, gate)             \
    CODE_##space(code, "pvm_" #name)
#include "pg_calls.def"
#undef PG_CALL
    /* 10 to 14: the MPI front end's calls (src/mpi/, docs/mpi-notes.md):
     * a send, a receive (blocking; nonblocking, completed by a wait or
     * test), and what an MPI_Iprobe found */
    [10] = "MPI_Send", [11] = "MPI_Recv", [12] = "MPI_Isend",
    [13] = "MPI_Irecv", [14] = "MPI_Iprobe",
};
const int pg_n_msg_calls = NELEM(pg_msg_calls);
/* A send's or receive's call code is 4 bits too (log_binw.c). */
_Static_assert(NELEM(pg_msg_calls) <= 16, "message call codes are 4 bits");
_Static_assert(PG_MSG_CALL_POSTED < NELEM(pg_msg_calls), "MPI_Irecv's code");
#undef CODE_M
#undef CODE_Q
#define CODE_M(c, name)
#define CODE_Q(c, name) [c] = name,
const char *const pg_query_calls[] = {
#define PG_CALL(name, ret, params, group, what, space, code, gate)             \
    CODE_##space(code, "pvm_" #name)
#define PG_QCODE(name, code) [code] = name,
#include "pg_calls.def"
#undef PG_CALL
    /* the MPI front end's clocks (src/mpi/): the value returned, about as
     * a decimal that reads back exactly (%.17g), value 0; and a send the
     * program learned completed (MPI_Test ...), about its msgid */
    [19] = "MPI_Wtime", [20] = "MPI_Wtick", [21] = "MPI_Send_done",
    /* an MPI rank's program read the C library's clocks (src/mpi/
     * mpi_clock.c): about the values returned */
    [22] = "libc_time", [23] = "libc_gettimeofday",
    [24] = "libc_clock_gettime", [25] = "libc_getrusage",
    /* an MPI rank's MPI_Request_get_status found a request done (src/mpi/
     * mpi_p2p.c): about the request's kind, "recv" or "send" */
    [26] = "MPI_Request_done",
};
const int pg_n_query_calls = NELEM(pg_query_calls);
#undef CODE_M
#undef CODE_Q
#undef CODE_QS
#undef CODE_N
/* A binary event keeps its call's code in the high 4 bits of its first
 * byte (log_binw.c); a query code past 15 is written as 15, the escape,
 * with the call's name in front of its about (PG_QUERY_ESCAPE).  A row's
 * `what` and its code's space agree: a send or a receive has a message
 * code, a query a query code, the others none (any other pair is an
 * undeclared name here, and does not compile); each space's enum value
 * is the bound of its codes. */
enum { SEND_M = 16, RECV_M = 16, QUERY_Q = 256, QUERY_QS = 16, SPAWN_N = 1,
       GROUP_N = 1, TASK_N = 1 };
#define PG_CALL(name, ret, params, group, what, space, code, gate)             \
    _Static_assert((code) >= 0 && (code) < what##_##space,                     \
                   "pvm_" #name ": its kind, code space and code agree");
#include "pg_calls.def"
#undef PG_CALL
_Static_assert(NELEM(pg_msg_calls) <= 16, "message call codes are 4 bits");
_Static_assert(PG_MSG_CALL_POSTED < NELEM(pg_msg_calls), "MPI_Irecv's code");
_Static_assert(NELEM(pg_query_calls) > PG_QUERY_ESCAPE,
               "code 15 is the escape's, and a call's of its own");

int pg_query_escaped_name(const char *about)
{
    return !strncmp(about, "pvm_", 4) || !strncmp(about, "MPI_", 4) ||
           !strncmp(about, "libc_", 5);
}

int pg_query_escape(const char *call, const char *about, char *buf,
                    size_t size)
{
    int c = pg_call_index(pg_query_calls, pg_n_query_calls, call);

    if (c == PG_QUERY_ESCAPE && about && pg_query_escaped_name(about))
        return -1; /* would read as escaped */
    if (c <= PG_QUERY_ESCAPE)
        return 0; /* unknown calls are refused by the writer's checks */
    if (!about || (size_t)snprintf(buf, size, "%s %s", call, about) >= size)
        return -1;
    return 1;
}

const char *pg_query_unescape(const char *about, const char **call)
{
    const char *sp = about ? strchr(about, ' ') : NULL;
    int i;

    if (!sp || !pg_query_escaped_name(about))
        return NULL;
    for (i = PG_QUERY_ESCAPE + 1; i < pg_n_query_calls; i++)
        if ((size_t)(sp - about) == strlen(pg_query_calls[i]) &&
            !strncmp(about, pg_query_calls[i], (size_t)(sp - about))) {
            *call = pg_query_calls[i];
            return sp + 1;
        }
    return NULL;
}

int pg_call_index(const char *const *list, int n, const char *call)
{
    int i;

    if (!call)
        return -1;
    for (i = 0; i < n; i++)
        if (!strcmp(list[i], call))
            return i;
    return -1;
}

int pg_call_probes(const char *call)
{
    return call && (!strcmp(call, "pvm_probe") || !strcmp(call, "MPI_Iprobe"));
}

const char *pg_notice_name(int what)
{
    static const char *const names[] = { NULL, "exit", "hostdelete",
                                         "hostadd" };

    return what >= PG_NOTICE_EXIT && what <= PG_NOTICE_HOSTADD ? names[what]
                                                               : NULL;
}

/* Length of the UTF-8 sequence at p (n bytes left) if it encodes a
 * character XML 1.0 can carry, else 0.  Rejects overlong forms,
 * surrogates, U+FFFE and U+FFFF. */
static size_t utf8_char(const unsigned char *p, size_t n)
{
    unsigned c = p[0], cp;
    size_t len, i;

    if (c < 0x80)
        return (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') ? 1 : 0;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ||
        cp == 0xFFFE || cp == 0xFFFF)
        return 0;
    return len;
}

int pg_log_text_ok(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, len;

    while (i < n) {
        if (!(len = utf8_char(p + i, n - i)))
            return 0;
        i += len;
    }
    return 1;
}

int pg_log_call_known(const char *call)
{
    return pg_call_index(pg_msg_calls, pg_n_msg_calls, call) >= 0;
}

int pg_log_query_known(const char *call)
{
    return pg_call_index(pg_query_calls, pg_n_query_calls, call) >= 0;
}
