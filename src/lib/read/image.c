/* image.c: container images, read in place: an OCI image layout directory (oci-layout,
 * index.json, blobs/sha256/...), and a tarball of one (oci-archive, and `docker save`, which
 * since Docker 25 writes an OCI layout beside its legacy manifest.json; older ones only that).
 * The manifest is chosen by platform through nested indexes; its layers, tars (plain, gzip,
 * zstd, xz, bzip2: libarchive), are applied as a container runtime applies them, but read from
 * the top layer down, once each: an entry is visible unless a higher layer holds its path, a
 * non-directory on its way, a whiteout of it or of a directory above it (.wh.NAME), or an opaque
 * marker (.wh..wh..opq) in a directory above it. The visible filesystem is then an environment:
 * its libraries are found and given to the distributions its metadata lists, and are named
 * IMAGE!/path, with the layer they come from. Names and digests are untrusted: a digest is
 * checked to be algorithm:hex before it names a blob, an entry that would land outside the root
 * is an error, links are never followed. A tarball, plain or gzip-compressed, is indexed in one
 * pass (its small members kept, where each other one starts, and for gzip a place to start
 * inflating near it), so that no member is looked for by reading it again from the start. */
#include "../find/find.h"
#include "../rules/rules.h"
#include "read.h"

#include <smcheck/builds.h>

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define JSON_CAP (4u << 20)    /* index.json, manifests, configs */
#define JSON_ALL (32u << 20)   /* all of them, per image */
#define BLOBS_MAX 64           /* indexes, manifests and configs read per image */
#define ENTRIES_MAX 256        /* manifests read of one index */
#define META_CAP (16u << 20)   /* one metadata file of the environment */
#define META_ALL (64u << 20)   /* all of them, conda-meta records as smc_env_compact cuts them */
#define PATHS_ALL (64u << 20)  /* what the layers say of paths, kept while they are read */
#define DEPTH_MAX 4            /* nested indexes */
#define LAYERS_MAX 1024
#define OUTER_MAX 65536        /* members of a tarball indexed */
#define KEEP_ONE (64u << 10)   /* a tarball's members kept whole by the pass that indexes it */
#define KEEP_ALL (8u << 20)
#define WIN 32768u             /* deflate's window */
#define SPAN (1u << 20)        /* gzip: the least distance between two places kept */
#define POINTS_MAX 1024        /* and the most of them (32 KiB each) */
#define RING 4                 /* block ends remembered while indexing */

/* What the layers have said about a path, stored once: what the layers above the one being read
 * say (they hide what the layers below hold), and what that one says (it joins them when the
 * layer is done). A hash set, updated per layer, never sorted (issue 26: re-sorting the sets
 * after every layer took 59 s for 600 layers of 1000 entries). */
enum { P_SEEN = 1, P_NONDIR = 2, P_WHITEOUT = 4, P_OPAQUE = 8 };

typedef struct pnode {
    uint64_t hash;
    size_t len;
    uint8_t above, here;
    char path[];
} pnode;

typedef struct pathmap {
    pnode **slot;
    size_t cap, n;
    pnode **touched; /* the nodes the layer being read has marked */
    size_t touched_n;
    uint64_t bytes;
} pathmap;

/* A place in a gzip stream where inflating can start (zlib's examples/zran.c): the compressed
 * offset, the bits of the byte before it still to use, and the 32 KiB made before it. */
typedef struct point {
    uint64_t in, out;
    int bits;
    unsigned char *window; /* NULL: the start of the file */
} point;

/* A regular member of a tarball, as the one pass found it. */
typedef struct member {
    char *name;
    uint64_t off, size; /* its bytes, in the tarball uncompressed */
    size_t point;       /* gzip: where inflating for it starts */
    char *data;         /* its bytes, when small enough to be kept */
} member;

typedef struct image {
    smc_input *part, *fs; /* fs: the libraries under their paths in the image */
    const char *path;
    const smc_options *opt;
    const smc_ticker *tk;
    int dirfd, tarfd;     /* the layout directory, or the tarball */
    uint64_t total, total_max, member_max, members, members_max;
    pathmap paths;
    smc_memfile *meta;
    size_t meta_count;
    uint64_t meta_bytes;
    const char *layer; /* the digest of the layer being read */
    bool stopped, unreadable; /* unreadable: an entry's bytes failed, its message said */
    char **hardlinks; /* visible hard links: pairs of (its path, its target's path) */
    size_t hardlink_count;
    char **orphans; /* the same, of this layer, whose target the layers above hide */
    size_t orphan_count;
    /* the tarball's index (indexed: plain or gzip; otherwise each member is looked for) */
    bool indexed, gz;
    member *m;
    size_t mn;
    point *pt;
    size_t npt;
    uint64_t kept, inflated, tar_size;
    size_t blobs;       /* JSON documents read */
    uint64_t json_bytes;
    bool blobs_said;
    char capped[160]; /* why the tarball's inflating stopped */
    struct ostream *stream; /* the tarball's bytes being read, whose failure is the reason */
} image;

/* FNV-1a, a byte at a time, so that the hash of each directory above a path is met on the way
 * to the path's own. */
#define HASH_START 1469598103934665603ull
static inline uint64_t hash_step(uint64_t h, char c)
{
    return (h ^ (unsigned char)c) * 1099511628211ull;
}

static uint64_t hash_of(const char *p, size_t n)
{
    uint64_t h = HASH_START;
    for (size_t i = 0; i < n; i++)
        h = hash_step(h, p[i]);
    return h;
}

/* The slot of p[0..n) in m (its node, or the empty slot where it would go); m has slots. */
static pnode **map_slot(const pathmap *m, const char *p, size_t n, uint64_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        pnode *e = m->slot[i];
        if (!e || (e->hash == h && e->len == n && memcmp(e->path, p, n) == 0)) return &m->slot[i];
    }
}

/* What the layers above say of the path p[0..n), whose hash is h. */
static uint8_t map_above(const pathmap *m, const char *p, size_t n, uint64_t h)
{
    if (!m->n) return 0;
    pnode *e = *map_slot(m, p, n, h);
    return e ? e->above : 0;
}

static smc_status map_grow(pathmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    pathmap bigger = {.slot = calloc(cap, sizeof *m->slot), .cap = cap};
    if (!bigger.slot) return SMC_ERR_NOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i]) *map_slot(&bigger, m->slot[i]->path, m->slot[i]->len, m->slot[i]->hash) =
            m->slot[i];
    free(m->slot);
    m->slot = bigger.slot;
    m->cap = cap;
    return SMC_OK;
}

/* Records that the layer being read says kind of path. */
static smc_status map_mark(pathmap *m, const char *p, uint8_t kind)
{
    size_t n = strlen(p);
    if ((m->n + 1) * 2 > m->cap && map_grow(m) != SMC_OK) return SMC_ERR_NOMEM;
    uint64_t h = hash_of(p, n);
    pnode **s = map_slot(m, p, n, h);
    if (!*s) {
        pnode *e = malloc(sizeof *e + n + 1);
        if (!e) return SMC_ERR_NOMEM;
        *e = (pnode){.hash = h, .len = n};
        memcpy(e->path, p, n + 1);
        *s = e;
        m->n++;
        m->bytes += sizeof *e + n + 1 + 2 * sizeof *s;
    }
    if (!(*s)->here) {
        pnode **t = smc_push(&m->touched, m->touched_n, sizeof *t);
        if (!t) return SMC_ERR_NOMEM;
        *t = *s;
        m->touched_n++;
    }
    (*s)->here |= kind;
    return SMC_OK;
}

/* What the layer just read says now hides what the layers below it hold. */
static void map_settle(pathmap *m)
{
    for (size_t i = 0; i < m->touched_n; i++) {
        m->touched[i]->above |= m->touched[i]->here;
        m->touched[i]->here = 0;
    }
    m->touched_n = 0;
}

static void map_free(pathmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slot[i]);
    free(m->slot);
    free(m->touched);
    *m = (pathmap){0};
}

/* Whether the layers above hide an entry at path ("/usr/lib/x.so"): each directory above it is
 * looked up as a prefix of path, its hash met on the way, so a path of any length is judged in
 * one pass over it (issue 26: past 4096 bytes a whiteout of a directory above it was ignored). */
