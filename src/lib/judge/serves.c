/* serves.c: what a library or distribution serves, from its judgements against GPUs of distinct
 * compute capabilities (smc_judge, no driver), and the same in wheel-variant terms: the
 * nvidia :: sm_arch values and the cuda_version_lower_bound a label could honestly claim, and
 * which claims of a wheel's variant.json its libraries do not back. A pure pass over the model. */
#include "judge.h"

#include <stdio.h>
#include <stdlib.h>

static void append(char *buf, size_t cap, const char *fmt, unsigned a, unsigned b)
{
    size_t len = strlen(buf);
    if (len + 16 < cap) snprintf(buf + len, cap - len, fmt, len ? " " : "", a, b);
}

/* Puts one target's status into its list; a jit one's driver: for its PTX ISA, or (tileir, when
 * it relies on Tile IR alone) for its Tile IR. */
static void place(smc_serving *out, const smc_target *t, smc_lib_status s, unsigned isa, int tileir)
{
    char *list = s == SMC_STATUS_OK        ? out->cubins
                 : s == SMC_STATUS_JIT     ? out->ptx
                 : s == SMC_STATUS_PARTIAL ? out->partial
                 : s == SMC_STATUS_NO_CODE ? NULL
                                           : out->none;
    if (list) append(list, sizeof out->cubins, "%s%u.%u", t->cc_major, t->cc_minor);
    if (s == SMC_STATUS_JIT) {
        if (tileir) append(out->tileir, sizeof out->tileir, "%s%u.%u", t->cc_major, t->cc_minor);
        int cuda = isa ? smc_cuda_for_ptx_isa(isa / 10, isa % 10) : 0;
        if (tileir > cuda) cuda = tileir;
        if (cuda > out->ptx_cuda) out->ptx_cuda = cuda;
    }
}

/* Whether a container takes part in a claim: it may hold kernels and has plain images (a
 * container of only 'a'/'f' code is dispatched to by its host code). */
static bool counted(const smc_library *lib, const smc_container *c)
{
    if (c->relocatable || c->kernels == 0) return false;
    for (size_t i = c->first_image; i < c->first_image + c->image_count; i++)
        if (!smc_image_opaque(lib->images[i].kind) && lib->images[i].variant == SMC_VARIANT_NONE)
            return true;
    return false;
}

/* Of the counted containers, how many lack a plain image of kind and arch (*total: how many). */
static size_t lacking(const smc_library *lib, smc_image_kind kind, unsigned arch, size_t *total)
{
    size_t miss = 0;
    *total = 0;
    for (size_t k = 0; k < lib->container_count; k++) {
        const smc_container *c = &lib->containers[k];
        if (!counted(lib, c)) continue;
        (*total)++;
        bool has = false;
        for (size_t i = c->first_image; i < c->first_image + c->image_count && !has; i++) {
            const smc_image *img = &lib->images[i];
            has = img->kind == kind && img->arch == arch && img->variant == SMC_VARIANT_NONE;
        }
        miss += !has;
    }
    return miss;
}

/* Whether a library backs a value: more than half of its counted containers carry that plain
 * image (its architecture list, as the judge's main list; vendor libraries keep a few odd
 * per-architecture modules). */
static bool backs(const smc_library *lib, smc_image_kind kind, unsigned arch, size_t *miss,
                  size_t *total)
{
    *miss = lacking(lib, kind, arch, total);
    return *total && *miss * 2 < *total;
}

/* The sm_arch values a library backs. */
static void sm_arch_of(const smc_library *lib, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int pass = 0; pass < 2; pass++) { /* cubins (_real), then PTX (_virtual) */
        smc_image_kind kind = pass ? SMC_IMAGE_PTX : SMC_IMAGE_CUBIN;
        unsigned done[64];
        size_t nd = 0;
        for (size_t i = 0; i < lib->image_count && nd < 64; i++) {
            const smc_image *img = &lib->images[i];
            if (img->kind != kind || img->variant != SMC_VARIANT_NONE) continue;
            bool seen = false;
            for (size_t k = 0; k < nd; k++)
                seen |= done[k] == img->arch;
            if (seen) continue;
            done[nd++] = img->arch;
        }
        for (size_t a = 0; a < nd; a++) /* in architecture order */
            for (size_t b = a + 1; b < nd; b++)
                if (done[b] < done[a]) {
                    unsigned x = done[a];
                    done[a] = done[b];
                    done[b] = x;
                }
        for (size_t k = 0; k < nd; k++) {
            size_t miss, total;
            if (!backs(lib, kind, done[k], &miss, &total)) continue;
            size_t len = strlen(buf);
            if (len + 20 < cap)
                snprintf(buf + len, cap - len, "%s%u_%s", len ? " " : "", done[k],
                         pass ? "virtual" : "real");
        }
    }
}

smc_status smc_library_serving(const smc_library *lib, const smc_library_judged *lj,
                               const smc_target *targets, size_t nt, smc_serving *out)
{
    *out = (smc_serving){0};
    for (size_t t = 0; t < nt && t < lj->judgement_count; t++)
        place(out, &targets[t], lj->judgements[t].status, lj->judgements[t].isa,
              lj->judgements[t].tileir_cuda);
    sm_arch_of(lib, out->sm_arch, sizeof out->sm_arch);
    if (lj->judgement_count) out->cuda_lower_bound = (int)lj->judgements[0].built_major * 1000;
    return SMC_OK;
}

/* Whether library l of in, judged so (jd), is a main library of its distribution with device
 * code. */
