/* find_private.h: what the finder's files share: containers.c (the finder's state, the bytes
 * it keeps, the container parser, entry chains over one window), stream_headers.c (headers
 * followed through a stream), finder_rules.c (the layout and the rules), finder_resolve.c (a
 * layout resolved into containers by file kind), below finder.c (the API, feeding, ar archives,
 * the end of a file). Nothing else includes it. */
#ifndef SMCHECK_FIND_PRIVATE_H
#define SMCHECK_FIND_PRIVATE_H

#include "../bytes/bytes.h"
#include "find.h"
#include "../rules/rules.h"

#define PE_HEADERS_MAX (256u << 10) /* a PE file's headers through its section table, at most */
#define HEAD_KEEP 4096u               /* the first bytes: signature, ELF header, usually phdrs */
#define TABLE_LEAD (1u << 20)         /* kept before the section table: the names lie there */
#define TABLE_MAX (4u << 20)          /* a larger section table is not read */
#define NAMES_MAX (16u << 20)         /* nor a larger section-name table */
#define PHDRS_MAX (64u << 10)         /* program headers */
#define DYNAMIC_MAX (1u << 20)        /* the dynamic section */
#define CUBIN_FACTS_MAX (16u << 10)   /* cubins up to this size (decompressed) are read for facts */
#define CUBIN_NAMES_MAX (1u << 20)    /* for --detail's kernel names, up to this size (stored) */
#define CONTAINER_FACTS_MAX (4u << 20) /* bytes kept for facts per container (stored) */
#define STREAM_FACTS_MAX (16u << 20)   /* and in all the containers a stream has open */
#define SEEN_SLOTS 4096u               /* slots for cubins whose facts are remembered, at most */
#define SEEN_FIRST 16u                 /* at first (the table doubles when half full) */
#define SEEN_BYTES (4u << 20)          /* and their stored bytes */
#define PTX_PREFIX (64u << 10)        /* the stored bytes of PTX read for .version/.target */
#define PTX_TEXT 4096u                /* the text they decompress to, at most */
#define PTX_FIRST 1024u               /* and first, where more costs more (not Zstandard) */
#define VERIFY_MAX (64ull << 20)      /* images up to this size are checked by --verify */
#define DECODE_BASE (1ull << 30)      /* bytes decompressed for one file: this, and */
#define DECODE_PER_BYTE 8u            /* this many for each of its bytes */
#define CUBIN_FILE_MAX (64u << 20)    /* a bare cubin file */
#define OPEN_MAX 256u                 /* containers followed at once in a stream */
#define STREAM_IMAGES_MAX (256u << 10) /* images a stream holds, in all its hits (real files:
                                        * 24,000 at most); past it, read as one window */
#define CUDART_MAX 4096u              /* CUDA library names remembered in a stream */
#define BACK 16384u                   /* bytes kept before each window of a stream */
#define NAMES_NEAR 16384u             /* kept around a ".shstrtab" string that passes by */
#define NAME_GUESSES 4                /* places kept so, at most */
#define ARCHIVE_DEPTH_MAX 4           /* archives inside archives: real ones have none */
#define NOWHERE UINT64_MAX
#define NEEDED_C10 0xffffffffu /* not a runtime version: the name is libc10.so or libc10_cuda.so */

#define RELFATBIN "__nv_relfatbin"

/* A container header seen, and what following it found. */
typedef struct note {
    uint64_t offset;
    char *message;
} note;

typedef struct hit {
    uint64_t start, hsize, fatsize;
    uint64_t end;          /* start + hsize + fatsize, when the header is sound */
    uint64_t prev_nonzero; /* the last non-zero byte before start (streams), NOWHERE when none */
    uint64_t next_nonzero; /* the first non-zero byte at or past end (streams), NOWHERE none */
    bool header_ok;        /* the 16-byte header is sound */
    bool ok;               /* every entry header read, up to the container's end */
    bool strict;           /* fit outside a fatbin section: not empty, entries of version 0x0101 */
    bool over;             /* its images are past --max-images: not kept */
    int kernels;           /* as smc_container.kernels */
    char *kernel_names;
    smc_image *images;
    size_t image_count;
    note *notes; /* --verify's findings on its images */
    size_t note_count;
    uint64_t err_offset; /* why the parse failed, */
    char *err;           /* or NULL: kept apart, since most hits never fail */
} hit;

/* Following one container as its bytes pass. */
typedef struct cparse {
    size_t hit;
    uint64_t next;   /* where the header being read starts */
    uint8_t hdr[64]; /* 16 bytes of container header or 64 of entry header */
    unsigned have, want;
    bool in_entries;
    /* The payload of the last entry, while it is wanted. */
    bool payload;
    uint64_t pay_start, pay_len, pay_have;
    uint8_t *pay; /* a copy, when it spans windows */
    size_t pay_img;
    bool pay_verify, pay_facts;
    uint64_t kept;     /* payload bytes kept for facts in this container */
    bool all_read;     /* every cubin so far kept for facts */
    struct kept {      /* a payload kept for the container's end (see inspect) */
        size_t img;
        const uint8_t *stored; /* its first have stored bytes: in the one window, or a copy */
        uint64_t have;
        bool owned;
        bool read;            /* its facts are taken */
        bool known, readable; /* a cubin read already (by --verify): whether it could be, and */
        smc_cubin_info info;  /* what it said */
    } *kept_list;
    size_t kept_count;
} cparse;

