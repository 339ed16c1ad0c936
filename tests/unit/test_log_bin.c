/*
 * test_log_bin.c - the binary communication log (docs/comm-log-format.md)
 * through the log API: every kind written and read back field by field,
 * logs of many blocks, a log cut inside its last block (a task killed
 * mid-write), a corrupt block named by file, byte offset and last good
 * event with everything before it read, and random bytes.
 */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <limits.h>
#include <math.h>

#include "log_test_util.h"


/* One event of every comm kind, some with misses, many times over so that
 * the log spans blocks; returns the number of events written. */
static pg_logw *still_open; /* the writer write_all_kinds left open */

/* Round i of write_all_kinds: its 8 events. */
static void write_round(pg_logw *w, int i)
{
    static const int to[] = { 3, 4, 5 };
    double t = 1.7e9 + i * 0.001;

    ck_assert_int_eq(pg_logw_send(w, t, "pvm_mcast", i, i + 1, 80, 3, to), 0);
    pg_logw_misses(w, i % 3);
    ck_assert_int_eq(pg_logw_recv(w, t + 1e-6, "pvm_nrecv", 3, -i, i + 1,
                                  8), 0);
    ck_assert_int_eq(pg_logw_recv(w, t - 5e-6, "pvm_recv", 4, 9, 1000 - i,
                                  0), 0); /* time and ids going back */
    ck_assert_int_eq(pg_logw_notice(w, t, "pvm_recv", 50,
                                    PG_NOTICE_HOSTADD, -1, 4), 0);
    ck_assert_int_eq(pg_logw_query(w, t, "pvm_gsize", "grp<&>", i), 0);
    ck_assert_int_eq(pg_logw_join(w, t, "g", 2, 9, i), 0);
    ck_assert_int_eq(pg_logw_gettid(w, t, "g", 1, -33), 0);
    ck_assert_int_eq(pg_logw_leave(w, t, "g", i + 1), 0);
}

static pg_logw *open_all_kinds(const char *path)
{
    pg_err err;
    pg_logw *w = pg_logw_open_sel(path, PG_LOG_COMM, 7, "./prog", "h\xc3\xa9",
                                  "tag=5", &err);

    ck_assert_msg(w != NULL, "%s", err.msg);
    return w;
}

static long write_all_kinds(const char *path, int rounds, int close_it)
{
    pg_logw *w = open_all_kinds(path);
    long n = 0;
    int i;

    for (i = 0; i < rounds; i++, n += 8)
        write_round(w, i);
    if (close_it) {
        ck_assert_int_eq(pg_logw_end(w, 1.8e9, 3), 0);
        ck_assert_int_eq(pg_logw_close(w), 0);
        return n + 1;
    }
    still_open = w; /* as by a task killed now; closed when the test is done */
    return n;
}

/* Checks the events of write_all_kinds round i, kind k, as read back. */
static void check_event(const pg_event *ev, long seq)
{
    int i = (int)((seq - 1) / 8), k = (int)((seq - 1) % 8);
    double t = 1.7e9 + i * 0.001;

    ck_assert_int_eq(ev->seq, seq);
    switch (k) {
    case 0:
        ck_assert_int_eq(ev->kind, PG_EV_SEND);
        ck_assert_str_eq(ev->call, "pvm_mcast");
        ck_assert_int_eq(ev->tag, i);
        ck_assert_int_eq(ev->msgid, i + 1);
        ck_assert_int_eq(ev->nto, 3);
        ck_assert_int_eq(ev->to[2], 5);
        ck_assert(fabs(ev->t - t) < 1e-6);
        break;
    case 1:
        ck_assert_int_eq(ev->kind, PG_EV_RECV);
        ck_assert_str_eq(ev->call, "pvm_nrecv");
        ck_assert_int_eq(ev->from, 3);
        ck_assert_int_eq(ev->tag, -i);
        ck_assert_int_eq(ev->msgid, i + 1);
        ck_assert_int_eq(ev->misses, i % 3);
        break;
    case 2:
        ck_assert_int_eq(ev->msgid, 1000 - i);
        ck_assert_int_eq(ev->bytes, 0);
        ck_assert(fabs(ev->t - (t - 5e-6)) < 1e-6);
        break;
    case 3:
        ck_assert_int_eq(ev->kind, PG_EV_NOTICE);
        ck_assert_int_eq(ev->what, PG_NOTICE_HOSTADD);
        ck_assert_int_eq(ev->from, -1);
        break;
    case 4:
        ck_assert_int_eq(ev->kind, PG_EV_QUERY);
        ck_assert_str_eq(ev->call, "pvm_gsize");
        ck_assert_str_eq(ev->about, "grp<&>");
        ck_assert_int_eq(ev->value, i);
        break;
    case 5:
        ck_assert_int_eq(ev->kind, PG_EV_GETTID);
        ck_assert_int_eq(ev->order, i);
        break;
    case 6:
        ck_assert_int_eq(ev->order, -1);
        ck_assert_int_eq(ev->from, -33);
        break;
    default:
        ck_assert_int_eq(ev->kind, PG_EV_LEAVE);
        ck_assert_str_eq(ev->group, "g");
        ck_assert_int_eq(ev->order, i + 1);
    }
}

