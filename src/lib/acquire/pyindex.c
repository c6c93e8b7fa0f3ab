/* pyindex.c: a package index's project page (PEP 691 JSON or PEP 503 HTML) read into its files,
 * and the one file pip would install from them. The page comes from the network and is untrusted:
 * one pass over it, every link bounded, nothing but http(s) links kept. */
#include "acquire.h"
#include "../base/base.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILES_MAX 1000000u
#define LINK_MAX (8u << 10) /* bytes of an href, a url, a requires-python */


static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

static bool is_alpha(char c)
{
    c = lower(c);
    return c >= 'a' && c <= 'z';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hex_val(char c)
{
    c = lower(c);
    return is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* HTML's ASCII whitespace (WHATWG "ASCII whitespace"). */
static bool html_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static bool ieq(const char *s, size_t len, const char *w)
{
    if (strlen(w) != len) return false;
    for (size_t i = 0; i < len; i++)
        if (lower(s[i]) != w[i]) return false;
    return true;
}

/* A part of a string. */
typedef struct span {
    const char *s;
    size_t len;
} span;

/* The files read so far. */
typedef struct page {
    smc_index_file *v;
    size_t n, cap, dropped;
    bool oom, too_many;
    /* Only the files of this project (normalized) and version ("==V") are kept; "" keeps all. */
    char want[128], spec[160];
} page;

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
static char *url_resolve(const char *base, const char *ref, size_t len, span *frag, bool *bad)
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
static void take_sha256(const char *s, size_t len, char out[65])
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
static bool fragment_sha256(span f, char out[65])
{
    out[0] = 0;
    for (size_t i = 0; i + 7 <= f.len; i++) {
        if ((i == 0 || f.s[i - 1] == '&') && memcmp(f.s + i, "sha256=", 7) == 0) {
            size_t st = i + 7, e = st;
            while (e < f.len && f.s[e] != '&')
                e++;
            take_sha256(f.s + st, e - st, out);
            return true;
        }
    }
    return false;
}

bool smc_url_sha256(const char *link, char out[65])
{
    const char *h = strchr(link, '#');
    out[0] = 0;
    return !h || !fragment_sha256((span){h + 1, strlen(h + 1)}, out) || out[0];
}

static bool sdist_of(const char *f, const char *want, const char *spec);

/* Whether a file is one of the project and version the page is read for: a page lists every
 * version (numpy's: 1.9 MB), and a hostile one may list millions. */
static bool wanted(const page *pg, const char *filename)
{
    smc_wheel_name w;
    if (!smc_wheel_name_parse(filename, &w)) return sdist_of(filename, pg->want, pg->spec);
    return strcmp(w.name, pg->want) == 0 && smc_pep440_match(pg->spec, w.version) == 1;
}

/* Adds one link. filename: the JSON's, or NULL to take the URL's. rp: requires-python, may be
 * NULL. The href and rp are checked against LINK_MAX here, so both readers share the caps. */
static void add_file(page *pg, const char *base, span href, const char *filename, span rp,
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
    char *u = url_resolve(base, href.s, href.len, &frag, &bad), *name = NULL, *req = NULL;
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
        take_sha256(sha256, strlen(sha256), f->sha256);
    else
        fragment_sha256(frag, f->sha256);
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
    add_file(pg, base, (span){u, strlen(u)}, name, (span){rp ? rp : "", rp ? strlen(rp) : 0},
             yanked, size, sha ? sha : "");
    cJSON_Delete(f);
}

/* ---- PEP 503 HTML ----------------------------------------------------------------------- */

static size_t put_utf8(char *o, unsigned long c)
{
    if (c == 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd;
    if (c < 0x80) return o[0] = (char)c, 1;
    if (c < 0x800) return o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3f)), 2;
    if (c < 0x10000) {
        o[0] = (char)(0xe0 | c >> 12);
        o[1] = (char)(0x80 | (c >> 6 & 0x3f));
        o[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | c >> 18);
    o[1] = (char)(0x80 | (c >> 12 & 0x3f));
    o[2] = (char)(0x80 | (c >> 6 & 0x3f));
    o[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

/* An attribute value with its character references replaced (the five named ones an index
 * writes, and numeric ones), into out of at least len+1 bytes (no reference grows: "&#1;" is
 * four bytes, its UTF-8 at most four); returns the length. Unknown references stay as written. */
static size_t unescape(const char *s, size_t len, char *out)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] != '&') {
            out[k++] = s[i++];
            continue;
        }
        size_t left = len - i - 1;
        const char *p = s + i + 1;
        bool done = false;
        for (size_t j = 0; j < sizeof named / sizeof named[0] && !done; j++) {
            size_t nl = strlen(named[j].name);
            if (left >= nl && memcmp(p, named[j].name, nl) == 0) {
                out[k++] = named[j].c;
                i += 1 + nl;
                done = true;
            }
        }
        if (!done && left >= 2 && p[0] == '#') {
            bool hex = p[1] == 'x' || p[1] == 'X';
            size_t j = hex ? 2 : 1, digits = 0;
            unsigned long c = 0;
            for (; j < left && digits < 8; j++, digits++) {
                int d = hex ? hex_val(p[j]) : is_digit(p[j]) ? p[j] - '0' : -1;
                if (d < 0) break;
                c = c * (hex ? 16 : 10) + (unsigned long)d;
            }
            /* "&#NN;" is at least 4 bytes, and its UTF-8 at most that (U+FFFD: 3) */
            if (digits && j < left && p[j] == ';') {
                k += put_utf8(out + k, c);
                i += 1 + j + 1;
                done = true;
            }
        }
        if (!done) out[k++] = s[i++];
    }
    return k;
}

