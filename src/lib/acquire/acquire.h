/* acquire.h: the acquire wing: what is read over HTTP(S) (remote.c), package indexes
 * (pyindex.c, index_url.c, index_html.c), requirements resolved to wheels (resolve.c), lock files
 * (lock.c and a file per format, toml*.c), Python packaging without I/O (pep440.c versions,
 * pyenv.c environments and tags, markers.c markers), and the facts cache (cache*.c) */
#ifndef SMCHECK_ACQUIRE_H
#define SMCHECK_ACQUIRE_H

#include "../base/base.h"
#include "smcheck/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* Python packaging: pep440.c, pyenv.c, markers.c ------------------------------------------ */

/* Python packaging without I/O: the environment wheels are chosen for (PEP 508 markers,
 * pip's tag order), PEP 440 versions and specifiers, wheel file names (PEP 427), and the files of
 * a package index's project page (PEP 503 HTML, PEP 691 JSON) with the one pip would install.
 * Everything here reads untrusted text (index pages, lock files, users' specs) and is bounded. */

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

/* Whether version is a PEP 440 version; *pre (may be NULL): whether a pre- or dev release. */
bool smc_pep440_is_version(const char *version, bool *pre);
/* A requirement's version part as a specifier set into spec: "2.8.0" and "==2.8.0" as
 * "==2.8.0", ">=2.8,<3" as it is, "" (a bare name) as "" (any version). *exact: it names one
 * version (== without a wildcard, or ===), the only case where pip takes a yanked file; *pre: a
 * clause names a pre-release, so pre-releases are candidates (packaging's prereleases). False
 * when it is not a specifier set or does not fit n. */
bool smc_pep440_spec(const char *version, char *spec, size_t n, bool *exact, bool *pre);

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

/* The file pip would install for project and version in e: only wheels; files whose
 * requires-python excludes e's python dropped (a malformed one is ignored, as pip does);
 * incompatible tags dropped; when hashes are given (lower-case hex sha256), files without one of
 * them dropped. version is a pin ("2.8.0" or "==2.8.0", PEP 440 == semantics: "2.8" is "2.8.0";
 * "2.8.0" matches "2.8.0+cu128", "2.8.0+cu128" only itself), a specifier set (">=2.8,<3",
 * "~=2.8.0", "==2.8.*") or "" (any version: a bare name), as smc_pep440_spec reads it. A yanked
 * file is taken only for a pin (PEP 592); pre-releases only where a clause names one or no
 * final release matches (packaging's filter). Among the rest, pip's order: not yanked first,
 * then the higher version (local versions differ), the best smc_wheel_rank, the higher build
 * tag. Returns the index, or -1 with a one-line why naming what there was: for a version or
 * range the index does not have, the releases nearest it, or the newest. */
long smc_index_choose(const smc_index_file *files, size_t n, const char *project,
                      const char *version, const smc_pyenv *e, const char *const *hashes,
                      size_t n_hashes, char *why, size_t whylen);

/* remote -------------------------------------------------------------------------------------
 */

/* files read in place over HTTP(S) with libcurl (remote.c): a wheel by its URL, read
 * with range requests and never written anywhere, and the small pages of a package index */

/* Whether this build can read URLs (built with libcurl: SMCHECK_CURL). */
bool smc_remote_built(void);
/* The SHA-256 of n bytes as 64 lower-case hex digits; false where built without libcurl (and
 * its libcrypto). */
bool smc_sha256_hex(const void *p, size_t n, char out[65]);
/* The SHA-256 of what is left to read at fd, as 64 lower-case hex digits; false (errno set; 0:
 * built without libcrypto) when it cannot be read. */
bool smc_sha256_fd(int fd, char out[65]);

/* How the network is used: the seconds a connection may take to open and a transfer may stall
 * (0: 30). The rest comes from the environment as curl's tool reads it: proxies (libcurl's own:
 * http_proxy, HTTPS_PROXY, NO_PROXY), SSL_CERT_FILE or CURL_CA_BUNDLE, SSL_CERT_DIR, and .netrc
 * ($NETRC, else ~/.netrc). */
