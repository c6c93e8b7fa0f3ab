/* source.h: where a file's bytes come from (source.c): a buffer, a mapped file, a pull
 * source fed through the one feed loop, a temporary file */
#ifndef SMCHECK_SOURCE_H
#define SMCHECK_SOURCE_H

#include "finder.h"

/* Scans a file mapped at map (len bytes), surviving its truncation meanwhile (SIGBUS). */
smc_status smc_scan_mapped(smc_input *in, const char *path, const uint8_t *map, uint64_t len,
                           const smc_options *opt);

/* Scans an open regular file (fd is closed by the caller). */
smc_status smc_scan_fd(smc_input *in, const char *path, int fd, const smc_options *opt);

/* A pull source of one file's bytes, for smc_feed: read gives up to n bytes (0 at its end, or
 * where it stops early: an error, a cap), rewind goes back to its first byte for the finder's
 * second pass and says whether it could (NULL: no second pass). A wheel member inflating, a
 * temporary file, a test's pieces are each such a source. */
typedef struct smc_pull {
    size_t (*read)(void *ctx, uint8_t *buf, size_t n);
    bool (*rewind)(void *ctx);
    void *ctx;
} smc_pull;

/* The one feed loop of a stream: the first have bytes of buf, then windows of up to cap bytes
 * from src, all of it, and all of it once more when the finder asks (smc_finder_again), unless
 * it spilled (smc_finder_spilled: its reader then reads the bytes as one window). */
smc_status smc_feed(smc_finder *f, const smc_pull *src, uint8_t *buf, size_t cap, size_t have);

/* An unlinked temporary file in $TMPDIR (or /tmp), or -1 (errno says why). */
int smc_temp_file(void);

/* Scans the file open at fd (a member copied out to a temporary file) window by window, as a
 * stream: memory stays bounded whatever its size (counting no file). */
smc_status smc_scan_fd_streamed(smc_input *part, const char *name, int fd,
                                const smc_options *opt);

#endif
