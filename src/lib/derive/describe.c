/* describe.c: the sentences that explain judgements, for the reports: the judge (verdict.c)
 * leaves a cause code and its numbers, and this turns them into words. Works on the model only. */
#include "derive.h"

#include <smcheck/builds.h>

#include <stdio.h>
#include <stdlib.h>

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

/* "needs a driver for CUDA 13.0 (R580) or newer": the highest of what the code needs (cuda) and
 * what the GPU itself needs (no driver before the first CUDA for its architecture runs it). */
static void needs_driver(char *buf, size_t n, int cuda, const smc_target *t)
{
    int gpu = t ? smc_cuda_for_arch(t->cc_major * 10 + t->cc_minor) : 0;
    if (gpu > cuda) cuda = gpu;
    int branch = smc_driver_branch_for_cuda(cuda);
    char v[16];
    cuda_str(v, sizeof v, cuda);
    if (branch)
        snprintf(buf, n, "needs a driver for CUDA %s (R%d) or newer", v, branch);
    else
        snprintf(buf, n, "needs a driver for CUDA %s or newer", v);
}

/* Why some or all counted containers fail, beyond "built for other GPUs". */
static void clause(char *buf, size_t n, const smc_library *lib, const smc_judgement *j,
                   const smc_target *t, int driver_cuda)
{
    char drv[16], need[96];
    cuda_str(drv, sizeof drv, driver_cuda);
    buf[0] = '\0';
    switch (j->cause) {
    case SMC_CAUSE_BUILT_NEWER: {
        char evidence[64], rt[40];
        switch (j->built_by) {
        case SMC_EVIDENCE_TKINFO:
            snprintf(evidence, sizeof evidence, "its cubins' ptxas: release %d.%d",
                     j->built_cuda / 1000, j->built_cuda % 1000 / 10);
            break;
        case SMC_EVIDENCE_CUBIN_ABI:
            snprintf(evidence, sizeof evidence, "cubin ABI 1.8 below sm_100");
            break;
        case SMC_EVIDENCE_PTX_ISA: /* 9.x is CUDA 13's; else the only word: a lower bound */
            if (j->newest_isa >= 90)
                snprintf(evidence, sizeof evidence, "PTX ISA 9.x");
            else
                snprintf(evidence, sizeof evidence, "its PTX's ISA %u.%u, nothing else says",
                         j->newest_isa / 10, j->newest_isa % 10);
            break;
        case SMC_EVIDENCE_CUDART:
            snprintf(evidence, sizeof evidence, "it needs %s",
                     smc_cudart_name(rt, sizeof rt, lib));
            break;
        default:
            snprintf(evidence, sizeof evidence, "its distribution says so");
            break;
        }
        needs_driver(need, sizeof need, (int)j->built_major * 1000, t);
        snprintf(buf, n, "built by CUDA %u (%s); the driver supports %s; %s", j->built_major,
                 evidence, drv, need);
        break;
    }
    case SMC_CAUSE_CUBIN_ABI:
        needs_driver(need, sizeof need, 13000, t);
        snprintf(buf, n, "built by CUDA 13 (cubin ABI 1.8); the driver supports %s; %s", drv, need);
        break;
    case SMC_CAUSE_PTX_ISA:
        needs_driver(need, sizeof need, smc_cuda_for_ptx_isa(j->isa / 10, j->isa % 10), t);
        snprintf(buf, n, "its PTX (ISA %u.%u) is newer than a driver for CUDA %s can compile; %s",
                 j->isa / 10, j->isa % 10, drv, need);
        break;
    case SMC_CAUSE_TILEIR_DRIVER: {
        char tile[16];
        cuda_str(tile, sizeof tile, j->tileir_cuda);
        needs_driver(need, sizeof need, j->tileir_cuda, t);
        snprintf(buf, n,
                 "its Tile IR needs a driver for CUDA %s or newer, with its Tile IR compiler "
                 "(libnvidia-tileiras); the driver supports %s; %s",
                 tile, drv, need);
        break;
    }
    case SMC_CAUSE_DRIVER_GPU: {
        char first[16];
        cuda_str(first, sizeof first, j->gpu_cuda);
        needs_driver(need, sizeof need, j->gpu_cuda, t);
        snprintf(buf, n, "no driver before CUDA %s runs this GPU: the driver supports %s; %s",
                 first, drv, need);
        break;
    }
    case SMC_CAUSE_TEGRA:
        snprintf(buf, n,
                 "a cubin for a lower minor does not run on Jetson with its L4T driver (CUDA 12 "
                 "or older: no binary compatibility on Tegra); on Orin with JetPack 7.2's CUDA 13 "
                 "driver users report that it does (--driver 13.2 judges so)");
        break;
    case SMC_CAUSE_RUNTIME: {
        char rt[16];
        cuda_str(rt, sizeof rt, j->runtime_cuda);
        needs_driver(need, sizeof need, j->runtime_cuda, t);
        snprintf(buf, n,
                 "its CUDA %s runtime is newer than the driver (CUDA %s): before CUDA 11.1 a "
                 "runtime stops at start-up on an older driver (\"CUDA driver version is "
                 "insufficient for CUDA runtime version\"); %s",
                 rt, drv, need);
        break;
    }
    case SMC_CAUSE_PLATFORM: {
        char rt[40] = "";
        if (lib->windows)
            snprintf(rt, sizeof rt, "a Windows DLL for %s", smc_library_platform(lib) + 8);
        else if (lib->machine == 62) snprintf(rt, sizeof rt, "an x86-64 ELF library");
        else if (lib->machine == 183) snprintf(rt, sizeof rt, "an AArch64 ELF library");
        else snprintf(rt, sizeof rt, "an ELF library for machine %u", lib->machine);
        snprintf(buf, n, "%s: it cannot load on %s, whatever its device code", rt,
                 j->platform ? j->platform : "this platform");
        break;
    }
    case SMC_CAUSE_UNSUPPORTED: {
        const smc_support *row = j->support;
        char ccs[160] = "";
        size_t len = 0;
        for (size_t i = 0; row && i < row->count && len + 16 < sizeof ccs; i++)
            len += (size_t)snprintf(ccs + len, sizeof ccs - len, "%s%u.%u",
                                    !i ? "" : i + 1 == row->count ? " and " : ", ",
                                    row->list[i] / 10, row->list[i] % 10);
        if (row && row->count)
            snprintf(buf, n,
                     "NVIDIA supports this release of it on compute capability %s only%s "
                     "(data/support.tsv)",
                     ccs, row->refused ? ", and it refuses other GPUs when it starts" : "");
        else if (row)
            snprintf(buf, n,
                     "NVIDIA supports this release of it from compute capability %u.%u on: the "
                     "modules it keeps for older GPUs do not make it run there (data/support.tsv)",
                     row->from / 10, row->from % 10);
        break;
    }
    case SMC_CAUSE_NEEDS:
        if (j->needs_other)
            snprintf(buf, n,
                     "it needs %s, and its input has only %s: the loader stops at it (\"%s: "
                     "cannot open shared object file\")",
                     j->needs, j->needs_other, j->needs);
        else
            snprintf(buf, n,
                     "it needs %s, which nothing in this root provides: the loader stops at it "
                     "(\"%s: cannot open shared object file\")",
                     j->needs, j->needs);
        break;
    default:
        break;
    }
}