static bool hidden(const image *im, const char *path)
{
    const pathmap *m = &im->paths;
    if (!m->n) return false;
    if (map_above(m, "/", 1, hash_of("/", 1)) & P_OPAQUE) return true;
    uint64_t h = HASH_START;
    size_t k = 0;
    for (; path[k]; k++) {
        uint8_t says = path[k] == '/' && k > 0 ? map_above(m, path, k, h) : 0;
        if (says & (P_WHITEOUT | P_OPAQUE | P_NONDIR)) return true;
        h = hash_step(h, path[k]);
    }
    return (map_above(m, path, k, h) & (P_SEEN | P_WHITEOUT)) != 0;
}

/* "./usr/lib/x" -> "/usr/lib/x", lexically; NULL for one that climbs out of the root. */
static char *entry_path(const char *name)
{
    int depth = 0;
    for (const char *p = name; *p;) {
        while (*p == '/')
            p++;
        size_t k = strcspn(p, "/");
        if (k == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0) return NULL;
        } else if (k && !(k == 1 && p[0] == '.')) {
            depth++;
        }
        p += k;
    }
    char *norm = smc_path_normalize("/", name);
    if (norm && strcmp(norm, "/") != 0) {
        size_t n = strlen(norm);
        while (n > 1 && norm[n - 1] == '/')
            norm[--n] = '\0';
    }
    return norm;
}

/* A name from a legacy manifest.json ("<id>/layer.tar", "<id>.json", "blobs/sha256/<hex>"):
 * a relative path beneath the image, no ".." and no NUL, at most 1024 bytes. */
static bool legacy_name(const char *name)
{
    return name && *name && strlen(name) <= 1024 && smc_path_beneath(name);
}

/* A digest that can name a blob: "sha256:" and lower-case hex (or another algorithm of [a-z0-9]
 * and an encoded part of [a-zA-Z0-9=_-]), as blobs/ALG/HEX. NULL when it cannot. */
static char *blob_name(const char *digest)
{
    const char *colon = digest ? strchr(digest, ':') : NULL;
    if (!colon || colon == digest || !colon[1] || strlen(colon + 1) > 256) return NULL;
    for (const char *p = digest; p < colon; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) return NULL;
    for (const char *p = colon + 1; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '=' || *p == '_' || *p == '-'))
            return NULL;
    return smc_asprintf("blobs/%.*s/%s", (int)(colon - digest), digest, colon + 1);
}

static struct archive *reader(bool filters)
{
    struct archive *a = archive_read_new();
    if (!a) return NULL;
    archive_read_support_format_tar(a);
    if (filters) {
        archive_read_support_filter_gzip(a);
        archive_read_support_filter_zstd(a);
        archive_read_support_filter_xz(a);
        archive_read_support_filter_bzip2(a);
    }
    return a;
}

/* The tarball's member name, without a leading "./". */
static const char *member_name(struct archive_entry *e)
{
    const char *n = archive_entry_pathname(e);
    if (n && n[0] == '.' && n[1] == '/') n += 2;
    return n;
}

/* The tarball's bytes, uncompressed, from start to end: read in place (plain) or inflated (gzip)
 * from a place at or before start. While the tarball is indexed, the ends of the last deflate
 * blocks are remembered, one of which becomes the place a member's inflating starts from. */
typedef struct ostream {
    image *im;
    bool raw, fresh, eof_in, done, indexing, zinit;
    unsigned trailer; /* bytes of a gzip member's trailer still to pass over (raw inflating) */
    z_stream z;
    uint64_t in_off, out, start, end;
    size_t wpos;
    const char *err;
    point ring[RING];
    size_t ring_n;
    unsigned char in[1 << 16], win[WIN], ringwin[RING][WIN];
} ostream;

/* The last 32 KiB made, oldest first (the window is a ring, wpos where the next byte goes). */
static void window_copy(const ostream *s, size_t wpos, unsigned char *to)
{
    memcpy(to, s->win + wpos, WIN - wpos);
    memcpy(to + (WIN - wpos), s->win, wpos);
}

static smc_status ostream_open(image *im, ostream **out, uint64_t start, uint64_t end,
                               const point *at, bool indexing)
{
    ostream *s = *out = malloc(sizeof *s);
    if (!s) return SMC_ERR_NOMEM;
    memset(s, 0, offsetof(ostream, in));
    s->im = im;
    if (im->capped[0]) s->err = im->capped; /* the cap on inflating was reached */
    s->start = start;
    s->end = end;
    s->indexing = indexing;
    if (!im->gz) {
        s->out = start; /* read in place */
        return SMC_OK;
    }
    bool from_point = at && at->window;
    if (inflateInit2(&s->z, from_point ? -15 : 15 + 16) != Z_OK) return SMC_ERR_NOMEM;
    s->zinit = true;
    if (!from_point) return SMC_OK;
    s->raw = true;
    s->in_off = at->in;
    s->out = at->out;
    unsigned char byte = 0;
    if (at->bits && pread(im->tarfd, &byte, 1, (off_t)at->in - 1) != 1) s->err = "cannot be read";
    else if (at->bits) inflatePrime(&s->z, at->bits, byte >> (8 - at->bits));
    inflateSetDictionary(&s->z, at->window, WIN);
    return SMC_OK;
}

static void ostream_close(ostream *s)
{
    if (s && s->zinit) inflateEnd(&s->z);
    free(s);
}

/* Why reading failed: the tarball's reason when its bytes failed (libarchive words that as a
 * truncation of its own), else libarchive's. */
static const char *why_of(const image *im, struct archive *a)
{
    return im->stream && im->stream->err ? im->stream->err : smc_archive_why(a);
}

/* At the end of one gzip member another may follow (gzip's multi-member streams). */
static void gz_member_end(ostream *s)
{
    if (s->raw) s->trailer = 8; /* CRC-32 and size, which raw inflating leaves unread */
    s->raw = false;
    inflateReset2(&s->z, 15 + 16);
    s->fresh = true;
}

/* Remembers the end of a deflate block, where inflating can start again (zran.c). */
static void gz_block_end(ostream *s)
{
    point *p = &s->ring[s->ring_n % RING];
    *p = (point){.in = s->in_off - s->z.avail_in, .out = s->out, .bits = s->z.data_type & 7,
                 .window = s->ringwin[s->ring_n % RING]};
    window_copy(s, s->wpos, p->window);
    s->ring_n++;
}

/* Inflates what comes next into the window: its bytes in *at; 0 at the end; -1 (s->err). */
static la_ssize_t gz_more(ostream *s, const void **at)
{
    while (!s->done) {
        if (s->z.avail_in == 0 && !s->eof_in) {
            ssize_t got = pread(s->im->tarfd, s->in, sizeof s->in, (off_t)s->in_off);
            if (got < 0) {
                s->err = strerror(errno);
                return -1;
            }
            s->in_off += (uint64_t)got;
            s->z.next_in = s->in;
            s->z.avail_in = (uInt)got;
            s->eof_in = got == 0;
        }
        if (s->trailer) {
            unsigned k = s->z.avail_in < s->trailer ? s->z.avail_in : s->trailer;
            s->z.next_in += k;
            s->z.avail_in -= k;
            s->trailer -= k;
            if (s->trailer && s->eof_in) s->done = true;
            continue;
        }
        if (s->wpos == WIN) s->wpos = 0;
        s->z.next_out = s->win + s->wpos;
        s->z.avail_out = (uInt)(WIN - s->wpos);
        int rc = inflate(&s->z, Z_BLOCK);
        size_t made = WIN - s->wpos - s->z.avail_out;
        if (rc == Z_STREAM_END) {
            gz_member_end(s);
        } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && !s->eof_in)) {
            if (s->fresh && !made) { /* no gzip member follows: what is left is not read */
                s->done = true;
                break;
            }
            s->err = rc == Z_BUF_ERROR ? "the gzip stream is cut short"
                     : s->z.msg        ? s->z.msg
                                       : "not gzip data";
            return -1;
        }
        if (made) s->fresh = false;
        s->wpos += made;
        s->out += made;
        if (s->indexing && rc == Z_OK && (s->z.data_type & 128) && !(s->z.data_type & 64))
            gz_block_end(s);
        s->im->inflated += made;
        if (s->im->inflated > s->im->total_max) {
            snprintf(s->im->capped, sizeof s->im->capped,
                     "the tarball inflates to more than %llu bytes (--max-inflate-total, which "
                     "counts every byte inflated, each time)",
                     (unsigned long long)s->im->total_max);
            s->err = s->im->capped;
            return -1;
        }
        if (made) {
            *at = s->win + s->wpos - made;
            return (la_ssize_t)made;
        }
    }
    return 0;
}

