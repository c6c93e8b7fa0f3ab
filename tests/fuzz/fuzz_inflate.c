/* fuzz_inflate.c: the input as a raw deflate stream (its first byte chooses 1 to 3 helpers and
 * whether the reader waits for them), inflated by pinflate in five pieces and by ISA-L in order:
 * of a whole stream the same bytes, and the same answer to whether the stream is whole (a
 * stream ISA-L inflates whole, pinflate must too, and the other way round); else abort. What
 * comes out is capped at 8 MiB (zeros deflate a thousandfold). */
#include "../../src/lib/bytes/bytes.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP (8u << 20)

#include "../memory_source.h"

/* ISA-L in order: the bytes (up to CAP), and whether the stream ended within them. */
static size_t in_order(const uint8_t *raw, size_t len, uint8_t *out, bool *whole)
{
    static struct inflate_state s;
    memset(&s, 0, sizeof s); /* nothing of the last input's history left in its buffers */
    isal_inflate_init(&s);
    s.next_in = (uint8_t *)raw;
    s.avail_in = (uint32_t)len;
    s.next_out = out;
    s.avail_out = CAP;
    int r = isal_inflate(&s);
    *whole = r == ISAL_DECOMP_OK && s.block_state == ISAL_BLOCK_FINISH;
    return CAP - s.avail_out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    unsigned helpers = 1 + data[0] % 3;
    bool patient = data[0] & 4;
    const uint8_t *raw = data + 1;
    size_t len = size - 1;
    static uint8_t *a, *b;
    if (!a && (!(a = malloc(CAP)) || !(b = malloc(CAP)))) abort();
    bool whole;
    size_t na = in_order(raw, len, a, &whole);
    source src = {raw, len, 0};
    smc_pinflate *p = smc_pinflate_new(len, helpers, len / 5 + 1, NULL, from_memory, &src);
    if (!p) return 0; /* too short for pieces */
    if (patient) smc_pinflate_patient(p);
    size_t nb = 0;
    bool bad = false;
    const char *why = NULL;
    while (nb < CAP && !bad) {
        size_t r = smc_pinflate_read(p, b + nb, CAP - nb < 65536 ? CAP - nb : 65536, &bad, &why);
        if (r == 0) break;
        nb += r;
    }
    uint32_t crc;
    bool ended = smc_pinflate_done(p, &crc);
    smc_pinflate_free(p);
    /* Of a broken stream, what ISA-L writes before it says so depends on how its input comes
     * (its lookahead decodes symbols it then rejects): only a whole one's bytes must agree. */
    size_t common = na < nb ? na : nb;
    if (whole && memcmp(a, b, common) != 0) abort(); /* different bytes */
    if (na < CAP && nb < CAP) {
        if (whole != ended) abort(); /* one says whole, the other not */
        if (whole && (na != nb || crc != crc32_gzip_refl(0, b, nb))) abort();
    }
    return 0;
}
