/* containers.c: the finder's lowest file: its state (running out of memory, spilling), the bytes
 * a stream keeps as they pass, the container parser (docs/fatbin-format.md §2, §3: a container's
 * header and entries, its payloads read for facts and --verify) and the chains of entries over
 * one window. */
#include "find_private.h"

#include <stdlib.h>

smc_status fnd_nomem(smc_finder *f)
{
    f->failed = SMC_ERR_NOMEM;
    return SMC_ERR_NOMEM;
}

/* A stream holds more than it may (headers open at once, images, bytes kept for facts): it stops,
 * and its reader reads the bytes again as one window (smc_finder_spilled), which is bounded
 * whatever they hold and says what one window says. */
void fnd_spill(smc_finder *f)
{
    f->spill = true;
}

void fnd_hit_clear(hit *h)
{
    free(h->err);
    for (size_t i = 0; i < h->note_count; i++)
        free(h->notes[i].message);
    free(h->notes);
    free(h->images);
    free(h->kernel_names);
}

void fnd_capture_clear(capture *c)
{
    if (c->owned) free(c->bytes);
    *c = (capture){0};
}

/* Captures ---------------------------------------------------------------------------------- */

/* Asks for [from, from+len) of the file. One window: they are there (when the file holds them).
 * A stream: kept as they pass, from the first bytes (always kept) for what went by already, or in
 * the next pass. */
void fnd_want(smc_finder *f, capture *c, uint64_t from, uint64_t len)
{
    fnd_capture_clear(c);
    if (len > UINT64_MAX - from) len = UINT64_MAX - from;
    c->from = from;
    c->len = len;
    c->pass = f->pass;
    if (f->whole) {
        if (f->window && from <= f->pos && len <= f->pos - from) {
            c->bytes = (uint8_t *)(uintptr_t)(f->window + from);
            c->have = len;
        }
        return;
    }
    if (from >= f->wbase) return; /* in this window or later */
    uint64_t upto = len < f->wbase - from ? from + len : f->wbase;
    if (f->pass == 1 && upto <= f->head_len) {
        if (!(c->bytes = malloc(len ? len : 1))) {
            fnd_nomem(f);
            return;
        }
        c->owned = true;
        memcpy(c->bytes, f->head + from, upto - from);
        c->have = upto - from;
        return;
    }
    c->pass = f->pass + 1;
}

bool fnd_captured(const capture *c)
{
    return c->len && c->have == c->len;
}

/* Keeps what the window [base, base+n) holds of c. */
void fnd_keep(smc_finder *f, capture *c, uint64_t base, const uint8_t *p, size_t n)
{
    if (!c->len || c->have == c->len || c->pass != f->pass) return;
    uint64_t at = c->from + c->have, stop = c->from + c->len; /* fnd_want() keeps this in range */
    if (at < base || at >= base + n) return;
    if (!c->bytes) {
        if (!(c->bytes = malloc(c->len))) {
            fnd_nomem(f);
            return;
        }
        c->owned = true;
    }
    uint64_t end = stop < base + n ? stop : base + n;
    memcpy(c->bytes + c->have, p + (at - base), end - at);
    c->have += end - at;
}

/* The container parser ------------------------------------------------------------------------
 */

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

/* Whether img's payload may still be decompressed for this file, and if so counts it: at most
 * DECODE_BASE + DECODE_PER_BYTE bytes for each byte of the file (real fat binaries decompress to
 * 2-5 times their size; a few bytes of Zstandard can claim a gigabyte). A stream past it is read
 * again as one window, which counts in the rules' order and says what it left. */
static bool afford(smc_finder *f, const smc_image *img)
{
    uint64_t size = f->whole ? f->len : f->expect;
    uint64_t budget = DECODE_BASE + (size < (UINT64_MAX - DECODE_BASE) / DECODE_PER_BYTE
                                         ? size * DECODE_PER_BYTE
                                         : UINT64_MAX - DECODE_BASE);
    if (img->size > budget - f->decoded) {
        if (!f->whole) fnd_spill(f);
        f->over_budget = true;
        return false;
    }
    f->decoded += img->size;
    return true;
}

