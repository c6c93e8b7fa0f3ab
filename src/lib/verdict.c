/* verdict.c: the judge. A pure pass over the finished model: given the images of each library
 * and what reading found out about them (kernels, toolkit, PTX text), a GPU's compute capability
 * and what is known of the driver, it says which containers will load, the status of each
 * library, then of each distribution and input, and overall. It reads no bytes and writes no
 * sentences: causes are codes and numbers (describe.c words them). Rules and their sources:
 * shared/reference/cuda-compat.md §2 (binary compatibility, a/f variants, Tegra), §4 (PTX ISA),
 * §5 and §11 (drivers). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

static unsigned major_of(unsigned arch)
{
    return arch / 10;
}

/* Jetson GPUs: "binary compatibility is supported only for the desktop. It is not supported for
 * Tegra" (Programming Guide §6.1.2): only a cubin for exactly their capability counts. */
static bool tegra(unsigned cc)
{
    return cc == 53 || cc == 62 || cc == 72 || cc == 87;
}

/* Which capabilities run an 'f' (family) image: Programming Guide 13.x Table 28, 10.7 from the
 * 13.4 edition; 101f is Thor's family before CUDA 13 renamed it 11.0 (§2.3). */
static const struct {
    unsigned arch, members[4];
} families[] = {
    {100, {100, 103, 107}}, {101, {101}},      {103, {103, 107}}, {107, {107}},
    {110, {110}},           {120, {120, 121}}, {121, {121}},
};

static bool in_family(unsigned arch, unsigned cc)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        if (families[i].arch != arch) continue;
        for (size_t k = 0; k < 4 && families[i].members[k]; k++)
            if (families[i].members[k] == cc) return true;
        return false;
    }
    /* A family the table does not know yet: nvcc's rule, same major and no lower minor. */
    return major_of(cc) == major_of(arch) && cc >= arch;
}

static unsigned isa_of(const smc_image *img)
{
    return img->version_major * 10 + img->version_minor;
}

smc_verdict smc_image_verdict(const smc_image *img, unsigned cc, int driver_cuda, int *cause)
{
    *cause = SMC_WHY_NONE;
    if (img->kind == SMC_IMAGE_LTO) {
        *cause = SMC_WHY_LTO;
        return SMC_VERDICT_NONE;
    }
    unsigned a = img->arch;
    bool cubin = img->kind == SMC_IMAGE_CUBIN, fits;
    if (img->variant == SMC_VARIANT_A) {
        fits = cc == a;
    } else if (img->variant == SMC_VARIANT_F) {
        fits = in_family(a, cc);
    } else if (cubin && a == 101 && cc == 110) {
        /* Thor was 10.1 in CUDA 12.8/12.9; PyTorch's table says a plain sm_101 cubin runs on
         * 11.0. No source says so of sm_101a or sm_101f. */
        *cause = SMC_WHY_THOR_RENAMED;
        fits = true;
    } else if (cubin) {
        fits = major_of(cc) == major_of(a) && cc >= a;
        if (fits && cc != a && tegra(cc)) {
            *cause = SMC_WHY_TEGRA;
            return SMC_VERDICT_NONE;
        }
    } else {
        fits = cc >= a; /* PTX moves up, across majors */
    }
    if (!fits) {
        *cause = SMC_WHY_ARCH;
        return SMC_VERDICT_NONE;
    }
    if (cubin) {
        /* Entry version 1.8 is ELF ABI v2, CUDA 13's cubin format: a 12.x driver rejects it. */
        if (driver_cuda > 0 && driver_cuda < 13000 && img->version_major == 1 &&
            img->version_minor >= 8) {
            *cause = SMC_WHY_CUDA13;
            return SMC_VERDICT_NONE;
        }
        return cc == a ? SMC_VERDICT_NATIVE : SMC_VERDICT_COMPATIBLE;
    }
    unsigned major = 0, minor = 0;
    if (driver_cuda > 0 &&
        (!smc_ptx_isa_for_cuda(driver_cuda, &major, &minor) || isa_of(img) > major * 10 + minor)) {
        *cause = SMC_WHY_PTX_ISA;
        return SMC_VERDICT_JIT_BLOCKED;
    }
    return SMC_VERDICT_JIT;
}

/* What judging one container found, beyond its verdict. */
typedef struct seen {
    bool cuda13, tegra, ptx_isa, thor;
    unsigned jit_isa;     /* the newest PTX ISA a jit container relies on */
    unsigned blocked_isa; /* the newest PTX ISA the driver cannot compile */
} seen;

