/* fleet.h: the GPUs a project's code must run on, declared once in the repository: a
 * [tool.smcheck] table in pyproject.toml (src/lib/acquire/fleet.c), or skylos's
 * .skylos/gpu-targets.yml (src/lib/acquire/fleet_yaml.c). The command judges each target of it as
 * if its GPUs, driver and platform were given on the command line. */
#ifndef SMCHECK_FLEET_H
#define SMCHECK_FLEET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct smc_fleet_target {
    char *name;     /* unique in its fleet */
    char *gpus;     /* as --gpu takes them: "h100,a100", "a100+t4" (one machine) */
    char *driver;   /* as --driver takes it, or NULL */
    char *platform; /* as --platform takes it, or NULL; skylos's "linux" or "windows" alone too */
    unsigned line;  /* of its [[tool.smcheck.targets]] header, or its first line in YAML */
} smc_fleet_target;

typedef struct smc_fleet {
    char *path;    /* the file it was read from */
    char *fail_on; /* as --fail-on takes it, or NULL */
    unsigned fail_on_line;
    char *facts_url; /* as --facts-url takes it (http:// or https://), or NULL */
    smc_fleet_target *targets;
    size_t count;
} smc_fleet;

/* The file that declares a fleet in dir or the nearest directory above it, as ruff and mypy find
 * theirs: a pyproject.toml with a [tool.smcheck] table, else .skylos/gpu-targets.yml (or .yaml).
 * 1 and *path (malloc'd), 0 none, -1 out of memory. A pyproject.toml without the table is passed
 * over; skylos's file is taken when it is there at all (a symbolic link fails when read). */
int smc_fleet_find(const char *dir, char **path);

/* Reads the fleet of a pyproject.toml, or of skylos's file (a path ending in .yml or .yaml: its
 * contract, version 1, read as strictly as skylos reads it; each target names a
 * compute_capability). Fail closed: false with why ("FILE:LINE: what", one line)
 * when the file cannot be read, is not TOML, has no [tool.smcheck] table, or the table has a key
 * other than fail-on, facts-url and targets (a facts-url not http:// or https://), no targets, or a
 * target without a name or gpus, with a key it does not know, a value that is not a string, or a
 * name another target has. */
bool smc_fleet_read(const char *path, smc_fleet *f, char *why, size_t n);
void smc_fleet_free(smc_fleet *f);

#endif
