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
#include "fatbin.h"
#include "elf.h"
#include "finder.h"
#include "rules.h"

#include <stdlib.h>

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
#define CUDART_MAX 4096u              /* "libcudart.so." strings remembered in a stream */
#define BACK 16384u                   /* bytes kept before each window of a stream */
#define NAMES_NEAR 16384u             /* kept around a ".shstrtab" string that passes by */
#define NAME_GUESSES 4                /* places kept so, at most */
#define ARCHIVE_DEPTH_MAX 4           /* archives inside archives: real ones have none */
#define NOWHERE UINT64_MAX

static const char RELFATBIN[] = "__nv_relfatbin";

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
    unsigned major;
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
    uint8_t back[BACK]; /* the last bytes before this window, for what is kept around a find */
    size_t back_len;
    capture guesses[NAME_GUESSES]; /* around each ".shstrtab" seen: the section names, perhaps */
    size_t guess_count;
    uint64_t tail_prev; /* the last non-zero byte before the tail, NOWHERE when none */
    cudart_seen *cudart;
    size_t cudart_count;
    bool cudart_over;

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

static smc_status nomem(smc_finder *f)
{
    f->failed = SMC_ERR_NOMEM;
    return SMC_ERR_NOMEM;
}

/* A stream holds more than it may (headers open at once, images, bytes kept for facts): it stops,
 * and its reader reads the bytes again as one window (smc_finder_spilled), which is bounded
 * whatever they hold and says what one window says. */
static void spill(smc_finder *f)
{
    f->spill = true;
}

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
    if ((f->inspect || f->verify) && !(f->zctx = smc_zstd_new())) {
        free(f->name);
        free(f);
        return NULL;
    }
    return f;
}

static void hit_clear(hit *h)
{
    free(h->err);
    for (size_t i = 0; i < h->note_count; i++)
        free(h->notes[i].message);
    free(h->notes);
    free(h->images);
    free(h->kernel_names);
}

static void capture_clear(capture *c)
{
    if (c->owned) free(c->bytes);
    *c = (capture){0};
}

void smc_finder_free(smc_finder *f)
{
    if (f) smc_pe_free(&f->pe);
    if (!f) return;
    for (size_t i = 0; i < f->hit_count; i++)
        hit_clear(&f->hits[i]);
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
    capture_clear(&f->table);
    capture_clear(&f->names);
    capture_clear(&f->phdrs);
    capture_clear(&f->dynamic);
    capture_clear(&f->file);
    capture_clear(&f->needed);
    for (size_t i = 0; i < f->seen_slots; i++)
        free(f->seen[i].stored);
    free(f->seen);
    for (size_t i = 0; i < f->guess_count; i++)
        capture_clear(&f->guesses[i]);
    free(f->members);
    free(f->longnames);
    hit_clear(&f->probe);
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

/* Captures ---------------------------------------------------------------------------------- */

/* Asks for [from, from+len) of the file. One window: they are there (when the file holds them).
 * A stream: kept as they pass, from the first bytes (always kept) for what went by already, or in
 * the next pass. */
static void want(smc_finder *f, capture *c, uint64_t from, uint64_t len)
{
    capture_clear(c);
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
            nomem(f);
            return;
        }
        c->owned = true;
        memcpy(c->bytes, f->head + from, upto - from);
        c->have = upto - from;
        return;
    }
    c->pass = f->pass + 1;
}

static bool captured(const capture *c)
{
    return c->len && c->have == c->len;
}