typedef struct smc_net {
    unsigned timeout;
    uint64_t speed_limit; /* bytes a second over timeout seconds (0: 1024) */
    bool offline;         /* nothing is asked of any server: every read fails, saying so */
} smc_net;

/* Why a read fails when the network is turned off. */
#define SMC_OFFLINE_WHY "not read: reading over the network is turned off"

/* A handle that one thread's pages reuse, zeroed to start: their connections, TLS sessions and
 * certificate store (loading the CA bundle for each new connection took 60 ms of CPU, most of a
 * warm lock's time). smc_fetch_done closes it. */
typedef struct smc_fetch {
    void *curl;
} smc_fetch;
void smc_fetch_done(smc_fetch *f);

/* A GET whose body (decompressed, as the server's encoding asks) goes to sink piece by piece as it
 * comes, with the content type and the URL it came from after redirects, never held whole; at
 * most cap bytes of it (then an error). Only a 200's body is passed on. False with why when the
 * transfer fails, the status is not 200, or sink returns false (why then: "", sink's to say). */
typedef bool (*smc_sink)(void *ctx, const char *type, const char *final_url, const char *p,
                         size_t n);
bool smc_http_stream(const smc_net *net, smc_fetch *f, const char *url, const char *accept,
                     uint64_t cap, smc_sink sink, void *ctx, char *why, size_t n);
/* Every file of project's page on the index (NULL or "": PyPI's), as PEP 691 JSON or PEP 503
 * HTML gives them: true and *files (none where the index has no such project), or false with
 * why (the page cannot be read or is not one, out of memory). */
bool smc_index_project(const smc_net *net, smc_fetch *f, const char *index, const char *project,
                       smc_index_file **files, size_t *n, char *why, size_t wn);

/* A remote file read in place: the last bytes are fetched when it opens (its size from the
 * response), the rest by one forward stream of a range request that a read elsewhere moves
 * (short forward gaps are read through). A server that ignores ranges (200 for a range) is
 * streamed from its start. With sha256 (64 hex digits) the bytes are hashed as they stream by,
 * in order, and smc_remote_finish reads what was never read and compares. */
typedef struct smc_remote smc_remote;
/* The bytes the stream may run ahead of what was read: a read-ahead. 4 MiB was no faster (torch
 * from PyPI at 600 MB/s, the reader inflating behind it) and took 3-7 MB more at -j2. */
#define SMC_REMOTE_AHEAD (2u << 20)

smc_remote *smc_remote_open(const smc_net *net, const char *url, const char *sha256, char *why,
                            size_t n);
uint64_t smc_remote_size(const smc_remote *r);
/* Exactly n bytes at off into buf, or false with the reason in smc_remote_error. */
bool smc_remote_pread(smc_remote *r, void *buf, size_t n, uint64_t off);
const char *smc_remote_error(const smc_remote *r);
/* Bytes received so far (for progress). */
uint64_t smc_remote_received(const smc_remote *r);
/* With a sha256: reads the bytes never hashed and says whether the file is the one expected;
 * false with why (a mismatch names both hashes). Without one: true. */
bool smc_remote_finish(smc_remote *r, char *why, size_t n);
void smc_remote_close(smc_remote *r);

/* libzip reads a remote file through this source (read-only, seekable); r stays the caller's,
 * open until the archive is discarded. NULL when out of memory. */
struct zip_source;
struct zip_source *smc_remote_zip_source(smc_remote *r);

/* resolve ------------------------------------------------------------------------------------
 */

/* requirements resolved to wheels through package indexes, as pip resolves them (resolve.c) */

/* Whether s is a requirement as pip takes one on its command line: NAME[extras] followed by a
 * PEP 440 specifier set (==2.8.0, >=2.8,<3, ~=2.8.0, ==2.8.*, ===x), or a bare NAME (any
 * version) that holds no '.' (which a file's name would). Blanks between the parts are allowed. */
bool smc_requirement_is(const char *s);
/* Its name, extras ("[a,b]" or "") and specifier set ("" for a bare name), each cut to its size;
 * false when it is not one. */
