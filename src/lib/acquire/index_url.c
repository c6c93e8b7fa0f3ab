/* index_url.c: URLs as an index's pages give them (RFC 3986): split, resolved against the page's
 * URL, their file names and #sha256= fragments; and each link taken as one of the page's files
 * or dropped (index_add_file, for both page formats). Links are untrusted and bounded. */
#include "index_page.h"

#include <stdlib.h>
#include <string.h>

/* ---- URLs (RFC 3986) --------------------------------------------------------------------- */

typedef struct url {
    span scheme, auth, path, query, frag;
    bool has_scheme, has_auth, has_query, has_frag;
} url;

/* RFC 3986 appendix B's split: scheme ":" "//" authority path "?" query "#" fragment. */
static void url_split(const char *s, size_t len, url *u)
{
    memset(u, 0, sizeof *u);
    size_t i = 0;
    if (len && is_alpha(s[0])) {
        size_t j = 1;
        while (j < len &&
               (is_alpha(s[j]) || is_digit(s[j]) || s[j] == '+' || s[j] == '-' || s[j] == '.'))
            j++;
        if (j < len && s[j] == ':') {
            u->scheme = (span){s, j};
            u->has_scheme = true;
            i = j + 1;
        }
    }
    if (len - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
        size_t st = i += 2;
        while (i < len && s[i] != '/' && s[i] != '?' && s[i] != '#')
            i++;
        u->auth = (span){s + st, i - st};
        u->has_auth = true;
    }
    size_t st = i;
    while (i < len && s[i] != '?' && s[i] != '#')
        i++;
    u->path = (span){s + st, i - st};
    if (i < len && s[i] == '?') {
        st = ++i;
        while (i < len && s[i] != '#')
            i++;
        u->query = (span){s + st, i - st};
        u->has_query = true;
    }
    if (i < len && s[i] == '#') {
        u->frag = (span){s + i + 1, len - i - 1};
        u->has_frag = true;
    }
}

/* RFC 3986 §5.2.4 remove_dot_segments on buf[0, len) in place (the output never outgrows the
 * input); returns the new length. Each byte is moved once and taken back at most once. */
static size_t remove_dots(char *buf, size_t len)
{
    size_t i = 0, k = 0;
    while (i < len) {
        const char *in = buf + i;
        size_t left = len - i;
        if (left >= 3 && memcmp(in, "../", 3) == 0)
            i += 3;
        else if (left >= 2 && memcmp(in, "./", 2) == 0)
            i += 2;
        else if (left >= 3 && memcmp(in, "/./", 3) == 0)
            i += 2;
        else if (left == 2 && memcmp(in, "/.", 2) == 0)
            i += 1, buf[i] = '/';
        else if ((left >= 4 && memcmp(in, "/../", 4) == 0) ||
                 (left == 3 && memcmp(in, "/..", 3) == 0)) {
            i += left >= 4 ? 3 : 2; /* "/../" or a final "/.." becomes "/" */
            buf[i] = '/';
            while (k > 0 && buf[k - 1] != '/') /* back to the segment's start */
                k--;
            if (k > 0) k--;
        } else if ((left == 1 && in[0] == '.') || (left == 2 && memcmp(in, "..", 2) == 0)) {
            i = len;
        } else {
            size_t j = 1;
            while (j < left && in[j] != '/')
                j++;
            memmove(buf + k, in, j);
            k += j, i += j;
        }
    }
    return k;
}

/* ref (an href or a url key, len bytes) made absolute against base (RFC 3986 §5.2), without its
 * fragment, in new memory: the scheme lower-cased, spaces and bytes above 0x7e percent-encoded.
 * frag gets ref's fragment. NULL (and *bad) when it is not an http(s) URL with a host or has
 * control bytes; NULL alone when out of memory. */
