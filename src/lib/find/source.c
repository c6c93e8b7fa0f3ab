/* source.c: where a file's bytes come from, handed to the finder: a buffer in memory and a file
 * mapped from disk as one window (surviving its truncation meanwhile), a temporary file read
 * window by window as a stream. It recognises a file by its first bytes, never by its name, and
 * maps it only when those bytes say it can hold device code. Below it is only the finder; the
 * scan (scan.c) and the archive readers call it. */
#include "find.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW (1u << 20) /* what a temporary file is read by */

/* One file's bytes, all at hand, through the finder. */
static smc_status scan_window(smc_input *in, const char *name, const uint8_t *buf, uint64_t len,
                              const smc_options *opt)
{
    smc_finder *f = smc_finder_new(name, opt, true);
    if (!f) return SMC_ERR_NOMEM;
    smc_status st = len > SIZE_MAX ? SMC_ERR_ARG : smc_finder_feed(f, buf, (size_t)len);
    if (st == SMC_OK) st = smc_finder_finish(f, in);
    smc_finder_free(f);
    return st;
}

smc_status smc_scan_memory(smc_input *in, const char *name, const void *buf, size_t len,
                           const smc_options *opt)
{
    if (!in || !name || (!buf && len)) return SMC_ERR_ARG;
    in->files++;
    in->inspected = opt && opt->read.inspect && (in->inspected || in->files == 1);
    return scan_window(in, name, buf, len, opt);
}

/* A file can shrink while it is mapped (another process truncates it); touching a page past its
 * new end raises SIGBUS. The handler puts a page of zeros there, notes it, and lets the scan go on:
 * the bytes that were cut read as zeros, and the file is reported as changed while being read.
 * Only faults inside the mapping this thread is scanning are handled; others go on as before. */
/* The mapping this thread scans, and whether a page of it was replaced by zeros. (cppcheck does
 * not see the members used through the thread-local variable.) */
