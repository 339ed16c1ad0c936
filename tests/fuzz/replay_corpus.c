/*
 * replay_corpus.c - runs the fuzz target over files, without libFuzzer.
 *
 *   replay_corpus FILE...
 *
 * Design.  `make check` builds this with fuzz_logr.c as an ordinary program
 * (no sanitizer runtime needed) and gives it every file of
 * tests/fuzz/corpus/ and tests/fuzz/regressions/: an input that once
 * crashed the reader must now go through.  A crash ends the process (the
 * test sees the signal); otherwise it prints one line per file and "N
 * inputs replayed" and exits 0.  An unreadable file exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0, n;

        if (!f) {
            perror(argv[i]);
            return 1;
        }
        do {
            if (len == cap && !(buf = realloc(buf, cap = cap * 2 + 65536))) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
            n = fread(buf + len, 1, cap - len, f);
            len += n;
        } while (n > 0);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        printf("ok %s (%zu bytes)\n", argv[i], len);
    }
    printf("%d inputs replayed\n", argc - 1);
    return 0;
}
