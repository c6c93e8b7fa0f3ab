/* index_html.c: a PEP 503 HTML page read in a bounded window as it comes: its <a> tags, their
 * attributes unescaped, each http(s) link kept as a file of the page. */
#include "index_page.h"

#include <stdlib.h>

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

/* Scans the tags of b[0..len); returns how much of it was read: all of it, or (unless last,
 * when what is cut short ends the page) up to the '<' of a construct the window cuts short. */
size_t index_parse_html(const char *b, size_t len, const char *base_url, page *pg, html_state *hs,
                        bool last)
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
        if (i == len && !last) return start;       /* the name may go on */
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
            index_add_file(pg, hs->base ? hs->base : base_url, (span){href, hl}, NULL,
                           (span){rp ? rp : "", rl}, a.yanked, 0, NULL);
        } else { /* pip takes the first <base href> for the links */
            span frag;
            bool bad;
            hs->base_seen = true;
            hs->base = index_url_resolve(base_url, href, hl, &frag, &bad);
            if (!hs->base && !bad) pg->oom = true;
        }
        free(href);
        free(rp);
    }
    return len;
}
