/* fatbin.c: the parser of CUDA fat binary containers and their entries over (pointer, length),
 * and the decompression and checking of entry payloads. It trusts no byte it reads: every read
 * goes through smc_in_range, sizes are uint64_t, and loops advance by sizes already checked.
 * The layout is in shared/reference/fatbin-format.md (cited below as §N); it does no I/O. */
#include "internal.h"

#include <limits.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

/* Entry flags (§3.2). */
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define FLAG_ARCH_SPECIFIC 0x100000u /* the "a" variant */
#define FLAG_FAMILY 0x200000u        /* the "f" variant */

#define CONTAINER_HEADER 16u
#define ENTRY_HEADER 64u
#define ENTRY_VERSION 0x0101u

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

smc_status smc_fatbin_entry(const uint8_t *p, uint64_t e, uint64_t cend, smc_fatbin_mode mode,
                            smc_image *img, uint64_t *next, smc_fatbin_error *err)
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
    if (kind != SMC_IMAGE_PTX && kind != SMC_IMAGE_CUBIN && kind != SMC_IMAGE_LTO)
        return fail(err, e, "entry kind %u is none of PTX (1), cubin (2), LTO IR (8)", kind);
    if (mode == SMC_FATBIN_CANDIDATE && version != ENTRY_VERSION)
        return fail(err, e, "entry version 0x%04x, expected 0x0101", version);
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
        .version_major = smc_le16(p + 0x1a),
        .version_minor = smc_le16(p + 0x18),
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
    *next = e + hsize + padded; /* paddedSize, not the compressed size, leads on (§3.4) */
    return SMC_OK;
}

smc_status smc_fatbin_header(const uint8_t *p, uint64_t off, uint64_t limit, smc_fatbin_mode mode,
                             uint64_t *entries, uint64_t *end, smc_fatbin_error *err)
{
    *end = 0;
    if (smc_le32(p) != SMC_FATBIN_MAGIC) return fail(err, off, "no container magic");
    unsigned version = smc_le16(p + 4), hsize = smc_le16(p + 6);
    uint64_t fatsize = smc_le64(p + 8);
    if (version != 1) return fail(err, off, "container version %u, expected 1", version);
    if (hsize < CONTAINER_HEADER || !smc_in_range(limit, off, hsize))
        return fail(err, off, "container header size %u cannot be right", hsize);
    if (fatsize > limit - off - hsize)
        return fail(err, off, "container of %llu bytes runs past the end (%llu bytes left)",
                    (unsigned long long)fatsize, (unsigned long long)(limit - off - hsize));
    *entries = off + hsize;
    *end = off + hsize + fatsize;
    if (mode == SMC_FATBIN_CANDIDATE && fatsize == 0)
        return fail(err, off, "empty container outside a fatbin section");
    return SMC_OK;
}

smc_status smc_fatbin_parse(smc_library *lib, const uint8_t *buf, uint64_t limit, uint64_t off,
                            smc_fatbin_mode mode, uint64_t *end, smc_fatbin_error *err)
{
    uint64_t e = 0, cend;
    *end = 0;
    if (!smc_in_range(limit, off, CONTAINER_HEADER))
        return fail(err, off, "container header runs past the end (%llu bytes left)",
                    (unsigned long long)(limit > off ? limit - off : 0));
    smc_status st = smc_fatbin_header(buf + off, off, limit, mode, &e, end, err);
    if (st != SMC_OK) return st;
    cend = *end;
    if (lib->max_containers && lib->container_count >= lib->max_containers) {
        fail(err, off,
             "more than %llu containers in one file: the rest are not read "
             "(--max-containers)",
             (unsigned long long)lib->max_containers);
        return SMC_ERR_LIMIT;
    }

    size_t first = lib->image_count;
    while (e < cend) {
        smc_image img;
        if (cend - e < ENTRY_HEADER) {
            st = fail(err, e, "entry header truncated: %llu bytes left in the container",
                      (unsigned long long)(cend - e));
            break;
        }
        if (lib->max_images && lib->image_count >= lib->max_images) {
            fail(err, e, "more than %llu images in one file: the rest are not read (--max-images)",
                 (unsigned long long)lib->max_images);
            st = SMC_ERR_LIMIT;
            break;
        }
        if ((st = smc_fatbin_entry(buf + e, e, cend, mode, &img, &e, err)) != SMC_OK) break;
        smc_image *slot = smc_push(&lib->images, lib->image_count, sizeof *slot);
        if (!slot) {
            st = SMC_ERR_NOMEM;
            break;
        }
        *slot = img;
        lib->image_count++;
    }
    smc_container *c =
        st == SMC_OK ? smc_push(&lib->containers, lib->container_count, sizeof *c) : NULL;
    if (!c) {
        lib->image_count = first;
        return st == SMC_OK ? SMC_ERR_NOMEM : st;
    }
    *c = (smc_container){.offset = off,
                         .size = cend - off,
                         .first_image = first,
                         .image_count = lib->image_count - first};
    lib->container_count++;
    return SMC_OK;
}

static uint64_t align_up(uint64_t base, uint64_t pos)
{
    uint64_t rem = (pos - base) % 8;
    return rem ? pos + (8 - rem) : pos;
}

