/*
 * test_live_guard.c - who may talk to the live view (live_guard.c): the
 * token, the Host and Origin a request must name, a control's content
 * type, a route's fields.  Each check is fed the strings a request would
 * carry; the attacks themselves, over HTTP, are tests/e2e/test_live_guard.sh.
 */
#include <check.h>

#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"

static void start(const char *addr, unsigned port)
{
    pg_err err;

    ck_assert_int_eq(lv_guard_start(addr, port, &err), 0);
}

START_TEST(the_token_is_random_and_compared_whole)
{
    char first[64], t[64];

    start("127.0.0.1", 8080);
    snprintf(first, sizeof first, "%s", lv_guard_token());
    ck_assert_uint_eq(strlen(first), 48);
    ck_assert_uint_eq(strspn(first, "0123456789abcdef"), 48);
    ck_assert(lv_guard_token_ok(first));
    snprintf(t, sizeof t, "%s", first);
    t[47] = t[47] == '0' ? '1' : '0';
    ck_assert(!lv_guard_token_ok(t));
    t[47] = 0;                           /* a prefix */
    ck_assert(!lv_guard_token_ok(t));
    ck_assert(!lv_guard_token_ok(""));
    ck_assert(!lv_guard_token_ok(NULL));
    start("127.0.0.1", 8080);            /* a run of its own: another one */
    ck_assert_str_ne(lv_guard_token(), first);
}
END_TEST

static int origin(const char *host, const char *orig)
{
    const char *why = NULL;
    int rc = lv_guard_origin(host, orig, &why);

    ck_assert(rc == 0 || (rc == 403 && why && *why));
    return rc;
}

START_TEST(host_must_be_the_address_served)
{
    start("127.0.0.1", 8080);
    ck_assert_int_eq(origin("127.0.0.1:8080", NULL), 0);
    ck_assert_int_eq(origin("localhost:8080", NULL), 0);
    ck_assert_int_eq(origin("LocalHost:8080", NULL), 0);
    ck_assert_int_eq(origin("evil.example:8080", NULL), 403); /* rebinding */
    ck_assert_int_eq(origin("127.0.0.1:8081", NULL), 403);
    ck_assert_int_eq(origin("127.0.0.1", NULL), 403);  /* port 80 meant */
    ck_assert_int_eq(origin("127.0.0.1:", NULL), 403);
    ck_assert_int_eq(origin("127.0.0.1:8080x", NULL), 403);
    ck_assert_int_eq(origin("127.0.0.2:8080", NULL), 403);
    ck_assert_int_eq(origin("[::1]:8080", NULL), 403);
    ck_assert_int_eq(origin("", NULL), 403);
    ck_assert_int_eq(origin(NULL, NULL), 403); /* HTTP/1.0, no Host */
    start("127.0.0.1", 80);
    ck_assert_int_eq(origin("127.0.0.1", NULL), 0);
    start("10.1.2.3", 8080);
    ck_assert_int_eq(origin("10.1.2.3:8080", NULL), 0);
    ck_assert_int_eq(origin("localhost:8080", NULL), 403); /* not loopback */
}
END_TEST

START_TEST(any_address_takes_addresses_and_the_hosts_name_only)
{
    char me[256], host[300];

    start("0.0.0.0", 9000);
    ck_assert_int_eq(origin("192.168.1.5:9000", NULL), 0);
    ck_assert_int_eq(origin("localhost:9000", NULL), 0);
    ck_assert_int_eq(origin("evil.example:9000", NULL), 403);
    ck_assert_int_eq(origin("1.2.3:9000", NULL), 403);
    ck_assert_int_eq(gethostname(me, sizeof me), 0);
    snprintf(host, sizeof host, "%s:9000", me);
    ck_assert_int_eq(origin(host, NULL), 0);
    snprintf(host, sizeof host, "%s.evil.example:9000", me);
    ck_assert_int_eq(origin(host, NULL), 403);
}
END_TEST

