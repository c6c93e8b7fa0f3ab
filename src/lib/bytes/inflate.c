/* inflate.c: reads one zip member's bytes as they inflate. A deflated member is read raw
 * (libzip's ZIP_FL_COMPRESSED) and inflated by Intel ISA-L, whose inflate is faster than zlib's,
 * with the CRC-32 the central directory gives checked at the stream's end, as libzip checks it;
 * anything else (stored members, other methods, encryption, a build without ISA-L, or
 * SMCHECK_INFLATE=zlib) goes through libzip and zlib. */
#include "bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#ifdef SMC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#endif

#define RAW_BUF (256u << 10) /* compressed bytes read at once */
#define PIECES_MIN 8 /* a stream of fewer pieces is inflated in order */

struct smc_member {
    zip_file_t *zf;
    char error[160];
#ifdef SMC_HAVE_ISAL
    struct inflate_state *state; /* NULL: zlib through libzip */
    uint8_t *raw;
    bool raw_end;  /* every compressed byte is in */
    uint32_t crc;  /* what the central directory says */
    bool done;     /* the deflate stream ended and its CRC was checked */
    smc_pinflate *par; /* a long stream, more than one thread */
#endif
};

#ifdef SMC_HAVE_ISAL
/* A member's ISA-L state and raw buffer are one mapping (it goes back whole when the member
 * closes), and a wheel opens every member to read its first bytes: torch's 12,000 members cost
 * 23,000 mmap and munmap calls, each munmap an interprocessor interrupt where other threads run
 * (0.35 s of system time of torch's 4 s at -j1). So each thread keeps the last mapping it closed
 * for the next member it opens (a thread-specific value, unmapped when the thread ends; the
 * main thread's when the process does). */
#define STATE_ROOM ((sizeof(struct inflate_state) + 4095u) & ~(size_t)4095u)
#define BLOCK (STATE_ROOM + RAW_BUF)

static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;
static bool spare_ok;

static void spare_free(void *block)
{
    smc_big_free(block, BLOCK);
}

static void spare_init(void)
{
    spare_ok = pthread_key_create(&spare_key, spare_free) == 0;
}

/* This thread's spare mapping, or a new one: the state, then the raw buffer; false when out of
 * memory. */
static bool buffers_take(smc_member *m)
{
    pthread_once(&spare_once, spare_init);
    uint8_t *block = spare_ok ? pthread_getspecific(spare_key) : NULL;
    if (block)
        pthread_setspecific(spare_key, NULL);
    else if (!(block = smc_big_alloc(BLOCK)))
        return false;
    m->state = (struct inflate_state *)(void *)block;
    m->raw = block + STATE_ROOM;
    return true;
}

/* Keeps a member's mapping as this thread's spare, or gives it back. */
static void buffers_give(smc_member *m)
{
    uint8_t *block = (uint8_t *)m->state;
    if (!block) return;
    if (spare_ok && !pthread_getspecific(spare_key) && pthread_setspecific(spare_key, block) == 0)
        return;
    smc_big_free(block, BLOCK);
}

/* Whether deflated members go through ISA-L: unless SMCHECK_INFLATE is "zlib". */
static bool use_isal(void)
{
    const char *force = getenv("SMCHECK_INFLATE");
    return !(force && strcmp(force, "zlib") == 0);
}

static long long raw_read(void *ctx, uint8_t *buf, size_t n, const char **why)
{
    smc_member *m = ctx;
    zip_int64_t r = zip_fread(m->zf, buf, n);
    if (r < 0) *why = zip_file_strerror(m->zf);
    return r;
}

/* The compressed bytes of one piece where a stream is inflated by more than one thread:
 * SMCHECK_INFLATE_PIECE (bytes, for tests: the reader then waits for the helpers, whose pieces
 * are served, and their counts are printed), else pinflate.c's default. */
static size_t piece_bytes(void)
{
    const char *v = getenv("SMCHECK_INFLATE_PIECE");
    unsigned long long n = v && *v ? strtoull(v, NULL, 10) : 0;
    return n >= 4096 && n < (1ull << 30) ? (size_t)n : 0;
}
#endif

