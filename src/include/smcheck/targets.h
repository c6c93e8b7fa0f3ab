/* targets.h: the GPUs smcheck judges against. A GPU table (data/gpus.tsv: product name -> compute
 * capability) and the parser of --gpu items: arch tokens (sm_86, sm_90a, compute_120f), compute
 * capabilities (8.6) and product names (h100, rtx-4090, gb10).
 *
 * Like the rest of libsmcheck, nothing here prints or exits: calls return a status and write a
 * one-line message into the caller's err buffer (snprintf rules: always terminated, maybe cut). */
#ifndef SMCHECK_TARGETS_H
#define SMCHECK_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
