/*
 * test_live.c - the live view's parts that need no pvmd: -live's argument,
 * the snapshot of a comm log that grows while it is read (live_snap.c),
 * and /events.json's paging (live_json.c).
 *
 * The log is written by the library's own writer, event by event, as a
 * task would; the snapshot's thread reads it as pangaea -live does.  Each
 * wait is for the thread's scans (counted), bounded, never a sleep.
 */
#include <check.h>

#include "check_run.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "pg_internal.h"
#include "pg_util.h"

START_TEST(live_argument_is_a_port_or_an_address_and_port)
{
    struct top_opts o;

    memset(&o, 0, sizeof o);
    ck_assert_int_eq(top_live_arg("8080", &o), 1);
    ck_assert_int_eq(o.live_port, 8080);
    ck_assert_str_eq(o.live_addr, "");
    ck_assert_int_eq(top_live_arg("0.0.0.0:81", &o), 1);
    ck_assert_str_eq(o.live_addr, "0.0.0.0");
    ck_assert_int_eq(o.live_port, 81);
    ck_assert_int_eq(top_live_arg("localhost:0", &o), 1);
    ck_assert_str_eq(o.live_addr, "127.0.0.1");
    /* Not an argument of -live: the program, say. */
    ck_assert_int_eq(top_live_arg("./prog", &o), 0);
    ck_assert_int_eq(top_live_arg("prog", &o), 0);
    ck_assert_int_eq(top_live_arg("70000", &o), 0);
    ck_assert_int_eq(top_live_arg("1.2.3:80", &o), 0);
    ck_assert_int_eq(top_live_arg("host:", &o), 0);
    ck_assert_int_eq(top_live_arg("", &o), 0);
}
END_TEST

static long scans(void)
{
    long n;

    lv_snap_lock();
    n = lv.scans;
    lv_snap_unlock();
    return n;
}

/* Until the thread has scanned `more` more times (at most 30 s). */
static void wait_scans(int more)
{
    long want = scans() + more;
    struct timespec nap = { 0, 20000000 };
    int i;

    for (i = 0; i < 1500 && scans() < want; i++)
        nanosleep(&nap, NULL);
    ck_assert_int_ge(scans(), want);
}

static char *json(long since, long max)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(fp);
    lv_snap_lock();
    lv_json_write(fp, since, max);
    lv_snap_unlock();
    fclose(fp);
    return buf;
}

