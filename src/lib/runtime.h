/* runtime.h: what the scan and the judge share of runtime.c: the names of the files that take part
 * at run time, and the ptxas release in a ptxas's bytes */
#ifndef SMCHECK_RUNTIME_H
#define SMCHECK_RUNTIME_H

#include <smcheck/smcheck.h>

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

#endif
