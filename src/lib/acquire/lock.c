/* lock.c: what a lock file would install in one environment. pylock.toml (PEP 751) puts markers
 * on packages and lists every platform's wheels; uv.lock puts markers on the edges of its
 * dependency graph, which is walked from the project (the default dev group included, as `uv
 * sync` installs it), and may hold a package in several versions; requirements.txt pins and
 * hashes, and leaves the choice of file to the index. The files are untrusted: every field is
 * checked for its type, lookups go through sorted indexes (a lock of 20,000 packages is read in
 * linear-logarithmic time), the graph walk visits each package and extra once, and a package that
 * cannot be installed is a problem of the lock, not the end of reading it. */
#include "acquire.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>

#define PROBLEMS_MAX 1000
/* One logical line of requirements.txt: a pin and its --hash options (a project with a thousand
 * files has 80 KB of them). */
#define LINE_MAX_BYTES (1u << 20)
/* requirements.txt files open at once through -r and -c (the one named and those it includes);
 * files read in all, and their bytes, counted again where one is included again: a hostile tree
 * of includes is refused, not followed for ever */
#define INCLUDE_MAX 16
#define INCLUDED_FILES_MAX 1000
#define INCLUDED_BYTES_MAX (64u << 20)

bool smc_lock_named(const char *path)
{
    const char *base = smc_base_name(path);
    size_t n = strlen(base);
    return strcmp(base, "uv.lock") == 0 || strcmp(base, "pylock.toml") == 0 ||
           (strncmp(base, "pylock.", 7) == 0 && n > 12 && strcmp(base + n - 5, ".toml") == 0) ||
           (strncmp(base, "requirements", 12) == 0 && n > 4 && strcmp(base + n - 4, ".txt") == 0) ||
           (n > 9 && strcmp(base + n - 9, ".lock.txt") == 0);
}

static void pin_free(smc_pin *p)
{
    free(p->name);
    free(p->version);
    free(p->url);
    free(p->index);
    for (size_t k = 0; k < p->hash_count; k++)
        free(p->hashes[k]);
    free(p->hashes);
}

void smc_lock_free(smc_lock *l)
{
    for (size_t i = 0; i < l->pin_count; i++)
        pin_free(&l->pins[i]);
    free(l->pins);
    for (size_t i = 0; i < l->problem_count; i++)
        free(l->problems[i]);
    free(l->problems);
    for (size_t i = 0; i < l->note_count; i++)
        free(l->notes[i]);
    free(l->notes);
    for (size_t i = 0; i < l->index_count; i++)
        free(l->indexes[i]);
    free(l->indexes);
    *l = (smc_lock){0};
}

/* A requirement of requirements.txt not pinned: its pin's version is its specifiers ("" for
 * any), until a constraint pins it. */
typedef struct loose {
    size_t pin;
    char *where; /* "line 3", after the label */
} loose;

/* One read: the lock being filled, the environment, and the lock file's path (local wheels are
 * relative to its directory; in a file -r or -c names, that file's). */
typedef struct reader {
    smc_lock *l;
    const smc_pyenv *e;
    const char *path;
    const char *const *extras; /* the project's extras asked for (--extra) */
    size_t extra_count;
    char **active; /* uv.lock: what its markers call the extras and groups installed */
    size_t active_count;
    bool set;     /* markers are evaluated against active (uv.lock) */
    char env[96]; /* "cp311 manylinux_2_28_x86_64", for problems */
    /* requirements.txt: the lines of a file that -r or -c names are read as they come */
    char *label;     /* in such a file: "line 4: -r base.txt", before its problems */
    bool constraint; /* a -c file's (or one it includes): its pins constrain, install nothing */
    unsigned depth;  /* files open: the one named, then each included one */
    unsigned files;  /* files read (-r, -c) */
    size_t bytes;    /* their bytes, and the first one's */
    struct {
        dev_t dev;
        ino_t ino;
    } open[INCLUDE_MAX];
    smc_lock cons; /* the constraints' pins (their markers hold) */
    loose *loose;  /* the requirements not pinned */
    size_t loose_count;
} reader;

static bool add_string(char ***list, size_t *n, char *s)
{
    char **slot = s ? smc_push(list, *n, sizeof *slot) : NULL;
    if (!slot) {
        free(s);
        return false;
    }
    *slot = s;
    (*n)++;
    return true;
}

/* A line of the lock's problems or notes: one line (control characters from the file made '?'),
 * at most MESSAGE_MAX bytes; after PROBLEMS_MAX - 1 of them, one that says the rest are not
 * listed. False only when out of memory. */
static bool listed(char ***list, size_t *count, const char *what, const char *label,
                   const char *fmt, va_list ap)
{
    if (*count >= PROBLEMS_MAX) return true;
    char *s = *count == PROBLEMS_MAX - 1
                  ? smc_asprintf("more %s than these: the rest are not listed", what)
                  : smc_vasprintf(fmt, ap);
    if (s && label && *count < PROBLEMS_MAX - 1) {
        char *t = smc_asprintf("%s: %s", label, s);
        free(s);
        s = t;
    }
    if (s) s = smc_cut(smc_sanitize(s), MESSAGE_MAX);
    return add_string(list, count, s);
}

/* A problem with one package: what the lock would install that cannot be judged. */
static bool problem(reader *r, const char *fmt, ...) SMC_PRINTF(2, 3);
static bool problem(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = listed(&r->l->problems, &r->l->problem_count, "problems", r->label, fmt, ap);
    va_end(ap);
    return ok;
}

/* A note: what the lock names that is left aside on purpose (a local directory: the project). */
static bool note(reader *r, const char *fmt, ...) SMC_PRINTF(2, 3);
static bool note(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = listed(&r->l->notes, &r->l->note_count, "notes", r->label, fmt, ap);
    va_end(ap);
    return ok;
}

/* 64 hex digits of a "sha256:HEX" or bare HEX, lower-cased into out; false (out untouched) when
 * not one. */
static bool sha256_of(const char *s, char out[65])
{
    if (!s) return false;
    if (strncasecmp(s, "sha256:", 7) == 0 || strncasecmp(s, "sha256=", 7) == 0) s += 7;
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)s[i])) return false;
    if (s[64] != '\0') return false;
    for (int i = 0; i < 64; i++)
        out[i] = (char)tolower((unsigned char)s[i]);
    out[64] = '\0';
    return true;
}

/* A hash "ALGO:HEX" of another algorithm than sha256 (uv writes sha384/sha512 for some indexes):
 * nothing this can check, and no error either. */
static bool other_algorithm(const char *h)
{
    const char *colon = strchr(h, ':');
    return colon && colon > h && strncasecmp(h, "sha256:", 7) != 0 &&
           strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
               (size_t)(colon - h);
}

static smc_pin *add_pin(smc_lock *l, const char *name, const char *version, const char *url,
                        const char *sha256, const char *index)
{
    smc_pin *p = smc_push(&l->pins, l->pin_count, sizeof *p);
    if (!p) return NULL;
    *p = (smc_pin){.name = smc_strdup_clean(name),
                   .version = smc_strdup_clean(version ? version : ""),
                   .url = url ? smc_strdup(url) : NULL,
                   .index = index ? smc_strdup(index) : NULL};
    l->pin_count++;
    if (sha256) snprintf(p->sha256, sizeof p->sha256, "%s", sha256);
    if (!p->name || !p->version || (url && !p->url) || (index && !p->index)) return NULL;
    return p;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An array's items (cJSON_ArrayForEach would walk an object's members as well). */
static const cJSON *items(const cJSON *a)
{
    return cJSON_IsArray(a) ? a->child : NULL;
}

