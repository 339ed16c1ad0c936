/*
 * test_log_format.c - the binary communication log's format as
 * docs/comm-log-format.md states it: the page's format-5 example written
 * byte for byte and read back, its format-3 example and a format-3
 * race-only log (with gaps) still read, call sites that share a
 * prediction slot, and CRC-32C by instruction and by table alike.
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdint.h>

#include "log_test_util.h"
#include "log_bin.h"

/* docs/comm-log-format.md's example of format 8, byte for byte: the page
 * is the format (a reader is written from it alone), so the writer must
 * produce what the page's rules give, computed by hand from them (and by
 * a separate encoder of the rules, in Python, when the page was written):
 * two site events, three sends from site 1 (the first two with their
 * site, kind 13: not yet predicted; the third without, kind 1) and a
 * receive with its site, asked filter and context 5 (kind 14) that
 * waited 2 ms for its message; and the reader must give every field
 * back, the sends' default context 0 too. */
START_TEST(test_v8_bytes_are_those_of_the_format_page)
{
    static const unsigned char want[] =
        "\x50\x47\x43\x4c\x08\x02\x03\x2e\x2f\x70\x01\x68\x00"
        "\x10" "5eed0123456789ab" "\x6c\x63\xa2\x69"           /* header */
        "\x41\x00\x00\x00"                              /* block length */
        "\x09\x80\xa4\xe8\x03\x01\x02\x2f\x70\xa0\x01"      /* site 1 */
        "\x0d\x00\x01\x00\x0a\x00\xa0\x01\x01\x02"          /* send */
        "\x0d\xa0\x01\x01\x00\x02\x00\x00\x01\x02"          /* send */
        "\x01\xa0\x01\x02\x00\x00\x01\x02"                  /* send */
        "\x09\x50\x02\x02\x2f\x70\xc8\x01"                  /* site 2 */
        "\x4e\x02\xd0\x0f\x02\x03\x01\x00\x05\x02\x0e\x00\x10" /* recv */
        "\x1f\x80\x45\x5d\xe7";                         /* trailer */
    const char *path = tpath("page4.comm.pgc");
    int to = 1, i;
    pg_err err;
    pg_logw *w;
    pg_log_header h;
    pg_logr *r;
    pg_event ev;
    size_t len;
    char *got;

    pg_log_recording_set("5eed0123456789ab");
    w = pg_logw_open(path, PG_LOG_COMM, 2, "./p", "h", &err);
    pg_log_recording_set("");
    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_site(w, 1.0, 1, "/p", 160), 0);
    for (i = 0; i < 3; i++) {
        pg_logw_note(w, 1, -3, -2, 0);
        ck_assert_int_eq(pg_logw_send(w, 1.0 + i * 20e-6, "pvm_send", 5 + i,
                                      1 + i, 80, 1, &to), 0);
    }
    ck_assert_int_eq(pg_logw_site(w, 1.00005, 2, "/p", 200), 0);
    pg_logw_note(w, 2, -1, 7, 0);
    pg_logw_waited(w, 2000);
    pg_logw_ctx(w, 5);
    ck_assert_int_eq(pg_logw_recv(w, 1.00005, "pvm_recv", 1, 7, 1, 8), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    got = slurp(path, &len);
    ck_assert_uint_eq(len, sizeof want - 1);
    for (i = 0; i < (int)len; i++)
        ck_assert_msg((unsigned char)got[i] == want[i], "byte %d: %02x, "
                      "not %02x", i, (unsigned char)got[i], want[i]);
    free(got);
    r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(h.version, 8);
    ck_assert_str_eq(h.recording, "5eed0123456789ab");
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_SITE);
    ck_assert_str_eq(ev.module, "/p");
    ck_assert_int_eq(ev.offset, 160);
    for (i = 0; i < 3; i++) {
        ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
        ck_assert_int_eq(ev.kind, PG_EV_SEND);
        ck_assert_int_eq(ev.seq, 2 + i);
        ck_assert_int_eq(ev.site, 1);
        ck_assert_int_eq(ev.tag, 5 + i);
        ck_assert_int_eq(ev.msgid, 1 + i);
        ck_assert_int_eq(ev.bytes, 80);
        ck_assert_int_eq(ev.nto, 1);
        ck_assert_int_eq(ev.to[0], 1);
        ck_assert_int_eq(ev.ctx, 0);
        ck_assert(fabs(ev.t - (1.0 + i * 20e-6)) < 1e-7);
    }
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_SITE);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_RECV);
    ck_assert_str_eq(ev.call, "pvm_recv");
    ck_assert_int_eq(ev.from, 1);
    ck_assert_int_eq(ev.asked_from, -1);
    ck_assert_int_eq(ev.asked_tag, 7);
    ck_assert_int_eq(ev.matcher, 0);
    ck_assert_int_eq(ev.site, 2);
    ck_assert_int_eq(ev.tag, 7);
    ck_assert_int_eq(ev.msgid, 1);
    ck_assert_int_eq(ev.bytes, 8);
    ck_assert_int_eq(ev.waited, 2000);
    ck_assert_int_eq(ev.ctx, 5);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 0);
    pg_logr_close(r);
}
END_TEST

