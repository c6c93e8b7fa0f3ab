/* internal.h: what the parts of libsmcheck share and the public API does not show: the one
 * bounds-checked reader of untrusted bytes, growable arrays, and the builders of the model. */
#ifndef SMCHECK_INTERNAL_H
#define SMCHECK_INTERNAL_H

#include "smcheck/smcheck.h"

#include <stdarg.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <string.h>

#define SMC_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* True when [off, off+n) lies inside a buffer of len bytes, without overflow (VALID_RANGE). */
static inline bool smc_in_range(uint64_t len, uint64_t off, uint64_t n)
{
    return off <= len && n <= len - off;
}

/* Little-endian loads at any alignment; the caller has checked the range. */
static inline uint16_t smc_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t smc_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t smc_le64(const uint8_t *p)
{
    return (uint64_t)smc_le32(p) | (uint64_t)smc_le32(p + 4) << 32;
}

/* Makes room for element n of an array that holds n elements, growing it to the next power of two
 * when n is one (so no capacity needs storing). Returns the new slot, or NULL when out of memory.
 */
void *smc_push(void *arrayp, size_t n, size_t elsize);

/* A large buffer that goes back to the system when freed (mapped, not from malloc's arenas, where
 * one thread's freed megabytes would stay resident), or NULL. */
void *smc_big_alloc(size_t n);
void smc_big_free(void *p, size_t n);

char *smc_strdup(const char *s);
static inline bool smc_ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* The last part of a path: after its last '/' or, inside an archive, its '!'. */
const char *smc_base_name(const char *path);

/* Replaces C0 and C1 control characters with '?' in place (names from untrusted files); bytes
 * that are not UTF-8 are left for the printers (JSON: \udcXX, text: \xHH). Returns s. */
char *smc_sanitize(char *s);
/* The length of the well-formed UTF-8 sequence at p (of n bytes), or 0 when there is none. */
size_t smc_utf8_at(const unsigned char *p, size_t n);
/* The bytes a UTF-8 sequence that starts with lead has, or 0 for a byte none starts with. */
size_t smc_utf8_wants(unsigned char lead);
/* smc_strdup, then smc_sanitize. */
char *smc_strdup_clean(const char *s);
/* Reads the whole regular file open at fd into new memory, NUL-terminated, when it holds at most
 * cap bytes; NULL with *err (EFBIG: not a regular file of at most cap bytes; errno; ENOMEM). */
char *smc_read_fd_small(int fd, size_t cap, size_t *len, int *err);
/* Reads a whole small file (a table) into new memory, NUL-terminated: 1 ok; 0 with a message
 * ("No such file", "larger than N bytes") in err; -1 out of memory. */
int smc_read_small_file(const char *path, size_t max, char **text, size_t *n, char *err,
                        size_t errlen);
char *smc_vasprintf(const char *fmt, va_list ap) SMC_PRINTF(1, 0);
char *smc_asprintf(const char *fmt, ...) SMC_PRINTF(1, 2);

/* Model builders. Each returns SMC_OK or SMC_ERR_NOMEM. */
smc_status smc_library_add_finding(smc_library *lib, uint64_t offset, const char *fmt, ...)
    SMC_PRINTF(3, 4);
smc_status smc_input_add_error(smc_input *in, const char *path, const char *fmt, ...)
    SMC_PRINTF(3, 4);