static bool main_library(const smc_input *in, const smc_judged *jd, size_t l)
{
    return jd->libraries[l].role == SMC_ROLE_MAIN && in->libraries[l].container_count;
}

/* The CUDA major a library was built by, as a CUDA version (12000), from its judgements; 0. */
static int built_by(const smc_library_judged *lj)
{
    return lj->judgement_count ? (int)lj->judgements[0].built_major * 1000 : 0;
}

smc_status smc_distribution_serving(const smc_input *in, const smc_judged *jd,
                                    const smc_distribution *d, const smc_target *targets,
                                    size_t nt, smc_serving *out)
{
    *out = (smc_serving){0};
    const smc_distribution_judged *dj = &jd->distributions[d - in->distributions];
    for (size_t t = 0; dj->verdicts && t < nt && t < dj->verdict_count; t++) {
        const smc_rollup *r = &dj->verdicts[t];
        unsigned isa = 0;
        int tileir = 0;
        if (r->library < in->library_count && t < jd->libraries[r->library].judgement_count) {
            isa = jd->libraries[r->library].judgements[t].isa;
            tileir = jd->libraries[r->library].judgements[t].tileir_cuda;
        }
        place(out, &targets[t], r->status, isa, tileir);
    }
    /* A value the distribution can claim is one every main library backs. */
    bool first = true;
    for (size_t k = 0; k < d->library_count; k++) {
        size_t l = d->libraries[k];
        if (!main_library(in, jd, l)) continue;
        char mine[sizeof out->sm_arch];
        sm_arch_of(&in->libraries[l], mine, sizeof mine);
        if (built_by(&jd->libraries[l]) > out->cuda_lower_bound)
            out->cuda_lower_bound = built_by(&jd->libraries[l]);
        if (first) {
            memcpy(out->sm_arch, mine, sizeof mine);
            first = false;
            continue;
        }
        char kept[sizeof out->sm_arch] = "";
        for (char *v = strtok(out->sm_arch, " "); v; v = strtok(NULL, " ")) {
            char word[32];
            snprintf(word, sizeof word, " %s ", v);
            char padded[sizeof mine + 2];
            snprintf(padded, sizeof padded, " %s ", mine);
            if (strstr(padded, word))
                snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "%s%s", kept[0] ? " " : "",
                         v);
        }
        memcpy(out->sm_arch, kept, sizeof kept);
    }
    return SMC_OK;
}

/* "90_real" -> cubin 90; "120_virtual" -> PTX 120; 0 for anything else. */
static unsigned sm_arch_value(const char *v, smc_image_kind *kind)
{
    char *end;
    unsigned long arch = strtoul(v, &end, 10);
    if (end == v || arch < 10 || arch > 999) return 0;
    if (strcmp(end, "_real") == 0) *kind = SMC_IMAGE_CUBIN;
    else if (strcmp(end, "_virtual") == 0) *kind = SMC_IMAGE_PTX;
    else return 0;
    return (unsigned)arch;
}

static smc_status push_text(char ***out, size_t *n, char *text)
{
    char **slot = text ? smc_push(out, *n, sizeof *slot) : NULL;
    if (!slot) {
        free(text);
        return SMC_ERR_NOMEM;
    }
    *slot = text;
    (*n)++;
    return SMC_OK;
}

smc_status smc_variant_unbacked(const smc_input *in, const smc_judged *jd,
                                const smc_distribution *d, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    static const char sm[] = "nvidia :: sm_arch :: ", low[] = "nvidia :: cuda_version_lower_bound :: ";
    smc_status st = SMC_OK;
    for (size_t c = 0; c < d->variant_claim_count && st == SMC_OK; c++) {
        const char *claim = d->variant_claims[c];
        bool is_sm = strncmp(claim, sm, sizeof sm - 1) == 0;
        bool is_low = strncmp(claim, low, sizeof low - 1) == 0;
        if (!is_sm && !is_low) continue;
        smc_image_kind kind = SMC_IMAGE_CUBIN;
        unsigned arch = is_sm ? sm_arch_value(claim + sizeof sm - 1, &kind) : 0;
        int bound = 0;
        if (is_low && !smc_driver_parse(claim + sizeof low - 1, &bound)) bound = -1;
        if ((is_sm && !arch) || bound < 0) {
            st = push_text(out, n, smc_asprintf("%s: not a value smcheck can check", claim));
            continue;
        }
        for (size_t k = 0; k < d->library_count && st == SMC_OK; k++) {
            size_t l = d->libraries[k];
            const smc_library *lib = &in->libraries[l];
            if (!main_library(in, jd, l)) continue;
            const char *name = strchr(lib->path, '!') ? strchr(lib->path, '!') + 1 : lib->path;
            if (is_sm) {
                size_t total, miss;
                if (!backs(lib, kind, arch, &miss, &total))
                    st = push_text(out, n,
                                   smc_asprintf("%s: not backed by %s: no %s_%u in %zu of its %zu "
                                                "containers",
                                                claim, name, kind == SMC_IMAGE_PTX ? "compute" : "sm",
                                                arch, miss, total));
            } else if (built_by(&jd->libraries[l]) > bound) {
                unsigned major = (unsigned)built_by(&jd->libraries[l]) / 1000;
                st = push_text(out, n,
                               smc_asprintf("%s: not backed by %s: built by CUDA %u, which no "
                                            "driver older than CUDA %u.0 runs",
                                            claim, name, major, major));
            }
        }
    }
    return st;
}