/* "only sm_90a compute_90a code: it runs on 9.0 only, not on A100 (8.0)". */
static char *gated_reason(const smc_library *lib, const smc_target *t)
{
    char who[192], runs[256] = "";
    label(who, sizeof who, t);
    size_t *every = malloc((lib->container_count ? lib->container_count : 1) * sizeof *every);
    if (!every) return NULL;
    for (size_t i = 0; i < lib->container_count; i++)
        every[i] = i;
    bool ptx;
    char *toks = smc_failing_tokens(lib, every, lib->container_count, &ptx);
    free(every);
    if (!toks) return NULL;
    /* The GPUs it serves: an 'a' image its own, an 'f' image its family. */
    size_t len = 0, shown = 0;
    char seen[8][48];
    for (size_t i = 0; i < lib->image_count; i++) {
        const smc_image *img = &lib->images[i];
        smc_variant v;
        unsigned a;
        smc_image_target(img, &a, &v);
        if (smc_image_opaque(img->kind) || v == SMC_VARIANT_NONE) continue;
        char one[48];
        snprintf(one, sizeof one, v == SMC_VARIANT_A ? "%u.%u" : "the %u.%u family", a / 10,
                 a % 10);
        bool again = false;
        for (size_t k = 0; k < shown; k++)
            again |= strcmp(seen[k], one) == 0;
        if (again || shown == 8) continue;
        memcpy(seen[shown++], one, sizeof one);
        if (len + strlen(one) + 3 < sizeof runs)
            len += (size_t)snprintf(runs + len, sizeof runs - len, "%s%s", len ? ", " : "", one);
    }
    char *out = smc_asprintf("only arch- or family-specific code (%s): it runs on %s only, not "
                             "on %s; its host code chooses by GPU",
                             toks, runs[0] ? runs : "other GPUs", who);
    free(toks);
    return out;
}

