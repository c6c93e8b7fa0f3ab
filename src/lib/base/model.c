/* model.c: building and freeing the model (inputs, libraries, findings, errors) and the names
 * its enums print as. Trusts only its callers. */
#include "base.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void *smc_push(void *arrayp, size_t n, size_t elsize)
{
    void **array = arrayp;
    if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, 8 ...: full */
        size_t cap = n ? 2 * n : 1;
        if (cap > SIZE_MAX / elsize) return NULL;
        void *grown = realloc(*array, cap * elsize);
        if (!grown) return NULL;
        *array = grown;
    }
    return (char *)*array + n * elsize;
}

void *smc_big_alloc(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void smc_big_free(void *p, size_t n)
{
    if (p) munmap(p, n ? n : 1);
}

char *smc_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

int smc_version_cmp(const char *a, const char *b)
{
    for (;;) {
        bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
        if (!da && !db) return 0;
        unsigned long x = da ? strtoul(a, (char **)&a, 10) : 0;
        unsigned long y = db ? strtoul(b, (char **)&b, 10) : 0;
        if (x != y) return x < y ? -1 : 1;
        if (*a == '.' && a[1] >= '0' && a[1] <= '9') a++;
        else a = "";
        if (*b == '.' && b[1] >= '0' && b[1] <= '9') b++;
        else b = "";
    }
}

bool smc_url_is(const char *s)
{
    return s && (strncasecmp(s, "https://", 8) == 0 || strncasecmp(s, "http://", 7) == 0);
}

const char *smc_base_name(const char *path)
{
    const char *slash = strrchr(path, '/'), *bang = strrchr(path, '!');
    const char *b = slash && (!bang || slash > bang) ? slash : bang;
    return b ? b + 1 : path;
}

char *smc_sanitize(char *s)
{
    /* Names come from files made by others: a newline or an escape sequence in one must not
     * break a one-line message or reach the terminal. C0 controls and DEL become '?', C1
     * controls (U+0080..U+009F) "??"; bytes that are not UTF-8 stay, for the printers to escape. */
    for (unsigned char *p = (unsigned char *)s; p && *p; p++) {
        if (*p < 0x20 || *p == 0x7f) *p = '?';
        else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) p[0] = p[1] = '?';
    }
    return s;
}

unsigned smc_cpus(void)
{
    static atomic_uint known;
    unsigned n = atomic_load(&known);
    if (!n) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus > 0 && cpus < 65536 ? (unsigned)cpus : 1;
        atomic_store(&known, n);
    }
    return n;
}

char *smc_strdup_clean(const char *s)
{
    return smc_sanitize(smc_strdup(s));
}

