/* scan.c: the scan of the paths given by the user: plan.c lists their items (files, wheel
 * members, images, conda packages, wheels over the network), a pool of threads reads them through
 * source.c and the archive readers (wheel.c, conda.c, image.c), then what each found is merged in
 * the report's order. It judges nothing (verdict.c). */
#include "../find/find.h"
#include "read.h"
#include "../acquire/acquire.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
/* Sanitizers bring their own malloc: glibc's malloc_trim would walk an arena nobody set up. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SMC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SMC_SANITIZED 1
#endif
#endif
#ifndef SMC_SANITIZED
#define SMC_SANITIZED 0
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct pool {
    const smc_item *items;
    size_t *order; /* the order they are taken in */
    smc_input **parts;
    size_t n;
    const smc_options *opt;
    atomic_size_t next;
    atomic_bool failed;              /* out of memory: the others stop early */
    atomic_uint idle;                /* threads that have no item left: a long member's helpers' */
    _Atomic uint_fast64_t *inflated; /* per input: bytes wheel members inflated to */
    _Atomic uint_fast64_t *bare;     /* per input: files looked at that gave nothing to merge */
    _Atomic uint_fast64_t done;      /* bytes, for progress */
    _Atomic uint_fast64_t total;     /* of them: the files' and members' sizes known so far */
    unsigned jobs;        /* threads */
    sem_t zip_slots;      /* threads that may hold an open archive (smc_zipcache) */
    pthread_mutex_t lock; /* one progress call at a time */
    struct timespec last;
} pool;

#define PROGRESS_EVERY 0.25 /* seconds between progress calls: a few a second */

static void tick(void *ctx, uint64_t n, const char *current)
{
    pool *p = ctx;
    uint64_t done = atomic_fetch_add(&p->done, (uint_fast64_t)n) + n;
    if (!p->opt || !p->opt->run.progress || pthread_mutex_trylock(&p->lock) != 0) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double since =
        (double)(now.tv_sec - p->last.tv_sec) + (double)(now.tv_nsec - p->last.tv_nsec) / 1e9;
    if (since >= PROGRESS_EVERY) {
        p->last = now;
        p->opt->run.progress(p->opt->run.progress_ctx, done, atomic_load(&p->total), current);
    }
    pthread_mutex_unlock(&p->lock);
}

/* Scans a zip archive found by the walk under a name that did not say so, member by member in
 * this thread; its distribution is part's own (merge renumbers it). */
static smc_status scan_zip_here(smc_input *part, const smc_item *it, const smc_options *opt,
                                const smc_ticker *tk)
{
    smc_item *members = NULL;
    size_t n = 0;
    smc_status st = smc_wheel_plan(part, it->path, it, opt, &members, &n);
    smc_zipcache zc = {0};
    for (size_t i = 0; i < n && st == SMC_OK; i++)
        st = smc_wheel_member(part, &zc, &members[i], opt, tk, NULL);
    smc_zipcache_close(&zc);
    smc_items_free(members, n);
    return st;
}

static smc_status merge(smc_input *in, smc_input *part);

/* The libraries each distribution of a wheel's own input lists, as smc_distributions_finish
 * lists them once the input is whole: made for a cache record (which holds them), dropped before
 * the merge (make false). */
