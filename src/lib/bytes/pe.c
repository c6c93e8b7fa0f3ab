/* pe.c: the headers of a PE/COFF image (a Windows DLL or EXE) as far as the finder needs them:
 * the machine, the section table (where `.nv_fatb`, the fat binaries, lies) and where the import
 * descriptors are, and RVA-to-file-offset mapping. Everything is read from the first bytes of
 * the file, within (pointer, length), each field checked before it is used (Microsoft's PE
 * format: DOS header e_lfanew at 0x3C; "PE\0\0"; a 20-byte COFF header; the optional header,
 * PE32 or PE32+, with its data directories; 40-byte section headers). */
#include "bytes.h"

#include <stdio.h>
#include <stdlib.h>

#define SECTIONS_MAX 96 /* the format's own limit */

static int fail(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return -1;
}

bool smc_pe_at(const uint8_t *p, size_t n)
{
    if (n < 0x40 || p[0] != 'M' || p[1] != 'Z') return false;
    uint32_t at = smc_le32(p + 0x3c);
    return smc_in_range(n, at, 4) && memcmp(p + at, "PE\0\0", 4) == 0;
}

uint64_t smc_pe_headers_end(const uint8_t *p, size_t n)
{
    if (!smc_pe_at(p, n)) return 0;
    uint64_t coff = (uint64_t)smc_le32(p + 0x3c) + 4;
    if (!smc_in_range(n, coff, 20)) return 0;
    unsigned nsec = smc_le16(p + coff + 2);
    return nsec > SECTIONS_MAX ? 0 : coff + 20 + smc_le16(p + coff + 16) + (uint64_t)nsec * 40;
}

int smc_pe_parse(const uint8_t *p, size_t n, smc_pe *out, char *err, size_t errlen)
{
    *out = (smc_pe){.import_offset = SMC_PE_NOWHERE};
    if (!smc_pe_at(p, n)) return 0;
    uint64_t coff = (uint64_t)smc_le32(p + 0x3c) + 4;
    if (!smc_in_range(n, coff, 20)) return fail(err, errlen, "PE: COFF header truncated");
    out->machine = smc_le16(p + coff);
    unsigned nsec = smc_le16(p + coff + 2);
    unsigned optsize = smc_le16(p + coff + 16);
    uint64_t opt = coff + 20, table = opt + optsize;
    if (nsec > SECTIONS_MAX) return fail(err, errlen, "PE: more than 96 sections");
    if (!smc_in_range(n, opt, optsize) || optsize < 2)
        return fail(err, errlen, "PE: optional header truncated");
    unsigned magic = smc_le16(p + opt);
    if (magic != 0x10b && magic != 0x20b)
        return fail(err, errlen, "PE: optional header is neither PE32 nor PE32+");
    uint64_t dirs = opt + (magic == 0x20b ? 112 : 96); /* the data directories */
    uint64_t ndirs_at = opt + (magic == 0x20b ? 108 : 92);
    uint32_t ndirs = smc_in_range(n, ndirs_at, 4) && ndirs_at + 4 <= table ? smc_le32(p + ndirs_at) : 0;
    uint32_t import_rva = 0, import_size = 0;
    if (ndirs >= 2 && dirs + 16 <= table && smc_in_range(n, dirs + 8, 8)) {
        import_rva = smc_le32(p + dirs + 8);
        import_size = smc_le32(p + dirs + 12);
    }
    if (!smc_in_range(n, table, (uint64_t)nsec * 40))
        return fail(err, errlen, "PE: the section table lies past the end of the file");
    out->sections = calloc(nsec ? nsec : 1, sizeof *out->sections);
    out->map = calloc(nsec ? nsec : 1, sizeof *out->map);
    if (!out->sections || !out->map) {
        smc_pe_free(out);
        return -2;
    }
    for (unsigned i = 0; i < nsec; i++) {
        const uint8_t *s = p + table + (uint64_t)i * 40;
        char name[9];
        memcpy(name, s, 8);
        name[8] = '\0';
        for (char *c = name; *c; c++) /* names are ASCII; anything else shows as '?' */
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) *c = '?';
        smc_section *sec = &out->sections[i];
        /* An image keeps 8 bytes of a name: nvcc's __nv_relfatbin (-rdc code) is "__nv_rel". */
        bool rel = strcmp(name, "__nv_rel") == 0;
        if (!(sec->name = smc_strdup(rel ? "__nv_relfatbin" : name))) {
            out->section_count = i;
            smc_pe_free(out);
            return -2;
        }
        out->map[i] = (smc_pe_map){.va = smc_le32(s + 12),
                                   .vsize = smc_le32(s + 8),
                                   .raw = smc_le32(s + 20),
                                   .rawsize = smc_le32(s + 16)};
        sec->offset = out->map[i].raw;
        sec->size = out->map[i].rawsize;
        sec->fatbin = rel || strcmp(name, ".nv_fatb") == 0;
        out->section_count = i + 1;
    }
    if (import_rva && import_size) {
        out->import_offset = smc_pe_offset(out, import_rva);
        out->import_size = import_size;
    }
    return 1;
}

uint64_t smc_pe_offset(const smc_pe *pe, uint32_t rva)
{
    for (size_t i = 0; i < pe->section_count; i++) {
        const smc_pe_map *m = &pe->map[i];
        uint64_t span = m->rawsize; /* what the file holds of the section */
        if (m->vsize && m->vsize < span) span = m->vsize;
        if (rva >= m->va && rva - m->va < span) return (uint64_t)m->raw + (rva - m->va);
    }
    return SMC_PE_NOWHERE;
}

void smc_pe_free(smc_pe *pe)
{
    if (pe->sections) smc_sections_free(pe->sections, pe->section_count);
    free(pe->map);
    *pe = (smc_pe){.import_offset = SMC_PE_NOWHERE};
}
