/* read.h: the read wing: the items a scan reads and the walk of directories (walk.c), archives
 * read in place (wheel.c, zipdir.c, image*.c, conda.c, entry.c), Python environments and their
 * metadata (env.c, meta.c), what each path given is and its items (plan.c), and the scan
 * (scan.c) */
#ifndef SMCHECK_READ_H
#define SMCHECK_READ_H

#include "../base/base.h"

#include <semaphore.h>
#include <stdatomic.h>

/* walk ---------------------------------------------------------------------------------------
 */

/* the items a scan reads, and the walk of directories (walk.c) */

/* A file to scan, or what kept the walk from reading an entry, in the order of the report. */
/* A wheel read over the network (remote.c): its facts, read into an input of its own by the
 * thread that takes the item (or from the cache: from_cache), then merged as a wheel found by
 * the walk is; where it is fetched from (the item's path, its name, is the URL without
 * credentials); its sha256 when known ("" not), the cache's key; and whether a lock file
 * installs it. Only such an item has one: a wheel of 500,000 members makes 500,000 items. */
typedef struct smc_net_wheel {
    smc_input *wheel;
    char *url;
    bool from_cache, lock;
    char cache_key[65];
} smc_net_wheel;

/* How an item is read: decided when it is planned where planning learns it (a wheel's member, a
 * wheel over the network, a container image, a file whose first bytes planning read), else when
 * it is read (a file the walk found: a conda package by its name, a zip archive by its magic,
 * else a file). Each kind has one reader in scan.c's table. */
typedef enum smc_item_kind {
    SMC_ITEM_FOUND,  /* a file the walk found: its kind is decided when it is read */
    SMC_ITEM_FILE,   /* a file that is no zip archive nor conda package: the finder reads it */
    SMC_ITEM_ZIP,    /* a zip archive read whole by one thread (one the walk found) */
    SMC_ITEM_CONDA,  /* a conda package (.conda, .tar.bz2) */
    SMC_ITEM_MEMBER, /* a member of the zip archive at path (member) */
    SMC_ITEM_REMOTE, /* a wheel read over the network (net) */
    SMC_ITEM_IMAGE,  /* a container image the user named: read by smc_image_scan */
    SMC_ITEM_KINDS
} smc_item_kind;

typedef struct smc_item {
    smc_item_kind kind;
    char *path;
    char *error;        /* set when the walk could not read it */
    size_t rel;         /* found by the walk: path + rel relative to root; -1 for a path named */
    long long member;   /* a member of the zip archive at path; -1 for the file itself */
    size_t dist;        /* a member's wheel: its distribution in the input, or SMC_NONE */
    uint64_t size;      /* bytes, for progress */
    size_t input;       /* the path given by the user it belongs to */
    uint64_t dev, ino;  /* the file's, when known (ino 0: not known) */
    size_t same_as;     /* an earlier item with the same file (hard link, bind mount), or SMC_NONE */
    smc_net_wheel *net; /* a wheel read over the network, else NULL */
    struct smc_remote *remote; /* a member of a wheel read over the network: read through it */
    int root;           /* found by the walk: the directory it opened */
    bool borrowed;      /* path belongs to another item (the members of one wheel share it) */
    bool nofollow;      /* found by the walk: a link in its place is not followed */
    bool solo;          /* a member of an archive of so many members (SMC_SOLO_MEMBERS) that its
                         * directory, which each thread reading it holds, is read by one at a time */
} smc_item;


/* Lists the regular files under a directory, in name order; *root is the directory, held open
 * for the items to be opened from (the caller closes it), or -1. */
smc_status smc_walk_dir(smc_input *in, const char *path, const smc_options *opt, smc_item **items,
                        size_t *n, int *root);
void smc_items_free(smc_item *items, size_t n);
/* Opens rel under the directory root without following a symbolic link in any component, so
 * that nothing outside the tree is reached whatever changes meanwhile (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or component by component where the kernel has no
 * openat2 or the path is longer than PATH_MAX: use_openat2 false forces the latter). */
