/* env.c: Python environments. Among the files a directory walk found it recognises the metadata
 * of installed distributions (pip's *.dist-info/RECORD, setuptools' *.egg-info/installed-files.txt,
 * conda's conda-meta JSON), and after the scan it gives each library to the distribution that
 * lists it. It also finds the default environment when the user names none, without running
 * Python. Metadata is untrusted: files are read with a cap, paths are only compared, never
 * opened, and what a RECORD gets wrong about a library is reported. */
#include "read.h"
#include "../rules/rules.h"

#include <smcheck/builds.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define META_MAX (16u << 20)      /* one metadata file */
#define META_INPUT_MAX (256u << 20) /* all of one input's */
#define OWNERS_MAX 1000000          /* the files they list, in all */
#define OWNER_BYTES_MAX (32u << 20) /* those files' paths, in all */

typedef struct owner {
    char *path; /* normalised */
    size_t dist;
    int64_t size; /* as RECORD says, -1 unknown */
} owner;

struct smc_env {
    owner *owners;
    size_t n;
    uint64_t read;  /* metadata bytes read */
    uint64_t bytes; /* owners' paths kept */
    bool full;      /* a cap was reached: said once */
};

char *smc_path_normalize(const char *dir, const char *rel)
{
    /* Lexically: "a/./b//c/../d" is "a/b/d"; ".." above a relative start is kept. */
    char *joined = dir ? smc_asprintf("%s/%s", dir, rel) : smc_strdup(rel);
    size_t len = joined ? strlen(joined) : 0;
    char **parts = joined ? malloc((len / 2 + 1) * sizeof *parts) : NULL;
    char *out = parts ? malloc(len + 2) : NULL;
    if (!out) {
        free(joined);
        free(parts);
        return NULL;
    }
    bool absolute = joined[0] == '/';
    size_t k = 0;
    for (char *save = NULL, *c = strtok_r(joined, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0) continue;
        if (strcmp(c, "..") == 0 && k && strcmp(parts[k - 1], "..") != 0)
            k--;
        else if (strcmp(c, "..") != 0 || !absolute)
            parts[k++] = c;
    }
    size_t o = 0;
    if (absolute) out[o++] = '/';
    for (size_t i = 0; i < k; i++) {
        if (i) out[o++] = '/';
        size_t cl = strlen(parts[i]);
        memcpy(out + o, parts[i], cl);
        o += cl;
    }
    if (o == 0) out[o++] = '.';
    out[o] = '\0';
    free(joined);
    free(parts);
    return out;
}

/* Where metadata files are read from: the walk's directory (root, rel as in smc_item), or, for
 * a filesystem that is not on disk (an image's layers), files in memory sorted by path. */
typedef struct source {
    int root;
    size_t rel;
    const smc_memfile *files;
    size_t nfiles;
} source;

