/*
 * test_untrusted.c - what a recording's strings may be and how they are
 * shown (src/cli/files/untrusted.c, hostcheck.c): the host-name grammar a
 * <child host="..."> must follow, top_esc, the filter top_safe_output
 * puts under stdout (C0 controls but newline and tab, DEL, and UTF-8 C1
 * controls as \xNN, also when a C1 control is split across two writes),
 * and top_file_begin/end refusing a link planted in a log directory.
 */
#include <check.h>

#include "check_run.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "top.h"

START_TEST(host_names_are_dns_names_or_addresses)
{
    static const char *good[] = { "hA", "node-7.cluster.example.org",
                                  "10.250.77.2", "::1", "fe80::1",
                                  "a_b", "x1" };
    static const char *bad[] = { "", "127.0.0.1 dx=/usr/bin/touch${IFS}/x;",
                                 "h ep=/tmp", "-oProxyCommand=x", "h;x",
                                 "a..b", "host-", "&h", "h\tx", "h\n",
                                 "$(id)", "h/x" };
    char long_label[80];
    size_t i;

    for (i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(top_host_name_ok(good[i]), "refused %s", good[i]);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!top_host_name_ok(bad[i]), "took %s", bad[i]);
    memset(long_label, 'a', 64);
    long_label[64] = 0;
    ck_assert(!top_host_name_ok(long_label)); /* a label is at most 63 */
    long_label[63] = 0;
    ck_assert(top_host_name_ok(long_label));
}
END_TEST

START_TEST(top_esc_escapes_controls_only)
{
    ck_assert_str_eq(top_esc("\033]0;x\007evil.c"), "\\x1b]0;x\\x07evil.c");
    ck_assert_str_eq(top_esc("a\x7f" "b\xc2\x9b" "c"), "a\\x7fb\\x9bc");
    ck_assert_str_eq(top_esc("caf\xc3\xa9 \xc2\xa0ok"),
                     "caf\xc3\xa9 \xc2\xa0ok"); /* not controls */
    ck_assert_str_eq(top_esc(NULL), "");
}
END_TEST

/* What the filtered stdout makes of the writes w[] (each flushed). */
static char *filtered(const char *const *w, int n)
{
    static char got[512];
    char path[] = "/tmp/pg-unit-esc.XXXXXX";
    int fd = mkstemp(path), saved = dup(1), i;
    FILE *old = stdout, *old_err = stderr;
    ssize_t len;

    ck_assert(fd >= 0 && saved >= 0);
    dup2(fd, 1);
    top_safe_output(1);
    for (i = 0; i < n; i++) {
        fputs(w[i], stdout);
        fflush(stdout);
    }
    fclose(stdout);
    fclose(stderr);
    stdout = old;
    stderr = old_err;
    dup2(saved, 1);
    close(saved);
    len = pread(fd, got, sizeof got - 1, 0);
    got[len > 0 ? len : 0] = 0;
    close(fd);
    unlink(path);
    return got;
}

START_TEST(the_output_filter_escapes_every_control)
{
    const char *one[] = { "ok\tline\n\033[2J\rx\x7f\n" };
    const char *split[] = { "a\xc2", "\x9b" "31m b\xc2", "\xa0" "c\n" };

    ck_assert_str_eq(filtered(one, 1), "ok\tline\n\\x1b[2J\\x0dx\\x7f\n");
    ck_assert_str_eq(filtered(split, 3), "a\\x9b31m b\xc2\xa0" "c\n");
}
END_TEST

START_TEST(a_link_in_a_log_directory_is_not_written_through)
{
    char dir[] = "/tmp/pg-unit-dir.XXXXXX", path[200], victim[200];
    struct top_file f;
    pg_err err;
    FILE *fp;

    ck_assert(mkdtemp(dir));
    snprintf(victim, sizeof victim, "%s/victim", dir);
    fp = fopen(victim, "w");
    fputs("precious", fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/page.html.tmp", dir);
    ck_assert_int_eq(symlink(victim, path), 0);
    snprintf(path, sizeof path, "%s/page.html", dir);
    ck_assert(top_file_begin(&f, path, &err) == NULL);
    ck_assert_msg(strstr(err.msg, "page.html.tmp is a symbolic link"), "%s",
                  err.msg);
    snprintf(path, sizeof path, "%s/page.html.tmp", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/page.html", dir);
    ck_assert((fp = top_file_begin(&f, path, &err)) != NULL);
    fputs("page", fp);
    ck_assert_int_eq(top_file_end(&f, 1, &err), 0);
    fp = fopen(victim, "r");
    ck_assert(fgets(path, sizeof path, fp));
    fclose(fp);
    ck_assert_str_eq(path, "precious");
    snprintf(path, sizeof path, "%s/page.html", dir);
    unlink(path);
    unlink(victim);
    ck_assert_int_eq(rmdir(dir), 0); /* no temporary left */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("untrusted");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, host_names_are_dns_names_or_addresses);
    tcase_add_test(tc, top_esc_escapes_controls_only);
    tcase_add_test(tc, the_output_filter_escapes_every_control);
    tcase_add_test(tc, a_link_in_a_log_directory_is_not_written_through);
    suite_add_tcase(s, tc);
    return ck_run(s) ? 1 : 0;
}
