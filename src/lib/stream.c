/* stream.c: finds the containers of a file whose bytes pass once, in order, and are not kept (a
 * wheel member being inflated): memory stays bounded whatever the file's size. Every 8-aligned
 * container header starts a parse that follows its entries' headers as the bytes go by, keeping
 * only those headers (and, for --verify and the kernel check, a bounded copy of an entry). At the
 * end the section table, kept as it passed near the file's end, says which parses lay in a fatbin
 * section (taken as a walk takes them) and which elsewhere (taken only when whole and strict),
 * just as elf.c decides for a mapped file. The bytes are untrusted; limits bound every copy. */
#include "internal.h"

#include <stdlib.h>

#define BLOCK (1u << 20)            /* bytes examined at a time; blocks start 8-aligned */
#define HEAD_KEEP 4096u             /* the file's first bytes: ELF header, signature */
#define TABLE_LEAD (1u << 20)       /* bytes kept before the section table (.shstrtab lies there) */
#define TABLE_MAX (4u << 20)        /* a larger section table is not kept */
#define PARSES_MAX 16u              /* containers followed at once (nested candidates) */
#define KERNEL_CAPTURE (256u << 10) /* cubins up to this size are kept for the kernel check */
#define KEPT_MAX (4u << 20)         /* and no more than this per container */
#define VERIFY_CAPTURE (64ull << 20) /* entries up to this size are kept for --verify */

static const char RELFATBIN[] = "__nv_relfatbin";

typedef struct note {
    uint64_t offset;
    char *message;
} note;

/* A container header seen in the stream, and what following it found. */
typedef struct hit {
    uint64_t start, end; /* end is 0 when the size was not sound */
    bool ok;             /* parsed entry by entry to its end */
    bool strict;         /* acceptable outside a fatbin section too: entries, all version 0x0101 */
    int kernels;         /* -1 unknown, else whether a captured cubin has a .text.* section */
    uint64_t nonzero;    /* the first non-zero byte after a whole container (garbage check) */
    smc_image *images;
    size_t image_count;
    note *notes; /* --verify findings */
    size_t note_count;
    smc_fatbin_error err;
} hit;

typedef struct kept { /* a cubin held for the kernel check */
    uint8_t *bytes;   /* the entry, from its header on */
    uint64_t len;
    smc_image img; /* offset 0 */
} kept;

typedef struct parse {
    hit h;
    kept *keep; /* when judging: the container's cubins, checked at its end if it would fail */
    size_t kept_count;
    uint64_t kept_bytes;
    uint64_t next;   /* where the next header starts */
    uint8_t hdr[64]; /* the header being read: 16 bytes of container or 64 of entry */
    unsigned have, want;
    bool in_entries;  /* past the container header */
    bool cubins_only; /* every non-LTO image so far a cubin, each captured */
    uint8_t *cap;     /* the entry being kept, from its header on */
    uint64_t cap_start, cap_len, cap_have;
    smc_image cap_img; /* its image, offset made relative to cap */
} parse;

struct smc_stream {
    const smc_options *opt;
    uint64_t total; /* the size the archive claims; UINT64_MAX unknown */
    uint64_t pos;   /* bytes fed so far */
    uint8_t *block;
    size_t block_len;
    uint8_t head[HEAD_KEEP];
    size_t head_len;
    bool layout_known;
    uint64_t region_start, region_end; /* kept around the section table */
    uint8_t *region;
    parse parses[PARSES_MAX];
    size_t active;
    hit *hits;
    size_t hit_count;
    size_t watch[PARSES_MAX]; /* hits whose first non-zero byte after their end is not seen yet */
    size_t watching;
    unsigned cudart_major;
    uint8_t seam[64]; /* the last bytes of the previous block, for strings across blocks */
    size_t seam_len;
    void *zctx;
    smc_status failed; /* out of memory at some point */
    uint64_t max_hits; /* containers recorded at most (the per-file limit, and some room) */
    bool limited;      /* more were seen */
};

smc_stream *smc_stream_new(const smc_options *opt, uint64_t total)
{
    smc_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->opt = opt;
    s->total = total;
    s->max_hits = smc_limit(opt ? opt->max_containers : 0, 1000000) + 64;
    s->block = malloc(BLOCK);
    if (!s->block || (opt && (opt->verify || opt->target_count) && !(s->zctx = smc_zstd_new()))) {
        smc_stream_free(s);
        return NULL;
    }
    return s;
}

static bool judging(const smc_stream *s)
{
    return s->opt && s->opt->target_count;
}

