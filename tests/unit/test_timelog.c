/*
 * test_timelog.c - the time file (timelog.c) and the data file
 * (datafile.c) without a pvmd: what a recording writes, a replay reads
 * back, value for value and byte for byte.
 *
 * Both files keep their state in statics for the life of a process, as a
 * task has one of each: so each test writes in a forked child (as the
 * recording task) and reads in the test process (as the replaying one).
 * The runtime state `pg` (mode, ltid, log directory, started) is set by
 * hand, as the constructor and pg_start would.
 */
#include <check.h>

#include "check_run.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_internal.h"

static void as_task(const char *dir, pangaea_mode_t mode)
{
    pg.mode = mode;
    pg.ltid = 3;
    pg.started = 1;
    snprintf(pg.logdir, sizeof pg.logdir, "%s", dir);
}

static char *fresh_dir(void)
{
    static char dir[] = "/tmp/pg-timelog.XXXXXX";

    strcpy(dir, "/tmp/pg-timelog.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

/* Removes what a test wrote, and its directory. */
static void clean(const char *dir)
{
    static const char *const names[] = { "ltid-3.time.pgc",
                                         "ltid-3.data.pgc" };
    char path[300];
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    ck_assert_int_eq(rmdir(dir), 0);
}

/* Runs fn in a child as a recording task; the child's exit status. */
static int record_in_child(const char *dir, void (*fn)(void))
{
    int status;
    pid_t pid = fork();

    if (pid == 0) {
        as_task(dir, PANGAEA_LOG);
        fn();
        _exit(0);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_times(void)
{
    pg_time_put(PG_TIME_TOD, 0, 1700000000, 999999);
    pg_time_put(PG_TIME_TIME, 0, 1700000001, 0);
    pg_time_put(PG_TIME_CLOCK, 1, 12345, 678901234);
    pg_time_put(PG_TIME_PID, PG_TIME_PID_SLOT, 4242, 0);
    pg_time_put(PG_TIME_CLOCK, 1, 12344, 5); /* a step back: zigzag */
    pg_time_close();
}

START_TEST(clock_values_come_back_in_order)
{
    char *dir = fresh_dir();
    int64_t sec, sub;

    ck_assert_int_eq(record_in_child(dir, write_times), 0);
    as_task(dir, PANGAEA_REPLAY);
    ck_assert_int_eq(pg_time_get(PG_TIME_TOD, 0, &sec, &sub), 1);
    ck_assert(sec == 1700000000 && sub == 999999);
    ck_assert_int_eq(pg_time_get(PG_TIME_TIME, 0, &sec, &sub), 1);
    ck_assert(sec == 1700000001);
    ck_assert_int_eq(pg_time_get(PG_TIME_CLOCK, 1, &sec, &sub), 1);
    ck_assert(sec == 12345 && sub == 678901234);
    ck_assert_int_eq(pg_time_get(PG_TIME_PID, PG_TIME_PID_SLOT, &sec, &sub), 1);
    ck_assert(sec == 4242);
    ck_assert_int_eq(pg_time_get(PG_TIME_CLOCK, 1, &sec, &sub), 1);
    ck_assert(sec == 12344 && sub == 5);
    /* the end: no more values, the real clocks from here */
    ck_assert_int_eq(pg_time_get(PG_TIME_TOD, 0, &sec, &sub), 0);
    clean(dir);
}
END_TEST

static void write_before_start(void)
{
    pg.started = 0; /* an interpreter before exec: nothing is written */
    pg_time_put(PG_TIME_TIME, 0, 5, 0);
    _exit(0);
}

START_TEST(a_process_that_never_starts_writes_no_time_file)
{
    char *dir = fresh_dir(), path[300];
    struct stat st;

    ck_assert_int_eq(record_in_child(dir, write_before_start), 0);
    snprintf(path, sizeof path, "%s/ltid-3.time.pgc", dir);
    ck_assert_int_ne(stat(path, &st), 0);
    clean(dir);
}
END_TEST

/* The exit path of a task whose time file hit a full disk: space comes
 * back (other logs are cut to size as they close), then the time log is
 * closed as runtime.c's ender does. */
static void end_with_room(int kind, const char *msg, int status)
{
    struct rlimit no_limit = { RLIM_INFINITY, RLIM_INFINITY };

    (void)kind, (void)msg;
    setrlimit(RLIMIT_FSIZE, &no_limit);
    pg_time_close();
    _exit(status);
}

/* The i-th value: steps of several sizes, so that values read twice or
 * from the middle of a record come out wrong. */
static int64_t nth(int64_t i)
{
    return i * 10 + (i % 3) * 1000;
}

/* Values nth(1), nth(2) ... until a write fails: the file may hold 100 000
 * bytes (a full disk, as RLIMIT_FSIZE makes it: a write that passes it is
 * cut, the next fails with EFBIG). */
static void write_until_full(void)
{
    struct rlimit limit = { 100000, RLIM_INFINITY };
    int64_t pid;

    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &limit);
    pg_ender = end_with_room;
    for (pid = 1; pid < 1000000; pid++)
        pg_time_put(PG_TIME_PID, PG_TIME_PID_SLOT, nth(pid), 0);
    pg_time_close();
}

START_TEST(a_full_disk_never_writes_a_buffer_twice)
{
    char *dir = fresh_dir();
    int64_t sec, sub, want = 1;

    ck_assert_int_ne(record_in_child(dir, write_until_full), 0);
    as_task(dir, PANGAEA_REPLAY);
    while (pg_time_get(PG_TIME_PID, PG_TIME_PID_SLOT, &sec, &sub) == 1)
        ck_assert_int_eq(sec, nth(want++)); /* in order, none twice */
    ck_assert_int_gt(want, 10000);       /* the chunks that fitted */
    ck_assert_int_lt(want, 1000000);     /* and not more */
    clean(dir);
}
END_TEST

/* Flips byte `at` of ltid 3's time file. */
static void flip(const char *dir, off_t at)
{
    char path[300];
    unsigned char c;
    int fd;

    snprintf(path, sizeof path, "%s/ltid-3.time.pgc", dir);
    ck_assert_int_ge(fd = open(path, O_RDWR), 0);
    ck_assert_int_eq(pread(fd, &c, 1, at), 1);
    c ^= 0x10;
    ck_assert_int_eq(pwrite(fd, &c, 1, at), 1);
    close(fd);
}

START_TEST(a_flipped_byte_of_the_time_file_is_found)
{
    char *dir = fresh_dir(), path[300];
    struct stat st;
    pg_err err;
    off_t at;

    ck_assert_int_eq(record_in_child(dir, write_times), 0);
    snprintf(path, sizeof path, "%s/ltid-3.time.pgc", dir);
    ck_assert_int_eq(pg_time_check(path, &err), 0);
    ck_assert_int_eq(stat(path, &st), 0);
    for (at = 0; at < st.st_size; at++) { /* every byte */
        flip(dir, at);
        ck_assert_msg(pg_time_check(path, &err) < 0, "byte %ld", (long)at);
        ck_assert_ptr_nonnull(strstr(err.msg, path));
        flip(dir, at);
    }
    clean(dir);
}
END_TEST

START_TEST(a_fifo_as_time_file_is_refused_not_waited_for)
{
    char *dir = fresh_dir(), path[300];
    pg_err err;

    snprintf(path, sizeof path, "%s/ltid-3.time.pgc", dir);
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    ck_assert_int_lt(pg_time_check(path, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "is a FIFO"));
    clean(dir);
}
END_TEST

static void write_records(void)
{
    char big[70000];

    memset(big, 0xab, sizeof big);
    pg_data_put('M', "hello", 5);
    pg_data_put('T', "", 0);
    pg_data_put('C', big, sizeof big);
}

START_TEST(data_records_come_back_byte_for_byte)
{
    char *dir = fresh_dir(), *r;
    size_t n;

    ck_assert_int_eq(record_in_child(dir, write_records), 0);
    as_task(dir, PANGAEA_REPLAY);
    r = pg_data_get('M', &n);
    ck_assert(n == 5 && !memcmp(r, "hello", 5));
    free(r);
    r = pg_data_get('T', &n);
    ck_assert(n == 0);
    free(r);
    r = pg_data_get('C', &n);
    ck_assert(n == 70000 && (unsigned char)r[0] == 0xab &&
              (unsigned char)r[69999] == 0xab);
    free(r);
    clean(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timelog");
    TCase *tc = tcase_create("files");
    int failed;

    tcase_add_test(tc, clock_values_come_back_in_order);
    tcase_add_test(tc, a_process_that_never_starts_writes_no_time_file);
    tcase_add_test(tc, data_records_come_back_byte_for_byte);
    tcase_add_test(tc, a_full_disk_never_writes_a_buffer_twice);
    tcase_add_test(tc, a_flipped_byte_of_the_time_file_is_found);
    tcase_add_test(tc, a_fifo_as_time_file_is_refused_not_waited_for);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
