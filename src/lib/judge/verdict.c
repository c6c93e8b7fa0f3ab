/* verdict.c: the judge. A pure pass over the finished model: given the images of each library
 * and what reading found out about them (kernels, toolkit, PTX text), a GPU's compute capability
 * and what is known of the driver, it says which containers will load and the status of each
 * library (rollup.c rolls them up into distributions, inputs and overall). It reads no bytes and
 * writes no sentences: causes are codes and numbers (describe.c words them). Rules and their
 * sources: docs/compatibility.md §1 to §5. */
#include "judge_private.h"

#include <stdio.h>
#include <stdlib.h>

/* What judging one container found, beyond its verdict. */
typedef struct seen {
    bool cuda13, tegra, ptx_isa, thor, sbsa;
    uint64_t jit_bytes;   /* the PTX a jit container would have the driver compile */
    unsigned jit_isa;     /* the newest PTX ISA a jit container relies on */
    int tileir_cuda;      /* the newest CUDA a jit container's Tile IR needs, */
    int tileir_blocked;   /* or one the driver is older than */
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
        if (smc_image_opaque(img->kind) && img->kind != SMC_IMAGE_TILEIR) continue;
        int why;
        smc_verdict v = smc_image_verdict(img, cc, driver_cuda, &why);
        bool tile = img->kind == SMC_IMAGE_TILEIR;
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
        if (v == SMC_VERDICT_JIT && !tile && smc_image_isa(img) > here.jit_isa)
            here.jit_isa = smc_image_isa(img);
        if (tile && v == SMC_VERDICT_JIT && smc_tileir_cuda(img) > here.tileir_cuda)
            here.tileir_cuda = smc_tileir_cuda(img);
        if (why == SMC_WHY_TILEIR && smc_tileir_cuda(img) > here.tileir_blocked)
            here.tileir_blocked = smc_tileir_cuda(img);
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
        /* Tile IR's driver matters where no PTX of the container is compiled instead. */
        if (!here.jit_isa && here.tileir_cuda > s->tileir_cuda) s->tileir_cuda = here.tileir_cuda;
        s->jit_bytes = jit->size;
        return best;
    }
    if (gated) return SMC_VERDICT_GATED;
    *by_arch = best == SMC_VERDICT_NONE && only_arch;
    s->cuda13 |= here.cuda13;
    s->tegra |= here.tegra;
    s->ptx_isa |= here.ptx_isa;
    if (here.blocked_isa > s->blocked_isa) s->blocked_isa = here.blocked_isa;
    if (here.tileir_blocked > s->tileir_blocked) s->tileir_blocked = here.tileir_blocked;
    return best;
}

/* An image's token as a number that sorts in token order: kind (cubins, PTX, LTO IR), arch,
 * variant; PTX by what its text says it is for (compute_90a for ".target sm_90a"). */
static uint64_t token_key(const smc_image *img)
{
    unsigned kind = img->kind == SMC_IMAGE_CUBIN ? 0 : img->kind == SMC_IMAGE_PTX ? 1 : 3;
    return (uint64_t)kind << 40 | (uint64_t)smc_image_arch(img) << 8 |
           (uint64_t)smc_image_variant(img);
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
            if (smc_image_opaque(lib->images[j].kind) && lib->images[j].kind != SMC_IMAGE_TILEIR)
                continue;
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
                                                     : SMC_IMAGE_TILEIR,
                         .arch = (unsigned)(set[i] >> 8),
                         .variant = (smc_variant)(set[i] & 0xff)};
        char tok[SMC_TOKEN_MAX];
        len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", smc_image_token(&eff, tok));
    }
    free(set);
    return out;
}

