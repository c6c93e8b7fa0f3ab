/* archive.h: archives read in place: wheels (wheel.c), container images (image.c), conda
 * packages (conda.c), tar members copied out (entry.c) */
#ifndef SMCHECK_ARCHIVE_H
#define SMCHECK_ARCHIVE_H

#include "walk.h"

#include <semaphore.h>
#include <stdatomic.h>

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

/* The default caps of smc_options on what an archive can make smcheck inflate and read. */
#define SMC_DEFAULT_MEMBER_BYTES (16ull << 30)
#define SMC_DEFAULT_INPUT_BYTES (256ull << 30)
#define SMC_DEFAULT_MEMBERS 1000000u

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
/* An archive's bytes read at any offset: a local file (fd), or a remote one (remote.h). */
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

#endif