smc_library *smc_library_new(const char *path);
/* v, or dflt when v is 0 (an smc_options limit left unset). */
static inline uint64_t smc_limit(uint64_t v, uint64_t dflt)
{
    return v ? v : dflt;
}
smc_status smc_input_add_note(smc_input *in, const char *fmt, ...) SMC_PRINTF(2, 3);
void smc_distribution_clear(smc_distribution *d);
/* What smc_check derived (smc_derive) goes: judgements' and roll-ups' sentences with them. */
void smc_judgements_free(smc_judgement *j, size_t n);
void smc_rollups_free(smc_rollup *r, size_t n);
void smc_library_underive(smc_library *lib);
void smc_distribution_underive(smc_distribution *d);
void smc_distribution_sanitize(smc_distribution *d);
void smc_library_free(smc_library *lib);
/* A deep copy of src's facts (not its judgements) under another path, in no distribution. */
smc_status smc_library_copy(smc_library *dst, const smc_library *src, const char *path);
/* Moves src's containers, images and findings to the end of dst, their offsets moved by base
 * (where src's bytes start in dst's), each container naming member; src is left empty. */
smc_status smc_library_absorb(smc_library *dst, smc_library *src, uint64_t base,
                              const char *member);
/* Moves lib into in->libraries when it holds containers or findings, else frees it. */
smc_status smc_input_take_library(smc_input *in, smc_library *lib);

/* fatbin.c: the pure parser of container and entry headers over bytes, and of payloads. ----- */

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

/* Reads the .version and .target lines of PTX text into img's text_ fields. */
void smc_ptx_facts(smc_image *img, const uint8_t *text, size_t n);

void *smc_zstd_new(void);
void smc_zstd_free(void *zctx);

/* elf.c: the only user of libelf. ------------------------------------------------------------- */

typedef struct smc_cubin_info {
    unsigned arch;
    smc_variant variant; /* from e_flags (ABI v1) or the ptxas arguments note; NONE when unknown */
    unsigned abi;        /* EI_ABIVERSION: 7 (CUDA <= 12) or 8 (CUDA 13) */
    unsigned release;    /* the ptxas release in .note.nv.tkinfo (12080), 0 when none */
    bool relocatable;    /* ET_REL: -rdc code */
    size_t kernels;      /* .text.* sections */
    char names[256];     /* the first few, comma-separated: "_Z6kernelPf, _Z4scalePfi" */
} smc_cubin_info;

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

/* finder.c: the one container finder, over windows of bytes. -------------------------------- */

typedef struct smc_finder smc_finder;
/* A finder for the file named name. whole: its bytes come in one window, which stays valid until
 * smc_finder_finish; else they stream in windows of any size, each valid only during its call. */
smc_finder *smc_finder_new(const char *name, const smc_options *opt, bool whole);
/* The next n bytes of the file. SMC_ERR_NOMEM is the only failure. */
smc_status smc_finder_feed(smc_finder *f, const uint8_t *p, size_t n);
/* After the last window: true when the finder needs the bytes once more, from the start (a
 * stream whose section names went by before its section table said where they were). */
bool smc_finder_again(smc_finder *f);
/* A stream outgrew what it may hold (hostile nesting, floods of headers or images): its bytes are
 * to be read again as one window (from a temporary file), and f freed unfinished. */
bool smc_finder_spilled(const smc_finder *f);
/* A stream's size, as its archive claims: what it may decompress is counted from it. */
void smc_finder_expect(smc_finder *f, uint64_t size);
/* Builds the library from what was found and moves it into in (when it holds device code);
 * file_size is set to the bytes fed. */
smc_status smc_finder_finish(smc_finder *f, smc_input *in);
void smc_finder_free(smc_finder *f);

/* True when the first bytes are one of the files the finder reads (ELF, ar, raw fatbin). */
bool smc_finder_signature(const uint8_t *p, uint64_t n);

/* scan.c ---------------------------------------------------------------------------------------- */

/* Scans a file mapped at map (len bytes), surviving its truncation meanwhile (SIGBUS). */
smc_status smc_scan_mapped(smc_input *in, const char *path, const uint8_t *map, uint64_t len,
                           const smc_options *opt);

/* Scans an open regular file (fd is closed by the caller). */
smc_status smc_scan_fd(smc_input *in, const char *path, int fd, const smc_options *opt);

