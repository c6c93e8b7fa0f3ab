/* targets.h: the header of the targets wing (src/lib/targets/): the GPUs smcheck judges against.
 * A GPU table (data/gpus.tsv: product name -> compute capability), the parser of --gpu items:
 * arch tokens (sm_86, sm_90a, compute_120f), compute capabilities (8.6) and product names (h100,
 * rtx-4090, gb10), and platforms (arch.c); the local driver and GPUs through the CUDA Driver API
 * (gpu.c). It lives in src/include because the command uses it too.
 *
 * Like the rest of libsmcheck, nothing here prints or exits: calls return a status and write a
 * one-line message into the caller's err buffer (snprintf rules: always terminated, maybe cut). */
#ifndef SMCHECK_TARGETS_H
#define SMCHECK_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "smcheck/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct smc_input smc_input; /* what was read of one path (smcheck/model.h) */

/* One product of the table. */
typedef struct smc_gpu_model {
    char *name;                  /* "GeForce RTX 3090", at most 127 bytes */
    unsigned cc_major, cc_minor; /* compute capability */
    char *architecture;          /* "Ampere" */
    bool representative;         /* tag rep: the GPU shown for its CC when no GPU is named */
    bool weak;                   /* tag weak: the CC is weakly sourced */
    bool compat;                 /* tag compat: CUDA forward compatibility works on it */
} smc_gpu_model;

typedef struct smc_gpu_table {
    smc_gpu_model *models; /* in the order of the table text */
    size_t count;
} smc_gpu_table;

/* Parses table text in the format of data/gpus.tsv (len bytes; need not be terminated). Returns 1
 * and a new table in *out; 0 for bad input, with err = "line N: why"; -1 when out of memory.
 * Beyond the syntax it refuses duplicate names (also with a leading GeForce/Tesla dropped), a
 * second rep for one compute capability, and two architectures for one compute capability. */
int smc_gpu_table_parse(const char *text, size_t len, smc_gpu_table **out, char *err,
                        size_t errlen);
/* Reads the file at path and parses it; err = "PATH: why" on failure. Same returns. */
int smc_gpu_table_load(const char *path, smc_gpu_table **out, char *err, size_t errlen);
/* Parses the copy of data/gpus.tsv compiled into the library. 1 ok, 0 broken table (a build
 * defect), -1 out of memory. */
int smc_gpu_table_builtin(smc_gpu_table **out);
void smc_gpu_table_free(smc_gpu_table *t);

/* The name of the representative GPU of a compute capability, or NULL when it has none. */
const char *smc_gpu_table_representative(const smc_gpu_table *t, unsigned cc_major,
                                         unsigned cc_minor);

typedef struct smc_target {
    char name[128]; /* the table's name of the product the user named, else "" */
    unsigned cc_major, cc_minor;
    bool compat;    /* a product of the table's tag compat: forward compatibility works on it */
} smc_target;

/* Parses one --gpu item:
 *  - an arch token, "sm_86", "sm_90a", "sm_100f", "compute_86" (the a/f suffix names the same GPU);
 *  - a compute capability, "8.6", "12.0";
 *  - a product name, matched ignoring case, everything but letters and digits, and a leading
 *    "nvidia", "geforce", "tesla" or "quadro" word: "RTX 4090", "rtx-4090", "4090".
 * A whole-name match wins ("l4" is L4, not L40); for it only GeForce and Tesla may be left out, as
 * NVIDIA reused Quadro numbers ("Quadro RTX 6000" 7.5, "RTX 6000 Ada" 8.9). Otherwise the
 * candidates are the names that hold the item from the start of one of their words ("4090",
 * "rtx4090"; not "tx2" in "RTX 2080"), or whose words start with the item's words in order ("rtx
 * 6000" finds "RTX PRO 6000 Blackwell"); if they all share one compute capability the shortest is
 * taken, else the item is ambiguous. A token or capability must be one a row of t or a CUDA
 * release knows (sm_88 is CUDA 13.0's): another (sm_200, 12.5) is refused, naming the closest
 * known ones; a newer GPU is defined by a table row (--gpu-table). t may be NULL: then only
 * tokens and capabilities parse. Returns 1 and fills *out, or 0 with a one-line message in err,
 * such as unknown GPU 'rtx 4095' (closest: GeForce RTX 4090, GeForce RTX 4080, GeForce RTX 4070)
 *   'rtx 6000' is ambiguous: Quadro RTX 6000 (7.5), RTX 6000 Ada (8.9), RTX PRO 6000 Bl... (12.0)
 */
