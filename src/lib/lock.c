/* lock.c: what a lock file would install in one environment. pylock.toml (PEP 751) puts markers
 * on packages and lists every platform's wheels; uv.lock puts markers on the edges of its
 * dependency graph, which is walked from the project (the default dev group included, as `uv
 * sync` installs it), and may hold a package in several versions; requirements.txt pins and
 * hashes, and leaves the choice of file to the index. The files are untrusted: every field is
 * checked for its type, the graph walk is bounded by its packages, and a package that cannot be
 * installed is a problem of the lock, not the end of reading it. */
#include "lock.h"
#include "toml.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>

#define PROBLEMS_MAX 1000
#define LINE_MAX_BYTES (1u << 16)

bool smc_lock_named(const char *path)
{
    const char *base = smc_base_name(path);
    size_t n = strlen(base);
    return strcmp(base, "uv.lock") == 0 || strcmp(base, "pylock.toml") == 0 ||
           (strncmp(base, "pylock.", 7) == 0 && n > 12 && strcmp(base + n - 5, ".toml") == 0) ||
           (strncmp(base, "requirements", 12) == 0 && n > 4 && strcmp(base + n - 4, ".txt") == 0) ||
           (n > 9 && strcmp(base + n - 9, ".lock.txt") == 0);
}

void smc_lock_free(smc_lock *l)
{
    for (size_t i = 0; i < l->pin_count; i++) {
        smc_pin *p = &l->pins[i];
        free(p->name);
        free(p->version);
        free(p->url);
        free(p->index);
        for (size_t k = 0; k < p->hash_count; k++)
            free(p->hashes[k]);
        free(p->hashes);
    }
    free(l->pins);
    for (size_t i = 0; i < l->problem_count; i++)
        free(l->problems[i]);
    free(l->problems);
    for (size_t i = 0; i < l->index_count; i++)
        free(l->indexes[i]);
    free(l->indexes);
    *l = (smc_lock){0};
}

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

static bool problem(smc_lock *l, const char *fmt, ...) SMC_PRINTF(2, 3);
static bool problem(smc_lock *l, const char *fmt, ...)
{
    if (l->problem_count >= PROBLEMS_MAX) return true;
    va_list ap;
    va_start(ap, fmt);
    char *s = smc_vasprintf(fmt, ap);
    va_end(ap);
    return add_string(&l->problems, &l->problem_count, s);
}

/* 64 hex digits of a "sha256:HEX" or bare HEX, lower-cased into out; false when not one. */
static bool sha256_of(const char *s, char out[65])
{
    if (!s) return false;
    if (strncasecmp(s, "sha256:", 7) == 0 || strncasecmp(s, "sha256=", 7) == 0) s += 7;
    for (int i = 0; i < 64; i++) {
        if (!isxdigit((unsigned char)s[i])) return false;
        out[i] = (char)tolower((unsigned char)s[i]);
    }
    out[64] = '\0';
    return s[64] == '\0';
}

