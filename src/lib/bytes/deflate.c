/* deflate.c: a raw deflate decoder (RFC 1951) for what ISA-L cannot do: start in the middle of a
 * stream, at a block whose 32 KiB window is not known yet. It writes 16-bit symbols: a byte is
 * itself, and a byte that comes from the unknown window is a marker, 256 + its place in that
 * window, which smc_spec_resolve replaces once the window is known. It also finds where blocks
 * may begin (smc_spec_find), so that one stream can be cut into pieces decoded at once.
 * Only correctness of the bytes matters here, and bounds: the caller checks every guess by
 * decoding up to it (pinflate.c), so a wrong guess costs time, never a wrong byte. */
#include "bytes.h"

#include <stdlib.h>

#define FAST_BITS 10 /* codes up to this long decode in one table look-up */
#define MAX_BITS 15
#define WINDOW 32768u

/* A Huffman code: fast[] holds, for the next FAST_BITS bits, symbol << 4 | length, or 0 where the
 * code is longer (then the canonical tables decode it bit by bit). */
typedef struct {
    uint16_t fast[1u << FAST_BITS];
    uint16_t count[MAX_BITS + 1];  /* codes of each length */
    uint16_t symbol[320];          /* symbols in canonical order */
} code;

typedef struct {
    const uint8_t *in;
    size_t len;   /* bytes */
    size_t pos;   /* next byte to load */
    uint64_t buf; /* bits loaded, the next one lowest */
    unsigned cnt; /* how many */
    uint64_t past; /* bits loaded from beyond the end (zeros) */
} bits;

static void bits_at(bits *b, const uint8_t *in, size_t len, uint64_t bit)
{
    *b = (bits){.in = in, .len = len, .pos = (size_t)(bit / 8)};
    if (b->pos > len) b->pos = len; /* the reader runs dry at once */
    if (bit % 8 && b->pos < len) {
        b->buf = (uint64_t)in[b->pos++] >> (bit % 8);
        b->cnt = 8 - (unsigned)(bit % 8);
    }
}

static inline void refill(bits *b)
{
    while (b->cnt <= 56) {
        if (b->pos < b->len) b->buf |= (uint64_t)b->in[b->pos++] << b->cnt;
        else b->past += 8;
        b->cnt += 8;
    }
}

/* The bit position the next read starts at. */
static inline uint64_t bits_tell(const bits *b)
{
    return (uint64_t)b->pos * 8 + b->past - b->cnt;
}

/* Whether reading went past the end of the input. */
static inline bool bits_over(const bits *b)
{
    return bits_tell(b) > (uint64_t)b->len * 8;
}

static inline unsigned need(bits *b, unsigned n) /* n <= 32 */
{
    if (b->cnt < n) refill(b);
    unsigned v = (unsigned)(b->buf & ((1ull << n) - 1));
    b->buf >>= n;
    b->cnt -= n;
    return v;
}

static unsigned reverse(unsigned c, unsigned n)
{
    unsigned r = 0;
    for (unsigned i = 0; i < n; i++, c >>= 1)
        r = r << 1 | (c & 1);
    return r;
}

/* Builds the code of lengths len[0..n). A code must be complete, except one of a single symbol
 * (a distance code may be that), or empty when empty_ok. Returns false for anything else. */
static bool build(code *h, const uint8_t *len, unsigned n, bool empty_ok)
{
    memset(h->count, 0, sizeof h->count);
    for (unsigned s = 0; s < n; s++)
        h->count[len[s]]++;
    unsigned used = n - h->count[0];
    if (used == 0 && !empty_ok) return false;
    int left = 1;
    for (unsigned l = 1; l <= MAX_BITS; l++) {
        left = left * 2 - h->count[l];
        if (left < 0) return false; /* over-subscribed */
    }
    if (left > 0 && !(used == 1 && h->count[1] == 1) && used != 0) return false; /* incomplete */
    uint16_t offs[MAX_BITS + 2];
    offs[1] = 0;
    for (unsigned l = 1; l <= MAX_BITS; l++)
        offs[l + 1] = (uint16_t)(offs[l] + h->count[l]);
    for (unsigned s = 0; s < n; s++)
        if (len[s]) h->symbol[offs[len[s]]++] = (uint16_t)s;
    memset(h->fast, 0, sizeof h->fast);
    unsigned next = 0, k = 0; /* the canonical code of symbol[k] */
    for (unsigned l = 1; l <= MAX_BITS; l++, next <<= 1)
        for (unsigned i = 0; i < h->count[l]; i++, next++, k++) {
            if (l > FAST_BITS) continue;
            unsigned r = reverse(next, l);
            for (unsigned f = r; f < (1u << FAST_BITS); f += 1u << l)
                h->fast[f] = (uint16_t)((unsigned)h->symbol[k] << 4 | l);
        }
    return true;
}

