/*
 * progsum.c - the SHA-256 of the program a task runs.
 *
 * A replay must run the recorded program, not merely one with the same
 * base name (a rebuilt binary behaves otherwise with the same arguments).
 * Each task hashes its own executable (/proc/self/exe: after a wrapper
 * script has exec'd it, the real program) when it opens its logs; the
 * recording keeps path and hash in the execution log's header, the replay
 * compares.  SHA-256 from nettle (nettle-dev): small, no global set-up or
 * configuration files read into every task, unlike libgcrypt or OpenSSL.
 */
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <unistd.h>

#include "pg_internal.h"

/* The SHA-256 of the open file fd, in hex; 0, or -1 (a read failed). */
static int fd_sum(int fd, char hex[65])
{
    struct sha256_ctx ctx;
    uint8_t digest[SHA256_DIGEST_SIZE], buf[65536];
    ssize_t n;
    int i;

    sha256_init(&ctx);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&ctx, n, buf);
    if (n < 0)
        return -1;
    sha256_digest(&ctx, sizeof digest, digest);
    for (i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return 0;
}

int pg_file_sum(const char *path, char hex[65])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), cc;

    if (fd < 0)
        return -1;
    cc = fd_sum(fd, hex);
    close(fd);
    return cc;
}

int pg_exe_sum(char *exe, size_t exe_size, char hex[65])
{
    ssize_t n = readlink("/proc/self/exe", exe, exe_size - 1);

    if (n <= 0)
        return -1;
    exe[n] = 0;
    return pg_file_sum("/proc/self/exe", hex);
}