/* A pull source of one file's bytes, for smc_feed: read gives up to n bytes (0 at its end, or
 * where it stops early: an error, a cap), rewind goes back to its first byte for the finder's
 * second pass and says whether it could (NULL: no second pass). A wheel member inflating, a
 * temporary file, a test's pieces are each such a source. */
typedef struct smc_pull {
    size_t (*read)(void *ctx, uint8_t *buf, size_t n);
    bool (*rewind)(void *ctx);
    void *ctx;
} smc_pull;

/* The one feed loop of a stream: the first have bytes of buf, then windows of up to cap bytes
 * from src, all of it, and all of it once more when the finder asks (smc_finder_again), unless
 * it spilled (smc_finder_spilled: its reader then reads the bytes as one window). */
smc_status smc_feed(smc_finder *f, const smc_pull *src, uint8_t *buf, size_t cap, size_t have);

/* summary.c: token order (cubins, PTX, LTO IR; arch; plain, a, f) of two smc_image pointers. */
int smc_image_compare(const void *a, const void *b);

/* versions.c ------------------------------------------------------------------------------------
 */

/* The first CUDA version (1000*major + 10*minor) whose compiler emits this PTX ISA; 0 unknown. */
int smc_cuda_for_ptx_isa(unsigned major, unsigned minor);
/* The first CUDA version whose driver runs a GPU of compute capability cc (major*10+minor); 0
 * unknown. */
int smc_cuda_for_arch(unsigned cc);
/* The driver branch (580 for CUDA 13.0) that first supports a CUDA version; 0 unknown. */
int smc_driver_branch_for_cuda(int cuda_version);
/* A CUDA version at the start of text ("12.8 brand=..." , "12.8.1", "13"): 1 and *cuda_version,
 * or 0. */
bool smc_driver_parse_prefix(const char *text, int *cuda_version);

/* verdict.c: the rules, a pure pass over the model. ------------------------------------------ */

/* Why one image does not run (smc_image_verdict's *why). */
enum {
    SMC_WHY_NONE,
    SMC_WHY_ARCH,        /* built for other GPUs */
    SMC_WHY_TEGRA,       /* a lower-minor cubin on a Tegra GPU: no binary compatibility */
    SMC_WHY_CUDA13,      /* a CUDA 13 cubin (ABI v2) on a driver older than 13.0 */
    SMC_WHY_PTX_ISA,     /* PTX newer than the driver can compile */
    SMC_WHY_LTO,         /* LTO IR: never loadable */
    SMC_WHY_THOR_RENAMED /* an sm_101 image on Thor (11.0): runs per PyTorch, unconfirmed */
};
/* rules.c: an image's facts as the rules read them. */
unsigned smc_arch_major(unsigned arch);
/* A Jetson GPU's capability: only a cubin for exactly it runs there. */
bool smc_tegra(unsigned cc);
/* Whether a GPU of capability cc runs an 'f' image of arch. */
bool smc_in_family(unsigned arch, unsigned cc);
/* What an image is for (its PTX text's .target when read, else its entry's), its PTX ISA, and
 * whether it is a cubin in CUDA 13's format. */
unsigned smc_image_arch(const smc_image *img);
smc_variant smc_image_variant(const smc_image *img);
unsigned smc_image_isa(const smc_image *img);
bool smc_image_cuda13(const smc_image *img);
/* What an image is for: a PTX image's .target (when its text was read) wins over its entry's
 * arch and variant. */
void smc_image_target(const smc_image *img, unsigned *arch, smc_variant *variant);

/* What one image is for a GPU of compute capability cc (major*10 + minor) and a driver (CUDA
 * version, 0 unknown). */
smc_verdict smc_image_verdict(const smc_image *img, unsigned cc, int driver_cuda, int *why);

/* Whether what a container's payloads say (the text of its PTX, whether its cubins hold kernels)
 * can change its verdict for one of the targets, judged from its entry headers alone. */
