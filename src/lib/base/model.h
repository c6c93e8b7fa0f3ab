/* model.h: the builders of the model (smcheck/smcheck.h), which readers, the judge and
 * derive use */
#ifndef SMCHECK_MODEL_H
#define SMCHECK_MODEL_H

#include "util.h"

/* Model builders. Each returns SMC_OK or SMC_ERR_NOMEM. */
smc_status smc_library_add_finding(smc_library *lib, uint64_t offset, const char *fmt, ...)
    SMC_PRINTF(3, 4);
smc_status smc_input_add_error(smc_input *in, const char *path, const char *fmt, ...)
    SMC_PRINTF(3, 4);
smc_library *smc_library_new(const char *path);
/* v, or dflt when v is 0 (an smc_options limit left unset). */
static inline uint64_t smc_limit(uint64_t v, uint64_t dflt)
{
    return v ? v : dflt;
}
smc_status smc_input_add_note(smc_input *in, const char *fmt, ...) SMC_PRINTF(2, 3);
void smc_distribution_clear(smc_distribution *d);
/* What smc_check derived (smc_derive) goes: judgements' and roll-ups' sentences with them. */
void smc_judgements_free(smc_judgement *j, size_t n);
void smc_rollups_free(smc_rollup *r, size_t n);
void smc_library_underive(smc_library *lib);
void smc_distribution_underive(smc_distribution *d);
void smc_distribution_sanitize(smc_distribution *d);
void smc_library_free(smc_library *lib);
/* A deep copy of src's facts (not its judgements) under another path, in no distribution. */
smc_status smc_library_copy(smc_library *dst, const smc_library *src, const char *path);
/* Moves src's containers, images and findings to the end of dst, their offsets moved by base
 * (where src's bytes start in dst's), each container naming member; src is left empty. */
smc_status smc_library_absorb(smc_library *dst, smc_library *src, uint64_t base,
                              const char *member);
/* Moves lib into in->libraries when it holds containers or findings, else frees it. */
smc_status smc_input_take_library(smc_input *in, smc_library *lib);

/* Appends a runtime file (smc_input.runtime), in no distribution yet. */
smc_status smc_input_add_runtime(smc_input *in, const char *path, smc_runtime_kind kind, int cuda);
/* Frees the compilers the judge found (smc_input.compilers), leaving none. */
void smc_compilers_free(smc_input *in);

/* summary.c: token order (cubins, PTX, LTO IR; arch; plain, a, f) of two smc_image pointers. */
int smc_image_compare(const void *a, const void *b);

#endif
