/* finder.c: the one container finder. It reads a file (ELF, ar archive, raw fat binary, bare
 * cubin) from windows of bytes: a mapped file or a buffer is one window that stays valid, a wheel
 * member a sequence of windows as it inflates, each gone after its call. Both go through the same
 * container parser and the same rules; only where the rules get their answers differs:
 *
 * - one window: at the end, the rules ask the bytes themselves (a container is parsed where a rule
 *   looks for one, a fatbin section is walked touching only headers);
 * - a stream: the layout (section table) comes last, so every container header that goes by, at
 *   any offset, is followed as its bytes pass, with what the rules will ask of it (the last
 *   non-zero byte before it, the first after it); at the end the same rules are applied to those
 *   records. Bytes the layout needs (the section table, the section names, the program headers
 *   and dynamic section) are kept as they pass; section names that went by before the table said
 *   where they were make the finder ask for the bytes once more (smc_finder_again).
 *
 * The rules (cuda-compat/fatbin-format §1, §9): in .nv_fatbin and __nv_relfatbin sections,
 * containers back to back with zero padding between them, garbage reported and skipped to the next
 * header 8-aligned from the section's start; elsewhere, whole containers at 8-aligned offsets from
 * the file's (or archive member's) start whose every entry has version 0x0101. While a container
 * is read, the facts the judge needs are taken from its payloads (smc_options.inspect), and
 * --verify checks each one; judging never comes back to the bytes. The bytes are untrusted: every
 * copy is bounded, and the bounds apply the same way to both kinds of input. */
#include "finder_private.h"

#include <stdlib.h>

bool smc_finder_signature(const uint8_t *p, uint64_t n)
{
    return (n >= 4 && memcmp(p, "\177ELF", 4) == 0) ||
           (n >= 8 && memcmp(p, "!<arch>\n", 8) == 0) || smc_fatbin_at(p, n, 0) ||
           smc_pe_at(p, (size_t)(n < HEAD_KEEP ? n : HEAD_KEEP));
}

smc_finder *smc_finder_new(const char *name, const smc_options *opt, bool whole)
{
    smc_finder *f = calloc(1, sizeof *f);
    if (!f || !(f->name = smc_strdup(name))) {
        free(f);
        return NULL;
    }
    f->opt = opt;
    f->whole = whole;
    f->pass = 1;
    f->len = NOWHERE;
    f->inspect = opt && (opt->inspect || opt->kernel_names);
    f->want_names = opt && opt->kernel_names;
    f->verify = opt && opt->verify;
    f->max_containers = smc_limit(opt ? opt->max_containers : 0, SMC_MAX_CONTAINERS);
    f->max_images = smc_limit(opt ? opt->max_images : 0, SMC_MAX_IMAGES);
    f->tail_prev = NOWHERE;
    f->ar_member = SIZE_MAX;
    f->runtime = smc_runtime_kind_of(name, &f->runtime_kind);
    if ((f->inspect || f->verify) && !(f->zctx = smc_zstd_new())) {
        free(f->name);
        free(f);
        return NULL;
    }
    return f;
}


void smc_finder_free(smc_finder *f)
{
    if (f) smc_pe_free(&f->pe);
    if (!f) return;
    for (size_t i = 0; i < f->hit_count; i++)
        fnd_hit_clear(&f->hits[i]);
    for (size_t i = 0; i < f->open_count; i++) {
        free(f->open[i].pay);
        for (size_t k = 0; k < f->open[i].kept_count; k++)
            if (f->open[i].kept_list[k].owned)
                free((void *)(uintptr_t)f->open[i].kept_list[k].stored);
        free(f->open[i].kept_list);
    }
    for (size_t i = 0; i < f->member_count; i++) {
        free(f->members[i].name);
        smc_finder_free(f->members[i].f);
    }
    for (size_t i = 0; i < f->note_count; i++)
        free(f->notes[i].message);
    free(f->notes);
    fnd_capture_clear(&f->table);
    fnd_capture_clear(&f->names);
    fnd_capture_clear(&f->phdrs);
    fnd_capture_clear(&f->dynamic);
    fnd_capture_clear(&f->file);
    fnd_capture_clear(&f->needed);
    for (size_t i = 0; i < f->seen_slots; i++)
        free(f->seen[i].stored);
    free(f->seen);
    for (size_t i = 0; i < f->guess_count; i++)
        fnd_capture_clear(&f->guesses[i]);
    free(f->members);
    free(f->longnames);
    fnd_hit_clear(&f->probe);
    free(f->chains.links);
    free(f->chains.table);
    free(f->hits);
    free(f->open);
    free(f->watch);
    free(f->cudart);
    smc_zstd_free(f->zctx);
    free(f->name);
    free(f);
}

/* Archives (ar) -------------------------------------------------------------------------------- */

static void file_note(smc_finder *f, uint64_t at, const char *msg)
{
    note *n = smc_push(&f->notes, f->note_count, sizeof *n);
    if (!n || !(n->message = smc_strdup(msg))) {
        fnd_nomem(f);
        return;
    }
    n->offset = at;
    f->note_count++;
}

/* A member's name from its header: GNU "name/", "/N" into the long-name table (which comes
 * before the members), BSD "#1/N" (the name is in the data; kept as it stands). */
