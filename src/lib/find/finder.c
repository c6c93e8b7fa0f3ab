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
 * The rules (docs/fatbin-format.md §1): in .nv_fatbin and __nv_relfatbin sections,
 * containers back to back with zero padding between them, garbage reported and skipped to the next
 * header 8-aligned from the section's start; elsewhere, whole containers at 8-aligned offsets from
 * the file's (or archive member's) start whose every entry has version 0x0101. While a container
 * is read, the facts the judge needs are taken from its payloads (smc_options.read.inspect), and
 * --verify checks each one; judging never comes back to the bytes. The bytes are untrusted: every
 * copy is bounded, and the bounds apply the same way to both kinds of input. */
#include "find_private.h"

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
    f->inspect = opt && (opt->read.inspect || opt->read.kernel_names);
    f->want_names = opt && opt->read.kernel_names;
    f->verify = opt && opt->read.verify;
    smc_limits lim = smc_limits_of(opt);
    f->max_containers = lim.max_containers;
    f->max_images = lim.max_images;
    f->tail_prev = NOWHERE;
    f->ar_member = SIZE_MAX;
    f->runtime = smc_runtime_kind_of(name, &f->runtime_kind);
    return f; /* its Zstandard context comes with its first such payload (containers.c) */
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
    free(f->back);
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
            if (!f->pe_pending) fnd_pe_headers(f, f->phdrs.bytes, f->phdrs.len);
        } else {
            fnd_pe_headers(f, h, n);
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
        if (f->pe_pending && fnd_captured(&f->phdrs))
            fnd_pe_headers(f, f->phdrs.bytes, f->phdrs.len);
        if (f->kind != K_PE && !f->dyn_known && fnd_captured(&f->phdrs)) want_dynamic(f);
        fnd_keep(f, &f->dynamic, base, p, n);
        fnd_keep(f, &f->table, base, p, n);
        fnd_keep(f, &f->names, base, p, n);
        fnd_keep(f, &f->needed, base, p, n);
        if (f->pass == 1) fnd_stream_window(f, base, p, n);
        if (f->pass == 1 && f->runtime && f->runtime_kind == SMC_RUNTIME_PTXAS)
            ptxas_window(f, p, n);
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
        if (fnd_captured(&f->phdrs)) fnd_pe_headers(f, f->phdrs.bytes, f->phdrs.len);
    }
    if (f->kind == K_ELF && f->elf_ok) fnd_want_names(f);
    if (f->kind == K_ELF && f->elf_ok && !f->whole && f->cudart_over) fnd_want_needed(f);
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
        again = (f->names.len && !fnd_captured(&f->names)) ||
                (f->needed.len && !fnd_captured(&f->needed));
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
        st = fnd_resolve_elf(f, lib);
        break;
    case K_RAW:
        st = fnd_resolve_raw(f, lib);
        break;
    case K_PE:
        st = fnd_resolve_pe(f, lib);
        break;
    case K_CUBIN:
        st = fnd_resolve_cubin(f, lib);
        break;
    default:
        st = resolve_ar(f, lib);
        break;
    }
    if (st == SMC_OK && f->failed) st = f->failed;
    if (st == SMC_OK && f->over_budget)
        st =
            fnd_finding(lib, SMC_NO_OFFSET,
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
