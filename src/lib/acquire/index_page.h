/* index_page.h: what the readers of a package index's pages share (pyindex.c the page,
 * its JSON and the choice; index_url.c URLs and each link taken as a file; index_html.c PEP 503
 * HTML): bounds, ASCII character classes, spans, the files read so far. Private to them. */
#ifndef SMCHECK_INDEX_PAGE_H
#define SMCHECK_INDEX_PAGE_H

#include "acquire.h"

#include <string.h>

#define FILES_MAX 1000000u
#define LINK_MAX (8u << 10) /* bytes of an href, a url, a requires-python */

static inline char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

static inline bool is_alpha(char c)
{
    c = lower(c);
    return c >= 'a' && c <= 'z';
}

static inline bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline int hex_val(char c)
{
    c = lower(c);
    return is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* HTML's ASCII whitespace (WHATWG "ASCII whitespace"). */
static inline bool html_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static inline bool ieq(const char *s, size_t len, const char *w)
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

/* What an HTML page's scan keeps from one window to the next. */
typedef struct html_state {
    char *base; /* a <base href>, resolved */
    bool base_seen;
} html_state;

/* ref (an href or a url key, len bytes) made absolute against base (RFC 3986 §5.2), without its
 * fragment, in new memory: the scheme lower-cased, spaces and bytes above 0x7e percent-encoded.
 * frag gets ref's fragment. NULL (and *bad) when it is not an http(s) URL with a host or has
 * control bytes; NULL alone when out of memory. */
char *index_url_resolve(const char *base, const char *ref, size_t len, span *frag, bool *bad);

/* A sha256 of 64 hex digits into out (lower case), else "". */
void index_take_sha256(const char *s, size_t len, char out[65]);

/* pip's _hash_url_fragment_re, "[#&]sha256=([^&]*)", on a link's fragment: whether it names
 * one; out gets it when it is 64 hex digits. */
bool index_fragment_sha256(span f, char out[65]);

/* Whether f is an sdist of project want (normalized) whose version matches spec. */
bool index_sdist_of(const char *f, const char *want, const char *spec);

/* Adds one link. filename: the JSON's, or NULL to take the URL's. rp: requires-python, may be
 * NULL. The href and rp are checked against LINK_MAX here, so both readers share the caps. */
void index_add_file(page *pg, const char *base, span href, const char *filename, span rp,
                    bool yanked, uint64_t size, const char *sha256);

/* Scans the tags of b[0..len); returns how much of it was read: all of it, or (unless last,
 * when what is cut short ends the page) up to the '<' of a construct the window cuts short. */
size_t index_parse_html(const char *b, size_t len, const char *base_url, page *pg, html_state *hs,
                        bool last);

#endif