static la_ssize_t plain_more(ostream *s, const void **at)
{
    ssize_t got = pread(s->im->tarfd, s->in, sizeof s->in, (off_t)s->out);
    if (got < 0) s->err = strerror(errno);
    if (got > 0) s->out += (uint64_t)got;
    *at = s->in;
    return got;
}

/* The next bytes of [start, end): their count, 0 at end, -1 with s->err. */
static la_ssize_t ostream_next(ostream *s, const void **buf)
{
    while (!s->err && s->out < s->end) {
        const void *at = NULL;
        la_ssize_t got = s->im->gz ? gz_more(s, &at) : plain_more(s, &at);
        if (got <= 0) {
            if (got == 0 && s->end != UINT64_MAX) s->err = "the tarball ends inside it";
            return got < 0 || s->err ? -1 : 0;
        }
        uint64_t from = s->out - (uint64_t)got;
        if (s->out <= s->start) continue; /* before it: inflated and passed over */
        uint64_t skip = from < s->start ? s->start - from : 0;
        uint64_t n = (uint64_t)got - skip;
        if (from + skip + n > s->end) n = s->end - from - skip;
        *buf = (const char *)at + skip;
        return (la_ssize_t)n;
    }
    return s->err ? -1 : 0;
}

static la_ssize_t ostream_read(struct archive *a, void *ctx, const void **buf)
{
    ostream *s = ctx;
    la_ssize_t got = ostream_next(s, buf);
    if (got < 0) archive_set_error(a, EIO, "%s", s->err ? s->err : "cannot be read");
    return got;
}

/* A plain tarball's members are passed over in place. */
static la_int64_t ostream_skip(struct archive *a, void *ctx, la_int64_t request)
{
    (void)a;
    ostream *s = ctx;
    uint64_t left = s->im->tar_size > s->out ? s->im->tar_size - s->out : 0;
    if (request <= 0) return 0;
    if ((uint64_t)request > left) request = (la_int64_t)left; /* a cut tarball is read to its end */
    s->out += (uint64_t)request;
    return request;
}

static int by_member(const void *a, const void *b)
{
    const member *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->off > y->off) - (x->off < y->off); /* the first of a name wins */
}

/* Where inflating for a member that starts at off begins: the last block end remembered at or
 * before it, kept as a new place when far enough from the last one kept and under the cap. */
static smc_status place_for(image *im, const ostream *s, uint64_t off, size_t *at)
{
    *at = im->npt - 1;
    const point *best = NULL;
    for (size_t i = 0; i < RING && i < s->ring_n; i++) {
        const point *p = &s->ring[(s->ring_n - 1 - i) % RING];
        if (p->out <= off) {
            best = p;
            break;
        }
    }
    if (!best || best->out < im->pt[im->npt - 1].out + SPAN || im->npt >= POINTS_MAX)
        return SMC_OK;
    point *slot = smc_push(&im->pt, im->npt, sizeof *slot);
    unsigned char *w = slot ? malloc(WIN) : NULL;
    if (!w) return SMC_ERR_NOMEM;
    *slot = *best;
    slot->window = memcpy(w, best->window, WIN);
    *at = im->npt++;
    return SMC_OK;
}

/* One member as the index pass meets it: kept whole when small, else where it is. */
static smc_status index_member(image *im, struct archive *a, const ostream *s,
                               struct archive_entry *e)
{
    const char *name = member_name(e);
    if (!name || archive_entry_filetype(e) != AE_IFREG) return SMC_OK;
    member *m = smc_push(&im->m, im->mn, sizeof *m);
    if (!m) return SMC_ERR_NOMEM;
    uint64_t size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
    *m = (member){.name = smc_strdup(name), .off = (uint64_t)archive_filter_bytes(a, 0),
                  .size = size};
    if (!m->name) return SMC_ERR_NOMEM;
    im->mn++;
    if (size <= KEEP_ONE && im->kept + size <= KEEP_ALL) {
        if (!(m->data = malloc((size_t)size + 1))) return SMC_ERR_NOMEM;
        la_ssize_t got = archive_read_data(a, m->data, (size_t)size);
        if (got != (la_ssize_t)size) { /* not kept: read where it is, if it can be */
            free(m->data);
            m->data = NULL;
        } else {
            im->kept += size;
        }
    }
    return im->gz && !m->data ? place_for(im, s, m->off, &m->point) : SMC_OK;
}

/* Indexes the tarball in one pass: plain or gzip (the kinds a place in can be reached without
 * reading from the start); others are read from the start for each member looked for. */
