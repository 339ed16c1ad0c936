/*
 * test_replay_index.c - the replay's index of messages taken out of PVM's
 * queue (replay_index.c), without a pvmd: what is put is found until
 * deleted, whatever collides and however the table grows; deletion keeps
 * every other entry findable (backward shift); pg_rxi_pick chooses as
 * PVM's receive does among queued messages.
 */
#include <check.h>

#include "check_run.h"
#include <stdlib.h>

#include "pg_internal.h"

/* The bufid given to (src, msgid) in these tests. */
static int bufid_of(int src, int msgid)
{
    return src * 1000 + msgid;
}

START_TEST(put_entries_are_found_and_deleted_ones_are_not)
{
    int src, msgid, len;

    pg_rxi_clear();
    /* 64 senders x 100 messages: many collisions, several growths */
    for (src = 1; src <= 64; src++)
        for (msgid = 1; msgid <= 100; msgid++)
            ck_assert_int_eq(pg_rxi_put(src, msgid, bufid_of(src, msgid),
                                        msgid + 7), 0);
    ck_assert_uint_eq(pg_rxi_count(), 6400);
    /* every other one deleted: the rest are still found */
    for (src = 1; src <= 64; src++)
        for (msgid = 1; msgid <= 100; msgid += 2)
            pg_rxi_del(src, msgid);
    ck_assert_uint_eq(pg_rxi_count(), 3200);
    for (src = 1; src <= 64; src++)
        for (msgid = 1; msgid <= 100; msgid++) {
            len = -1;
            if (msgid % 2) {
                ck_assert_int_eq(pg_rxi_find(src, msgid, &len), 0);
            } else {
                ck_assert_int_eq(pg_rxi_find(src, msgid, &len),
                                 bufid_of(src, msgid));
                ck_assert_int_eq(len, msgid + 7);
            }
        }
    pg_rxi_del(99, 99); /* absent: nothing happens */
    ck_assert_uint_eq(pg_rxi_count(), 3200);
    pg_rxi_clear();
    ck_assert_uint_eq(pg_rxi_count(), 0);
    ck_assert_int_eq(pg_rxi_find(2, 2, NULL), 0);
}
END_TEST

START_TEST(a_put_again_replaces_the_entry)
{
    pg_rxi_clear();
    ck_assert_int_eq(pg_rxi_put(5, 1, 10, 8), 0);
    ck_assert_int_eq(pg_rxi_put(5, 1, 11, 9), 0);
    ck_assert_uint_eq(pg_rxi_count(), 1);
    ck_assert_int_eq(pg_rxi_find(5, 1, NULL), 11);
    pg_rxi_clear();
}
END_TEST

/* A matcher by tag, as the program's receive of (tid, tag) would judge:
 * the bufid's last digit stands for the message's tag. */
static int by_tag(int bufid, int tid, int tag)
{
    return tag == -1 || bufid % 10 == tag;
}

/* A matcher preferring tag 3 (verdict 2) over any other (1 for tag 4). */
static int prefers(int bufid, int tid, int tag)
{
    return bufid % 10 == 3 ? 2 : bufid % 10 == 4 ? 1 : 0;
}

START_TEST(a_buffer_id_finds_its_entry_as_entries_move)
{
    int src, msgid;

    pg_rxi_clear();
    /* 16 senders x 50: entries move as the table grows and as deletions
     * shift them back; every id still names its own entry */
    for (src = 1; src <= 16; src++)
        for (msgid = 1; msgid <= 50; msgid++)
            ck_assert_int_eq(pg_rxi_put(src, msgid, bufid_of(src, msgid), 8),
                             0);
    for (src = 1; src <= 16; src++)
        for (msgid = 1; msgid <= 50; msgid += 3)
            pg_rxi_del(src, msgid);
    for (src = 1; src <= 16; src++)
        for (msgid = 1; msgid <= 50; msgid++)
            ck_assert_int_eq(pg_rxi_has_bufid(bufid_of(src, msgid)),
                             (msgid - 1) % 3 != 0);
    /* every kept message moved to a fresh id: found under it alone */
    for (src = 1; src <= 16; src++)
        for (msgid = 1; msgid <= 50; msgid++)
            if ((msgid - 1) % 3 != 0) {
                pg_rxi_swap_bufid(bufid_of(src, msgid),
                                  100000 + bufid_of(src, msgid));
                ck_assert_int_eq(pg_rxi_find(src, msgid, NULL),
                                 100000 + bufid_of(src, msgid));
            }
    for (src = 1; src <= 16; src++)
        for (msgid = 1; msgid <= 50; msgid++)
            if ((msgid - 1) % 3 != 0)
                pg_rxi_swap_bufid(100000 + bufid_of(src, msgid),
                                  bufid_of(src, msgid));
    /* two kept messages change ids; a kept one and a free id too */
    pg_rxi_swap_bufid(bufid_of(2, 2), bufid_of(3, 3));
    ck_assert_int_eq(pg_rxi_find(2, 2, NULL), bufid_of(3, 3));
    ck_assert_int_eq(pg_rxi_find(3, 3, NULL), bufid_of(2, 2));
    pg_rxi_swap_bufid(bufid_of(4, 5), 99999);
    ck_assert_int_eq(pg_rxi_find(4, 5, NULL), 99999);
    ck_assert_int_eq(pg_rxi_has_bufid(bufid_of(4, 5)), 0);
    ck_assert_int_eq(pg_rxi_has_bufid(99999), 1);
    /* taken out: its id no longer names an entry */
    ck_assert_int_eq(pg_rxi_take(4, 5, NULL), 99999);
    ck_assert_int_eq(pg_rxi_has_bufid(99999), 0);
    pg_rxi_clear();
    ck_assert_int_eq(pg_rxi_has_bufid(bufid_of(2, 3)), 0);
}
END_TEST

START_TEST(pick_takes_the_first_arrived_match_as_pvm_does)
{
    int src = 0, msgid = 0;

    pg_rxi_clear();
    pg_rxi_put(7, 1, 71, 8); /* arrival order: tag 1, 2, 3, 2, 4 */
    pg_rxi_put(8, 1, 82, 8);
    pg_rxi_put(7, 2, 73, 8);
    pg_rxi_put(9, 1, 92, 8);
    pg_rxi_put(8, 2, 84, 8);
    ck_assert_int_eq(pg_rxi_pick(by_tag, -1, 2, &src, &msgid), 82);
    ck_assert_int_eq(src, 8);
    ck_assert_int_eq(msgid, 1);
    ck_assert_int_eq(pg_rxi_pick(by_tag, -1, -1, &src, &msgid), 71);
    ck_assert_int_eq(pg_rxi_pick(by_tag, -1, 5, &src, &msgid), 0);
    /* a verdict of 1 is taken at once (PVM stops its walk there), even
     * after a higher verdict */
    ck_assert_int_eq(pg_rxi_pick(prefers, -1, -1, &src, &msgid), 84);
    pg_rxi_del(8, 2);
    ck_assert_int_eq(pg_rxi_pick(prefers, -1, -1, &src, &msgid), 73);
    ck_assert_uint_eq(pg_rxi_count(), 4); /* pick leaves it kept */
    pg_rxi_clear();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("replay_index");
    TCase *tc = tcase_create("index");
    int failed;

    tcase_add_test(tc, put_entries_are_found_and_deleted_ones_are_not);
    tcase_add_test(tc, a_put_again_replaces_the_entry);
    tcase_add_test(tc, a_buffer_id_finds_its_entry_as_entries_move);
    tcase_add_test(tc, pick_takes_the_first_arrived_match_as_pvm_does);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
