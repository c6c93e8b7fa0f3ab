/* test_inflate.c: inflating one deflate stream with more than one thread (pinflate.c, with the
 * guesses and marker decoding of deflate.c) gives the bytes inflating it in order gives.
 *
 *   test_inflate               streams zlib writes here (text, ELF-like binary, runs, noise,
 *                              stored/fixed/Huffman-only/RLE blocks, flushes), cut into small
 *                              pieces, with 1 to 3 helpers; then damaged copies of them
 *   test_inflate FILE [PIECE]  FILE holds one raw deflate stream (a wheel member's bytes):
 *                              inflated in order by zlib, and by pinflate with 1, 2 and 3
 *                              helpers; prints the times, checks the bytes agree */
#include "../src/lib/bytes/bytes.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#ifdef SMC_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

#include "memory_source.h"

/* zlib's raw deflate of data, at level and strategy, with a flush of the given kind every
 * flush_every bytes (0: none). */
static uint8_t *compress_raw(const uint8_t *data, size_t n, int level, int strategy,
                             size_t flush_every, int flush, size_t *out_len)
{
    z_stream z = {0};
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, strategy) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, n) + n / 16 + 1024 + (flush_every ? n / flush_every * 8 : 0);
    uint8_t *out = malloc(cap);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    for (size_t at = 0; at < n || at == 0;) {
        size_t step = flush_every && n - at > flush_every ? flush_every : n - at;
        z.next_in = (Bytef *)(data + at);
        z.avail_in = (uInt)step;
        at += step;
        int r = deflate(&z, at == n ? Z_FINISH : flush_every ? flush : Z_NO_FLUSH);
        if (r == Z_STREAM_END || n == 0) break;
    }
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* Inflates raw by pinflate, read in calls of step bytes; NULL when pinflate would not take it.
 * *bad and *crc_ok say how it ended. */
static unsigned last_helped, last_own; /* the counts of the last par_inflate */

static uint8_t *par_inflate(const uint8_t *raw, size_t len, unsigned helpers, size_t piece,
                            bool patient, size_t cap, size_t step, size_t *out_len, bool *bad,
                            uint32_t *crc, bool *ended)
{
    source src = {raw, len, 0};
    smc_pinflate *p = smc_pinflate_new(len, helpers, piece, NULL, from_memory, &src);
    if (!p) return NULL;
    if (patient && !smc_pinflate_patient(p)) abort();
    uint8_t *out = malloc(cap + 1);
    size_t got = 0;
    const char *why = NULL;
    *bad = false;
    while (got <= cap && !*bad) {
        size_t want = cap + 1 - got < step ? cap + 1 - got : step;
        size_t r = smc_pinflate_read(p, out + got, want, bad, &why);
        got += r;
        if (r < want) break;
    }
    *ended = smc_pinflate_done(p, crc);
    smc_pinflate_counts(p, &last_helped, &last_own);
    smc_pinflate_free(p);
    *out_len = got;
    return out;
}

/* zlib, in order: the bytes it gives (up to cap), whether the stream was whole. */
static uint8_t *zlib_inflate(const uint8_t *raw, size_t len, size_t cap, size_t *out_len,
                             bool *whole)
{
    z_stream z = {0};
    inflateInit2(&z, -15);
    uint8_t *out = malloc(cap + 1);
    z.next_in = (Bytef *)raw;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)(cap + 1);
    int r = inflate(&z, Z_FINISH);
    *whole = r == Z_STREAM_END;
    *out_len = cap + 1 - z.avail_out;
    inflateEnd(&z);
    return out;
}

/* Test data of a kind: 0 text, 1 ELF-like binary, 2 long runs, 3 noise, 4 mixed. */
static uint8_t *make_data(int kind, size_t n, unsigned seed)
{
    uint8_t *d = malloc(n);
    uint32_t x = seed * 2654435761u + 1;
    static const char *words[] = {"sm_90", "compute_80", "kernel", "cubin", "the ", "fatbin ",
                                  "nvidia\n", "__global__ ", "0x7fff", "libtorch_cuda.so "};
    for (size_t i = 0; i < n;) {
        x = x * 1664525u + 1013904223u;
        int k = kind == 4 ? (int)((i / 40000) % 4) : kind;
        if (k == 0) {
            const char *w = words[(x >> 16) % 10];
            for (; *w && i < n; w++)
                d[i++] = (uint8_t)*w;
        } else if (k == 1) { /* records that repeat with small changes, far apart */
            size_t back = 1 + (x >> 8) % 30000;
            size_t len = 4 + (x >> 24) % 60;
            for (size_t j = 0; j < len && i < n; j++, i++)
                d[i] = (uint8_t)(i >= back && (x & 3) ? d[i - back] : x >> (j % 24));
        } else if (k == 2) {
            size_t len = 1 + (x >> 12) % 5000;
            uint8_t v = (uint8_t)(x >> 4);
            for (size_t j = 0; j < len && i < n; j++)
                d[i++] = v;
        } else {
            d[i++] = (uint8_t)(x >> 24);
        }
    }
    return d;
}

