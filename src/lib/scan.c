/* scan.c: where bytes come from for a scan: paths given by the user, files mapped from disk and
 * buffers in memory. It recognises inputs by their first bytes, never by their names, and maps a
 * file only when those bytes say it can hold device code. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { SIG_NONE, SIG_ELF, SIG_AR, SIG_FATBIN };

static int signature(const uint8_t *p, uint64_t n)
{
    if (n >= 4 && memcmp(p, "\177ELF", 4) == 0) return SIG_ELF;
    if (n >= 8 && memcmp(p, "!<arch>\n", 8) == 0) return SIG_AR;
    if (smc_fatbin_at(p, n, 0)) return SIG_FATBIN;
    return SIG_NONE;
}

bool smc_scan_signature(const uint8_t *p, uint64_t n)
{
    int sig = signature(p, n);
    return sig == SIG_ELF || sig == SIG_AR || sig == SIG_FATBIN;
}

smc_status smc_scan_bytes(smc_input *in, const char *name, uint8_t *buf, uint64_t len,
                          const smc_options *opt, unsigned depth)
{
    switch (signature(buf, len)) {
    case SIG_ELF:
    case SIG_AR:
        return smc_elf_scan(in, name, buf, len, opt, depth);
    case SIG_FATBIN: {
        smc_library *lib = smc_library_new(name);
        if (!lib) return SMC_ERR_NOMEM;
        smc_library_limits(lib, opt);
        smc_status st = smc_fatbin_walk(lib, buf, 0, len, NULL, false);
        return smc_library_finish(in, lib, buf, len, opt, st == SMC_ERR_LIMIT ? SMC_OK : st);
    }
    default:
        return SMC_OK; /* no device code: skipped quietly */
    }
}

typedef struct bytes {
    const uint8_t *buf;
    uint64_t len;
} bytes;

/* Reads the cubin of image i of container c: SMC_OK with info, or another status when it cannot
 * be read (decompressed, parsed). */
static smc_status read_cubin(const bytes *b, const smc_container *c, const smc_image *img,
                             smc_cubin_info *info)
{
    smc_fatbin_error err;
    if (c->bare_cubin) /* the cubin is the container's bytes (an archive member too) */
        return smc_in_range(b->len, c->offset, c->size)
                   ? smc_cubin_inspect(b->buf + c->offset, c->size, info, &err)
                   : SMC_ERR_FORMAT;
    uint8_t *data = NULL;
    smc_status st = smc_image_payload(b->buf, b->len, img, &data, &err);
    if (st == SMC_OK) st = smc_cubin_inspect(data, img->size, info, &err);
    free(data);
    return st;
}

/* Does the container hold a kernel: a cubin with a .text.* section? Asked by the judge only of
 * containers that would fail, so the decompression stays rare. */
static bool has_kernels(void *ctx, const smc_library *lib, size_t index)
{
    const smc_container *c = &lib->containers[index];
    for (size_t i = c->first_image; i < c->first_image + c->image_count; i++) {
        smc_cubin_info info;
        if (lib->images[i].kind != SMC_IMAGE_CUBIN) continue;
        /* what cannot be read is assumed to count */
        if (read_cubin(ctx, c, &lib->images[i], &info) != SMC_OK || info.has_kernels) return true;
    }
    return false;
}

/* The kernels of a container's first readable cubin, for --detail; NULL when there is none. */
static char *kernel_names(const bytes *b, const smc_library *lib, size_t index)
{
    const smc_container *c = &lib->containers[index];
    for (size_t i = c->first_image; i < c->first_image + c->image_count; i++) {
        smc_cubin_info info;
        if (lib->images[i].kind != SMC_IMAGE_CUBIN ||
            read_cubin(b, c, &lib->images[i], &info) != SMC_OK || !info.kernels)
            continue;
        if (info.kernels <= 3) return smc_strdup(info.names);
        return smc_asprintf("%s (+%zu more)", info.names, info.kernels - 3);
    }
    return NULL;
}

