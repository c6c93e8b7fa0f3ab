/* verdict.c: the judge. A pure pass over the finished model: given the images of each library
 * and what reading found out about them (kernels, toolkit, PTX text), a GPU's compute capability
 * and what is known of the driver, it says which containers will load, the status of each
 * library, then of each distribution and input, and overall. It reads no bytes and writes no
 * sentences: causes are codes and numbers (describe.c words them). Rules and their sources:
 * shared/reference/cuda-compat.md §2 (binary compatibility, a/f variants, Tegra), §4 (PTX ISA),
 * §5 and §11 (drivers). */
#include "judge.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

/* What judging one container found, beyond its verdict. */
typedef struct seen {
    bool cuda13, tegra, ptx_isa, thor, sbsa;
    uint64_t jit_bytes;   /* the PTX a jit container would have the driver compile */
    unsigned jit_isa;     /* the newest PTX ISA a jit container relies on */
    unsigned blocked_isa; /* the newest PTX ISA the driver cannot compile */
} seen;

/* *by_arch: it fails for its architectures alone (no image for the GPU, none the driver could
 * load but for that). */
static smc_verdict container_verdict(const smc_library *lib, size_t index, unsigned cc,
                                     int driver_cuda, seen *s, bool *by_arch)
{
    *by_arch = false;
    const smc_container *c = &lib->containers[index];
    if (c->relocatable) return SMC_VERDICT_RELOCATABLE;
    smc_verdict best = SMC_VERDICT_NONE;
    bool any = false, all_variants = true, only_arch = true;
    seen here = {0};
    const smc_image *jit = NULL;
    for (size_t i = c->first_image; i < c->first_image + c->image_count; i++) {
        const smc_image *img = &lib->images[i];
        if (img->kind == SMC_IMAGE_LTO) continue;
        int why;
        smc_verdict v = smc_image_verdict(img, cc, driver_cuda, &why);
        any = true;
        all_variants &= smc_image_variant(img) != SMC_VARIANT_NONE;
        only_arch &= why == SMC_WHY_NONE || why == SMC_WHY_ARCH;
        here.cuda13 |= why == SMC_WHY_CUDA13;
        here.tegra |= why == SMC_WHY_TEGRA;
        here.ptx_isa |= why == SMC_WHY_PTX_ISA;
        if (why == SMC_WHY_PTX_ISA && smc_image_isa(img) > here.blocked_isa)
            here.blocked_isa = smc_image_isa(img);
        here.thor |= why == SMC_WHY_THOR_RENAMED && v != SMC_VERDICT_NONE;
        here.sbsa |= why == SMC_WHY_TEGRA_SBSA && v != SMC_VERDICT_NONE;
        if (v == SMC_VERDICT_JIT && smc_image_isa(img) > here.jit_isa) here.jit_isa = smc_image_isa(img);
        /* The PTX the driver compiles: the newest it can for the GPU, one a container. */
        if (v == SMC_VERDICT_JIT && (!jit || smc_image_arch(img) > smc_image_arch(jit))) jit = img;
        if (v < best) best = v;
    }
    if (!any) return SMC_VERDICT_NO_KERNELS; /* empty, or LTO IR only */
    if (best <= SMC_VERDICT_COMPATIBLE) {
        s->thor |= here.thor;
        s->sbsa |= here.sbsa;
        return best;
    }
    /* Only 'a'/'f' images for other GPUs: the host code dispatches. */
    bool gated = best > SMC_VERDICT_JIT && all_variants && only_arch;
    /* nvlink's device-link module, or a module whose every cubin was read and holds no kernel
     * (its PTX has none either): without a cubin that loads, what it holds matters. */
    if (!gated && c->kernels == 0) return SMC_VERDICT_NO_KERNELS;
    if (best == SMC_VERDICT_JIT) {
        s->thor |= here.thor;
        if (here.jit_isa > s->jit_isa) s->jit_isa = here.jit_isa;
        s->jit_bytes = jit->size;
        return best;
    }
    if (gated) return SMC_VERDICT_GATED;
    *by_arch = best == SMC_VERDICT_NONE && only_arch;
    s->cuda13 |= here.cuda13;
    s->tegra |= here.tegra;
    s->ptx_isa |= here.ptx_isa;
    if (here.blocked_isa > s->blocked_isa) s->blocked_isa = here.blocked_isa;
    return best;
}

/* An image's token as a number that sorts in token order: kind (cubins, PTX, LTO IR), arch,
 * variant; PTX by what its text says it is for (compute_90a for ".target sm_90a"). */
