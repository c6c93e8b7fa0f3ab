/* base.h: the base wing, which every other uses: the one bounds-checked reader of untrusted
 * bytes, arrays, strings, redaction (util), and the model's builders (model.c), counting
 * (summary.c) and the one way out for what smcheck writes (stream.c) */
#ifndef SMCHECK_BASE_H
#define SMCHECK_BASE_H

#include "smcheck/model.h"

#include <stdarg.h>
#include <string.h>

/* helpers ---------------------------------------------------------------------------------------
 */

/* what every part of libsmcheck uses: the one bounds-checked reader of untrusted
 * bytes, growable arrays, large buffers, strings and small files */

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

/* Whether a path is a URL smcheck reads over the network (http:// or https://, any case). */
bool smc_url_is(const char *s);

/* The last part of a path: after its last '/' or, inside an archive, its '!'. */
const char *smc_base_name(const char *path);
/* Compares two releases by their dotted numbers, as far as they go ("2.10.0" is newer than
 * "2.9.1"; "0.40.0.post4" is 0.40.0): <0, 0, >0. */
int smc_version_cmp(const char *a, const char *b);
/* The runtime a library needs, as its file names it: "libcudart.so.12", "libcudart.so.10.1",
 * "cudart64_12.dll", "cudart64_110.dll"; "" when none. */
const char *smc_cudart_name(char *buf, size_t n, const smc_library *lib);
/* Where a library loads, by its header: "linux-x86_64", "linux-aarch64", "windows-amd64", another
 * machine's name; "" for a raw fat binary or cubin, which any machine's process loads. */
const char *smc_library_platform(const smc_library *lib);

/* Replaces C0 and C1 control characters with '?' in place (names from untrusted files); bytes
 * that are not UTF-8 are left for the printers (JSON: \udcXX, text: \xHH). Returns s. */
char *smc_sanitize(char *s);
/* The length of the well-formed UTF-8 sequence at p (of n bytes), or 0 when there is none. */
size_t smc_utf8_at(const unsigned char *p, size_t n);
/* The bytes a UTF-8 sequence that starts with lead has, or 0 for a byte none starts with. */
size_t smc_utf8_wants(unsigned char lead);
/* s itself when at most max bytes long, else a new string of its first max bytes (never a part of
 * a UTF-8 sequence) and "... (N more bytes)"; s is freed. NULL in, NULL out. */
char *smc_cut(char *s, size_t max);
/* Messages (errors, notes, findings) longer than this are cut, with a count. */
#define MESSAGE_MAX 1024
/* The CPUs online, asked of the system once (sysconf reads /sys each time: once a member of a
 * wheel of 500,000 members was a quarter of its time). */
unsigned smc_cpus(void);
/* s with the user information of every URL in it as "***" (user:token@host becomes ***@host, as the
 * output streams write it): s itself when it has none, else a new string and s freed; NULL in or
 * out of memory, NULL out. */
char *smc_redact(char *s);
/* Whether s holds a URL with user information (what smc_redact hides). */
bool smc_has_credentials(const char *s);
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
/* Writes a reason into why (n bytes, cut to fit; nothing when why is NULL or n 0). */
void smc_say(char *why, size_t n, const char *fmt, ...) SMC_PRINTF(3, 4);
/* Writes "PATH:LINE: reason" ("PATH: reason" when line is 0) into why (n bytes, cut to fit);
 * returns false, for `return smc_say_at(...)` where a reader gives up. */
bool smc_say_at(char *why, size_t n, const char *path, unsigned line, const char *fmt, ...)
    SMC_PRINTF(5, 6);

/* model --------------------------------------------------------------------------------------
 */

/* the builders of the model (smcheck/model.h), which readers, the judge and
 * derive use */

/* Model builders. Each returns SMC_OK or SMC_ERR_NOMEM. */
smc_status smc_library_add_finding(smc_library *lib, uint64_t offset, const char *fmt, ...)
    SMC_PRINTF(3, 4);
smc_status smc_input_add_error(smc_input *in, const char *path, const char *fmt, ...)
    SMC_PRINTF(3, 4);
smc_library *smc_library_new(const char *path);

smc_status smc_input_add_note(smc_input *in, const char *fmt, ...) SMC_PRINTF(2, 3);
void smc_distribution_clear(smc_distribution *d);
/* Judgements, with what each owns (its failing list and support). */
void smc_judgements_free(smc_judgement *j, size_t n);
/* What deriving made of n inputs (smc_result.derived), for inputs of these counts. */
void smc_derived_free(smc_input_derived *d, smc_input *const *inputs, size_t n);
void smc_distribution_sanitize(smc_distribution *d);
void smc_library_free(smc_library *lib);
/* A deep copy of src's facts under another path, in no distribution. */
smc_status smc_library_copy(smc_library *dst, const smc_library *src, const char *path);
/* Moves src's containers, images and findings to the end of dst, their offsets moved by base
 * (where src's bytes start in dst's), each container naming member; src is left empty. */
smc_status smc_library_absorb(smc_library *dst, smc_library *src, uint64_t base,
                              const char *member);
/* Moves lib into in->libraries when it holds containers or findings, else frees it. */
smc_status smc_input_take_library(smc_input *in, smc_library *lib);

/* Appends a runtime file (smc_input.runtime), in no distribution yet. */
smc_status smc_input_add_runtime(smc_input *in, const char *path, smc_runtime_kind kind, int cuda);
/* Frees n compilers (smc_judged.compilers) and their array. */
void smc_compilers_free(smc_compiler *c, size_t n);

/* summary.c: token order (cubins, PTX, LTO IR; arch; plain, a, f) of two smc_image pointers. */
int smc_image_compare(const void *a, const void *b);

#endif