/* The page's example in format 7 (before version 8 added an MPI_Irecv's
 * rivals): still read, its receive's context too. */
START_TEST(test_v7_log_is_still_read)
{
    static const unsigned char v7[] =
        "\x50\x47\x43\x4c\x07\x02\x03\x2e\x2f\x70\x01\x68\x00"
        "\x10" "5eed0123456789ab" "\xc8\xa9\x73\xc1"           /* header */
        "\x41\x00\x00\x00"                              /* block length */
        "\x09\x80\xa4\xe8\x03\x01\x02\x2f\x70\xa0\x01"      /* site 1 */
        "\x0d\x00\x01\x00\x0a\x00\xa0\x01\x01\x02"          /* send */
        "\x0d\xa0\x01\x01\x00\x02\x00\x00\x01\x02"          /* send */
        "\x01\xa0\x01\x02\x00\x00\x01\x02"                  /* send */
        "\x09\x50\x02\x02\x2f\x70\xc8\x01"                  /* site 2 */
        "\x4e\x02\xd0\x0f\x02\x03\x01\x00\x05\x02\x0e\x00\x10" /* recv */
        "\x1f\x80\x45\x5d\xe7";                         /* trailer */
    const char *path = write_bytes("page7.comm.pgc", v7, sizeof v7 - 1);
    pg_log_header h;
    pg_err err;
    pg_event ev;
    int n = 0;
    pg_logr *r = pg_logr_open(path, PG_LOG_COMM, &h, &err);

    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(h.version, 7);
    while (pg_logr_next(r, &ev, &err) == 1) {
        n++;
        ck_assert_int_eq(ev.nrivals, 0);
        if (ev.kind == PG_EV_RECV)
            ck_assert_int_eq(ev.ctx, 5);
    }
    pg_logr_close(r);
    ck_assert_int_eq(n, 6); /* two sites, three sends, a receive */
}
END_TEST

/* Format 8: an MPI_Irecv's rivals follow its posting, their count then
 * each as a zigzag difference from the posting: written so, read back
 * from an open block walked and a sealed one, and in XML (pangaea -dump)
 * as rivals="1 4"; a receive without rivals has a count of 0. */
