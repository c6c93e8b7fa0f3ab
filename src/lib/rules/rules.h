/* rules.h: the rules wing, below the readers and the judge alike: what one image is for one GPU
 * and driver (rules.c), the tables of CUDA, PTX ISA and driver versions (versions.c), what is
 * known of packages beyond their device code (packages.c: CPU-only builds, loaders, NVIDIA's
 * support, uses), and of the runtime (runtime.c: the files that take part at run time, the
 * compilers used then, the CUDA libraries a library needs) */
#ifndef SMCHECK_RULES_H
#define SMCHECK_RULES_H

#include "../base/base.h"

/* versions.c ------------------------------------------------------------------------------------
 */

/* The first CUDA version (1000*major + 10*minor) whose compiler emits this PTX ISA; 0 unknown. */
int smc_cuda_for_ptx_isa(unsigned major, unsigned minor);
/* The first CUDA version whose driver runs a GPU of compute capability cc (major*10+minor); 0
 * unknown. */
int smc_cuda_for_arch(unsigned cc);
/* The driver branch (580 for CUDA 13.0) that first supports a CUDA version; 0 unknown. */
int smc_driver_branch_for_cuda(int cuda_version);
/* A CUDA version at the start of text ("12.8 brand=..." , "12.8.1", "13"): 1 and *cuda_version,
 * or 0. */
bool smc_driver_parse_prefix(const char *text, int *cuda_version);

/* Why one image does not run (smc_image_verdict's *why). */
enum {
    SMC_WHY_NONE,
    SMC_WHY_ARCH,         /* built for other GPUs */
    SMC_WHY_TEGRA,        /* a lower-minor cubin on a Tegra GPU: no binary compatibility */
    SMC_WHY_CUDA13,       /* a CUDA 13 cubin (ABI v2) on a driver older than 13.0 */
    SMC_WHY_PTX_ISA,      /* PTX newer than the driver can compile */
    SMC_WHY_LTO,          /* LTO IR, or a kind smcheck does not know: never loadable */
    SMC_WHY_TILEIR,       /* Tile IR the driver cannot compile: older than its bytecode, or 13.1 */
    SMC_WHY_THOR_RENAMED, /* an sm_101 image on Thor (11.0): runs per PyTorch, unconfirmed */
    SMC_WHY_TEGRA_SBSA    /* a lower-minor cubin on Orin with a CUDA 13 driver: runs, as users
                           * report, unconfirmed */
};
/* rules.c: an image's facts as the rules read them. */
unsigned smc_arch_major(unsigned arch);
/* A Jetson GPU's capability: only a cubin for exactly it runs there. */
bool smc_tegra(unsigned cc);
/* Whether a GPU of capability cc runs an 'f' image of arch. */
bool smc_in_family(unsigned arch, unsigned cc);
/* What an image is for (its PTX text's .target when read, else its entry's), its PTX ISA, and
 * whether it is a cubin in CUDA 13's format. */
unsigned smc_image_arch(const smc_image *img);
smc_variant smc_image_variant(const smc_image *img);
unsigned smc_image_isa(const smc_image *img);
bool smc_image_cuda13(const smc_image *img);
/* What an image is for: a PTX image's .target (when its text was read) wins over its entry's
 * arch and variant. */
void smc_image_target(const smc_image *img, unsigned *arch, smc_variant *variant);

/* The CUDA version whose driver compiles a Tile IR image: its bytecode's (13.3), and 13.1 at
 * least, the first that took Tile IR (docs/compatibility.md §2.12). */
int smc_tileir_cuda(const smc_image *img);

/* What one image is for a GPU of compute capability cc (major*10 + minor) and a driver (CUDA
 * version, 0 unknown). Tile IR is compiled by the driver like PTX (jit), for a GPU at or above the
 * entry's arch (the lowest its Tile IR compiler takes: 80 from nvFatbin 13.2, 100 in 13.1). */
smc_verdict smc_image_verdict(const smc_image *img, unsigned cc, int driver_cuda, int *why);

/* Whether what a container's payloads say (the text of its PTX, whether its cubins hold kernels)
 * can change its verdict for one of the targets, judged from its entry headers alone. */
bool smc_facts_matter(const smc_image *images, size_t n, const smc_target *targets, size_t nt,
                      int driver_cuda);

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

/* runtime.c: the files that take part at run time, the compilers used then, and the CUDA
 * libraries a library needs. */
#define SMC_SONAME_MAX 64 /* longer DT_NEEDED names are not CUDA's */

/* The length of the CUDA library's soname at p ("libcublasLt.so.12", NUL-terminated within n
 * bytes), or 0 when p holds no such name. */
size_t smc_cuda_soname(const uint8_t *p, size_t n);

/* Whether a file by this path takes part at run time without device code, and how. */
bool smc_runtime_kind_of(const char *path, smc_runtime_kind *kind);

/* The release a ptxas's bytes state ("Cuda compilation tools, release 12.8,": 12080); 0 none,
 * -1 when the statement is cut at the end of p (*need: the bytes it takes, to keep for the next
 * window). */
int smc_ptxas_release(const uint8_t *p, size_t n, size_t *need);



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
/* The compilers among in's runtime files (in->runtime), in a new array of *n (free it with
 * smc_compilers_free, also on failure). */
smc_status smc_find_compilers(const smc_input *in, smc_compiler **out, size_t *n);

/* What compiles code at run time for target t in distribution d of in (SMC_NONE: the input's
 * files no distribution claims), of its compilers (nc, smc_find_compilers), where the packages
 * run in environment (as smc_situation's, or NULL): the compiler used
 * (an index into them, SMC_NONE when d has
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
smc_compile smc_compile_for(const smc_input *in, const char *const *environment,
                            const smc_compiler *compilers, size_t nc, size_t d,
                            const smc_target *t);

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

#endif