char *index_url_resolve(const char *base, const char *ref, size_t len, span *frag, bool *bad)
{
    *bad = true;
    while (len && html_space(*ref))
        ref++, len--;
    while (len && html_space(ref[len - 1]))
        len--;
    url r, b, t;
    url_split(ref, len, &r);
    *frag = r.has_frag ? r.frag : (span){"", 0};
    size_t blen = base ? strlen(base) : 0;
    if (base) url_split(base, blen, &b);
    char *path = malloc(blen + len + 2);
    if (!path) return *bad = false, NULL;
    size_t plen = 0;
    span p1 = {"", 0}, p2 = {"", 0}; /* the path, as its two pieces before merging */
    if (r.has_scheme) {
        t = r;
        p1 = r.path;
    } else {
        if (!base || !b.has_scheme) goto fail;
        t = r;
        t.scheme = b.scheme;
        if (!r.has_auth) {
            t.auth = b.auth, t.has_auth = b.has_auth;
            if (!r.path.len) {
                p1 = b.path;
                if (!r.has_query) t.query = b.query, t.has_query = b.has_query;
            } else if (r.path.s[0] == '/') {
                p1 = r.path;
            } else if (b.has_auth && !b.path.len) { /* §5.2.3 merge */
                p1 = (span){"/", 1}, p2 = r.path;
            } else {
                size_t cut = b.path.len;
                while (cut && b.path.s[cut - 1] != '/')
                    cut--;
                p1 = (span){b.path.s, cut}, p2 = r.path;
            }
        } else {
            p1 = r.path;
        }
    }
    if (!ieq(t.scheme.s, t.scheme.len, "http") && !ieq(t.scheme.s, t.scheme.len, "https"))
        goto fail;
    if (!t.has_auth || !t.auth.len) goto fail;
    memcpy(path, p1.s, p1.len);
    memcpy(path + p1.len, p2.s, p2.len);
    plen = remove_dots(path, p1.len + p2.len);
    /* the result, each byte at most three */
    size_t cap = 3 * (t.scheme.len + 3 + t.auth.len + plen + 1 + t.query.len) + 1;
    char *out = malloc(cap);
    if (!out) {
        free(path);
        return *bad = false, NULL;
    }
    size_t k = 0;
    span pieces[] = {t.scheme, {"://", 3}, t.auth, {path, plen}, {"?", t.has_query}, t.query};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        for (size_t j = 0; j < pieces[i].len; j++) {
            unsigned char c = (unsigned char)pieces[i].s[j];
            if (c < 0x20 || c == 0x7f) {
                free(out);
                goto fail;
            }
            if (c == ' ' || c > 0x7e) {
                k += (size_t)snprintf(out + k, cap - k, "%%%02X", c);
                continue;
            }
            out[k++] = i == 0 ? lower((char)c) : (char)c;
        }
    }
    out[k] = 0;
    free(path);
    *bad = false;
    return out;
fail:
    free(path);
    return NULL;
}

char *smc_url_filename(const char *u, bool *bad)
{
    *bad = true;
    size_t end = strcspn(u, "?");
    size_t st = end;
    while (st && u[st - 1] != '/')
        st--;
    if (st == end) return NULL;
    char *out = malloc(end - st + 1);
    if (!out) return *bad = false, NULL;
    size_t k = 0;
    for (size_t i = st; i < end; i++) {
        int h, l;
        if (u[i] == '%' && i + 2 < end && (h = hex_val(u[i + 1])) >= 0 &&
            (l = hex_val(u[i + 2])) >= 0) {
            out[k++] = (char)(h << 4 | l);
            i += 2;
        } else {
            out[k++] = u[i];
        }
    }
    out[k] = 0;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)out[i];
        if (c < 0x20 || c == 0x7f || c == '/') {
            free(out);
            return NULL;
        }
    }
    if (!k) {
        free(out);
        return NULL;
    }
    *bad = false;
    return out;
}

/* A sha256 of 64 hex digits into out (lower case), else "". */
void index_take_sha256(const char *s, size_t len, char out[65])
{
    out[0] = 0;
    if (len != 64) return;
    for (size_t i = 0; i < 64; i++)
        if (hex_val(s[i]) < 0) return;
    for (size_t i = 0; i < 64; i++)
        out[i] = lower(s[i]);
    out[64] = 0;
}

/* pip's _hash_url_fragment_re, "[#&]sha256=([^&]*)", on a link's fragment: whether it names
 * one; out gets it when it is 64 hex digits. */
