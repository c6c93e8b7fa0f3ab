/* test_remote.c URL FILE [SHA256]: reads of a remote file (remote.c) against the same file on
 * disk, in the orders that move its stream: a read exactly where the read-ahead ends while the
 * read-ahead is full (which once left the reader and the pump waiting on each other), a forward
 * jump past the gap that is read through, a jump back, the tail; then, with a sha256, the hash
 * of the bytes never read. Run by remote.py against tests/httpd.py; an alarm turns a hang into
 * a failure. Prints "N passed, M failed". */
#include "../src/lib/acquire/acquire.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok)
        passed++;
    else
        failed++;
    printf("%s %s\n", ok ? "ok    " : "FAILED", what);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAILED a read never returned (the reader and the pump wait)\n";
    (void)!write(1, msg, sizeof msg - 1);
    _exit(1);
}

/* n bytes at off, remote and on disk, the same. */
static void same(smc_remote *r, FILE *f, uint64_t off, size_t n, const char *what)
{
    unsigned char *a = malloc(n), *b = malloc(n);
    int ok = a && b && smc_remote_pread(r, a, n, off) && fseek(f, (long)off, SEEK_SET) == 0 &&
             fread(b, 1, n, f) == n && memcmp(a, b, n) == 0;
    if (!ok && a) printf("       %s\n", smc_remote_error(r));
    check(ok, what);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_remote URL FILE [SHA256]\n");
        return 2;
    }
    signal(SIGALRM, on_alarm);
    alarm(60);
    FILE *f = fopen(argv[2], "rb");
    char why[512] = "";
    smc_net net = {.timeout = 10};
    smc_remote *r = f ? smc_remote_open(&net, argv[1], argc > 3 ? argv[3] : NULL, why, sizeof why)
                      : NULL;
    if (!r) {
        printf("FAILED open: %s\n", f ? why : "no file");
        return 1;
    }
    uint64_t size = smc_remote_size(r);
    check(size > 3 * (uint64_t)SMC_REMOTE_AHEAD, "the file is larger than three read-aheads");
    same(r, f, 0, 1, "the first byte");
    /* The pump fills the read-ahead, [1, 1 + AHEAD), and waits; nobody reads it. */
    nanosleep(&(struct timespec){.tv_nsec = 500 * 1000 * 1000}, NULL);
    same(r, f, 1 + SMC_REMOTE_AHEAD, 4096, "a read where the full read-ahead ends");
    same(r, f, 1 + SMC_REMOTE_AHEAD + 4096 + 100000, 4096, "a short jump forward (read through)");
    same(r, f, 2 * (uint64_t)SMC_REMOTE_AHEAD + 12345, 65536, "a long jump forward");
    same(r, f, 10, 1000, "a jump back");
    same(r, f, size - 100, 100, "the last bytes (the tail)");
    if (argc > 3) {
        check(smc_remote_finish(r, why, sizeof why), "the sha256 of the whole file, with what was never read");
        if (why[0]) printf("       %s\n", why);
    }
    smc_remote_close(r);
    r = argc > 3 ? smc_remote_open(&net, argv[1], argv[3], why, sizeof why) : NULL;
    if (argc > 3) check(r != NULL, "opened again with the sha256");
    if (r) {
        /* Read in order from byte 66 on, as a wheel's members are: the stream starts at 0 for
         * the hash, so the file comes once (and its tail, fetched at open), not twice. */
        static uint8_t buf[1u << 16];
        bool ok = true;
        for (uint64_t at = 66; at < size && ok; at += sizeof buf)
            ok = smc_remote_pread(r, buf, size - at < sizeof buf ? (size_t)(size - at) : sizeof buf, at);
        check(ok && smc_remote_finish(r, why, sizeof why), "read from byte 66 on: the sha256 holds");
        uint64_t got = smc_remote_received(r);
        check(got < size + (3u << 20), "read from byte 66 on: the file comes once");
        if (got >= size + (3u << 20)) printf("       %llu bytes for a file of %llu\n",
                                             (unsigned long long)got, (unsigned long long)size);
        smc_remote_close(r);
    }
    fclose(f);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