static smc_verdict container_verdict(const smc_library *lib, size_t index, unsigned cc,
                                     int driver_cuda, seen *s)
{
    const smc_container *c = &lib->containers[index];
    if (c->relocatable) return SMC_VERDICT_RELOCATABLE;
    smc_verdict best = SMC_VERDICT_NONE;
    bool any = false, all_variants = true, only_arch = true, has_ptx = false;
    seen here = {0};
    for (size_t i = c->first_image; i < c->first_image + c->image_count; i++) {
        const smc_image *img = &lib->images[i];
        if (img->kind == SMC_IMAGE_LTO) continue;
        int why;
        smc_verdict v = smc_image_verdict(img, cc, driver_cuda, &why);
        any = true;
        has_ptx |= img->kind == SMC_IMAGE_PTX;
        all_variants &= img->variant != SMC_VARIANT_NONE;
        only_arch &= why == SMC_WHY_NONE || why == SMC_WHY_ARCH;
        here.cuda13 |= why == SMC_WHY_CUDA13;
        here.tegra |= why == SMC_WHY_TEGRA;
        here.ptx_isa |= why == SMC_WHY_PTX_ISA;
        if (why == SMC_WHY_PTX_ISA && isa_of(img) > here.blocked_isa)
            here.blocked_isa = isa_of(img);
        here.thor |= why == SMC_WHY_THOR_RENAMED && v != SMC_VERDICT_NONE;
        if (v == SMC_VERDICT_JIT && isa_of(img) > here.jit_isa) here.jit_isa = isa_of(img);
        if (v < best) best = v;
    }
    if (!any) return SMC_VERDICT_NO_KERNELS; /* empty, or LTO IR only */
    if (best <= SMC_VERDICT_COMPATIBLE) {
        s->thor |= here.thor;
        return best;
    }
    if (best == SMC_VERDICT_JIT) {
        s->thor |= here.thor;
        if (here.jit_isa > s->jit_isa) s->jit_isa = here.jit_isa;
        return best;
    }
    /* It would fail. Only 'a'/'f' images for other GPUs: the host code dispatches. */
    if (all_variants && only_arch) return SMC_VERDICT_GATED;
    /* nvlink's device-link module: cubins without kernels (read while scanning; not known
     * counts as kernels). */
    if (!has_ptx && c->kernels == 0) return SMC_VERDICT_NO_KERNELS;
    s->cuda13 |= here.cuda13;
    s->tegra |= here.tegra;
    s->ptx_isa |= here.ptx_isa;
    if (here.blocked_isa > s->blocked_isa) s->blocked_isa = here.blocked_isa;
    return best;
}

char *smc_failing_tokens(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += lib->containers[which[i]].image_count;
    const smc_image **v = malloc((total ? total : 1) * sizeof *v);
    char *out = malloc(12 * SMC_TOKEN_MAX + 8);
    if (!v || !out) {
        free(v);
        free(out);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const smc_container *c = &lib->containers[which[i]];
        for (size_t j = c->first_image; j < c->first_image + c->image_count; j++)
            if (lib->images[j].kind != SMC_IMAGE_LTO) v[k++] = &lib->images[j];
    }
    qsort(v, k, sizeof *v, smc_image_compare);
    size_t len = 0, shown = 0;
    *has_ptx = false;
    out[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        if (i && smc_image_compare(&v[i - 1], &v[i]) == 0) continue;
        *has_ptx |= v[i]->kind == SMC_IMAGE_PTX;
        if (shown == 12) {
            len += (size_t)sprintf(out + len, " ...");
            shown++;
        } else if (shown < 12) {
            char tok[SMC_TOKEN_MAX];
            len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", smc_image_token(v[i], tok));
            shown++;
        }
    }
    free(v);
    return out;
}

/* The CUDA major a library was built by, when its bytes say: cubins of entry version 1.8 (ELF
 * ABI v2) and PTX ISA 9.x come from CUDA 13, DT_NEEDED libcudart.so.N from CUDA N, and its
 * distribution may say so (a wheel's Requires-Dist or version.py). 0 when nothing says. */
