/* rules.h: what one image is for one GPU and driver (rules.c), and the tables of CUDA,
 * PTX ISA and driver versions (versions.c): below the readers and the judge alike */
#ifndef SMCHECK_RULES_H
#define SMCHECK_RULES_H

#include "model.h"

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
    SMC_WHY_ARCH,        /* built for other GPUs */
    SMC_WHY_TEGRA,       /* a lower-minor cubin on a Tegra GPU: no binary compatibility */
    SMC_WHY_CUDA13,      /* a CUDA 13 cubin (ABI v2) on a driver older than 13.0 */
    SMC_WHY_PTX_ISA,     /* PTX newer than the driver can compile */
    SMC_WHY_LTO,         /* LTO IR: never loadable */
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

/* What one image is for a GPU of compute capability cc (major*10 + minor) and a driver (CUDA
 * version, 0 unknown). */
smc_verdict smc_image_verdict(const smc_image *img, unsigned cc, int driver_cuda, int *why);

/* Whether what a container's payloads say (the text of its PTX, whether its cubins hold kernels)
 * can change its verdict for one of the targets, judged from its entry headers alone. */
bool smc_facts_matter(const smc_image *images, size_t n, const smc_target *targets, size_t nt,
                      int driver_cuda);

#endif