static smc_status index_tarball(image *im)
{
    unsigned char head[2];
    uint8_t magic[6];
    im->gz = pread(im->tarfd, head, 2, 0) == 2 && head[0] == 0x1f && head[1] == 0x8b;
    bool plain = pread(im->tarfd, magic, sizeof magic, 257) == (ssize_t)sizeof magic &&
                 memcmp(magic, "ustar", 5) == 0;
    struct stat sb;
    if (!im->gz && !plain) return SMC_OK;
    im->tar_size = fstat(im->tarfd, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    point *start = smc_push(&im->pt, 0, sizeof *start);
    if (!start) return SMC_ERR_NOMEM;
    *start = (point){0};
    im->npt = 1;
    ostream *s = NULL;
    struct archive *a = reader(false);
    smc_status st = a ? ostream_open(im, &s, 0, UINT64_MAX, NULL, true) : SMC_ERR_NOMEM;
    int rc = ARCHIVE_FATAL;
    if (st == SMC_OK)
        rc = archive_read_open2(a, s, NULL, ostream_read, im->gz ? NULL : ostream_skip, NULL);
    struct archive_entry *e;
    while (st == SMC_OK && rc == ARCHIVE_OK &&
           (rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (im->mn >= OUTER_MAX) {
            st = smc_input_add_error(im->part, im->path,
                                     "more than %d members in the tarball: the rest is not read",
                                     OUTER_MAX);
            break;
        }
        st = index_member(im, a, s, e);
    }
    im->stream = s;
    if (st == SMC_OK && rc != ARCHIVE_EOF && rc != ARCHIVE_OK)
        st = smc_input_add_error(im->part, im->path,
                                 "the tarball cannot be read from member %s on: %s",
                                 im->mn ? im->m[im->mn - 1].name : "its start", why_of(im, a));
    im->stream = NULL;
    if (a) archive_read_free(a);
    ostream_close(s);
    if (im->mn) qsort(im->m, im->mn, sizeof *im->m, by_member);
    im->indexed = true;
    return st;
}

/* The first member of the index named name, or NULL. */
static const member *lookup(const image *im, const char *name)
{
    size_t lo = 0, hi = im->mn;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(im->m[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < im->mn && strcmp(im->m[lo].name, name) == 0 ? &im->m[lo] : NULL;
}

/* Positions an archive over the tarball at member name: 1 there, 0 not found, -1 broken. Only
 * for a tarball that cannot be indexed (zstd): it is read from the start each time. */
static int find_member(image *im, struct archive **out, const char *name)
{
    *out = NULL;
    if (lseek(im->tarfd, 0, SEEK_SET) != 0) return -1;
    struct archive *a = reader(true);
    if (!a) return -1;
    if (archive_read_open_fd(a, im->tarfd, 64 << 10) != ARCHIVE_OK) {
        archive_read_free(a);
        return -1;
    }
    struct archive_entry *e;
    int rc;
    while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        const char *n = member_name(e);
        if (n && strcmp(n, name) == 0 && archive_entry_filetype(e) == AE_IFREG) {
            *out = a;
            return 1;
        }
    }
    archive_read_free(a);
    return rc == ARCHIVE_EOF ? 0 : -1;
}

/* An indexed member's bytes into new memory (at most JSON_CAP of them); NULL with *why. */
static char *member_bytes(image *im, const member *m, size_t *len, const char **why)
{
    *len = 0;
    if (m->size > JSON_CAP) {
        *why = "over 4 MiB: not read";
        return NULL;
    }
    char *buf = malloc((size_t)m->size + 1);
    if (!buf) return NULL;
    if (m->data) {
        memcpy(buf, m->data, (size_t)m->size);
    } else {
        ostream *s = NULL;
        if (ostream_open(im, &s, m->off, m->off + m->size, &im->pt[m->point], false) != SMC_OK) {
            ostream_close(s);
            free(buf);
            return NULL;
        }
        const void *at;
        la_ssize_t got;
        while (*len < m->size && (got = ostream_next(s, &at)) > 0) {
            memcpy(buf + *len, at, (size_t)got);
            *len += (size_t)got;
        }
        if (*len < m->size) {
            *why = s->err ? s->err : "the tarball ends inside it";
            free(buf);
            buf = NULL;
        }
        ostream_close(s);
        if (!buf) return NULL;
    }
    *len = (size_t)m->size;
    buf[*len] = '\0';
    return buf;
}

/* A member found by reading the tarball from its start, into new memory. */
static char *searched_bytes(image *im, const char *name, size_t *len, const char **why)
{
    struct archive *a;
    int rc = find_member(im, &a, name);
    if (rc != 1) {
        *why = rc < 0 ? "the tarball cannot be read" : "no such member";
        return NULL;
    }
    size_t cap = 1 << 12;
    char *buf = malloc(cap + 1);
    la_ssize_t got;
    while (buf && (got = archive_read_data(a, buf + *len, cap - *len)) > 0) {
        *len += (size_t)got;
        if (*len < cap) continue;
        char *grown = cap < JSON_CAP ? realloc(buf, cap * 2 + 1) : NULL;
        if (!grown) {
            *why = cap < JSON_CAP ? NULL : "over 4 MiB: not read";
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    if (buf) buf[*len] = '\0';
    archive_read_free(a);
    return buf;
}

/* Reads a small file of the layout (index.json, a JSON blob) into new memory; NULL with an
 * error said, or quietly when quiet and it does not exist. */
static char *read_file(image *im, const char *name, size_t *len, bool quiet)
{
    char *buf = NULL;
    *len = 0;
    if (im->dirfd >= 0) {
        int fd = smc_open_beneath(im->dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK, true);
        int err = fd < 0 ? errno : 0;
        buf = fd >= 0 ? smc_read_fd_small(fd, JSON_CAP, len, &err) : NULL;
        if (fd >= 0) close(fd);
        if (!buf && !(quiet && err == ENOENT))
            smc_input_add_error(im->part, im->path, "%s: %s", name,
                                err == EFBIG ? "not a small regular file" : smc_open_error(err));
        return buf;
    }
    const char *why = NULL;
    if (!im->indexed) {
        buf = searched_bytes(im, name, len, &why);
    } else {
        const member *m = lookup(im, name);
        why = m ? NULL : "no such member";
        buf = m ? member_bytes(im, m, len, &why) : NULL;
    }
    if (!buf && why && (!quiet || strcmp(why, "no such member") != 0))
        smc_input_add_error(im->part, im->path, "%s: %s", name, why);
    return buf;
}

/* A JSON document of the image, counted against the caps on all of them (BLOBS_MAX, JSON_ALL):
 * past them one error says which, and nothing more is read. */
static cJSON *read_json(image *im, const char *name, bool quiet)
{
    if (im->blobs >= BLOBS_MAX || im->json_bytes > JSON_ALL) {
        if (!im->blobs_said)
            smc_input_add_error(im->part, im->path,
                                "%s: more than %d indexes, manifests and configs, or %u MiB of "
                                "them: it and the rest are not read",
                                name, BLOBS_MAX, JSON_ALL >> 20);
        im->blobs_said = true;
        return NULL;
    }
    size_t len;
    char *text = read_file(im, name, &len, quiet);
    if (text) {
        im->blobs++;
        im->json_bytes += len;
    }
    cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
    if (text && !j) smc_input_add_error(im->part, im->path, "%s: not JSON", name);
    free(text);
    return j;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}
/* The platform asked for, as OCI writes it: "linux/amd64". */
static void wanted_platform(const image *im, char *buf, size_t n)
{
    const char *p = im->opt && im->opt->image_platform ? im->opt->image_platform : NULL;
    const char *name = p ? smc_platform_name(p) : NULL;
    if (p && !name) {
        snprintf(buf, n, "%s", p); /* as given: "linux/arm/v7" */
        return;
    }
    if (!name) name = smc_platform_here();
    snprintf(buf, n, "%s", strcmp(name, "linux-aarch64") == 0   ? "linux/arm64"
                           : strcmp(name, "windows-amd64") == 0 ? "windows/amd64"
                                                                : "linux/amd64");
}

/* An index found in another (todo[parent], or index.json: SMC_NONE), to be read. */
typedef struct pending {
    char *name;
    int depth;
    size_t parent;
} pending;

/* Where an index is already to be read (each is read once, however often it is listed), or
 * SMC_NONE. */
static size_t queued(const pending *todo, size_t nt, const char *name)
{
    for (size_t i = 0; i < nt; i++)
        if (strcmp(todo[i].name, name) == 0) return i;
    return SMC_NONE;
}

/* Whether todo[at] is self or one of the indexes that led to it: listing it again is a cycle. */
static bool leads_to(const pending *todo, size_t self, size_t at)
{
    for (size_t i = self; i != SMC_NONE; i = todo[i].parent)
        if (i == at) return true;
    return false;
}

/* The image manifests one index (iname: todo[self], or index.json) lists, into found, and the
 * indexes it nests, into todo; at most ENTRIES_MAX of its entries are read. A cycle of indexes
 * and one nested too deep are errors that name them (*said), not an index that lists nothing. */
static smc_status collect_one(image *im, const cJSON *index, const char *iname, size_t self,
                              int depth, cJSON *found, pending **todo, size_t *nt, bool *said)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(index, "manifests"), *m;
    if (!cJSON_IsArray(list)) list = NULL;
    int count = 0;
    cJSON_ArrayForEach(m, list)
    {
        if (++count > ENTRIES_MAX)
            return smc_input_add_error(im->part, im->path,
                                       "%s: an index of more than %d manifests: the rest are not "
                                       "read",
                                       iname, ENTRIES_MAX);
        const char *mt = str_of(m, "mediaType"), *digest = str_of(m, "digest");
        if (!digest) continue;
        bool nested = mt && (strstr(mt, "image.index") || strstr(mt, "manifest.list"));
        if (nested) {
            char *name = blob_name(digest);
            size_t there = name ? queued(*todo, *nt, name) : SMC_NONE;
            smc_status st = SMC_OK;
            if (!name) {
                st = smc_input_add_error(im->part, im->path,
                                         "%s: a digest that names no blob: %.80s", iname, digest);
            } else if (there != SMC_NONE && leads_to(*todo, self, there)) {
                *said = true;
                st = smc_input_add_error(im->part, im->path,
                                         there == self
                                             ? "%s lists itself as an index: a cycle, not read again"
                                             : "%s lists %s, an index that leads to it: a cycle, "
                                               "not read again",
                                         iname, name);
            } else if (depth >= DEPTH_MAX) {
                *said = true;
                st = smc_input_add_error(im->part, im->path,
                                         "%s: indexes nested deeper than %d: not read", iname,
                                         DEPTH_MAX);
            } else if (*nt <= BLOBS_MAX && there == SMC_NONE) { /* one past the cap, for
                                                                 * read_json to say it */
                pending *slot = smc_push(todo, *nt, sizeof *slot);
                if (!slot) {
                    free(name);
                    return SMC_ERR_NOMEM;
                }
                *slot = (pending){name, depth + 1, self};
                (*nt)++;
                name = NULL;
            }
            free(name);
            if (st != SMC_OK) return st;
            continue;
        }
        const cJSON *pl = cJSON_GetObjectItemCaseSensitive(m, "platform");
        const char *os = str_of(pl, "os"), *arch = str_of(pl, "architecture");
        char platform[96];
        snprintf(platform, sizeof platform, "%s/%s", os ? os : "", arch ? arch : "");
        if (os && strcmp(os, "unknown") == 0) continue; /* buildx's attestations */
        cJSON *one = cJSON_CreateObject();
        if (!one) return SMC_ERR_NOMEM;
        cJSON_AddStringToObject(one, "digest", digest);
        cJSON_AddStringToObject(one, "platform", pl ? platform : "");
        cJSON_AddItemToArray(found, one);
    }
    return SMC_OK;
}

/* Gathers the image manifests an index lists, through nested indexes, breadth first and one
 * index at a time, within the caps on depth, on each index's entries and on the documents read
 * (issue 26: 16 nested indexes a level, 4 levels deep, read 423 MiB from 48 KB). */
static smc_status collect(image *im, const cJSON *index, cJSON *found, bool *said)
{
    pending *todo = NULL;
    size_t nt = 0;
    smc_status st = collect_one(im, index, "index.json", SMC_NONE, 0, found, &todo, &nt, said);
    for (size_t i = 0; st == SMC_OK && i < nt; i++) {
        cJSON *inner = read_json(im, todo[i].name, false);
        if (inner)
            st = collect_one(im, inner, todo[i].name, i, todo[i].depth, found, &todo, &nt, said);
        cJSON_Delete(inner);
    }
    for (size_t i = 0; i < nt; i++)
        free(todo[i].name);
    free(todo);
    return st;
}

/* The layers (blob names, bottom first) and config of the image to read; 0 when none. */
static smc_status choose(image *im, char ***layers, size_t *nl, char **config)
{
    *layers = NULL;
    *nl = 0;
    *config = NULL;
    cJSON *index = read_json(im, "index.json", true);
    cJSON *manifest = NULL;
    smc_status st = SMC_OK;
    if (index) {
        cJSON *found = cJSON_CreateArray();
        if (!found) st = SMC_ERR_NOMEM;
        bool said = false; /* a cycle or a depth past the cap, named already */
        if (st == SMC_OK) st = collect(im, index, found, &said);
        char want[64];
        wanted_platform(im, want, sizeof want);
        const cJSON *pick = NULL, *c;
        size_t count = (size_t)cJSON_GetArraySize(found);
        cJSON_ArrayForEach(c, found)
        {
            const char *p = str_of(c, "platform");
            if ((p && strcmp(p, want) == 0) || (count == 1 && (!p || !*p))) {
                pick = c;
                break;
            }
        }
        if (!pick && count == 1) pick = found->child;
        if (st == SMC_OK && !pick && count) {
            char list[512] = "";
            cJSON_ArrayForEach(c, found)
            {
                size_t k = strlen(list);
                snprintf(list + k, sizeof list - k, "%s%s", k ? ", " : "", str_of(c, "platform"));
            }
            st = smc_input_add_error(im->part, im->path,
                                     "no image for %s in its index (it has %s): --platform "
                                     "chooses one",
                                     want, list);
        } else if (st == SMC_OK && pick) {
            char *name = blob_name(str_of(pick, "digest"));
            if (name) manifest = read_json(im, name, false);
            else st = smc_input_add_error(im->part, im->path, "a digest that names no blob");
            free(name);
        } else if (st == SMC_OK && !said) {
            st = smc_input_add_error(im->part, im->path, "index.json lists no image manifest");
        }
        cJSON_Delete(found);
        cJSON_Delete(index);
        if (st != SMC_OK || !manifest) return st;
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(manifest, "config"), *l;
        *config = blob_name(str_of(cfg, "digest"));
        const cJSON *ls = cJSON_GetObjectItemCaseSensitive(manifest, "layers");
        if (!cJSON_IsArray(ls)) ls = NULL;
        cJSON_ArrayForEach(l, ls)
        {
            char *name = blob_name(str_of(l, "digest"));
            char **slot = name ? smc_push(layers, *nl, sizeof *slot) : NULL;
            if (!slot) {
                free(name);
                st = name ? SMC_ERR_NOMEM
                          : smc_input_add_error(im->part, im->path,
                                                "a layer whose digest names no blob");
                if (st != SMC_OK) break;
                continue;
            }
            *slot = name;
            (*nl)++;
        }
        cJSON_Delete(manifest);
        return st;
    }
    /* docker save before 25: manifest.json, [{Config, RepoTags, Layers}] */
    cJSON *legacy = read_json(im, "manifest.json", true);
    const cJSON *first = cJSON_IsArray(legacy) ? legacy->child : NULL, *l;
    if (!first) {
        cJSON_Delete(legacy);
        return smc_input_add_error(im->part, im->path,
                                   "neither an OCI layout (index.json) nor a docker save "
                                   "(manifest.json): not an image");
    }
    if (cJSON_GetArraySize(legacy) > 1)
        st = smc_input_add_note(im->part, "%s: holds %d images: the first is read", im->path,
                                cJSON_GetArraySize(legacy));
    /* Its names are free text: only a relative path beneath the image, of a sane length. */
    const char *cfg = str_of(first, "Config");
    if (cfg && !legacy_name(cfg))
        st = smc_input_add_error(im->part, im->path,
                                 "manifest.json names a config outside the image (%.80s%s): not "
                                 "read", cfg, strlen(cfg) > 80 ? "..." : "");
    else if (cfg && !(*config = smc_strdup(cfg)))
        st = SMC_ERR_NOMEM;
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(first, "Layers");
    if (!cJSON_IsArray(ls)) ls = NULL;
    cJSON_ArrayForEach(l, ls)
    {
        if (!cJSON_IsString(l) || st != SMC_OK) continue;
        if (!legacy_name(l->valuestring)) {
            st = smc_input_add_error(im->part, im->path,
                                     "manifest.json names a layer outside the image (%.80s%s): "
                                     "not read",
                                     l->valuestring, strlen(l->valuestring) > 80 ? "..." : "");
            continue;
        }
        char **slot = smc_push(layers, *nl, sizeof *slot);
        if (!slot || !(*slot = smc_strdup(l->valuestring))) {
            st = SMC_ERR_NOMEM;
            break;
        }
        (*nl)++;
    }
    cJSON_Delete(legacy);
    return st;
}

/* What the config says about CUDA (NVIDIA_REQUIRE_CUDA, CUDA_VERSION), as notes. */
static smc_status read_config(image *im, const char *name)
{
    cJSON *cfg = name ? read_json(im, name, false) : NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cfg, "config");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(c, "Env"), *v;
    smc_status st = SMC_OK;
    if (!cJSON_IsArray(env)) env = NULL;
    cJSON_ArrayForEach(v, env)
    {
        if (!cJSON_IsString(v) || st != SMC_OK) continue;
        const char *s = v->valuestring;
        if (strncmp(s, "NVIDIA_REQUIRE_CUDA=", 20) == 0 && !im->part->require_cuda) {
            /* "cuda>=12.8 brand=tesla,driver>=535 ...": the first cuda>= is what is asked */
            const char *at = strstr(s + 20, "cuda>=");
            int asked = 0;
            if (at && smc_driver_parse_prefix(at + 6, &asked))
                im->part->require_cuda_version = asked;
            if (!(im->part->require_cuda = smc_strdup_clean(s))) st = SMC_ERR_NOMEM;
        }
        if (strncmp(s, "NVIDIA_REQUIRE_CUDA=", 20) == 0 || strncmp(s, "CUDA_VERSION=", 13) == 0) {
            char *clean = smc_strdup_clean(s);
            st = clean ? smc_input_add_note(im->part, "%s: the image's config says %.300s",
                                            im->path, clean)
                       : SMC_ERR_NOMEM;
            free(clean);
        }
    }
    cJSON_Delete(cfg);
    return st;
}

/* Copies a visible regular entry out and scans it under its path in the image. */
static smc_status scan_entry(image *im, struct archive *a, const char *path, const uint8_t *head,
                             size_t hlen)
{
    size_t before = im->fs->library_count;
    smc_status st;
    smc_entry_end end = smc_entry_scan(a, head, hlen, im->member_max, NULL, 0, im->tk, im->fs,
                                       path, im->opt, &st);
    int saved = errno;
    char *full = end == SMC_ENTRY_SCANNED ? NULL : smc_asprintf("%s!%s", im->path, path);
    if (end != SMC_ENTRY_SCANNED && !full) return SMC_ERR_NOMEM;
    if (end == SMC_ENTRY_UNREADABLE) { /* the layer can give nothing more: said once, here */
        im->unreadable = true;
        st = smc_input_add_error(im->part, full, "cannot be read: %s", why_of(im, a));
    }
    else if (end == SMC_ENTRY_CAPPED)
        st = smc_input_add_error(im->part, full, "larger than %llu bytes (--max-inflate): not read",
                                 (unsigned long long)im->member_max);
    else if (end == SMC_ENTRY_NO_COPY)
        st = smc_input_add_error(im->part, full, "cannot copy it to a temporary file: %s",
                                 strerror(saved));
    for (size_t i = before; st == SMC_OK && i < im->fs->library_count; i++)
        if (!(im->fs->libraries[i].layer = smc_strdup(im->layer))) st = SMC_ERR_NOMEM;
    free(full);
    return st;
}

/* Keeps a visible metadata file of the environment (RECORD, METADATA, conda-meta/x.json). */
static smc_status keep_meta(image *im, struct archive *a, const char *path, uint64_t size)
{
    if (size > META_CAP || im->meta_bytes >= META_ALL)
        return smc_input_add_error(im->part, im->path, "layer %s: %s: %s %u MiB: not read",
                                   im->layer, path,
                                   size > META_CAP ? "metadata over"
                                                   : "past the image's metadata in all,",
                                   size > META_CAP ? META_CAP >> 20 : META_ALL >> 20);
    char *data = malloc((size_t)size + 1);
    la_ssize_t got = data ? archive_read_data(a, data, (size_t)size) : -1;
    smc_memfile *slot = data ? smc_push(&im->meta, im->meta_count, sizeof *slot) : NULL;
    if (!slot || got < 0 || !(slot->path = smc_strdup(path))) {
        free(data);
        if (!data || got >= 0) return SMC_ERR_NOMEM;
        im->unreadable = true;
        return smc_input_add_error(im->part, im->path, "layer %s: %s: %s", im->layer, path,
                                   why_of(im, a));
    }
    data[got] = '\0';
    size_t len = (size_t)got;
    smc_status st = smc_env_compact(path, &data, &len);
    if (st != SMC_OK) {
        free(data);
        free(slot->path);
        return st;
    }
    slot->data = data;
    slot->len = len;
    im->meta_count++;
    im->meta_bytes += len;
    return SMC_OK;
}

/* A hard link whose target would lie outside the root. */
static bool link_escapes(const char *target)
{
    char *p = target ? entry_path(target) : NULL;
    bool out = target && !p;
    free(p);
    return out;
}

/* Remembers a visible hard link, path, to target: a pair of links (a link of the library at
 * target), or, when the layers above hide target, an orphan of this layer, whose bytes are
 * still path's. Takes target. */
static smc_status add_link(image *im, const char *path, char *target)
{
    bool orphan = hidden(im, target);
    char ***list = orphan ? &im->orphans : &im->hardlinks;
    size_t *n = orphan ? &im->orphan_count : &im->hardlink_count;
    char **slot = smc_push(list, *n, sizeof *slot);
    char **slot2 = slot ? smc_push(list, *n + 1, sizeof *slot2) : NULL;
    char *copy = slot2 ? smc_strdup(path) : NULL;
    if (!copy) {
        free(target);
        return SMC_ERR_NOMEM;
    }
    (*list)[*n] = copy;
    (*list)[*n + 1] = target;
    *n += 2;
    return SMC_OK;
}

/* A visible regular entry's bytes: kept when metadata, scanned when they look like a library. */
static smc_status read_entry(image *im, struct archive *a, struct archive_entry *e,
                             const char *path)
{
    uint64_t size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
    if (smc_env_wants(path)) return keep_meta(im, a, path, size);
    uint8_t head[4096];
    la_ssize_t got = archive_read_data(a, head, sizeof head);
    if (got > 0 && smc_finder_signature(head, (uint64_t)got))
        return scan_entry(im, a, path, head, (size_t)got);
    return SMC_OK;
}

/* A whiteout (.wh.NAME, or the opaque marker .wh..wh..opq) in directory dir. */
static smc_status whiteout(image *im, const char *dir, const char *base)
{
    if (strcmp(base, ".wh..wh..opq") == 0) return map_mark(&im->paths, dir, P_OPAQUE);
    if (!base[4])
        return smc_input_add_error(im->part, im->path, "layer %s: a whiteout of nothing: ignored",
                                   im->layer);
    char *target = smc_asprintf("%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", base + 4);
    smc_status st = target ? map_mark(&im->paths, target, P_WHITEOUT) : SMC_ERR_NOMEM;
    free(target);
    return st;
}

/* A visible entry at path. */
static smc_status visible(image *im, struct archive *a, struct archive_entry *e, const char *path)
{
    mode_t type = archive_entry_filetype(e);
    smc_status st = map_mark(&im->paths, path, type == AE_IFDIR ? P_SEEN : P_SEEN | P_NONDIR);
    int compat = 0;
    if (st == SMC_OK && type == AE_IFREG && strncmp(path, "/usr/local/cuda-", 16) == 0 &&
        strstr(path, "/compat/libcuda.so") && smc_driver_parse_prefix(path + 16, &compat)) {
        if (compat > im->part->compat_cuda) im->part->compat_cuda = compat;
        st = smc_input_add_note(im->part, "%s: %s: a CUDA %d.%d forward-compatibility "
                                          "package (it works on data-center GPUs and Jetson "
                                          "only)",
                                im->path, path, compat / 1000, compat % 1000 / 10);
    }
    const char *hl = archive_entry_hardlink(e);
    char *target = hl ? entry_path(hl) : NULL;
    if (st == SMC_OK && target) return add_link(im, path, target); /* the same file as its target */
    free(target);
    if (st == SMC_OK && type == AE_IFREG && !hl) st = read_entry(im, a, e, path);
    return st;
}

/* One entry of the layer being read. */
static smc_status entry(image *im, struct archive *a, struct archive_entry *e)
{
    const char *raw = archive_entry_pathname(e);
    char *path = raw ? entry_path(raw) : NULL;
    smc_status st = SMC_OK;
    if (raw && !path) {
        char *clean = smc_strdup_clean(raw);
        st = clean ? smc_input_add_error(im->part, im->path,
                                         "layer %s: an entry named %.200s would land outside "
                                         "the root: not read",
                                         im->layer, clean)
                   : SMC_ERR_NOMEM;
        free(clean);
        return st;
    }
    if (!path) return SMC_OK;
    const char *base = smc_base_name(path);
    char *dir = smc_strdup(path);
    if (!dir) {
        free(path);
        return SMC_ERR_NOMEM;
    }
    char *slash = strrchr(dir, '/');
    *(slash == dir ? slash + 1 : slash) = '\0'; /* "/usr/lib/x" -> "/usr/lib"; "/x" -> "/" */
    if (strncmp(base, ".wh.", 4) == 0) { /* whiteouts hide what the layers below hold */
        st = whiteout(im, dir, base);
    } else if (link_escapes(archive_entry_hardlink(e))) {
        char *clean = smc_strdup_clean(archive_entry_hardlink(e));
        st = clean ? smc_input_add_error(im->part, im->path,
                                         "layer %s: %s is a hard link to %.200s, outside the "
                                         "root: not followed",
                                         im->layer, path, clean)
                   : SMC_ERR_NOMEM;
        free(clean);
    } else if (strcmp(path, "/") != 0 && !hidden(im, path)) {
        st = visible(im, a, e, path);
    }
    free(dir);
    free(path);
    return st;
}

/* An open layer: its archive, over a file of the layout, a member of the tarball (indexed, or
 * found by reading from the start), or a kept member's bytes. */
typedef struct layer_src {
    struct archive *a, *o;
    ostream *s;
    int fd;
} layer_src;

static void layer_close(layer_src *l)
{
    if (l->a) archive_read_free(l->a);
    if (l->o) archive_read_free(l->o);
    ostream_close(l->s);
    if (l->fd >= 0) close(l->fd);
    *l = (layer_src){.fd = -1};
}

/* A member found by reading from the start, through to libarchive. */
static la_ssize_t outer_read(struct archive *a, void *ctx, const void **out)
{
    layer_src *l = ctx;
    size_t size;
    la_int64_t off;
    int rc = archive_read_data_block(l->o, out, &size, &off);
    if (rc == ARCHIVE_EOF) return 0;
    if (rc != ARCHIVE_OK) {
        archive_set_error(a, EIO, "%s", smc_archive_why(l->o));
        return -1;
    }
    return (la_ssize_t)size;
}

/* A member's bytes, plain, are passed over in place; never past its end. */
static la_int64_t member_skip(struct archive *a, void *ctx, la_int64_t request)
{
    ostream *s = ctx;
    if (request > 0 && (uint64_t)request > s->end - s->out) request = (la_int64_t)(s->end - s->out);
    return ostream_skip(a, ctx, request);
}

/* Opens layer name: *why says why it cannot be; *key names its bytes (two listings of the same
 * bytes have the same key: the layout's file, the tarball's member). */
static smc_status layer_open(image *im, const char *name, layer_src *l, char **key,
                             const char **why)
{
    *l = (layer_src){.fd = -1};
    *key = NULL;
    *why = NULL;
    if (!(l->a = reader(true))) return SMC_ERR_NOMEM;
    int rc = ARCHIVE_OK;
    if (im->dirfd >= 0) {
        struct stat sb;
        l->fd = smc_open_beneath(im->dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK, true);
        if (l->fd < 0) *why = smc_open_error(errno);
        else if (fstat(l->fd, &sb) == 0 &&
                 !(*key = smc_asprintf("%ju:%ju", (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino)))
            return SMC_ERR_NOMEM;
        if (l->fd >= 0) rc = archive_read_open_fd(l->a, l->fd, 256 << 10);
    } else if (im->indexed) {
        const member *m = lookup(im, name);
        if (!m) {
            *why = "no such member";
            return SMC_OK;
        }
        if (!(*key = smc_asprintf("@%ju", (uintmax_t)m->off))) return SMC_ERR_NOMEM;
        if (m->data) {
            rc = archive_read_open_memory(l->a, m->data, (size_t)m->size);
        } else {
            smc_status st = ostream_open(im, &l->s, m->off, m->off + m->size, &im->pt[m->point],
                                         false);
            if (st != SMC_OK) return st;
            rc = archive_read_open2(l->a, l->s, NULL, ostream_read, im->gz ? NULL : member_skip,
                                    NULL);
        }
    } else {
        int found = find_member(im, &l->o, name);
        if (found != 1) *why = found < 0 ? "the tarball cannot be read" : "no such member";
        else rc = archive_read_open(l->a, l, NULL, outer_read, NULL);
    }
    if (!*why && rc != ARCHIVE_OK) *why = smc_archive_why(l->a);
    return SMC_OK;
}

/* The entries of an open layer, within the caps on all layers' entries, bytes and paths. */
static smc_status layer_entries(image *im, const char *name, struct archive *a)
{
    struct archive_entry *e;
    int rc;
    smc_status st = SMC_OK;
    im->unreadable = false;
    while (st == SMC_OK && !im->stopped && !im->unreadable &&
           (rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        uint64_t size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
        im->total += size;
        bool members = ++im->members > im->members_max, bytes = im->total > im->total_max;
        if (members || bytes || im->paths.bytes > PATHS_ALL) {
            im->stopped = true;
            char cap[96];
            if (members)
                snprintf(cap, sizeof cap, "more than %llu entries (--max-members)",
                         (unsigned long long)im->members_max);
            else if (bytes)
                snprintf(cap, sizeof cap, "more than %llu bytes (--max-inflate-total)",
                         (unsigned long long)im->total_max);
            else
                snprintf(cap, sizeof cap, "more than %u MiB of paths", PATHS_ALL >> 20);
            return smc_input_add_error(im->part, im->path,
                                       "layer %s: with it the layers hold %s: the rest is not read",
                                       name, cap);
        }
        st = entry(im, a, e);
    }
    if (st == SMC_OK && !im->stopped && !im->unreadable && rc != ARCHIVE_EOF)
        st = smc_input_add_error(im->part, im->path, "layer %s: %s", name, why_of(im, a));
    return st;
}

typedef struct orphan {
    const char *link, *target;
    bool done;
} orphan;

static int by_target(const void *a, const void *b)
{
    const orphan *x = a, *y = b;
    int c = strcmp(x->target, y->target);
    return c ? c : strcmp(x->link, y->link);
}

/* The first orphan whose target is path, or NULL. */
static orphan *orphan_of(orphan *o, size_t n, const char *path)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(o[mid].target, path) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && strcmp(o[lo].target, path) == 0 ? &o[lo] : NULL;
}

/* Reads the layer again for the targets of its orphans: each is read under its first link's
 * name, and that link's twins are its links. */
static smc_status orphans_read(image *im, const char *name, orphan *o, size_t n)
{
    layer_src l;
    char *key;
    const char *why;
    smc_status st = layer_open(im, name, &l, &key, &why);
    free(key);
    if (st == SMC_OK && why)
        st = smc_input_add_error(im->part, im->path, "layer %s: %s", name, why);
    struct archive_entry *e;
    size_t left = n;
    im->unreadable = false;
    im->stream = l.s;
    while (st == SMC_OK && !why && left && !im->unreadable && !im->stopped &&
           archive_read_next_header(l.a, &e) == ARCHIVE_OK) {
        const char *raw = archive_entry_pathname(e);
        char *path = raw && archive_entry_filetype(e) == AE_IFREG && !archive_entry_hardlink(e)
                         ? entry_path(raw)
                         : NULL;
        orphan *at = path ? orphan_of(o, n, path) : NULL;
        free(path);
        if (!at || at->done) continue;
        for (orphan *k = at; k < o + n && strcmp(k->target, at->target) == 0; k++, left--)
            k->done = true;
        im->total += archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
        if (im->total > im->total_max) break; /* said by the next layer, or not needed */
        st = read_entry(im, l.a, e, at->link);
    }
    im->stream = NULL;
    layer_close(&l);
    return st;
}

/* Hard links of this layer whose target the layers above hide still hold its bytes (issue 26:
 * they vanished with it); reading the layer once more, only when there are any, finds them. */
static smc_status orphans_settle(image *im, const char *name)
{
    size_t n = im->orphan_count / 2;
    orphan *o = calloc(n ? n : 1, sizeof *o);
    smc_status st = o ? SMC_OK : SMC_ERR_NOMEM;
    if (st == SMC_OK) {
        for (size_t i = 0; i < n; i++)
            o[i] = (orphan){im->orphans[2 * i], im->orphans[2 * i + 1], false};
        qsort(o, n, sizeof *o, by_target);
        st = orphans_read(im, name, o, n);
    }
    for (size_t i = 1; st == SMC_OK && i < n; i++) { /* twins: links of the first */
        if (strcmp(o[i].target, o[i - 1].target) != 0) continue;
        size_t first = i - 1;
        while (first > 0 && strcmp(o[first - 1].target, o[i].target) == 0)
            first--;
        char *target = smc_strdup(o[first].link);
        st = target ? add_link(im, o[i].link, target) : SMC_ERR_NOMEM;
    }
    free(o);
    for (size_t i = 0; i < im->orphan_count; i++)
        free(im->orphans[i]);
    im->orphan_count = 0;
    return st;
}

/* Whether key is in keys; else adds it. Takes key. */
static smc_status seen_before(char ***keys, size_t *n, char *key, bool *seen)
{
    *seen = false;
    for (size_t i = 0; key && i < *n && !*seen; i++)
        *seen = strcmp((*keys)[i], key) == 0;
    char **slot = key && !*seen ? smc_push(keys, *n, sizeof *slot) : NULL;
    if (slot) {
        *slot = key;
        (*n)++;
    } else {
        free(key);
    }
    return key && !*seen && !slot ? SMC_ERR_NOMEM : SMC_OK;
}

/* Reads a layer, unless the same layer (by name, or by its bytes) was read above it: that one
 * hides everything this one holds, and its whiteouts already hide what lies below, so the copy
 * below changes nothing (issue 26: each listing was inflated again). */
static smc_status read_layer(image *im, const char *name, char ***keys, size_t *nkeys,
                             size_t *repeats)
{
    bool seen;
    char *key = smc_asprintf("name:%s", name), *bytes;
    smc_status st = key ? seen_before(keys, nkeys, key, &seen) : SMC_ERR_NOMEM;
    if (st != SMC_OK || seen) {
        *repeats += seen;
        return st;
    }
    layer_src l;
    const char *why;
    st = layer_open(im, name, &l, &bytes, &why);
    if (st == SMC_OK) st = seen_before(keys, nkeys, bytes, &seen);
    if (st == SMC_OK && seen) ++*repeats;
    else if (st == SMC_OK && why)
        st = smc_input_add_error(im->part, im->path, "layer %s: %s", name, why);
    else if (st == SMC_OK) {
        im->stream = l.s;
        st = layer_entries(im, name, l.a);
        im->stream = NULL;
    }
    if (im->capped[0]) im->stopped = true; /* said by this layer: nothing more is read */
    layer_close(&l);
    if (st == SMC_OK && im->orphan_count) st = orphans_settle(im, name);
    map_settle(&im->paths); /* what this layer holds hides what the layers below hold */
    return st;
}

static int by_memfile(const void *a, const void *b)
{
    return strcmp(((const smc_memfile *)a)->path, ((const smc_memfile *)b)->path);
}

/* The filesystem read is an environment: libraries go to the distributions its metadata lists;
 * then everything moves into part under the image's name. */
static int by_library_path(const void *a, const void *b)
{
    return strcmp(((const smc_library *)a)->path, ((const smc_library *)b)->path);
}

static smc_status settle_fs(image *im)
{
    if (im->fs->library_count) /* in path order, as a walk of the same files lists them */
        qsort(im->fs->libraries, im->fs->library_count, sizeof *im->fs->libraries,
              by_library_path);
    if (im->meta_count) qsort(im->meta, im->meta_count, sizeof *im->meta, by_memfile);
    smc_env *env = NULL;
    smc_status st = smc_env_collect_files(im->fs, im->meta, im->meta_count, &env);
    if (st == SMC_OK) st = smc_env_attribute(im->fs, env);
    smc_env_free(env);
    smc_input *fs = im->fs, *part = im->part;
    for (size_t k = 0; st == SMC_OK && k + 1 < im->hardlink_count; k += 2)
        for (size_t i = 0; st == SMC_OK && i < fs->library_count; i++) {
            smc_library *lib = &fs->libraries[i];
            if (!im->hardlinks[k + 1] || strcmp(lib->path, im->hardlinks[k + 1]) != 0) continue;
            char **slot = smc_push(&lib->links, lib->link_count, sizeof *slot);
            if (!slot || !(*slot = smc_asprintf("%s!%s", im->path, im->hardlinks[k]))) {
                st = SMC_ERR_NOMEM;
                break;
            }
            lib->link_count++;
        }
    for (size_t i = 0; st == SMC_OK && i < fs->distribution_count; i++) {
        smc_distribution *d = &fs->distributions[i];
        char *loc = smc_asprintf("%s!%s", im->path, d->location ? d->location : "");
        if (!loc) st = SMC_ERR_NOMEM;
        free(d->location);
        d->location = loc;
    }
    for (size_t i = 0; st == SMC_OK && i < fs->library_count; i++) {
        smc_library *lib = &fs->libraries[i];
        char *p = smc_asprintf("%s!%s", im->path, lib->path);
        if (!p) st = SMC_ERR_NOMEM;
        free(lib->path);
        lib->path = p;
    }
    /* fs's errors are named by in-image path: they are part's, as libraries are. */
    size_t base = part->distribution_count;
    for (size_t i = 0; st == SMC_OK && i < fs->distribution_count; i++) {
        smc_distribution *slot = smc_push(&part->distributions, part->distribution_count, sizeof *slot);
        if (!slot) {
            st = SMC_ERR_NOMEM;
            break;
        }
        *slot = fs->distributions[i];
        fs->distributions[i] = (smc_distribution){0};
        part->distribution_count++;
    }
    for (size_t i = 0; st == SMC_OK && i < fs->library_count; i++) {
        smc_library *slot = smc_push(&part->libraries, part->library_count, sizeof *slot);
        if (!slot) {
            st = SMC_ERR_NOMEM;
            break;
        }
        *slot = fs->libraries[i];
        if (slot->distribution != SMC_NONE) slot->distribution += base;
        fs->libraries[i] = (smc_library){0};
        part->library_count++;
    }
    for (size_t i = 0; st == SMC_OK && i < fs->runtime_count; i++) {
        smc_runtime_file *f = &fs->runtime[i];
        char *p = smc_asprintf("%s!%s", im->path, f->path);
        st = p ? smc_input_add_runtime(part, p, f->kind, f->cuda) : SMC_ERR_NOMEM;
        if (st == SMC_OK && f->distribution != SMC_NONE)
            part->runtime[part->runtime_count - 1].distribution = f->distribution + base;
        free(p);
    }
    size_t plen = strlen(im->path);
    for (size_t i = 0; st == SMC_OK && i < fs->error_count; i++) {
        const char *p = fs->errors[i].path; /* a path in the image (its metadata's) is named so */
        bool named = strncmp(p, im->path, plen) == 0 && p[plen] == '!';
        char *full = named ? NULL : smc_asprintf("%s!%s", im->path, p);
        const char *at = named ? p : full;
        st = at ? smc_input_add_error(part, at, "%s", fs->errors[i].message) : SMC_ERR_NOMEM;
        free(full);
    }
    part->files += fs->files;
    return st;
}

static void image_free(image *im, char **layers, size_t nl, char *config, char **keys,
                       size_t nkeys)
{
    for (size_t i = 0; i < nl; i++)
        free(layers[i]);
    free(layers);
    free(config);
    for (size_t i = 0; i < nkeys; i++)
        free(keys[i]);
    free(keys);
    for (size_t i = 0; i < im->meta_count; i++) {
        free(im->meta[i].path);
        free(im->meta[i].data);
    }
    free(im->meta);
    for (size_t i = 0; i < im->hardlink_count; i++)
        free(im->hardlinks[i]);
    free(im->hardlinks);
    for (size_t i = 0; i < im->orphan_count; i++)
        free(im->orphans[i]);
    free(im->orphans);
    for (size_t i = 0; i < im->mn; i++) {
        free(im->m[i].name);
        free(im->m[i].data);
    }
    free(im->m);
    for (size_t i = 0; i < im->npt; i++)
        free(im->pt[i].window);
    free(im->pt);
    map_free(&im->paths);
    smc_input_free(im->fs);
}

smc_status smc_image_scan(smc_input *part, const char *path, int dirfd, int tarfd,
                          const smc_options *opt, const smc_ticker *tk)
{
    image im = {.part = part,
                .fs = smc_input_new(path, SMC_INPUT_ENVIRONMENT),
                .path = path,
                .opt = opt,
                .tk = tk,
                .dirfd = dirfd,
                .tarfd = tarfd,
                .member_max =
                    smc_limit(opt ? opt->max_member_bytes : 0, SMC_DEFAULT_MEMBER_BYTES),
                .total_max = smc_limit(opt ? opt->max_input_bytes : 0, SMC_DEFAULT_INPUT_BYTES),
                .members_max = smc_limit(opt ? opt->max_members : 0, SMC_DEFAULT_MEMBERS)};
    if (!im.fs) return SMC_ERR_NOMEM;
    char **layers = NULL, *config = NULL, **keys = NULL;
    size_t nl = 0, nkeys = 0, repeats = 0;
    smc_status st = tarfd >= 0 ? index_tarball(&im) : SMC_OK;
    im.stopped = im.capped[0] != '\0'; /* said: the tarball is not read further */
    if (st == SMC_OK && !im.stopped) st = choose(&im, &layers, &nl, &config);
    if (st == SMC_OK && nl > LAYERS_MAX)
        st = smc_input_add_error(part, path, "%zu layers: more than %d, not read", nl, LAYERS_MAX);
    else if (st == SMC_OK && config)
        st = read_config(&im, config);
    for (size_t i = nl; st == SMC_OK && nl <= LAYERS_MAX && i-- > 0 && !im.stopped;) {
        im.layer = layers[i]; /* from the top layer down */
        st = read_layer(&im, layers[i], &keys, &nkeys, &repeats);
    }
    if (st == SMC_OK) st = settle_fs(&im);
    if (st == SMC_OK && nl)
        st = smc_input_add_note(part, "%s: an image of %zu layer%s, read from the top down", path,
                                nl, nl == 1 ? "" : "s");
    if (st == SMC_OK && repeats)
        st = smc_input_add_note(part,
                                "%s: %zu of its layer listings repeat a layer listed above them: "
                                "read once, at the top (a copy below changes nothing)",
                                path, repeats);
    image_free(&im, layers, nl, config, keys, nkeys);
    return st;
}

bool smc_image_dir(int dirfd)
{
    struct stat sb;
    return fstatat(dirfd, "oci-layout", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
           fstatat(dirfd, "index.json", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode);
}

bool smc_image_tar(int fd, const char *path)
{
    uint8_t magic[6], head[4];
    if (pread(fd, magic, sizeof magic, 257) == (ssize_t)sizeof magic &&
        memcmp(magic, "ustar", 5) == 0)
        return true;
    /* A compressed tarball named so (`docker save | gzip > image.tar.gz`). */
    bool named = smc_ends_with(path, ".tar.gz") || smc_ends_with(path, ".tgz") ||
                 smc_ends_with(path, ".tar.zst");
    return named && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
           ((head[0] == 0x1f && head[1] == 0x8b) || memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0);
}
