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
    char shadows[320];    /* comma-separated GPU builds that install the same files */
} smc_cpu_rule;

/* The row of a distribution that exists to use the GPU; false when it is not one. */
bool smc_cpu_rule_for(const char *name, smc_cpu_rule *out);
/* Whether a distribution of this name brings the GPU code of rule's. */
bool smc_cpu_companion(const smc_cpu_rule *rule, const char *name);
/* Whether a distribution of this name is a GPU build that installs the same files as rule's. */
bool smc_cpu_shadows(const smc_cpu_rule *rule, const char *name);

typedef enum smc_choose { SMC_CHOOSE_LAST, SMC_CHOOSE_HIGHEST, SMC_CHOOSE_SORTED } smc_choose;

typedef struct smc_loader_rule {
    smc_choose by;             /* which GPU of the machine the choice is made by */
    unsigned nocublaslt_below; /* major*10+minor below which _nocublaslt is loaded; 0 never */
    bool torch_cuda;           /* the installed torch's CUDA names the file (else the system's
                                * libcudart, which smcheck cannot know) */
    bool same_major;           /* and where it ships none for that CUDA, the nearest of the same
                                * major: the highest below it, else the lowest above */
    char override[320];        /* an environment variable naming it instead; "" none */
    char source[320];
} smc_loader_rule;

/* The loader rule of a release of a distribution; false when the table has none. */
bool smc_loader_rule_for(const char *name, const char *version, smc_loader_rule *out);
/* The compute capability (major*10+minor) the loader chooses by for target t of n: that GPU's
 * own, or with one_machine the rule's pick among all of them (in the driver's order). */
unsigned smc_loader_chooser(const smc_loader_rule *rule, const smc_target *targets, size_t n,
                            size_t t, bool one_machine);

/* The row of a library file of distribution dist (NULL: none) at version (NULL: not known),
 * built for CUDA cuda_major (0: not known); false when the table has none. */
bool smc_support_for(const char *file, const char *dist, const char *version,
                     unsigned cuda_major, smc_support *out);
/* Whether the row documents the GPU cc for a library built by CUDA release_cuda (1000*major +
 * 10*minor; 0 not known): 1 yes, 0 no (none: NVIDIA does not support it there), -1 the row does
 * not say (a GPU newer than the release): its bytes decide. */
int smc_support_covers(const smc_support *s, unsigned cc, int release_cuda);

/* Whether releases of dist before some release support cc (a FROM- row of data/support.tsv for
 * the file and dist, ending before that release): that release into before. */
bool smc_support_older(const char *file, const char *dist, unsigned cc, char *before, size_t n);

/* How a package uses a library (data/uses.tsv). */
typedef enum smc_use_how {
    SMC_USE_SUPPORTED, /* only on the GPUs NVIDIA supports for it: elsewhere it fails nothing */
    SMC_USE_ON_DEMAND, /* loaded at the first call of a feature: what it cannot run, that fails */
    SMC_USE_FROM,      /* only on GPUs of compute capability from (its own check): elsewhere it
                        * fails nothing */
} smc_use_how;
typedef struct smc_use {
    smc_use_how how;
    unsigned from; /* SMC_USE_FROM: major*10+minor */
    char feature[320];
    char source[320];
} smc_use;
/* The row of package's use of a library file; false when the table has none. */
bool smc_use_for(const char *package, const char *file, smc_use *out);

/* runtime.c: the compilers used at run time, and the CUDA libraries a library needs. */

/* Whether a compiler (ptxas, NVRTC) of this CUDA release accepts sm_<arch> (with a: sm_<arch>a):
 * 1 yes, 0 no, -1 not known (an architecture or release the table lacks). */
int smc_compiler_knows(int cuda, unsigned arch, bool a);
/* The first CUDA release whose compilers accept it; 0 none known. */
int smc_compiler_first(unsigned arch, bool a);
/* The first Triton release whose ptxas compiles for arch (with that ptxas's CUDA, *cuda, and the
 * setting that names another, *setting), or NULL (*cuda: the CUDA a ptxas must be of); *last the
 * last release that does when a newer one does not, else NULL. */
const char *smc_triton_first(unsigned arch, int *cuda, const char **setting, const char **last);
/* The last CUDA release whose compilers accept sm_<arch>, 0 when they still do. */
int smc_compiler_last(unsigned arch);
/* Fills in->compilers from its runtime files (in->runtime). */
smc_status smc_find_compilers(smc_input *in);

/* What compiles code at run time for target t in distribution d of in (SMC_NONE: the input's
 * files no distribution claims): the compiler used (index into in->compilers, SMC_NONE when d has
 * none), the target it is asked for (sm_<arch>, with a: sm_<arch>a; ptx: compute_<arch>, where
 * its only users cap what they ask NVRTC for, as torch does), whether it knows it (1, 0,
 * -1 not known), and the environment setting that names another compiler instead (then knows is
 * 1: not smcheck's to read). */
typedef struct smc_compile {
    size_t compiler;
    unsigned arch;
    bool a;
    bool ptx;             /* NVRTC asked for compute_<arch> (PTX) by torch, which caps it */
    int knows;
    const char *setting;  /* Triton: the setting that would name another ptxas */
    const char *override; /* "NAME=value" where the environment sets it */
} smc_compile;
smc_compile smc_compile_for(const smc_input *in, size_t d, const smc_target *t);

/* A library's DT_NEEDED CUDA libraries against the files of its input: the first needed only in
 * another major (soname, and the other's file name, other_len bytes of it its soname), and the
 * first not there at all (missing). Pointers into lib and in. */
typedef struct smc_needs {
    const char *soname, *other;
    size_t other_len;
    const char *missing;
    size_t missing_count; /* how many it needs are not there at all */
} smc_needs;
/* The base names of an input's shared library files, sorted, for smc_resolve_needed. */
typedef struct smc_names {
    const char **v; /* into the input's runtime files */
    size_t n;
} smc_names;
smc_status smc_names_of(const smc_input *in, smc_names *out);
void smc_names_free(smc_names *names);
smc_status smc_resolve_needed(const smc_names *names, const smc_library *lib, smc_needs *out);
/* The wheel that installs a CUDA library ("nvidia-cudnn-cu12 9.x" for libcudnn.so.9), for a
 * library built against CUDA cuda_major (0 unknown), into buf; "" when none is known. */
const char *smc_soname_wheel(char *buf, size_t n, const char *soname, unsigned cuda_major);

/* check.c: what the reports show, derived once from a judged model. */
/* The result's targets, judged; fills every derived field of the model (smc_judgement.reason
 * ...), the roll-ups' sentences, serving lists (when r->serving), next steps (verified). */
smc_status smc_derive(smc_result *r, const struct smc_builds *builds);

/* The distinct tokens (LTO IR left out) of the containers listed, space-separated, at most 12
 * then " ..."; *has_ptx says whether one is PTX. NULL when out of memory. */
char *smc_failing_tokens(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx);

#endif
