/* test_cache.c: the cache of facts (src/lib/acquire/cache.c). Each file named is read as smc_scan_path
 * reads it (inspect on), encoded, decoded and compared field by field with what was read, encoded
 * again to the same text, decoded under another prefix (a URL) and compared again, and both judged
 * against several GPUs and drivers into byte-identical detailed JSON reports. A model built here
 * covers what the fixtures lack (big integers, the prefix inside messages, links, layers, runtime
 * files). Then damaged and hostile records, each refused with a reason; then the directory: load,
 * store, trimming by age, merging; then choices (a pin's wheel): their key, records and merging.
 * Usage: test_cache [--seeds DIR] FILE...   (--seeds: write each file's record as a seed of
 * tests/fuzz/fuzz_cache.c, keyed by FUZZ_KEY, and stop). Prints "N passed, M failed". */
#include "../src/lib/acquire/acquire.h"
#include "../src/lib/base/base.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "judged.h"

#define KEY_A "0000000000000000000000000000000000000000000000000000000000000000"
#define KEY_B "bb00000000000000000000000000000000000000000000000000000000000000"
#define KEY_C "cc00000000000000000000000000000000000000000000000000000000000000"
#define KEY_D "dd00000000000000000000000000000000000000000000000000000000000000"
#define FUZZ_KEY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Field by field ------------------------------------------------------------------------------ */

typedef struct cmp {
    const char *pa, *pb; /* a's paths and messages hold pa where b's hold pb */
    char first[600];     /* the first difference */
    bool same;
} cmp;

/* s with every occurrence of from (leftmost first, not overlapping) replaced by to. */
static char *swap(const char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), k = 0;
    for (const char *p = fl ? strstr(s, from) : NULL; p; p = strstr(p + fl, from))
        k++;
    char *out = malloc(strlen(s) + k * tl + 1), *o = out;
    if (!out) return NULL;
    for (const char *p; fl && (p = strstr(s, from)); s = p + fl) {
        memcpy(o, s, (size_t)(p - s));
        o += p - s;
        memcpy(o, to, tl);
        o += tl;
    }
    strcpy(o, s);
    return out;
}

static void differ(cmp *c, const char *what, size_t i, const char *detail)
{
    if (!c->same) return;
    c->same = false;
    snprintf(c->first, sizeof c->first, "%s[%zu]: %s", what, i, detail);
}

static void str_eq(cmp *c, const char *a, const char *b, bool text, const char *what, size_t i)
{
    if (!a || !b) {
        if (a != b) differ(c, what, i, a ? "null on one side" : "null on the other side");
        return;
    }
    char *t = text ? swap(a, c->pa, c->pb) : NULL;
    if (strcmp(t ? t : a, b) != 0) {
        char d[500];
        snprintf(d, sizeof d, "'%.200s' vs '%.200s'", t ? t : a, b);
        differ(c, what, i, d);
    }
    free(t);
}

static void num_eq(cmp *c, uint64_t a, uint64_t b, const char *what, size_t i)
{
    if (a == b) return;
    char d[80];
    snprintf(d, sizeof d, "%llu vs %llu", (unsigned long long)a, (unsigned long long)b);
    differ(c, what, i, d);
}

static void strings_eq(cmp *c, char *const *a, size_t na, char *const *b, size_t nb, bool text,
                       const char *what)
{
    num_eq(c, na, nb, what, 0);
    for (size_t i = 0; i < na && i < nb; i++)
        str_eq(c, a[i], b[i], text, what, i);
}

static void library_eq(cmp *c, const smc_library *a, const smc_library *b, size_t l)
{
    str_eq(c, a->path, b->path, true, "library.path", l);
    num_eq(c, a->container_count, b->container_count, "library.container_count", l);
    num_eq(c, a->image_count, b->image_count, "library.image_count", l);
    num_eq(c, a->finding_count, b->finding_count, "library.finding_count", l);
    num_eq(c, a->findings_more, b->findings_more, "library.findings_more", l);
    num_eq(c, a->cudart_major, b->cudart_major, "library.cudart_major", l);
    num_eq(c, a->cudart_minor, b->cudart_minor, "library.cudart_minor", l);
    num_eq(c, a->windows, b->windows, "library.windows", l);
    num_eq(c, a->links_torch, b->links_torch, "library.links_torch", l);
    num_eq(c, a->machine, b->machine, "library.machine", l);
    num_eq(c, a->release, b->release, "library.release", l);
    num_eq(c, a->file_size, b->file_size, "library.file_size", l);
    num_eq(c, a->distribution, b->distribution, "library.distribution", l);
    str_eq(c, a->layer, b->layer, false, "library.layer", l);
    strings_eq(c, a->needed, a->needed_count, b->needed, b->needed_count, false, "library.needed");
    strings_eq(c, a->links, a->link_count, b->links, b->link_count, true, "library.links");
    for (size_t i = 0; i < a->finding_count && i < b->finding_count; i++) {
        num_eq(c, a->findings[i].offset, b->findings[i].offset, "finding.offset", i);
        str_eq(c, a->findings[i].message, b->findings[i].message, true, "finding.message", i);
    }
    for (size_t i = 0; i < a->image_count && i < b->image_count; i++)
        if (memcmp(&a->images[i], &b->images[i], sizeof a->images[i]) != 0) {
            const smc_image *x = &a->images[i], *y = &b->images[i];
            num_eq(c, x->kind, y->kind, "image.kind", i);
            num_eq(c, x->variant, y->variant, "image.variant", i);
            num_eq(c, x->compression, y->compression, "image.compression", i);
            num_eq(c, x->arch, y->arch, "image.arch", i);
            num_eq(c, x->version_major, y->version_major, "image.version_major", i);
            num_eq(c, x->version_minor, y->version_minor, "image.version_minor", i);
            num_eq(c, x->offset, y->offset, "image.offset", i);
            num_eq(c, x->header_size, y->header_size, "image.header_size", i);
            num_eq(c, x->stored_size, y->stored_size, "image.stored_size", i);
            num_eq(c, x->size, y->size, "image.size", i);
            num_eq(c, x->flags, y->flags, "image.flags", i);
            num_eq(c, x->release, y->release, "image.release", i);
            num_eq(c, x->text_arch, y->text_arch, "image.text_arch", i);
            num_eq(c, x->text_variant, y->text_variant, "image.text_variant", i);
            num_eq(c, x->text_isa, y->text_isa, "image.text_isa", i);
            differ(c, "image (padding?)", i, "bytes differ");
        }
    for (size_t i = 0; i < a->container_count && i < b->container_count; i++) {
        const smc_container *x = &a->containers[i], *y = &b->containers[i];
        num_eq(c, x->offset, y->offset, "container.offset", i);
        num_eq(c, x->size, y->size, "container.size", i);
        str_eq(c, x->section, y->section, false, "container.section", i);
        str_eq(c, x->member, y->member, false, "container.member", i);
        num_eq(c, x->relocatable, y->relocatable, "container.relocatable", i);
        num_eq(c, x->bare_cubin, y->bare_cubin, "container.bare_cubin", i);
        num_eq(c, x->first_image, y->first_image, "container.first_image", i);
        num_eq(c, x->image_count, y->image_count, "container.image_count", i);
        num_eq(c, (uint64_t)(x->kernels + 1), (uint64_t)(y->kernels + 1), "container.kernels", i);
        str_eq(c, x->kernel_names, y->kernel_names, false, "container.kernel_names", i);
    }
}

