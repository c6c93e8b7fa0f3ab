/* conda.c: conda packages, read in place. A .tar.bz2 is one tar (libarchive); a .conda is a zip
 * (libzip) of info-*.tar.zst and pkg-*.tar.zst, each a tar that libarchive reads from the
 * member's stream. info/index.json gives the distribution (name, version, build, subdir,
 * depends: the CUDA it was built for from cuda-version or __cuda); info/paths.json the files it
 * installs. Every regular member whose first bytes are device code's is copied out and read as
 * the same file on disk would be (entry.c). Member names are untrusted: one that would land
 * outside the package's root is an error, never a path; links are not followed. */
#include "../find/find.h"
#include "read.h"

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zip.h>

#define META_CAP (16u << 20)    /* info/index.json, info/paths.json */
#define BLOCK (256u << 10)      /* bytes read from a zip member per call */

bool smc_conda_named(const char *path)
{
    return smc_ends_with(path, ".conda") || smc_ends_with(path, ".tar.bz2");
}

/* One package being read. */
typedef struct package {
    smc_input *part;
    const char *path;
    const smc_options *opt;
    const smc_ticker *tk;
    uint64_t members, inflated, member_max, input_max, members_max;
    char *index, *paths; /* the two metadata files, when met */
    size_t index_len, paths_len;
    size_t first_library, first_runtime;
    bool stopped; /* a cap was reached: said once, the rest not read */
    bool named;   /* the user named it (else a walk met it): no index is an error, not a note */
} package;

/* libarchive reading a zip member's stream. */
typedef struct zsource {
    zip_file_t *zf;
    uint8_t *buf;
} zsource;

static la_ssize_t zip_read(struct archive *a, void *ctx, const void **out)
{
    zsource *z = ctx;
    zip_int64_t got = zip_fread(z->zf, z->buf, BLOCK);
    if (got < 0) {
        archive_set_error(a, EIO, "%s", zip_file_strerror(z->zf));
        return -1;
    }
    *out = z->buf;
    return (la_ssize_t)got;
}

/* A member name that would land outside the package's root if extracted. */
static bool escapes(const char *name)
{
    if (name[0] == '/') return true;
    for (const char *p = name; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == name || p[-1] == '/') && (p[2] == '\0' || p[2] == '/')) return true;
    return false;
}

/* Reads the rest of the current entry into new memory (at most cap bytes, else NULL, *over). */
static char *read_small(struct archive *a, uint64_t cap, size_t *len, bool *over, bool *bad)
{
    size_t have = 0, room = 4096;
    char *buf = malloc(room + 1);
    *over = *bad = false;
    while (buf) {
        if (have == room) {
            if (room >= cap) {
                *over = true;
                break;
            }
            room = room * 2 < cap ? room * 2 : (size_t)cap;
            char *grown = realloc(buf, room + 1);
            if (!grown) break;
            buf = grown;
        }
        la_ssize_t got = archive_read_data(a, buf + have, room - have);
        if (got < 0) {
            *bad = true;
            break;
        }
        if (got == 0) {
            buf[have] = '\0';
            *len = have;
            return buf;
        }
        have += (size_t)got;
    }
    free(buf);
    return NULL;
}

/* Copies a member out and scans it; what keeps it from being read is said. */
static smc_status scan_member(package *pk, struct archive *a, const char *name, const uint8_t *head,
                              size_t hlen)
{
    char *full = smc_asprintf("%s!%s", pk->path, name);
    if (!full) return SMC_ERR_NOMEM;
    smc_status st;
    /* Its declared size is counted already (walk_tar); what it holds cannot be more. */
    switch (smc_entry_scan(a, head, hlen, pk->member_max, NULL, 0, pk->tk, pk->part, full, pk->opt,
                           &st)) {
    case SMC_ENTRY_UNREADABLE:
        st = smc_input_add_error(pk->part, full, "cannot be read: %s", smc_archive_why(a));
        break;
    case SMC_ENTRY_CAPPED:
        st = smc_input_add_error(pk->part, full,
                                 "inflates past %llu bytes (--max-inflate): not read",
                                 (unsigned long long)pk->member_max);
        break;
    case SMC_ENTRY_NO_COPY:
        st = smc_input_add_error(pk->part, full, "cannot copy it to a temporary file: %s",
                                 strerror(errno));
        break;
    case SMC_ENTRY_SCANNED:
        break;
    }
    free(full);
    return st;
}

