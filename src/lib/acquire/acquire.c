/* acquire.c: the acquire stage: what a URL, a pinned requirement or a lock file names, as the
 * wheels to read (smc_wanted: where, the sha256 to check, whether a lock installs it). It reads
 * the network (package indexes), lock files and the cache of choices, and never a wheel: the
 * reader (read/plan.c) takes what it returns. What goes wrong is said on the input. */
#include "acquire.h"
#include "../base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

smc_net smc_net_of(const smc_options *opt)
{
    return opt ? (smc_net){.timeout = opt->net.timeout,
                           .speed_limit = opt->net.speed_limit,
                           .offline = opt->net.off}
               : (smc_net){0};
}

bool smc_cacheable(const smc_options *opt)
{
    return opt && opt->read.inspect && !opt->cache.off && !opt->read.verify &&
           !opt->read.kernel_names && !opt->limits.max_member_bytes &&
           !opt->limits.max_input_bytes && !opt->limits.max_containers && !opt->limits.max_images &&
           !opt->limits.max_members;
}

void smc_wanted_free(smc_wanted *w, size_t n)
{
    for (size_t i = 0; w && i < n; i++) {
        free(w[i].where);
        free(w[i].problem);
    }
    free(w);
}

/* Adds a wheel to read: where (copied), sha256 (NULL or "": none known), problem (copied, may be
 * NULL). */
static smc_status add_wanted(smc_wanted **out, size_t *n, const char *where, const char *sha256,
                             bool lock, const char *problem)
{
    smc_wanted *w = smc_push(out, *n, sizeof *w);
    if (!w) return SMC_ERR_NOMEM;
    *w = (smc_wanted){.where = smc_strdup(where), .lock = lock,
                      .problem = problem ? smc_strdup(problem) : NULL};
    snprintf(w->sha256, sizeof w->sha256, "%s", sha256 ? sha256 : "");
    if (!w->where || (problem && !w->problem)) {
        free(w->where);
        free(w->problem);
        return SMC_ERR_NOMEM;
    }
    (*n)++;
    return SMC_OK;
}

/* Whether the bytes at url cannot change: a package index's digest-addressed file URL, as
 * PyPI's files are (/packages/AB/CD/<60 hex digits of the file's BLAKE2b-256>/NAME). */
static bool url_immutable(const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? strstr(p + 3, "/packages/") : NULL;
    if (!p) return false;
    p += 10;
    static const size_t parts[] = {2, 2, 60};
    for (size_t i = 0; i < 3; i++, p++) {
        size_t k = strspn(p, "0123456789abcdef");
        if (k != parts[i] || p[k] != '/') return false;
        p += k;
    }
    return *p && !strchr(p, '/');
}

/* The cache key of an immutable URL's sha256 record (smc_choice_encode): one line a fact. */
static bool url_key(const char *url, char key[65])
{
    char *text = smc_asprintf("smcheck-url\nurl %s\n", url);
    bool ok = text && smc_sha256_hex(text, strlen(text), key);
    free(text);
    return ok;
}

smc_status smc_acquire_url(const char *url, const smc_options *opt, smc_input *in,
                           smc_wanted **out, size_t *n)
{
    char sha[65];
    in->kind = SMC_INPUT_WHEEL;
    if (!smc_url_sha256(url, sha)) /* a digest mistyped would check nothing: pip fails it too */
        return smc_input_add_error(in, url,
                                   "its #sha256= is not 64 hex digits: there is "
                                   "nothing to check the file against");
    /* Without #sha256=: the sha256 an index that serves it gives (resolve.c), so that it is
     * checked and its facts are cached under it as for a URL that names it; none when no index
     * does. A URL whose bytes cannot change keeps that sha256 in the cache: then neither the
     * index nor the file is asked again. */
    bool cached = !sha[0] && smc_cacheable(opt) && opt->cache.dir;
    char key[65], why[512];
    bool keyed = cached && url_immutable(url) && url_key(url, key);
    if (keyed) {
        size_t len = 0;
        char *text = smc_cache_load(opt->cache.dir, key, &len, why, sizeof why), *was = NULL;
        if (text && smc_choice_decode(text, len, key, &was, sha, why, sizeof why) &&
            strcmp(was, url) != 0)
            sha[0] = '\0';
        free(was);
        free(text);
    }
    if (cached && !sha[0]) {
        smc_indexes ix;
        if (!smc_indexes_init(&ix, opt->index.index_url, opt->index.extra_index_urls,
                              opt->index.extra_index_count))
            return SMC_ERR_NOMEM;
        smc_net net = smc_net_of(opt);
        smc_resolve_url_sha256(&net, &ix, url, sha);
        smc_indexes_free(&ix);
        char *text = keyed && sha[0] ? smc_choice_encode(key, url, sha) : NULL;
        if (text) /* a cache that cannot be written is not this URL's problem */
            smc_cache_store(opt->cache.dir, key, text, strlen(text), opt->cache.cap, why,
                            sizeof why);
        free(text);
    }
    return add_wanted(out, n, url, sha, false, NULL);
}