static void distribution_eq(cmp *c, const smc_distribution *a, const smc_distribution *b, size_t k)
{
    const char *const names[] = {"name",
                                 "version",
                                 "local_version",
                                 "source",
                                 "tag",
                                 "platform",
                                 "cuda",
                                 "cuda_source",
                                 "cpu_build",
                                 "shadowed_by",
                                 "shadow_evidence",
                                 "variant_label"};
    const char *const va[] = {a->name,
                              a->version,
                              a->local_version,
                              a->source,
                              a->tag,
                              a->platform,
                              a->cuda,
                              a->cuda_source,
                              a->cpu_build,
                              a->shadowed_by,
                              a->shadow_evidence,
                              a->variant_label};
    const char *const vb[] = {b->name,
                              b->version,
                              b->local_version,
                              b->source,
                              b->tag,
                              b->platform,
                              b->cuda,
                              b->cuda_source,
                              b->cpu_build,
                              b->shadowed_by,
                              b->shadow_evidence,
                              b->variant_label};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        str_eq(c, va[i], vb[i], false, names[i], k);
    str_eq(c, a->location, b->location, true, "distribution.location", k);
    strings_eq(c, a->variant_claims, a->variant_claim_count, b->variant_claims,
               b->variant_claim_count, false, "distribution.variant_claims");
    num_eq(c, a->library_count, b->library_count, "distribution.library_count", k);
    for (size_t i = 0; i < a->library_count && i < b->library_count; i++)
        num_eq(c, a->libraries[i], b->libraries[i], "distribution.libraries", i);
}

/* Whether decoded b holds the facts of a, a's prefix pa read as b's pb. */
static bool input_eq(const smc_input *a, const smc_input *b, const char *pa, const char *pb,
                     char *why, size_t n)
{
    cmp c = {.pa = pa, .pb = pb, .same = true};
    num_eq(&c, a->kind, b->kind, "kind", 0);
    num_eq(&c, a->files, b->files, "files", 0);
    num_eq(&c, a->inspected, b->inspected, "inspected", 0);
    num_eq(&c, a->root, b->root, "root", 0);
    num_eq(&c, a->errors_more, b->errors_more, "errors_more", 0);
    num_eq(&c, a->notes_more, b->notes_more, "notes_more", 0);
    num_eq(&c, (uint64_t)a->compat_cuda, (uint64_t)b->compat_cuda, "compat_cuda", 0);
    num_eq(&c, (uint64_t)a->require_cuda_version, (uint64_t)b->require_cuda_version,
           "require_cuda_version", 0);
    str_eq(&c, a->require_cuda, b->require_cuda, false, "require_cuda", 0);
    num_eq(&c, a->error_count, b->error_count, "error_count", 0);
    for (size_t i = 0; i < a->error_count && i < b->error_count; i++) {
        str_eq(&c, a->errors[i].path, b->errors[i].path, true, "error.path", i);
        str_eq(&c, a->errors[i].message, b->errors[i].message, true, "error.message", i);
    }
    strings_eq(&c, a->notes, a->note_count, b->notes, b->note_count, true, "notes");
    num_eq(&c, a->distribution_count, b->distribution_count, "distribution_count", 0);
    for (size_t i = 0; i < a->distribution_count && i < b->distribution_count; i++)
        distribution_eq(&c, &a->distributions[i], &b->distributions[i], i);
    num_eq(&c, a->library_count, b->library_count, "library_count", 0);
    for (size_t i = 0; i < a->library_count && i < b->library_count; i++)
        library_eq(&c, &a->libraries[i], &b->libraries[i], i);
    num_eq(&c, a->runtime_count, b->runtime_count, "runtime_count", 0);
    for (size_t i = 0; i < a->runtime_count && i < b->runtime_count; i++) {
        str_eq(&c, a->runtime[i].path, b->runtime[i].path, true, "runtime.path", i);
        num_eq(&c, a->runtime[i].kind, b->runtime[i].kind, "runtime.kind", i);
        num_eq(&c, (uint64_t)a->runtime[i].cuda, (uint64_t)b->runtime[i].cuda, "runtime.cuda", i);
        num_eq(&c, a->runtime[i].distribution, b->runtime[i].distribution, "runtime.distribution",
               i);
    }
    snprintf(why, n, "%s", c.first);
    return c.same;
}

/* Judged the same ---------------------------------------------------------------------------- */

static const smc_target targets[] = {
    {.cc_major = 6, .cc_minor = 1},  {.cc_major = 7, .cc_minor = 5},
    {.cc_major = 8, .cc_minor = 0},  {.cc_major = 8, .cc_minor = 7},
    {.cc_major = 9, .cc_minor = 0},  {.cc_major = 10, .cc_minor = 0},
    {.cc_major = 12, .cc_minor = 0},
};
#define NTARGETS (sizeof targets / sizeof targets[0])

/* a and b judged alike for every driver: the same reports, byte for byte. */
static bool judged_alike(smc_input *a, smc_input *b, char *why, size_t n)
{
    static const int drivers[] = {0, 11080, 12080, 13000};
    bool ok = true;
    for (size_t d = 0; ok && d < sizeof drivers / sizeof drivers[0]; d++) {
        char *x = judged_report(a, targets, NTARGETS, drivers[d]);
        char *y = judged_report(b, targets, NTARGETS, drivers[d]);
        ok = x && y && strcmp(x, y) == 0;
        if (!x || !y)
            snprintf(why, n, "a report failed");
        else if (!ok)
            first_difference(x, y, why, n);
        free(x);
        free(y);
    }
    return ok;
}

/* One input through the cache: encode, decode, compare, encode again, another prefix, judge. */
static void round_trip(smc_input *in, const char *prefix, const char *label)
{
    char why[1024] = "", detail[1100] = "";
    char *text = smc_cache_encode(in, prefix, KEY_A, why, sizeof why);
    bool ok = text != NULL;
    if (!ok) snprintf(detail, sizeof detail, "encode: %s", why);
    smc_input *back =
        ok ? smc_cache_decode(text, strlen(text), in->path, prefix, KEY_A, why, sizeof why) : NULL;
    if (ok && !back) snprintf(detail, sizeof detail, "decode: %s", why), ok = false;
    if (ok && !input_eq(in, back, prefix, prefix, why, sizeof why))
        snprintf(detail, sizeof detail, "differs: %s", why), ok = false;
    /* What was decoded encodes to the same text. */
    char *again = ok ? smc_cache_encode(back, prefix, KEY_A, why, sizeof why) : NULL;
    if (ok && (!again || strcmp(again, text) != 0))
        snprintf(detail, sizeof detail, "encoded again: %s", again ? "another text" : why),
            ok = false;
    /* The same bytes reached through a URL. */
    const char *url = "https://files.example.org/packages/ab/cd/some-1.0-py3-none-any.whl";
    smc_input *far =
        ok ? smc_cache_decode(text, strlen(text), url, url, KEY_A, why, sizeof why) : NULL;
    if (ok && !far) snprintf(detail, sizeof detail, "decode under a URL: %s", why), ok = false;
    if (ok && !input_eq(in, far, prefix, url, why, sizeof why))
        snprintf(detail, sizeof detail, "under a URL: %s", why), ok = false;
    char *from_far = ok ? smc_cache_encode(far, url, KEY_A, why, sizeof why) : NULL;
    if (ok && (!from_far || strcmp(from_far, text) != 0))
        snprintf(detail, sizeof detail, "under a URL, encoded again: %s",
                 from_far ? "another text" : why),
            ok = false;
    /* Judged, the two say the same; and judging leaves the facts as they were. */
    if (ok && !judged_alike(in, back, why, sizeof why))
        snprintf(detail, sizeof detail, "judged: %s", why), ok = false;
    char *judged = ok ? smc_cache_encode(in, prefix, KEY_A, why, sizeof why) : NULL;
    if (ok && (!judged || strcmp(judged, text) != 0))
        snprintf(detail, sizeof detail, "encoded after judging: %s", judged ? "another text" : why),
            ok = false;
    printf("%s %s (%zu bytes of record)%s%s\n", ok ? "ok    " : "FAILED", label,
           text ? strlen(text) : 0, ok ? "" : ": ", detail);
    CHECK(ok);
    free(text);
    free(again);
    free(from_far);
    free(judged);
    smc_input_free(back);
    smc_input_free(far);
}

static void scanned_round_trip(const char *path)
{
    smc_options opt = {.read.inspect = true, .run.jobs = 1};
    smc_input *in = NULL;
    if (smc_scan_path(path, &opt, &in) != SMC_OK || !in) {
        printf("FAILED %s: cannot scan\n", path);
        CHECK(false);
        return;
    }
    round_trip(in, path, path);
    smc_input_free(in);
}