char *smc_vasprintf(const char *fmt, va_list ap)
{
    /* One pass into a growing buffer: measuring first with vsnprintf(NULL, 0) copies through a
     * 64-byte buffer, and a member's name under a path of 4 KB, made 500,000 times, took most
     * of a wheel's time. */
    char *s;
    return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

void smc_say(char *why, size_t n, const char *fmt, ...)
{
    if (!why || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

bool smc_say_at(char *why, size_t n, const char *path, unsigned line, const char *fmt, ...)
{
    int k = line ? snprintf(why, n, "%s:%u: ", path, line) : snprintf(why, n, "%s: ", path);
    if (k < 0 || (size_t)k >= n) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + k, n - (size_t)k, fmt, ap);
    va_end(ap);
    return false;
}

char *smc_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = smc_vasprintf(fmt, ap);
    va_end(ap);
    return s;
}

smc_status smc_library_add_finding(smc_library *lib, uint64_t offset, const char *fmt, ...)
{
    if (lib->finding_count >= SMC_FINDINGS_KEPT) {
        lib->findings_more++;
        return SMC_OK;
    }
    smc_finding *f = smc_push(&lib->findings, lib->finding_count, sizeof *f);
    if (!f) return SMC_ERR_NOMEM;
    va_list ap;
    va_start(ap, fmt);
    f->message = smc_cut(smc_redact(smc_sanitize(smc_vasprintf(fmt, ap))), MESSAGE_MAX);
    va_end(ap);
    if (!f->message) return SMC_ERR_NOMEM;
    f->offset = offset;
    lib->finding_count++;
    return SMC_OK;
}

smc_status smc_input_add_error(smc_input *in, const char *path, const char *fmt, ...)
{
    if (in->error_count >= SMC_ERRORS_KEPT) {
        in->errors_more++;
        return SMC_OK;
    }
    smc_error *e = smc_push(&in->errors, in->error_count, sizeof *e);
    if (!e) return SMC_ERR_NOMEM;
    va_list ap;
    va_start(ap, fmt);
    e->message = smc_cut(smc_redact(smc_sanitize(smc_vasprintf(fmt, ap))), MESSAGE_MAX);
    va_end(ap);
    e->path = smc_cut(smc_redact(smc_strdup_clean(path)), MESSAGE_MAX);
    if (!e->message || !e->path) {
        free(e->message);
        free(e->path);
        return SMC_ERR_NOMEM;
    }
    /* Two readers of one fact may both say it: once is enough (the last few are compared). */
    for (size_t i = in->error_count, k = 0; i-- > 0 && k < 16; k++)
        if (strcmp(in->errors[i].message, e->message) == 0 && strcmp(in->errors[i].path, e->path) == 0) {
            free(e->message);
            free(e->path);
            return SMC_OK;
        }
    in->error_count++;
    return SMC_OK;
}

char *smc_cut(char *s, size_t max)
{
    size_t len = s ? strlen(s) : 0;
    if (len <= max) return s;
    size_t keep = max;
    while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
        keep--;
    char *cut = smc_asprintf("%.*s... (%zu more bytes)", (int)keep, s, len - keep);
    free(s);
    return cut;
}

char *smc_read_fd_small(int fd, size_t cap, size_t *len, int *err)
{
    struct stat sb;
    bool stat_ok = fstat(fd, &sb) == 0;
    *err = stat_ok ? 0 : errno;
    if (!stat_ok || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > cap) {
        if (stat_ok) *err = EFBIG;
        return NULL;
    }
    char *buf = malloc((size_t)sb.st_size + 1);
    ssize_t got = buf ? read(fd, buf, (size_t)sb.st_size) : -1;
    if (got < 0) {
        *err = buf ? errno : ENOMEM;
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    *len = (size_t)got;
    return buf;
}

int smc_read_small_file(const char *path, size_t max, char **text, size_t *n, char *err,
                        size_t errlen)
{
    *text = NULL;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        snprintf(err, errlen, "%s", path ? strerror(errno) : "no path");
        return 0;
    }
    /* Read into a buffer that grows as the text does (a pipe has no size to ask for), up to one
     * byte past the limit: that tells a file at the limit from a longer one. */
    char *buf = NULL;
    size_t got = 0, cap = 0;
    int bad = 0, saved = 0;
    while (got <= max && !feof(f) && !bad) {
        if (got == cap) {
            size_t grown = cap ? 2 * cap : 64u << 10;
            if (grown > max + 1) grown = max + 1;
            char *p = realloc(buf, grown + 1);
            if (!p) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = p;
            cap = grown;
        }
        got += fread(buf + got, 1, cap - got, f);
        bad = ferror(f);
        saved = errno;
    }
    fclose(f);
    if (bad || got > max) {
        free(buf);
        if (bad)
            snprintf(err, errlen, "%s", strerror(saved));
        else
            snprintf(err, errlen, "larger than %zu bytes: not a table", max);
        return 0;
    }
    char *fit = realloc(buf, got + 1); /* the doubling's spare room back (64 MiB for 40) */
    if (fit) buf = fit;
    buf[got] = '\0';
    *text = buf;
    *n = got;
    return 1;
}

smc_library *smc_library_new(const char *path)
{
    smc_library *lib = calloc(1, sizeof *lib);
    if (lib && !(lib->path = smc_strdup_clean(path))) {
        free(lib);
        return NULL;
    }
    if (lib) lib->distribution = SMC_NONE;
    return lib;
}

// cppcheck-suppress constParameterPointer ; the strings d holds are changed, in place
void smc_distribution_sanitize(smc_distribution *d)
{
    /* A name or a tag list of megabytes is cut (with a count), not printed whole; the location
     * is a path, kept whole. Only out of memory can make a cut NULL: the field is then absent. */
    smc_sanitize(d->location);
    char **fields[] = {&d->name,     &d->version, &d->local_version, &d->source,     &d->tag,
                       &d->platform, &d->cuda,    &d->cuda_source,   &d->cpu_build};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = smc_cut(smc_sanitize(*fields[i]), MESSAGE_MAX);
}

void smc_distribution_clear(smc_distribution *d)
{
    free(d->name);
    free(d->version);
    free(d->local_version);
    free(d->source);
    free(d->location);
    free(d->tag);
    free(d->platform);
    free(d->cuda);
    free(d->cuda_source);
    free(d->cpu_build);
    free(d->shadowed_by);
    free(d->shadow_evidence);
    free(d->libraries);
    free(d->variant_label);
    for (size_t i = 0; i < d->variant_claim_count; i++)
        free(d->variant_claims[i]);
    free(d->variant_claims);
    *d = (smc_distribution){0};
}

static void words_free(smc_words *w, size_t n)
{
    for (size_t i = 0; w && i < n; i++) {
        free(w[i].reason);
        free(w[i].warning);
        free(w[i].failing_tokens);
        free(w[i].next);
    }
    free(w);
}

void smc_derived_free(smc_input_derived *d, smc_input *const *inputs, size_t n)
{
    for (size_t i = 0; d && i < n; i++) {
        for (size_t l = 0; d[i].libraries && l < inputs[i]->library_count; l++) {
            smc_summary_free(&d[i].libraries[l].summary);
            free(d[i].libraries[l].serving);
            words_free(d[i].libraries[l].words, d[i].libraries[l].word_count);
        }
        for (size_t k = 0; d[i].distributions && k < inputs[i]->distribution_count; k++) {
            smc_distribution_derived *dd = &d[i].distributions[k];
            free(dd->serving);
            for (size_t u = 0; u < dd->unbacked_count; u++)
                free(dd->unbacked[u]);
            free(dd->unbacked);
            words_free(dd->words, dd->word_count);
        }
        words_free(d[i].words, d[i].word_count);
        free(d[i].libraries);
        free(d[i].distributions);
    }
    free(d);
}

void smc_judgements_free(smc_judgement *j, size_t n)
{
    for (size_t i = 0; j && i < n; i++) {
        free(j[i].failing);
        free(j[i].support);
    }
    free(j);
}

smc_status smc_input_add_note(smc_input *in, const char *fmt, ...)
{
    if (in->note_count >= SMC_ERRORS_KEPT) {
        in->notes_more++;
        return SMC_OK;
    }
    char **slot = smc_push(&in->notes, in->note_count, sizeof *slot);
    if (!slot) return SMC_ERR_NOMEM;
    va_list ap;
    va_start(ap, fmt);
    *slot = smc_cut(smc_redact(smc_sanitize(smc_vasprintf(fmt, ap))), MESSAGE_MAX);
    va_end(ap);
    if (!*slot) return SMC_ERR_NOMEM;
    in->note_count++;
    return SMC_OK;
}

static void library_clear(smc_library *lib)
{
    for (size_t i = 0; i < lib->container_count; i++) {
        free(lib->containers[i].section);
        free(lib->containers[i].member);
        free(lib->containers[i].kernel_names);
    }
    for (size_t i = 0; i < lib->finding_count; i++)
        free(lib->findings[i].message);
    free(lib->containers);
    free(lib->images);
    free(lib->findings);
    for (size_t i = 0; i < lib->link_count; i++)
        free(lib->links[i]);
    free(lib->links);
    for (size_t i = 0; i < lib->needed_count; i++)
        free(lib->needed[i]);
    free(lib->needed);
    free(lib->path);
    free(lib->layer);
}

const char *smc_cudart_name(char *buf, size_t n, const smc_library *lib)
{
    unsigned major = lib->cudart_major, minor = lib->cudart_minor;
    if (!major)
        snprintf(buf, n, "%s", "");
    else if (lib->windows && major <= 11) /* cudart64_101.dll, cudart64_110.dll */
        snprintf(buf, n, "cudart64_%u%u.dll", major, minor);
    else if (lib->windows)
        snprintf(buf, n, "cudart64_%u.dll", major);
    else if (major <= 10 && minor)
        snprintf(buf, n, "libcudart.so.%u.%u", major, minor);
    else
        snprintf(buf, n, "libcudart.so.%u", major);
    return buf;
}

/* Where a library loads, by its header: an ELF file's machine, a DLL's; "" for a raw fat binary
 * or cubin, which any machine's process loads. */
const char *smc_library_platform(const smc_library *lib)
{
    if (lib->windows) /* a DLL whose header could not be read is taken as the usual one */
        return lib->machine == 62 || !lib->machine ? "windows-amd64"
               : lib->machine == 183               ? "windows-arm64"
                                                   : "windows (another machine)";
    switch (lib->machine) {
    case 0:
        return "";
    case 62:
        return "linux-x86_64";
    case 183:
        return "linux-aarch64";
    case 3:
        return "linux-i686";
    case 40:
        return "linux-armv7l";
    case 21:
        return "linux-ppc64le";
    default:
        return "linux (another machine)";
    }
}

smc_status smc_library_copy(smc_library *dst, const smc_library *src, const char *path)
{
    *dst = (smc_library){.cudart_major = src->cudart_major,
                         .cudart_minor = src->cudart_minor,
                         .windows = src->windows,
                         .links_torch = src->links_torch,
                         .machine = src->machine,
                         .release = src->release,
                         .file_size = src->file_size,
                         .findings_more = src->findings_more,
                         .distribution = SMC_NONE};
    bool ok = (dst->path = smc_strdup_clean(path)) != NULL &&
              (!src->layer || (dst->layer = smc_strdup(src->layer)) != NULL);
    if (ok && src->container_count) {
        ok = (dst->containers = calloc(src->container_count, sizeof *dst->containers)) != NULL;
        for (size_t i = 0; ok && i < src->container_count; i++) {
            const smc_container *c = &src->containers[i];
            smc_container *d = &dst->containers[i];
            *d = *c;
            d->section = d->member = d->kernel_names = NULL;
            dst->container_count++;
            ok = (!c->section || (d->section = smc_strdup(c->section))) &&
                 (!c->member || (d->member = smc_strdup(c->member))) &&
                 (!c->kernel_names || (d->kernel_names = smc_strdup(c->kernel_names)));
        }
    }
    if (ok && src->image_count) {
        ok = (dst->images = malloc(src->image_count * sizeof *dst->images)) != NULL;
        if (ok) {
            memcpy(dst->images, src->images, src->image_count * sizeof *dst->images);
            dst->image_count = src->image_count;
        }
    }
    if (ok && src->needed_count) {
        ok = (dst->needed = calloc(src->needed_count, sizeof *dst->needed)) != NULL;
        for (size_t i = 0; ok && i < src->needed_count; i++, dst->needed_count++)
            ok = (dst->needed[i] = smc_strdup(src->needed[i])) != NULL;
    }
    if (ok && src->finding_count) {
        ok = (dst->findings = calloc(src->finding_count, sizeof *dst->findings)) != NULL;
        for (size_t i = 0; ok && i < src->finding_count; i++) {
            dst->findings[i].offset = src->findings[i].offset;
            ok = (dst->findings[i].message = smc_strdup(src->findings[i].message)) != NULL;
            dst->finding_count++;
        }
    }
    if (ok) return SMC_OK;
    library_clear(dst);
    *dst = (smc_library){0};
    return SMC_ERR_NOMEM;
}

void smc_library_free(smc_library *lib)
{
    if (!lib) return;
    library_clear(lib);
    free(lib);
}

smc_status smc_input_take_library(smc_input *in, smc_library *lib)
{
    if (lib->container_count == 0 && lib->finding_count == 0) {
        smc_library_free(lib);
        return SMC_OK;
    }
    smc_library *slot = smc_push(&in->libraries, in->library_count, sizeof *slot);
    if (!slot) {
        smc_library_free(lib);
        return SMC_ERR_NOMEM;
    }
    *slot = *lib;
    free(lib);
    in->library_count++;
    return SMC_OK;
}

smc_limits smc_limits_of(const smc_options *opt)
{
    smc_limits l = opt ? opt->limits : (smc_limits){0};
    if (!l.max_member_bytes) l.max_member_bytes = 16ull << 30;
    if (!l.max_input_bytes) l.max_input_bytes = 256ull << 30;
    if (!l.max_containers) l.max_containers = 200000;
    if (!l.max_images) l.max_images = 1000000;
    if (!l.max_members) l.max_members = 1000000;
    if (!l.max_depth) l.max_depth = 256;
    if (!l.max_path) l.max_path = 4096;
    if (!l.max_files) l.max_files = 10000000;
    return l;
}

void smc_compilers_free(smc_compiler *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].path);
        free(c[i].cuda_source);
    }
    free(c);
}