static void drop_kept(parse *p)
{
    for (size_t i = 0; i < p->kept_count; i++)
        free(p->keep[i].bytes);
    free(p->keep);
    p->keep = NULL;
    p->kept_count = 0;
    p->kept_bytes = 0;
}

static void hit_clear(hit *h)
{
    for (size_t i = 0; i < h->note_count; i++)
        free(h->notes[i].message);
    free(h->notes);
    free(h->images);
    *h = (hit){0};
}

void smc_stream_free(smc_stream *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->active; i++) {
        hit_clear(&s->parses[i].h);
        free(s->parses[i].cap);
        drop_kept(&s->parses[i]);
    }
    for (size_t i = 0; i < s->hit_count; i++)
        hit_clear(&s->hits[i]);
    free(s->hits);
    free(s->region);
    free(s->block);
    smc_zstd_free(s->zctx);
    free(s);
}

/* Where the section table lies, from the ELF header: the bytes around it are kept. */
static void learn_layout(smc_stream *s)
{
    s->layout_known = true;
    const uint8_t *h = s->head;
    if (s->head_len < 64 || memcmp(h, "\177ELF", 4) != 0) return;
    bool is64 = h[4] == 2, big = h[5] == 2;
    uint64_t shoff = 0, entsize = 0, num = 0;
    for (int i = 0; i < (is64 ? 8 : 4); i++)
        shoff |= (uint64_t)h[(is64 ? 0x28 : 0x20) + (big ? (is64 ? 7 : 3) - i : i)] << (8 * i);
    for (int i = 0; i < 2; i++) {
        entsize |= (uint64_t)h[(is64 ? 0x3a : 0x2e) + (big ? 1 - i : i)] << (8 * i);
        num |= (uint64_t)h[(is64 ? 0x3c : 0x30) + (big ? 1 - i : i)] << (8 * i);
    }
    uint64_t table = (num ? num : 1) * entsize;
    if (shoff == 0 || table > TABLE_MAX) return;
    s->region_start = shoff > TABLE_LEAD ? shoff - TABLE_LEAD : 0;
    s->region_end = shoff + table;
}

static smc_status add_note(hit *h, uint64_t offset, const smc_image *img, const char *msg)
{
    note *n = smc_push(&h->notes, h->note_count, sizeof *n);
    if (!n) return SMC_ERR_NOMEM;
    char tok[SMC_TOKEN_MAX];
    if (!(n->message = smc_asprintf("%s image: %s", smc_image_token(img, tok), msg)))
        return SMC_ERR_NOMEM;
    n->offset = offset;
    h->note_count++;
    return SMC_OK;
}

/* A captured entry is complete: check it (--verify), and keep a cubin for the kernel check. */
static smc_status captured(smc_stream *s, parse *p)
{
    smc_fatbin_error err;
    smc_status st = SMC_OK;
    const smc_image *img = &p->cap_img;
    if (s->opt && s->opt->verify) {
        st = smc_image_check(p->cap, p->cap_len, img, s->zctx, &err);
        if (st == SMC_ERR_FORMAT) st = add_note(&p->h, p->cap_start, img, err.message);
    }
    if (st == SMC_OK && img->kind == SMC_IMAGE_CUBIN && p->cubins_only && judging(s)) {
        kept *k = smc_push(&p->keep, p->kept_count, sizeof *k);
        if (!k) return SMC_ERR_NOMEM;
        *k = (kept){p->cap, p->cap_len, *img};
        p->kept_count++;
        p->kept_bytes += p->cap_len;
        p->cap = NULL;
        return SMC_OK;
    }
    free(p->cap);
    p->cap = NULL;
    return st == SMC_ERR_FORMAT ? SMC_OK : st;
}

/* At a whole container's end: does a kept cubin hold a kernel? Asked only of a container that
 * would fail some target, as the mapped path asks. 1 yes, 0 no, -1 cannot tell. */
static int kernels_of(smc_stream *s, parse *p)
{
    if (!p->cubins_only || !judging(s)) return -1;
    if (!smc_container_would_fail(p->h.images, p->h.image_count, s->opt->targets,
                                  s->opt->target_count, s->opt->driver_cuda))
        return -1; /* it will not be asked */
    for (size_t i = 0; i < p->kept_count; i++) {
        uint8_t *data = NULL;
        smc_cubin_info info;
        smc_fatbin_error err;
        bool read = smc_image_payload_with(p->keep[i].bytes, p->keep[i].len, &p->keep[i].img,
                                           s->zctx, &data, &err) == SMC_OK &&
                    smc_cubin_inspect(data, p->keep[i].img.size, &info, &err) == SMC_OK;
        free(data);
        if (!read || info.has_kernels) return 1; /* what cannot be read is assumed to count */
    }
    return 0;
}