static uint64_t bytes_hash(const uint8_t *p, uint64_t n, uint64_t h)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15u;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h ^ (h >> 32);
}

/* Makes room for one more entry in f->seen: SEEN_FIRST slots at first, twice as many when half
 * full, up to SEEN_SLOTS (an archive has a finder per member: most remember a few cubins). */
static bool seen_room(smc_finder *f)
{
    if ((f->seen_count + 1) * 2 <= f->seen_slots) return true;
    if (f->seen_slots >= SEEN_SLOTS) return false;
    size_t slots = f->seen_slots ? 2 * f->seen_slots : SEEN_FIRST;
    struct seen *grown = calloc(slots, sizeof *grown);
    if (!grown) return false;
    for (size_t i = 0; i < f->seen_slots; i++) {
        if (!f->seen[i].stored) continue;
        size_t at = (size_t)f->seen[i].hash & (slots - 1);
        while (grown[at].stored)
            at = (at + 1) & (slots - 1);
        grown[at] = f->seen[i];
    }
    free(f->seen);
    f->seen = grown;
    f->seen_slots = slots;
    return true;
}

/* The slot of a cubin's stored bytes in f->seen: the one that holds them, or an empty one to put
 * them in, or NULL (no room). The table is never more than half full, so a probe ends. */
static struct seen *seen_slot(smc_finder *f, const smc_image *img, const uint8_t *stored,
                              uint64_t hash)
{
    bool room = seen_room(f);
    for (size_t i = 0, at = (size_t)hash & (f->seen_slots - 1); i < f->seen_slots;
         i++, at = (at + 1) & (f->seen_slots - 1)) {
        struct seen *e = &f->seen[at];
        if (!e->stored) return room ? e : NULL;
        if (e->hash == hash && e->stored_size == img->stored_size && e->size == img->size &&
            e->compression == img->compression && memcmp(e->stored, stored, img->stored_size) == 0)
            return e;
    }
    return NULL;
}

/* The finder's Zstandard context, made when a payload first needs it (an archive of 33,748
 * import stubs, torch 1.8's torch_cpu.lib, made one for each member before: 1 GiB); when it
 * cannot be made, the finder has run out of memory (and the payload readers take NULL so). */
static void *fnd_zstd(smc_finder *f)
{
    if (!f->zctx && !(f->zctx = smc_zstd_new())) fnd_nomem(f);
    return f->zctx;
}

/* The facts of a cubin: whether it holds kernels, their names, the toolkit that wrote it. The
 * same stored bytes (and sizes) give the same facts: those read once are remembered. */
static bool cubin_facts(smc_finder *f, hit *h, smc_image *img, struct kept *k)
{
    k->read = true;
    smc_cubin_info info;
    bool read;
    uint64_t hash = bytes_hash(k->stored, img->stored_size, img->size * 31 + img->compression);
    struct seen *e = k->known ? NULL : seen_slot(f, img, k->stored, hash);
    if (k->known) {
        read = k->readable;
        info = k->info;
    } else if (e && e->stored) {
        read = e->readable;
        info = e->info;
    } else if (!afford(f, img)) {
        read = false;
    } else {
        uint8_t *data = NULL;
        smc_fatbin_error err;
        read = smc_payload_decode(k->stored, img, fnd_zstd(f), &data, &err) == SMC_OK &&
               smc_cubin_inspect(data, img->size, &info, &err) == SMC_OK;
        free(data);
        if (e && f->seen_bytes + img->stored_size <= SEEN_BYTES &&
            (e->stored = malloc(img->stored_size ? img->stored_size : 1))) {
            memcpy(e->stored, k->stored, img->stored_size);
            e->hash = hash;
            e->stored_size = img->stored_size;
            e->size = img->size;
            e->compression = img->compression;
            e->readable = read;
            if (read) e->info = info;
            f->seen_count++;
            f->seen_bytes += img->stored_size;
        }
    }
    if (!read) return false; /* what cannot be read is taken to hold kernels */
    /* A cubin larger than facts are read from, read for --detail's names only, says nothing the
     * judge uses: a report with names judges as one without. */
    bool fact = img->size <= CUBIN_FACTS_MAX && img->stored_size <= CUBIN_FACTS_MAX;
    if (fact) img->release = info.release;
    if (!info.kernels) return fact;
    h->kernels = 1;
    if (!h->kernel_names &&
        !(h->kernel_names = info.kernels <= 3
                                ? smc_strdup(info.names)
                                : smc_asprintf("%s (+%zu more)", info.names, info.kernels - 3)))
        fnd_nomem(f);
    return true;
}

