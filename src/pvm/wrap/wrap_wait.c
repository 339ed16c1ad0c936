/*
 * wrap_wait.c - the replay's blocking wait: PVM's own untimed receive,
 * whose select() lets go once a second of silence.
 *
 * Design.  A replayed receive whose message has not come yet waits in
 * libpvm3's untimed pvm_recv, which blocks in select() with no timeout and
 * reads no clock (a timed pvm_trecv reads it four times or more a call,
 * and a pvm_nrecv twice).  While it waits, two things must still happen:
 * once a second of silence, a look whether the expected message's sender
 * has ended (pvm_pstat), and once the wait has lasted PANGAEA_STALL
 * seconds, a report to `pangaea` naming the task and the event it waits
 * for.  Both are PVM calls, which neither another thread nor a signal
 * handler may make (libpvm3 is not thread safe), and libpvm3 goes back to
 * select() when a signal interrupts it.  So the wait itself lets go:
 *
 *  - libpvm3 has one select() (mxfer's, under every receive and send).  A
 *    replaying task points libpvm3's own link to it (its GOT slot, found
 *    through its dynamic section) at hook_select, once, at its first
 *    wait: the program's select() and every other library's stay libc's,
 *    and a recording pays nothing.  (A global interposition of select
 *    cost ~90 instructions a round trip in every mode; a watcher thread
 *    made every system call and malloc of the task take glibc's
 *    multi-threaded paths, ~250 more: both measured, BENCHMARKS.md.)
 *  - Only a select made while a replay wait is inside pvm_recv
 *    (pg_wait_recv), that would block for ever and has nothing to write,
 *    gets a timeout of a second.  When that second passes with nothing
 *    readable, the select fails (ETIMEDOUT) and libpvm3 leaves its
 *    receive: mxfer returns PvmSysErr, mroute clears its re-entry flag
 *    and pvm_recv returns the error, PVM's queue untouched (libpvm3 3.4.6,
 *    lpvm.c; a fragment read in part stays in its route's state, where
 *    the next receive carries on).  The wait looks up and receives again.
 *  - libpvm3 would say so on stderr twice: mxfer through pvmlogperror,
 *    whose GOT slot is pointed here too and which is quiet for that one
 *    failure, and pvm_recv through lpvmerr, quiet because pvmautoerr is 0
 *    for it; pvm_errno gets its value back.
 *
 * A select with a message to send (a handler's reply queued during the
 * receive) is never cut short: a fragment half written would be lost.
 * Where the slots cannot be found (libpvm3 linked statically), the wait
 * is PVM's timed receive of a second, as before.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pg_internal.h"

#if __ELF_NATIVE_CLASS == 64
#define RSYM ELF64_R_SYM
#else
#define RSYM ELF32_R_SYM
#endif

typedef int (*selectfn)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
typedef int (*perrorfn)(char *);

static int hooked; /* 0: not tried yet, 1: in place, -1: cannot be */
static selectfn real_select;
static perrorfn real_logperror;
static int in_wait; /* a replay wait is inside pvm_recv */
static int cut;     /* ... and its select was cut short */
static int *autoerr, *pvmerrno; /* libpvm3's (not in pvm3.h) */
static int saved_autoerr, saved_errno;

/* libpvm3 quiet for the failure we cause: its two messages, its error. */
static void quiet(void)
{
    cut = 1;
    if (autoerr)
        saved_autoerr = *autoerr, *autoerr = 0;
    if (pvmerrno)
        saved_errno = *pvmerrno;
}

static void unquiet(void)
{
    cut = 0;
    if (autoerr)
        *autoerr = saved_autoerr;
    if (pvmerrno)
        *pvmerrno = saved_errno;
}

/* Whether the select would write: a fragment is on its way.  One load
 * for the usual set of fewer than 64 descriptors. */
static int writing(int n, const fd_set *w)
{
    const __fd_mask *bits = w ? __FDS_BITS(w) : NULL;
    int i, words = (n + __NFDBITS - 1) / __NFDBITS;

    for (i = 0; bits && i < words; i++)
        if (bits[i])
            return 1;
    return 0;
}

/* The timeout is static, not on the stack: no stack-protector check at
 * every select (libpvm3 makes two a received message), and libpvm3 is
 * single-threaded. */
static struct timespec second;

/* A select of libpvm3's that would block for ever, made while a replay
 * waits in pvm_recv, gets a second, straight from the kernel: libc's
 * select with a timeout converts it to a timespec and back (~35
 * instructions more than without, twice a received message in a
 * fan-in), and libpvm3 gave none to convert back.  pselect6 with no
 * signal mask is select with a timespec, on every Linux architecture. */