typedef struct bus_guard {
    // cppcheck-suppress unusedStructMember
    uint8_t *start;
    // cppcheck-suppress unusedStructMember
    uint8_t *end;
    // cppcheck-suppress unusedStructMember
    volatile sig_atomic_t hit;
} bus_guard;
static _Thread_local bus_guard guard;
static struct sigaction previous_bus;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_bus(int sig, siginfo_t *info, void *uctx)
{
    uint8_t *at = info ? (uint8_t *)info->si_addr : NULL;
    if (at && at >= guard.start && at < guard.end) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        void *base = (void *)((uintptr_t)at & ~(page - 1));
        if (mmap(base, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != MAP_FAILED) {
            guard.hit = 1;
            return;
        }
    }
    if (previous_bus.sa_flags & SA_SIGINFO && previous_bus.sa_sigaction) {
        previous_bus.sa_sigaction(sig, info, uctx);
    } else if (previous_bus.sa_handler != SIG_IGN && previous_bus.sa_handler != SIG_DFL &&
               previous_bus.sa_handler) {
        previous_bus.sa_handler(sig);
    } else {
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

static void install_bus(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous_bus);
}

smc_status smc_scan_mapped(smc_input *in, const char *path, const uint8_t *map, uint64_t len,
                           const smc_options *opt)
{
    if (!opt || !opt->run.no_signals) pthread_once(&bus_once, install_bus);
    guard.start = (uint8_t *)(uintptr_t)map;
    guard.end = guard.start + len;
    guard.hit = 0;
    size_t before = in->library_count;
    smc_status st = scan_window(in, path, map, len, opt);
    bool cut = guard.hit;
    guard.start = guard.end = NULL;
    for (size_t i = before; i < in->library_count; i++)
        in->libraries[i].file_size = len;
    if (st == SMC_OK && cut)
        st = smc_input_add_error(in, path,
                                 "the file shrank while being read: what lay past its new end "
                                 "was read as zeros");
    return st;
}

smc_status smc_scan_fd(smc_input *in, const char *path, int fd, const smc_options *opt)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    if (!S_ISREG(sb.st_mode)) return smc_input_add_error(in, path, "not a regular file");
    in->files++;
    uint8_t head[4096]; /* a PE's signature lies where its DOS header says, usually near 0x80 */
    ssize_t got = pread(fd, head, sizeof head, 0);
    if (got < 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    if (!smc_finder_signature(head, (uint64_t)got)) return SMC_OK;

    uint64_t len = (uint64_t)sb.st_size;
    if (len > SIZE_MAX) return smc_input_add_error(in, path, "too large to map");
    /* Private: a page that the file loses meanwhile can be replaced (see on_bus). */
    void *map = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return smc_input_add_error(in, path, "cannot map: %s", strerror(errno));
    smc_status st = smc_scan_mapped(in, path, map, len, opt);
    munmap(map, (size_t)len);
    return st;
}

/* An unlinked temporary file in $TMPDIR (or /tmp), or -1. */
int smc_temp_file(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
    char *path = smc_asprintf("%s/smcheck-XXXXXX", dir); /* no O_TMPFILE on this filesystem */
    fd = path ? mkostemp(path, O_CLOEXEC) : -1;
    if (fd >= 0) unlink(path);
    free(path);
    return fd;
}

smc_status smc_feed(smc_finder *f, const smc_pull *src, uint8_t *buf, size_t cap, size_t have)
{
    smc_status st = have ? smc_finder_feed(f, buf, have) : SMC_OK;
    for (int pass = 0; st == SMC_OK && pass < 2; pass++) {
        size_t got;
        while (st == SMC_OK && (got = src->read(src->ctx, buf, cap)) > 0)
            st = smc_finder_feed(f, buf, got);
        /* Section names that went by before the section table: the bytes once more. */
        if (st != SMC_OK || smc_finder_spilled(f) || !smc_finder_again(f)) break;
        if (!src->rewind || !src->rewind(src->ctx)) break;
    }
    return st;
}

/* A temporary file read window by window. */
typedef struct fd_pull {
    int fd, err;
} fd_pull;

static size_t fd_read(void *ctx, uint8_t *buf, size_t n)
{
    fd_pull *p = ctx;
    ssize_t got = p->err ? -1 : read(p->fd, buf, n);
    if (got < 0 && !p->err) p->err = errno;
    return got > 0 ? (size_t)got : 0;
}

static bool fd_rewind(void *ctx)
{
    fd_pull *p = ctx;
    if (!p->err && lseek(p->fd, 0, SEEK_SET) != 0) p->err = errno;
    return !p->err;
}

smc_status smc_scan_fd_streamed(smc_input *part, const char *name, int fd,
                                const smc_options *opt)
{
    smc_finder *f = smc_finder_new(name, opt, false);
    uint8_t *buf = smc_big_alloc(WINDOW);
    fd_pull p = {.fd = fd};
    smc_pull src = {.read = fd_read, .rewind = fd_rewind, .ctx = &p};
    smc_status st = f && buf ? SMC_OK : SMC_ERR_NOMEM;
    if (st == SMC_OK && fd_rewind(&p)) st = smc_feed(f, &src, buf, WINDOW, 0);
    if (st == SMC_OK && p.err)
        st = smc_input_add_error(part, name, "cannot read its temporary file: %s",
                                 strerror(p.err));
    if (st == SMC_OK && !p.err && smc_finder_spilled(f)) { /* outgrew a stream: read it mapped */
        smc_finder_free(f);
        f = NULL;
        st = smc_scan_fd(part, name, fd, opt);
        part->files--; /* counted by the caller already */
    }
    if (st == SMC_OK && f && !p.err) st = smc_finder_finish(f, part);
    smc_finder_free(f);
    if (buf) smc_big_free(buf, WINDOW);
    return st;
}