/* A wanted payload is at hand: stored holds its first have stored bytes; owned says the caller
 * gives it up (a copy). Returns whether it was kept (then freed with the parse). Each payload is
 * decompressed once: --verify's bytes give the cubin's facts too. */
static bool payload_done(smc_finder *f, cparse *cp, const uint8_t *stored, uint64_t have,
                         bool owned)
{
    hit *h = &f->hits[cp->hit];
    const smc_image *img = &h->images[cp->pay_img];
    struct kept k = {.img = cp->pay_img, .stored = stored, .have = have, .owned = owned};
    if (cp->pay_verify && !afford(f, img)) {
        char msg[96];
        snprintf(msg, sizeof msg, "not verified: past the budget of decompressed bytes for one "
                                  "file");
        if (f->whole && add_note(h, img->offset, img, msg) != SMC_OK) fnd_nomem(f);
    } else if (cp->pay_verify && !(cp->pay_facts && img->kind == SMC_IMAGE_CUBIN)) {
        /* Checked in pieces, never held whole (a Zstandard bomb of PTX claims a gigabyte). */
        smc_fatbin_error err;
        smc_status st = smc_payload_verify(stored, img, fnd_zstd(f), &err);
        if (st == SMC_ERR_FORMAT && add_note(h, err.offset, img, err.message) != SMC_OK)
            fnd_nomem(f);
        else if (st == SMC_ERR_NOMEM)
            fnd_nomem(f);
    } else if (cp->pay_verify) { /* a small cubin whose facts are wanted: decompressed once */
        uint8_t *data = NULL;
        smc_fatbin_error err;
        smc_status st = smc_payload_decode(stored, img, fnd_zstd(f), &data, &err);
        if (st != SMC_ERR_NOMEM && cp->pay_facts && img->kind == SMC_IMAGE_CUBIN) {
            k.known = true;
            k.readable = st == SMC_OK && smc_cubin_inspect(data, img->size, &k.info, &(smc_fatbin_error){0}) == SMC_OK;
        }
        if (st == SMC_OK) st = smc_payload_check(img, data, &err);
        free(data);
        if (st == SMC_ERR_FORMAT && add_note(h, err.offset, img, err.message) != SMC_OK)
            fnd_nomem(f);
        else if (st == SMC_ERR_NOMEM)
            fnd_nomem(f);
    }
    if (!cp->pay_facts) return false;
    /* Kept for the container's end: a PTX image's first bytes (of a copy that --verify made
     * whole, a copy of them), a small cubin. */
    if (img->kind == SMC_IMAGE_PTX && have > PTX_PREFIX) {
        k.have = PTX_PREFIX;
        if (owned) {
            uint8_t *c = malloc(PTX_PREFIX);
            if (!c) return fnd_nomem(f), false;
            memcpy(c, stored, PTX_PREFIX);
            k.stored = c;
            owned = false; /* the caller frees its copy */
        }
    }
    struct kept *slot = smc_push(&cp->kept_list, cp->kept_count, sizeof *slot);
    if (!slot) {
        if (k.stored != stored) free((void *)(uintptr_t)k.stored);
        return fnd_nomem(f), false;
    }
    *slot = k;
    cp->kept_count++;
    return owned;
}