bool smc_facts_matter(const smc_image *images, size_t n, const smc_target *targets, size_t nt,
                      int driver_cuda);

/* builds.c: the next step of a torch-family distribution that is none for target t (see
 * smc_next_build), on the platform of its wheel tag, else of its libraries' ELF machine, else
 * this machine's; NULL when it is not one, is not none, opt has no builds, or memory runs out. */
char *smc_distribution_next(const smc_input *in, const smc_distribution *d, const smc_rollup *r,
                            const struct smc_builds *builds, const smc_target *t, int driver_cuda);

/* Judges one library of in for one target again (the judgement of smc_judge's rules), with
 * another driver, say: to check that a next step helps. Free out with smc_judgements_free's
 * rules (its failing list). */
smc_status smc_judge_library(const smc_input *in, const smc_library *lib, const smc_target *t,
                             int driver_cuda, smc_judgement *out);

/* check.c: what the reports show, derived once from a judged model. */
/* The result's targets, judged; fills every derived field of the model (smc_judgement.reason
 * ...), the roll-ups' sentences, serving lists (when r->serving), next steps (verified). */
smc_status smc_derive(smc_result *r, const struct smc_builds *builds);

/* The distinct tokens (LTO IR left out) of the containers listed, space-separated, at most 12
 * then " ..."; *has_ptx says whether one is PTX. NULL when out of memory. */
char *smc_failing_tokens(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx);

/* A file to scan, or what kept the walk from reading an entry, in the order of the report. */
typedef struct smc_item {
    char *path;
    bool borrowed;      /* path belongs to another item (the members of one wheel share it) */
    int root;           /* found by the walk: the directory it opened, path + rel relative to it; */
    size_t rel;         /* -1 for a path the user named */
    char *error;        /* set when the walk could not read it */
    bool nofollow;      /* found by the walk: a link in its place is not followed */
    long long member;   /* a member of the zip archive at path; -1 for the file itself */
    size_t dist;        /* a member's wheel: its distribution in the input, or SMC_NONE */
    uint64_t size;      /* bytes, for progress */
    size_t input;       /* the path given by the user it belongs to */
    uint64_t dev, ino;  /* the file's, when known (ino 0: not known) */
    size_t same_as;     /* an earlier item with the same file (hard link, bind mount), or SMC_NONE */
    bool image;         /* a container image the user named: read by smc_image_scan */
} smc_item;

/* wheel.c: zip archives (wheels) through libzip. ---------------------------------------------- */

/* A thread's open archive, kept while its items come from the same one. An open archive holds
 * its central directory and a member buffer (megabytes), so at most SMC_ZIP_READERS threads hold
 * one at once: slots, when not NULL, counts them (the thread pool's). */
typedef struct smc_zipcache {
    char *path;
    struct zip *za;
    sem_t *slots;
    bool holding; /* one of the slots */
} smc_zipcache;
#define SMC_ZIP_READERS 3

/* Progress and the per-input cap on inflated bytes, shared by the threads. */
typedef struct smc_ticker {
    void (*tick)(void *ctx, uint64_t bytes, const char *current);
    void *ctx;
    _Atomic uint_fast64_t *input_bytes;
    size_t buffer; /* bytes of a member's buffer (0: the most): members up to it are read whole */
    const atomic_uint *idle; /* the pool's threads that have no more items (NULL: unknown) */
} smc_ticker;

/* An unlinked temporary file in $TMPDIR (or /tmp), or -1 (errno says why). */
int smc_temp_file(void);

/* image.c: container images read in place into part (see image.c): dirfd an OCI layout
 * directory, or tarfd a tarball (oci-archive, docker save); the other -1. */
smc_status smc_image_scan(smc_input *part, const char *path, int dirfd, int tarfd,
                          const smc_options *opt, const smc_ticker *tk);
