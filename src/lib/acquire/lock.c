/* lock.c: what a lock file would install in one environment. pylock.toml (PEP 751) puts markers
 * on packages and lists every platform's wheels; uv.lock puts markers on the edges of its
 * dependency graph, which is walked from the project (the default dev group included, as `uv
 * sync` installs it), and may hold a package in several versions; requirements.txt pins and
 * hashes, and leaves the choice of file to the index. The files are untrusted: every field is
 * checked for its type, lookups go through sorted indexes (a lock of 20,000 packages is read in
 * linear-logarithmic time), the graph walk visits each package and extra once, and a package that
 * cannot be installed is a problem of the lock, not the end of reading it. */
#include "lock_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>

bool smc_lock_named(const char *path)
{
    const char *base = smc_base_name(path);
    size_t n = strlen(base);
    return strcmp(base, "uv.lock") == 0 || strcmp(base, "pylock.toml") == 0 ||
           (strncmp(base, "pylock.", 7) == 0 && n > 12 && strcmp(base + n - 5, ".toml") == 0) ||
           (strncmp(base, "requirements", 12) == 0 && n > 4 && strcmp(base + n - 4, ".txt") == 0) ||
           (n > 9 && strcmp(base + n - 9, ".lock.txt") == 0);
}

/* The quoted value of a top-level `key = "..."` of TOML text (before its first table), or
 * false. */
static bool toml_top_string(const char *text, size_t len, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p < e && *p == '[') return false; /* the first table: no more top-level keys */
        // cppcheck-suppress knownConditionTrueFalse ; a line longer than the key is not rare
        if ((size_t)(e - p) > kl && memcmp(p, key, kl) == 0) {
            const char *q = p + kl;
            while (q < e && (*q == ' ' || *q == '\t'))
                q++;
            if (q < e && *q == '=') {
                q++;
                while (q < e && (*q == ' ' || *q == '\t'))
                    q++;
                const char *close = q < e && (*q == '"' || *q == '\'') /* basic or literal */
                                        ? memchr(q + 1, *q, (size_t)(e - q - 1))
                                        : NULL;
                if (!close || (size_t)(close - q - 1) >= n) return false;
                snprintf(out, n, "%.*s", (int)(close - q - 1), q + 1);
                return true;
            }
        }
        p = e + 1;
    }
    return false;
}

bool smc_lock_python(const char *text, size_t len, char *python, size_t pn, char *how, size_t hn)
{
    /* requires-python that admits one minor of Python 3 */
    char rp[128];
    int only = -1, seen = 0;
    if (toml_top_string(text, len, "requires-python", rp, sizeof rp))
        for (int m = 6; m <= 30; m++) {
            char lo[16], hi[16];
            snprintf(lo, sizeof lo, "3.%d.0", m);
            snprintf(hi, sizeof hi, "3.%d.999", m);
            if (smc_pep440_match(rp, lo) == 1 || smc_pep440_match(rp, hi) == 1) only = m, seen++;
        }
    if (seen == 1) {
        snprintf(python, pn, "3.%d", only);
        snprintf(how, hn, "its requires-python (%s) admits no other", rp);
        return true;
    }
    /* every wheel it names built for one CPython (cpXY, not abi3): the tags of each ".whl" */
    int minor = -1, wheels = 0;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *w = memmem(p, (size_t)(end - p), ".whl", 4);
        if (!w) break;
        const char *s = w;
        while (s > text && s - w < 512 && !strchr("/\"' =\n\t", s[-1]))
            s--;
        char name[600];
        smc_wheel_name wn;
        snprintf(name, sizeof name, "%.*s.whl", (int)(w - s < 590 ? w - s : 590), s);
        p = w + 4;
        if (!smc_wheel_name_parse(name, &wn)) continue;
        const char *t = wn.tags, *d1 = strchr(t, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
        if (!d2) continue;
        if (strncmp(d1 + 1, "abi3", 4) == 0 || strncmp(t, "cp3", 3) != 0 ||
            strspn(t + 3, "0123456789") != (size_t)(d1 - t - 3))
            return false; /* a wheel for any Python, or several: nothing fixed */
        int m = atoi(t + 3);
        if (minor >= 0 && m != minor) return false;
        minor = m;
        wheels++;
    }
    if (minor < 0) return false;
    snprintf(python, pn, "3.%d", minor);
    snprintf(how, hn, "each of its %d wheel%s is built for cp3%d", wheels, wheels == 1 ? "" : "s",
             minor);
    return true;
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

/* --- what every kind shares ---------------------------------------------------------------- */

/* --extra names a uv.lock's extras; the other kinds list what they install. */
static bool extras_unused(reader *r)
{
    bool ok = true;
    for (size_t k = 0; ok && k < r->extra_count; k++)
        ok = lock_problem(r,
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
            if (strcmp(a->version, b->version) != 0 || lock_cmp_opt(a->url, b->url) != 0)
                ok = lock_problem(
                    r, "%.100s: it would be installed twice (%.60s and %.60s): %.60s is read",
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
            ok = lock_problem(
                r,
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
        if (!lock_add_string(&to->hashes, &to->hash_count, smc_strdup(from->hashes[k])))
            return false;
    return true;
}

/* What the constraints (-c) do to the requirements, as pip's resolver takes them: a requirement
 * not pinned gets its constraint's version (and file, and hashes where it has none); one that no
 * constraint pins keeps its specifier set, resolved later as pip would (the newest release that
 * matches and has a wheel for the environment); a constraint that excludes
 * a requirement's version, or constraints that pin two versions, are a lock_problem (pip finds
 * nothing to install), and that requirement is left out. */
static bool settle(reader *r)
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
            ok = lock_problem(
                r,
                "%.100s: its constraints pin more than one version: pip finds no version "
                "to install",
                p->name);
            drop[i] = true;
        } else if (!c) { /* a range no constraint narrows is resolved as pip would */
            continue;
        } else if (where && smc_pep440_match(p->version, c->version) != 1) {
            ok =
                lock_problem(r,
                             "%s: %.100s%.200s: its constraint pins %.60s: pip finds no version to "
                             "install",
                             where, p->name, p->version, c->version);
            drop[i] = true;
        } else if (!where && smc_pep440_cmp(p->version, c->version) != 0) {
            ok = lock_problem(r,
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
    lock_env_words(e, r.env, sizeof r.env);
    const char *base = smc_base_name(path);
    size_t bl = strlen(base);
    bool ok;
    if (bl >= 4 && strcmp(base + bl - 4, ".txt") == 0) {
        struct stat st; /* the file named is the first one open (-r and -c open the others) */
        ok = (stat(path, &st) != 0 || lock_opened(&r, &st, why, n)) &&
             lock_read_requirements(&r, text, len, why, n) && settle(&r) && extras_unused(&r);
    } else {
        char terr[256];
        cJSON *root = smc_toml_parse(text, len, terr, sizeof terr);
        if (!root) {
            smc_say(why, n, "not TOML: %s", terr);
            smc_sanitize(why);
            return false;
        }
        if (lock_get(root, "lock-version")) {
            ok = lock_read_pylock(&r, root, why, n) && extras_unused(&r);
        } else if (lock_get(root, "package") && lock_get(root, "version")) {
            ok = lock_read_uv(&r, root, why, n);
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
