/* lock_read.h: what the readers of lock files share: one read's state (reader), its limits, and
 * the helpers every format uses (lock_read.c), for pylock.toml (pylock.c), uv.lock (uvlock.c) and
 * requirements.txt (requirements.c). Private to them. */
#ifndef SMCHECK_LOCK_READ_H
#define SMCHECK_LOCK_READ_H

#include "acquire.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <sys/stat.h>

#define PROBLEMS_MAX 1000
/* One logical line of requirements.txt: a pin and its --hash options (a project with a thousand
 * files has 80 KB of them). */
#define LINE_MAX_BYTES (1u << 20)
/* requirements.txt files open at once through -r and -c (the one named and those it includes);
 * files read in all, and their bytes, counted again where one is included again: a hostile tree
 * of includes is refused, not followed for ever */
#define INCLUDE_MAX 16
#define INCLUDED_FILES_MAX 1000
#define INCLUDED_BYTES_MAX (64u << 20)
#define LOCAL_DIRECTORY "a local directory, built from its source when installed: not judged"

/* A requirement of requirements.txt not pinned: its pin's version is its specifiers ("" for
 * any), until a constraint pins it. */
typedef struct loose {
    size_t pin;
    char *where; /* "line 3", after the label */
} loose;

/* One read: the lock being filled, the environment, and the lock file's path (local wheels are
 * relative to its directory; in a file -r or -c names, that file's). */
typedef struct reader {
    smc_lock *l;
    const smc_pyenv *e;
    const char *path;
    const char *const *extras; /* the project's extras asked for (--extra) */
    size_t extra_count;
    char **active; /* uv.lock: what its markers call the extras and groups installed */
    size_t active_count;
    bool set;     /* markers are evaluated against active (uv.lock) */
    char env[96]; /* "cp311 manylinux_2_28_x86_64", for problems */
    /* requirements.txt: the lines of a file that -r or -c names are read as they come */
    char *label;     /* in such a file: "line 4: -r base.txt", before its problems */
    bool constraint; /* a -c file's (or one it includes): its pins constrain, install nothing */
    unsigned depth;  /* files open: the one named, then each included one */
    unsigned files;  /* files read (-r, -c) */
    size_t bytes;    /* their bytes, and the first one's */
    struct {
        dev_t dev;
        ino_t ino;
    } open[INCLUDE_MAX];
    smc_lock cons; /* the constraints' pins (their markers hold) */
    loose *loose;  /* the requirements not pinned */
    size_t loose_count;
} reader;

/* lock_read.c: problems and notes of the lock, pins, cJSON fields, locations, markers, wheels. */
bool lock_add_string(char ***list, size_t *n, char *s);
bool lock_listed(char ***list, size_t *count, const char *what, const char *label, const char *fmt,
                 va_list ap);
bool lock_problem(reader *r, const char *fmt, ...) SMC_PRINTF(2, 3);
bool lock_note(reader *r, const char *fmt, ...) SMC_PRINTF(2, 3);
bool lock_sha256_of(const char *s, char out[65]);
bool lock_other_algorithm(const char *h);
smc_pin *lock_add_pin(smc_lock *l, const char *name, const char *version, const char *url,
                      const char *sha256, const char *index);
const cJSON *lock_get(const cJSON *o, const char *key);
const char *lock_str(const cJSON *o, const char *key);
const cJSON *lock_items(const cJSON *a);
void lock_url_file(const char *url, char *out, size_t n);
bool lock_location_ok(const char *s);
char *lock_beside(const char *lockpath, const char *path);
bool lock_marker_text_holds(reader *r, const char *what, const char *marker);
bool lock_marker_holds(reader *r, const char *what, const cJSON *marker);
void lock_env_words(const smc_pyenv *e, char *out, size_t n);
void lock_wheel_file(const cJSON *w, char *file, size_t n);
const cJSON *lock_best_wheel(const cJSON *wheels, const smc_pyenv *e);
bool lock_pin_wheel(reader *r, const char *what, const char *name, const char *version,
                    const cJSON *w, const char *index, const char *source_path);
const char *lock_instead(const cJSON *pkg);
bool lock_local_directory(const cJSON *pkg);
void lock_package_words(const char *name, const char *version, char *out, size_t n);
/* strcmp of two strings either of which may be NULL (as ""). */
int lock_cmp_opt(const char *a, const char *b);

/* The formats (pylock.c, uvlock.c, requirements.c): each reads its kind into r->l. */
bool lock_read_pylock(reader *r, const cJSON *root, char *why, size_t n);
bool lock_read_uv(reader *r, const cJSON *root, char *why, size_t n);
bool lock_read_requirements(reader *r, const char *text, size_t len, char *why, size_t n);
bool lock_opened(reader *r, const struct stat *st, char *why, size_t n);

#endif