/* Whether a directory is an OCI image layout (oci-layout and index.json). */
bool smc_image_dir(int dirfd);
/* Whether a file is a tar archive (the ustar magic), or a compressed one named so (.tar.gz,
 * .tgz, .tar.zst, with gzip's or zstd's magic). */
bool smc_image_tar(int fd, const char *path);

/* entry.c: a tar member copied out of its archive and scanned. ------------------------------- */

/* Scans the file open at fd (a member copied out to a temporary file) window by window, as a
 * stream: memory stays bounded whatever its size (counting no file). */
smc_status smc_scan_fd_streamed(smc_input *part, const char *name, int fd,
                                const smc_options *opt);

/* How copying an entry out ended. */
typedef enum smc_entry_end {
    SMC_ENTRY_SCANNED,    /* copied whole and scanned into `into` (*st says how that went) */
    SMC_ENTRY_UNREADABLE, /* the archive could not give its bytes (archive_error_string) */
    SMC_ENTRY_CAPPED,     /* larger than cap, or *total would pass total_cap: not scanned */
    SMC_ENTRY_NO_COPY,    /* its temporary file could not be written (errno): not scanned */
} smc_entry_end;

struct archive;
/* Copies the rest of the current entry of a (its first hlen bytes, head, already read) to memory
 * when small, else to an unlinked temporary file, and scans it as the file name. total, when not
 * NULL, counts the bytes of all entries against total_cap; tk ticks progress. The caller words
 * every end but SMC_ENTRY_SCANNED as the error it is. */
smc_entry_end smc_entry_scan(struct archive *a, const uint8_t *head, size_t hlen, uint64_t cap,
                             uint64_t *total, uint64_t total_cap, const smc_ticker *tk,
                             smc_input *into, const char *name, const smc_options *opt,
                             smc_status *st);

/* The default caps of smc_options on what an archive can make smcheck inflate and read. */
#define SMC_DEFAULT_MEMBER_BYTES (16ull << 30)
#define SMC_DEFAULT_INPUT_BYTES (256ull << 30)
#define SMC_DEFAULT_MEMBERS 1000000u

/* conda.c: conda packages (.conda, .tar.bz2), read in place into part: the package's
 * distribution and its libraries (named "pkg.conda!lib/libx.so"). fd is the package open; named:
 * the user named it (a walk's tarball without a package index is only a note). */
bool smc_conda_named(const char *path);
smc_status smc_conda_scan(smc_input *part, const char *path, int fd, bool named,
                          const smc_options *opt, const smc_ticker *tk);
/* What the member buffers of the threads that read archives may take together: each gets its
 * share, 1 to 8 MiB (two threads get 8 MiB each, three 5.3 MiB). */
#define SMC_WHEEL_BUFFERS (16u << 20)

bool smc_zip_at(const uint8_t *p, uint64_t n);
/* Reads the archive at path: its facts become a distribution of in, its problems errors of in,
 * and each member an item (copying nofollow and input from proto). */
smc_status smc_wheel_plan(smc_input *in, const char *path, const smc_item *proto,
                          const smc_options *opt, smc_item **items, size_t *n);
/* Scans one member item into part. */
smc_status smc_wheel_member(smc_input *part, smc_zipcache *zc, const smc_item *it,
                            const smc_options *opt, const smc_ticker *tk);
void smc_zipcache_close(smc_zipcache *zc);

/* inflate.c: one member's bytes as they inflate: raw deflate through ISA-L where it is built in
 * (the CRC-32 checked at the stream's end), else libzip and zlib. */
typedef struct smc_member smc_member;
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

/* env.c: Python environments. ---------------------------------------------------------------- */

typedef struct smc_env smc_env;
/* Reads the distribution metadata among a directory's items into in and *env. */
/* A file held in memory, for a filesystem that is not on disk (an image's layers). */
typedef struct smc_memfile {
    char *path;
    char *data;
    size_t len;
} smc_memfile;
/* The same from files in memory, sorted by path (strcmp). */
smc_status smc_env_collect_files(smc_input *in, const smc_memfile *files, size_t n,
                                 smc_env **env);
