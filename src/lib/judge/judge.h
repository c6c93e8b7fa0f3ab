/* judge.h: the judge wing: the judge (verdict.c) and what a library or distribution serves
 * (serves.c) */
#ifndef SMCHECK_JUDGE_H
#define SMCHECK_JUDGE_H

#include "../rules/rules.h"

#include <smcheck/builds.h>

/* The base name of the alternative of path's for another CUDA (as the _cudaNNN digits):
 * ("d/libx_cuda128.so", 130) -> "libx_cuda130.so"; NULL when path is no alternative, or no
 * memory. */
char *smc_alternative_for(const char *path, unsigned cuda);

/* The CUDA (as the _cudaNNN digits) of path when it is an alternative of the same choice as of
 * (the same name but for those digits), else 0. */
unsigned smc_alternative_of(const char *path, const char *of);

/* Judges one library of in for one target again (the judgement of smc_judge's rules), with
 * another driver, say: to check that a next step helps. Free out with smc_judgements_free's
 * rules (its failing list and support). */
smc_status smc_judge_library(const smc_input *in, const smc_situation *where,
                             const smc_library *lib, const smc_target *t, int driver_cuda,
                             smc_judgement *out);

/* The distinct tokens (LTO IR left out) of the containers listed, space-separated, at most 12
 * then " ..."; *has_ptx says whether one is PTX. NULL when out of memory. */
char *smc_failing_tokens(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx);

#endif