static uint64_t token_key(const smc_image *img)
{
    unsigned kind = img->kind == SMC_IMAGE_CUBIN ? 0 : img->kind == SMC_IMAGE_PTX ? 1 : 2;
    return (uint64_t)kind << 40 | (uint64_t)smc_image_arch(img) << 8 | (uint64_t)smc_image_variant(img);
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

char *smc_failing_tokens(const smc_library *lib, const size_t *which, size_t n, bool *has_ptx)
{
    /* The distinct tokens, through an open-addressing set that starts small (a library has few,
     * whatever the number of its containers) and doubles when half full, then sorted. An empty
     * slot is UINT64_MAX, which no key is (the rank is at most 2). */
    size_t cap = 64, used = 0;
    uint64_t *set = malloc(cap * sizeof *set);
    char *out = malloc(12 * SMC_TOKEN_MAX + 8);
    if (!set || !out) {
        free(set);
        free(out);
        return NULL;
    }
    memset(set, 0xff, cap * sizeof *set);
    for (size_t i = 0; i < n; i++) {
        const smc_container *c = &lib->containers[which[i]];
        for (size_t j = c->first_image; j < c->first_image + c->image_count; j++) {
            if (lib->images[j].kind == SMC_IMAGE_LTO) continue;
            uint64_t key = token_key(&lib->images[j]);
            size_t at = (size_t)(key * 0x9e3779b97f4a7c15u >> 40) & (cap - 1);
            while (set[at] != UINT64_MAX && set[at] != key)
                at = (at + 1) & (cap - 1);
            if (set[at] == key) continue;
            set[at] = key;
            if (++used * 2 <= cap) continue;
            uint64_t *grown = malloc(2 * cap * sizeof *grown); /* rehash into twice the room */
            if (!grown) {
                free(set);
                free(out);
                return NULL;
            }
            memset(grown, 0xff, 2 * cap * sizeof *grown);
            for (size_t k = 0; k < cap; k++) {
                if (set[k] == UINT64_MAX) continue;
                size_t to = (size_t)(set[k] * 0x9e3779b97f4a7c15u >> 40) & (2 * cap - 1);
                while (grown[to] != UINT64_MAX)
                    to = (to + 1) & (2 * cap - 1);
                grown[to] = set[k];
            }
            free(set);
            set = grown;
            cap *= 2;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < cap; i++)
        if (set[i] != UINT64_MAX) set[k++] = set[i];
    qsort(set, k, sizeof *set, by_key);
    size_t len = 0;
    *has_ptx = false;
    for (size_t i = 0; i < k; i++)
        *has_ptx |= set[i] >> 40 == 1;
    out[0] = '\0';
    for (size_t i = 0; i < k && i <= 12; i++) {
        if (i == 12) {
            strcpy(out + len, " ...");
            break;
        }
        smc_image eff = {.kind = set[i] >> 40 == 0   ? SMC_IMAGE_CUBIN
                                 : set[i] >> 40 == 1 ? SMC_IMAGE_PTX
                                                     : SMC_IMAGE_LTO,
                         .arch = (unsigned)(set[i] >> 8),
                         .variant = (smc_variant)(set[i] & 0xff)};
        char tok[SMC_TOKEN_MAX];
        len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", smc_image_token(&eff, tok));
    }
    free(set);
    return out;
}

/* The CUDA that built a library, from the best evidence (cuda-compat.md §5.2): the ptxas release
 * in its cubins' .note.nv.tkinfo; CUDA 13 for cubins in its format (ABI v2 below sm_100) or PTX
 * ISA 9.x; DT_NEEDED libcudart.so.N for CUDA N; what its distribution says; where none of them
 * does, the release of its newest PTX ISA. The newest major any of them names wins; *cuda is the
 * full version when known (else major.0, or from the PTX ISA). */
static unsigned built_by(const smc_library *lib, int wheel_cuda, smc_evidence *why, int *cuda,
                         smc_evidence *minor_by)
{
    unsigned wheel_major = (unsigned)(wheel_cuda / 1000);
    unsigned major = 0, isa = 0;
    *why = SMC_EVIDENCE_NONE;
    if (lib->release) {
        major = lib->release / 1000;
        *why = SMC_EVIDENCE_TKINFO;
    }
    bool abi = false;
    for (size_t i = 0; i < lib->image_count; i++) {
        const smc_image *img = &lib->images[i];
        abi |= smc_image_cuda13(img) && !img->release;
        if (img->kind == SMC_IMAGE_PTX && smc_image_isa(img) > isa) isa = smc_image_isa(img);
    }
    if (abi && major < 13) {
        major = 13;
        *why = SMC_EVIDENCE_CUBIN_ABI;
    }
    if (isa >= 90 && major < 13) {
        major = 13;
        *why = SMC_EVIDENCE_PTX_ISA;
    }
    if (lib->cudart_major > major) {
        major = lib->cudart_major;
        *why = SMC_EVIDENCE_CUDART;
    }
    if (wheel_major > major) {
        major = wheel_major;
        *why = SMC_EVIDENCE_WHEEL;
    }
    int by_isa = isa ? smc_cuda_for_ptx_isa(isa / 10, isa % 10) : 0;
    /* Nothing else says it (a runtime linked statically, no toolkit note: ctranslate2 4.x): its
     * PTX's ISA was written by a toolkit of at least that release, whose runtime it links. */
    if (!major && by_isa) {
        major = (unsigned)by_isa / 1000;
        *why = SMC_EVIDENCE_PTX_ISA;
    }
    bool tk = lib->release && lib->release / 1000 >= major;
    bool ptx = !tk && by_isa && by_isa / 1000 >= (int)major;
    *cuda = tk ? (int)lib->release : ptx ? by_isa : (int)major * 1000;
    *minor_by = tk ? SMC_EVIDENCE_TKINFO : ptx ? SMC_EVIDENCE_PTX_ISA : SMC_EVIDENCE_NONE;
    /* The distribution's own word on its minor (torch 1.13.1's version.py: 11.7, where its PTX
     * is ISA 7.2) is the toolkit it was built with: the newest of them in the major. */
    if (wheel_cuda / 1000 == (int)major && wheel_cuda > *cuda) {
        *cuda = wheel_cuda;
        *minor_by = SMC_EVIDENCE_WHEEL;
    }
    return major;
}

/* Cautions that do not change the status (cuda-compat.md §5.2, §5.4, §11). built: the toolkit
 * that built the library, 0 unknown: compression is a caution only where it is newer than the
 * driver and than that toolkit (a driver reads what the toolkits it supports wrote). */
static unsigned warnings_of(const smc_library *lib, int driver_cuda, const seen *s, int built,
                            unsigned *newest)
{
    unsigned w = (s->thor ? SMC_WARN_THOR : 0) | (s->sbsa ? SMC_WARN_TEGRA_SBSA : 0);
    unsigned isa = 0;
    bool zstd = false, lz4 = false;
    for (size_t i = 0; i < lib->image_count; i++) {
        const smc_image *img = &lib->images[i];
        if (img->kind == SMC_IMAGE_PTX && smc_image_isa(img) > isa) isa = smc_image_isa(img);
        zstd |= img->compression == SMC_COMPRESS_ZSTD && img->kind != SMC_IMAGE_LTO;
        lz4 |= img->compression == SMC_COMPRESS_LZ4 && img->kind != SMC_IMAGE_LTO;
    }
    *newest = isa;
    if (driver_cuda <= 0) return w;
    /* Minor-version compatibility exists from CUDA 11.1 on; before, the runtime rule is none. */
    if (built > driver_cuda && built / 1000 == driver_cuda / 1000 && built >= 11010)
        w |= SMC_WARN_NEWER_MINOR;
    bool writer_newer = !built || built > driver_cuda;
    if (zstd && driver_cuda < 12040 && writer_newer)
        w |= SMC_WARN_ZSTD;
    else if (lz4 && driver_cuda < 12000 && writer_newer)
        w |= SMC_WARN_LZ4;
    return w;
}

/* The architecture lists of a library's containers (token sets, LTO IR left out), as group
 * numbers: group[i] for container i, SMC_NONE for a relocatable or empty one. main: the group of
 * its main list, the build's list: of the lists with kernels that are not all 'a'/'f' variants,
 * the one with the most cubin architectures, then the one most containers share (SMC_NONE when
 * none has two: a store of per-architecture modules, as cuFFT 12's). */
typedef struct lists {
    size_t *group;
    size_t count;
    size_t main, main_count;
} lists;

/* A container's architecture list as lists_of compares it: what smc_failing_tokens prints of it,
 * as numbers (its first 12 distinct tokens, LTO IR left out, in token order, and whether there
 * are more), without printing; and what choosing the main list asks of it: its distinct cubin
 * architectures, and whether it may be the build's list (it may hold kernels, and not every
 * image is an 'a'/'f' variant). */
#define SET_SHOWN 12
typedef struct set_key {
    uint64_t key[SET_SHOWN];
    unsigned n;
    bool more;
    unsigned archs;
    bool build;
} set_key;

static smc_status set_of(const smc_library *lib, const smc_container *c, set_key *s)
{
    uint64_t small[64], *all = c->image_count <= 64 ? small : malloc(c->image_count * sizeof *all);
    if (!all) return SMC_ERR_NOMEM;
    size_t m = 0;
    bool variants = true;
    for (size_t j = c->first_image; j < c->first_image + c->image_count; j++) {
        const smc_image *img = &lib->images[j];
        if (img->kind == SMC_IMAGE_LTO) continue;
        all[m++] = token_key(img);
        variants &= smc_image_variant(img) != SMC_VARIANT_NONE;
    }
    qsort(all, m, sizeof *all, by_key);
    *s = (set_key){.build = m && !variants && c->kernels != 0};
    for (size_t j = 0; j < m; j++) {
        /* cubins sort first, by arch: a new arch is one whose key differs past the variant */
        if (all[j] >> 40 == 0 && (!j || all[j] >> 8 != all[j - 1] >> 8)) s->archs++;
        if (j && all[j] == all[j - 1]) continue;
        if (s->n == SET_SHOWN) {
            s->more = true;
            continue;
        }
        s->key[s->n++] = all[j];
    }
    if (all != small) free(all);
    return SMC_OK;
}

static int by_set(const void *a, const void *b, void *ctx)
{
    const set_key *sets = ctx;
    const set_key *x = &sets[*(const size_t *)a], *y = &sets[*(const size_t *)b];
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    if (x->more != y->more) return x->more ? 1 : -1;
    for (unsigned i = 0; i < x->n; i++)
        if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

static smc_status lists_of(const smc_library *lib, lists *m)
{
    size_t n = lib->container_count;
    *m = (lists){.main = SMC_NONE};
    m->group = malloc((n ? n : 1) * sizeof *m->group);
    set_key *sets = malloc((n ? n : 1) * sizeof *sets);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    smc_status st = m->group && sets && order ? SMC_OK : SMC_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        m->group[i] = SMC_NONE;
        if (lib->containers[i].relocatable) continue;
        st = set_of(lib, &lib->containers[i], &sets[i]);
        if (st == SMC_OK && sets[i].n) order[k++] = i;
    }
    if (st == SMC_OK && k) qsort_r(order, k, sizeof *order, by_set, sets);
    for (size_t i = 0; st == SMC_OK && i < k; i++) { /* groups in token order */
        if (i && by_set(&order[i - 1], &order[i], sets) != 0) m->count++;
        m->group[order[i]] = m->count;
    }
    if (k) m->count++;
    /* The main one: most architectures, then most containers that may be the build's (the
     * first in token order on a tie, so that the containers' order does not matter). */
    size_t *held = st == SMC_OK ? calloc(m->count ? m->count : 1, sizeof *held) : NULL;
    if (st == SMC_OK && !held) st = SMC_ERR_NOMEM;
    for (size_t i = 0; st == SMC_OK && i < k; i++)
        held[m->group[order[i]]] += sets[order[i]].build;
    unsigned most = 2; /* a list of one architecture is a module for it, not a build's */
    for (size_t i = 0; st == SMC_OK && i < k; i++) {
        const set_key *sk = &sets[order[i]];
        size_t g = m->group[order[i]];
        if (!held[g] || sk->archs < most) continue;
        if (sk->archs > most || m->main == SMC_NONE || held[g] > m->main_count) {
            most = sk->archs;
            m->main = g;
            m->main_count = held[g];
        }
    }
    free(held);
    free(sets);
    free(order);
    return st;
}

/* The driver a target runs an input's code with: an image's forward-compatibility package stands
 * in for an older driver on the GPUs it works on (cuda-compat.md §5.3). */
static int effective_driver(const smc_input *in, const smc_target *t, int driver_cuda)
{
    return driver_cuda > 0 && t->compat && in->compat_cuda > driver_cuda ? in->compat_cuda
                                                                          : driver_cuda;
}

/* Whether a library can load on platform (NULL: not known). A platform only assumed (the host's,
 * machine_only) is compared by machine: a DLL read on Linux is judged for Windows. */
static bool loads_on(const smc_library *lib, const char *platform, bool machine_only)
{
    const char *mine = smc_library_platform(lib);
    if (!platform || !*mine) return true;
    if (!machine_only) return strcmp(mine, platform) == 0;
    const char *a = strchr(mine, '-'), *b = strchr(platform, '-');
    bool x86a = a && (strcmp(a, "-x86_64") == 0 || strcmp(a, "-amd64") == 0);
    bool x86b = b && (strcmp(b, "-x86_64") == 0 || strcmp(b, "-amd64") == 0);
    return a && b && (x86a == x86b) && (x86a || strcmp(a, b) == 0);
}

/* The runtime version a library runs with when its bytes or its distribution say it before
 * CUDA 11.1 (where it must not be newer than the driver): libcudart.so.10.1, a CUDA 10 ptxas,
 * version.py's "10.2"; 0 otherwise. */
static int old_runtime(const smc_library *lib, int wheel_cuda)
{
    if (lib->cudart_major && lib->cudart_major <= 10 && (lib->cudart_minor || lib->windows))
        return (int)(lib->cudart_major * 1000 + lib->cudart_minor * 10);
    if (lib->release && lib->release < 11010) return (int)lib->release;
    if (wheel_cuda && wheel_cuda < 11000) return wheel_cuda; /* CUDA 11.0's is a major apart */
    return 0;
}

/* Above this many bytes of PTX to compile for one GPU, a first launch waits long enough for
 * users to call it a hang. Measured (docs/compatibility.md §2.10): ptxas -O3 compiles 2 MB of
 * faiss-gpu 1.7.2's PTX in 2.8 s and 12.8 MB in 198 s on one core, so 32 MiB is a minute at the
 * very least; faiss-gpu 1.7.2 on an A100 ("stuck forever") has 119 MiB to compile, cuSPARSE 12
 * on a GB10 7 MiB. */
#define JIT_LARGE_BYTES (32ull << 20)

/* Where a library is judged: the platform it must load on (NULL: not known; machine_only: only
 * assumed, the host's, compared by machine), a CUDA library it needs that cannot be found
 * (needs, with the other major that is there, or NULL: it loads), and the distribution that
 * installed it (name and version, NULL when none: for data/support.tsv). */
typedef struct place {
    const char *platform;
    bool machine_only;
    const char *needs, *needs_other;
    const char *dist, *version;
} place;

static smc_status judge_one(const smc_library *lib, const smc_target *t, int driver_cuda,
                            int wheel_cuda, const place *at, const lists *sets, smc_judgement *r)
{
    unsigned cc = t->cc_major * 10 + t->cc_minor;
    seen s = {0};
    *r = (smc_judgement){.main_example = SMC_NONE, .used_by = SMC_NONE};
    /* Built by a newer CUDA major than the driver supports: its runtime stops before any kernel
     * loads, even with cudart linked statically (cuda-compat.md §5.2, §11). No driver older than
     * the first CUDA for the GPU runs it at all (§3.1, §5.1). Before CUDA 11.1 a runtime newer
     * than the driver stops at start-up, minor versions too (error 35, "CUDA driver version is
     * insufficient for CUDA runtime version"). A library for another machine never loads. */
    unsigned built = built_by(lib, wheel_cuda, &r->built_by, &r->built_cuda, &r->built_cuda_by);
    r->built_major = built;
    bool too_new = built && driver_cuda > 0 && (int)built * 1000 > driver_cuda;
    int runtime = old_runtime(lib, wheel_cuda);
    bool runtime_new = runtime && driver_cuda > 0 && runtime > driver_cuda; /* says the minor */
    if (runtime_new) r->runtime_cuda = runtime;
    bool foreign = !loads_on(lib, at->platform, at->machine_only);
    if (foreign) r->platform = at->platform;
    bool missing = !foreign && at->needs; /* the loader stops at a library it cannot find */
    if (missing) {
        r->needs = at->needs;
        r->needs_other = at->needs_other;
    }
    int gpu_cuda = smc_cuda_for_arch(cc);
    bool driver_old = driver_cuda > 0 && gpu_cuda > driver_cuda;
    bool stops = too_new || runtime_new || foreign || missing || driver_old; /* nothing loads */
    /* What NVIDIA documents for this release of its library (data/support.tsv): a GPU it does not
     * support is none whatever the library carries; on one it does, the containers without an
     * image for it are modules for other GPUs. */
    smc_support row;
    int documents = -1;
    if (smc_support_for(lib->path, at->dist, at->version, built, &row)) {
        if (!(r->support = malloc(sizeof row))) return SMC_ERR_NOMEM;
        *r->support = row;
        documents = smc_support_covers(&row, cc, r->built_cuda);
    }
    bool unsupported = !stops && documents == 0;
    r->documented = !stops && documents == 1;
    smc_verdict *verdicts = malloc((lib->container_count ? lib->container_count : 1) *
                                   sizeof *verdicts);
    bool *by_arch = malloc((lib->container_count ? lib->container_count : 1) * sizeof *by_arch);
    if (!verdicts || !by_arch) {
        free(verdicts);
        free(by_arch);
        return SMC_ERR_NOMEM;
    }
    for (size_t i = 0; i < lib->container_count; i++) {
        s.jit_bytes = 0;
        smc_verdict v = container_verdict(lib, i, cc, driver_cuda, &s, &by_arch[i]);
        if ((stops || unsupported) && v <= SMC_VERDICT_NONE) {
            v = SMC_VERDICT_NONE;
            by_arch[i] = false;
        }
        if (v == SMC_VERDICT_JIT) {
            r->jit_containers++;
            r->jit_bytes += s.jit_bytes;
        }
        verdicts[i] = v;
    }
    /* Whether the library has code for this GPU: something serves it, and, where NVIDIA does not
     * document the GPU for it, its main list (the build's, sets->main) is among what serves: a
     * library whose build list lacks the GPU is built for other GPUs, whatever a few odd modules
     * carry (vllm 0.9.1's _moe_C on a 6.1 GPU: its CUB kernels built for compute_52 only). */
    bool serves = false, main_serves = false, cubin = false, main_cubin = false;
    for (size_t i = 0; i < lib->container_count; i++) {
        bool ok = verdicts[i] <= SMC_VERDICT_JIT, loads = verdicts[i] <= SMC_VERDICT_COMPATIBLE;
        serves |= ok;
        cubin |= loads;
        if (sets->main == SMC_NONE || sets->group[i] != sets->main) continue;
        if (r->main_example == SMC_NONE || ok) r->main_example = i;
        main_serves |= ok;
        main_cubin |= loads;
    }
    bool covered = serves && (r->documented || sets->main == SMC_NONE || main_serves);
    r->main_set = sets->main_count;
    for (size_t i = 0; i < lib->container_count; i++) {
        smc_verdict v = verdicts[i];
        /* Where it has code for the GPU, a module without an image for it is one for other GPUs:
         * its host code picks modules by GPU (cuBLASLt 12.8's 864 sm_90+sm_120 modules on an
         * A100). */
        if (covered && by_arch[i]) v = SMC_VERDICT_OTHER_GPUS;
        r->containers_by_verdict[v]++;
        if (v != SMC_VERDICT_NONE && v != SMC_VERDICT_JIT_BLOCKED) continue;
        size_t *slot = smc_push(&r->failing, r->failing_count, sizeof *slot);
        if (!slot) {
            free(verdicts);
            free(by_arch);
            return SMC_ERR_NOMEM;
        }
        *slot = i;
        r->failing_count++;
    }
    free(verdicts);
    free(by_arch);
    const size_t *by = r->containers_by_verdict;
    r->counted = by[SMC_VERDICT_NATIVE] + by[SMC_VERDICT_COMPATIBLE] + by[SMC_VERDICT_JIT] +
                 by[SMC_VERDICT_JIT_BLOCKED] + by[SMC_VERDICT_NONE];
    /* Built for other GPUs, with some modules that serve this one: none when fewer than 1 in 20
     * of its containers serve it (vllm 0.9.1's _C on a 6.1 GPU), else partial. */
    size_t serving = r->counted - r->failing_count;
    bool main_lacks = !covered && serving;
    /* It runs through PTX where its code for the GPU is PTX: its main list (a store's modules:
     * all of them) has no cubin that loads. Modules of PTX beside cubins that load are counted
     * (jit) without making it jit (cuBLASLt 12.8's compute_52 hardware probe beside its sm_70
     * kernels on a V100; cuFFT 12.8's PTX modules beside its sm_80 ones on an A100), and a
     * driver too old for them still makes it partial. */
    bool through_ptx = by[SMC_VERDICT_JIT] && !(sets->main != SMC_NONE ? main_cubin : cubin);
    r->status = r->counted == 0 ? (by[SMC_VERDICT_GATED] ? SMC_STATUS_GATED : SMC_STATUS_OK)
                : r->failing_count == r->counted || (main_lacks && serving * 20 < r->counted)
                    ? SMC_STATUS_NONE
                : r->failing_count ? SMC_STATUS_PARTIAL
                : through_ptx      ? SMC_STATUS_JIT
                                   : SMC_STATUS_OK;
    switch (r->status) {
    case SMC_STATUS_OK:
        r->cause = r->counted ? SMC_CAUSE_LOADS : SMC_CAUSE_NOTHING;
        break;
    case SMC_STATUS_GATED:
        r->cause = SMC_CAUSE_GATED;
        break;
    case SMC_STATUS_JIT:
        r->cause = SMC_CAUSE_PTX_JIT;
        r->isa = s.jit_isa;
        break;
    default: /* what, beyond "built for other GPUs", makes containers fail */
        r->cause = foreign       ? SMC_CAUSE_PLATFORM
                   : missing     ? SMC_CAUSE_NEEDS
                   : driver_old  ? SMC_CAUSE_DRIVER_GPU
                   : runtime_new ? SMC_CAUSE_RUNTIME
                   : too_new     ? SMC_CAUSE_BUILT_NEWER
                   : unsupported ? SMC_CAUSE_UNSUPPORTED
                   : s.cuda13    ? SMC_CAUSE_CUBIN_ABI
                   : s.ptx_isa   ? SMC_CAUSE_PTX_ISA
                   : s.tegra     ? SMC_CAUSE_TEGRA
                   : main_lacks  ? SMC_CAUSE_MAIN_ARCH
                                 : SMC_CAUSE_ARCH;
        if (r->cause == SMC_CAUSE_PTX_ISA) r->isa = s.blocked_isa;
        if (r->cause == SMC_CAUSE_DRIVER_GPU) r->gpu_cuda = gpu_cuda;
        break;
    }
    r->warnings = warnings_of(lib, driver_cuda, &s, r->built_cuda, &r->newest_isa);
    /* Much PTX to compile, where PTX is what runs it (not beside cubins that do). */
    if (r->jit_bytes > JIT_LARGE_BYTES &&
        (r->status == SMC_STATUS_JIT || r->status == SMC_STATUS_PARTIAL))
        r->warnings |= SMC_WARN_JIT_LARGE;
    return SMC_OK;
}

/* The CUDA a distribution says its libraries were built for ("12.8" is 12080, "13" 13000), or
 * 0. What its metadata says; the runtimes its libraries need say nothing of the others. */
static int distribution_cuda(const smc_input *in, const smc_library *lib)
{
    if (lib->distribution >= in->distribution_count) return 0;
    const smc_distribution *d = &in->distributions[lib->distribution];
    if (!d->cuda || (d->cuda_source && (strncmp(d->cuda_source, "DT_NEEDED", 9) == 0 ||
                                        strncmp(d->cuda_source, "imports", 7) == 0)))
        return 0;
    unsigned major = 0, minor = 0;
    if (sscanf(d->cuda, "%u.%u", &major, &minor) < 1 || major > 99 || minor > 9) return 0;
    return (int)(major * 1000 + minor * 10);
}

/* The platform a library of in must load on for target t: its wheel's tag, else the input's
 * (--platform, an image's), else the host's (*assumed: compared by machine only), except for a
 * GPU only Arm machines have, where an assumed host says nothing. NULL: not known. */
static const char *load_platform(const smc_input *in, const smc_library *lib, const smc_target *t,
                                 bool *assumed)
{
    *assumed = false;
    const char *tag = lib->distribution < in->distribution_count
                          ? smc_platform_name(in->distributions[lib->distribution].platform)
                          : NULL;
    if (tag) return tag;
    if (in->platform) return in->platform;
    if (!in->assume_host || smc_gpu_arm_only(t)) return NULL;
    *assumed = true;
    return smc_platform_here();
}

/* Roll-up ------------------------------------------------------------------------------------ */

/* How bad a status is for a roll-up: no device code is least, gated is not counted at all. */
static int rank(smc_lib_status s)
{
    switch (s) {
    case SMC_STATUS_NO_CODE:
        return 0;
    case SMC_STATUS_OK:
        return 1;
    case SMC_STATUS_JIT:
        return 2;
    case SMC_STATUS_PARTIAL:
        return 3;
    case SMC_STATUS_COMPILER:
        return 4;
    case SMC_STATUS_GATED:
        return 5;
    case SMC_STATUS_CPU_ONLY:
        return 6;
    case SMC_STATUS_NONE:
        return 7;
    }
    return 0;
}

/* Libraries other projects make, which a distribution ships beside its own code (torch/lib's
 * libcusparseLt, libnccl): what they cannot do is a warning about the distribution. */
static bool vendor_name(const char *name)
{
    static const char *const stems[] = {
        "libcublas",  "libcudnn", "libcufft",    "libcurand", "libcusolver", "libcusparse",
        "libnccl",    "libnvjpeg", "libnvrtc",   "libcupti",  "libcudart",   "libnvJitLink",
        "libnvToolsExt", "libcufile", "libnpp",  "libnvblas", "libmagma",    "libcutensor",
        "libcheckpoint", "libpcsamplingutil", "libnvperf", "libnvshmem", /* CUPTI's, NVSHMEM */
    };
    for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++)
        if (strncmp(name, stems[i], strlen(stems[i])) == 0) return true;
    return false;
}

/* "dir/libx_cuda118.so" -> 118, with *key_len the length of "dir/libx_cuda" (alternatives share
 * it and what follows the digits); 0 when the name is no alternative. */
static unsigned alternative_cuda(const char *path, size_t *key_len, const char **rest)
{
    const char *name = smc_base_name(path);
    const char *at = strstr(name, "_cuda");
    if (!at || at[5] < '1' || at[5] > '9') return 0;
    unsigned v = 0;
    const char *p = at + 5;
    while (*p >= '0' && *p <= '9' && v < 10000)
        v = v * 10 + (unsigned)(*p++ - '0');
    if (strstr(p, ".so") == NULL && strstr(p, ".dll") == NULL) return 0;
    *key_len = (size_t)(at + 5 - path);
    *rest = p;
    return v;
}

char *smc_alternative_for(const char *path, unsigned cuda)
{
    size_t k;
    const char *rest;
    if (!alternative_cuda(path, &k, &rest)) return NULL;
    const char *name = smc_base_name(path);
    return smc_asprintf("%.*s%u%s", (int)(path + k - name), name, cuda, rest);
}

static bool same_choice(const char *a, const char *b)
{
    size_t ka, kb;
    const char *ra, *rb;
    return alternative_cuda(a, &ka, &ra) && alternative_cuda(b, &kb, &rb) && ka == kb &&
           strncmp(a, b, ka) == 0 && strcmp(ra, rb) == 0;
}

unsigned smc_alternative_of(const char *path, const char *of)
{
    size_t k;
    const char *rest;
    unsigned v = alternative_cuda(path, &k, &rest);
    return v && same_choice(path, of) ? v : 0;
}

/* A library that is one cubin file. */
static bool bare_cubin(const smc_library *lib)
{
    return lib->container_count == 1 && lib->containers[0].bare_cubin;
}

/* The roles of an input's libraries in their distributions. */
static void assign_roles(smc_input *in)
{
    for (size_t l = 0; l < in->library_count; l++) {
        smc_library *lib = &in->libraries[l];
        size_t k;
        const char *rest;
        lib->role = SMC_ROLE_MAIN;
        if (lib->distribution == SMC_NONE) continue;
        if (alternative_cuda(lib->path, &k, &rest)) {
            /* Another file of the same name up to its CUDA digits: one of them is loaded (a
             * _nocublaslt twin included, which the loader's rule picks or not). */
            for (size_t o = 0; o < in->library_count; o++) {
                size_t ko;
                const char *ro;
                const char *other = in->libraries[o].path;
                if (o != l && in->libraries[o].distribution == lib->distribution &&
                    alternative_cuda(other, &ko, &ro) && ko == k && strncmp(other, lib->path, k) == 0)
                    lib->role = SMC_ROLE_ALTERNATIVE;
            }
            if (lib->role == SMC_ROLE_ALTERNATIVE) continue;
        }
        smc_use use;
        const smc_distribution *d = &in->distributions[lib->distribution];
        if (d->name && smc_use_for(d->name, lib->path, &use) && use.how == SMC_USE_ON_DEMAND)
            lib->role = SMC_ROLE_ON_DEMAND;
        else if (strstr(lib->path, ".libs/") || vendor_name(smc_base_name(lib->path)))
            lib->role = SMC_ROLE_VENDORED;
    }
    /* Loose cubin files, two or more in one named distribution, are a store its loader picks
     * from by GPU (flashinfer-cubin), not libraries loaded together (a zip without metadata is
     * no package with a loader). */
    for (size_t d = 0; d < in->distribution_count; d++) {
        if (!in->distributions[d].name) continue;
        size_t loose = 0;
        for (size_t l = 0; l < in->library_count; l++)
            loose += in->libraries[l].distribution == d && bare_cubin(&in->libraries[l]);
        for (size_t l = 0; loose >= 2 && l < in->library_count; l++)
            if (in->libraries[l].distribution == d && bare_cubin(&in->libraries[l]))
                in->libraries[l].role = SMC_ROLE_STORE;
    }
    /* A distribution made only of "vendored" libraries ships them as its own (nvidia-cublas),
     * unless its own part is a compiler (Triton 3.2 ships CUPTI for its profiler). */
    for (size_t d = 0; d < in->distribution_count; d++) {
        bool own = false;
        for (size_t c = 0; c < in->compiler_count; c++)
            own |= in->compilers[c].distribution == d;
        for (size_t l = 0; l < in->library_count; l++)
            own |= in->libraries[l].distribution == d && in->libraries[l].role != SMC_ROLE_VENDORED &&
                   in->libraries[l].container_count;
        for (size_t l = 0; !own && l < in->library_count; l++)
            if (in->libraries[l].distribution == d) in->libraries[l].role = SMC_ROLE_MAIN;
    }
}

/* The site-packages a distribution is installed in: its metadata's directory, as a length of
 * its location; 0 when it has none. */
static size_t site_of(const smc_distribution *d)
{
    const char *slash = d->location ? strrchr(d->location, '/') : NULL;
    return slash ? (size_t)(slash - d->location) : 0;
}

/* The installed torch whose CUDA picks among dist's alternatives: the one installed beside it
 * (in the same site-packages, which the same Python imports), else the only one installed;
 * SMC_NONE when there is none, or several and none beside it. A torch wheel beside the others in
 * a wheelhouse is installed nowhere: it chooses nothing. *count: the torches installed. */
static size_t torch_for(const smc_input *in, size_t dist, size_t *count)
{
    size_t only = SMC_NONE, beside = SMC_NONE, site = dist < in->distribution_count
                                                         ? site_of(&in->distributions[dist])
                                                         : 0;
    *count = 0;
    for (size_t d = 0; d < in->distribution_count; d++) {
        const smc_distribution *t = &in->distributions[d];
        if (!t->name || strcmp(t->name, "torch") != 0 || !smc_distribution_installed(t)) continue;
        (*count)++;
        only = d;
        const smc_distribution *mine = &in->distributions[dist];
        if (site && site_of(t) == site && strncmp(t->location, mine->location, site) == 0)
            beside = d;
    }
    return beside != SMC_NONE ? beside : *count == 1 ? only : SMC_NONE;
}

/* The CUDA of a torch (version.py, or the local version "cu121"), as the _cudaNNN digits name
 * it (121), or 0. */
static unsigned torch_cuda(const smc_input *in, size_t torch)
{
    if (torch == SMC_NONE) return 0;
    const smc_distribution *dist = &in->distributions[torch];
    unsigned major = 0, minor = 0;
    if (dist->cuda && sscanf(dist->cuda, "%u.%u", &major, &minor) == 2) return major * 10 + minor;
    if (dist->local_version && sscanf(dist->local_version, "cu%u", &major) == 1) return major;
    return 0;
}

/* The package that uses lib as data/uses.tsv says (how): its own distribution
 * (torch/lib/libcusparseLt-*.so.0), or the torch that chooses for dist (nvidia-cusparselt-cu12
 * beside torch); else SMC_NONE. */
static size_t used_as(const smc_input *in, size_t dist, const smc_library *lib, size_t torch,
                      smc_use_how how)
{
    size_t users[2] = {dist, torch};
    for (size_t k = 0; k < 2; k++) {
        smc_use use;
        const smc_distribution *u =
            users[k] < in->distribution_count ? &in->distributions[users[k]] : NULL;
        if (u && u->name && smc_use_for(u->name, lib->path, &use) && use.how == how)
            return users[k];
    }
    return SMC_NONE;
}

/* The package that does not call lib on target g (index t), where lib is none there: one that
 * calls it only where NVIDIA supports it (the cause unsupported), or only from a compute capability
 * above the GPU's (its own check: vllm's FlashAttention from 8.0); else SMC_NONE. */
static size_t not_used_on(const smc_input *in, size_t dist, const smc_library *lib,
                          const smc_target *g, size_t t, size_t torch)
{
    if (t >= lib->judgement_count || lib->judgements[t].status != SMC_STATUS_NONE) return SMC_NONE;
    if (lib->judgements[t].cause == SMC_CAUSE_UNSUPPORTED) {
        size_t user = used_as(in, dist, lib, torch, SMC_USE_SUPPORTED);
        if (user != SMC_NONE) return user;
    }
    smc_use use;
    const smc_distribution *d = dist < in->distribution_count ? &in->distributions[dist] : NULL;
    if (d && d->name && smc_use_for(d->name, lib->path, &use) && use.how == SMC_USE_FROM &&
        g->cc_major * 10 + g->cc_minor < use.from)
        return dist;
    return SMC_NONE;
}

/* Folds one library's status for target t into a roll-up: a vendored library, or one used only
 * by one feature (on demand: its own role, or a package beside it says so), worse than partial
 * counts as partial. */
static void fold(smc_rollup *r, const smc_input *in, size_t l, size_t t, bool *any, bool *gated,
                 bool on_demand)
{
    const smc_library *lib = &in->libraries[l];
    if (t >= lib->judgement_count) return;
    smc_lib_status s = lib->judgements[t].status;
    *any = true;
    if (s == SMC_STATUS_GATED) return;
    *gated = false;
    if (lib->judgements[t].unused) s = SMC_STATUS_OK; /* not used on this GPU: fails nothing */
    on_demand |= lib->role == SMC_ROLE_ON_DEMAND;
    bool capped = (lib->role == SMC_ROLE_VENDORED || on_demand) &&
                  rank(s) > rank(SMC_STATUS_PARTIAL);
    if (capped) s = SMC_STATUS_PARTIAL;
    if (rank(s) > rank(r->status) || (r->library == SMC_NONE && rank(s) == rank(r->status))) {
        r->status = s;
        r->library = l;
        r->vendored = capped && lib->role == SMC_ROLE_VENDORED;
        r->on_demand = capped && on_demand;
    }
}

/* Whether an alternative is a _nocublaslt twin (libbitsandbytes_cuda118_nocublaslt.so). */
static bool nocublaslt(const char *path)
{
    size_t k;
    const char *rest;
    return alternative_cuda(path, &k, &rest) && strncmp(rest, "_nocublaslt", 11) == 0;
}

/* A group of libraries (a distribution's, or one unowned library) for target t of n: the worst
 * of its own code and of each choice of alternatives, vendored libraries counting as partial at
 * worst, gated ones not at all, unless every library is gated: then it cannot run (none). The
 * choice among alternatives is the loader's (data/loaders.tsv), made once for the machine when
 * the targets are one machine's GPUs. */
static smc_rollup roll(const smc_input *in, size_t dist, size_t only, const smc_target *targets,
                       size_t n, size_t t)
{
    smc_rollup r = {.status = SMC_STATUS_OK, .library = SMC_NONE, .torch = SMC_NONE,
                    .compiler = SMC_NONE};
    size_t chooser = only == SMC_NONE ? torch_for(in, dist, &r.torches) : SMC_NONE;
    unsigned torch = torch_cuda(in, chooser);
    smc_loader_rule rule;
    const smc_distribution *dd = dist < in->distribution_count ? &in->distributions[dist] : NULL;
    bool loader = dd && dd->name && smc_loader_rule_for(dd->name, dd->version, &rule);
    unsigned by = loader ? smc_loader_chooser(&rule, targets, n, t, in->one_machine) : 0;
    bool want_twin = loader && rule.nocublaslt_below && by < rule.nocublaslt_below;
    if (loader && !rule.torch_cuda) torch = 0; /* the system's libcudart names the file */
    /* An override set where the package runs names the file's CUDA instead ("122"). */
    const char *override = NULL;
    size_t klen = loader ? strlen(rule.override) : 0;
    for (const char *const *e = in->environment; klen && e && *e; e++)
        if (strncmp(*e, rule.override, klen) == 0 && (*e)[klen] == '=' &&
            (*e)[klen + 1] >= '1' && (*e)[klen + 1] <= '9') {
            override = *e;
            torch = (unsigned)strtoul(*e + klen + 1, NULL, 10);
        }
    bool any = false, gated = true;
    size_t wanted = 0, alternatives = 0; /* of the set the loader's rule picks, and in all */
    for (size_t l = 0; loader && rule.nocublaslt_below && l < in->library_count; l++)
        if (in->libraries[l].distribution == dist && in->libraries[l].role == SMC_ROLE_ALTERNATIVE) {
            alternatives++;
            wanted += nocublaslt(in->libraries[l].path) == want_twin;
        }
    bool *done = calloc(in->library_count ? in->library_count : 1, sizeof *done);
    /* A store of loose cubins: its loader takes the file for the GPU; the others are not loaded
     * (unused). The store serves the GPU through its best file, or, where none does, holds only
     * code for other GPUs (gated). */
    size_t store_best = SMC_NONE;
    r.store = SMC_STATUS_GATED;
    for (size_t l = 0; done && only == SMC_NONE && l < in->library_count; l++) {
        smc_library *lib = &in->libraries[l];
        if (lib->distribution != dist || lib->role != SMC_ROLE_STORE) continue;
        done[l] = true;
        if (t >= lib->judgement_count) continue;
        r.store_files++;
        smc_judgement *j = &lib->judgements[t];
        bool serves = rank(j->status) <= rank(SMC_STATUS_JIT);
        r.store_serving += serves;
        j->unused = !serves;
        if (serves && (store_best == SMC_NONE ||
                       rank(j->status) < rank(in->libraries[store_best].judgements[t].status)))
            store_best = l;
    }
    if (store_best != SMC_NONE) {
        r.store = in->libraries[store_best].judgements[t].status;
        fold(&r, in, store_best, t, &any, &gated, false);
    } else if (r.store_files) {
        any = true; /* gated: code for other GPUs only */
    }
    for (size_t l = 0; done && l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        if (done[l] || (only != SMC_NONE ? l != only : lib->distribution != dist)) continue;
        done[l] = true;
        if (lib->role != SMC_ROLE_ALTERNATIVE || only != SMC_NONE) {
            size_t user =
                only == SMC_NONE ? not_used_on(in, dist, lib, &targets[t], t, chooser) : SMC_NONE;
            if (user != SMC_NONE) {
                in->libraries[l].judgements[t].unused = true;
                in->libraries[l].judgements[t].used_by = user;
            }
            bool feature = only == SMC_NONE &&
                           used_as(in, dist, lib, chooser, SMC_USE_ON_DEMAND) != SMC_NONE;
            fold(&r, in, l, t, &any, &gated, feature);
            continue;
        }
        /* The loader's rule picks the _nocublaslt twins or the others, by one GPU of the
         * machine: the set it does not pick is never loaded. */
        if (loader && rule.nocublaslt_below && nocublaslt(lib->path) != want_twin) {
            for (size_t o = l; o < in->library_count; o++) {
                smc_library *alt = &in->libraries[o];
                if (alt->distribution != dist || (o != l && !same_choice(lib->path, alt->path)))
                    continue;
                done[o] = true;
                if (t < alt->judgement_count) alt->judgements[t].unused = true;
            }
            continue;
        }
        /* One choice: the alternative torch's CUDA picks, else the best of them. */
        size_t pick = SMC_NONE, best = SMC_NONE, serving = 0, choices = 0;
        size_t below = SMC_NONE, above = SMC_NONE; /* the nearest of torch's major each side */
        unsigned below_v = 0, above_v = 0;
        for (size_t o = l; o < in->library_count; o++) {
            const smc_library *alt = &in->libraries[o];
            if (alt->distribution != dist || (o != l && !same_choice(lib->path, alt->path))) continue;
            done[o] = true;
            if (t >= alt->judgement_count) continue;
            choices++;
            int s = rank(alt->judgements[t].status);
            serving += s <= rank(SMC_STATUS_JIT);
            if (best == SMC_NONE || s < rank(in->libraries[best].judgements[t].status)) best = o;
            size_t k;
            const char *rest;
            unsigned v = alternative_cuda(alt->path, &k, &rest);
            if (torch && v == torch) pick = o;
            if (!torch || v / 10 != torch / 10) continue;
            if (v < torch && (below == SMC_NONE || v > below_v)) below = o, below_v = v;
            if (v > torch && (above == SMC_NONE || v < above_v)) above = o, above_v = v;
        }
        if (best == SMC_NONE) continue;
        /* A loader that falls back within torch's major (and not for an override's file). */
        bool nearest = false;
        if (pick == SMC_NONE && loader && rule.same_major && !override) {
            pick = below != SMC_NONE ? below : above;
            nearest = pick != SMC_NONE;
        }
        /* The file its loader asks for may not be there: then it loads none of them (bitsandbytes
         * fails at import, loads its CPU library, or fails at the first call: loaders.md). */
        bool missing = loader && torch && pick == SMC_NONE;
        size_t loaded = missing ? SMC_NONE : pick != SMC_NONE ? pick : best;
        for (size_t o = l; o < in->library_count; o++) { /* the others fail nothing */
            const smc_library *alt = &in->libraries[o];
            if (alt->distribution == dist && t < alt->judgement_count &&
                (o == l || same_choice(lib->path, alt->path)))
                alt->judgements[t].unused = o != loaded;
        }
        if (missing) {
            if (!r.missing_cuda) {
                r.missing_cuda = torch;
                r.missing = l;
                r.serving = serving;
                r.choices = choices;
                r.chosen = !override;
                r.torch = override ? SMC_NONE : chooser;
                r.override = override;
            }
            continue;
        }
        smc_rollup before = r;
        fold(&r, in, loaded, t, &any, &gated, false);
        if (r.library != before.library) {
            r.serving = serving;
            r.choices = choices;
            r.chosen = pick != SMC_NONE;
            r.torch = r.chosen && !override ? chooser : SMC_NONE;
            r.override = r.chosen ? override : NULL;
            r.nearest = nearest;
            r.machine_choice = loader && rule.nocublaslt_below &&
                               by != targets[t].cc_major * 10 + targets[t].cc_minor;
            r.chooser_cc = loader && rule.nocublaslt_below ? by : 0;
        }
    }
    free(done);
    if (alternatives && !wanted) { /* the file the loader asks for is not there */
        r.status = SMC_STATUS_NONE;
        r.library = SMC_NONE;
        r.twin_missing = want_twin;
        r.chooser_cc = by;
        r.machine_choice = by != targets[t].cc_major * 10 + targets[t].cc_minor;
        return r;
    }
    if (r.missing_cuda) {
        r.status = SMC_STATUS_NONE;
        r.library = SMC_NONE;
        r.vendored = false;
        return r;
    }
    if (!any) r.status = SMC_STATUS_NO_CODE;
    else if (gated && r.store_files && store_best == SMC_NONE)
        r.status = SMC_STATUS_GATED; /* a store for other GPUs: its loader takes none here */
    else if (gated) {
        r.status = SMC_STATUS_NONE;
        r.all_gated = true;
    }
    return r;
}

/* Whether distribution k of in holds device code, or brings it by a companion of rule's. */
static bool has_device_code(const smc_input *in, size_t k, const smc_cpu_rule *rule)
{
    for (size_t l = 0; l < in->library_count; l++) {
        size_t d = in->libraries[l].distribution;
        if (d == SMC_NONE || !in->libraries[l].container_count) continue;
        if (d == k || (rule && in->distributions[d].name &&
                       smc_cpu_companion(rule, in->distributions[d].name)))
            return true;
    }
    return false;
}

/* What makes distribution k a CPU-only build of a package that exists to use the GPU
 * (data/cpu-builds.tsv), in new memory; NULL when it is none (or memory ran out: *st). */
static char *cpu_only_of(const smc_input *in, size_t k, smc_status *st)
{
    const smc_distribution *d = &in->distributions[k];
    smc_cpu_rule rule;
    char *out = NULL;
    /* Installed with another build of the package that wrote the files last: a CPU build that
     * did makes this GPU one CPU-only; a GPU build that did makes this CPU one's files not
     * there. */
    if (d->shadowed_by && d->name) {
        bool by_cpu = smc_cpu_rule_for(d->shadowed_by, &rule) && smc_cpu_shadows(&rule, d->name);
        if (!by_cpu) return NULL;
        if (!(out = smc_asprintf("%s, the CPU build, is installed too and the files both install "
                                 "are its (%s): only its CPU code loads",
                                 d->shadowed_by, d->shadow_evidence ? d->shadow_evidence : "")))
            *st = SMC_ERR_NOMEM;
        return out;
    }
    if (!d->name || !smc_cpu_rule_for(d->name, &rule) || has_device_code(in, k, NULL)) return NULL;
    if (d->cpu_build)
        out = smc_strdup(d->cpu_build);
    else if (rule.how == SMC_CPU_NAMED)
        out = smc_asprintf("%s is the name of the CPU-only build", d->name);
    else if (rule.how == SMC_CPU_NO_CODE && !has_device_code(in, k, &rule))
        out = smc_asprintf("no device code in it%s%s", rule.companions[0] ? ", nor beside it in " : "",
                           rule.companions);
    else
        return NULL;
    if (!out) *st = SMC_ERR_NOMEM;
    return out;
}

/* Where lib of in is judged for target t. A library that needs a CUDA library its input has only
 * in another major cannot load wherever it is judged; one its input lacks altogether cannot in a
 * complete root (an image, a root filesystem), and relies on the host elsewhere (*host, a
 * caution). nd: what its needs resolved to (smc_resolve_needed). */
static void place_of(const smc_input *in, const smc_library *lib, const smc_target *t,
                     const smc_needs *nd, place *at, const char **host)
{
    bool assumed;
    const char *platform = load_platform(in, lib, t, &assumed);
    const smc_distribution *d =
        lib->distribution < in->distribution_count ? &in->distributions[lib->distribution] : NULL;
    *at = (place){.platform = platform,
                  .machine_only = assumed,
                  .dist = d ? d->name : NULL,
                  .version = d ? d->version : NULL,
                  .needs = nd->other  ? nd->soname
                           : in->root ? nd->missing
                                      : NULL,
                  .needs_other = nd->other};
    *host = !at->needs && nd->missing && in->kind == SMC_INPUT_ENVIRONMENT ? nd->missing : NULL;
}

/* A distribution's (or, for SMC_NONE, the unclaimed files') compiler for target t: a compiler
 * that does not know the GPU makes it `compiler` unless its code is worse; one that does makes a
 * distribution without device code ok. The compiler is named either way. allowing[] holds the
 * status with what each set of SMC_ALLOW_ bits lets pass: without the compiler, its code's. */
static void fold_compiler(const smc_input *in, size_t d, const smc_target *t, smc_rollup *r)
{
    smc_lib_status code = r->status;
    smc_compile c = smc_compile_for(in, d, t);
    if (c.compiler != SMC_NONE) {
        if (c.knows == 0 && rank(SMC_STATUS_COMPILER) > rank(r->status))
            *r = (smc_rollup){.status = SMC_STATUS_COMPILER, .library = SMC_NONE,
                              .torch = SMC_NONE};
        else if (c.knows == 1 && r->status == SMC_STATUS_NO_CODE)
            code = r->status = SMC_STATUS_OK;
        r->compiler = c.compiler;
        r->compile_arch = c.arch;
        r->compile_a = c.a;
        r->compile_ptx = c.ptx;
        r->compile_knows = c.knows;
        r->compile_override = c.override;
    }
    for (unsigned m = 0; m < 4; m++)
        r->allowing[m] = (m & SMC_ALLOW_COMPILER) ? code : r->status;
}

/* The worst of a roll-up's statuses with what each set of allowances leaves out, with one more
 * roll-up's. */
static void allow_into(smc_rollup *r, const smc_rollup *one)
{
    for (unsigned m = 0; m < 4; m++)
        if (rank(one->allowing[m]) > rank(r->allowing[m])) r->allowing[m] = one->allowing[m];
}

static smc_status judge_input(smc_input *in, const smc_target *targets, size_t n,
                              int driver_cuda)
{
    /* Verdicts need what the payloads say (kernels, PTX .target and .version, ptxas releases):
     * a model read without it would be judged on guesses. */
    if (in->library_count && !in->inspected) {
        assert(!"a model judged without its facts: read it with smc_options.inspect");
        return SMC_ERR_ARG;
    }
    smc_names names; /* the input's shared libraries, for what each library needs */
    smc_status found = smc_find_compilers(in);
    if (found == SMC_OK) found = smc_names_of(in, &names);
    if (found != SMC_OK) return found;
    for (size_t l = 0; l < in->library_count; l++) {
        smc_library *lib = &in->libraries[l];
        smc_judgements_free(lib->judgements, lib->judgement_count);
        lib->judgements = NULL;
        lib->judgement_count = 0;
        if (!lib->container_count || !n) continue; /* only findings, or no target */
        lists sets;
        smc_status st = lists_of(lib, &sets);
        if (st == SMC_OK && !(lib->judgements = calloc(n, sizeof *lib->judgements)))
            st = SMC_ERR_NOMEM;
        if (st == SMC_OK) lib->judgement_count = n;
        int wheel = distribution_cuda(in, lib);
        smc_needs nd;
        if (st == SMC_OK) st = smc_resolve_needed(&names, lib, &nd);
        for (size_t t = 0; t < n && st == SMC_OK; t++) {
            place at;
            const char *host;
            place_of(in, lib, &targets[t], &nd, &at, &host);
            st = judge_one(lib, &targets[t], effective_driver(in, &targets[t], driver_cuda), wheel,
                           &at, &sets, &lib->judgements[t]);
            if (st == SMC_OK && host) {
                lib->judgements[t].warnings |= SMC_WARN_HOST_LIBRARY;
                lib->judgements[t].needs = host;
                lib->judgements[t].needs_more = nd.missing_count - 1;
            }
        }
        free(sets.group);
        if (st != SMC_OK) {
            smc_names_free(&names);
            return st;
        }
    }
    smc_names_free(&names);
    assign_roles(in);
    for (size_t k = 0; k < in->distribution_count; k++) {
        smc_distribution *d = &in->distributions[k];
        smc_rollups_free(d->verdicts, d->verdict_count);
        d->verdict_count = 0;
        if (!(d->verdicts = calloc(n ? n : 1, sizeof *d->verdicts))) return SMC_ERR_NOMEM;
        d->verdict_count = n;
        smc_status st = SMC_OK;
        free(d->cpu_only);
        d->cpu_only = cpu_only_of(in, k, &st);
        if (st != SMC_OK) return st;
        for (size_t t = 0; t < n; t++) {
            d->verdicts[t] = roll(in, k, SMC_NONE, targets, n, t);
            fold_compiler(in, k, &targets[t], &d->verdicts[t]);
            if (d->cpu_only) /* no device code, and it exists to use the GPU */
                d->verdicts[t] = (smc_rollup){
                    .status = SMC_STATUS_CPU_ONLY, .library = SMC_NONE, .torch = SMC_NONE,
                    .compiler = SMC_NONE, .cpu_only = d->cpu_only,
                    .allowing = {SMC_STATUS_CPU_ONLY, SMC_STATUS_NO_CODE, SMC_STATUS_CPU_ONLY,
                                 SMC_STATUS_NO_CODE}};
        }
    }
    /* An input: the worst of its distributions and of the libraries none claims; none when
     * nothing could be read at all. */
    smc_rollups_free(in->verdicts, in->verdict_count);
    in->verdicts = NULL;
    in->verdict_count = 0;
    if (in->error_count && !in->library_count && !in->distribution_count) return SMC_OK;
    if (!(in->verdicts = calloc(n ? n : 1, sizeof *in->verdicts))) return SMC_ERR_NOMEM;
    in->verdict_count = n;
    for (size_t t = 0; t < n; t++) {
        smc_rollup *r = &in->verdicts[t];
        *r = (smc_rollup){.status = SMC_STATUS_NO_CODE, .library = SMC_NONE, .torch = SMC_NONE,
                          .compiler = SMC_NONE};
        smc_rollup allowed = {.allowing = {SMC_STATUS_NO_CODE, SMC_STATUS_NO_CODE,
                                           SMC_STATUS_NO_CODE, SMC_STATUS_NO_CODE}};
        for (size_t k = 0; k < in->distribution_count; k++) {
            const smc_rollup *dv = &in->distributions[k].verdicts[t];
            if (rank(dv->status) > rank(r->status)) *r = *dv;
            allow_into(&allowed, dv);
        }
        for (size_t l = 0; l < in->library_count; l++) {
            if (in->libraries[l].distribution != SMC_NONE) continue;
            smc_rollup one = roll(in, SMC_NONE, l, targets, n, t);
            for (unsigned m = 0; m < 4; m++)
                one.allowing[m] = one.status;
            if (rank(one.status) > rank(r->status)) *r = one;
            allow_into(&allowed, &one);
        }
        /* The compilers no distribution claims (a toolkit's NVRTC): the input's own. */
        smc_rollup loose = {.status = SMC_STATUS_NO_CODE, .library = SMC_NONE,
                            .torch = SMC_NONE, .compiler = SMC_NONE};
        fold_compiler(in, SMC_NONE, &targets[t], &loose);
        if (rank(loose.status) > rank(r->status)) {
            *r = loose;
        } else if (loose.compiler != SMC_NONE && r->compiler == SMC_NONE) {
            r->compiler = loose.compiler;
            r->compile_arch = loose.compile_arch;
            r->compile_a = loose.compile_a;
            r->compile_ptx = loose.compile_ptx;
            r->compile_knows = loose.compile_knows;
            r->compile_override = loose.compile_override;
        }
        allow_into(&allowed, &loose);
        memcpy(r->allowing, allowed.allowing, sizeof r->allowing);
        /* An image that asks for a newer CUDA than the driver supports does not start
         * (nvidia-container-cli checks NVIDIA_REQUIRE_CUDA), whatever its libraries say. */
        int eff = effective_driver(in, &targets[t], driver_cuda);
        if (eff > 0 && in->require_cuda_version > eff)
            *r = (smc_rollup){.status = SMC_STATUS_NONE,
                              .library = SMC_NONE,
                              .torch = SMC_NONE,
                              .compiler = SMC_NONE,
                              .requires = in->require_cuda_version,
                              .compat = in->compat_cuda,
                              .allowing = {SMC_STATUS_NONE, SMC_STATUS_NONE, SMC_STATUS_NONE,
                                           SMC_STATUS_NONE}};
        else if (eff > driver_cuda && driver_cuda > 0)
            r->compat = eff; /* it runs by the image's forward-compatibility package */
    }
    return SMC_OK;
}

smc_status smc_judge_library(const smc_input *in, const smc_library *lib, const smc_target *t,
                             int driver_cuda, smc_judgement *out)
{
    lists sets;
    *out = (smc_judgement){0};
    smc_status st = lists_of(lib, &sets);
    place at;
    const char *host;
    smc_names names = {0};
    smc_needs nd = {0};
    if (st == SMC_OK && lib->needed_count) st = smc_names_of(in, &names);
    if (st == SMC_OK) st = smc_resolve_needed(&names, lib, &nd);
    place_of(in, lib, t, &nd, &at, &host);
    if (st == SMC_OK)
        st = judge_one(lib, t, effective_driver(in, t, driver_cuda), distribution_cuda(in, lib),
                       &at, &sets, out);
    smc_names_free(&names);
    free(sets.group);
    return st;
}

smc_status smc_judge(smc_input *const *inputs, size_t n, const smc_target *targets,
                     size_t target_count, int driver_cuda, smc_lib_status *overall)
{
    if ((n && !inputs) || (target_count && !targets)) return SMC_ERR_ARG;
    for (size_t t = 0; overall && t < target_count; t++)
        overall[t] = SMC_STATUS_NO_CODE;
    for (size_t i = 0; i < n; i++) {
        smc_status st = judge_input(inputs[i], targets, target_count, driver_cuda);
        if (st != SMC_OK) return st;
        for (size_t t = 0; overall && t < inputs[i]->verdict_count; t++)
            if (rank(inputs[i]->verdicts[t].status) > rank(overall[t]))
                overall[t] = inputs[i]->verdicts[t].status;
    }
    return SMC_OK;
}

bool smc_status_fails(smc_lib_status s, smc_lib_status gate)
{
    return s != SMC_STATUS_NO_CODE &&
           (s == SMC_STATUS_CPU_ONLY || s == SMC_STATUS_COMPILER || rank(s) >= rank(gate));
}