int smc_open_beneath(int root, const char *rel, int flags, bool use_openat2);
/* Whether a relative path stays beneath where it starts: not absolute, no ".." component. */
bool smc_path_beneath(const char *rel);
/* An item's file: by smc_open_beneath when the walk found it, else by its path. */
int smc_item_open(const smc_item *it, int flags);
/* What an open that failed with err says to the user. */
const char *smc_open_error(int err);

/* archive ------------------------------------------------------------------------------------
 */

/* archives read in place: wheels (wheel.c), container images (image.c), conda
 * packages (conda.c), tar members copied out (entry.c) */

/* wheel.c: zip archives (wheels) through libzip. ---------------------------------------------- */

/* A thread's open archive, kept while its items come from the same one. An open archive holds
 * its central directory and a member buffer (megabytes), so at most SMC_ZIP_READERS threads hold
 * one at once: slots, when not NULL, counts them (the thread pool's). */
typedef struct smc_zipcache {
    char *path;
    struct zip *za;
    sem_t *slots;
    unsigned held; /* slots held: one, or all of them for an archive of very many members */
    uint8_t *buf; /* the members' buffer (mapped), kept from one member to the next */
    size_t buf_cap;
} smc_zipcache;
#define SMC_ZIP_READERS 3
/* Past this many members an archive's directory (libzip's, some 300 bytes a member) is held by
 * one thread at a time: 500,000 members are 150 MB a copy. */
#define SMC_SOLO_MEMBERS 65536

/* Progress and the per-input cap on inflated bytes, shared by the threads. */
typedef struct smc_ticker {
    void (*tick)(void *ctx, uint64_t bytes, const char *current);
    void *ctx;
    _Atomic uint_fast64_t *total; /* the bytes progress counts to: grown where a remote wheel's
                                   * directory says what its members hold (NULL: none) */
    _Atomic uint_fast64_t *input_bytes;
    size_t buffer; /* bytes of a member's buffer (0: the most): members up to it are read whole */
    const atomic_uint *idle; /* the pool's threads that have no more items (NULL: unknown) */
} smc_ticker;

/* image.c: container images read in place into part (see image.c): dirfd an OCI layout
 * directory, or tarfd a tarball (oci-archive, docker save); the other -1. */
smc_status smc_image_scan(smc_input *part, const char *path, int dirfd, int tarfd,
                          const smc_options *opt, const smc_ticker *tk);
/* Whether a directory is an OCI image layout (oci-layout and index.json). */
bool smc_image_dir(int dirfd);
/* Whether a file is a tar archive (the ustar magic), or a compressed one named so (.tar.gz,
 * .tgz, .tar.zst, with gzip's or zstd's magic). */
bool smc_image_tar(int fd, const char *path);

/* entry.c: a tar member copied out of its archive and scanned. ------------------------------- */

/* How copying an entry out ended. */
typedef enum smc_entry_end {
    SMC_ENTRY_SCANNED,    /* copied whole and scanned into `into` (*st says how that went) */
    SMC_ENTRY_UNREADABLE, /* the archive could not give its bytes (archive_error_string) */
    SMC_ENTRY_CAPPED,     /* larger than cap, or *total would pass total_cap: not scanned */
    SMC_ENTRY_NO_COPY,    /* its temporary file could not be written (errno): not scanned */
} smc_entry_end;

struct archive;
/* libarchive's reason for a failure, never NULL (it has none after some failures of a reader's
 * callback: its errno's words then, or a sentence that says so). */
const char *smc_archive_why(struct archive *a);
/* Copies the rest of the current entry of a (its first hlen bytes, head, already read) to memory
 * when small, else to an unlinked temporary file, and scans it as the file name. total, when not
 * NULL, counts the bytes of all entries against total_cap; tk ticks progress. The caller words
 * every end but SMC_ENTRY_SCANNED as the error it is. */
