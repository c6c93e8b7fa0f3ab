/* finder_rules.c: where containers are, by the rules of docs/fatbin-format.md §1: the section
 * table and its names found among the bytes kept, then in fatbin sections containers back to
 * back with zero padding (garbage reported and skipped), elsewhere whole strict containers at
 * 8-aligned offsets. The same rules for one window and for a stream's records. */
#include "find_private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

smc_status fnd_finding(smc_library *lib, uint64_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = smc_vasprintf(fmt, ap);
    va_end(ap);
    if (!msg) return SMC_ERR_NOMEM;
    smc_status st = smc_library_add_finding(lib, at, "%s", msg);
    free(msg);
    return st;
}

/* The section table: where it lies in what was kept. */
bool fnd_table_range(const smc_finder *f, uint64_t *off, uint64_t *len)
{
    const smc_elf_header *e = &f->eh;
    uint64_t entsize = e->shentsize, count = e->shnum;
    if (!fnd_captured(&f->table) && !(f->whole && f->table.have)) return false;
    const capture *t = &f->table;
    uint64_t at = e->shoff - t->from;
    if (count == 0 && entsize >= (e->is64 ? 64u : 40u) && smc_in_range(t->have, at, entsize))
        count = smc_elf_word(e, t->bytes + at + (e->is64 ? 0x20 : 0x14), e->is64 ? 8 : 4);
    if (count == 0) count = 1;
    *off = e->shoff;
    *len = count > UINT64_MAX / (entsize ? entsize : 1) ? UINT64_MAX : count * entsize;
    return true;
}

/* Asks for the section names once the table says where they are; false when the bytes must
 * come again. */
void fnd_want_names(smc_finder *f)
{
    uint64_t off, len;
    const smc_elf_header *e = &f->eh;
    if (!fnd_table_range(f, &off, &len) || len > TABLE_MAX) return;
    const capture *t = &f->table;
    if (!smc_in_range(t->have, off - t->from, len)) return;
    const uint8_t *tab = t->bytes + (off - t->from);
    /* Entries of their full size first: SHN_XINDEX's index is read from the first one's sh_link. */
    if (e->shentsize < (e->is64 ? 64u : 40u)) return;
    uint64_t idx = e->shstrndx;
    if (idx == 0xffff) idx = smc_elf_word(e, tab + (e->is64 ? 0x28 : 0x18), 4);
    if (idx >= len / e->shentsize) return;
    const uint8_t *sh = tab + idx * e->shentsize;
    int w = e->is64 ? 8 : 4;
    uint64_t noff = smc_elf_word(e, sh + (e->is64 ? 0x18 : 0x10), w);
    uint64_t nlen = smc_elf_word(e, sh + (e->is64 ? 0x20 : 0x14), w);
    if (!nlen || nlen > NAMES_MAX || !smc_in_range(f->len, noff, nlen)) return;
    if (t->from <= noff && smc_in_range(t->have, noff - t->from, nlen)) { /* kept already */
        f->names = (capture){.bytes = t->bytes + (noff - t->from), .from = noff, .len = nlen,
                             .have = nlen};
        return;
    }
    for (size_t i = 0; i < f->guess_count; i++) {
        const capture *g = &f->guesses[i];
        if (g->from <= noff && smc_in_range(g->have, noff - g->from, nlen)) {
            f->names = (capture){.bytes = g->bytes + (noff - g->from), .from = noff, .len = nlen,
                                 .have = nlen};
            return;
        }
    }
    fnd_want(f, &f->names, noff, nlen);
}

/* The rules ---------------------------------------------------------------------------------- */


static uint64_t align8(uint64_t base, uint64_t p)
{
    uint64_t r = (p - base) % 8;
    return r ? p + (8 - r) : p;
}

