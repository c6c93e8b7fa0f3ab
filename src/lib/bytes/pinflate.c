/* pinflate.c: one long raw deflate stream (a 1 GB libtorch_cuda.so in a wheel) inflated by more
 * than one thread, in bounded memory, with the same bytes as inflating it in order.
 *
 * The compressed bytes are cut every `segment` bytes; for each cut, smc_spec_find guesses where
 * the first block after it begins. A piece runs from one guess to the next. Helper threads take
 * pieces ahead of the reader: deflate.c decodes the first blocks with markers for the unknown
 * window, and once the last 32 KiB it wrote are bytes only, ISA-L goes on from there with those
 * as its window. A piece ends at the next guess: ISA-L is handed the bits up to it and then an
 * empty final stored block, so it stops exactly there if the guess was a block boundary, and
 * fails or does not finish otherwise. The reader (the caller's thread) serves pieces in order,
 * replacing markers from the window of what it served before; it decodes itself the pieces that
 * are its share or that no helper could do. A piece is taken only when it starts where the one
 * before ended, so a wrong guess costs time, never a wrong byte; should its own piece end at a
 * wrong guess, the reader inflates the rest in order. The CRC-32 of all served bytes is the
 * caller's to check. Memory: the compressed bytes between the reader and the furthest piece, in
 * a mapping whose pages behind the reader go back; limit pieces' outputs. */
#include "bytes.h"

#ifdef SMC_HAVE_ISAL

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 32768u
#define HELPERS_MAX 3
#define SLOTS_BUDGET (8u << 20) /* what the pieces held at once may take, all slots together (6
                                  MiB with more than one helper: more readers hold buffers then) */
#define FIND_BUDGET (4u << 20) /* symbols a guess's trials may take */
#define FIND_SPAN (64u << 10)   /* compressed bytes after a cut it looks through */
#define UNKNOWN (UINT64_MAX - 1)
#define NONE UINT64_MAX
#define READ_STEP (512u << 10) /* compressed bytes read, or handed ISA-L, at once */
#define RING (3u << 20) /* compressed bytes held, mapped twice in a row: any RING of them are contiguous */

enum { FREE, BUSY, MINE, DONE, FAILED }; /* a slot's */
enum { IDLE, SERVE, OWN };               /* the reader's */

typedef struct smc_pinflate pinflate;
typedef struct {
    pinflate *p;
    unsigned id; /* helper id works while more than id of the pool's threads are idle */
} helper_arg;

typedef struct {
    uint64_t k; /* the piece it holds */
    int state;
    uint64_t next; /* DONE: the piece that follows, or NONE after the last block */
    uint16_t *head; /* slot_bytes: the head's symbols, then the body's bytes after them */
    size_t nhead;
    uint8_t *body;
    size_t nbody;
    bool abandoned; /* BUSY on a piece the reader went past: the helper frees it when done */
} slot;

struct smc_pinflate {
    smc_raw_reader rd;
    void *ctx;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* compressed bytes: [released, have) are in the ring, byte q at raw[q % RING] */
    uint8_t *raw;
    uint64_t comp, have, released;
    bool raw_end;
    const char *raw_why;
    pthread_mutex_t raw_lock;
    uint64_t segment, pieces;
    uint64_t *cand; /* each piece's first bit: UNKNOWN, NONE or a guess */
    slot *slots;
    unsigned limit; /* pieces held at once: base .. base + limit - 1 */
    size_t slot_bytes; /* what one slot's head and body may take together */
    size_t head_cap;   /* symbols of a piece deflate.c may write: all of it */
    unsigned helpers, started;
    pthread_t threads[HELPERS_MAX];
    helper_arg args[HELPERS_MAX];
    const atomic_uint *idle;
    bool stop;
    uint64_t base; /* the piece the reader is at */
    /* the reader */
    uint64_t bit;
    uint8_t win[WINDOW];
    size_t win_have;
    uint8_t seg_map[256 + WINDOW]; /* the bytes of the piece being served's symbols */
    int mode;
    slot *serving;
    size_t served; /* of serving's head + body */
    bool final, failed;
    const char *why;
    struct inflate_state *state, *snap; /* its own inflating, and a copy before a verification */
    uint64_t fed;    /* the next compressed byte ISA-L gets */
    uint64_t tpiece; /* where the own inflating aims: a piece, NONE: the stream's end */
    uint64_t tbit;   /* its first bit, or NONE: only a horizon */
    uint64_t tbyte;  /* ISA-L gets the bytes before it */
    uint64_t floor_bit; /* guesses before it are behind, or were wrong */
    smc_spec *patient; /* tests: the reader looks for guesses itself, and helpers take the
                          nearest pieces, so that theirs are served, not outrun */
    uint8_t pend[1u << 16]; /* what came out of a verification */
    size_t npend, pend_at;
    uint32_t crc;
    unsigned helped, own; /* pieces served from helpers, and inflated here */
};