START_TEST(test_every_kind_round_trips_across_blocks)
{
    const char *path = tpath("all.comm.pgc");
    long n = write_all_kinds(path, 2000, 1), seq = 0;
    pg_log_header h;
    pg_event ev;
    pg_logr *r = open_ok(path, PG_LOG_COMM, &h);

    ck_assert_int_eq(h.ltid, 7);
    ck_assert_str_eq(h.host, "h\xc3\xa9");
    ck_assert_str_eq(h.select, "tag=5");
    while (seq + 1 < n) {
        next_ok(r, &ev);
        check_event(&ev, ++seq);
    }
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_END);
    ck_assert_int_eq(ev.status, 3);
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

/* A log whose task died: every prefix of an open log that ends at a zero
 * reads back its complete events, then says it was cut. */
START_TEST(test_log_cut_inside_its_last_block_reads_to_the_last_event)
{
    const char *path = tpath("cut.comm.pgc");
    size_t len, at;
    char *all, *copy;
    long n, want;
    pg_err err;

    want = write_all_kinds(path, 1000, 0); /* still open: zeros follow */
    ck_assert_int_eq(pg_log_check_cut(path, PG_LOG_COMM, &n, &err), 1);
    ck_assert_int_eq(n, want);
    ck_assert_ptr_nonnull(strstr(err.msg, "stops after event"));
    all = slurp(path, &len);
    copy = malloc(len);
    /* The last event, <leave group="g" order="1000">, is 08 00 01 67 E8 07.
     * Killed while writing it, the task leaves all of it but its first
     * byte, which the sink stores last: the log ends one event earlier. */
    for (at = len - 1; at > 0 && all[at] == 0; at--)
        ;
    ck_assert_int_eq((unsigned char)all[at - 5], 0x08);
    memcpy(copy, all, len);
    copy[at - 5] = 0;
    ck_assert_int_eq(pg_log_check_cut(write_bytes("torn.comm.pgc", copy, len),
                                      PG_LOG_COMM, &n, &err), 1);
    ck_assert_int_eq(n, want - 1);
    ck_assert_ptr_nonnull(strstr(err.msg, "torn.comm.pgc: stops after event"));
    free(copy);
    free(all);
    ck_assert_int_eq(pg_logw_close(still_open), 0);
}
END_TEST

/* The events a followed reader returns from here on: each checked as
 * write_all_kinds wrote it, the last (its end) when seq reaches n.  The
 * read's last answer. */
static int read_on(pg_logr *r, long *seq, long n, pg_err *err)
{
    pg_event ev;
    int rc;

    while ((rc = pg_logr_next(r, &ev, err)) == 1)
        if (++*seq == n)
            ck_assert_int_eq(ev.kind, PG_EV_END);
        else
            check_event(&ev, *seq);
    return rc;
}

/* The live view reads a log while its task writes it, and the file may
 * stop at any byte: inside an event (whose last bytes are past what a
 * mapping holds), inside a block's length or seal, or between two
 * events.  Read there and followed once the rest is written, the reader
 * gives every event once, as a whole read does (times, message ids and
 * format 4's predictions carry on), and ends cleanly. */
