/* finder_resolve.c: a file's layout resolved into the library's containers, by kind: ELF (its
 * sections, and the CUDA runtime its dynamic section needs), PE (its sections and the cudart
 * DLL it imports), a raw fat binary, a bare cubin. */
#include "find_private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of a capture, or NULL. */
static const uint8_t *bytes_of(const capture *c)
{
    return fnd_captured(c) ? c->bytes : NULL;
}

/* DT_NEEDED libcudart.so.N (docs/compatibility.md §3): the runtime a library needs, from the
 * dynamic section and the string table it points into (through the program headers' PT_LOAD). */
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
void fnd_want_needed(smc_finder *f)
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

/* DT_NEEDED libcudart.so.N (docs/compatibility.md §3): the runtime a library needs, from the
 * dynamic section and the string table it points into (through the program headers' PT_LOAD);
 * *c10 whether it needs PyTorch's libc10 too. */
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
            m = fnd_cudart_version(c->bytes + (at[i] - c->from),
                                   (size_t)(c->len - (at[i] - c->from)));
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
            st = fnd_finding(lib, s->offset,
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
        st = fnd_search(&r, covered, secs[i].offset);
        if (st == SMC_OK)
            st = fnd_walk(&r, secs[i].offset, secs[i].offset + secs[i].size, secs[i].name);
        covered = secs[i].offset + secs[i].size;
    }
    if (st == SMC_OK) st = fnd_search(&r, covered, f->len);
    if (st == SMC_OK) st = f->failed ? f->failed : fnd_build(&r);
    free(r.taken);
    free(r.reach);
    return st;
}

/* An ELF file: the section table, then the fatbin sections walked and the rest searched. */
smc_status fnd_resolve_elf(smc_finder *f, smc_library *lib)
{
    const smc_elf_header *e = &f->eh;
    smc_section *secs = NULL;
    size_t nsecs = 0;
    smc_status st = SMC_OK;
    if (!f->elf_ok) return fnd_finding(lib, 0, "ELF header truncated");
    uint64_t toff, tlen;
    if (e->shoff && fnd_table_range(f, &toff, &tlen)) {
        if (!smc_in_range(f->len, toff, tlen)) {
            st = fnd_finding(
                lib, toff,
                "section header table (offset 0x%llx, %llu bytes) runs past the end of "
                "the file (%llu bytes)",
                (unsigned long long)toff, (unsigned long long)tlen, (unsigned long long)f->len);
        } else if (tlen > TABLE_MAX) {
            st = fnd_finding(lib, toff,
                             "section header table of %llu bytes is not read (over 4 MiB)",
                             (unsigned long long)tlen);
        } else {
            const capture *t = &f->table;
            if (f->names.len && !fnd_captured(&f->names))
                st = fnd_finding(lib, SMC_NO_OFFSET,
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
        st =
            fnd_finding(lib, e->shoff,
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
            st = fnd_finding(lib, SMC_NO_OFFSET,
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
            m = fnd_cudart_version(f->window + name,
                                   (size_t)(f->len - name < 64 ? f->len - name : 64));
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
smc_status fnd_resolve_pe(smc_finder *f, smc_library *lib)
{
    smc_status st = SMC_OK;
    smc_section *secs = NULL;
    size_t nsecs = 0;
    if (f->pe_pending) /* the file ended inside its headers */
        fnd_pe_headers(f, f->head, f->head_len);
    if (f->pe_ok != 1) {
        st = fnd_finding(lib, 0, "%s: its sections were not read; the whole file is searched",
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

smc_status fnd_resolve_raw(smc_finder *f, smc_library *lib)
{
    rules r = {.f = f, .lib = lib};
    smc_status st = fnd_walk(&r, 0, f->len, NULL);
    if (st == SMC_OK) st = f->failed ? f->failed : fnd_build(&r);
    free(r.taken);
    return st;
}

smc_status fnd_resolve_cubin(smc_finder *f, smc_library *lib)
{
    if (f->len > CUBIN_FILE_MAX)
        return fnd_finding(lib, 0, "a cubin of %llu bytes: over 64 MiB, not read",
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


/* A PE file's headers through its section table: the sections, and the import descriptors'
 * bytes asked for. */
void fnd_pe_headers(smc_finder *f, const uint8_t *h, size_t n)
{
    f->pe_pending = false;
    f->pe_ok = smc_pe_parse(h, n, &f->pe, f->pe_error, sizeof f->pe_error);
    if (f->pe_ok == -2) fnd_nomem(f);
    if (f->pe_ok == 1 && f->pe.import_offset != SMC_PE_NOWHERE)
        fnd_want(f, &f->dynamic, f->pe.import_offset,
                 f->pe.import_size < DYNAMIC_MAX ? f->pe.import_size : DYNAMIC_MAX);
}