/* Counts in words: "1 of 1 container has", "2 of 3 containers have". */
static const char *noun(size_t n)
{
    return n == 1 ? "container" : "containers";
}

static const char *has(size_t n)
{
    return n == 1 ? "has" : "have";
}

static const char *carry(size_t n)
{
    return n == 1 ? "it carries" : "they carry";
}

/* ", 1 through PTX" for an ok library with a few modules of PTX beside its cubins. */
static const char *jit_words(char *buf, size_t n, const size_t *by)
{
    buf[0] = '\0';
    if (by[SMC_VERDICT_JIT]) snprintf(buf, n, ", %zu through PTX", by[SMC_VERDICT_JIT]);
    return buf;
}

/* "; 864 modules for other GPUs ..." where it keeps modules for other GPUs (other-gpus). */
static const char *other_words(char *buf, size_t n, const size_t *by)
{
    size_t k = by[SMC_VERDICT_OTHER_GPUS];
    buf[0] = '\0';
    if (k)
        snprintf(buf, n, "; %zu %s for other GPUs, which it picks by GPU at run time (--detail "
                         "names them)",
                 k, k == 1 ? "module" : "modules");
    return buf;
}

/* " (no CUDA release since 8.0 builds for it)" for a GPU that today's toolkits dropped. */
static const char *last_words(char *buf, size_t n, const smc_target *t)
{
    int last = smc_compiler_last(t->cc_major * 10 + t->cc_minor);
    buf[0] = '\0';
    if (last)
        snprintf(buf, n, " (no CUDA release since %d.%d builds for it)", last / 1000,
                 last % 1000 / 10);
    return buf;
}

/* A library whose main architecture list lacks the GPU: none, or partial where some modules
 * serve it. */
static char *main_list_words(const smc_library *lib, const smc_judgement *j, const char *who,
                             const smc_target *t)
{
    bool p2, ptx;
    char *list = j->main_example != SMC_NONE
                     ? smc_failing_tokens(lib, &j->main_example, 1, &p2)
                     : smc_strdup("?");
    char *toks = smc_failing_tokens(lib, j->failing, j->failing_count, &ptx);
    size_t serving = j->counted - j->failing_count;
    char *out = NULL;
    if (list && toks && j->status == SMC_STATUS_NONE) {
        char last[64];
        out = smc_asprintf("it is built for %s (%zu %s), none of it for %s, and only %zu of %zu "
                           "%s serve%s it; %s needs an sm_%u%u cubin or PTX%s",
                           list, j->main_set, noun(j->main_set), who, serving, j->counted,
                           noun(j->counted), serving == 1 ? "s" : "", who, t->cc_major,
                           t->cc_minor, last_words(last, sizeof last, t));
    } else if (list && toks)
        out = smc_asprintf("its main architecture list %s (%zu %s) lacks %s: %zu of %zu %s "
                           "serve it, %zu %s not (%s %s)",
                           list, j->main_set, noun(j->main_set), who, serving, j->counted,
                           noun(j->counted), j->failing_count,
                           j->failing_count == 1 ? "does" : "do", carry(j->failing_count), toks);
    free(list);
    free(toks);
    return out;
}

