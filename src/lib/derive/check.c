/* check.c: the one pipeline, for the command and the API alike. It reads the paths with the
 * facts the request needs, judges them, and derives everything a report shows (sentences, roll-
 * ups, serving lists, variant claims not backed, next steps), so that the printers only read.
 * Every next step is checked by judging again with it applied: one that would not make the
 * library run (ok, jit, or partial) is not offered. */
#include "../acquire/acquire.h"
#include "derive.h"

#include <smcheck/builds.h>

#include <stdlib.h>
#include <string.h>

/* What a next step must bring a library to: it runs (partial: all but modules built only for
 * other GPUs, as a vendor library normally is). */
static bool runs(smc_lib_status s)
{
    return s == SMC_STATUS_OK || s == SMC_STATUS_JIT || s == SMC_STATUS_PARTIAL;
}

/* Whether lib, judged again for t with a driver of CUDA need, runs. */
static smc_status runs_with_driver(const smc_input *in, const smc_situation *where,
                                   const smc_library *lib, const smc_target *t, int need, bool *yes)
{
    smc_judgement again;
    smc_status st = smc_judge_library(in, where, lib, t, need, &again);
    *yes = st == SMC_OK && runs(again.status);
    free(again.failing);
    free(again.support);
    return st;
}

/* Whether lib, built again for t (a cubin for it in each container, by the first CUDA that knows
 * the GPU), runs with the driver, or with the one that CUDA needs where the driver is older. */
static smc_status runs_when_built(const smc_input *in, const smc_situation *where,
                                  const smc_library *lib, const smc_target *t, int driver_cuda,
                                  bool *yes)
{
    *yes = false;
    unsigned cc = t->cc_major * 10 + t->cc_minor;
    int cuda = smc_cuda_for_arch(cc);
    if (!cuda) return SMC_OK; /* a GPU no CUDA of the tables knows */
    smc_image img = {.kind = SMC_IMAGE_CUBIN, .arch = cc, .version_major = 1, .version_minor = 7,
                     .release = (unsigned)cuda};
    smc_container c = {.image_count = 1, .kernels = 1};
    smc_library built = {.path = lib->path, .containers = &c, .container_count = 1,
                         .images = &img, .image_count = 1, .machine = lib->machine,
                         .release = (unsigned)cuda, .distribution = SMC_NONE};
    return runs_with_driver(in, where, &built, t, driver_cuda > cuda ? driver_cuda : cuda, yes);
}

/* The next step for a library that is none for t, checked: the driver its cause asks for when
 * the GPU can have that driver and it makes the library run, else a build for the GPU when that
 * runs, else that nothing in the tables is known to. NULL when it is not none or is an unused
 * alternative. */
