/* remote.c: files read in place over HTTP(S) with libcurl: a wheel by its URL through range
 * requests (its tail when it opens, then one forward stream that a read elsewhere moves), and the
 * pages of a package index, passed on as they come. Nothing is written to disk. Servers are not
 * trusted: a range answered from another offset is an error, a range ignored (200) is read from
 * the start, pages are capped, redirects are followed ten times at most and only to http and
 * https. */
#include "acquire.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#ifndef SMC_HAVE_CURL

bool smc_remote_built(void) { return false; }

void smc_fetch_done(smc_fetch *f) { (void)f; }

bool smc_http_stream(const smc_net *net, smc_fetch *f, const char *url, const char *accept,
                     uint64_t cap, smc_sink sink, void *ctx, char *why, size_t n)
{
    (void)net, (void)f, (void)url, (void)accept, (void)cap, (void)sink, (void)ctx;
    snprintf(why, n, "this smcheck was built without libcurl: it reads no URLs");
    return false;
}

smc_remote *smc_remote_open(const smc_net *net, const char *url, const char *sha256, char *why,
                            size_t n)
{
    (void)net, (void)url, (void)sha256;
    snprintf(why, n, "this smcheck was built without libcurl: it reads no URLs");
    return NULL;
}
uint64_t smc_remote_size(const smc_remote *r) { (void)r; return 0; }
bool smc_remote_pread(smc_remote *r, void *buf, size_t n, uint64_t off)
{
    (void)r, (void)buf, (void)n, (void)off;
    return false;
}
const char *smc_remote_error(const smc_remote *r) { (void)r; return "not built"; }
uint64_t smc_remote_received(const smc_remote *r) { (void)r; return 0; }
bool smc_remote_finish(smc_remote *r, char *why, size_t n) { (void)r, (void)why, (void)n; return false; }
void smc_remote_close(smc_remote *r) { (void)r; }
struct zip_source *smc_remote_zip_source(smc_remote *r) { (void)r; return NULL; }
bool smc_sha256_hex(const void *p, size_t n, char out[65])
{
    (void)p, (void)n;
    out[0] = '\0';
    return false;
}
bool smc_sha256_fd(int fd, char out[65])
{
    (void)fd;
    out[0] = '\0';
    errno = 0;
    return false;
}

#else

#include <curl/curl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <zip.h>

#define TAIL_BYTES (2u << 20) /* fetched when a file opens: a zip's directory is at its end (torch's is 1.1 MB) */
#define GAP_READ (1u << 20)   /* a forward gap up to this is read through, not asked for anew */
#define HEADER_MAX 4096

bool smc_remote_built(void) { return true; }