char *smc_judgement_reason(const smc_library *lib, const smc_judgement *j, const smc_target *t,
                           int driver_cuda)
{
    const size_t *by = j->containers_by_verdict;
    char who[192], because[512], need[192], jw[64], ow[160];
    label(who, sizeof who, t);
    clause(because, sizeof because, lib, j, t, driver_cuda);
    bool driver = j->cause == SMC_CAUSE_BUILT_NEWER || j->cause == SMC_CAUSE_CUBIN_ABI ||
                  j->cause == SMC_CAUSE_PTX_ISA || j->cause == SMC_CAUSE_DRIVER_GPU ||
                  j->cause == SMC_CAUSE_RUNTIME || j->cause == SMC_CAUSE_PLATFORM ||
                  j->cause == SMC_CAUSE_NEEDS || j->cause == SMC_CAUSE_UNSUPPORTED ||
                  j->cause == SMC_CAUSE_TILEIR_DRIVER;
    bool ptx;
    char *toks, *out = NULL;
    switch (j->status) {
    case SMC_STATUS_OK:
        if (j->cause == SMC_CAUSE_NOTHING)
            return smc_asprintf("no container to judge (%zu gated, %zu without kernels, %zu "
                                "relocatable)",
                                by[SMC_VERDICT_GATED], by[SMC_VERDICT_NO_KERNELS],
                                by[SMC_VERDICT_RELOCATABLE]);
        return smc_asprintf("%zu native, %zu compatible%s of %zu %s%s", by[SMC_VERDICT_NATIVE],
                            by[SMC_VERDICT_COMPATIBLE], jit_words(jw, sizeof jw, by), j->counted,
                            noun(j->counted), other_words(ow, sizeof ow, by));
    case SMC_STATUS_JIT:
        if (j->tileir_cuda && !j->isa) { /* Tile IR alone: the driver's Tile IR compiler */
            char tile[16];
            cuda_str(tile, sizeof tile, j->tileir_cuda);
            if (driver_cuda) {
                char drv[16];
                cuda_str(drv, sizeof drv, driver_cuda);
                snprintf(need, sizeof need,
                         "the driver (CUDA %s) compiles it where it has its "
                         "Tile IR compiler (libnvidia-tileiras)",
                         drv);
            } else
                needs_driver(need, sizeof need, j->tileir_cuda, t);
            return smc_asprintf("%zu of %zu %s %s on Tile IR, compiled by the driver's Tile IR "
                                "compiler at first launch (CUDA %s or newer; without it "
                                "CUDA_ERROR_JIT_COMPILER_NOT_FOUND); %s%s",
                                by[SMC_VERDICT_JIT], j->counted, noun(j->counted),
                                by[SMC_VERDICT_JIT] == 1 ? "relies" : "rely", tile, need,
                                other_words(ow, sizeof ow, by));
        }
        if (driver_cuda) {
            char drv[16];
            cuda_str(drv, sizeof drv, driver_cuda);
            snprintf(need, sizeof need, "the driver (CUDA %s) can compile it", drv);
        } else {
            needs_driver(need, sizeof need, smc_cuda_for_ptx_isa(j->isa / 10, j->isa % 10), t);
        }
        return smc_asprintf("%zu of %zu %s %s on PTX (up to ISA %u.%u), compiled by the "
                            "driver at first launch; %s%s",
                            by[SMC_VERDICT_JIT], j->counted, noun(j->counted),
                            by[SMC_VERDICT_JIT] == 1 ? "relies" : "rely", j->isa / 10,
                            j->isa % 10, need, other_words(ow, sizeof ow, by));
    case SMC_STATUS_PARTIAL:
        if (j->cause == SMC_CAUSE_MAIN_ARCH) return main_list_words(lib, j, who, t);
        if (!(toks = smc_failing_tokens(lib, j->failing, j->failing_count, &ptx))) return NULL;
        if (!because[0])
            out = smc_asprintf("%zu of %zu %s %s no usable image (%s %s); --detail names them",
                               j->failing_count, j->counted, noun(j->counted),
                               has(j->failing_count), carry(j->failing_count), toks);
        else
            out = smc_asprintf("%zu of %zu %s %s no usable image (%s %s): %s",
                               j->failing_count, j->counted, noun(j->counted),
                               has(j->failing_count), carry(j->failing_count), toks, because);
        free(toks);
        return out;
    case SMC_STATUS_GATED:
        return gated_reason(lib, t);
    case SMC_STATUS_NO_CODE:
    case SMC_STATUS_CPU_ONLY: /* a distribution's, never a library's */
    case SMC_STATUS_COMPILER:
        return smc_strdup("no device code");
    case SMC_STATUS_NONE:
        if (j->cause == SMC_CAUSE_MAIN_ARCH) return main_list_words(lib, j, who, t);
        if (!(toks = smc_failing_tokens(lib, j->failing, j->failing_count, &ptx))) return NULL;
        if (driver)
            out = smc_strdup(because); /* the driver, not the GPU, is what fails */
        else if (j->cause == SMC_CAUSE_TEGRA)
            out = smc_asprintf("has %s: %s; %s needs an sm_%u%u cubin or PTX", toks, because, who,
                               t->cc_major, t->cc_minor);
        else
            out = smc_asprintf("has %s%s; %s needs an sm_%u%u cubin or PTX%s", toks,
                               ptx ? ", none for it" : " and no PTX", who, t->cc_major,
                               t->cc_minor, last_words(jw, sizeof jw, t));
        free(toks);
        return out;
    }
    return NULL;
}