START_TEST(test_a_log_followed_from_any_byte_gives_each_event_once)
{
    const char *path = tpath("whole.comm.pgc"), *part = tpath("part.comm.pgc");
    long n = write_all_kinds(path, 80, 1), seq, tried = 0, opened = 0;
    size_t len, at;
    char *all = slurp(path, &len);
    pg_logr *r;
    pg_err err;
    int fd;

    ck_assert_uint_gt(len, 4096 + 500); /* two blocks */
    for (at = 1; at < len; at++) {
        /* Every byte of the header, the first events, the first block's
         * seal (after its 4096 bytes) and the last seal; every 23rd else. */
        if (!(at < 400 || (at > 3950 && at < 4350) || at > len - 100 ||
              at % 23 == 0))
            continue;
        tried++;
        write_bytes("part.comm.pgc", all, at);
        if (!(r = pg_logr_open(part, PG_LOG_COMM, NULL, &err)))
            continue; /* its header is not all there */
        opened++;
        seq = 0;
        ck_assert_int_eq(read_on(r, &seq, n, &err), -1);
        fd = open(part, O_WRONLY | O_APPEND);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, all + at, len - at), (ssize_t)(len - at));
        close(fd);
        ck_assert_int_eq(pg_logr_follow(r, &err), 0);
        ck_assert_msg(read_on(r, &seq, n, &err) == 0,
                      "stopped at byte %zu: %s", at, err.msg);
        ck_assert_int_eq(seq, n);
        pg_logr_close(r);
    }
    ck_assert_int_gt(opened, tried - 100);
    free(all);
}
END_TEST

/* Followed while the writer writes (the file grown ahead in zeros, each
 * event's first byte stored last), a round at a time: each read gives
 * the round just written, costs it and the open block at most, and the
 * log then ends cleanly. */