/* Reads a whole metadata file at path. */
static char *slurp(const source *src, const char *path, size_t *len, int *err)
{
    *err = 0;
    if (src->files) {
        for (size_t lo = 0, hi = src->nfiles; lo < hi;) {
            size_t mid = lo + (hi - lo) / 2;
            int c = strcmp(src->files[mid].path, path);
            if (c == 0) {
                char *copy = malloc(src->files[mid].len + 1);
                if (!copy) {
                    *err = ENOMEM;
                    return NULL;
                }
                memcpy(copy, src->files[mid].data, src->files[mid].len);
                copy[src->files[mid].len] = '\0';
                *len = src->files[mid].len;
                return copy;
            }
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
        *err = ENOENT;
        return NULL;
    }
    smc_item it = {.path = (char *)(uintptr_t)path, .root = src->root, .rel = src->rel,
                   .nofollow = true};
    int fd = smc_item_open(&it, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return NULL;
    }
    char *buf = smc_read_fd_small(fd, META_MAX, len, err);
    close(fd);
    return buf;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? smc_asprintf("%.*s", (int)(slash - path), path) : smc_strdup(".");
}

typedef enum { META_NONE, META_DIST_INFO, META_EGG_INFO, META_CONDA } meta_kind;

static meta_kind kind_of(const char *path)
{
    if (smc_ends_with(path, ".dist-info/RECORD")) return META_DIST_INFO;
    if (smc_ends_with(path, ".egg-info/installed-files.txt")) return META_EGG_INFO;
    const char *slash = strrchr(path, '/');
    if (slash && smc_ends_with(path, ".json") && slash - path >= 10 &&
        strncmp(slash - 10, "conda-meta", 10) == 0 && (slash - path == 10 || slash[-11] == '/'))
        return META_CONDA;
    return META_NONE;
}

/* Name and version from METADATA (dist-info) or PKG-INFO (egg-info) beside the list. */
static smc_status name_version(smc_input *in, const source *src, const char *dir,
                               const char *file, smc_distribution *d)
{
    char *path = smc_asprintf("%s/%s", dir, file);
    if (!path) return SMC_ERR_NOMEM;
    size_t len;
    int err;
    char *text = slurp(src, path, &len, &err);
    smc_status st = SMC_OK;
    if (!text && err == EFBIG) /* the name then comes from the directory's */
        st = smc_input_add_error(in, path, "over the cap of %u MiB for metadata: not read",
                                 META_MAX >> 20);
    free(path);
    smc_metadata md = {0};
    if (st == SMC_OK && text) st = smc_metadata_parse(text, len, &md);
    free(text);
    if (st != SMC_OK) {
        smc_metadata_free(&md); /* what it read before it stopped */
        return st;
    }
    d->name = md.name;
    d->version = md.version;
    md.name = md.version = NULL;
    const char *which = NULL;
    if (!d->cuda && (d->cuda = smc_requires_cuda(md.requires, md.requires_count, NULL, &which)) &&
        !(d->cuda_source = smc_asprintf("Requires-Dist: %s", which)))
        st = SMC_ERR_NOMEM;
    smc_metadata_free(&md);
    if (st == SMC_OK && !d->name) { /* from the directory's name: NAME-VERSION.dist-info */
        const char *base = strrchr(dir, '/');
        base = base ? base + 1 : dir;
        const char *dash = strchr(base, '-'), *dot = strrchr(base, '.');
        if (dash && dot && dot > dash) {
            d->name = smc_asprintf("%.*s", (int)(dash - base), base);
            if (!d->version) /* METADATA's Version, when it had one but no Name */
                d->version = smc_asprintf("%.*s", (int)(dot - dash - 1), dash + 1);
        } else {
            d->name = smc_strdup(base);
        }
        if (!d->name) st = SMC_ERR_NOMEM;
    }
    return st == SMC_OK ? smc_local_version(d) : st;
}

/* What a package's own version.py (torch/version.py, listed by its RECORD) says of its CUDA: it
 * is the package's statement, and wins over what its dependencies' names say. */
static smc_status version_py(const source *src, const char *base,
                             const smc_record_row *rows, size_t n, smc_distribution *d)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = rows[i].path;
        if (!smc_version_py_owned(p, d->name)) continue;
        if (rows[i].size > (int64_t)SMC_VERSION_PY_MAX) continue; /* RECORD's size, where it gives one */
        char *path = smc_path_normalize(base, p);
        if (!path) return SMC_ERR_NOMEM;
        size_t len;
        int err;
        char *text = slurp(src, path, &len, &err);
        free(path);
        if (!text) { /* a package without its version.py reads as one that says nothing */
            if (err == ENOMEM) return SMC_ERR_NOMEM;
            continue;
        }
        bool found = false;
        smc_status st = len <= SMC_VERSION_PY_MAX ? smc_version_py_apply(d, p, text, len, &found)
                                                  : SMC_OK;
        free(text);
        if (st != SMC_OK) return st;
        if (found) break;
    }
    return SMC_OK;
}

