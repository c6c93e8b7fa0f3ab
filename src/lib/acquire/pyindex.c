/* pyindex.c: a package index's project page (PEP 691 JSON or PEP 503 HTML) read into its files,
 * and the one file pip would install from them. The page comes from the network and is untrusted:
 * one pass over it, every link bounded, nothing but http(s) links kept. */
#include "index_page.h"
#include "../base/base.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PEP 691 JSON ----------------------------------------------------------------------- */

static const char *json_string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One element of a PEP 691 page's "files" array, parsed on its own. */
static void json_file(page *pg, const char *base, const char *text, size_t len)
{
    cJSON *f = cJSON_ParseWithLength(text, len);
    const char *u = json_string(f, "url"), *name = json_string(f, "filename");
    if (!cJSON_IsObject(f) || !u) {
        pg->dropped++;
        cJSON_Delete(f);
        return;
    }
    const char *rp = json_string(f, "requires-python"), *sha = NULL;
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(f, "hashes");
    if (cJSON_IsObject(h)) sha = json_string(h, "sha256");
    /* PEP 691: yanked is a boolean or a reason; pip takes "" as not yanked */
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(f, "yanked");
    bool yanked = cJSON_IsTrue(y) || (cJSON_IsString(y) && y->valuestring[0]);
    const cJSON *sz = cJSON_GetObjectItemCaseSensitive(f, "size");
    uint64_t size = 0;
    if (cJSON_IsNumber(sz) && sz->valuedouble >= 0 && sz->valuedouble < 9007199254740992.0)
        size = (uint64_t)sz->valuedouble;
    index_add_file(pg, base, (span){u, strlen(u)}, name, (span){rp ? rp : "", rp ? strlen(rp) : 0},
             yanked, size, sha ? sha : "");
    cJSON_Delete(f);
}

/* ---- PEP 691 JSON, as it comes ---------------------------------------------------------- */

#define ELEMENT_MAX (64u << 10) /* bytes of one "files" element: a real one is a few hundred */
#define NEST_MAX 1000           /* as cJSON's CJSON_NESTING_LIMIT */

/* Where the scan of a JSON page is. The top-level object's members are passed over, but for
 * the "files" array, whose object elements are each parsed alone: nothing document-sized is
 * held, however large the page. */
typedef struct json_state {
    unsigned depth;
    bool in_string, escaped, started, ended;
    bool key_next;      /* the top-level object expects a key (after '{' or ',') */
    bool in_key;        /* reading that key */
    char key[8];        /* its first bytes */
    size_t key_len;
    bool value_is_files; /* the key was "files": its value is next */
    bool in_files, seen_files;
    bool value_next;    /* in "files": an element is next (after '[' or ',') */
    char *elem;         /* the element being read, ELEMENT_MAX at most */
    size_t elem_len;
    bool in_elem, elem_over;
    char why[96];
} json_state;

static bool json_fail(json_state *js, const char *what)
{
    if (!js->why[0]) snprintf(js->why, sizeof js->why, "not a PEP 691 page: %s", what);
    return false;
}