static smc_pin *add_pin(smc_lock *l, const char *name, const char *version, const char *url,
                        const char *sha256, const char *index)
{
    smc_pin *p = smc_push(&l->pins, l->pin_count, sizeof *p);
    if (!p) return NULL;
    *p = (smc_pin){.name = smc_strdup(name), .version = smc_strdup(version ? version : ""),
                   .url = url ? smc_strdup(url) : NULL, .index = index ? smc_strdup(index) : NULL};
    l->pin_count++;
    if (sha256) snprintf(p->sha256, sizeof p->sha256, "%s", sha256);
    if (!p->name || !p->version || (url && !p->url) || (index && !p->index)) return NULL;
    return p;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The file name a URL ends in, percent-decoded ("torch-2.8.0%2Bcu128-..." is "+"). */
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

/* A marker that holds (an absent one does); a malformed one is a problem and does not hold. */
static bool marker_holds(smc_lock *l, const char *what, const char *marker, const smc_pyenv *e,
                         const char *extra)
{
    if (!marker) return true;
    char why[256];
    int r = smc_marker_eval(marker, e, extra, why, sizeof why);
    if (r < 0) problem(l, "%s: its marker '%.200s' cannot be read: %s", what, marker, why);
    return r == 1;
}

/* The environment in words, for problems: "cp311 manylinux_2_28_x86_64". */
static const char *env_words(const smc_pyenv *e)
{
    return e->tag_count ? e->tags[0] : "this environment";
}

/* The best of a package's wheels (an array of inline tables with url or path or name) for e:
 * its index, or -1. */
static int best_wheel(const cJSON *wheels, const smc_pyenv *e)
{
    int best = -1, i = 0;
    long best_rank = -1;
    const cJSON *w;
    cJSON_ArrayForEach(w, wheels)
    {
        const char *name = str(w, "name"), *url = str(w, "url"), *path = str(w, "path");
        char file[1024];
        if (name)
            snprintf(file, sizeof file, "%s", name);
        else if (url || path)
            url_file(url ? url : path, file, sizeof file);
        else
            file[0] = '\0';
        long rank = file[0] ? smc_wheel_rank(e, file) : -1;
        if (rank >= 0 && (best < 0 || rank < best_rank)) {
            best = i;
            best_rank = rank;
        }
        i++;
    }
    return best;
}

/* A wheel entry as a pin: its url (or a path beside the lock) and its sha256. */
static bool pin_wheel(smc_lock *l, const char *lockpath, const char *name, const char *version,
                      const cJSON *w, const char *index)
{
    const char *url = str(w, "url"), *path = str(w, "path");
    char sha[65] = "";
    const cJSON *hashes = cJSON_GetObjectItemCaseSensitive(w, "hashes");
    const char *h = hashes ? str(hashes, "sha256") : str(w, "hash");
    if (h && !sha256_of(h, sha))
        return problem(l, "%s %s: its wheel's sha256 '%.80s' is not 64 hex digits", name,
                       version ? version : "", h);
    char *local = NULL;
    if (!url && path) { /* relative to the lock file */
        const char *slash = strrchr(lockpath, '/');
        local = path[0] == '/' || !slash ? smc_strdup(path)
                                         : smc_asprintf("%.*s/%s", (int)(slash - lockpath),
                                                        lockpath, path);
        if (!local) return false;
    }
    if (!url && !local) return problem(l, "%s %s: its wheel names no url or path", name, version ? version : "");
    bool ok = add_pin(l, name, version, url ? url : local, sha[0] ? sha : NULL, index) != NULL;
    free(local);
    return ok;
}

/* What a package that has no wheel for e has instead, for its problem. */
static const char *instead(const cJSON *pkg)
{
    if (cJSON_GetObjectItemCaseSensitive(pkg, "sdist")) return ": only a source distribution fits";
    if (cJSON_GetObjectItemCaseSensitive(pkg, "vcs")) return ": it comes from version control";
    if (cJSON_GetObjectItemCaseSensitive(pkg, "directory")) return ": it is a local directory";
    return "";
}

/* --- pylock.toml (PEP 751) ----------------------------------------------------------------- */

static bool read_pylock(const char *path, const cJSON *root, const smc_pyenv *e, smc_lock *l,
                        char *why, size_t n)
{
    const cJSON *envs = cJSON_GetObjectItemCaseSensitive(root, "environments");
    if (cJSON_IsArray(envs) && cJSON_GetArraySize(envs) > 0) {
        bool any = false;
        const cJSON *m;
        cJSON_ArrayForEach(m, envs)
        {
            if (cJSON_IsString(m) && marker_holds(l, "environments", m->valuestring, e, NULL)) any = true;
        }
        if (!any)
            return problem(l, "none of the lock's environments is %s", env_words(e));
    }
    const char *rp = str(root, "requires-python");
    if (rp && smc_pep440_match(rp, e->python_full_version) == 0) {
        snprintf(why, n, "it requires Python %.100s, not %s", rp, e->python_full_version);
        return false;
    }
    const cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(root, "packages");
    if (pkgs && !cJSON_IsArray(pkgs)) {
        snprintf(why, n, "its packages are not an array of tables");
        return false;
    }
    const cJSON *pkg;
    cJSON_ArrayForEach(pkg, pkgs)
    {
        const char *name = str(pkg, "name"), *version = str(pkg, "version");
        if (!name) {
            if (!problem(l, "a package without a name")) return false;
            continue;
        }
        char what[256];
        snprintf(what, sizeof what, "%.100s %.60s", name, version ? version : "");
        if (!marker_holds(l, what, str(pkg, "marker"), e, NULL)) continue;
        const cJSON *wheels = cJSON_GetObjectItemCaseSensitive(pkg, "wheels");
        int best = cJSON_IsArray(wheels) ? best_wheel(wheels, e) : -1;
        bool ok = best < 0 ? problem(l, "%s: no wheel for %s%s", what, env_words(e), instead(pkg))
                           : pin_wheel(l, path, name, version, cJSON_GetArrayItem(wheels, best),
                                       str(pkg, "index"));
        if (!ok) return false;
    }
    return true;
}

/* --- uv.lock ------------------------------------------------------------------------------- */

typedef struct uv_walk {
    const cJSON **pkgs;
    size_t n;
    char (*names)[128]; /* normalized */
    bool *seen;         /* reached with its base dependencies */
    char **extras;      /* "INDEX extra" reached */
    size_t extra_count;
    size_t *stack; /* work: a package index, and an extra (index into extras, or SMC_NONE) */
    size_t *stack_extra;
    size_t depth, cap;
} uv_walk;

static bool uv_source_is(const cJSON *pkg, const char *kind)
{
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(pkg, "source");
    return cJSON_IsObject(src) && cJSON_GetObjectItemCaseSensitive(src, kind) != NULL;
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

/* The package an edge names: by name, and its version and source where the edge gives them;
 * among several, the first whose resolution-markers hold (uv names the version when that is
 * ambiguous). SMC_NONE when none. */
static size_t uv_target(smc_lock *l, const uv_walk *w, const cJSON *edge, const smc_pyenv *e)
{
    char want[128];
    const char *name = str(edge, "name"), *version = str(edge, "version");
    if (!name) return SMC_NONE;
    smc_pyname_normalize(name, want, sizeof want);
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(edge, "source");
    char *src_text = src ? cJSON_PrintUnformatted(src) : NULL;
    size_t first = SMC_NONE, holds = SMC_NONE;
    for (size_t i = 0; i < w->n && holds == SMC_NONE; i++) {
        if (strcmp(w->names[i], want) != 0) continue;
        const char *v = str(w->pkgs[i], "version");
        if (version && (!v || strcmp(v, version) != 0)) continue;
        if (src_text) {
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(w->pkgs[i], "source");
            char *t = s ? cJSON_PrintUnformatted(s) : NULL;
            bool same = t && strcmp(t, src_text) == 0;
            free(t);
            if (!same) continue;
        }
        if (first == SMC_NONE) first = i;
        const cJSON *rm = cJSON_GetObjectItemCaseSensitive(w->pkgs[i], "resolution-markers"), *m;
        bool any = !cJSON_IsArray(rm) || cJSON_GetArraySize(rm) == 0;
        cJSON_ArrayForEach(m, rm)
        {
            if (!any && cJSON_IsString(m) && marker_holds(l, name, m->valuestring, e, NULL)) any = true;
        }
        if (any) holds = i;
    }
    free(src_text);
    return holds != SMC_NONE ? holds : first;
}

/* Follows the edges of one list (dependencies, a group, an extra's). */
static bool uv_edges(smc_lock *l, uv_walk *w, const cJSON *edges, const smc_pyenv *e,
                     const char *from)
{
    const cJSON *edge;
    cJSON_ArrayForEach(edge, edges)
    {
        const char *name = str(edge, "name");
        if (!name || !marker_holds(l, name, str(edge, "marker"), e, NULL)) continue;
        size_t t = uv_target(l, w, edge, e);
        if (t == SMC_NONE) {
            if (!problem(l, "%.100s needs %.100s, which the lock does not hold", from, name))
                return false;
            continue;
        }
        if (!w->seen[t]) {
            w->seen[t] = true;
            if (!uv_push(w, t, SMC_NONE)) return false;
        }
        const cJSON *extras = cJSON_GetObjectItemCaseSensitive(edge, "extra"), *x;
        cJSON_ArrayForEach(x, extras)
        {
            if (!cJSON_IsString(x)) continue;
            char *key = smc_asprintf("%zu %s", t, x->valuestring);
            if (!key) return false;
            bool known = false;
            for (size_t k = 0; k < w->extra_count && !known; k++)
                known = strcmp(w->extras[k], key) == 0;
            if (known) {
                free(key);
                continue;
            }
            if (!add_string(&w->extras, &w->extra_count, key) ||
                !uv_push(w, t, w->extra_count - 1))
                return false;
        }
    }
    return true;
}

static bool read_uv(const cJSON *root, const smc_pyenv *e, smc_lock *l, char *why, size_t n)
{
    const char *rp = str(root, "requires-python");
    if (rp && smc_pep440_match(rp, e->python_full_version) == 0) {
        snprintf(why, n, "it requires Python %.100s, not %s", rp, e->python_full_version);
        return false;
    }
    const cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(root, "package");
    if (!cJSON_IsArray(pkgs)) {
        snprintf(why, n, "it holds no [[package]] tables");
        return false;
    }
    uv_walk w = {.n = (size_t)cJSON_GetArraySize(pkgs)};
    w.pkgs = calloc(w.n + 1, sizeof *w.pkgs);
    w.names = calloc(w.n + 1, sizeof *w.names);
    w.seen = calloc(w.n + 1, sizeof *w.seen);
    bool ok = w.pkgs && w.names && w.seen;
    size_t i = 0;
    const cJSON *pkg;
    cJSON_ArrayForEach(pkg, pkgs)
    {
        if (!ok) break;
        w.pkgs[i] = pkg;
        const char *name = str(pkg, "name");
        smc_pyname_normalize(name ? name : "", w.names[i], sizeof w.names[i]);
        i++;
    }
    /* The project: what `uv sync` installs from, with its default group. */
    for (i = 0; ok && i < w.n; i++)
        if (uv_source_is(w.pkgs[i], "virtual") || uv_source_is(w.pkgs[i], "editable")) {
            w.seen[i] = true;
            ok = uv_push(&w, i, SMC_NONE);
            const cJSON *groups = cJSON_GetObjectItemCaseSensitive(w.pkgs[i], "dev-dependencies");
            const cJSON *dev = groups ? cJSON_GetObjectItemCaseSensitive(groups, "dev") : NULL;
            if (ok && dev) ok = uv_edges(l, &w, dev, e, w.names[i]);
        }
    if (ok && w.depth == 0) {
        snprintf(why, n, "no package in it is the project (a virtual or editable source)");
        ok = false;
    }
    while (ok && w.depth) {
        size_t p = w.stack[--w.depth], x = w.stack_extra[w.depth];
        const cJSON *edges;
        if (x == SMC_NONE) {
            edges = cJSON_GetObjectItemCaseSensitive(w.pkgs[p], "dependencies");
        } else {
            const cJSON *opt = cJSON_GetObjectItemCaseSensitive(w.pkgs[p], "optional-dependencies");
            edges = opt ? cJSON_GetObjectItemCaseSensitive(opt, strchr(w.extras[x], ' ') + 1) : NULL;
        }
        ok = uv_edges(l, &w, edges, e, w.names[p]);
    }
    /* What was reached, in the lock's order, as one wheel each. */
    for (i = 0; ok && i < w.n; i++) {
        pkg = w.pkgs[i];
        if (!w.seen[i] || uv_source_is(pkg, "virtual") || uv_source_is(pkg, "editable")) continue;
        const char *name = str(pkg, "name"), *version = str(pkg, "version");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(pkg, "source");
        const char *registry = src ? str(src, "registry") : NULL;
        const cJSON *wheels = cJSON_GetObjectItemCaseSensitive(pkg, "wheels");
        int best = cJSON_IsArray(wheels) ? best_wheel(wheels, e) : -1;
        if (best < 0)
            ok = problem(l, "%.100s %.60s: no wheel for %s%s", name ? name : "?",
                         version ? version : "", env_words(e), instead(pkg));
        else
            ok = pin_wheel(l, "", name ? name : "?", version, cJSON_GetArrayItem(wheels, best),
                           registry);
    }
    for (i = 0; i < w.extra_count; i++)
        free(w.extras[i]);
    free(w.extras);
    free(w.stack);
    free(w.stack_extra);
    free(w.pkgs);
    free(w.names);
    free(w.seen);
    if (!ok && !why[0]) snprintf(why, n, "out of memory");
    return ok;
}

/* --- requirements.txt ---------------------------------------------------------------------- */

/* One logical line (continuations joined, the comment cut): a pin with its --hash options, or
 * an option of the file. */
static bool requirement_line(smc_lock *l, char *line, const smc_pyenv *e, char *why, size_t n,
                             unsigned lineno)
{
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p) return true;
    if (*p == '-') { /* options of the file */
        char *arg = p + strcspn(p, " \t=");
        if (*arg) *arg++ = '\0';
        while (*arg == ' ' || *arg == '\t' || *arg == '=')
            arg++;
        arg[strcspn(arg, " \t")] = '\0';
        if (strcmp(p, "-i") == 0 || strcmp(p, "--index-url") == 0) {
            l->index_given = true;
            char *u = smc_strdup(arg);
            if (!u || !add_string(&l->indexes, &l->index_count, u)) return false;
            /* the index first: it is the default */
            memmove(l->indexes + 1, l->indexes, (l->index_count - 1) * sizeof *l->indexes);
            l->indexes[0] = u;
            return true;
        }
        if (strcmp(p, "--extra-index-url") == 0)
            return add_string(&l->indexes, &l->index_count, smc_strdup(arg));
        if (strcmp(p, "-r") == 0 || strcmp(p, "--requirement") == 0 || strcmp(p, "-c") == 0 ||
            strcmp(p, "--constraint") == 0 || strcmp(p, "-e") == 0 || strcmp(p, "--editable") == 0)
            return problem(l, "line %u: %s %.200s is not followed: name that file too", lineno, p,
                           arg);
        return true; /* --find-links, --no-binary ...: nothing a pin's wheel depends on here */
    }
    /* NAME[extras] (== VERSION | @ URL) [; MARKER] [--hash=sha256:HEX ...] */
    char *hashes = strstr(p, "--hash");
    if (hashes) *hashes = '\0';
    char *marker = strchr(p, ';');
    if (marker) *marker++ = '\0';
    char *end = p + strlen(p);
    while (end > p && isspace((unsigned char)end[-1]))
        *--end = '\0';
    size_t name_len = strcspn(p, " \t[=<>!~@;");
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(name_len < 127 ? name_len : 127), p);
    char *rest = p + name_len;
    if (*rest == '[') rest = strchr(rest, ']') ? strchr(rest, ']') + 1 : rest + strlen(rest);
    while (isspace((unsigned char)*rest))
        rest++;
    const char *url = NULL, *version = NULL;
    if (*rest == '@') {
        url = rest + 1;
        while (isspace((unsigned char)*url))
            url++;
    } else if (strncmp(rest, "===", 3) == 0 || (strncmp(rest, "==", 2) == 0 && !strchr(rest, ','))) {
        version = rest + (rest[2] == '=' ? 3 : 2);
        while (isspace((unsigned char)*version))
            version++;
        if (strchr(version, '*')) version = NULL;
    }
    if (!name[0] || (!url && (!version || !*version))) {
        snprintf(why, n, "line %u: '%.200s' is not pinned to one version (name==version)", lineno,
                 p);
        return false;
    }
    char what[256];
    snprintf(what, sizeof what, "line %u: %s", lineno, name);
    if (marker && !marker_holds(l, what, marker, e, NULL)) return true;
    smc_pin *pin = add_pin(l, name, version ? version : "", NULL, NULL, NULL);
    if (!pin) return false;
    if (url) {
        if (!(pin->url = smc_strdup(url))) return false;
    }
    for (char *h = hashes ? hashes + 1 : NULL; h && (h = strstr(h, "-hash")) != NULL;) {
        char *v = h + 5;
        while (*v == '=' || *v == ' ' || *v == '\t')
            v++;
        char hex[65], word[80];
        size_t wl = strcspn(v, " \t");
        snprintf(word, sizeof word, "%.*s", (int)(wl < 79 ? wl : 79), v);
        h = v + wl;
        if (strncmp(word, "sha256:", 7) != 0) continue; /* other algorithms are not checked */
        if (!sha256_of(word, hex))
            return problem(l, "line %u: '%.80s' is not a sha256 of 64 hex digits", lineno, word);
        if (!add_string(&pin->hashes, &pin->hash_count, smc_strdup(hex))) return false;
    }
    if (url && pin->hash_count == 1) snprintf(pin->sha256, sizeof pin->sha256, "%s", pin->hashes[0]);
    return true;
}