/* The files one metadata file lists, as owners, within the caps; what a cap leaves out is said
 * (a library among those files has no distribution), and the metadata after it is not read. */
static smc_status add_owners(smc_input *in, smc_env *env, const char *path, const char *base,
                             const smc_record_row *rows, size_t n, size_t dist)
{
    for (size_t i = 0; i < n; i++) {
        if (env->n >= OWNERS_MAX || env->bytes >= OWNER_BYTES_MAX) {
            env->full = true;
            return smc_input_add_error(in, path,
                                       "%zu of its files are past the caps for one input's "
                                       "metadata (%u files, %u MiB of their paths): those and "
                                       "the metadata after it are not read",
                                       n - i, OWNERS_MAX, OWNER_BYTES_MAX >> 20);
        }
        owner *o = smc_push(&env->owners, env->n, sizeof *o);
        if (!o || !(o->path = smc_path_normalize(base, rows[i].path))) return SMC_ERR_NOMEM;
        o->dist = dist;
        o->size = rows[i].size;
        env->bytes += strlen(o->path) + 1;
        env->n++;
    }
    return SMC_OK;
}

/* Reads one metadata file into a distribution of in and its files into env. */
static smc_status read_one(smc_input *in, smc_env *env, const source *src, const char *path,
                           meta_kind kind)
{
    size_t len;
    int err;
    if (env->read >= META_INPUT_MAX || env->n >= OWNERS_MAX || env->bytes >= OWNER_BYTES_MAX) {
        if (env->full) return SMC_OK;
        env->full = true;
        return smc_input_add_error(in, path,
                                   "past the caps for one input's metadata (%u MiB read, %u "
                                   "files listed, %u MiB of their paths): this and the metadata "
                                   "after it are not read",
                                   META_INPUT_MAX >> 20, OWNERS_MAX, OWNER_BYTES_MAX >> 20);
    }
    char *text = slurp(src, path, &len, &err);
    if (!text && err == EFBIG)
        return smc_input_add_error(in, path, "over the cap of %u MiB for metadata: not read",
                                   META_MAX >> 20);
    if (!text)
        return err == ENOMEM ? SMC_ERR_NOMEM
                             : smc_input_add_error(in, path, "cannot read: %s",
                                                   smc_open_error(err));
    env->read += len;
    smc_distribution d = {0};
    smc_record_row *rows = NULL;
    size_t n = 0;
    char *dir = dir_of(path), *base = NULL;
    smc_status st = dir ? SMC_OK : SMC_ERR_NOMEM;
    if (st == SMC_OK && kind == META_CONDA) {
        st = smc_conda_meta_parse(text, len, &d.name, &d.version, &rows, &n);
        if (st == SMC_ERR_LIMIT)
            st = smc_input_add_error(in, path, "more than %d files listed: the rest are not read",
                                     SMC_ROWS_MAX);
        if (st == SMC_ERR_FORMAT) {
            free(text);
            free(dir);
            return smc_input_add_error(in, path,
                                       "not a conda package record (name, version, files)");
        }
        base = dir_of(dir); /* the prefix holds conda-meta */
        d.source = smc_strdup("conda");
    } else if (st == SMC_OK) {
        st = kind == META_DIST_INFO ? smc_record_parse(text, len, &rows, &n)
                                    : smc_installed_files_parse(text, len, &rows, &n);
        if (st == SMC_ERR_LIMIT)
            st = smc_input_add_error(in, path, "more than %d rows: the rest are not read",
                                     SMC_ROWS_MAX);
        if (st == SMC_OK)
            st = name_version(in, src, dir, kind == META_DIST_INFO ? "METADATA" : "PKG-INFO", &d);
        /* RECORD's paths count from the directory that holds the dist-info; installed-files.txt's
         * from the egg-info itself. */
        base = kind == META_DIST_INFO ? dir_of(dir) : smc_strdup(dir);
        d.source = smc_strdup(kind == META_DIST_INFO ? "dist-info" : "egg-info");
        if (st == SMC_OK && kind == META_DIST_INFO && base)
            st = version_py(src, base, rows, n, &d);
    }
    free(text);
    if (st == SMC_OK && (!base || !d.source || !(d.location = smc_strdup(dir)))) st = SMC_ERR_NOMEM;
    smc_distribution *slot =
        st == SMC_OK ? smc_push(&in->distributions, in->distribution_count, sizeof *slot) : NULL;
    if (st == SMC_OK && !slot) st = SMC_ERR_NOMEM;
    if (st == SMC_OK) {
        smc_distribution_sanitize(&d);
        *slot = d;
        st = add_owners(in, env, path, base, rows, n, in->distribution_count++);
    } else {
        smc_distribution_clear(&d);
    }
    smc_record_free(rows, n);
    free(dir);
    free(base);
    return st;
}