static bool json_feed(json_state *js, page *pg, const char *base, const char *p, size_t n)
{
    for (size_t i = 0; i < n && !js->why[0] && !pg->oom && !pg->too_many; i++) {
        char c = p[i];
        if (js->in_elem && !js->elem_over) {
            if (js->elem_len == ELEMENT_MAX) {
                js->elem_over = true;
            } else {
                js->elem[js->elem_len++] = c;
            }
        }
        if (js->in_string) {
            if (js->escaped) {
                js->escaped = false;
            } else if (c == '\\') {
                js->escaped = true;
            } else if (c == '"') {
                js->in_string = false;
                if (js->in_key) {
                    js->in_key = false;
                    js->value_is_files = js->key_len == 5 && memcmp(js->key, "files", 5) == 0;
                }
            } else if (js->in_key && js->key_len < sizeof js->key) {
                js->key[js->key_len++] = c;
            } else if (js->in_key) {
                js->key_len = sizeof js->key + 1; /* longer than "files" */
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if (js->ended) return json_fail(js, "more after its end");
        if (!js->started) {
            if (c != '{') return json_fail(js, "not a JSON object");
            js->started = js->key_next = true;
            js->depth = 1;
            continue;
        }
        if (js->in_files && js->depth == 2 && js->value_next && c != ']') {
            js->value_next = false;
            if (c == '{') {
                js->in_elem = true;
                js->elem_over = false;
                js->elem[0] = '{';
                js->elem_len = 1;
            } else {
                pg->dropped++; /* an element that is no object */
            }
        }
        switch (c) {
        case '"':
            js->in_string = true;
            if (js->depth == 1 && js->key_next) {
                js->key_next = false;
                js->in_key = true;
                js->key_len = 0;
            }
            break;
        case '{':
        case '[':
            if (++js->depth > NEST_MAX) return json_fail(js, "nested deeper than 1000");
            if (js->depth == 2 && js->value_is_files) {
                if (c != '[') return json_fail(js, "its \"files\" is not an array");
                js->in_files = js->seen_files = js->value_next = true;
            }
            if (js->depth == 2) js->value_is_files = false;
            break;
        case '}':
        case ']':
            if (js->depth == 0) return json_fail(js, "a bracket that closes nothing");
            js->depth--;
            if (js->in_elem && js->depth == 2) {
                js->in_elem = false;
                if (js->elem_over)
                    pg->dropped++;
                else
                    json_file(pg, base, js->elem, js->elem_len);
            }
            if (js->in_files && js->depth == 1) js->in_files = false;
            if (js->depth == 0) js->ended = true;
            break;
        case ',':
            if (js->depth == 1) js->key_next = true;
            if (js->depth == 2 && js->in_files) js->value_next = true;
            break;
        case ':':
            break;
        default:
            if (js->depth == 1 && js->value_is_files)
                return json_fail(js, "its \"files\" is not an array");
            if (js->depth == 1) js->value_is_files = false;
            break;
        }
    }
    return !js->why[0];
}

/* ---- a page as it comes ----------------------------------------------------------------- */

#define HTML_CARRY (1u << 20) /* a tag or comment the window holds whole, at most */

struct smc_index_stream {
    page pg;
    char *base;
    int kind; /* 0 not known yet, 1 JSON, 2 HTML */
    json_state js;
    html_state hs;
    char *held; /* HTML: what the last window left unread */
    size_t held_len, held_cap;
};

smc_index_stream *smc_index_stream_new(const char *project, const char *version)
{
    smc_index_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    bool exact, pre;
    if (project && version) {
        smc_pyname_normalize(project, s->pg.want, sizeof s->pg.want);
        if (!smc_pep440_spec(version, s->pg.spec, sizeof s->pg.spec, &exact, &pre))
            s->pg.want[0] = '\0'; /* all kept */
    }
    return s;
}

/* The page's kind, from its content type or its first byte that is not a blank. */
static void kind_of(smc_index_stream *s, const char *content_type, const char *p, size_t n)
{
    if (s->kind) return;
    if (content_type && strstr(content_type, "json")) {
        s->kind = 1;
        return;
    }
    for (size_t i = 0; i < n && !s->kind; i++)
        if (!html_space(p[i])) s->kind = p[i] == '{' ? 1 : 2;
}

static bool html_feed(smc_index_stream *s, const char *p, size_t n, bool last)
{
    if (s->held_len + n > s->held_cap) {
        size_t cap = s->held_cap ? s->held_cap : 65536;
        while (cap < s->held_len + n)
            cap *= 2;
        char *b = realloc(s->held, cap);
        if (!b) return !(s->pg.oom = true);
        s->held = b;
        s->held_cap = cap;
    }
    memcpy(s->held + s->held_len, p, n);
    s->held_len += n;
    size_t used = index_parse_html(s->held, s->held_len, s->base, &s->pg, &s->hs, last);
    /* A construct longer than the window holds is text: its '<' passed over. */
    while (!last && used == 0 && s->held_len > HTML_CARRY && !s->pg.oom)
        used = 1 + index_parse_html(s->held + 1, s->held_len - 1, s->base, &s->pg, &s->hs, false);
    memmove(s->held, s->held + used, s->held_len - used);
    s->held_len -= used;
    if (s->held_cap > 2 * HTML_CARRY && s->held_len < HTML_CARRY) { /* give back a burst's room */
        char *b = realloc(s->held, HTML_CARRY);
        if (b) s->held = b, s->held_cap = HTML_CARRY;
    }
    return !s->pg.oom && !s->pg.too_many;
}

bool smc_index_stream_feed(smc_index_stream *s, const char *content_type, const char *base_url,
                           const char *p, size_t n)
{
    if (!s->base && base_url && !(s->base = strdup(base_url))) return !(s->pg.oom = true);
    kind_of(s, content_type, p, n);
    if (s->kind == 1) {
        if (!s->js.elem && !(s->js.elem = malloc(ELEMENT_MAX))) return !(s->pg.oom = true);
        return json_feed(&s->js, &s->pg, s->base, p, n);
    }
    if (s->kind == 2) return html_feed(s, p, n, false);
    return true; /* blanks so far */
}

bool smc_index_stream_end(smc_index_stream *s, smc_index_file **files, size_t *n, size_t *dropped,
                          char *why, size_t whylen)
{
    *files = NULL;
    *n = 0;
    if (dropped) *dropped = 0;
    bool ok = true;
    if (s->kind == 2 && !s->pg.oom) html_feed(s, "", 0, true);
    if (s->kind == 1 && !s->js.why[0] && !s->pg.oom && !s->pg.too_many) {
        if (!s->js.ended)
            json_fail(&s->js, s->js.started ? "it ends before its JSON does" : "empty");
        else if (!s->js.seen_files)
            json_fail(&s->js, "no \"files\" array");
    }
    if (s->kind == 1 && s->js.why[0]) {
        smc_say(why, whylen, "%s", s->js.why);
        ok = false;
    } else if (s->pg.oom) {
        smc_say(why, whylen, "out of memory reading the index page");
        ok = false;
    } else if (s->pg.too_many) {
        smc_say(why, whylen, "index page with more than %u files", FILES_MAX);
        ok = false;
    }
    if (ok) {
        *files = s->pg.v;
        *n = s->pg.n;
        if (dropped) *dropped = s->pg.dropped;
        s->pg.v = NULL;
        s->pg.n = 0;
    }
    return ok;
}

void smc_index_stream_free(smc_index_stream *s)
{
    if (!s) return;
    smc_index_files_free(s->pg.v, s->pg.n);
    free(s->base);
    free(s->js.elem);
    free(s->hs.base);
    free(s->held);
    free(s);
}

/* ---- the page --------------------------------------------------------------------------- */

void smc_index_files_free(smc_index_file *files, size_t n)
{
    for (size_t i = 0; files && i < n; i++) {
        free(files[i].filename);
        free(files[i].url);
        free(files[i].requires_python);
    }
    free(files);
}

bool smc_index_parse(const char *body, size_t len, const char *content_type, const char *base_url,
                     smc_index_file **files, size_t *n, size_t *dropped, char *why, size_t whylen)
{
    *files = NULL;
    *n = 0;
    if (dropped) *dropped = 0;
    smc_index_stream *s = smc_index_stream_new(NULL, NULL);
    if (!s) {
        smc_say(why, whylen, "out of memory reading the index page");
        return false;
    }
    smc_index_stream_feed(s, content_type, base_url, body ? body : "", body ? len : 0);
    bool ok = smc_index_stream_end(s, files, n, dropped, why, whylen);
    smc_index_stream_free(s);
    return ok;
}

/* ---- the choice ------------------------------------------------------------------------- */

/* An appender into a message buffer that stops at its end. */
typedef struct msg {
    char *s;
    size_t n, k;
} msg;

static void put(msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(msg *m, const char *fmt, ...)
{
    if (!m->s || m->k + 1 >= m->n) return;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(m->s + m->k, m->n - m->k, fmt, ap);
    va_end(ap);
    if (r > 0) m->k = (size_t)r < m->n - m->k ? m->k + (size_t)r : m->n - 1;
}

/* s cut to 60 bytes with control bytes as '?', for a message. */
static void clean(const char *s, char out[64])
{
    size_t k = 0;
    for (; s && *s && k < 60; s++)
        out[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
    out[k] = 0;
}

/* The distinct interpreter and platform parts of the wheels that did not fit, for the message. */
#define SEEN_MAX 10
typedef struct seen {
    char v[SEEN_MAX][48];
    size_t n;
    bool more;
} seen;

static void note(seen *s, const char *p, size_t len)
{
    if (len >= sizeof s->v[0]) len = sizeof s->v[0] - 1;
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i]) == len && memcmp(s->v[i], p, len) == 0) return;
    if (s->n == SEEN_MAX) {
        s->more = true;
        return;
    }
    memcpy(s->v[s->n], p, len);
    s->v[s->n++][len] = 0;
}

/* Names with numbers in them in the numbers' order: cp39 before cp310. */
static int natural_cmp(const void *x, const void *y)
{
    const char *a = x, *b = y;
    while (*a && *b) {
        if (is_digit(*a) && is_digit(*b)) {
            size_t da = strspn(a, "0123456789"), db = strspn(b, "0123456789");
            int c = da != db ? (da < db ? -1 : 1) : memcmp(a, b, da);
            if (c) return c;
            a += da, b += db;
        } else if (*a != *b) {
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        } else {
            a++, b++;
        }
    }
    return (*a != 0) - (*b != 0);
}

static void put_seen(msg *m, seen *s)
{
    qsort(s->v, s->n, sizeof s->v[0], natural_cmp);
    for (size_t i = 0; i < s->n; i++)
        put(m, "%s%s", i ? ", " : "", s->v[i]);
    if (s->more) put(m, ", ...");
}

/* Build tags (PEP 427): none below any; then by the leading number, then the rest as a string. */
static int build_cmp(const char *a, const char *b)
{
    if (!*a || !*b) return (*a != 0) - (*b != 0);
    size_t da = strspn(a, "0123456789"), db = strspn(b, "0123456789");
    const char *x = a, *y = b;
    while (da > 1 && *x == '0')
        x++, da--;
    while (db > 1 && *y == '0')
        y++, db--;
    int c = da != db ? (da < db ? -1 : 1) : memcmp(x, y, da);
    if (!c) c = strcmp(x + da, y + db);
    return c < 0 ? -1 : c > 0;
}

typedef char version_text[64];

static int by_version_desc(const void *x, const void *y)
{
    return smc_pep440_cmp((const char *)y, (const char *)x);
}

/* What the page has instead, for the message: the releases with wheels next to a pinned
 * version, or the newest three for a range. Only on the way to an error. */
static void put_releases(msg *m, const smc_index_file *files, size_t n, const char *want,
                         const char *version, bool exact)
{
    size_t k = 0, most = n < 65536 ? n : 65536;
    version_text *v = n ? malloc(most * sizeof *v) : NULL;
    if (n && !v) return; /* out of memory: the message without them */
    // cppcheck-suppress knownConditionTrueFalse ; it takes n to be 0 from its caller's !nfiles
    for (size_t i = 0; i < n && k < most; i++) {
        smc_wheel_name w;
        if (files[i].filename && smc_wheel_name_parse(files[i].filename, &w) &&
            strcmp(w.name, want) == 0 && strlen(w.version) < sizeof v[0] &&
            smc_pep440_is_version(w.version, NULL))
            snprintf(v[k++], sizeof v[0], "%s", w.version);
    }
    if (!k) {
        put(m, "; the index has no wheel of it");
        free(v);
        return;
    }
    qsort(v, k, sizeof v[0], by_version_desc);
    size_t u = 1; /* distinct, newest first */
    for (size_t i = 1; i < k; i++)
        if (strcmp(v[i], v[u - 1]) != 0) memmove(v[u++], v[i], sizeof v[0]);
    if (exact) {
        const char *pin = version + strspn(version, "= ");
        size_t below = 0; /* the first at or below the pin */
        while (below < u && smc_pep440_cmp(v[below], pin) > 0)
            below++;
        put(m, "; the nearest releases with wheels:");
        if (below < u) put(m, " %s", v[below]);
        if (below > 0) put(m, "%s %s", below < u ? "," : "", v[below - 1]);
    } else {
        put(m, "; the newest releases with wheels:");
        for (size_t i = 0; i < u && i < 3; i++)
            put(m, "%s %s", i ? "," : "", v[i]);
    }
    free(v);
}

long smc_index_choose(const smc_index_file *files, size_t n, const char *project,
                      const char *version, const smc_pyenv *e, const char *const *hashes,
                      size_t n_hashes, char *why, size_t whylen)
{
    char want[128], spec[160], shown_name[64], shown_ver[64];
    msg m = {why, whylen, 0};
    if (why && whylen) why[0] = 0;
    if (!project || !version || !e || !e->tag_count) {
        put(&m, "no project, version or environment");
        return -1;
    }
    clean(project, shown_name);
    clean(version, shown_ver);
    smc_pyname_normalize(project, want, sizeof want);
    bool exact, pre_named;
    if (!smc_pep440_spec(version, spec, sizeof spec, &exact, &pre_named)) {
        put(&m, "%s: %s is not a version or a specifier set", shown_name, shown_ver);
        return -1;
    }
    if (exact) clean(spec + strspn(spec, "= "), shown_ver);
    long best = -1, best_rank = 0;
    size_t nfiles = 0, nwheels = 0, nsdists = 0, n_rp = 0, n_hash = 0, n_tags = 0, n_yanked = 0,
           n_pre = 0;
    const char *rp_seen = NULL;
    seen interps = {0}, plats = {0};
    /* A second pass takes pre-releases, where the first found only those (packaging's filter). */
    for (int pass = 0; pass < 2 && best < 0 && (pass == 0 || (n_pre && nwheels == n_pre)); pass++) {
        bool take_pre = pre_named || pass == 1;
        nfiles = nwheels = nsdists = n_rp = n_hash = n_tags = n_yanked = 0;
        interps.n = plats.n = 0;
        interps.more = plats.more = false;
        for (size_t i = 0; i < n; i++) {
            const smc_index_file *f = &files[i];
            smc_wheel_name w;
            if (!f->filename) continue;
            if (!smc_wheel_name_parse(f->filename, &w)) {
                if (index_sdist_of(f->filename, want, spec)) nfiles++, nsdists++;
                continue;
            }
            if (strcmp(w.name, want) != 0) continue;
            if (smc_pep440_match(spec, w.version) != 1) continue;
            bool pre = false;
            if (!exact && (!smc_pep440_is_version(w.version, &pre) || (pre && !take_pre))) {
                if (pre && pass == 0) n_pre++;
                if (pre) nfiles++, nwheels++;
                continue;
            }
            nfiles++, nwheels++;
            if (!exact && f->yanked) { /* PEP 592: only a pin takes a yanked file */
                n_yanked++;
                continue;
            }
            if (f->requires_python &&
                smc_pep440_match(f->requires_python, e->python_full_version) == 0) {
                n_rp++;
                if (!rp_seen) rp_seen = f->requires_python;
                continue;
            }
            if (n_hashes) {
                bool listed = false;
                for (size_t h = 0; h < n_hashes && !listed && f->sha256[0]; h++)
                    listed = hashes[h] && strcmp(hashes[h], f->sha256) == 0;
                if (!listed) {
                    n_hash++;
                    continue;
                }
            }
            long rank = smc_wheel_rank(e, f->filename);
            if (rank < 0) {
                n_tags++;
                size_t a = strcspn(w.tags, "-"), b = a + 1 + strcspn(w.tags + a + 1, "-");
                note(&interps, w.tags, a);
                note(&plats, w.tags + b + 1, strlen(w.tags + b + 1));
                continue;
            }
            if (best >= 0) {
                /* pip 26's _sort_key, greater preferred: not yanked, version, -tag rank, build */
                const smc_index_file *o = &files[best];
                smc_wheel_name ow;
                smc_wheel_name_parse(o->filename, &ow);
                int c = (o->yanked > f->yanked) - (o->yanked < f->yanked);
                if (!c) c = smc_pep440_cmp(w.version, ow.version);
                if (!c) c = rank < best_rank ? 1 : rank > best_rank ? -1 : 0;
                if (!c) c = build_cmp(w.build, ow.build);
                if (c <= 0) continue;
            }
            best = (long)i;
            best_rank = rank;
        }
    }
    if (best >= 0) return best;

    const char *t0 = e->tags[0], *d1 = strchr(t0, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    if (!nfiles) {
        if (exact)
            put(&m, "no file of %s %s on the index page (%zu files of other versions or projects)",
                shown_name, shown_ver, n);
        else
            put(&m, "no release of %s matches '%s' (%zu files of other versions or projects)",
                shown_name, shown_ver, n);
        put_releases(&m, files, n, want, spec, exact);
        return -1;
    }
    put(&m, "no wheel of %s %s for %.*s %s: %zu file%s (%zu wheel%s", shown_name, shown_ver,
        d1 ? (int)(d1 - t0) : 0, t0, d2 ? d2 + 1 : "", nfiles, nfiles == 1 ? "" : "s", nwheels,
        nwheels == 1 ? "" : "s");
    if (nsdists) put(&m, ", %zu sdist%s", nsdists, nsdists == 1 ? "" : "s");
    put(&m, ")");
    if (n_yanked) put(&m, "; %zu yanked (taken only when pinned with ==)", n_yanked);
    if (n_rp) {
        char shown_rp[64];
        clean(rp_seen, shown_rp);
        put(&m, "; requires-python %s excludes %s for %zu", shown_rp, e->python_full_version, n_rp);
    }
    if (n_hash) put(&m, "; %zu without a sha256 among the %zu given", n_hash, n_hashes);
    if (n_tags) {
        put(&m, "; tags ");
        put_seen(&m, &interps);
        put(&m, " for ");
        put_seen(&m, &plats);
    }
    return -1;
}
