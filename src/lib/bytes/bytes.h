/* bytes.h: the bytes wing: formats over bytes, the parser of container and entry headers and
 * of payloads (fatbin.c), host files: ELF through libelf (elf.c) and PE/COFF headers (pe.c), a
 * member's bytes as they inflate (inflate.c), one long member by several threads (pinflate.c,
 * deflate.c) */
#ifndef SMCHECK_BYTES_H
#define SMCHECK_BYTES_H

#include "../base/base.h"

#include <stdatomic.h>

/* fatbin -------------------------------------------------------------------------------------
 */

/* the pure parser of container and entry headers over bytes, and of payloads
 * (fatbin.c) */

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
 * opaque: SMC_ERR_ARG. zctx: a Zstandard context from smc_zstd_new (NULL, for a Zstandard
 * payload: SMC_ERR_NOMEM, the context could not be made). */
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

/* elf ----------------------------------------------------------------------------------------
 */

/* host files: ELF through libelf (elf.c) and PE/COFF headers (pe.c) */

typedef struct smc_cubin_info {
    unsigned arch;
    smc_variant variant; /* from e_flags (ABI v1) or the ptxas arguments note; NONE when unknown */
    unsigned abi;        /* EI_ABIVERSION: 7 (CUDA <= 12) or 8 (CUDA 13) */
    unsigned release;    /* the ptxas release in .note.nv.tkinfo (12080), 0 when none */
    bool relocatable;    /* ET_REL: -rdc code */
    size_t kernels;      /* .text.* sections */
    char names[256];     /* the first few, comma-separated: "_Z6kernelPf, _Z4scalePfi" */
} smc_cubin_info;

/* Reads a cubin's ELF header alone, from its first n bytes (arch, abi, the variant e_flags
 * gives, relocatable); false when they are no EM_CUDA ELF header. */
bool smc_cubin_header(const uint8_t *p, size_t n, smc_cubin_info *info);
/* Reads a cubin's ELF header and sections. SMC_ERR_FORMAT with err when it is not a cubin. */
smc_status smc_cubin_inspect(const uint8_t *buf, uint64_t len, smc_cubin_info *info,
                             smc_fatbin_error *err);

/* A section of a host ELF file, as far as finding containers goes. */
typedef struct smc_section {
    char *name;
    uint64_t offset, size;
    uint32_t type;
    bool fatbin; /* .nv_fatbin or __nv_relfatbin */
} smc_section;

/* pe.c: a PE/COFF image's headers (Windows DLLs), read from its first bytes. ------------------ */

#define SMC_PE_NOWHERE UINT64_MAX

typedef struct smc_pe_map {
    uint32_t va, vsize, raw, rawsize; /* a section's address and size in memory and in the file */
} smc_pe_map;

typedef struct smc_pe {
    uint16_t machine;       /* COFF machine: 0x8664 x86-64, 0xAA64 ARM64 */
    smc_section *sections;  /* file ranges (PointerToRawData, SizeOfRawData); .nv_fatb: fatbin */
    smc_pe_map *map;
    size_t section_count;
    uint64_t import_offset; /* the import descriptors' file offset, SMC_PE_NOWHERE when none */
    uint64_t import_size;
} smc_pe;

/* "MZ" and "PE\0\0" where e_lfanew says, within the n bytes. */
bool smc_pe_at(const uint8_t *p, size_t n);
/* 1 and *out (free with smc_pe_free) for a PE image whose headers lie in p[0..n); 0 when it is
 * not one; -1 when it is, but broken (err says how: "PE: ..."); -2 out of memory. */
/* Where a PE file's headers end: its section table's end (0 when the first n bytes do not
 * tell, or the table has more than 96 entries). */
uint64_t smc_pe_headers_end(const uint8_t *p, size_t n);
int smc_pe_parse(const uint8_t *p, size_t n, smc_pe *out, char *err, size_t errlen);
/* The file offset of an RVA, SMC_PE_NOWHERE when no section holds it in the file. */
uint64_t smc_pe_offset(const smc_pe *pe, uint32_t rva);
void smc_pe_free(smc_pe *pe);

/* The host ELF header fields the finder needs, in the file's byte order and class. */
typedef struct smc_elf_header {
    bool is64, big;
    uint16_t machine;
    uint64_t phoff, shoff;
    uint16_t phentsize, phnum, shentsize, shnum, shstrndx;
} smc_elf_header;

/* Reads the ELF header from the first n bytes; false when they are no ELF header. */
bool smc_elf_header_read(const uint8_t *p, size_t n, smc_elf_header *h);
/* Reads a width-byte (2, 4, 8) integer in the header's byte order. */
uint64_t smc_elf_word(const smc_elf_header *h, const uint8_t *p, int width);

/* The sections of an ELF file from its header bytes (head), its section header table (table)
 * and its section-name table (names, NULL when not at hand: every name is "(unnamed)"). Names are
 * copies: free with smc_sections_free. */
smc_status smc_elf_sections(const uint8_t *head, size_t head_len, const uint8_t *table,
                            size_t table_len, const uint8_t *names, size_t names_len,
                            smc_section **out, size_t *n);
void smc_sections_free(smc_section *secs, size_t n);

/* inflate ------------------------------------------------------------------------------------
 */

/* a member's bytes as they inflate (inflate.c), one long member by several
 * threads (pinflate.c), and the decoder that starts without a window (deflate.c) */

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
