/* derive.h: the derive wing: the one pipeline and what the reports show (check.c), the words of
 * judgements (describe.c), and the advice from the table of PyTorch builds (builds.c) */
#ifndef SMCHECK_DERIVE_H
#define SMCHECK_DERIVE_H

#include "../judge/judge.h"

#include <smcheck/builds.h>

/* builds.c: the next step of a torch-family distribution that is none for target t (see
 * smc_next_build), on the platform of its wheel tag, else of its libraries' ELF machine, else
 * this machine's; NULL when it is not one, is not none, opt has no builds, or memory runs out. */
char *smc_distribution_next(const smc_input *in, const smc_distribution *d, const smc_rollup *r,
                            const struct smc_builds *builds, const smc_target *t, int driver_cuda);

/* check.c: what the reports show, derived once from a judged model. */
/* The result's targets, judged; fills every derived field of the model (smc_judgement.reason
 * ...), the roll-ups' sentences, serving lists (when r->serving), next steps (verified). */
smc_status smc_derive(smc_result *r, const struct smc_builds *builds);

#endif