/* Bytes wanted at a place in the file, kept as they pass. */
typedef struct capture {
    uint64_t from, len;
    uint8_t *bytes; /* or a pointer into the one window */
    uint64_t have;  /* bytes of [from, from + have) kept */
    bool owned;
    int pass; /* the pass that may still see them */
} capture;

typedef struct cudart_seen {
    uint64_t offset;
    unsigned major;              /* a libcudart's runtime (fnd_cudart_version), or 0 */
    char name[SMC_SONAME_MAX];   /* a CUDA library's soname there, or "" */
} cudart_seen;

enum kind { K_UNKNOWN, K_NONE, K_ELF, K_CUBIN, K_RAW, K_AR, K_PE };

/* One window: every entry header read, once, whatever container asked. Container headers nest
 * and their entry walks merge (a hostile file makes thousands of candidates that all walk one
 * chain of entries to fail at its end); each position's next entry is kept, with skip pointers
 * (Myers' jump pointers: O(log n) to the last entry before a container's end), so that asking
 * what a candidate is costs a lookup, not a walk. Only a container a rule takes is parsed. */
enum { LINK_VALID, LINK_INVALID, LINK_UNREADABLE, LINK_BEYOND };
typedef struct link {
    uint64_t pos;
    uint64_t bad;  /* the first entry at or after this one on its chain whose version is not
                    * 0x0101, NOWHERE when none */
    uint32_t succ, jump, depth;
    uint8_t state; /* LINK_*: a valid entry; or the chain ends here: an entry header that is no
                    * entry, or past the file's end; LINK_BEYOND: the one sentinel past any end */
} link;
typedef struct chains {
    link *links;
    size_t count;
    uint32_t *table; /* open addressing by position: index + 1, 0 for empty */
    size_t size;     /* a power of two */
    bool full;       /* LINKS_MAX reached: positions not chained yet are not read */
} chains;

typedef struct member member;

struct smc_finder {
    char *name;
    const smc_options *opt;
    bool whole;
    unsigned depth;
    enum kind kind;
    int pass;
    uint64_t pos;   /* bytes fed in this pass */
    uint64_t wbase; /* where the window being read starts */
    uint64_t len; /* bytes in the file, once known (after the first pass) */
    uint8_t head[HEAD_KEEP];
    size_t head_len;
    const uint8_t *window; /* whole: all the bytes */
    void *zctx;
    smc_status failed;
    bool spill; /* a stream outgrew what it may hold: it is to be read as a file instead */
    uint64_t image_total; /* images held: in every hit (a stream), in parsed ones (one window) */
    uint64_t decoded;     /* bytes decompressed (facts and --verify), against the budget */
    uint64_t kept;        /* payload bytes the open parses keep for facts */
    /* The facts of cubins read already, by their stored bytes: a library holds the same small
     * cubin many times (cuBLASLt: 1,025 copies of one device-link module; the toolkit: 7,634
     * cubins of at most 16 KiB, 1,449 different). Open addressing on a hash of the bytes. */
    struct seen {
        uint64_t hash;
        uint8_t *stored; /* a copy: NULL for an empty slot */
        uint64_t stored_size, size;
        smc_compression compression;
        bool readable;
        smc_cubin_info info;
    } *seen;
    size_t seen_slots, seen_count;
    uint64_t seen_bytes;
    uint64_t expect;      /* a stream: the size it will have (a member's claim), 0 unknown */
    bool over_budget;     /* one window: some payload was not decompressed for it */
    bool inspect, verify, want_names; /* want_names: every container's kernel names */
    uint64_t max_containers, max_images;

    /* ELF layout, as far as it is known */
    smc_elf_header eh;
    bool elf_ok;
    capture table, names, phdrs, dynamic, file; /* file: a bare cubin */
    capture needed; /* the DT_NEEDED strings, when a stream saw too many to remember */
    bool dyn_known;

    /* PE layout (a Windows DLL): its headers; the import descriptors go to `dynamic` */
    smc_pe pe;
    int pe_ok;          /* smc_pe_parse's answer */
    bool pe_pending;    /* its headers end past the first bytes: parsed when phdrs has them */
    char pe_error[96];

    /* containers */
    hit *hits;
    size_t hit_count;
    hit probe;       /* one window: what the last header looked at is, before a rule takes it */
    chains chains;   /* one window: the entry headers read so far, chained */
    cparse *open;
    size_t open_count;
    size_t *watch; /* hits whose first non-zero byte past their end is not seen yet */
    size_t watch_count;
    uint8_t tail[32]; /* the last bytes before this window */
    size_t tail_len;
    uint8_t *back;   /* the last bytes before this window, for what is kept around a find: */
    size_t back_cap; /* grown as needed, to BACK (an archive's 30,000 import stubs are small) */
    size_t back_len;
    capture guesses[NAME_GUESSES]; /* around each ".shstrtab" seen: the section names, perhaps */
    size_t guess_count;
    uint64_t tail_prev; /* the last non-zero byte before the tail, NOWHERE when none */
    cudart_seen *cudart;
    size_t cudart_count;
    bool cudart_over;