static atomic_flag busy = ATOMIC_FLAG_INIT; /* one stream at a time goes parallel: memory */

/* Where compressed byte q is (read RING - 64 bytes at most from there). */
static inline uint8_t *at(const smc_pinflate *p, uint64_t q)
{
    return p->raw + q % RING;
}

/* How many bytes from q on may be read at at(q): in, and within a ring. */
static size_t span(uint64_t have, uint64_t q)
{
    return have <= q ? 0 : have - q < RING - 64 ? (size_t)(have - q) : RING - 64;
}

/* Makes bytes up to upto be in (as far as the stream goes, and the ring holds: not past
 * released + RING); returns how many bytes are. */
static uint64_t ensure(smc_pinflate *p, uint64_t upto)
{
    if (upto > p->comp) upto = p->comp;
    uint64_t room = __atomic_load_n(&p->released, __ATOMIC_ACQUIRE) + RING - 64;
    if (upto > room) upto = room;
    pthread_mutex_lock(&p->raw_lock);
    while (__atomic_load_n(&p->have, __ATOMIC_ACQUIRE) < upto && !p->raw_end) {
        uint64_t h = p->have;
        size_t want = upto - h > READ_STEP ? READ_STEP : (size_t)(upto - h);
        long long r = p->rd(p->ctx, at(p, h), want, &p->raw_why);
        if (r <= 0) {
            p->raw_end = true;
            if (r == 0) p->raw_why = NULL;
            break;
        }
        __atomic_store_n(&p->have, h + (uint64_t)r, __ATOMIC_RELEASE);
    }
    uint64_t h = p->have;
    pthread_mutex_unlock(&p->raw_lock);
    return h;
}

static uint64_t guess_of(const smc_pinflate *p, uint64_t k)
{
    return __atomic_load_n(&p->cand[k], __ATOMIC_ACQUIRE);
}

/* Where piece k begins: its guess, found now if nobody has yet (threads may both look: the same
 * answer). */
static uint64_t candidate(smc_pinflate *p, smc_spec *sp, uint64_t k)
{
    if (k == 0) return 0;
    if (k >= p->pieces) return NONE;
    uint64_t c = guess_of(p, k);
    if (c != UNKNOWN) return c;
    uint64_t from = k * p->segment, to = from + (p->segment < FIND_SPAN ? p->segment : FIND_SPAN);
    uint64_t have = ensure(p, to + (256u << 10)); /* a trial may read past the span */
    c = smc_spec_find(sp, at(p, from), span(have, from), 0, (to - from) * 8, FIND_BUDGET);
    if (c != NONE) c += from * 8;
    __atomic_store_n(&p->cand[k], c, __ATOMIC_RELEASE);
    return c;
}

/* The first piece after k that has a start, within two; NONE when none has. */
static uint64_t next_piece(smc_pinflate *p, smc_spec *sp, uint64_t k)
{
    for (uint64_t j = k + 1; j <= k + 2 && j < p->pieces; j++)
        if (candidate(p, sp, j) != NONE) return j;
    return NONE;
}

