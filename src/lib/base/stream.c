/* stream.c: what smcheck writes leaves through here. The user information of a URL, wherever it
 * stands (a report's names, an error, a note), goes out as "***": the URL https: //__token__:
 * pypi-AgE@host/simple/ (a space added here) is written with ***@host, so that a token given in an
 * index URL or a lock reaches no log, report or SARIF upload. The text stream also keeps control
 * sequences from terminals. The rule is one state machine, for streams and for strings alike. */
#include "base.h"

#include <stdlib.h>

/* An authority longer than this is hidden whole (no URL's is; a hostile one gains nothing). */
#define AUTHORITY_MAX 4096

typedef enum { PLAIN, AUTHORITY, HIDING } redact_state;

/* Where the redactor writes, and what it holds of a URL's authority until it has seen its end. */
typedef struct redactor {
    void (*put)(void *to, const unsigned char *p, size_t n);
    void *to;
    redact_state state;
    unsigned char last[2]; /* PLAIN: the two bytes before, ":/" when a '/' makes "://" */
    size_t held;
    unsigned char hold[AUTHORITY_MAX];
} redactor;

/* What ends an authority in written text: its URL's path, query or fragment, a space or control,
 * or the quotes and brackets that text and JSON put around a URL. */
static bool authority_end(unsigned char c)
{
    return c <= ' ' || c == 0x7f || c == '/' || c == '?' || c == '#' || c == '\\' || c == '"' ||
           c == '\'' || c == '<' || c == '>' || c == '`';
}

/* The authority held, its user information (all before its last '@') as "***". */
static void release(redactor *r)
{
    size_t at = r->held;
    while (at > 0 && r->hold[at - 1] != '@')
        at--;
    if (at > 0) {
        r->put(r->to, (const unsigned char *)"***", 3);
        r->put(r->to, r->hold + at - 1, r->held - at + 1);
    } else {
        r->put(r->to, r->hold, r->held);
    }
    r->held = 0;
}

static void redact(redactor *r, const unsigned char *p, size_t n)
{
    size_t run = 0; /* PLAIN: p[run..i) is still to be written */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (r->state == PLAIN) {
            if (c == '/' && r->last[0] == ':' && r->last[1] == '/') { /* "://": an authority */
                r->put(r->to, p + run, i + 1 - run);
                r->state = AUTHORITY;
                r->last[0] = r->last[1] = 0;
            } else {
                r->last[0] = r->last[1];
                r->last[1] = c;
            }
            continue;
        }
        if (authority_end(c)) {
            if (r->state == AUTHORITY) release(r);
            r->state = PLAIN;
            run = i;
            r->last[0] = 0;
            r->last[1] = c;
        } else if (r->state == AUTHORITY && r->held == AUTHORITY_MAX) {
            r->put(r->to, (const unsigned char *)"***", 3);
            r->held = 0;
            r->state = HIDING;
        } else if (r->state == AUTHORITY) {
            r->hold[r->held++] = c;
        }
    }
    if (r->state == PLAIN) r->put(r->to, p + run, n - run);
}

/* The end of what is written: an authority held ends there. */
static void redact_end(redactor *r)
{
    if (r->state == AUTHORITY) release(r);
    r->state = PLAIN;
    r->last[0] = r->last[1] = 0;
}

/* Strings -------------------------------------------------------------------------------------- */

typedef struct growing {
    char *p;
    size_t len, cap;
    bool failed;
} growing;

static void grow_put(void *to, const unsigned char *p, size_t n)
{
    growing *g = to;
    if (g->failed || !n) return;
    if (g->len + n + 1 > g->cap) {
        size_t cap = (g->len + n + 1) * 2;
        char *q = realloc(g->p, cap);
        if (!q) {
            g->failed = true;
            return;
        }
        g->p = q;
        g->cap = cap;
    }
    memcpy(g->p + g->len, p, n);
    g->len += n;
    g->p[g->len] = '\0';
}

/* Whether s has "://" followed by an '@' before the authority can have ended: the cheap test
 * before a copy is made. */
static bool may_hold_credentials(const char *s)
{
    for (const char *u = strstr(s, "://"); u; u = strstr(u + 3, "://")) {
        const unsigned char *a = (const unsigned char *)u + 3;
        while (*a && !authority_end(*a) && *a != '@')
            a++;
        if (*a == '@') return true;
    }
    return false;
}

