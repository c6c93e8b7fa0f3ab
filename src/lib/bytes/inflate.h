/* inflate.h: a member's bytes as they inflate (inflate.c), one long member by several
 * threads (pinflate.c), and the decoder that starts without a window (deflate.c) */
#ifndef SMCHECK_INFLATE_H
#define SMCHECK_INFLATE_H

#include "../base/model.h"

#include <stdatomic.h>

/* inflate.c: one member's bytes as they inflate: raw deflate through ISA-L where it is built in
 * (the CRC-32 checked at the stream's end), else libzip and zlib. */
typedef struct smc_member smc_member;
struct zip;
struct zip_stat;
/* NULL only when out of memory; one that cannot be opened says so at its first read. */
/* helpers: threads more that may inflate one long deflated member (pinflate.c), while idle
 * (when not NULL) counts at least as many threads of the pool with nothing left to do. */
smc_member *smc_member_open(struct zip *za, uint64_t index, const struct zip_stat *st,
                            unsigned helpers, const atomic_uint *idle);
/* Up to n bytes; fewer only at the end or on an error (*bad set, smc_member_error says what). */
size_t smc_member_read(smc_member *m, uint8_t *buf, size_t n, bool *bad);
const char *smc_member_error(const smc_member *m);
void smc_member_close(smc_member *m);

/* deflate.c: a raw deflate decoder that can start at a block whose window is unknown. -------- */

typedef struct smc_spec smc_spec; /* its codes: one per thread */
smc_spec *smc_spec_new(void);
void smc_spec_free(smc_spec *s);
typedef enum {
    SMC_SPEC_STOP,  /* at a block boundary at or past stop_bit */
    SMC_SPEC_FINAL, /* the last block ended */
    SMC_SPEC_CLEAN, /* at a boundary, the last 32 KiB written hold no marker (see *clean) */
    SMC_SPEC_FULL,  /* out has no room for the next block's symbols */
    SMC_SPEC_BAD    /* not deflate, or past the input's end */
} smc_spec_end;
/* Decodes the blocks of in[0..len) from *bit, a block boundary, appending to out[*n..cap): a
 * byte b as b, a byte of the 32 KiB before *bit as 256 + its index in that window (0: the
 * oldest). Where clean is given, stops at the first boundary past *clean symbols whose window
 * holds bytes only. *bit and *n say where it stopped (at the last boundary it reached). */
smc_spec_end smc_spec_decode(smc_spec *s, const uint8_t *in, size_t len, uint64_t *bit,
                             uint64_t stop_bit, uint16_t *out, size_t cap, size_t *n,
                             const size_t *clean);
/* The byte each symbol stands for once the 32 KiB window before is known: map[0..256 + 32768). */
void smc_spec_map(const uint8_t *window, uint8_t *map);
/* Writes the bytes of n symbols to out. */
void smc_spec_resolve(const uint16_t *sym, size_t n, const uint8_t *map, uint8_t *out);
/* The first bit in [from_bit, to_bit) where a dynamic block (not the last) plausibly begins, or
 * UINT64_MAX; budget bounds the symbols its trial decodes take in all. */
uint64_t smc_spec_find(smc_spec *s, const uint8_t *in, size_t len, uint64_t from_bit,
                       uint64_t to_bit, size_t budget);

/* pinflate.c: one long raw deflate stream inflated by more than one thread (ISA-L builds). */
typedef struct smc_pinflate smc_pinflate;
/* Reads up to n compressed bytes in order: how many (0 at the end), or -1 (why says what). */
typedef long long (*smc_raw_reader)(void *ctx, uint8_t *buf, size_t n, const char **why);
/* For a stream of comp bytes, with up to helpers more threads and pieces of segment compressed
 * bytes (0: the default); NULL when it would not pay or memory is short: read it in order.
 * Helper i works only while *idle > i (the cores are the pool's first; idle NULL: always). */
smc_pinflate *smc_pinflate_new(uint64_t comp, unsigned helpers, size_t segment,
                               const atomic_uint *idle, smc_raw_reader rd, void *ctx);
/* Like smc_member_read: up to n bytes, fewer only at the end or on an error (*bad, *why). */
size_t smc_pinflate_read(smc_pinflate *p, uint8_t *buf, size_t n, bool *bad, const char **why);
/* Whether the stream ended; the CRC-32 of what came out. */
bool smc_pinflate_done(const smc_pinflate *p, uint32_t *crc);
/* For tests: the reader finds the guesses itself, rather than pass by where helpers have not yet
 * (so that helpers' pieces are served, not outrun). False when out of memory. */
bool smc_pinflate_patient(smc_pinflate *p);
/* How many pieces were served as helpers inflated them, and how many the reader inflated. */
void smc_pinflate_counts(const smc_pinflate *p, unsigned *helped, unsigned *own);
void smc_pinflate_free(smc_pinflate *p);

#endif
