/* image_paths.c: what the layers of a container image have said about each path, in a hash set
 * updated per layer, and whether a path is hidden by a layer above. */
#include "image_private.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a, a byte at a time, so that the hash of each directory above a path is met on the way
 * to the path's own. */
#define HASH_START 1469598103934665603ull
static inline uint64_t hash_step(uint64_t h, char c)
{
    return (h ^ (unsigned char)c) * 1099511628211ull;
}

static uint64_t hash_of(const char *p, size_t n)
{
    uint64_t h = HASH_START;
    for (size_t i = 0; i < n; i++)
        h = hash_step(h, p[i]);
    return h;
}

/* The slot of p[0..n) in m (its node, or the empty slot where it would go); m has slots. */
static pnode **map_slot(const pathmap *m, const char *p, size_t n, uint64_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        pnode *e = m->slot[i];
        if (!e || (e->hash == h && e->len == n && memcmp(e->path, p, n) == 0)) return &m->slot[i];
    }
}

/* What the layers above say of the path p[0..n), whose hash is h. */
static uint8_t map_above(const pathmap *m, const char *p, size_t n, uint64_t h)
{
    if (!m->n) return 0;
    pnode *e = *map_slot(m, p, n, h);
    return e ? e->above : 0;
}

static smc_status map_grow(pathmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    pathmap bigger = {.slot = calloc(cap, sizeof *m->slot), .cap = cap};
    if (!bigger.slot) return SMC_ERR_NOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i])
            *map_slot(&bigger, m->slot[i]->path, m->slot[i]->len, m->slot[i]->hash) = m->slot[i];
    free(m->slot);
    m->slot = bigger.slot;
    m->cap = cap;
    return SMC_OK;
}

/* Records that the layer being read says kind of path. */
smc_status img_map_mark(pathmap *m, const char *p, uint8_t kind)
{
    size_t n = strlen(p);
    if ((m->n + 1) * 2 > m->cap && map_grow(m) != SMC_OK) return SMC_ERR_NOMEM;
    uint64_t h = hash_of(p, n);
    pnode **s = map_slot(m, p, n, h);
    if (!*s) {
        pnode *e = malloc(sizeof *e + n + 1);
        if (!e) return SMC_ERR_NOMEM;
        *e = (pnode){.hash = h, .len = n};
        memcpy(e->path, p, n + 1);
        *s = e;
        m->n++;
        m->bytes += sizeof *e + n + 1 + 2 * sizeof *s;
    }
    if (!(*s)->here) {
        pnode **t = smc_push(&m->touched, m->touched_n, sizeof *t);
        if (!t) return SMC_ERR_NOMEM;
        *t = *s;
        m->touched_n++;
    }
    (*s)->here |= kind;
    return SMC_OK;
}

/* What the layer just read says now hides what the layers below it hold. */
void img_map_settle(pathmap *m)
{
    for (size_t i = 0; i < m->touched_n; i++) {
        m->touched[i]->above |= m->touched[i]->here;
        m->touched[i]->here = 0;
    }
    m->touched_n = 0;
}

void img_map_free(pathmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slot[i]);
    free(m->slot);
    free(m->touched);
    *m = (pathmap){0};
}

/* Whether the layers above hide an entry at path ("/usr/lib/x.so"): each directory above it is
 * looked up as a prefix of path, its hash met on the way, so a path of any length is judged in
 * one pass over it (issue 26: past 4096 bytes a whiteout of a directory above it was ignored). */
bool img_hidden(const image *im, const char *path)
{
    const pathmap *m = &im->paths;
    if (!m->n) return false;
    if (map_above(m, "/", 1, hash_of("/", 1)) & P_OPAQUE) return true;
    uint64_t h = HASH_START;
    size_t k = 0;
    for (; path[k]; k++) {
        uint8_t says = path[k] == '/' && k > 0 ? map_above(m, path, k, h) : 0;
        if (says & (P_WHITEOUT | P_OPAQUE | P_NONDIR)) return true;
        h = hash_step(h, path[k]);
    }
    return (map_above(m, path, k, h) & (P_SEEN | P_WHITEOUT)) != 0;
}