/* The file name a URL or path ends in, percent-decoded ("torch-2.8.0%2Bcu128-..." is "+"). */
static void url_file(const char *url, char *out, size_t n)
{
    const char *end = url + strcspn(url, "?#"), *start = end;
    while (start > url && start[-1] != '/')
        start--;
    size_t k = 0;
    for (const char *p = start; p < end && k + 1 < n; p++) {
        unsigned v;
        if (*p == '%' && end - p >= 3 && isxdigit((unsigned char)p[1]) &&
            isxdigit((unsigned char)p[2]) && sscanf(p + 1, "%2x", &v) == 1) {
            out[k++] = (char)v;
            p += 2;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
}

/* A URL fit to fetch, or a path fit to open: not empty, no control bytes, and a URL has no
 * spaces (a path may). */
static bool location_ok(const char *s)
{
    if (!*s) return false;
    bool url = strstr(s, "://") != NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (url && *p == ' ')) return false;
    return true;
}

/* A local wheel's path: a file: URL's path (RFC 8089, percent-decoded), or a path relative to the
 * lock file's directory (PEP 751's packages.wheels.path; uv's source paths). New memory, or
 * NULL when out of memory. */
static char *beside(const char *lockpath, const char *path)
{
    if (strncasecmp(path, "file://", 7) == 0) {
        const char *p = path + 7;
        if (strncasecmp(p, "localhost/", 10) == 0) p += 9;
        char *out = malloc(strlen(p) + 1);
        if (!out) return NULL;
        size_t k = 0;
        for (; *p && *p != '?' && *p != '#'; p++) {
            unsigned v;
            if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2]) &&
                sscanf(p + 1, "%2x", &v) == 1 && v != 0) {
                out[k++] = (char)v;
                p += 2;
            } else {
                out[k++] = *p;
            }
        }
        out[k] = '\0';
        return out;
    }
    const char *slash = strrchr(lockpath, '/');
    return path[0] == '/' || !slash
               ? smc_strdup(path)
               : smc_asprintf("%.*s/%s", (int)(slash - lockpath), lockpath, path);
}

/* Whether a marker holds; a malformed one is a problem of what (a package, an edge, a line)
 * and does not hold. */
static bool marker_text_holds(reader *r, const char *what, const char *marker)
{
    char why[256];
    int v = r->set ? smc_marker_eval_set(marker, r->e, (const char *const *)r->active,
                                         r->active_count, why, sizeof why)
                   : smc_marker_eval(marker, r->e, NULL, why, sizeof why);
    if (v < 0) problem(r, "%s: its marker '%.200s' cannot be read: %s", what, marker, why);
    return v == 1;
}

/* The same for a marker field: an absent one holds; one that is not a string is a problem. */
static bool marker_holds(reader *r, const char *what, const cJSON *marker)
{
    if (!marker) return true;
    if (!cJSON_IsString(marker)) {
        problem(r, "%s: its marker is not a string", what);
        return false;
    }
    return marker_text_holds(r, what, marker->valuestring);
}

/* The environment in words, for problems: "cp311 manylinux_2_28_x86_64" from its best tag. */
static void env_words(const smc_pyenv *e, char *out, size_t n)
{
    const char *t = e->tag_count ? e->tags[0] : NULL;
    const char *d1 = t ? strchr(t, '-') : NULL, *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    if (!t)
        snprintf(out, n, "this environment");
    else if (!d2)
        snprintf(out, n, "%s", t);
    else
        snprintf(out, n, "%.*s %s", (int)(d1 - t), t, d2 + 1);
}

/* A wheel entry's file name: its name (pylock), filename (uv), or the end of its url or path. */
static void wheel_file(const cJSON *w, char *file, size_t n)
{
    const char *name = str(w, "name"), *filename = str(w, "filename"), *url = str(w, "url"),
               *path = str(w, "path");
    if (name || filename)
        snprintf(file, n, "%s", name ? name : filename);
    else if (url || path)
        url_file(url ? url : path, file, n);
    else
        file[0] = '\0';
}

/* The best of a package's wheels (an array of tables) for e, by pip's tag order: the entry, or
 * NULL. */
static const cJSON *best_wheel(const cJSON *wheels, const smc_pyenv *e)
{
    const cJSON *best = NULL, *w;
    long best_rank = -1;
    for (w = items(wheels); w; w = w->next) {
        char file[1024];
        wheel_file(w, file, sizeof file);
        long rank = file[0] ? smc_wheel_rank(e, file) : -1;
        if (rank >= 0 && (!best || rank < best_rank)) {
            best = w;
            best_rank = rank;
        }
    }
    return best;
}

/* A wheel entry as a pin: its url, or its path (or else the package's source path) beside the
 * lock, and its sha256 (pylock: hashes.sha256; uv: hash = "sha256:HEX"). A hash that is not 64
 * hex digits, or a location that is not one, is a problem and no pin. */
static bool pin_wheel(reader *r, const char *what, const char *name, const char *version,
                      const cJSON *w, const char *index, const char *source_path)
{
    const char *url = str(w, "url"), *path = str(w, "path");
    if (url && strncasecmp(url, "file:", 5) == 0) /* a local wheel, as in requirements.txt */
        path = url, url = NULL;
    if (!url && !path) path = source_path;
    char sha[65] = "";
    const cJSON *hashes = get(w, "hashes");
    const char *h = hashes ? str(hashes, "sha256") : str(w, "hash");
    if (h && !sha256_of(h, sha) && (hashes || !other_algorithm(h)))
        return problem(r, "%s: its wheel's sha256 '%.80s' is not 64 hex digits", what, h);
    if (url && !location_ok(url))
        return problem(r, "%s: its wheel's url '%.200s' is not one to fetch", what, url);
    if (!url && !path) return problem(r, "%s: its wheel names no url or path", what);
    if (!url && !location_ok(path))
        return problem(r, "%s: its wheel's path '%.200s' is not one to open", what, path);
    char *local = url ? NULL : beside(r->path, path);
    if (!url && !local) return false;
    bool ok = add_pin(r->l, name, version, url ? url : local, sha[0] ? sha : NULL, index) != NULL;
    free(local);
    return ok;
}

/* What a package that has no wheel for e has instead, for its problem (pylock's sdist, vcs,
 * archive; uv's source kinds). */
static const char *instead(const cJSON *pkg)
{
    const cJSON *src = get(pkg, "source");
    if (get(pkg, "vcs") || get(src, "git")) return ": it comes from version control";
    if (get(pkg, "sdist") || get(pkg, "archive")) return ": only a source distribution fits";
    return "";
}

/* A local directory (pylock's directory, uv's directory or editable source): the project itself
 * as `uv export` and `pip lock .` write it, or another of its workspace. It is built from its
 * source when installed: a note, not a problem, so that a packaged project's lock is judged as
 * its wheels are. */
static bool local_directory(const cJSON *pkg)
{
    const cJSON *src = get(pkg, "source");
    return get(pkg, "directory") || get(src, "directory") || get(src, "editable");
}

#define LOCAL_DIRECTORY "a local directory, built from its source when installed: not judged"

/* "name version" of a package, bounded, for problems. */
static void package_words(const char *name, const char *version, char *out, size_t n)
{
    snprintf(out, n, "%.100s%s%.60s", name ? name : "?", version ? " " : "",
             version ? version : "");
}

/* --- pylock.toml (PEP 751) ----------------------------------------------------------------- */