char *smc_judgement_warnings(const smc_judgement *j, int driver_cuda)
{
    char buf[1024], drv[16];
    size_t len = 0;
    buf[0] = '\0';
    cuda_str(drv, sizeof drv, driver_cuda);
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (len < sizeof buf)                                                                      \
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s", len ? "; " : "");           \
        if (len < sizeof buf) len += (size_t)snprintf(buf + len, sizeof buf - len, __VA_ARGS__);   \
    } while (0)
    if (j->warnings & SMC_WARN_THOR)
        ADD("sm_101 images count on Thor (11.0) as PyTorch's table says; NVIDIA does not say so");
    if (j->warnings & SMC_WARN_TEGRA_SBSA)
        ADD("lower-minor cubins counted on Orin with a CUDA 13 driver (JetPack 7.2), as users "
            "report (conda-forge's pytorch, ollama, nixpkgs) and NVIDIA does not document; to "
            "confirm, run one kernel with CUDA_FORCE_PTX_JIT=0 and CUDA_DISABLE_PTX_JIT=1");
    if (j->warnings & SMC_WARN_JIT_LARGE)
        ADD("the driver compiles %.0f MiB of PTX (%zu containers) at first launch on this GPU: "
            "minutes or more, which look like a hang; later runs reuse the JIT cache "
            "(~/.nv/ComputeCache) only if CUDA_CACHE_MAXSIZE (default 1 GiB, 256 MiB on "
            "Jetson) holds the result",
            (double)j->jit_bytes / 1048576.0, j->jit_containers);
    if ((j->warnings & SMC_WARN_HOST_LIBRARY) && j->needs) {
        char more[48] = "";
        if (j->needs_more)
            snprintf(more, sizeof more, " and %zu more CUDA librar%s", j->needs_more,
                     j->needs_more == 1 ? "y" : "ies");
        ADD("it needs %s%s, which the environment does not have: it relies on the host's (the "
            "system's library paths, LD_LIBRARY_PATH)",
            j->needs, more);
    }
    if (j->warnings & SMC_WARN_NEWER_MINOR) {
        char b[16];
        cuda_str(b, sizeof b, j->built_cuda);
        unsigned isa = j->newest_isa;
        char by[48];
        if (j->built_cuda_by == SMC_EVIDENCE_WHEEL)
            snprintf(by, sizeof by, "its distribution says so");
        else if (isa && smc_cuda_for_ptx_isa(isa / 10, isa % 10) == j->built_cuda)
            snprintf(by, sizeof by, "PTX ISA %u.%u", isa / 10, isa % 10);
        else
            snprintf(by, sizeof by, "its cubins' ptxas");
        ADD("built by CUDA %s (%s) and the driver supports %s: cubins from a newer minor "
            "toolkit usually load, but some drivers reject them",
            b, by, drv);
    }
    if (j->warnings & SMC_WARN_ZSTD)
        ADD("Zstandard-compressed images need a driver of 550.54.14 (CUDA 12.4) or newer, per "
            "RAPIDS' documentation (not confirmed by NVIDIA)");
    if (j->warnings & SMC_WARN_LZ4)
        ADD("LZ4-compressed images need a driver of 525.60.13 (CUDA 12.0) or newer, per "
            "RAPIDS' documentation (not confirmed by NVIDIA)");
#undef ADD
    return len ? smc_strdup(buf) : NULL;
}