/* The environment wheels are chosen for: --platform and --python-version. */
static bool pyenv_of(const smc_options *opt, smc_pyenv *e, char *why, size_t n)
{
    const char *platform = opt && opt->index.wheel_platform  ? opt->index.wheel_platform
                           : opt && opt->walk.image_platform ? opt->walk.image_platform
                                                             : smc_host_platform();
    return smc_pyenv_init(e, platform, opt ? opt->index.python_version : NULL, why, n);
}

smc_status smc_acquire_requirement(const char *spec, const smc_options *opt, smc_input *in,
                                   smc_wanted **out, size_t *n)
{
    char name[128], extras[208], version[160], why[512], chose[256];
    in->kind = SMC_INPUT_WHEEL;
    smc_requirement_split(spec, name, sizeof name, extras, sizeof extras, version, sizeof version);
    smc_pyenv e;
    if (!pyenv_of(opt, &e, why, sizeof why)) return smc_input_add_error(in, spec, "%s", why);
    smc_indexes ix;
    if (!smc_indexes_init(&ix, opt ? opt->index.index_url : NULL,
                          opt ? opt->index.extra_index_urls : NULL,
                          opt ? opt->index.extra_index_count : 0)) {
        smc_pyenv_free(&e);
        return SMC_ERR_NOMEM;
    }
    smc_net net = smc_net_of(opt);
    char *url = NULL, sha[65];
    smc_status st = smc_resolve_pin(&net, NULL, &ix, &e, name, version, NULL, 0, &url, sha, chose,
                                    sizeof chose, why, sizeof why)
                        ? add_wanted(out, n, url, sha, false, NULL)
                    : version[0]
                        ? smc_input_add_error(in, spec, "%s", why)
                        : smc_input_add_error(in, spec, /* a bare name: a file's too */
                                              "%s; as a project: %s", strerror(ENOENT), why);
    if (st == SMC_OK && url && chose[0]) st = smc_input_add_note(in, "%s: %s", spec, chose);
    if (st == SMC_OK && url && extras[0])
        st = smc_input_add_note(in,
                                "%s: the extras %s are not judged (they name other "
                                "distributions; this wheel's files are the same)",
                                spec, extras);
    free(url);
    smc_indexes_free(&ix);
    smc_pyenv_free(&e);
    return st;
}

/* The pins of a lock that name no wheel (requirements.txt), looked up on the indexes by this
 * thread and RESOLVERS more at once, each reusing its connection: a lookup is a page or two, and
 * each new connection loads the CA bundle (about 60 ms of CPU). A warm requirements.txt of 27
 * pins: 2.0 s one after another on new connections, 0.9 s with 8 more threads, 0.6 s with 3.
 * A pin with --hash lines is looked up in the cache first (smc_choice_encode): then a second
 * check of the lock asks no index (27 pins: 0.12 s instead of 0.68 s). */
#define RESOLVERS 3
typedef struct resolving {
    const smc_lock *lock;
    const smc_indexes *ix;
    const smc_pyenv *e;
    const smc_net *net;
    const char *cache_dir; /* NULL: no cache */
    uint64_t cache_cap;
    char **urls;      /* per pin: the wheel chosen, or NULL (why[i]) */
    char (*sha)[65];
    char (*why)[512];
    char (*chose)[256];      /* per pin: for a range, the version taken and why (smc_resolve_pin) */
    char (*cache_why)[1024]; /* per pin: why its choice in the cache could not be used, or "" */
    atomic_size_t next;
} resolving;

/* Pin i's choice from the cache: true when it was there and whole. A damaged record is said
 * (cache_why) and the pin looked up again, which replaces it. */
static bool choice_cached(resolving *rs, size_t i, const char *key)
{
    char why[512];
    size_t len = 0;
    const smc_pin *pin = &rs->lock->pins[i];
    char *text = smc_cache_load(rs->cache_dir, key, &len, why, sizeof why);
    bool ok = text && smc_choice_decode(text, len, key, &rs->urls[i], rs->sha[i], why, sizeof why);
    free(text);
    bool pinned = false; /* a record is only a record: its file must be one the pins allow */
    for (size_t h = 0; ok && h < pin->hash_count && !pinned; h++)
        pinned = strcmp(rs->sha[i], pin->hashes[h]) == 0;
    if (ok && !pinned) {
        snprintf(why, sizeof why, "the sha256 it names, %s, is not among the requirement's "
                 "--hash values", rs->sha[i]);
        free(rs->urls[i]);
        rs->urls[i] = NULL;
        rs->sha[i][0] = '\0';
        ok = false;
    }
    if (!ok && why[0])
        snprintf(rs->cache_why[i], sizeof rs->cache_why[i],
                 "its choice of wheel in the cache (%s) cannot be used: %s; "
                 "asked of the index again",
                 rs->cache_dir, why);
    return ok;
}