/* The next symbol of h, or -1 for bits that are no code of it. */
static inline int decode(bits *b, const code *h)
{
    if (b->cnt < MAX_BITS) refill(b);
    unsigned e = h->fast[b->buf & ((1u << FAST_BITS) - 1)];
    if (e) {
        b->buf >>= e & 15;
        b->cnt -= e & 15;
        return (int)(e >> 4);
    }
    int c = 0, first = 0, index = 0; /* canonical decoding, bit by bit */
    uint64_t v = b->buf;
    for (unsigned l = 1; l <= MAX_BITS; l++) {
        c |= (int)(v & 1);
        v >>= 1;
        int count = (int)h->count[l];
        if (c - count < first) {
            b->buf >>= l;
            b->cnt -= l;
            return h->symbol[index + (c - first)];
        }
        index += count;
        first = (first + count) << 1;
        c <<= 1;
    }
    return -1;
}

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145,  8193,  12289, 16385,
                                       24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

struct smc_spec {
    code lit, dist;
    bool fixed;          /* lit and dist hold the fixed codes */
    uint8_t kraft3[512]; /* three 3-bit code lengths: their part of 128 */
};

smc_spec *smc_spec_new(void)
{
    smc_spec *s = calloc(1, sizeof(smc_spec));
    if (s)
        for (unsigned g = 0; g < 512; g++)
            for (unsigned i = 0; i < 3; i++) {
                unsigned l = (g >> (3 * i)) & 7;
                if (l) s->kraft3[g] = (uint8_t)(s->kraft3[g] + (128u >> l));
            }
    return s;
}

void smc_spec_free(smc_spec *s)
{
    free(s);
}

static void fixed_codes(smc_spec *s)
{
    uint8_t len[288];
    for (unsigned i = 0; i < 288; i++)
        len[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    build(&s->lit, len, 288, false);
    for (unsigned i = 0; i < 32; i++)
        len[i] = 5;
    build(&s->dist, len, 32, false); /* codes 30 and 31 exist but mean nothing */
    s->fixed = true;
}

/* Reads a dynamic block's code descriptions into s. */
static bool dynamic_codes(smc_spec *s, bits *b)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    s->fixed = false;
    unsigned nlen = need(b, 5) + 257, ndist = need(b, 5) + 1, ncode = need(b, 4) + 4;
    if (nlen > 286 || ndist > 30) return false;
    uint8_t len[320] = {0};
    for (unsigned i = 0; i < ncode; i++)
        len[order[i]] = (uint8_t)need(b, 3);
    code *lc = &s->lit; /* the code-length code, for a moment */
    if (!build(lc, len, 19, false)) return false;
    memset(len, 0, 19);
    for (unsigned i = 0; i < nlen + ndist;) {
        int sym = decode(b, lc);
        if (sym < 0) return false;
        if (sym < 16) {
            len[i++] = (uint8_t)sym;
            continue;
        }
        unsigned rep, val = 0;
        if (sym == 16) {
            if (i == 0) return false;
            val = len[i - 1];
            rep = 3 + need(b, 2);
        } else {
            rep = sym == 17 ? 3 + need(b, 3) : 11 + need(b, 7);
        }
        if (i + rep > nlen + ndist) return false;
        while (rep--)
            len[i++] = (uint8_t)val;
    }
    if (len[256] == 0) return false; /* no end of block */
    return build(&s->lit, len, nlen, false) && build(&s->dist, len + nlen, ndist, true);
}

