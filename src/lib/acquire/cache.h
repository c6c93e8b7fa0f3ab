/* cache.h: the facts read from one wheel (or other archive), kept by the sha256 of its bytes, so
 * that a second check of the same file for another GPU or driver reads none of its bytes again.
 *
 * A record is the smc_input that smc_scan_path makes of the file (with smc_options.inspect), before
 * judging: what the readers found, never what the judge or derive add (verdicts, roles, summaries,
 * serving lists, compilers, cpu_only). Paths in it are relative to the file (the prefix the caller
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
#ifndef SMCHECK_CACHE_H
#define SMCHECK_CACHE_H

#include "smcheck/smcheck.h"

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

#endif