static int by_owner(const void *a, const void *b)
{
    const owner *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->dist < y->dist ? -1 : x->dist > y->dist);
}

/* The size of the file at a normalised path among the walk's items; -1 when none is there. */
static int64_t size_on_disk(const smc_item *items, size_t n, const char *path, smc_status *st)
{
    const char *base = smc_base_name(path);
    for (size_t i = 0; i < n; i++) {
        if (items[i].member >= 0 || strcmp(smc_base_name(items[i].path), base) != 0) continue;
        char *key = smc_path_normalize(NULL, items[i].path);
        if (!key) {
            *st = SMC_ERR_NOMEM;
            return -1;
        }
        bool same = strcmp(key, path) == 0;
        free(key);
        if (same) return (int64_t)items[i].size;
    }
    return -1;
}

/* Two builds of one package installed together (data/cpu-builds.tsv column 5): both RECORDs list
 * the same files, and the one installed last wrote them. A file their RECORDs give different
 * sizes says which: the other one is marked shadowed by it. When no file tells, the GPU build is
 * marked, unknown: only the order of installing decides, and pip installs in the order given. */
static smc_status find_shadows(smc_input *in, const smc_env *env, const smc_item *items, size_t n)
{
    smc_status st = SMC_OK;
    for (size_t c = 0; c < in->distribution_count && st == SMC_OK; c++) {
        smc_cpu_rule rule;
        const smc_distribution *cpu = &in->distributions[c];
        if (!cpu->name || !smc_distribution_installed(cpu) || !smc_cpu_rule_for(cpu->name, &rule) ||
            !rule.shadows[0])
            continue;
        for (size_t g = 0; g < in->distribution_count && st == SMC_OK; g++) {
            smc_distribution *gpu = &in->distributions[g];
            if (g == c || !gpu->name || !smc_distribution_installed(gpu) ||
                !smc_cpu_shadows(&rule, gpu->name))
                continue;
            size_t shared = 0, winner = SMC_NONE;
            const char *file = NULL;
            for (size_t i = 0; i + 1 < env->n && winner == SMC_NONE && st == SMC_OK; i++) {
                const owner *a = &env->owners[i], *b = &env->owners[i + 1];
                if (strcmp(a->path, b->path) != 0 || !((a->dist == c && b->dist == g) ||
                                                       (a->dist == g && b->dist == c)))
                    continue;
                shared++;
                if (a->size < 0 || b->size < 0 || a->size == b->size) continue;
                int64_t disk = size_on_disk(items, n, a->path, &st);
                if (disk == a->size) winner = a->dist;
                if (disk == b->size) winner = b->dist;
                file = a->path;
            }
            if (!shared || st != SMC_OK) continue;
            smc_distribution *loser = winner == c ? gpu : winner == g ? &in->distributions[c] : gpu;
            const smc_distribution *won = loser == gpu ? cpu : gpu;
            free(loser->shadowed_by);
            free(loser->shadow_evidence);
            loser->shadowed_by = smc_strdup(won->name);
            loser->shadow_evidence =
                winner == SMC_NONE
                    ? smc_asprintf("both install %zu of the same files, and none of them says "
                                   "which was installed last",
                                   shared)
                    : smc_asprintf("%s has the size %s's RECORD gives", smc_base_name(file),
                                   won->name);
            if (!loser->shadowed_by || !loser->shadow_evidence) st = SMC_ERR_NOMEM;
        }
    }
    return st;
}

