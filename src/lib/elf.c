/* elf.c: the only user of libelf. It says which byte ranges of an ELF file (or of each member of
 * an ar archive) hold fat binary containers, and reads the headers of cubins. The files are
 * untrusted: every libelf call is checked, section ranges are checked against the file, and a
 * broken section table still leaves the whole-file search for containers to do its work. */
#include "internal.h"

#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

#define FATBIN ".nv_fatbin"
#define RELFATBIN "__nv_relfatbin" /* relocatable device code (-rdc), §1 */
#define ARCHIVE_DEPTH_MAX 4        /* archives inside archives: real ones have none */

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;
static bool libelf_ok;

static void libelf_init(void)
{
    libelf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

static Elf *open_memory(uint8_t *buf, uint64_t len)
{
    pthread_once(&libelf_once, libelf_init);
    return libelf_ok ? elf_memory((char *)buf, (size_t)len) : NULL;
}

/* Cubins ----------------------------------------------------------------------------------------
 */

/* The variant of a CUDA 13 cubin is spelt only in the ptxas arguments kept in .note.nv.tkinfo,
 * e.g. "-arch sm_90a -m 64 " (§6). */
static smc_variant tkinfo_variant(const uint8_t *p, size_t n)
{
    static const char key[] = "-arch sm_";
    const uint8_t *end = p + n;
    for (const uint8_t *q = p; (size_t)(end - q) >= sizeof key - 1; q++) {
        if (memcmp(q, key, sizeof key - 1) != 0) continue;
        q += sizeof key - 1;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q < end && *q == 'a') return SMC_VARIANT_A;
        if (q < end && *q == 'f') return SMC_VARIANT_F;
        return SMC_VARIANT_NONE;
    }
    return SMC_VARIANT_NONE;
}

/* Kernels live in .text.<name> sections (§6); the first three names are kept. */
static void add_kernel(smc_cubin_info *info, const char *name)
{
    size_t len = strlen(info->names);
    if (info->kernels < 3 && len + strlen(name) + 3 < sizeof info->names) {
        snprintf(info->names + len, sizeof info->names - len, "%s%s", len ? ", " : "", name);
        smc_sanitize(info->names + len);
    }
    info->kernels++;
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
    Elf *e = open_memory(copy, len);
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
            if (strncmp(name, ".text.", 6) == 0) {
                add_kernel(info, name + 6);
                info->has_kernels = true;
            }
            if (v2 && strcmp(name, ".note.nv.tkinfo") == 0 && sh.sh_type != SHT_NOBITS &&
                smc_in_range(len, sh.sh_offset, sh.sh_size))
                info->variant = tkinfo_variant(copy + sh.sh_offset, sh.sh_size);
        }
    }
    elf_end(e);
    free(copy);
    return SMC_OK;
}

/* Host ELF files ------------------------------------------------------------------------------ */

static int by_offset(const void *a, const void *b)
{
    const smc_section *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The section whose bytes hold off, for naming where a container was found. */
const char *smc_section_at(const smc_section *secs, size_t n, uint64_t off)
{
    for (size_t i = 0; i < n; i++)
        if (off >= secs[i].offset && off - secs[i].offset < secs[i].size) return secs[i].name;
    return NULL;
}

/* Reads the section table. Its defects become findings; what could be read is returned. */
/* image_len: the bytes libelf reads the table from; len: the file's, which sections must fit. */
static smc_status read_sections(smc_library *lib, Elf *e, uint64_t image_len, uint64_t len,
                                smc_section **out, size_t *n)
{
    size_t count, shstrndx;
    *out = NULL;
    *n = 0;
    /* libelf quietly sees no sections when the table lies past the end of the file. */
    GElf_Ehdr eh;
    if (!gelf_getehdr(e, &eh))
        return smc_library_add_finding(lib, 0, "unreadable ELF header: %s", elf_errmsg(-1));
    uint64_t table = (uint64_t)(eh.e_shnum ? eh.e_shnum : 1) * eh.e_shentsize;
    if (eh.e_shoff != 0 && !smc_in_range(image_len, eh.e_shoff, table))
        return smc_library_add_finding(
            lib, eh.e_shoff,
            "section header table (offset 0x%llx, %llu bytes) runs past the end of the file "
            "(%llu bytes)",
            (unsigned long long)eh.e_shoff, (unsigned long long)table, (unsigned long long)len);
    if (elf_getshdrnum(e, &count) != 0 || elf_getshdrstrndx(e, &shstrndx) != 0)
        return smc_library_add_finding(lib, SMC_NO_OFFSET, "unreadable section table: %s",
                                       elf_errmsg(-1));
    smc_section *secs = NULL;
    size_t k = 0;
    smc_status st = SMC_OK;
    for (size_t i = 1; i < count && st == SMC_OK; i++) {
        GElf_Shdr sh;
        Elf_Scn *scn = elf_getscn(e, i);
        if (!scn || !gelf_getshdr(scn, &sh)) {
            st = smc_library_add_finding(lib, SMC_NO_OFFSET, "section header %zu: %s", i,
                                         elf_errmsg(-1));
            continue;
        }
        if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0) continue;
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        if (!name) name = "(unnamed)";
        bool fatbin = strcmp(name, FATBIN) == 0 || strcmp(name, RELFATBIN) == 0;
        uint64_t size = sh.sh_size;
        if (!smc_in_range(len, sh.sh_offset, size)) {
            if (fatbin)
                st = smc_library_add_finding(
                    lib, sh.sh_offset,
                    "section %s (offset 0x%llx, %llu bytes) runs past the end of the file "
                    "(%llu bytes)",
                    name, (unsigned long long)sh.sh_offset, (unsigned long long)size,
                    (unsigned long long)len);
            if (sh.sh_offset >= len) continue;
            /* Not walked: the search for containers still finds what is whole in the part
             * that is there, without reporting the rest as garbage. */
            size = len - sh.sh_offset;
            fatbin = false;
        }
        smc_section *s = smc_push(&secs, k, sizeof *s);
        if (!s) {
            st = SMC_ERR_NOMEM;
            break;
        }
        *s = (smc_section){name, sh.sh_offset, size, fatbin};
        k++;
    }
    if (k) qsort(secs, k, sizeof *secs, by_offset);
    *out = secs;
    *n = k;
    return st;
}