/* A model built here, with what the fixtures lack. --------------------------------------------- */

#define P "/tmp/x/demo-1.0-py3-none-any.whl"

static smc_input *built(void)
{
    smc_input *in = smc_input_new(P, SMC_INPUT_WHEEL);
    CHECK(in != NULL);
    if (!in) return NULL;
    in->files = 12345678901234ull;
    in->inspected = true;
    in->compat_cuda = 12080;
    in->require_cuda = smc_strdup("cuda>=12.8 brand=tesla,driver>=535");
    in->require_cuda_version = 12080;
    smc_distribution *d = smc_push(&in->distributions, in->distribution_count, sizeof *d);
    *d = (smc_distribution){.name = smc_strdup("demo"),
                            .version = smc_strdup("1.0+cu128"),
                            .local_version = smc_strdup("cu128"),
                            .source = smc_strdup("wheel"),
                            .location = smc_strdup(P),
                            .tag = smc_strdup("py3-none-any"),
                            .platform = smc_strdup("any"),
                            .cuda = smc_strdup("12.8"),
                            .cuda_source = smc_strdup("Requires-Dist: nvidia-cuda-runtime-cu12"),
                            .variant_label = smc_strdup("cu128"),
                            .shadowed_by = smc_strdup("demo-cpu"),
                            .shadow_evidence = smc_strdup("RECORD \"quoted\" \\ backslash")};
    d->variant_claims = calloc(2, sizeof *d->variant_claims);
    d->variant_claims[0] = smc_strdup("nvidia :: sm_arch :: 90_real");
    d->variant_claims[1] = smc_strdup("nvidia :: cuda_version_lower_bound :: 12.8");
    d->variant_claim_count = 2;
    in->distribution_count++;
    d = smc_push(&in->distributions, in->distribution_count, sizeof *d);
    *d = (smc_distribution){.name = smc_strdup("other"), .cpu_build = smc_strdup("version 2+cpu")};
    in->distribution_count++;

    smc_library *lib = smc_library_new(P "!demo/lib/libx.so");
    lib->distribution = 0;
    lib->cudart_major = 12;
    lib->links_torch = true;
    lib->machine = 62;
    lib->release = 12080;
    lib->file_size = (1ull << 60) + 3; /* past 2^53: a string in the record */
    lib->findings_more = 7;
    lib->layer = smc_strdup("blobs/sha256/abcd");
    smc_library_add_finding(lib, 64, "%s: a finding that names the wheel " P " twice: " P, "a.o");
    smc_library_add_finding(lib, SMC_NO_OFFSET, "a finding without an offset, caf\xc3\xa9 \xff");
    lib->needed = calloc(2, sizeof *lib->needed);
    lib->needed[0] = smc_strdup("libcudart.so.12");
    lib->needed[1] = smc_strdup("libcublasLt.so.12");
    lib->needed_count = 2;
    lib->links = calloc(1, sizeof *lib->links);
    lib->links[0] = smc_strdup(P "!demo/lib/libx.so.1");
    lib->link_count = 1;
    for (unsigned i = 0; i < 5; i++) {
        smc_image *img = smc_push(&lib->images, lib->image_count, sizeof *img);
        *img = (smc_image){.kind = i == 4 ? SMC_IMAGE_PTX : SMC_IMAGE_CUBIN,
                           .variant = i == 2   ? SMC_VARIANT_A
                                      : i == 3 ? SMC_VARIANT_F
                                               : SMC_VARIANT_NONE,
                           .compression = (smc_compression)(i % 3),
                           .arch = 75 + 5 * i,
                           .version_major = i == 4 ? 8 : 1,
                           .version_minor = i == 4 ? 7 : 8,
                           .offset = 4096 + 100 * i,
                           .header_size = 64,
                           .stored_size = 1000 + i,
                           .size = 2000 + i,
                           .flags = i == 0 ? UINT64_MAX : 0x2011,
                           .release = i == 4 ? 0 : 12080,
                           .text_arch = i == 4 ? 90 : 0,
                           .text_variant = i == 4 ? SMC_VARIANT_A : SMC_VARIANT_NONE,
                           .text_isa = i == 4 ? 87 : 0};
        lib->image_count++;
    }
    for (unsigned i = 0; i < 3; i++) {
        smc_container *c = smc_push(&lib->containers, lib->container_count, sizeof *c);
        *c = (smc_container){.offset = 4000 + 200 * i,
                             .size = 200,
                             .section = i == 2 ? NULL : smc_strdup(".nv_fatbin"),
                             .member = i == 1 ? smc_strdup("a.o") : NULL,
                             .relocatable = i == 1,
                             .bare_cubin = false,
                             .first_image = i == 2 ? 5 : 2 * i,
                             .image_count = i == 2 ? 0 : 2 + i,
                             .kernels = (int)i - 1,
                             .kernel_names = i == 0 ? smc_strdup("k_add, k_mul (+3 more)") : NULL};
        lib->container_count++;
    }
    smc_input_take_library(in, lib);
    lib = smc_library_new(P "!other" P); /* the prefix again, inside the path */
    lib->distribution = SMC_NONE;
    smc_image *img = smc_push(&lib->images, lib->image_count, sizeof *img);
    *img = (smc_image){.kind = SMC_IMAGE_LTO, .arch = 100, .variant = SMC_VARIANT_A};
    lib->image_count = 1;
    smc_container *c = smc_push(&lib->containers, lib->container_count, sizeof *c);
    *c = (smc_container){.size = 80, .bare_cubin = true, .image_count = 1, .kernels = 1};
    lib->container_count = 1;
    smc_input_take_library(in, lib);
    lib = smc_library_new(P "!other/libtwo.so");
    lib->distribution = 1;
    lib->windows = true;
    lib->cudart_major = 11;
    lib->cudart_minor = 0;
    smc_library_add_finding(lib, 0, "only a finding");
    smc_input_take_library(in, lib);
    in->distributions[0].libraries = calloc(1, sizeof(size_t));
    in->distributions[0].libraries[0] = 0;
    in->distributions[0].library_count = 1;
    in->distributions[1].libraries = calloc(1, sizeof(size_t));
    in->distributions[1].libraries[0] = 2;
    in->distributions[1].library_count = 1;

    smc_input_add_error(in, P "!demo/bad.so", "claims %llu bytes but inflates to %llu", 1ull, 2ull);
    smc_input_add_error(in, P, "RECORD lists demo/missing.so, which the wheel does not hold");
    smc_input_add_note(in, "%s: a linux-x86_64 library in a wheel tagged any",
                       P "!demo/lib/libx.so");
    smc_input_add_note(in, "a note that ends with the prefix " P);
    in->notes_more = 3;
    in->errors_more = 4;
    smc_input_add_runtime(in, P "!demo/lib/libcudart.so.12", SMC_RUNTIME_SHARED, 0);
    smc_input_add_runtime(in, P "!triton/backends/nvidia/bin/ptxas", SMC_RUNTIME_PTXAS, 12080);
    in->runtime[1].distribution = 1;
    return in;
}

