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
 * is an error, links are never followed. */
#include "finder.h"
#include "rules.h"
#include "walk.h"
#include "archive.h"
#include "env.h"

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

#define JSON_CAP (4u << 20)    /* index.json, manifests, configs */
#define META_CAP (16u << 20)   /* one metadata file of the environment */
#define META_ALL (256u << 20)  /* all of them */
#define DEPTH_MAX 4            /* nested indexes */
#define LAYERS_MAX 1024

/* What the layers above have said about paths: a sorted set per kind. */
typedef struct pathset {
    char **v;
    size_t n;
} pathset;

typedef struct image {
    smc_input *part, *fs; /* fs: the libraries under their paths in the image */
    const char *path;
    const smc_options *opt;
    const smc_ticker *tk;
    int dirfd, tarfd;     /* the layout directory, or the tarball */
    uint64_t total, total_max, member_max, members, members_max;
    pathset seen, nondir, whiteout, opaque; /* of the layers above the one being read */
    pathset l_seen, l_nondir, l_whiteout, l_opaque; /* of that layer */
    smc_memfile *meta;
    size_t meta_count;
    uint64_t meta_bytes;
    const char *layer; /* the digest of the layer being read */
    bool stopped;
    char **hardlinks; /* visible hard links: pairs of (its path, its target's path) */
    size_t hardlink_count;
} image;

static void set_free(pathset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    *s = (pathset){0};
}

static int by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool set_has(const pathset *s, const char *p)
{
    return s->n && bsearch(&p, s->v, s->n, sizeof *s->v, by_str) != NULL;
}

static smc_status set_add(pathset *s, const char *p)
{
    char **slot = smc_push(&s->v, s->n, sizeof *slot);
    if (!slot || !(*slot = smc_strdup(p))) return SMC_ERR_NOMEM;
    s->n++;
    return SMC_OK;
}

