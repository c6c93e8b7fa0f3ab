/* fatbin.c: the parser of CUDA fat binary container and entry headers over bytes, and the
 * decompression and checking of entry payloads. It trusts no byte it reads: every read goes
 * through smc_in_range, sizes are uint64_t, and loops advance by sizes already checked. Which
 * bytes are headers is the finder's to say (finder.c). The layout is in
 * docs/fatbin-format.md (cited below as §N); it does no I/O. */
#include "bytes.h"

#include <limits.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

/* Entry flags (§4). */
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define FLAG_ARCH_SPECIFIC 0x100000u /* the "a" variant */
#define FLAG_FAMILY 0x200000u        /* the "f" variant */

#define CONTAINER_HEADER 16u
#define ENTRY_HEADER 64u

/* No real payload comes near this (the largest cubins in cuBLASLt are a few MB); it keeps a
 * hostile uncompressed-size field from asking for any amount of memory. */
#define PAYLOAD_MAX (1ull << 30)

/* The first 8 bytes of every container header: magic, version 1, header size 16 (§2). */
static const uint8_t header_prefix[8] = {0x50, 0xED, 0x55, 0xBA, 0x01, 0x00, 0x10, 0x00};

bool smc_fatbin_at(const uint8_t *buf, uint64_t len, uint64_t off)
{
    return smc_in_range(len, off, sizeof header_prefix) &&
           memcmp(buf + off, header_prefix, sizeof header_prefix) == 0;
}

uint64_t smc_fatbin_find(const uint8_t *buf, uint64_t from, uint64_t to)
{
    uint64_t want, w[4];
    memcpy(&want, header_prefix, sizeof want);
    uint64_t pos = from;
    /* Four words a round with one branch: this loop reads every byte of a library that lies
     * outside its fatbin sections, so it must run at memory speed. */
    while (pos <= to && to - pos >= sizeof w) {
        memcpy(w, buf + pos, sizeof w);
        if ((w[0] == want) | (w[1] == want) | (w[2] == want) | (w[3] == want)) break;
        pos += sizeof w;
    }
    for (; pos <= to && to - pos >= 8; pos += 8)
        if (memcmp(buf + pos, header_prefix, 8) == 0) return pos;
    return to;
}

/* The search for headers and needles: the first two bytes of each (the header's, then each
 * needle's, a pair once however many needles share it) compared side by side at many positions
 * at once, and the whole header or needle checked in order where a pair matches. Streamed bytes
 * are searched this way (at every offset, since the layout that says where containers may start
 * comes last), so it must run near memory speed: one pass for all. 32 positions a round with
 * AVX2 where the CPU has it (x86-64), else 16 with GCC and clang vector extensions (SSE2 or
 * NEON, portable C elsewhere); the last positions one by one. */
typedef uint8_t v16 __attribute__((vector_size(16)));

typedef struct scan {
    const uint8_t *buf;
    size_t len;
    const smc_needle *also;
    size_t nalso;
    bool (*found)(void *ctx, size_t at, int which);
    void *ctx;
    uint8_t first[1 + SMC_NEEDLES_MAX], second[1 + SMC_NEEDLES_MAX];
    size_t pairs;
} scan;

#define STOPPED SIZE_MAX

/* Positions from i on, 16 at a time while the second byte of the last is in the buffer; returns
 * where it stopped, or STOPPED when found said to. */