static void built_round_trip(void)
{
    smc_input *in = built();
    if (!in) return;
    round_trip(in, P, "(built) a model with what the fixtures lack");
    char why[512];
    /* The record says what it holds, readably. */
    char *text = smc_cache_encode(in, P, KEY_A, why, sizeof why);
    CHECK(text && strstr(text, "\"path\":\"!demo/lib/libx.so\""));
    CHECK(text && strstr(text, "\"file_size\":\"1152921504606846979\""));
    CHECK(text &&
          strstr(text, "\"message\":[\"a.o: a finding that names the wheel \",\" twice: \",\"\"]"));
    CHECK(text && strstr(text, "\"location\":\"\""));
    CHECK(text && strstr(text, "\"reader\":\"" SMC_VERSION "\""));
    free(text);
    /* An empty prefix: paths as they are. */
    text = smc_cache_encode(in, "", KEY_A, why, sizeof why);
    smc_input *back =
        text ? smc_cache_decode(text, strlen(text), P, "", KEY_A, why, sizeof why) : NULL;
    CHECK(back && input_eq(in, back, "", "", why, sizeof why));
    smc_input_free(back);
    free(text);
    /* A path not under the prefix is refused, and named. */
    why[0] = '\0';
    text = smc_cache_encode(in, "/elsewhere/demo.whl", KEY_A, why, sizeof why);
    CHECK(!text && strstr(why, "is not under /elsewhere/demo.whl"));
    free(text);
    /* A key that is not a sha256. */
    text = smc_cache_encode(in, P, "ABC", why, sizeof why);
    CHECK(!text && why[0]);
    text =
        smc_cache_encode(in, P, "0000000000000000000000000000000000000000000000000000000000000000x",
                         why, sizeof why);
    CHECK(!text && why[0]);
    /* A control character, as no reader leaves one. */
    char *name = in->distributions[0].name;
    in->distributions[0].name = smc_strdup("de\x1bmo");
    text = smc_cache_encode(in, P, KEY_A, why, sizeof why);
    CHECK(!text && strstr(why, "control character"));
    free(in->distributions[0].name);
    in->distributions[0].name = name;
    smc_input_free(in);
}

/* Damaged and hostile records ------------------------------------------------------------------ */

/* The node at a dotted path ("input.libraries.0.containers.0.7") and, through parent, its parent.
 */
static cJSON *node_at(cJSON *root, const char *path, cJSON **parent, const char **last)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *node = root;
    *parent = NULL;
    for (char *save = NULL, *part = strtok_r(buf, ".", &save); part && node;
         part = strtok_r(NULL, ".", &save)) {
        *parent = node;
        *last = path + (part - buf);
        node = cJSON_IsArray(node) ? cJSON_GetArrayItem(node, atoi(part))
                                   : cJSON_GetObjectItemCaseSensitive(node, part);
    }
    return node;
}

/* A record as one tree: the document of its first line, each library's "images" and
 * "containers" counts replaced by the arrays of the rows that follow it (NULL: not a record). */
static cJSON *unflatten(const char *text)
{
    const char *at = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &at, false), *lib;
    cJSON *libs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "input"),
                                                   "libraries");
    cJSON_ArrayForEach(lib, libs)
    {
        const char *keys[] = {"images", "containers"};
        for (int k = 0; k < 2; k++) {
            int n = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(lib, keys[k]));
            cJSON *rows = cJSON_CreateArray();
            for (int i = 0; i < n && at && *at; i++)
                cJSON_AddItemToArray(rows, cJSON_ParseWithOpts(at + 1, &at, false));
            cJSON_ReplaceItemInObjectCaseSensitive(lib, keys[k], rows);
        }
    }
    return root;
}

/* The record of a tree that unflatten made (and a test may have changed): the arrays of images
 * and containers back to counts in the document, their rows on the lines after it. */
static char *flatten(cJSON *root)
{
    cJSON *rows = cJSON_CreateArray(), *lib;
    cJSON *libs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "input"),
                                                   "libraries");
    cJSON_ArrayForEach(lib, libs)
    {
        const char *keys[] = {"images", "containers"};
        for (int k = 0; k < 2; k++) {
            cJSON *a = cJSON_GetObjectItemCaseSensitive(lib, keys[k]);
            if (!cJSON_IsArray(a)) continue; /* a test made it something else */
            int n = cJSON_GetArraySize(a);
            while (cJSON_GetArraySize(a))
                cJSON_AddItemToArray(rows, cJSON_DetachItemFromArray(a, 0));
            cJSON_ReplaceItemInObjectCaseSensitive(lib, keys[k], cJSON_CreateNumber(n));
        }
    }
    char *doc = cJSON_PrintUnformatted(root);
    size_t len = strlen(doc) + 2, cap = len + 1;
    char *out = malloc(cap);
    sprintf(out, "%s\n", doc);
    free(doc);
    cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        char *r = cJSON_PrintUnformatted(row);
        size_t k = strlen(r);
        if (len + k + 2 > cap) out = realloc(out, cap = 2 * (len + k + 2));
        sprintf(out + len - 1, "%s\n", r);
        len += k + 1;
        free(r);
    }
    cJSON_Delete(rows);
    return out;
}

/* The record text with the value at path replaced by value (JSON text), or removed (NULL). */
static char *edited(const char *text, const char *path, const char *value)
{
    cJSON *root = unflatten(text), *parent;
    const char *last = NULL;
    cJSON *node = root ? node_at(root, path, &parent, &last) : NULL;
    CHECK(node != NULL);
    if (!node) {
        cJSON_Delete(root);
        return NULL;
    }
    if (cJSON_IsArray(parent)) {
        int i = atoi(last);
        if (value)
            cJSON_ReplaceItemInArray(parent, i, cJSON_Parse(value));
        else
            cJSON_DeleteItemFromArray(parent, i);
    } else {
        if (value)
            cJSON_ReplaceItemInObjectCaseSensitive(parent, node->string, cJSON_Parse(value));
        else
            cJSON_DeleteItemFromObjectCaseSensitive(parent, node->string);
    }
    char *out = flatten(root);
    cJSON_Delete(root);
    return out;
}

/* Decoding text fails, with a reason that holds expect (when given). */
static void refused(const char *text, size_t len, const char *key, const char *expect,
                    const char *label)
{
    char why[512] = "";
    smc_input *in = smc_cache_decode(text, len, P, P, key, why, sizeof why);
    bool ok = !in && why[0] && (!expect || strstr(why, expect));
    if (!ok) printf("FAILED refused %s: %s\n", label, in ? "decoded" : why);
    CHECK(ok);
    smc_input_free(in);
}

static void refused_edit(const char *text, const char *path, const char *value, const char *expect)
{
    char *t = edited(text, path, value);
    char label[300];
    snprintf(label, sizeof label, "%s = %.100s", path, value ? value : "(removed)");
    if (t) refused(t, strlen(t), KEY_A, expect, label);
    free(t);
}

/* An edit that the reader takes: what it changes is still a valid model. */
static void taken_edit(const char *text, const char *path, const char *value)
{
    char *t = edited(text, path, value), why[512] = "";
    smc_input *in = t ? smc_cache_decode(t, strlen(t), P, P, KEY_A, why, sizeof why) : NULL;
    if (!in) printf("FAILED taken %s = %s: %s\n", path, value, why);
    CHECK(in != NULL);
    smc_input_free(in);
    free(t);
}

static char *repeat(const char *unit, size_t times, const char *head, const char *tail)
{
    size_t u = strlen(unit), h = strlen(head), t = strlen(tail);
    char *s = malloc(h + u * times + t + 1);
    memcpy(s, head, h);
    for (size_t i = 0; i < times; i++)
        memcpy(s + h + i * u, unit, u);
    memcpy(s + h + u * times, tail, t + 1);
    return s;
}