START_TEST(a_growing_log_is_read_event_by_event_each_once)
{
    char dir[] = "/tmp/pg_test_live.XXXXXX", path[4400], *j;
    struct top_opts o;
    int to = 2, i;
    pg_logw *w;
    pg_err err;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    w = pg_logw_open(path, PG_LOG_COMM, 1, "/bin/prog", "hostA", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 1; i <= 3; i++)
        ck_assert_int_eq(pg_logw_send(w, 1000.0 + i, "pvm_send", 5, i, 8, 1,
                                      &to), 0);
    memset(&o, 0, sizeof o);
    o.mode = PANGAEA_LOG;
    snprintf(o.logdir, sizeof o.logdir, "%s", dir);
    ck_assert_int_eq(lv_snap_start(&o, NULL, &err), 0);
    wait_scans(2);
    lv_snap_lock();
    ck_assert_int_eq(lv.nev, 3);
    ck_assert_int_eq(lv.ntasks, 1);
    ck_assert_str_eq(lv.tasks[0]->program, "prog");
    ck_assert_str_eq(lv.tasks[0]->host, "hostA");
    lv_snap_unlock();
    /* The task goes on: only the new events are added. */
    ck_assert_int_eq(pg_logw_recv(w, 1004.0, "pvm_recv", 2, 6, 1, 4), 0);
    ck_assert_int_eq(pg_logw_recv(w, 1005.0, "pvm_recv", 2, 6, 2, 4), 0);
    wait_scans(2);
    lv_snap_lock();
    ck_assert_int_eq(lv.nev, 5);
    for (i = 0; i < 5; i++) {
        ck_assert_int_eq(lv.ev[i].seq, i + 1);
        ck_assert_int_eq(lv.ev[i].kind, i < 3 ? PG_EV_SEND : PG_EV_RECV);
    }
    ck_assert_int_eq(lv.tasks[0]->shown, 5);
    lv_snap_unlock();
    /* /events.json: from the 4th event, one an answer. */
    j = json(3, 1);
    ck_assert_ptr_nonnull(strstr(j, "\"count\":5"));
    ck_assert_ptr_nonnull(strstr(j, "\"since\":3"));
    ck_assert_ptr_nonnull(strstr(j, "\"more\":true"));
    ck_assert_ptr_nonnull(strstr(j, "{\"i\":3,\"ltid\":1,\"seq\":4,\"kind\":\"recv\""));
    ck_assert_ptr_null(strstr(j, "\"i\":4"));
    ck_assert_ptr_nonnull(strstr(j, "\"from\":2"));
    free(j);
    j = json(99, 0); /* past the end: nothing, but the count */
    ck_assert_ptr_nonnull(strstr(j, "\"count\":5"));
    ck_assert_ptr_nonnull(strstr(j, "\"events\":[]"));
    ck_assert_ptr_nonnull(strstr(j, "\"more\":false"));
    free(j);
    ck_assert_int_eq(pg_logw_end(w, 1006.0, 7), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    lv_snap_stop(); /* its last scan reads the log's end */
    lv_snap_lock();
    ck_assert_int_eq(lv.nev, 6);
    ck_assert_int_eq(lv.ev[5].kind, PG_EV_END);
    ck_assert_int_eq(lv.ev[5].tag, 7); /* an end's status */
    ck_assert_int_eq(lv.running, 0);
    lv_snap_unlock();
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A log that does not read while its task may still write it is not
 * called corrupt at once: the tail may be the event (or the seal of a
 * block) being written.  A damage that stays is said by the scan after
 * the run. */
START_TEST(a_log_that_fails_to_read_is_called_corrupt_only_once_it_is_final)
{
    char dir[] = "/tmp/pg_test_live.XXXXXX", path[4400], note[1100];
    struct top_opts o;
    int to = 2, i, fd;
    unsigned char b;
    pg_logw *w;
    pg_err err;
    off_t mid;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    w = pg_logw_open(path, PG_LOG_COMM, 1, "/bin/prog", "hostA", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 1; i <= 40; i++)
        ck_assert_int_eq(pg_logw_send(w, 1000.0 + i, "pvm_send", 5, i, 8, 1,
                                      &to), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    fd = open(path, O_RDWR); /* a byte of the events flipped */
    ck_assert_int_ge(fd, 0);
    mid = lseek(fd, 0, SEEK_END) * 3 / 4;
    ck_assert_int_eq(pread(fd, &b, 1, mid), 1);
    b ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &b, 1, mid), 1);
    close(fd);
    memset(&o, 0, sizeof o);
    o.mode = PANGAEA_LOG;
    snprintf(o.logdir, sizeof o.logdir, "%s", dir);
    ck_assert_int_eq(lv_snap_start(&o, NULL, &err), 0);
    wait_scans(3);
    lv_snap_lock();
    ck_assert_int_eq(lv.ntasks, 1);
    snprintf(note, sizeof note, "%s", lv.tasks[0]->note);
    lv_snap_unlock();
    ck_assert_msg(!note[0], "said while the run goes on: %s", note);
    lv_snap_stop();
    lv_snap_lock();
    snprintf(note, sizeof note, "%s", lv.tasks[0]->note);
    lv_snap_unlock();
    ck_assert_msg(note[0], "the damage is never said");
    unlink(path);
    rmdir(dir);
}
END_TEST

/* The reader scans often enough for a page that watches (new events
 * there at least every 0.4 s while a scan takes up to 0.2 s; half a CPU
 * at most), and takes about 5% of a CPU when nobody watches. */
START_TEST(the_reader_keeps_up_with_a_page_that_watches_and_idles_otherwise)
{
    ck_assert(lv_scan_pause(0.01, 1) == 0.2);
    ck_assert(lv_scan_pause(0.15, 1) + 0.15 <= 0.4);
    ck_assert(lv_scan_pause(0.5, 1) == 0.5);
    ck_assert(lv_scan_pause(0.001, 0) == 0.2);
    ck_assert(lv_scan_pause(0.1, 0) == 2.0);
}
END_TEST

/* A page that starts watching while the reader rests as for nobody (20
 * times a long scan: seconds at 10^6 events) does not wait that long:
 * its first answer says the next scan is a watched pause away, and the
 * reader scans then. */
START_TEST(a_page_that_starts_watching_wakes_a_resting_reader)
{
    char dir[] = "/tmp/pg_test_live.XXXXXX";
    struct top_opts o;
    pg_err err;
    double now;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    memset(&o, 0, sizeof o);
    o.mode = PANGAEA_LOG;
    snprintf(o.logdir, sizeof o.logdir, "%s", dir);
    ck_assert_int_eq(lv_snap_start(&o, NULL, &err), 0);
    wait_scans(1);
    lv_snap_lock();
    now = pg_seconds();
    lv.next_scan = now + 1000; /* as after a scan of 50 s, nobody watching */
    lv_snap_watched();
    ck_assert_msg(lv.next_scan <= now + 1, "next scan in %.1f s",
                  lv.next_scan - now);
    lv_snap_unlock();
    wait_scans(2);
    lv_snap_stop();
    rmdir(dir);
}
END_TEST

/* An answer says when the reader's next scan should be done while the
 * run goes on (the page asks just after), 0 once it is over. */
START_TEST(an_answer_says_when_the_next_scan_is_done)
{
    char *j;

    lv_snap_lock();
    lv.running = 1;
    lv.next_scan = pg_seconds() + 0.3;
    lv_snap_unlock();
    j = json(0, 10);
    ck_assert_msg(strstr(j, "\"next_ms\":") && !strstr(j, "\"next_ms\":0,"), "%s", j);
    free(j);
    lv_snap_lock();
    lv.running = 0;
    lv_snap_unlock();
    j = json(0, 10);
    ck_assert_msg(strstr(j, "\"next_ms\":0,"), "%s", j);
    free(j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live");
    TCase *tc = tcase_create("live");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, live_argument_is_a_port_or_an_address_and_port);
    tcase_add_test(tc, a_growing_log_is_read_event_by_event_each_once);
    tcase_add_test(tc, a_page_that_starts_watching_wakes_a_resting_reader);
    tcase_add_test(tc,
        a_log_that_fails_to_read_is_called_corrupt_only_once_it_is_final);
    tcase_add_test(tc, the_reader_keeps_up_with_a_page_that_watches_and_idles_otherwise);
    tcase_add_test(tc, an_answer_says_when_the_next_scan_is_done);
    suite_add_tcase(s, tc);
    return ck_run(s) ? 1 : 0;
}