START_TEST(test_a_log_followed_while_written_reads_each_round_once)
{
    const char *path = tpath("live.comm.pgc");
    pg_logw *w = open_all_kinds(path);
    pg_logr *r = NULL;
    long seq = 0, n = 400 * 8 + 1, d0;
    pg_err err;
    int i;

    for (i = 0; i < 400; i++) {
        write_round(w, i);
        ck_assert_int_eq(pg_logw_flush(w), 0);
        if (!r)
            r = open_ok(path, PG_LOG_COMM, NULL);
        else
            ck_assert_int_eq(pg_logr_follow(r, &err), 0);
        d0 = pg_logr_decoded(r);
        ck_assert_int_eq(read_on(r, &seq, n, &err), -1);
        ck_assert_msg(pg_logr_cut(r), "%s", err.msg);
        ck_assert_int_eq(seq, (i + 1) * 8);
        ck_assert_int_le(pg_logr_decoded(r) - d0, 8 + 4096);
    }
    ck_assert_int_eq(pg_logw_end(w, 1.8e9, 3), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_int_eq(pg_logr_follow(r, &err), 0);
    ck_assert_int_eq(read_on(r, &seq, n, &err), 0);
    ck_assert_int_eq(seq, n);
    ck_assert_int_eq(pg_logr_follow(r, &err), 0); /* ended: stays so */
    ck_assert_int_eq(read_on(r, &seq, n, &err), 0);
    pg_logr_close(r);
}
END_TEST

/* A writer takes its last event back when the call failed (pg_logw_undo)
 * and may write another in its place: a reader that returned it says so
 * (1: read the log again). */
START_TEST(test_a_followed_log_whose_last_event_was_taken_back_is_read_again)
{
    const char *path = tpath("undo.comm.pgc");
    pg_logw *w = open_all_kinds(path);
    long seq = 0;
    pg_logr *r;
    pg_err err;

    write_round(w, 0);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    r = open_ok(path, PG_LOG_COMM, NULL);
    ck_assert_int_eq(read_on(r, &seq, 99, &err), -1);
    ck_assert_int_eq(seq, 8);
    ck_assert_int_eq(pg_logr_follow(r, &err), 0); /* nothing changed */
    ck_assert_int_eq(read_on(r, &seq, 99, &err), -1);
    pg_logw_undo(w);
    ck_assert_int_eq(pg_logw_leave(w, 1.7e9, "group", 77), 0);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    ck_assert_int_eq(pg_logr_follow(r, &err), 1);
    pg_logr_close(r);
    ck_assert_int_eq(pg_logw_close(w), 0);
}
END_TEST

/* The writer cuts off the zeros it grew the file by when it closes: a
 * reader that followed the log (mapped it at its grown size) and looks
 * at its end just after the cut must read the end there (zeros), not die
 * of SIGBUS on a page of its mapping now past the file's end. */
START_TEST(test_a_followed_log_cut_under_its_mapping_reads_its_end)
{
    const char *path = tpath("cut.comm.pgc");
    pg_logw *w = open_all_kinds(tpath("writing.comm.pgc"));
    pg_logr *r;
    long seq = 0;
    struct stat st;
    size_t len;
    char *bytes;
    pg_err err;
    int i;

    for (i = 0; i < 300; i++)
        write_round(w, i);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    /* The file as the writer leaves it while it writes (grown in zeros),
     * copied: the cut below must not be under the writer's own mapping. */
    bytes = slurp(tpath("writing.comm.pgc"), &len);
    write_bytes("cut.comm.pgc", bytes, len);
    free(bytes);
    r = open_ok(path, PG_LOG_COMM, NULL);
    ck_assert_int_eq(read_on(r, &seq, 300 * 8 + 1, &err), -1);
    ck_assert_int_eq(seq, 300 * 8);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_gt(st.st_size, 3 * 4096); /* its end is past page 1 */
    ck_assert_int_eq(pg_logr_follow(r, &err), 0); /* to look again */
    ck_assert_int_eq(truncate(path, 4096), 0);    /* the cut comes first */
    ck_assert_int_eq(read_on(r, &seq, 300 * 8 + 1, &err), -1);
    ck_assert_int_eq(seq, 300 * 8);
    ck_assert_int_eq(pg_logr_follow(r, &err), 1); /* its events are gone */
    pg_logr_close(r);
    ck_assert_int_eq(pg_logw_close(w), 0);
}
END_TEST

/* A damage that is not at the data's end stays an error when followed. */
START_TEST(test_a_followed_log_with_a_corrupt_block_stays_corrupt)
{
    const char *path = tpath("bad.comm.pgc");
    long n = write_all_kinds(path, 300, 1), seq = 0;
    size_t len;
    char *all = slurp(path, &len);
    pg_logr *r;
    pg_err err;

    all[len / 2] ^= 0x5a;
    write_bytes("bad.comm.pgc", all, len);
    r = open_ok(path, PG_LOG_COMM, NULL);
    ck_assert_int_eq(read_on(r, &seq, n, &err), -1);
    ck_assert_msg(!pg_logr_cut(r) && strstr(err.msg, "corrupt"), "%s", err.msg);
    ck_assert_int_lt(seq, n / 2 + 100);
    ck_assert_int_eq(pg_logr_follow(r, &err), 0);
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(read_on(r, &seq, n, &err), -1);
    ck_assert_msg(strstr(err.msg, "corrupt"), "%s", err.msg);
    pg_logr_close(r);
    free(all);
}
END_TEST

START_TEST(test_corrupt_block_is_named_and_what_precedes_it_is_read)
{
    const char *path = tpath("crc.comm.pgc");
    size_t len;
    char *all;
    long n, total = write_all_kinds(path, 3000, 1);
    pg_err err;

    all = slurp(path, &len);
    all[len / 2] ^= 0x40; /* one bit, in some block in the middle */
    ck_assert_int_eq(pg_log_check_cut(write_bytes("flip.comm.pgc", all, len),
                                      PG_LOG_COMM, &n, &err), -1);
    ck_assert_msg(strstr(err.msg, "flip.comm.pgc: byte offset ") &&
                  strstr(err.msg, "the last good event is"), "%s", err.msg);
    ck_assert_int_gt(n, 0);
    ck_assert_int_lt(n, total / 2 + 1);
    {   /* the events read are those before the named block's */
        char want[64];

        snprintf(want, sizeof want, "the last good event is %ld", n);
        ck_assert_msg(strstr(err.msg, want), "%s (read %ld)", err.msg, n);
    }
    free(all);
}
END_TEST

START_TEST(test_random_bytes_after_the_magic_are_an_error_not_a_crash)
{
    unsigned char buf[600];
    pg_err err;
    long n;
    int i, k;

    srand(4242);
    for (i = 0; i < 3000; i++) {
        size_t len = 5 + (size_t)(rand() % 590);

        memcpy(buf, "PGCL\1", 5);
        for (k = 5; k < (int)len; k++)
            buf[k] = (unsigned char)(rand() % 4 ? rand() % 16 : rand());
        pg_log_check_cut(write_bytes("rnd.comm.pgc", buf, len), PG_LOG_COMM,
                         &n, &err);
    }
}
END_TEST

/* Sends and receives are encoded and decoded by compiled-in code, for
 * speed, with their tags, sizes and ids predicted (format version 2) and,
 * when noted (pg_logw_note), version 3's call site and asked filter.
 * pg_logw_send/recv and pg_logw_event must write the same bytes, and
 * every field must read back as written, for every call, sign, size
 * (jumps of more than INT_MAX included), miss count, id, site and
 * filter, noted or not. */
START_TEST(test_send_recv_round_trip_through_both_writers)
{
    static pg_event want[3000];
    pg_logr *r;
    pg_event got;
    long k = 0;
    static const char *const calls[] = { "pvm_send", "pvm_mcast",
        "pvm_psend", "pvm_bcast", "pvm_recv", "pvm_nrecv", "pvm_trecv",
        "pvm_probe", "pvm_precv" };
    int to[300];
    char a_path[4200], b_path[4200], call[16];
    pg_logw *a, *b;
    pg_err err;
    size_t alen, blen;
    char *abytes, *bbytes;
    int i;

    snprintf(a_path, sizeof a_path, "%s", tpath("fast.comm.pgc"));
    snprintf(b_path, sizeof b_path, "%s", tpath("table.comm.pgc"));
    a = pg_logw_open(a_path, PG_LOG_COMM, 3, "./p", "h", &err);
    b = pg_logw_open(b_path, PG_LOG_COMM, 3, "./p", "h", &err);
    ck_assert_msg(a && b, "%s", err.msg);
    for (i = 0; i < 300; i++)
        to[i] = i * 37 - 2000;
    for (i = 0; i < 3000; i++) {
        double t = 1.7e9 + (i % 7 == 0 ? -1.0 : 1.0) * i * 1.37e-4;
        int nto = i % 11 == 0 ? i % 300 : 1 + i % 3, tag = i * 7919 - 99999;
        int id = i % 5 == 0 ? -i * 1000 : i, bytes = i * i * 31;

        if (i % 13 == 0) {
            tag = i % 2 ? INT_MIN : INT_MAX;
            bytes = i % 2 ? 0 : INT_MAX;
        }
        pg_event ev = { .kind = i % 2 ? PG_EV_RECV : PG_EV_SEND, .t = t,
                        .tag = tag, .msgid = id, .bytes = bytes,
                        .from = i % 9 - 4, .nto = nto, .to = to,
                        .misses = i % 4 == 0 ? i : 0, .asked_from = -3,
                        .asked_tag = -2 };

        if (i % 5 != 1) { /* most noted, as a recording does */
            ev.site = i % 5 ? (i / 2) % 150 : 0; /* slots shared */
            ev.asked_from = i % 6 - 3;
            ev.asked_tag = i % 4 ? -1 : tag;
            ev.matcher = i % 7 == 0;
            pg_logw_note(a, ev.site, ev.asked_from, ev.asked_tag,
                         ev.matcher);
        }
        if (ev.kind == PG_EV_SEND) /* a send asks for nothing */
            ev.asked_from = -3, ev.asked_tag = -2, ev.matcher = 0;

        /* a copy of the name: not the table's pointer (the slow path) */
        snprintf(call, sizeof call, "%s", calls[i % 9]);
        ev.call = i % 3 ? calls[i % 9] : call;
        pg_logw_misses(a, ev.misses);
        ck_assert_int_eq(ev.kind == PG_EV_SEND
                         ? pg_logw_send(a, t, ev.call, tag, id, bytes, nto, to)
                         : pg_logw_recv(a, t, ev.call, ev.from, tag, id, bytes),
                         0);
        ck_assert_int_eq(pg_logw_event(b, &ev), 0);
        want[i] = ev;
        want[i].call = calls[i % 9]; /* `call` is overwritten */
    }
    /* refused alike: an unknown call, a negative size, a NaN time */
    ck_assert_int_eq(pg_logw_send(a, 1.0, "pvm_sendx", 1, 1, 1, 1, to), -1);
    ck_assert_int_eq(pg_logw_recv(a, 1.0, "pvm_recv", 1, 1, 1, -1), -1);
    ck_assert_int_eq(pg_logw_recv(a, NAN, "pvm_recv", 1, 1, 1, 1), -1);
    ck_assert_int_eq(pg_logw_close(a), 0);
    ck_assert_int_eq(pg_logw_close(b), 0);
    abytes = slurp(a_path, &alen);
    bbytes = slurp(b_path, &blen);
    ck_assert_uint_eq(alen, blen);
    ck_assert_int_eq(memcmp(abytes, bbytes, alen), 0);
    free(abytes);
    free(bbytes);
    r = pg_logr_open(a_path, PG_LOG_COMM, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    while (pg_logr_next(r, &got, &err) == 1) {
        const pg_event *w = &want[k++];

        ck_assert_int_eq(got.kind, w->kind);
        ck_assert_str_eq(got.call, w->call);
        ck_assert_int_eq(got.tag, w->tag);
        ck_assert_int_eq(got.msgid, w->msgid);
        ck_assert_int_eq(got.bytes, w->bytes);
        ck_assert_int_eq(got.misses, w->misses);
        ck_assert(fabs(got.t - w->t) < 1e-6);
        ck_assert_int_eq(got.site, w->site);
        if (w->kind == PG_EV_RECV) {
            ck_assert_int_eq(got.from, w->from);
            ck_assert_int_eq(got.asked_from, w->asked_from);
            ck_assert_int_eq(got.asked_tag, w->asked_tag);
            ck_assert_int_eq(got.matcher, w->matcher);
        } else {
            ck_assert_int_eq(got.nto, w->nto);
            ck_assert(w->nto == 0 ||
                      !memcmp(got.to, w->to, w->nto * sizeof *w->to));
        }
    }
    ck_assert_int_eq(k, 3000);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_sor_like_events_take_at_most_8_bytes)
{
    const char *path = tpath("size.comm.pgc");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 2, "./sor", "h", &err);
    int to = 1, i;
    size_t len;

    for (i = 0; i < 10000; i++) {
        double t = 1.7e9 + i * 250e-6;

        ck_assert_int_eq(pg_logw_send(w, t, "pvm_send", 5, i + 1, 80, 1, &to), 0);
        ck_assert_int_eq(pg_logw_recv(w, t + 120e-6, "pvm_recv", 1, 5, i + 1,
                                      80), 0);
    }
    ck_assert_int_eq(pg_logw_close(w), 0);
    free(slurp(path, &len));
    ck_assert_msg(len <= 8 * 20000, "%zu bytes for 20000 events", len);
}
END_TEST

/* The pattern of the SOR demo on 4 tasks as recorded (bench/run.sh: SOR
 * 4 4000 500), seen from a middle task: each iteration sends its two
 * boundary rows (4000 bytes, tags stepping 1000, 1001, 1002 ...) and
 * receives its neighbours', then reports to and hears from the master
 * (tags 101 and 102, 12 and 8 bytes), with the gaps between events of a
 * real run, and the call sites and asked filters a recording notes.
 * Issue 13's target is at most 8 bytes per event. */
START_TEST(test_sor_pattern_takes_at_most_8_bytes_per_event)
{
    static const int gap_us[] = { 1045, 605, 23, 2800, 142, 23, 9, 570,
                                  249, 731, 118, 22 };
    const char *path = tpath("sor.comm.pgc");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 2, "./sor", "h", &err);
    int up = 1, down = 3, i, k = 0, id1 = 0, id3 = 0, sent = 0;
    double t = 1.795e9;
    size_t len;

#define NEXT_T() (t += gap_us[k++ % 12] * 1e-6)
    /* with the call sites and filters a recording notes (format 4 writes
     * them only when they are not the predicted ones) */
    for (i = 0; i < 4000; i++) {
        int tag = 1000 + 2 * i;

        pg_logw_note(w, 1, -3, -2, 0);
        ck_assert_int_eq(pg_logw_send(w, NEXT_T(), "pvm_send", tag, ++sent,
                                      4000, 1, &up), 0);
        pg_logw_note(w, 1, -3, -2, 0);
        ck_assert_int_eq(pg_logw_send(w, NEXT_T(), "pvm_send", tag + 1,
                                      ++sent, 4000, 1, &down), 0);
        id1 += 2;
        pg_logw_note(w, 2, up, tag + 1, 0);
        ck_assert_int_eq(pg_logw_recv(w, NEXT_T(), "pvm_recv", up, tag + 1,
                                      id1, 4000), 0);
        pg_logw_note(w, 2, down, tag, 0);
        ck_assert_int_eq(pg_logw_recv(w, NEXT_T(), "pvm_recv", down, tag,
                                      ++id3, 4000), 0);
        pg_logw_note(w, 3, -3, -2, 0);
        ck_assert_int_eq(pg_logw_send(w, NEXT_T(), "pvm_send", 101, ++sent,
                                      12, 1, &up), 0);
        pg_logw_note(w, 4, -1, 102, 0);
        ck_assert_int_eq(pg_logw_recv(w, NEXT_T(), "pvm_recv", up, 102,
                                      ++id1, 8), 0);
    }
#undef NEXT_T
    ck_assert_int_eq(pg_logw_close(w), 0);
    free(slurp(path, &len));
    ck_assert_msg(len <= 8 * 24000, "%.2f bytes per event", len / 24000.0);
}
END_TEST