bool index_fragment_sha256(span f, char out[65])
{
    out[0] = 0;
    for (size_t i = 0; i + 7 <= f.len; i++) {
        if ((i == 0 || f.s[i - 1] == '&') && memcmp(f.s + i, "sha256=", 7) == 0) {
            size_t st = i + 7, e = st;
            while (e < f.len && f.s[e] != '&')
                e++;
            index_take_sha256(f.s + st, e - st, out);
            return true;
        }
    }
    return false;
}

bool smc_url_sha256(const char *link, char out[65])
{
    const char *h = strchr(link, '#');
    out[0] = 0;
    return !h || !index_fragment_sha256((span){h + 1, strlen(h + 1)}, out) || out[0];
}

/* ---- a page's files ---------------------------------------------------------------------- */

/* An sdist's name and version: "name-version.tar.gz" (or .zip, .tar.bz2...), split at the last
 * '-' as pip does for a project it knows. */
bool index_sdist_of(const char *f, const char *want, const char *spec)
{
    static const char *const exts[] = {".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar"};
    size_t len = strlen(f), cut = 0;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0] && !cut; i++) {
        size_t el = strlen(exts[i]);
        if (len > el && strcmp(f + len - el, exts[i]) == 0) cut = len - el;
    }
    if (!cut || cut > 200) return false;
    char stem[201], name[201];
    memcpy(stem, f, cut);
    stem[cut] = 0;
    char *dash = strrchr(stem, '-');
    if (!dash) return false;
    *dash = 0;
    smc_pyname_normalize(stem, name, sizeof name);
    return strcmp(name, want) == 0 && smc_pep440_match(spec, dash + 1) == 1;
}

/* Whether a file is one of the project and version the page is read for: a page lists every
 * version (numpy's: 1.9 MB), and a hostile one may list millions. */
static bool wanted(const page *pg, const char *filename)
{
    smc_wheel_name w;
    if (!smc_wheel_name_parse(filename, &w)) return index_sdist_of(filename, pg->want, pg->spec);
    return strcmp(w.name, pg->want) == 0 && smc_pep440_match(pg->spec, w.version) == 1;
}

/* Adds one link. filename: the JSON's, or NULL to take the URL's. rp: requires-python, may be
 * NULL. The href and rp are checked against LINK_MAX here, so both readers share the caps. */
void index_add_file(page *pg, const char *base, span href, const char *filename, span rp,
                     bool yanked, uint64_t size, const char *sha256)
{
    if (pg->oom || pg->too_many) return;
    if (pg->n == FILES_MAX) {
        pg->too_many = true;
        return;
    }
    if (href.len > LINK_MAX || rp.len > LINK_MAX) {
        pg->dropped++;
        return;
    }
    span frag;
    bool bad;
    char *u = index_url_resolve(base, href.s, href.len, &frag, &bad), *name = NULL, *req = NULL;
    if (!u) goto out;
    if (filename) { /* the JSON's own, held to what a URL's segment may decode to */
        bad = !*filename;
        for (const char *p = filename; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '/') bad = true;
        if (!bad && !(name = strdup(filename))) goto out;
    } else {
        name = smc_url_filename(u, &bad);
    }
    if (!name) goto out;
    if (pg->want[0] && !wanted(pg, name)) { /* another version's: not kept, not dropped */
        free(u);
        free(name);
        return;
    }
    if (rp.len) {
        if (!(req = malloc(rp.len + 1))) goto out;
        memcpy(req, rp.s, rp.len);
        req[rp.len] = 0;
    }
    if (pg->n == pg->cap) {
        size_t cap = pg->cap ? pg->cap * 2 : 64;
        smc_index_file *v = realloc(pg->v, cap * sizeof *v);
        if (!v) goto out;
        pg->v = v, pg->cap = cap;
    }
    smc_index_file *f = &pg->v[pg->n++];
    memset(f, 0, sizeof *f);
    f->filename = name;
    f->url = u;
    f->requires_python = req;
    f->yanked = yanked;
    f->size = size;
    if (sha256)
        index_take_sha256(sha256, strlen(sha256), f->sha256);
    else
        index_fragment_sha256(frag, f->sha256);
    return;
out: /* a bad link is dropped; anything else here is memory */
    if (bad)
        pg->dropped++;
    else
        pg->oom = true;
    free(u);
    free(name);
    free(req);
}