static char *member_name(const smc_finder *f, const uint8_t *h)
{
    char raw[17];
    memcpy(raw, h, 16);
    raw[16] = '\0';
    size_t n = 16;
    while (n && raw[n - 1] == ' ')
        raw[--n] = '\0';
    if (raw[0] == '/' && raw[1] >= '0' && raw[1] <= '9') {
        unsigned long long at = strtoull(raw + 1, NULL, 10);
        if (!f->longnames || at >= f->longnames_have) return smc_strdup(raw);
        const char *s = (const char *)f->longnames + at;
        size_t k = 0;
        while (at + k < f->longnames_have && s[k] != '/' && s[k] != '\n')
            k++;
        return smc_asprintf("%.*s", (int)k, s);
    }
    if (n > 1 && raw[n - 1] == '/') raw[--n] = '\0';
    return smc_strdup(raw);
}

static uint64_t decimal(const uint8_t *p, size_t n, bool *bad)
{
    uint64_t v = 0;
    size_t i = 0;
    while (i < n && p[i] == ' ')
        i++;
    size_t d = i;
    while (i < n && p[i] >= '0' && p[i] <= '9' && v < (UINT64_MAX - 9) / 10)
        v = v * 10 + (uint64_t)(p[i++] - '0');
    size_t digits = i - d;
    while (i < n && p[i] == ' ')
        i++;
    *bad = digits == 0 || i != n;
    return v;
}

/* The member header at ar_next is complete: where its data lies, and who reads it. */
static void ar_member_start(smc_finder *f)
{
    const uint8_t *h = f->ar_hdr;
    bool bad;
    uint64_t size = decimal(h + 48, 10, &bad);
    if (bad || h[58] != '`' || h[59] != '\n') {
        file_note(f, f->ar_next, "archive member header cannot be read");
        f->ar_next = NOWHERE;
        f->ar_member = SIZE_MAX; /* and no data: the member before had its bytes already */
        f->ar_size = 0;
        return;
    }
    uint64_t data = f->ar_next + 60;
    f->ar_next = size > UINT64_MAX - data - 1 ? NOWHERE : data + size + (size & 1);
    f->ar_data = data;
    f->ar_size = size;
    f->ar_member = SIZE_MAX;
    if (f->pass == 2) { /* the members are known: this one again, if it asked */
        for (size_t i = 0; i < f->member_count; i++)
            if (f->members[i].offset == data && f->members[i].f->pass == 2) f->ar_member = i;
        return;
    }
    bool symbols = h[0] == '/' && (h[1] == ' ' || memcmp(h, "/SYM64/", 7) == 0);
    bool names = h[0] == '/' && h[1] == '/' && h[2] == ' ';
    if (symbols) return;
    if (names) {
        if (!f->longnames && size <= NAMES_MAX) {
            if (!(f->longnames = malloc(size ? size : 1))) {
                fnd_nomem(f);
                return;
            }
            f->longnames_len = size;
        }
        return;
    }
    char *name = member_name(f, h);
    member *m = name ? smc_push(&f->members, f->member_count, sizeof *m) : NULL;
    if (!m) {
        free(name);
        fnd_nomem(f);
        return;
    }
    *m = (member){.name = smc_sanitize(name), .offset = data, .size = size};
    char *path = smc_asprintf("%s(%s)", f->name, name);
    m->f = path ? smc_finder_new(path, f->opt, f->whole) : NULL;
    free(path);
    f->member_count++;
    if (!m->f) {
        fnd_nomem(f);
        return;
    }
    m->f->depth = f->depth + 1;
    f->ar_member = f->member_count - 1;
}

/* Routes the window [base, base+n) of an archive: member headers, the long-name table, and each
 * member's data to a finder of its own (offsets and alignment start anew in each member). */
static void ar_window(smc_finder *f, uint64_t base, const uint8_t *p, size_t n)
{
    uint64_t end = base + n;
    while (!f->failed) {
        uint64_t dstop = f->ar_data + f->ar_size;
        if (f->ar_size && end > f->ar_data && base < dstop) {
            uint64_t from = f->ar_data > base ? f->ar_data : base;
            uint64_t to = dstop < end ? dstop : end;
            if (f->ar_member != SIZE_MAX) {
                if (smc_finder_feed(f->members[f->ar_member].f, p + (from - base),
                                    (size_t)(to - from)) != SMC_OK)
                    fnd_nomem(f);
            } else if (f->pass == 1 && f->longnames && f->longnames_have < f->longnames_len &&
                       from == f->ar_data + f->longnames_have) {
                memcpy(f->longnames + f->longnames_have, p + (from - base), to - from);
                f->longnames_have += to - from;
            }
        }
        if (dstop > end || f->ar_next == NOWHERE) return;
        uint64_t at = f->ar_next + f->ar_have;
        if (at >= end) return;
        size_t k = (size_t)(end - at) < 60 - f->ar_have ? (size_t)(end - at) : 60 - f->ar_have;
        memcpy(f->ar_hdr + f->ar_have, p + (at - base), k);
        f->ar_have += (unsigned)k;
        if (f->ar_have < 60) return;
        f->ar_have = 0;
        ar_member_start(f);
    }
}

/* Feeding ------------------------------------------------------------------------------------- */

/* A PE file's headers through its section table: the sections, and the import descriptors'
 * bytes asked for. */
static void pe_headers(smc_finder *f, const uint8_t *h, size_t n)
{
    f->pe_pending = false;
    f->pe_ok = smc_pe_parse(h, n, &f->pe, f->pe_error, sizeof f->pe_error);
    if (f->pe_ok == -2) fnd_nomem(f);
    if (f->pe_ok == 1 && f->pe.import_offset != SMC_PE_NOWHERE)
        fnd_want(f, &f->dynamic, f->pe.import_offset,
                 f->pe.import_size < DYNAMIC_MAX ? f->pe.import_size : DYNAMIC_MAX);
}