/* A flipped bit in a block's length field (format 4) is a corrupt block,
 * named with the file, the block's byte offset and the last good event,
 * every event before it read; never a log cut short. */
START_TEST(test_flipped_block_length_is_corrupt_not_cut)
{
    const char *path = tpath("len.comm.pgc");
    size_t len, b, blocks[64];
    char *all, *copy, want[64];
    long n, total = write_all_kinds(path, 1500, 1), before;
    pg_err err;
    int nb = 0, bit, i;

    all = slurp(path, &len);
    b = 6 + 7 + 4 + 6 + 1 + 4; /* header: "./prog", "h\xc3\xa9", "tag=5",
                                * recording "", CRC */
    while (b + 4 <= len && nb < 64) {
        uint32_t l = (unsigned char)all[b] | (unsigned char)all[b + 1] << 8 |
                     (unsigned char)all[b + 2] << 16 |
                     (uint32_t)(unsigned char)all[b + 3] << 24;

        blocks[nb++] = b;
        ck_assert_msg(l >= 5 && b + 4 + l <= len, "block at %zu: %u", b, l);
        b += 4 + l;
    }
    ck_assert_uint_eq(b, len); /* the lengths lead from block to block */
    ck_assert_int_gt(nb, 4);
    copy = malloc(len);
    for (i = 1; i < nb; i += nb / 4)
        for (bit = 0; bit < 32; bit += 3) {
            memcpy(copy, all, len);
            copy[blocks[i] + bit / 8] ^= (char)(1 << (bit % 8));
            ck_assert_int_eq(pg_log_check_cut(write_bytes("lenflip.comm.pgc",
                                                          copy, len),
                                              PG_LOG_COMM, &n, &err), -1);
            snprintf(want, sizeof want, "byte offset %zu: ", blocks[i]);
            ck_assert_msg(strstr(err.msg, "lenflip.comm.pgc: ") &&
                          strstr(err.msg, want) &&
                          strstr(err.msg, "corrupt") &&
                          strstr(err.msg, "the last good event is"),
                          "%s", err.msg);
            before = n;
            ck_assert_int_gt(before, 0);
            ck_assert_int_lt(before, total);
        }
    free(copy);
    free(all);
}
END_TEST