/* What a compiler is, in words: "Triton 3.5.0's ptxas-blackwell (CUDA 12.8, its own text)". */
static void compiler_words(char *buf, size_t n, const smc_input *in, const smc_compiler *c)
{
    const smc_distribution *d =
        c->distribution < in->distribution_count ? &in->distributions[c->distribution] : NULL;
    char cuda[64] = "CUDA not known";
    if (c->cuda)
        snprintf(cuda, sizeof cuda, "CUDA %d.%d, %s", c->cuda / 1000, c->cuda % 1000 / 10,
                 c->cuda_source);
    if (c->kind == SMC_COMPILER_TRITON)
        snprintf(buf, n, "Triton %s's %s (%s)", d && d->version ? d->version : "(version not known)",
                 smc_base_name(c->path), cuda);
    else if (c->kind == SMC_COMPILER_XLA)
        snprintf(buf, n, "%s %s's ptxas, which XLA (JAX) compiles with (%s)",
                 d && d->name ? d->name : "nvidia-cuda-nvcc", d && d->version ? d->version : "",
                 cuda);
    else if (c->kind == SMC_COMPILER_NVVM)
        snprintf(buf, n, "%s %s's libNVVM, which numba-cuda compiles its kernels with (%s)",
                 d && d->name ? d->name : "nvidia-nvvm", d && d->version ? d->version : "", cuda);
    else
        snprintf(buf, n, "%s's NVRTC (%s)", d && d->name ? d->name : smc_base_name(c->path), cuda);
}

static char *compiler_reason(const smc_input *in, const smc_compiler *c, const smc_rollup *r)
{
    char who[256], target[24];
    compiler_words(who, sizeof who, in, c);
    snprintf(target, sizeof target, "%s_%u%s", r->compile_ptx ? "compute" : "sm",
                 r->compile_arch, r->compile_a ? "a" : "");
    const char *what = c->kind == SMC_COMPILER_TRITON ? "torch.compile and Triton kernels fail"
                       : c->kind == SMC_COMPILER_XLA
                           ? "JAX fails at its first jit (XLA compiles every kernel with it)"
                       : c->kind == SMC_COMPILER_NVVM
                           ? "numba-cuda's kernels fail to compile (NVVM_ERROR_INVALID_OPTION)"
                           : "kernels compiled at run time with it (CuPy's, PyTorch's jiterator, "
                             "numba-cuda's, NVRTC users) fail (\"invalid value for "
                             "--gpu-architecture\", numba-cuda's CCSupportError)";
    if (r->compile_override)
        return smc_asprintf("%s is not the one used: %s names it (not read)", who,
                            r->compile_override);
    if (r->status == SMC_STATUS_COMPILER)
        return smc_asprintf("%s does not know %s: %s", who, target, what);
    return r->compile_knows == 1 ? smc_asprintf("%s compiles for %s%s", who, target,
                                                r->compile_ptx
                                                    ? " (its users cap what they ask for at "
                                                      "what it knows: PTX the driver compiles)"
                                                    : "")
                      : smc_asprintf("%s: whether it knows %s is not known", who, target);
}