static bool read_pylock(reader *r, const cJSON *root, char *why, size_t n)
{
    /* PEP 751: an installer refuses a lock-version whose major version it does not know */
    const char *lv = str(root, "lock-version");
    if (!lv || !(strcmp(lv, "1") == 0 || strncmp(lv, "1.", 2) == 0)) {
        smc_say(why, n, "its lock-version %.40s is not 1.x, the one this reads",
                lv ? lv : "(not a string)");
        return false;
    }
    const cJSON *envs = get(root, "environments");
    if (cJSON_IsArray(envs) && cJSON_GetArraySize(envs) > 0) {
        bool any = false;
        for (const cJSON *m = items(envs); m && !any; m = m->next)
            any = marker_holds(r, "environments", m);
        if (!any) {
            const cJSON *first = items(envs);
            smc_say(why, n, "none of its environments ('%.100s'%s) is %s",
                    cJSON_IsString(first) ? first->valuestring : "?", first->next ? ", ..." : "",
                    r->env);
            return false;
        }
    }
    const char *rp = str(root, "requires-python");
    if (rp && smc_pep440_match(rp, r->e->python_full_version) == 0) {
        smc_say(why, n, "it requires Python %.100s, not %s", rp, r->e->python_full_version);
        return false;
    }
    const cJSON *pkgs = get(root, "packages");
    if (pkgs && !cJSON_IsArray(pkgs)) {
        smc_say(why, n, "its packages are not an array of tables");
        return false;
    }
    for (const cJSON *pkg = items(pkgs); pkg; pkg = pkg->next) {
        const char *name = str(pkg, "name"), *version = str(pkg, "version");
        if (!name) {
            if (!problem(r, "a package without a name")) return false;
            continue;
        }
        char what[256];
        package_words(name, version, what, sizeof what);
        if (!marker_holds(r, what, get(pkg, "marker"))) continue;
        const cJSON *w = best_wheel(get(pkg, "wheels"), r->e);
        /* packages.archive: a file by url or path, which may be a wheel */
        const cJSON *archive = get(pkg, "archive");
        if (!w && cJSON_IsObject(archive)) {
            char file[1024];
            wheel_file(archive, file, sizeof file);
            if (file[0] && smc_wheel_rank(r->e, file) >= 0) w = archive;
        }
        bool ok;
        if (w)
            ok = pin_wheel(r, what, name, version, w, str(pkg, "index"), NULL);
        else if (local_directory(pkg))
            ok = note(r, "%s: %s", what, LOCAL_DIRECTORY);
        else
            ok = problem(r, "%s: no wheel for %s%s", what, r->env, instead(pkg));
        if (!ok) return false;
    }
    return true;
}

/* --- uv.lock ------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A package in the index by name: normalized name, version and source (printed: an edge's
 * source is written as its package's), and its place in the lock. */
typedef struct uv_key {
    const char *name, *version, *source;
    size_t i;
} uv_key;

/* An extra a package declares (its optional-dependencies), sorted by package then name. */
typedef struct uv_extra {
    size_t pkg;
    const char *name;
    const cJSON *edges;
    bool seen;
} uv_extra;

typedef struct uv_walk {
    const cJSON **pkgs;
    size_t n;
    char **names;    /* normalized, per package */
    char **sources;  /* printed, per package; NULL when none */
    uv_key *keys;    /* sorted by name, version, source, place */
    size_t *pick;    /* per key and level: the package an edge with that key resolves to */
    signed char *rm; /* resolution-markers hold: 1, 0, -1 not yet evaluated */
    bool *seen;      /* reached, with its base dependencies */
    uv_extra *extras;
    size_t extra_count;
    size_t *stack; /* to walk: a package, and an extra (index into extras, or SMC_NONE) */
    size_t *stack_extra;
    size_t depth, cap;
} uv_walk;