START_TEST(test_irecv_rivals_read_back)
{
    static const unsigned char recv[] = /* call 13, kind 2: from 2, tag 5, */
        "\xd2\x00\x04\x0a\x00\x08\x04\x02\x01\x04"; /* id 1, 4 bytes, */
    const char *path = tpath("rivals.comm.pgc"); /* posted 2, rivals 1 4 */
    static const int rivals[] = { 1, 4 };
    size_t i, len;
    char *got;
    int closed;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "./p", "h", &err);
    pg_log_header h;
    pg_logr *r;
    pg_event ev;
    FILE *x;

    ck_assert_msg(w != NULL, "%s", err.msg);
    pg_logw_posted(w, 2, 0);
    pg_logw_rivals(w, 2, rivals);
    ck_assert_int_eq(pg_logw_recv(w, 0, "MPI_Irecv", 2, 5, 1, 4), 0);
    pg_logw_posted(w, 1, 0);
    ck_assert_int_eq(pg_logw_recv(w, 0, "MPI_Irecv", 3, 5, 1, 4), 0);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    got = slurp(path, &len);
    for (i = 0; i + sizeof recv - 1 <= len; i++)
        if (!memcmp(got + i, recv, sizeof recv - 1))
            break;
    ck_assert_msg(i + sizeof recv - 1 <= len, "the receive's bytes");
    free(got);
    for (closed = 0; closed < 2; closed++) {
        if (closed)
            ck_assert_int_eq(pg_logw_close(w), 0);
        r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
        ck_assert_msg(r != NULL, "%s", err.msg);
        ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
        ck_assert_int_eq(ev.posted, 2);
        ck_assert_int_eq(ev.nrivals, 2);
        ck_assert_int_eq(ev.rivals[0], 1);
        ck_assert_int_eq(ev.rivals[1], 4);
        if (closed) { /* the XML form */
            x = fopen(tpath("rivals.xml"), "w");
            ck_assert_ptr_nonnull(x);
            pg_log_xml_event(x, &ev);
            fclose(x);
            got = slurp(tpath("rivals.xml"), &len);
            ck_assert_msg(strstr(got, " rivals=\"1 4\"") != NULL, "%s", got);
            free(got);
        }
        ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
        ck_assert_int_eq(ev.posted, 1);
        ck_assert_int_eq(ev.nrivals, 0);
        ck_assert_int_ne(pg_logr_next(r, &ev, &err), 1);
        pg_logr_close(r);
    }
}
END_TEST

/* The page's example in format 6 (before version 7 added the context to
 * the notes): still read, every event in the default context 0. */
START_TEST(test_v6_log_is_still_read)
{
    static const unsigned char v6[] =
        "\x50\x47\x43\x4c\x06\x02\x03\x2e\x2f\x70\x01\x68\x00"
        "\x10" "5eed0123456789ab" "\xc7\x2d\xdd\xec"           /* header */
        "\x3e\x00\x00\x00"                              /* block length */
        "\x09\x80\xa4\xe8\x03\x01\x02\x2f\x70\xa0\x01"      /* site 1 */
        "\x0d\x00\x01\x0a\x00\xa0\x01\x01\x02"              /* send */
        "\x0d\xa0\x01\x01\x02\x00\x00\x01\x02"              /* send */
        "\x01\xa0\x01\x02\x00\x00\x01\x02"                  /* send */
        "\x09\x50\x02\x02\x2f\x70\xc8\x01"                  /* site 2 */
        "\x4e\x02\xd0\x0f\x02\x03\x01\x00\x02\x0e\x00\x10"  /* recv */
        "\x1f\x19\xce\x91\x1f";                         /* trailer */
    const char *path = write_bytes("page6.comm.pgc", v6, sizeof v6 - 1);
    pg_log_header h;
    pg_err err;
    pg_event ev;
    int n = 0;
    pg_logr *r = pg_logr_open(path, PG_LOG_COMM, &h, &err);

    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(h.version, 6);
    while (pg_logr_next(r, &ev, &err) == 1) {
        n++;
        ck_assert_int_eq(ev.ctx, 0);
        if (ev.kind == PG_EV_RECV)
            ck_assert_int_eq(ev.asked_tag, 7);
    }
    pg_logr_close(r);
    ck_assert_int_eq(n, 6); /* two sites, three sends, a receive */
}
END_TEST