/* The first hit starting at or after off (streams: every header is one). */
static size_t first_hit_from(const smc_finder *f, uint64_t off)
{
    size_t lo = 0, hi = f->hit_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->hits[mid].start < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static hit *hit_at(rules *r, uint64_t off)
{
    smc_finder *f = r->f;
    if (f->whole) return smc_fatbin_at(f->window, f->len, off) ? fnd_probe_at(f, off) : NULL;
    size_t i = first_hit_from(f, off);
    return i < f->hit_count && f->hits[i].start == off ? &f->hits[i] : NULL;
}

/* The first container header in [from, to) at from + 8k, from aligned to base; or to. */
static uint64_t next_header(rules *r, uint64_t from, uint64_t to, uint64_t base)
{
    smc_finder *f = r->f;
    uint64_t p = align8(base, from);
    if (p >= to) return to;
    if (f->whole) return smc_fatbin_find(f->window, p, to);
    for (size_t i = first_hit_from(f, p); i < f->hit_count && f->hits[i].start < to; i++)
        if ((f->hits[i].start - base) % 8 == 0) return f->hits[i].start;
    return to;
}

/* What follows the zero bytes from cursor on, in a section ending at end: a container header
 * (*h), garbage (1), or nothing but zeros (0). after: the container whose end is cursor. */
static int after_zeros(rules *r, uint64_t cursor, uint64_t end, size_t after, hit **h)
{
    smc_finder *f = r->f;
    *h = NULL;
    if (f->whole) {
        uint64_t q = cursor;
        while (q < end && f->window[q] == 0)
            q++;
        if (q == end) return 0;
        return (*h = hit_at(r, q)) ? 2 : 1;
    }
    size_t i = first_hit_from(f, cursor);
    if (i < f->hit_count && f->hits[i].start < end) {
        hit *n = &f->hits[i];
        if (n->prev_nonzero == NOWHERE || n->prev_nonzero < cursor) {
            *h = n;
            return 2;
        }
        return 1;
    }
    return after != SIZE_MAX && f->hits[after].next_nonzero >= end ? 0 : 1;
}

/* Takes the container h is (one window: parsed now, whole). */
static smc_status take(rules *r, const hit *h)
{
    smc_finder *f = r->f;
    size_t k;
    if (f->whole) {
        /* One more than the caps allow is parsed: build says what was left. */
        if (r->taken_count > f->max_containers || r->over) return SMC_OK;
        const hit *whole = fnd_parse_at(f, h->start);
        if (!whole) return f->failed ? f->failed : SMC_ERR_NOMEM;
        r->over = whole->over;
        k = (size_t)(whole - f->hits);
    } else {
        k = (size_t)(h - f->hits);
    }
    size_t *t = smc_push(&r->taken, r->taken_count, sizeof *t);
    if (!t) return SMC_ERR_NOMEM;
    *t = k;
    r->taken_count++;
    return SMC_OK;
}

/* Walks a fatbin section (or a raw fatbin, name NULL) over [s, e). */
smc_status fnd_walk(rules *r, uint64_t s, uint64_t e, const char *name)
{
    const char *where = name ? name : "the fat binary";
    uint64_t cursor = s;
    size_t last = SIZE_MAX; /* the container that ends at cursor */
    bool any = false;
    smc_status st = SMC_OK;
    while (cursor < e && st == SMC_OK) {
        hit *h;
        int what = after_zeros(r, cursor, e, last, &h);
        if (r->f->failed) return r->f->failed;
        last = SIZE_MAX;
        if (what == 0) break;
        if (what == 1) { /* garbage: on to the next header 8-aligned from the start */
            uint64_t next = next_header(r, cursor, e, s);
            if (!any && next == e) break; /* reported below */
            st = fnd_finding(r->lib, cursor, "%llu bytes in %s at +0x%llx are no container",
                             (unsigned long long)(next - cursor), where,
                             (unsigned long long)(cursor - s));
            cursor = next;
            continue;
        }
        any = true;
        uint64_t at = h->start;
        if (h->header_ok && h->end > e) {
            st = fnd_finding(r->lib, at,
                             "container in %s at +0x%llx: container of %llu bytes runs past the "
                             "end (%llu bytes left)",
                             where, (unsigned long long)(at - s), (unsigned long long)h->fatsize,
                             (unsigned long long)(e - at > h->hsize ? e - at - h->hsize : 0));
            cursor = next_header(r, at + 1, e, s);
        } else if (!h->header_ok) {
            st = fnd_finding(r->lib, h->err_offset, "container in %s at +0x%llx: %s", where,
                             (unsigned long long)(at - s), h->err ? h->err : "unreadable");
            cursor = next_header(r, at + 1, e, s);
        } else {
            if (h->ok)
                st = take(r, h);
            else
                st = fnd_finding(r->lib, h->err_offset, "container in %s at +0x%llx: %s", where,
                                 (unsigned long long)(at - s), h->err ? h->err : "unreadable");
            cursor = h->end;
            last = r->f->whole ? SIZE_MAX : (size_t)(h - r->f->hits);
        }
    }
    if (st == SMC_OK && !any)
        st = fnd_finding(r->lib, s, "%s (%llu bytes) holds no container", where,
                         (unsigned long long)(e - s));
    return st;
}

/* Looks for whole, strict containers in [from, to) outside the fatbin sections: real libraries
 * keep thousands there (cuFFT's .ldata, §1). One that does not parse is bytes that looked like a
 * header. */
smc_status fnd_search(rules *r, uint64_t from, uint64_t to)
{
    smc_status st = SMC_OK;
    /* 8-aligned from the file's start: an archive member is a file of its own finder. */
    for (uint64_t p = next_header(r, from, to, 0); p < to && st == SMC_OK;
         p = next_header(r, p, to, 0)) {
        const hit *h = hit_at(r, p);
        if (r->f->failed) return r->f->failed;
        if (h && h->ok && h->strict && h->end <= to) {
            st = take(r, h);
            p = align8(0, h->end);
        } else {
            p += 8;
        }
    }
    return st;
}

/* The first section (in offset order) whose bytes hold off. Sections do not overlap in real
 * files: the one that starts last at or before off is then the answer; with overlaps, every
 * section before it is asked too. */
static const smc_section *section_at(const rules *r, uint64_t off)
{
    size_t lo = 0, hi = r->nsecs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->secs[mid].offset <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return NULL;
    if (r->overlapping && r->reach) { /* the first whose end is past off: where reach passes it */
        size_t a = 0, b = lo;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (r->reach[mid] > off)
                b = mid;
            else
                a = mid + 1;
        }
        return a < lo ? &r->secs[a] : NULL;
    }
    const smc_section *s = &r->secs[lo - 1];
    return off - s->offset < s->size ? s : NULL;
}