static bool read_requirements(const char *text, size_t len, const smc_pyenv *e, smc_lock *l,
                              char *why, size_t n)
{
    char *line = malloc(LINE_MAX_BYTES + 1);
    if (!line) return false;
    size_t k = 0;
    unsigned lineno = 1, first = 1;
    bool ok = true, comment = false;
    for (size_t i = 0; ok && i <= len; i++) {
        char c = i < len ? text[i] : '\n';
        if (c == '\r') continue;
        if (c == '\n') {
            bool cont = !comment && k > 0 && line[k - 1] == '\\';
            if (cont) {
                line[--k] = ' ';
                k++;
            } else {
                line[k] = '\0';
                ok = requirement_line(l, line, e, why, n, first);
                k = 0;
                comment = false;
                first = lineno + 1;
            }
            lineno++;
            continue;
        }
        if (c == '#' && (k == 0 || line[k - 1] == ' ' || line[k - 1] == '\t')) comment = true;
        if (comment) continue;
        if (c == '\0') {
            snprintf(why, n, "line %u: a NUL byte: not a requirements file", lineno);
            ok = false;
        } else if (k == LINE_MAX_BYTES) {
            snprintf(why, n, "line %u: longer than %u bytes", lineno, LINE_MAX_BYTES);
            ok = false;
        } else {
            line[k++] = c;
        }
    }
    free(line);
    return ok;
}