smc_status smc_input_add_runtime(smc_input *in, const char *path, smc_runtime_kind kind, int cuda)
{
    smc_runtime_file *slot = smc_push(&in->runtime, in->runtime_count, sizeof *slot);
    if (!slot) return SMC_ERR_NOMEM;
    *slot = (smc_runtime_file){.path = smc_strdup_clean(path), .kind = kind, .cuda = cuda,
                               .distribution = SMC_NONE};
    if (!slot->path) return SMC_ERR_NOMEM;
    in->runtime_count++;
    return SMC_OK;
}

smc_input *smc_input_new(const char *path, smc_input_kind kind)
{
    smc_input *in = calloc(1, sizeof *in);
    if (in && !(in->path = smc_strdup_clean(path))) {
        free(in);
        return NULL;
    }
    if (in) in->kind = kind;
    return in;
}

void smc_input_free(smc_input *in)
{
    if (!in) return;
    for (size_t i = 0; i < in->library_count; i++)
        library_clear(&in->libraries[i]);
    for (size_t i = 0; i < in->error_count; i++) {
        free(in->errors[i].path);
        free(in->errors[i].message);
    }
    for (size_t i = 0; i < in->distribution_count; i++)
        smc_distribution_clear(&in->distributions[i]);
    for (size_t i = 0; i < in->note_count; i++)
        free(in->notes[i]);
    for (size_t i = 0; i < in->runtime_count; i++)
        free(in->runtime[i].path);
    free(in->runtime);
    free(in->distributions);
    free(in->notes);
    free(in->libraries);
    free(in->errors);
    free(in->require_cuda);
    free(in->path);
    free(in);
}