/* Moves a layer's set into the set of the layers above the next one. */
static smc_status set_merge(pathset *into, pathset *from)
{
    for (size_t i = 0; i < from->n; i++) {
        char **slot = smc_push(&into->v, into->n, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = from->v[i];
        into->n++;
    }
    free(from->v);
    *from = (pathset){0};
    if (into->n) qsort(into->v, into->n, sizeof *into->v, by_str);
    return SMC_OK;
}

/* Whether the layers above hide an entry at path ("/usr/lib/x.so"). */
static bool hidden(const image *im, const char *path)
{
    if (set_has(&im->seen, path) || set_has(&im->whiteout, path)) return true;
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    for (char *slash = strrchr(buf, '/'); slash && slash > buf; slash = strrchr(buf, '/')) {
        *slash = '\0'; /* each directory above it */
        if (set_has(&im->whiteout, buf) || set_has(&im->opaque, buf) ||
            set_has(&im->nondir, buf))
            return true;
    }
    return set_has(&im->opaque, "/") || set_has(&im->opaque, "");
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

/* Positions an archive over the tarball at member name: 1 there, 0 not found, -1 broken. */
static int find_member(image *im, struct archive **out, const char *name)
{
    *out = NULL;
    if (lseek(im->tarfd, 0, SEEK_SET) != 0) return -1;
    struct archive *a = reader(true); /* `docker save | gzip` is a tarball too */
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
    struct archive *a;
    int rc = find_member(im, &a, name);
    if (rc != 1) {
        if (rc < 0 || !quiet)
            smc_input_add_error(im->part, im->path, "%s: %s", name,
                                rc < 0 ? "the tarball cannot be read" : "no such member");
        return NULL;
    }
    size_t cap = 1 << 12;
    buf = malloc(cap + 1);
    la_ssize_t got;
    while (buf && (got = archive_read_data(a, buf + *len, cap - *len)) > 0) {
        *len += (size_t)got;
        if (*len == cap) {
            if (cap >= JSON_CAP) {
                smc_input_add_error(im->part, im->path, "%s: over %u MiB: not read", name,
                                    JSON_CAP >> 20);
                free(buf);
                buf = NULL;
                break;
            }
            char *grown = realloc(buf, cap * 2 + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    if (buf) buf[*len] = '\0';
    archive_read_free(a);
    return buf;
}

static cJSON *read_json(image *im, const char *name, bool quiet)
{
    size_t len;
    char *text = read_file(im, name, &len, quiet);
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

/* Gathers the image manifests an index lists (through nested indexes) with their platforms. */
static smc_status collect(image *im, const cJSON *index, int depth, cJSON *found)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(index, "manifests"), *m;
    if (!cJSON_IsArray(list)) list = NULL;
    cJSON_ArrayForEach(m, list)
    {
        const char *mt = str_of(m, "mediaType"), *digest = str_of(m, "digest");
        if (!digest) continue;
        bool nested = mt && (strstr(mt, "image.index") || strstr(mt, "manifest.list"));
        if (nested) {
            char *name = blob_name(digest);
            if (!name) {
                smc_input_add_error(im->part, im->path, "a digest that names no blob: %.80s",
                                    digest);
                continue;
            }
            if (depth >= DEPTH_MAX) {
                free(name);
                smc_input_add_error(im->part, im->path,
                                    "indexes nested deeper than %d: not read", DEPTH_MAX);
                continue;
            }
            cJSON *inner = read_json(im, name, false);
            free(name);
            if (inner) collect(im, inner, depth + 1, found);
            cJSON_Delete(inner);
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
        if (st == SMC_OK) st = collect(im, index, 0, found);
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
        } else if (st == SMC_OK) {
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
    if (end == SMC_ENTRY_UNREADABLE)
        st = smc_input_add_error(im->part, full, "cannot be read: %s", archive_error_string(a));
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
    if (size > META_CAP || im->meta_bytes + size > META_ALL)
        return smc_input_add_error(im->part, im->path, "%s: metadata past the caps: not read",
                                   path);
    char *data = malloc((size_t)size + 1);
    la_ssize_t got = data ? archive_read_data(a, data, (size_t)size) : -1;
    smc_memfile *slot = data ? smc_push(&im->meta, im->meta_count, sizeof *slot) : NULL;
    if (!slot || got < 0 || !(slot->path = smc_strdup(path))) {
        free(data);
        return data && got < 0 ? smc_input_add_error(im->part, im->path, "%s: %s", path,
                                                      archive_error_string(a))
                               : SMC_ERR_NOMEM;
    }
    data[got] = '\0';
    slot->data = data;
    slot->len = (size_t)got;
    im->meta_count++;
    im->meta_bytes += (uint64_t)got;
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
        if (strcmp(base, ".wh..wh..opq") == 0) {
            st = set_add(&im->l_opaque, dir);
        } else if (!base[4]) {
            st = smc_input_add_error(im->part, im->path, "layer %s: a whiteout of nothing: ignored",
                                     im->layer);
        } else {
            char *target = smc_asprintf("%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", base + 4);
            st = target ? set_add(&im->l_whiteout, target) : SMC_ERR_NOMEM;
            free(target);
        }
    } else if (link_escapes(archive_entry_hardlink(e))) {
        char *clean = smc_strdup_clean(archive_entry_hardlink(e));
        st = clean ? smc_input_add_error(im->part, im->path,
                                         "layer %s: %s is a hard link to %.200s, outside the "
                                         "root: not followed",
                                         im->layer, path, clean)
                   : SMC_ERR_NOMEM;
        free(clean);
    } else if (strcmp(path, "/") != 0 && !hidden(im, path)) {
        mode_t type = archive_entry_filetype(e);
        st = set_add(&im->l_seen, path);
        if (st == SMC_OK && type != AE_IFDIR) st = set_add(&im->l_nondir, path);
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
        if (st == SMC_OK && target) { /* the same file as its target: reported as a link */
            char **slot = smc_push(&im->hardlinks, im->hardlink_count, sizeof *slot);
            char **slot2 = slot ? smc_push(&im->hardlinks, im->hardlink_count + 1, sizeof *slot2)
                                : NULL;
            if (!slot2) {
                st = SMC_ERR_NOMEM;
            } else {
                im->hardlinks[im->hardlink_count] = smc_strdup(path);
                im->hardlinks[im->hardlink_count + 1] = target;
                target = NULL;
                im->hardlink_count += 2;
                if (!im->hardlinks[im->hardlink_count - 2]) st = SMC_ERR_NOMEM;
            }
        }
        free(target);
        if (st == SMC_OK && type == AE_IFREG && !hl) {
            uint64_t size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
            if (smc_env_wants(path)) {
                st = keep_meta(im, a, path, size);
            } else {
                uint8_t head[4096];
                la_ssize_t got = archive_read_data(a, head, sizeof head);
                if (got > 0 && smc_finder_signature(head, (uint64_t)got))
                    st = scan_entry(im, a, path, head, (size_t)got);
            }
        }
    }
    free(dir);
    free(path);
    return st;
}

/* A layer blob, as an archive over the tarball member or the layout's file. */
typedef struct outer {
    struct archive *a;
} outer;

static la_ssize_t outer_read(struct archive *a, void *ctx, const void **out)
{
    outer *o = ctx;
    size_t size;
    la_int64_t off;
    int rc = archive_read_data_block(o->a, out, &size, &off);
    if (rc == ARCHIVE_EOF) return 0;
    if (rc != ARCHIVE_OK) {
        archive_set_error(a, EIO, "%s", archive_error_string(o->a));
        return -1;
    }
    return (la_ssize_t)size;
}

static smc_status read_layer(image *im, const char *name)
{
    struct archive *a = reader(true), *o = NULL;
    outer oc = {0};
    int fd = -1, rc = ARCHIVE_FATAL;
    smc_status st = a ? SMC_OK : SMC_ERR_NOMEM;
    const char *why = NULL; /* why it could not be opened */
    if (st == SMC_OK && im->dirfd >= 0) {
        fd = smc_open_beneath(im->dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK, true);
        if (fd < 0) why = smc_open_error(errno);
        else if ((rc = archive_read_open_fd(a, fd, 256 << 10)) != ARCHIVE_OK)
            why = archive_error_string(a);
    } else if (st == SMC_OK) {
        int found = find_member(im, &o, name);
        oc.a = o;
        if (found != 1) why = found < 0 ? "the tarball cannot be read" : "no such member";
        else if ((rc = archive_read_open(a, &oc, NULL, outer_read, NULL)) != ARCHIVE_OK)
            why = archive_error_string(a);
    }
    if (st == SMC_OK && rc != ARCHIVE_OK)
        st = smc_input_add_error(im->part, im->path, "layer %s: %s", name,
                                 why ? why : "cannot be opened");
    struct archive_entry *e;
    while (st == SMC_OK && rc == ARCHIVE_OK && !im->stopped &&
           (rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        uint64_t size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
        im->total += size;
        if (++im->members > im->members_max || im->total > im->total_max) {
            im->stopped = true;
            st = smc_input_add_error(im->part, im->path,
                                     "its layers hold more than %llu entries or %llu bytes: the "
                                     "rest is not read (--max-members, --max-inflate-total)",
                                     (unsigned long long)im->members_max,
                                     (unsigned long long)im->total_max);
            break;
        }
        st = entry(im, a, e);
    }
    if (st == SMC_OK && !im->stopped && rc != ARCHIVE_EOF && rc != ARCHIVE_OK)
        st = smc_input_add_error(im->part, im->path, "layer %s: %s", name, archive_error_string(a));
    if (a) archive_read_free(a);
    if (o) archive_read_free(o);
    if (fd >= 0) close(fd);
    /* What this layer holds hides what the layers below hold. */
    if (st == SMC_OK) st = set_merge(&im->seen, &im->l_seen);
    if (st == SMC_OK) st = set_merge(&im->nondir, &im->l_nondir);
    if (st == SMC_OK) st = set_merge(&im->whiteout, &im->l_whiteout);
    if (st == SMC_OK) st = set_merge(&im->opaque, &im->l_opaque);
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
    for (size_t i = 0; st == SMC_OK && i < fs->error_count; i++)
        st = smc_input_add_error(part, fs->errors[i].path, "%s", fs->errors[i].message);
    part->files += fs->files;
    return st;
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
    char **layers = NULL, *config = NULL;
    size_t nl = 0;
    smc_status st = choose(&im, &layers, &nl, &config);
    if (st == SMC_OK && nl > LAYERS_MAX)
        st = smc_input_add_error(part, path, "%zu layers: more than %d, not read", nl, LAYERS_MAX);
    else if (st == SMC_OK && config)
        st = read_config(&im, config);
    for (size_t i = nl; st == SMC_OK && nl <= LAYERS_MAX && i-- > 0 && !im.stopped;) {
        im.layer = layers[i]; /* from the top layer down */
        st = read_layer(&im, layers[i]);
    }
    if (st == SMC_OK) st = settle_fs(&im);
    if (st == SMC_OK && nl)
        st = smc_input_add_note(part, "%s: an image of %zu layer%s, read from the top down", path,
                                nl, nl == 1 ? "" : "s");
    for (size_t i = 0; i < nl; i++)
        free(layers[i]);
    free(layers);
    free(config);
    for (size_t i = 0; i < im.meta_count; i++) {
        free(im.meta[i].path);
        free(im.meta[i].data);
    }
    free(im.meta);
    for (size_t i = 0; i < im.hardlink_count; i++)
        free(im.hardlinks[i]);
    free(im.hardlinks);
    pathset *sets[] = {&im.seen, &im.nondir, &im.whiteout, &im.opaque,
                       &im.l_seen, &im.l_nondir, &im.l_whiteout, &im.l_opaque};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        set_free(sets[i]);
    smc_input_free(im.fs);
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