static void *resolver(void *arg)
{
    resolving *rs = arg;
    smc_fetch f = {0};
    for (size_t i; (i = atomic_fetch_add(&rs->next, 1)) < rs->lock->pin_count;) {
        const smc_pin *pin = &rs->lock->pins[i];
        if (pin->url) continue;
        const char *const *hashes = (const char *const *)pin->hashes;
        char key[65];
        bool keyed = rs->cache_dir && smc_resolve_choice_key(rs->ix, rs->e, pin->name, pin->version,
                                                             hashes, pin->hash_count, key);
        if (keyed && choice_cached(rs, i, key)) continue;
        if (!smc_resolve_pin(rs->net, &f, rs->ix, rs->e, pin->name, pin->version, hashes,
                             pin->hash_count, &rs->urls[i], rs->sha[i], rs->chose[i],
                             sizeof rs->chose[i], rs->why[i], sizeof rs->why[i])) {
            rs->urls[i] = NULL;
            continue;
        }
        char *text = keyed ? smc_choice_encode(key, rs->urls[i], rs->sha[i]) : NULL;
        if (text) {
            char ignored[512]; /* a cache that cannot be written is not the lock's problem */
            smc_cache_store(rs->cache_dir, key, text, strlen(text), rs->cache_cap, ignored,
                            sizeof ignored);
        }
        free(text);
    }
    smc_fetch_done(&f);
    return NULL;
}

