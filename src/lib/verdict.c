/* verdict.c: the compatibility rules. Given the images of a library, a GPU's compute capability
 * and what is known of the driver, it says which containers will load and why not. It knows
 * nothing of files: whether a failing container holds kernels at all is asked of a probe that
 * the caller supplies. Rules and their sources: shared/reference/cuda-compat.md §2 (binary
 * compatibility, a/f variants, Tegra), §4 (PTX ISA), §5 and §11 (drivers). */
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
    *cause = SMC_CAUSE_NONE;
    if (img->kind == SMC_IMAGE_LTO) {
        *cause = SMC_CAUSE_LTO;
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
        *cause = SMC_CAUSE_THOR_RENAMED;
        fits = true;
    } else if (cubin) {
        fits = major_of(cc) == major_of(a) && cc >= a;
        if (fits && cc != a && tegra(cc)) {
            *cause = SMC_CAUSE_TEGRA;
            return SMC_VERDICT_NONE;
        }
    } else {
        fits = cc >= a; /* PTX moves up, across majors */
    }
    if (!fits) {
        *cause = SMC_CAUSE_ARCH;
        return SMC_VERDICT_NONE;
    }
    if (cubin) {
        /* Entry version 1.8 is ELF ABI v2, CUDA 13's cubin format: a 12.x driver rejects it. */
        if (driver_cuda > 0 && driver_cuda < 13000 && img->version_major == 1 &&
            img->version_minor >= 8) {
            *cause = SMC_CAUSE_CUDA13;
            return SMC_VERDICT_NONE;
        }
        return cc == a ? SMC_VERDICT_NATIVE : SMC_VERDICT_COMPATIBLE;
    }
    unsigned major = 0, minor = 0;
    if (driver_cuda > 0 &&
        (!smc_ptx_isa_for_cuda(driver_cuda, &major, &minor) || isa_of(img) > major * 10 + minor)) {
        *cause = SMC_CAUSE_PTX_ISA;
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
                                     int driver_cuda, smc_kernel_probe probe, void *ctx, seen *s)
{
    const smc_container *c = &lib->containers[index];
    if (c->relocatable) return SMC_VERDICT_RELOCATABLE;
    smc_verdict best = SMC_VERDICT_NONE;
    bool any = false, all_variants = true, only_arch = true, has_ptx = false;
    seen here = {0};
    for (size_t i = c->first_image; i < c->first_image + c->image_count; i++) {
        const smc_image *img = &lib->images[i];
        if (img->kind == SMC_IMAGE_LTO) continue;
        int cause;
        smc_verdict v = smc_image_verdict(img, cc, driver_cuda, &cause);
        any = true;
        has_ptx |= img->kind == SMC_IMAGE_PTX;
        all_variants &= img->variant != SMC_VARIANT_NONE;
        only_arch &= cause == SMC_CAUSE_NONE || cause == SMC_CAUSE_ARCH;
        here.cuda13 |= cause == SMC_CAUSE_CUDA13;
        here.tegra |= cause == SMC_CAUSE_TEGRA;
        here.ptx_isa |= cause == SMC_CAUSE_PTX_ISA;
        if (cause == SMC_CAUSE_PTX_ISA && isa_of(img) > here.blocked_isa)
            here.blocked_isa = isa_of(img);
        here.thor |= cause == SMC_CAUSE_THOR_RENAMED && v != SMC_VERDICT_NONE;
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
    /* nvlink's device-link module has cubins without kernels; looking costs decompression. */
    if (!has_ptx && probe && !probe(ctx, lib, index)) return SMC_VERDICT_NO_KERNELS;
    s->cuda13 |= here.cuda13;
    s->tegra |= here.tegra;
    s->ptx_isa |= here.ptx_isa;
    if (here.blocked_isa > s->blocked_isa) s->blocked_isa = here.blocked_isa;
    return best;
}

bool smc_container_would_fail(const smc_image *images, size_t n, const smc_target *targets,
                              size_t nt, int driver_cuda)
{
    for (size_t t = 0; t < nt; t++) {
        unsigned cc = targets[t].cc_major * 10 + targets[t].cc_minor;
        smc_verdict best = SMC_VERDICT_NONE;
        bool any = false, all_variants = true, only_arch = true;
        for (size_t i = 0; i < n; i++) {
            if (images[i].kind == SMC_IMAGE_LTO) continue;
            int cause;
            smc_verdict v = smc_image_verdict(&images[i], cc, driver_cuda, &cause);
            any = true;
            all_variants &= images[i].variant != SMC_VARIANT_NONE;
            only_arch &= cause == SMC_CAUSE_NONE || cause == SMC_CAUSE_ARCH;
            if (v < best) best = v;
        }
        if (any && best >= SMC_VERDICT_JIT_BLOCKED && !(all_variants && only_arch)) return true;
    }
    return false;
}

/* The distinct tokens (LTO IR left out) of the containers listed, space-separated, capped. */
static char *tokens_of(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx)
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

static void label(char *buf, size_t n, const smc_target *t)
{
    if (t->name[0])
        snprintf(buf, n, "%s (%u.%u)", t->name, t->cc_major, t->cc_minor);
    else
        snprintf(buf, n, "a GPU of compute capability %u.%u", t->cc_major, t->cc_minor);
}

static void cuda_str(char *buf, size_t n, int cuda)
{
    snprintf(buf, n, "%d.%d", cuda / 1000, cuda % 1000 / 10);
}

/* "needs R580 or newer" for a CUDA version. */
static void needs_driver(char *buf, size_t n, int cuda)
{
    int branch = smc_driver_branch_for_cuda(cuda);
    char v[16];
    cuda_str(v, sizeof v, cuda);
    if (branch)
        snprintf(buf, n, "needs a driver for CUDA %s (R%d) or newer", v, branch);
    else
        snprintf(buf, n, "needs a driver for CUDA %s or newer", v);
}

typedef struct judge_ctx {
    const smc_library *lib;
    const smc_target *target;
    int driver_cuda;
    size_t counted;
    seen s;
    unsigned built;        /* when too new for the driver: the CUDA major that built it */
    const char *built_why; /* and what says so */
} judge_ctx;

enum { CLAUSE_NONE, CLAUSE_DRIVER, CLAUSE_TEGRA };

/* Why some or all counted containers fail, beyond "built for other GPUs"; says which kind. */
static int cause_clause(char *buf, size_t n, const judge_ctx *j)
{
    char drv[16], need[96];
    cuda_str(drv, sizeof drv, j->driver_cuda);
    needs_driver(need, sizeof need, 13000);
    buf[0] = '\0';
    if (j->built) {
        char evidence[64];
        if (strcmp(j->built_why, "it needs libcudart.so.N") == 0)
            snprintf(evidence, sizeof evidence, "it needs libcudart.so.%u", j->lib->cudart_major);
        else
            snprintf(evidence, sizeof evidence, "%s", j->built_why);
        needs_driver(need, sizeof need, (int)j->built * 1000);
        snprintf(buf, n, "built by CUDA %u (%s); the driver supports %s; %s", j->built, evidence,
                 drv, need);
        return CLAUSE_DRIVER;
    }
    if (j->s.cuda13) {
        snprintf(buf, n, "built by CUDA 13 (cubin ABI 1.8); the driver supports %s; %s", drv, need);
        return CLAUSE_DRIVER;
    }
    if (j->s.ptx_isa) {
        unsigned isa = j->s.blocked_isa;
        needs_driver(need, sizeof need, smc_cuda_for_ptx_isa(isa / 10, isa % 10));
        snprintf(buf, n, "its PTX (ISA %u.%u) is newer than a driver for CUDA %s can compile; %s",
                 isa / 10, isa % 10, drv, need);
        return CLAUSE_DRIVER;
    }
    if (j->s.tegra) {
        snprintf(buf, n,
                 "a cubin for a lower minor does not run on Jetson (no binary compatibility on "
                 "Tegra; JetPack 7 users report otherwise)");
        return CLAUSE_TEGRA;
    }
    return CLAUSE_NONE;
}

static char *reason(const judge_ctx *j, const smc_judgement *r)
{
    const smc_library *lib = j->lib;
    const size_t *by = r->containers_by_verdict;
    char who[192], clause[256], need[96];
    label(who, sizeof who, j->target);
    int kind = cause_clause(clause, sizeof clause, j);
    bool ptx;
    char *toks;
    char *out = NULL;
    switch (r->status) {
    case SMC_STATUS_OK:
        if (j->counted == 0)
            return smc_asprintf("no container to judge (%zu gated, %zu without kernels, %zu "
                                "relocatable)",
                                by[SMC_VERDICT_GATED], by[SMC_VERDICT_NO_KERNELS],
                                by[SMC_VERDICT_RELOCATABLE]);
        return smc_asprintf("%zu native, %zu compatible of %zu containers", by[SMC_VERDICT_NATIVE],
                            by[SMC_VERDICT_COMPATIBLE], j->counted);
    case SMC_STATUS_JIT:
        if (j->driver_cuda) {
            char drv[16];
            cuda_str(drv, sizeof drv, j->driver_cuda);
            snprintf(need, sizeof need, "the driver (CUDA %s) can compile it", drv);
        } else {
            needs_driver(need, sizeof need,
                         smc_cuda_for_ptx_isa(j->s.jit_isa / 10, j->s.jit_isa % 10));
        }
        return smc_asprintf("%zu of %zu containers rely on PTX (up to ISA %u.%u), compiled by the "
                            "driver at first launch; %s",
                            by[SMC_VERDICT_JIT], j->counted, j->s.jit_isa / 10, j->s.jit_isa % 10,
                            need);
    case SMC_STATUS_PARTIAL:
        toks = tokens_of(lib, r->failing, r->failing_count, &ptx);
        if (!toks) return NULL;
        if (kind == CLAUSE_NONE)
            out = smc_asprintf("%zu of %zu containers have no usable image (they carry %s); "
                               "usually per-architecture specialisations, --detail names them",
                               r->failing_count, j->counted, toks);
        else
            out = smc_asprintf("%zu of %zu containers have no usable image (they carry %s): %s",
                               r->failing_count, j->counted, toks, clause);
        free(toks);
        return out;
    case SMC_STATUS_NONE:
        toks = tokens_of(lib, r->failing, r->failing_count, &ptx);
        if (!toks) return NULL;
        if (kind == CLAUSE_DRIVER)
            out = smc_asprintf("%s", clause); /* the driver, not the GPU, is what fails */
        else if (kind == CLAUSE_TEGRA)
            out = smc_asprintf("has %s: %s; %s needs an sm_%u%u cubin or PTX", toks, clause, who,
                               j->target->cc_major, j->target->cc_minor);
        else
            out = smc_asprintf("has %s%s; %s needs an sm_%u%u cubin or PTX", toks,
                               ptx ? ", none for it" : " and no PTX", who, j->target->cc_major,
                               j->target->cc_minor);
        free(toks);
        return out;
    }
    return NULL;
}

/* Cautions that do not change the status (cuda-compat.md §5.2, §5.4, §11). */
static char *warnings(const judge_ctx *j)
{
    const smc_library *lib = j->lib;
    char buf[1024], drv[16];
    size_t len = 0;
    buf[0] = '\0';
    cuda_str(drv, sizeof drv, j->driver_cuda);
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (len < sizeof buf)                                                                      \
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s", len ? "; " : "");           \
        if (len < sizeof buf) len += (size_t)snprintf(buf + len, sizeof buf - len, __VA_ARGS__);   \
    } while (0)
    if (j->s.thor)
        ADD("sm_101 images count on Thor (11.0) as PyTorch's table says; NVIDIA does not say so");
    if (j->driver_cuda > 0) {
        unsigned isa = 0;
        bool zstd = false, lz4 = false;
        for (size_t i = 0; i < lib->image_count; i++) {
            const smc_image *img = &lib->images[i];
            if (img->kind == SMC_IMAGE_PTX && isa_of(img) > isa) isa = isa_of(img);
            zstd |= img->compression == SMC_COMPRESS_ZSTD && img->kind != SMC_IMAGE_LTO;
            lz4 |= img->compression == SMC_COMPRESS_LZ4 && img->kind != SMC_IMAGE_LTO;
        }
        int built = isa ? smc_cuda_for_ptx_isa(isa / 10, isa % 10) : 0;
        if (built > j->driver_cuda && built / 1000 == j->driver_cuda / 1000) {
            char b[16];
            cuda_str(b, sizeof b, built);
            ADD("built by CUDA %s (PTX ISA %u.%u) and the driver supports %s: cubins from a newer "
                "minor toolkit usually load, but some drivers reject them",
                b, isa / 10, isa % 10, drv);
        }
        if (zstd && j->driver_cuda < 12040)
            ADD("Zstandard-compressed images need a driver of 550.54.14 (CUDA 12.4) or newer, per "
                "RAPIDS' documentation (not confirmed by NVIDIA)");
        else if (lz4 && j->driver_cuda < 12000)
            ADD("LZ4-compressed images need a driver of 525.60.13 (CUDA 12.0) or newer, per "
                "RAPIDS' documentation (not confirmed by NVIDIA)");
    }
#undef ADD
    return len ? smc_strdup(buf) : NULL;
}

/* The CUDA major a library was built by, when its bytes say: cubins of entry version 1.8 (ELF
 * ABI v2) and PTX ISA 9.x come from CUDA 13, and DT_NEEDED libcudart.so.N from CUDA N. *why
 * names the evidence. 0 when nothing says. */
static unsigned built_by(const smc_library *lib, const char **why)
{
    unsigned major = 0;
    *why = NULL;
    for (size_t i = 0; i < lib->image_count && major < 13; i++) {
        const smc_image *img = &lib->images[i];
        if (img->kind == SMC_IMAGE_CUBIN && img->version_major == 1 && img->version_minor >= 8) {
            major = 13;
            *why = "cubin ABI 1.8";
        } else if (img->kind == SMC_IMAGE_PTX && img->version_major >= 9) {
            major = 13;
            *why = "PTX ISA 9.x";
        }
    }
    if (lib->cudart_major > major) {
        major = lib->cudart_major;
        *why = "it needs libcudart.so.N";
    }
    return major;
}

static smc_status judge_one(smc_library *lib, const smc_target *t, int driver_cuda,
                            smc_kernel_probe probe, void *ctx, smc_judgement *r)
{
    unsigned cc = t->cc_major * 10 + t->cc_minor;
    judge_ctx j = {.lib = lib, .target = t, .driver_cuda = driver_cuda};
    *r = (smc_judgement){0};
    /* A library linked to a newer CUDA runtime than the driver stops before any kernel. */
    /* Built by a newer CUDA major than the driver supports: its runtime stops before any kernel
     * loads, even with cudart linked statically (cuda-compat.md §5.2, §11). */
    const char *why;
    unsigned built = built_by(lib, &why);
    bool too_new = built && driver_cuda > 0 && (int)built * 1000 > driver_cuda;
    for (size_t i = 0; i < lib->container_count; i++) {
        smc_verdict v = container_verdict(lib, i, cc, driver_cuda, probe, ctx, &j.s);
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
    j.counted = by[SMC_VERDICT_NATIVE] + by[SMC_VERDICT_COMPATIBLE] + by[SMC_VERDICT_JIT] +
                by[SMC_VERDICT_JIT_BLOCKED] + by[SMC_VERDICT_NONE];
    r->status = j.counted == 0                  ? SMC_STATUS_OK
                : r->failing_count == j.counted ? SMC_STATUS_NONE
                : r->failing_count              ? SMC_STATUS_PARTIAL
                : by[SMC_VERDICT_JIT]           ? SMC_STATUS_JIT
                                                : SMC_STATUS_OK;
    j.built = too_new ? built : 0;
    j.built_why = why;
    r->reason = reason(&j, r);
    r->warnings = warnings(&j);
    return r->reason ? SMC_OK : SMC_ERR_NOMEM;
}

smc_status smc_library_judge(smc_library *lib, const smc_target *targets, size_t n, int driver_cuda,
                             smc_kernel_probe probe, void *ctx)
{
    if (n == 0) return SMC_OK;
    lib->judgements = calloc(n, sizeof *lib->judgements);
    if (!lib->judgements) return SMC_ERR_NOMEM;
    lib->judgement_count = n;
    for (size_t i = 0; i < n; i++) {
        smc_status st = judge_one(lib, &targets[i], driver_cuda, probe, ctx, &lib->judgements[i]);
        if (st != SMC_OK) return st;
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