/* The attributes of one tag that matter here; the first of a name wins, as in HTML. */
typedef struct attrs {
    span href, rp;
    bool has_href, has_rp, yanked;
} attrs;

/* Reads a start tag's attributes from b[*i] to its '>' (HTML's attribute states, quoted and
 * unquoted values); false when the page ends first. */
static bool read_attrs(const char *b, size_t len, size_t *i, attrs *a)
{
    memset(a, 0, sizeof *a);
    size_t p = *i;
    for (;;) {
        while (p < len && (html_space(b[p]) || b[p] == '/'))
            p++;
        if (p >= len) return false;
        if (b[p] == '>') {
            *i = p + 1;
            return true;
        }
        size_t ns = p++;
        while (p < len && !html_space(b[p]) && b[p] != '/' && b[p] != '>' && b[p] != '=')
            p++;
        span name = {b + ns, p - ns}, val = {"", 0};
        while (p < len && html_space(b[p]))
            p++;
        if (p < len && b[p] == '=') {
            p++;
            while (p < len && html_space(b[p]))
                p++;
            if (p >= len) return false;
            if (b[p] == '"' || b[p] == '\'') {
                const char *q = memchr(b + p + 1, b[p], len - p - 1);
                if (!q) return false;
                val = (span){b + p + 1, (size_t)(q - b) - p - 1};
                p = (size_t)(q - b) + 1;
            } else {
                size_t vs = p;
                while (p < len && !html_space(b[p]) && b[p] != '>')
                    p++;
                val = (span){b + vs, p - vs};
            }
        }
        if (ieq(name.s, name.len, "href") && !a->has_href)
            a->href = val, a->has_href = true;
        else if (ieq(name.s, name.len, "data-requires-python") && !a->has_rp)
            a->rp = val, a->has_rp = true;
        else if (ieq(name.s, name.len, "data-yanked"))
            a->yanked = true;
    }
}

/* Where the raw text of a <script> or <style> ends: past its "</name", or len. */
static size_t raw_text_end(const char *b, size_t len, size_t i, const char *name)
{
    size_t nl = strlen(name);
    while (i < len) {
        const char *lt = memchr(b + i, '<', len - i);
        if (!lt) return len;
        i = (size_t)(lt - b) + 1;
        if (i < len && b[i] == '/' && len - i - 1 >= nl && ieq(b + i + 1, nl, name)) return i;
    }
    return len;
}

/* Decodes a span's references into new memory (NULL when out of memory). */
static char *unescaped(span s, size_t *n)
{
    char *o = malloc(s.len + 1);
    if (o) o[ *n = unescape(s.s, s.len, o)] = 0;
    return o;
}

/* What an HTML page's scan keeps from one window to the next. */
typedef struct html_state {
    char *base; /* a <base href>, resolved */
    bool base_seen;
} html_state;

/* Scans the tags of b[0..len); returns how much of it was read: all of it, or (unless last,
 * when what is cut short ends the page) up to the '<' of a construct the window cuts short. */
