/* plan.c: what each path given by the user is, decided once by one table of input kinds (as
 * libarchive's bidders: each kind says whether it takes the path, and the first that does plans
 * it), and the items the pool of scan.c reads for it: a file, a wheel's members, a container
 * image, a directory's files; for a URL, a requirement or a lock, the wheels the acquire stage
 * names (acquire.c), each read over the network or, a lock's local wheel, as a file. */
#include "read.h"
#include "../acquire/acquire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* One path being planned: what stat said of it, and where its input and items go. */
typedef struct planning {
    const char *path;
    size_t input; /* its index among the paths */
    const smc_options *opt;
    bool have; /* stat found it (a link the user named is followed; links inside are not) */
    int err;   /* else stat's errno */
    struct stat sb;
    smc_input *in; /* made from the kind that takes the path */
    smc_env **env;
    int *root;
    smc_item **items;
    size_t *n;
} planning;

static bool zip_named(const char *path)
{
    size_t n = strlen(path);
    return n > 4 &&
           (strcasecmp(path + n - 4, ".whl") == 0 || strcasecmp(path + n - 4, ".zip") == 0);
}

static bool zip_file(const smc_item *it)
{
    uint8_t head[4];
    int fd = smc_item_open(it, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    bool zip = fd >= 0 && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
               smc_zip_at(head, sizeof head);
    if (fd >= 0) close(fd);
    return zip;
}

/* Adds an item, expanding a wheel into its members so that the pool shares them out; a zip under
 * another name found by the walk is read whole by the thread that meets it. What planning learns
 * of a file (a conda package, no zip archive) goes with it, so that it is not asked again. */
static smc_status add_item(smc_input *in, smc_item *it, bool direct, const smc_options *opt,
                           smc_item **items, size_t *n)
{
    bool named = zip_named(it->path), conda = smc_conda_named(it->path);
    if (!it->error && (direct || named) && !conda && zip_file(it)) {
        smc_status st = smc_wheel_plan(in, it->path, it, opt, items, n);
        if (direct && st == SMC_OK) in->kind = SMC_INPUT_WHEEL;
        free(it->path);
        free(it->error);
        return st;
    }
    if (conda) it->kind = SMC_ITEM_CONDA;
    else if (direct) it->kind = SMC_ITEM_FILE; /* its magic was read: no zip */
    /* A wheel that is no zip archive is a broken input, not a file without device code. */
    if (!it->error && named && !(it->error = smc_strdup("named like a wheel, but not a zip archive"))) {
        free(it->path);
        return SMC_ERR_NOMEM;
    }
    smc_item *slot = smc_push(items, *n, sizeof *slot);
    if (!slot) {
        free(it->path);
        free(it->error);
        return SMC_ERR_NOMEM;
    }
    *slot = *it;
    (*n)++;
    return SMC_OK;
}

/* A wheel named by its URL, as an item with an input of its own that a thread reads it into
 * (scan_remote); its facts from the cache instead, where its sha256 is known and they are there.
 * sha256, when known, is checked as its bytes stream by. lock: a wheel a lock file installs. */
/* The facts of sha256 from the store (--facts-url) into nw, kept in the cache too: 1 found, 0
 * not (a store that has none, or a record that cannot be used: said), -1 out of memory. A store
 * that cannot be read is said once, and not asked again for this input (*down). */
static int from_store(const char *sha256, const char *name, const smc_options *opt, smc_input *in,
                      smc_net_wheel *nw, smc_fetch *f, bool *down)
{
    char why[512];
    char *text = NULL;
    size_t len = 0;
    smc_net net = smc_net_of(opt);
    int got = smc_facts_fetch(&net, f, opt->cache.facts_url, sha256, &text, &len, why, sizeof why);
    smc_status st = SMC_OK;
    if (got > 0) {
        nw->wheel = smc_cache_decode(text, len, name, name, sha256, why, sizeof why);
        if (nw->wheel) {
            if (opt->cache.dir) { /* a cache that cannot be written is not the input's problem */
                char ignored[256];
                smc_cache_store(opt->cache.dir, sha256, text, len, opt->cache.cap, ignored,
                                sizeof ignored);
            }
            free(text);
            nw->wheel->kind = SMC_INPUT_WHEEL;
            nw->from_cache = true;
            return 1;
        }
        st = smc_input_add_note(in,
                                "%s: its facts in the store (%s) cannot be used: %s; read "
                                "from the network instead",
                                name, opt->cache.facts_url, why);
    } else if (got < 0) {
        *down = true;
        st = smc_input_add_note(in,
                                "the facts store %s cannot be read (%s): the wheels are read "
                                "instead",
                                opt->cache.facts_url, why);
    }
    free(text);
    return st == SMC_OK ? 0 : -1;
}

static smc_status plan_remote(const char *url, const char *sha256, bool lock, size_t input,
                              const smc_options *opt, smc_input *in, smc_item **items, size_t *n,
                              smc_fetch *store, bool *store_down)
{
    smc_item *slot = smc_push(items, *n, sizeof *slot);
    if (!slot) return SMC_ERR_NOMEM;
    /* Named by the URL without its credentials (every name and message made from it), fetched
     * from the URL. */
    smc_net_wheel *nw = calloc(1, sizeof *nw);
    *slot = (smc_item){.kind = SMC_ITEM_REMOTE, .path = smc_redact(smc_strdup(url)), .root = -1,
                       .member = -1, .dist = SMC_NONE, .input = input, .same_as = SMC_NONE,
                       .net = nw};
    if (!slot->path || !nw || !(nw->url = smc_strdup(url))) {
        free(slot->path);
        free(nw);
        return SMC_ERR_NOMEM;
    }
    nw->lock = lock;
    (*n)++;
    const char *name = slot->path;
    bool keyed = sha256 && smc_cache_key_ok(sha256);
    if (keyed) snprintf(nw->cache_key, sizeof nw->cache_key, "%s", sha256);
    if (keyed && smc_cacheable(opt) && opt->cache.dir) {
        char why[512];
        size_t len = 0;
        char *text = smc_cache_load(opt->cache.dir, sha256, &len, why, sizeof why);
        if (text) {
            nw->wheel = smc_cache_decode(text, len, name, name, sha256, why, sizeof why);
            free(text);
            if (nw->wheel) {
                nw->wheel->kind = SMC_INPUT_WHEEL;
                nw->from_cache = true;
                return SMC_OK;
            }
        }
        if (why[0]) { /* damaged: said, and read again (which replaces it) */
            smc_status st = smc_input_add_error(in, name,
                                                "its facts in the cache (%s) cannot be "
                                                "used: %s; read from the network again",
                                                opt->cache.dir, why);
            if (st != SMC_OK) return st;
        }
    }
    if (keyed && smc_cacheable(opt) && opt->cache.facts_url && !*store_down) {
        int got = from_store(sha256, name, opt, in, nw, store, store_down);
        if (got != 0) return got > 0 ? SMC_OK : SMC_ERR_NOMEM;
    }
    return (nw->wheel = smc_input_new(name, SMC_INPUT_WHEEL)) ? SMC_OK : SMC_ERR_NOMEM;
}

/* The wheels the acquire stage named, as items: one read over the network, or a lock's local
 * wheel read as a file (said, and not read, where it is not a wheel or not the one pinned); the
 * distributions a lock installs say so. */
static smc_status plan_wanted(planning *pl, const smc_wanted *w, size_t count)
{
    smc_input *in = pl->in;
    smc_input_kind kind = in->kind; /* the acquire stage's: a local wheel's is not the input's */
    smc_status st = SMC_OK;
    smc_fetch store = {0}; /* one connection to the facts store for all of them */
    bool store_down = false;
    for (size_t i = 0; i < count && st == SMC_OK; i++) {
        size_t first = in->distribution_count;
        if (smc_url_is(w[i].where)) {
            st = plan_remote(w[i].where, w[i].sha256[0] ? w[i].sha256 : NULL, w[i].lock, pl->input,
                             pl->opt, in, pl->items, pl->n, &store, &store_down);
        } else {
            smc_item it = {.path = smc_strdup(w[i].where),
                           .root = -1,
                           .member = -1,
                           .dist = SMC_NONE,
                           .input = pl->input,
                           .same_as = SMC_NONE,
                           .error = w[i].problem ? smc_strdup(w[i].problem) : NULL};
            if (!it.path || (w[i].problem && !it.error)) {
                free(it.path);
                free(it.error);
                return SMC_ERR_NOMEM;
            }
            st = add_item(in, &it, true, pl->opt, pl->items, pl->n);
        }
        for (size_t d = first; w[i].lock && d < in->distribution_count && st == SMC_OK; d++) {
            free(in->distributions[d].source);
            if (!(in->distributions[d].source = smc_strdup("lock"))) st = SMC_ERR_NOMEM;
        }
    }
    smc_fetch_done(&store);
    in->kind = kind;
    return st;
}

/* The kinds of input --------------------------------------------------------------------- */

static bool takes_url(const planning *pl)
{
    return smc_url_is(pl->path);
}

/* torch==2.8.0, where no file has that name */
static bool takes_requirement(const planning *pl)
{
    return !pl->have && smc_requirement_is(pl->path);
}

static bool takes_lock(const planning *pl)
{
    return pl->have && S_ISREG(pl->sb.st_mode) && smc_lock_named(pl->path);
}

/* An OCI layout directory or an image tarball (docker save, podman save, a layer). */
static bool takes_image(const planning *pl)
{
    if (!pl->have) return false;
    bool dir = S_ISDIR(pl->sb.st_mode);
    int fd = open(pl->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
    bool image = fd >= 0 && (dir ? smc_image_dir(fd)
                                 : !smc_conda_named(pl->path) && smc_image_tar(fd, pl->path));
    if (fd >= 0) close(fd);
    return image;
}

static bool takes_directory(const planning *pl)
{
    return pl->have && S_ISDIR(pl->sb.st_mode);
}

/* Anything else: a file, or what is said of a path that is none. */
static bool takes_file(const planning *pl)
{
    (void)pl;
    return true;
}

/* A container image is one item, read by one thread. */
static smc_status plan_image(planning *pl)
{
    pl->in->root = true;
    smc_item *slot = smc_push(pl->items, *pl->n, sizeof *slot);
    if (!slot) return SMC_ERR_NOMEM;
    *slot = (smc_item){.kind = SMC_ITEM_IMAGE, .path = smc_strdup(pl->path), .root = -1,
                       .member = -1, .dist = SMC_NONE, .size = (uint64_t)pl->sb.st_size,
                       .input = pl->input, .same_as = SMC_NONE};
    if (!slot->path) return SMC_ERR_NOMEM;
    (*pl->n)++;
    return SMC_OK;
}

/* A directory's files, and the metadata of the distributions it holds. */
static smc_status plan_directory(planning *pl)
{
    smc_input *in = pl->in;
    smc_item *found;
    size_t k, first = *pl->n;
    smc_status st = smc_walk_dir(in, pl->path, pl->opt, &found, &k, pl->root);
    for (size_t i = 0; i < k && st == SMC_OK; i++) {
        found[i].input = pl->input;
        st = add_item(in, &found[i], false, pl->opt, pl->items, pl->n);
        if (st != SMC_OK) smc_items_free(found + i + 1, k - i - 1);
    }
    free(found);
    if (st == SMC_OK) /* no item yet at all: nothing to offset */
        st = smc_env_collect(in, *pl->items ? *pl->items + first : NULL, *pl->n - first, pl->env);
    /* An environment has something installed; a directory of wheel and package files (a
     * wheelhouse, dist/) is a set of separate distributions, none installed. */
    for (size_t d = 0; st == SMC_OK && d < in->distribution_count; d++)
        if (smc_distribution_installed(&in->distributions[d])) in->kind = SMC_INPUT_ENVIRONMENT;
    return st;
}

static smc_status plan_file(planning *pl)
{
    const char *problem = !pl->have                  ? strerror(pl->err)
                          : S_ISREG(pl->sb.st_mode) ? NULL
                                                    : "not a regular file or directory";
    smc_item it = {.path = smc_strdup(pl->path),
                   .root = -1,
                   .error = problem ? smc_strdup(problem) : NULL,
                   .member = -1,
                   .dist = SMC_NONE,
                   .size = pl->have ? (uint64_t)pl->sb.st_size : 0,
                   .input = pl->input,
                   .dev = pl->have ? (uint64_t)pl->sb.st_dev : 0,
                   .ino = pl->have && S_ISREG(pl->sb.st_mode) ? (uint64_t)pl->sb.st_ino : 0,
                   .same_as = SMC_NONE};
    if (!it.path || (problem && !it.error)) {
        free(it.path);
        free(it.error);
        return SMC_ERR_NOMEM;
    }
    return add_item(pl->in, &it, true, pl->opt, pl->items, pl->n);
}

typedef smc_status (*acquirer)(const char *arg, const smc_options *opt, smc_input *in,
                               smc_wanted **out, size_t *n);

/* The kinds, asked in this order; the last takes anything. A kind that names wheels elsewhere
 * hands its path to the acquire stage; the others plan their items here. */
static const struct input_kind {
    bool (*takes)(const planning *pl);
    smc_input_kind kind; /* the input's, as it is made (planning may change it) */
    bool redact;         /* the input is named by the path without its credentials */
    acquirer acquire;
    smc_status (*plan)(planning *pl);
} kinds[] = {
    {takes_url, SMC_INPUT_WHEEL, true, smc_acquire_url, NULL},
    {takes_requirement, SMC_INPUT_WHEEL, false, smc_acquire_requirement, NULL},
    {takes_lock, SMC_INPUT_ENVIRONMENT, false, smc_acquire_lock, NULL},
    {takes_image, SMC_INPUT_IMAGE, false, NULL, plan_image},
    {takes_directory, SMC_INPUT_DIRECTORY, false, NULL, plan_directory},
    {takes_file, SMC_INPUT_FILE, false, NULL, plan_file},
};

smc_status smc_plan(const char *path, size_t input, const smc_options *opt, smc_input **in,
                    smc_env **env, int *root, smc_item **items, size_t *n)
{
    planning pl = {.path = path, .input = input, .opt = opt, .env = env, .root = root,
                   .items = items, .n = n};
    pl.have = !smc_url_is(path) && stat(path, &pl.sb) == 0;
    pl.err = errno;
    const struct input_kind *k = kinds;
    while (!k->takes(&pl))
        k++;
    char *name = k->redact ? smc_redact(smc_strdup(path)) : NULL;
    *in = pl.in = !k->redact || name ? smc_input_new(k->redact ? name : path, k->kind) : NULL;
    free(name);
    if (!pl.in) return SMC_ERR_NOMEM;
    if (!k->acquire) return k->plan(&pl);
    smc_wanted *w = NULL;
    size_t count = 0;
    smc_status st = k->acquire(path, opt, pl.in, &w, &count);
    if (st == SMC_OK) st = plan_wanted(&pl, w, count);
    smc_wanted_free(w, count);
    return st;
}
