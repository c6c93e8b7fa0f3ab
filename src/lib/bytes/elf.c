/* elf.c: the only user of libelf. It reads a host ELF file's section table from the bytes the
 * finder kept of it (whatever their place in the file), and the headers and sections of cubins.
 * The bytes are untrusted: every libelf call is checked, and a section table that cannot be read
 * leaves the finder's whole-file search to do its work. */
#include "bytes.h"

#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

#define FATBIN ".nv_fatbin"
#define RELFATBIN "__nv_relfatbin" /* relocatable device code (-rdc), §1 */
#define SECTIONS_SLICE 4096u /* section headers handed to libelf at once */

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;
static bool libelf_ok;

static void libelf_init(void)
{
    libelf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

static Elf *open_memory(uint8_t *buf, size_t len)
{
    pthread_once(&libelf_once, libelf_init);
    return libelf_ok ? elf_memory((char *)buf, len) : NULL;
}

/* Cubins ----------------------------------------------------------------------------------------
 */

/* Just past the first occurrence of key in the n bytes at p, or NULL. */
static const uint8_t *after(const uint8_t *p, size_t n, const char *key)
{
    size_t k = strlen(key);
    const uint8_t *q = memmem(p, n, key, k);
    return q ? q + k : NULL;
}

/* The variant of a CUDA 13 cubin is spelt only in the ptxas arguments kept in .note.nv.tkinfo,
 * e.g. "-arch sm_90a -m 64 " (§6). */
static smc_variant tkinfo_variant(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n, *q = after(p, n, "-arch sm_");
    if (!q) return SMC_VARIANT_NONE;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    if (q < end && *q == 'a') return SMC_VARIANT_A;
    if (q < end && *q == 'f') return SMC_VARIANT_F;
    return SMC_VARIANT_NONE;
}

/* The release of the ptxas that wrote the cubin, from its version string in .note.nv.tkinfo
 * ("Cuda compilation tools, release 12.8, V12.8.93"): 12080, or 0. */
static unsigned tkinfo_release(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n, *q = after(p, n, "release ");
    if (!q) return 0;
    unsigned major = 0, minor = 0;
    const uint8_t *d = q;
    while (q < end && *q >= '0' && *q <= '9' && major < 1000)
        major = major * 10 + (unsigned)(*q++ - '0');
    if (q == d || q >= end || *q != '.') return 0;
    d = ++q;
    while (q < end && *q >= '0' && *q <= '9' && minor < 100)
        minor = minor * 10 + (unsigned)(*q++ - '0');
    return q == d || minor > 9 ? 0 : major * 1000 + minor * 10;
}

/* Kernels live in .text.<name> sections (§6); the first three names are kept. */
static void add_kernel(smc_cubin_info *info, const char *name)
{
    size_t len = strlen(info->names);
    if (info->kernels < 3 && len + strlen(name) + 3 < sizeof info->names) {
        snprintf(info->names + len, sizeof info->names - len, "%s%s", len ? ", " : "", name);
        smc_sanitize(info->names + len);
    } else if (len == 0) { /* a first name too long for the room (templates): its start, "..." */
        snprintf(info->names, sizeof info->names, "%.*s...", (int)(sizeof info->names - 4), name);
        smc_sanitize(info->names);
    }
    info->kernels++;
}

bool smc_cubin_header(const uint8_t *p, size_t n, smc_cubin_info *info)
{
    smc_elf_header h;
    *info = (smc_cubin_info){0};
    if (!smc_elf_header_read(p, n, &h) || h.machine != EM_CUDA) return false;
    /* As smc_cubin_inspect reads them: ABI v2 keeps the SM in bits 8-15 and no 'a' bit. */
    uint32_t flags = (uint32_t)smc_elf_word(&h, p + (h.is64 ? 48 : 36), 4);
    info->abi = p[EI_ABIVERSION];
    bool v2 = info->abi >= 8;
    info->arch = v2 ? (flags >> 8) & 0xff : flags & 0xff;
    if (!v2 && (flags & 0x800)) info->variant = SMC_VARIANT_A;
    info->relocatable = smc_elf_word(&h, p + 16, 2) == ET_REL;
    return true;
}

smc_status smc_cubin_inspect(const uint8_t *buf, uint64_t len, smc_cubin_info *info,
                             smc_fatbin_error *err)
{
    *info = (smc_cubin_info){0};
    err->offset = 0;
    if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0) {
        snprintf(err->message, sizeof err->message, "not an ELF file, so no cubin");
        return SMC_ERR_FORMAT;
    }
    /* libelf may convert headers in place; a private copy keeps the caller's bytes as they are. */
    uint8_t *copy = malloc(len);
    if (!copy) return SMC_ERR_NOMEM;
    memcpy(copy, buf, len);
    Elf *e = open_memory(copy, (size_t)len);
    GElf_Ehdr eh;
    smc_status st = SMC_OK;
    if (!e || !gelf_getehdr(e, &eh)) {
        snprintf(err->message, sizeof err->message, "cubin ELF header: %s", elf_errmsg(-1));
        st = SMC_ERR_FORMAT;
    } else if (eh.e_machine != EM_CUDA) {
        snprintf(err->message, sizeof err->message, "ELF machine %u is not EM_CUDA (190)",
                 eh.e_machine);
        st = SMC_ERR_FORMAT;
    }
    if (st != SMC_OK) {
        elf_end(e);
        free(copy);
        return st;
    }
    /* ABI v2 (CUDA 13, EI_ABIVERSION 8) moved the SM to bits 8-15 and dropped the 'a' bit. */
    info->abi = eh.e_ident[EI_ABIVERSION];
    bool v2 = info->abi >= 8;
    info->arch = v2 ? (unsigned)(eh.e_flags >> 8) & 0xff : (unsigned)eh.e_flags & 0xff;
    if (!v2 && (eh.e_flags & 0x800)) info->variant = SMC_VARIANT_A;
    info->relocatable = eh.e_type == ET_REL;

    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) == 0) {
        for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
            GElf_Shdr sh;
            const char *name;
            if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name))) continue;
            if (strncmp(name, ".text.", 6) == 0) add_kernel(info, name + 6);
            if (strcmp(name, ".note.nv.tkinfo") == 0 && sh.sh_type != SHT_NOBITS &&
                smc_in_range(len, sh.sh_offset, sh.sh_size)) {
                info->release = tkinfo_release(copy + sh.sh_offset, sh.sh_size);
                if (v2) info->variant = tkinfo_variant(copy + sh.sh_offset, sh.sh_size);
            }
        }
    }
    elf_end(e);
    free(copy);
    return SMC_OK;
}