static smc_status list_libraries(smc_input *own, bool make)
{
    for (size_t d = 0; d < own->distribution_count; d++) {
        free(own->distributions[d].libraries);
        own->distributions[d].libraries = NULL;
        own->distributions[d].library_count = 0;
    }
    for (size_t i = 0; make && i < own->library_count; i++) {
        size_t k = own->libraries[i].distribution;
        if (k >= own->distribution_count) continue;
        smc_distribution *d = &own->distributions[k];
        size_t *slot = smc_push(&d->libraries, d->library_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = i;
        d->library_count++;
    }
    return SMC_OK;
}

/* Makes the distributions of a wheel of a lock file say so. */
static smc_status mark_lock(smc_input *wheel)
{
    for (size_t d = 0; d < wheel->distribution_count; d++) {
        free(wheel->distributions[d].source);
        if (!(wheel->distributions[d].source = smc_strdup("lock"))) return SMC_ERR_NOMEM;
    }
    return SMC_OK;
}

/* Only the errors of a wheel whose bytes are not the ones pinned go to part: nothing read from
 * them is judged. */
static smc_status errors_of(smc_input *part, const smc_input *own)
{
    smc_status st = SMC_OK;
    part->files += own->files;
    for (size_t i = 0; i < own->error_count && st == SMC_OK; i++)
        st = smc_input_add_error(part, own->errors[i].path, "%s", own->errors[i].message);
    part->errors_more += own->errors_more;
    return st;
}

/* Scans a wheel read over the network into its own input, in this thread: it is opened (its
 * tail read), planned, and its members read in their order, so that its bytes stream by once;
 * then its sha256 is checked where one was expected, and its facts go to the cache when they
 * may. Only the wheels the threads are reading are open at once. A wheel whose facts came from
 * the cache is not read. Then its facts go to part. */
static smc_status scan_remote(smc_input *part, const smc_item *it, const smc_options *opt,
                              const smc_ticker *tk, smc_zipcache *zc)
{
    const smc_net_wheel *nw = it->net;
    smc_input *own = nw->wheel;
    smc_status st = SMC_OK;
    char why[512];
    smc_net net = smc_net_of(opt);
    bool same = true; /* its bytes are the ones pinned, as far as anything says */
    smc_remote *r = nw->from_cache ? NULL
                                   : smc_remote_open(&net, nw->url,
                                                     nw->cache_key[0] ? nw->cache_key : NULL, why,
                                                     sizeof why);
    if (!nw->from_cache && !r) st = smc_input_add_error(own, it->path, "%s", why);
    if (r) {
        /* Facts for the cache are read for every target and driver. */
        smc_options all = *opt;
        bool keep = nw->cache_key[0] && smc_cacheable(opt);
        if (keep) {
            all.read.targets = NULL;
            all.read.target_count = 0;
            all.read.driver_cuda = 0;
        }
        smc_item proto = {.path = it->path, .root = -1, .member = -1, .dist = SMC_NONE,
                          .input = it->input, .same_as = SMC_NONE, .remote = r};
        smc_item *members = NULL;
        size_t count = 0;
        smc_zipcache_close(zc);
        st = smc_wheel_plan(own, it->path, &proto, &all, &members, &count);
        for (size_t i = 0; tk && tk->total && i < count; i++) /* now progress knows its size */
            atomic_fetch_add(tk->total, (uint_fast64_t)members[i].size);
        bool unreadable = false;
        for (size_t i = 0; i < count && st == SMC_OK; i++)
            st = smc_wheel_member(own, zc, &members[i], &all, tk, &unreadable);
        smc_zipcache_close(zc); /* its archive reads through the remote file */
        smc_items_free(members, count);
        if (st == SMC_OK && !smc_remote_finish(r, why, sizeof why)) {
            same = false;
            st = smc_input_add_error(own, it->path, "%s: nothing in it is judged", why);
        } else if (st == SMC_OK && unreadable) { /* no digest said, or the read broke off */
            same = false;
            st = smc_input_add_error(own, it->path,
                                     "a member could not be read to its end (above): the file "
                                     "changed while it was read, or is damaged; nothing in it "
                                     "is judged");
        }
        smc_remote_close(r);
        if (st == SMC_OK && keep && same && opt->cache.dir) {
            own->inspected = true;
            st = list_libraries(own, true);
            char *text = st == SMC_OK ? smc_cache_encode(own, it->path, nw->cache_key, why,
                                                         sizeof why)
                                      : NULL;
            if (text)
                smc_cache_store(opt->cache.dir, nw->cache_key, text, strlen(text), opt->cache.cap,
                                why, sizeof why);
            free(text); /* a cache that cannot be written is not the input's problem */
        }
    }
    if (st == SMC_OK && !same) return errors_of(part, own);
    if (st == SMC_OK) st = list_libraries(own, false);
    if (st == SMC_OK && nw->lock) st = mark_lock(own);
    return st == SMC_OK ? merge(part, own) : st;
}

/* Gives the pages of freed heap memory back to the system. */
static void heap_back(const smc_options *opt)
{
#if defined(__GLIBC__) && !SMC_SANITIZED
    if (!opt || !opt->run.no_trim) malloc_trim(0);
#else
    (void)opt;
#endif
}

/* Scans one item into its own input, so that threads share nothing but the item list. */
/* One item being read: its part of the input, where progress goes, the thread's zip cache. */
typedef struct reading {
    pool *p;
    const smc_item *it;
    smc_input *part;
    smc_ticker *tk;
    smc_zipcache *zc;
} reading;

static smc_status read_member(reading *r)
{
    return smc_wheel_member(r->part, r->zc, r->it, r->p->opt, r->tk, NULL);
}

static smc_status read_remote(reading *r)
{
    r->tk->buffer = SMC_REMOTE_BUFFER; /* its read-ahead and tail take the room of the buffer it
                                        * needs less */
    smc_status st = scan_remote(r->part, r->it, r->p->opt, r->tk, r->zc);
    heap_back(r->p->opt); /* its directory and libraries' tables were freed between the facts
                           * kept (a cold lock at -j2: heap resident 37 -> 34 MB) */
    return st;
}

static smc_status read_image(reading *r)
{
    const char *path = r->it->path;
    struct stat sb;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    bool dir = fd >= 0 && fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode);
    smc_status st = fd < 0 ? smc_input_add_error(r->part, path, "%s", strerror(errno))
                           : smc_image_scan(r->part, path, dir ? fd : -1, dir ? -1 : fd,
                                            r->p->opt, r->tk);
    if (fd >= 0) close(fd);
    return st;
}