static size_t scan16(const scan *s, size_t i)
{
    v16 a[1 + SMC_NEEDLES_MAX], b[1 + SMC_NEEDLES_MAX];
    for (size_t k = 0; k < s->pairs; k++) {
        memset(&a[k], s->first[k], sizeof a[k]);
        memset(&b[k], s->second[k], sizeof b[k]);
    }
    for (; s->len >= 17 && i <= s->len - 17; i += 16) {
        v16 x, y, hit = {0};
        memcpy(&x, s->buf + i, sizeof x);
        memcpy(&y, s->buf + i + 1, sizeof y);
        for (size_t k = 0; k < s->pairs; k++)
            hit |= (v16)((x == a[k]) & (y == b[k]));
        uint64_t w[2];
        memcpy(w, &hit, sizeof w);
        if (!(w[0] | w[1])) continue;
        for (size_t j = 0; j < 16; j++)
            if (hit[j] &&
                !smc_fatbin_scan_at(s->buf, s->len, i + j, s->also, s->nalso, s->found, s->ctx))
                return STOPPED;
    }
    return i;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_SCAN32 1

/* The same, 32 positions at a time with AVX2 (only called where the CPU has it). */
__attribute__((target("avx2"))) static size_t scan32(const scan *s, size_t i)
{
    __m256i a[1 + SMC_NEEDLES_MAX], b[1 + SMC_NEEDLES_MAX];
    for (size_t k = 0; k < s->pairs; k++) {
        a[k] = _mm256_set1_epi8((char)s->first[k]);
        b[k] = _mm256_set1_epi8((char)s->second[k]);
    }
    for (; s->len >= 33 && i <= s->len - 33; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(s->buf + i));
        __m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(s->buf + i + 1));
        __m256i hit = _mm256_and_si256(_mm256_cmpeq_epi8(x, a[0]), _mm256_cmpeq_epi8(y, b[0]));
        for (size_t k = 1; k < s->pairs; k++)
            hit = _mm256_or_si256(
                hit, _mm256_and_si256(_mm256_cmpeq_epi8(x, a[k]), _mm256_cmpeq_epi8(y, b[k])));
        for (uint32_t m = (uint32_t)_mm256_movemask_epi8(hit); m; m &= m - 1)
            if (!smc_fatbin_scan_at(s->buf, s->len, i + (size_t)__builtin_ctz(m), s->also, s->nalso,
                                    s->found, s->ctx))
                return STOPPED;
    }
    return i;
}
#endif

void smc_fatbin_scan(const uint8_t *buf, size_t len, const smc_needle *also, size_t nalso,
                     bool (*found)(void *ctx, size_t at, int which), void *ctx)
{
    if (nalso > SMC_NEEDLES_MAX) nalso = SMC_NEEDLES_MAX;
    scan s = {.buf = buf,
              .len = len,
              .also = also,
              .nalso = nalso,
              .found = found,
              .ctx = ctx,
              .first = {header_prefix[0]},
              .second = {header_prefix[1]},
              .pairs = 1};
    for (size_t k = 0; k < nalso; k++) {
        size_t j = 0;
        while (j < s.pairs && (s.first[j] != also[k].bytes[0] || s.second[j] != also[k].bytes[1]))
            j++;
        if (j == s.pairs) {
            s.first[j] = also[k].bytes[0];
            s.second[j] = also[k].bytes[1];
            s.pairs++;
        }
    }
    size_t i = 0;
#ifdef HAVE_SCAN32
    if (__builtin_cpu_supports("avx2")) i = scan32(&s, i);
#endif
    if (i != STOPPED) i = scan16(&s, i);
    for (; i != STOPPED && len >= 2 && i <= len - 2; i++)
        if (!smc_fatbin_scan_at(buf, len, i, also, nalso, found, ctx)) return;
}

bool smc_fatbin_scan_at(const uint8_t *buf, size_t len, size_t at, const smc_needle *also,
                        size_t nalso, bool (*found)(void *ctx, size_t at, int which), void *ctx)
{
    if (len - at >= 8 && memcmp(buf + at, header_prefix, 8) == 0 && !found(ctx, at, -1))
        return false;
    for (size_t k = 0; k < nalso; k++)
        if (len - at >= also[k].len && memcmp(buf + at, also[k].bytes, also[k].len) == 0 &&
            !found(ctx, at, (int)k))
            return false;
    return true;
}

static smc_status fail(smc_fatbin_error *err, uint64_t offset, const char *fmt, ...)
    SMC_PRINTF(3, 4);

static smc_status fail(smc_fatbin_error *err, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->offset = offset;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return SMC_ERR_FORMAT;
}

