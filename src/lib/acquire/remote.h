/* remote.h: files read in place over HTTP(S) with libcurl (remote.c): a wheel by its URL, read
 * with range requests and never written anywhere, and the small pages of a package index */
#ifndef SMCHECK_REMOTE_H
#define SMCHECK_REMOTE_H

#include "../base/util.h"

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
    bool offline;         /* nothing is asked of any server: every read fails, saying so */
} smc_net;

/* Why a read fails when the network is turned off. */
#define SMC_OFFLINE_WHY "not read: reading over the network is turned off"

/* A handle that one thread's pages reuse, zeroed to start: their connections, TLS sessions and
 * certificate store (loading the CA bundle for each new connection took 60 ms of CPU, most of a
 * warm lock's time). smc_fetch_done closes it. */
typedef struct smc_fetch {
    void *curl;
} smc_fetch;
void smc_fetch_done(smc_fetch *f);

/* A GET whose body (decompressed, as the server's encoding asks) goes to sink piece by piece as it
 * comes, with the content type and the URL it came from after redirects, never held whole; at
 * most cap bytes of it (then an error). Only a 200's body is passed on. False with why when the
 * transfer fails, the status is not 200, or sink returns false (why then: "", sink's to say). */
typedef bool (*smc_sink)(void *ctx, const char *type, const char *final_url, const char *p,
                         size_t n);
bool smc_http_stream(const smc_net *net, smc_fetch *f, const char *url, const char *accept,
                     uint64_t cap, smc_sink sink, void *ctx, char *why, size_t n);

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