/* Looks for containers in buf[from, to): real libraries keep thousands outside the fatbin
 * sections (cuFFT's .ldata, §1) and load them at run time. Each candidate must parse entry by
 * entry before it counts; one that does not is just bytes that looked like a header. */
static smc_status search_gap(smc_library *lib, const uint8_t *buf, uint64_t from, uint64_t to,
                             const smc_section *secs, size_t nsecs)
{
    uint64_t p = (from + 7) & ~(uint64_t)7; /* containers are 8-aligned in the file */
    while ((p = smc_fatbin_find(buf, p, to)) < to) {
        uint64_t end;
        smc_fatbin_error err;
        smc_status st = smc_fatbin_parse(lib, buf, to, p, SMC_FATBIN_CANDIDATE, &end, &err);
        if (st == SMC_ERR_NOMEM) return st;
        if (st == SMC_ERR_LIMIT)
            return smc_library_add_finding(lib, err.offset, "%s", err.message) == SMC_OK
                       ? SMC_ERR_LIMIT
                       : SMC_ERR_NOMEM;
        if (st != SMC_OK) {
            p += 8;
            continue;
        }
        const char *name = smc_section_at(secs, nsecs, p);
        smc_container *c = &lib->containers[lib->container_count - 1];
        if (name && !(c->section = smc_strdup_clean(name))) return SMC_ERR_NOMEM;
        c->relocatable = name && strcmp(name, RELFATBIN) == 0;
        p = (end + 7) & ~(uint64_t)7;
    }
    return SMC_OK;
}