/* Names the kernels of every failing container, each container read once. */
static smc_status name_kernels(smc_library *lib, const bytes *b)
{
    char **cache = calloc(lib->container_count, sizeof *cache);
    bool *done = calloc(lib->container_count, sizeof *done);
    smc_status st = cache && done ? SMC_OK : SMC_ERR_NOMEM;
    for (size_t t = 0; t < lib->judgement_count && st == SMC_OK; t++) {
        smc_judgement *j = &lib->judgements[t];
        if (!j->failing_count) continue;
        if (!(j->failing_kernels = calloc(j->failing_count, sizeof *j->failing_kernels))) {
            st = SMC_ERR_NOMEM;
            break;
        }
        for (size_t k = 0; k < j->failing_count; k++) {
            size_t c = j->failing[k];
            if (!done[c]) {
                cache[c] = kernel_names(b, lib, c);
                done[c] = true;
            }
            if (cache[c] && !(j->failing_kernels[k] = smc_strdup(cache[c]))) st = SMC_ERR_NOMEM;
        }
    }
    for (size_t c = 0; cache && c < lib->container_count; c++)
        free(cache[c]);
    free(cache);
    free(done);
    return st;
}

smc_status smc_library_finish_with(smc_input *in, smc_library *lib, const smc_options *opt,
                                   smc_kernel_probe probe, void *ctx, smc_status st)
{
    if (opt && opt->cuda_hint > lib->cudart_major) lib->cudart_major = opt->cuda_hint;
    if (st == SMC_OK && opt && opt->target_count && lib->container_count)
        st = smc_library_judge(lib, opt->targets, opt->target_count, opt->driver_cuda, probe, ctx);
    if (st != SMC_OK) {
        smc_library_free(lib);
        return st;
    }
    return smc_input_take_library(in, lib);
}

smc_status smc_library_finish(smc_input *in, smc_library *lib, const uint8_t *buf, uint64_t len,
                              const smc_options *opt, smc_status st)
{
    bytes b = {buf, len};
    if (opt && opt->cuda_hint > lib->cudart_major) lib->cudart_major = opt->cuda_hint;
    if (st == SMC_OK && opt && opt->verify) st = smc_library_verify(lib, buf, len);
    if (st == SMC_OK && opt && opt->target_count && lib->container_count) {
        st = smc_library_judge(lib, opt->targets, opt->target_count, opt->driver_cuda, has_kernels,
                               &b);
        if (st == SMC_OK && opt->kernel_names) st = name_kernels(lib, &b);
        opt = NULL; /* judged */
    }
    return smc_library_finish_with(in, lib, opt, NULL, NULL, st);
}

smc_status smc_scan_memory(smc_input *in, const char *name, const void *buf, size_t len,
                           const smc_options *opt)
{
    if (!in || !name || (!buf && len)) return SMC_ERR_ARG;
    in->files++;
    uint8_t *copy = malloc(len ? len : 1); /* libelf may write to the bytes it is given */
    if (!copy) return SMC_ERR_NOMEM;
    if (len) memcpy(copy, buf, len);
    smc_status st = smc_scan_bytes(in, name, copy, len, opt, 0);
    free(copy);
    return st;
}

/* A file can shrink while it is mapped (another process truncates it); touching a page past its
 * new end raises SIGBUS. The handler puts a page of zeros there, notes it, and lets the scan go on:
 * the bytes that were cut read as zeros, and the file is reported as changed while being read.
 * Only faults inside the mapping this thread is scanning are handled; others go on as before. */
/* The mapping this thread scans, and whether a page of it was replaced by zeros. (cppcheck does
 * not see the members used through the thread-local variable.) */