/* Inflates raw with 1, 2 and 3 helpers, the reader outrunning them (as it does), and with 1 and
 * 3 waiting for their guesses (patient). Returns how many pieces patient readers served from
 * helpers. */
static unsigned one(const char *what, const uint8_t *data, size_t n, const uint8_t *raw,
                    size_t len, size_t piece)
{
    unsigned helped = 0;
    for (unsigned run = 0; run < 5; run++) {
        unsigned helpers = run < 3 ? 1 + run : run == 3 ? 1 : 3;
        bool patient = run >= 3;
        size_t got;
        bool bad, ended;
        uint32_t crc;
        uint8_t *out = par_inflate(raw, len, helpers, piece, patient, n + 4096,
                                   helpers == 2 ? 7777 : 1 << 20, &got, &bad, &crc, &ended);
        CHECK(out != NULL);
        if (!out) return helped;
        bool same = got == n && memcmp(out, data, n) == 0 && !bad && ended &&
                    crc == (uint32_t)crc32(0, data, (uInt)n);
        if (!same)
            fprintf(stderr, "%s, %u helpers, pieces of %zu: got %zu of %zu bytes, bad %d, ended %d\n",
                    what, helpers, piece, got, n, bad, ended);
        CHECK(same);
        if (patient) helped += last_helped;
        free(out);
    }
    return helped;
}

static void test_streams(void)
{
    static const struct {
        int level, strategy, flush;
        size_t every;
        const char *name;
    } modes[] = {
        {6, Z_DEFAULT_STRATEGY, 0, 0, "level 6"},
        {1, Z_DEFAULT_STRATEGY, 0, 0, "level 1"},
        {9, Z_DEFAULT_STRATEGY, 0, 0, "level 9"},
        {6, Z_FIXED, 0, 0, "fixed codes"},
        {6, Z_HUFFMAN_ONLY, 0, 0, "Huffman only"},
        {6, Z_RLE, 0, 0, "RLE"},
        {0, Z_DEFAULT_STRATEGY, 0, 0, "stored"},
        {6, Z_DEFAULT_STRATEGY, Z_SYNC_FLUSH, 5000, "sync flushes"},
        {6, Z_DEFAULT_STRATEGY, Z_FULL_FLUSH, 70000, "full flushes"},
        {6, Z_DEFAULT_STRATEGY, Z_PARTIAL_FLUSH, 3000, "partial flushes"},
    };
    static const char *kinds[] = {"text", "binary", "runs", "noise", "mixed"};
    for (int kind = 0; kind < 5; kind++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            size_t n = 2u << 20;
            uint8_t *data = make_data(kind, n, (unsigned)kind * 31u + (unsigned)m);
            size_t len;
            uint8_t *raw = compress_raw(data, n, modes[m].level, modes[m].strategy, modes[m].every,
                                        modes[m].flush, &len);
            char what[96];
            snprintf(what, sizeof what, "%s, %s", kinds[kind], modes[m].name);
            /* blocks with their own codes, which the guesses look for (noise gets stored ones) */
            bool dynamic = modes[m].level != 0 && modes[m].strategy != Z_FIXED && kind != 3;
            unsigned helped = 0, tried = 0;
            for (size_t piece = 16384; piece <= 65536; piece *= 4)
                if (len / piece >= 8) { /* long runs compress too well to cut */
                    helped += one(what, data, n, raw, len, piece);
                    tried++;
                }
            dynamic = dynamic && tried;
            if (dynamic && helped == 0) fprintf(stderr, "%s: no piece was a helper's\n", what);
            CHECK(!dynamic || helped > 0); /* else only the reader's own pieces were tried */
            free(raw);
            free(data);
        }
}

/* Damaged streams: pinflate's bytes are zlib's, as far as both go, and it fails where zlib
 * does (an error, the stream cut short, or a CRC that does not match the intact data). */