/* Moves the taken hits into the library, in offset order. */
static int by_start(const void *a, const void *b, void *ctx)
{
    const hit *hits = ctx;
    uint64_t x = hits[*(const size_t *)a].start, y = hits[*(const size_t *)b].start;
    return x < y ? -1 : x > y;
}

smc_status fnd_build(rules *r)
{
    smc_finder *f = r->f;
    smc_library *lib = r->lib;
    bool sorted = true; /* the rules take containers in file order, but for overlapping sections */
    for (size_t i = 1; i < r->taken_count && sorted; i++)
        sorted = f->hits[r->taken[i - 1]].start < f->hits[r->taken[i]].start;
    if (!sorted) qsort_r(r->taken, r->taken_count, sizeof *r->taken, by_start, f->hits);
    smc_status st = SMC_OK;
    for (size_t i = 0; i < r->taken_count && st == SMC_OK; i++) {
        hit *h = &f->hits[r->taken[i]];
        if (lib->container_count >= f->max_containers) {
            st = fnd_finding(lib, h->start,
                             "more than %llu containers in one file: the rest are not read "
                             "(--max-containers)",
                             (unsigned long long)f->max_containers);
            break;
        }
        if (h->over || lib->image_count + h->image_count > f->max_images) {
            st = fnd_finding(lib, h->start,
                             "more than %llu images in one file: the rest are not read "
                             "(--max-images)",
                             (unsigned long long)f->max_images);
            break;
        }
        smc_container *c = smc_push(&lib->containers, lib->container_count, sizeof *c);
        if (!c) return SMC_ERR_NOMEM;
        const smc_section *sec = section_at(r, h->start);
        *c = (smc_container){.offset = h->start,
                             .size = h->end - h->start,
                             .relocatable = sec && strcmp(sec->name, RELFATBIN) == 0,
                             .first_image = lib->image_count,
                             .image_count = h->image_count,
                             .kernels = h->kernels,
                             .kernel_names = h->kernel_names};
        h->kernel_names = NULL;
        lib->container_count++;
        if (sec && !(c->section = smc_strdup(sec->name))) return SMC_ERR_NOMEM;
        for (size_t k = 0; k < h->image_count; k++) {
            smc_image *img = smc_push(&lib->images, lib->image_count, sizeof *img);
            if (!img) return SMC_ERR_NOMEM;
            *img = h->images[k];
            lib->image_count++;
            if (img->release > lib->release) lib->release = img->release;
        }
        for (size_t k = 0; k < h->note_count && st == SMC_OK; k++)
            st = smc_library_add_finding(lib, h->notes[k].offset, "%s", h->notes[k].message);
    }
    return st;
}
