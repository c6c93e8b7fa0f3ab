/* judge_private.h: what the judge's two files share: verdict.c judges one library for one
 * target, rollup.c rolls libraries up into distributions, inputs and the overall verdict.
 * Private to them. */
#ifndef SMCHECK_JUDGE_PRIVATE_H
#define SMCHECK_JUDGE_PRIVATE_H

#include "judge.h"

/* The architecture lists of a library's containers (token sets, LTO IR left out), as group
 * numbers: group[i] for container i, SMC_NONE for a relocatable or empty one. main: the group of
 * its main list, the build's list: of the lists with kernels that are not all 'a'/'f' variants,
 * the one with the most cubin architectures, then the one most containers share (SMC_NONE when
 * none has two: a store of per-architecture modules, as cuFFT 12's). */
typedef struct lists {
    size_t *group;
    size_t count;
    size_t main, main_count;
} lists;

/* Where a library is judged: the platform it must load on (NULL: not known; machine_only: only
 * assumed, the host's, compared by machine), a CUDA library it needs that cannot be found
 * (needs, with the other major that is there, or NULL: it loads), and the distribution that
 * installed it (name and version, NULL when none: for data/support.tsv). */
typedef struct place {
    const char *platform;
    bool machine_only;
    const char *needs, *needs_other;
    const char *dist, *version;
} place;

smc_status judge_lists_of(const smc_library *lib, lists *m);

int judge_effective_driver(const smc_input *in, const smc_target *t, int driver_cuda);

smc_status judge_one_library(const smc_library *lib, const smc_target *t, int driver_cuda,
                             int wheel_cuda, const place *at, const lists *sets, smc_judgement *r);

int judge_distribution_cuda(const smc_input *in, const smc_library *lib);

const char *judge_load_platform(const smc_input *in, const smc_situation *where,
                                const smc_library *lib, const smc_target *t, bool *assumed);

#endif
