/* resolve.h: requirements pinned to one version resolved to wheels through package indexes
 * (resolve.c) */
#ifndef SMCHECK_RESOLVE_H
#define SMCHECK_RESOLVE_H

#include "pypkg.h"
#include "remote.h"

/* Whether s is a requirement pinned to one version: NAME[extras]==VERSION (or ===). */
bool smc_requirement_is(const char *s);
/* Its name and version, cut to the sizes given; false when it is not one. */
bool smc_requirement_split(const char *s, char *name, size_t nn, char *version, size_t vn);

/* The indexes to look in, the first the default one: --index-url's, else PIP_INDEX_URL,
 * UV_INDEX_URL or UV_DEFAULT_INDEX, else https://pypi.org/simple/; then the extra ones
 * (--extra-index-url, PIP_EXTRA_INDEX_URL, UV_EXTRA_INDEX_URL, UV_INDEX). */
typedef struct smc_indexes {
    char **urls;
    size_t count;
} smc_indexes;
/* index_url: --index-url (NULL: the environment's, else PyPI); extras: --extra-index-url's (none:
 * the environment's). */
bool smc_indexes_init(smc_indexes *ix, const char *index_url, const char *const *extras,
                      size_t n_extras);
void smc_indexes_free(smc_indexes *ix);

/* smcheck's name of this machine's platform ("linux-x86_64", "linux-aarch64"). */
const char *smc_host_platform(void);

/* The wheel pip would install for name==version in e, from the files of every index pooled
 * (their pages fetched through f, which may be NULL):
 * its URL (malloc'd) and sha256 ("" when the index gives none). hashes: the sha256s the file must
 * have (requirements.txt's --hash), or none. False with a one-line why. */
bool smc_resolve_pin(const smc_net *net, smc_fetch *f, const smc_indexes *ix, const smc_pyenv *e,
                     const char *name, const char *version, const char *const *hashes,
                     size_t n_hashes, char **url, char sha256[65], char *why, size_t wn);

/* The sha256 an index gives for the wheel at url, a URL that names none (#sha256=): asked of the
 * indexes that serve it (url on an index's own host, or on files.pythonhosted.org for PyPI's:
 * no other host learns of it), on its project's page (by the wheel's name), where a link is url
 * (its fragment aside). False (sha256 "") when none says so, for whatever reason: url is then
 * read as before, unchecked. */
bool smc_resolve_url_sha256(const smc_net *net, const smc_indexes *ix, const char *url,
                            char sha256[65]);

/* The cache key of that choice where hashes are given (smc_choice_encode): the sha256, as hex, of
 * everything smc_resolve_pin's answer depends on (the indexes in order, the Python, its wheel
 * tags in order, the project's normalized name, the version, the hashes sorted). False without
 * hashes (the index may add a better wheel at any time then) or out of memory. */
bool smc_resolve_choice_key(const smc_indexes *ix, const smc_pyenv *e, const char *name,
                            const char *version, const char *const *hashes, size_t n_hashes,
                            char key[65]);

#endif
