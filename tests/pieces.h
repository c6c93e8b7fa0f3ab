/* pieces.h: bytes in memory as a stream of uneven pieces (smc_pull), fed to the finder by the
 * library's one feed loop (smc_feed), for test_stream.c and fuzz_stream.c. */
#ifndef SMCHECK_TESTS_PIECES_H
#define SMCHECK_TESTS_PIECES_H

#include "../src/lib/find/find.h"

#include <stdlib.h>

typedef struct pieces {
    const uint8_t *p;
    size_t len, at, k;
    const size_t *sizes; /* the pieces' sizes, in turn */
    size_t nsizes;
    unsigned rewinds;
} pieces;

static inline size_t pieces_read(void *ctx, uint8_t *buf, size_t n)
{
    pieces *s = ctx;
    size_t k = s->sizes[s->k++ % s->nsizes];
    if (k > n) k = n;
    if (k > s->len - s->at) k = s->len - s->at;
    memcpy(buf, s->p + s->at, k);
    s->at += k;
    return k;
}

static inline bool pieces_rewind(void *ctx)
{
    pieces *s = ctx;
    s->at = s->k = 0;
    s->rewinds++;
    return true;
}

/* Feeds f the bytes in pieces through smc_feed: *twice says whether it asked for them again. */
static inline smc_status pieces_feed(smc_finder *f, const uint8_t *p, size_t len,
                                     const size_t *sizes, size_t nsizes, bool *twice)
{
    size_t cap = 1;
    for (size_t i = 0; i < nsizes; i++)
        cap = sizes[i] > cap ? sizes[i] : cap;
    uint8_t *buf = malloc(cap);
    if (!buf) return SMC_ERR_NOMEM;
    pieces s = {.p = p, .len = len, .sizes = sizes, .nsizes = nsizes};
    smc_pull src = {.read = pieces_read, .rewind = pieces_rewind, .ctx = &s};
    smc_status st = smc_feed(f, &src, buf, cap, 0);
    *twice = s.rewinds > 0;
    free(buf);
    return st;
}

#endif
