/* rollup.c: the judge's roll-ups: each library's role in its input, then the status of each
 * distribution (its libraries as its loader uses them: alternatives, on-demand features,
 * CPU-only builds, compilers used at run time), of each input and overall; and smc_judge, the
 * judge's entry point. Like verdict.c it reads no bytes and writes no sentences. */
#include "judge_private.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        "libcublas",   "libcudnn",     "libcufft",      "libcurand",     "libcusolver",
        "libcusparse", "libnccl",      "libnvjpeg",     "libnvrtc",      "libcupti",
        "libcudart",   "libnvJitLink", "libnvToolsExt", "libcufile",     "libnpp",
        "libnvblas",   "libmagma",     "libcutensor",   "libcheckpoint", "libpcsamplingutil",
        "libnvperf",   "libnvshmem", /* CUPTI's, NVSHMEM */
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

/* The roles of an input's libraries in their distributions, into jd. */
static void assign_roles(const smc_input *in, smc_judged *jd)
{
    for (size_t l = 0; l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        smc_role *role = &jd->libraries[l].role;
        size_t k;
        const char *rest;
        *role = SMC_ROLE_MAIN;
        if (lib->distribution == SMC_NONE) continue;
        if (alternative_cuda(lib->path, &k, &rest)) {
            /* Another file of the same name up to its CUDA digits: one of them is loaded (a
             * _nocublaslt twin included, which the loader's rule picks or not). */
            for (size_t o = 0; o < in->library_count; o++) {
                size_t ko;
                const char *ro;
                const char *other = in->libraries[o].path;
                if (o != l && in->libraries[o].distribution == lib->distribution &&
                    alternative_cuda(other, &ko, &ro) && ko == k &&
                    strncmp(other, lib->path, k) == 0)
                    *role = SMC_ROLE_ALTERNATIVE;
            }
            if (*role == SMC_ROLE_ALTERNATIVE) continue;
        }
        smc_use use;
        const smc_distribution *d = &in->distributions[lib->distribution];
        if (d->name && smc_use_for(d->name, lib->path, &use) && use.how == SMC_USE_ON_DEMAND)
            *role = SMC_ROLE_ON_DEMAND;
        else if (strstr(lib->path, ".libs/") || vendor_name(smc_base_name(lib->path)))
            *role = SMC_ROLE_VENDORED;
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
                jd->libraries[l].role = SMC_ROLE_STORE;
    }
    /* A distribution made only of "vendored" libraries ships them as its own (nvidia-cublas),
     * unless its own part is a compiler (Triton 3.2 ships CUPTI for its profiler). */
    for (size_t d = 0; d < in->distribution_count; d++) {
        bool own = false;
        for (size_t c = 0; c < jd->compiler_count; c++)
            own |= jd->compilers[c].distribution == d;
        for (size_t l = 0; l < in->library_count; l++)
            own |= in->libraries[l].distribution == d &&
                   jd->libraries[l].role != SMC_ROLE_VENDORED && in->libraries[l].container_count;
        for (size_t l = 0; !own && l < in->library_count; l++)
            if (in->libraries[l].distribution == d) jd->libraries[l].role = SMC_ROLE_MAIN;
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
    size_t only = SMC_NONE, beside = SMC_NONE,
           site = dist < in->distribution_count ? site_of(&in->distributions[dist]) : 0;
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
                          const smc_library_judged *lj, const smc_target *g, size_t t,
                          size_t torch)
{
    if (t >= lj->judgement_count || lj->judgements[t].status != SMC_STATUS_NONE) return SMC_NONE;
    if (lj->judgements[t].cause == SMC_CAUSE_UNSUPPORTED) {
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
static void fold(smc_rollup *r, const smc_judged *jd, size_t l, size_t t, bool *any,
                 bool *gated, bool on_demand)
{
    const smc_library_judged *lj = &jd->libraries[l];
    if (t >= lj->judgement_count) return;
    smc_lib_status s = lj->judgements[t].status;
    *any = true;
    if (s == SMC_STATUS_GATED) return;
    *gated = false;
    if (lj->judgements[t].unused) s = SMC_STATUS_OK; /* not used on this GPU: fails nothing */
    on_demand |= lj->role == SMC_ROLE_ON_DEMAND;
    bool capped =
        (lj->role == SMC_ROLE_VENDORED || on_demand) && rank(s) > rank(SMC_STATUS_PARTIAL);
    if (capped) s = SMC_STATUS_PARTIAL;
    if (rank(s) > rank(r->status) || (r->library == SMC_NONE && rank(s) == rank(r->status))) {
        r->status = s;
        r->library = l;
        r->vendored = capped && lj->role == SMC_ROLE_VENDORED;
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
static smc_rollup roll(const smc_input *in, smc_judged *jd, const smc_situation *where,
                       size_t dist, size_t only, const smc_target *targets, size_t n, size_t t)
{
    smc_library_judged *judged = jd->libraries;
    smc_rollup r = {
        .status = SMC_STATUS_OK, .library = SMC_NONE, .torch = SMC_NONE, .compiler = SMC_NONE};
    size_t chooser = only == SMC_NONE ? torch_for(in, dist, &r.torches) : SMC_NONE;
    unsigned torch = torch_cuda(in, chooser);
    smc_loader_rule rule;
    const smc_distribution *dd = dist < in->distribution_count ? &in->distributions[dist] : NULL;
    bool loader = dd && dd->name && smc_loader_rule_for(dd->name, dd->version, &rule);
    unsigned by = loader ? smc_loader_chooser(&rule, targets, n, t, where->one_machine) : 0;
    bool want_twin = loader && rule.nocublaslt_below && by < rule.nocublaslt_below;
    if (loader && !rule.torch_cuda) torch = 0; /* the system's libcudart names the file */
    /* An override set where the package runs names the file's CUDA instead ("122"). */
    const char *override = NULL;
    size_t klen = loader ? strlen(rule.override) : 0;
    for (const char *const *e = where->environment; klen && e && *e; e++)
        if (strncmp(*e, rule.override, klen) == 0 && (*e)[klen] == '=' && (*e)[klen + 1] >= '1' &&
            (*e)[klen + 1] <= '9') {
            override = *e;
            torch = (unsigned)strtoul(*e + klen + 1, NULL, 10);
        }
    bool any = false, gated = true;
    size_t wanted = 0, alternatives = 0; /* of the set the loader's rule picks, and in all */
    for (size_t l = 0; loader && rule.nocublaslt_below && l < in->library_count; l++)
        if (in->libraries[l].distribution == dist && judged[l].role == SMC_ROLE_ALTERNATIVE) {
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
        if (in->libraries[l].distribution != dist || judged[l].role != SMC_ROLE_STORE) continue;
        done[l] = true;
        if (t >= judged[l].judgement_count) continue;
        r.store_files++;
        smc_judgement *j = &judged[l].judgements[t];
        bool serves = rank(j->status) <= rank(SMC_STATUS_JIT);
        r.store_serving += serves;
        j->unused = !serves;
        if (serves && (store_best == SMC_NONE ||
                       rank(j->status) < rank(judged[store_best].judgements[t].status)))
            store_best = l;
    }
    if (store_best != SMC_NONE) {
        r.store = judged[store_best].judgements[t].status;
        fold(&r, jd, store_best, t, &any, &gated, false);
    } else if (r.store_files) {
        any = true; /* gated: code for other GPUs only */
    }
    for (size_t l = 0; done && l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        if (done[l] || (only != SMC_NONE ? l != only : lib->distribution != dist)) continue;
        done[l] = true;
        if (judged[l].role != SMC_ROLE_ALTERNATIVE || only != SMC_NONE) {
            size_t user = only == SMC_NONE
                              ? not_used_on(in, dist, lib, &judged[l], &targets[t], t, chooser)
                              : SMC_NONE;
            if (user != SMC_NONE) {
                judged[l].judgements[t].unused = true;
                judged[l].judgements[t].used_by = user;
            }
            bool feature =
                only == SMC_NONE && used_as(in, dist, lib, chooser, SMC_USE_ON_DEMAND) != SMC_NONE;
            fold(&r, jd, l, t, &any, &gated, feature);
            continue;
        }
        /* The loader's rule picks the _nocublaslt twins or the others, by one GPU of the
         * machine: the set it does not pick is never loaded. */
        if (loader && rule.nocublaslt_below && nocublaslt(lib->path) != want_twin) {
            for (size_t o = l; o < in->library_count; o++) {
                const smc_library *alt = &in->libraries[o];
                if (alt->distribution != dist || (o != l && !same_choice(lib->path, alt->path)))
                    continue;
                done[o] = true;
                if (t < judged[o].judgement_count) judged[o].judgements[t].unused = true;
            }
            continue;
        }
        /* One choice: the alternative torch's CUDA picks, else the best of them. */
        size_t pick = SMC_NONE, best = SMC_NONE, serving = 0, choices = 0;
        size_t below = SMC_NONE, above = SMC_NONE; /* the nearest of torch's major each side */
        unsigned below_v = 0, above_v = 0;
        for (size_t o = l; o < in->library_count; o++) {
            const smc_library *alt = &in->libraries[o];
            if (alt->distribution != dist || (o != l && !same_choice(lib->path, alt->path)))
                continue;
            done[o] = true;
            if (t >= judged[o].judgement_count) continue;
            choices++;
            int s = rank(judged[o].judgements[t].status);
            serving += s <= rank(SMC_STATUS_JIT);
            if (best == SMC_NONE || s < rank(judged[best].judgements[t].status)) best = o;
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
         * fails at import, loads its CPU library, or fails at the first call:
         * docs/research/loaders.md). */
        bool missing = loader && torch && pick == SMC_NONE;
        size_t loaded = missing ? SMC_NONE : pick != SMC_NONE ? pick : best;
        for (size_t o = l; o < in->library_count; o++) { /* the others fail nothing */
            const smc_library *alt = &in->libraries[o];
            if (alt->distribution == dist && t < judged[o].judgement_count &&
                (o == l || same_choice(lib->path, alt->path)))
                judged[o].judgements[t].unused = o != loaded;
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
        fold(&r, jd, loaded, t, &any, &gated, false);
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
    if (!any)
        r.status = SMC_STATUS_NO_CODE;
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
        out = smc_asprintf("no device code in it%s%s",
                           rule.companions[0] ? ", nor beside it in " : "", rule.companions);
    else
        return NULL;
    if (!out) *st = SMC_ERR_NOMEM;
    return out;
}

/* Where lib of in is judged for target t. A library that needs a CUDA library its input has only
 * in another major cannot load wherever it is judged; one its input lacks altogether cannot in a
 * complete root (an image, a root filesystem), and relies on the host elsewhere (*host, a
 * caution). nd: what its needs resolved to (smc_resolve_needed). */
static void place_of(const smc_input *in, const smc_situation *where, const smc_library *lib,
                     const smc_target *t,
                     const smc_needs *nd, place *at, const char **host)
{
    bool assumed;
    const char *platform = judge_load_platform(in, where, lib, t, &assumed);
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
static void fold_compiler(const smc_input *in, const smc_judged *jd, const smc_situation *where,
                          size_t d, const smc_target *t, smc_rollup *r)
{
    smc_lib_status code = r->status;
    smc_compile c =
        smc_compile_for(in, where->environment, jd->compilers, jd->compiler_count, d, t);
    if (c.compiler != SMC_NONE) {
        if (c.knows == 0 && rank(SMC_STATUS_COMPILER) > rank(r->status))
            *r =
                (smc_rollup){.status = SMC_STATUS_COMPILER, .library = SMC_NONE, .torch = SMC_NONE};
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

/* Judges one input into jd, which holds nothing yet. */
static smc_status judge_input(const smc_input *in, const smc_situation *where, smc_judged *jd,
                              const smc_target *targets, size_t n, int driver_cuda)
{
    /* Verdicts need what the payloads say (kernels, PTX .target and .version, ptxas releases):
     * a model read without it would be judged on guesses. */
    if (in->library_count && !in->inspected) {
        assert(!"a model judged without its facts: read it with smc_options.read.inspect");
        return SMC_ERR_ARG;
    }
    jd->libraries = calloc(in->library_count ? in->library_count : 1, sizeof *jd->libraries);
    jd->distributions =
        calloc(in->distribution_count ? in->distribution_count : 1, sizeof *jd->distributions);
    if (!jd->libraries || !jd->distributions) return SMC_ERR_NOMEM;
    jd->library_count = in->library_count;
    jd->distribution_count = in->distribution_count;
    smc_names names; /* the input's shared libraries, for what each library needs */
    smc_status found = smc_find_compilers(in, &jd->compilers, &jd->compiler_count);
    if (found == SMC_OK) found = smc_names_of(in, &names);
    if (found != SMC_OK) return found;
    for (size_t l = 0; l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        smc_library_judged *lj = &jd->libraries[l];
        if (!lib->container_count || !n) continue; /* only findings, or no target */
        lists sets;
        smc_status st = judge_lists_of(lib, &sets);
        if (st == SMC_OK && !(lj->judgements = calloc(n, sizeof *lj->judgements)))
            st = SMC_ERR_NOMEM;
        if (st == SMC_OK) lj->judgement_count = n;
        int wheel = judge_distribution_cuda(in, lib);
        smc_needs nd;
        if (st == SMC_OK) st = smc_resolve_needed(&names, lib, &nd);
        for (size_t t = 0; t < n && st == SMC_OK; t++) {
            place at;
            const char *host;
            place_of(in, where, lib, &targets[t], &nd, &at, &host);
            st = judge_one_library(lib, &targets[t],
                                   judge_effective_driver(in, &targets[t], driver_cuda), wheel, &at,
                                   &sets, &lj->judgements[t]);
            if (st == SMC_OK && host) {
                lj->judgements[t].warnings |= SMC_WARN_HOST_LIBRARY;
                lj->judgements[t].needs = host;
                lj->judgements[t].needs_more = nd.missing_count - 1;
            }
        }
        free(sets.group);
        if (st != SMC_OK) {
            smc_names_free(&names);
            return st;
        }
    }
    smc_names_free(&names);
    assign_roles(in, jd);
    for (size_t k = 0; k < in->distribution_count; k++) {
        smc_distribution_judged *d = &jd->distributions[k];
        if (!(d->verdicts = calloc(n ? n : 1, sizeof *d->verdicts))) return SMC_ERR_NOMEM;
        d->verdict_count = n;
        smc_status st = SMC_OK;
        d->cpu_only = cpu_only_of(in, k, &st);
        if (st != SMC_OK) return st;
        for (size_t t = 0; t < n; t++) {
            d->verdicts[t] = roll(in, jd, where, k, SMC_NONE, targets, n, t);
            fold_compiler(in, jd, where, k, &targets[t], &d->verdicts[t]);
            if (d->cpu_only) /* no device code, and it exists to use the GPU */
                d->verdicts[t] =
                    (smc_rollup){.status = SMC_STATUS_CPU_ONLY,
                                 .library = SMC_NONE,
                                 .torch = SMC_NONE,
                                 .compiler = SMC_NONE,
                                 .cpu_only = d->cpu_only,
                                 .allowing = {SMC_STATUS_CPU_ONLY, SMC_STATUS_NO_CODE,
                                              SMC_STATUS_CPU_ONLY, SMC_STATUS_NO_CODE}};
        }
    }
    /* An input: the worst of its distributions and of the libraries none claims; none when
     * nothing could be read at all. */
    if (in->error_count && !in->library_count && !in->distribution_count) return SMC_OK;
    if (!(jd->verdicts = calloc(n ? n : 1, sizeof *jd->verdicts))) return SMC_ERR_NOMEM;
    jd->verdict_count = n;
    for (size_t t = 0; t < n; t++) {
        smc_rollup *r = &jd->verdicts[t];
        *r = (smc_rollup){.status = SMC_STATUS_NO_CODE,
                          .library = SMC_NONE,
                          .torch = SMC_NONE,
                          .compiler = SMC_NONE};
        smc_rollup allowed = {.allowing = {SMC_STATUS_NO_CODE, SMC_STATUS_NO_CODE,
                                           SMC_STATUS_NO_CODE, SMC_STATUS_NO_CODE}};
        for (size_t k = 0; k < in->distribution_count; k++) {
            const smc_rollup *dv = &jd->distributions[k].verdicts[t];
            if (rank(dv->status) > rank(r->status)) *r = *dv;
            allow_into(&allowed, dv);
        }
        for (size_t l = 0; l < in->library_count; l++) {
            if (in->libraries[l].distribution != SMC_NONE) continue;
            smc_rollup one = roll(in, jd, where, SMC_NONE, l, targets, n, t);
            for (unsigned m = 0; m < 4; m++)
                one.allowing[m] = one.status;
            if (rank(one.status) > rank(r->status)) *r = one;
            allow_into(&allowed, &one);
        }
        /* The compilers no distribution claims (a toolkit's NVRTC): the input's own. */
        smc_rollup loose = {.status = SMC_STATUS_NO_CODE,
                            .library = SMC_NONE,
                            .torch = SMC_NONE,
                            .compiler = SMC_NONE};
        fold_compiler(in, jd, where, SMC_NONE, &targets[t], &loose);
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
        int eff = judge_effective_driver(in, &targets[t], driver_cuda);
        if (eff > 0 && in->require_cuda_version > eff)
            *r = (smc_rollup){
                .status = SMC_STATUS_NONE,
                .library = SMC_NONE,
                .torch = SMC_NONE,
                .compiler = SMC_NONE,
                .requires = in->require_cuda_version,
                .compat = in->compat_cuda,
                .allowing = {SMC_STATUS_NONE, SMC_STATUS_NONE, SMC_STATUS_NONE, SMC_STATUS_NONE}};
        else if (eff > driver_cuda && driver_cuda > 0)
            r->compat = eff; /* it runs by the image's forward-compatibility package */
    }
    return SMC_OK;
}

/* What is known of a situation that no one described: nothing. */
static const smc_situation unknown;

smc_status smc_judge_library(const smc_input *in, const smc_situation *where,
                             const smc_library *lib, const smc_target *t, int driver_cuda,
                             smc_judgement *out)
{
    if (!where) where = &unknown;
    lists sets;
    *out = (smc_judgement){0};
    smc_status st = judge_lists_of(lib, &sets);
    place at;
    const char *host;
    smc_names names = {0};
    smc_needs nd = {0};
    if (st == SMC_OK && lib->needed_count) st = smc_names_of(in, &names);
    if (st == SMC_OK) st = smc_resolve_needed(&names, lib, &nd);
    place_of(in, where, lib, t, &nd, &at, &host);
    if (st == SMC_OK)
        st = judge_one_library(lib, t, judge_effective_driver(in, t, driver_cuda),
                               judge_distribution_cuda(in, lib), &at, &sets, out);
    smc_names_free(&names);
    free(sets.group);
    return st;
}

smc_status smc_judge(smc_input *const *inputs, size_t n, const smc_target *targets,
                     size_t target_count, int driver_cuda, const smc_situation *where,
                     smc_judged *out, smc_lib_status *overall)
{
    if (!where) where = &unknown;
    for (size_t i = 0; out && i < n; i++)
        out[i] = (smc_judged){0};
    if ((n && (!inputs || !out)) || (target_count && !targets)) return SMC_ERR_ARG;
    for (size_t t = 0; overall && t < target_count; t++)
        overall[t] = SMC_STATUS_NO_CODE;
    for (size_t i = 0; i < n; i++) {
        smc_status st =
            judge_input(inputs[i], where, &out[i], targets, target_count, driver_cuda);
        if (st != SMC_OK) return st;
        for (size_t t = 0; overall && t < out[i].verdict_count; t++)
            if (rank(out[i].verdicts[t].status) > rank(overall[t]))
                overall[t] = out[i].verdicts[t].status;
    }
    return SMC_OK;
}

void smc_judged_free(smc_judged *jd)
{
    if (!jd) return;
    for (size_t l = 0; jd->libraries && l < jd->library_count; l++)
        smc_judgements_free(jd->libraries[l].judgements, jd->libraries[l].judgement_count);
    for (size_t k = 0; jd->distributions && k < jd->distribution_count; k++) {
        free(jd->distributions[k].verdicts);
        free(jd->distributions[k].cpu_only);
    }
    free(jd->verdicts);
    smc_compilers_free(jd->compilers, jd->compiler_count);
    free(jd->libraries);
    free(jd->distributions);
    *jd = (smc_judged){0};
}

bool smc_status_fails(smc_lib_status s, smc_lib_status gate)
{
    return s != SMC_STATUS_NO_CODE &&
           (s == SMC_STATUS_CPU_ONLY || s == SMC_STATUS_COMPILER || rank(s) >= rank(gate));
}