/* At a whole container's end: its cubins, in order until one holds a kernel, are read (those
 * small enough, CUBIN_FACTS_MAX; all up to CUBIN_NAMES_MAX for --detail's names). A container
 * whose every cubin was read and holds no kernel holds none in its PTX either: the cubins and the
 * PTX are one translation unit compiled for each target (vllm 0.9.1's sm_52+compute_52 module
 * without kernels, beside its kernels built for sm_70 and up). A container of PTX (or Tile IR)
 * alone is not known (-1), which counts as holding kernels. */
static void inspect_cubins(smc_finder *f, cparse *cp, hit *h)
{
    bool ptx = false, any_cubin = false;
    for (size_t i = 0; i < h->image_count; i++) {
        ptx |= h->images[i].kind == SMC_IMAGE_PTX || h->images[i].kind == SMC_IMAGE_TILEIR;
        any_cubin |= h->images[i].kind == SMC_IMAGE_CUBIN;
    }
    bool all_read = cp->all_read;
    for (size_t i = 0; i < cp->kept_count && h->kernels != 1; i++) {
        struct kept *k = &cp->kept_list[i];
        if (h->images[k->img].kind == SMC_IMAGE_CUBIN && !cubin_facts(f, h, &h->images[k->img], k))
            all_read = false;
    }
    if (h->kernels != 1) h->kernels = all_read && (any_cubin || !ptx) ? 0 : -1;
}

/* The .version and .target of a PTX image from its first stored bytes: the first PTX_FIRST bytes
 * of its text, then PTX_TEXT if they did not say (a Zstandard block is decompressed whole
 * whatever is asked of it: PTX_TEXT at once). Only whole lines are read. */
static void ptx_facts(smc_finder *f, smc_image *img, struct kept *k)
{
    uint8_t text[PTX_TEXT];
    k->read = true;
    size_t ask = img->compression == SMC_COMPRESS_ZSTD ? PTX_TEXT : PTX_FIRST;
    for (;;) {
        long n = smc_payload_prefix(k->stored, k->have, img, fnd_zstd(f), text, ask);
        if (n <= 0) return;
        size_t use = (size_t)n;
        bool cut = use == ask && use < img->size; /* the text goes on past what is here */
        if (cut) {
            const uint8_t *nl = memrchr(text, '\n', use);
            use = nl ? (size_t)(nl - text) + 1 : 0;
        }
        smc_ptx_facts(img, text, use);
        if (img->text_arch || !cut || ask == PTX_TEXT) return;
        ask = PTX_TEXT;
    }
}

/* At a whole container's end: what its PTX says is read where it can change a verdict for the
 * targets (smc_facts_matter; all of it for --detail's kernel names): its .version and .target.
 * Its cubins' kernels are read always; and whatever the targets and the driver, the ptxas release
 * of its first small cubin that can carry one (entry version 1.8: CUDA 12.8 on write
 * .note.nv.tkinfo), for its library's CUDA minor, unless a cubin read already gave it: a
 * library's facts are the same whichever GPUs it is judged for, and whether they came from a
 * read for every GPU (the cache's) or not. */
static void inspect(smc_finder *f, cparse *cp, hit *h)
{
    const smc_options *o = f->opt;
    if (f->want_names || !o->read.targets ||
        smc_facts_matter(h->images, h->image_count, o->read.targets, o->read.target_count,
                         o->read.driver_cuda))
        for (size_t i = 0; i < cp->kept_count; i++) {
            struct kept *k = &cp->kept_list[i];
            smc_image *img = &h->images[k->img];
            if (img->kind == SMC_IMAGE_PTX) ptx_facts(f, img, k);
        }
    /* Which containers hold kernels is a fact of the library, whatever the targets: its main
     * architecture list is chosen among those that may (verdict.c, lists_of). Only small cubins
     * are read for it. */
    inspect_cubins(f, cp, h);
    for (size_t i = 0; i < h->image_count; i++)
        if (h->images[i].release) return;
    for (size_t i = 0; i < cp->kept_count; i++) {
        struct kept *k = &cp->kept_list[i];
        smc_image *img = &h->images[k->img];
        if (k->read || img->kind != SMC_IMAGE_CUBIN || img->version_minor < 8) continue;
        if (cubin_facts(f, h, img, k) && img->release) return;
    }
}

