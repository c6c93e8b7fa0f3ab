/* internal.h: what the parts of libsmcheck share and the public API does not show: the one
 * bounds-checked reader of untrusted bytes, growable arrays, and the builders of the model. */
#ifndef SMCHECK_INTERNAL_H
#define SMCHECK_INTERNAL_H

#include "smcheck/smcheck.h"

#include <stdarg.h>
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

char *smc_strdup(const char *s);
static inline bool smc_ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Replaces control characters with '?' in place (names from untrusted files); returns s. */
char *smc_sanitize(char *s);
/* smc_strdup, then smc_sanitize. */
char *smc_strdup_clean(const char *s);
char *smc_vasprintf(const char *fmt, va_list ap) SMC_PRINTF(1, 0);
char *smc_asprintf(const char *fmt, ...) SMC_PRINTF(1, 2);

/* Whether container i of lib holds kernels; asked only of a container that would otherwise fail,
 * since it may mean decompressing cubins. */
typedef bool (*smc_kernel_probe)(void *ctx, const smc_library *lib, size_t container);

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
/* Applies opt's per-file limits to lib. */
void smc_library_limits(smc_library *lib, const smc_options *opt);
smc_status smc_input_add_note(smc_input *in, const char *fmt, ...) SMC_PRINTF(2, 3);
void smc_distribution_clear(smc_distribution *d);
void smc_distribution_sanitize(smc_distribution *d);
void smc_library_free(smc_library *lib);
/* Appends src's containers, images and findings to dst, their offsets moved by base (where src's
 * bytes start in dst's); src keeps its arrays but gives up its section names. */
smc_status smc_library_absorb(smc_library *dst, smc_library *src, uint64_t base);
/* Moves lib into in->libraries when it holds containers or findings, else frees it. */
smc_status smc_input_take_library(smc_input *in, smc_library *lib);

/* fatbin.c: the pure parser over (pointer, length). ------------------------------------------- */

#define SMC_FATBIN_MAGIC 0xBA55ED50u

/* True when the 8 bytes at off start a container header: magic, version 1, header size 16. */
bool smc_fatbin_at(const uint8_t *buf, uint64_t len, uint64_t off);

/* First offset in [from, to) with from + 8k that starts a container header, or to. */
uint64_t smc_fatbin_find(const uint8_t *buf, uint64_t from, uint64_t to);

typedef struct smc_fatbin_error {
    uint64_t offset;
    char message[192];
} smc_fatbin_error;

/* How a container is judged: inside a fatbin section it is taken as it comes (an empty container
 * is fine); a candidate found elsewhere must prove itself entry by entry before it counts. */
typedef enum smc_fatbin_mode { SMC_FATBIN_SECTION, SMC_FATBIN_CANDIDATE } smc_fatbin_mode;

/* Checks the 16-byte container header at p (the container starts at off and must end by limit);
 * sets *entries where its entries start and *end past it (0 unless its size is sound). */
smc_status smc_fatbin_header(const uint8_t *p, uint64_t off, uint64_t limit, smc_fatbin_mode mode,
                             uint64_t *entries, uint64_t *end, smc_fatbin_error *err);

/* Reads the 64-byte fixed entry header at p, the entry starting at e in a container ending at
 * cend (cend - e >= 64 is the caller's to check); fills img and sets *next past the entry. */
smc_status smc_fatbin_entry(const uint8_t *p, uint64_t e, uint64_t cend, smc_fatbin_mode mode,
                            smc_image *img, uint64_t *next, smc_fatbin_error *err);

/* Parses the container at buf[off] that must end by limit (limit <= len of buf). On SMC_OK it
 * has appended the container and its images to lib and set *end past it. On SMC_ERR_FORMAT lib is
 * unchanged, err says why and *end is past the container when its size was sound, else 0. */
smc_status smc_fatbin_parse(smc_library *lib, const uint8_t *buf, uint64_t limit, uint64_t off,
                            smc_fatbin_mode mode, uint64_t *end, smc_fatbin_error *err);

/* Walks buf[start, end) as back-to-back containers (a fatbin section or a raw fatbin file),
 * skipping zero padding, reporting and resynchronising past anything else. */
smc_status smc_fatbin_walk(smc_library *lib, const uint8_t *buf, uint64_t start, uint64_t end,
                           const char *section, bool relocatable);

/* Decompresses (or copies) an image's payload into a new buffer of img->size bytes. On failure
 * returns SMC_ERR_FORMAT with err filled. LTO IR is opaque: SMC_ERR_ARG. */
smc_status smc_image_payload(const uint8_t *buf, uint64_t len, const smc_image *img, uint8_t **out,
                             smc_fatbin_error *err);

/* smc_image_payload with a Zstandard context from smc_zstd_new, for many calls. */
smc_status smc_image_payload_with(const uint8_t *buf, uint64_t len, const smc_image *img,
                                  void *zctx, uint8_t **out, smc_fatbin_error *err);