static int cmp_opt(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Levels of an edge's key: its name; and version; and source. */
static int uv_key_cmp_level(const uv_key *a, const uv_key *b, int level)
{
    int c = strcmp(a->name, b->name);
    if (c || level == 0) return c;
    if ((c = cmp_opt(a->version, b->version)) || level == 1) return c;
    return cmp_opt(a->source, b->source);
}

static int uv_key_cmp(const void *pa, const void *pb)
{
    const uv_key *a = pa, *b = pb;
    int c = uv_key_cmp_level(a, b, 2);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int uv_extra_cmp(const void *pa, const void *pb)
{
    const uv_extra *a = pa, *b = pb;
    if (a->pkg != b->pkg) return a->pkg < b->pkg ? -1 : 1;
    return strcmp(a->name, b->name);
}

static bool uv_source_is(const cJSON *pkg, const char *kind)
{
    return get(get(pkg, "source"), kind) != NULL;
}

/* A project of the workspace (uv sync installs from it), not a wheel. */
static bool uv_project(const cJSON *pkg)
{
    return uv_source_is(pkg, "virtual") || uv_source_is(pkg, "editable");
}

static bool uv_push(uv_walk *w, size_t pkg, size_t extra)
{
    if (w->depth == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        size_t *a = realloc(w->stack, cap * sizeof *a);
        if (!a) return false;
        w->stack = a;
        size_t *b = realloc(w->stack_extra, cap * sizeof *b);
        if (!b) return false;
        w->stack_extra = b;
        w->cap = cap;
    }
    w->stack[w->depth] = pkg;
    w->stack_extra[w->depth++] = extra;
    return true;
}

/* Whether a package's resolution-markers (the forks it was resolved for) hold, once each. */
static bool uv_resolved_for(reader *r, uv_walk *w, size_t i)
{
    if (w->rm[i] < 0) {
        const cJSON *rm = get(w->pkgs[i], "resolution-markers");
        bool any = !cJSON_IsArray(rm) || cJSON_GetArraySize(rm) == 0;
        char what[256];
        package_words(str(w->pkgs[i], "name"), str(w->pkgs[i], "version"), what, sizeof what);
        for (const cJSON *m = items(rm); m && !any; m = m->next)
            any = marker_holds(r, what, m);
        w->rm[i] = any;
    }
    return w->rm[i] == 1;
}

/* The package an edge names: by name, and its version and source where the edge gives them
 * (uv gives them when the name alone is ambiguous); among several, the first in the lock whose
 * resolution-markers hold, else the first. Binary search, and each key's answer kept: bounded
 * whatever the lock repeats. SMC_NONE when none; *nomem when out of memory. */
static size_t uv_target(reader *r, uv_walk *w, const cJSON *edge, const char *name, bool *nomem)
{
    char *want = malloc(strlen(name) + 1);
    const cJSON *src = get(edge, "source");
    char *source = src ? cJSON_PrintUnformatted(src) : NULL;
    if (!want || (src && !source)) {
        free(want);
        free(source);
        *nomem = true;
        return SMC_NONE;
    }
    smc_pyname_normalize(name, want, strlen(name) + 1);
    uv_key key = {.name = want, .version = str(edge, "version"), .source = source};
    /* level: 0 name, 1 name and version, 2 all three; a source without a version is matched
     * among the name's packages */
    int level = key.version ? (source ? 2 : 1) : 0;
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (uv_key_cmp_level(&w->keys[mid], &key, level) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t start = lo, t = SMC_NONE;
    bool found = start < w->n && uv_key_cmp_level(&w->keys[start], &key, level) == 0;
    /* the answer for this key, kept where the key alone decides it (not a source without a
     * version, matched among the name's packages) */
    size_t *cached =
        found && !(source && !key.version) ? &w->pick[(size_t)level * w->n + start] : NULL;
    if (!found) {
        t = SMC_NONE;
    } else if (cached && *cached != SMC_NONE - 1) {
        t = *cached;
    } else {
        size_t first = SMC_NONE, holds = SMC_NONE;
        for (size_t k = start; k < w->n && uv_key_cmp_level(&w->keys[k], &key, level) == 0; k++) {
            size_t i = w->keys[k].i;
            if (source && !key.version && cmp_opt(w->keys[k].source, source) != 0) continue;
            if (i < first) first = i;
            if (i < holds && uv_resolved_for(r, w, i)) holds = i;
        }
        t = holds != SMC_NONE ? holds : first;
        if (cached) *cached = t;
    }
    free(want);
    free(source);
    return t;
}

/* The extra of package t named x, or SMC_NONE when it declares none of that name. */
static size_t uv_extra_find(const uv_walk *w, size_t t, const char *x)
{
    uv_extra key = {.pkg = t, .name = x};
    size_t lo = 0, hi = w->extra_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = uv_extra_cmp(&w->extras[mid], &key);
        if (c == 0) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SMC_NONE;
}

/* Follows the edges of one list (dependencies, a group, an extra's) of package from. */
static bool uv_edges(reader *r, uv_walk *w, const cJSON *edges, size_t from)
{
    char what[512], who[256];
    package_words(str(w->pkgs[from], "name"), str(w->pkgs[from], "version"), who, sizeof who);
    for (const cJSON *edge = items(edges); edge; edge = edge->next) {
        const char *name = str(edge, "name");
        if (!name) continue;
        snprintf(what, sizeof what, "%s -> %.100s", who, name);
        if (!marker_holds(r, what, get(edge, "marker"))) continue;
        bool nomem = false;
        size_t t = uv_target(r, w, edge, name, &nomem);
        if (nomem) return false;
        if (t == SMC_NONE) {
            const char *v = str(edge, "version");
            if (!problem(r, "%s needs %.100s%s%.60s, which the lock does not hold", who, name,
                         v ? " " : "", v ? v : ""))
                return false;
            continue;
        }
        if (!w->seen[t]) {
            w->seen[t] = true;
            if (!uv_push(w, t, SMC_NONE)) return false;
        }
        for (const cJSON *x = items(get(edge, "extra")); x; x = x->next) {
            size_t k = cJSON_IsString(x) ? uv_extra_find(w, t, x->valuestring) : SMC_NONE;
            if (k == SMC_NONE || w->extras[k].seen) continue; /* an extra without dependencies */
            w->extras[k].seen = true;
            if (!uv_push(w, t, k)) return false;
        }
    }
    return true;
}

static void uv_walk_free(uv_walk *w)
{
    for (size_t i = 0; w->sources && i < w->n; i++)
        free(w->sources[i]);
    for (size_t i = 0; w->names && i < w->n; i++)
        free(w->names[i]);
    free(w->sources);
    free(w->names);
    free(w->keys);
    free(w->pick);
    free(w->rm);
    free(w->seen);
    free(w->extras);
    free(w->stack);
    free(w->stack_extra);
    free(w->pkgs);
}

/* The indexes: packages by name, version and source; extras by package and name. */
static bool uv_index(uv_walk *w, const cJSON *pkgs)
{
    size_t n = w->n;
    w->pkgs = calloc(n + 1, sizeof *w->pkgs);
    w->names = calloc(n + 1, sizeof *w->names);
    w->sources = calloc(n + 1, sizeof *w->sources);
    w->keys = calloc(n + 1, sizeof *w->keys);
    w->pick = malloc((3 * n + 1) * sizeof *w->pick);
    w->rm = malloc(n + 1);
    w->seen = calloc(n + 1, sizeof *w->seen);
    if (!w->pkgs || !w->names || !w->sources || !w->keys || !w->pick || !w->rm || !w->seen)
        return false;
    for (size_t i = 0; i < 3 * n; i++)
        w->pick[i] = SMC_NONE - 1; /* not yet worked out (SMC_NONE: no package) */
    memset(w->rm, -1, n);
    size_t i = 0, extras = 0;
    for (const cJSON *pkg = items(pkgs); pkg && i < n; pkg = pkg->next, i++) {
        w->pkgs[i] = pkg;
        const char *name = str(pkg, "name");
        size_t len = name ? strlen(name) : 0;
        if (!(w->names[i] = malloc(len + 1))) return false;
        smc_pyname_normalize(name ? name : "", w->names[i], len + 1);
        const cJSON *src = get(pkg, "source");
        if (src && !(w->sources[i] = cJSON_PrintUnformatted(src))) return false;
        w->keys[i] = (uv_key){w->names[i], str(pkg, "version"), w->sources[i], i};
        const cJSON *opt = get(pkg, "optional-dependencies");
        for (const cJSON *x = cJSON_IsObject(opt) ? opt->child : NULL; x; x = x->next)
            extras++;
    }
    qsort(w->keys, n, sizeof *w->keys, uv_key_cmp);
    if (!(w->extras = calloc(extras + 1, sizeof *w->extras))) return false;
    for (i = 0; i < n; i++) {
        const cJSON *opt = get(w->pkgs[i], "optional-dependencies");
        for (const cJSON *x = cJSON_IsObject(opt) ? opt->child : NULL; x; x = x->next)
            w->extras[w->extra_count++] = (uv_extra){.pkg = i, .name = x->string, .edges = x};
    }
    qsort(w->extras, w->extra_count, sizeof *w->extras, uv_extra_cmp);
    return true;
}

static bool read_uv(reader *r, const cJSON *root, char *why, size_t n)
{
    const char *rp = str(root, "requires-python");
    if (rp && smc_pep440_match(rp, r->e->python_full_version) == 0) {
        smc_say(why, n, "it requires Python %.100s, not %s", rp, r->e->python_full_version);
        return false;
    }
    const cJSON *pkgs = get(root, "package");
    if (!cJSON_IsArray(pkgs)) {
        smc_say(why, n, "it holds no [[package]] tables");
        return false;
    }
    uv_walk w = {.n = (size_t)cJSON_GetArraySize(pkgs)};
    bool ok = uv_index(&w, pkgs);
    /* The project: the workspace root (source "."), or where there is none (a virtual
     * workspace), every project of it; with its default group, dev. */
    bool root_here = false;
    for (size_t i = 0; ok && i < w.n; i++) {
        const cJSON *src = get(w.pkgs[i], "source");
        const char *v = str(src, "virtual"), *ed = str(src, "editable");
        root_here |= (v && strcmp(v, ".") == 0) || (ed && strcmp(ed, ".") == 0);
    }
    bool *is_root = ok ? calloc(w.n + 1, sizeof *is_root) : NULL;
    ok = ok && is_root;
    for (size_t i = 0; ok && i < w.n; i++) {
        const cJSON *src = get(w.pkgs[i], "source");
        const char *v = str(src, "virtual"), *ed = str(src, "editable");
        is_root[i] = root_here ? (v && strcmp(v, ".") == 0) || (ed && strcmp(ed, ".") == 0)
                               : uv_project(w.pkgs[i]);
    }
    /* The extras asked for, to walk; and the extras and groups installed as uv's conflict
     * markers name them (`extra == 'extra-4-proj-cu128'`): the project's dev group and those
     * extras, all known before any marker is read. */
    bool *found = ok ? calloc(r->extra_count + 1, sizeof *found) : NULL;
    ok = ok && found;
    for (size_t i = 0; ok && i < w.n; i++) {
        if (!is_root[i]) continue;
        const char *pn = w.names[i];
        ok = add_string(&r->active, &r->active_count,
                        smc_asprintf("group-%zu-%s-dev", strlen(pn), pn));
        for (size_t k = 0; ok && k < r->extra_count; k++) {
            char x[128];
            smc_pyname_normalize(r->extras[k], x, sizeof x);
            size_t e = uv_extra_find(&w, i, x);
            if (e == SMC_NONE) continue;
            found[k] = true;
            ok = add_string(&r->active, &r->active_count,
                            smc_asprintf("extra-%zu-%s-%s", strlen(pn), pn, x));
            if (ok && !w.extras[e].seen) {
                w.extras[e].seen = true;
                ok = uv_push(&w, i, e);
            }
        }
    }
    if (ok && r->active_count) qsort(r->active, r->active_count, sizeof *r->active, cmp_str);
    r->set = true;
    for (size_t i = 0; ok && i < w.n; i++) {
        if (!is_root[i] || w.seen[i]) continue;
        w.seen[i] = true;
        ok = uv_push(&w, i, SMC_NONE) &&
             uv_edges(r, &w, get(get(w.pkgs[i], "dev-dependencies"), "dev"), i);
    }
    for (size_t k = 0; ok && k < r->extra_count; k++)
        if (!found[k])
            ok = problem(r, "--extra %.100s: the project declares no such extra", r->extras[k]);
    free(found);
    if (ok && w.depth == 0) {
        smc_say(why, n, "no package in it is the project (a virtual or editable source)");
        ok = false;
    }
    while (ok && w.depth) {
        size_t p = w.stack[--w.depth], x = w.stack_extra[w.depth];
        ok = uv_edges(r, &w, x == SMC_NONE ? get(w.pkgs[p], "dependencies") : w.extras[x].edges, p);
    }
    /* The project's extras not asked for: what they would install is not judged. One pass: the
     * extras are sorted by package. */
    for (size_t k = 0; ok && k < w.extra_count;) {
        size_t i = w.extras[k].pkg, count = 0, used = 0;
        char left[512] = "";
        for (; k < w.extra_count && w.extras[k].pkg == i; k++) {
            if (!is_root[i] || w.extras[k].seen) continue;
            count++;
            if (used < sizeof left - 1)
                used += (size_t)snprintf(left + used, sizeof left - used, "%s%.60s",
                                         used ? ", " : "", w.extras[k].name);
        }
        char who[256];
        package_words(str(w.pkgs[i], "name"), str(w.pkgs[i], "version"), who, sizeof who);
        if (count)
            ok = note(r,
                      "%s: what its extra%s %s install%s is not judged (--extra NAME: as uv "
                      "sync --extra NAME installs it)",
                      who, count > 1 ? "s" : "", left, count > 1 ? "" : "s");
    }
    free(is_root);
    /* What was reached, in the lock's order, as one wheel each; a virtual project installs
     * nothing, an editable one (a packaged project) is a local directory. */
    for (size_t i = 0; ok && i < w.n; i++) {
        const cJSON *pkg = w.pkgs[i];
        if (!w.seen[i] || uv_source_is(pkg, "virtual")) continue;
        const char *name = str(pkg, "name"), *version = str(pkg, "version");
        char what[256];
        package_words(name, version, what, sizeof what);
        const cJSON *src = get(pkg, "source");
        const cJSON *wheel = best_wheel(get(pkg, "wheels"), r->e);
        if (wheel)
            ok = pin_wheel(r, what, name ? name : "?", version, wheel, str(src, "registry"),
                           str(src, "path"));
        else if (local_directory(pkg))
            ok = note(r, "%s: %s", what, LOCAL_DIRECTORY);
        else
            ok = problem(r, "%s: no wheel for %s%s", what, r->env, instead(pkg));
    }
    uv_walk_free(&w);
    return ok;
}

/* --- requirements.txt ---------------------------------------------------------------------- */

static char *skip_space(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void trim_end(char *p)
{
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        p[--n] = '\0';
}

/* Whether s starts with a URL scheme and "://" (a bare URL line, not a name). */
static bool url_scheme(const char *s)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
    return n > 0 && isalpha((unsigned char)s[0]) && strncmp(s + n, "://", 3) == 0;
}

static bool read_requirements(reader *r, const char *text, size_t len, char *why, size_t n);

/* Whether a requirements file is one of those open, by its device and inode; else it is the next
 * one open. False with why when it is (a file that includes itself, directly or not: pip refuses
 * it, "recursively references itself") or when INCLUDE_MAX are open. */
static bool opened(reader *r, const struct stat *st, char *why, size_t n)
{
    for (unsigned k = 0; k < r->depth; k++)
        if (r->open[k].dev == st->st_dev && r->open[k].ino == st->st_ino) {
            smc_say(why, n, "it includes itself (through the files that include it)");
            return false;
        }
    if (r->depth == INCLUDE_MAX) {
        smc_say(why, n, "requirements files included more than %u deep", INCLUDE_MAX);
        return false;
    }
    r->open[r->depth].dev = st->st_dev;
    r->open[r->depth++].ino = st->st_ino;
    return true;
}

/* -r FILE and -c FILE: that file's lines, read here, as pip reads them: FILE is a path relative
 * to this file's directory, or a file: URL (one on the web is not fetched: a problem). -c's pins
 * constrain the requirements and install nothing; a file that either includes is a requirements
 * file again, as in pip. A file missing or unreadable is a problem; a bad line in it refuses the
 * whole, as a bad line here does. Its problems and notes begin with where it was included. */
static bool include(reader *r, const char *opt, const char *arg, bool constraint, unsigned lineno,
                    char *why, size_t n)
{
    if (!*arg) {
        smc_say(why, n, "line %u: %s names no file", lineno, opt);
        return false;
    }
    if (url_scheme(arg) && strncasecmp(arg, "file:", 5) != 0)
        return problem(r, "line %u: %s %.200s: a requirements file on the web is not fetched",
                       lineno, opt, arg);
    char *path = beside(r->path, arg), *text = NULL, err[256], inner[512] = "";
    size_t len = 0;
    struct stat st;
    int got = -1; /* out of memory */
    if (path && stat(path, &st) != 0) {
        smc_say(err, sizeof err, "%s", strerror(errno));
        got = 0;
    } else if (path && !S_ISREG(st.st_mode)) { /* a FIFO or /dev/stdin would wait for ever */
        smc_say(err, sizeof err, "not a regular file");
        got = 0;
    } else if (path && (r->files == INCLUDED_FILES_MAX ||
                        (uint64_t)st.st_size > INCLUDED_BYTES_MAX - r->bytes)) {
        smc_say(inner, sizeof inner, "more than %u requirements files or %u MiB included",
                INCLUDED_FILES_MAX, INCLUDED_BYTES_MAX >> 20);
        got = 1; /* refused below */
    } else if (path) {
        got =
            smc_read_small_file(path, INCLUDED_BYTES_MAX - r->bytes, &text, &len, err, sizeof err);
        r->files++;
        r->bytes += len;
    }
    bool ok = got > 0;
    if (got == 0) {
        ok = problem(r, "line %u: %s %.200s: %s", lineno, opt, arg, err);
    } else if (inner[0] || (ok && !opened(r, &st, inner, sizeof inner))) {
        ok = false;
    } else if (ok) {
        const char *path_was = r->path;
        char *label_was = r->label;
        bool constraint_was = r->constraint;
        r->label = label_was ? smc_asprintf("%s: line %u: %s %.200s", label_was, lineno, opt, arg)
                             : smc_asprintf("line %u: %s %.200s", lineno, opt, arg);
        r->path = path;
        r->constraint = constraint;
        ok = r->label && read_requirements(r, text, len, inner, sizeof inner);
        free(r->label);
        r->label = label_was;
        r->path = path_was;
        r->constraint = constraint_was;
        r->depth--;
    }
    if (!ok && inner[0]) smc_say(why, n, "line %u: %s %.200s: %s", lineno, opt, arg, inner);
    free(text);
    free(path);
    return ok;
}

/* An option line (pip's file options): the index lines kept; -r and -c read (include); -e of a
 * path a note, of version control a problem; the rest (--find-links, --no-binary, --trusted-host
 * ...) change nothing a pin's wheel is judged by. */
static bool option_line(reader *r, char *p, unsigned lineno, char *why, size_t n)
{
    smc_lock *l = r->l;
    char opt[64], *arg;
    if (p[1] != '-' && p[1] && !strchr(" \t=", p[1])) { /* -rFILE, -i URL */
        snprintf(opt, sizeof opt, "-%c", p[1]);
        arg = p + 2;
    } else {
        size_t len = strcspn(p, " \t=");
        snprintf(opt, sizeof opt, "%.*s", (int)(len < 63 ? len : 63), p);
        arg = p + len;
    }
    arg = skip_space(arg);
    if (*arg == '=') arg = skip_space(arg + 1);
    arg[strcspn(arg, " \t")] = '\0';
    bool index = strcmp(opt, "-i") == 0 || strcmp(opt, "--index-url") == 0;
    if (index || strcmp(opt, "--extra-index-url") == 0) {
        if (!*arg) return problem(r, "line %u: %s names no URL", lineno, opt);
        char *u = smc_strdup(arg);
        if (!u) return false;
        if (!index) return add_string(&l->indexes, &l->index_count, u);
        if (l->index_given) { /* the last --index-url is the one pip uses */
            free(l->indexes[0]);
            l->indexes[0] = u;
            return true;
        }
        if (!add_string(&l->indexes, &l->index_count, u)) return false;
        memmove(l->indexes + 1, l->indexes, (l->index_count - 1) * sizeof *l->indexes);
        l->indexes[0] = u; /* the index first: it replaces the default */
        l->index_given = true;
        return true;
    }
    if (strcmp(opt, "-r") == 0 || strcmp(opt, "--requirement") == 0)
        return include(r, opt, arg, false, lineno, why, n);
    if (strcmp(opt, "-c") == 0 || strcmp(opt, "--constraint") == 0)
        return include(r, opt, arg, true, lineno, why, n);
    if (strcmp(opt, "-e") == 0 || strcmp(opt, "--editable") == 0) {
        /* a path or a file: URL (`uv export` writes -e .), not version control's git+https: */
        if (*arg && (!strstr(arg, "://") || strncasecmp(arg, "file:", 5) == 0))
            return note(r, "line %u: %s %.200s: %s", lineno, opt, arg, LOCAL_DIRECTORY);
        return problem(r,
                       "line %u: %s %.200s: an editable project is built from source, not a wheel",
                       lineno, opt, arg);
    }
    return true;
}

/* One logical line (continuations joined, the comment cut): a pin with its --hash options, or
 * an option of the file. What is not a requirement refuses the file (as pip would refuse it);
 * one not pinned to one version waits for the constraints (settle). In a -c file a pin is a
 * constraint, and a requirement not pinned constrains nothing this reads. */
static bool requirement_line(reader *r, char *line, unsigned lineno, char *why, size_t n)
{
    char *p = skip_space(line);
    trim_end(p);
    if (!*p) return true;
    if (*p == '-') return option_line(r, p, lineno, why, n);
    /* pip's break_args_options: the requirement ends at the first word that starts with '-' */
    char *opts = NULL;
    for (char *q = p; *q;) {
        if (*q == '-' && (q[-1] == ' ' || q[-1] == '\t')) { /* q > p: p is not an option */
            opts = q;
            q[-1] = '\0';
            break;
        }
        q++;
    }
    trim_end(p);
    char name[128] = "", *q = NULL, *url = NULL, *marker = NULL, *version = NULL, *spec = NULL;
    bool bare = url_scheme(p) || *p == '.' || *p == '/';
    if (bare) { /* a wheel's URL or path alone: its name is the wheel's */
        url = p;
        q = p + strcspn(p, " \t");
        if (*q) *q++ = '\0';
        q = skip_space(q);
        if (*q == ';')
            marker = q + 1;
        else if (*q)
            q = NULL;
    } else {
        size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
        if (len == 0 || len >= sizeof name || !isalnum((unsigned char)p[0]) ||
            !isalnum((unsigned char)p[len - 1])) {
            smc_say(why, n, "line %u: '%.200s' is not a requirement (name==version)", lineno, p);
            return false;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        q = skip_space(p + len);
        if (*q == '[') { /* extras change nothing of the wheel */
            char *close = strchr(q, ']');
            q = close ? skip_space(close + 1) : NULL;
        }
        if (q && *q == '@') { /* PEP 508: the URL ends at a space; the marker follows "; " */
            url = skip_space(q + 1);
            q = url + strcspn(url, " \t");
            if (*q) *q++ = '\0';
            q = skip_space(q);
            if (*q == ';')
                marker = q + 1;
            else if (*q || !*url)
                q = NULL;
        } else if (q) {
            char *semi = strchr(q, ';');
            if (semi) {
                *semi = '\0';
                marker = semi + 1;
            }
            trim_end(q);
            size_t end = strlen(q);
            if (*q == '(' && end > 1 && q[end - 1] == ')') { /* name (==1.0) */
                q[end - 1] = '\0';
                q = skip_space(q + 1);
                trim_end(q);
            }
            bool arbitrary = strncmp(q, "===", 3) == 0;
            version = arbitrary                  ? skip_space(q + 3)
                      : strncmp(q, "==", 2) == 0 ? skip_space(q + 2)
                                                 : NULL;
            bool pinned = version && *version && !strpbrk(version, " \t,*;");
            if (pinned && !arbitrary) { /* == wants a PEP 440 version; === any string */
                char pinspec[160];
                snprintf(pinspec, sizeof pinspec, "==%s", version);
                pinned = strlen(version) <= 128 && smc_pep440_match(pinspec, version) == 1;
            }
            if (!pinned && (strlen(q) > 200 || smc_pep440_match(q, "0") < 0)) {
                smc_say(why, n, "line %u: '%.200s' is not pinned to one version (%s==version)",
                        lineno, p, name);
                return false;
            }
            if (!pinned) spec = q; /* its version comes from a constraint, or from nowhere */
        }
    }
    if (!q) {
        smc_say(why, n, "line %u: '%.200s' is not a requirement (name==version)", lineno, p);
        return false;
    }
    /* the wheel a URL names: its name and version, and whether it fits */
    char file[1024] = "";
    smc_wheel_name wn = {0};
    bool wheel = false;
    if (url) {
        url_file(url, file, sizeof file);
        wheel = smc_ends_with(file, ".whl") && smc_wheel_name_parse(file, &wn);
        if (bare && wheel) snprintf(name, sizeof name, "%s", wn.name);
    }
    char what[256]; /* a bare URL that is not a wheel (a project to build) has no name to give */
    snprintf(what, sizeof what, "line %u%s%s", lineno, name[0] ? ": " : "", name);
    if (marker && !marker_text_holds(r, what, skip_space(marker))) return true;
    if (url && !wheel)
        return problem(r, "%s: %.200s is not a wheel: it is built from source", what, url);
    if (url && smc_wheel_rank(r->e, file) < 0)
        return problem(r, "%s: its wheel %.200s is not for %s", what, file, r->env);
    /* A path, or a file: URL. A path is relative to the working directory, as pip and uv take
     * it (pip 26.3 and uv 0.13 tried: not to the file's directory, unlike -r and -c). */
    char *local = NULL;
    if (url && (!url_scheme(url) || strncasecmp(url, "file:", 5) == 0) &&
        !(local = url_scheme(url) ? beside(r->path, url) : smc_strdup(url)))
        return false;
    if (url && !location_ok(local ? local : url)) {
        free(local);
        return problem(r, "%s: '%.200s' is not a URL to fetch", what, url);
    }
    if (spec && r->constraint) return true;
    smc_lock *into = r->constraint ? &r->cons : r->l;
    const char *v = url ? wn.version : spec ? spec : version;
    smc_pin *pin = add_pin(into, name, v, local ? local : url, NULL, NULL);
    free(local);
    if (!pin) return false;
    if (spec) {
        loose *lo = smc_push(&r->loose, r->loose_count, sizeof *r->loose);
        if (!lo) return false;
        lo->pin = r->l->pin_count - 1;
        lo->where = r->label ? smc_asprintf("%s: line %u", r->label, lineno)
                             : smc_asprintf("line %u", lineno);
        r->loose_count++;
        if (!lo->where) return false;
    }
    /* --hash=ALGO:HEX or --hash ALGO:HEX, any number; pip also takes sha384 and sha512 */
    bool hashed = false, other = false;
    for (char *h = opts; opts && *h;) { /* opts: after the requirement, or NULL */
        h = skip_space(h);
        size_t wl = strcspn(h, " \t");
        char *value = NULL;
        if (wl > 7 && strncmp(h, "--hash=", 7) == 0) {
            value = h + 7;
        } else if (wl == 6 && strncmp(h, "--hash", 6) == 0) {
            value = skip_space(h + 6);
            wl = (size_t)(value - h) + strcspn(value, " \t");
        }
        char *next = h + wl;
        if (*next) *next++ = '\0';
        h = next;
        if (!value) continue;
        hashed = true;
        char hex[65];
        if (strncasecmp(value, "sha256:", 7) != 0) {
            other = true;
        } else if (!sha256_of(value, hex)) {
            if (!problem(r, "%s: its hash '%.80s' is not a sha256 of 64 hex digits", what, value))
                return false;
        } else if (!add_string(&pin->hashes, &pin->hash_count, smc_strdup(hex))) {
            return false;
        }
    }
    if (hashed && pin->hash_count == 0 &&
        !problem(r,
                 "%s: none of its hashes is a sha256 of 64 hex digits%s: its file is not checked",
                 what, other ? " (sha384 and sha512 are not checked)" : ""))
        return false;
    if (url && pin->hash_count == 1)
        snprintf(pin->sha256, sizeof pin->sha256, "%s", pin->hashes[0]);
    return true;
}

/* Lines as pip reads them (req_file.py): split at \n, \r\n or \r; a line that ends in '\' is
 * joined to the next, unless it is a comment line (which ends the joined line); then a comment,
 * from a '#' at the start or after a space, is cut, so that a comment ending in '\' swallows the
 * next line. */
static bool read_requirements(reader *r, const char *text, size_t len, char *why, size_t n)
{
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) { /* a UTF-8 byte-order mark, as pip */
        text += 3;
        len -= 3;
    }
    char *line = malloc(LINE_MAX_BYTES + 1);
    if (!line) return false;
    size_t k = 0, i = 0;
    unsigned lineno = 0, first = 1;
    bool ok = true, joining = false, comment = false;
    while (ok && i < len) {
        size_t start = i, end = i;
        while (end < len && text[end] != '\n' && text[end] != '\r')
            end++;
        i = end < len ? end + (text[end] == '\r' && end + 1 < len && text[end + 1] == '\n' ? 2 : 1)
                      : len;
        lineno++;
        if (memchr(text + start, '\0', end - start)) {
            smc_say(why, n, "line %u: a NUL byte: not a requirements file", lineno);
            ok = false;
            break;
        }
        if (!joining) {
            first = lineno;
            k = 0;
            comment = false;
        }
        size_t s = start;
        while (s < end && (text[s] == ' ' || text[s] == '\t'))
            s++;
        bool comment_line = s < end && text[s] == '#';
        bool cont = !comment_line && end > start && text[end - 1] == '\\';
        size_t stop = end;
        while (cont && stop > start && text[stop - 1] == '\\')
            stop--;
        for (size_t c = start; ok && c < stop && !comment_line && !comment; c++) {
            if (text[c] == '#' && (k == 0 || line[k - 1] == ' ' || line[k - 1] == '\t')) {
                comment = true;
            } else if (k == LINE_MAX_BYTES) {
                smc_say(why, n, "line %u: longer than %u bytes", first, LINE_MAX_BYTES);
                ok = false;
            } else {
                line[k++] = text[c];
            }
        }
        if (ok && cont) {
            if (k == LINE_MAX_BYTES) {
                smc_say(why, n, "line %u: longer than %u bytes", first, LINE_MAX_BYTES);
                ok = false;
            } else if (!comment) {
                line[k++] = ' ';
            }
        }
        joining = ok && cont;
        if (ok && !joining) {
            line[k] = '\0';
            ok = requirement_line(r, line, first, why, n);
        }
    }
    if (ok && joining) { /* the last line ends in '\' */
        line[k] = '\0';
        ok = requirement_line(r, line, first, why, n);
    }
    free(line);
    return ok;
}

/* --- what every kind shares ---------------------------------------------------------------- */

/* --extra names a uv.lock's extras; the other kinds list what they install. */
static bool extras_unused(reader *r)
{
    bool ok = true;
    for (size_t k = 0; ok && k < r->extra_count; k++)
        ok = problem(r,
                     "--extra %.100s: only a uv.lock's extras are chosen (this lock names "
                     "what it installs)",
                     r->extras[k]);
    return ok;
}

typedef struct pin_key {
    const char *name; /* normalized */
    size_t i;
} pin_key;

static int pin_key_cmp(const void *pa, const void *pb)
{
    const pin_key *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* A lock's pins by normalized name (then by their order in it). */
typedef struct names {
    char *arena;
    pin_key *keys;
} names;

static void names_free(names *x)
{
    free(x->arena);
    free(x->keys);
}

static bool names_of(const smc_lock *l, names *x)
{
    size_t total = 1;
    for (size_t i = 0; i < l->pin_count; i++)
        total += strlen(l->pins[i].name) + 1;
    x->arena = malloc(total);
    x->keys = malloc((l->pin_count + 1) * sizeof *x->keys);
    if (!x->arena || !x->keys) {
        names_free(x);
        return false;
    }
    for (size_t i = 0, off = 0; i < l->pin_count; i++) {
        size_t len = strlen(l->pins[i].name) + 1;
        smc_pyname_normalize(l->pins[i].name, x->arena + off, len);
        x->keys[i] = (pin_key){x->arena + off, i};
        off += len;
    }
    if (l->pin_count) qsort(x->keys, l->pin_count, sizeof *x->keys, pin_key_cmp);
    return true;
}

static int pin_name_cmp(const void *pa, const void *pb)
{
    return strcmp(((const pin_key *)pa)->name, ((const pin_key *)pb)->name);
}

/* The first of l's pins named name (any spelling), or NULL. */
static const smc_pin *named(const smc_lock *l, const names *x, const char *name)
{
    char norm[128];
    smc_pyname_normalize(name, norm, sizeof norm);
    pin_key key = {norm, 0};
    const pin_key *k =
        l->pin_count ? bsearch(&key, x->keys, l->pin_count, sizeof *k, pin_name_cmp) : NULL;
    while (k && k > x->keys && strcmp(k[-1].name, norm) == 0)
        k--;
    return k ? &l->pins[k->i] : NULL;
}

/* One distribution per name, as an installer allows: a later pin of the same name is dropped,
 * silently where it is the same version, else with a problem naming both versions. In hash-
 * checking mode (some pin has --hash), pip wants hashes on every pin. */
static bool one_per_name(reader *r)
{
    smc_lock *l = r->l;
    if (l->pin_count == 0) return true;
    names x;
    bool *drop = calloc(l->pin_count, sizeof *drop);
    bool ok = drop && names_of(l, &x);
    pin_key *keys = ok ? x.keys : NULL;
    for (size_t g = 0, k; ok && g < l->pin_count; g = k) { /* a name's pins, in the lock's order */
        for (k = g + 1; ok && k < l->pin_count && strcmp(keys[k].name, keys[g].name) == 0; k++) {
            const smc_pin *a = &l->pins[keys[g].i], *b = &l->pins[keys[k].i];
            drop[keys[k].i] = true;
            if (strcmp(a->version, b->version) != 0 || cmp_opt(a->url, b->url) != 0)
                ok = problem(r,
                             "%.100s: it would be installed twice (%.60s and %.60s): %.60s is read",
                             b->name, a->version, b->version, a->version);
        }
    }
    if (ok) {
        size_t kept = 0;
        for (size_t i = 0; i < l->pin_count; i++) {
            if (drop[i])
                pin_free(&l->pins[i]);
            else
                l->pins[kept++] = l->pins[i];
        }
        l->pin_count = kept;
    }
    bool hashing = false;
    for (size_t i = 0; ok && i < l->pin_count; i++)
        hashing |= l->pins[i].hash_count > 0;
    for (size_t i = 0; ok && hashing && i < l->pin_count; i++)
        if (l->pins[i].hash_count == 0 && !l->pins[i].sha256[0])
            ok = problem(r,
                         "%.100s %.60s: no --hash, which pip's hash-checking mode (the other pins "
                         "have hashes) refuses",
                         l->pins[i].name, l->pins[i].version);
    if (keys) names_free(&x);
    free(drop);
    return ok;
}

static bool copy_hashes(smc_pin *to, const smc_pin *from)
{
    for (size_t k = 0; k < from->hash_count; k++)
        if (!add_string(&to->hashes, &to->hash_count, smc_strdup(from->hashes[k]))) return false;
    return true;
}

/* What the constraints (-c) do to the requirements, as pip's resolver takes them: a requirement
 * not pinned gets its constraint's version (and file, and hashes where it has none); one that no
 * constraint pins refuses the file, as before constraints were read; a constraint that excludes
 * a requirement's version, or constraints that pin two versions, are a problem (pip finds
 * nothing to install), and that requirement is left out. */
static bool settle(reader *r, char *why, size_t n)
{
    smc_lock *l = r->l;
    names x;
    if (!names_of(&r->cons, &x)) return false;
    bool ok = true, *drop = calloc(l->pin_count + 1, sizeof *drop),
         *split = calloc(r->cons.pin_count + 1, sizeof *split); /* pinned to two versions */
    if (!drop || !split) ok = false;
    for (size_t g = 0, k; ok && g < r->cons.pin_count; g = k)
        for (k = g + 1; k < r->cons.pin_count && strcmp(x.keys[k].name, x.keys[g].name) == 0; k++)
            split[x.keys[g].i] |= smc_pep440_cmp(r->cons.pins[x.keys[g].i].version,
                                                 r->cons.pins[x.keys[k].i].version) != 0;
    for (size_t i = 0, k = 0; ok && i < l->pin_count; i++) {
        smc_pin *p = &l->pins[i];
        const smc_pin *c = named(&r->cons, &x, p->name);
        const char *where = k < r->loose_count && r->loose[k].pin == i ? r->loose[k++].where : NULL;
        if (c && split[c - r->cons.pins]) {
            ok = problem(r,
                         "%.100s: its constraints pin more than one version: pip finds no version "
                         "to install",
                         p->name);
            drop[i] = true;
        } else if (where && !c) {
            smc_say(why, n, "%s: '%.100s%.200s' is not pinned to one version (%.100s==version)",
                    where, p->name, p->version, p->name);
            ok = false;
        } else if (!c) {
            continue;
        } else if (where && smc_pep440_match(p->version, c->version) != 1) {
            ok = problem(r,
                         "%s: %.100s%.200s: its constraint pins %.60s: pip finds no version to "
                         "install",
                         where, p->name, p->version, c->version);
            drop[i] = true;
        } else if (!where && smc_pep440_cmp(p->version, c->version) != 0) {
            ok = problem(r,
                         "%.100s %.60s: its constraint pins %.60s: pip finds no version to "
                         "install",
                         p->name, p->version, c->version);
            drop[i] = true;
        } else if (where) {
            char *v = smc_strdup(c->version), *u = c->url ? smc_strdup(c->url) : NULL;
            ok = v && (!c->url || u);
            free(p->version);
            free(p->url);
            p->version = v;
            p->url = u;
            if (ok && !p->hash_count) {
                ok = copy_hashes(p, c);
                memcpy(p->sha256, c->sha256, sizeof p->sha256);
            }
        } else if (!p->hash_count && !p->sha256[0]) {
            ok = copy_hashes(p, c);
        }
    }
    size_t kept = 0;
    for (size_t i = 0; ok && i < l->pin_count; i++) {
        if (drop[i])
            pin_free(&l->pins[i]);
        else
            l->pins[kept++] = l->pins[i];
    }
    if (ok) l->pin_count = kept;
    free(drop);
    free(split);
    names_free(&x);
    return ok;
}

bool smc_lock_read(const char *path, const char *text, size_t len, const smc_pyenv *e,
                   const char *const *extras, size_t extra_count, smc_lock *out, char *why,
                   size_t n)
{
    *out = (smc_lock){0};
    why[0] = '\0';
    reader r = {.l = out,
                .e = e,
                .path = path,
                .extras = extras,
                .extra_count = extra_count,
                .bytes = len < INCLUDED_BYTES_MAX ? len : INCLUDED_BYTES_MAX};
    env_words(e, r.env, sizeof r.env);
    const char *base = smc_base_name(path);
    size_t bl = strlen(base);
    bool ok;
    if (bl >= 4 && strcmp(base + bl - 4, ".txt") == 0) {
        struct stat st; /* the file named is the first one open (-r and -c open the others) */
        ok = (stat(path, &st) != 0 || opened(&r, &st, why, n)) &&
             read_requirements(&r, text, len, why, n) && settle(&r, why, n) && extras_unused(&r);
    } else {
        char terr[256];
        cJSON *root = smc_toml_parse(text, len, terr, sizeof terr);
        if (!root) {
            smc_say(why, n, "not TOML: %s", terr);
            smc_sanitize(why);
            return false;
        }
        if (get(root, "lock-version")) {
            ok = read_pylock(&r, root, why, n) && extras_unused(&r);
        } else if (get(root, "package") && get(root, "version")) {
            ok = read_uv(&r, root, why, n);
        } else {
            snprintf(why, n,
                     "TOML, but neither a pylock.toml (lock-version) nor a uv.lock "
                     "(version and [[package]])");
            ok = false;
        }
        cJSON_Delete(root);
    }
    for (size_t i = 0; i < r.active_count; i++)
        free(r.active[i]);
    free(r.active);
    for (size_t i = 0; i < r.loose_count; i++)
        free(r.loose[i].where);
    free(r.loose);
    smc_lock_free(&r.cons);
    if (ok) ok = one_per_name(&r);
    if (!ok && !why[0]) smc_say(why, n, "out of memory");
    if (!ok) smc_lock_free(out);
    smc_sanitize(why);
    return ok;
}