/* What of an entry's payload is wanted: for --verify all of it, for facts a PTX prefix or a whole
 * small cubin (kept until the container's end). Decided from the headers alone, in entry order, so
 * that one window and a stream decide alike. */
static void plan_payload(smc_finder *f, cparse *cp, hit *h, const smc_image *img, uint64_t at)
{
    cp->pay_verify = f->verify && !smc_image_opaque(img->kind) && img->stored_size <= VERIFY_MAX;
    if (f->verify && !smc_image_opaque(img->kind) && img->stored_size > VERIFY_MAX &&
        add_note(h, img->offset, img, "not verified: over 64 MiB") != SMC_OK)
        fnd_nomem(f);
    cp->pay_facts = false;
    uint64_t len = cp->pay_verify ? img->stored_size : 0;
    uint64_t wanted = img->kind == SMC_IMAGE_PTX
                        ? (img->stored_size < PTX_PREFIX ? img->stored_size : PTX_PREFIX)
                        : img->stored_size;
    bool small = img->kind == SMC_IMAGE_PTX ||
                 (img->kind == SMC_IMAGE_CUBIN &&
                  (f->want_names ? img->stored_size <= CUBIN_NAMES_MAX
                                 : img->size <= CUBIN_FACTS_MAX &&
                                       img->stored_size <= CUBIN_FACTS_MAX));
    if (f->inspect && small && cp->kept + wanted <= CONTAINER_FACTS_MAX) {
        if (!f->whole && f->kept + wanted > STREAM_FACTS_MAX) {
            fnd_spill(f);
        } else {
            cp->pay_facts = true;
            cp->kept += wanted;
            f->kept += wanted;
            if (!cp->pay_verify) len = wanted;
        }
    }
    if (img->kind == SMC_IMAGE_CUBIN && !cp->pay_facts) cp->all_read = false;
    cp->payload = cp->pay_verify || cp->pay_facts;
    cp->pay_start = at;
    cp->pay_len = len;
    cp->pay_have = 0;
    cp->pay_img = h->image_count - 1;
}

static bool fail_with(smc_finder *f, hit *h, const smc_fatbin_error *e)
{
    free(h->err);
    h->err_offset = e->offset;
    if (!(h->err = smc_strdup(e->message))) fnd_nomem(f);
    return true;
}

static bool parse_fail(smc_finder *f, hit *h, uint64_t offset, const char *msg, uint64_t n)
{
    smc_fatbin_error e = {.offset = offset};
    snprintf(e.message, sizeof e.message, msg, (unsigned long long)n);
    return fail_with(f, h, &e);
}

/* The parse's words for a container whose next entry header does not fit before its end, and
 * for one whose bytes end first. */
static bool truncated(smc_finder *f, hit *h, uint64_t at)
{
    return parse_fail(f, h, at, "entry header truncated: %llu bytes left in the container",
                      h->end - at);
}

static bool past_the_end(smc_finder *f, hit *h)
{
    return parse_fail(f, h, h->start, "container runs past the end of the file (%llu bytes)",
                      f->pos);
}

/* A container header's 16 bytes at p, into h: false when they cannot be one (h->err says why). */
static bool container_header(smc_finder *f, hit *h, const uint8_t *p)
{
    uint64_t first;
    smc_fatbin_error e;
    h->hsize = smc_le16(p + 6);
    h->fatsize = smc_le64(p + 8);
    if (smc_fatbin_header(p, h->start, &first, &h->end, &e) != SMC_OK) return !fail_with(f, h, &e);
    h->header_ok = true;
    h->strict = h->fatsize > 0; /* an empty container counts only in a fatbin section */
    return true;
}