/* Reads every entry of one tar stream. */
static smc_status walk_tar(package *pk, struct archive *a, const char *where)
{
    smc_status st = SMC_OK;
    struct archive_entry *e;
    int rc;
    while (st == SMC_OK && !pk->stopped && (rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (++pk->members > pk->members_max) {
            pk->stopped = true;
            return smc_input_add_error(pk->part, pk->path,
                                       "more than %llu members: the rest are not read "
                                       "(--max-members)",
                                       (unsigned long long)pk->members_max);
        }
        const char *name = archive_entry_pathname(e);
        if (!name) continue;
        if (strncmp(name, "./", 2) == 0) name += 2;
        if (escapes(name)) {
            char *clean = smc_strdup_clean(name);
            st = clean ? smc_input_add_error(pk->part, pk->path,
                                             "%s: a member named %s would land outside the "
                                             "package: not read",
                                             where, clean)
                       : SMC_ERR_NOMEM;
            free(clean);
            continue;
        }
        if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e)) continue;
        /* Reading an entry or skipping it inflates all it declares: both count, before either
         * (a skip is bounded by the total only: a large file before a library is honest). */
        uint64_t declared = archive_entry_size_is_set(e) && archive_entry_size(e) > 0
                                ? (uint64_t)archive_entry_size(e)
                                : 0;
        if (declared > pk->input_max - pk->inflated) {
            pk->stopped = true; /* the next entry lies past it: reached only by inflating it */
            char *full = smc_asprintf("%s!%s", pk->path, name);
            st = full ? smc_input_add_error(pk->part, full,
                                            "declares %llu bytes, which reading or skipping it "
                                            "would inflate, past the package's %llu in all "
                                            "(--max-inflate-total) after %llu: it and the rest of "
                                            "the package are not read",
                                            (unsigned long long)declared,
                                            (unsigned long long)pk->input_max,
                                            (unsigned long long)pk->inflated)
                      : SMC_ERR_NOMEM;
            free(full);
            break;
        }
        pk->inflated += declared;
        bool index = strcmp(name, "info/index.json") == 0;
        if (index || strcmp(name, "info/paths.json") == 0) {
            size_t len = 0;
            bool over, bad;
            char *text = read_small(a, META_CAP, &len, &over, &bad);
            if (!text && !over && !bad) return SMC_ERR_NOMEM;
            if (!text) {
                st = smc_input_add_error(pk->part, pk->path, "%s: %s", name,
                                         over ? "over the cap of 16 MiB for metadata: not read"
                                              : smc_archive_why(a));
                continue;
            }
            char **slot = index ? &pk->index : &pk->paths;
            free(*slot);
            *slot = text;
            *(index ? &pk->index_len : &pk->paths_len) = len;
            continue;
        }
        uint8_t head[4096];
        la_ssize_t got = archive_read_data(a, head, sizeof head);
        if (got < 0) {
            st = smc_input_add_error(pk->part, pk->path, "%s: %s", name, smc_archive_why(a));
            continue;
        }
        if (got > 0 && smc_finder_signature(head, (uint64_t)got))
            st = scan_member(pk, a, name, head, (size_t)got);
    }
    if (st == SMC_OK && !pk->stopped && rc != ARCHIVE_EOF && rc != ARCHIVE_OK)
        st = smc_input_add_error(pk->part, pk->path, "%s: %s", where, smc_archive_why(a));
    return st;
}

/* A tar reader for conda's compressions: bzip2 (.tar.bz2), Zstandard (.conda's members), and
 * gzip and xz where they appear. A libarchive built without one of them (it says ARCHIVE_WARN and
 * tries an external program, or fails) gives each package that needs it a read error that names
 * the package; the rest of the run goes on. NULL only when out of memory. */
