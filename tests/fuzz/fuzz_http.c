/* fuzz_http.c: what a server answers, untrusted (remote.c, and the index reader behind it): status
 * lines, headers (Content-Range, ETag, Last-Modified, Content-Encoding, Location), bodies cut
 * short or too long, through libcurl itself. A server on the loopback answers the requests of one
 * input with its responses in turn (the input split at "\n--next--\n", then the last again); then
 * a wheel is opened at it (its tail), read at a few places and finished against a sha256, and
 * a page is read as it comes into the index reader. Nothing may crash, hang past the timeouts
 * or leak. */
#include "../../src/lib/acquire/acquire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RESPONSES_MAX 8

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *copy; /* this input's bytes, the server's own (a late request of the last input
                       * is answered from them, not from what libFuzzer freed) */
static size_t offs[RESPONSES_MAX], lens[RESPONSES_MAX], count, served;
static int listener = -1;
static char base[64];

/* Reads a request up to its blank line (or 16 KiB, or 1 s), so that libcurl sees it answered. */
static void read_request(int fd)
{
    char buf[16384];
    size_t got = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (got < sizeof buf && poll(&p, 1, 1000) > 0) {
        ssize_t k = read(fd, buf + got, sizeof buf - got);
        if (k <= 0) return;
        got += (size_t)k;
        if (memmem(buf, got, "\r\n\r\n", 4)) return;
    }
}

static void *serve(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) continue;
        read_request(fd);
        pthread_mutex_lock(&mu);
        size_t k = count ? (served < count ? served : count - 1) : 0;
        served++;
        size_t n = count ? lens[k] : 0;
        uint8_t *p = n ? malloc(n) : NULL;
        if (p) memcpy(p, copy + offs[k], n);
        pthread_mutex_unlock(&mu);
        for (size_t done = 0; p && done < n;) {
            ssize_t w = send(fd, p + done, n - done, MSG_NOSIGNAL);
            if (w <= 0) break;
            done += (size_t)w;
        }
        free(p);
        close(fd);
    }
    return NULL;
}

static bool start(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(listener, 16) != 0 || getsockname(listener, (struct sockaddr *)&a, &al) != 0)
        return false;
    snprintf(base, sizeof base, "http://127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    pthread_t t;
    return pthread_create(&t, NULL, serve, NULL) == 0 && pthread_detach(t) == 0;
}

static bool sink(void *ctx, const char *type, const char *final_url, const char *p, size_t n)
{
    return smc_index_stream_feed(ctx, type, final_url, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready; /* 1 serving, -1 could not */
    if (!ready) ready = start() ? 1 : -1;
    if (ready < 0 || size > (1u << 20)) return 0;
    static const char sep[] = "\n--next--\n";
    pthread_mutex_lock(&mu);
    count = served = 0;
    free(copy);
    copy = malloc(size ? size : 1);
    if (copy) memcpy(copy, data, size);
    for (const uint8_t *p = copy, *end = copy + size; copy && p <= end && count < RESPONSES_MAX;) {
        const uint8_t *cut = memmem(p, (size_t)(end - p), sep, sizeof sep - 1);
        offs[count] = (size_t)(p - copy);
        lens[count++] = (size_t)((cut ? cut : end) - p);
        if (!cut) break;
        p = cut + sizeof sep - 1;
    }
    pthread_mutex_unlock(&mu);

    setenv("no_proxy", "127.0.0.1", 1);
    smc_net net = {.timeout = 1, .speed_limit = 1};
    char url[128], why[512];
    snprintf(url, sizeof url, "%s/files/x-1.0-py3-none-any.whl", base);
    /* A sha256 from the input, so that finishing hashes what was streamed. */
    char sha[65];
    for (size_t i = 0; i < 64; i++)
        sha[i] = "0123456789abcdef"[size ? data[i % size] & 15 : 0];
    sha[64] = '\0';
    smc_remote *r = smc_remote_open(&net, url, size % 2 ? sha : NULL, why, sizeof why);
    if (r) {
        uint64_t total = smc_remote_size(r);
        uint8_t buf[256];
        uint64_t at[3] = {0, total / 2, total > sizeof buf ? total - sizeof buf : 0};
        for (size_t i = 0; i < 3; i++) {
            size_t k = total - at[i] < sizeof buf ? (size_t)(total - at[i]) : sizeof buf;
            if (k) smc_remote_pread(r, buf, k, at[i]);
        }
        smc_remote_finish(r, why, sizeof why);
        smc_remote_close(r);
    }

    pthread_mutex_lock(&mu);
    served = 0;
    pthread_mutex_unlock(&mu);
    snprintf(url, sizeof url, "%s/simple/x/", base);
    smc_index_stream *s = smc_index_stream_new("x", "1.0");
    if (s) {
        smc_index_file *files = NULL;
        size_t n = 0, dropped = 0;
        smc_http_stream(&net, NULL, url, "application/vnd.pypi.simple.v1+json", 1u << 20, sink, s,
                        why, sizeof why);
        if (smc_index_stream_end(s, &files, &n, &dropped, why, sizeof why))
            smc_index_files_free(files, n);
        smc_index_stream_free(s);
    }
    return 0;
}