/* A header is complete. Returns true when the parse has ended (failed: h->err says why). */
static bool header_done(smc_finder *f, cparse *cp)
{
    hit *h = &f->hits[cp->hit];
    uint64_t next;
    if (!cp->in_entries) {
        if (!container_header(f, h, cp->hdr)) return true;
        next = h->start + h->hsize;
        cp->in_entries = true;
        if (!f->whole) { /* its first non-zero byte past the end: a rule asks */
            size_t *w = smc_push(&f->watch, f->watch_count, sizeof *w);
            if (!w) return fnd_nomem(f), true;
            *w = cp->hit;
            f->watch_count++;
        }
    } else {
        smc_image img;
        smc_fatbin_error e;
        if (smc_fatbin_entry(cp->hdr, cp->next, h->end, &img, &next, &e) != SMC_OK)
            return fail_with(f, h, &e);
        h->strict &= smc_le16(cp->hdr + 2) == SMC_ENTRY_VERSION;
        if (!f->whole && f->image_total >= STREAM_IMAGES_MAX) return fnd_spill(f), true;
        if (f->image_total >= f->max_images) {
            /* A stream is read again as a file; one window reads on without keeping them. */
            if (!f->whole) return fnd_spill(f), true;
            h->over = true;
        } else {
            smc_image *slot = smc_push(&h->images, h->image_count, sizeof *slot);
            if (!slot) return fnd_nomem(f), true;
            *slot = img;
            h->image_count++;
            f->image_total++;
            plan_payload(f, cp, h, slot, cp->next + img.header_size);
        }
    }
    cp->next = next;
    cp->have = 0;
    cp->want = 64;
    if (next == h->end) {
        h->ok = true;
        return false;
    }
    if (h->end - next < 64) return truncated(f, h, next);
    return false;
}

/* Feeds the window [base, base+n) to a parse; returns true when the parse has ended. */
bool fnd_advance(smc_finder *f, cparse *cp, uint64_t base, const uint8_t *p, size_t n)
{
    uint64_t end = base + n;
    for (;;) {
        if (cp->payload) {
            uint64_t stop = cp->pay_start + cp->pay_len;
            if (stop <= end && cp->pay_start >= base && !cp->pay && f->whole) {
                /* in the one window, which stays: no copy */
                payload_done(f, cp, p + (cp->pay_start - base), cp->pay_len, false);
            } else {
                uint64_t at = cp->pay_start + cp->pay_have;
                if (at < base || at >= end) return false;
                if (!cp->pay && !(cp->pay = malloc(cp->pay_len ? cp->pay_len : 1)))
                    return fnd_nomem(f), true;
                uint64_t to = stop < end ? stop : end;
                memcpy(cp->pay + cp->pay_have, p + (at - base), to - at);
                cp->pay_have += to - at;
                if (cp->pay_have < cp->pay_len) return false;
                if (!payload_done(f, cp, cp->pay, cp->pay_len, true)) free(cp->pay);
                cp->pay = NULL;
            }
            cp->payload = false;
        }
        const hit *h = &f->hits[cp->hit];
        if (h->ok) return true;
        uint64_t at = cp->next + cp->have;
        if (at < base || at >= end) return false;
        size_t k = (size_t)(end - at) < cp->want - cp->have ? (size_t)(end - at)
                                                            : cp->want - cp->have;
        memcpy(cp->hdr + cp->have, p + (at - base), k);
        cp->have += (unsigned)k;
        if (cp->have < cp->want) return false;
        if (header_done(f, cp)) return true;
    }
}

/* Closes a parse: a container the bytes ended inside of has failed, unless its entries are all
 * read (then only its size tells, which the rules compare with the file). */
void fnd_settle(smc_finder *f, cparse *cp)
{
    hit *h = &f->hits[cp->hit];
    if (!h->ok && !h->err) past_the_end(f, h);
    if (h->ok && f->inspect) inspect(f, cp, h);
    for (size_t i = 0; i < cp->kept_count; i++)
        if (cp->kept_list[i].owned) free((void *)(uintptr_t)cp->kept_list[i].stored);
    free(cp->kept_list);
    cp->kept_list = NULL;
    cp->kept_count = 0;
    f->kept -= cp->kept;
    cp->kept = 0;
    free(cp->pay);
    cp->pay = NULL;
}