smc_entry_end smc_entry_scan(struct archive *a, const uint8_t *head, size_t hlen, uint64_t cap,
                             uint64_t *total, uint64_t total_cap, const smc_ticker *tk,
                             smc_input *into, const char *name, const smc_options *opt,
                             smc_status *st);

/* conda.c: conda packages (.conda, .tar.bz2), read in place into part: the package's
 * distribution and its libraries (named "pkg.conda!lib/libx.so"). fd is the package open; named:
 * the user named it (a walk's tarball without a package index is only a note). */
bool smc_conda_named(const char *path);
smc_status smc_conda_scan(smc_input *part, const char *path, int fd, bool named,
                          const smc_options *opt, const smc_ticker *tk);
/* What the member buffers of the threads that read archives may take together: each gets its
 * share, 1 to 8 MiB (two threads get 8 MiB each, three 5.3 MiB). */
#define SMC_WHEEL_BUFFERS (16u << 20)
/* A wheel read over the network gets 1 MiB: its 2 MiB read-ahead and 2 MiB tail (remote.c) take
 * the rest, and its members, mostly large libraries, stream whatever the buffer (torch from a
 * local server: 4.45 s with 1 MiB, 4.55-5.0 s with 2 MiB; a cold fixtures/locks/pylock.toml at
 * -j2 about 1-2 MB less at its peak). */
#define SMC_REMOTE_BUFFER (1u << 20)

bool smc_zip_at(const uint8_t *p, uint64_t n);

/* zipdir.c: what the central directory libzip read says of each member's bytes, which libzip
 * does not check: what[i] (count = zip_get_num_entries) is set for each member. NULL, or why the
 * directory libzip read could not be found again (the archive is then not to be read). */
enum { SMC_ZIP_MEMBER_OK, SMC_ZIP_OVERLAPS, SMC_ZIP_PAST_END };
struct zip;
struct smc_remote;
/* An archive's bytes read at any offset: a local file (fd), or a remote one (remote.c). */
typedef struct smc_bytes {
    int fd;
    struct smc_remote *remote; /* when not NULL, read through it */
} smc_bytes;
/* Exactly n bytes at off, or false. */
bool smc_bytes_pread(const smc_bytes *b, void *buf, size_t n, uint64_t off);
const char *smc_zip_members(const smc_bytes *b, struct zip *za, uint8_t *what);
/* The words for a member's problem (an error's end), NULL for SMC_ZIP_MEMBER_OK. */
const char *smc_zip_member_problem(uint8_t what);
/* Reads the archive at path: its facts become a distribution of in, its problems errors of in,
 * and each member an item (copying nofollow and input from proto). */
smc_status smc_wheel_plan(smc_input *in, const char *path, const smc_item *proto,
                          const smc_options *opt, smc_item **items, size_t *n);
/* Scans one member item into part; *unreadable (when not NULL) set when its bytes could not be
 * inflated to their end (a CRC error, a bad deflate stream, a read that failed). */
smc_status smc_wheel_member(smc_input *part, smc_zipcache *zc, const smc_item *it,
                            const smc_options *opt, const smc_ticker *tk, bool *unreadable);
void smc_zipcache_close(smc_zipcache *zc);

/* env ----------------------------------------------------------------------------------------
 */

/* Python environments (env.c) and their packaging metadata (meta.c) */

/* env.c: Python environments. ---------------------------------------------------------------- */

typedef struct smc_env smc_env;

/* What the path given by the user as path number input is, decided once by the table of input
 * kinds (plan.c): makes its input (*in) and appends its items to *items (*n); a directory's
 * distributions' metadata is read into *env, the directory held open in *root. A URL, a
 * requirement or a lock goes to the acquire stage, whose wheels become items. */
smc_status smc_plan(const char *path, size_t input, const smc_options *opt, smc_input **in,
                    smc_env **env, int *root, smc_item **items, size_t *n);
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
