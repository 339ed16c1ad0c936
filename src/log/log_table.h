/*
 * log_table.h - the event table (pg_events.def) as data, for the code that
 * reads and writes logs generically: each kind's name, log and fields with
 * their types and where they live in a pg_event.  Private to the log
 * module, the `pangaea` command and the tests.
 */
#ifndef PG_LOG_TABLE_H
#define PG_LOG_TABLE_H

#include <stddef.h>

#include "pg_log.h"

/* What a field holds; the binary encoding of each is in
 * docs/comm-log-format.md. */
typedef enum {
    PG_FT_SEQ,      /* long, >= 1 (XML only: derived in binary logs)      */
    PG_FT_TIME,     /* double, seconds, microsecond resolution           */
    PG_FT_INT,      /* int                                                */
    PG_FT_COUNT,    /* int >= 0                                           */
    PG_FT_MSGID,    /* int: a message id, predicted from its sender's last */
    PG_FT_STR,      /* const char *                                       */
    PG_FT_CALL,     /* const char *: one of pg_msg_calls                  */
    PG_FT_QCALL,    /* const char *: one of pg_query_calls                */
    PG_FT_WHAT,     /* pg_notice_what                                     */
    PG_FT_INTS,     /* nrivals, rivals: ints, an attribute "1 3" in XML   */
    PG_FT_TO,       /* nto, to: <to ltid=/> elements                      */
    PG_FT_ARGS,     /* argc, argv: <arg> elements                         */
    PG_FT_CHILDREN  /* nchild, child_ltid, child_host: <child/> elements  */
} pg_ftype;

typedef struct pg_field {
    const char *name;
    pg_ftype type;
    size_t off;   /* offsetof(pg_event, member) */
    int optional; /* may be absent */
    int absent;   /* optional: absent when the member holds this or less */
    int since;    /* the format version that added it (1 or 3) */
} pg_field;

enum { PG_IN_COMM = 1, PG_IN_EXEC = 2 };

/* What `pangaea -min` does with a kind of event. */
typedef enum { PG_MIN_KEEP, PG_MIN_DECIDE, PG_MIN_DROP } pg_min_trait;

typedef struct pg_evdesc {
    pg_ev_kind kind;
    const char *name;
    int logs;              /* PG_IN_COMM | PG_IN_EXEC */
    int message;           /* a message sent or taken */
    /* its traits (pg_events.def says what they mean) */
    int replay_passes;     /* a replay passes over it (-races reads it) */
    int race_receive;      /* -races examines it as a receive */
    pg_min_trait min;      /* what -min does with it */
    int shown;             /* the views list it */
    const pg_field *fields; /* in the order they are written */
    int nfields;
} pg_evdesc;

#define PG_EV_MAX 15 /* kind codes are 1..PG_EV_MAX-1 (a nibble, not 15) */

/* The description of kind k, NULL if k is no kind. */
const pg_evdesc *pg_ev_desc(int k);
/* The kind called `name` that may be in a log of `log`, NULL if none. */
const pg_evdesc *pg_ev_by_name(const char *name, pg_log_kind log);
/* Every kind, in table order; *n gets their number. */
const pg_evdesc *pg_ev_all(int *n);
/* The fields every event has (seq, t, misses); *n gets their number. */
const pg_field *pg_ev_common(int *n);

/* Whether field f of ev is present (optional fields may be absent). */
int pg_field_present(const pg_field *f, const pg_event *ev);
/* Pointers to the member of ev that f describes. */
#define PG_FIELD_PTR(ev, f, type) ((type *)((char *)(ev) + (f)->off))

/* The calls a message event may name (pg_log_call_known) and a query may
 * name; the binary format stores their index. */
extern const char *const pg_msg_calls[];
extern const int pg_n_msg_calls;
extern const char *const pg_query_calls[];
extern const int pg_n_query_calls;
/* The message call code of MPI_Irecv: in format 6 its receive event has
 * one more varint, its posting (docs/comm-log-format.md). */
#define PG_MSG_CALL_POSTED 13
/* The message call code of MPI_Isend.  A <poll> naming it is an older
 * MPI recording's failed test of a send's request (MPI_Test, MPI_Testany
 * over sends only): it took no message and raced with none, since a
 * send's test takes none (docs/mpi-notes.md).  Recordings made since
 * write no <poll> for them, only their count among the next event's
 * misses. */
#define PG_MSG_CALL_ISEND 12
/* Index of call in list, or -1. */
/* Query codes past 15 do not fit the 4 bits of a binary event's call:
 * such a query is written with code 15 (PG_QUERY_ESCAPE), its about
 * being the call's name, a space and the about (docs/comm-log-format.md).
 * Code 15 is also pvm_hosts, whose about never starts with "pvm_".
 * pg_query_escape: 1 when `call` is written with the escape, buf (size
 * bytes) getting the about to write; 0 when it is not; -1 when the about
 * does not fit, or is one of code 15's own that would read as escaped. */
#define PG_QUERY_ESCAPE 15
int pg_query_escape(const char *call, const char *about, char *buf,
                    size_t size);
/* The about of a query read with code 15, if escaped: the about after
 * the call's name, *call set to the table's name; NULL if not escaped
 * (pvm_hosts's own) or naming no call past 15. */
const char *pg_query_unescape(const char *about, const char **call);
/* 1 if an about read with code 15 starts as an escaped call's name does
 * (pvm_, MPI_, libc_), 0 for pvm_hosts's own (add, del). */
int pg_query_escaped_name(const char *about);
int pg_call_index(const char *const *list, int n, const char *call);
/* 1 if `call` (one of pg_msg_calls) looks at a message without taking it
 * (pvm_probe, MPI_Iprobe): the message stays for a later receive. */
int pg_call_probes(const char *call);
/* "exit", "hostdelete", "hostadd" for PG_NOTICE_*; NULL otherwise. */
const char *pg_notice_name(int what);

/* 1 if the n bytes at s (no NUL among them) are UTF-8 that XML 1.0 can
 * carry (no control characters but tab, newline and carriage return). */
int pg_log_text_ok(const char *s, size_t n);

#endif