/* Decompresses one image of buf and checks it against its header (--verify): SMC_ERR_FORMAT with
 * err when they disagree. zctx is a Zstandard context from smc_zstd_new (reused across calls). */
smc_status smc_image_check(const uint8_t *buf, uint64_t len, const smc_image *img, void *zctx,
                           smc_fatbin_error *err);
void *smc_zstd_new(void);
void smc_zstd_free(void *zctx);

/* Checks every image of the library against its payload (--verify); mismatches become findings. */
smc_status smc_library_verify(smc_library *lib, const uint8_t *buf, uint64_t len);

/* elf.c: the only user of libelf. ------------------------------------------------------------- */

typedef struct smc_cubin_info {
    unsigned arch;
    smc_variant variant; /* from e_flags (ABI v1) or the ptxas arguments note; NONE when unknown */
    unsigned abi;        /* EI_ABIVERSION: 7 (CUDA <= 12) or 8 (CUDA 13) */
    bool relocatable;    /* ET_REL: -rdc code */
    bool has_kernels;    /* a .text.* section exists */
    size_t kernels;      /* how many */
    char names[256];     /* the first few, comma-separated: "_Z6kernelPf, _Z4scalePfi" */
} smc_cubin_info;

/* Reads a cubin's ELF header and sections. SMC_ERR_FORMAT with err when it is not a cubin. */
smc_status smc_cubin_inspect(const uint8_t *buf, uint64_t len, smc_cubin_info *info,
                             smc_fatbin_error *err);

/* A section of a host ELF file, as far as finding containers goes. */
typedef struct smc_section {
    const char *name;
    uint64_t offset, size;
    bool walk; /* .nv_fatbin or __nv_relfatbin, whole in the file: walked container by container */
} smc_section;

/* The section whose bytes hold off, or NULL. */
const char *smc_section_at(const smc_section *secs, size_t n, uint64_t off);

/* The sections of an ELF file that went by as a stream, from its first bytes (head) and the bytes
 * kept around its section header table (region, which starts at file offset region_start).
 * Defects become findings on lib. The names are copies: free with smc_sections_free. */
smc_status smc_elf_stream_sections(smc_library *lib, const uint8_t *head, size_t head_len,
                                   const uint8_t *region, uint64_t region_start, size_t region_len,
                                   uint64_t file_len, smc_section **out, size_t *n);
void smc_sections_free(smc_section *secs, size_t n);

/* Scans one ELF file or ar archive held in buf (a private, writable mapping or copy: libelf may
 * convert headers in place). Libraries found are added to in. */
smc_status smc_elf_scan(smc_input *in, const char *name, uint8_t *buf, uint64_t len,
                        const smc_options *opt, unsigned depth);

/* scan.c ----------------------------------------------------------------------------------------
 */

/* True when the first bytes are an ELF file or an ar archive (what smc_scan_bytes reads). */
bool smc_scan_signature(const uint8_t *p, uint64_t n);

/* Like smc_scan_memory for a buffer the caller lets us modify (see smc_elf_scan). */
smc_status smc_scan_bytes(smc_input *in, const char *name, uint8_t *buf, uint64_t len,
                          const smc_options *opt, unsigned depth);

/* Ends the scan of one library whose bytes are buf: verifies and judges it as opt asks (when st
 * is SMC_OK), then moves it into in, or frees it and returns st. */
smc_status smc_library_finish(smc_input *in, smc_library *lib, const uint8_t *buf, uint64_t len,
                              const smc_options *opt, smc_status st);

/* The same for a library whose bytes are gone (a stream): the judge asks probe about kernels. */
smc_status smc_library_finish_with(smc_input *in, smc_library *lib, const smc_options *opt,
                                   smc_kernel_probe probe, void *ctx, smc_status st);

/* stream.c: containers in bytes that pass once (a wheel member). ------------------------------ */

typedef struct smc_stream smc_stream;
/* total: the size the bytes are said to have (UINT64_MAX when unknown). */
smc_stream *smc_stream_new(const smc_options *opt, uint64_t total);
smc_status smc_stream_feed(smc_stream *s, const uint8_t *data, size_t n);
/* The same without a copy: write up to *room bytes at the pointer returned, then commit them. */
uint8_t *smc_stream_space(smc_stream *s, size_t *room);
smc_status smc_stream_commit(smc_stream *s, size_t n);
/* Builds the library named name from what went by and adds it to in (as smc_library_finish). */
smc_status smc_stream_finish(smc_stream *s, smc_input *in, const char *name);
void smc_stream_free(smc_stream *s);

/* Scans a file mapped at map (len bytes), surviving its truncation meanwhile (SIGBUS). */
smc_status smc_scan_mapped(smc_input *in, const char *path, uint8_t *map, uint64_t len,
                           const smc_options *opt);

/* Scans an open regular file (fd is closed by the caller). */
smc_status smc_scan_fd(smc_input *in, const char *path, int fd, const smc_options *opt);

