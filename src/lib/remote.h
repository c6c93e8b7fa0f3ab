/* remote.h: files read in place over HTTP(S) with libcurl (remote.c): a wheel by its URL, read
 * with range requests and never written anywhere, and the small pages of a package index */
#ifndef SMCHECK_REMOTE_H
#define SMCHECK_REMOTE_H

#include "util.h"

/* Whether a path given by the user is a URL smcheck reads over the network (http:// or
 * https://, any case). */
bool smc_url_is(const char *s);

/* Whether this build can read URLs (built with libcurl: SMCHECK_CURL). */
bool smc_remote_built(void);
/* The SHA-256 of n bytes as 64 lower-case hex digits; false where built without libcurl (and
 * its libcrypto). */
bool smc_sha256_hex(const void *p, size_t n, char out[65]);
/* The SHA-256 of what is left to read at fd, as 64 lower-case hex digits; false (errno set; 0:
 * built without libcrypto) when it cannot be read. */
bool smc_sha256_fd(int fd, char out[65]);

/* How the network is used: the seconds a connection may take to open and a transfer may stall
 * (0: 30). The rest comes from the environment as curl's tool reads it: proxies (libcurl's own:
 * http_proxy, HTTPS_PROXY, NO_PROXY), SSL_CERT_FILE or CURL_CA_BUNDLE, SSL_CERT_DIR, and .netrc
 * ($NETRC, else ~/.netrc). */
typedef struct smc_net {
    unsigned timeout;
    uint64_t speed_limit; /* bytes a second over timeout seconds (0: 1024) */
} smc_net;

/* A handle that one thread's pages reuse, zeroed to start: their connections, TLS sessions and
 * certificate store (loading the CA bundle for each new connection took 60 ms of CPU, most of a
 * warm lock's time). smc_fetch_done closes it. */
typedef struct smc_fetch {
    void *curl;
} smc_fetch;
void smc_fetch_done(smc_fetch *f);

/* A small resource fetched whole (an index page) through f (NULL: a handle for it alone): at
 * most cap bytes, redirects followed (10 at most, http and https only). accept: the Accept header
 * (NULL: none). On success *body is NUL-terminated and malloc'd, *type its Content-Type (or NULL)
 * and *final_url where it came from after redirects (for relative links); false with why ("HTTP
 * 404", "timed out (30 s without data, --timeout)") otherwise. */
bool smc_http_get(const smc_net *net, smc_fetch *f, const char *url, const char *accept,
                  size_t cap, char **body, size_t *len, char **type, char **final_url, char *why,
                  size_t n);

/* A remote file read in place: the last bytes are fetched when it opens (its size from the
 * response), the rest by one forward stream of a range request that a read elsewhere moves
 * (short forward gaps are read through). A server that ignores ranges (200 for a range) is
 * streamed from its start. With sha256 (64 hex digits) the bytes are hashed as they stream by,
 * in order, and smc_remote_finish reads what was never read and compares. */
typedef struct smc_remote smc_remote;
/* The bytes the stream may run ahead of what was read: a read-ahead. 4 MiB was no faster (torch
 * from PyPI at 600 MB/s, the reader inflating behind it) and took 3-7 MB more at -j2. */
#define SMC_REMOTE_AHEAD (2u << 20)

smc_remote *smc_remote_open(const smc_net *net, const char *url, const char *sha256, char *why,
                            size_t n);
uint64_t smc_remote_size(const smc_remote *r);
/* Exactly n bytes at off into buf, or false with the reason in smc_remote_error. */
bool smc_remote_pread(smc_remote *r, void *buf, size_t n, uint64_t off);
const char *smc_remote_error(const smc_remote *r);
/* Bytes received so far (for progress). */
uint64_t smc_remote_received(const smc_remote *r);
/* With a sha256: reads the bytes never hashed and says whether the file is the one expected;
 * false with why (a mismatch names both hashes). Without one: true. */
bool smc_remote_finish(smc_remote *r, char *why, size_t n);
void smc_remote_close(smc_remote *r);

/* libzip reads a remote file through this source (read-only, seekable); r stays the caller's,
 * open until the archive is discarded. NULL when out of memory. */
struct zip_source;
struct zip_source *smc_remote_zip_source(smc_remote *r);

#endif