/* Resident file pages of this process, kB (RssFile). */
/* A race-only log (pangaea -min): each event carries how many were left
 * out before it, so the reader numbers them as the full log did, across
 * blocks and for every kind; a log of everything refuses the numbers. */
START_TEST(test_race_only_log_keeps_the_numbers_of_its_events)
{
    const char *path = tpath("min.comm.pgc");
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logw *w = pg_logw_open_sel(path, PG_LOG_COMM, 2, "./p", "h",
                                  PG_SELECT_RACE_ONLY, &err);
    pg_logr *r;
    long i, seq = 0;

    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 1; i <= 2000; i++) {
        ck_assert_int_eq(pg_logw_seq(w, i * 7 + (i % 3)), 0);
        if (i % 2)
            ck_assert_int_eq(pg_logw_recv(w, 1.7e9 + i, "pvm_recv", 3, 5,
                                          (int)i, 12), 0);
        else
            ck_assert_int_eq(pg_logw_query(w, 1.7e9 + i, "pvm_pstat", "3",
                                           (int)i), 0);
    }
    ck_assert_int_eq(pg_logw_seq(w, 2000 * 7), -1); /* not past the last */
    ck_assert_int_eq(pg_logw_seq(w, 20000), 0);
    ck_assert_int_eq(pg_logw_end(w, 1.8e9, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);

    r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert(pg_log_race_only(h.select));
    for (i = 1; pg_logr_next(r, &ev, &err) == 1 && ev.kind != PG_EV_END; i++) {
        ck_assert_int_eq(ev.seq, i * 7 + (i % 3));
        ck_assert_int_eq(ev.kind, i % 2 ? PG_EV_RECV : PG_EV_QUERY);
        ck_assert_int_eq(i % 2 ? ev.msgid : ev.value, (int)i);
        seq = ev.seq;
    }
    ck_assert_int_eq(i, 2001);
    ck_assert_int_eq(seq, 2000 * 7 + 2);
    pg_logr_close(r);

    w = pg_logw_open(tpath("full.comm.pgc"), PG_LOG_COMM, 2, "./p", "h", &err);
    ck_assert_int_eq(pg_logw_seq(w, 5), -1);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert(!pg_log_race_only("tag=5 race-onlyx"));
    ck_assert(pg_log_race_only("tag=5 race-only"));
}
END_TEST