static unsigned built_by(const smc_library *lib, unsigned wheel_major, smc_evidence *why)
{
    unsigned major = 0;
    *why = SMC_EVIDENCE_NONE;
    for (size_t i = 0; i < lib->image_count && major < 13; i++) {
        const smc_image *img = &lib->images[i];
        if (img->kind == SMC_IMAGE_CUBIN && img->version_major == 1 && img->version_minor >= 8) {
            major = 13;
            *why = SMC_EVIDENCE_CUBIN_ABI;
        } else if (img->kind == SMC_IMAGE_PTX && img->version_major >= 9) {
            major = 13;
            *why = SMC_EVIDENCE_PTX_ISA;
        }
    }
    if (lib->cudart_major > major) {
        major = lib->cudart_major;
        *why = SMC_EVIDENCE_CUDART;
    }
    if (wheel_major > major) {
        major = wheel_major;
        *why = SMC_EVIDENCE_WHEEL;
    }
    return major;
}

/* Cautions that do not change the status (cuda-compat.md §5.2, §5.4, §11). */
static unsigned warnings_of(const smc_library *lib, int driver_cuda, const seen *s, int *built,
                            unsigned *newest)
{
    unsigned w = s->thor ? SMC_WARN_THOR : 0;
    *built = 0;
    if (driver_cuda <= 0) return w;
    unsigned isa = 0;
    bool zstd = false, lz4 = false;
    for (size_t i = 0; i < lib->image_count; i++) {
        const smc_image *img = &lib->images[i];
        if (img->kind == SMC_IMAGE_PTX && isa_of(img) > isa) isa = isa_of(img);
        zstd |= img->compression == SMC_COMPRESS_ZSTD && img->kind != SMC_IMAGE_LTO;
        lz4 |= img->compression == SMC_COMPRESS_LZ4 && img->kind != SMC_IMAGE_LTO;
    }
    int by = isa ? smc_cuda_for_ptx_isa(isa / 10, isa % 10) : 0;
    if (by > driver_cuda && by / 1000 == driver_cuda / 1000) {
        w |= SMC_WARN_NEWER_MINOR;
        *built = by;
        *newest = isa;
    }
    if (zstd && driver_cuda < 12040)
        w |= SMC_WARN_ZSTD;
    else if (lz4 && driver_cuda < 12000)
        w |= SMC_WARN_LZ4;
    return w;
}

static smc_status judge_one(const smc_library *lib, const smc_target *t, int driver_cuda,
                            unsigned wheel_major, smc_judgement *r)
{
    unsigned cc = t->cc_major * 10 + t->cc_minor;
    seen s = {0};
    *r = (smc_judgement){0};
    /* Built by a newer CUDA major than the driver supports: its runtime stops before any kernel
     * loads, even with cudart linked statically (cuda-compat.md §5.2, §11). */
    smc_evidence why;
    unsigned built = built_by(lib, wheel_major, &why);
    bool too_new = built && driver_cuda > 0 && (int)built * 1000 > driver_cuda;
    for (size_t i = 0; i < lib->container_count; i++) {
        smc_verdict v = container_verdict(lib, i, cc, driver_cuda, &s);
        if (too_new && v <= SMC_VERDICT_NONE) v = SMC_VERDICT_NONE;
        r->containers_by_verdict[v]++;
        if (v == SMC_VERDICT_NONE || v == SMC_VERDICT_JIT_BLOCKED) {
            size_t *slot = smc_push(&r->failing, r->failing_count, sizeof *slot);
            if (!slot) return SMC_ERR_NOMEM;
            *slot = i;
            r->failing_count++;
        }
    }
    const size_t *by = r->containers_by_verdict;
    r->counted = by[SMC_VERDICT_NATIVE] + by[SMC_VERDICT_COMPATIBLE] + by[SMC_VERDICT_JIT] +
                 by[SMC_VERDICT_JIT_BLOCKED] + by[SMC_VERDICT_NONE];
    r->status = r->counted == 0                  ? SMC_STATUS_OK
                : r->failing_count == r->counted ? SMC_STATUS_NONE
                : r->failing_count               ? SMC_STATUS_PARTIAL
                : by[SMC_VERDICT_JIT]            ? SMC_STATUS_JIT
                                                 : SMC_STATUS_OK;
    switch (r->status) {
    case SMC_STATUS_OK:
        r->cause = r->counted ? SMC_CAUSE_LOADS : SMC_CAUSE_NOTHING;
        break;
    case SMC_STATUS_JIT:
        r->cause = SMC_CAUSE_PTX_JIT;
        r->isa = s.jit_isa;
        break;
    default: /* what, beyond "built for other GPUs", makes containers fail */
        r->cause = too_new    ? SMC_CAUSE_BUILT_NEWER
                   : s.cuda13  ? SMC_CAUSE_CUBIN_ABI
                   : s.ptx_isa ? SMC_CAUSE_PTX_ISA
                   : s.tegra   ? SMC_CAUSE_TEGRA
                               : SMC_CAUSE_ARCH;
        if (r->cause == SMC_CAUSE_PTX_ISA) r->isa = s.blocked_isa;
        if (too_new) {
            r->built_major = built;
            r->built_by = why;
        }
        break;
    }
    r->warnings = warnings_of(lib, driver_cuda, &s, &r->built_cuda, &r->newest_isa);
    return SMC_OK;
}

