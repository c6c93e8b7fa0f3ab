/* stream_headers.c: a stream's windows, every container header in them followed as its bytes
 * pass (with the last non-zero byte before it and the first after it, which the rules ask
 * for), and the names a stream must remember because the layout comes last: the CUDA runtime
 * a library needs and the section names that went by. */
#include "find_private.h"

#include <stdlib.h>
#include <string.h>

typedef struct window_ctx {
    smc_finder *f;
    uint64_t base; /* file offset of buf[0] */
    const uint8_t *buf; /* what is searched: the window, or the seam before it */
    size_t len;
    const uint8_t *win; /* the window, at file offset f->wbase */
    size_t wlen;
    bool seam; /* headers that start before the window and end in it */
} window_ctx;

/* The last non-zero byte before file offset at (at most the window's end): in the window, in the
 * tail before it, or before that. */
static uint64_t prev_nonzero(const smc_finder *f, const uint8_t *win, uint64_t at)
{
    uint64_t wb = f->wbase;
    for (uint64_t i = at; i > wb;)
        if (win[--i - wb] != 0) return i;
    for (size_t k = f->tail_len; k > 0; k--) {
        uint64_t off = wb - (f->tail_len - k) - 1; /* the file offset of tail[k - 1] */
        if (off < at && f->tail[k - 1] != 0) return off;
    }
    return f->tail_prev;
}

static void cudart_seen_at(smc_finder *f, uint64_t at, const uint8_t *p, size_t n);
static void names_seen_at(smc_finder *f, uint64_t at, const uint8_t *win, size_t n);

enum { NEEDLE_CUDART, NEEDLE_NAMES, NEEDLE_CUDART_DLL, NEEDLE_LIBN };

static bool on_header(void *ctx, size_t i, int which)
{
    window_ctx *w = ctx;
    smc_finder *f = w->f;
    uint64_t off = w->base + i;
    if (which == NEEDLE_CUDART || which == NEEDLE_CUDART_DLL || which == NEEDLE_LIBN) {
        cudart_seen_at(f, off, w->buf + i, w->len - i);
        return !f->failed;
    }
    if (which == NEEDLE_NAMES) {
        names_seen_at(f, off, w->win, w->wlen);
        return !f->failed;
    }
    if (w->seam && (off >= f->wbase || off + 8 <= f->wbase)) return true; /* seen elsewhere */
    if (f->open_count >= OPEN_MAX || f->hit_count > f->max_containers) {
        fnd_spill(f); /* hostile nesting, or a flood of headers */
        return false;
    }
    size_t k = fnd_new_hit(f, off);
    if (k == SIZE_MAX) return false;
    f->hits[k].prev_nonzero = prev_nonzero(f, w->win, off);
    cparse *cp = smc_push(&f->open, f->open_count, sizeof *cp);
    if (!cp) return fnd_nomem(f), false;
    *cp = fnd_start_parse(k, off);
    f->open_count++;
    if (off < f->wbase) { /* the header's first bytes are in the tail */
        size_t n = (size_t)(f->wbase - off);
        memcpy(cp->hdr, f->tail + f->tail_len - n, n);
        cp->have = (unsigned)n;
    }
    if (fnd_advance(f, cp, f->wbase, w->win, w->wlen)) {
        fnd_settle(f, cp);
        *cp = f->open[--f->open_count];
    }
    return !f->failed;
}


/* "libcudart.so." at file offset off: the runtime version of libcudart.so.N[.M] (as DT_NEEDED
 * names it: N, then NUL or a dot; CUDA 10 and before name the minor too, libcudart.so.10.1) or of
 * a DLL's cudart64_NN.dll (cudart64_101.dll is 10.1, cudart64_12.dll 12), as N*100 + M;
 * NEEDED_C10 for PyTorch's libc10 (libc10.so, libc10_cuda.so: the library was built against
 * PyTorch), or 0. */
static unsigned digits(const uint8_t *p, size_t n, size_t *i)
{
    unsigned v = 0;
    while (*i < n && p[*i] >= '0' && p[*i] <= '9' && v < 1000)
        v = v * 10 + (unsigned)(p[(*i)++] - '0');
    return v;
}