smc_status smc_fatbin_entry(const uint8_t *p, uint64_t e, uint64_t cend, smc_image *img,
                            uint64_t *next, smc_fatbin_error *err)
{
    unsigned kind = smc_le16(p), version = smc_le16(p + 2);
    uint64_t hsize = smc_le32(p + 4), padded = smc_le64(p + 8), csize = smc_le32(p + 0x10);
    uint64_t flags = smc_le64(p + 0x28), usize = smc_le64(p + 0x38);
    uint64_t room = cend - e;

    if (hsize < ENTRY_HEADER || hsize % 8 != 0)
        return fail(err, e, "entry header size %llu cannot be right (64 or more, a multiple of 8)",
                    (unsigned long long)hsize);
    if (hsize > room)
        return fail(err, e, "entry header of %llu bytes runs past the end of its container",
                    (unsigned long long)hsize);
    if (padded > room - hsize)
        return fail(err, e,
                    "entry payload of %llu bytes runs past the end of its container "
                    "(%llu bytes left)",
                    (unsigned long long)padded, (unsigned long long)(room - hsize));
    /* A kind smcheck does not know (Tile IR came in CUDA 13.1) is kept, opaque, with its number:
     * the container's other entries stay readable. 0 is no kind. */
    if (kind == 0) return fail(err, e, "entry kind 0 is no kind of entry");
    (void)version; /* 0x0101 always; the finder asks it of containers outside fatbin sections */
    if ((flags & FLAG_LZ4) && (flags & FLAG_ZSTD))
        return fail(err, e, "entry claims both LZ4 and Zstandard compression");
    if ((flags & FLAG_ARCH_SPECIFIC) && (flags & FLAG_FAMILY))
        return fail(err, e, "entry claims both the arch-specific and the family variant");

    *img = (smc_image){
        .kind = (smc_image_kind)kind,
        .variant = flags & FLAG_ARCH_SPECIFIC ? SMC_VARIANT_A
                   : flags & FLAG_FAMILY      ? SMC_VARIANT_F
                                              : SMC_VARIANT_NONE,
        .compression = flags & FLAG_LZ4    ? SMC_COMPRESS_LZ4
                       : flags & FLAG_ZSTD ? SMC_COMPRESS_ZSTD
                                           : SMC_COMPRESS_NONE,
        .arch = smc_le32(p + 0x1c),
        /* Tile IR: its bytecode's version in the bytes at 0x1b (major) and 0x1a (minor) */
        .version_major = kind == SMC_IMAGE_TILEIR ? p[0x1b] : smc_le16(p + 0x1a),
        .version_minor = kind == SMC_IMAGE_TILEIR ? p[0x1a] : smc_le16(p + 0x18),
        .offset = e,
        .header_size = hsize,
        .stored_size = padded,
        .size = padded,
        .flags = flags,
    };
    if (img->compression != SMC_COMPRESS_NONE) {
        if (csize == 0 || csize > padded)
            return fail(err, e, "compressed size %llu does not fit a payload of %llu bytes",
                        (unsigned long long)csize, (unsigned long long)padded);
        if (usize == 0) return fail(err, e, "compressed entry gives no uncompressed size");
        img->stored_size = csize;
        img->size = usize;
    }
    *next = e + hsize + padded; /* paddedSize, not the compressed size, leads on (§3) */
    return SMC_OK;
}

smc_status smc_fatbin_header(const uint8_t *p, uint64_t off, uint64_t *entries, uint64_t *end,
                             smc_fatbin_error *err)
{
    *end = 0;
    if (smc_le32(p) != SMC_FATBIN_MAGIC) return fail(err, off, "no container magic");
    unsigned version = smc_le16(p + 4), hsize = smc_le16(p + 6);
    uint64_t fatsize = smc_le64(p + 8);
    if (version != 1) return fail(err, off, "container version %u, expected 1", version);
    if (hsize < CONTAINER_HEADER || off > UINT64_MAX - hsize)
        return fail(err, off, "container header size %u cannot be right", hsize);
    if (fatsize > UINT64_MAX - off - hsize)
        return fail(err, off, "container of %llu bytes runs past the end of any file",
                    (unsigned long long)fatsize);
    *entries = off + hsize;
    *end = off + hsize + fatsize;
    return SMC_OK;
}

/* Payloads --------------------------------------------------------------------------------- */