smc_status smc_env_collect(smc_input *in, const smc_item *items, size_t n, smc_env **out)
{
    smc_env *env = calloc(1, sizeof *env);
    *out = env;
    if (!env) return SMC_ERR_NOMEM;
    smc_status st = SMC_OK;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        meta_kind k = items[i].error || items[i].member >= 0 ? META_NONE : kind_of(items[i].path);
        source src = {.root = items[i].root, .rel = items[i].rel};
        if (k != META_NONE) st = read_one(in, env, &src, items[i].path, k);
    }
    if (env->n) qsort(env->owners, env->n, sizeof *env->owners, by_owner);
    if (st == SMC_OK && env->n) st = find_shadows(in, env, items, n);
    return st;
}

smc_status smc_env_collect_files(smc_input *in, const smc_memfile *files, size_t n, smc_env **out)
{
    smc_env *env = calloc(1, sizeof *env);
    *out = env;
    if (!env) return SMC_ERR_NOMEM;
    source src = {.root = -1, .files = files, .nfiles = n};
    smc_status st = SMC_OK;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        meta_kind k = kind_of(files[i].path);
        if (k != META_NONE) st = read_one(in, env, &src, files[i].path, k);
    }
    if (env->n) qsort(env->owners, env->n, sizeof *env->owners, by_owner);
    return st;
}

/* A growing text. */
typedef struct text_buf {
    char *s;
    size_t len, cap;
    bool failed;
} text_buf;

