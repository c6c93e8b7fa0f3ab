/* image_tar.c: a container image's tarball, indexed in one pass (its small members kept, where
 * each other one starts, and for gzip a place to start inflating near it), so that no member is
 * looked for by reading it again from the start; and the members' bytes and JSON read from it or
 * from a layout directory. */
#include "image_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "./usr/lib/x" -> "/usr/lib/x", lexically; NULL for one that climbs out of the root. */
char *img_entry_path(const char *name)
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
bool img_legacy_name(const char *name)
{
    return name && *name && strlen(name) <= 1024 && smc_path_beneath(name);
}

/* A digest that can name a blob: "sha256:" and lower-case hex (or another algorithm of [a-z0-9]
 * and an encoded part of [a-zA-Z0-9=_-]), as blobs/ALG/HEX. NULL when it cannot. */
char *img_blob_name(const char *digest)
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

struct archive *img_reader(bool filters)
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

/* The last 32 KiB made, oldest first (the window is a ring, wpos where the next byte goes). */
static void window_copy(const ostream *s, size_t wpos, unsigned char *to)
{
    memcpy(to, s->win + wpos, WIN - wpos);
    memcpy(to + (WIN - wpos), s->win, wpos);
}

smc_status img_ostream_open(image *im, ostream **out, uint64_t start, uint64_t end, const point *at,
                            bool indexing)
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
    if (at->bits && pread(im->tarfd, &byte, 1, (off_t)at->in - 1) != 1)
        s->err = "cannot be read";
    else if (at->bits)
        inflatePrime(&s->z, at->bits, byte >> (8 - at->bits));
    inflateSetDictionary(&s->z, at->window, WIN);
    return SMC_OK;
}

void img_ostream_close(ostream *s)
{
    if (s && s->zinit) inflateEnd(&s->z);
    free(s);
}

/* Why reading failed: the tarball's reason when its bytes failed (libarchive words that as a
 * truncation of its own), else libarchive's. */
const char *img_why_of(const image *im, struct archive *a)
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
    *p = (point){.in = s->in_off - s->z.avail_in,
                 .out = s->out,
                 .bits = s->z.data_type & 7,
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

la_ssize_t img_ostream_read(struct archive *a, void *ctx, const void **buf)
{
    ostream *s = ctx;
    la_ssize_t got = ostream_next(s, buf);
    if (got < 0) archive_set_error(a, EIO, "%s", s->err ? s->err : "cannot be read");
    return got;
}

/* A plain tarball's members are passed over in place. */
la_int64_t img_ostream_skip(struct archive *a, void *ctx, la_int64_t request)
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
    if (!best || best->out < im->pt[im->npt - 1].out + SPAN || im->npt >= POINTS_MAX) return SMC_OK;
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
    *m = (member){
        .name = smc_strdup(name), .off = (uint64_t)archive_filter_bytes(a, 0), .size = size};
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
smc_status img_index_tarball(image *im)
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
    struct archive *a = img_reader(false);
    smc_status st = a ? img_ostream_open(im, &s, 0, UINT64_MAX, NULL, true) : SMC_ERR_NOMEM;
    int rc = ARCHIVE_FATAL;
    if (st == SMC_OK)
        rc = archive_read_open2(a, s, NULL, img_ostream_read, im->gz ? NULL : img_ostream_skip,
                                NULL);
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
                                 im->mn ? im->m[im->mn - 1].name : "its start", img_why_of(im, a));
    im->stream = NULL;
    if (a) archive_read_free(a);
    img_ostream_close(s);
    if (im->mn) qsort(im->m, im->mn, sizeof *im->m, by_member);
    im->indexed = true;
    return st;
}

/* The first member of the index named name, or NULL. */
const member *img_lookup(const image *im, const char *name)
{
    size_t lo = 0, hi = im->mn;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(im->m[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < im->mn && strcmp(im->m[lo].name, name) == 0 ? &im->m[lo] : NULL;
}

/* Positions an archive over the tarball at member name: 1 there, 0 not found, -1 broken. Only
 * for a tarball that cannot be indexed (zstd): it is read from the start each time. */
int img_find_member(image *im, struct archive **out, const char *name)
{
    *out = NULL;
    if (lseek(im->tarfd, 0, SEEK_SET) != 0) return -1;
    struct archive *a = img_reader(true);
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
char *img_member_bytes(image *im, const member *m, size_t *len, const char **why)
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
        if (img_ostream_open(im, &s, m->off, m->off + m->size, &im->pt[m->point], false) !=
            SMC_OK) {
            img_ostream_close(s);
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
        img_ostream_close(s);
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
    int rc = img_find_member(im, &a, name);
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
char *img_read_file(image *im, const char *name, size_t *len, bool quiet)
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
        const member *m = img_lookup(im, name);
        why = m ? NULL : "no such member";
        buf = m ? img_member_bytes(im, m, len, &why) : NULL;
    }
    if (!buf && why && (!quiet || strcmp(why, "no such member") != 0))
        smc_input_add_error(im->part, im->path, "%s: %s", name, why);
    return buf;
}

/* A JSON document of the image, counted against the caps on all of them (BLOBS_MAX, JSON_ALL):
 * past them one error says which, and nothing more is read. */
cJSON *img_read_json(image *im, const char *name, bool quiet)
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
    char *text = img_read_file(im, name, &len, quiet);
    if (text) {
        im->blobs++;
        im->json_bytes += len;
    }
    cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
    if (text && !j) smc_input_add_error(im->part, im->path, "%s: not JSON", name);
    free(text);
    return j;
}