smc_spec_end smc_spec_decode(smc_spec *s, const uint8_t *in, size_t len, uint64_t *bit,
                             uint64_t stop_bit, uint16_t *out, size_t cap, size_t *n,
                             const size_t *clean)
{
    bits b;
    bits_at(&b, in, len, *bit);
    size_t o = *n;
    size_t last_marker = SIZE_MAX; /* where the newest marker went */
    for (size_t i = o >= WINDOW ? o - WINDOW : 0; i < o; i++)
        if (out[i] > 255) last_marker = i;
    for (;;) {
        *bit = bits_tell(&b);
        *n = o;
        if (*bit >= stop_bit) return SMC_SPEC_STOP;
        if (clean && o >= *clean && o >= WINDOW && (last_marker == SIZE_MAX || o - last_marker > WINDOW))
            return SMC_SPEC_CLEAN;
        unsigned final = need(&b, 1), type = need(&b, 2);
        if (type == 0) { /* stored */
            unsigned skip = b.cnt % 8;
            need(&b, skip);
            unsigned l = need(&b, 16), nl = need(&b, 16);
            if ((l ^ nl) != 0xffff || bits_over(&b)) return SMC_SPEC_BAD;
            if (cap - o < l) return SMC_SPEC_FULL;
            for (unsigned i = 0; i < l; i++)
                out[o++] = (uint16_t)need(&b, 8);
            if (bits_over(&b)) return SMC_SPEC_BAD;
        } else if (type == 3) {
            return SMC_SPEC_BAD;
        } else {
            if (type == 1) {
                if (!s->fixed) fixed_codes(s);
            } else if (!dynamic_codes(s, &b)) {
                return SMC_SPEC_BAD;
            }
            for (;;) {
                int sym = decode(&b, &s->lit);
                if (sym < 0 || b.past > 64) return SMC_SPEC_BAD; /* the block's end checks exactly */
                if (sym < 256) {
                    if (o == cap) return SMC_SPEC_FULL;
                    out[o++] = (uint16_t)sym;
                    continue;
                }
                if (sym == 256) {
                    if (bits_over(&b)) return SMC_SPEC_BAD;
                    break;
                }
                sym -= 257;
                if (sym >= 29) return SMC_SPEC_BAD;
                unsigned l = len_base[sym] + need(&b, len_extra[sym]);
                int d = decode(&b, &s->dist);
                if (d < 0 || d >= 30) return SMC_SPEC_BAD;
                size_t dist = dist_base[d] + need(&b, dist_extra[d]);
                if (dist > o + WINDOW) return SMC_SPEC_BAD; /* before any window */
                if (cap - o < l) return SMC_SPEC_FULL;
                if (dist > o) { /* from the window before: markers, then what is here */
                    size_t from = WINDOW - (dist - o);
                    for (; l && from < WINDOW; l--, from++) {
                        last_marker = o;
                        out[o++] = (uint16_t)(256 + from);
                    }
                }
                for (; l; l--, o++) {
                    uint16_t v = out[o - dist];
                    if (v > 255) last_marker = o;
                    out[o] = v;
                }
            }
        }
        if (final) {
            *bit = bits_tell(&b);
            *n = o;
            return bits_over(&b) ? SMC_SPEC_BAD : SMC_SPEC_FINAL;
        }
    }
}

void smc_spec_map(const uint8_t *window, uint8_t *map)
{
    for (unsigned v = 0; v < 256; v++)
        map[v] = (uint8_t)v;
    memcpy(map + 256, window, WINDOW);
}

void smc_spec_resolve(const uint16_t *sym, size_t n, const uint8_t *map, uint8_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = map[sym[i]];
}

/* Whether bit is where a dynamic block that is not the last may begin: its codes are sound, it
 * decodes to its end within the input (distances no further back than a window), and a block
 * of a real type follows. *work counts the symbols the trial took. */