/* Host ELF files ------------------------------------------------------------------------------ */

uint64_t smc_elf_word(const smc_elf_header *h, const uint8_t *p, int width)
{
    uint64_t v = 0;
    for (int i = 0; i < width; i++)
        v |= (uint64_t)p[h->big ? width - 1 - i : i] << (8 * i);
    return v;
}

static void put_word(const smc_elf_header *h, uint8_t *p, uint64_t v, int width)
{
    for (int i = 0; i < width; i++)
        p[h->big ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

bool smc_elf_header_read(const uint8_t *p, size_t n, smc_elf_header *h)
{
    if (n < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG) != 0) return false;
    *h = (smc_elf_header){.is64 = p[EI_CLASS] == ELFCLASS64, .big = p[EI_DATA] == ELFDATA2MSB};
    if (n < (h->is64 ? 64u : 52u)) return false;
    int w = h->is64 ? 8 : 4;
    h->machine = (uint16_t)smc_elf_word(h, p + 18, 2);
    h->phoff = smc_elf_word(h, p + (h->is64 ? 0x20 : 0x1c), w);
    h->shoff = smc_elf_word(h, p + (h->is64 ? 0x28 : 0x20), w);
    h->phentsize = (uint16_t)smc_elf_word(h, p + (h->is64 ? 0x36 : 0x2a), 2);
    h->phnum = (uint16_t)smc_elf_word(h, p + (h->is64 ? 0x38 : 0x2c), 2);
    h->shentsize = (uint16_t)smc_elf_word(h, p + (h->is64 ? 0x3a : 0x2e), 2);
    h->shnum = (uint16_t)smc_elf_word(h, p + (h->is64 ? 0x3c : 0x30), 2);
    h->shstrndx = (uint16_t)smc_elf_word(h, p + (h->is64 ? 0x3e : 0x32), 2);
    return true;
}

static int by_offset(const void *a, const void *b)
{
    const smc_section *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

smc_status smc_elf_sections(const uint8_t *head, size_t head_len, const uint8_t *table,
                            size_t table_len, const uint8_t *names, size_t names_len,
                            smc_section **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    smc_elf_header h;
    if (!smc_elf_header_read(head, head_len, &h) || !table || !table_len) return SMC_OK;
    /* Small ELFs for libelf: the header, a slice of the section table (with section 0 before it
     * and the names' header after it), then the section names, with the offsets of the table and
     * of the names moved to where they now lie. The other sections keep their file offsets,
     * which is what the containers are placed by; libelf reads none of them. A slice at a time:
     * libelf allocates for every section it is given (an object file of a static archive with
     * 30,000 sections took 4 MB). */
    size_t ehsize = h.is64 ? 64 : 52, shsize = h.is64 ? 64 : 40, es = h.shentsize;
    if (es < shsize) return SMC_OK;
    /* The names end at their last NUL: one past it has no end, so no name there is read, as
     * before, and libelf sees a table that ends in NUL (without, it looks for one to the end of
     * the table at every name: quadratic in a hostile table). */
    const uint8_t *last = names_len ? memrchr(names, 0, names_len) : NULL;
    names_len = last ? (size_t)(last - names) + 1 : 0;
    int w = h.is64 ? 8 : 4;
    /* Extended numbering (gABI): the count in section 0's sh_size, the name table's index in its
     * sh_link. A slice's counts always fit its header. */
    uint64_t count = h.shnum, strndx = h.shstrndx;
    if (count == 0) count = smc_elf_word(&h, table + (h.is64 ? 0x20 : 0x14), w);
    if (strndx == SHN_XINDEX) strndx = smc_elf_word(&h, table + (h.is64 ? 0x28 : 0x18), 4);
    if (count > table_len / es) count = table_len / es;
    if (count < 2) return SMC_OK;
    bool named = names_len && strndx < count;
    size_t slice = count - 1 < SECTIONS_SLICE ? (size_t)(count - 1) : SECTIONS_SLICE;
    uint8_t *mini = malloc(ehsize + (slice + 2) * es + names_len);
    if (!mini) return SMC_ERR_NOMEM;
    memcpy(mini, head, ehsize);
    put_word(&h, mini + (h.is64 ? 0x28 : 0x20), ehsize, w);
    put_word(&h, mini + (h.is64 ? 0x20 : 0x1c), 0, w); /* no program headers */
    put_word(&h, mini + (h.is64 ? 0x38 : 0x2c), 0, 2);
    memcpy(mini + ehsize, table, es);
    smc_section *secs = NULL;
    size_t k = 0;
    smc_status st = SMC_OK;
    for (uint64_t first = 1; first < count && st == SMC_OK; first += slice) {
        size_t m = count - first < slice ? (size_t)(count - first) : slice, at = ehsize + (m + 2) * es;
        memcpy(mini + ehsize + es, table + first * es, m * es);
        uint8_t *nh = mini + ehsize + (m + 1) * es; /* the names' header, at index m + 1 */
        if (named) {
            memcpy(nh, table + strndx * es, es);
            put_word(&h, nh + (h.is64 ? 0x18 : 0x10), at, w);
            put_word(&h, nh + (h.is64 ? 0x20 : 0x14), names_len, w);
            memcpy(mini + at, names, names_len);
        } else {
            memset(nh, 0, es);
        }
        if (strndx >= first && strndx < first + m) { /* its own entry: as one small ELF had it */
            uint8_t *sh = mini + ehsize + (strndx - first + 1) * es;
            put_word(&h, sh + (h.is64 ? 0x18 : 0x10), names_len ? ehsize + table_len : 0, w);
            put_word(&h, sh + (h.is64 ? 0x20 : 0x14), names_len, w);
        }
        put_word(&h, mini + (h.is64 ? 0x3c : 0x30), m + 2, 2);
        put_word(&h, mini + (h.is64 ? 0x3e : 0x32), named ? m + 1 : 0, 2);
        (void)elf_errno();
        Elf *e = open_memory(mini, at + (named ? names_len : 0));
        if (!e) break;
        for (size_t i = 1; i <= m && st == SMC_OK; i++) {
            GElf_Shdr sh;
            Elf_Scn *scn = elf_getscn(e, i);
            if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
                continue;
            const char *name = named ? elf_strptr(e, m + 1, sh.sh_name) : NULL;
            if (!name) name = "(unnamed)";
            smc_section *s = smc_push(&secs, k, sizeof *s);
            if (!s || !(s->name = smc_strdup_clean(name))) {
                st = SMC_ERR_NOMEM;
                break;
            }
            s->offset = sh.sh_offset;
            s->size = sh.sh_size;
            s->type = sh.sh_type;
            s->fatbin = strcmp(name, FATBIN) == 0 || strcmp(name, RELFATBIN) == 0;
            k++;
        }
        elf_end(e);
    }
    free(mini);
    if (st != SMC_OK) {
        smc_sections_free(secs, k);
        return st;
    }
    if (k) qsort(secs, k, sizeof *secs, by_offset);
    *out = secs;
    *n = k;
    return SMC_OK;
}

void smc_sections_free(smc_section *secs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(secs[i].name);
    free(secs);
}