    /* A file that takes part at run time (runtime.c), by its name; a ptxas's release */
    bool runtime;
    smc_runtime_kind runtime_kind;
    int release;             /* found in the bytes; 0 not (yet) */
    uint8_t carry[64];       /* the last bytes of the window before, for a statement across */
    size_t carry_len;

    note *notes; /* findings on the file itself (archives) */
    size_t note_count;

    /* archives */
    member *members;
    size_t member_count;
    uint8_t ar_hdr[60];
    unsigned ar_have;
    uint64_t ar_next; /* where the next member header starts */
    uint8_t *longnames;
    uint64_t longnames_len, longnames_have;
    uint64_t ar_data, ar_size; /* the current member's data */
    size_t ar_member;          /* routing: index of the member being fed, or SIZE_MAX */
};

struct member {
    char *name;
    uint64_t offset; /* of its data in the archive */
    uint64_t size;
    smc_finder *f;
};

/* containers.c, for the finder's other files. */

/* Out of memory: the finder fails with SMC_ERR_NOMEM (returned too). */
smc_status fnd_nomem(smc_finder *f);

/* A stream holds more than it may: it stops, and its reader reads the bytes again as one window
 * (smc_finder_spilled). */
void fnd_spill(smc_finder *f);

/* Frees what a hit holds (its messages, notes, images, kernel names). */
void fnd_hit_clear(hit *h);

/* Frees what a capture kept and empties it. */
void fnd_capture_clear(capture *c);

/* Asks for [from, from+len) of the file. One window: they are there (when the file holds them).
 * A stream: kept as they pass, from the first bytes (always kept) for what went by already, or in
 * the next pass. */
void fnd_want(smc_finder *f, capture *c, uint64_t from, uint64_t len);

/* Whether all the bytes asked for are kept. */
bool fnd_captured(const capture *c);

/* Keeps what the window [base, base+n) holds of c. */
void fnd_keep(smc_finder *f, capture *c, uint64_t base, const uint8_t *p, size_t n);

/* Closes a parse: a container the bytes ended inside of has failed, unless its entries are all
 * read (then only its size tells, which the rules compare with the file). */
void fnd_settle(smc_finder *f, cparse *cp);

/* A parse of the container whose header is at at, hit hit_index. */
static inline cparse fnd_start_parse(size_t hit_index, uint64_t at)
{
    return (cparse){.hit = hit_index, .next = at, .want = 16, .all_read = true};
}

/* Feeds the window [base, base+n) to a parse; true when the parse has ended. */
bool fnd_advance(smc_finder *f, cparse *cp, uint64_t base, const uint8_t *p, size_t n);

/* A stream: a new hit for the container header at at; its index. */
size_t fnd_new_hit(smc_finder *f, uint64_t at);

/* One window: the container at off, parsed now. */
hit *fnd_parse_at(smc_finder *f, uint64_t off);

/* One window: the container at off as far as the rules ask (h->ok, strict, err); parsed whole
 * (images, facts) only by take_whole. */
hit *fnd_probe_at(smc_finder *f, uint64_t off);

/* stream_headers.c, for finder.c and finder_resolve.c ------------------------------------ */

/* The runtime version a DT_NEEDED libcudart.so.N[.M] or a DLL's cudart64_NN.dll names, as
 * N*100 + M; NEEDED_C10 for PyTorch's libc10; 0 for any other name. */
unsigned fnd_cudart_version(const uint8_t *p, size_t n);

/* A stream: the window [base, base+n), every container header in it followed as it passes. */
void fnd_stream_window(smc_finder *f, uint64_t base, const uint8_t *p, size_t n);

/* finder_rules.c and finder_resolve.c, called by finder.c --------------------------------- */

/* The rules applied to one library's sections: to the bytes of one window, or to the records a
 * stream kept. */
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

smc_status fnd_finding(smc_library *lib, uint64_t at, const char *fmt, ...) SMC_PRINTF(3, 4);
bool fnd_table_range(const smc_finder *f, uint64_t *off, uint64_t *len);
void fnd_want_names(smc_finder *f);
smc_status fnd_walk(rules *r, uint64_t s, uint64_t e, const char *name);
smc_status fnd_search(rules *r, uint64_t from, uint64_t to);
smc_status fnd_build(rules *r);
void fnd_want_needed(smc_finder *f);
smc_status fnd_resolve_elf(smc_finder *f, smc_library *lib);
smc_status fnd_resolve_pe(smc_finder *f, smc_library *lib);
smc_status fnd_resolve_raw(smc_finder *f, smc_library *lib);
smc_status fnd_resolve_cubin(smc_finder *f, smc_library *lib);
void fnd_pe_headers(smc_finder *f, const uint8_t *h, size_t n);

#endif