static void hostile(void)
{
    smc_input *in = built();
    char why[512];
    char *text = in ? smc_cache_encode(in, P, KEY_A, why, sizeof why) : NULL;
    CHECK(text != NULL);
    smc_input_free(in);
    if (!text) return;
    size_t len = strlen(text);
    int before = failed;

    /* Cut short anywhere (the trailing newline is whitespace: without it the record is whole). */
    size_t wrong = 0;
    for (size_t cut = 0; cut + 1 < len; cut++) {
        smc_input *x = smc_cache_decode(text, cut, P, P, KEY_A, why, sizeof why);
        wrong += x != NULL || !why[0];
        smc_input_free(x);
    }
    CHECK(wrong == 0);
    in = smc_cache_decode(text, len - 1, P, P, KEY_A, why, sizeof why);
    CHECK(in != NULL);
    smc_input_free(in);
    /* One byte changed anywhere: refused, or a valid model (a digit for a digit) that judges. */
    for (size_t at = 0; at < len; at += 7) {
        char *t = smc_strdup(text);
        t[at] = t[at] == '9' ? '0' : t[at] == '"' ? 'x' : (char)(t[at] ^ 0x20);
        smc_input *x = smc_cache_decode(t, len, P, P, KEY_A, why, sizeof why);
        if (x) free(judged_report(x, targets, NTARGETS, 12080));
        CHECK(x || why[0]);
        smc_input_free(x);
        free(t);
    }

    /* Not a record at all. */
    refused("", 0, KEY_A, "not JSON", "empty");
    refused("null", 4, KEY_A, NULL, "null");
    refused("{}", 2, KEY_A, "not a record", "{}");
    refused("[]", 2, KEY_A, "not a record", "[]");
    refused("\"smcheck-facts\"", 15, KEY_A, "not a record", "a string");
    char *garbage = repeat("x", 1, text, "");
    garbage[len] = 'x';
    refused(garbage, len + 1, KEY_A, "more than the rows", "trailing garbage");
    free(garbage);
    /* Deep nesting, alone and inside a record. */
    char *deep = repeat("[", 100000, "", "");
    refused(deep, strlen(deep), KEY_A, "not JSON", "100000 [");
    free(deep);
    deep = repeat("[", 2000, "", "");
    char *tail = repeat("]", 2000, "", "");
    const char *name = strstr(text, "\"name\":\"demo\"");
    CHECK(name != NULL);
    char *nest = malloc(len + strlen(deep) + strlen(tail) + 1);
    if (name && nest) {
        size_t at = (size_t)(name - text) + strlen("\"name\":");
        sprintf(nest, "%.*s%s%s%s", (int)at, text, deep, tail, name + strlen("\"name\":\"demo\""));
        refused(nest, strlen(nest), KEY_A, "not JSON", "2000 [ inside a record");
    }
    free(deep);
    free(tail);
    free(nest);

    /* Another format, reader or file. */
    refused_edit(text, "version", "1", "another format");
    refused_edit(text, "version", "4", "another format");
    refused_edit(text, "version", "\"2\"", "another format");
    /* The rows after the document: as many as the libraries count, each a line of its own. */
    char *more = repeat("[1]\n", 1, text, "");
    refused(more, strlen(more), KEY_A, "more than the rows", "a row more");
    free(more);
    const char *first_row = strchr(text, '\n') + 1, *second = strchr(first_row, '\n') + 1;
    char *fewer = malloc(len);
    sprintf(fewer, "%.*s%s", (int)(first_row - text), text, second);
    refused(fewer, strlen(fewer), KEY_A, "more rows than the record holds", "a row fewer");
    char *damaged = smc_strdup(text);
    damaged[first_row - text] = '}';
    refused(damaged, len, KEY_A, "not a row of JSON", "a row that is not JSON");
    free(damaged);
    free(fewer);
    char *joined = smc_strdup(text);
    joined[second - 1 - text] = ' ';
    refused(joined, len, KEY_A, "more rows than the record holds", "two rows on one line");
    free(joined);
    char *counts = smc_strdup(text), *images = strstr(counts, "\"images\":");
    CHECK(images != NULL);
    if (images) {
        char *big = malloc(len + 16);
        int at = (int)(images - counts) + (int)strlen("\"images\":");
        sprintf(big, "%.*s9999999%s", at, counts, counts + at + strspn(counts + at, "0123456789"));
        refused(big, strlen(big), KEY_A, "more rows than the record holds", "images: 9999999");
        free(big);
    }
    free(counts);
    refused_edit(text, "reader", "\"0.0.9\"", "made by smcheck 0.0.9");
    refused_edit(text, "format", "\"something\"", "not a record");
    refused_edit(text, "sha256", "\"" KEY_B "\"", "another sha256");
    refused(text, len, KEY_B, "another sha256", "decoded for another key");
    refused(text, len, "0000000000000000000000000000000000000000000000000000000000000000 ",
            "not a sha256", "a key with a space");
    refused(text, len, "000000000000000000000000000000000000000000000000000000000000000A",
            "not a sha256", "an upper-case key");
    refused(text, len, "../../etc/passwd", "not a sha256", "a path as key");
    refused_edit(text, "image_fields.0", "\"kin\"", "fields other");
    refused_edit(text, "container_fields", "[]", "fields other");
    refused_edit(text, "input", "[]", "no \"input\"");
    refused_edit(text, "input.kind", "\"nope\"", "not a kind");
    refused_edit(text, "input.kind", "7", "not a kind");

    /* Wrong types. */
    refused_edit(text, "input.files", "\"x\"", "whole number");
    refused_edit(text, "input.files", "-1", "whole number");
    refused_edit(text, "input.files", "1.5", "whole number");
    refused_edit(text, "input.files", "1e300", "whole number");
    refused_edit(text, "input.files", "\"99999999999999999999999\"", "whole number");
    refused_edit(text, "input.files", "\"18446744073709551616\"", "whole number");
    refused_edit(text, "input.files", "\"007\"", "whole number");
    refused_edit(text, "input.files", "true", "whole number");
    refused_edit(text, "input.inspected", "1", "true or false");
    refused_edit(text, "input.require_cuda_version", "-5", "whole number");
    refused_edit(text, "input.compat_cuda", "3000000000", "whole number");
    refused_edit(text, "input.errors", "{}", "not a list");
    refused_edit(text, "input.errors.0", "\"an error\"", "not an object");
    refused_edit(text, "input.errors.0.path", "null", "not a string");
    refused_edit(text, "input.notes.0", "7", "not a string");
    refused_edit(text, "input.notes.0", "[]", "pieces");
    refused_edit(text, "input.notes.0", "[1]", "not a string");
    refused_edit(text, "input.distributions.0", "[]", "not an object");
    refused_edit(text, "input.distributions.0.name", "5", "not a string");
    refused_edit(text, "input.distributions.0.name", "\"de\\u001bmo\"", "control character");
    refused_edit(text, "input.distributions.0.name", "\"de\\u0085mo\"", "control character");
    refused_edit(text, "input.distributions.0.location", "{}", "not a string");
    refused_edit(text, "input.distributions.0.variant_claims.1", "null", "not a string");
    refused_edit(text, "input.libraries.0", "7", "not an object");
    refused_edit(text, "input.libraries.0.path", "null", "not a string");
    refused_edit(text, "input.libraries.0.windows", "0", "true or false");
    refused_edit(text, "input.libraries.0.machine", "4294967296", "more than");
    refused_edit(text, "input.libraries.0.findings.0", "[]", "not an object");
    refused_edit(text, "input.libraries.0.findings.0.offset", "\"far\"", "whole number");
    refused_edit(text, "input.libraries.0.images.0", "[1,2,3]", "not a list of 15");
    refused_edit(text, "input.libraries.0.images.0", "{}", "not a list of 15");
    refused_edit(text, "input.libraries.0.images.0.0", "0", "is no entry kind");
    refused_edit(text, "input.libraries.0.images.0.0", "65536", "is no entry kind");
    refused_edit(text, "input.libraries.0.images.0.1", "3", "out of range");
    refused_edit(text, "input.libraries.0.images.0.2", "9", "out of range");
    refused_edit(text, "input.libraries.0.images.0.3", "\"99999999999\"", "more than");
    refused_edit(text, "input.libraries.0.images.0.6", "-1", "whole number");
    refused_edit(text, "input.libraries.0.containers.0", "[0]", "not a list of 10");
    refused_edit(text, "input.libraries.0.containers.0.4", "1", "true or false");
    refused_edit(text, "input.libraries.0.containers.0.8", "2", "whole number from -1 to 1");
    refused_edit(text, "input.libraries.0.containers.0.2", "[\"a\"]", "not a string");
    refused_edit(text, "input.runtime.0.kind", "\"other\"", "neither");
    refused_edit(text, "input.runtime.0.cuda", "-1", "whole number");
    /* Missing keys. */
    refused_edit(text, "input.runtime", NULL, "no \"runtime\"");
    refused_edit(text, "input.libraries.0.containers", NULL, "no \"containers\"");
    refused_edit(text, "input.distributions.0.tag", NULL, "no \"tag\"");
    refused_edit(text, "input.runtime.1.distribution", NULL, "no \"distribution\"");

    /* Indices out of range: images past the library's, distributions past the input's. */
    refused_edit(text, "input.libraries.0.containers.0.7", "1000", "more than");
    refused_edit(text, "input.libraries.0.containers.1.7", "4", "more than"); /* 2 + 4 > 5 */
    refused_edit(text, "input.libraries.0.containers.0.6", "6", "more than");
    refused_edit(text, "input.libraries.0.containers.0.6", "\"18446744073709551615\"", "more than");
    refused_edit(text, "input.libraries.0.distribution", "2", "past the 2");
    refused_edit(text, "input.libraries.0.distribution", "\"18446744073709551615\"", "past the 2");
    refused_edit(text, "input.libraries.1.distribution", "0", "name a distribution");
    refused_edit(text, "input.libraries.0.distribution", "null", "names another");
    refused_edit(text, "input.distributions.0.libraries.0", "7", "past the 3");
    refused_edit(text, "input.distributions.0.libraries.0", "1", "names another");
    refused_edit(text, "input.distributions.0.libraries", "[0,0]", "not in order");
    refused_edit(text, "input.distributions.0.libraries", "[]", "name a distribution");
    refused_edit(text, "input.runtime.1.distribution", "9", "past the 2");
    /* What stays valid: the last container ends at the last image; no distribution at all. */
    taken_edit(text, "input.libraries.0.containers.2.6", "5");
    taken_edit(text, "input.libraries.0.containers.1.7", "0");
    taken_edit(text, "input.runtime.1.distribution", "null");

    /* Huge counts and lengths. */
    refused_edit(text, "input.libraries.0.findings_more", "1e30", "whole number");
    refused_edit(text, "input.errors_more", "\"184467440737095516150\"", "whole number");
    char *many = repeat("{\"offset\":null,\"message\":\"m\"},", SMC_FINDINGS_KEPT, "[",
                        "{\"offset\":1,\"message\":\"m\"}]");
    refused_edit(text, "input.libraries.0.findings", many, "more than 100 entries");
    free(many);
    many = repeat("\"n\",", SMC_ERRORS_KEPT, "[", "\"n\"]");
    refused_edit(text, "input.notes", many, "more than 1000 entries");
    free(many);
    many = repeat("\"p\",", 5000, "[", "\"p\"]");
    refused_edit(text, "input.libraries.0.path", many, "pieces");
    free(many);
    char *lng = repeat("a", SMC_CACHE_STRING_MAX + 1, "\"", "\"");
    refused_edit(text, "input.distributions.0.name", lng, "longer than");
    refused_edit(text, "input.libraries.0.path", lng, "longer than");
    free(lng);
    refused(text, (size_t)SMC_CACHE_MAX_BYTES + 1, KEY_A, "more than", "a length past the cap");
    printf("%s hostile and damaged records: each refused with a reason\n",
           failed == before ? "ok    " : "FAILED");
    free(text);
}