/* Sites 1 and 65 share a slot (format 4 keeps 64): a send at one must
 * not change what the other's receives predict, or a receive that asked
 * for nothing after one that asked would read back with the earlier
 * filter. */
/* The page's example in format 5 (before version 6 added an MPI_Irecv's
 * posting): still read, its recording too. */
START_TEST(test_v5_log_is_still_read)
{
    static const unsigned char v5[] =
        "\x50\x47\x43\x4c\x05\x02\x03\x2e\x2f\x70\x01\x68\x00"
        "\x10" "5eed0123456789ab" "\xd6\xa1\x2e\x9a"           /* header */
        "\x3e\x00\x00\x00"                              /* block length */
        "\x09\x80\xa4\xe8\x03\x01\x02\x2f\x70\xa0\x01"      /* site 1 */
        "\x0d\x00\x01\x0a\x00\xa0\x01\x01\x02"              /* send */
        "\x0d\xa0\x01\x01\x02\x00\x00\x01\x02"              /* send */
        "\x01\xa0\x01\x02\x00\x00\x01\x02"                  /* send */
        "\x09\x50\x02\x02\x2f\x70\xc8\x01"                  /* site 2 */
        "\x4e\x02\xd0\x0f\x02\x03\x01\x00\x02\x0e\x00\x10"  /* recv */
        "\x1f\x19\xce\x91\x1f";                         /* trailer */
    const char *path = write_bytes("page5.comm.pgc", v5, sizeof v5 - 1);
    pg_log_header h;
    pg_err err;
    long n = 0;
    pg_logr *r = pg_logr_open(path, PG_LOG_COMM, &h, &err);

    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(h.version, 5);
    ck_assert_str_eq(h.recording, "5eed0123456789ab");
    pg_logr_close(r);
    ck_assert_int_eq(read_all(path, PG_LOG_COMM, &n, &err), 0);
    ck_assert_int_eq(n, 6); /* two sites, three sends, a receive */
}
END_TEST

/* Format 6: an MPI_Irecv's receive ends with its posting (posted << 1 |
 * together), in the open block a reader walks and in a sealed one; other
 * receives have none. */
START_TEST(test_irecv_posting_read_back)
{
    static const unsigned char recv[] = /* call 13 (MPI_Irecv), kind 2 */
        "\xd2\x00\x04\x0a\x00\x08\x06"; /* from 2, tag 5, id 1, 4 bytes, 3 */
    const char *path = tpath("posted.comm.pgc");
    size_t i;
    int posted[] = { 3, 1, 0, 2 }, together[] = { 0, 1, 0, 1 };
    size_t len;
    char *got;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "./p", "h", &err);
    pg_log_header h;
    pg_logr *r;
    pg_event ev;

    ck_assert_msg(w != NULL, "%s", err.msg);
    pg_logw_posted(w, 3, 0);
    ck_assert_int_eq(pg_logw_recv(w, 0, "MPI_Irecv", 2, 5, 1, 4), 0);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    got = slurp(path, &len);
    for (i = 0; i + sizeof recv - 1 <= len; i++)
        if (!memcmp(got + i, recv, sizeof recv - 1))
            break;
    ck_assert_msg(i + sizeof recv - 1 <= len, "the receive's bytes");
    free(got);
    pg_logw_posted(w, 1, 1);
    ck_assert_int_eq(pg_logw_recv(w, 0, "MPI_Irecv", 3, 5, 1, 4), 0);
    ck_assert_int_eq(pg_logw_recv(w, 0, "MPI_Recv", 3, 5, 2, 4), 0);
    pg_logw_posted(w, 2, 1);
    ck_assert_int_eq(pg_logw_recv(w, 0, "MPI_Irecv", 2, 5, 2, 4), 0);
    for (int closed = 0; closed < 2; closed++) {
        if (closed)
            ck_assert_int_eq(pg_logw_close(w), 0);
        r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
        ck_assert_msg(r != NULL, "%s", err.msg);
        for (i = 0; i < 4; i++) {
            ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
            ck_assert_int_eq(ev.posted, posted[i]);
            ck_assert_int_eq(ev.together, together[i]);
            ck_assert_int_eq(ev.msgid, i == 0 ? 1 : i == 3 ? 2 : i);
        }
        ck_assert_int_ne(pg_logr_next(r, &ev, &err), 1);
        pg_logr_close(r);
    }
}
END_TEST