smc_status smc_fatbin_walk(smc_library *lib, const uint8_t *buf, uint64_t start, uint64_t end,
                           const char *section, bool relocatable)
{
    const char *where = section ? section : "the fat binary";
    uint64_t p = start;
    while (p < end) {
        if (buf[p] == 0) { /* padding between containers */
            p++;
            continue;
        }
        if (!smc_fatbin_at(buf, end, p)) {
            uint64_t next = smc_fatbin_find(buf, align_up(start, p), end);
            if (smc_library_add_finding(lib, p, "%llu bytes in %s at +0x%llx are no container",
                                        (unsigned long long)(next - p), where,
                                        (unsigned long long)(p - start)) != SMC_OK)
                return SMC_ERR_NOMEM;
            p = next;
            continue;
        }
        uint64_t cend;
        smc_fatbin_error err;
        smc_status st = smc_fatbin_parse(lib, buf, end, p, SMC_FATBIN_SECTION, &cend, &err);
        if (st == SMC_ERR_NOMEM) return st;
        if (st == SMC_ERR_LIMIT) /* reported once; the caller stops */
            return smc_library_add_finding(lib, err.offset, "%s", err.message) == SMC_OK
                       ? SMC_ERR_LIMIT
                       : SMC_ERR_NOMEM;
        if (st != SMC_OK) {
            if (smc_library_add_finding(lib, err.offset, "container in %s at +0x%llx: %s", where,
                                        (unsigned long long)(p - start), err.message) != SMC_OK)
                return SMC_ERR_NOMEM;
            /* A sound size still says where the next container starts; else look for it. */
            p = cend ? cend : smc_fatbin_find(buf, align_up(start, p + 1), end);
            continue;
        }
        smc_container *c = &lib->containers[lib->container_count - 1];
        c->relocatable = relocatable;
        if (section && !(c->section = smc_strdup_clean(section))) return SMC_ERR_NOMEM;
        p = cend;
    }
    return SMC_OK;
}

/* Payloads --------------------------------------------------------------------------------- */

static smc_status payload(const uint8_t *buf, uint64_t len, const smc_image *img, ZSTD_DCtx *zctx,
                          uint8_t **out, smc_fatbin_error *err)
{
    *out = NULL;
    if (img->kind == SMC_IMAGE_LTO) return SMC_ERR_ARG;
    uint64_t at = img->offset + img->header_size;
    if (img->offset > len || img->header_size > len - img->offset ||
        !smc_in_range(len, at, img->stored_size))
        return fail(err, img->offset, "payload lies outside the file");
    if (img->size > PAYLOAD_MAX)
        return fail(err, img->offset, "uncompressed size %llu is beyond the %llu MiB limit",
                    (unsigned long long)img->size, PAYLOAD_MAX >> 20);
    uint8_t *dst = malloc(img->size ? img->size : 1);
    if (!dst) return SMC_ERR_NOMEM;
    const uint8_t *src = buf + at;

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

smc_status smc_image_payload_with(const uint8_t *buf, uint64_t len, const smc_image *img,
                                  void *zctx, uint8_t **out, smc_fatbin_error *err)
{
    return payload(buf, len, img, zctx, out, err);
}

smc_status smc_image_payload(const uint8_t *buf, uint64_t len, const smc_image *img, uint8_t **out,
                             smc_fatbin_error *err)
{
    ZSTD_DCtx *z = ZSTD_createDCtx();
    if (!z) return SMC_ERR_NOMEM;
    smc_status st = payload(buf, len, img, z, out, err);
    ZSTD_freeDCtx(z);
    return st;
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

static smc_status verify_cubin(const smc_image *img, uint8_t *elf, uint64_t n,
                               smc_fatbin_error *err)
{
    smc_cubin_info info;
    smc_status st = smc_cubin_inspect(elf, n, &info, err);
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

smc_status smc_image_check(const uint8_t *buf, uint64_t len, const smc_image *img, void *zctx,
                           smc_fatbin_error *err)
{
    if (img->kind == SMC_IMAGE_LTO) return SMC_OK; /* opaque by design (§8) */
    uint8_t *data;
    smc_status st = payload(buf, len, img, zctx, &data, err);
    if (st == SMC_OK)
        st = img->kind == SMC_IMAGE_PTX ? verify_ptx(img, data, img->size, err)
                                        : verify_cubin(img, data, img->size, err);
    free(data);
    return st;
}

void *smc_zstd_new(void)
{
    return ZSTD_createDCtx();
}

void smc_zstd_free(void *zctx)
{
    ZSTD_freeDCtx(zctx);
}

smc_status smc_library_verify(smc_library *lib, const uint8_t *buf, uint64_t len)
{
    ZSTD_DCtx *z = ZSTD_createDCtx();
    if (!z) return SMC_ERR_NOMEM;
    smc_status st = SMC_OK;
    for (size_t c = 0; c < lib->container_count && st == SMC_OK; c++) {
        const smc_container *ct = &lib->containers[c];
        if (ct->bare_cubin) continue; /* the file itself was read as a cubin */
        for (size_t i = ct->first_image; i < ct->first_image + ct->image_count; i++) {
            smc_image img = lib->images[i]; /* a copy: findings may move lib's arrays */
            smc_fatbin_error err;
            st = smc_image_check(buf, len, &img, z, &err);
            if (st == SMC_ERR_FORMAT) {
                char tok[SMC_TOKEN_MAX];
                st = smc_library_add_finding(lib, err.offset, "%s image: %s",
                                             smc_image_token(&img, tok), err.message);
            }
            if (st != SMC_OK) break;
        }
    }
    ZSTD_freeDCtx(z);
    return st;
}