/* Writes v as a width-byte integer in the ELF's byte order. */
static void put_word(uint8_t *p, uint64_t v, int width, bool big)
{
    for (int i = 0; i < width; i++)
        p[big ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_word(const uint8_t *p, int width, bool big)
{
    uint64_t v = 0;
    for (int i = 0; i < width; i++)
        v |= (uint64_t)p[big ? width - 1 - i : i] << (8 * i);
    return v;
}

smc_status smc_elf_stream_sections(smc_library *lib, const uint8_t *head, size_t head_len,
                                   const uint8_t *region, uint64_t region_start, size_t region_len,
                                   uint64_t file_len, smc_section **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (head_len < EI_NIDENT || memcmp(head, ELFMAG, SELFMAG) != 0) return SMC_OK;
    bool is64 = head[EI_CLASS] == ELFCLASS64, big = head[EI_DATA] == ELFDATA2MSB;
    size_t ehsize = is64 ? 64 : 52;
    int wide = is64 ? 8 : 4;
    if (head_len < ehsize) return smc_library_add_finding(lib, 0, "ELF header truncated");
    uint64_t shoff = get_word(head + (is64 ? 0x28 : 0x20), wide, big);
    uint64_t shentsize = get_word(head + (is64 ? 0x3a : 0x2e), 2, big);
    uint64_t shnum = get_word(head + (is64 ? 0x3c : 0x30), 2, big);
    uint64_t shstrndx = get_word(head + (is64 ? 0x3e : 0x32), 2, big);
    uint64_t table = (shnum ? shnum : 1) * shentsize;
    if (shoff == 0) return SMC_OK;
    if (!smc_in_range(file_len, shoff, table))
        return smc_library_add_finding(
            lib, shoff,
            "section header table (offset 0x%llx, %llu bytes) runs past the end of the file "
            "(%llu bytes)",
            (unsigned long long)shoff, (unsigned long long)table, (unsigned long long)file_len);
    if (shoff < region_start || !smc_in_range(region_len, shoff - region_start, table))
        return smc_library_add_finding(lib, shoff, "section header table was not kept");

    /* A small ELF for libelf: the header, then the kept bytes, with the table's offset and the
     * section-name table's moved to where they now lie. Other sections keep their file offsets,
     * which is what the containers are placed by. */
    size_t mini_len = ehsize + region_len;
    uint8_t *mini = malloc(mini_len);
    if (!mini) return SMC_ERR_NOMEM;
    memcpy(mini, head, ehsize);
    memcpy(mini + ehsize, region, region_len);
    put_word(mini + (is64 ? 0x28 : 0x20), ehsize + (shoff - region_start), wide, big);
    put_word(mini + (is64 ? 0x20 : 0x1c), 0, wide, big); /* no program headers */
    put_word(mini + (is64 ? 0x38 : 0x2c), 0, 2, big);
    if (shstrndx < shnum && shentsize >= (is64 ? 64u : 40u)) {
        uint8_t *sh = mini + ehsize + (shoff - region_start) + shstrndx * shentsize;
        uint64_t off = get_word(sh + (is64 ? 0x18 : 0x10), wide, big);
        uint64_t size = get_word(sh + (is64 ? 0x20 : 0x14), wide, big);
        if (off >= region_start && smc_in_range(region_len, off - region_start, size))
            put_word(sh + (is64 ? 0x18 : 0x10), ehsize + (off - region_start), wide, big);
    }
    Elf *e = open_memory(mini, mini_len);
    smc_section *secs = NULL;
    size_t k = 0;
    smc_status st =
        e ? read_sections(lib, e, mini_len, file_len, &secs, &k)
          : smc_library_add_finding(lib, SMC_NO_OFFSET, "unreadable ELF: %s", elf_errmsg(-1));
    for (size_t i = 0; i < k && st == SMC_OK; i++) /* the names outlive libelf's copy */
        if (!(secs[i].name = smc_strdup(secs[i].name))) {
            k = i;
            st = SMC_ERR_NOMEM;
        }
    elf_end(e);
    free(mini);
    if (st != SMC_OK) {
        smc_sections_free(secs, k);
        return st;
    }
    *out = secs;
    *n = k;
    return SMC_OK;
}

void smc_sections_free(smc_section *secs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)secs[i].name);
    free(secs);
}

static smc_status scan_bare_cubin(smc_library *lib, const uint8_t *buf, uint64_t len)
{
    smc_cubin_info info;
    smc_fatbin_error err;
    smc_status st = smc_cubin_inspect(buf, len, &info, &err);
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
                       .stored_size = len,
                       .size = len};
    *c = (smc_container){.size = len, .bare_cubin = true, .image_count = 1};
    lib->image_count = lib->container_count = 1;
    return SMC_OK;
}

/* The CUDA runtime a library is linked to (DT_NEEDED libcudart.so.N), which no driver older than
 * CUDA N can serve, even when the cubins would do (cuda-compat.md §11). */
static void read_cudart(smc_library *lib, Elf *e)
{
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0 ||
            !(data = elf_getdata(scn, NULL)))
            continue;
        size_t n = data->d_size / sh.sh_entsize;
        for (size_t i = 0; i < n; i++) {
            GElf_Dyn dyn;
            const char *name;
            unsigned major;
            if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL) break;
            if (dyn.d_tag == DT_NEEDED &&
                (name = elf_strptr(e, sh.sh_link, (size_t)dyn.d_un.d_val)) &&
                sscanf(name, "libcudart.so.%u", &major) == 1)
                lib->cudart_major = major;
        }
    }
}