smc_status smc_payload_decode(const uint8_t *src, const smc_image *img, void *zctx, uint8_t **out,
                              smc_fatbin_error *err)
{
    *out = NULL;
    if (smc_image_opaque(img->kind)) return SMC_ERR_ARG;
    if (img->size > PAYLOAD_MAX)
        return fail(err, img->offset, "uncompressed size %llu is beyond the %llu MiB limit",
                    (unsigned long long)img->size, PAYLOAD_MAX >> 20);
    uint8_t *dst = malloc(img->size ? img->size : 1);
    if (!dst) return SMC_ERR_NOMEM;

    if (img->compression == SMC_COMPRESS_NONE) {
        memcpy(dst, src, img->size);
    } else if (img->compression == SMC_COMPRESS_LZ4) {
        /* A raw LZ4 block, no frame (§5); PAYLOAD_MAX keeps both sizes inside int. */
        int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)img->stored_size,
                                    (int)img->size);
        if (n < 0 || (uint64_t)n != img->size) {
            free(dst);
            return n < 0 ? fail(err, img->offset, "LZ4 payload does not decompress")
                         : fail(err, img->offset,
                                "LZ4 payload decompresses to %d bytes, the header says %llu", n,
                                (unsigned long long)img->size);
        }
    } else if (!zctx) { /* its context could not be made */
        free(dst);
        return SMC_ERR_NOMEM;
    } else {
        unsigned long long fcs = ZSTD_getFrameContentSize(src, img->stored_size);
        size_t n = fcs == ZSTD_CONTENTSIZE_ERROR
                       ? 0
                       : ZSTD_decompressDCtx(zctx, dst, img->size, src, img->stored_size);
        if (fcs == ZSTD_CONTENTSIZE_ERROR || ZSTD_isError(n)) {
            free(dst);
            return fail(err, img->offset, "Zstandard payload does not decompress: %s",
                        fcs == ZSTD_CONTENTSIZE_ERROR ? "not a Zstandard frame"
                                                      : ZSTD_getErrorName(n));
        }
        if (n != img->size) {
            free(dst);
            return fail(err, img->offset,
                        "Zstandard payload decompresses to %zu bytes, the header says %llu", n,
                        (unsigned long long)img->size);
        }
    }
    *out = dst;
    return SMC_OK;
}

long smc_payload_prefix(const uint8_t *src, uint64_t have, const smc_image *img, void *zctx,
                        uint8_t *out, size_t n)
{
    if (smc_image_opaque(img->kind)) return -1;
    if (have > img->stored_size) have = img->stored_size;
    if (n > img->size) n = (size_t)img->size;
    if (img->compression == SMC_COMPRESS_NONE) {
        if (n > have) n = (size_t)have;
        memcpy(out, src, n);
        return (long)n;
    }
    if (img->compression == SMC_COMPRESS_LZ4) {
        /* Stops once n bytes are out; it reads no further input than those bytes need. */
        if (have > INT_MAX || n > INT_MAX) return -1;
        int got = LZ4_decompress_safe_partial((const char *)src, (char *)out, (int)have, (int)n,
                                              (int)n);
        return got < 0 ? -1 : got;
    }
    if (!zctx || ZSTD_DCtx_reset(zctx, ZSTD_reset_session_only) != 0) return -1;
    ZSTD_inBuffer in = {src, (size_t)have, 0};
    ZSTD_outBuffer o = {out, n, 0};
    while (o.pos < o.size) {
        size_t r = ZSTD_decompressStream(zctx, &o, &in);
        if (ZSTD_isError(r)) return -1;
        if (r == 0 || in.pos == in.size) break; /* the frame, or what we have of it, is done */
    }
    return (long)o.pos;
}

/* Finds the directive (".version", ".target") at the start of a line of PTX text and returns
 * what follows it, or NULL. Only the lines before the first entry matter, so it stops there. */
static const char *ptx_directive(const char *text, size_t n, const char *name, size_t *rest)
{
    size_t k = strlen(name);
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - text) : n;
        const char *line = text + i;
        size_t len = end - i;
        while (len && (*line == ' ' || *line == '\t'))
            line++, len--;
        if (len > k && memcmp(line, name, k) == 0 && (line[k] == ' ' || line[k] == '\t')) {
            *rest = len - k;
            return line + k;
        }
        if (len >= 6 && memcmp(line, ".entry", 6) == 0) break;
        i = end + 1;
    }
    return NULL;
}