static void put(text_buf *t, const char *s)
{
    size_t n = strlen(s);
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *grown = realloc(t->s, cap);
        if (!grown) {
            t->failed = true;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

/* A string as JSON text (quoted and escaped by cJSON). */
static void put_string(text_buf *t, const char *s)
{
    cJSON *node = cJSON_CreateString(s);
    char *text = node ? cJSON_PrintUnformatted(node) : NULL;
    cJSON_Delete(node);
    if (text) put(t, text);
    else t->failed = true;
    free(text);
}

smc_status smc_env_compact(const char *path, char **data, size_t *len)
{
    /* Only a record with paths_data has bulk that is not read (else it is as short already). */
    if (kind_of(path) != META_CONDA || !memmem(*data, *len, "\"paths_data\"", 12)) return SMC_OK;
    char *name, *version;
    smc_record_row *rows;
    size_t n;
    smc_status st = smc_conda_meta_parse(*data, *len, &name, &version, &rows, &n);
    if (st != SMC_OK && st != SMC_ERR_LIMIT) /* read as it is: its error is said then */
        return st == SMC_ERR_NOMEM ? st : SMC_OK;
    text_buf t = {0};
    put(&t, "{\"name\":");
    put_string(&t, name);
    put(&t, ",\"version\":");
    put_string(&t, version);
    put(&t, ",\"files\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) put(&t, ",");
        put_string(&t, rows[i].path);
    }
    put(&t, "]}");
    free(name);
    free(version);
    smc_record_free(rows, n);
    if (t.failed) {
        free(t.s);
        return SMC_ERR_NOMEM;
    }
    free(*data);
    *data = t.s;
    *len = t.len;
    return SMC_OK;
}

bool smc_env_wants(const char *path)
{
    const char *base = smc_base_name(path);
    return kind_of(path) != META_NONE ||
           (strcmp(base, "METADATA") == 0 && strstr(path, ".dist-info/")) ||
           (strcmp(base, "PKG-INFO") == 0 && strstr(path, ".egg-info/"));
}

void smc_env_free(smc_env *env)
{
    if (!env) return;
    for (size_t i = 0; i < env->n; i++)
        free(env->owners[i].path);
    free(env->owners);
    free(env);
}

/* The first owner of path, or NULL. */
static const owner *owner_of(const smc_env *env, const char *path)
{
    size_t lo = 0, hi = env->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(env->owners[mid].path, path) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < env->n && strcmp(env->owners[lo].path, path) == 0 ? &env->owners[lo] : NULL;
}

smc_status smc_env_attribute(smc_input *in, const smc_env *env)
{
    smc_status st = SMC_OK;
    for (size_t i = 0; i < in->library_count && st == SMC_OK && env && env->n; i++) {
        smc_library *lib = &in->libraries[i];
        if (lib->distribution != SMC_NONE || strchr(lib->path, '!')) continue; /* a wheel's */
        /* An archive's member is the archive's file. */
        char *file = smc_strdup(lib->path);
        char *paren = file ? strrchr(file, '(') : NULL;
        if (paren && file[strlen(file) - 1] == ')') *paren = '\0';
        char *key = file ? smc_path_normalize(NULL, file) : NULL;
        free(file);
        if (!key) return SMC_ERR_NOMEM;
        const owner *o = owner_of(env, key), *end = env->owners + env->n;
        if (o) lib->distribution = o->dist;
        for (const owner *q = o; q && q < end && strcmp(q->path, key) == 0 && st == SMC_OK; q++) {
            if (q > o && q->dist != q[-1].dist)
                st = smc_library_add_finding(lib, SMC_NO_OFFSET, "claimed by both %s and %s",
                                             in->distributions[o->dist].name,
                                             in->distributions[q->dist].name);
            if (st == SMC_OK && q->size >= 0 && (uint64_t)q->size != lib->file_size)
                st = smc_library_add_finding(lib, SMC_NO_OFFSET,
                                             "the RECORD of %s says %lld bytes; the file has %llu",
                                             in->distributions[q->dist].name, (long long)q->size,
                                             (unsigned long long)lib->file_size);
        }
        free(key);
    }
    /* The files without device code that take part at run time: their owner, by path. */
    for (size_t i = 0; i < in->runtime_count && st == SMC_OK && env && env->n; i++) {
        smc_runtime_file *f = &in->runtime[i];
        if (f->distribution != SMC_NONE || strchr(f->path, '!')) continue;
        char *key = smc_path_normalize(NULL, f->path);
        if (!key) return SMC_ERR_NOMEM;
        const owner *o = owner_of(env, key);
        if (o) f->distribution = o->dist;
        free(key);
    }
    return st;
}

smc_status smc_distributions_finish(smc_input *in)
{
    for (size_t i = 0; i < in->library_count; i++) {
        smc_library *lib = &in->libraries[i];
        if (lib->distribution >= in->distribution_count) {
            lib->distribution = SMC_NONE;
            continue;
        }
        smc_distribution *d = &in->distributions[lib->distribution];
        size_t *slot = smc_push(&d->libraries, d->library_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = i;
        d->library_count++;
    }
    /* A wheel tagged for one platform that ships another's binaries: said, and judged so. */
    for (size_t i = 0; i < in->library_count; i++) {
        const smc_library *lib = &in->libraries[i];
        const smc_distribution *d =
            lib->distribution < in->distribution_count ? &in->distributions[lib->distribution] : NULL;
        const char *tag = d ? smc_platform_name(d->platform) : NULL, *mine = smc_library_platform(lib);
        if (tag && *mine && strcmp(tag, mine) != 0 &&
            smc_input_add_note(in, "%s: a %s library in a wheel tagged %s: it cannot load where "
                                   "the wheel installs",
                               lib->path, mine, d->platform) != SMC_OK)
            return SMC_ERR_NOMEM;
    }
    /* No other word on the CUDA runtime: the runtimes its libraries need say it, as the range
     * from the oldest to the newest (libcudart.so.N of an ELF file, cudart64_N.dll of a DLL). */
    for (size_t k = 0; k < in->distribution_count; k++) {
        smc_distribution *d = &in->distributions[k];
        const smc_library *lo = NULL, *hi = NULL;
        size_t nlo = 0, nhi = 0;
        for (size_t i = 0; !d->cuda && i < d->library_count; i++) {
            const smc_library *lib = &in->libraries[d->libraries[i]];
            if (!lib->cudart_major) continue;
            if (!lo || lib->cudart_major < lo->cudart_major) lo = lib, nlo = 0;
            if (!hi || lib->cudart_major > hi->cudart_major) hi = lib, nhi = 0;
            nlo += lib->cudart_major == lo->cudart_major;
            nhi += lib->cudart_major == hi->cudart_major;
        }
        if (!lo) continue;
        char a[40], b[40];
        smc_cudart_name(a, sizeof a, lo);
        smc_cudart_name(b, sizeof b, hi);
        const char *how = lo->windows ? "imports" : "DT_NEEDED";
        if (lo->cudart_major == hi->cudart_major) {
            d->cuda = smc_asprintf("%u", lo->cudart_major);
            d->cuda_source = smc_asprintf("%s %s", how, a);
        } else {
            d->cuda = smc_asprintf("%u to %u", lo->cudart_major, hi->cudart_major);
            d->cuda_source = smc_asprintf("%s %s in %zu of its libraries, %s in %zu", how, a, nlo, b,
                                          nhi);
        }
        if (!d->cuda || !d->cuda_source) return SMC_ERR_NOMEM;
    }
    return SMC_OK;
}

static bool is_dir(const char *path)
{
    struct stat sb;
    return path && *path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

smc_status smc_default_paths(char ***paths, size_t *n, char **why)
{
    *paths = NULL;
    *n = 0;
    *why = NULL;
    const char *venv = getenv("VIRTUAL_ENV"), *conda = getenv("CONDA_PREFIX");
    const char *one = is_dir(venv) ? venv : is_dir(conda) ? conda : NULL;
    if (one) {
        *paths = malloc(sizeof **paths);
        if (!*paths || !((*paths)[0] = smc_strdup(one))) return SMC_ERR_NOMEM;
        *n = 1;
        *why = smc_asprintf("the active %s, %s=%s",
                            one == venv ? "virtual environment" : "conda environment",
                            one == venv ? "VIRTUAL_ENV" : "CONDA_PREFIX", one);
        return *why ? SMC_OK : SMC_ERR_NOMEM;
    }
    /* No active environment: the user's and the system's site-packages, as found on disk. */
    const char *home = getenv("HOME");
    char *user = home ? smc_asprintf("%s/.local/lib/python3*/site-packages", home) : NULL;
    const char *patterns[] = {user ? user : "/nonexistent",
                              "/usr/local/lib/python3*/site-packages",
                              "/usr/local/lib/python3*/dist-packages",
                              "/usr/lib/python3/dist-packages",
                              "/usr/lib/python3*/site-packages",
                              "/usr/lib64/python3*/site-packages"};
    smc_status st = SMC_OK;
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0] && st == SMC_OK; p++) {
        glob_t g;
        if (glob(patterns[p], GLOB_ONLYDIR, NULL, &g) != 0) continue;
        for (size_t i = 0; i < g.gl_pathc && st == SMC_OK; i++) {
            char **slot = smc_push(paths, *n, sizeof *slot);
            if (!slot || !(*slot = smc_strdup(g.gl_pathv[i])))
                st = SMC_ERR_NOMEM;
            else
                (*n)++;
        }
        globfree(&g);
    }
    free(user);
    if (st == SMC_OK)
        *why = smc_strdup("no active environment (VIRTUAL_ENV, CONDA_PREFIX): the user's and the "
                          "system's site-packages found on disk");
    return st == SMC_OK && !*why ? SMC_ERR_NOMEM : st;
}