unsigned fnd_cudart_version(const uint8_t *p, size_t n)
{
    static const char *const c10[] = {"libc10.so", "libc10_cuda.so"};
    for (size_t k = 0; k < 2; k++) {
        size_t len = strlen(c10[k]);
        if (n > len && memcmp(p, c10[k], len) == 0 && (p[len] == 0 || p[len] == '.'))
            return NEEDED_C10;
    }
    static const char dll[] = "cudart64_";
    const size_t d = sizeof dll - 1;
    if (n >= d + 6 && memcmp(p, dll, d) == 0) { /* a DLL import: cudart64_12.dll, _110.dll */
        size_t i = d;
        unsigned v = digits(p, n, &i);
        if (i == d || n - i < 5 || memcmp(p + i, ".dll", 4) != 0 || p[i + 4] != 0) return 0;
        return v >= 50 ? v / 10 * 100 + v % 10 : v * 100; /* 110 is 11.0, 92 is 9.2, 12 is 12 */
    }
    static const char key[] = "libcudart.so.";
    const size_t k = sizeof key - 1;
    if (n < k + 2 || memcmp(p, key, k) != 0) return 0;
    size_t i = k;
    unsigned major = digits(p, n, &i), minor = 0;
    if (i == k || i >= n || (p[i] != 0 && p[i] != '.')) return 0;
    if (p[i] == '.' && major <= 10) { /* libcudart.so.10.1: the minor is the runtime's */
        size_t j = ++i;
        minor = digits(p, n, &i);
        if (i == j || minor > 9 || i >= n || (p[i] != 0 && p[i] != '.')) minor = 0;
    }
    return major * 100 + minor;
}

/* Remembers every libcudart.so.N string, and every CUDA library's soname: DT_NEEDED names one by
 * its offset in .dynstr, which goes by before .dynamic says where it is. p holds n bytes from
 * file offset at on. */
static void cudart_seen_at(smc_finder *f, uint64_t at, const uint8_t *p, size_t n)
{
    unsigned major = fnd_cudart_version(p, n);
    size_t len = smc_cuda_soname(p, n);
    if ((!major && !len) || (f->cudart_count && f->cudart[f->cudart_count - 1].offset >= at))
        return;
    if (f->cudart_count >= CUDART_MAX) {
        f->cudart_over = true;
        return;
    }
    cudart_seen *c = smc_push(&f->cudart, f->cudart_count, sizeof *c);
    if (!c) {
        fnd_nomem(f);
        return;
    }
    *c = (cudart_seen){at, major, ""};
    memcpy(c->name, p, len); /* len < SMC_SONAME_MAX */
    f->cudart_count++;
}

/* The section names are usually near the section table, but not always (tensorflow keeps them
 * 9 MiB before it): their own name, ".shstrtab", going by is a hint of where they are, so the
 * bytes around it are kept. When the table says they lie there, no second pass is needed; the
 * bytes are the same either way. */
static void names_seen_at(smc_finder *f, uint64_t at, const uint8_t *win, size_t n)
{
    for (size_t i = 0; i < f->guess_count; i++)
        if (at >= f->guesses[i].from && at - f->guesses[i].from < f->guesses[i].len) return;
    /* Every cubin has names of its own: those inside a container being read are not the file's. */
    for (size_t i = 0; i < f->open_count; i++) {
        const hit *h = &f->hits[f->open[i].hit];
        if (h->header_ok && at >= h->start && at < h->end) return;
    }
    /* The last few are kept: the file's names come after its device code. */
    capture *c;
    if (f->guess_count < NAME_GUESSES) {
        c = &f->guesses[f->guess_count++];
    } else {
        fnd_capture_clear(&f->guesses[0]);
        memmove(f->guesses, f->guesses + 1, (NAME_GUESSES - 1) * sizeof *f->guesses);
        c = &f->guesses[NAME_GUESSES - 1];
    }
    uint64_t from = at > NAMES_NEAR ? at - NAMES_NEAR : 0;
    *c = (capture){.from = from, .len = at + NAMES_NEAR - from, .pass = f->pass};
    if (!(c->bytes = malloc(c->len))) {
        fnd_nomem(f);
        return;
    }
    c->owned = true;
    /* What went by already: the back buffer holds the bytes just before the window. */
    uint64_t back_from = f->wbase - f->back_len;
    if (from < back_from) { /* too far back: keep from where the back buffer starts */
        c->len -= back_from - from;
        c->from = from = back_from;
    }
    if (from < f->wbase) {
        size_t k = (size_t)(f->wbase - from);
        memcpy(c->bytes, f->back + f->back_len - k, k);
        c->have = k;
    }
    fnd_keep(f, c, f->wbase, win, n);
}