/* The checks of --verify report through err, as "problem" (SMC_ERR_FORMAT). */
static smc_status verify_ptx(const smc_image *img, const uint8_t *text, uint64_t n,
                             smc_fatbin_error *err)
{
    const char *t = (const char *)text;
    size_t len = strnlen(t, n), rest;
    unsigned major, minor;
    const char *v = ptx_directive(t, len, ".version", &rest);
    char line[64];
    if (!v) return fail(err, img->offset, "PTX has no .version");
    snprintf(line, sizeof line, "%.*s", (int)(rest < 63 ? rest : 63), v);
    if (sscanf(line, " %u.%u", &major, &minor) != 2 || major != img->version_major ||
        minor != img->version_minor)
        return fail(err, img->offset, "PTX says .version%s, the header %u.%u", line,
                    img->version_major, img->version_minor);
    const char *tg = ptx_directive(t, len, ".target", &rest);
    if (!tg) return fail(err, img->offset, "PTX has no .target");
    snprintf(line, sizeof line, "%.*s", (int)(rest < 63 ? rest : 63), tg);
    /* ".target sm_90a" or ".target sm_80, debug": compare the first word with the token. */
    char tok[SMC_TOKEN_MAX], want[SMC_TOKEN_MAX + 4];
    smc_image_token(img, tok);
    snprintf(want, sizeof want, "sm_%s", tok + strlen("compute_"));
    const char *w = line + strspn(line, " \t");
    size_t wl = strcspn(w, " \t,");
    if (wl != strlen(want) || memcmp(w, want, wl) != 0)
        return fail(err, img->offset, "PTX says .target %.*s", (int)wl, w);
    return SMC_OK;
}

/* A cubin whole (n = its size), or its head alone (n < its size: its ELF header is checked). */
static smc_status verify_cubin(const smc_image *img, const uint8_t *elf, uint64_t n,
                               smc_fatbin_error *err)
{
    smc_cubin_info info;
    smc_status st = n == img->size ? smc_cubin_inspect(elf, n, &info, err)
                    : smc_cubin_header(elf, (size_t)n, &info)
                        ? SMC_OK
                        : fail(err, img->offset, "not a cubin: no EM_CUDA ELF header");
    if (st != SMC_OK) {
        err->offset = img->offset;
        return st;
    }
    if (info.arch != img->arch) return fail(err, img->offset, "the cubin is for SM %u", info.arch);
    /* The entry version is 1.<ELF ABI version>: 1.7 for ABI v1, 1.8 for ABI v2 (§6). */
    if (img->version_major == 1 && img->version_minor != info.abi)
        return fail(err, img->offset, "entry version %u.%u but the cubin has ELF ABI version %u",
                    img->version_major, img->version_minor, info.abi);
    if (info.variant != SMC_VARIANT_NONE && info.variant != img->variant)
        return fail(err, img->offset, "the cubin was built for the %s variant",
                    info.variant == SMC_VARIANT_A ? "arch-specific (a)" : "family (f)");
    return SMC_OK;
}

smc_status smc_payload_check(const smc_image *img, const uint8_t *data, smc_fatbin_error *err)
{
    if (smc_image_opaque(img->kind)) return SMC_OK; /* opaque by design (§8) */
    return img->kind == SMC_IMAGE_PTX ? verify_ptx(img, data, img->size, err)
                                      : verify_cubin(img, data, img->size, err);
}