/* What ISA-L is handed after the bits up to a guess: the r bits of the last byte that come
 * before it, an empty last stored block, and zeros, as ISA-L only decodes bits it can look past.
 * Returns where the stored block ends, in bytes of the tail. */
#define TAIL 24
static size_t make_tail(uint8_t *tail, uint8_t last, unsigned r)
{
    memset(tail, 0, TAIL);
    size_t n = 0;
    tail[n++] = (uint8_t)((last & ((1u << r) - 1)) | 1u << r); /* BFINAL 1, BTYPE 00 */
    if (r + 3 > 8) n++;
    tail[n + 2] = tail[n + 3] = 0xff; /* LEN 0, NLEN 0xffff */
    return n + 4;
}

/* Whether ISA-L finished with the empty block of a tail: the guess was a block boundary. */
static bool at_tail_end(const struct inflate_state *s, size_t end)
{
    if (s->block_state != ISAL_BLOCK_FINISH) return false;
    uint64_t used = (uint64_t)(TAIL - s->avail_in) * 8 - (uint64_t)s->read_in_length;
    return used == end * 8;
}

/* ISA-L from bit, a block boundary, with the window win, into out[*n..cap): to the block
 * boundary at end, or to the stream's end when end is NONE. Returns 1 at end, 2 at the stream's
 * end, 0 when it could not (a wrong guess, too much output, bad data). */
static int isal_piece(smc_pinflate *p, struct inflate_state *s, uint64_t bit, uint64_t end,
                      const uint8_t *win, size_t wlen, uint8_t *out, size_t cap, size_t *n)
{
    uint64_t first = bit / 8 + (bit % 8 != 0); /* the first whole byte */
    uint64_t stop = end == NONE ? p->comp : end / 8; /* in order, up to here */
    if (end != NONE && (end <= bit || stop < first)) return 0;
    uint64_t have = ensure(p, end == NONE ? p->comp : stop + 1);
    if (have < stop || (end != NONE && have <= stop) || stop - first > RING / 2) return 0;
    isal_inflate_init(s);
    if (wlen) isal_inflate_set_dict(s, (uint8_t *)win, (uint32_t)wlen);
    if (bit % 8) {
        s->read_in = (uint64_t)*at(p, bit / 8) >> (bit % 8);
        s->read_in_length = (int32_t)(8 - bit % 8);
    }
    uint8_t tail[TAIL];
    size_t ntail = end == NONE ? 0 : TAIL, tail_end = 0;
    if (end != NONE) tail_end = make_tail(tail, *at(p, stop), (unsigned)(end % 8));
    s->next_in = at(p, first);
    uint64_t left = stop - first;
    bool on_tail = false;
    s->next_out = out + *n;
    s->avail_out = (uint32_t)(cap - *n > UINT32_MAX ? UINT32_MAX : cap - *n);
    for (;;) {
        if (s->avail_in == 0) {
            if (left) {
                s->avail_in = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
                left -= s->avail_in;
            } else if (!on_tail && ntail) {
                on_tail = true;
                s->next_in = tail;
                s->avail_in = (uint32_t)ntail;
            }
        }
        size_t before_in = s->avail_in;
        uint32_t before_out = s->avail_out;
        int r = isal_inflate(s);
        *n = (size_t)(s->next_out - out);
        if (r < 0) return 0;
        if (s->block_state == ISAL_BLOCK_FINISH) {
            if (!on_tail) return 2; /* the stream's own last block, before the guess */
            return at_tail_end(s, tail_end) ? 1 : 0; /* the piece ended at the guess */
        }
        if (s->avail_out == 0) return 0; /* no room */
        if (s->avail_in == 0 && !left && (on_tail || !ntail)) return 0; /* did not finish */
        if (before_in == s->avail_in && before_out == s->avail_out && s->avail_in) return 0;
    }
}