/* The directory ------------------------------------------------------------------------------- */

static char *record(const char *key)
{
    smc_input *in = built();
    char why[256];
    char *text = in ? smc_cache_encode(in, P, key, why, sizeof why) : NULL;
    smc_input_free(in);
    return text;
}

static bool exists(const char *dir, const char *key)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/v%d/%.2s/%s.json", dir, SMC_CACHE_FORMAT, key, key);
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* Sets a record's mtime to now less ago seconds. */
static void age(const char *dir, const char *key, time_t ago)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/v%d/%.2s/%s.json", dir, SMC_CACHE_FORMAT, key, key);
    struct timespec t[2] = {{.tv_sec = time(NULL) - ago}, {.tv_sec = time(NULL) - ago}};
    CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
}

static void rm_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat sb;
        if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
            rm_tree(sub);
        else
            unlink(sub);
    }
    if (d) closedir(d);
    rmdir(path);
}

static void cache_dir(void)
{
    char *xdg = getenv("XDG_CACHE_HOME") ? smc_strdup(getenv("XDG_CACHE_HOME")) : NULL;
    char *home = getenv("HOME") ? smc_strdup(getenv("HOME")) : NULL;
    setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
    setenv("HOME", "/home/u", 1);
    char *d = smc_cache_dir();
    CHECK(d && strcmp(d, "/xdg/cache/smcheck") == 0);
    free(d);
    setenv("XDG_CACHE_HOME", "relative/cache", 1); /* the XDG spec: ignored */
    d = smc_cache_dir();
    CHECK(d && strcmp(d, "/home/u/.cache/smcheck") == 0);
    free(d);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    CHECK(smc_cache_dir() == NULL);
    if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
    if (home) setenv("HOME", home, 1);
    free(xdg);
    free(home);
}

static void store_load_trim(const char *tmp)
{
    char dir[1024], why[512];
    snprintf(dir, sizeof dir, "%s/a/deeper/cache", tmp); /* made on first store */
    char *a = record(KEY_A), *b = record(KEY_B), *c = record(KEY_C), *d = record(KEY_D);
    CHECK(a && b && c && d);
    if (!a || !b || !c || !d) goto out;
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c), ld = strlen(d), len;
    int before = failed;

    /* Absent: NULL and no reason. */
    why[0] = 'x';
    CHECK(smc_cache_load(dir, KEY_A, &len, why, sizeof why) == NULL && why[0] == '\0');
    CHECK(smc_cache_load(dir, "../../../etc/passwd", &len, why, sizeof why) == NULL && why[0]);
    CHECK(!smc_cache_store(dir, "notakey", a, la, 0, why, sizeof why) && why[0]);

    /* Stored, loaded back, decoded; the directories are the owner's only. */
    CHECK(smc_cache_store(dir, KEY_A, a, la, 0, why, sizeof why));
    char *got = smc_cache_load(dir, KEY_A, &len, why, sizeof why);
    CHECK(got && len == la && memcmp(got, a, la) == 0);
    smc_input *in = got ? smc_cache_decode(got, len, P, P, KEY_A, why, sizeof why) : NULL;
    CHECK(in != NULL);
    smc_input_free(in);
    free(got);
    struct stat sb;
    char path[4096];
    snprintf(path, sizeof path, "%s/v%d/00", dir, SMC_CACHE_FORMAT);
    CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0700);
    snprintf(path, sizeof path, "%s/v%d/00/%s.json", dir, SMC_CACHE_FORMAT, KEY_A);
    CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    /* Stored again: replaced, no temporary file left. */
    CHECK(smc_cache_store(dir, KEY_A, a, la, 0, why, sizeof why));
    snprintf(path, sizeof path, "%s/v%d/00", dir, SMC_CACHE_FORMAT);
    size_t files = 0;
    DIR *dd = opendir(path);
    for (struct dirent *e; dd && (e = readdir(dd));)
        files += e->d_name[0] != '.';
    if (dd) closedir(dd);
    CHECK(files == 1);

    /* Three records with room for two: the oldest goes. */
    age(dir, KEY_A, 300);
    CHECK(smc_cache_store(dir, KEY_B, b, lb, 0, why, sizeof why));
    age(dir, KEY_B, 200);
    CHECK(smc_cache_store(dir, KEY_C, c, lc, lb + lc, why, sizeof why));
    CHECK(!exists(dir, KEY_A) && exists(dir, KEY_B) && exists(dir, KEY_C));
    /* A record loaded is touched: the one not read goes next. */
    age(dir, KEY_C, 100); /* C is now newer than B by its mtime only */
    got = smc_cache_load(dir, KEY_B, &len, why, sizeof why);
    CHECK(got != NULL);
    free(got);
    CHECK(smc_cache_store(dir, KEY_D, d, ld, lb + ld, why, sizeof why));
    CHECK(exists(dir, KEY_B) && !exists(dir, KEY_C) && exists(dir, KEY_D));
    /* The record just stored stays even when the cap is smaller than it. */
    CHECK(smc_cache_store(dir, KEY_A, a, la, 1, why, sizeof why));
    CHECK(exists(dir, KEY_A) && !exists(dir, KEY_B) && !exists(dir, KEY_D));
    /* Records of another format count towards the cap, and go first (never touched). */
    snprintf(path, sizeof path, "%s/v0/00", dir);
    char vdir[4096];
    snprintf(vdir, sizeof vdir, "%s/v0", dir);
    mkdir(vdir, 0700);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/v0/00/%s.json", dir, KEY_A);
    write_file(path, "old", 3);
    struct timespec old[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
    utimensat(AT_FDCWD, path, old, 0);
    CHECK(smc_cache_trim(dir, la + 1, NULL, why, sizeof why));
    CHECK(lstat(path, &sb) != 0 && exists(dir, KEY_A));
    /* A writer's temporary file: a day old goes, a new one stays. */
    char t1[4096], t2[4096];
    snprintf(t1, sizeof t1, "%s/v%d/00/.%s.json.AbCdEf", dir, SMC_CACHE_FORMAT, KEY_B);
    snprintf(t2, sizeof t2, "%s/v%d/00/.%s.json.XyZ123", dir, SMC_CACHE_FORMAT, KEY_C);
    write_file(t1, "x", 1);
    write_file(t2, "x", 1);
    utimensat(AT_FDCWD, t1, old, 0);
    CHECK(smc_cache_trim(dir, 0, NULL, why, sizeof why));
    CHECK(lstat(t1, &sb) != 0 && lstat(t2, &sb) == 0);
    unlink(t2);

    /* What load will not read: a link, a directory, a file over the cap. */
    snprintf(path, sizeof path, "%s/v%d/00/%s.json", dir, SMC_CACHE_FORMAT, KEY_A);
    unlink(path);
    CHECK(symlink("/etc/passwd", path) == 0);
    CHECK(smc_cache_load(dir, KEY_A, &len, why, sizeof why) == NULL &&
          strstr(why, "symbolic link"));
    unlink(path);
    CHECK(mkdir(path, 0700) == 0);
    CHECK(smc_cache_load(dir, KEY_A, &len, why, sizeof why) == NULL && why[0]);
    rmdir(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)SMC_CACHE_MAX_BYTES + 1) == 0);
    if (fd >= 0) close(fd);
    char cap[32]; /* the message names the cap */
    snprintf(cap, sizeof cap, "at most %u MiB", SMC_CACHE_MAX_BYTES >> 20);
    CHECK(smc_cache_load(dir, KEY_A, &len, why, sizeof why) == NULL && strstr(why, cap));
    unlink(path);
    /* A store where a file stands in for the directory. */
    snprintf(path, sizeof path, "%s/file", tmp);
    write_file(path, "x", 1);
    CHECK(!smc_cache_store(path, KEY_A, a, la, 0, why, sizeof why) && why[0]);
    unlink(path);
    printf("%s the directory: store, load, trim\n", failed == before ? "ok    " : "FAILED");
