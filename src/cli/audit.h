/* audit.h: `smcheck audit` (audit.c), called by main.c with what the command line said. */
#ifndef SMCHECK_CLI_AUDIT_H
#define SMCHECK_CLI_AUDIT_H

#include "smcheck/model.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct audit_args {
    const smc_options *opt; /* the network's settings */
    const char *index_url;  /* NULL: PyPI */
    const char *shard;      /* "I/N", "/N" (I: JOB_COMPLETION_INDEX), or NULL: 0/1 */
    const char *output;     /* DIR */
    bool merge, quiet;
    char **paths; /* the PROJECTS file */
    int npaths;
} audit_args;

/* Audits one shard (or, with merge, merges the shard indexes): the exit status. */
int audit_run(const audit_args *a, FILE *diag);
int audit_merge(const audit_args *a, FILE *diag);

#endif