/* A helper's piece k in its slot: DONE or FAILED. */
static int do_piece(smc_pinflate *p, smc_spec *sp, struct inflate_state *s, slot *sl)
{
    uint64_t k = sl->k, start = candidate(p, sp, k);
    if (start == NONE) return FAILED;
    uint64_t next = next_piece(p, sp, k), end = next == NONE ? NONE : guess_of(p, next);
    if (end == NONE && k + 3 < p->pieces) return FAILED; /* no end in sight: the reader's */
    uint64_t have = ensure(p, end == NONE ? p->comp : end / 8 + 8);
    if (!sl->head && !(sl->head = smc_big_alloc(p->slot_bytes))) return FAILED;
    uint64_t q = start / 8, bit = start % 8; /* bits counted from byte q here */
    size_t n = 0, clean = WINDOW;
    smc_spec_end e = smc_spec_decode(sp, at(p, q), span(have, q), &bit,
                                     end == NONE ? NONE : end - q * 8, sl->head, p->head_cap, &n,
                                     &clean);
    bit += q * 8;
    sl->nhead = n;
    sl->nbody = 0;
    sl->next = next;

    if (e == SMC_SPEC_STOP) return bit == end ? DONE : FAILED;
    if (e == SMC_SPEC_FINAL) {
        sl->next = NONE;
        return DONE;
    }
    if (e != SMC_SPEC_CLEAN) return FAILED;
    uint8_t win[WINDOW];
    for (size_t i = 0; i < WINDOW; i++)
        win[i] = (uint8_t)sl->head[n - WINDOW + i];
    sl->body = (uint8_t *)(sl->head + n); /* the body goes where the head left room */
    size_t room = p->slot_bytes - n * sizeof *sl->head;
    int r = isal_piece(p, s, bit, end, win, WINDOW, sl->body, room, &sl->nbody);
    if (r == 2) sl->next = NONE;
    return r ? DONE : FAILED;
}

/* A slot, its piece behind the reader, takes the next piece it stands for (with the lock held).
 * Its buffers stay: all slots together hold SLOTS_BUDGET at most. */
static void reuse(smc_pinflate *p, slot *sl)
{
    uint64_t k = sl->k + p->limit;
    while (k < p->base)
        k += p->limit;
    *sl = (slot){.k = k, .state = FREE, .head = sl->head};
}

/* A helper takes the furthest piece ahead that nobody has begun: the reader inflates the near
 * ones itself, and should find the far ones done when it gets there. */
static void *helper(void *arg)
{
    const helper_arg *a = arg;
    smc_pinflate *p = a->p;
    smc_spec *sp = smc_spec_new();
    struct inflate_state *s = smc_big_alloc(sizeof *s);
    pthread_mutex_lock(&p->lock);
    while (sp && s && !p->stop) {
        if (p->idle && atomic_load(p->idle) <= a->id && !p->patient) { /* the cores are busy */
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_nsec += 5000000; /* 5 ms, then look again */
            if (t.tv_nsec >= 1000000000) t.tv_sec++, t.tv_nsec -= 1000000000;
            pthread_cond_timedwait(&p->cond, &p->lock, &t);
            continue;
        }
        slot *sl = NULL;
        uint64_t top = p->base + p->limit < p->pieces ? p->base + p->limit : p->pieces;
        for (uint64_t i = p->base + !p->patient; i < top && !sl; i++) { /* patient: the nearest */
            uint64_t k = p->patient ? i : top + p->base - i;
            slot *c = &p->slots[k % p->limit];
            if (c->k == k && c->state == FREE) sl = c;
        }
        if (!sl) { /* nothing to take: the guesses the reader will want, then wait */
            uint64_t k = p->base + 1;
            while (k < top + 1 && k < p->pieces && guess_of(p, k) != UNKNOWN)
                k++;
            if (k < top + 1 && k < p->pieces) {
                pthread_mutex_unlock(&p->lock);
                candidate(p, sp, k);
                pthread_mutex_lock(&p->lock);
            } else {
                pthread_cond_wait(&p->cond, &p->lock);
            }
            continue;
        }
        sl->state = BUSY;
        pthread_mutex_unlock(&p->lock);
        int st = do_piece(p, sp, s, sl);
        pthread_mutex_lock(&p->lock);
        if (sl->abandoned) reuse(p, sl);
        else sl->state = st;
        pthread_cond_broadcast(&p->cond);
    }
    pthread_mutex_unlock(&p->lock);
    smc_spec_free(sp);
    smc_big_free(s, sizeof *s);
    return NULL;
}