out:
    free(a);
    free(b);
    free(c);
    free(d);
}

static void merge(const char *tmp)
{
    char from[1024], into[1024], path[4096], why[512];
    snprintf(from, sizeof from, "%s/job1", tmp);
    snprintf(into, sizeof into, "%s/shared", tmp);
    char *a = record(KEY_A), *b = record(KEY_B), *c = record(KEY_C), *d = record(KEY_D);
    int before = failed;
    CHECK(a && b && c && d);
    if (!a || !b || !c || !d) goto out;
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c), copied = 9, skipped = 9;
    /* from: A and B good, C cut short, D filed under A's key, a stale reader's record, a record
     * in the wrong fan-out directory, and names that are not records. */
    CHECK(smc_cache_store(from, KEY_A, a, la, 0, why, sizeof why));
    CHECK(smc_cache_store(from, KEY_B, b, lb, 0, why, sizeof why));
    CHECK(smc_cache_store(from, KEY_C, c, lc / 2, 0, why, sizeof why));
    age(from, KEY_B, 5000);
    char *stale = edited(d, "reader", "\"0.0.1\"");
    CHECK(stale && smc_cache_store(from, KEY_D, stale, strlen(stale), 0, why, sizeof why));
    free(stale);
    snprintf(path, sizeof path, "%s/v%d/00/%s.json", from, SMC_CACHE_FORMAT, KEY_B);
    write_file(path, b, lb); /* B under 00/: load looks in bb/ */
    snprintf(path, sizeof path, "%s/v%d/00/README", from, SMC_CACHE_FORMAT);
    write_file(path, "not a record", 12);
    snprintf(path, sizeof path, "%s/v%d/00/.%s.json.tmp123", from, SMC_CACHE_FORMAT, KEY_A);
    write_file(path, "half", 4);
    snprintf(path, sizeof path, "%s/v%d/zz", from, SMC_CACHE_FORMAT);
    mkdir(path, 0700);
    /* into: A already. */
    CHECK(smc_cache_store(into, KEY_A, a, la, 0, why, sizeof why));
    CHECK(smc_cache_merge(into, from, &copied, &skipped, why, sizeof why));
    CHECK(copied == 1 && skipped == 3); /* B; C, D, the misplaced B */
    CHECK(exists(into, KEY_A) && exists(into, KEY_B) && !exists(into, KEY_C) &&
          !exists(into, KEY_D));
    /* B's mtime came along: it was 5000 s old in from. */
    struct stat sb;
    snprintf(path, sizeof path, "%s/v%d/bb/%s.json", into, SMC_CACHE_FORMAT, KEY_B);
    CHECK(stat(path, &sb) == 0 && sb.st_mtime < time(NULL) - 4000);
    size_t len;
    char *got = smc_cache_load(into, KEY_B, &len, why, sizeof why);
    smc_input *in = got ? smc_cache_decode(got, len, P, P, KEY_B, why, sizeof why) : NULL;
    CHECK(in != NULL);
    smc_input_free(in);
    free(got);
    /* Again: nothing new. */
    CHECK(smc_cache_merge(into, from, &copied, &skipped, why, sizeof why) && copied == 0 &&
          skipped == 3);
    /* A damaged copy in into is replaced by from's good one. */
    CHECK(smc_cache_store(into, KEY_A, a, la - 10, 0, why, sizeof why));
    CHECK(smc_cache_merge(into, from, &copied, &skipped, why, sizeof why) && copied == 1);
    got = smc_cache_load(into, KEY_A, &len, why, sizeof why);
    CHECK(got && len == la && memcmp(got, a, la) == 0);
    free(got);
    /* from must be a directory; one without records of this format merges nothing. */
    snprintf(path, sizeof path, "%s/nothing", tmp);
    CHECK(!smc_cache_merge(into, path, &copied, &skipped, why, sizeof why) && why[0]);
    mkdir(path, 0700);
    CHECK(smc_cache_merge(into, path, &copied, &skipped, why, sizeof why) && copied == 0 &&
          skipped == 0);
    printf("%s the directory: merge\n", failed == before ? "ok    " : "FAILED");
out:
    free(a);
    free(b);
    free(c);
    free(d);
}

/* Choices ------------------------------------------------------------------------------------ */

#define WHEEL_URL "https://files.example/packages/ab/demo-1.0-py3-none-manylinux_2_28_x86_64.whl"

/* A choice record with one field replaced by the JSON value (NULL: removed). */
static char *choice_edited(const char *text, const char *field, const char *value)
{
    cJSON *o = cJSON_Parse(text);
    if (value)
        cJSON_ReplaceItemInObjectCaseSensitive(o, field, cJSON_Parse(value));
    else
        cJSON_DeleteItemFromObjectCaseSensitive(o, field);
    char *out = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return out;
}

static bool choice_refused(const char *text, size_t len, const char *key, const char *words)
{
    char *url = (char *)"untouched", sha[65] = "x", why[512];
    bool ok = smc_choice_decode(text, len, key, &url, sha, why, sizeof why);
    bool good = !ok && url == NULL && sha[0] == '\0' && strstr(why, words) != NULL;
    if (!good) fprintf(stderr, "  choice not refused for '%s': ok %d, why '%s'\n", words, ok, why);
    if (ok) free(url);
    return good;
}

