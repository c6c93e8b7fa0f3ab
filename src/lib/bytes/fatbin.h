/* fatbin.h: the pure parser of container and entry headers over bytes, and of payloads
 * (fatbin.c) */
#ifndef SMCHECK_FATBIN_H
#define SMCHECK_FATBIN_H

#include "../base/model.h"

#define SMC_FATBIN_MAGIC 0xBA55ED50u
#define SMC_ENTRY_VERSION 0x0101u /* every entry nvcc writes; asked of containers outside sections */

/* True when the 8 bytes at off start a container header: magic, version 1, header size 16. */
bool smc_fatbin_at(const uint8_t *buf, uint64_t len, uint64_t off);

/* First offset in [from, to) with from + 8k that starts a container header, or to. */
uint64_t smc_fatbin_find(const uint8_t *buf, uint64_t from, uint64_t to);

/* Other strings the finder looks for in the same pass: at least 2 bytes each. */
typedef struct smc_needle {
    const uint8_t *bytes;
    size_t len;
} smc_needle;
#define SMC_NEEDLES_MAX 4

/* Calls found(ctx, i, -1) for every i in [0, len) where a container header starts, at any
 * alignment, and found(ctx, i, k) where needle k starts, in order, in one pass; stops early
 * when found returns false. */
void smc_fatbin_scan(const uint8_t *buf, size_t len, const smc_needle *also, size_t nalso,
                     bool (*found)(void *ctx, size_t at, int which), void *ctx);
/* The same at one offset; returns false when found did. */
bool smc_fatbin_scan_at(const uint8_t *buf, size_t len, size_t at, const smc_needle *also,
                        size_t nalso, bool (*found)(void *ctx, size_t at, int which), void *ctx);

typedef struct smc_fatbin_error {
    uint64_t offset;
    char message[192];
} smc_fatbin_error;

/* Checks the 16-byte container header at p (the container starts at off); sets *entries where
 * its entries start and *end past it (0 unless its size fits 64 bits). */
smc_status smc_fatbin_header(const uint8_t *p, uint64_t off, uint64_t *entries, uint64_t *end,
                             smc_fatbin_error *err);

/* Reads the 64-byte fixed entry header at p, the entry starting at e in a container ending at
 * cend (cend - e >= 64 is the caller's to check); fills img and sets *next past the entry. */
smc_status smc_fatbin_entry(const uint8_t *p, uint64_t e, uint64_t cend, smc_image *img,
                            uint64_t *next, smc_fatbin_error *err);

/* Decompresses (or copies) an image's stored payload src (img->stored_size bytes) into a new
 * buffer of img->size bytes; SMC_ERR_FORMAT with err when it does not decompress. LTO IR is
 * opaque: SMC_ERR_ARG. zctx: a Zstandard context from smc_zstd_new. */
smc_status smc_payload_decode(const uint8_t *src, const smc_image *img, void *zctx, uint8_t **out,
                              smc_fatbin_error *err);
/* The first bytes of a payload, of which only the first have bytes of src are at hand: up to n
 * bytes into out; returns how many, or -1 when they do not decompress. */
long smc_payload_prefix(const uint8_t *src, uint64_t have, const smc_image *img, void *zctx,
                        uint8_t *out, size_t n);

/* The payload decompressed checked against its header (--verify): SMC_ERR_FORMAT with err when
 * they disagree. */
smc_status smc_payload_check(const smc_image *img, const uint8_t *data, smc_fatbin_error *err);

/* --verify of a payload without holding it whole (a Zstandard one is decompressed in pieces):
 * its size against the header, a cubin's ELF header and PTX's .version and .target in its first
 * VERIFY_HEAD bytes (PTX's come before its first .entry); SMC_ERR_FORMAT with err when they
 * disagree. An LZ4 block (at most 255 bytes out of one in) is decompressed whole. */
#define VERIFY_HEAD (64u << 10)
#define VERIFY_PIECE (256u << 10)
smc_status smc_payload_verify(const uint8_t *src, const smc_image *img, void *zctx,
                              smc_fatbin_error *err);

/* Reads the .version and .target lines of PTX text into img's text_ fields. */
void smc_ptx_facts(smc_image *img, const uint8_t *text, size_t n);

void *smc_zstd_new(void);
void smc_zstd_free(void *zctx);

#endif
