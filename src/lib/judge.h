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

/* packages.c: the tables of data/cpu-builds.tsv and data/loaders.tsv. */
typedef enum smc_cpu_how {
    SMC_CPU_NO_CODE, /* a build without device code (nor any in its companions) */
    SMC_CPU_NAMED,   /* the name is the CPU-only build's */
    SMC_CPU_SAYS,    /* only its own word (version.py, +cpu) */
} smc_cpu_how;

typedef struct smc_cpu_rule {
    smc_cpu_how how;
    char companions[320]; /* comma-separated names that bring its GPU code */
    char instead[320];    /* what to install instead, and the source */
} smc_cpu_rule;

/* The row of a distribution that exists to use the GPU; false when it is not one. */
bool smc_cpu_rule_for(const char *name, smc_cpu_rule *out);
/* Whether a distribution of this name brings the GPU code of rule's. */
bool smc_cpu_companion(const smc_cpu_rule *rule, const char *name);

typedef enum smc_choose { SMC_CHOOSE_LAST, SMC_CHOOSE_HIGHEST, SMC_CHOOSE_SORTED } smc_choose;

typedef struct smc_loader_rule {
    smc_choose by;             /* which GPU of the machine the choice is made by */
    unsigned nocublaslt_below; /* major*10+minor below which _nocublaslt is loaded; 0 never */
    bool torch_cuda;           /* the installed torch's CUDA names the file (else the system's
                                * libcudart, which smcheck cannot know) */
    char override[320];        /* an environment variable naming it instead; "" none */
    char source[320];
} smc_loader_rule;

/* The loader rule of a release of a distribution; false when the table has none. */
bool smc_loader_rule_for(const char *name, const char *version, smc_loader_rule *out);
/* The compute capability (major*10+minor) the loader chooses by for target t of n: that GPU's
 * own, or with one_machine the rule's pick among all of them (in the driver's order). */
unsigned smc_loader_chooser(const smc_loader_rule *rule, const smc_target *targets, size_t n,
                            size_t t, bool one_machine);

/* check.c: what the reports show, derived once from a judged model. */
/* The result's targets, judged; fills every derived field of the model (smc_judgement.reason
 * ...), the roll-ups' sentences, serving lists (when r->serving), next steps (verified). */
smc_status smc_derive(smc_result *r, const struct smc_builds *builds);

/* The distinct tokens (LTO IR left out) of the containers listed, space-separated, at most 12
 * then " ..."; *has_ptx says whether one is PTX. NULL when out of memory. */
char *smc_failing_tokens(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx);

#endif