static smc_status resolve_pins(resolving *rs)
{
    size_t n = rs->lock->pin_count, want = 0;
    rs->urls = calloc(n ? n : 1, sizeof *rs->urls);
    rs->sha = calloc(n ? n : 1, sizeof *rs->sha);
    rs->why = calloc(n ? n : 1, sizeof *rs->why);
    rs->chose = calloc(n ? n : 1, sizeof *rs->chose);
    rs->cache_why = calloc(n ? n : 1, sizeof *rs->cache_why);
    if (!rs->urls || !rs->sha || !rs->why || !rs->chose || !rs->cache_why) return SMC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        want += rs->lock->pins[i].url == NULL;
    atomic_init(&rs->next, 0);
    pthread_t t[RESOLVERS];
    size_t started = 0;
    while (started < RESOLVERS && started < want &&
           pthread_create(&t[started], NULL, resolver, rs) == 0)
        started++;
    resolver(rs); /* this thread too, and alone where no thread could start */
    for (size_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    return SMC_OK;
}

static void resolving_free(resolving *rs)
{
    for (size_t i = 0; rs->urls && i < rs->lock->pin_count; i++)
        free(rs->urls[i]);
    free(rs->urls);
    free(rs->sha);
    free(rs->why);
    free(rs->chose);
    free(rs->cache_why);
}

/* Whether a lock's local wheel is one, and the one it pins: a regular file whose name ends in
 * .whl (a lock naming /etc/passwd or /proc/self/environ gets nothing read), whose sha256 is the
 * lock's or one its --hash values allow. why says what is wrong. */
static bool local_wheel_ok(const smc_pin *pin, const char *path, char *why, size_t n)
{
    if (!smc_ends_with(path, ".whl")) {
        snprintf(why, n, "not a wheel file (its name does not end in .whl): not read");
        return false;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(why, n, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        snprintf(why, n, "not a regular file: not read");
        return false;
    }
    bool pinned = pin->sha256[0] || pin->hash_count;
    char hex[65] = "";
    bool hashed = pinned && smc_sha256_fd(fd, hex);
    int err = errno;
    close(fd);
    if (!pinned) return true;
    if (!hashed) {
        snprintf(why, n, "cannot check its sha256: %s",
                 err ? strerror(err) : "this smcheck was built without libcrypto");
        return false;
    }
    bool same = strcmp(hex, pin->sha256) == 0;
    for (size_t i = 0; i < pin->hash_count && !same; i++)
        same = strcmp(hex, pin->hashes[i]) == 0;
    if (!same)
        snprintf(why, n, "its sha256 is %s, not %.64s as the lock says: not the file expected; "
                 "nothing in it is judged", hex, pin->sha256[0] ? pin->sha256 : pin->hashes[0]);
    return same;
}

smc_status smc_acquire_lock(const char *path, const smc_options *opt, smc_input *in,
                            smc_wanted **out, size_t *n)
{
    char why[512], *text = NULL;
    size_t len = 0;
    in->kind = SMC_INPUT_ENVIRONMENT;
    int r = smc_read_small_file(path, 64u << 20, &text, &len, why, sizeof why);
    if (r < 0) return SMC_ERR_NOMEM;
    if (r == 0) return smc_input_add_error(in, path, "%s", why);
    /* The Python: --python-version's, else the one the lock fixes, else the default; said. */
    char python[16] = "", how[200] = "";
    bool given = opt && opt->index.python_version;
    bool fixed = !given && smc_lock_python(text, len, python, sizeof python, how, sizeof how);
    smc_options with = opt ? *opt : (smc_options){0};
    if (fixed) with.index.python_version = python;
    smc_pyenv e;
    if (!pyenv_of(&with, &e, why, sizeof why)) {
        free(text);
        return smc_input_add_error(in, path, "%s", why);
    }
    smc_status said =
        given   ? SMC_OK
        : fixed ? smc_input_add_note(in, "%s: judged for Python %s: %s", path, python, how)
                : smc_input_add_note(in,
                                     "%s: judged for Python %s, the default (it fixes none; "
                                     "--python-version names another)",
                                     path, e.python_version);
    if (said != SMC_OK) {
        free(text);
        smc_pyenv_free(&e);
        return said;
    }
    smc_lock lock;
    bool read = smc_lock_read(path, text, len, &e, opt ? opt->index.lock_extras : NULL,
                              opt ? opt->index.lock_extra_count : 0, &lock, why, sizeof why);
    free(text);
    if (!read) {
        smc_pyenv_free(&e);
        return smc_input_add_error(in, path, "%s", why);
    }
    smc_status st = SMC_OK;
    for (size_t i = 0; i < lock.problem_count && st == SMC_OK; i++)
        st = smc_input_add_error(in, path, "%s", lock.problems[i]);
    for (size_t i = 0; i < lock.note_count && st == SMC_OK; i++)
        st = smc_input_add_note(in, "%s: %s", path, lock.notes[i]);
    smc_indexes ix = {0};
    bool own = lock.index_count > 0; /* requirements.txt's own --index-url lines */
    if (st == SMC_OK && !smc_indexes_init(&ix,
                                          own && lock.index_given ? lock.indexes[0]
                                          : opt                   ? opt->index.index_url
                                                                  : NULL,
                                          own ? (const char *const *)lock.indexes + lock.index_given
                                          : opt ? opt->index.extra_index_urls
                                                : NULL,
                                          own   ? lock.index_count - lock.index_given
                                          : opt ? opt->index.extra_index_count
                                                : 0))
        st = SMC_ERR_NOMEM;
    smc_net net = smc_net_of(opt);
    resolving rs = {.lock = &lock,
                    .ix = &ix,
                    .e = &e,
                    .net = &net,
                    .cache_dir = smc_cacheable(opt) ? opt->cache.dir : NULL,
                    .cache_cap = opt ? opt->cache.cap : 0};
    if (st == SMC_OK) st = resolve_pins(&rs);
    for (size_t i = 0; i < lock.pin_count && st == SMC_OK; i++) {
        const smc_pin *pin = &lock.pins[i];
        if (rs.cache_why[i][0])
            st = smc_input_add_error(in, path, "%s %s: %s", pin->name, pin->version,
                                     rs.cache_why[i]);
        if (st != SMC_OK) break;
        const char *blank = !pin->version[0] || strchr("=<>!~", pin->version[0]) ? "" : " ";
        if (!pin->url && !rs.urls[i]) {
            st = smc_input_add_error(in, path, "%s%s%s: %s", pin->name, blank, pin->version,
                                     rs.why[i]);
            continue;
        }
        if (rs.chose[i][0])
            st = smc_input_add_note(in, "%s: %s%s%s: %s", path, pin->name, blank, pin->version,
                                    rs.chose[i]);
        if (st != SMC_OK) break;
        const char *where = pin->url ? pin->url : rs.urls[i];
        const char *sha = pin->url ? pin->sha256 : rs.sha[i];
        char problem[256] = ""; /* a local wheel that is not one, or not the one pinned */
        if (!smc_url_is(where)) local_wheel_ok(pin, where, problem, sizeof problem);
        st = add_wanted(out, n, where, sha, true, problem[0] ? problem : NULL);
    }
    resolving_free(&rs);
    smc_indexes_free(&ix);
    smc_lock_free(&lock);
    smc_pyenv_free(&e);
    return st;
}