static struct archive *tar_reader(void)
{
    struct archive *a = archive_read_new();
    if (!a) return NULL;
    archive_read_support_format_tar(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_xz(a);
    return a;
}

/* The version in a dependency spec: "cuda-version >=12.8,<13" gives "12.8". */
static char *spec_version(const char *spec)
{
    const char *p = spec;
    while (*p && !(*p >= '0' && *p <= '9'))
        p++;
    size_t n = 0;
    while ((p[n] >= '0' && p[n] <= '9') || (p[n] == '.' && p[n + 1] >= '0' && p[n + 1] <= '9'))
        n++;
    return n ? smc_asprintf("%.*s", (int)n, p) : NULL;
}

/* info/index.json's members, read by smc_json_members (a depends list of megabytes is read an
 * element at a time). */
static const char *const index_keys[] = {"name", "version", "build", "subdir", "depends", NULL};

typedef struct index_facts {
    smc_distribution *d;
    bool named, versioned;
} index_facts;

static smc_status index_member(void *ctx, int key, const cJSON *v, size_t index)
{
    index_facts *x = ctx;
    smc_distribution *d = x->d;
    if (!cJSON_IsString(v)) return SMC_OK;
    const char *s = v->valuestring;
    char **field[] = {&d->name, &d->version, &d->tag, &d->platform};
    if (key < 4 && index == SIZE_MAX) { /* the first of each */
        if (*field[key]) return SMC_OK;
        x->named |= key == 0;
        x->versioned |= key == 1;
        return (*field[key] = smc_strdup(s)) ? SMC_OK : SMC_ERR_NOMEM;
    }
    if (key != 4 || index == SIZE_MAX || d->cuda) return SMC_OK; /* depends: strings */
    bool cuda = strncmp(s, "cuda-version ", 13) == 0 || strncmp(s, "__cuda ", 7) == 0;
    char *ver = cuda ? spec_version(s) : NULL;
    if (!ver) return SMC_OK;
    d->cuda = ver;
    return (d->cuda_source = smc_asprintf("info/index.json depends: %s", s)) ? SMC_OK
                                                                              : SMC_ERR_NOMEM;
}

/* The distribution from info/index.json. */
static smc_status package_dist(package *pk, smc_distribution *d)
{
    index_facts x = {d, false, false};
    smc_status st = pk->index ? smc_json_members(pk->index, pk->index_len, index_keys, true,
                                                 index_member, &x)
                              : SMC_OK;
    if (st == SMC_ERR_NOMEM) return st;
    if (pk->index && (st != SMC_OK || !x.named || !x.versioned)) {
        smc_distribution_clear(d);
        *d = (smc_distribution){0};
        return smc_input_add_error(pk->part, pk->path,
                                   "info/index.json: not a package's index (name, version)");
    }
    if (!pk->index && pk->named)
        st = smc_input_add_error(pk->part, pk->path, "no info/index.json: not a conda package");
    else if (!pk->index) /* a tarball among the files of a directory: what it held is reported */
        st = smc_input_add_note(pk->part, "%s: no info/index.json: a tarball, not a conda package",
                                pk->path);
    if (st == SMC_OK && d->name && (!(d->source = smc_strdup("conda-package")) ||
                                    !(d->location = smc_strdup(pk->path))))
        st = SMC_ERR_NOMEM;
    return st;
}

/* info/paths.json's _path of each entry, an element at a time, into a list to be sorted. */
typedef struct path_list {
    char **v;
    size_t n;
    bool seen; /* an entry was met: the list says what the package holds */
} path_list;

static smc_status paths_member(void *ctx, int key, const cJSON *v, size_t index)
{
    path_list *l = ctx;
    (void)key;
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(v, "_path");
    if (index == SIZE_MAX) return SMC_OK;
    l->seen = true;
    if (!cJSON_IsString(at)) return SMC_OK;
    if (l->n >= SMC_ROWS_MAX) return SMC_ERR_LIMIT;
    char **slot = smc_push(&l->v, l->n, sizeof *slot);
    if (!slot || !(*slot = smc_strdup(at->valuestring))) return SMC_ERR_NOMEM;
    l->n++;
    return SMC_OK;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The package's libraries go to its distribution; what paths.json does not list is said. */
static smc_status attribute(package *pk)
{
    smc_input *in = pk->part;
    smc_distribution d = {0};
    smc_status st = package_dist(pk, &d);
    if (st != SMC_OK || !d.name) {
        smc_distribution_clear(&d);
        return st;
    }
    smc_distribution_sanitize(&d);
    smc_distribution *slot = smc_push(&in->distributions, in->distribution_count, sizeof *slot);
    if (!slot) {
        smc_distribution_clear(&d);
        return SMC_ERR_NOMEM;
    }
    *slot = d;
    size_t k = in->distribution_count++;
    static const char *const paths_keys[] = {"paths", NULL};
    path_list listed = {NULL, 0, false};
    smc_status ps = pk->paths ? smc_json_members(pk->paths, pk->paths_len, paths_keys, true,
                                                 paths_member, &listed)
                              : SMC_ERR_FORMAT;
    if (ps == SMC_ERR_NOMEM) st = ps;
    if (ps == SMC_ERR_LIMIT) /* the first ones are checked; a library past them is not */
        st = smc_input_add_error(in, pk->path, "info/paths.json lists more than %d files: "
                                 "the rest are not read", SMC_ROWS_MAX);
    bool check = pk->paths && (ps == SMC_OK || ps == SMC_ERR_LIMIT);
    if (listed.n > 1) qsort(listed.v, listed.n, sizeof *listed.v, by_path);
    size_t skip = strlen(pk->path) + 1; /* "pkg.conda!" */
    for (size_t i = pk->first_runtime; i < in->runtime_count; i++)
        in->runtime[i].distribution = k;
    for (size_t i = pk->first_library; i < in->library_count && st == SMC_OK; i++) {
        smc_library *lib = &in->libraries[i];
        lib->distribution = k;
        const char *member = strlen(lib->path) > skip ? lib->path + skip : NULL;
        if (check && ps == SMC_OK && listed.seen && member &&
            !bsearch(&member, listed.v, listed.n, sizeof *listed.v, by_path))
            st = smc_library_add_finding(lib, SMC_NO_OFFSET,
                                         "not in the package's info/paths.json");
    }
    for (size_t i = 0; i < listed.n; i++)
        free(listed.v[i]);
    free(listed.v);
    return st;
}

/* A .conda: its info-*.tar.zst first (the index), then its pkg-*.tar.zst. */
static smc_status read_conda(package *pk, int fd)
{
    int dup_fd = dup(fd), zerr = 0;
    zip_t *za = dup_fd >= 0 ? zip_fdopen(dup_fd, ZIP_RDONLY, &zerr) : NULL;
    if (!za) {
        if (dup_fd >= 0) close(dup_fd);
        return smc_input_add_error(pk->part, pk->path, "not a .conda package (a zip archive)");
    }
    zip_int64_t count = zip_get_num_entries(za, 0);
    smc_status st = SMC_OK;
    uint8_t *buf = malloc(BLOCK), *what = malloc(count > 0 ? (size_t)count : 1);
    smc_bytes bytes = {.fd = fd};
    const char *dir = buf && what ? smc_zip_members(&bytes, za, what) : NULL;
    if (!buf || !what)
        st = SMC_ERR_NOMEM;
    else if (dir)
        st = smc_input_add_error(pk->part, pk->path,
                                 "its members cannot be checked for overlaps (%s): not read", dir);
    for (int pass = 0; pass < 2 && st == SMC_OK && !dir; pass++) {
        const char *want = pass ? "pkg-" : "info-";
        for (zip_int64_t i = 0; i < count && st == SMC_OK && !pk->stopped; i++) {
            const char *name = zip_get_name(za, (zip_uint64_t)i, 0);
            if (!name || strncmp(name, want, strlen(want)) != 0 || !smc_ends_with(name, ".tar.zst"))
                continue;
            if (what[i] != SMC_ZIP_MEMBER_OK) {
                st = smc_input_add_error(pk->part, pk->path, "member %s %s", name,
                                         smc_zip_member_problem(what[i]));
                continue;
            }
            zsource z = {zip_fopen_index(za, (zip_uint64_t)i, 0), buf};
            struct archive *a = z.zf ? tar_reader() : NULL;
            if (!z.zf) {
                st = smc_input_add_error(pk->part, pk->path, "%s: %s", name, zip_strerror(za));
            } else if (!a) {
                st = SMC_ERR_NOMEM;
            } else if (archive_read_open(a, &z, NULL, zip_read, NULL) != ARCHIVE_OK) {
                st = smc_input_add_error(pk->part, pk->path, "%s: %s", name,
                                         smc_archive_why(a));
            } else {
                st = walk_tar(pk, a, name);
            }
            if (a) archive_read_free(a);
            if (z.zf) zip_fclose(z.zf);
        }
    }
    free(buf);
    free(what);
    zip_discard(za);
    return st;
}

smc_status smc_conda_scan(smc_input *part, const char *path, int fd, bool named,
                          const smc_options *opt, const smc_ticker *tk)
{
    smc_limits lim = smc_limits_of(opt);
    package pk = {.part = part,
                  .named = named,
                  .path = path,
                  .opt = opt,
                  .tk = tk,
                  .member_max = lim.max_member_bytes,
                  .input_max = lim.max_input_bytes,
                  .members_max = lim.max_members,
                  .first_library = part->library_count,
                  .first_runtime = part->runtime_count};
    part->files++;
    smc_status st;
    if (smc_ends_with(path, ".conda")) {
        st = read_conda(&pk, fd);
    } else {
        struct archive *a = tar_reader();
        if (!a) return SMC_ERR_NOMEM;
        if (archive_read_open_fd(a, fd, 64 << 10) != ARCHIVE_OK)
            st = smc_input_add_error(part, path, "%s", smc_archive_why(a));
        else
            st = walk_tar(&pk, a, "the tar stream");
        archive_read_free(a);
    }
    if (st == SMC_OK) st = attribute(&pk);
    free(pk.index);
    free(pk.paths);
    return st;
}
