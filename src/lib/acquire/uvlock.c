/* uvlock.c: uv.lock: markers on the edges of its dependency graph, which is walked from the
 * project (the default dev group included, as `uv sync` installs it); a package may be there in
 * several versions. Lookups go through sorted indexes, and the walk visits each package and extra
 * once. */
#include "lock_read.h"

#include <stdlib.h>
#include <string.h>

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

/* Levels of an edge's key: its name; and version; and source. */
static int uv_key_cmp_level(const uv_key *a, const uv_key *b, int level)
{
    int c = strcmp(a->name, b->name);
    if (c || level == 0) return c;
    if ((c = lock_cmp_opt(a->version, b->version)) || level == 1) return c;
    return lock_cmp_opt(a->source, b->source);
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
    return lock_get(lock_get(pkg, "source"), kind) != NULL;
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
        const cJSON *rm = lock_get(w->pkgs[i], "resolution-markers");
        bool any = !cJSON_IsArray(rm) || cJSON_GetArraySize(rm) == 0;
        char what[256];
        lock_package_words(lock_str(w->pkgs[i], "name"), lock_str(w->pkgs[i], "version"), what,
                           sizeof what);
        for (const cJSON *m = lock_items(rm); m && !any; m = m->next)
            any = lock_marker_holds(r, what, m);
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
    const cJSON *src = lock_get(edge, "source");
    char *source = src ? cJSON_PrintUnformatted(src) : NULL;
    if (!want || (src && !source)) {
        free(want);
        free(source);
        *nomem = true;
        return SMC_NONE;
    }
    smc_pyname_normalize(name, want, strlen(name) + 1);
    uv_key key = {.name = want, .version = lock_str(edge, "version"), .source = source};
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
            if (source && !key.version && lock_cmp_opt(w->keys[k].source, source) != 0) continue;
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
    lock_package_words(lock_str(w->pkgs[from], "name"), lock_str(w->pkgs[from], "version"), who,
                       sizeof who);
    for (const cJSON *edge = lock_items(edges); edge; edge = edge->next) {
        const char *name = lock_str(edge, "name");
        if (!name) continue;
        snprintf(what, sizeof what, "%s -> %.100s", who, name);
        if (!lock_marker_holds(r, what, lock_get(edge, "marker"))) continue;
        bool nomem = false;
        size_t t = uv_target(r, w, edge, name, &nomem);
        if (nomem) return false;
        if (t == SMC_NONE) {
            const char *v = lock_str(edge, "version");
            if (!lock_problem(r, "%s needs %.100s%s%.60s, which the lock does not hold", who, name,
                              v ? " " : "", v ? v : ""))
                return false;
            continue;
        }
        if (!w->seen[t]) {
            w->seen[t] = true;
            if (!uv_push(w, t, SMC_NONE)) return false;
        }
        for (const cJSON *x = lock_items(lock_get(edge, "extra")); x; x = x->next) {
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
    for (const cJSON *pkg = lock_items(pkgs); pkg && i < n; pkg = pkg->next, i++) {
        w->pkgs[i] = pkg;
        const char *name = lock_str(pkg, "name");
        size_t len = name ? strlen(name) : 0;
        if (!(w->names[i] = malloc(len + 1))) return false;
        smc_pyname_normalize(name ? name : "", w->names[i], len + 1);
        const cJSON *src = lock_get(pkg, "source");
        if (src && !(w->sources[i] = cJSON_PrintUnformatted(src))) return false;
        w->keys[i] = (uv_key){w->names[i], lock_str(pkg, "version"), w->sources[i], i};
        const cJSON *opt = lock_get(pkg, "optional-dependencies");
        for (const cJSON *x = cJSON_IsObject(opt) ? opt->child : NULL; x; x = x->next)
            extras++;
    }
    qsort(w->keys, n, sizeof *w->keys, uv_key_cmp);
    if (!(w->extras = calloc(extras + 1, sizeof *w->extras))) return false;
    for (i = 0; i < n; i++) {
        const cJSON *opt = lock_get(w->pkgs[i], "optional-dependencies");
        for (const cJSON *x = cJSON_IsObject(opt) ? opt->child : NULL; x; x = x->next)
            w->extras[w->extra_count++] = (uv_extra){.pkg = i, .name = x->string, .edges = x};
    }
    qsort(w->extras, w->extra_count, sizeof *w->extras, uv_extra_cmp);
    return true;
}

bool lock_read_uv(reader *r, const cJSON *root, char *why, size_t n)
{
    const char *rp = lock_str(root, "requires-python");
    if (rp && smc_pep440_match(rp, r->e->python_full_version) == 0) {
        smc_say(why, n, "it requires Python %.100s, not %s", rp, r->e->python_full_version);
        return false;
    }
    const cJSON *pkgs = lock_get(root, "package");
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
        const cJSON *src = lock_get(w.pkgs[i], "source");
        const char *v = lock_str(src, "virtual"), *ed = lock_str(src, "editable");
        root_here |= (v && strcmp(v, ".") == 0) || (ed && strcmp(ed, ".") == 0);
    }
    bool *is_root = ok ? calloc(w.n + 1, sizeof *is_root) : NULL;
    ok = ok && is_root;
    for (size_t i = 0; ok && i < w.n; i++) {
        const cJSON *src = lock_get(w.pkgs[i], "source");
        const char *v = lock_str(src, "virtual"), *ed = lock_str(src, "editable");
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
        ok = lock_add_string(&r->active, &r->active_count,
                             smc_asprintf("group-%zu-%s-dev", strlen(pn), pn));
        for (size_t k = 0; ok && k < r->extra_count; k++) {
            char x[128];
            smc_pyname_normalize(r->extras[k], x, sizeof x);
            size_t e = uv_extra_find(&w, i, x);
            if (e == SMC_NONE) continue;
            found[k] = true;
            ok = lock_add_string(&r->active, &r->active_count,
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
             uv_edges(r, &w, lock_get(lock_get(w.pkgs[i], "dev-dependencies"), "dev"), i);
    }
    for (size_t k = 0; ok && k < r->extra_count; k++)
        if (!found[k])
            ok =
                lock_problem(r, "--extra %.100s: the project declares no such extra", r->extras[k]);
    free(found);
    if (ok && w.depth == 0) {
        smc_say(why, n, "no package in it is the project (a virtual or editable source)");
        ok = false;
    }
    while (ok && w.depth) {
        size_t p = w.stack[--w.depth], x = w.stack_extra[w.depth];
        ok = uv_edges(r, &w,
                      x == SMC_NONE ? lock_get(w.pkgs[p], "dependencies") : w.extras[x].edges, p);
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
        lock_package_words(lock_str(w.pkgs[i], "name"), lock_str(w.pkgs[i], "version"), who,
                           sizeof who);
        if (count)
            ok = lock_note(r,
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
        const char *name = lock_str(pkg, "name"), *version = lock_str(pkg, "version");
        char what[256];
        lock_package_words(name, version, what, sizeof what);
        const cJSON *src = lock_get(pkg, "source");
        const cJSON *wheel = lock_best_wheel(lock_get(pkg, "wheels"), r->e);
        if (wheel)
            ok = lock_pin_wheel(r, what, name ? name : "?", version, wheel,
                                lock_str(src, "registry"), lock_str(src, "path"));
        else if (lock_local_directory(pkg))
            ok = lock_note(r, "%s: %s", what, LOCAL_DIRECTORY);
        else
            ok = lock_problem(r, "%s: no wheel for %s%s", what, r->env, lock_instead(pkg));
    }
    uv_walk_free(&w);
    return ok;
}