static void stop_helpers(smc_pinflate *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    p->started = 0;
}

/* The ring: a memory file mapped twice, one after the other. NULL where that cannot be. */
static uint8_t *ring_new(void)
{
    int fd = memfd_create("smcheck-inflate", MFD_CLOEXEC);
    if (fd < 0) return NULL;
    uint8_t *r = ftruncate(fd, RING) == 0 ? mmap(NULL, 2 * (size_t)RING, PROT_NONE,
                                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                          : MAP_FAILED;
    if (r != MAP_FAILED &&
        (mmap(r, RING, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
         mmap(r + RING, RING, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)) {
        munmap(r, 2 * (size_t)RING);
        r = MAP_FAILED;
    }
    close(fd);
    return r == MAP_FAILED ? NULL : r;
}

smc_pinflate *smc_pinflate_new(uint64_t comp, unsigned helpers, size_t segment,
                               const atomic_uint *idle, smc_raw_reader rd, void *ctx)
{
    if (helpers == 0) return NULL;
    if (helpers > HELPERS_MAX) helpers = HELPERS_MAX;
    if (segment == 0) segment = helpers == 1 ? 512u << 10 : 256u << 10;
    uint64_t pieces = (comp + segment - 1) / segment;
    if (pieces < 4 || pieces > (1u << 22) || comp > SIZE_MAX / 2) return NULL;
    if (atomic_flag_test_and_set(&busy)) return NULL; /* another stream has the helpers */
    smc_pinflate *p = calloc(1, sizeof *p);
    if (!p) {
        atomic_flag_clear(&busy);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->raw_lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->rd = rd;
    p->ctx = ctx;
    p->idle = idle;
    p->comp = comp;
    p->segment = segment;
    p->pieces = pieces;
    p->helpers = helpers;
    p->limit = 2 * helpers + 2; /* the reader's piece, its next, and two for each helper */
    p->slot_bytes = (helpers == 1 ? SLOTS_BUDGET : SLOTS_BUDGET / 4 * 3) / p->limit;
    p->head_cap = p->slot_bytes / sizeof(uint16_t);
    p->raw = ring_new();
    p->cand = malloc(pieces * sizeof *p->cand);
    p->slots = calloc(p->limit, sizeof *p->slots);
    if (!p->raw || !p->cand || !p->slots) {
        smc_pinflate_free(p);
        return NULL;
    }
    for (uint64_t k = 0; k < pieces; k++)
        p->cand[k] = UNKNOWN;
    for (unsigned i = 0; i < p->limit; i++)
        p->slots[i] = (slot){.k = i, .state = FREE};
    for (unsigned i = 0; i < helpers; i++) {
        p->args[i] = (helper_arg){p, i};
        if (pthread_create(&p->threads[i], NULL, helper, &p->args[i]) != 0) break;
        p->started++;
    }
    if (p->started == 0) {
        smc_pinflate_free(p);
        return NULL;
    }
    p->helpers = p->started;
    return p;
}

/* Appends what was served to the window. */
static void slide(smc_pinflate *p, const uint8_t *b, size_t n)
{
    if (n >= WINDOW) {
        memcpy(p->win, b + n - WINDOW, WINDOW);
    } else {
        memmove(p->win, p->win + n, WINDOW - n);
        memcpy(p->win + WINDOW - n, b, n);
    }
    p->win_have = p->win_have + n > WINDOW ? WINDOW : p->win_have + n;
}

/* The compressed bytes before byte are no longer needed: the ring may take new ones there. (A
 * helper still on a piece the reader has passed may then read bytes that changed: its piece is
 * never served.) */
static void release(smc_pinflate *p, uint64_t byte)
{
    if (byte > p->released) __atomic_store_n(&p->released, byte, __ATOMIC_RELEASE);
}


/* Moves the reader to piece k (it is past the ones before, or inflating through them itself):
 * their slots are free for the pieces after; one a helper is still on, once it is done. */
static void advance(smc_pinflate *p, uint64_t k)
{
    pthread_mutex_lock(&p->lock);
    uint64_t from = p->base;
    if (k > p->base) p->base = k;
    for (uint64_t j = from; j < k; j++) {
        slot *sl = &p->slots[j % p->limit];
        if (sl->k != j) continue; /* still a helper's, for an older piece */
        if (sl->state == BUSY) sl->abandoned = true;
        else reuse(p, sl);
    }
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

static const char *isal_why(int r)
{
    return r == ISAL_INVALID_BLOCK    ? "invalid deflate block"
           : r == ISAL_INVALID_SYMBOL ? "invalid deflate symbol"
           : r == ISAL_INVALID_LOOKBACK ? "invalid deflate distance"
                                        : "deflate stream not readable";
}

/* Where the reader's own inflating aims, from the bytes it has handed ISA-L: the first guess
 * ahead that a helper has found (the reader does not look itself: on stored or incompressible
 * data it outruns the looking); a piece whose guess is not in yet, a horizon at its first byte,
 * to look again there; past four pieces without one, a horizon after them; the stream's end. */
static void aim(smc_pinflate *p)
{
    uint64_t j = (p->fed + p->segment - 1) / p->segment;
    p->tpiece = NONE;
    p->tbit = NONE;
    p->tbyte = p->comp;
    for (unsigned n = 0; n < 4 && j < p->pieces; n++, j++) {
        uint64_t c = j ? guess_of(p, j) : NONE;
        if (c == UNKNOWN && p->patient) c = candidate(p, p->patient, j);
        if (c == UNKNOWN && j * p->segment > p->fed) break;
        if (c == UNKNOWN || c == NONE || c < p->floor_bit || c / 8 < p->fed) continue;
        p->tpiece = j;
        p->tbit = c;
        p->tbyte = c / 8;
        return;
    }
    if (j < p->pieces) {
        p->tpiece = j; /* a horizon, not a boundary */
        p->tbyte = j * p->segment;
    }
}

/* The reader inflates from p->bit itself, with ISA-L, into buf. */
static bool own_begin(smc_pinflate *p)
{
    if (!p->state && !(p->state = smc_big_alloc(sizeof *p->state))) return false;
    if (!p->snap && !(p->snap = smc_big_alloc(sizeof *p->snap))) return false;
    struct inflate_state *s = p->state;
    isal_inflate_init(s);
    if (p->win_have)
        isal_inflate_set_dict(s, p->win + WINDOW - p->win_have, (uint32_t)p->win_have);
    uint64_t bit = p->bit;
    if (bit % 8) {
        if (ensure(p, bit / 8 + 1) <= bit / 8) return false;
        s->read_in = (uint64_t)*at(p, bit / 8) >> (bit % 8);
        s->read_in_length = (int32_t)(8 - bit % 8);
    }
    p->fed = bit / 8 + (bit % 8 != 0);
    p->floor_bit = bit + 1;
    aim(p);
    p->mode = OWN;
    return true;
}

/* At the aim, with every byte before it inflated: the bits of the last byte that are this
 * piece's, then an empty last block. If ISA-L finishes there, the aim was a block boundary and
 * what came out of those bits waits in p->pend; else the state goes back to before, to go on. */
static bool own_verify(smc_pinflate *p)
{
    struct inflate_state *s = p->state;
    if (p->tbit % 8 && ensure(p, p->tbyte + 1) <= p->tbyte) return false; /* its last bits */
    memcpy(p->snap, s, sizeof *s);
    uint8_t tail[TAIL];
    size_t end = make_tail(tail, *at(p, p->tbyte), (unsigned)(p->tbit % 8));
    s->next_in = tail;
    s->avail_in = TAIL;
    s->next_out = p->pend;
    s->avail_out = sizeof p->pend;
    int rc = isal_inflate(s);
    if (rc >= 0 && at_tail_end(s, end)) {
        p->npend = (size_t)(s->next_out - p->pend);
        p->pend_at = 0;
        return true;
    }
    memcpy(s, p->snap, sizeof *s);
    return false;
}

/* The reader's own inflating, into buf: how many bytes. */
static size_t own_step(smc_pinflate *p, uint8_t *buf, size_t n)
{
    struct inflate_state *s = p->state;
    s->next_out = buf;
    s->avail_out = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    while (s->avail_out) {
        if (s->avail_in == 0 && p->fed < p->tbyte) {
            uint64_t upto = p->tbyte - p->fed > READ_STEP ? p->fed + READ_STEP : p->tbyte;
            uint64_t have = ensure(p, upto);
            if (have > upto) have = upto;
            if (have > p->fed) {
                s->next_in = at(p, p->fed);
                s->avail_in = (uint32_t)(have - p->fed);
                release(p, p->fed > READ_STEP ? p->fed - READ_STEP : 0); /* ISA-L is past it */
                p->fed = have;
            }
        }
        int rc = isal_inflate(s);
        if (rc < 0) {
            p->failed = true;
            p->why = isal_why(rc);
            break;
        }
        if (s->block_state == ISAL_BLOCK_FINISH) {
            p->final = true;
            break;
        }
        if (s->avail_in || !s->avail_out) continue;
        if (p->fed < p->tbyte) { /* no more bytes came: the stream is cut short */
            if (ensure(p, p->fed + 1) > p->fed) continue;
            p->failed = true;
            p->why = p->raw_why ? p->raw_why : "the deflate stream ends early";
            break;
        }
        if (p->tbit == NONE && p->tpiece == NONE) { /* every byte is in, and no end */
            p->failed = true;
            p->why = p->raw_why ? p->raw_why : "the deflate stream ends early";
            break;
        }
        if (p->tbit == NONE) { /* at a horizon: look further */
            advance(p, p->tpiece);
            aim(p);
            continue;
        }
        size_t got = (size_t)(s->next_out - buf);
        if (own_verify(p)) { /* a boundary: the pieces up to it are behind the reader */
            p->bit = p->tbit;
            p->mode = IDLE;
            advance(p, p->tpiece);
            release(p, p->bit / 8);
            return got;
        }
        advance(p, p->tpiece); /* a wrong guess: on to the next; its piece is no use */
        p->floor_bit = p->tbit + 1;
        aim(p);
    }
    return (size_t)(s->next_out - buf);
}

/* Serves from p->serving into buf. */
static size_t serve(smc_pinflate *p, uint8_t *buf, size_t n)
{
    slot *sl = p->serving;
    size_t got = 0;
    if (p->served < sl->nhead) {
        size_t m = sl->nhead - p->served < n ? sl->nhead - p->served : n;
        smc_spec_resolve(sl->head + p->served, m, p->seg_map, buf);
        p->served += m;
        got = m;
    }
    if (got < n && p->served >= sl->nhead) {
        size_t at = p->served - sl->nhead, m = sl->nbody - at < n - got ? sl->nbody - at : n - got;
        if (m) memcpy(buf + got, sl->body + at, m);
        p->served += m;
        got += m;
    }
    return got;
}

/* Whether the markers of a piece's head all point into the have bytes that came before it (near
 * the stream's start, fewer than a window). */
static bool markers_within(const slot *sl, size_t have)
{
    for (size_t i = 0; i < sl->nhead; i++)
        if (sl->head[i] > 255 && sl->head[i] - 256u < WINDOW - have) return false;
    return true;
}

/* The next bytes into buf: what was left of a verified aim, a helper's piece, or the reader's own. */
static size_t step(smc_pinflate *p, uint8_t *buf, size_t n)
{
    if (p->pend_at < p->npend) {
        size_t m = p->npend - p->pend_at < n ? p->npend - p->pend_at : n;
        memcpy(buf, p->pend + p->pend_at, m);
        p->pend_at += m;
        return m;
    }
    if (p->mode == OWN) return own_step(p, buf, n);
    if (p->mode == SERVE) {
        size_t r = serve(p, buf, n);
        slot *sl = p->serving;
        if (p->served == sl->nhead + sl->nbody) {
            p->serving = NULL;
            p->mode = IDLE;
            if (sl->next == NONE) {
                p->final = true;
            } else {
                p->bit = guess_of(p, sl->next);
                advance(p, sl->next);
                release(p, p->bit / 8);
            }
        }
        return r;
    }
    /* At a boundary: a helper's piece if it is done, else the reader's own (a helper still on it
     * is outrun: ISA-L in order is never slower than waiting would be, or only a little). */
    uint64_t k = p->base;
    slot *sl = &p->slots[k % p->limit];
    pthread_mutex_lock(&p->lock);
    int st = MINE;
    if (sl->k == k) {
        while ((sl->state == BUSY || sl->state == FREE) && p->patient) /* a helper will take it */
            pthread_cond_wait(&p->cond, &p->lock);
        if (sl->state == FREE) sl->state = MINE; /* not begun: the reader's */
        if (sl->state == BUSY) sl->abandoned = true;
        else st = sl->state;
    }
    pthread_mutex_unlock(&p->lock);
    if (st == DONE && (p->win_have == WINDOW || markers_within(sl, p->win_have))) {
        p->helped++;
        smc_spec_map(p->win, p->seg_map);
        p->serving = sl;
        p->served = 0;
        p->mode = SERVE;
        return 0;
    }
    p->own++;
    if (!own_begin(p)) {
        p->failed = true;
        p->why = "out of memory";
    }
    return 0;
}

size_t smc_pinflate_read(smc_pinflate *p, uint8_t *buf, size_t n, bool *bad, const char **why)
{
    size_t got = 0;
    while (got < n && !p->failed && !(p->final && p->pend_at == p->npend)) {
        size_t r = step(p, buf + got, n - got);
        p->crc = crc32_gzip_refl(p->crc, buf + got, r);
        slide(p, buf + got, r);
        got += r;
    }
    if (p->final && p->started) stop_helpers(p); /* nothing is left for them */
    if (p->failed) {
        *bad = true;
        *why = p->why;
    }
    return got;
}

bool smc_pinflate_patient(smc_pinflate *p)
{
    smc_spec *sp = smc_spec_new();
    pthread_mutex_lock(&p->lock);
    if (!p->patient) {
        p->patient = sp;
        sp = NULL;
    }
    pthread_cond_broadcast(&p->cond); /* helpers waiting may take the reader's piece now */
    pthread_mutex_unlock(&p->lock);
    smc_spec_free(sp);
    return p->patient != NULL;
}

void smc_pinflate_counts(const smc_pinflate *p, unsigned *helped, unsigned *own)
{
    *helped = p->helped;
    *own = p->own;
}

bool smc_pinflate_done(const smc_pinflate *p, uint32_t *crc)
{
    *crc = p->crc;
    return p->final && !p->failed;
}

void smc_pinflate_free(smc_pinflate *p)
{
    if (!p) return;
    if (p->started) stop_helpers(p);
    if (p->slots)
        for (unsigned i = 0; i < p->limit; i++) {
            smc_big_free(p->slots[i].head, p->slot_bytes);
        }
    free(p->slots);
    free(p->cand);
    if (p->raw) munmap(p->raw, 2 * (size_t)RING);
    smc_big_free(p->state, sizeof *p->state);
    smc_big_free(p->snap, sizeof *p->snap);
    smc_spec_free(p->patient);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->raw_lock);
    pthread_cond_destroy(&p->cond);
    free(p);
    atomic_flag_clear(&busy);
}

#endif