static size_t parse_html(const char *b, size_t len, const char *base_url, page *pg,
                         html_state *hs, bool last)
{
    size_t i = 0;
    while (i < len && !pg->oom && !pg->too_many) {
        const char *lt = memchr(b + i, '<', len - i);
        if (!lt) return len;
        size_t start = (size_t)(lt - b);
        i = start + 1;
        if (i < len && b[i] == '!') {
            const char *end = len - i >= 3 && memcmp(b + i, "!--", 3) == 0
                                  ? memmem(b + i + 3, len - i - 3, "-->", 3)
                                  : memchr(b + i, '>', len - i);
            if (!end) return last ? len : start;
            i = (size_t)(end - b) + 1;
            continue;
        }
        if (i < len && (b[i] == '/' || b[i] == '?')) { /* an end tag, a processing instruction */
            const char *end = memchr(b + i, '>', len - i);
            if (!end) return last ? len : start;
            i = (size_t)(end - b) + 1;
            continue;
        }
        size_t ns = i;
        while (i < len && (is_alpha(b[i]) || is_digit(b[i])))
            i++;
        if (i == len && !last) return start; /* the name may go on */
        if (i == ns || !is_alpha(b[ns])) continue; /* a lone '<' is text */
        span name = {b + ns, i - ns};
        attrs a;
        if (!read_attrs(b, len, &i, &a)) return last ? len : start; /* unterminated: the end */
        if (ieq(name.s, name.len, "script") || ieq(name.s, name.len, "style")) {
            i = raw_text_end(b, len, i, name.len == 6 ? "script" : "style");
            if (i == len && !last) return start;
            continue;
        }
        bool is_a = ieq(name.s, name.len, "a");
        if (!is_a && !(ieq(name.s, name.len, "base") && !hs->base_seen)) continue;
        if (!a.has_href) continue;
        if (a.href.len > LINK_MAX || a.rp.len > LINK_MAX) {
            if (is_a) pg->dropped++;
            continue;
        }
        size_t hl, rl = 0;
        char *href = unescaped(a.href, &hl), *rp = a.has_rp ? unescaped(a.rp, &rl) : NULL;
        if (!href || (a.has_rp && !rp)) {
            pg->oom = true;
        } else if (is_a) {
            add_file(pg, hs->base ? hs->base : base_url, (span){href, hl}, NULL,
                     (span){rp ? rp : "", rl}, a.yanked, 0, NULL);
        } else { /* pip takes the first <base href> for the links */
            span frag;
            bool bad;
            hs->base_seen = true;
            hs->base = url_resolve(base_url, href, hl, &frag, &bad);
            if (!hs->base && !bad) pg->oom = true;
        }
        free(href);
        free(rp);
    }
    return len;
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
    if (project && version) {
        while (*version == ' ' || *version == '=')
            version++;
        smc_pyname_normalize(project, s->pg.want, sizeof s->pg.want);
        int k = snprintf(s->pg.spec, sizeof s->pg.spec, "==%s", version);
        if (k < 0 || (size_t)k >= sizeof s->pg.spec) s->pg.want[0] = '\0'; /* all kept */
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
    size_t used = parse_html(s->held, s->held_len, s->base, &s->pg, &s->hs, last);
    /* A construct longer than the window holds is text: its '<' passed over. */
    while (!last && used == 0 && s->held_len > HTML_CARRY && !s->pg.oom)
        used = 1 + parse_html(s->held + 1, s->held_len - 1, s->base, &s->pg, &s->hs, false);
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

/* An sdist's name and version: "name-version.tar.gz" (or .zip, .tar.bz2...), split at the last
 * '-' as pip does for a project it knows. */
static bool sdist_of(const char *f, const char *want, const char *spec)
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
    while (*version == ' ' || *version == '=')
        version++;
    clean(project, shown_name);
    clean(version, shown_ver);
    smc_pyname_normalize(project, want, sizeof want);
    int spec_len = snprintf(spec, sizeof spec, "==%s", version);
    if (spec_len < 0 || (size_t)spec_len >= sizeof spec || smc_pep440_match(spec, version) != 1) {
        put(&m, "%s: %s is not a version", shown_name, shown_ver);
        return -1;
    }
    long best = -1, best_rank = 0;
    size_t nfiles = 0, nwheels = 0, nsdists = 0, n_rp = 0, n_hash = 0, n_tags = 0;
    const char *rp_seen = NULL;
    seen interps = {0}, plats = {0};
    for (size_t i = 0; i < n; i++) {
        const smc_index_file *f = &files[i];
        smc_wheel_name w;
        if (!f->filename) continue;
        if (!smc_wheel_name_parse(f->filename, &w)) {
            if (sdist_of(f->filename, want, spec)) nfiles++, nsdists++;
            continue;
        }
        if (strcmp(w.name, want) != 0) continue;
        if (smc_pep440_match(spec, w.version) != 1) continue;
        nfiles++, nwheels++;
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
    if (best >= 0) return best;

    const char *t0 = e->tags[0], *d1 = strchr(t0, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    if (!nfiles) {
        put(&m, "no file of %s %s on the index page (%zu files of other versions or projects)",
            shown_name, shown_ver, n);
        return -1;
    }
    put(&m, "no wheel of %s %s for %.*s %s: %zu file%s (%zu wheel%s", shown_name, shown_ver,
        d1 ? (int)(d1 - t0) : 0, t0, d2 ? d2 + 1 : "", nfiles, nfiles == 1 ? "" : "s", nwheels,
        nwheels == 1 ? "" : "s");
    if (nsdists) put(&m, ", %zu sdist%s", nsdists, nsdists == 1 ? "" : "s");
    put(&m, ")");
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