/* Format 7: a send's and a receive's context, predicted per site like
 * the rest of the note: written when it changes at a site, read back for
 * every event (an open block walked and a sealed one), 0 costing nothing
 * when predicted; an event taken back (pg_logw_undo) leaves the
 * prediction as it was. */
START_TEST(test_contexts_read_back)
{
    const char *path = tpath("ctx.comm.pgc");
    static const int ctx[] = { 0, 7, 7, 0, 3, 3 };
    int to = 2, i, closed;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "./p", "h", &err);
    pg_log_header h;
    pg_logr *r;
    pg_event ev;

    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 0; i < 6; i++) {
        pg_logw_note(w, 1, -3, -2, 0);
        pg_logw_ctx(w, ctx[i]);
        ck_assert_int_eq(pg_logw_send(w, 0, "MPI_Send", 1, i + 1, 4, 1, &to), 0);
        if (i == 4) { /* taken back: the site's context is 0 again */
            pg_logw_undo(w);
            pg_logw_note(w, 1, -3, -2, 0);
            pg_logw_ctx(w, 3);
            ck_assert_int_eq(pg_logw_send(w, 0, "MPI_Send", 1, i + 1, 4, 1,
                                          &to), 0);
        }
        pg_logw_note(w, 2, -1, 1, 0);
        pg_logw_ctx(w, ctx[i]);
        ck_assert_int_eq(pg_logw_recv(w, 0, "MPI_Recv", 2, 1, i + 1, 4), 0);
    }
    for (closed = 0; closed < 2; closed++) {
        if (closed)
            ck_assert_int_eq(pg_logw_close(w), 0);
        else
            ck_assert_int_eq(pg_logw_flush(w), 0);
        r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
        ck_assert_msg(r != NULL, "%s", err.msg);
        for (i = 0; i < 12; i++) {
            ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
            ck_assert_int_eq(ev.kind, i % 2 ? PG_EV_RECV : PG_EV_SEND);
            ck_assert_int_eq(ev.ctx, ctx[i / 2]);
            ck_assert_int_eq(ev.msgid, i / 2 + 1);
        }
        ck_assert_int_ne(pg_logr_next(r, &ev, &err), 1);
        pg_logr_close(r);
    }
}
END_TEST

/* The same log in format 4 (the page's example before version 5 added the
 * recording to the header): still read, with no recording. */
START_TEST(test_v4_log_is_still_read)
{
    static const unsigned char v4[] =
        "\x50\x47\x43\x4c\x04\x02\x03\x2e\x2f\x70\x01\x68\x00"
        "\x9b\xad\x24\xf5"                                 /* header */
        "\x3a\x00\x00\x00"                              /* block length */
        "\x09\x80\x92\xf4\x01\x01\x02\x2f\x70\xa0\x01"      /* site 1 */
        "\x0d\x00\x01\x0a\x00\xa0\x01\x01\x02"              /* send */
        "\x0d\x50\x01\x02\x00\x00\x01\x02"                  /* send */
        "\x01\x50\x02\x00\x00\x01\x02"                      /* send */
        "\x09\x28\x02\x02\x2f\x70\xc8\x01"                  /* site 2 */
        "\x4e\x00\x02\x03\x01\x00\x02\x0e\x00\x10"          /* recv */
        "\x1f\xd2\x1b\xa8\xd2";                         /* trailer */
    const char *path = write_bytes("page4.comm.pgc", v4, sizeof v4 - 1);
    pg_log_header h;
    pg_err err;
    long n = 0;
    pg_logr *r = pg_logr_open(path, PG_LOG_COMM, &h, &err);

    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(h.version, 4);
    ck_assert_int_eq(h.ltid, 2);
    ck_assert_str_eq(h.recording, "");
    pg_logr_close(r);
    ck_assert_int_eq(read_all(path, PG_LOG_COMM, &n, &err), 0);
    ck_assert_int_eq(n, 6); /* two sites, three sends, a receive */
}
END_TEST