static void test_damage(void)
{
    size_t n = 2u << 20;
    uint8_t *data = make_data(4, n, 7);
    size_t len;
    uint8_t *raw = compress_raw(data, n, 6, Z_DEFAULT_STRATEGY, 0, 0, &len);
    uint32_t want_crc = (uint32_t)crc32(0, data, (uInt)n);
    uint8_t *copy = malloc(len);
    uint32_t x = 12345;
    int agreed = 0, tried = 0;
    for (int t = 0; t < 60; t++) {
        memcpy(copy, raw, len);
        size_t clen = len;
        x = x * 1664525u + 1013904223u;
        if (t % 3 == 2) {
            clen = (x >> 4) % len; /* cut */
        } else {
            for (int f = 0; f <= t % 3; f++) {
                x = x * 1664525u + 1013904223u;
                copy[(x >> 3) % len] ^= (uint8_t)(1u << (x % 8));
            }
        }
        size_t zgot, pgot;
        bool whole, bad, ended;
        uint32_t crc;
        uint8_t *z = zlib_inflate(copy, clen, n + 65536, &zgot, &whole);
        uint8_t *p = par_inflate(copy, clen, 1 + (unsigned)t % 3, 16384, t % 2, n + 65536,
                                 1 << 20, &pgot, &bad, &crc, &ended);
        if (!p) { /* too short to cut into pieces */
            free(z);
            continue;
        }
        tried++;
        bool zl_ok = whole && zgot == n && crc32(0, z, (uInt)zgot) == want_crc;
        bool par_ok = !bad && ended && crc == want_crc && pgot == n;
        size_t common = zgot < pgot ? zgot : pgot;
        bool prefix = memcmp(z, p, common) == 0;
        if (zl_ok != par_ok || !prefix)
            fprintf(stderr, "damage %d: zlib %zu bytes ok %d, pinflate %zu bytes ok %d, same prefix %d\n",
                    t, zgot, zl_ok, pgot, par_ok, prefix);
        agreed += zl_ok == par_ok && prefix;
        free(z);
        free(p);
    }
    CHECK(tried >= 30);
    CHECK(agreed == tried);
    free(copy);
    free(raw);
    free(data);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The length and CRC-32 of what raw inflates to: in order by zlib (how 0) or ISA-L (how 1), or
 * by pinflate with how - 1 helpers. */
static bool stream_sum(const uint8_t *raw, size_t len, unsigned how, size_t piece, size_t *n,
                       uint32_t *crc)
{
    size_t cap = 8u << 20;
    uint8_t *buf = malloc(cap);
    uint32_t c = 0;
    *n = 0;
    bool ok;
    if (how == 0) {
        z_stream z = {0};
        inflateInit2(&z, -15);
        z.next_in = (Bytef *)raw;
        z.avail_in = (uInt)len;
        int r;
        do {
            z.next_out = buf;
            z.avail_out = (uInt)cap;
            r = inflate(&z, Z_NO_FLUSH);
            c = crc32_gzip_refl(c, buf, cap - z.avail_out);
            *n += cap - z.avail_out;
        } while (r == Z_OK);
        ok = r == Z_STREAM_END;
        inflateEnd(&z);
    } else if (how == 1) {
        struct inflate_state *s = malloc(sizeof *s);
        isal_inflate_init(s);
        s->next_in = (uint8_t *)raw;
        s->avail_in = (uint32_t)len;
        int r;
        do {
            s->next_out = buf;
            s->avail_out = (uint32_t)cap;
            r = isal_inflate(s);
            c = crc32_gzip_refl(c, buf, cap - s->avail_out);
            *n += cap - s->avail_out;
        } while (r == ISAL_DECOMP_OK && s->block_state != ISAL_BLOCK_FINISH);
        ok = s->block_state == ISAL_BLOCK_FINISH;
        free(s);
    } else {
        source src = {raw, len, 0};
        smc_pinflate *p = smc_pinflate_new(len, how - 1, piece, NULL, from_memory, &src);
        bool bad = false;
        const char *why;
        size_t r;
        uint32_t pc = 0;
        while (p && (r = smc_pinflate_read(p, buf, cap, &bad, &why)) > 0) {
            c = crc32_gzip_refl(c, buf, r);
            *n += r;
        }
        ok = p && !bad && smc_pinflate_done(p, &pc) && pc == c;
        if (p) smc_pinflate_counts(p, &last_helped, &last_own);
        smc_pinflate_free(p);
    }
    free(buf);
    *crc = c;
    return ok;
}

static int on_file(const char *path, size_t piece)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *raw = malloc(len);
    if (!raw || fread(raw, 1, len, f) != len) return 2;
    fclose(f);
    size_t n0 = 0;
    uint32_t c0 = 0;
    double t_isal = 0;
    for (unsigned how = 0; how <= 4; how++) {
        double t0 = now();
        size_t n;
        uint32_t c;
        bool ok = stream_sum(raw, len, how, piece, &n, &c);
        double t = now() - t0;
        if (how == 0) {
            n0 = n, c0 = c;
            printf("zlib, in order:        %6.2f s  (%zu -> %zu bytes)\n", t, len, n);
            continue;
        }
        bool same = ok && n == n0 && c == c0;
        if (how == 1) {
            t_isal = t;
            printf("ISA-L, in order:       %6.2f s  %s\n", t, same ? "" : "DIFFERENT");
        } else {
            printf("pinflate, %u helper%s:   %6.2f s  %.2fx ISA-L  %s (pieces: %u a helper's, %u its own)\n",
                   how - 1, how > 2 ? "s" : " ", t, t / t_isal, same ? "the same bytes" : "DIFFERENT",
                   last_helped, last_own);
        }
        CHECK(same);
    }
    free(raw);
    return check_report();
}

int main(int argc, char **argv)
{
    if (argc > 1) return on_file(argv[1], argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 0);
    test_streams();
    test_damage();
    return check_report();
}

#else
int main(void)
{
    puts("skipped: built without ISA-L (-DSMCHECK_ISAL=OFF): nothing inflates in parallel");
    return 77;
}
#endif