/* A SHA-256 digest as 64 lower-case hex digits. */
static void digest_hex(const uint8_t d[32], char out[65])
{
    for (size_t i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

bool smc_sha256_hex(const void *p, size_t n, char out[65])
{
    uint8_t md[32];
    unsigned len = 0;
    out[0] = '\0';
    if (!EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) || len != sizeof md) return false;
    digest_hex(md, out);
    return true;
}

bool smc_sha256_fd(int fd, char out[65])
{
    out[0] = '\0';
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    size_t cap = 1u << 20;
    uint8_t *buf = malloc(cap);
    bool ok = md && buf && EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    ssize_t k;
    while (ok && (k = read(fd, buf, cap)) != 0) {
        if (k < 0 && errno == EINTR) continue;
        ok = k > 0 && EVP_DigestUpdate(md, buf, (size_t)k);
    }
    uint8_t d[32];
    unsigned dl = 0;
    ok = ok && EVP_DigestFinal_ex(md, d, &dl) && dl == sizeof d;
    if (ok) digest_hex(d, out);
    if (!md || !buf) errno = ENOMEM;
    EVP_MD_CTX_free(md);
    free(buf);
    return ok;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;
/* Where the library was built without certificates of its own (the wheel's static build: a
 * bundle's place differs between distributions), the first bundle of the places they use. */
static const char *known_ca;

static void global_init(void)
{
    global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    if (v->age >= CURLVERSION_NINTH && (v->cainfo || v->capath)) return;
    static const char *const bundles[] = {
        "/etc/ssl/certs/ca-certificates.crt",                /* Debian, Ubuntu, Arch, Gentoo */
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* Fedora, RHEL 7 and later */
        "/etc/pki/tls/certs/ca-bundle.crt",                  /* RHEL 6, older Fedora */
        "/etc/ssl/ca-bundle.pem",                            /* openSUSE */
        "/etc/ssl/cert.pem",                                 /* Alpine */
    };
    for (size_t i = 0; i < sizeof bundles / sizeof *bundles; i++)
        if (access(bundles[i], R_OK) == 0) {
            known_ca = bundles[i];
            return;
        }
}

static unsigned timeout_of(const smc_net *net) { return net && net->timeout ? net->timeout : 30; }

static long speed_of(const smc_net *net)
{
    return net && net->speed_limit ? (long)net->speed_limit : 1024;
}

/* What every request shares: the protocols, redirects, timeouts, and the settings curl's tool
 * reads from the environment that the library does not (certificates, NETRC). */
static void setup(CURL *h, const smc_net *net, const char *url, char *errbuf)
{
    long t = (long)timeout_of(net);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "smcheck/" SMC_VERSION);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, t);
    /* A stall, or a drip (one byte every 250 ms), past --timeout; not a large file. */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, speed_of(net));
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, t);
    const char *ca = getenv("SSL_CERT_FILE");
    if (!ca || !*ca) ca = getenv("CURL_CA_BUNDLE");
    if (!ca || !*ca) ca = known_ca;
    if (ca && *ca) curl_easy_setopt(h, CURLOPT_CAINFO, ca);
    const char *dir = getenv("SSL_CERT_DIR");
    if (dir && *dir) curl_easy_setopt(h, CURLOPT_CAPATH, dir);
    curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    const char *netrc = getenv("NETRC");
    if (netrc && *netrc) curl_easy_setopt(h, CURLOPT_NETRC_FILE, netrc);
}

/* A transfer's failure in words: curl's own message where it has one; a transfer that came too
 * slowly, with the rate it came at. */
static void curl_why(CURLcode rc, CURL *h, const char *errbuf, const smc_net *net, char *why,
                     size_t n)
{
    curl_off_t rate = 0;
    if (rc == CURLE_OPERATION_TIMEDOUT && errbuf && strstr(errbuf, "too slow") &&
        curl_easy_getinfo(h, CURLINFO_SPEED_DOWNLOAD_T, &rate) == CURLE_OK && rate > 0)
        snprintf(why, n, "too slow: %lld bytes a second, under %ld for %u s (--speed-limit, "
                 "--timeout)", (long long)rate, speed_of(net), timeout_of(net));
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        snprintf(why, n, "timed out (%u s without data, --timeout)", timeout_of(net));
    else
        snprintf(why, n, "%s", errbuf && *errbuf ? errbuf : curl_easy_strerror(rc));
}

/* --- pages, as they come ------------------------------------------------------------------ */

void smc_fetch_done(smc_fetch *f)
{
    if (f && f->curl) curl_easy_cleanup(f->curl);
    if (f) f->curl = NULL;
}

typedef struct streamed {
    CURL *h;
    uint64_t got, max;
    bool over, refused, passing, checked;
    smc_sink sink;
    void *ctx;
    char *type, *final;
} streamed;

static size_t stream_write(char *data, size_t size, size_t nmemb, void *ctx)
{
    streamed *s = ctx;
    size_t n = size * nmemb;
    if (!s->checked) { /* the final response's first bytes: its status, type and URL */
        long code = 0;
        char *ct = NULL, *eff = NULL;
        curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_getinfo(s->h, CURLINFO_CONTENT_TYPE, &ct);
        curl_easy_getinfo(s->h, CURLINFO_EFFECTIVE_URL, &eff);
        s->checked = true;
        s->passing = code == 200;
        s->type = ct ? smc_strdup(ct) : NULL;
        s->final = eff ? smc_strdup(eff) : NULL;
    }
    if (!s->passing) return n; /* an error page's body: read, not passed on */
    if (n > s->max - s->got) {
        s->over = true;
        return 0;
    }
    s->got += n;
    if (!s->sink(s->ctx, s->type, s->final, data, n)) {
        s->refused = true;
        return 0;
    }
    return n;
}