/* After a container, the first non-zero byte past its end (garbage, or the next container). */
static void watch_ends(smc_finder *f, uint64_t base, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < f->watch_count;) {
        hit *h = &f->hits[f->watch[i]];
        uint64_t at = h->end > base ? h->end : base;
        while (at < base + n && b[at - base] == 0)
            at++;
        if (at < base + n) {
            h->next_nonzero = at;
            f->watch[i] = f->watch[--f->watch_count];
        } else {
            i++;
        }
    }
}

void fnd_stream_window(smc_finder *f, uint64_t base, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < f->open_count;) {
        if (fnd_advance(f, &f->open[i], base, p, n)) {
            fnd_settle(f, &f->open[i]);
            f->open[i] = f->open[--f->open_count];
        } else {
            i++;
        }
    }
    /* What straddles the tail and this window, then the window itself. */
    uint8_t seam[sizeof f->tail + 31];
    size_t lead = n < 31 ? n : 31;
    memcpy(seam, f->tail, f->tail_len);
    memcpy(seam + f->tail_len, p, lead);
    /* "libc": libcudart.so.N, the other libcu*, and libc10 (a PyTorch extension); "libn":
     * libnvrtc, libnccl, libnvJitLink; a few hits a library. */
    static const smc_needle needles[] = {{(const uint8_t *)"libc", 4},
                                         {(const uint8_t *)".shstrtab", 10},
                                         {(const uint8_t *)"cudart64_", 9},
                                         {(const uint8_t *)"libn", 4}};
    window_ctx ws = {f, base - f->tail_len, seam, f->tail_len + lead, p, n, true};
    window_ctx w = {f, base, p, n, p, n, false};
    for (size_t i = 0; i < f->guess_count; i++)
        fnd_keep(f, &f->guesses[i], base, p, n);
    smc_fatbin_scan(seam, ws.len, needles, 4, on_header, &ws);
    smc_fatbin_scan(p, n, needles, 4, on_header, &w);
    watch_ends(f, base, p, n);
    /* The back buffer: the last BACK bytes before the next window. */
    size_t want = n >= BACK || f->back_len + n > BACK ? BACK : f->back_len + n;
    if (want > f->back_cap) {
        size_t cap = f->back_cap ? f->back_cap : 256;
        while (cap < want)
            cap *= 2;
        uint8_t *grown = realloc(f->back, cap < BACK ? cap : BACK);
        if (!grown) {
            fnd_nomem(f);
            return;
        }
        f->back = grown;
        f->back_cap = cap < BACK ? cap : BACK;
    }
    if (n >= BACK) {
        memcpy(f->back, p + n - BACK, BACK);
        f->back_len = BACK;
    } else if (n) { /* (an empty window leaves it, perhaps not made yet, as it is) */
        size_t old = f->back_len + n > BACK ? BACK - n : f->back_len;
        memmove(f->back, f->back + f->back_len - old, old);
        memcpy(f->back + old, p, n);
        f->back_len = old + n;
    }
    /* The new tail: the last bytes of tail and window, and the last non-zero byte before it. */
    if (n >= sizeof f->tail) {
        f->tail_prev = prev_nonzero(f, p, base + n - sizeof f->tail);
        memcpy(f->tail, p + n - sizeof f->tail, sizeof f->tail);
        f->tail_len = sizeof f->tail;
    } else {
        size_t old = f->tail_len + n > sizeof f->tail ? sizeof f->tail - n : f->tail_len;
        f->tail_prev = prev_nonzero(f, p, base - old);
        memmove(f->tail, f->tail + f->tail_len - old, old);
        memcpy(f->tail + old, p, n);
        f->tail_len = old + n;
    }
}
