/* judge.h: the judge (verdict.c), its words (describe.c), and what derive (check.c) and
 * the advice (builds.c) share */
#ifndef SMCHECK_JUDGE_H
#define SMCHECK_JUDGE_H

#include "rules.h"

#include <smcheck/builds.h>

/* builds.c: the next step of a torch-family distribution that is none for target t (see
 * smc_next_build), on the platform of its wheel tag, else of its libraries' ELF machine, else
 * this machine's; NULL when it is not one, is not none, opt has no builds, or memory runs out. */
char *smc_distribution_next(const smc_input *in, const smc_distribution *d, const smc_rollup *r,
                            const struct smc_builds *builds, const smc_target *t, int driver_cuda);

/* Judges one library of in for one target again (the judgement of smc_judge's rules), with
 * another driver, say: to check that a next step helps. Free out with smc_judgements_free's
 * rules (its failing list). */
smc_status smc_judge_library(const smc_input *in, const smc_library *lib, const smc_target *t,
                             int driver_cuda, smc_judgement *out);

/* check.c: what the reports show, derived once from a judged model. */
/* The result's targets, judged; fills every derived field of the model (smc_judgement.reason
 * ...), the roll-ups' sentences, serving lists (when r->serving), next steps (verified). */
smc_status smc_derive(smc_result *r, const struct smc_builds *builds);

/* The distinct tokens (LTO IR left out) of the containers listed, space-separated, at most 12
 * then " ..."; *has_ptx says whether one is PTX. NULL when out of memory. */
char *smc_failing_tokens(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx);

#endif