char *smc_rollup_reason(const smc_input *in, const smc_judged *jd, const smc_rollup *r, size_t t)
{
    if (r->compiler < jd->compiler_count && r->library == SMC_NONE &&
        (r->status == SMC_STATUS_COMPILER || r->status == SMC_STATUS_OK ||
         r->status == SMC_STATUS_NO_CODE))
        return compiler_reason(in, &jd->compilers[r->compiler], r);
    if (r->status == SMC_STATUS_NO_CODE) return smc_strdup("no device code");
    if (r->status == SMC_STATUS_CPU_ONLY)
        return smc_asprintf("a CPU-only build (%s): it installs and imports, and the GPU will "
                            "not be used",
                            r->cpu_only ? r->cpu_only : "no device code");
    if (r->requires) {
        char need[96], compat[160] = "";
        needs_driver(need, sizeof need, r->requires, NULL);
        if (r->compat)
            snprintf(compat, sizeof compat,
                     "; its forward-compatibility package (CUDA %d.%d) works on data-center GPUs "
                     "and Jetson only",
                     r->compat / 1000, r->compat % 1000 / 10);
        return smc_asprintf("the image asks for CUDA %d.%d (%s), newer than the driver: it %s%s",
                            r->requires / 1000, r->requires % 1000 / 10,
                            in->require_cuda ? in->require_cuda : "NVIDIA_REQUIRE_CUDA", need,
                            compat);
    }
    if (r->missing_cuda && r->missing < in->library_count) {
        char *file = smc_alternative_for(in->libraries[r->missing].path, r->missing_cuda);
        const smc_distribution *torch =
            r->torch < in->distribution_count ? &in->distributions[r->torch] : NULL;
        char by[128];
        if (torch)
            snprintf(by, sizeof by, "the installed torch %s's CUDA %u.%u%s",
                     torch->version ? torch->version : "", r->missing_cuda / 10,
                     r->missing_cuda % 10,
                     r->torches > 1 ? " (the torch in its site-packages)" : "");
        else
            snprintf(by, sizeof by, "%s", r->override ? r->override : "its loader");
        char *s = file ? smc_asprintf("%s asks for %s, which is not among its %zu alternatives: "
                                      "none of them is loaded",
                                      by, file, r->choices)
                       : NULL;
        free(file);
        return s;
    }
    if (r->chooser_cc && r->library >= in->library_count)
        return smc_asprintf("its loader picks %s library by its GPU of compute capability %u.%u "
                            "(data/loaders.tsv), and it ships none: nothing with device code is "
                            "loaded",
                            r->twin_missing ? "a _nocublaslt" : "a cuBLASLt (not _nocublaslt)",
                            r->chooser_cc / 10, r->chooser_cc % 10);
    if (r->all_gated)
        return smc_strdup("every library with device code is gated: only arch-specific code for "
                          "other GPUs, so nothing in it runs here");
    if (r->library >= in->library_count) return smc_strdup(smc_lib_status_str(r->status));
    const smc_library *lib = &in->libraries[r->library];
    const smc_library_judged *lj = &jd->libraries[r->library];
    smc_lib_status own = t < lj->judgement_count ? lj->judgements[t].status : r->status;
    const char *name = smc_base_name(lib->path);
    if (r->vendored)
        return smc_asprintf("its own code runs; %s, which it ships from another project, is %s "
                            "here",
                            name, smc_lib_status_str(own));
    smc_use use;
    const smc_distribution *d = lib->distribution < in->distribution_count
                                    ? &in->distributions[lib->distribution]
                                    : NULL;
    if (r->on_demand && d && d->name && smc_use_for(d->name, lib->path, &use))
        return smc_asprintf("its %s fails: %s, which it loads at the first call of it, is %s "
                            "here; the rest runs",
                            use.feature, name, smc_lib_status_str(own));
    if (r->on_demand && smc_use_for("torch", lib->path, &use)) /* torch's, installed beside it */
        return smc_asprintf("torch's %s fails: %s, which only that uses, is %s here; the rest "
                            "runs",
                            use.feature, name, smc_lib_status_str(own));
    if (r->choices && r->chosen && r->torch < in->distribution_count) {
        const smc_distribution *torch = &in->distributions[r->torch];
        char which[96] = "";
        if (r->torches > 1)
            snprintf(which, sizeof which, " (of %zu torches installed, the one in its "
                                          "site-packages)", r->torches);
        return smc_asprintf("%s, the one of %zu alternatives that the installed torch %s's CUDA "
                            "picks%s%s, is %s (%zu of them serve this GPU)",
                            name, r->choices, torch->version ? torch->version : "", which,
                            r->nearest ? " (none is for its CUDA: the loader takes the nearest "
                                         "of the same major)"
                                       : "",
                            smc_lib_status_str(own), r->serving);
    }
    if (r->choices && r->chosen && r->override)
        return smc_asprintf("%s, the one of %zu alternatives that %s picks, is %s (%zu of them "
                            "serve this GPU)",
                            name, r->choices, r->override, smc_lib_status_str(own), r->serving);
    if (r->choices && r->machine_choice)
        return smc_asprintf("its loader picks one set of alternatives once for the whole machine, "
                            "by its GPU of compute capability %u.%u (data/loaders.tsv): one of "
                            "%zu is loaded, and %zu of them serve this GPU (%s is %s)",
                            r->chooser_cc / 10, r->chooser_cc % 10, r->choices, r->serving, name,
                            smc_lib_status_str(own));
    if (r->choices)
        return smc_asprintf("one of %zu alternatives is loaded at run time; %zu serve this GPU "
                            "(%s is %s)%s",
                            r->choices, r->serving, name, smc_lib_status_str(own),
                            r->torches > 1 ? "; of the torches installed, none is beside it to "
                                             "say which"
                                           : "");
    return smc_asprintf("%s is %s", name, smc_lib_status_str(own));
}