/* A header seen at at, nothing known of it yet. */
static hit fresh_hit(uint64_t at)
{
    return (hit){.start = at, .prev_nonzero = NOWHERE, .next_nonzero = NOWHERE, .kernels = -1};
}

size_t fnd_new_hit(smc_finder *f, uint64_t at)
{
    hit *h = smc_push(&f->hits, f->hit_count, sizeof *h);
    if (!h) return fnd_nomem(f), SIZE_MAX;
    *h = fresh_hit(at);
    return f->hit_count++;
}

/* One window: the container at off, parsed now. */
hit *fnd_parse_at(smc_finder *f, uint64_t off)
{
    if (f->hit_count && f->hits[f->hit_count - 1].start == off) /* asked again */
        return &f->hits[f->hit_count - 1];
    size_t k = fnd_new_hit(f, off);
    if (k == SIZE_MAX) return NULL;
    cparse cp = fnd_start_parse(k, off);
    fnd_advance(f, &cp, 0, f->window, (size_t)f->len);
    fnd_settle(f, &cp);
    return f->failed ? NULL : &f->hits[k];
}

/* Entry chains (one window) ----------------------------------------------------------------- */

#define LINKS_MAX (1u << 20) /* entry headers chained in one file (40 bytes each) */

static size_t link_slot(const chains *c, uint64_t pos)
{
    size_t i = (size_t)((pos * 0x9E3779B97F4A7C15ull) >> 17) & (c->size - 1);
    while (c->table[i] && c->links[c->table[i] - 1].pos != pos)
        i = (i + 1) & (c->size - 1);
    return i;
}

/* The link at pos, or 0 (the sentinel is never looked up). */
static uint32_t link_find(const chains *c, uint64_t pos)
{
    if (!c->size) return 0;
    uint32_t k = c->table[link_slot(c, pos)];
    return k ? k - 1 : 0;
}

static bool links_grow(chains *c)
{
    size_t size = c->size ? c->size * 2 : 1024;
    uint32_t *old = c->table;
    size_t old_size = c->size;
    if (!(c->table = calloc(size, sizeof *c->table))) {
        c->table = old;
        return false;
    }
    c->size = size;
    for (size_t i = 0; i < old_size; i++)
        if (old[i]) c->table[link_slot(c, c->links[old[i] - 1].pos)] = old[i];
    free(old);
    return true;
}

/* Adds the link at pos whose successor (toward its chain's end) is succ (0 for none). */
static uint32_t link_add(chains *c, uint64_t pos, uint8_t state, bool strict, uint32_t succ)
{
    if ((c->count + 1) * 2 > c->size && !links_grow(c)) return 0;
    link *l = smc_push(&c->links, c->count, sizeof *l);
    if (!l) return 0;
    uint32_t k = (uint32_t)c->count++;
    *l = (link){.pos = pos, .state = state, .succ = k, .jump = k, .bad = strict ? NOWHERE : pos};
    if (state == LINK_VALID) {
        const link *p = &c->links[succ];
        l->succ = succ;
        l->depth = p->depth + 1;
        if (!strict) l->bad = pos;
        else l->bad = p->bad;
        /* Myers: jump twice as far when the two jumps above are the same length. */
        const link *j = &c->links[p->jump];
        l->jump = p->depth - j->depth == j->depth - c->links[j->jump].depth ? j->jump : succ;
    }
    if (state != LINK_BEYOND) c->table[link_slot(c, pos)] = k + 1;
    return k;
}

/* The link at pos, reading the entry headers from there on until a chain already known. Returns
 * 0 with f->failed set when there is no room for more. */