bool smc_http_stream(const smc_net *net, smc_fetch *f, const char *url, const char *accept,
                     uint64_t cap, smc_sink sink, void *ctx, char *why, size_t n)
{
    why[0] = '\0';
    if (net && net->offline) {
        snprintf(why, n, "%s", SMC_OFFLINE_WHY);
        return false;
    }
    pthread_once(&once, global_init);
    CURL *h = f && f->curl ? f->curl : global_rc == CURLE_OK ? curl_easy_init() : NULL;
    if (!h) {
        snprintf(why, n, "libcurl could not start");
        return false;
    }
    if (f && f->curl) curl_easy_reset(h); /* its connections and certificate store stay */
    if (f) f->curl = h;
    char errbuf[CURL_ERROR_SIZE] = "";
    streamed s = {.h = h, .max = cap, .sink = sink, .ctx = ctx};
    struct curl_slist *hdr = NULL;
    char line[256];
    if (accept) {
        snprintf(line, sizeof line, "Accept: %s", accept);
        hdr = curl_slist_append(NULL, line);
    }
    setup(h, net, url, errbuf);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""); /* pages compress well */
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, stream_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    bool ok = false;
    if (s.over)
        snprintf(why, n, "larger than %llu bytes (decompressed): not read further",
                 (unsigned long long)cap);
    else if (s.refused)
        ; /* the sink says why */
    else if (rc != CURLE_OK)
        curl_why(rc, h, errbuf, net, why, n);
    else if (code != 200)
        snprintf(why, n, "HTTP %ld", code);
    else
        ok = true;
    free(s.type);
    free(s.final);
    curl_slist_free_all(hdr);
    if (!f) curl_easy_cleanup(h);
    return ok;
}

/* --- a remote file ------------------------------------------------------------------------- */

#define RING SMC_REMOTE_AHEAD
#define NOWHERE UINT64_MAX

/* A remote file: its tail, fetched when it opens, and a stream that a thread of its own (the
 * pump) runs ahead of the reads into a ring, as a kernel reads ahead of a file: the network and
 * the inflating overlap. The reads and the pump meet under mu. */
struct smc_remote {
    smc_net net;
    char *url;
    uint64_t size;
    uint8_t *tail; /* the file's last bytes, [tail_at, size) */
    uint64_t tail_at;
    bool no_ranges; /* the server answers a range with the whole file */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t pump;
    bool pump_started, quit;
    uint64_t restart; /* where a read wants the stream to start anew, or NOWHERE */
    bool active;      /* a transfer runs (or is asked for) */
    bool ended;       /* the last transfer ended; failed: with an error (err) */
    bool failed;
    uint8_t *ring;    /* bytes [lo, hi) of the file, byte q at ring[q % RING] */
    uint64_t lo, hi;
    uint64_t skip_to; /* the stream passes over the bytes before it (hashing them) */
    uint64_t stream_at; /* the next byte the transfer delivers (the pump's) */
    uint64_t asked;     /* where the transfer was asked to start */
    bool checked;       /* its response was checked */
    uint64_t range_first, range_total;
    bool have_range;
    /* What names the file's version: the first response's ETag and Last-Modified (the tail's),
     * and the current response's; "" where a server sends none. A later response that names
     * another version is an error: the bytes would not be one file's. */
    char etag[128], modified[64];
    char cur_etag[128], cur_modified[64];
    bool versioned, changed;
    char moved[320]; /* what said it changed */
    EVP_MD_CTX *md; /* the whole file's SHA-256, over [0, hashed) */
    uint64_t hashed;
    char expect[65];
    _Atomic uint64_t received;
    char errbuf[CURL_ERROR_SIZE];
    char err[512];
};

uint64_t smc_remote_size(const smc_remote *r) { return r->size; }
const char *smc_remote_error(const smc_remote *r) { return r->err; }
uint64_t smc_remote_received(const smc_remote *r) { return atomic_load(&((smc_remote *)r)->received); }

