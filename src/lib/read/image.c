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
#include "image_private.h"

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

/* Copies a visible regular entry out and scans it under its path in the image. */
static smc_status scan_entry(image *im, struct archive *a, const char *path, const uint8_t *head,
                             size_t hlen)
{
    size_t before = im->fs->library_count;
    smc_status st;
    smc_entry_end end =
        smc_entry_scan(a, head, hlen, im->member_max, NULL, 0, im->tk, im->fs, path, im->opt, &st);
    int saved = errno;
    char *full = end == SMC_ENTRY_SCANNED ? NULL : smc_asprintf("%s!%s", im->path, path);
    if (end != SMC_ENTRY_SCANNED && !full) return SMC_ERR_NOMEM;
    if (end == SMC_ENTRY_UNREADABLE) { /* the layer can give nothing more: said once, here */
        im->unreadable = true;
        st = smc_input_add_error(im->part, full, "cannot be read: %s", img_why_of(im, a));
    } else if (end == SMC_ENTRY_CAPPED)
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
        return smc_input_add_error(
            im->part, im->path, "layer %s: %s: %s %u MiB: not read", im->layer, path,
            size > META_CAP ? "metadata over" : "past the image's metadata in all,",
            size > META_CAP ? META_CAP >> 20 : META_ALL >> 20);
    char *data = malloc((size_t)size + 1);
    la_ssize_t got = data ? archive_read_data(a, data, (size_t)size) : -1;
    smc_memfile *slot = data ? smc_push(&im->meta, im->meta_count, sizeof *slot) : NULL;
    if (!slot || got < 0 || !(slot->path = smc_strdup(path))) {
        free(data);
        if (!data || got >= 0) return SMC_ERR_NOMEM;
        im->unreadable = true;
        return smc_input_add_error(im->part, im->path, "layer %s: %s: %s", im->layer, path,
                                   img_why_of(im, a));
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
    char *p = target ? img_entry_path(target) : NULL;
    bool out = target && !p;
    free(p);
    return out;
}

/* Remembers a visible hard link, path, to target: a pair of links (a link of the library at
 * target), or, when the layers above hide target, an orphan of this layer, whose bytes are
 * still path's. Takes target. */
static smc_status add_link(image *im, const char *path, char *target)
{
    bool orphan = img_hidden(im, target);
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
    if (strcmp(base, ".wh..wh..opq") == 0) return img_map_mark(&im->paths, dir, P_OPAQUE);
    if (!base[4])
        return smc_input_add_error(im->part, im->path, "layer %s: a whiteout of nothing: ignored",
                                   im->layer);
    char *target = smc_asprintf("%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", base + 4);
    smc_status st = target ? img_map_mark(&im->paths, target, P_WHITEOUT) : SMC_ERR_NOMEM;
    free(target);
    return st;
}

/* A visible entry at path. */
static smc_status visible(image *im, struct archive *a, struct archive_entry *e, const char *path)
{
    mode_t type = archive_entry_filetype(e);
    smc_status st = img_map_mark(&im->paths, path, type == AE_IFDIR ? P_SEEN : P_SEEN | P_NONDIR);
    int compat = 0;
    if (st == SMC_OK && type == AE_IFREG && strncmp(path, "/usr/local/cuda-", 16) == 0 &&
        strstr(path, "/compat/libcuda.so") && smc_driver_parse_prefix(path + 16, &compat)) {
        if (compat > im->part->compat_cuda) im->part->compat_cuda = compat;
        st = smc_input_add_note(im->part,
                                "%s: %s: a CUDA %d.%d forward-compatibility "
                                "package (it works on data-center GPUs and Jetson "
                                "only)",
                                im->path, path, compat / 1000, compat % 1000 / 10);
    }
    const char *hl = archive_entry_hardlink(e);
    char *target = hl ? img_entry_path(hl) : NULL;
    if (st == SMC_OK && target) return add_link(im, path, target); /* the same file as its target */
    free(target);
    if (st == SMC_OK && type == AE_IFREG && !hl) st = read_entry(im, a, e, path);
    return st;
}

/* One entry of the layer being read. */
static smc_status entry(image *im, struct archive *a, struct archive_entry *e)
{
    const char *raw = archive_entry_pathname(e);
    char *path = raw ? img_entry_path(raw) : NULL;
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
    if (strncmp(base, ".wh.", 4) == 0) {        /* whiteouts hide what the layers below hold */
        st = whiteout(im, dir, base);
    } else if (link_escapes(archive_entry_hardlink(e))) {
        char *clean = smc_strdup_clean(archive_entry_hardlink(e));
        st = clean ? smc_input_add_error(im->part, im->path,
                                         "layer %s: %s is a hard link to %.200s, outside the "
                                         "root: not followed",
                                         im->layer, path, clean)
                   : SMC_ERR_NOMEM;
        free(clean);
    } else if (strcmp(path, "/") != 0 && !img_hidden(im, path)) {
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
    img_ostream_close(l->s);
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
    return img_ostream_skip(a, ctx, request);
}

/* Opens layer name: *why says why it cannot be; *key names its bytes (two listings of the same
 * bytes have the same key: the layout's file, the tarball's member). */
static smc_status layer_open(image *im, const char *name, layer_src *l, char **key,
                             const char **why)
{
    *l = (layer_src){.fd = -1};
    *key = NULL;
    *why = NULL;
    if (!(l->a = img_reader(true))) return SMC_ERR_NOMEM;
    int rc = ARCHIVE_OK;
    if (im->dirfd >= 0) {
        struct stat sb;
        l->fd = smc_open_beneath(im->dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK, true);
        if (l->fd < 0)
            *why = smc_open_error(errno);
        else if (fstat(l->fd, &sb) == 0 &&
                 !(*key = smc_asprintf("%ju:%ju", (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino)))
            return SMC_ERR_NOMEM;
        if (l->fd >= 0) rc = archive_read_open_fd(l->a, l->fd, 256 << 10);
    } else if (im->indexed) {
        const member *m = img_lookup(im, name);
        if (!m) {
            *why = "no such member";
            return SMC_OK;
        }
        if (!(*key = smc_asprintf("@%ju", (uintmax_t)m->off))) return SMC_ERR_NOMEM;
        if (m->data) {
            rc = archive_read_open_memory(l->a, m->data, (size_t)m->size);
        } else {
            smc_status st =
                img_ostream_open(im, &l->s, m->off, m->off + m->size, &im->pt[m->point], false);
            if (st != SMC_OK) return st;
            rc = archive_read_open2(l->a, l->s, NULL, img_ostream_read, im->gz ? NULL : member_skip,
                                    NULL);
        }
    } else {
        int found = img_find_member(im, &l->o, name);
        if (found != 1)
            *why = found < 0 ? "the tarball cannot be read" : "no such member";
        else
            rc = archive_read_open(l->a, l, NULL, outer_read, NULL);
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
        st = smc_input_add_error(im->part, im->path, "layer %s: %s", name, img_why_of(im, a));
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
        if (strcmp(o[mid].target, path) < 0)
            lo = mid + 1;
        else
            hi = mid;
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
                         ? img_entry_path(raw)
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
    if (st == SMC_OK && seen)
        ++*repeats;
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
    img_map_settle(&im->paths); /* what this layer holds hides what the layers below hold */
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
        qsort(im->fs->libraries, im->fs->library_count, sizeof *im->fs->libraries, by_library_path);
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
        smc_distribution *slot =
            smc_push(&part->distributions, part->distribution_count, sizeof *slot);
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

static void image_free(image *im, char **layers, size_t nl, char *config, char **keys, size_t nkeys)
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
    img_map_free(&im->paths);
    smc_input_free(im->fs);
}

smc_status smc_image_scan(smc_input *part, const char *path, int dirfd, int tarfd,
                          const smc_options *opt, const smc_ticker *tk)
{
    smc_limits lim = smc_limits_of(opt);
    image im = {.part = part,
                .fs = smc_input_new(path, SMC_INPUT_ENVIRONMENT),
                .path = path,
                .opt = opt,
                .tk = tk,
                .dirfd = dirfd,
                .tarfd = tarfd,
                .member_max = lim.max_member_bytes,
                .total_max = lim.max_input_bytes,
                .members_max = lim.max_members};
    if (!im.fs) return SMC_ERR_NOMEM;
    char **layers = NULL, *config = NULL, **keys = NULL;
    size_t nl = 0, nkeys = 0, repeats = 0;
    smc_status st = tarfd >= 0 ? img_index_tarball(&im) : SMC_OK;
    im.stopped = im.capped[0] != '\0'; /* said: the tarball is not read further */
    if (st == SMC_OK && !im.stopped) st = img_choose(&im, &layers, &nl, &config);
    if (st == SMC_OK && nl > LAYERS_MAX)
        st = smc_input_add_error(part, path, "%zu layers: more than %d, not read", nl, LAYERS_MAX);
    else if (st == SMC_OK && config)
        st = img_read_config(&im, config);
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