const char *smc_status_str(smc_status st)
{
    switch (st) {
    case SMC_OK:
        return "ok";
    case SMC_ERR_IO:
        return "cannot read";
    case SMC_ERR_FORMAT:
        return "malformed";
    case SMC_ERR_NOMEM:
        return "out of memory";
    case SMC_ERR_LIMIT:
        return "limit reached";
    case SMC_ERR_ARG:
        return "invalid argument";
    }
    return "unknown status";
}

const char *smc_image_kind_str(smc_image_kind kind)
{
    switch (kind) {
    case SMC_IMAGE_PTX:
        return "ptx";
    case SMC_IMAGE_CUBIN:
        return "cubin";
    case SMC_IMAGE_LTO:
        return "lto-ir";
    case SMC_IMAGE_TILEIR:
        return "tile-ir";
    }
    return "other"; /* a kind smcheck does not know: its token says its number */
}

const char *smc_compression_str(smc_compression c)
{
    switch (c) {
    case SMC_COMPRESS_NONE:
        return "none";
    case SMC_COMPRESS_LZ4:
        return "lz4";
    case SMC_COMPRESS_ZSTD:
        return "zstd";
    }
    return "unknown";
}

bool smc_distribution_installed(const smc_distribution *d)
{
    return d->source && (strcmp(d->source, "dist-info") == 0 ||
                         strcmp(d->source, "egg-info") == 0 || strcmp(d->source, "conda") == 0 ||
                         strcmp(d->source, "lock") == 0);
}