bool smc_requirement_split(const char *s, char *name, size_t nn, char *extras, size_t en,
                           char *spec, size_t sn);

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

/* The wheel pip would install for name and version in e (a pin, a specifier set or "": see
 * smc_index_choose), from the files of every index pooled (their pages fetched through f, which
 * may be NULL): its URL (malloc'd) and sha256 ("" when the index gives none). hashes: the
 * sha256s the file must have (requirements.txt's --hash), or none. chose (cn bytes, may be 0):
 * for a range or a bare name, the version taken and why ("2.9.1, the newest with a wheel for
 * cp312 manylinux_2_28_x86_64"), else "". False with a one-line why. */
bool smc_resolve_pin(const smc_net *net, smc_fetch *f, const smc_indexes *ix, const smc_pyenv *e,
                     const char *name, const char *version, const char *const *hashes,
                     size_t n_hashes, char **url, char sha256[65], char *chose, size_t cn,
                     char *why, size_t wn);

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

/* acquire: the stage (acquire.c) ----------------------------------------------------------- */

/* One wheel the acquire stage hands the reader: where to read it (an http(s) URL, or the path a
 * lock names), the sha256 to check it against ("" when none is known), whether a lock installs
 * it, and problem: why a lock's local wheel is not read (not a wheel, not the one pinned), or
 * NULL. */
typedef struct smc_wanted {
    char *where;
    char sha256[65];
    bool lock;
    char *problem;
} smc_wanted;
void smc_wanted_free(smc_wanted *w, size_t n);

/* The wheels a URL (URL#sha256=HEX, as pip takes it), a requirement pinned to one version
 * (torch==2.8.0) or a lock file (pylock.toml, uv.lock, requirements.txt) names, appended to *out
 * (*n of them). Each sets in's kind and says on in what goes wrong (errors, and a lock's notes);
 * the error return is only for running out of memory. They ask the package indexes and the cache
 * of choices, and read no wheel. */
smc_status smc_acquire_url(const char *url, const smc_options *opt, smc_input *in,
                           smc_wanted **out, size_t *n);
smc_status smc_acquire_requirement(const char *spec, const smc_options *opt, smc_input *in,
                                   smc_wanted **out, size_t *n);
smc_status smc_acquire_lock(const char *path, const smc_options *opt, smc_input *in,
                            smc_wanted **out, size_t *n);

/* How the network is used, as the options say (NULL: the defaults). */
smc_net smc_net_of(const smc_options *opt);
/* Whether a wheel's facts may come from, and go to, the cache: read for every target and
 * driver, with the default limits, without --verify's or --detail's extra facts. */
bool smc_cacheable(const smc_options *opt);

/* toml ---------------------------------------------------------------------------------------
 */

/* a TOML 1.0 reader (lock files: pylock.toml, uv.lock) that turns text trusted in nothing
 * (any bytes, any length, hostile nesting) into a cJSON tree, or says on which line it is wrong. */

/* Nesting beyond this depth of the tree (tables, dotted keys, arrays, inline tables together) is
 * an error: it bounds the recursion here and in cJSON_Delete and cJSON_Print. */
#define SMC_TOML_MAX_DEPTH 128
/* Values one document may hold: a tree of cJSON nodes costs some 100 bytes a value, whatever the
 * text that wrote it ("1," is two bytes), and the largest real locks hold a few hundred thousand
 * (a pylock.toml of 200,000 packages, 1.4 million, is read in 240 MiB). */
#define SMC_TOML_MAX_VALUES 2000000u

/* Parses TOML 1.0 text of len bytes (need not be NUL-terminated) into a cJSON object: tables and
 * inline tables become objects, arrays and arrays of tables arrays, strings strings, integers and
 * floats numbers, booleans booleans, offset/local date-times, dates and times strings exactly as
 * written. NULL on any error, with why set to "line L: what" (never longer than n bytes).
 * Refused although TOML allows them, since a cJSON tree cannot hold them: integers beyond
 * +-2^53 (a double would round them) and U+0000 in strings and keys (cJSON's are terminated). */
cJSON *smc_toml_parse(const char *text, size_t len, char *why, size_t n);