START_TEST(origin_if_sent_is_this_server)
{
    start("127.0.0.1", 8080);
    ck_assert_int_eq(origin("127.0.0.1:8080", "http://127.0.0.1:8080"), 0);
    ck_assert_int_eq(origin("localhost:8080", "http://localhost:8080"), 0);
    ck_assert_int_eq(origin("127.0.0.1:8080", "http://evil.example"), 403);
    ck_assert_int_eq(origin("127.0.0.1:8080", "null"), 403);
    ck_assert_int_eq(origin("127.0.0.1:8080", "https://127.0.0.1:8080"), 403);
    ck_assert_int_eq(origin("127.0.0.1:8080", "http://localhost:8080"), 403);
    ck_assert_int_eq(origin("127.0.0.1:8080", ""), 403);
}
END_TEST

START_TEST(a_control_is_a_form)
{
    ck_assert(lv_guard_form_type("application/x-www-form-urlencoded"));
    ck_assert(lv_guard_form_type("application/x-www-form-urlencoded;charset=UTF-8"));
    ck_assert(lv_guard_form_type("Application/X-WWW-Form-Urlencoded ; charset=utf-8"));
    ck_assert(!lv_guard_form_type(NULL));
    ck_assert(!lv_guard_form_type("application/json"));
    ck_assert(!lv_guard_form_type("multipart/form-data; boundary=x"));
    ck_assert(!lv_guard_form_type("text/plain"));
    ck_assert(!lv_guard_form_type("application/x-www-form-urlencodedx"));
}
END_TEST

/* fields(BODY, TAKES): lv_guard_fields' status; its error in said. */
static char said[1000];

static int fields(const char *body, const char *takes)
{
    struct lv_form f = { 0 };
    char *b = strdup(body);
    FILE *fp = fmemopen(said, sizeof said, "w");
    int rc;

    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(fp);
    lv_form_body(&f, b);
    rc = lv_guard_fields(&f, takes, fp);
    fclose(fp);
    lv_form_free(&f);
    free(b);
    return rc;
}

START_TEST(a_route_takes_its_own_fields_once)
{
    char many[400] = "";
    int i;

    ck_assert_int_eq(fields("call=send&tag=21", "call ltid tag"), 0);
    ck_assert_int_eq(fields("", ""), 0);
    ck_assert_int_eq(fields("tga=5", "call ltid tag"), 400);
    ck_assert_ptr_nonnull(strstr(said, "unknown field tga"));
    ck_assert_int_eq(fields("ta=5", "call ltid tag"), 400); /* a prefix */
    ck_assert_int_eq(fields("all=5", "call ltid tag"), 400); /* a suffix */
    ck_assert_int_eq(fields("tag=1&tag=2", "call ltid tag"), 400);
    ck_assert_ptr_nonnull(strstr(said, "tag is given twice"));
    ck_assert_int_eq(fields("ltid=1", ""), 400);
    ck_assert_ptr_nonnull(strstr(said, "takes none"));
    ck_assert_int_eq(fields("{\"call\":\"send\"}", "call"), 400); /* JSON */
    for (i = 0; i < LV_FORM_MAX + 1; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%sf%d=1",
                 i ? "&" : "", i);
    ck_assert_int_eq(fields(many, "f0"), 400);
    ck_assert_ptr_nonnull(strstr(said, "more than"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live_guard");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, the_token_is_random_and_compared_whole);
    tcase_add_test(tc, host_must_be_the_address_served);
    tcase_add_test(tc, any_address_takes_addresses_and_the_hosts_name_only);
    tcase_add_test(tc, origin_if_sent_is_this_server);
    tcase_add_test(tc, a_control_is_a_form);
    tcase_add_test(tc, a_route_takes_its_own_fields_once);
    suite_add_tcase(s, tc);
    return ck_run(s) ? 1 : 0;
}