START_TEST(test_sites_sharing_a_slot_read_back)
{
    const char *path = tpath("slots.comm.pgc");
    int to = 2, i, asked;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "./p", "h", &err);
    pg_logr *r;
    pg_event ev;

    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 0; i < 8; i++) {
        asked = i < 6;
        pg_logw_note(w, 1, asked ? -1 : -3, asked ? 9 : -2, 0);
        ck_assert_int_eq(pg_logw_recv(w, 1.0 + i, "pvm_recv", 2, 9, i + 1,
                                      8), 0);
        pg_logw_note(w, 65, -3, -2, 0);
        ck_assert_int_eq(pg_logw_send(w, 1.0 + i, "pvm_send", 9, i + 1, 8,
                                      1, &to), 0);
    }
    ck_assert_int_eq(pg_logw_close(w), 0);
    r = open_ok(path, PG_LOG_COMM, NULL);
    for (i = 0; i < 8; i++) {
        asked = i < 6;
        next_ok(r, &ev);
        ck_assert_int_eq(ev.kind, PG_EV_RECV);
        ck_assert_int_eq(ev.site, 1);
        ck_assert_int_eq(ev.asked_from, asked ? -1 : -3);
        ck_assert_int_eq(ev.asked_tag, asked ? 9 : -2);
        next_ok(r, &ev);
        ck_assert_int_eq(ev.kind, PG_EV_SEND);
        ck_assert_int_eq(ev.site, 65);
    }
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

/* The same page's example of format 3 (written by earlier versions),
 * read back: a site event, a send with its site (kind 13) and a receive
 * with its asked filter and site (kind 14), framed with CRC-32. */
START_TEST(test_v3_example_of_the_format_page_reads)
{
    static const unsigned char v3[] =
        "\x50\x47\x43\x4c\x03\x02\x03\x2e\x2f\x70\x01\x68\x00"
        "\xfe\x61\x87\x7a"                                 /* header */
        "\x09\x80\x92\xf4\x01\x01\x02\x2f\x70\xa0\x01"      /* site */
        "\x0d\x00\x0a\x00\xa0\x01\x01\x02\x02"              /* send */
        "\x4e\x28\x02\x04\x00\x8f\x01\x01\x0e\x00\x02"      /* recv */
        "\x1f\x26\xba\x2c\x9d";                          /* trailer */
    const char *path = write_bytes("page3.comm.pgc", v3, sizeof v3 - 1);
    pg_log_header h;
    pg_logr *r;
    pg_event ev;
    pg_err err;

    r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(h.version, 3);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_SITE);
    ck_assert_str_eq(ev.module, "/p");
    ck_assert_int_eq(ev.offset, 160);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_SEND);
    ck_assert_int_eq(ev.site, 1);
    ck_assert_int_eq(ev.tag, 5);
    ck_assert_int_eq(ev.bytes, 80);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_RECV);
    ck_assert_int_eq(ev.asked_from, -1);
    ck_assert_int_eq(ev.asked_tag, 7);
    ck_assert_int_eq(ev.matcher, 0);
    ck_assert_int_eq(ev.site, 1);
    ck_assert_int_eq(ev.tag, 7);
    ck_assert_int_eq(ev.bytes, 8);
    ck_assert(fabs(ev.t - 1.00001) < 1e-7);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 0);
    pg_logr_close(r);
}
END_TEST