/* lock ---------------------------------------------------------------------------------------
 */

/* what a lock file would install (lock.c): pylock.toml (PEP 751), uv.lock and pinned
 * requirements.txt, read for one environment (markers evaluated, one wheel chosen per package) */

/* One distribution the lock installs: the wheel it names (url, sha256), or for
 * requirements.txt only the pin and the hashes the chosen file must have (the index chooses). */
typedef struct smc_pin {
    char *name, *version;
    /* the wheel's URL as the lock names it, or its local path (a path or file: URL in the lock,
     * made relative to the lock's directory); NULL: chosen from an index */
    char *url;
    char sha256[65]; /* the wheel's sha256, lower-case hex; "" when the lock gives none */
    char **hashes;   /* requirements.txt: the sha256s --hash allows (lower-case hex) */
    size_t hash_count;
    char *index; /* the index the lock names for it, or NULL */
} smc_pin;

typedef struct smc_lock {
    smc_pin *pins;
    size_t pin_count;
    char **problems; /* "torch 2.8.0: no wheel for cp311 manylinux_2_28_x86_64", one line each */
    size_t problem_count;
    char **notes; /* "proj: a local directory ...": left aside on purpose, one line each */
    size_t note_count;
    char **indexes; /* requirements.txt's --index-url (first) and --extra-index-url lines */
    size_t index_count;
    bool index_given; /* it names its --index-url: the default index is not used */
} smc_lock;

/* The one Python a lock's text fixes, as "3.11" into python: its top-level requires-python
 * admits one minor of Python 3 ("==3.11.*", ">=3.11,<3.12"), or every wheel it names is built
 * for one CPython (cp311, not abi3: a wheel for any Python fixes nothing). how: why, for the
 * report. False when it fixes none. */
bool smc_lock_python(const char *text, size_t len, char *python, size_t pn, char *how, size_t hn);

/* Whether a file is a lock file by its name: pylock.toml, pylock.NAME.toml, uv.lock,
 * requirements*.txt, *.lock.txt. */
bool smc_lock_named(const char *path);

/* Reads a lock file's text for environment e: the kind by path (*.txt: requirements.txt) and
 * content (lock-version: pylock.toml; version and [[package]]: uv.lock). One pin per package name
 * (a second is dropped, with a problem where it differs). False with why (one line) when the file
 * as a whole cannot be read: not TOML, not a lock of a kind known, a pylock lock-version other
 * than 1.x, requires-python or pylock environments that exclude e, a uv.lock without a project,
 * a requirements line that is not a requirement pinned to one version (==, ===, or a wheel's
 * URL, that no -c constraint pins), a NUL byte or a line over 1 MiB, a -r or -c file that includes
 * itself or a bad line in one; then *out is empty. requirements.txt's -r and -c files are read
 * from disk as pip reads them (lock.c: include). Problems with single packages (no wheel for e, a
 * malformed marker or hash, a missing dependency, a -r or -c file missing or on the web, a
 * constraint that excludes a pin, -e of version control) are listed in the lock's problems, one
 * line each, naming the package or line, at most 1,000; local directories (the project itself:
 * pylock's directory, uv's editable or directory source, -e PATH) in its notes. extras: the
 * project's extras to install, as uv sync --extra (a uv.lock's: its markers then see them as uv's
 * conflict markers name them; one no project declares is a problem, and so is any for the other
 * kinds, which name what they install); a uv.lock's extras not asked for are a note. */
bool smc_lock_read(const char *path, const char *text, size_t len, const smc_pyenv *e,
                   const char *const *extras, size_t extra_count, smc_lock *out, char *why,
                   size_t n);
void smc_lock_free(smc_lock *l);

/* cache --------------------------------------------------------------------------------------
 */