static long rss_file_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;

    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "RssFile:", 8))
            kb = atol(line + 8);
    if (f)
        fclose(f);
    return kb;
}

/* A replay reads its log to the end through a mapping of the whole file:
 * the pages behind the reader must be given back, or a long log stays
 * resident (a 10^6-message replay held 1.9x the memory of a short one). */
START_TEST(test_reading_a_long_log_keeps_little_of_it_resident)
{
    const char *path = tpath("long.comm.pgc");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 2, "./p", "h", &err);
    pg_logr *r;
    pg_event ev;
    long i, before, after;
    int to = 1;

    for (i = 0; i < 1000000; i++)
        ck_assert_int_eq(pg_logw_send(w, 1.7e9 + i * 1e-4, "pvm_send",
                                      (int)i, (int)i + 1, 8, 1, &to), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    r = pg_logr_open(path, PG_LOG_COMM, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    before = rss_file_kb();
    for (i = 0; pg_logr_next(r, &ev, &err) == 1; i++)
        ;
    after = rss_file_kb();
    pg_logr_close(r);
    ck_assert_int_eq(i, 1000000);
    /* the log is about 7 MB; the reader may keep 1 MiB behind it */
    ck_assert_msg(after - before < 3000, "%ld kB of the log resident",
                  after - before);
}
END_TEST

static Suite *log_bin_suite(void)
{
    Suite *s = suite_create("binary comm log");
    TCase *tc = tcase_create("binary");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_every_kind_round_trips_across_blocks);
    tcase_add_test(tc, test_log_cut_inside_its_last_block_reads_to_the_last_event);
    tcase_add_test(tc, test_a_log_followed_from_any_byte_gives_each_event_once);
    tcase_add_test(tc, test_a_log_followed_while_written_reads_each_round_once);
    tcase_add_test(tc, test_a_followed_log_with_a_corrupt_block_stays_corrupt);
    tcase_add_test(tc, test_a_followed_log_whose_last_event_was_taken_back_is_read_again);
    tcase_add_test(tc, test_a_followed_log_cut_under_its_mapping_reads_its_end);
    tcase_add_test(tc, test_corrupt_block_is_named_and_what_precedes_it_is_read);
    tcase_add_test(tc, test_random_bytes_after_the_magic_are_an_error_not_a_crash);
    tcase_add_test(tc, test_sor_like_events_take_at_most_8_bytes);
    tcase_add_test(tc, test_send_recv_round_trip_through_both_writers);
    tcase_add_test(tc, test_flipped_block_length_is_corrupt_not_cut);
    tcase_add_test(tc, test_sor_pattern_takes_at_most_8_bytes_per_event);
    tcase_add_test(tc, test_reading_a_long_log_keeps_little_of_it_resident);
    tcase_add_test(tc, test_race_only_log_keeps_the_numbers_of_its_events);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(log_bin_suite());
}