/* A header is complete: act on it. Returns true when the parse has failed (p->h.err says why);
 * a container whose last entry has been read is marked ok and ends once that entry's kept bytes,
 * if any, are in. */
static bool header_done(smc_stream *s, parse *p)
{
    smc_fatbin_error *err = &p->h.err;
    uint64_t next;
    if (!p->in_entries) {
        if (smc_fatbin_header(p->hdr, p->h.start, s->total, SMC_FATBIN_SECTION, &next, &p->h.end,
                              err) != SMC_OK)
            return true;
        p->in_entries = true;
        p->h.strict = p->h.end > next; /* an empty container counts only in a fatbin section */
    } else {
        smc_image img;
        if (smc_fatbin_entry(p->hdr, p->next, p->h.end, SMC_FATBIN_SECTION, &img, &next, err) !=
            SMC_OK)
            return true;
        p->h.strict &= smc_le16(p->hdr + 2) == 0x0101;
        smc_image *slot = smc_push(&p->h.images, p->h.image_count, sizeof *slot);
        if (!slot) {
            s->failed = SMC_ERR_NOMEM;
            return true;
        }
        *slot = img;
        p->h.image_count++;
        uint64_t len = next - p->next;
        bool verify = s->opt && s->opt->verify && img.kind != SMC_IMAGE_LTO;
        if (img.kind == SMC_IMAGE_PTX) p->cubins_only = false;
        bool kernel = img.kind == SMC_IMAGE_CUBIN && p->cubins_only && judging(s);
        if (kernel && (len > KERNEL_CAPTURE || p->kept_bytes + len > KEPT_MAX))
            p->cubins_only = kernel = false; /* a large cubin is taken to hold kernels */
        if ((verify && len <= VERIFY_CAPTURE) || kernel) {
            if (!(p->cap = malloc(len))) {
                s->failed = SMC_ERR_NOMEM;
                return true;
            }
            memcpy(p->cap, p->hdr, 64);
            p->cap_start = p->next;
            p->cap_len = len;
            p->cap_have = 64;
            p->cap_img = img;
            p->cap_img.offset = 0;
        } else if (verify && add_note(&p->h, p->next, &img,
                                      "not verified: too large to hold from a stream") != SMC_OK) {
            s->failed = SMC_ERR_NOMEM;
            return true;
        }
    }
    p->next = next;
    p->have = 0;
    p->want = 64;
    if (next == p->h.end) { /* the last entry ends the container exactly */
        p->h.ok = true;
        return false;
    }
    if (p->h.end - next < 64) {
        snprintf(err->message, sizeof err->message,
                 "entry header truncated: %llu bytes left in the container",
                 (unsigned long long)(p->h.end - next));
        err->offset = next;
        return true;
    }
    return false;
}

/* Feeds the block [base, base+len) to a parse; returns true when the parse has ended. */
static bool advance(smc_stream *s, parse *p, uint64_t base, const uint8_t *b, size_t len)
{
    uint64_t end = base + len;
    for (;;) {
        if (p->cap) { /* keep the entry's bytes up to its end */
            uint64_t at = p->cap_start + p->cap_have;
            if (at < base) at = base;
            uint64_t stop = p->cap_start + p->cap_len < end ? p->cap_start + p->cap_len : end;
            if (at < stop) {
                memcpy(p->cap + (at - p->cap_start), b + (at - base), stop - at);
                p->cap_have = stop - p->cap_start;
            }
            if (p->cap_have < p->cap_len) return false;
            smc_status st = captured(s, p);
            if (st != SMC_OK) s->failed = st;
        }
        if (p->h.ok) return true;
        uint64_t at = p->next + p->have;
        if (at >= end || at < base) return false;
        size_t n = (size_t)(end - at) < p->want - p->have ? (size_t)(end - at) : p->want - p->have;
        memcpy(p->hdr + p->have, b + (at - base), n);
        p->have += (unsigned)n;
        if (p->have < p->want) return false;
        if (header_done(s, p)) return true;
    }
}