static uint32_t chain_from(smc_finder *f, uint64_t pos)
{
    chains *c = &f->chains;
    if (!c->count && (link_add(c, NOWHERE, LINK_BEYOND, true, 0), !c->count))
        return fnd_nomem(f), 0; /* the sentinel, link 0 */
    struct pending {
        uint64_t pos;
        uint8_t state;
        bool strict;
    } *todo = NULL;
    size_t n = 0;
    uint32_t known = 0; /* the link the new ones lead to */
    for (uint64_t y = pos;;) {
        if ((known = link_find(c, y)) != 0) break;
        if (c->full || c->count + n >= LINKS_MAX) {
            c->full = true; /* and no more walks toward the cap: each would be as long */
            free(todo);
            return 0; /* the caller reports it */
        }
        struct pending *t = smc_push(&todo, n, sizeof *t);
        if (!t) {
            free(todo);
            return fnd_nomem(f), 0;
        }
        *t = (struct pending){.pos = y, .state = LINK_VALID, .strict = true};
        n++;
        if (y > f->len || f->len - y < 64) {
            t->state = LINK_UNREADABLE;
            break;
        }
        const uint8_t *p = f->window + y;
        uint64_t hsize = smc_le32(p + 4), padded = smc_le64(p + 8);
        t->strict = smc_le16(p + 2) == SMC_ENTRY_VERSION;
        if (hsize >= 64 && padded > UINT64_MAX - y - hsize) { /* past any end */
            known = 0; /* the sentinel */
            break;
        }
        smc_image img;
        smc_fatbin_error e;
        uint64_t next;
        if (smc_fatbin_entry(p, y, UINT64_MAX, &img, &next, &e) != SMC_OK) {
            t->state = LINK_INVALID;
            break;
        }
        y = next;
    }
    /* Added from the chain's end back, so that each one's successor is there first. */
    uint32_t k = known;
    for (size_t i = n; i-- > 0;) {
        bool end = todo[i].state != LINK_VALID;
        uint32_t added = link_add(c, todo[i].pos, todo[i].state, todo[i].strict, end ? 0 : k);
        if (!added) {
            free(todo);
            return fnd_nomem(f), 0;
        }
        k = added;
    }
    free(todo);
    return k;
}

/* What the parse of the container whose header is at h->start would find, from the header and
 * the chains: h->ok, h->strict, or h->err where the parse would fail. */
static void probe_entries(smc_finder *f, hit *h)
{
    uint64_t x = h->start + h->hsize, E = h->end;
    if (x == E) {
        h->ok = true;
        return;
    }
    if (E - x < 64) {
        truncated(f, h, x);
        return;
    }
    uint32_t v = chain_from(f, x);
    if (!v) {
        if (!f->failed)
            parse_fail(f, h, x, "more than %llu entry headers in one file: not read",
                       (unsigned long long)LINKS_MAX);
        return;
    }
    const link *L = f->chains.links;
    uint64_t first_bad = L[v].bad;
    uint64_t last = E - 64; /* entries at or before it are read */
    while (L[v].state == LINK_VALID) {
        if (L[L[v].jump].pos <= last && L[v].jump != v)
            v = L[v].jump;
        else if (L[L[v].succ].pos <= last)
            v = L[v].succ;
        else
            break;
    }
    uint64_t y = L[v].pos;
    if (L[v].state == LINK_UNREADABLE) {
        past_the_end(f, h);
        return;
    }
    /* The entry at y again, now with the container's end: the parse's own words. */
    smc_image img;
    smc_fatbin_error e;
    uint64_t next;
    if (smc_fatbin_entry(f->window + y, y, E, &img, &next, &e) != SMC_OK) {
        fail_with(f, h, &e);
        return;
    }
    if (next != E) {
        truncated(f, h, next);
        return;
    }
    h->ok = true;
    h->strict &= first_bad > y;
}

/* One window: the container at off as far as the rules ask (h->ok, strict, err); parsed whole
 * (images, facts) only by take_whole. */
hit *fnd_probe_at(smc_finder *f, uint64_t off)
{
    hit *h = &f->probe;
    fnd_hit_clear(h);
    *h = fresh_hit(off);
    if (f->len - off < 16)
        past_the_end(f, h);
    else if (container_header(f, h, f->window + off))
        probe_entries(f, h);
    return h;
}
