/* elf.h: host files: ELF through libelf (elf.c) and PE/COFF headers (pe.c) */
#ifndef SMCHECK_ELF_H
#define SMCHECK_ELF_H

#include "fatbin.h"

typedef struct smc_cubin_info {
    unsigned arch;
    smc_variant variant; /* from e_flags (ABI v1) or the ptxas arguments note; NONE when unknown */
    unsigned abi;        /* EI_ABIVERSION: 7 (CUDA <= 12) or 8 (CUDA 13) */
    unsigned release;    /* the ptxas release in .note.nv.tkinfo (12080), 0 when none */
    bool relocatable;    /* ET_REL: -rdc code */
    size_t kernels;      /* .text.* sections */
    char names[256];     /* the first few, comma-separated: "_Z6kernelPf, _Z4scalePfi" */
} smc_cubin_info;

/* Reads a cubin's ELF header alone, from its first n bytes (arch, abi, the variant e_flags
 * gives, relocatable); false when they are no EM_CUDA ELF header. */
bool smc_cubin_header(const uint8_t *p, size_t n, smc_cubin_info *info);
/* Reads a cubin's ELF header and sections. SMC_ERR_FORMAT with err when it is not a cubin. */
smc_status smc_cubin_inspect(const uint8_t *buf, uint64_t len, smc_cubin_info *info,
                             smc_fatbin_error *err);

/* A section of a host ELF file, as far as finding containers goes. */
typedef struct smc_section {
    char *name;
    uint64_t offset, size;
    uint32_t type;
    bool fatbin; /* .nv_fatbin or __nv_relfatbin */
} smc_section;

/* pe.c: a PE/COFF image's headers (Windows DLLs), read from its first bytes. ------------------ */

#define SMC_PE_NOWHERE UINT64_MAX

typedef struct smc_pe_map {
    uint32_t va, vsize, raw, rawsize; /* a section's address and size in memory and in the file */
} smc_pe_map;

typedef struct smc_pe {
    uint16_t machine;       /* COFF machine: 0x8664 x86-64, 0xAA64 ARM64 */
    smc_section *sections;  /* file ranges (PointerToRawData, SizeOfRawData); .nv_fatb: fatbin */
    smc_pe_map *map;
    size_t section_count;
    uint64_t import_offset; /* the import descriptors' file offset, SMC_PE_NOWHERE when none */
    uint64_t import_size;
} smc_pe;

/* "MZ" and "PE\0\0" where e_lfanew says, within the n bytes. */
bool smc_pe_at(const uint8_t *p, size_t n);
/* 1 and *out (free with smc_pe_free) for a PE image whose headers lie in p[0..n); 0 when it is
 * not one; -1 when it is, but broken (err says how: "PE: ..."); -2 out of memory. */
/* Where a PE file's headers end: its section table's end (0 when the first n bytes do not
 * tell, or the table has more than 96 entries). */
uint64_t smc_pe_headers_end(const uint8_t *p, size_t n);
int smc_pe_parse(const uint8_t *p, size_t n, smc_pe *out, char *err, size_t errlen);
/* The file offset of an RVA, SMC_PE_NOWHERE when no section holds it in the file. */
uint64_t smc_pe_offset(const smc_pe *pe, uint32_t rva);
void smc_pe_free(smc_pe *pe);

/* The host ELF header fields the finder needs, in the file's byte order and class. */
typedef struct smc_elf_header {
    bool is64, big;
    uint16_t machine;
    uint64_t phoff, shoff;
    uint16_t phentsize, phnum, shentsize, shnum, shstrndx;
} smc_elf_header;

/* Reads the ELF header from the first n bytes; false when they are no ELF header. */
bool smc_elf_header_read(const uint8_t *p, size_t n, smc_elf_header *h);
/* Reads a width-byte (2, 4, 8) integer in the header's byte order. */
uint64_t smc_elf_word(const smc_elf_header *h, const uint8_t *p, int width);

/* The sections of an ELF file from its header bytes (head), its section header table (table)
 * and its section-name table (names, NULL when not at hand: every name is "(unnamed)"). Names are
 * copies: free with smc_sections_free. */
smc_status smc_elf_sections(const uint8_t *head, size_t head_len, const uint8_t *table,
                            size_t table_len, const uint8_t *names, size_t names_len,
                            smc_section **out, size_t *n);
void smc_sections_free(smc_section *secs, size_t n);

#endif