static smc_status next_step(const smc_input *in, const smc_situation *where,
                            const smc_library *lib, const smc_judgement *j, const smc_target *t,
                            int driver_cuda, char **out)
{
    *out = NULL;
    if (j->status != SMC_STATUS_NONE || j->unused) return SMC_OK;
    if (j->cause == SMC_CAUSE_NEEDS && j->needs) { /* no driver or GPU makes a loader find it */
        char wheel[96];
        smc_soname_wheel(wheel, sizeof wheel, j->needs, lib->cudart_major);
        *out = smc_asprintf("%s in the environment%s%s%s, or a build of it for the %s installed",
                            j->needs, wheel[0] ? " (" : "", wheel, wheel[0] ? ")" : "",
                            j->needs_other ? j->needs_other : "libraries");
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    if (j->cause == SMC_CAUSE_UNSUPPORTED) { /* no driver or build of ours: a release that is */
        const smc_distribution *d = lib->distribution < in->distribution_count
                                        ? &in->distributions[lib->distribution]
                                        : NULL;
        char before[64];
        unsigned cc = t->cc_major * 10 + t->cc_minor;
        if (d && d->name && smc_support_older(lib->path, d->name, cc, before, sizeof before))
            *out = smc_asprintf("a release of %s before %s, which NVIDIA supports on compute "
                                "capability %u.%u (data/support.tsv)",
                                d->name, before, t->cc_major, t->cc_minor);
        else
            *out = smc_asprintf("none: NVIDIA supports no release of it on compute capability "
                                "%u.%u that smcheck knows (data/support.tsv)",
                                t->cc_major, t->cc_minor);
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    if (j->cause == SMC_CAUSE_PLATFORM) { /* no driver or GPU changes what a loader loads */
        *out = smc_asprintf("a build of it for %s", j->platform ? j->platform : "this platform");
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    bool yes = false;
    smc_status st = SMC_OK;
    int need = smc_next_driver(j);
    int last = smc_last_driver_branch(t->cc_major * 10 + t->cc_minor);
    if (need && (!last || smc_driver_branch_for_cuda(need) <= last))
        st = runs_with_driver(in, where, lib, t, need, &yes);
    if (st == SMC_OK && yes) {
        *out = smc_next_step(lib, j, t, driver_cuda, false);
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    if (st == SMC_OK) st = runs_when_built(in, where, lib, t, driver_cuda, &yes);
    if (st != SMC_OK) return st;
    *out = yes ? smc_next_step(lib, j, t, driver_cuda, true)
               : smc_asprintf("nothing in smcheck's tables is known to make it run on sm_%u%u",
                              t->cc_major, t->cc_minor);
    return *out ? SMC_OK : SMC_ERR_NOMEM;
}

/* Room for n words, none said yet. */
static smc_status words_new(smc_words **w, size_t *count, size_t n)
{
    *count = 0;
    if (!n) return SMC_OK;
    if (!(*w = calloc(n, sizeof **w))) return SMC_ERR_NOMEM;
    *count = n;
    return SMC_OK;
}

static smc_status derive_library(const smc_result *r, const smc_input *in,
                                 const smc_library *lib, const smc_library_judged *lj,
                                 smc_library_derived *ld)
{
    smc_status st = smc_library_summarize(lib, &ld->summary);
    size_t n = lj->judgement_count < r->target_count ? lj->judgement_count : r->target_count;
    if (st == SMC_OK) st = words_new(&ld->words, &ld->word_count, n);
    for (size_t t = 0; t < n && st == SMC_OK; t++) {
        const smc_judgement *j = &lj->judgements[t];
        const smc_target *g = &r->targets[t];
        smc_words *w = &ld->words[t];
        bool ptx;
        if (!(w->reason = smc_judgement_reason(lib, j, g, r->driver_cuda))) return SMC_ERR_NOMEM;
        w->warning = smc_judgement_warnings(j, r->driver_cuda);
        if (j->failing_count &&
            !(w->failing_tokens = smc_failing_tokens(lib, j->failing, j->failing_count, &ptx)))
            return SMC_ERR_NOMEM;
        st = next_step(in, &r->situation, lib, j, g, r->driver_cuda, &w->next);
    }
    return st;
}

/* For a distribution that is none for target t because none of its alternatives runs, when the
 * installed torch does not choose among them: the oldest driver with which one of them runs
 * (judged again), as a next step; NULL when no driver does. */
static smc_status alternatives_next(const smc_input *in, const smc_situation *where,
                                    const smc_judged *jd, size_t dist, const smc_rollup *r,
                                    const smc_target *t, size_t ti, char **out)
{
    *out = NULL;
    if (r->status != SMC_STATUS_NONE || !r->choices || r->chosen) return SMC_OK;
    int best = 0;
    size_t which = SMC_NONE;
    int last = smc_last_driver_branch(t->cc_major * 10 + t->cc_minor);
    for (size_t l = 0; l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        const smc_library_judged *lj = &jd->libraries[l];
        if (lib->distribution != dist || lj->role != SMC_ROLE_ALTERNATIVE ||
            ti >= lj->judgement_count)
            continue;
        int need = smc_next_driver(&lj->judgements[ti]);
        if (!need || (best && need >= best) || (last && smc_driver_branch_for_cuda(need) > last))
            continue;
        bool yes;
        smc_status st = runs_with_driver(in, where, lib, t, need, &yes);
        if (st != SMC_OK) return st;
        if (yes) best = need, which = l;
    }
    if (which == SMC_NONE) return SMC_OK;
    char drv[32];
    const char *d = smc_driver_for_cuda(best, true, drv, sizeof drv);
    *out = smc_asprintf("a driver of %s or newer (CUDA %d.%d): %s, one of its alternatives, runs "
                        "then",
                        d ? d : "a newer branch", best / 1000, best % 1000 / 10,
                        smc_base_name(in->libraries[which].path));
    return *out ? SMC_OK : SMC_ERR_NOMEM;
}

/* The next step for a distribution whose loader asks for an alternative it does not ship: the
 * CUDA of the newest alternative that runs on this GPU (a torch built for it, or the override set
 * to it), or a release that ships the one asked for. NULL when it is not such a roll-up. */
static smc_status missing_next(const smc_input *in, const smc_judged *jd, size_t dist,
                               const smc_rollup *r, size_t ti, char **out)
{
    *out = NULL;
    if (!r->missing_cuda || r->missing >= in->library_count) return SMC_OK;
    const char *of = in->libraries[r->missing].path, *name = in->distributions[dist].name;
    unsigned best = 0;
    for (size_t l = 0; l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        const smc_library_judged *lj = &jd->libraries[l];
        unsigned cuda = lib->distribution == dist && ti < lj->judgement_count &&
                                runs(lj->judgements[ti].status)
                            ? smc_alternative_of(lib->path, of)
                            : 0;
        if (cuda > best) best = cuda;
    }
    char *want = smc_alternative_for(of, r->missing_cuda);
    char *runs_here = best ? smc_alternative_for(of, best) : NULL;
    const char *eq = r->override ? strchr(r->override, '=') : NULL;
    if (want && runs_here && eq)
        *out = smc_asprintf("%.*s=%u (%s runs here), or a release of %s that ships %s",
                            (int)(eq - r->override), r->override, best, runs_here,
                            name ? name : "it", want);
    else if (want && runs_here)
        *out = smc_asprintf("a torch built for CUDA %u.%u, for which it ships %s (it runs here), "
                            "or a release of %s that ships %s",
                            best / 10, best % 10, runs_here, name ? name : "it", want);
    else if (want)
        *out = smc_asprintf("a release of %s that ships %s", name ? name : "it", want);
    free(want);
    free(runs_here);
    return *out ? SMC_OK : SMC_ERR_NOMEM;
}

/* The next step for a compiler that does not know the GPU, checked against the tables: the first
 * Triton release whose ptxas knows it (and the setting that names another ptxas), or an NVRTC of
 * a CUDA release that does. NULL when it is not such a roll-up. */
static smc_status compiler_next(const smc_input *in, const smc_situation *where,
                                const smc_judged *jd, const smc_rollup *v, const smc_target *t,
                                char **out)
{
    *out = NULL;
    if (v->status != SMC_STATUS_COMPILER || v->compiler >= jd->compiler_count) return SMC_OK;
    const smc_compiler *c = &jd->compilers[v->compiler];
    smc_compile now = smc_compile_for(in, where->environment, jd->compilers, jd->compiler_count,
                                      c->distribution, t);
    unsigned arch = v->compile_arch;
    int ptxas = smc_compiler_first(arch, v->compile_a), last = smc_compiler_last(arch);
    char upto[32] = " or newer"; /* a target a later CUDA dropped: up to that one */
    if (last) snprintf(upto, sizeof upto, " to %d.%d", last / 1000, last % 1000 / 10);
    if (c->kind == SMC_COMPILER_TRITON) {
        int cuda;
        const char *setting, *until;
        const char *first = smc_triton_first(arch, &cuda, &setting, &until);
        if (!ptxas || smc_compiler_knows(ptxas, arch, v->compile_a) != 1) return SMC_OK;
        char release[128] = "";
        if (first && smc_compiler_knows(cuda, arch, v->compile_a) == 1) { /* judged again */
            if (until)
                snprintf(release, sizeof release, "Triton %s to %s (a torch that requires one: "
                                                  "torch pins its Triton), or ", first, until);
            else
                snprintf(release, sizeof release, "Triton %s or newer (a torch that requires "
                                                  "it: torch pins its Triton), or ", first);
        }
        const char *name = now.setting ? now.setting : "TRITON_PTXAS_PATH";
        bool hyphen = strchr(name, '-') != NULL; /* Triton 3.3's name, which no shell exports */
        *out = smc_asprintf("%s%s set to a ptxas of CUDA %d.%d%s (nvidia-cuda-nvcc%s has one)%s%s%s",
                            release, name, ptxas / 1000, ptxas % 1000 / 10, upto,
                            ptxas >= 13000 ? "" : "-cu12",
                            hyphen ? "; a shell cannot export that name: env '" : "",
                            hyphen ? name : "", hyphen ? "=PATH' python ..." : "");
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    if (c->kind == SMC_COMPILER_XLA) { /* the wheel XLA takes its ptxas from, newer */
        if (!ptxas || smc_compiler_knows(ptxas, arch, v->compile_a) != 1) return SMC_OK;
        char wheel[48];
        snprintf(wheel, sizeof wheel, ptxas >= 13000 ? "nvidia-cuda-nvcc" : "nvidia-cuda-nvcc-cu%d",
                 ptxas / 1000);
        *out = smc_asprintf("%s %d.%d%s (pip install -U '%s>=%d.%d'; a jax whose cuda extra pins "
                            "one does too), or CUDA_ROOT set to a CUDA %d.%d%s (JAX reads it "
                            "first)",
                            wheel, ptxas / 1000, ptxas % 1000 / 10, upto, wheel, ptxas / 1000,
                            ptxas % 1000 / 10, ptxas / 1000, ptxas % 1000 / 10, upto);
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    if (c->kind == SMC_COMPILER_NVVM) { /* the wheel numba-cuda loads its libNVVM from, newer */
        int nvvm = smc_compiler_first(arch, false);
        if (!nvvm || smc_compiler_knows(nvvm, arch, false) != 1) return SMC_OK;
        if (nvvm < 12000) nvvm = 12000; /* the first NVVM on PyPI */
        const char *wheel = nvvm >= 13000 ? "nvidia-nvvm" : "nvidia-cuda-nvcc-cu12";
        *out =
            smc_asprintf("%s %d.%d%s (pip install -U '%s>=%d.%d'), with an NVRTC as new", wheel,
                         nvvm / 1000, nvvm % 1000 / 10, upto, wheel, nvvm / 1000, nvvm % 1000 / 10);
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    int need = smc_compiler_first(arch, false);
    if (!need || smc_compiler_knows(need, arch, false) != 1) return SMC_OK;
    int major = need / 1000;
    int before = (c->cuda / 1000 - 1) * 1000 + 90; /* the last release of the major before */
    if (c->cuda > need && smc_compiler_knows(c->cuda, arch, false) == 0 &&
        smc_compiler_knows(before, arch, false) == 1) { /* a GPU its major dropped */
        *out = smc_asprintf("an NVRTC of CUDA %d (nvidia-cuda-nvrtc-cu%d): CUDA %d.%d dropped "
                            "sm_%u", c->cuda / 1000 - 1, c->cuda / 1000 - 1, c->cuda / 1000,
                            c->cuda % 1000 / 10, arch);
        return *out ? SMC_OK : SMC_ERR_NOMEM;
    }
    char wheel[48];
    snprintf(wheel, sizeof wheel, major >= 13 ? "nvidia-cuda-nvrtc" : "nvidia-cuda-nvrtc-cu%d",
             major);
    *out = smc_asprintf("an NVRTC of CUDA %d.%d%s (%s %d.%d%s)", major, need % 1000 / 10, upto,
                        wheel, major, need % 1000 / 10, upto);
    return *out ? SMC_OK : SMC_ERR_NOMEM;
}

/* The sentences of n roll-ups v (against nt targets), into new words. */
static smc_status derive_rollups(const smc_input *in, const smc_judged *jd, const smc_rollup *v,
                                 size_t n, size_t nt, smc_words **w, size_t *count)
{
    if (n > nt) n = nt;
    smc_status st = words_new(w, count, v ? n : 0);
    for (size_t t = 0; st == SMC_OK && t < *count; t++)
        if (!((*w)[t].reason = smc_rollup_reason(in, jd, &v[t], t))) st = SMC_ERR_NOMEM;
    return st;
}

static smc_status derive_input(const smc_result *r, const smc_input *in, const smc_judged *jd,
                               smc_input_derived *di, const smc_builds *builds)
{
    smc_status st = SMC_OK;
    for (size_t l = 0; l < in->library_count && st == SMC_OK; l++)
        st = derive_library(r, in, &in->libraries[l], &jd->libraries[l], &di->libraries[l]);
    for (size_t k = 0; k < in->distribution_count && st == SMC_OK; k++) {
        const smc_distribution *d = &in->distributions[k];
        const smc_distribution_judged *dj = &jd->distributions[k];
        smc_distribution_derived *dd = &di->distributions[k];
        if (d->variant_claim_count)
            st = smc_variant_unbacked(in, jd, d, &dd->unbacked, &dd->unbacked_count);
        if (st == SMC_OK)
            st = derive_rollups(in, jd, dj->verdicts, dj->verdict_count, r->target_count,
                                &dd->words, &dd->word_count);
        for (size_t t = 0; st == SMC_OK && t < dd->word_count; t++) {
            const smc_rollup *v = &dj->verdicts[t];
            char **next = &dd->words[t].next;
            *next = smc_distribution_next(in, d, v, builds, &r->targets[t], r->driver_cuda);
            if (!*next) st = missing_next(in, jd, k, v, t, next);
            if (st == SMC_OK && !*next)
                st = alternatives_next(in, &r->situation, jd, k, v, &r->targets[t], t, next);
            if (st == SMC_OK && !*next)
                st = compiler_next(in, &r->situation, jd, v, &r->targets[t], next);
            smc_cpu_rule rule;
            if (st == SMC_OK && !*next && v->status == SMC_STATUS_CPU_ONLY && d->name &&
                d->shadowed_by) { /* its files are the CPU build's */
                if (!(*next = smc_asprintf("pip uninstall -y %s %s, then pip install %s",
                                           d->shadowed_by, d->name, d->name)))
                    st = SMC_ERR_NOMEM;
            } else if (st == SMC_OK && !*next && v->status == SMC_STATUS_CPU_ONLY && d->name &&
                       smc_cpu_rule_for(d->name, &rule)) {
                if (!(*next = smc_strdup(rule.instead))) st = SMC_ERR_NOMEM;
            }
        }
    }
    if (st == SMC_OK)
        st = derive_rollups(in, jd, jd->verdicts, jd->verdict_count, r->target_count, &di->words,
                            &di->word_count);
    return st;
}

/* What each library and distribution serves: judged against the serving GPUs with no driver,
 * a judging of its own that goes once what it serves is said. */
static smc_status derive_serving(smc_result *r)
{
    size_t n = r->input_count;
    smc_judged *jd = calloc(n ? n : 1, sizeof *jd);
    smc_status st =
        jd ? smc_judge(r->inputs, n, r->serving, r->serving_count, 0, &r->situation, jd, NULL)
           : SMC_ERR_NOMEM;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        const smc_input *in = r->inputs[i];
        smc_input_derived *di = &r->derived[i];
        for (size_t l = 0; l < in->library_count && st == SMC_OK; l++) {
            smc_serving **sv = &di->libraries[l].serving;
            if (!in->libraries[l].container_count) continue;
            st = (*sv = malloc(sizeof **sv)) ? smc_library_serving(&in->libraries[l], &jd[i].libraries[l], r->serving,
                                                                   r->serving_count, *sv)
                                             : SMC_ERR_NOMEM;
        }
        for (size_t k = 0; k < in->distribution_count && st == SMC_OK; k++) {
            const smc_distribution *d = &in->distributions[k];
            smc_serving **sv = &di->distributions[k].serving;
            if (!d->library_count) continue;
            st = (*sv = malloc(sizeof **sv)) ? smc_distribution_serving(in, &jd[i], d, r->serving,
                                                                        r->serving_count, *sv)
                                             : SMC_ERR_NOMEM;
        }
    }
    for (size_t i = 0; jd && i < n; i++)
        smc_judged_free(&jd[i]);
    free(jd);
    return st;
}

/* Room for what deriving makes of each input, beside it. */
static smc_input_derived *derived_new(smc_input *const *inputs, size_t n)
{
    smc_input_derived *d = calloc(n ? n : 1, sizeof *d);
    for (size_t i = 0; d && i < n; i++) {
        size_t nl = inputs[i]->library_count, nd = inputs[i]->distribution_count;
        d[i].libraries = calloc(nl ? nl : 1, sizeof *d[i].libraries);
        d[i].distributions = calloc(nd ? nd : 1, sizeof *d[i].distributions);
        if (!d[i].libraries || !d[i].distributions) {
            smc_derived_free(d, inputs, i + 1);
            return NULL;
        }
    }
    return d;
}

smc_status smc_derive(smc_result *r, const smc_builds *builds)
{
    smc_status st = SMC_OK;
    for (size_t i = 0; i < r->input_count && st == SMC_OK; i++)
        st = derive_input(r, r->inputs[i], &r->judged[i], &r->derived[i], builds);
    r->partial = 0;
    r->unreadable = false;
    for (size_t i = 0; i < r->input_count; i++) {
        const smc_input *in = r->inputs[i];
        r->unreadable |= in->error_count > 0;
        for (size_t l = 0; l < in->library_count; l++) {
            const smc_library_judged *lj = &r->judged[i].libraries[l];
            bool partial = false;
            for (size_t t = 0; t < lj->judgement_count; t++)
                partial |= lj->judgements[t].status == SMC_STATUS_PARTIAL;
            r->partial += partial;
            r->unreadable |= in->libraries[l].finding_count > 0;
        }
    }
    return st;
}

void smc_result_free(smc_result *r)
{
    if (!r) return;
    smc_derived_free(r->derived, r->inputs, r->derived ? r->input_count : 0);
    for (size_t i = 0; r->judged && i < r->input_count; i++)
        smc_judged_free(&r->judged[i]);
    free(r->judged);
    for (size_t i = 0; r->owns_inputs && i < r->input_count; i++)
        smc_input_free(r->inputs[i]);
    free(r->inputs);
    free(r->targets);
    free(r->serving);
    free(r->overall);
    free(r);
}

static smc_target *copy_targets(const smc_target *t, size_t n)
{
    smc_target *out = malloc((n ? n : 1) * sizeof *out);
    if (out && n) memcpy(out, t, n * sizeof *out);
    return out;
}

smc_status smc_check_inputs(smc_input **inputs, size_t n, const smc_request *req,
                            smc_result **out)
{
    *out = NULL;
    smc_result *r = calloc(1, sizeof *r);
    if (!r) return SMC_ERR_NOMEM;
    r->inputs = malloc((n ? n : 1) * sizeof *r->inputs);
    if (r->inputs) {
        memcpy(r->inputs, inputs, n * sizeof *inputs);
        r->input_count = n;
    }
    r->targets = copy_targets(req->targets, req->target_count);
    r->target_count = req->target_count;
    r->serving = req->serving ? copy_targets(req->serving, req->serving_count) : NULL;
    r->serving_count = req->serving ? req->serving_count : 0;
    r->overall = calloc(r->target_count ? r->target_count : 1, sizeof *r->overall);
    r->driver_cuda = req->driver_cuda;
    r->driver_source = req->driver_source;
    r->default_reason = req->default_reason;
    r->informational = req->informational;
    smc_status st = r->inputs && r->targets && r->overall && (!req->serving || r->serving)
                        ? SMC_OK
                        : SMC_ERR_NOMEM;
    /* The situation: where the libraries must load (--platform, which also chose an image's
     * platform), whether the targets are one machine's GPUs, and the environment. What is served
     * is said of the code alone: no host is assumed for it. */
    r->situation = (smc_situation){
        .platform = req->platform ? smc_platform_name(req->platform) : NULL,
        .one_machine = req->one_machine,
        .environment = req->environment,
    };
    if (st == SMC_OK && !(r->derived = derived_new(r->inputs, n))) st = SMC_ERR_NOMEM;
    if (st == SMC_OK && !(r->judged = calloc(n ? n : 1, sizeof *r->judged))) st = SMC_ERR_NOMEM;
    /* The representative matrix and the serving GPUs follow the inputs' platform. */
    if (st == SMC_OK && r->informational)
        r->arm_left_out = smc_targets_for_platform(r->inputs, n, r->targets, &r->target_count);
    if (st == SMC_OK && r->serving)
        smc_targets_for_platform(r->inputs, n, r->serving, &r->serving_count);
    if (st == SMC_OK && r->serving) st = derive_serving(r);
    r->situation.assume_host = req->local; /* the local GPUs: on this machine's platform */
    if (st == SMC_OK)
        st = smc_judge(r->inputs, n, r->targets, r->target_count, r->driver_cuda, &r->situation,
                       r->judged, r->overall);
    if (st == SMC_OK) st = smc_derive(r, req->builds);
    if (st != SMC_OK) {
        smc_result_free(r);
        return st;
    }
    *out = r;
    return SMC_OK;
}

smc_status smc_request_local(smc_request *req, const smc_gpu_table *table, smc_target **own,
                             smc_driver *d)
{
    extern char **environ;
    *own = NULL;
    size_t n = 0;
    smc_status st = smc_driver_probe(d);
    if (st == SMC_OK) st = smc_targets_local(table, d, own, &n);
    if (st != SMC_OK) return st;
    if (n) {
        if (!req->driver_source) {
            req->driver_cuda = d->cuda_version;
            req->driver_source = "the local driver";
        }
        req->one_machine = req->local = true; /* this machine's GPUs, on its platform */
        req->environment = (const char *const *)environ;
    } else {
        req->informational = true;
        st = smc_targets_representative(table, own, &n);
    }
    req->targets = *own;
    req->target_count = n;
    return st;
}

smc_status smc_check(const smc_request *req, smc_result **out)
{
    *out = NULL;
    if (!req || (req->path_count && !req->paths) || (req->target_count && !req->targets))
        return SMC_ERR_ARG;
    /* What judging needs is read with the bytes: only where it can change a verdict for the
     * targets; for what is served (scan), all of it, as for every GPU. */
    smc_options opt = req->scan;
    opt.read.inspect = true;
    opt.read.kernel_names = req->kernel_names;
    opt.read.targets =
        req->target_count && !req->serving ? req->targets : NULL; /* NULL: every GPU */
    opt.read.target_count = opt.read.targets ? req->target_count : 0;
    opt.read.driver_cuda = opt.read.targets ? req->driver_cuda : 0;
    /* The cache of wheels' facts: the user's unless told otherwise. */
    char *cache = opt.cache.dir || opt.cache.off ? NULL : smc_cache_dir();
    if (cache) opt.cache.dir = cache;
    smc_input **inputs = calloc(req->path_count ? req->path_count : 1, sizeof *inputs);
    if (!inputs) {
        free(cache);
        return SMC_ERR_NOMEM;
    }
    smc_status st = smc_scan_paths(req->paths, req->path_count, &opt, inputs);
    free(cache);
    if (st == SMC_OK) st = smc_check_inputs(inputs, req->path_count, req, out);
    if (st == SMC_OK) (*out)->owns_inputs = true;
    for (size_t i = 0; st != SMC_OK && i < req->path_count; i++)
        smc_input_free(inputs[i]);
    free(inputs);
    return st;
}