char *smc_redact(char *s)
{
    if (!s || !may_hold_credentials(s)) return s;
    redactor *r = malloc(sizeof *r);
    growing g = {0};
    if (r) {
        *r = (redactor){.put = grow_put, .to = &g};
        redact(r, (const unsigned char *)s, strlen(s));
        redact_end(r);
        free(r);
    }
    free(s);
    if (!r || g.failed || !g.p) {
        free(g.p);
        return NULL;
    }
    return g.p;
}

bool smc_has_credentials(const char *s)
{
    return s && may_hold_credentials(s);
}

/* UTF-8 ---------------------------------------------------------------------------------------- */

size_t smc_utf8_wants(unsigned char lead)
{
    return lead < 0x80                    ? 1
           : lead >= 0xc2 && lead <= 0xdf ? 2
           : lead >= 0xe0 && lead <= 0xef ? 3
           : lead >= 0xf0 && lead <= 0xf4 ? 4
                                          : 0;
}

size_t smc_utf8_at(const unsigned char *p, size_t n)
{
    if (n == 0) return 0;
    size_t len = smc_utf8_wants(p[0]);
    if (len == 1) return 1;
    if (!len || n < len) return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    /* No overlong forms, no surrogates, nothing past U+10FFFF. */
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
        return 0;
    return len;
}

/* Streams -------------------------------------------------------------------------------------- */

typedef struct out_stream {
    FILE *to;
    bool owned;
    bool text;             /* for people: not UTF-8 as \xHH, C1 controls as "??" */
    unsigned char pend[4]; /* text: the start of a character the next write completes */
    size_t n;
    redactor r;
} out_stream;

/* Writes p[0..n): what is UTF-8 as it is but C1 controls ("??"), a byte that is not UTF-8 as
 * \xHH; returns the bytes at the end that may be the start of a character the next write
 * completes. */
static size_t safe_out(FILE *to, const unsigned char *p, size_t n, bool last)
{
    size_t run = 0, i = 0;
    while (i < n) {
        size_t k = smc_utf8_at(p + i, n - i);
        if (k == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f) { /* a C1 control */
            fwrite(p + run, 1, i - run, to);
            fputs("??", to);
            run = i += 2;
            continue;
        }
        if (k) {
            i += k;
            continue;
        }
        size_t want = smc_utf8_wants(p[i]);
        if (!last && want > n - i) { /* cut short, perhaps: kept unless already wrong */
            bool prefix = true;
            for (size_t j = i + 1; j < n; j++)
                prefix &= (p[j] & 0xc0) == 0x80;
            if (prefix) break;
        }
        fwrite(p + run, 1, i - run, to);
        fprintf(to, "\\x%02X", p[i]);
        run = ++i;
    }
    fwrite(p + run, 1, i - run, to);
    return n - i;
}

/* The redactor's output: as it is, or for people. */
static void stream_put(void *to, const unsigned char *p, size_t len)
{
    out_stream *s = to;
    if (!s->text) {
        fwrite(p, 1, len, s->to);
        return;
    }
    size_t used = 0;
    while (s->n && used < len) { /* complete the character the last write began */
        s->pend[s->n++] = p[used++];
        size_t keep = safe_out(s->to, s->pend, s->n, false);
        memmove(s->pend, s->pend + s->n - keep, keep);
        s->n = keep;
    }
    size_t keep = safe_out(s->to, p + used, len - used, false);
    memcpy(s->pend, p + len - keep, keep);
    s->n = keep;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
    out_stream *s = cookie;
    redact(&s->r, (const unsigned char *)buf, len);
    return (ssize_t)len;
}

static int stream_close(void *cookie)
{
    out_stream *s = cookie;
    redact_end(&s->r);
    if (s->text) safe_out(s->to, s->pend, s->n, true);
    int r;
    if (s->owned)
        r = fclose(s->to);
    else
        r = fflush(s->to);
    free(s);
    return r;
}

static FILE *stream_open(FILE *to, bool owned, bool text)
{
    out_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->to = to;
    s->owned = owned;
    s->text = text;
    s->r = (redactor){.put = stream_put, .to = s};
    cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
    FILE *f = fopencookie(s, "w", io);
    if (!f) free(s);
    return f;
}

FILE *smc_text_stream(FILE *to, bool owned)
{
    return stream_open(to, owned, true);
}

FILE *smc_redact_stream(FILE *to, bool owned)
{
    return stream_open(to, owned, false);
}