/* A race-only log of format 3 (pangaea -min before format 4): the gap
 * after the time numbers its events, and it still reads.  Built from the
 * page's rules: two receives with gaps 5 and 0, an end with gap 2. */
START_TEST(test_v3_race_only_log_with_gaps_reads)
{
    unsigned char buf[128];
    static const unsigned char events[] = {
        0x42, 0x28, 0x05, 0x02, 0x04, 0x00, 0x10,       /* recv, gap 5 */
        0x42, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00,       /* recv, gap 0 */
        0x04, 0x02, 0x02, 0x00,                         /* end, gap 2 */
        0x1F };
    size_t n = 0;
    uint32_t crc;
    pg_logr *r;
    pg_event ev;
    pg_err err;
    int i;

    memcpy(buf, "PGCL\x03\x02\x03./p\x01h\x09race-only", 22);
    n = 22;
    crc = pg_crc32(0, buf, n);
    for (i = 0; i < 4; i++)
        buf[n++] = (unsigned char)(crc >> (8 * i));
    memcpy(buf + n, events, sizeof events);
    crc = pg_crc32(0, events, sizeof events);
    n += sizeof events;
    for (i = 0; i < 4; i++)
        buf[n++] = (unsigned char)(crc >> (8 * i));
    r = pg_logr_open(write_bytes("min3.comm.pgc", buf, n), PG_LOG_COMM,
                     NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_RECV);
    ck_assert_int_eq(ev.seq, 6);
    ck_assert_int_eq(ev.tag, 2);
    ck_assert_int_eq(ev.bytes, 8);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.seq, 7);
    ck_assert_int_eq(ev.msgid, 2);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, PG_EV_END);
    ck_assert_int_eq(ev.seq, 10);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 0);
    pg_logr_close(r);
}
END_TEST

/* CRC-32C by the SSE4.2 instruction and by the tables agree, with the
 * standard check value, for every length and alignment. */
START_TEST(test_crc32c_both_ways)
{
    unsigned char buf[300];
    uint32_t a, b;
    int i, k;

    ck_assert_uint_eq(pg_crc32c(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(pg_crc32(0, "123456789", 9), 0xCBF43926u);
    for (i = 0; i < 300; i++)
        buf[i] = (unsigned char)(i * 131 + 7);
    for (i = 0; i < 40; i++)
        for (k = 0; k + i <= 300; k += 37) {
            pg_crc32c_portable(0);
            a = pg_crc32c(0, buf + i, (size_t)k);
            pg_crc32c_portable(1);
            b = pg_crc32c(0, buf + i, (size_t)k);
            ck_assert_uint_eq(a, b);
            ck_assert_uint_eq(pg_crc32c(pg_crc32c(0, buf + i, (size_t)k / 2),
                                        buf + i + k / 2, (size_t)(k - k / 2)),
                              b);
        }
    pg_crc32c_portable(0);
    ck_assert_uint_eq(pg_crc32c(0, "123456789", 9), 0xE3069283u);
}
END_TEST

static Suite *log_format_suite(void)
{
    Suite *s = suite_create("comm log format");
    TCase *tc = tcase_create("format");

    tcase_add_test(tc, test_v8_bytes_are_those_of_the_format_page);
    tcase_add_test(tc, test_v7_log_is_still_read);
    tcase_add_test(tc, test_irecv_rivals_read_back);
    tcase_add_test(tc, test_v6_log_is_still_read);
    tcase_add_test(tc, test_contexts_read_back);
    tcase_add_test(tc, test_v5_log_is_still_read);
    tcase_add_test(tc, test_irecv_posting_read_back);
    tcase_add_test(tc, test_v4_log_is_still_read);
    tcase_add_test(tc, test_sites_sharing_a_slot_read_back);
    tcase_add_test(tc, test_v3_example_of_the_format_page_reads);
    tcase_add_test(tc, test_v3_race_only_log_with_gaps_reads);
    tcase_add_test(tc, test_crc32c_both_ways);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(log_format_suite());
}