typedef struct bus_guard {
    // cppcheck-suppress unusedStructMember
    uint8_t *start;
    // cppcheck-suppress unusedStructMember
    uint8_t *end;
    // cppcheck-suppress unusedStructMember
    volatile sig_atomic_t hit;
} bus_guard;
static _Thread_local bus_guard guard;
static struct sigaction previous_bus;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_bus(int sig, siginfo_t *info, void *uctx)
{
    uint8_t *at = info ? (uint8_t *)info->si_addr : NULL;
    if (at && at >= guard.start && at < guard.end) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        void *base = (void *)((uintptr_t)at & ~(page - 1));
        if (mmap(base, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != MAP_FAILED) {
            guard.hit = 1;
            return;
        }
    }
    if (previous_bus.sa_flags & SA_SIGINFO && previous_bus.sa_sigaction) {
        previous_bus.sa_sigaction(sig, info, uctx);
    } else if (previous_bus.sa_handler != SIG_IGN && previous_bus.sa_handler != SIG_DFL &&
               previous_bus.sa_handler) {
        previous_bus.sa_handler(sig);
    } else {
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

static void install_bus(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous_bus);
}

smc_status smc_scan_mapped(smc_input *in, const char *path, uint8_t *map, uint64_t len,
                           const smc_options *opt)
{
    pthread_once(&bus_once, install_bus);
    guard.start = map;
    guard.end = map + len;
    guard.hit = 0;
    size_t before = in->library_count;
    smc_status st = smc_scan_bytes(in, path, map, len, opt, 0);
    bool cut = guard.hit;
    guard.start = guard.end = NULL;
    for (size_t i = before; i < in->library_count; i++)
        in->libraries[i].file_size = len;
    if (st == SMC_OK && cut)
        st = smc_input_add_error(in, path,
                                 "the file shrank while being read: what lay past its new end "
                                 "was read as zeros");
    return st;
}

smc_status smc_scan_fd(smc_input *in, const char *path, int fd, const smc_options *opt)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    if (!S_ISREG(sb.st_mode)) return smc_input_add_error(in, path, "not a regular file");
    in->files++;
    uint8_t head[8];
    ssize_t got = pread(fd, head, sizeof head, 0);
    if (got < 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    if (signature(head, (uint64_t)got) == SIG_NONE) return SMC_OK;

    uint64_t len = (uint64_t)sb.st_size;
    if (len > SIZE_MAX) return smc_input_add_error(in, path, "too large to map");
    /* Private and writable: libelf may convert headers in place, and nothing reaches the file. */
    void *map = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return smc_input_add_error(in, path, "cannot map: %s", strerror(errno));
    smc_status st = smc_scan_mapped(in, path, map, len, opt);
    munmap(map, (size_t)len);
    return st;
}

typedef struct pool {
    const smc_item *items;
    smc_input **parts;
    size_t n;
    const smc_options *opt;
    atomic_size_t next;
    atomic_bool failed;              /* out of memory: the others stop early */
    _Atomic uint_fast64_t *inflated; /* per input: bytes wheel members inflated to */
    _Atomic uint_fast64_t done;      /* bytes, for progress */
    uint64_t total;
    pthread_mutex_t lock; /* one progress call at a time */
    struct timespec last;
} pool;

static void tick(void *ctx, uint64_t n, const char *current)
{
    pool *p = ctx;
    uint64_t done = atomic_fetch_add(&p->done, (uint_fast64_t)n) + n;
    if (!p->opt || !p->opt->progress || pthread_mutex_trylock(&p->lock) != 0) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double since =
        (double)(now.tv_sec - p->last.tv_sec) + (double)(now.tv_nsec - p->last.tv_nsec) / 1e9;
    if (since >= 0.1) {
        p->last = now;
        p->opt->progress(p->opt->progress_ctx, done, p->total, current);
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
        st = smc_wheel_member(part, &zc, &members[i], opt, tk);
    smc_zipcache_close(&zc);
    smc_items_free(members, n);
    return st;
}

/* Scans one item into its own input, so that threads share nothing but the item list. */
static smc_status scan_item(pool *p, size_t i, smc_zipcache *zc)
{
    const smc_item *it = &p->items[i];
    smc_input *part = p->parts[i] = smc_input_new(it->path, SMC_INPUT_FILE);
    if (!part) return SMC_ERR_NOMEM;
    smc_ticker tk = {tick, p, &p->inflated[it->input]};
    if (it->error) return smc_input_add_error(part, it->path, "%s", it->error);
    if (it->member >= 0) return smc_wheel_member(part, zc, it, p->opt, &tk);
    int fd = open(it->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (it->nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) return smc_input_add_error(part, it->path, "%s", strerror(errno));
    uint8_t head[4];
    smc_status st;
    if (pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head && smc_zip_at(head, sizeof head))
        st = scan_zip_here(part, it, p->opt, &tk);
    else
        st = smc_scan_fd(part, it->path, fd, p->opt);
    close(fd);
    tick(p, it->size, it->path);
    return st;
}

static void *worker(void *arg)
{
    pool *p = arg;
    smc_zipcache zc = {0};
    for (size_t i; !atomic_load(&p->failed) && (i = atomic_fetch_add(&p->next, 1)) < p->n;)
        if (scan_item(p, i, &zc) != SMC_OK) atomic_store(&p->failed, true);
    smc_zipcache_close(&zc);
    return NULL;
}

static unsigned job_count(const smc_options *opt, size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t jobs = opt && opt->jobs ? opt->jobs : cpus > 0 ? (size_t)cpus : 1;
    if (jobs > n) jobs = n;
    return jobs > 256 ? 256 : (unsigned)(jobs ? jobs : 1);
}

/* Moves what part found to the end of in. Distributions part found itself (a zip the walk came
 * upon) are renumbered; a wheel member's libraries already name their wheel in in. */
static smc_status merge(smc_input *in, smc_input *part)
{
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
    for (size_t i = 0; i < part->error_count; i++) {
        smc_error *slot = smc_push(&in->errors, in->error_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = part->errors[i];
        in->error_count++;
        part->errors[i] = (smc_error){0};
    }
    for (size_t i = 0; i < part->note_count; i++) {
        char **slot = smc_push(&in->notes, in->note_count, sizeof *slot);
        if (!slot) return SMC_ERR_NOMEM;
        *slot = part->notes[i];
        in->note_count++;
        part->notes[i] = NULL;
    }
    part->distribution_count = part->library_count = part->error_count = part->note_count = 0;
    return SMC_OK;
}

/* Scans the items with a pool of threads; parts[i] receives item i's result. */
static smc_status scan_items(const smc_item *items, size_t n, size_t inputs, const smc_options *opt,
                             smc_input **parts)
{
    pool p = {.items = items, .n = n, .opt = opt, .parts = parts};
    p.inflated = calloc(inputs ? inputs : 1, sizeof *p.inflated);
    if (!p.inflated) return SMC_ERR_NOMEM;
    atomic_init(&p.next, 0);
    atomic_init(&p.failed, false);
    atomic_init(&p.done, 0);
    for (size_t i = 0; i < n; i++)
        p.total += items[i].size;
    pthread_mutex_init(&p.lock, NULL);
    clock_gettime(CLOCK_MONOTONIC, &p.last);
    unsigned jobs = job_count(opt, n), started = 0;
    pthread_t threads[256];
    for (; started + 1 < jobs; started++)
        if (pthread_create(&threads[started], NULL, worker, &p) != 0) break;
    worker(&p); /* the calling thread works too */
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&p.lock);
    free(p.inflated);
    return atomic_load(&p.failed) ? SMC_ERR_NOMEM : SMC_OK;
}

/* An input takes the worst status of its libraries, per target. */
static smc_status worst_statuses(smc_input *in, size_t targets)
{
    in->statuses = calloc(targets, sizeof *in->statuses);
    if (!in->statuses) return SMC_ERR_NOMEM;
    in->status_count = targets;
    for (size_t l = 0; l < in->library_count; l++)
        for (size_t t = 0; t < targets && t < in->libraries[l].judgement_count; t++)
            if (in->libraries[l].judgements[t].status > in->statuses[t])
                in->statuses[t] = in->libraries[l].judgements[t].status;
    return SMC_OK;
}

static bool zip_named(const char *path)
{
    size_t n = strlen(path);
    return n > 4 &&
           (strcasecmp(path + n - 4, ".whl") == 0 || strcasecmp(path + n - 4, ".zip") == 0);
}

static bool zip_file(const char *path, bool nofollow)
{
    uint8_t head[4];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    bool zip = fd >= 0 && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
               smc_zip_at(head, sizeof head);
    if (fd >= 0) close(fd);
    return zip;
}

/* Adds an item, expanding a wheel into its members so that the pool shares them out; a zip under
 * another name found by the walk is read whole by the thread that meets it. */
static smc_status add_item(smc_input *in, smc_item *it, bool direct, const smc_options *opt,
                           smc_item **items, size_t *n)
{
    if (!it->error && (direct || zip_named(it->path)) && zip_file(it->path, it->nofollow)) {
        smc_status st = smc_wheel_plan(in, it->path, it, opt, items, n);
        if (direct && st == SMC_OK) in->kind = SMC_INPUT_WHEEL;
        free(it->path);
        free(it->error);
        return st;
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

/* Lists the items of one path given by the user into *items (growing *n); creates its input and
 * reads the metadata of the distributions a directory holds. */
static smc_status plan(const char *path, size_t input, const smc_options *opt, smc_input **in,
                       smc_env **env, smc_item **items, size_t *n)
{
    struct stat sb;
    /* A path the user named is followed if it is a link; links inside a directory are not. */
    bool have = stat(path, &sb) == 0;
    const char *problem = !have ? strerror(errno)
                          : S_ISDIR(sb.st_mode) || S_ISREG(sb.st_mode)
                              ? NULL
                              : "not a regular file or directory";
    *in = smc_input_new(path, have && S_ISDIR(sb.st_mode) ? SMC_INPUT_DIRECTORY : SMC_INPUT_FILE);
    if (!*in) return SMC_ERR_NOMEM;
    if (have && S_ISDIR(sb.st_mode)) {
        smc_item *found;
        size_t k, first = *n;
        smc_status st = smc_walk_dir(path, opt, &found, &k);
        for (size_t i = 0; i < k && st == SMC_OK; i++) {
            found[i].input = input;
            st = add_item(*in, &found[i], false, opt, items, n);
            if (st != SMC_OK) smc_items_free(found + i + 1, k - i - 1);
        }
        free(found);
        if (st == SMC_OK) st = smc_env_collect(*in, *items + first, *n - first, env);
        if (st == SMC_OK && (*in)->distribution_count) (*in)->kind = SMC_INPUT_ENVIRONMENT;
        return st;
    }
    smc_item it = {.path = smc_strdup(path),
                   .error = problem ? smc_strdup(problem) : NULL,
                   .member = -1,
                   .dist = SMC_NONE,
                   .size = have ? (uint64_t)sb.st_size : 0,
                   .input = input};
    if (!it.path || (problem && !it.error)) {
        free(it.path);
        free(it.error);
        return SMC_ERR_NOMEM;
    }
    return add_item(*in, &it, true, opt, items, n);
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
    smc_status st = first && envs ? SMC_OK : SMC_ERR_NOMEM;
    for (size_t i = 0; i < count && st == SMC_OK; i++) {
        first[i] = n;
        st = plan(paths[i], i, opt, &out[i], &envs[i], &items, &n);
    }
    smc_input **parts = st == SMC_OK ? calloc(n ? n : 1, sizeof *parts) : NULL;
    if (st == SMC_OK) st = parts ? scan_items(items, n, count, opt, parts) : SMC_ERR_NOMEM;
    if (st == SMC_OK) first[count] = n;
    size_t targets = opt ? opt->target_count : 0;
    for (size_t i = 0; i < count && st == SMC_OK; i++) {
        for (size_t k = first[i]; k < first[i + 1] && st == SMC_OK; k++)
            st = merge(out[i], parts[k]);
        if (st == SMC_OK) st = smc_env_attribute(out[i], envs[i]);
        if (st == SMC_OK) st = smc_distributions_finish(out[i], targets);
        if (st == SMC_OK && targets) st = worst_statuses(out[i], targets);
    }
    for (size_t k = 0; parts && k < n; k++)
        smc_input_free(parts[k]);
    for (size_t i = 0; envs && i < count; i++)
        smc_env_free(envs[i]);
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