static void decide_kind(smc_finder *f)
{
    const uint8_t *h = f->head;
    size_t n = f->head_len;
    if (n >= 8 && memcmp(h, "!<arch>\n", 8) == 0) {
        f->kind = f->depth < ARCHIVE_DEPTH_MAX ? K_AR : K_NONE;
        f->ar_next = 8;
    } else if (smc_fatbin_at(h, n, 0)) {
        f->kind = K_RAW;
    } else if (smc_elf_header_read(h, n, &f->eh)) {
        f->kind = f->eh.machine == 190 ? K_CUBIN : K_ELF;
        f->elf_ok = true;
    } else if (n >= 4 && memcmp(h, "\177ELF", 4) == 0) {
        f->kind = K_ELF; /* too short for its header: reported at the end */
    } else if (smc_pe_at(h, n)) {
        f->kind = K_PE;
        /* 96 section headers take 3,840 bytes: a table may end past the first bytes kept. */
        uint64_t need = smc_pe_headers_end(h, n);
        if (need > n && need <= PE_HEADERS_MAX) {
            fnd_want(f, &f->phdrs, 0, need);
            f->pe_pending = !fnd_captured(&f->phdrs);
            if (!f->pe_pending) pe_headers(f, f->phdrs.bytes, f->phdrs.len);
        } else {
            pe_headers(f, h, n);
        }
    } else {
        f->kind = K_NONE;
    }
    if (f->kind != K_ELF || !f->elf_ok) return;
    smc_elf_header *e = &f->eh;
    uint64_t ph = (uint64_t)e->phnum * e->phentsize;
    if (e->phoff && ph && ph <= PHDRS_MAX && e->phentsize >= (e->is64 ? 56 : 32))
        fnd_want(f, &f->phdrs, e->phoff, ph);
    if (e->shoff) {
        /* The table's size may be in its first entry (extended numbering): keep up to the cap
         * from its start, and what lies just before it, where the names usually are. */
        uint64_t from = e->shoff > TABLE_LEAD ? e->shoff - TABLE_LEAD : 0;
        uint64_t len = e->shoff - from > UINT64_MAX - TABLE_MAX ? 0 : e->shoff - from + TABLE_MAX;
        fnd_want(f, &f->table, from, len);
    }
}

/* The dynamic section, once the program headers said where it is. */
static void want_dynamic(smc_finder *f)
{
    f->dyn_known = true;
    const smc_elf_header *e = &f->eh;
    for (uint64_t i = 0; fnd_captured(&f->phdrs) && i < e->phnum; i++) {
        const uint8_t *ph = f->phdrs.bytes + i * e->phentsize;
        if (smc_elf_word(e, ph, 4) != 2) continue; /* PT_DYNAMIC */
        uint64_t off = smc_elf_word(e, ph + (e->is64 ? 8 : 4), e->is64 ? 8 : 4);
        uint64_t size = smc_elf_word(e, ph + (e->is64 ? 32 : 16), e->is64 ? 8 : 4);
        if (size && size <= DYNAMIC_MAX) fnd_want(f, &f->dynamic, off, size);
        return;
    }
}

/* A ptxas's release statement, in a window of a stream (and across from the one before). */
static void ptxas_window(smc_finder *f, const uint8_t *p, size_t n)
{
    size_t need;
    if (f->release > 0) return;
    uint8_t seam[2 * sizeof f->carry];
    size_t lead = n < sizeof f->carry ? n : sizeof f->carry;
    memcpy(seam, f->carry, f->carry_len);
    memcpy(seam + f->carry_len, p, lead);
    int v = smc_ptxas_release(seam, f->carry_len + lead, &need);
    if (v <= 0) v = smc_ptxas_release(p, n, &need);
    if (v > 0) f->release = v;
    size_t keep = n < sizeof f->carry ? n : sizeof f->carry;
    if (f->carry_len + keep > sizeof f->carry) { /* the newest bytes */
        size_t old = sizeof f->carry - keep;
        memmove(f->carry, f->carry + f->carry_len - old, old);
        f->carry_len = old;
    }
    memcpy(f->carry + f->carry_len, p + n - keep, keep);
    f->carry_len += keep;
}

/* The window [base, base+n) of a stream, to whatever reads this kind of file. */
static void dispatch(smc_finder *f, uint64_t base, const uint8_t *p, size_t n)
{
    f->wbase = base;
    if (f->kind == K_AR) {
        ar_window(f, base, p, n);
    } else if (f->kind == K_CUBIN) { /* kept whole, up to the cap, for libelf */
        if (f->pass != 1 || base + n > CUBIN_FILE_MAX) return;
        if (base + n > f->file.len) {
            uint64_t cap = f->file.len ? f->file.len : 1u << 16;
            while (cap < base + n)
                cap *= 2;
            uint8_t *grown = realloc(f->file.bytes, cap);
            if (!grown) {
                fnd_nomem(f);
                return;
            }
            f->file = (capture){.bytes = grown, .len = cap, .have = f->file.have, .owned = true};
        }
        memcpy(f->file.bytes + base, p, n);
        f->file.have = base + n;
    } else if (f->kind == K_ELF || f->kind == K_RAW || f->kind == K_PE) {
        fnd_keep(f, &f->phdrs, base, p, n);
        if (f->pe_pending && fnd_captured(&f->phdrs)) pe_headers(f, f->phdrs.bytes, f->phdrs.len);
        if (f->kind != K_PE && !f->dyn_known && fnd_captured(&f->phdrs)) want_dynamic(f);
        fnd_keep(f, &f->dynamic, base, p, n);
        fnd_keep(f, &f->table, base, p, n);
        fnd_keep(f, &f->names, base, p, n);
        fnd_keep(f, &f->needed, base, p, n);
        if (f->pass == 1) fnd_stream_window(f, base, p, n);
        if (f->pass == 1 && f->runtime && f->runtime_kind == SMC_RUNTIME_PTXAS) ptxas_window(f, p, n);
    }
}