bool smc_lock_read(const char *path, const char *text, size_t len, const smc_pyenv *e,
                   smc_lock *out, char *why, size_t n)
{
    *out = (smc_lock){0};
    why[0] = '\0';
    const char *base = smc_base_name(path);
    size_t bl = strlen(base);
    bool ok;
    if (bl >= 4 && strcmp(base + bl - 4, ".txt") == 0) {
        ok = read_requirements(text, len, e, out, why, n);
    } else {
        char terr[256];
        cJSON *root = smc_toml_parse(text, len, terr, sizeof terr);
        if (!root) {
            snprintf(why, n, "not TOML: %s", terr);
            return false;
        }
        if (cJSON_GetObjectItemCaseSensitive(root, "lock-version")) {
            ok = read_pylock(path, root, e, out, why, n);
        } else if (cJSON_GetObjectItemCaseSensitive(root, "package") &&
                   cJSON_GetObjectItemCaseSensitive(root, "version")) {
            ok = read_uv(root, e, out, why, n);
        } else {
            snprintf(why, n, "TOML, but neither a pylock.toml (lock-version) nor a uv.lock "
                             "(version and [[package]])");
            ok = false;
        }
        cJSON_Delete(root);
    }
    if (!ok && !why[0]) snprintf(why, n, "out of memory");
    if (!ok) smc_lock_free(out);
    return ok;
}
