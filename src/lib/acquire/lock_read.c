/* lock_read.c: the helpers every lock format shares (lock_read.h): problems and notes, pins,
 * JSON fields, hashes, file names and locations, markers and the wheel a lock would install.
 * Called by pylock.c, uvlock.c and requirements.c, and by lock.c, which calls those. */
#include "lock_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>

bool lock_add_string(char ***list, size_t *n, char *s)
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
bool lock_listed(char ***list, size_t *count, const char *what, const char *label, const char *fmt,
                 va_list ap)
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
    return lock_add_string(list, count, s);
}

/* A problem with one package: what the lock would install that cannot be judged. */
bool lock_problem(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = lock_listed(&r->l->problems, &r->l->problem_count, "problems", r->label, fmt, ap);
    va_end(ap);
    return ok;
}

/* A note: what the lock names that is left aside on purpose (a local directory: the project). */
bool lock_note(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = lock_listed(&r->l->notes, &r->l->note_count, "notes", r->label, fmt, ap);
    va_end(ap);
    return ok;
}

/* 64 hex digits of a "sha256:HEX" or bare HEX, lower-cased into out; false (out untouched) when
 * not one. */
bool lock_sha256_of(const char *s, char out[65])
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
bool lock_other_algorithm(const char *h)
{
    const char *colon = strchr(h, ':');
    return colon && colon > h && strncasecmp(h, "sha256:", 7) != 0 &&
           strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
               (size_t)(colon - h);
}

smc_pin *lock_add_pin(smc_lock *l, const char *name, const char *version, const char *url,
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

const cJSON *lock_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

const char *lock_str(const cJSON *o, const char *key)
{
    const cJSON *v = lock_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An array's lock_items (cJSON_ArrayForEach would walk an object's members as well). */
const cJSON *lock_items(const cJSON *a)
{
    return cJSON_IsArray(a) ? a->child : NULL;
}

/* The file name a URL or path ends in, percent-decoded ("torch-2.8.0%2Bcu128-..." is "+"). */
void lock_url_file(const char *url, char *out, size_t n)
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
bool lock_location_ok(const char *s)
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
char *lock_beside(const char *lockpath, const char *path)
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
bool lock_marker_text_holds(reader *r, const char *what, const char *marker)
{
    char why[256];
    int v = r->set ? smc_marker_eval_set(marker, r->e, (const char *const *)r->active,
                                         r->active_count, why, sizeof why)
                   : smc_marker_eval(marker, r->e, NULL, why, sizeof why);
    if (v < 0) lock_problem(r, "%s: its marker '%.200s' cannot be read: %s", what, marker, why);
    return v == 1;
}

/* The same for a marker field: an absent one holds; one that is not a string is a problem. */
bool lock_marker_holds(reader *r, const char *what, const cJSON *marker)
{
    if (!marker) return true;
    if (!cJSON_IsString(marker)) {
        lock_problem(r, "%s: its marker is not a string", what);
        return false;
    }
    return lock_marker_text_holds(r, what, marker->valuestring);
}

/* The environment in words, for problems: "cp311 manylinux_2_28_x86_64" from its best tag. */
void lock_env_words(const smc_pyenv *e, char *out, size_t n)
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
void lock_wheel_file(const cJSON *w, char *file, size_t n)
{
    const char *name = lock_str(w, "name"), *filename = lock_str(w, "filename"),
               *url = lock_str(w, "url"), *path = lock_str(w, "path");
    if (name || filename)
        snprintf(file, n, "%s", name ? name : filename);
    else if (url || path)
        lock_url_file(url ? url : path, file, n);
    else
        file[0] = '\0';
}

/* The best of a package's wheels (an array of tables) for e, by pip's tag order: the entry, or
 * NULL. */
const cJSON *lock_best_wheel(const cJSON *wheels, const smc_pyenv *e)
{
    const cJSON *best = NULL, *w;
    long best_rank = -1;
    for (w = lock_items(wheels); w; w = w->next) {
        char file[1024];
        lock_wheel_file(w, file, sizeof file);
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
bool lock_pin_wheel(reader *r, const char *what, const char *name, const char *version,
                    const cJSON *w, const char *index, const char *source_path)
{
    const char *url = lock_str(w, "url"), *path = lock_str(w, "path");
    if (url && strncasecmp(url, "file:", 5) == 0) /* a local wheel, as in requirements.txt */
        path = url, url = NULL;
    if (!url && !path) path = source_path;
    char sha[65] = "";
    const cJSON *hashes = lock_get(w, "hashes");
    const char *h = hashes ? lock_str(hashes, "sha256") : lock_str(w, "hash");
    if (h && !lock_sha256_of(h, sha) && (hashes || !lock_other_algorithm(h)))
        return lock_problem(r, "%s: its wheel's sha256 '%.80s' is not 64 hex digits", what, h);
    if (url && !lock_location_ok(url))
        return lock_problem(r, "%s: its wheel's url '%.200s' is not one to fetch", what, url);
    if (!url && !path) return lock_problem(r, "%s: its wheel names no url or path", what);
    if (!url && !lock_location_ok(path))
        return lock_problem(r, "%s: its wheel's path '%.200s' is not one to open", what, path);
    char *local = url ? NULL : lock_beside(r->path, path);
    if (!url && !local) return false;
    bool ok =
        lock_add_pin(r->l, name, version, url ? url : local, sha[0] ? sha : NULL, index) != NULL;
    free(local);
    return ok;
}

/* What a package that has no wheel for e has instead, for its lock_problem (pylock's sdist, vcs,
 * archive; uv's source kinds). */
const char *lock_instead(const cJSON *pkg)
{
    const cJSON *src = lock_get(pkg, "source");
    if (lock_get(pkg, "vcs") || lock_get(src, "git")) return ": it comes from version control";
    if (lock_get(pkg, "sdist") || lock_get(pkg, "archive"))
        return ": only a source distribution fits";
    return "";
}

/* A local directory (pylock's directory, uv's directory or editable source): the project itself
 * as `uv export` and `pip lock .` write it, or another of its workspace. It is built from its
 * source when installed: a note, not a problem, so that a packaged project's lock is judged as
 * its wheels are. */
bool lock_local_directory(const cJSON *pkg)
{
    const cJSON *src = lock_get(pkg, "source");
    return lock_get(pkg, "directory") || lock_get(src, "directory") || lock_get(src, "editable");
}

/* "name version" of a package, bounded, for problems. */
void lock_package_words(const char *name, const char *version, char *out, size_t n)
{
    snprintf(out, n, "%.100s%s%.60s", name ? name : "?", version ? " " : "",
             version ? version : "");
}

/* strcmp of two strings either of which may be NULL (as "") */
int lock_cmp_opt(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}