/* The CUDA major a distribution says its libraries were built for ("12.8", "13"), or 0. */
static unsigned distribution_major(const smc_input *in, const smc_library *lib)
{
    if (lib->distribution >= in->distribution_count) return 0;
    const smc_distribution *d = &in->distributions[lib->distribution];
    /* What its metadata says; a DT_NEEDED of one library says nothing of the others. */
    if (!d->cuda || (d->cuda_source && strncmp(d->cuda_source, "DT_NEEDED", 9) == 0)) return 0;
    return (unsigned)strtoul(d->cuda, NULL, 10);
}

static smc_status judge_input(smc_input *in, const smc_target *targets, size_t n,
                              int driver_cuda)
{
    free(in->statuses);
    if (!(in->statuses = calloc(n ? n : 1, sizeof *in->statuses))) return SMC_ERR_NOMEM;
    in->status_count = n;
    for (size_t l = 0; l < in->library_count; l++) {
        smc_library *lib = &in->libraries[l];
        for (size_t i = 0; i < lib->judgement_count; i++)
            free(lib->judgements[i].failing);
        free(lib->judgements);
        lib->judgements = NULL;
        lib->judgement_count = 0;
        if (!lib->container_count) continue; /* only findings: nothing to judge */
        if (!(lib->judgements = calloc(n, sizeof *lib->judgements))) return SMC_ERR_NOMEM;
        lib->judgement_count = n;
        unsigned wheel = distribution_major(in, lib);
        for (size_t t = 0; t < n; t++) {
            smc_status st = judge_one(lib, &targets[t], driver_cuda, wheel, &lib->judgements[t]);
            if (st != SMC_OK) return st;
            if (lib->judgements[t].status > in->statuses[t])
                in->statuses[t] = lib->judgements[t].status;
        }
    }
    /* A distribution takes the worst status of its libraries. */
    for (size_t k = 0; k < in->distribution_count; k++) {
        smc_distribution *d = &in->distributions[k];
        free(d->statuses);
        if (!(d->statuses = calloc(n ? n : 1, sizeof *d->statuses))) return SMC_ERR_NOMEM;
        for (size_t i = 0; i < d->library_count; i++) {
            const smc_library *lib = &in->libraries[d->libraries[i]];
            for (size_t t = 0; t < n && t < lib->judgement_count; t++)
                if (lib->judgements[t].status > d->statuses[t])
                    d->statuses[t] = lib->judgements[t].status;
        }
    }
    return SMC_OK;
}

smc_status smc_judge(smc_input *const *inputs, size_t n, const smc_target *targets,
                     size_t target_count, int driver_cuda, smc_lib_status *overall)
{
    if ((n && !inputs) || (target_count && !targets)) return SMC_ERR_ARG;
    for (size_t t = 0; overall && t < target_count; t++)
        overall[t] = SMC_STATUS_OK;
    for (size_t i = 0; i < n; i++) {
        smc_status st = judge_input(inputs[i], targets, target_count, driver_cuda);
        if (st != SMC_OK) return st;
        for (size_t t = 0; overall && t < target_count; t++)
            if (inputs[i]->statuses[t] > overall[t]) overall[t] = inputs[i]->statuses[t];
    }
    return SMC_OK;
}

const char *smc_verdict_str(smc_verdict v)
{
    static const char *const names[SMC_VERDICT_COUNT] = {
        "native", "compatible", "jit", "jit-blocked", "none", "gated", "no-kernels", "relocatable",
    };
    return (unsigned)v < SMC_VERDICT_COUNT ? names[v] : "unknown";
}

const char *smc_cause_str(smc_cause c)
{
    static const char *const names[SMC_CAUSE_COUNT] = {
        "loads", "nothing-to-judge", "ptx-jit", "arch", "tegra", "cubin-abi", "ptx-isa",
        "built-newer",
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
    case SMC_STATUS_NONE:
        return "none";
    }
    return "unknown";
}
