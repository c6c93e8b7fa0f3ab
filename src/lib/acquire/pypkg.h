/* pypkg.h: Python packaging without I/O: the environment wheels are chosen for (PEP 508 markers,
 * pip's tag order), PEP 440 versions and specifiers, wheel file names (PEP 427), and the files of
 * a package index's project page (PEP 503 HTML, PEP 691 JSON) with the one pip would install.
 * Everything here reads untrusted text (index pages, lock files, users' specs) and is bounded. */
#ifndef SMCHECK_PYPKG_H
#define SMCHECK_PYPKG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The environment wheels are chosen and markers evaluated for. */
typedef struct smc_pyenv {
    /* PEP 508 marker variables (platform_release and platform_version are not known for a
     * target and read as "") */
    char python_version[16], python_full_version[24], implementation_name[16],
        implementation_version[24], platform_python_implementation[16], sys_platform[16],
        platform_system[16], platform_machine[16], os_name[8];
    /* compatible wheel tags "interp-abi-platform", lower case, most preferred first (pip's
     * order) */
    char **tags;
    size_t tag_count;
    /* private: the tags' parts, for smc_wheel_rank (NULL: it works them out on each call) */
    void *tag_index;
} smc_pyenv;

/* platform: smcheck's names "linux-x86_64", "linux-aarch64", "windows-amd64" (aliases
 * "linux/amd64", "linux/arm64", "windows/amd64"), or a wheel platform tag:
 * "manylinux_2_28_x86_64" (a glibc floor: it also accepts every older manylinux_2_X and the
 * legacy manylinux2014/2010/1, not linux_x86_64, as uv's --python-platform does),
 * "manylinux2014_aarch64", "musllinux_1_2_x86_64", "win_amd64", "win_arm64", "win32",
 * "linux_x86_64" (that tag alone). smcheck's linux names mean manylinux_2_28. python: "3.11"
 * (python_full_version "3.11.0", as pip's --python-version) or "3.11.4"; NULL: "3.12". CPython
 * only. False with why on an unknown platform or python, or out of memory. */
bool smc_pyenv_init(smc_pyenv *e, const char *platform, const char *python, char *why, size_t n);
void smc_pyenv_free(smc_pyenv *e);

/* PEP 508 environment marker: 1 true, 0 false, -1 malformed (why). extra: the extra being
 * installed, or NULL (then `extra == "x"` is false). Version comparisons per PEP 440 when both
 * sides are versions, else string comparison, as packaging does; `in`/`not in` are substring
 * tests; and/or/parentheses, nested at most 64 deep. */
int smc_marker_eval(const char *marker, const smc_pyenv *e, const char *extra, char *why, size_t n);
/* The same with a set of extras installed together, as uv.lock's markers mean them (its
 * conflict markers: `extra == 'extra-4-proj-cu128'`): `extra == "x"` is whether x, normalized
 * as PEP 503 names are, is among them, `extra != "x"` whether it is not. extras: normalized and
 * sorted (strcmp), so that a comparison costs a bisection whatever their number. */
int smc_marker_eval_set(const char *marker, const smc_pyenv *e, const char *const *extras,
                        size_t count, char *why, size_t n);

/* PEP 440 ordering (epoch, release, pre, post, dev, local): <0, 0, >0. A string that is not a
 * version sorts before every version; two such compare as strcmp does. */
int smc_pep440_cmp(const char *a, const char *b);
/* Whether version satisfies a specifier set (">=3.9,!=3.10.*,<4", "~=2.2", "==2.8.0",
 * "===x"; "" matches all): 1, 0, -1 when either is malformed. Pre-releases match like any
 * version (packaging's prereleases=True, as pip checks Requires-Python and markers). */
int smc_pep440_match(const char *specifiers, const char *version);

/* PEP 503 normalized project name into out (lower case, runs of -_. become -), cut to n-1. */
void smc_pyname_normalize(const char *name, char *out, size_t n);

/* A wheel file name's parts (PEP 427, with compressed tag sets "py2.py3",
 * "manylinux2014_x86_64.manylinux_2_17_x86_64"), as packaging's parse_wheel_filename takes
 * them; false if it is not one or a part does not fit. */