const char *smc_input_kind_str(smc_input_kind kind)
{
    switch (kind) {
    case SMC_INPUT_FILE:
        return "file";
    case SMC_INPUT_DIRECTORY:
        return "directory";
    case SMC_INPUT_WHEEL:
        return "wheel";
    case SMC_INPUT_ENVIRONMENT:
        return "environment";
    case SMC_INPUT_IMAGE:
        return "image";
    }
    return "unknown";
}

const char *smc_image_token(const smc_image *img, char buf[SMC_TOKEN_MAX])
{
    const char *prefix = img->kind == SMC_IMAGE_PTX      ? "compute_"
                         : img->kind == SMC_IMAGE_CUBIN  ? "sm_"
                         : img->kind == SMC_IMAGE_LTO    ? "lto_"
                         : img->kind == SMC_IMAGE_TILEIR ? "tileir_"
                                                         : NULL;
    const char *suffix = img->variant == SMC_VARIANT_A   ? "a"
                         : img->variant == SMC_VARIANT_F ? "f"
                                                         : "";
    if (prefix)
        snprintf(buf, SMC_TOKEN_MAX, "%s%u%s", prefix, img->arch, suffix);
    else
        snprintf(buf, SMC_TOKEN_MAX, "kind%u_%u%s", (unsigned)img->kind & 0xffff, img->arch,
                 suffix);
    return buf;
}