/* Hashes what of [at, at + n) extends the hashed prefix. */
static void hash_feed(smc_remote *r, uint64_t at, const uint8_t *p, size_t n)
{
    if (!r->md || at > r->hashed || at + n <= r->hashed) return;
    size_t skip = (size_t)(r->hashed - at);
    EVP_DigestUpdate(r->md, p + skip, n - skip);
    r->hashed += n - skip;
}

/* A header's value, blanks around it and the line's end dropped, cut to what out holds, its
 * control bytes as '?' (it may be printed). */
static void header_value(const char *v, size_t n, char *out, size_t cap)
{
    while (n && (*v == ' ' || *v == '\t'))
        v++, n--;
    while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    if (n > cap - 1) n = cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? '?' : v[i];
    out[n] = '\0';
}

/* Whether this response names a version of the file other than the first one did. */
static bool version_moved(smc_remote *r)
{
    if (!r->versioned) {
        memcpy(r->etag, r->cur_etag, sizeof r->etag);
        memcpy(r->modified, r->cur_modified, sizeof r->modified);
        r->versioned = true;
        return false;
    }
    const char *what = NULL, *was = NULL, *now = NULL;
    if (r->etag[0] && r->cur_etag[0] && strcmp(r->etag, r->cur_etag) != 0)
        what = "ETag", was = r->etag, now = r->cur_etag;
    else if (r->modified[0] && r->cur_modified[0] && strcmp(r->modified, r->cur_modified) != 0)
        what = "Last-Modified", was = r->modified, now = r->cur_modified;
    if (!what) return false;
    snprintf(r->moved, sizeof r->moved, "it changed while it was read: its %s was %.100s, then "
             "%.100s", what, was, now);
    snprintf(r->err, sizeof r->err, "%s", r->moved);
    r->changed = true;
    return true;
}

static size_t header_cb(char *line, size_t size, size_t nmemb, void *ctx)
{
    smc_remote *r = ctx;
    size_t n = size * nmemb;
    if (n >= 5 && strncmp(line, "HTTP/", 5) == 0) { /* a new response (after a redirect) */
        r->have_range = false;
        r->cur_etag[0] = r->cur_modified[0] = '\0';
        return n;
    }
    if (n > 5 && strncasecmp(line, "etag:", 5) == 0)
        header_value(line + 5, n - 5, r->cur_etag, sizeof r->cur_etag);
    else if (n > 14 && strncasecmp(line, "last-modified:", 14) == 0)
        header_value(line + 14, n - 14, r->cur_modified, sizeof r->cur_modified);
    if (n > 14 && strncasecmp(line, "content-range:", 14) == 0) {
        char buf[128];
        size_t k = n - 14 < sizeof buf - 1 ? n - 14 : sizeof buf - 1;
        memcpy(buf, line + 14, k);
        buf[k] = '\0';
        unsigned long long first, last, total;
        if (sscanf(buf, " bytes %llu-%llu/%llu", &first, &last, &total) == 3 && first <= last &&
            last < total) {
            r->range_first = first;
            r->range_total = total;
            r->have_range = true;
        }
    }
    return n;
}

/* The first bytes of a response: the range asked for (asked NOWHERE: the tail), or the whole
 * file from a server that ignores ranges. */
static bool check_response(smc_remote *r, CURL *h)
{
    long status = 0;
    r->checked = true;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if ((status == 206 || status == 200) && version_moved(r)) return false;
    if (status == 206 && r->have_range) {
        if (r->asked != NOWHERE && r->range_first != r->asked) {
            snprintf(r->err, sizeof r->err, "asked for bytes from %llu, the server sent from %llu",
                     (unsigned long long)r->asked, (unsigned long long)r->range_first);
            return false;
        }
        if (r->size && r->range_total != r->size) {
            snprintf(r->err, sizeof r->err, "its size changed from %llu to %llu bytes",
                     (unsigned long long)r->size, (unsigned long long)r->range_total);
            return false;
        }
        r->stream_at = r->range_first;
        return true;
    }
    if (status == 200) {
        r->no_ranges = true;
        r->stream_at = 0;
        return true;
    }
    snprintf(r->err, sizeof r->err,
             status == 206 ? "HTTP 206 without a Content-Range" : "HTTP %ld", status);
    return false;
}

