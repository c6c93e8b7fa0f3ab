/* report.h: what the printers (report_text.c, report_json.c) share: the view they print from,
 * which holds only what a result and the display options say. Printers read; they call nothing
 * that judges, derives or reads inputs (tests/layers.sh checks it in the built objects). */
#ifndef SMCHECK_REPORT_H
#define SMCHECK_REPORT_H

#include "../base/base.h"

#include <smcheck/builds.h>

typedef struct smc_view {
    smc_input *const *inputs;
    size_t input_count;
    const smc_target *targets;
    size_t target_count;
    int driver_cuda;
    const char *driver_source;
    const char *default_reason;
    const smc_lib_status *overall;
    const smc_target *serving; /* scan: what each library serves was derived for these */
    size_t serving_count;
    const smc_judged *judged;         /* per input: what the judge made of it (NULL: nothing) */
    const smc_input_derived *derived; /* per input: what deriving made of it (NULL: nothing) */
    bool informational, detail, color;
    int cell; /* the width of a matrix cell: 8, or 10 where a status name takes 8 */
} smc_view;

static inline smc_view smc_view_of(const smc_result *r, const smc_display *how)
{
    return (smc_view){.inputs = r->inputs,
                      .input_count = r->input_count,
                      .targets = r->targets,
                      .target_count = r->target_count,
                      .driver_cuda = r->driver_cuda,
                      .driver_source = r->driver_source,
                      .default_reason = r->default_reason,
                      .overall = r->overall,
                      .serving = r->serving,
                      .serving_count = r->serving_count,
                      .judged = r->judged,
                      .derived = r->derived,
                      .informational = r->informational,
                      .detail = how && how->detail,
                      .color = how && how->color,
                      .cell = 8};
}

/* Input in's place among the view's inputs, or SMC_NONE. */
static inline size_t smc_view_index(const smc_view *v, const smc_input *in)
{
    for (size_t i = 0; v && i < v->input_count; i++)
        if (v->inputs[i] == in) return i;
    return SMC_NONE;
}

/* What deriving made of input in's library lib and distribution d; NULL where nothing was. */
static inline const smc_input_derived *smc_view_input(const smc_view *v, const smc_input *in)
{
    size_t i = v && v->derived ? smc_view_index(v, in) : SMC_NONE;
    return i == SMC_NONE ? NULL : &v->derived[i];
}

/* What the judge made of input in: every input of a view was judged (with no targets, an
 * empty judging); an input of no view gets nothing judged. */
static inline const smc_judged *smc_view_judged(const smc_view *v, const smc_input *in)
{
    static const smc_judged none = {0};
    size_t i = v && v->judged ? smc_view_index(v, in) : SMC_NONE;
    return i == SMC_NONE ? &none : &v->judged[i];
}

/* Library l of in as the judge left it: its judgements (none when there are none) and role. */
static inline const smc_library_judged *smc_view_library_judged(const smc_view *v,
                                                                const smc_input *in, size_t l)
{
    static const smc_library_judged none = {0};
    const smc_judged *jd = smc_view_judged(v, in);
    return l < jd->library_count ? &jd->libraries[l] : &none;
}

/* The words deriving gave the t-th of n judgements or roll-ups (all NULL where none). */
static inline const smc_words *smc_words_at(const smc_words *w, size_t n, size_t t)
{
    static const smc_words none = {0};
    return w && t < n ? &w[t] : &none;
}

/* Those of library l of in for target t, of distribution k of in, and of in itself. */
static inline const smc_words *smc_view_library_words(const smc_view *v, const smc_input *in,
                                                      size_t l, size_t t)
{
    const smc_input_derived *d = smc_view_input(v, in);
    const smc_library_derived *ld = d && l < in->library_count ? &d->libraries[l] : NULL;
    return smc_words_at(ld ? ld->words : NULL, ld ? ld->word_count : 0, t);
}

static inline const smc_words *smc_view_distribution_words(const smc_view *v, const smc_input *in,
                                                           size_t k, size_t t)
{
    const smc_input_derived *d = smc_view_input(v, in);
    const smc_distribution_derived *dd =
        d && k < in->distribution_count ? &d->distributions[k] : NULL;
    return smc_words_at(dd ? dd->words : NULL, dd ? dd->word_count : 0, t);
}

static inline const smc_words *smc_view_input_words(const smc_view *v, const smc_input *in,
                                                    size_t t)
{
    const smc_input_derived *d = smc_view_input(v, in);
    return smc_words_at(d ? d->words : NULL, d ? d->word_count : 0, t);
}

/* Distribution k of in as the judge left it (no verdicts when not judged). */
static inline const smc_distribution_judged *
smc_view_distribution_judged(const smc_view *v, const smc_input *in, size_t k)
{
    static const smc_distribution_judged none = {0};
    const smc_judged *jd = smc_view_judged(v, in);
    return k < jd->distribution_count ? &jd->distributions[k] : &none;
}

static inline const smc_library_derived *smc_view_library(const smc_view *v, const smc_input *in,
                                                         const smc_library *lib)
{
    const smc_input_derived *d = smc_view_input(v, in);
    return d ? &d->libraries[lib - in->libraries] : NULL;
}

static inline const smc_distribution_derived *
smc_view_distribution(const smc_view *v, const smc_input *in, const smc_distribution *dist)
{
    const smc_input_derived *d = smc_view_input(v, in);
    return d ? &d->distributions[dist - in->distributions] : NULL;
}

static inline smc_view smc_view_of_advice(const smc_advice *a, const smc_display *how)
{
    return (smc_view){.targets = a->req.targets,
                      .target_count = a->req.target_count,
                      .driver_cuda = a->req.driver_cuda,
                      .driver_source = a->req.driver_source,
                      .detail = how && how->detail,
                      .color = how && how->color,
                      .cell = 8};
}

#endif