int smc_next_driver(const smc_judgement *j)
{
    if (j->status != SMC_STATUS_NONE) return 0;
    switch (j->cause) {
    case SMC_CAUSE_BUILT_NEWER:
        return (int)j->built_major * 1000;
    case SMC_CAUSE_CUBIN_ABI:
        return 13000;
    case SMC_CAUSE_PTX_ISA:
        return smc_cuda_for_ptx_isa(j->isa / 10, j->isa % 10);
    case SMC_CAUSE_TILEIR_DRIVER:
        return j->tileir_cuda;
    case SMC_CAUSE_DRIVER_GPU:
        return j->gpu_cuda;
    case SMC_CAUSE_RUNTIME:
        return j->runtime_cuda;
    default:
        return 0;
    }
}

char *smc_next_step(const smc_library *lib, const smc_judgement *j, const smc_target *t,
                    int driver_cuda, bool build)
{
    if (j->status != SMC_STATUS_NONE) return NULL;
    char drv[32];
    int need = build ? 0 : smc_next_driver(j);
    if (need && (j->cause == SMC_CAUSE_BUILT_NEWER || j->cause == SMC_CAUSE_CUBIN_ABI)) {
        const char *d = smc_driver_for_cuda(need, false, drv, sizeof drv);
        return smc_asprintf("a driver of %s or newer (CUDA %d), or a build of it for CUDA %d",
                            d ? d : "a newer branch", need / 1000, driver_cuda / 1000);
    }
    if (need) {
        const char *d = smc_driver_for_cuda(need, true, drv, sizeof drv);
        return smc_asprintf("a driver of %s or newer (CUDA %d.%d)", d ? d : "a newer branch",
                            need / 1000, need % 1000 / 10);
    }
    /* Built for other GPUs (or a driver would not do): what a build for this one takes. */
    unsigned cc = t->cc_major * 10 + t->cc_minor;
    int cuda = smc_cuda_for_arch(cc);
    char first[48] = "a CUDA toolkit that knows it";
    if (cuda) snprintf(first, sizeof first, "CUDA %d.%d or newer", cuda / 1000, cuda % 1000 / 10);
    const char *d = cuda ? smc_driver_for_cuda(cuda, true, drv, sizeof drv) : NULL;
    char torch[48] = ""; /* a PyTorch extension is built with the list torch's tools read */
    if (lib && lib->links_torch)
        snprintf(torch, sizeof torch, " (TORCH_CUDA_ARCH_LIST=%u.%u)", t->cc_major, t->cc_minor);
    return smc_asprintf("a build for sm_%u: %s, nvcc -gencode arch=compute_%u,code=sm_%u%s, and a "
                        "driver of %s or newer",
                        cc, first, cc, cc, torch, d ? d : "that CUDA");
}