static bool plausible(smc_spec *s, const uint8_t *in, size_t len, uint64_t bit, size_t cap,
                      size_t *work)
{
    bits b;
    bits_at(&b, in, len, bit);
    if (need(&b, 3) != 4) return false; /* BFINAL 0, BTYPE 2 */
    bits q = b; /* the code-length code must be complete: most guesses end here, cheaply */
    unsigned nlen = need(&q, 5), ndist = need(&q, 5), ncode = need(&q, 4) + 4;
    if (nlen > 29 || ndist > 29) return false;
    unsigned kraft = 0;
    for (unsigned i = 0; i < ncode; i++) {
        unsigned l = need(&q, 3);
        if (l) kraft += 128u >> l;
    }
    if (kraft != 128) return false;
    if (!dynamic_codes(s, &b)) return false;
    for (size_t o = 0;; o++) {
        int sym = decode(&b, &s->lit);
        if (sym < 0 || bits_over(&b)) return false;
        if (sym == 256) break;
        if (sym > 256) {
            sym -= 257;
            if (sym >= 29) return false;
            unsigned l = len_base[sym] + need(&b, len_extra[sym]);
            int d = decode(&b, &s->dist);
            if (d < 0 || d >= 30) return false;
            size_t dist = dist_base[d] + need(&b, dist_extra[d]);
            if (dist > o + WINDOW) return false;
            o += l - 1;
        }
        if (o >= cap) return false;
        ++*work;
    }
    unsigned next = need(&b, 3) >> 1;
    return next != 3 && !bits_over(&b);
}

/* 57 bits or more from bit on (the caller has checked that 8 bytes are there). */
static inline uint64_t bits57(const uint8_t *in, uint64_t bit)
{
    return smc_le64(in + bit / 8) >> (bit % 8);
}

/* Whether a dynamic header at bit (its 3 header bits checked) has lengths that fit and a complete
 * code-length code, which most bit positions do not: the cheap test before a trial. The code-
 * length code's Kraft sum is added three lengths (9 bits) at a time. */
static bool kraft_ok(const smc_spec *s, const uint8_t *in, size_t len, uint64_t bit)
{
    if (bit / 8 + 16 > len) return true; /* near the end: plausible reads it carefully */
    uint64_t v = bits57(in, bit);
    unsigned nlen = (v >> 3) & 31, ndist = (v >> 8) & 31, ncode = ((v >> 13) & 15) + 4;
    if (nlen > 29 || ndist > 29) return false;
    uint64_t lens = (v >> 17) & ((1ull << 36) - 1); /* lengths 0..11 */
    uint64_t more = bits57(in, bit + 53);           /* lengths 12..18 */
    unsigned kraft = 0;
    for (unsigned i = 0; i < ncode; i += 3) {
        uint64_t g = i < 12 ? lens >> (3 * i) : more >> (3 * (i - 12));
        unsigned k = ncode - i < 3 ? ncode - i : 3;
        kraft += s->kraft3[g & ((1u << (3 * k)) - 1)];
    }
    return kraft == 128;
}

uint64_t smc_spec_find(smc_spec *s, const uint8_t *in, size_t len, uint64_t from_bit,
                       uint64_t to_bit, size_t budget)
{
    size_t work = 0;
    if (to_bit > (uint64_t)len * 8) to_bit = (uint64_t)len * 8;
    /* 56 positions at a time: a mask of where BFINAL 0, BTYPE 2 (bits 0, 0, 1) begin */
    for (uint64_t base = from_bit / 8 * 8; base < to_bit; base += 56) {
        size_t at = (size_t)(base / 8);
        uint64_t w = 0;
        if (at + 8 <= len) {
            w = smc_le64(in + at);
        } else {
            for (size_t i = 0; at + i < len; i++)
                w |= (uint64_t)in[at + i] << (8 * i);
        }
        uint64_t m = ~w & ~(w >> 1) & (w >> 2) & ((1ull << 56) - 1);
        while (m) {
            uint64_t bit = base + (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            if (bit < from_bit) continue;
            if (bit >= to_bit) return UINT64_MAX;
            if (!kraft_ok(s, in, len, bit)) continue;
            if (plausible(s, in, len, bit, 1u << 20, &work)) return bit;
            if (work > budget) return UINT64_MAX;
        }
    }
    return UINT64_MAX;
}