static int hook_select(int n, fd_set *r, fd_set *w, fd_set *e,
                       struct timeval *tv)
{
    long cc;

    if (__builtin_expect(!in_wait, 1) || tv || writing(n, w))
        return real_select(n, r, w, e, tv);
    second.tv_sec = 1, second.tv_nsec = 0;
    if ((cc = syscall(SYS_pselect6, n, r, w, e, &second, NULL)) != 0)
        return (int)cc;
    quiet();
    errno = ETIMEDOUT;
    return -1;
}

static int hook_logperror(char *s)
{
    return cut ? 0 : real_logperror(s); /* the select above: not PVM's */
}

/* ---- libpvm3's GOT slots ----------------------------------------------- */

struct slots {
    void **select, **logperror;
    uintptr_t relro, relro_end;
};

/* A dynamic entry's address: glibc has made most absolute already. */
static uintptr_t dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) p)
{
    return p < info->dlpi_addr ? info->dlpi_addr + p : p;
}

static void find_slots(const struct dl_phdr_info *info, const ElfW(Dyn) *d,
                       struct slots *s)
{
    const ElfW(Rela) *rel = NULL;
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL, *name;
    size_t size = 0, i;
    void **slot;

    for (; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_JMPREL)
            rel = (const ElfW(Rela) *)dyn_ptr(info, d->d_un.d_ptr);
        else if (d->d_tag == DT_PLTRELSZ)
            size = d->d_un.d_val;
        else if (d->d_tag == DT_SYMTAB)
            sym = (const ElfW(Sym) *)dyn_ptr(info, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            str = (const char *)dyn_ptr(info, d->d_un.d_ptr);
    }
    for (i = 0; rel && sym && str && i < size / sizeof *rel; i++) {
        name = str + sym[RSYM(rel[i].r_info)].st_name;
        slot = (void **)(info->dlpi_addr + rel[i].r_offset);
        if (!strcmp(name, "select"))
            s->select = slot;
        else if (!strcmp(name, "pvmlogperror"))
            s->logperror = slot;
    }
}

static int find_pvm(struct dl_phdr_info *info, size_t size, void *data)
{
    struct slots *s = data;
    const ElfW(Dyn) *dyn = NULL;
    int i;

    (void)size;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libpvm3.so"))
        return 0;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        else if (ph->p_type == PT_GNU_RELRO) {
            s->relro = info->dlpi_addr + ph->p_vaddr;
            s->relro_end = s->relro + ph->p_memsz;
        }
    }
    if (dyn)
        find_slots(info, dyn, s);
    return 1;
}

/* Points a slot at `to`; a slot in the read-only part after relocation
 * (RELRO: libpvm3 is linked with BIND_NOW) is made writable for it. */
static int patch(const struct slots *s, void **slot, void *to)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t at = (uintptr_t)slot & ~(page - 1);
    int ro = (uintptr_t)slot >= s->relro && (uintptr_t)slot < s->relro_end;

    if (ro && mprotect((void *)at, page, PROT_READ | PROT_WRITE) != 0)
        return -1;
    *slot = to;
    if (ro)
        mprotect((void *)at, page, PROT_READ);
    return 0;
}

static void hook(void)
{
    struct slots s = { 0 };

    hooked = -1;
    dl_iterate_phdr(find_pvm, &s);
    if (!s.select || !s.logperror || !*s.select || !*s.logperror)
        return;
    real_select = (selectfn)*s.select; /* BIND_NOW: resolved at load */
    real_logperror = (perrorfn)*s.logperror;
    autoerr = dlsym(RTLD_DEFAULT, "pvmautoerr");
    pvmerrno = dlsym(RTLD_DEFAULT, "pvm_errno");
    if (patch(&s, s.logperror, (void *)hook_logperror) == 0 &&
        patch(&s, s.select, (void *)hook_select) == 0)
        hooked = 1;
}

/* No hook: PVM's timed receive of a second, as before. */
static __attribute__((noinline)) int sliced(int tid, int tag)
{
    struct timeval slice = { 1, 0 };

    return pg_real.trecv(tid, tag, &slice);
}

int pg_wait_recv(int tid, int tag)
{
    int bufid;

    if (__builtin_expect(hooked <= 0, 0)) {
        if (hooked == 0)
            hook();
        if (hooked < 0)
            return sliced(tid, tag);
    }
    in_wait = 1;
    bufid = pg_real.recv(tid, tag);
    in_wait = 0;
    if (__builtin_expect(cut, 0)) {
        unquiet();
        return 0;
    }
    return bufid;
}