/* the facts read from one wheel (or other archive), kept by the sha256 of its bytes, so
 * that a second check of the same file for another GPU or driver reads none of its bytes again.
 *
 * A record is the smc_input that smc_scan_path makes of the file (with smc_options.read.inspect),
 * as reading left it: what the readers found, never what the judge or derive add (verdicts,
 * roles, summaries, serving lists, compilers, cpu_only: they live in a result). Paths in it are relative to the file (the prefix the caller
 * names), so the same bytes reached through another URL or a local path share one record. The text
 * is JSON lines: a document on the first line,
 *   {"format": "smcheck-facts", "version": SMC_CACHE_FORMAT, "reader": SMC_VERSION,
 *    "sha256": "...", "image_fields": [...], "container_fields": [...], "input": {...}}
 * in which each library counts its "images" and "containers"; then their rows, one per line,
 * library by library, its images before its containers: arrays of the fields the two lists
 * name, in that order. A library may hold tens of thousands: read one row at a time, they never
 * need a parsed tree of all of them (cuFFT's 23,532 containers as one tree: 40 MB). Everything
 * else is an object with every key present.
 * A path is written without the prefix ("!torch/lib/x.so"); a message or note that holds the
 * prefix is the array of the pieces around it (["", ": no *.dist-info/WHEEL: a zip archive..."]).
 * Integers above 2^53 are decimal strings. A file on disk is DIR/v<FORMAT>/ab/<sha256>.json.
 *
 * Nothing read back is trusted: smc_cache_decode checks every field, so a damaged or hostile
 * record is an error (the caller reads the file again), never a crash or a model the judge could
 * trip on. */

/* The cache format's version: bump it whenever what the reader records changes. */
#define SMC_CACHE_FORMAT 3
/* The largest record read or written (the largest real ones, NVIDIA's cuFFT and cuBLAS, are
 * 3 MB; a model of 40,000 containers and 320,000 images writes 26 MB), read whole: a record of
 * its rows' minimum size holds some 1,000,000 images, which take 130 MiB read; and the longest
 * string in one (its pieces together, without the prefix). */
#define SMC_CACHE_MAX_BYTES (32u << 20)
#define SMC_CACHE_STRING_MAX (1u << 20)
/* What smc_cache_store trims the directory to when its cap is 0. */
#define SMC_CACHE_DEFAULT_CAP (1ull << 30)

/* Whether s is a sha256 as the cache keys files: 64 lower-case hex digits. */
bool smc_cache_key_ok(const char *s);

/* Encodes in (one file's facts) as a cache record for the file whose sha256 is given, its paths
 * (libraries, their links, runtime files, errors, distribution locations) made relative to
 * prefix; the prefix is also taken out of messages and notes wherever it occurs. A malloc'd
 * NUL-terminated text, or NULL with why: out of memory, a path not under prefix, a string with a
 * control character or over SMC_CACHE_STRING_MAX, a record over SMC_CACHE_MAX_BYTES. */
char *smc_cache_encode(const smc_input *in, const char *prefix, const char *sha256, char *why,
                       size_t n);
/* Decodes a record into a new input named path, its paths prefixed with prefix (free it with
 * smc_input_free). NULL with why when the text is not a valid record of this format and reader
 * version (a record of another reader says so), or not for sha256, or out of memory. */
smc_input *smc_cache_decode(const char *text, size_t len, const char *path, const char *prefix,
                            const char *sha256, char *why, size_t n);

/* A choice: the wheel the indexes gave for a requirement pinned with --hash lines
 * (requirements.txt), kept under the sha256 of everything that decided it (smc_resolve_choice_key:
 * the indexes, the Python and its wheel tags, the name, the version, the hashes), so that a second
 * check of the lock asks no index. The files those hashes name never change (a new upload has
 * another hash), so the choice among them does not either. One line, in the same directory as the
 * facts:
 *   {"format": "smcheck-choice", "version": SMC_CACHE_FORMAT, "reader": SMC_VERSION,
 *    "key": "...", "url": "http(s)://...", "sha256": "..."}
 * A malloc'd NUL-terminated record, or NULL (out of memory, or a URL or sha256 that decode would
 * refuse). */
char *smc_choice_encode(const char *key, const char *url, const char *sha256);
/* Reads a choice record made for key: *url (malloc'd) and sha256, or false with why (not a
 * record of this format and reader, another key, a URL that is not http(s) or not clean, a bad
 * sha256, out of memory). */
