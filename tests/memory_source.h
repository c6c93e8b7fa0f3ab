/* memory_source.h: compressed bytes in memory as pinflate.c's reader of them (smc_raw_reader),
 * for test_inflate.c and fuzz_inflate.c. */
#ifndef SMCHECK_TESTS_MEMORY_SOURCE_H
#define SMCHECK_TESTS_MEMORY_SOURCE_H

#include <stdint.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t len, at;
} source;

static inline long long from_memory(void *ctx, uint8_t *buf, size_t n, const char **why)
{
    (void)why;
    source *s = ctx;
    size_t k = s->len - s->at < n ? s->len - s->at : n;
    memcpy(buf, s->p + s->at, k);
    s->at += k;
    return (long long)k;
}

#endif
