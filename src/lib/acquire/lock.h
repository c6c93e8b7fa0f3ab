/* lock.h: what a lock file would install (lock.c): pylock.toml (PEP 751), uv.lock and pinned
 * requirements.txt, read for one environment (markers evaluated, one wheel chosen per package) */
#ifndef SMCHECK_LOCK_H
#define SMCHECK_LOCK_H

#include "pypkg.h"
#include "../base/util.h"

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

#endif