static smc_status scan_elf(smc_library *lib, Elf *e, const uint8_t *buf, uint64_t len)
{
    GElf_Ehdr eh;
    if (gelf_getehdr(e, &eh) && eh.e_machine == EM_CUDA) return scan_bare_cubin(lib, buf, len);

    smc_section *secs;
    size_t n;
    smc_status st = read_sections(lib, e, len, len, &secs, &n);
    /* Walk the fatbin sections, then search the gaps between them (the whole file when the
     * section table is gone). */
    uint64_t covered = 0;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        if (!secs[i].walk || secs[i].offset < covered) continue;
        uint64_t end = secs[i].offset + secs[i].size;
        st = search_gap(lib, buf, covered, secs[i].offset, secs, n);
        if (st == SMC_OK)
            st = smc_fatbin_walk(lib, buf, secs[i].offset, end, secs[i].name,
                                 strcmp(secs[i].name, RELFATBIN) == 0);
        covered = end;
    }
    if (st == SMC_OK) st = search_gap(lib, buf, covered, len, secs, n);
    free(secs);
    if (st == SMC_OK && lib->container_count) read_cudart(lib, e);
    return st;
}

/* Scans the members of an archive. Listing, each member is a library of its own, "lib.a(m.o)".
 * Judging, the archive is one library, as it will be once linked: a member that holds only
 * another GPU's kernels is one of its per-architecture modules, not a failure of its own. */
static smc_status scan_archive(smc_input *in, smc_library *ar_lib, Elf *ar, const uint8_t *buf,
                               const smc_options *opt, unsigned depth)
{
    bool whole = opt && opt->target_count;
    smc_options member_opt = opt ? *opt : (smc_options){0};
    member_opt.targets = NULL;
    member_opt.target_count = 0;
    smc_input *members = whole ? smc_input_new(ar_lib->path, SMC_INPUT_FILE) : in;
    if (!members) return SMC_ERR_NOMEM;
    smc_status st = SMC_OK;
    /* elf_next answers ELF_C_NULL after the last member (leaving a range error behind, which is
     * normal); a member whose header cannot be read makes elf_begin fail. */
    for (Elf_Cmd cmd = ELF_C_READ_MMAP; cmd != ELF_C_NULL && st == SMC_OK;) {
        Elf *m = elf_begin(-1, cmd, ar);
        if (!m) {
            st = smc_library_add_finding(ar_lib, SMC_NO_OFFSET, "archive member header: %s",
                                         elf_errmsg(-1));
            break;
        }
        Elf_Arhdr *h = elf_getarhdr(m);
        size_t size;
        char *raw = elf_rawfile(m, &size);
        /* "/" and "//" are the archive's symbol and name tables, not members. */
        if (h && h->ar_name && h->ar_name[0] != '/' && raw) {
            char *path = smc_asprintf("%s(%s)", ar_lib->path, h->ar_name);
            size_t before = members->library_count;
            st = path ? smc_scan_bytes(members, path, (uint8_t *)raw, size, &member_opt, depth + 1)
                      : SMC_ERR_NOMEM;
            free(path);
            for (size_t i = before; whole && st == SMC_OK && i < members->library_count; i++)
                st = smc_library_absorb(ar_lib, &members->libraries[i],
                                        (uint64_t)((const uint8_t *)raw - buf));
        }
        cmd = elf_next(m);
        elf_end(m);
    }
    if (whole) smc_input_free(members);
    return st;
}

smc_status smc_elf_scan(smc_input *in, const char *name, uint8_t *buf, uint64_t len,
                        const smc_options *opt, unsigned depth)
{
    smc_library *lib = smc_library_new(name);
    if (!lib) return SMC_ERR_NOMEM;
    smc_library_limits(lib, opt);
    smc_status st = SMC_OK;
    (void)elf_errno(); /* start from a clean error state */
    Elf *e = open_memory(buf, len);
    Elf_Kind kind = e ? elf_kind(e) : ELF_K_NONE;
    if (kind == ELF_K_AR) {
        st = depth < ARCHIVE_DEPTH_MAX
                 ? scan_archive(in, lib, e, buf, opt, depth)
                 : smc_library_add_finding(lib, SMC_NO_OFFSET, "archive nested too deep");
    } else if (kind == ELF_K_ELF) {
        st = scan_elf(lib, e, buf, len);
    } else {
        st = smc_library_add_finding(lib, SMC_NO_OFFSET, "not a readable ELF file: %s",
                                     e ? "unknown kind" : elf_errmsg(-1));
    }
    elf_end(e);
    if (st == SMC_ERR_LIMIT) st = SMC_OK; /* reported as a finding; what was read stands */
    if (kind != ELF_K_AR) return smc_library_finish(in, lib, buf, len, opt, st);
    if (!opt || !opt->target_count) /* listing: the members are the libraries */
        return smc_library_finish(in, lib, NULL, 0, NULL, st);
    smc_options judge = *opt;
    judge.verify = false; /* the members were verified with their own bytes */
    return smc_library_finish(in, lib, buf, len, &judge, st);
}
