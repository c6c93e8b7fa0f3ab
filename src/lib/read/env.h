/* env.h: Python environments (env.c) and their packaging metadata (meta.c) */
#ifndef SMCHECK_ENV_H
#define SMCHECK_ENV_H

#include "walk.h"

/* env.c: Python environments. ---------------------------------------------------------------- */

typedef struct smc_env smc_env;
/* Reads the distribution metadata among a directory's items into in and *env. */
/* A file held in memory, for a filesystem that is not on disk (an image's layers). */
typedef struct smc_memfile {
    char *path;
    char *data;
    size_t len;
} smc_memfile;
/* The same from files in memory, sorted by path (strcmp). */
smc_status smc_env_collect_files(smc_input *in, const smc_memfile *files, size_t n,
                                 smc_env **env);
/* A conda-meta record held in memory (an image's) cut to what is read of it (name, version,
 * files: not paths_data, the bulk of a real one): *data replaced. Other files, and a record that
 * does not parse (its error is said when it is read), are left as they are. */
smc_status smc_env_compact(const char *path, char **data, size_t *len);
/* Whether the environment's metadata includes a file at path (RECORD, METADATA, ...). */
bool smc_env_wants(const char *path);
smc_status smc_env_collect(smc_input *in, const smc_item *items, size_t n, smc_env **env);
/* Gives each library of in to the distribution that lists its file; checks sizes against RECORD. */
smc_status smc_env_attribute(smc_input *in, const smc_env *env);
void smc_env_free(smc_env *env);
/* Lists each distribution's libraries. */
smc_status smc_distributions_finish(smc_input *in);
/* dir/rel (or rel) with "." and ".." resolved lexically, in new memory. */
char *smc_path_normalize(const char *dir, const char *rel);

/* meta.c: Python packaging metadata, parsed from text. --------------------------------------- */

typedef struct smc_metadata {
    char *name, *version;
    char **requires; /* Requires-Dist values */
    size_t requires_count;
} smc_metadata;

smc_status smc_metadata_parse(const char *text, size_t len, smc_metadata *out);
void smc_metadata_free(smc_metadata *md);
/* A *.dist-info/variant.json: the properties of the variant named label (the wheel file name's
 * last field), else of its only variant, as "namespace :: feature :: value" into d's
 * variant_label and variant_claims. SMC_ERR_FORMAT with *why (static text) when it is not such
 * a file. */
smc_status smc_variant_json_parse(const char *text, size_t len, const char *label,
                                  smc_distribution *d, const char **why);
/* WHEEL's Tag lines, joined by ", ", and the platform of the first ("manylinux_2_28_x86_64"). */
smc_status smc_wheel_tags(const char *text, size_t len, char **joined, char **platform);

typedef struct smc_record_row {
    char *path;
    int64_t size; /* -1 when not given */
} smc_record_row;

/* At most SMC_ROWS_MAX rows are read from one list: SMC_ERR_LIMIT, with those rows, when it has
 * more (real RECORDs have tens of thousands). */
#define SMC_ROWS_MAX 1000000
smc_status smc_record_parse(const char *text, size_t len, smc_record_row **rows, size_t *n);
smc_status smc_installed_files_parse(const char *text, size_t len, smc_record_row **rows,
                                     size_t *n);
void smc_record_free(smc_record_row *rows, size_t n);
/* The CUDA version a version.py states (cuda = '12.8'), or NULL. */
char *smc_version_py_cuda(const char *text, size_t len, bool *none);
/* Whether a version.py's __version__ carries the local label +cpu ('2.8.0+cpu': torchaudio's and
 * torchvision's CPU-only builds, whose PyPI metadata cannot carry it). */
bool smc_version_py_cpu(const char *text, size_t len);
/* Whether member ("torch/version.py") is the version.py of the distribution named name: the
 * one at the top of the package its name makes ("torch"; "foo-bar" makes foo_bar), the only one
 * read. A real one is a few hundred bytes; one over SMC_VERSION_PY_MAX is not read. */
bool smc_version_py_owned(const char *member, const char *name);
#define SMC_VERSION_PY_MAX (64u << 10)
/* What a package's version.py at member ("torch/version.py") says, into d: a CPU-only build
 * (cuda = None, __version__ '...+cpu': d->cpu_build, when nothing said so before) and the CUDA it
 * was built with (d->cuda and d->cuda_source, over what its dependencies said; *found). */
smc_status smc_version_py_apply(smc_distribution *d, const char *member, const char *text,
                                size_t len, bool *found);
/* d->local_version from d->version ("cu128" of "2.7.0+cu128"), and a +cpu one as d->cpu_build. */
smc_status smc_local_version(smc_distribution *d);
/* The CUDA runtime a wheel requires (nvidia-cuda-runtime...), or NULL; *which names the line. */
char *smc_requires_cuda(char *const *requires, size_t n, const char *platform,
                        const char **which);
/* The members of a JSON document's top-level object whose keys are among keys (NULL-ended): fn
 * gets each key's index and its value parsed alone, or, when by_element and the value is an
 * array, each element parsed alone with its index (SIZE_MAX for a whole value). SMC_ERR_FORMAT
 * when the document is not an object, or a value fn gets is not JSON; fn's answer otherwise. */
struct cJSON;
typedef smc_status (*smc_json_fn)(void *ctx, int key, const struct cJSON *value, size_t index);
smc_status smc_json_members(const char *text, size_t len, const char *const *keys, bool by_element,
                            smc_json_fn fn, void *ctx);
/* A conda-meta JSON file: the package's name, version and files (relative to the prefix);
 * SMC_ERR_LIMIT with the first SMC_ROWS_MAX files when it lists more. */
smc_status smc_conda_meta_parse(const char *text, size_t len, char **name, char **version,
                                smc_record_row **files, size_t *n);

#endif
