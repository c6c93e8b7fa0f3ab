/* facts_store.c: a store of facts that any HTTP server can serve: the tree `smcheck audit
 * --output DIR` writes, DIR/facts/<first two hex digits>/<sha256>.json, each file a cache record
 * (cache_write.c) of the wheel whose sha256 names it. A wheel's facts never change once its sha256
 * is known, so a record found there stands for reading the wheel; whether it is one is checked
 * where it is decoded (the record names its sha256 and format). */
#include "acquire.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *p;
    size_t len, cap;
} body;

static bool keep(void *ctx, const char *type, const char *final_url, const char *p, size_t n)
{
    (void)type, (void)final_url;
    body *b = ctx;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64u << 10;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->p, cap);
        if (!grown) return false;
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return true;
}

bool smc_http_get(const smc_net *net, smc_fetch *f, const char *url, const char *accept,
                  uint64_t cap, char **text, size_t *len, char *why, size_t n)
{
    body b = {0};
    bool ok = smc_http_stream(net, f, url, accept, cap, keep, &b, why, n);
    if (ok && !b.p && !(b.p = calloc(1, 1))) { /* an empty body: "" */
        snprintf(why, n, "out of memory");
        ok = false;
    }
    if (!ok) {
        if (!why[0]) snprintf(why, n, "out of memory"); /* the sink's only failure */
        free(b.p);
        b = (body){0};
    }
    *text = b.p;
    *len = b.len;
    return ok;
}

char *smc_facts_url_of(const char *base, const char *sha256)
{
    size_t n = strlen(base);
    while (n && base[n - 1] == '/')
        n--;
    return smc_asprintf("%.*s/facts/%.2s/%s.json", (int)n, base, sha256, sha256);
}

int smc_facts_fetch(const smc_net *net, smc_fetch *f, const char *base, const char *sha256,
                    char **text, size_t *len, char *why, size_t n)
{
    *text = NULL;
    *len = 0;
    char *url = smc_facts_url_of(base, sha256);
    if (!url) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    bool ok = smc_http_get(net, f, url, "application/json", SMC_CACHE_MAX_BYTES, text, len, why, n);
    free(url);
    if (ok && *len) return 1;
    if (ok) { /* an empty body: not a record */
        free(*text);
        *text = NULL;
        snprintf(why, n, "an empty answer");
        return -1;
    }
    /* Not there: the store has no facts of this wheel. (An object store that refuses to list
     * answers 403 for a missing key: that is said, as a store that cannot be read.) */
    if (strcmp(why, "HTTP 404") == 0 || strcmp(why, "HTTP 410") == 0) return 0;
    return -1;
}
