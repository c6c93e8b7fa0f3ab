/* summary.c: counts what a library carries, by token and by per-container token set, in the order
 * the reports print. Works on the model only. */
#include "base.h"

#include <stdlib.h>

/* Cubins, PTX, LTO IR, then the other kinds by their number. */
static unsigned kind_rank(smc_image_kind kind)
{
    return kind == SMC_IMAGE_CUBIN ? 0
           : kind == SMC_IMAGE_PTX ? 1
           : kind == SMC_IMAGE_LTO ? 2
                                   : 3 + (unsigned)kind;
}

int smc_image_compare(const void *a, const void *b)
{
    const smc_image *x = *(const smc_image *const *)a, *y = *(const smc_image *const *)b;
    unsigned kx = kind_rank(x->kind), ky = kind_rank(y->kind);
    if (kx != ky) return kx < ky ? -1 : 1;
    if (x->arch != y->arch) return x->arch < y->arch ? -1 : 1;
    return (int)x->variant - (int)y->variant;
}

/* Sorts pointers to images[first, first+n) into token order. */
static const smc_image **sorted(const smc_library *lib, size_t first, size_t n)
{
    const smc_image **v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = &lib->images[first + i];
    qsort(v, n, sizeof *v, smc_image_compare);
    return v;
}

/* The distinct tokens of one container, joined by spaces. */
static char *container_set(const smc_library *lib, const smc_container *c)
{
    const smc_image **v = sorted(lib, c->first_image, c->image_count);
    char *s = v ? malloc(c->image_count * SMC_TOKEN_MAX + 1) : NULL;
    if (s) {
        size_t len = 0;
        for (size_t i = 0; i < c->image_count; i++) {
            if (i && smc_image_compare(&v[i - 1], &v[i]) == 0) continue;
            char tok[SMC_TOKEN_MAX];
            len += (size_t)sprintf(s + len, "%s%s", len ? " " : "", smc_image_token(v[i], tok));
        }
        s[len] = '\0';
    }
    free(v);
    return s;
}

static int by_tokens(const void *a, const void *b)
{
    const smc_token_set *x = a, *y = b;
    int c = strcmp(x->tokens, y->tokens);
    return c ? c : (int)x->relocatable - (int)y->relocatable;
}

static int by_count(const void *a, const void *b)
{
    const smc_token_set *x = a, *y = b;
    if (x->containers != y->containers) return x->containers > y->containers ? -1 : 1;
    return by_tokens(a, b);
}

static smc_status count_tokens(const smc_library *lib, smc_summary *out)
{
    const smc_image **v = sorted(lib, 0, lib->image_count);
    if (!v) return SMC_ERR_NOMEM;
    for (size_t i = 0; i < lib->image_count; i++) {
        if (i && smc_image_compare(&v[i - 1], &v[i]) == 0) {
            out->tokens[out->token_count - 1].count++;
            continue;
        }
        smc_token_count *t = smc_push(&out->tokens, out->token_count, sizeof *t);
        if (!t) {
            free(v);
            return SMC_ERR_NOMEM;
        }
        smc_image_token(v[i], t->token);
        t->count = 1;
        out->token_count++;
    }
    free(v);
    return SMC_OK;
}

static smc_status count_sets(const smc_library *lib, smc_summary *out)
{
    size_t n = lib->container_count;
    smc_token_set *all = calloc(n ? n : 1, sizeof *all);
    if (!all) return SMC_ERR_NOMEM;
    smc_status st = SMC_OK;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        all[i] = (smc_token_set){container_set(lib, &lib->containers[i]), 1,
                                 lib->containers[i].relocatable};
        if (!all[i].tokens) st = SMC_ERR_NOMEM;
    }
    if (st == SMC_OK) {
        /* Group equal sets: sort by content, fold runs into their first element. */
        qsort(all, n, sizeof *all, by_tokens);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (k && by_tokens(&all[k - 1], &all[i]) == 0) {
                all[k - 1].containers++;
                free(all[i].tokens);
            } else {
                all[k++] = all[i];
            }
        }
        qsort(all, k, sizeof *all, by_count);
        out->sets = all;
        out->set_count = k;
        return SMC_OK;
    }
    for (size_t i = 0; i < n; i++)
        free(all[i].tokens);
    free(all);
    return st;
}

smc_status smc_library_summarize(const smc_library *lib, smc_summary *out)
{
    *out = (smc_summary){0};
    smc_status st = count_tokens(lib, out);
    if (st == SMC_OK) st = count_sets(lib, out);
    if (st != SMC_OK) smc_summary_free(out);
    return st;
}