/* The CUDA that built a library, from the best evidence (docs/compatibility.md §3): the ptxas
 * release in its cubins' .note.nv.tkinfo; CUDA 13 for cubins in its format (ABI v2 below sm_100) or
 * PTX ISA 9.x; DT_NEEDED libcudart.so.N for CUDA N; what its distribution says; where none of them
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

/* Cautions that do not change the status (docs/compatibility.md §2.6). built: the toolkit
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
        zstd |= img->compression == SMC_COMPRESS_ZSTD && !smc_image_opaque(img->kind);
        lz4 |= img->compression == SMC_COMPRESS_LZ4 && !smc_image_opaque(img->kind);
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
        if (smc_image_opaque(img->kind)) continue;
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

smc_status judge_lists_of(const smc_library *lib, lists *m)
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
 * in for an older driver on the GPUs it works on (docs/compatibility.md §2.7). */
int judge_effective_driver(const smc_input *in, const smc_target *t, int driver_cuda)
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

smc_status judge_one_library(const smc_library *lib, const smc_target *t, int driver_cuda,
                             int wheel_cuda, const place *at, const lists *sets, smc_judgement *r)
{
    unsigned cc = t->cc_major * 10 + t->cc_minor;
    seen s = {0};
    *r = (smc_judgement){.main_example = SMC_NONE, .used_by = SMC_NONE};
    /* Built by a newer CUDA major than the driver supports: its runtime stops before any kernel
     * loads, even with cudart linked statically (docs/compatibility.md §2.4). No driver older than
     * the first CUDA for the GPU runs it at all (§2.9). Before CUDA 11.1 a runtime newer than the
     * driver stops at start-up, minor versions too (error 35, "CUDA driver version is insufficient
     * for CUDA runtime version"; §2.8). A library for another machine never loads. */
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
    smc_verdict *verdicts =
        malloc((lib->container_count ? lib->container_count : 1) * sizeof *verdicts);
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
        r->tileir_cuda = s.tileir_cuda;
        break;
    default: /* what, beyond "built for other GPUs", makes containers fail */
        r->cause = foreign            ? SMC_CAUSE_PLATFORM
                   : missing          ? SMC_CAUSE_NEEDS
                   : driver_old       ? SMC_CAUSE_DRIVER_GPU
                   : runtime_new      ? SMC_CAUSE_RUNTIME
                   : too_new          ? SMC_CAUSE_BUILT_NEWER
                   : unsupported      ? SMC_CAUSE_UNSUPPORTED
                   : s.cuda13         ? SMC_CAUSE_CUBIN_ABI
                   : s.ptx_isa        ? SMC_CAUSE_PTX_ISA
                   : s.tileir_blocked ? SMC_CAUSE_TILEIR_DRIVER
                   : s.tegra          ? SMC_CAUSE_TEGRA
                   : main_lacks       ? SMC_CAUSE_MAIN_ARCH
                                      : SMC_CAUSE_ARCH;
        if (r->cause == SMC_CAUSE_PTX_ISA) r->isa = s.blocked_isa;
        if (r->cause == SMC_CAUSE_TILEIR_DRIVER) r->tileir_cuda = s.tileir_blocked;
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
int judge_distribution_cuda(const smc_input *in, const smc_library *lib)
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

/* The platform a library of in must load on for target t: its wheel's tag, else the
 * situation's (--platform, which also chose an image's), else the host's (*assumed: compared by machine only), except for a
 * GPU only Arm machines have, where an assumed host says nothing. NULL: not known. */
const char *judge_load_platform(const smc_input *in, const smc_situation *where,
                                const smc_library *lib, const smc_target *t, bool *assumed)
{
    *assumed = false;
    /* --platform, where given, is where everything must load: a wheel tagged for another
     * (win_arm64 judged for windows-amd64) is for the wrong platform. Else a wheel's tag says. */
    if (where->platform) return where->platform;
    const char *tag = lib->distribution < in->distribution_count
                          ? smc_platform_name(in->distributions[lib->distribution].platform)
                          : NULL;
    if (tag) return tag;
    if (!where->assume_host || smc_gpu_arm_only(t)) return NULL;
    *assumed = true;
    return smc_platform_here();
}