void smc_finder_expect(smc_finder *f, uint64_t size)
{
    f->expect = size;
}

bool smc_finder_spilled(const smc_finder *f)
{
    if (f->spill) return true;
    for (size_t i = 0; i < f->member_count; i++)
        if (f->members[i].f && smc_finder_spilled(f->members[i].f)) return true;
    return false;
}

smc_status smc_finder_feed(smc_finder *f, const uint8_t *p, size_t n)
{
    if (f->failed || !n || f->spill) return f->failed;
    uint64_t base = f->pos;
    f->pos += n;
    if (f->whole) f->window = p;
    if (base < HEAD_KEEP && f->pass == 1) {
        size_t k = HEAD_KEEP - (size_t)base < n ? HEAD_KEEP - (size_t)base : n;
        memcpy(f->head + base, p, k);
        f->head_len = (size_t)base + k;
    }
    if (f->kind == K_UNKNOWN) {
        if (f->head_len < 64) return SMC_OK; /* decided at the end, or with more bytes */
        f->wbase = 0;
        decide_kind(f);
        if (!f->whole && base > 0) dispatch(f, 0, f->head, (size_t)base); /* what came before */
    }
    if (!f->whole && f->kind != K_NONE) dispatch(f, base, p, n);
    return f->failed;
}

/* The layout ------------------------------------------------------------------------------------
 */

static smc_status finding(smc_library *lib, uint64_t at, const char *fmt, ...) SMC_PRINTF(3, 4);

static smc_status finding(smc_library *lib, uint64_t at, const char *fmt, ...)
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
static bool table_range(const smc_finder *f, uint64_t *off, uint64_t *len)
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
static void want_names(smc_finder *f)
{
    uint64_t off, len;
    const smc_elf_header *e = &f->eh;
    if (!table_range(f, &off, &len) || len > TABLE_MAX) return;
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

typedef struct rules {
    smc_finder *f;
    smc_library *lib;
    const smc_section *secs;
    size_t nsecs;
    bool overlapping; /* some sections overlap: then */
    uint64_t *reach;  /* reach[i]: the furthest end of sections 0..i */
    size_t *taken; /* hits taken, in order */
    size_t taken_count;
    bool over; /* one window: a container taken is past --max-images; no more are parsed */
} rules;

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
static smc_status walk(rules *r, uint64_t s, uint64_t e, const char *name)
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
            st = finding(r->lib, cursor, "%llu bytes in %s at +0x%llx are no container",
                         (unsigned long long)(next - cursor), where,
                         (unsigned long long)(cursor - s));
            cursor = next;
            continue;
        }
        any = true;
        uint64_t at = h->start;
        if (h->header_ok && h->end > e) {
            st = finding(r->lib, at,
                         "container in %s at +0x%llx: container of %llu bytes runs past the "
                         "end (%llu bytes left)",
                         where, (unsigned long long)(at - s), (unsigned long long)h->fatsize,
                         (unsigned long long)(e - at > h->hsize ? e - at - h->hsize : 0));
            cursor = next_header(r, at + 1, e, s);
        } else if (!h->header_ok) {
            st = finding(r->lib, h->err_offset, "container in %s at +0x%llx: %s", where,
                         (unsigned long long)(at - s), h->err ? h->err : "unreadable");
            cursor = next_header(r, at + 1, e, s);
        } else {
            if (h->ok)
                st = take(r, h);
            else
                st = finding(r->lib, h->err_offset, "container in %s at +0x%llx: %s", where,
                             (unsigned long long)(at - s), h->err ? h->err : "unreadable");
            cursor = h->end;
            last = r->f->whole ? SIZE_MAX : (size_t)(h - r->f->hits);
        }
    }
    if (st == SMC_OK && !any)
        st = finding(r->lib, s, "%s (%llu bytes) holds no container", where,
                     (unsigned long long)(e - s));
    return st;
}

/* Looks for whole, strict containers in [from, to) outside the fatbin sections: real libraries
 * keep thousands there (cuFFT's .ldata, §1). One that does not parse is bytes that looked like a
 * header. */
static smc_status search(rules *r, uint64_t from, uint64_t to)
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

