/* find.h: the find wing: the one container finder over windows of bytes (finder.c, with
 * finder_rules.c, finder_resolve.c, stream_headers.c and containers.c below it), and where a
 * file's bytes come from (source.c) */
#ifndef SMCHECK_FIND_H
#define SMCHECK_FIND_H

#include "../base/base.h"


/* finder -------------------------------------------------------------------------------------
 */

/* the one container finder, over windows of bytes (finder.c) */

typedef struct smc_finder smc_finder;
/* A finder for the file named name. whole: its bytes come in one window, which stays valid until
 * smc_finder_finish; else they stream in windows of any size, each valid only during its call. */
smc_finder *smc_finder_new(const char *name, const smc_options *opt, bool whole);
/* The next n bytes of the file. SMC_ERR_NOMEM is the only failure. */
smc_status smc_finder_feed(smc_finder *f, const uint8_t *p, size_t n);
/* After the last window: true when the finder needs the bytes once more, from the start (a
 * stream whose section names went by before its section table said where they were). */
bool smc_finder_again(smc_finder *f);
/* A stream outgrew what it may hold (hostile nesting, floods of headers or images): its bytes are
 * to be read again as one window (from a temporary file), and f freed unfinished. */
bool smc_finder_spilled(const smc_finder *f);
/* A stream's size, as its archive claims: what it may decompress is counted from it. */
void smc_finder_expect(smc_finder *f, uint64_t size);
/* Builds the library from what was found and moves it into in (when it holds device code);
 * file_size is set to the bytes fed. */
smc_status smc_finder_finish(smc_finder *f, smc_input *in);
void smc_finder_free(smc_finder *f);

/* True when the first bytes are one of the files the finder reads (ELF, ar, raw fatbin). */
bool smc_finder_signature(const uint8_t *p, uint64_t n);

/* source -------------------------------------------------------------------------------------
 */

/* where a file's bytes come from (source.c): a buffer, a mapped file, a pull
 * source fed through the one feed loop, a temporary file */

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