/* --- the tail, read when it opens ---------------------------------------------------------- */

typedef struct tail_read {
    smc_remote *r;
    CURL *h;
    uint8_t *buf; /* TAIL_BYTES, the last bytes that came, byte q at buf[q % TAIL_BYTES] */
    uint64_t got;
} tail_read;

static size_t tail_write(char *data, size_t size, size_t nmemb, void *ctx)
{
    tail_read *t = ctx;
    smc_remote *r = t->r;
    size_t n = size * nmemb;
    if (!r->checked && !check_response(r, t->h)) return 0;
    const uint8_t *p = (const uint8_t *)data;
    hash_feed(r, r->stream_at, p, n);
    atomic_fetch_add(&r->received, n);
    for (size_t i = 0; i < n;) { /* into the ring of the last TAIL_BYTES */
        size_t at = (size_t)((r->stream_at + i) % TAIL_BYTES), k = TAIL_BYTES - at;
        if (k > n - i) k = n - i;
        memcpy(t->buf + at, p + i, k);
        i += k;
    }
    r->stream_at += n;
    return n;
}

/* Fetches the last TAIL_BYTES (a suffix range) and learns the size; a server that ignores ranges
 * sends the whole file, of which the last bytes are kept (and all are hashed). */
static bool read_tail(smc_remote *r)
{
    tail_read t = {.r = r, .h = curl_easy_init(), .buf = smc_big_alloc(TAIL_BYTES)};
    if (!t.h || !t.buf) {
        snprintf(r->err, sizeof r->err, "out of memory");
        curl_easy_cleanup(t.h);
        smc_big_free(t.buf, TAIL_BYTES);
        return false;
    }
    r->asked = NOWHERE;
    r->errbuf[0] = '\0';
    setup(t.h, &r->net, r->url, r->errbuf);
    char range[32];
    snprintf(range, sizeof range, "-%u", TAIL_BYTES);
    curl_easy_setopt(t.h, CURLOPT_RANGE, range);
    curl_easy_setopt(t.h, CURLOPT_WRITEFUNCTION, tail_write);
    curl_easy_setopt(t.h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(t.h, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(t.h, CURLOPT_HEADERDATA, r);
    CURLcode rc = curl_easy_perform(t.h);
    bool ok = false;
    if (rc != CURLE_OK) {
        if (!r->err[0]) curl_why(rc, t.h, r->errbuf, &r->net, r->err, sizeof r->err);
    } else if (!r->checked) {
        if (check_response(r, t.h)) snprintf(r->err, sizeof r->err, "an empty file");
    } else {
        uint64_t size = r->no_ranges ? r->stream_at : r->range_total;
        if (!r->no_ranges && r->stream_at != size) {
            snprintf(r->err, sizeof r->err, "the response ended after %llu bytes of %llu",
                     (unsigned long long)r->stream_at, (unsigned long long)size);
        } else if (size == 0) {
            snprintf(r->err, sizeof r->err, "an empty file");
        } else {
            r->size = size;
            r->tail_at = size > TAIL_BYTES ? size - TAIL_BYTES : 0;
            size_t len = (size_t)(size - r->tail_at);
            if ((r->tail = smc_big_alloc(len))) {
                for (size_t i = 0; i < len; i++)
                    r->tail[i] = t.buf[(r->tail_at + i) % TAIL_BYTES];
                ok = true;
            } else {
                snprintf(r->err, sizeof r->err, "out of memory");
            }
        }
    }
    curl_easy_cleanup(t.h);
    smc_big_free(t.buf, TAIL_BYTES);
    return ok;
}

/* --- the stream, run by the pump ----------------------------------------------------------- */

/* libcurl's progress callback, about once a second and whenever data comes: a transfer that a
 * read moved elsewhere, or a close, stops here even while no data comes. */
static int pump_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    smc_remote *r = ctx;
    (void)a, (void)b, (void)c, (void)d;
    pthread_mutex_lock(&r->mu);
    bool stop = r->quit || r->restart != NOWHERE;
    pthread_mutex_unlock(&r->mu);
    return stop;
}

static size_t pump_write(char *data, size_t size, size_t nmemb, void *ctx)
{
    void **pair = ctx;
    smc_remote *r = pair[0];
    CURL *h = pair[1];
    size_t n = size * nmemb;
    const uint8_t *p = (const uint8_t *)data;
    pthread_mutex_lock(&r->mu);
    if (r->quit || r->restart != NOWHERE || (!r->checked && !check_response(r, h))) {
        pthread_mutex_unlock(&r->mu);
        return 0;
    }
    hash_feed(r, r->stream_at, p, n);
    atomic_fetch_add(&r->received, n);
    for (size_t i = 0; i < n;) {
        if (r->stream_at < r->skip_to) { /* passed over (a read moved on while it waited) */
            size_t k = r->skip_to - r->stream_at < n - i ? (size_t)(r->skip_to - r->stream_at) : n - i;
            i += k;
            r->stream_at += k;
            continue;
        }
        while (r->hi - r->lo == RING && !r->quit && r->restart == NOWHERE &&
               r->stream_at >= r->skip_to)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->quit || r->restart != NOWHERE) {
            pthread_mutex_unlock(&r->mu);
            return 0;
        }
        if (r->stream_at < r->skip_to) continue;
        size_t room = (size_t)(RING - (r->hi - r->lo)), at = (size_t)(r->hi % RING);
        size_t k = n - i < room ? n - i : room;
        if (k > RING - at) k = RING - at;
        memcpy(r->ring + at, p + i, k);
        i += k;
        r->hi += k;
        r->stream_at += k;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

static void *pump_main(void *arg)
{
    smc_remote *r = arg;
    CURL *h = curl_easy_init();
    void *pair[2] = {r, h};
    pthread_mutex_lock(&r->mu);
    while (!r->quit) {
        if (r->restart == NOWHERE) {
            pthread_cond_wait(&r->cv, &r->mu);
            continue;
        }
        uint64_t off = r->restart;
        r->restart = NOWHERE;
        r->asked = off;
        r->stream_at = off;
        r->checked = r->have_range = r->ended = r->failed = false;
        r->active = true;
        r->err[0] = '\0';
        pthread_mutex_unlock(&r->mu);
        CURLcode rc = CURLE_FAILED_INIT;
        char range[32];
        if (h) {
            curl_easy_reset(h);
            r->errbuf[0] = '\0';
            setup(h, &r->net, r->url, r->errbuf);
            snprintf(range, sizeof range, "%llu-", (unsigned long long)off);
            if (!r->no_ranges) curl_easy_setopt(h, CURLOPT_RANGE, range);
            curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, pump_write);
            curl_easy_setopt(h, CURLOPT_WRITEDATA, pair);
            curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
            curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
            curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
            curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, pump_progress);
            curl_easy_setopt(h, CURLOPT_XFERINFODATA, r);
            rc = curl_easy_perform(h);
        }
        pthread_mutex_lock(&r->mu);
        if (r->restart != NOWHERE || r->quit) continue; /* moved: what it said does not count */
        r->active = false;
        r->ended = true;
        if (rc != CURLE_OK) {
            r->failed = true;
            if (!r->err[0]) {
                if (!h)
                    snprintf(r->err, sizeof r->err, "libcurl could not start");
                else
                    curl_why(rc, h, r->errbuf, &r->net, r->err, sizeof r->err);
            }
        } else if (!r->checked) {
            r->failed = true;
            if (check_response(r, h)) snprintf(r->err, sizeof r->err, "an empty response");
        }
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    curl_easy_cleanup(h);
    return NULL;
}

/* Reads [off, off + n) from the stream: from the ring, on through a short gap (any gap while it
 * extends the hash), or from a transfer started anew at off. */
static bool stream_read(smc_remote *r, uint8_t *buf, size_t n, uint64_t off)
{
    pthread_mutex_lock(&r->mu);
    if (!r->pump_started) {
        if (pthread_create(&r->pump, NULL, pump_main, r) != 0) {
            snprintf(r->err, sizeof r->err, "cannot start a thread");
            pthread_mutex_unlock(&r->mu);
            return false;
        }
        r->pump_started = true;
    }
    bool ok = true;
    while (n > 0) {
        if (off >= r->lo && off < r->hi) {
            size_t at = (size_t)(off % RING), k = (size_t)(r->hi - off);
            if (k > n) k = n;
            if (k > RING - at) k = RING - at;
            memcpy(buf, r->ring + at, k);
            buf += k;
            n -= k;
            off += k;
            r->lo = off;
            pthread_cond_broadcast(&r->cv);
            continue;
        }
        bool moving = r->active || r->restart != NOWHERE;
        bool on = moving && off >= r->hi &&
                  (off - r->hi <= GAP_READ || r->no_ranges || (r->md && r->hi <= r->hashed));
        if (on) { /* what the ring holds is behind off: dropped, so that the pump has room */
            r->lo = r->hi = r->skip_to = off;
            pthread_cond_broadcast(&r->cv);
        } else {
            /* Just past the hashed prefix: from its end, passing over (and hashing) the bytes
             * between, or the hash would wait for smc_remote_finish to stream the whole file
             * again (torch from a lock: a member the plan reads at 0.7 MB, the first at 66). */
            bool near = r->md && off > r->hashed && off - r->hashed <= GAP_READ;
            r->restart = near ? r->hashed : off;
            r->lo = r->hi = r->skip_to = off;
            r->ended = r->failed = false;
            pthread_cond_broadcast(&r->cv);
        }
        while (!(off >= r->lo && off < r->hi) && !r->ended && !r->quit)
            pthread_cond_wait(&r->cv, &r->mu);
        if (off >= r->lo && off < r->hi) continue;
        if (!r->failed)
            snprintf(r->err, sizeof r->err, "the response ended after %llu bytes of %llu",
                     (unsigned long long)r->hi, (unsigned long long)r->size);
        ok = false;
        break;
    }
    pthread_mutex_unlock(&r->mu);
    return ok;
}

bool smc_remote_pread(smc_remote *r, void *buf, size_t n, uint64_t off)
{
    if (off > r->size || n > r->size - off) {
        snprintf(r->err, sizeof r->err, "a read past its end (%llu bytes)",
                 (unsigned long long)r->size);
        return false;
    }
    uint8_t *p = buf;
    if (off < r->tail_at) { /* the part before the tail, streamed */
        size_t k = off + n > r->tail_at ? (size_t)(r->tail_at - off) : n;
        if (!stream_read(r, p, k, off)) return false;
        p += k;
        n -= k;
        off += k;
    }
    if (n) memcpy(p, r->tail + (off - r->tail_at), n);
    return true;
}

smc_remote *smc_remote_open(const smc_net *net, const char *url, const char *sha256, char *why,
                            size_t n)
{
    if (net && net->offline) {
        snprintf(why, n, "%s", SMC_OFFLINE_WHY);
        return NULL;
    }
    pthread_once(&once, global_init);
    if (global_rc != CURLE_OK) {
        snprintf(why, n, "libcurl could not start");
        return NULL;
    }
    smc_remote *r = calloc(1, sizeof *r);
    if (!r || !(r->url = smc_strdup(url)) || !(r->ring = smc_big_alloc(RING))) {
        snprintf(why, n, "out of memory");
        if (r) free(r->url);
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->restart = NOWHERE;
    if (net) r->net = *net;
    if (sha256 && *sha256) {
        snprintf(r->expect, sizeof r->expect, "%s", sha256);
        if (!(r->md = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(r->md, EVP_sha256(), NULL)) {
            snprintf(why, n, "out of memory");
            smc_remote_close(r);
            return NULL;
        }
    }
    if (!read_tail(r)) {
        snprintf(why, n, "%s", r->err);
        smc_remote_close(r);
        return NULL;
    }
    r->err[0] = '\0';
    return r;
}

bool smc_remote_finish(smc_remote *r, char *why, size_t n)
{
    pthread_mutex_lock(&r->mu);
    bool changed = r->changed;
    pthread_mutex_unlock(&r->mu);
    if (changed) {
        snprintf(why, n, "%s", r->moved);
        return false;
    }
    if (!r->md) return true;
    /* What was never streamed in order is streamed now, up to the tail, which is here. */
    size_t cap = 1u << 20;
    uint8_t *buf = r->hashed < r->tail_at ? smc_big_alloc(cap) : NULL;
    if (r->hashed < r->tail_at && !buf) {
        snprintf(why, n, "out of memory");
        return false;
    }
    while (r->hashed < r->tail_at) {
        uint64_t at = r->hashed;
        size_t k = r->tail_at - at < cap ? (size_t)(r->tail_at - at) : cap;
        bool ok = stream_read(r, buf, k, at);
        pthread_mutex_lock(&r->mu);
        bool moved = r->hashed > at;
        pthread_mutex_unlock(&r->mu);
        if (!ok || !moved) {
            snprintf(why, n, "cannot read it for its sha256: %s",
                     r->err[0] ? r->err : "not in order");
            smc_big_free(buf, cap);
            return false;
        }
    }
    smc_big_free(buf, cap);
    pthread_mutex_lock(&r->mu);
    if (r->hashed < r->size) {
        EVP_DigestUpdate(r->md, r->tail + (r->hashed - r->tail_at), (size_t)(r->size - r->hashed));
        r->hashed = r->size;
    }
    uint8_t d[32];
    unsigned dl = 0;
    EVP_DigestFinal_ex(r->md, d, &dl);
    EVP_MD_CTX_free(r->md);
    r->md = NULL;
    pthread_mutex_unlock(&r->mu);
    char hex[65];
    digest_hex(d, hex);
    if (strcasecmp(hex, r->expect) != 0) {
        snprintf(why, n,
                 "its sha256 is %s, not %s as the lock, index or URL says: not the file "
                 "expected",
                 hex, r->expect);
        return false;
    }
    return true;
}

void smc_remote_close(smc_remote *r)
{
    if (!r) return;
    if (r->pump_started) {
        pthread_mutex_lock(&r->mu);
        r->quit = true;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->pump, NULL);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    if (r->md) EVP_MD_CTX_free(r->md);
    smc_big_free(r->ring, RING);
    if (r->tail) smc_big_free(r->tail, (size_t)(r->size - r->tail_at));
    free(r->url);
    free(r);
}

/* --- libzip's view ------------------------------------------------------------------------- */

typedef struct zsrc {
    smc_remote *r;
    uint64_t pos;
    zip_error_t error;
} zsrc;

static zip_int64_t zsrc_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    zsrc *z = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        z->pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        uint64_t left = z->r->size - z->pos;
        size_t k = len < left ? (size_t)len : (size_t)left;
        if (k && !smc_remote_pread(z->r, data, k, z->pos)) {
            zip_error_set(&z->error, ZIP_ER_READ, EIO);
            return -1;
        }
        z->pos += k;
        return (zip_int64_t)k;
    }
    case ZIP_SOURCE_CLOSE:
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        if (len < sizeof *st) return -1;
        zip_stat_init(st);
        st->size = z->r->size;
        st->valid |= ZIP_STAT_SIZE;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&z->error, data, len);
    case ZIP_SOURCE_FREE:
        free(z);
        return 0;
    case ZIP_SOURCE_SEEK: {
        zip_int64_t at = zip_source_seek_compute_offset(z->pos, z->r->size, data, len, &z->error);
        if (at < 0) return -1;
        z->pos = (uint64_t)at;
        return 0;
    }
    case ZIP_SOURCE_TELL:
        return (zip_int64_t)z->pos;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL,
                                              ZIP_SOURCE_SUPPORTS, -1);
    default:
        zip_error_set(&z->error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

struct zip_source *smc_remote_zip_source(smc_remote *r)
{
    zsrc *z = calloc(1, sizeof *z);
    if (!z) return NULL;
    z->r = r;
    zip_error_init(&z->error);
    zip_error_t e;
    zip_error_init(&e);
    zip_source_t *s = zip_source_function_create(zsrc_cb, z, &e);
    zip_error_fini(&e);
    if (!s) free(z);
    return s;
}

#endif
