/* audit.h: the facts of a whole index, computed in shards (smcheck audit; src/lib/api/audit.c).
 * The wheels of a list of projects that can carry GPU code are split into N shards the same way
 * by every process that lists them, and each wheel's facts (the record the cache keeps) are
 * written to a content-addressed tree, DIR/facts/<first two hex digits>/<sha256>.json: the
 * layout --facts-url reads, so the tree served as it is is a store. */
#ifndef SMCHECK_AUDIT_H
#define SMCHECK_AUDIT_H

#include "smcheck/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct smc_audit_wheel {
    char *project; /* as the index's page names it (normalized) */
    char *version; /* from the file name */
    char *filename;
    char *url;
    char sha256[65];
    uint64_t size; /* as the index says; 0 when it does not */
} smc_audit_wheel;

typedef struct smc_audit_list {
    smc_audit_wheel *wheels; /* by project, then file name; a sha256 once */
    size_t count;
    size_t other_platforms; /* wheels left out: macOS, other CPUs' pure-Python ones, sdists */
    size_t no_sha256;       /* wheels left out: the index gives no sha256 to key them by */
    char **errors;          /* "PROJECT: why", a page that could not be read */
    size_t error_count;
} smc_audit_list;

/* The names of every project on the index (NULL: PyPI), from its project list (PEP 691 JSON's
 * projects, or PEP 503 HTML's links), into *names (malloc'd, each malloc'd): SMC_OK, or
 * SMC_ERR_IO with why when the list cannot be read or is not one, SMC_ERR_NOMEM. */
smc_status smc_audit_index_projects(const smc_options *opt, const char *index_url, char ***names,
                                    size_t *count, char *why, size_t n);

/* Lists the wheels of projects on the index (NULL: PyPI) that can carry GPU code for Linux or
 * Windows: a platform tag of manylinux, musllinux or linux, or win_amd64 or win_arm64; and a
 * py3-none-any wheel of a project known to have shipped its libraries in one (bitsandbytes).
 * Only out of memory is an error; a page that cannot be read is in out->errors. */
smc_status smc_audit_list_wheels(const smc_options *opt, const char *index_url,
                                 const char *const *projects, size_t n, smc_audit_list *out);
void smc_audit_list_free(smc_audit_list *l);

/* The shard of each wheel among shards, balanced by size and the same in every process that
 * lists the same wheels: the largest first (sha256 ascending between equals), each to the shard
 * that holds the fewest bytes so far (the lowest number between equals); a wheel whose size is
 * not known counts as 1 MiB. */
void smc_audit_shards(const smc_audit_wheel *w, size_t n, unsigned shards, unsigned *shard_of);

/* The facts of one wheel into dir/facts/<ab>/<sha256>.json, read over the network as a check
 * reads it (its sha256 checked as it streams by), through a scratch cache under dir/tmp that is
 * emptied after it: SMC_OK and *had when a record of it that decodes was there already. A wheel
 * that cannot be read, or whose facts cannot be kept, is SMC_ERR_IO with why. */
smc_status smc_audit_facts(const smc_options *opt, const smc_audit_wheel *w, const char *dir,
                           bool *had, char *why, size_t n);

#endif