smc_status smc_library_absorb(smc_library *dst, smc_library *src, uint64_t base,
                              const char *member)
{
    size_t first = dst->image_count;
    for (size_t i = 0; i < src->image_count; i++) {
        smc_image *img = smc_push(&dst->images, dst->image_count, sizeof *img);
        if (!img) return SMC_ERR_NOMEM;
        *img = src->images[i];
        img->offset += base;
        dst->image_count++;
    }
    for (size_t i = 0; i < src->container_count; i++) {
        smc_container *c = smc_push(&dst->containers, dst->container_count, sizeof *c);
        if (!c) return SMC_ERR_NOMEM;
        *c = src->containers[i];
        c->offset += base;
        c->first_image += first;
        src->containers[i].section = src->containers[i].kernel_names = NULL; /* moved */
        dst->container_count++;
        if (member && !c->member && !(c->member = smc_strdup(member))) return SMC_ERR_NOMEM;
    }
    for (size_t i = 0; i < src->finding_count; i++) {
        const smc_finding *f = &src->findings[i];
        if (smc_library_add_finding(dst, f->offset == SMC_NO_OFFSET ? f->offset : f->offset + base,
                                    "%s: %s", member ? member : src->path, f->message) != SMC_OK)
            return SMC_ERR_NOMEM;
    }
    dst->findings_more += src->findings_more;
    if (src->cudart_major * 100 + src->cudart_minor > dst->cudart_major * 100 + dst->cudart_minor) {
        dst->cudart_major = src->cudart_major;
        dst->cudart_minor = src->cudart_minor;
    }
    dst->windows |= src->windows;
    dst->links_torch |= src->links_torch;
    if (src->release > dst->release) dst->release = src->release;
    if (!dst->machine) dst->machine = src->machine;
    return SMC_OK;
}

/* The names of the model's codes, as the reports and the JSON write them. */

const char *smc_compiler_kind_str(smc_compiler_kind k)
{
    return k == SMC_COMPILER_TRITON  ? "triton-ptxas"
           : k == SMC_COMPILER_NVRTC ? "nvrtc"
           : k == SMC_COMPILER_XLA   ? "xla-ptxas"
           : k == SMC_COMPILER_NVVM  ? "numba-nvvm"
                                     : "unknown";
}

const char *smc_verdict_str(smc_verdict v)
{
    static const char *const names[SMC_VERDICT_COUNT] = {
        "native", "compatible", "jit", "jit-blocked", "none", "gated", "no-kernels", "relocatable",
        "other-gpus",
    };
    return (unsigned)v < SMC_VERDICT_COUNT ? names[v] : "unknown";
}

const char *smc_role_str(smc_role r)
{
    static const char *const names[] = {"main", "vendored", "alternative", "on-demand", "store"};
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "unknown";
}

const char *smc_cause_str(smc_cause c)
{
    static const char *const names[SMC_CAUSE_COUNT] = {
        "loads",       "nothing-to-judge", "ptx-jit",       "arch",      "tegra",
        "cubin-abi",   "ptx-isa",          "built-newer",   "main-arch", "few",
        "gated",       "driver-gpu",       "runtime-newer", "platform",  "needs",
        "unsupported", "tile-ir-driver",
    };
    return (unsigned)c < SMC_CAUSE_COUNT ? names[c] : "unknown";
}

const char *smc_lib_status_str(smc_lib_status s)
{
    switch (s) {
    case SMC_STATUS_OK:
        return "ok";
    case SMC_STATUS_JIT:
        return "jit";
    case SMC_STATUS_PARTIAL:
        return "partial";
    case SMC_STATUS_GATED:
        return "gated";
    case SMC_STATUS_NONE:
        return "none";
    case SMC_STATUS_CPU_ONLY:
        return "cpu-only";
    case SMC_STATUS_COMPILER:
        return "compiler";
    case SMC_STATUS_NO_CODE:
        return "no-device-code";
    }
    return "unknown";
}

void smc_summary_free(smc_summary *sum)
{
    for (size_t i = 0; i < sum->set_count; i++)
        free(sum->sets[i].tokens);
    free(sum->tokens);
    free(sum->sets);
    *sum = (smc_summary){0};
}