/* Keeps what the window [base, base+n) holds of c. */
static void keep(smc_finder *f, capture *c, uint64_t base, const uint8_t *p, size_t n)
{
    if (!c->len || c->have == c->len || c->pass != f->pass) return;
    uint64_t at = c->from + c->have, stop = c->from + c->len; /* want() keeps this in range */
    if (at < base || at >= base + n) return;
    if (!c->bytes) {
        if (!(c->bytes = malloc(c->len))) {
            nomem(f);
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
        if (!f->whole) spill(f);
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
        read = smc_payload_decode(k->stored, img, f->zctx, &data, &err) == SMC_OK &&
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
        nomem(f);
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
        if (f->whole && add_note(h, img->offset, img, msg) != SMC_OK) nomem(f);
    } else if (cp->pay_verify) {
        uint8_t *data = NULL;
        smc_fatbin_error err;
        smc_status st = smc_payload_decode(stored, img, f->zctx, &data, &err);
        if (st != SMC_ERR_NOMEM && cp->pay_facts && img->kind == SMC_IMAGE_CUBIN) {
            k.known = true;
            k.readable = st == SMC_OK && smc_cubin_inspect(data, img->size, &k.info, &(smc_fatbin_error){0}) == SMC_OK;
        }
        if (st == SMC_OK) st = smc_payload_check(img, data, &err);
        free(data);
        if (st == SMC_ERR_FORMAT && add_note(h, err.offset, img, err.message) != SMC_OK)
            nomem(f);
        else if (st == SMC_ERR_NOMEM)
            nomem(f);
    }
    if (!cp->pay_facts) return false;
    /* Kept for the container's end: a PTX image's first bytes (of a copy that --verify made
     * whole, a copy of them), a small cubin. */
    if (img->kind == SMC_IMAGE_PTX && have > PTX_PREFIX) {
        k.have = PTX_PREFIX;
        if (owned) {
            uint8_t *c = malloc(PTX_PREFIX);
            if (!c) return nomem(f), false;
            memcpy(c, stored, PTX_PREFIX);
            k.stored = c;
            owned = false; /* the caller frees its copy */
        }
    }
    struct kept *slot = smc_push(&cp->kept_list, cp->kept_count, sizeof *slot);
    if (!slot) {
        if (k.stored != stored) free((void *)(uintptr_t)k.stored);
        return nomem(f), false;
    }
    *slot = k;
    cp->kept_count++;
    return owned;
}

/* At a whole container's end: its cubins, in order until one holds a kernel, are read where that
 * matters: a container without PTX (the judge asks whether it holds kernels at all: nvlink's
 * device-link module does not), or every container when their names are wanted (--detail). A
 * container with PTX is taken to hold kernels without decompressing anything. */
static void inspect_cubins(smc_finder *f, cparse *cp, hit *h)
{
    bool ptx = false, any_cubin = false;
    for (size_t i = 0; i < h->image_count; i++) {
        ptx |= h->images[i].kind == SMC_IMAGE_PTX;
        any_cubin |= h->images[i].kind == SMC_IMAGE_CUBIN;
    }
    if (ptx && !f->want_names) return; /* kernels: not known (-1), which counts as holding them */
    bool all_read = cp->all_read;
    for (size_t i = 0; i < cp->kept_count && h->kernels != 1; i++) {
        struct kept *k = &cp->kept_list[i];
        if (h->images[k->img].kind == SMC_IMAGE_CUBIN && !cubin_facts(f, h, &h->images[k->img], k))
            all_read = false;
    }
    if (h->kernels != 1) h->kernels = !any_cubin || all_read ? 0 : -1;
    if (ptx) h->kernels = -1; /* as without names: a container with PTX holds kernels */
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
        long n = smc_payload_prefix(k->stored, k->have, img, f->zctx, text, ask);
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

/* At a whole container's end: what its payloads say is read where it can change a verdict for
 * the targets (smc_facts_matter; all of it for --detail's kernel names): its PTX's .version and
 * .target, its cubins' kernels. And where a driver is known, whatever the targets, the ptxas
 * release of its first small cubin that can carry one (entry version 1.8: CUDA 12.8 on write
 * .note.nv.tkinfo), for its library's CUDA minor, unless a cubin read already gave it. */
static void inspect(smc_finder *f, cparse *cp, hit *h)
{
    const smc_options *o = f->opt;
    if (f->want_names || !o->targets ||
        smc_facts_matter(h->images, h->image_count, o->targets, o->target_count, o->driver_cuda)) {
        for (size_t i = 0; i < cp->kept_count; i++) {
            struct kept *k = &cp->kept_list[i];
            smc_image *img = &h->images[k->img];
            if (img->kind == SMC_IMAGE_PTX) ptx_facts(f, img, k);
        }
        inspect_cubins(f, cp, h);
    }
    if (o->targets && o->driver_cuda <= 0) return;
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
    cp->pay_verify = f->verify && img->kind != SMC_IMAGE_LTO && img->stored_size <= VERIFY_MAX;
    if (f->verify && img->kind != SMC_IMAGE_LTO && img->stored_size > VERIFY_MAX &&
        add_note(h, img->offset, img, "not verified: over 64 MiB") != SMC_OK)
        nomem(f);
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
            spill(f);
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
    if (!(h->err = smc_strdup(e->message))) nomem(f);
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
            if (!w) return nomem(f), true;
            *w = cp->hit;
            f->watch_count++;
        }
    } else {
        smc_image img;
        smc_fatbin_error e;
        if (smc_fatbin_entry(cp->hdr, cp->next, h->end, &img, &next, &e) != SMC_OK)
            return fail_with(f, h, &e);
        h->strict &= smc_le16(cp->hdr + 2) == SMC_ENTRY_VERSION;
        if (!f->whole && f->image_total >= STREAM_IMAGES_MAX) return spill(f), true;
        if (f->image_total >= f->max_images) {
            /* A stream is read again as a file; one window reads on without keeping them. */
            if (!f->whole) return spill(f), true;
            h->over = true;
        } else {
            smc_image *slot = smc_push(&h->images, h->image_count, sizeof *slot);
            if (!slot) return nomem(f), true;
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
static bool advance(smc_finder *f, cparse *cp, uint64_t base, const uint8_t *p, size_t n)
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
                    return nomem(f), true;
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
static void settle(smc_finder *f, cparse *cp)
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

static size_t new_hit(smc_finder *f, uint64_t at)
{
    hit *h = smc_push(&f->hits, f->hit_count, sizeof *h);
    if (!h) return nomem(f), SIZE_MAX;
    *h = fresh_hit(at);
    return f->hit_count++;
}

static cparse start_parse(size_t hit_index, uint64_t at)
{
    return (cparse){.hit = hit_index, .next = at, .want = 16, .all_read = true};
}

/* One window: the container at off, parsed now. */
static hit *parse_at(smc_finder *f, uint64_t off)
{
    if (f->hit_count && f->hits[f->hit_count - 1].start == off) /* asked again */
        return &f->hits[f->hit_count - 1];
    size_t k = new_hit(f, off);
    if (k == SIZE_MAX) return NULL;
    cparse cp = start_parse(k, off);
    advance(f, &cp, 0, f->window, (size_t)f->len);
    settle(f, &cp);
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
        return nomem(f), 0; /* the sentinel, link 0 */
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
            return nomem(f), 0;
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
            return nomem(f), 0;
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
static hit *probe_at(smc_finder *f, uint64_t off)
{
    hit *h = &f->probe;
    hit_clear(h);
    *h = fresh_hit(off);
    if (f->len - off < 16)
        past_the_end(f, h);
    else if (container_header(f, h, f->window + off))
        probe_entries(f, h);
    return h;
}

/* Streams: following every header as it passes --------------------------------------------- */

typedef struct window_ctx {
    smc_finder *f;
    uint64_t base; /* file offset of buf[0] */
    const uint8_t *buf; /* what is searched: the window, or the seam before it */
    size_t len;
    const uint8_t *win; /* the window, at file offset f->wbase */
    size_t wlen;
    bool seam; /* headers that start before the window and end in it */
} window_ctx;

/* The last non-zero byte before file offset at (at most the window's end): in the window, in the
 * tail before it, or before that. */
static uint64_t prev_nonzero(const smc_finder *f, const uint8_t *win, uint64_t at)
{
    uint64_t wb = f->wbase;
    for (uint64_t i = at; i > wb;)
        if (win[--i - wb] != 0) return i;
    for (size_t k = f->tail_len; k > 0; k--) {
        uint64_t off = wb - (f->tail_len - k) - 1; /* the file offset of tail[k - 1] */
        if (off < at && f->tail[k - 1] != 0) return off;
    }
    return f->tail_prev;
}

static void cudart_seen_at(smc_finder *f, uint64_t at, const uint8_t *p, size_t n);
static void names_seen_at(smc_finder *f, uint64_t at, const uint8_t *win, size_t n);

enum { NEEDLE_CUDART, NEEDLE_NAMES, NEEDLE_CUDART_DLL };

static bool on_header(void *ctx, size_t i, int which)
{
    window_ctx *w = ctx;
    smc_finder *f = w->f;
    uint64_t off = w->base + i;
    if (which == NEEDLE_CUDART || which == NEEDLE_CUDART_DLL) {
        cudart_seen_at(f, off, w->buf + i, w->len - i);
        return !f->failed;
    }
    if (which == NEEDLE_NAMES) {
        names_seen_at(f, off, w->win, w->wlen);
        return !f->failed;
    }
    if (w->seam && (off >= f->wbase || off + 8 <= f->wbase)) return true; /* seen elsewhere */
    if (f->open_count >= OPEN_MAX || f->hit_count > f->max_containers) {
        spill(f); /* hostile nesting, or a flood of headers */
        return false;
    }
    size_t k = new_hit(f, off);
    if (k == SIZE_MAX) return false;
    f->hits[k].prev_nonzero = prev_nonzero(f, w->win, off);
    cparse *cp = smc_push(&f->open, f->open_count, sizeof *cp);
    if (!cp) return nomem(f), false;
    *cp = start_parse(k, off);
    f->open_count++;
    if (off < f->wbase) { /* the header's first bytes are in the tail */
        size_t n = (size_t)(f->wbase - off);
        memcpy(cp->hdr, f->tail + f->tail_len - n, n);
        cp->have = (unsigned)n;
    }
    if (advance(f, cp, f->wbase, w->win, w->wlen)) {
        settle(f, cp);
        *cp = f->open[--f->open_count];
    }
    return !f->failed;
}

#define NEEDED_C10 100000u /* not a CUDA major: the name is libc10.so or libc10_cuda.so */

/* "libcudart.so." at file offset off: the N of libcudart.so.N (as DT_NEEDED names it: N, then
 * NUL or a dot), NEEDED_C10 for PyTorch's libc10 (libc10.so, libc10_cuda.so: the library was
 * built against PyTorch), or 0. */
static unsigned cudart_major(const uint8_t *p, size_t n)
{
    static const char *const c10[] = {"libc10.so", "libc10_cuda.so"};
    for (size_t k = 0; k < 2; k++) {
        size_t len = strlen(c10[k]);
        if (n > len && memcmp(p, c10[k], len) == 0 && (p[len] == 0 || p[len] == '.'))
            return NEEDED_C10;
    }
    static const char dll[] = "cudart64_";
    const size_t d = sizeof dll - 1;
    if (n >= d + 6 && memcmp(p, dll, d) == 0) { /* a DLL import: cudart64_12.dll, _110.dll */
        unsigned v = 0;
        size_t i = d;
        while (i < n && p[i] >= '0' && p[i] <= '9' && v < 1000)
            v = v * 10 + (unsigned)(p[i++] - '0');
        if (i == d || n - i < 5 || memcmp(p + i, ".dll", 4) != 0 || p[i + 4] != 0) return 0;
        return v >= 50 ? v / 10 : v; /* 110 is 11.0, 92 is 9.2, 12 is 12 */
    }
    static const char key[] = "libcudart.so.";
    const size_t k = sizeof key - 1;
    if (n < k + 2 || memcmp(p, key, k) != 0) return 0;
    unsigned major = 0;
    size_t i = k;
    while (i < n && p[i] >= '0' && p[i] <= '9' && major < 1000)
        major = major * 10 + (unsigned)(p[i++] - '0');
    return i > k && i < n && (p[i] == 0 || p[i] == '.') ? major : 0;
}

/* Remembers every libcudart.so.N string: DT_NEEDED names one by its offset in .dynstr, which
 * goes by before .dynamic says where it is. p holds n bytes from file offset at on. */
static void cudart_seen_at(smc_finder *f, uint64_t at, const uint8_t *p, size_t n)
{
    unsigned major = cudart_major(p, n);
    if (!major || (f->cudart_count && f->cudart[f->cudart_count - 1].offset >= at)) return;
    if (f->cudart_count >= CUDART_MAX) {
        f->cudart_over = true;
        return;
    }
    cudart_seen *c = smc_push(&f->cudart, f->cudart_count, sizeof *c);
    if (!c) {
        nomem(f);
        return;
    }
    *c = (cudart_seen){at, major};
    f->cudart_count++;
}

/* The section names are usually near the section table, but not always (tensorflow keeps them
 * 9 MiB before it): their own name, ".shstrtab", going by is a hint of where they are, so the
 * bytes around it are kept. When the table says they lie there, no second pass is needed; the
 * bytes are the same either way. */
static void names_seen_at(smc_finder *f, uint64_t at, const uint8_t *win, size_t n)
{
    for (size_t i = 0; i < f->guess_count; i++)
        if (at >= f->guesses[i].from && at - f->guesses[i].from < f->guesses[i].len) return;
    /* Every cubin has names of its own: those inside a container being read are not the file's. */
    for (size_t i = 0; i < f->open_count; i++) {
        const hit *h = &f->hits[f->open[i].hit];
        if (h->header_ok && at >= h->start && at < h->end) return;
    }
    /* The last few are kept: the file's names come after its device code. */
    capture *c;
    if (f->guess_count < NAME_GUESSES) {
        c = &f->guesses[f->guess_count++];
    } else {
        capture_clear(&f->guesses[0]);
        memmove(f->guesses, f->guesses + 1, (NAME_GUESSES - 1) * sizeof *f->guesses);
        c = &f->guesses[NAME_GUESSES - 1];
    }
    uint64_t from = at > NAMES_NEAR ? at - NAMES_NEAR : 0;
    *c = (capture){.from = from, .len = at + NAMES_NEAR - from, .pass = f->pass};
    if (!(c->bytes = malloc(c->len))) {
        nomem(f);
        return;
    }
    c->owned = true;
    /* What went by already: the back buffer holds the bytes just before the window. */
    uint64_t back_from = f->wbase - f->back_len;
    if (from < back_from) { /* too far back: keep from where the back buffer starts */
        c->len -= back_from - from;
        c->from = from = back_from;
    }
    if (from < f->wbase) {
        size_t k = (size_t)(f->wbase - from);
        memcpy(c->bytes, f->back + f->back_len - k, k);
        c->have = k;
    }
    keep(f, c, f->wbase, win, n);
}

/* After a container, the first non-zero byte past its end (garbage, or the next container). */
static void watch_ends(smc_finder *f, uint64_t base, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < f->watch_count;) {
        hit *h = &f->hits[f->watch[i]];
        uint64_t at = h->end > base ? h->end : base;
        while (at < base + n && b[at - base] == 0)
            at++;
        if (at < base + n) {
            h->next_nonzero = at;
            f->watch[i] = f->watch[--f->watch_count];
        } else {
            i++;
        }
    }
}

static void stream_window(smc_finder *f, uint64_t base, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < f->open_count;) {
        if (advance(f, &f->open[i], base, p, n)) {
            settle(f, &f->open[i]);
            f->open[i] = f->open[--f->open_count];
        } else {
            i++;
        }
    }
    /* What straddles the tail and this window, then the window itself. */
    uint8_t seam[sizeof f->tail + 31];
    size_t lead = n < 31 ? n : 31;
    memcpy(seam, f->tail, f->tail_len);
    memcpy(seam + f->tail_len, p, lead);
    /* "libc": libcudart.so.N, and libc10 (a PyTorch extension); a few hits a library. */
    static const smc_needle needles[] = {{(const uint8_t *)"libc", 4},
                                         {(const uint8_t *)".shstrtab", 10},
                                         {(const uint8_t *)"cudart64_", 9}};
    window_ctx ws = {f, base - f->tail_len, seam, f->tail_len + lead, p, n, true};
    window_ctx w = {f, base, p, n, p, n, false};
    for (size_t i = 0; i < f->guess_count; i++)
        keep(f, &f->guesses[i], base, p, n);
    smc_fatbin_scan(seam, ws.len, needles, 3, on_header, &ws);
    smc_fatbin_scan(p, n, needles, 3, on_header, &w);
    watch_ends(f, base, p, n);
    /* The back buffer: the last BACK bytes before the next window. */
    if (n >= BACK) {
        memcpy(f->back, p + n - BACK, BACK);
        f->back_len = BACK;
    } else {
        size_t old = f->back_len + n > BACK ? BACK - n : f->back_len;
        memmove(f->back, f->back + f->back_len - old, old);
        memcpy(f->back + old, p, n);
        f->back_len = old + n;
    }
    /* The new tail: the last bytes of tail and window, and the last non-zero byte before it. */
    if (n >= sizeof f->tail) {
        f->tail_prev = prev_nonzero(f, p, base + n - sizeof f->tail);
        memcpy(f->tail, p + n - sizeof f->tail, sizeof f->tail);
        f->tail_len = sizeof f->tail;
    } else {
        size_t old = f->tail_len + n > sizeof f->tail ? sizeof f->tail - n : f->tail_len;
        f->tail_prev = prev_nonzero(f, p, base - old);
        memmove(f->tail, f->tail + f->tail_len - old, old);
        memcpy(f->tail + old, p, n);
        f->tail_len = old + n;
    }
}

/* Archives (ar) -------------------------------------------------------------------------------- */

static void file_note(smc_finder *f, uint64_t at, const char *msg)
{
    note *n = smc_push(&f->notes, f->note_count, sizeof *n);
    if (!n || !(n->message = smc_strdup(msg))) {
        nomem(f);
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
                nomem(f);
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
        nomem(f);
        return;
    }
    *m = (member){.name = smc_sanitize(name), .offset = data, .size = size};
    char *path = smc_asprintf("%s(%s)", f->name, name);
    m->f = path ? smc_finder_new(path, f->opt, f->whole) : NULL;
    free(path);
    f->member_count++;
    if (!m->f) {
        nomem(f);
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
                    nomem(f);
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
        f->pe_ok = smc_pe_parse(h, n, &f->pe, f->pe_error, sizeof f->pe_error);
        if (f->pe_ok == -2) nomem(f);
        if (f->pe_ok == 1 && f->pe.import_offset != SMC_PE_NOWHERE)
            want(f, &f->dynamic, f->pe.import_offset,
                 f->pe.import_size < DYNAMIC_MAX ? f->pe.import_size : DYNAMIC_MAX);
    } else {
        f->kind = K_NONE;
    }
    if (f->kind != K_ELF || !f->elf_ok) return;
    smc_elf_header *e = &f->eh;
    uint64_t ph = (uint64_t)e->phnum * e->phentsize;
    if (e->phoff && ph && ph <= PHDRS_MAX && e->phentsize >= (e->is64 ? 56 : 32))
        want(f, &f->phdrs, e->phoff, ph);
    if (e->shoff) {
        /* The table's size may be in its first entry (extended numbering): keep up to the cap
         * from its start, and what lies just before it, where the names usually are. */
        uint64_t from = e->shoff > TABLE_LEAD ? e->shoff - TABLE_LEAD : 0;
        uint64_t len = e->shoff - from > UINT64_MAX - TABLE_MAX ? 0 : e->shoff - from + TABLE_MAX;
        want(f, &f->table, from, len);
    }
}

/* The dynamic section, once the program headers said where it is. */
static void want_dynamic(smc_finder *f)
{
    f->dyn_known = true;
    const smc_elf_header *e = &f->eh;
    for (uint64_t i = 0; captured(&f->phdrs) && i < e->phnum; i++) {
        const uint8_t *ph = f->phdrs.bytes + i * e->phentsize;
        if (smc_elf_word(e, ph, 4) != 2) continue; /* PT_DYNAMIC */
        uint64_t off = smc_elf_word(e, ph + (e->is64 ? 8 : 4), e->is64 ? 8 : 4);
        uint64_t size = smc_elf_word(e, ph + (e->is64 ? 32 : 16), e->is64 ? 8 : 4);
        if (size && size <= DYNAMIC_MAX) want(f, &f->dynamic, off, size);
        return;
    }
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
                nomem(f);
                return;
            }
            f->file = (capture){.bytes = grown, .len = cap, .have = f->file.have, .owned = true};
        }
        memcpy(f->file.bytes + base, p, n);
        f->file.have = base + n;
    } else if (f->kind == K_ELF || f->kind == K_RAW || f->kind == K_PE) {
        keep(f, &f->phdrs, base, p, n);
        if (!f->dyn_known && captured(&f->phdrs)) want_dynamic(f);
        keep(f, &f->dynamic, base, p, n);
        keep(f, &f->table, base, p, n);
        keep(f, &f->names, base, p, n);
        keep(f, &f->needed, base, p, n);
        if (f->pass == 1) stream_window(f, base, p, n);
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
    if (!captured(&f->table) && !(f->whole && f->table.have)) return false;
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
    want(f, &f->names, noff, nlen);
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
    if (f->whole) return smc_fatbin_at(f->window, f->len, off) ? probe_at(f, off) : NULL;
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
        const hit *whole = parse_at(f, h->start);
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
    return captured(c) ? c->bytes : NULL;
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
    want(f, &f->needed, lo, end - lo);
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
            m = cudart_major(f->window + at[i],
                             (size_t)(f->len - at[i] < 64 ? f->len - at[i] : 64));
        } else if (captured(c) && at[i] >= c->from && at[i] - c->from < c->len) {
            m = cudart_major(c->bytes + (at[i] - c->from), (size_t)(c->len - (at[i] - c->from)));
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
            if (f->names.len && !captured(&f->names))
                st = finding(lib, SMC_NO_OFFSET,
                             "the section names (offset 0x%llx) went by before the section "
                             "table said where they were, and were not read again",
                             (unsigned long long)f->names.from);
            if (st == SMC_OK)
                st = smc_elf_sections(f->head, f->head_len, t->bytes + (toff - t->from),
                                      (size_t)tlen, bytes_of(&f->names),
                                      (size_t)(captured(&f->names) ? f->names.len : 0), &secs,
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
        lib->cudart_major = needed_cudart(f, &unknown, &c10);
        lib->links_torch = c10;
        if (f->elf_ok) lib->machine = f->eh.machine;
        if (unknown)
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
    } else if (!f->whole && captured(&f->dynamic)) {
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
            m = cudart_major(f->window + name, (size_t)(f->len - name < 64 ? f->len - name : 64));
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
    if (st == SMC_OK && lib->container_count && f->pe_ok == 1) {
        lib->cudart_major = imported_cudart(f);
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
            want(f, &f->table, f->table.from, len);
        }
        if (f->phdrs.len) want(f, &f->phdrs, f->phdrs.from, f->phdrs.len);
        want_dynamic(f);
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
        again = (f->names.len && !captured(&f->names)) || (f->needed.len && !captured(&f->needed));
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
    /* Whatever is still open ran into the end of the bytes. */
    for (size_t i = 0; i < f->open_count; i++)
        settle(f, &f->open[i]);
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