bool smc_choice_decode(const char *text, size_t len, const char *key, char **url, char sha256[65],
                       char *why, size_t n);

/* The cache directory: $XDG_CACHE_HOME/smcheck (when absolute), else $HOME/.cache/smcheck; NULL
 * when neither is set. malloc'd. */
char *smc_cache_dir(void);
/* Looks up the record for sha256 in dir: a malloc'd NUL-terminated text of *len bytes, or NULL:
 * not there (why empty), or unreadable, a symbolic link, not a regular file, over
 * SMC_CACHE_MAX_BYTES, a key that is not a sha256 (why says). A record read is touched (its
 * mtime is now), which is what keeps it from being trimmed. */
char *smc_cache_load(const char *dir, const char *sha256, size_t *len, char *why, size_t n);
/* Stores a record atomically (a temporary file in the same directory, then rename; directories
 * made 0700, files 0600), then trims the cache to cap bytes (0: SMC_CACHE_DEFAULT_CAP). False
 * with why when the record could not be stored; trimming is best effort. */
bool smc_cache_store(const char *dir, const char *sha256, const char *text, size_t len,
                     uint64_t cap, char *why, size_t n);
/* Removes the least recently used records (by mtime, oldest first) until the records of dir (of
 * every format version) hold at most cap bytes (0: SMC_CACHE_DEFAULT_CAP); the record keep (a
 * sha256, or NULL) stays even when it alone is over cap. Temporary files that writers left more
 * than a day ago go too. False with why when dir cannot be listed. */
bool smc_cache_trim(const char *dir, uint64_t cap, const char *keep, char *why, size_t n);
/* Merges the records of dir `from` into `into` (records are content-addressed: same key, same
 * facts), for sharing caches made by parallel jobs: each record of this format in from that
 * decodes (this reader's, for its key: facts or a choice) and that into lacks, or holds only a copy
 * that does not decode, is copied with its mtime; the others are skipped and counted. Does not
 * trim. False with why when from cannot be listed or a record cannot be written into `into`. */
bool smc_cache_merge(const char *into, const char *from, size_t *copied, size_t *skipped, char *why,
                     size_t n);

/* facts_store.c: a store of facts served over HTTP ------------------------------------------------
 */
/* A GET's whole body (at most cap bytes, decompressed) into *text (malloc'd, NUL-terminated, *len
 * bytes; "" when empty): false with why as smc_http_stream says it ("out of memory" too). */
bool smc_http_get(const smc_net *net, smc_fetch *f, const char *url, const char *accept,
                  uint64_t cap, char **text, size_t *len, char *why, size_t n);
/* URL/facts/<first two hex>/<sha256>.json, the record of sha256 in the store at base. */
char *smc_facts_url_of(const char *base, const char *sha256);
/* Asks the store at base for the record of sha256: 1 and *text (malloc'd, NUL-terminated, *len
 * bytes; not yet checked: smc_cache_decode does), 0 when the store has none (404, 410), -1 with
 * why when the store cannot be read (down, refused, another status, over SMC_CACHE_MAX_BYTES). */
int smc_facts_fetch(const smc_net *net, smc_fetch *f, const char *base, const char *sha256,
                    char **text, size_t *len, char *why, size_t n);

/* fleet.c, fleet_yaml.c ------------------------------------------------------------------------
 */
struct smc_fleet;
#define FLEET_TARGETS_MAX 256
/* Writes "PATH:LINE: what" (PATH: when line is 0) into why; returns false, for `return fail(...)`.
 */
bool smc_fleet_fail(char *why, size_t n, const char *path, unsigned line, const char *fmt, ...)
    SMC_PRINTF(5, 6);
/* Reads skylos's .skylos/gpu-targets.yml (version 1) into f, as smc_fleet_read does. */
bool smc_fleet_read_yaml(const char *path, struct smc_fleet *f, char *why, size_t n);
/* The same on len bytes of text (no NUL needed after them); path names it in why. */
bool smc_fleet_parse_yaml(const char *text, size_t len, const char *path, struct smc_fleet *f,
                          char *why, size_t n);

#endif