/* Moves an ended parse to the hits. */
static void settle(smc_stream *s, size_t i)
{
    parse *p = &s->parses[i];
    p->h.kernels = p->h.ok ? kernels_of(s, p) : -1;
    drop_kept(p);
    free(p->cap);
    p->h.nonzero = UINT64_MAX;
    if (s->hit_count >= s->max_hits) { /* a hostile file: the rest are not recorded */
        s->limited = true;
        hit_clear(&p->h);
        s->parses[i] = s->parses[--s->active];
        return;
    }
    hit *slot = smc_push(&s->hits, s->hit_count, sizeof *slot);
    if (!slot) {
        s->failed = SMC_ERR_NOMEM;
        hit_clear(&p->h);
    } else {
        *slot = p->h;
        if (slot->ok && s->watching < PARSES_MAX) s->watch[s->watching++] = s->hit_count;
        s->hit_count++;
    }
    s->parses[i] = s->parses[--s->active];
}

/* After a whole container, a fatbin section holds zero padding or the next container; anything
 * else is garbage that a walk reports. Look for the first non-zero byte past each end. */
static void watch_ends(smc_stream *s, uint64_t base, const uint8_t *b, size_t len)
{
    for (size_t i = 0; i < s->watching;) {
        hit *h = &s->hits[s->watch[i]];
        uint64_t at = h->end > base ? h->end : base;
        while (at < base + len && b[at - base] == 0)
            at++;
        if (at < base + len) {
            h->nonzero = at;
            s->watch[i] = s->watch[--s->watching];
        } else {
            i++;
        }
    }
}

/* "libcudart.so.N" as a whole string (NUL on both sides): the runtime it needs (DT_NEEDED). */
static void find_cudart(smc_stream *s, const uint8_t *b, size_t len)
{
    static const char key[] = "libcudart.so.";
    const size_t k = sizeof key - 1;
    for (const uint8_t *q = b; (q = memchr(q, 'l', len - (size_t)(q - b))) != NULL; q++) {
        size_t left = len - (size_t)(q - b);
        if (left < k + 2) break;
        if (memcmp(q, key, k) != 0 || (q > b && q[-1] != 0)) continue;
        unsigned major = 0;
        size_t i = k;
        while (i < left && q[i] >= '0' && q[i] <= '9' && major < 1000)
            major = major * 10 + (unsigned)(q[i++] - '0');
        if (i > k && i < left && q[i] == 0 && major > s->cudart_major) s->cudart_major = major;
    }
}

static void examine(smc_stream *s, const uint8_t *b, size_t len)
{
    uint64_t base = s->pos - len;
    if (base < HEAD_KEEP) {
        size_t n = HEAD_KEEP - (size_t)base < len ? HEAD_KEEP - (size_t)base : len;
        memcpy(s->head + base, b, n);
        s->head_len = (size_t)base + n;
    }
    if (!s->layout_known && (s->head_len >= 64 || s->head_len == s->pos)) learn_layout(s);
    if (s->region_end > s->region_start && base + len > s->region_start && base < s->region_end) {
        if (!s->region && !(s->region = malloc(s->region_end - s->region_start))) {
            s->failed = SMC_ERR_NOMEM;
            return;
        }
        uint64_t from = base > s->region_start ? base : s->region_start;
        uint64_t to = base + len < s->region_end ? base + len : s->region_end;
        memcpy(s->region + (from - s->region_start), b + (from - base), to - from);
    }
    /* The runtime's name may straddle two blocks: look at the seam too. */
    uint8_t seam[128];
    size_t lead = len < 64 ? len : 64;
    memcpy(seam, s->seam, s->seam_len);
    memcpy(seam + s->seam_len, b, lead);
    find_cudart(s, seam, s->seam_len + lead);
    find_cudart(s, b, len);
    s->seam_len = len < 64 ? len : 64;
    memcpy(s->seam, b + len - s->seam_len, s->seam_len);

    for (size_t i = 0; i < s->active;)
        if (advance(s, &s->parses[i], base, b, len))
            settle(s, i);
        else
            i++;
    /* New container headers in this block (blocks start 8-aligned in the file). */
    for (uint64_t at = smc_fatbin_find(b, 0, len); at < len; at = smc_fatbin_find(b, at + 8, len)) {
        if (s->active == PARSES_MAX) { /* hostile nesting: the rest is not followed */
            hit h = {.start = base + at, .kernels = -1};
            snprintf(h.err.message, sizeof h.err.message,
                     "more than %u container headers inside one another", PARSES_MAX);
            h.err.offset = base + at;
            hit *slot = smc_push(&s->hits, s->hit_count, sizeof *slot);
            if (slot) {
                *slot = h;
                s->hit_count++;
            }
            continue;
        }
        parse *p = &s->parses[s->active++];
        *p = (parse){.h = {.start = base + at, .kernels = -1},
                     .next = base + at,
                     .want = 16,
                     .cubins_only = true};
        if (advance(s, p, base, b, len)) settle(s, s->active - 1);
    }
    watch_ends(s, base, b, len);
}