smc_member *smc_member_open(zip_t *za, uint64_t index, const zip_stat_t *st, unsigned helpers,
                            const atomic_uint *idle)
{
    smc_member *m = calloc(1, sizeof *m);
    if (!m) return NULL;
#ifdef SMC_HAVE_ISAL
    bool raw = use_isal() && (st->valid & ZIP_STAT_COMP_METHOD) &&
               st->comp_method == ZIP_CM_DEFLATE && (st->valid & ZIP_STAT_CRC) &&
               (st->valid & ZIP_STAT_ENCRYPTION_METHOD) &&
               st->encryption_method == ZIP_EM_NONE;
    if (raw) {
        if (!buffers_take(m)) {
            smc_member_close(m);
            return NULL;
        }
        isal_inflate_init(m->state);
        m->state->crc_flag = ISAL_GZIP_NO_HDR; /* raw deflate; state->crc: the output's CRC-32 */
        m->crc = st->crc;
    }
    m->zf = zip_fopen_index(za, index, raw ? ZIP_FL_COMPRESSED : 0);
    if (raw && m->zf && helpers && (st->valid & ZIP_STAT_COMP_SIZE)) {
        size_t piece = piece_bytes();
        if (st->comp_size >= PIECES_MIN * (piece ? piece : (512u << 10)))
            m->par = smc_pinflate_new(st->comp_size, helpers, piece, piece ? NULL : idle, raw_read, m);
        if (m->par && piece && !smc_pinflate_patient(m->par)) { /* tests: helpers' pieces served */
            smc_pinflate_free(m->par);
            m->par = NULL;
        }
    }
#else
    (void)st;
    (void)helpers;
    (void)idle;
    m->zf = zip_fopen_index(za, index, 0);
#endif
    if (!m->zf) {
        snprintf(m->error, sizeof m->error, "%s", zip_strerror(za));
        return m; /* smc_member_read says why */
    }
    return m;
}

static size_t fail(smc_member *m, bool *bad, const char *why)
{
    if (!m->error[0]) snprintf(m->error, sizeof m->error, "%s", why);
    *bad = true;
    return 0;
}

#ifdef SMC_HAVE_ISAL
static const char *isal_error(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
        return "invalid deflate distance";
    default:
        return "deflate stream not readable";
    }
}

static size_t read_par(smc_member *m, uint8_t *buf, size_t n, bool *bad)
{
    const char *why = NULL;
    size_t got = smc_pinflate_read(m->par, buf, n, bad, &why);
    if (*bad) return got + fail(m, bad, why ? why : "deflate stream not readable");
    uint32_t crc;
    if (got < n && !m->done && smc_pinflate_done(m->par, &crc)) {
        m->done = true;
        if (crc != m->crc) return got + fail(m, bad, "CRC error");
    }
    return got;
}

static size_t read_isal(smc_member *m, uint8_t *buf, size_t n, bool *bad)
{
    struct inflate_state *s = m->state;
    s->next_out = buf;
    s->avail_out = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    while (s->avail_out && !m->done) {
        if (s->avail_in == 0 && !m->raw_end) {
            zip_int64_t r = zip_fread(m->zf, m->raw, RAW_BUF);
            if (r < 0) return (size_t)(s->next_out - buf) + fail(m, bad, zip_file_strerror(m->zf));
            m->raw_end = r == 0;
            s->next_in = m->raw;
            s->avail_in = (uint32_t)r;
        }
        int r = isal_inflate(s);
        /* What came out before a fault is the caller's all the same, as through zlib. */
        size_t got = (size_t)(s->next_out - buf);
        if (r < 0) return got + fail(m, bad, isal_error(r));
        if (s->block_state == ISAL_BLOCK_FINISH) {
            m->done = true;
            if (s->crc != m->crc) return got + fail(m, bad, "CRC error");
        } else if (s->avail_in == 0 && m->raw_end && s->avail_out) {
            return got + fail(m, bad, "the deflate stream ends early");
        }
    }
    return (size_t)(s->next_out - buf);
}
#endif

size_t smc_member_read(smc_member *m, uint8_t *buf, size_t n, bool *bad)
{
    if (!m->zf) {
        *bad = true; /* m->error says why it did not open */
        return 0;
    }
#ifdef SMC_HAVE_ISAL
    if (m->par) return read_par(m, buf, n, bad);
    if (m->state) return read_isal(m, buf, n, bad);
#endif
    size_t got = 0;
    while (got < n) {
        zip_int64_t r = zip_fread(m->zf, buf + got, n - got);
        if (r < 0) return got + fail(m, bad, zip_file_strerror(m->zf));
        if (r == 0) break;
        got += (size_t)r;
    }
    return got;
}

const char *smc_member_error(const smc_member *m)
{
    return m->error[0] ? m->error : "unknown error";
}

void smc_member_close(smc_member *m)
{
    if (!m) return;
#ifdef SMC_HAVE_ISAL
    if (m->par && getenv("SMCHECK_INFLATE_PIECE")) { /* tests: say what the helpers did */
        unsigned helped, own;
        smc_pinflate_counts(m->par, &helped, &own);
        fprintf(stderr, "smcheck: inflated in pieces: %u served from helpers, %u inflated in order\n",
                helped, own);
    }
    smc_pinflate_free(m->par); /* its helpers read m->zf */
#endif
    if (m->zf) zip_fclose(m->zf);
#ifdef SMC_HAVE_ISAL
    buffers_give(m);
#endif
    free(m);
}