smc_status smc_payload_verify(const uint8_t *src, const smc_image *img, void *zctx,
                              smc_fatbin_error *err)
{
    if (smc_image_opaque(img->kind)) return SMC_OK;
    if (img->compression != SMC_COMPRESS_ZSTD) { /* in place, or an LZ4 block: whole */
        if (img->compression == SMC_COMPRESS_NONE) return smc_payload_check(img, src, err);
        uint8_t *data = NULL;
        smc_status st = smc_payload_decode(src, img, zctx, &data, err);
        if (st == SMC_OK) st = smc_payload_check(img, data, err);
        free(data);
        return st;
    }
    /* Zstandard: decompressed in pieces into a buffer of the head (where a cubin's ELF header
     * and PTX's .version and .target are) and one of the rest, counted against the header. */
    if (!zctx || ZSTD_DCtx_reset(zctx, ZSTD_reset_session_only) != 0) return SMC_ERR_NOMEM;
    uint8_t *head = malloc(VERIFY_HEAD + VERIFY_PIECE);
    if (!head) return SMC_ERR_NOMEM;
    ZSTD_inBuffer in = {src, (size_t)img->stored_size, 0};
    uint64_t made = 0;
    size_t r = 1;
    while (r != 0) {
        size_t room = made < VERIFY_HEAD ? VERIFY_HEAD - (size_t)made : VERIFY_PIECE;
        ZSTD_outBuffer o = {made < VERIFY_HEAD ? head + made : head + VERIFY_HEAD, room, 0};
        size_t before = in.pos;
        r = ZSTD_decompressStream(zctx, &o, &in);
        if (ZSTD_isError(r)) {
            free(head);
            return fail(err, img->offset, "Zstandard payload does not decompress: %s",
                        ZSTD_getErrorName(r));
        }
        made += o.pos;
        if (made > img->size) {
            free(head);
            return fail(err, img->offset,
                        "Zstandard payload decompresses past the %llu bytes the header says",
                        (unsigned long long)img->size);
        }
        if (r != 0 && o.pos == 0 && in.pos == before) { /* no input left, the frame unfinished */
            free(head);
            return fail(err, img->offset, "Zstandard payload is cut short after %llu bytes",
                        (unsigned long long)made);
        }
    }
    smc_status st = made != img->size
                        ? fail(err, img->offset,
                               "Zstandard payload decompresses to %llu bytes, the header says %llu",
                               (unsigned long long)made, (unsigned long long)img->size)
                    : img->kind == SMC_IMAGE_PTX
                        ? verify_ptx(img, head, made < VERIFY_HEAD ? made : VERIFY_HEAD, err)
                        : verify_cubin(img, head, made < VERIFY_HEAD ? made : VERIFY_HEAD, err);
    free(head);
    return st;
}

/* "sm_90a" after .target: the SM and its variant; false when the word is no SM. */
static bool target_word(const char *w, size_t n, unsigned *arch, smc_variant *variant)
{
    if (n < 4 || memcmp(w, "sm_", 3) != 0) return false;
    unsigned a = 0;
    size_t i = 3;
    while (i < n && w[i] >= '0' && w[i] <= '9' && a < 100000)
        a = a * 10 + (unsigned)(w[i++] - '0');
    if (i == 3) return false;
    char v = i < n ? w[i] : '\0';
    *variant = v == 'a' ? SMC_VARIANT_A : v == 'f' ? SMC_VARIANT_F : SMC_VARIANT_NONE;
    *arch = a;
    return true;
}

void smc_ptx_facts(smc_image *img, const uint8_t *text, size_t n)
{
    const char *t = (const char *)text;
    size_t len = strnlen(t, n), rest;
    unsigned major, minor;
    char line[64];
    const char *v = ptx_directive(t, len, ".version", &rest);
    if (v) {
        snprintf(line, sizeof line, "%.*s", (int)(rest < 63 ? rest : 63), v);
        if (sscanf(line, " %u.%u", &major, &minor) == 2 && major < 100 && minor < 10)
            img->text_isa = major * 10 + minor;
    }
    const char *tg = ptx_directive(t, len, ".target", &rest);
    if (tg) {
        snprintf(line, sizeof line, "%.*s", (int)(rest < 63 ? rest : 63), tg);
        const char *w = line + strspn(line, " \t");
        unsigned arch;
        smc_variant var;
        if (target_word(w, strcspn(w, " \t,"), &arch, &var)) {
            img->text_arch = arch;
            img->text_variant = var;
        }
    }
}

void *smc_zstd_new(void)
{
    return ZSTD_createDCtx();
}

void smc_zstd_free(void *zctx)
{
    ZSTD_freeDCtx(zctx);
}