static smc_status build(rules *r)
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
            st = finding(lib, h->start,
                         "more than %llu containers in one file: the rest are not read "
                         "(--max-containers)",
                         (unsigned long long)f->max_containers);
            break;
        }
        if (h->over || lib->image_count + h->image_count > f->max_images) {
            st = finding(lib, h->start,
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

/* The bytes of a capture, or NULL. */
static const uint8_t *bytes_of(const capture *c)
{
    return fnd_captured(c) ? c->bytes : NULL;
}

/* DT_NEEDED libcudart.so.N (cuda-compat.md §11): the runtime a library needs, from the dynamic
 * section and the string table it points into (through the program headers' PT_LOAD). */
static size_t needed_offsets(const smc_finder *f, uint64_t *out, size_t max)
{
    const smc_elf_header *e = &f->eh;
    const uint8_t *dyn = bytes_of(&f->dynamic), *ph = bytes_of(&f->phdrs);
    if (!dyn || !ph) return 0;
    int w = e->is64 ? 8 : 4;
    uint64_t strtab = NOWHERE;
    for (uint64_t i = 0; (i + 2) * (uint64_t)w <= f->dynamic.len; i += 2) {
        uint64_t tag = smc_elf_word(e, dyn + i * (uint64_t)w, w);
        if (tag == 0) break; /* DT_NULL */
        if (tag == 5) strtab = smc_elf_word(e, dyn + (i + 1) * (uint64_t)w, w); /* DT_STRTAB */
    }
    uint64_t stroff = NOWHERE; /* the file offset of that address */
    for (uint64_t i = 0; strtab != NOWHERE && i < e->phnum; i++) {
        const uint8_t *p = ph + i * e->phentsize;
        if (smc_elf_word(e, p, 4) != 1) continue; /* PT_LOAD */
        uint64_t off = smc_elf_word(e, p + (e->is64 ? 8 : 4), w);
        uint64_t vaddr = smc_elf_word(e, p + (e->is64 ? 16 : 8), w);
        uint64_t filesz = smc_elf_word(e, p + (e->is64 ? 32 : 16), w);
        if (strtab >= vaddr && strtab - vaddr < filesz) {
            stroff = off + (strtab - vaddr);
            break;
        }
    }
    size_t n = 0;
    for (uint64_t i = 0; stroff != NOWHERE && (i + 2) * (uint64_t)w <= f->dynamic.len; i += 2) {
        uint64_t tag = smc_elf_word(e, dyn + i * (uint64_t)w, w);
        if (tag == 0 || n == max) break;
        if (tag != 1) continue; /* DT_NEEDED */
        uint64_t at = stroff + smc_elf_word(e, dyn + (i + 1) * (uint64_t)w, w);
        if (at >= stroff && at < f->len) out[n++] = at;
    }
    return n;
}

#define NEEDED_MAX 256 /* DT_NEEDED entries looked at */

/* A stream that saw more libcudart strings than it remembers reads the DT_NEEDED strings in the
 * second pass instead (when they lie within 1 MiB of each other). */
static void want_needed(smc_finder *f)
{
    uint64_t at[NEEDED_MAX];
    size_t n = needed_offsets(f, at, NEEDED_MAX);
    uint64_t lo = NOWHERE, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (at[i] < lo) lo = at[i];
        if (at[i] > hi) hi = at[i];
    }
    if (!n || hi - lo > (1u << 20)) return;
    uint64_t end = hi + 64 < f->len ? hi + 64 : f->len;
    fnd_want(f, &f->needed, lo, end - lo);
}

/* DT_NEEDED libcudart.so.N (cuda-compat.md §11): the runtime a library needs, from the dynamic
 * section and the string table it points into (through the program headers' PT_LOAD); *c10
 * whether it needs PyTorch's libc10 too. */
static unsigned needed_cudart(smc_finder *f, bool *unknown, bool *c10)
{
    uint64_t at[NEEDED_MAX];
    size_t n = needed_offsets(f, at, NEEDED_MAX);
    unsigned major = 0;
    *unknown = *c10 = false;
    for (size_t i = 0; i < n; i++) {
        unsigned m = 0;
        const capture *c = &f->needed;
        if (f->whole) {
            m = fnd_cudart_version(f->window + at[i],
                             (size_t)(f->len - at[i] < 64 ? f->len - at[i] : 64));
        } else if (fnd_captured(c) && at[i] >= c->from && at[i] - c->from < c->len) {
            m = fnd_cudart_version(c->bytes + (at[i] - c->from), (size_t)(c->len - (at[i] - c->from)));
        } else {
            for (size_t k = 0; k < f->cudart_count; k++)
                if (f->cudart[k].offset == at[i]) m = f->cudart[k].major;
            *unknown |= f->cudart_over && !m;
        }
        if (m == NEEDED_C10)
            *c10 = true;
        else if (m > major)
            major = m;
    }
    return major;
}

/* The CUDA libraries DT_NEEDED names (runtime.c), in its order, into lib->needed: read where
 * the bytes are at hand, else among the names a stream remembered. */
static smc_status needed_names(smc_finder *f, smc_library *lib)
{
    uint64_t at[NEEDED_MAX];
    size_t n = needed_offsets(f, at, NEEDED_MAX);
    for (size_t i = 0; i < n; i++) {
        const capture *c = &f->needed;
        const uint8_t *p = NULL;
        size_t len = 0;
        if (f->whole) {
            p = f->window + at[i];
            len = smc_cuda_soname(p, (size_t)(f->len - at[i] < SMC_SONAME_MAX ? f->len - at[i]
                                                                               : SMC_SONAME_MAX));
        } else if (fnd_captured(c) && at[i] >= c->from && at[i] - c->from < c->len) {
            p = c->bytes + (at[i] - c->from);
            uint64_t left = c->len - (at[i] - c->from);
            len = smc_cuda_soname(p, (size_t)(left < SMC_SONAME_MAX ? left : SMC_SONAME_MAX));
        } else {
            for (size_t k = 0; k < f->cudart_count && !len; k++)
                if (f->cudart[k].offset == at[i] && f->cudart[k].name[0]) {
                    p = (const uint8_t *)f->cudart[k].name;
                    len = strlen(f->cudart[k].name);
                }
        }
        if (!len) continue;
        char **slot = smc_push(&lib->needed, lib->needed_count, sizeof *slot);
        if (!slot || !(*slot = malloc(len + 1))) return SMC_ERR_NOMEM;
        memcpy(*slot, p, len);
        (*slot)[len] = '\0';
        lib->needed_count++;
    }
    return SMC_OK;
}

/* With the sections known (sorted by offset): the fatbin ones walked, the rest of the file
 * searched, the containers built. st: what reading the sections came to so far. */
static smc_status resolve_sections(smc_finder *f, smc_library *lib, smc_section *secs,
                                   size_t nsecs, smc_status st)
{
    /* Sections that run past the end: a fatbin one is reported; what is there is searched. */
    for (size_t i = 0; i < nsecs && st == SMC_OK; i++) {
        smc_section *s = &secs[i];
        if (smc_in_range(f->len, s->offset, s->size)) continue;
        if (s->fatbin)
            st = finding(lib, s->offset,
                         "section %s (offset 0x%llx, %llu bytes) runs past the end of the file "
                         "(%llu bytes)",
                         s->name, (unsigned long long)s->offset, (unsigned long long)s->size,
                         (unsigned long long)f->len);
        s->fatbin = false;
        s->size = s->offset < f->len ? f->len - s->offset : 0;
    }
    rules r = {.f = f, .lib = lib, .secs = secs, .nsecs = nsecs};
    for (size_t i = 1; i < nsecs; i++)
        r.overlapping |= secs[i].offset - secs[i - 1].offset < secs[i - 1].size;
    if (r.overlapping && st == SMC_OK && !(r.reach = malloc(nsecs * sizeof *r.reach)))
        st = SMC_ERR_NOMEM;
    for (size_t i = 0; r.reach && i < nsecs; i++) {
        uint64_t end = secs[i].offset + secs[i].size; /* sizes were cut to the file */
        r.reach[i] = i && r.reach[i - 1] > end ? r.reach[i - 1] : end;
    }
    uint64_t covered = 0;
    for (size_t i = 0; i < nsecs && st == SMC_OK; i++) {
        if (!secs[i].fatbin || secs[i].offset < covered) continue;
        st = search(&r, covered, secs[i].offset);
        if (st == SMC_OK) st = walk(&r, secs[i].offset, secs[i].offset + secs[i].size, secs[i].name);
        covered = secs[i].offset + secs[i].size;
    }
    if (st == SMC_OK) st = search(&r, covered, f->len);
    if (st == SMC_OK) st = f->failed ? f->failed : build(&r);
    free(r.taken);
    free(r.reach);
    return st;
}

/* An ELF file: the section table, then the fatbin sections walked and the rest searched. */
static smc_status resolve_elf(smc_finder *f, smc_library *lib)
{
    const smc_elf_header *e = &f->eh;
    smc_section *secs = NULL;
    size_t nsecs = 0;
    smc_status st = SMC_OK;
    if (!f->elf_ok) return finding(lib, 0, "ELF header truncated");
    uint64_t toff, tlen;
    if (e->shoff && table_range(f, &toff, &tlen)) {
        if (!smc_in_range(f->len, toff, tlen)) {
            st = finding(lib, toff,
                         "section header table (offset 0x%llx, %llu bytes) runs past the end of "
                         "the file (%llu bytes)",
                         (unsigned long long)toff, (unsigned long long)tlen,
                         (unsigned long long)f->len);
        } else if (tlen > TABLE_MAX) {
            st = finding(lib, toff, "section header table of %llu bytes is not read (over 4 MiB)",
                         (unsigned long long)tlen);
        } else {
            const capture *t = &f->table;
            if (f->names.len && !fnd_captured(&f->names))
                st = finding(lib, SMC_NO_OFFSET,
                             "the section names (offset 0x%llx) went by before the section "
                             "table said where they were, and were not read again",
                             (unsigned long long)f->names.from);
            if (st == SMC_OK)
                st = smc_elf_sections(f->head, f->head_len, t->bytes + (toff - t->from),
                                      (size_t)tlen, bytes_of(&f->names),
                                      (size_t)(fnd_captured(&f->names) ? f->names.len : 0), &secs,
                                      &nsecs);
        }
    } else if (e->shoff) { /* its size as the header gives it */
        st = finding(lib, e->shoff,
                     "section header table (offset 0x%llx, %llu bytes) runs past the end of the "
                     "file (%llu bytes)",
                     (unsigned long long)e->shoff,
                     (unsigned long long)((e->shnum ? e->shnum : 1u) * (uint64_t)e->shentsize),
                     (unsigned long long)f->len);
    }
    st = resolve_sections(f, lib, secs, nsecs, st);
    if (st == SMC_OK && lib->container_count) {
        bool unknown, c10;
        unsigned v = needed_cudart(f, &unknown, &c10);
        lib->cudart_major = v / 100;
        lib->cudart_minor = v % 100;
        lib->links_torch = c10;
        if (f->elf_ok) lib->machine = f->eh.machine;
        st = needed_names(f, lib);
        if (unknown && st == SMC_OK)
            st = finding(lib, SMC_NO_OFFSET,
                         "more than %u libcudart strings went by: the runtime it needs was not "
                         "read",
                         CUDART_MAX);
    }
    smc_sections_free(secs, nsecs);
    return st;
}

/* The CUDA runtime a DLL imports (cudart64_12.dll): the import descriptors' names, each read
 * where its RVA lies in the file (a stream: among the cudart64_ strings that went by). */
static unsigned imported_cudart(smc_finder *f)
{
    const uint8_t *d = NULL;
    uint64_t dlen = 0, at = f->pe.import_offset;
    if (f->whole && at != SMC_PE_NOWHERE && at < f->len) {
        d = f->window + at;
        dlen = f->len - at < f->pe.import_size ? f->len - at : f->pe.import_size;
    } else if (!f->whole && fnd_captured(&f->dynamic)) {
        d = f->dynamic.bytes;
        dlen = f->dynamic.len;
    }
    unsigned major = 0;
    static const uint8_t zero[20];
    for (uint64_t i = 0; d && (i + 1) * 20 <= dlen && i < NEEDED_MAX; i++) {
        const uint8_t *desc = d + i * 20;
        if (memcmp(desc, zero, 20) == 0) break; /* the terminating descriptor */
        uint64_t name = smc_pe_offset(&f->pe, smc_le32(desc + 12));
        if (name == SMC_PE_NOWHERE || name >= f->len) continue;
        unsigned m = 0;
        if (f->whole)
            m = fnd_cudart_version(f->window + name, (size_t)(f->len - name < 64 ? f->len - name : 64));
        for (size_t k = 0; !f->whole && k < f->cudart_count; k++)
            if (f->cudart[k].offset == name) m = f->cudart[k].major;
        if (m != NEEDED_C10 && m > major) major = m;
    }
    return major;
}

static int by_offset(const void *a, const void *b)
{
    const smc_section *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* A PE image (Windows DLL): its sections from the headers, .nv_fatb walked, the rest searched;
 * broken headers are a finding, and then the whole file is searched. */
static smc_status resolve_pe(smc_finder *f, smc_library *lib)
{
    smc_status st = SMC_OK;
    smc_section *secs = NULL;
    size_t nsecs = 0;
    if (f->pe_pending) /* the file ended inside its headers */
        pe_headers(f, f->head, f->head_len);
    if (f->pe_ok != 1) {
        st = finding(lib, 0, "%s: its sections were not read; the whole file is searched",
                     f->pe_error[0] ? f->pe_error : "PE headers not read");
    } else if (f->pe.section_count) {
        nsecs = f->pe.section_count;
        if (!(secs = calloc(nsecs, sizeof *secs))) return SMC_ERR_NOMEM;
        for (size_t i = 0; i < nsecs; i++) {
            secs[i] = f->pe.sections[i];
            if (!(secs[i].name = smc_strdup(f->pe.sections[i].name))) {
                smc_sections_free(secs, i);
                return SMC_ERR_NOMEM;
            }
        }
        qsort(secs, nsecs, sizeof *secs, by_offset);
    }
    st = resolve_sections(f, lib, secs, nsecs, st);
    if (st == SMC_OK && lib->container_count) lib->windows = true; /* loads where DLLs do */
    if (st == SMC_OK && lib->container_count && f->pe_ok == 1) {
        unsigned v = imported_cudart(f);
        lib->cudart_major = v / 100;
        lib->cudart_minor = v % 100;
        lib->machine = f->pe.machine == 0x8664 ? 62 : f->pe.machine == 0xAA64 ? 183 : 0;
    }
    smc_sections_free(secs, nsecs);
    return st;
}

static smc_status resolve_raw(smc_finder *f, smc_library *lib)
{
    rules r = {.f = f, .lib = lib};
    smc_status st = walk(&r, 0, f->len, NULL);
    if (st == SMC_OK) st = f->failed ? f->failed : build(&r);
    free(r.taken);
    return st;
}

static smc_status resolve_cubin(smc_finder *f, smc_library *lib)
{
    if (f->len > CUBIN_FILE_MAX)
        return finding(lib, 0, "a cubin of %llu bytes: over 64 MiB, not read",
                       (unsigned long long)f->len);
    const uint8_t *bytes = f->whole ? f->window : f->file.bytes;
    smc_cubin_info info;
    smc_fatbin_error err;
    smc_status st = smc_cubin_inspect(bytes, f->len, &info, &err);
    if (st != SMC_OK)
        return st == SMC_ERR_FORMAT ? smc_library_add_finding(lib, 0, "%s", err.message) : st;
    smc_image *img = smc_push(&lib->images, 0, sizeof *img);
    smc_container *c = img ? smc_push(&lib->containers, 0, sizeof *c) : NULL;
    if (!c) return SMC_ERR_NOMEM;
    *img = (smc_image){.kind = SMC_IMAGE_CUBIN,
                       .variant = info.variant,
                       .arch = info.arch,
                       .version_major = 1,
                       .version_minor = info.abi,
                       .stored_size = f->len,
                       .size = f->len,
                       .release = f->inspect ? info.release : 0};
    *c = (smc_container){.size = f->len, .bare_cubin = true, .image_count = 1, .kernels = -1};
    if (f->inspect) {
        c->kernels = info.kernels > 0;
        if (info.kernels)
            c->kernel_names = info.kernels <= 3
                                  ? smc_strdup(info.names)
                                  : smc_asprintf("%s (+%zu more)", info.names, info.kernels - 3);
        lib->release = img->release;
    }
    lib->image_count = lib->container_count = 1;
    return SMC_OK;
}

/* One window of an archive: its members are found now, each read as a file of its own. */
static void ar_whole(smc_finder *f)
{
    for (uint64_t at = 8; !f->failed && at < f->len;) {
        if (f->len - at < 60) {
            file_note(f, at, "archive member header truncated");
            return;
        }
        memcpy(f->ar_hdr, f->window + at, 60);
        f->ar_next = at;
        size_t before = f->member_count;
        ar_member_start(f);
        if (f->ar_next == NOWHERE) return;
        uint64_t dstop = f->ar_data + f->ar_size;
        if (dstop > f->len) {
            file_note(f, at, "archive member runs past the end of the archive");
            dstop = f->len;
        }
        if (f->longnames && !f->longnames_have && f->member_count == before) {
            uint64_t k = dstop - f->ar_data;
            f->longnames_have = k < f->longnames_len ? k : f->longnames_len;
            memcpy(f->longnames, f->window + f->ar_data, (size_t)f->longnames_have);
        }
        if (f->member_count > before && f->ar_data < dstop &&
            smc_finder_feed(f->members[before].f, f->window + f->ar_data,
                            (size_t)(dstop - f->ar_data)) != SMC_OK)
            return;
        at = f->ar_next;
    }
}

/* An archive is one library, as it will be once linked: its members' containers, each naming
 * its member, at offsets from the archive's start. */
static smc_status resolve_ar(smc_finder *f, smc_library *lib)
{
    if (f->whole) /* the stream's ends below say what ar_whole says, at the same offsets */
        ar_whole(f);
    else if (f->ar_next != NOWHERE && f->ar_have)
        file_note(f, f->ar_next, "archive member header truncated");
    else if (f->ar_next != NOWHERE && f->ar_data + f->ar_size > f->len)
        file_note(f, f->ar_data - 60, "archive member runs past the end of the archive");
    smc_status st = f->failed;
    for (size_t i = 0; i < f->note_count && st == SMC_OK; i++)
        st = smc_library_add_finding(lib, f->notes[i].offset, "%s", f->notes[i].message);
    for (size_t i = 0; i < f->member_count && st == SMC_OK; i++) {
        member *m = &f->members[i];
        smc_input *part = smc_input_new(f->name, SMC_INPUT_FILE);
        if (!part) return SMC_ERR_NOMEM;
        st = smc_finder_finish(m->f, part);
        for (size_t k = 0; k < part->library_count && st == SMC_OK; k++)
            st = smc_library_absorb(lib, &part->libraries[k], m->offset, m->name);
        smc_input_free(part);
    }
    return st;
}

/* The end of the first pass: the file's length is known, and what was wanted past it is not. */
static void first_pass_done(smc_finder *f)
{
    f->len = f->pos;
    f->wbase = f->pos; /* everything has gone by */
    if (f->kind == K_ELF && f->table.len && f->table.have < f->table.len && !f->whole)
        f->table.len = f->table.have;
    if (f->kind == K_ELF && f->whole && f->elf_ok) {
        /* One window: everything is at hand now. */
        if (f->table.len) {
            uint64_t len = f->table.len;
            if (f->table.from <= f->len && len > f->len - f->table.from)
                len = f->len - f->table.from;
            fnd_want(f, &f->table, f->table.from, len);
        }
        if (f->phdrs.len) fnd_want(f, &f->phdrs, f->phdrs.from, f->phdrs.len);
        want_dynamic(f);
    }
    if (f->kind == K_PE && f->pe_pending && f->whole) { /* one window: all of it is here */
        fnd_want(f, &f->phdrs, 0, f->phdrs.len);
        if (fnd_captured(&f->phdrs)) pe_headers(f, f->phdrs.bytes, f->phdrs.len);
    }
    if (f->kind == K_ELF && f->elf_ok) want_names(f);
    if (f->kind == K_ELF && f->elf_ok && !f->whole && f->cudart_over) want_needed(f);
}

bool smc_finder_again(smc_finder *f)
{
    if (f->failed || f->whole || f->pass != 1 || smc_finder_spilled(f)) return false;
    if (f->kind == K_UNKNOWN && f->head_len) { /* fewer than 64 bytes came */
        f->wbase = 0;
        decide_kind(f);
        dispatch(f, 0, f->head, f->head_len);
    }
    first_pass_done(f);
    bool again = false;
    if (f->kind == K_AR)
        for (size_t i = 0; i < f->member_count; i++)
            again |= smc_finder_again(f->members[i].f);
    else if (f->kind == K_ELF)
        again = (f->names.len && !fnd_captured(&f->names)) || (f->needed.len && !fnd_captured(&f->needed));
    if (!again) return false;
    f->pass = 2;
    f->pos = 0;
    f->ar_next = 8;
    f->ar_have = 0;
    f->ar_data = f->ar_size = 0;
    f->ar_member = SIZE_MAX;
    return true;
}

smc_status smc_finder_finish(smc_finder *f, smc_input *in)
{
    if (f->failed) return f->failed;
    if (f->pass == 1) {
        if (!f->whole) {
            smc_finder_again(f); /* a caller that gives no second pass gets what there is */
        } else {
            if (f->kind == K_UNKNOWN) decide_kind(f);
            first_pass_done(f);
        }
    }
    if (f->kind == K_NONE || f->kind == K_UNKNOWN) return SMC_OK;
    if (f->runtime && f->kind == K_ELF && f->elf_ok) { /* by its name; a ptxas by its text too */
        size_t need;
        if (f->whole && f->runtime_kind == SMC_RUNTIME_PTXAS && f->len <= SIZE_MAX) {
            int v = smc_ptxas_release(f->window, (size_t)f->len, &need);
            f->release = v > 0 ? v : 0;
        }
        smc_status st = smc_input_add_runtime(in, f->name, f->runtime_kind, f->release);
        if (st != SMC_OK) return st;
    }
    /* Whatever is still open ran into the end of the bytes. */
    for (size_t i = 0; i < f->open_count; i++)
        fnd_settle(f, &f->open[i]);
    f->open_count = 0;
    smc_library *lib = smc_library_new(f->name);
    if (!lib) return SMC_ERR_NOMEM;
    smc_status st;
    switch (f->kind) {
    case K_ELF:
        st = resolve_elf(f, lib);
        break;
    case K_RAW:
        st = resolve_raw(f, lib);
        break;
    case K_PE:
        st = resolve_pe(f, lib);
        break;
    case K_CUBIN:
        st = resolve_cubin(f, lib);
        break;
    default:
        st = resolve_ar(f, lib);
        break;
    }
    if (st == SMC_OK && f->failed) st = f->failed;
    if (st == SMC_OK && f->over_budget)
        st = finding(lib, SMC_NO_OFFSET,
                     "past the budget of %llu decompressed bytes for one file: the payloads "
                     "after it were not decompressed (cubins not read count as holding kernels)",
                     (unsigned long long)(DECODE_BASE + DECODE_PER_BYTE * f->len));
    if (st != SMC_OK) {
        smc_library_free(lib);
        return st;
    }
    lib->file_size = f->len;
    return smc_input_take_library(in, lib);
}
