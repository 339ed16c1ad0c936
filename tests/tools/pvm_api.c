/*
 * pvm_api.c - prints src/pvm/wrap/pg_api.def, the table of every call libpvm3
 * and libgpvm3 export, for tests/e2e/test_pvm_api.sh.
 *
 *   pvm_api nm       "libpvm3 SYMBOL" per row, as nm -D would list them
 *   pvm_api how      "REPLAYED pvm_send", "NAMED pvm_halt": the rows a
 *                    wrapper of pg_calls.def must handle
 *   pvm_api readme   the README's list of what replay does with each call
 *
 * Design.  The table is included as an X-macro, so a row with a kind or a
 * handling that does not exist fails to compile here; the README list is
 * made from the rows, never written by hand (the test compares it).
 */
#include <stdio.h>
#include <string.h>

enum lib { PVM3, GPVM3 };
enum kind { MESSAGE, QUERY, MAILBOX, GROUP, HOST, SIGNAL, CLOCK, OUTPUT,
            DETERMINISTIC, INTERNAL, NKIND };
enum how { REPLAYED, PASSED, NAMED };

static const char *const kinds[NKIND] = {
    "messages", "queries", "the mailbox", "groups", "hosts and tasks",
    "signals", "clocks", "output", "deterministic", "internal",
};

static const struct row {
    const char *symbol;
    enum lib lib;
    enum kind kind;
    enum how how;
    const char *note;
} rows[] = {
#define PG_API(symbol, lib, kind, how, note) { #symbol, lib, kind, how, note },
#include "pg_api.def"
};
#define NROWS (sizeof rows / sizeof *rows)

static void print_nm(void)
{
    size_t i;

    for (i = 0; i < NROWS; i++)
        printf("%s %s\n", rows[i].lib == PVM3 ? "libpvm3" : "libgpvm3",
               rows[i].symbol);
}

static void print_how(void)
{
    size_t i;

    for (i = 0; i < NROWS; i++)
        if (rows[i].how != PASSED)
            printf("%s %s\n", rows[i].how == REPLAYED ? "REPLAYED" : "NAMED",
                   rows[i].symbol);
}

/* The rows of handling `how` and kind k with the note of row `first`
 * (those before it are listed already), as "`a`, `b` (note)". */
static int same_note(enum how how, int k, size_t first, int n)
{
    size_t i;

    for (i = first; i < NROWS; i++)
        if (rows[i].how == how && (int)rows[i].kind == k &&
            !strcmp(rows[i].note, rows[first].note))
            printf("%s`%s`", n++ ? ", " : "  - ", rows[i].symbol);
    if (rows[first].note[0])
        printf(" (%s)", rows[first].note);
    return n;
}

/* 1 if an earlier row of the same handling and kind has row i's note. */
static int note_seen(size_t i)
{
    size_t j;

    for (j = 0; j < i; j++)
        if (rows[j].how == rows[i].how && rows[j].kind == rows[i].kind &&
            !strcmp(rows[j].note, rows[i].note))
            return 1;
    return 0;
}

/* One line per kind: "- `pvm_send`, `pvm_getfds` (note) [messages]". */
static void list(enum how how)
{
    size_t i;
    int k, n;

    for (k = 0; k < NKIND; k++) {
        if (how == PASSED && k == INTERNAL)
            continue; /* counted, not listed */
        for (n = 0, i = 0; i < NROWS; i++)
            if (rows[i].how == how && (int)rows[i].kind == k &&
                !note_seen(i))
                n = same_note(how, k, i, n);
        if (n)
            printf(" [%s]\n", kinds[k]);
    }
}

static void print_readme(void)
{
    size_t i;
    int internal = 0, all = (int)NROWS;

    for (i = 0; i < NROWS; i++)
        internal += rows[i].kind == INTERNAL && rows[i].how == PASSED;
    printf("Every one of the %d functions libpvm3 and libgpvm3 (PVM 3.4.6) "
           "export is a row of\n`src/pvm/wrap/pg_api.def` "
           "(made from it by `build/tests/pvm_api readme`):\n\n", all);
    printf("- Recorded and replayed:\n");
    list(REPLAYED);
    printf("- Passed through, not replayed, and named as such: the first "
           "use in a task says\n  \"pvm_X is not replayed: this run may not "
           "repeat\" (recording and replay), the\n  comm log keeps each "
           "call and `pangaea -races` counts them:\n");
    list(NAMED);
    printf("- Passed through, because the same inputs give the same "
           "answer:\n");
    list(PASSED);
    printf("  and %d functions PVM exports for its own use (`pmsg_*`, "
           "`gs_*`, `pvm_tc_*`, ...).\n", internal);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "nm"))
        print_nm();
    else if (argc == 2 && !strcmp(argv[1], "how"))
        print_how();
    else if (argc == 2 && !strcmp(argv[1], "readme"))
        print_readme();
    else {
        fprintf(stderr, "usage: pvm_api nm|how|readme\n");
        return 2;
    }
    return 0;
}