typedef struct smc_wheel_name {
    char name[128];   /* normalized */
    char version[64]; /* as written */
    char build[32];   /* "" when none */
    char tags[512];   /* the tag triple as written, lower case */
} smc_wheel_name;
bool smc_wheel_name_parse(const char *filename, smc_wheel_name *w);
/* How pip ranks a wheel for e: the index in e->tags of its best tag (0 best), or -1 if none
 * fits or it is not a wheel's name. */
long smc_wheel_rank(const smc_pyenv *e, const char *filename);

/* pyindex.c: one file of a project page of a package index. */
typedef struct smc_index_file {
    char *filename;        /* the link's last path segment, percent-decoded (JSON: filename) */
    char *url;             /* absolute, http or https only, without the #fragment */
    char sha256[65];       /* lower-case hex, "" when the index gives none */
    char *requires_python; /* NULL when none */
    bool yanked;
    uint64_t size; /* 0 when unknown */
} smc_index_file;

/* Parses a PEP 691 JSON page (a content type with "json" in it, or a body that starts with '{')
 * or a PEP 503 HTML page (anything else); relative links resolve against base_url (RFC 3986
 * §5; NULL: relative links are dropped). Links that are not http(s), longer than 8 KiB, or
 * whose filename is empty or has a '/' or control bytes are dropped and counted in *dropped.
 * False with why when the page is not one (bad JSON, no files array), has more than 1,000,000
 * files, or memory ran out; then *files is NULL. */
bool smc_index_parse(const char *body, size_t len, const char *content_type, const char *base_url,
                     smc_index_file **files, size_t *n, size_t *dropped, char *why, size_t whylen);
void smc_index_files_free(smc_index_file *files, size_t n);
/* The same, as the page comes: fed in pieces of any size (content_type and base_url as above,
 * the first time they are known), holding no more than a few elements (JSON: each element of
 * "files" is parsed alone, 64 KiB at most) or one tag (HTML: 1 MiB at most), and keeping only the
 * files of project at version when both are given (pip's "==version"; other files are neither
 * kept nor counted as dropped). feed is false once the page cannot be read (end says why). */
typedef struct smc_index_stream smc_index_stream;
smc_index_stream *smc_index_stream_new(const char *project, const char *version);
bool smc_index_stream_feed(smc_index_stream *s, const char *content_type, const char *base_url,
                           const char *p, size_t n);
bool smc_index_stream_end(smc_index_stream *s, smc_index_file **files, size_t *n, size_t *dropped,
                          char *why, size_t whylen);
void smc_index_stream_free(smc_index_stream *s);

/* The sha256 a URL's fragment names as pip reads it ("#sha256=HEX", or after an '&'), in lower
 * case, into out ("" when there is none); false when it names one that is not 64 hex digits. */
bool smc_url_sha256(const char *link, char out[65]);
/* The last path segment of an absolute URL (no fragment), percent-decoded, in new memory; NULL
 * (and *bad) when empty or when it holds '/' or a control byte once decoded. */
char *smc_url_filename(const char *u, bool *bad);

/* The file pip would install for project==version in e: only wheels; files whose
 * requires-python excludes e's python dropped (a malformed one is ignored, as pip does);
 * incompatible tags dropped; when hashes are given (lower-case hex sha256), files without one of
 * them dropped. version is a pin with PEP 440 == semantics ("2.8" is "2.8.0"; "2.8.0" matches
 * "2.8.0+cu128", "2.8.0+cu128" only itself; a leading "==" is allowed). Among the rest, pip's
 * order: not yanked first (a yanked file is allowed, the pin being exact: PEP 592), then the
 * higher version (local versions differ), the best smc_wheel_rank, the higher build tag.
 * Returns the index, or -1 with a one-line why naming what there was. */
long smc_index_choose(const smc_index_file *files, size_t n, const char *project,
                      const char *version, const smc_pyenv *e, const char *const *hashes,
                      size_t n_hashes, char *why, size_t whylen);

#endif