/* The kinds read from the file itself, opened once: a file the walk found is told by its name (a
 * conda package) or its first bytes (a zip archive), once. */
static smc_status read_local(reading *r)
{
    const smc_item *it = r->it;
    int fd = smc_item_open(it, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return smc_input_add_error(r->part, it->path, "%s", smc_open_error(errno));
    smc_item_kind kind = it->kind;
    if (kind == SMC_ITEM_FOUND) {
        uint8_t head[4];
        kind = smc_conda_named(it->path) ? SMC_ITEM_CONDA
               : pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
                       smc_zip_at(head, sizeof head)
                   ? SMC_ITEM_ZIP
                   : SMC_ITEM_FILE;
    }
    smc_status st = kind == SMC_ITEM_CONDA
                        ? smc_conda_scan(r->part, it->path, fd, it->root < 0, r->p->opt, r->tk)
                    : kind == SMC_ITEM_ZIP ? scan_zip_here(r->part, it, r->p->opt, r->tk)
                                           : smc_scan_fd(r->part, it->path, fd, r->p->opt);
    close(fd);
    tick(r->p, it->size, it->path);
    return st;
}

/* The reader of each kind of item. */
static smc_status (*const readers[SMC_ITEM_KINDS])(reading *r) = {
    [SMC_ITEM_FOUND] = read_local,   [SMC_ITEM_FILE] = read_local,
    [SMC_ITEM_ZIP] = read_local,     [SMC_ITEM_CONDA] = read_local,
    [SMC_ITEM_MEMBER] = read_member, [SMC_ITEM_REMOTE] = read_remote,
    [SMC_ITEM_IMAGE] = read_image,
};

static smc_status scan_item(pool *p, size_t i, smc_zipcache *zc)
{
    const smc_item *it = &p->items[i];
    /* A part is merged into its input, under the input's name: a member's needs no copy of its
     * wheel's path (500,000 members under a path of 4 KB: 2 GB). */
    smc_input *part = p->parts[i] =
        smc_input_new(it->kind == SMC_ITEM_MEMBER ? "" : it->path, SMC_INPUT_FILE);
    if (!part) return SMC_ERR_NOMEM;
    smc_ticker tk = {tick,
                     p,
                     &p->total,
                     &p->inflated[it->input],
                     SMC_WHEEL_BUFFERS / (p->jobs < SMC_ZIP_READERS ? p->jobs : SMC_ZIP_READERS),
                     &p->idle};
    if (it->same_as != SMC_NONE) return SMC_OK; /* read once, as the first of its links */
    if (it->error) return smc_input_add_error(part, it->path, "%s", it->error);
    reading r = {p, it, part, &tk, zc};
    return readers[it->kind](&r);
}

/* Whether a part found nothing but files to count (most members of most wheels): it is then
 * freed at once and only counted, so that a wheel of 500,000 members holds no 500,000 inputs
 * until the merge. */
static bool bare(const smc_input *part)
{
    return !part->library_count && !part->distribution_count && !part->runtime_count &&
           !part->error_count && !part->errors_more && !part->note_count && !part->notes_more &&
           !part->require_cuda && !part->compat_cuda;
}

static void *worker(void *arg)
{
    pool *p = arg;
    smc_zipcache zc = {.slots = &p->zip_slots};
    for (size_t i; !atomic_load(&p->failed) && (i = atomic_fetch_add(&p->next, 1)) < p->n;) {
        size_t k = p->order[i];
        if (scan_item(p, k, &zc) != SMC_OK) atomic_store(&p->failed, true);
        if (p->parts[k] && bare(p->parts[k])) {
            atomic_fetch_add(&p->bare[p->items[k].input], (uint_fast64_t)p->parts[k]->files);
            smc_input_free(p->parts[k]);
            p->parts[k] = NULL;
        }
    }
    smc_zipcache_close(&zc);
    heap_back(p->opt); /* what it freed, before its core helps inflate a long member */
    atomic_fetch_add(&p->idle, 1);
    return NULL;
}

static unsigned job_count(const smc_options *opt, size_t n)
{
    size_t jobs = opt && opt->run.jobs ? opt->run.jobs : smc_cpus();
    if (jobs > n) jobs = n;
    return jobs > 256 ? 256 : (unsigned)(jobs ? jobs : 1);
}

/* Moves what part found to the end of in. Distributions part found itself (a zip the walk came
 * upon) are renumbered; a wheel member's libraries already name their wheel in in. */
static smc_status merge(smc_input *in, smc_input *part)
{
    if (!part) return SMC_OK; /* bare: counted already */
    size_t base = in->distribution_count;
    in->files += part->files;
    for (size_t i = 0; i < part->distribution_count; i++) {
        smc_distribution *slot = smc_push(&in->distributions, in->distribution_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = part->distributions[i];
        in->distribution_count++;
        part->distributions[i] = (smc_distribution){0};
    }
    for (size_t i = 0; i < part->library_count; i++) {
        smc_library *slot = smc_push(&in->libraries, in->library_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = part->libraries[i];
        if (part->distribution_count && slot->distribution != SMC_NONE) slot->distribution += base;
        in->library_count++;
        part->libraries[i] = (smc_library){0};
    }
    for (size_t i = 0; i < part->runtime_count; i++) {
        smc_runtime_file *slot = smc_push(&in->runtime, in->runtime_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = part->runtime[i];
        if (part->distribution_count && slot->distribution != SMC_NONE) slot->distribution += base;
        in->runtime_count++;
        part->runtime[i] = (smc_runtime_file){0};
    }
    part->runtime_count = 0;
    for (size_t i = 0; i < part->error_count; i++) {
        if (in->error_count >= SMC_ERRORS_KEPT) {
            in->errors_more++;
            free(part->errors[i].path);
            free(part->errors[i].message);
            part->errors[i] = (smc_error){0};
            continue;
        }
        smc_error *slot = smc_push(&in->errors, in->error_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = part->errors[i];
        in->error_count++;
        part->errors[i] = (smc_error){0};
    }
    for (size_t i = 0; i < part->note_count; i++) {
        if (in->note_count >= SMC_ERRORS_KEPT) {
            in->notes_more++;
            free(part->notes[i]);
            part->notes[i] = NULL;
            continue;
        }
        char **slot = smc_push(&in->notes, in->note_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = part->notes[i];
        in->note_count++;
        part->notes[i] = NULL;
    }
    in->errors_more += part->errors_more;
    in->notes_more += part->notes_more;
    if (part->compat_cuda > in->compat_cuda) in->compat_cuda = part->compat_cuda;
    if (part->require_cuda && !in->require_cuda) { /* an image's */
        in->require_cuda = part->require_cuda;
        in->require_cuda_version = part->require_cuda_version;
        part->require_cuda = NULL;
    }
    part->errors_more = part->notes_more = 0;
    part->distribution_count = part->library_count = part->error_count = part->note_count = 0;
    return SMC_OK;
}

/* Items that are the same file (hard links; bind mounts) as an earlier one: by device, inode
 * and member, in n log n. */
static int by_file(const void *a, const void *b, void *ctx)
{
    const smc_item *items = ctx, *x = &items[*(const size_t *)a], *y = &items[*(const size_t *)b];
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    if (x->member != y->member) return x->member < y->member ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static smc_status mark_links(smc_item *items, size_t n)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order), k = 0;
    if (!order) return SMC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        if (items[i].ino && !items[i].error) order[k++] = i;
    if (k > 1) qsort_r(order, k, sizeof *order, by_file, items);
    for (size_t i = 1; i < k; i++) {
        const smc_item *a = &items[order[i - 1]], *b = &items[order[i]];
        if (a->dev == b->dev && a->ino == b->ino && a->member == b->member)
            items[order[i]].same_as = a->same_as != SMC_NONE ? a->same_as : order[i - 1];
    }
    free(order);
    return SMC_OK;
}

/* Item k is the file item j was (j < k, merged before): its libraries, at lib_first[j] in
 * input[j]'s, name k's path as a link when both are in one input, and are copied into k's input
 * under k's path when not. */
static smc_status merge_link(smc_input *in, const smc_input *from, const smc_item *items,
                             size_t j, size_t k, size_t first, size_t count)
{
    smc_status st = SMC_OK;
    in->files++;
    for (size_t i = first; i < first + count && st == SMC_OK; i++) {
        const smc_library *lib = &from->libraries[i];
        /* "a.whl!pkg/x.so": the part after the item's own path is the same for both. */
        size_t own = strlen(items[j].path);
        const char *rest = strlen(lib->path) >= own ? lib->path + own : "";
        char *path = smc_asprintf("%s%s", items[k].path, rest);
        if (!path) return SMC_ERR_NOMEM;
        if (from == in) {
            smc_library *l = &in->libraries[i];
            char **slot = smc_push(&l->links, l->link_count, sizeof *slot);
            if (!slot || !(*slot = smc_sanitize(path))) {
                free(path);
                return SMC_ERR_NOMEM;
            }
            l->link_count++;
            continue;
        }
        smc_library *slot = smc_push(&in->libraries, in->library_count, sizeof *slot);
        st = slot ? smc_library_copy(slot, lib, path) : SMC_ERR_NOMEM;
        if (st == SMC_OK) {
            slot->distribution = items[k].dist; /* a wheel member's, in its input */
            in->library_count++;
        }
        free(path);
    }
    return st;
}

/* The order the pool takes items in: the huge ones first, largest first, so that the longest
 * work starts at once (and gets the threads that inflate one member in parallel); the rest as
 * listed, which keeps a wheel's members together for the archive each thread holds open. */
#define HUGE_ITEM (64ull << 20)
static size_t *take_order(const smc_item *items, size_t n)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order), huge = 0;
    if (!order) return NULL;
    for (size_t i = 0; i < n; i++) { /* insertion: the huge ones are few */
        if (items[i].size < HUGE_ITEM) continue;
        size_t k = huge++;
        for (; k > 0 && items[order[k - 1]].size < items[i].size; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    for (size_t i = 0, k = huge; i < n; i++)
        if (items[i].size < HUGE_ITEM) order[k++] = i;
    return order;
}

/* Scans the items with a pool of threads; parts[i] receives item i's result. */
static smc_status scan_items(const smc_item *items, size_t n, size_t inputs, const smc_options *opt,
                             smc_input **parts, _Atomic uint_fast64_t *bare_files)
{
    pool p = {.items = items, .n = n, .opt = opt, .parts = parts, .bare = bare_files};
    p.inflated = calloc(inputs ? inputs : 1, sizeof *p.inflated);
    p.order = take_order(items, n);
    if (!p.inflated || !p.order) {
        free(p.inflated);
        free(p.order);
        return SMC_ERR_NOMEM;
    }
    atomic_init(&p.next, 0);
    atomic_init(&p.failed, false);
    atomic_init(&p.idle, 0);
    atomic_init(&p.done, 0);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += items[i].size;
    atomic_init(&p.total, total);
    pthread_mutex_init(&p.lock, NULL);
    clock_gettime(CLOCK_MONOTONIC, &p.last);
    unsigned jobs = job_count(opt, n), started = 0;
    p.jobs = jobs;
    atomic_store(&p.idle, job_count(opt, SIZE_MAX) - jobs); /* -j asked for more than items */
    sem_init(&p.zip_slots, 0, SMC_ZIP_READERS);
    pthread_t threads[256];
    for (; started + 1 < jobs; started++)
        if (pthread_create(&threads[started], NULL, worker, &p) != 0) break;
    worker(&p); /* the calling thread works too */
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&p.lock);
    sem_destroy(&p.zip_slots);
    free(p.inflated);
    free(p.order);
    return atomic_load(&p.failed) ? SMC_ERR_NOMEM : SMC_OK;
}

smc_status smc_scan_paths(const char *const *paths, size_t count, const smc_options *opt,
                          smc_input **out)
{
    if (!paths || !out) return SMC_ERR_ARG;
    for (size_t i = 0; i < count; i++)
        out[i] = NULL;
    /* All files of all paths go through one pool; first[i] is where path i's items start. */
    smc_item *items = NULL;
    size_t n = 0, *first = calloc(count + 1, sizeof *first);
    smc_env **envs = calloc(count ? count : 1, sizeof *envs);
    int *roots = malloc((count ? count : 1) * sizeof *roots); /* the walks' directories */
    smc_status st = first && envs && roots ? SMC_OK : SMC_ERR_NOMEM;
    for (size_t i = 0; roots && i < count; i++)
        roots[i] = -1;
    for (size_t i = 0; first && i < count && st == SMC_OK; i++) {
        first[i] = n;
        st = smc_plan(paths[i], i, opt, &out[i], &envs[i], &roots[i], &items, &n);
    }
    if (st == SMC_OK) st = mark_links(items, n);
    smc_input **parts = st == SMC_OK ? calloc(n ? n : 1, sizeof *parts) : NULL;
    /* Where each item's libraries went, for its links. */
    size_t *lib_first = st == SMC_OK ? calloc(n ? n : 1, sizeof *lib_first) : NULL;
    size_t *lib_count = lib_first ? calloc(n ? n : 1, sizeof *lib_count) : NULL;
    if (st == SMC_OK && !lib_count) st = SMC_ERR_NOMEM;
    _Atomic uint_fast64_t *bare_files = calloc(count ? count : 1, sizeof *bare_files);
    if (st == SMC_OK)
        st = parts && bare_files ? scan_items(items, n, count, opt, parts, bare_files)
                                 : SMC_ERR_NOMEM;
    if (st == SMC_OK) first[count] = n;
    for (size_t i = 0; i < count && st == SMC_OK; i++) {
        for (size_t k = first[i]; k < first[i + 1] && st == SMC_OK; k++) {
            size_t j = items[k].same_as;
            lib_first[k] = out[i]->library_count;
            if (j != SMC_NONE)
                st = merge_link(out[i], out[items[j].input], items, j, k, lib_first[j],
                                lib_count[j]);
            else
                st = merge(out[i], parts[k]);
            lib_count[k] = out[i]->library_count - lib_first[k];
        }
        if (st == SMC_OK) {
            out[i]->files += atomic_load(&bare_files[i]);
            st = smc_env_attribute(out[i], envs[i]);
        }
        if (st == SMC_OK) st = smc_distributions_finish(out[i]);
        if (st == SMC_OK) out[i]->inspected = opt->read.inspect;
    }
    for (size_t k = 0; parts && k < n; k++)
        smc_input_free(parts[k]);
    for (size_t i = 0; envs && i < count; i++)
        smc_env_free(envs[i]);
    for (size_t i = 0; roots && i < count; i++)
        if (roots[i] >= 0) close(roots[i]);
    free(roots);
    free(lib_first);
    free(lib_count);
    free((void *)bare_files);
    free(envs);
    free(parts);
    free(first);
    smc_items_free(items, n);
    if (st != SMC_OK)
        for (size_t i = 0; i < count; i++) {
            smc_input_free(out[i]);
            out[i] = NULL;
        }
    return st;
}

smc_status smc_scan_path(const char *path, const smc_options *opt, smc_input **out)
{
    if (out) *out = NULL;
    return path ? smc_scan_paths(&path, 1, opt, out) : SMC_ERR_ARG;
}