int smc_target_parse(const smc_gpu_table *t, const char *text, smc_target *out, char *err,
                     size_t errlen);
/* Parses a comma-separated --gpu list (spaces around items ignored, duplicates kept) into a new
 * array of *n targets, to be released with free(). 1 ok, 0 bad item (err says which), -1 out of
 * memory; *out is NULL unless 1. */
int smc_target_parse_list(const smc_gpu_table *t, const char *list, smc_target **out, size_t *n,
                          char *err, size_t errlen);

/* Platforms ------------------------------------------------------------------------------------ */

/* The platform of a wheel tag, a conda subdir or a machine name: "manylinux_2_28_x86_64",
 * "linux-64" and "x86_64" give "linux-x86_64", "manylinux2014_aarch64" and "aarch64"
 * "linux-aarch64", "win_amd64" and "win-64" "windows-amd64"; the three names themselves are
 * accepted too. NULL for anything else. */
const char *smc_platform_name(const char *text);
/* Whether a GPU is one only Arm machines have (Jetson, DGX Spark): its builds are linux-aarch64. */
bool smc_gpu_arm_only(const smc_target *t);
/* The platform of this machine (as smcheck was built for it). */
const char *smc_platform_here(void);

/* The local driver and GPUs, through the CUDA Driver API loaded at run time. ------------------ */

typedef struct smc_gpu {
    int index; /* as the driver numbers it (after CUDA_VISIBLE_DEVICES) */
    char name[256];
    unsigned cc_major, cc_minor;
    bool integrated; /* Jetson, DGX Spark: shares memory with the CPU */
} smc_gpu;

typedef struct smc_driver {
    bool loaded;       /* a libcuda was loaded */
    int cuda_version;  /* the newest CUDA the driver supports, 1000*major + 10*minor; 0 unknown */
    unsigned max_ptx_isa; /* the newest PTX ISA it compiles, major*10 + minor; 0 unknown */
    int error;         /* the Driver API error that stopped the probe, -1 before any call, 0 none */
    char message[256]; /* why there are no (or fewer) GPUs; "" when all went well */
    smc_gpu *gpus;
    size_t gpu_count;
} smc_driver;

/* Loads libcuda.so.1 (or $SMCHECK_LIBCUDA) and lists the GPUs. A missing or broken driver is not
 * an error of the call: it returns SMC_OK with no GPUs and the reason in d->message. */
smc_status smc_driver_probe(smc_driver *d);
void smc_driver_free(smc_driver *d);

/* The targets the command judges against when none is named: the local GPUs of a probed driver
 * (with the table's tag compat where it names them), or one representative GPU per compute
 * capability (the table's rep rows), by capability. New arrays, NULL when empty. */
smc_status smc_targets_local(const smc_gpu_table *table, const smc_driver *d, smc_target **out,
                             size_t *n);
smc_status smc_targets_representative(const smc_gpu_table *table, smc_target **out, size_t *n);
/* The representative matrix follows the inputs' platform: when every library with device code is
 * an x86-64 one (by its ELF header or its wheel's tag), the GPUs only Arm machines have (Jetson,
 * DGX Spark) are taken out of targets. Returns whether any was. */
bool smc_targets_for_platform(smc_input *const *inputs, size_t n, smc_target *targets,
                              size_t *nt);

#ifdef __cplusplus
}
#endif
#endif