uint8_t *smc_stream_space(smc_stream *s, size_t *room)
{
    *room = BLOCK - s->block_len;
    return s->block + s->block_len;
}

smc_status smc_stream_commit(smc_stream *s, size_t n)
{
    s->block_len += n;
    s->pos += n;
    if (s->block_len == BLOCK && !s->failed) {
        examine(s, s->block, BLOCK);
        s->block_len = 0;
    }
    return s->failed;
}

smc_status smc_stream_feed(smc_stream *s, const uint8_t *data, size_t n)
{
    while (n && !s->failed) {
        size_t room;
        uint8_t *space = smc_stream_space(s, &room);
        size_t part = room < n ? room : n;
        memcpy(space, data, part);
        data += part;
        n -= part;
        smc_stream_commit(s, part);
    }
    return s->failed;
}

static int by_start(const void *a, const void *b)
{
    const hit *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

typedef struct taken {
    size_t hit;
    const char *section;
    bool relocatable;
} taken;

static smc_status take(taken **v, size_t *n, size_t h, const char *section)
{
    taken *t = smc_push(v, *n, sizeof *t);
    if (!t) return SMC_ERR_NOMEM;
    *t = (taken){h, section, section && strcmp(section, RELFATBIN) == 0};
    (*n)++;
    return SMC_OK;
}

/* Walks a fatbin section over the hits, as smc_fatbin_walk walks its bytes: containers back to
 * back; a bad one is reported and the walk goes on past it (or at the next header). */
static smc_status walk_section(smc_library *lib, const hit *hits, size_t n, const smc_section *sec,
                               taken **out, size_t *count)
{
    uint64_t end = sec->offset + sec->size, cursor = sec->offset, nonzero = UINT64_MAX;
    smc_status st = SMC_OK;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        const hit *h = &hits[i];
        if (h->start < cursor || h->start >= end) continue;
        if (nonzero < h->start) /* bytes after the last container that are neither 0 nor one */
            st = smc_library_add_finding(lib, nonzero,
                                         "%llu bytes in %s at +0x%llx are no container",
                                         (unsigned long long)(h->start - nonzero), sec->name,
                                         (unsigned long long)(nonzero - sec->offset));
        nonzero = UINT64_MAX;
        if (st != SMC_OK) break;
        if (h->end > end) {
            st = smc_library_add_finding(lib, h->start,
                                         "container in %s at +0x%llx: container of %llu bytes runs "
                                         "past the end (%llu bytes left)",
                                         sec->name, (unsigned long long)(h->start - sec->offset),
                                         (unsigned long long)(h->end - h->start - 16),
                                         (unsigned long long)(end - h->start - 16));
            cursor = h->start + 8;
        } else if (h->ok) {
            st = take(out, count, i, sec->name);
            cursor = h->end;
            nonzero = h->nonzero;
        } else {
            st = smc_library_add_finding(lib, h->err.offset, "container in %s at +0x%llx: %s",
                                         sec->name, (unsigned long long)(h->start - sec->offset),
                                         h->err.message);
            cursor = h->end ? h->end : h->start + 8;
        }
    }
    return st;
}

static int by_hit(const void *a, const void *b)
{
    const taken *x = a, *y = b;
    return x->hit < y->hit ? -1 : x->hit > y->hit;
}

/* The kernel flags of the containers, for the judge's probe. */
typedef struct flags {
    // cppcheck-suppress unusedStructMember ; read in probe through ctx
    const int *kernels;
} flags;

static bool probe(void *ctx, const smc_library *lib, size_t index)
{
    (void)lib;
    return ((const flags *)ctx)->kernels[index] != 0;
}