/* Whether the environment's metadata includes a file at path (RECORD, METADATA, ...). */
bool smc_env_wants(const char *path);
smc_status smc_env_collect(smc_input *in, const smc_item *items, size_t n, smc_env **env);
/* Gives each library of in to the distribution that lists its file; checks sizes against RECORD. */
smc_status smc_env_attribute(smc_input *in, const smc_env *env);
void smc_env_free(smc_env *env);
/* Lists each distribution's libraries. */
smc_status smc_distributions_finish(smc_input *in);
/* dir/rel (or rel) with "." and ".." resolved lexically, in new memory. */
char *smc_path_normalize(const char *dir, const char *rel);

/* meta.c: Python packaging metadata, parsed from text. --------------------------------------- */

typedef struct smc_metadata {
    char *name, *version;
    char **requires; /* Requires-Dist values */
    size_t requires_count;
} smc_metadata;

smc_status smc_metadata_parse(const char *text, size_t len, smc_metadata *out);
void smc_metadata_free(smc_metadata *md);
/* A *.dist-info/variant.json: the properties of the variant named label (the wheel file name's
 * last field), else of its only variant, as "namespace :: feature :: value" into d's
 * variant_label and variant_claims. SMC_ERR_FORMAT with *why (static text) when it is not such
 * a file. */
smc_status smc_variant_json_parse(const char *text, size_t len, const char *label,
                                  smc_distribution *d, const char **why);
/* WHEEL's Tag lines, joined by ", ", and the platform of the first ("manylinux_2_28_x86_64"). */
smc_status smc_wheel_tags(const char *text, size_t len, char **joined, char **platform);

typedef struct smc_record_row {
    char *path;
    int64_t size; /* -1 when not given */
} smc_record_row;

/* At most SMC_ROWS_MAX rows are read from one list: SMC_ERR_LIMIT, with those rows, when it has
 * more (real RECORDs have tens of thousands). */
#define SMC_ROWS_MAX 1000000
smc_status smc_record_parse(const char *text, size_t len, smc_record_row **rows, size_t *n);
smc_status smc_installed_files_parse(const char *text, size_t len, smc_record_row **rows,
                                     size_t *n);
void smc_record_free(smc_record_row *rows, size_t n);
/* The CUDA version a version.py states (cuda = '12.8'), or NULL. */
char *smc_version_py_cuda(const char *text, size_t len);
/* The CUDA runtime a wheel requires (nvidia-cuda-runtime...), or NULL; *which names the line. */
char *smc_requires_cuda(char *const *requires, size_t n, const char **which);
/* A conda-meta JSON file: the package's name, version and files (relative to the prefix). */
smc_status smc_conda_meta_parse(const char *text, size_t len, char **name, char **version,
                                smc_record_row **files, size_t *n);

/* walk.c ----------------------------------------------------------------------------------------
 */

/* Lists the regular files under a directory, in name order; *root is the directory, held open
 * for the items to be opened from (the caller closes it), or -1. */
smc_status smc_walk_dir(smc_input *in, const char *path, const smc_options *opt, smc_item **items,
                        size_t *n, int *root);
void smc_items_free(smc_item *items, size_t n);
/* Opens rel under the directory root without following a symbolic link in any component, so
 * that nothing outside the tree is reached whatever changes meanwhile (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or component by component where the kernel has no
 * openat2 or the path is longer than PATH_MAX: use_openat2 false forces the latter). */
int smc_open_beneath(int root, const char *rel, int flags, bool use_openat2);
/* An item's file: by smc_open_beneath when the walk found it, else by its path. */
int smc_item_open(const smc_item *it, int flags);
/* What an open that failed with err says to the user. */
const char *smc_open_error(int err);

#endif