/* summary.c: token order (cubins, PTX, LTO IR; arch; plain, a, f) of two smc_image pointers. */
int smc_image_compare(const void *a, const void *b);

/* versions.c ------------------------------------------------------------------------------------
 */

/* The first CUDA version (1000*major + 10*minor) whose compiler emits this PTX ISA; 0 unknown. */
int smc_cuda_for_ptx_isa(unsigned major, unsigned minor);
/* The driver branch (580 for CUDA 13.0) that first supports a CUDA version; 0 unknown. */
int smc_driver_branch_for_cuda(int cuda_version);

/* verdict.c -------------------------------------------------------------------------------------
 */

/* What one image is for a GPU of compute capability cc (major*10 + minor) and a driver (CUDA
 * version, 0 unknown). *cause says why an image does not run (a SMC_CAUSE_ value). */
enum {
    SMC_CAUSE_NONE,
    SMC_CAUSE_ARCH,        /* built for other GPUs */
    SMC_CAUSE_TEGRA,       /* a lower-minor cubin on a Tegra GPU: no binary compatibility */
    SMC_CAUSE_CUDA13,      /* a CUDA 13 cubin (ABI v2) on a driver older than 13.0 */
    SMC_CAUSE_PTX_ISA,     /* PTX newer than the driver can compile */
    SMC_CAUSE_LTO,         /* LTO IR: never loadable */
    SMC_CAUSE_THOR_RENAMED /* an sm_101 image on Thor (11.0): runs per PyTorch, unconfirmed */
};
smc_verdict smc_image_verdict(const smc_image *img, unsigned cc, int driver_cuda, int *cause);

/* Whether a container of these images would fail some target (none or jit-blocked, and not
 * gated): only then does its kernel check matter. */
bool smc_container_would_fail(const smc_image *images, size_t n, const smc_target *targets,
                              size_t nt, int driver_cuda);

/* Judges lib against each target; fills lib->judgements. */
smc_status smc_library_judge(smc_library *lib, const smc_target *targets, size_t n, int driver_cuda,
                             smc_kernel_probe probe, void *ctx);

/* A file to scan, or what kept the walk from reading an entry, in the order of the report. */
typedef struct smc_item {
    char *path;
    char *error;        /* set when the walk could not read it */
    bool nofollow;      /* found by the walk: a link in its place is not followed */
    long long member;   /* a member of the zip archive at path; -1 for the file itself */
    size_t dist;        /* a member's wheel: its distribution in the input, or SMC_NONE */
    unsigned cuda_hint; /* a member's wheel: the CUDA major it says it was built for */
    uint64_t size;      /* bytes, for progress */
    size_t input;       /* the path given by the user it belongs to */
} smc_item;

/* wheel.c: zip archives (wheels) through libzip. ---------------------------------------------- */

/* A thread's open archive, kept while its items come from the same one. */
typedef struct smc_zipcache {
    char *path;
    struct zip *za;
} smc_zipcache;

/* Progress and the per-input cap on inflated bytes, shared by the threads. */
typedef struct smc_ticker {
    void (*tick)(void *ctx, uint64_t bytes, const char *current);
    void *ctx;
    _Atomic uint_fast64_t *input_bytes;
} smc_ticker;

bool smc_zip_at(const uint8_t *p, uint64_t n);
/* Reads the archive at path: its facts become a distribution of in, its problems errors of in,
 * and each member an item (copying nofollow and input from proto). */
smc_status smc_wheel_plan(smc_input *in, const char *path, const smc_item *proto,
                          const smc_options *opt, smc_item **items, size_t *n);
/* Scans one member item into part. */
smc_status smc_wheel_member(smc_input *part, smc_zipcache *zc, const smc_item *it,
                            const smc_options *opt, const smc_ticker *tk);
void smc_zipcache_close(smc_zipcache *zc);

/* env.c: Python environments. ---------------------------------------------------------------- */

typedef struct smc_env smc_env;
/* Reads the distribution metadata among a directory's items into in and *env. */
smc_status smc_env_collect(smc_input *in, const smc_item *items, size_t n, smc_env **env);
/* Gives each library of in to the distribution that lists its file; checks sizes against RECORD. */
smc_status smc_env_attribute(smc_input *in, const smc_env *env);
void smc_env_free(smc_env *env);
/* Lists each distribution's libraries and its worst status per target. */
smc_status smc_distributions_finish(smc_input *in, size_t targets);
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
/* WHEEL's Tag lines, joined by ", ", and the platform of the first ("manylinux_2_28_x86_64"). */
smc_status smc_wheel_tags(const char *text, size_t len, char **joined, char **platform);

typedef struct smc_record_row {
    char *path;
    int64_t size; /* -1 when not given */
} smc_record_row;

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

/* Lists the regular files under a directory, in name order. */
smc_status smc_walk_dir(const char *path, const smc_options *opt, smc_item **items, size_t *n);
void smc_items_free(smc_item *items, size_t n);

#endif