smc_status smc_stream_finish(smc_stream *s, smc_input *in, const char *name)
{
    if (s->failed) return s->failed;
    if (s->block_len) examine(s, s->block, s->block_len);
    while (s->active) { /* cut off by the end of the stream */
        parse *p = &s->parses[s->active - 1];
        if (!p->h.err.message[0]) {
            snprintf(p->h.err.message, sizeof p->h.err.message,
                     "container runs past the end of the file (%llu bytes)",
                     (unsigned long long)s->pos);
            p->h.err.offset = p->h.start;
        }
        p->h.ok = false;
        p->h.end = 0;
        settle(s, s->active - 1);
    }
    if (s->failed) return s->failed;
    if (s->hit_count) qsort(s->hits, s->hit_count, sizeof *s->hits, by_start);

    smc_library *lib = smc_library_new(name);
    if (!lib) return SMC_ERR_NOMEM;
    smc_library_limits(lib, s->opt);
    smc_section *secs = NULL;
    size_t nsecs = 0;
    bool elf = s->head_len >= 4 && memcmp(s->head, "\177ELF", 4) == 0;
    smc_status st = SMC_OK;
    if (elf)
        st = smc_elf_stream_sections(lib, s->head, s->head_len, s->region, s->region_start,
                                     s->region ? (size_t)(s->region_end - s->region_start) : 0,
                                     s->pos, &secs, &nsecs);
    smc_section whole = {NULL, 0, s->pos, true}; /* a raw fat binary walks as one section */
    if (!elf) {
        secs = &whole;
        nsecs = 1;
    }

    taken *t = NULL;
    size_t nt = 0;
    for (size_t i = 0; i < nsecs && st == SMC_OK; i++)
        if (secs[i].walk) st = walk_section(lib, s->hits, s->hit_count, &secs[i], &t, &nt);
    /* Elsewhere, whole strict containers in offset order, none inside another or a section. */
    uint64_t cursor = 0;
    for (size_t i = 0; i < s->hit_count && st == SMC_OK; i++) {
        const hit *h = &s->hits[i];
        if (h->start < cursor || !h->ok || !h->strict) continue;
        bool clash = false;
        for (size_t k = 0; k < nsecs && !clash; k++)
            clash =
                secs[k].walk && h->start < secs[k].offset + secs[k].size && h->end > secs[k].offset;
        if (clash) continue;
        st = take(&t, &nt, i, smc_section_at(secs, nsecs, h->start));
        cursor = (h->end + 7) & ~(uint64_t)7;
    }
    if (nt) qsort(t, nt, sizeof *t, by_hit);

    int *kernels = calloc(nt ? nt : 1, sizeof *kernels);
    if (!kernels && st == SMC_OK) st = SMC_ERR_NOMEM;
    bool over = s->limited;
    for (size_t i = 0; i < nt && st == SMC_OK; i++) {
        hit *h = &s->hits[t[i].hit];
        if (lib->container_count >= lib->max_containers ||
            lib->image_count + h->image_count > lib->max_images) {
            over = true;
            break;
        }
        smc_container *c = smc_push(&lib->containers, lib->container_count, sizeof *c);
        if (!c) {
            st = SMC_ERR_NOMEM;
            break;
        }
        *c = (smc_container){.offset = h->start,
                             .size = h->end - h->start,
                             .relocatable = t[i].relocatable,
                             .first_image = lib->image_count,
                             .image_count = h->image_count};
        lib->container_count++;
        if (t[i].section && !(c->section = smc_strdup_clean(t[i].section))) st = SMC_ERR_NOMEM;
        for (size_t k = 0; k < h->image_count && st == SMC_OK; k++) {
            smc_image *img = smc_push(&lib->images, lib->image_count, sizeof *img);
            if (!img)
                st = SMC_ERR_NOMEM;
            else {
                *img = h->images[k];
                lib->image_count++;
            }
        }
        for (size_t k = 0; k < h->note_count && st == SMC_OK; k++)
            st = smc_library_add_finding(lib, h->notes[k].offset, "%s", h->notes[k].message);
        kernels[i] = h->kernels;
    }
    if (st == SMC_OK && over)
        st = smc_library_add_finding(lib, SMC_NO_OFFSET,
                                     "more than %llu containers or %llu images in one file: the "
                                     "rest are not read (--max-containers, --max-images)",
                                     (unsigned long long)lib->max_containers,
                                     (unsigned long long)lib->max_images);
    lib->cudart_major = s->cudart_major;
    free(t);
    if (elf) smc_sections_free(secs, nsecs);

    /* Judge with what the stream kept: no bytes are left to read, and --verify is done. */
    smc_options judge = s->opt ? *s->opt : (smc_options){0};
    judge.verify = false;
    judge.kernel_names = false;
    flags f = {kernels};
    st = smc_library_finish_with(in, lib, &judge, probe, &f, st);
    free(kernels);
    return st;
}