static void choice_records(const char *tmp)
{
    int before = failed;
    char *text = smc_choice_encode(KEY_A, WHEEL_URL, KEY_B);
    CHECK(text != NULL);
    if (!text) return;
    char *url = NULL, sha[65], why[512];
    CHECK(smc_choice_decode(text, strlen(text), KEY_A, &url, sha, why, sizeof why) && url &&
          strcmp(url, WHEEL_URL) == 0 && strcmp(sha, KEY_B) == 0);
    free(url);
    /* What encode will not write: it would not decode. */
    CHECK(!smc_choice_encode("ab", WHEEL_URL, KEY_B) &&
          !smc_choice_encode(KEY_A, WHEEL_URL, "ab") &&
          !smc_choice_encode(KEY_A, "ftp://x/y.whl", KEY_B) &&
          !smc_choice_encode(KEY_A, "https://x/y\n.whl", KEY_B));
    /* Damaged and hostile records: each refused, saying why. */
    CHECK(choice_refused(text, strlen(text), KEY_C, "another key"));
    CHECK(choice_refused(text, strlen(text) - 1, KEY_A, "not JSON"));
    char *trailing = smc_asprintf("%s}", text);
    CHECK(trailing && choice_refused(trailing, strlen(trailing), KEY_A, "not JSON"));
    free(trailing);
    CHECK(choice_refused("[1,2]", 5, KEY_A, "not JSON"));
    CHECK(choice_refused("", 0, KEY_A, "not JSON"));
    static const struct {
        const char *field, *value, *words;
    } bad[] = {{"format", "\"smcheck-facts\"", "not a record of smcheck's choices"},
               {"format", NULL, "not a record of smcheck's choices"},
               {"version", "1", "another format"},
               {"reader", "\"0.0.1\"", "another smcheck"},
               {"key", "\"" KEY_C "\"", "another key"},
               {"url", "\"file:///etc/passwd\"", "not a clean http(s) URL"},
               {"url", "\"https://x/\\u0007.whl\"", "not a clean http(s) URL"},
               {"url", "7", "not a clean http(s) URL"},
               {"url", NULL, "not a clean http(s) URL"},
               {"sha256", "\"BB00000000000000000000000000000000000000000000000000000000000000\"",
                "\"sha256\" is not one"},
               {"sha256", "null", "\"sha256\" is not one"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *e = choice_edited(text, bad[i].field, bad[i].value);
        CHECK(e && choice_refused(e, strlen(e), KEY_A, bad[i].words));
        free(e);
    }
    size_t longn = 17u << 10;
    char *lu = malloc(longn + 16);
    if (lu) {
        memcpy(lu, "\"https://", 9);
        memset(lu + 9, 'a', longn);
        memcpy(lu + 9 + longn, "\"", 2);
        char *e = choice_edited(text, "url", lu);
        CHECK(e && choice_refused(e, strlen(e), KEY_A, "at most"));
        free(e);
        free(lu);
    }
    /* Merged with the facts: a choice is a record of the cache like them. */
    char from[1024], into[1024];
    size_t copied = 9, skipped = 9;
    snprintf(from, sizeof from, "%s/choices1", tmp);
    snprintf(into, sizeof into, "%s/choices2", tmp);
    CHECK(smc_cache_store(from, KEY_C, text, strlen(text), 0, why, sizeof why)); /* another key */
    char *other = smc_choice_encode(KEY_D, WHEEL_URL, KEY_B);
    CHECK(other && smc_cache_store(from, KEY_D, other, strlen(other), 0, why, sizeof why));
    CHECK(smc_cache_merge(into, from, &copied, &skipped, why, sizeof why) && copied == 1 &&
          skipped == 1 && exists(into, KEY_D) && !exists(into, KEY_C));
    size_t len = 0;
    char *got = smc_cache_load(into, KEY_D, &len, why, sizeof why);
    CHECK(got && other && len == strlen(other) && memcmp(got, other, len) == 0);
    free(got);
    free(other);
    free(text);
    printf("%s choices: records, damaged and hostile ones refused, merged\n",
           failed == before ? "ok    " : "FAILED");
}

/* The key of a choice: the same for the same facts (hashes in any order), another for any fact
 * that could change the answer; none without hashes. */
static void choice_key(void)
{
    int before = failed;
    if (!smc_remote_built()) {
        printf("skip   choices: their key (built without libcurl)\n");
        return;
    }
    smc_pyenv e311, e312;
    char why[256];
    CHECK(smc_pyenv_init(&e311, "linux-x86_64", "3.11", why, sizeof why) &&
          smc_pyenv_init(&e312, "linux-x86_64", "3.12", why, sizeof why));
    const char *const extra[] = {"https://download.example/whl/cu128"};
    smc_indexes one, two;
    CHECK(smc_indexes_init(&one, "https://pypi.org/simple/", NULL, 0) &&
          smc_indexes_init(&two, "https://pypi.org/simple/", extra, 1));
    const char *const ab[] = {KEY_A, KEY_B}, *const ba[] = {KEY_B, KEY_A}, *const a[] = {KEY_A};
    char k[8][65];
    CHECK(smc_resolve_choice_key(&one, &e311, "Demo_Pkg", "1.0", ab, 2, k[0]) &&
          smc_cache_key_ok(k[0]));
    CHECK(smc_resolve_choice_key(&one, &e311, "demo-pkg", "1.0", ba, 2, k[1]) &&
          strcmp(k[0], k[1]) == 0); /* the name normalized, the hashes in any order */
    CHECK(smc_resolve_choice_key(&one, &e311, "demo-pkg", "1.0", a, 1, k[2]));
    CHECK(smc_resolve_choice_key(&one, &e311, "demo-pkg", "1.0.1", ab, 2, k[3]));
    CHECK(smc_resolve_choice_key(&one, &e311, "other", "1.0", ab, 2, k[4]));
    CHECK(smc_resolve_choice_key(&one, &e312, "demo-pkg", "1.0", ab, 2, k[5]));
    CHECK(smc_resolve_choice_key(&two, &e311, "demo-pkg", "1.0", ab, 2, k[6]));
    for (int i = 2; i < 7; i++)
        for (int j = 0; j < i; j++)
            CHECK(j < 2 || strcmp(k[i], k[j]) != 0);
    for (int i = 2; i < 7; i++)
        CHECK(strcmp(k[i], k[0]) != 0);
    CHECK(!smc_resolve_choice_key(&one, &e311, "demo-pkg", "1.0", ab, 0, k[7]) && !k[7][0]);
    smc_indexes_free(&one);
    smc_indexes_free(&two);
    smc_pyenv_free(&e311);
    smc_pyenv_free(&e312);
    printf("%s choices: their key\n", failed == before ? "ok    " : "FAILED");
}

/* Seeds for the fuzz target: each file's record under FUZZ_KEY. */
static int write_seeds(const char *dir, char **files, int n)
{
    for (int i = 0; i < n; i++) {
        smc_options opt = {.read.inspect = true, .run.jobs = 1};
        smc_input *in = NULL;
        char why[512], path[4096];
        if (smc_scan_path(files[i], &opt, &in) != SMC_OK) return 1;
        char *text = smc_cache_encode(in, files[i], FUZZ_KEY, why, sizeof why);
        smc_input_free(in);
        if (!text) {
            fprintf(stderr, "%s: %s\n", files[i], why);
            return 1;
        }
        snprintf(path, sizeof path, "%s/%s.json", dir, smc_base_name(files[i]));
        write_file(path, text, strlen(text));
        free(text);
    }
    smc_input *in = built();
    char why[512], path[4096];
    char *text = in ? smc_cache_encode(in, P, FUZZ_KEY, why, sizeof why) : NULL;
    snprintf(path, sizeof path, "%s/built.json", dir);
    if (text) write_file(path, text, strlen(text));
    free(text);
    smc_input_free(in);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--seeds") == 0)
        return write_seeds(argv[2], argv + 3, argc - 3);
    built_round_trip();
    for (int i = 1; i < argc; i++)
        scanned_round_trip(argv[i]);
    hostile();
    cache_dir();
    char tmp[512];
    const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(tmp, sizeof tmp, "%.400s/test_cache.XXXXXX", base);
    CHECK(mkdtemp(tmp) != NULL);
    store_load_trim(tmp);
    merge(tmp);
    choice_records(tmp);
    choice_key();
    rm_tree(tmp);
    return check_report();
}
