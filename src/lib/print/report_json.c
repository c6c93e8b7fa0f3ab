/* report_json.c: the JSON report (schema_version 2) and SARIF 2.1.0; the only user of cJSON.
 * Keys are stable and their order fixed; other tools parse this. One name, one shape: every key
 * is always there (null when unknown or not asked for), lists are arrays, versions "X.Y". */
#include "report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <unistd.h>

#define SCHEMA_VERSION 2

/* cJSON's builders return NULL when out of memory, and adding NULL to an object fails; so a tree
 * is built without checks and its completeness checked once with this flag, set by add(). */
typedef struct builder {
    bool failed;
} builder;

static cJSON *add(builder *b, cJSON *obj, const char *key, cJSON *item)
{
    if (!item || !(key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item))) {
        cJSON_Delete(item);
        b->failed = true;
        return NULL;
    }
    return item;
}

/* A string for JSON, which is UTF-8: bytes of a name that are not (a Latin-1 file name) are
 * written \udcXX, as Python's surrogateescape reads them: os.fsencode() gives the bytes back. */
static cJSON *json_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = s ? strlen(s) : 0, i = 0, k;
    while (i < n && (k = smc_utf8_at(p + i, n - i)) != 0)
        i += k;
    if (!s || i == n) return cJSON_CreateString(s);
    char *lit = malloc(6 * n + 3), *o = lit;
    if (!lit) return NULL;
    *o++ = '"';
    for (i = 0; i < n; i += k) {
        k = smc_utf8_at(p + i, n - i);
        if (k == 0) {
            o += sprintf(o, "\\udc%02x", p[i]);
            k = 1;
        } else if (k == 1 && (p[i] == '"' || p[i] == '\\')) {
            *o++ = '\\';
            *o++ = (char)p[i];
        } else if (k == 1 && p[i] < 0x20) {
            o += sprintf(o, "\\u%04x", p[i]);
        } else {
            memcpy(o, p + i, k);
            o += k;
        }
    }
    *o++ = '"';
    *o = '\0';
    cJSON *raw = cJSON_CreateRaw(lit);
    free(lit);
    return raw;
}

/* Prints and frees a finished tree. */
static smc_status print_root(FILE *out, cJSON *root, const builder *b)
{
    char *text = b->failed ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return SMC_ERR_NOMEM;
    fputs(text, out);
    fputc('\n', out);
    free(text);
    return ferror(out) ? SMC_ERR_IO : SMC_OK;
}

static cJSON *offset_json(uint64_t off)
{
    return off == SMC_NO_OFFSET ? cJSON_CreateNull() : cJSON_CreateNumber((double)off);
}

static cJSON *version_json(unsigned major, unsigned minor)
{
    char v[32];
    snprintf(v, sizeof v, "%u.%u", major, minor);
    return json_text(v);
}

static cJSON *image_json(builder *b, const smc_image *img)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    char tok[SMC_TOKEN_MAX];
    add(b, o, "token", json_text(smc_image_token(img, tok)));
    add(b, o, "kind", json_text(smc_image_kind_str(img->kind)));
    add(b, o, "offset", cJSON_CreateNumber((double)img->offset));
    add(b, o, "compression", json_text(smc_compression_str(img->compression)));
    add(b, o, "stored_size", cJSON_CreateNumber((double)img->stored_size));
    add(b, o, "size", cJSON_CreateNumber((double)img->size));
    /* PTX: its entry's ISA, and what its text says when it was read; cubin: its ABI, release. */
    bool ptx = img->kind == SMC_IMAGE_PTX, cubin = img->kind == SMC_IMAGE_CUBIN;
    char target[SMC_TOKEN_MAX];
    snprintf(target, sizeof target, "sm_%u%s", img->text_arch,
             img->text_variant == SMC_VARIANT_A   ? "a"
             : img->text_variant == SMC_VARIANT_F ? "f"
                                                  : "");
    add(b, o, "ptx_isa",
        ptx ? version_json(img->version_major, img->version_minor) : cJSON_CreateNull());
    add(b, o, "ptx_target", ptx && img->text_arch ? json_text(target) : cJSON_CreateNull());
    add(b, o, "ptx_version",
        ptx && img->text_isa ? version_json(img->text_isa / 10, img->text_isa % 10)
                             : cJSON_CreateNull());
    add(b, o, "cubin_abi",
        cubin ? version_json(img->version_major, img->version_minor) : cJSON_CreateNull());
    add(b, o, "release",
        cubin && img->release ? version_json(img->release / 1000, img->release % 1000 / 10)
                              : cJSON_CreateNull());
    return o;
}

static cJSON *container_json(builder *b, const smc_library *lib, const smc_container *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add(b, o, "section", c->section ? json_text(c->section) : cJSON_CreateNull());
    add(b, o, "member", c->member ? json_text(c->member) : cJSON_CreateNull());
    add(b, o, "offset", cJSON_CreateNumber((double)c->offset));
    add(b, o, "size", cJSON_CreateNumber((double)c->size));
    add(b, o, "relocatable", cJSON_CreateBool(c->relocatable));
    add(b, o, "bare_cubin", cJSON_CreateBool(c->bare_cubin));
    add(b, o, "kernels", c->kernels < 0 ? cJSON_CreateNull() : cJSON_CreateBool(c->kernels));
    add(b, o, "kernel_names",
        c->kernel_names ? json_text(c->kernel_names) : cJSON_CreateNull());
    cJSON *imgs = add(b, o, "images", cJSON_CreateArray());
    for (size_t i = 0; imgs && i < c->image_count; i++)
        add(b, imgs, NULL, image_json(b, &lib->images[c->first_image + i]));
    return o;
}

static cJSON *judgement_json(builder *b, const smc_input *in, const smc_library *lib,
                             const smc_judgement *j, size_t target, const smc_view *opt)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add(b, o, "target", cJSON_CreateNumber((double)target));
    add(b, o, "status", json_text(smc_lib_status_str(j->status)));
    cJSON *by = add(b, o, "containers_by_verdict", cJSON_CreateObject());
    for (int v = 0; by && v < SMC_VERDICT_COUNT; v++)
        add(b, by, smc_verdict_str((smc_verdict)v),
            cJSON_CreateNumber((double)j->containers_by_verdict[v]));
    add(b, o, "cause", json_text(smc_cause_str(j->cause)));
    add(b, o, "reason", j->reason ? json_text(j->reason) : NULL);
    add(b, o, "warnings", j->warning ? json_text(j->warning) : cJSON_CreateNull());
    add(b, o, "next", j->next ? json_text(j->next) : cJSON_CreateNull());
    add(b, o, "unused", cJSON_CreateBool(j->unused));
    add(b, o, "used_by",
        j->used_by < in->distribution_count && in->distributions[j->used_by].name
            ? json_text(in->distributions[j->used_by].name)
            : cJSON_CreateNull());
    const smc_support *row = j->support;
    cJSON *sup = add(b, o, "support", row ? cJSON_CreateObject() : cJSON_CreateNull());
    if (row && sup) { /* what NVIDIA documents for this release of its library */
        char cc[16];
        snprintf(cc, sizeof cc, "%u.%u", row->from / 10, row->from % 10);
        add(b, sup, "from", row->from ? json_text(cc) : cJSON_CreateNull());
        cJSON *list = add(b, sup, "compute_capabilities", cJSON_CreateArray());
        for (size_t i = 0; list && i < row->count; i++) {
            snprintf(cc, sizeof cc, "%u.%u", row->list[i] / 10, row->list[i] % 10);
            add(b, list, NULL, json_text(cc));
        }
        add(b, sup, "refused", cJSON_CreateBool(row->refused));
        add(b, sup, "documented", cJSON_CreateBool(j->documented));
        add(b, sup, "source", json_text(row->source));
    }
    cJSON *needs = add(b, o, "needs", j->needs ? cJSON_CreateObject() : cJSON_CreateNull());
    if (j->needs && needs) { /* a CUDA library it cannot load, or relies on the host for */
        add(b, needs, "soname", json_text(j->needs));
        add(b, needs, "other_major", j->needs_other ? json_text(j->needs_other) : cJSON_CreateNull());
        add(b, needs, "from_host", cJSON_CreateBool(j->cause != SMC_CAUSE_NEEDS));
        add(b, needs, "more_missing", cJSON_CreateNumber((double)j->needs_more));
    }
    /* What the driver compiles at first launch on this GPU. */
    cJSON *jit = add(b, o, "jit", cJSON_CreateObject());
    if (jit) {
        add(b, jit, "containers", cJSON_CreateNumber((double)j->jit_containers));
        add(b, jit, "ptx_bytes", cJSON_CreateNumber((double)j->jit_bytes));
        add(b, jit, "large", cJSON_CreateBool(j->warnings & SMC_WARN_JIT_LARGE));
    }
    cJSON *fails = add(b, o, "failing_containers",
                       opt->detail ? cJSON_CreateArray() : cJSON_CreateNull());
    for (size_t i = 0; opt->detail && fails && i < j->failing_count; i++) {
        const smc_container *c = &lib->containers[j->failing[i]];
        cJSON *f = add(b, fails, NULL, cJSON_CreateObject());
        if (!f) break;
        add(b, f, "offset", cJSON_CreateNumber((double)c->offset));
        add(b, f, "section", c->section ? json_text(c->section) : cJSON_CreateNull());
        add(b, f, "kernel_names",
            c->kernel_names ? json_text(c->kernel_names) : cJSON_CreateNull());
    }
    return o;
}

static cJSON *cc_list_json(const char *list)
{
    cJSON *a = cJSON_CreateArray();
    for (const char *v = list; a && *v;) { /* the list as it is, however long */
        size_t n = strcspn(v, " ");
        char word[SMC_TOKEN_MAX + 16];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), v);
        cJSON *s = n ? cJSON_CreateString(word) : NULL;
        if (n && (!s || !cJSON_AddItemToArray(a, s))) {
            cJSON_Delete(s);
            cJSON_Delete(a);
            return NULL;
        }
        v += n + (v[n] == ' ');
    }
    return a;
}

/* {cubins, ptx, ptx_driver_cuda, partial, none, sm_arch, cuda_version_lower_bound} */
static cJSON *serving_json(builder *b, const smc_serving *sv)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add(b, o, "cubins", cc_list_json(sv->cubins));
    add(b, o, "ptx", cc_list_json(sv->ptx));
    char v[16];
    snprintf(v, sizeof v, "%d.%d", sv->ptx_cuda / 1000, sv->ptx_cuda % 1000 / 10);
    add(b, o, "ptx_driver_cuda", sv->ptx_cuda ? json_text(v) : cJSON_CreateNull());
    add(b, o, "partial", cc_list_json(sv->partial));
    add(b, o, "none", cc_list_json(sv->none));
    add(b, o, "sm_arch", cc_list_json(sv->sm_arch));
    snprintf(v, sizeof v, "%d.%d", sv->cuda_lower_bound / 1000, sv->cuda_lower_bound % 1000 / 10);
    add(b, o, "cuda_version_lower_bound",
        sv->cuda_lower_bound ? json_text(v) : cJSON_CreateNull());
    return o;
}

static cJSON *library_json(builder *b, const smc_input *in, const smc_library *lib,
                           const smc_view *opt)
{
    const smc_summary sum = lib->summary ? *lib->summary : (smc_summary){0};
    cJSON *o = cJSON_CreateObject();
    if (o) {
        add(b, o, "path", json_text(lib->path));
        cJSON *links = add(b, o, "links", cJSON_CreateArray());
        for (size_t i = 0; links && i < lib->link_count; i++)
            add(b, links, NULL, json_text(lib->links[i]));
        add(b, o, "layer", lib->layer ? json_text(lib->layer) : cJSON_CreateNull());
        add(b, o, "role", json_text(smc_role_str(lib->role)));
        add(b, o, "containers", cJSON_CreateNumber((double)lib->container_count));
        char soname[40];
        smc_cudart_name(soname, sizeof soname, lib);
        add(b, o, "cudart_soname", lib->cudart_major ? json_text(soname) : cJSON_CreateNull());
        add(b, o, "release",
            lib->release ? version_json(lib->release / 1000, lib->release % 1000 / 10)
                         : cJSON_CreateNull());
        cJSON *counts = add(b, o, "token_counts", cJSON_CreateArray());
        for (size_t i = 0; counts && i < sum.token_count; i++) {
            cJSON *c = add(b, counts, NULL, cJSON_CreateObject());
            if (!c) break;
            add(b, c, "token", json_text(sum.tokens[i].token));
            add(b, c, "count", cJSON_CreateNumber((double)sum.tokens[i].count));
        }
        cJSON *sets = add(b, o, "token_sets", cJSON_CreateArray());
        for (size_t i = 0; sets && i < sum.set_count; i++) {
            cJSON *s = add(b, sets, NULL, cJSON_CreateObject());
            if (!s) break;
            add(b, s, "tokens", json_text(sum.sets[i].tokens));
            add(b, s, "containers", cJSON_CreateNumber((double)sum.sets[i].containers));
            add(b, s, "relocatable", cJSON_CreateBool(sum.sets[i].relocatable));
        }
        cJSON *finds = add(b, o, "findings", cJSON_CreateArray());
        for (size_t i = 0; finds && i < lib->finding_count; i++) {
            cJSON *f = add(b, finds, NULL, cJSON_CreateObject());
            if (!f) break;
            add(b, f, "offset", offset_json(lib->findings[i].offset));
            add(b, f, "message", json_text(lib->findings[i].message));
        }
        add(b, o, "findings_more", cJSON_CreateNumber((double)lib->findings_more));
        cJSON *vs = add(b, o, "verdicts", cJSON_CreateArray());
        bool judged = opt && opt->target_count && opt->target_count >= lib->judgement_count;
        for (size_t t = 0; judged && vs && t < lib->judgement_count; t++)
            add(b, vs, NULL, judgement_json(b, in, lib, &lib->judgements[t], t, opt));
        add(b, o, "serves", lib->serving ? serving_json(b, lib->serving) : cJSON_CreateNull());
        bool detail = opt && opt->detail;
        cJSON *list = add(b, o, "container_list", detail ? cJSON_CreateArray() : cJSON_CreateNull());
        for (size_t i = 0; detail && list && i < lib->container_count; i++)
            add(b, list, NULL, container_json(b, lib, &lib->containers[i]));
    }
    return o;
}

static cJSON *string_or_null(const char *s)
{
    return s ? json_text(s) : cJSON_CreateNull();
}

/* {target, status, reason, library, vendored, all_gated, alternatives}: how a distribution or an
 * input came to its status. */
static cJSON *rollup_json(builder *b, const smc_input *in, const smc_rollup *r, size_t t)
{
    cJSON *v = cJSON_CreateObject();
    if (!v) return NULL;
    add(b, v, "target", cJSON_CreateNumber((double)t));
    add(b, v, "status", json_text(smc_lib_status_str(r->status)));
    add(b, v, "reason", r->reason ? json_text(r->reason) : NULL);
    add(b, v, "library",
        r->library < in->library_count ? json_text(in->libraries[r->library].path)
                                       : cJSON_CreateNull());
    add(b, v, "vendored", cJSON_CreateBool(r->vendored));
    add(b, v, "on_demand", cJSON_CreateBool(r->on_demand));
    cJSON *store = add(b, v, "store", r->store_files ? cJSON_CreateObject() : cJSON_CreateNull());
    if (r->store_files && store) { /* loose cubins its loader picks from by GPU */
        add(b, store, "files", cJSON_CreateNumber((double)r->store_files));
        add(b, store, "serving", cJSON_CreateNumber((double)r->store_serving));
        add(b, store, "status", json_text(smc_lib_status_str(r->store)));
    }
    char c[16]; /* an image's forward-compatibility package decided it */
    snprintf(c, sizeof c, "%d.%d", r->compat / 1000, r->compat % 1000 / 10);
    add(b, v, "compat_cuda", r->compat ? json_text(c) : cJSON_CreateNull());
    add(b, v, "all_gated", cJSON_CreateBool(r->all_gated));
    add(b, v, "cpu_only", r->cpu_only ? json_text(r->cpu_only) : cJSON_CreateNull());
    const smc_compiler *comp = r->compiler < in->compiler_count ? &in->compilers[r->compiler] : NULL;
    cJSON *cj = add(b, v, "compiler", comp ? cJSON_CreateObject() : cJSON_CreateNull());
    if (comp && cj) {
        char target[24];
        snprintf(target, sizeof target, "%s_%u%s", r->compile_ptx ? "compute" : "sm",
                 r->compile_arch, r->compile_a ? "a" : "");
        add(b, cj, "path", json_text(comp->path));
        add(b, cj, "target", json_text(target));
        add(b, cj, "knows", r->compile_override || r->compile_knows < 0
                                ? cJSON_CreateNull()
                                : cJSON_CreateBool(r->compile_knows == 1));
        add(b, cj, "override", r->compile_override ? json_text(r->compile_override)
                                                   : cJSON_CreateNull());
    }
    if (r->choices) {
        cJSON *alt = add(b, v, "alternatives", cJSON_CreateObject());
        if (alt) {
            add(b, alt, "choices", cJSON_CreateNumber((double)r->choices));
            add(b, alt, "serving", cJSON_CreateNumber((double)r->serving));
            add(b, alt, "chosen_by_torch", cJSON_CreateBool(r->chosen));
            char by[16];
            snprintf(by, sizeof by, "%u.%u", r->chooser_cc / 10, r->chooser_cc % 10);
            add(b, alt, "chosen_by_gpu", r->chooser_cc ? json_text(by) : cJSON_CreateNull());
            add(b, alt, "chosen_for_machine", cJSON_CreateBool(r->machine_choice));
            char cuda[16];
            snprintf(cuda, sizeof cuda, "%u.%u", r->missing_cuda / 10, r->missing_cuda % 10);
            add(b, alt, "missing_cuda", r->missing_cuda ? json_text(cuda) : cJSON_CreateNull());
        }
    } else {
        add(b, v, "alternatives", cJSON_CreateNull());
    }
    return v;
}

static cJSON *distribution_json(builder *b, const smc_input *in, const smc_distribution *d,
                               const smc_view *opt)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add(b, o, "name", string_or_null(d->name));
    add(b, o, "version", string_or_null(d->version));
    add(b, o, "local_version", string_or_null(d->local_version));
    add(b, o, "source", string_or_null(d->source));
    add(b, o, "location", string_or_null(d->location));
    add(b, o, "tag", string_or_null(d->tag));
    add(b, o, "platform", string_or_null(d->platform));
    /* "12.8"; a source that names only the major ("13", a cu13 requirement): null and the major. */
    unsigned major = 0, minor = 0;
    int parts = d->cuda ? sscanf(d->cuda, "%u.%u", &major, &minor) : 0;
    add(b, o, "cuda", parts == 2 ? version_json(major, minor) : cJSON_CreateNull());
    add(b, o, "cuda_major", parts >= 1 ? cJSON_CreateNumber(major) : cJSON_CreateNull());
    add(b, o, "cuda_source", string_or_null(d->cuda_source));
    cJSON *sh = add(b, o, "shadowed_by", d->shadowed_by ? cJSON_CreateObject() : cJSON_CreateNull());
    if (d->shadowed_by && sh) {
        add(b, sh, "name", json_text(d->shadowed_by));
        add(b, sh, "evidence", string_or_null(d->shadow_evidence));
    }
    cJSON *libs = add(b, o, "libraries", cJSON_CreateArray());
    for (size_t i = 0; libs && i < d->library_count; i++)
        add(b, libs, NULL, json_text(in->libraries[d->libraries[i]].path));
    cJSON *vs = add(b, o, "verdicts", cJSON_CreateArray());
    if (d->verdicts && opt && opt->target_count) {
        for (size_t t = 0; vs && t < in->verdict_count; t++) {
            cJSON *v = add(b, vs, NULL, rollup_json(b, in, &d->verdicts[t], t));
            const char *next = t < d->verdict_count ? d->verdicts[t].next : NULL;
            if (v) add(b, v, "next", next ? json_text(next) : cJSON_CreateNull());
        }
    }
    add(b, o, "serves", d->serving ? serving_json(b, d->serving) : cJSON_CreateNull());
    if (!d->variant_claim_count) add(b, o, "variant", cJSON_CreateNull());
    if (d->variant_claim_count) {
        cJSON *var = add(b, o, "variant", cJSON_CreateObject());
        if (var) {
            add(b, var, "label", json_text(d->variant_label));
            cJSON *claims = add(b, var, "claims", cJSON_CreateArray());
            for (size_t k = 0; claims && k < d->variant_claim_count; k++)
                add(b, claims, NULL, json_text(d->variant_claims[k]));
            cJSON *unb = add(b, var, "not_backed", cJSON_CreateArray());
            for (size_t k = 0; unb && k < d->unbacked_count; k++)
                add(b, unb, NULL, json_text(d->unbacked[k]));
        }
    }
    return o;
}

static cJSON *input_json(builder *b, const smc_input *in, const smc_view *opt)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add(b, o, "path", json_text(in->path));
    add(b, o, "kind", json_text(smc_input_kind_str(in->kind)));
    add(b, o, "files", cJSON_CreateNumber((double)in->files));
    add(b, o, "require_cuda", string_or_null(in->require_cuda)); /* an image's */
    char v[16];
    snprintf(v, sizeof v, "%d.%d", in->compat_cuda / 1000, in->compat_cuda % 1000 / 10);
    add(b, o, "compat_cuda", in->compat_cuda ? json_text(v) : cJSON_CreateNull());
    cJSON *errs = add(b, o, "errors", cJSON_CreateArray());
    for (size_t i = 0; errs && i < in->error_count; i++) {
        cJSON *e = add(b, errs, NULL, cJSON_CreateObject());
        if (!e) break;
        add(b, e, "path", json_text(in->errors[i].path));
        add(b, e, "message", json_text(in->errors[i].message));
    }
    add(b, o, "errors_more", cJSON_CreateNumber((double)in->errors_more));
    cJSON *vs = add(b, o, "verdicts", cJSON_CreateArray());
    for (size_t t = 0; opt && opt->target_count && vs && t < in->verdict_count; t++)
        add(b, vs, NULL, rollup_json(b, in, &in->verdicts[t], t));
    cJSON *dists = add(b, o, "distributions", cJSON_CreateArray());
    for (size_t i = 0; dists && i < in->distribution_count; i++)
        add(b, dists, NULL, distribution_json(b, in, &in->distributions[i], opt));
    cJSON *comps = add(b, o, "compilers", cJSON_CreateArray());
    for (size_t i = 0; comps && i < in->compiler_count; i++) { /* found by the judge */
        const smc_compiler *c = &in->compilers[i];
        cJSON *cj = add(b, comps, NULL, cJSON_CreateObject());
        if (!cj) break;
        add(b, cj, "kind", json_text(smc_compiler_kind_str(c->kind)));
        add(b, cj, "path", json_text(c->path));
        add(b, cj, "cuda", c->cuda ? version_json((unsigned)c->cuda / 1000,
                                                  (unsigned)c->cuda % 1000 / 10)
                                   : cJSON_CreateNull());
        add(b, cj, "cuda_source", string_or_null(c->cuda_source));
        add(b, cj, "distribution", c->distribution < in->distribution_count
                                       ? string_or_null(in->distributions[c->distribution].name)
                                       : cJSON_CreateNull());
    }
    cJSON *notes = add(b, o, "notes", cJSON_CreateArray());
    for (size_t i = 0; notes && i < in->note_count; i++)
        add(b, notes, NULL, json_text(in->notes[i]));
    add(b, o, "notes_more", cJSON_CreateNumber((double)in->notes_more));
    cJSON *libs = add(b, o, "libraries", cJSON_CreateArray());
    for (size_t i = 0; libs && i < in->library_count; i++)
        add(b, libs, NULL, library_json(b, in, &in->libraries[i], opt));
    return o;
}

/* The head every JSON document of smcheck starts with: schema_version and tool. */
static cJSON *head_json(builder *b)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    add(b, root, "schema_version", cJSON_CreateNumber(SCHEMA_VERSION));
    cJSON *tool = add(b, root, "tool", cJSON_CreateObject());
    if (tool) {
        add(b, tool, "name", json_text("smcheck"));
        add(b, tool, "version", json_text(SMC_VERSION));
    }
    return root;
}

/* The report's head: schema_version, tool, the default input, targets and driver. */
static cJSON *root_json(builder *b, const smc_view *opt)
{
    cJSON *root = head_json(b);
    if (!root) return NULL;
    add(b, root, "default_input", string_or_null(opt ? opt->default_reason : NULL));
    cJSON *targets = add(b, root, "targets", cJSON_CreateArray());
    for (size_t t = 0; targets && opt && t < opt->target_count; t++) {
        const smc_target *g = &opt->targets[t];
        cJSON *o = add(b, targets, NULL, cJSON_CreateObject());
        if (!o) break;
        char tok[16];
        snprintf(tok, sizeof tok, "sm_%u%u", g->cc_major, g->cc_minor);
        add(b, o, "token", json_text(tok));
        add(b, o, "name", g->name[0] ? json_text(g->name) : cJSON_CreateNull());
        add(b, o, "compute_capability", version_json(g->cc_major, g->cc_minor));
    }
    if (!opt || !opt->target_count) add(b, root, "driver", cJSON_CreateNull());
    if (opt && opt->target_count) {
        cJSON *drv = add(b, root, "driver", cJSON_CreateObject());
        char v[32];
        snprintf(v, sizeof v, "%d.%d", opt->driver_cuda / 1000, opt->driver_cuda % 1000 / 10);
        if (drv) {
            add(b, drv, "cuda_version",
                opt->driver_cuda > 0 ? json_text(v) : cJSON_CreateNull());
            add(b, drv, "source",
                opt->driver_source ? json_text(opt->driver_source) : cJSON_CreateNull());
        }
    }
    return root;
}

smc_status smc_report_json(FILE *out, const smc_result *r, const smc_display *how)
{
    const smc_view view = smc_view_of(r, how), *opt = &view;
    smc_input *const *inputs = r->inputs;
    size_t n = r->input_count;
    builder b = {false};
    cJSON *root = root_json(&b, opt);
    if (!root) return SMC_ERR_NOMEM;
    cJSON *all = add(&b, root, "overall", cJSON_CreateArray());
    if (opt->target_count && opt->overall) {
        for (size_t t = 0; all && t < opt->target_count; t++) {
            cJSON *v = add(&b, all, NULL, cJSON_CreateObject());
            if (!v) break;
            add(&b, v, "target", cJSON_CreateNumber((double)t));
            add(&b, v, "status", json_text(smc_lib_status_str(opt->overall[t])));
        }
    }
    cJSON *ins = add(&b, root, "inputs", cJSON_CreateArray());
    for (size_t i = 0; ins && i < n; i++)
        add(&b, ins, NULL, input_json(&b, inputs[i], opt));
    return print_root(out, root, &b);
}

smc_status smc_report_gpus_json(FILE *out, const smc_driver *d)
{
    builder b = {false};
    cJSON *root = head_json(&b);
    if (!root) return SMC_ERR_NOMEM;
    cJSON *drv = add(&b, root, "driver", cJSON_CreateObject());
    if (drv) {
        char v[32];
        snprintf(v, sizeof v, "%d.%d", d->cuda_version / 1000, d->cuda_version % 1000 / 10);
        add(&b, drv, "loaded", cJSON_CreateBool(d->loaded));
        add(&b, drv, "cuda_version",
            d->cuda_version > 0 ? json_text(v) : cJSON_CreateNull());
        add(&b, drv, "max_ptx_isa",
            d->max_ptx_isa ? version_json(d->max_ptx_isa / 10, d->max_ptx_isa % 10)
                           : cJSON_CreateNull());
        add(&b, drv, "error", d->message[0] ? json_text(d->message) : cJSON_CreateNull());
    }
    cJSON *gpus = add(&b, root, "gpus", cJSON_CreateArray());
    for (size_t i = 0; gpus && i < d->gpu_count; i++) {
        const smc_gpu *g = &d->gpus[i];
        cJSON *o = add(&b, gpus, NULL, cJSON_CreateObject());
        if (!o) break;
        add(&b, o, "index", cJSON_CreateNumber(g->index));
        add(&b, o, "name", json_text(g->name));
        add(&b, o, "compute_capability", version_json(g->cc_major, g->cc_minor));
        add(&b, o, "integrated", cJSON_CreateBool(g->integrated));
    }
    return print_root(out, root, &b);
}

smc_status smc_report_gpu_table_json(FILE *out, const smc_gpu_table *t)
{
    builder b = {false};
    cJSON *root = head_json(&b);
    if (!root) return SMC_ERR_NOMEM;
    cJSON *gpus = add(&b, root, "gpus", cJSON_CreateArray());
    for (size_t i = 0; gpus && i < t->count; i++) {
        const smc_gpu_model *m = &t->models[i];
        cJSON *o = add(&b, gpus, NULL, cJSON_CreateObject());
        if (!o) break;
        add(&b, o, "name", json_text(m->name));
        add(&b, o, "compute_capability", version_json(m->cc_major, m->cc_minor));
        add(&b, o, "architecture", json_text(m->architecture));
        add(&b, o, "representative", cJSON_CreateBool(m->representative));
        add(&b, o, "weakly_sourced", cJSON_CreateBool(m->weak));
    }
    return print_root(out, root, &b);
}

/* Advice ------------------------------------------------------------------------------------ */

static cJSON *cuda_json(int cuda)
{
    char v[16];
    snprintf(v, sizeof v, "%d.%d", cuda / 1000, cuda % 1000 / 10);
    return cuda > 0 ? json_text(v) : cJSON_CreateNull();
}

/* One build as judged: what it is, how it installs, whether it runs and what it needs. */
static cJSON *advice_row_json(builder *b, const smc_advice *a, size_t i)
{
    const smc_advice_row *r = &a->rows[i];
    const smc_build *row = &a->req.builds->rows[r->build];
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add(b, o, "torch", json_text(row->torch));
    add(b, o, "variant", json_text(row->variant));
    add(b, o, "platform", json_text(row->platform));
    add(b, o, "cuda", cuda_json(row->cuda));
    cJSON *tokens = add(b, o, "tokens", cJSON_CreateArray());
    for (size_t k = 0; tokens && k < row->image_count; k++) {
        char tok[SMC_TOKEN_MAX];
        add(b, tokens, NULL, json_text(smc_image_token(&row->images[k], tok)));
    }
    add(b, o, "pypi_default", cJSON_CreateBool(row->pypi));
    add(b, o, "index_url", string_or_null(r->index[0] ? r->index : NULL));
    add(b, o, "torchvision", string_or_null(row->torchvision));
    add(b, o, "torchaudio", string_or_null(row->torchaudio));
    add(b, o, "source", json_text(row->source));
    add(b, o, "status", json_text(smc_lib_status_str(r->status)));
    add(b, o, "status_with_newer_driver", json_text(smc_lib_status_str(r->any)));
    add(b, o, "needs_cuda", cuda_json(r->needs_cuda));
    add(b, o, "needs_driver", string_or_null(r->needs_driver[0] ? r->needs_driver : NULL));
    add(b, o, "reason", string_or_null(r->reason));
    add(b, o, "warnings", string_or_null(r->warning));
    add(b, o, "installed", cJSON_CreateBool(r->installed));
    add(b, o, "pip", json_text(r->pip));
    add(b, o, "uv", json_text(r->uv));
    return o;
}

smc_status smc_report_advice_json(FILE *out, const smc_advice *a, const smc_display *how)
{
    const smc_view view = smc_view_of_advice(a, how), *opt = &view;
    builder b = {false};
    cJSON *root = root_json(&b, opt);
    if (!root) return SMC_ERR_NOMEM;
    add(&b, root, "platform", json_text(a->req.platform));
    const smc_torch_installed *now = a->req.installed;
    cJSON *inst = add(&b, root, "installed", now ? cJSON_CreateObject() : cJSON_CreateNull());
    if (now && inst) {
        add(&b, inst, "environment", string_or_null(a->req.installed_where));
        add(&b, inst, "torch", string_or_null(now->torch));
        add(&b, inst, "torchvision", string_or_null(now->torchvision));
        add(&b, inst, "torchaudio", string_or_null(now->torchaudio));
    }
    cJSON *notes = add(&b, root, "notes", cJSON_CreateArray());
    for (size_t k = 0; notes && k < a->note_count; k++)
        add(&b, notes, NULL, json_text(a->notes[k]));
    add(&b, root, "recommended",
        a->best != SMC_NONE ? advice_row_json(&b, a, a->best) : cJSON_CreateNull());
    add(&b, root, "with_newer_driver",
        a->newer_driver != SMC_NONE ? advice_row_json(&b, a, a->newer_driver)
                                    : cJSON_CreateNull());
    cJSON *rows = add(&b, root, "builds", cJSON_CreateArray());
    for (size_t i = 0; rows && i < a->count; i++)
        add(&b, rows, NULL, advice_row_json(&b, a, i));
    return print_root(out, root, &b);
}

/* SARIF 2.1.0 ---------------------------------------------------------------------------------- */

/* The rules: one per cause that makes a library worse than ok, with the worst status it leads
 * to (which gives the rule's security-severity). The help points at the docs a clone carries. */
/* The rules of a distribution's own status, past the causes: CPU-only builds (SMC_CAUSE_COUNT),
 * compilers that do not know the GPU, a loader that asks for an alternative not shipped. */
#define RULE_COMPILER ((smc_cause)(SMC_CAUSE_COUNT + 1))
#define RULE_ALTERNATIVE ((smc_cause)(SMC_CAUSE_COUNT + 2))

typedef struct sarif_rule {
    smc_cause cause; /* a cause, or SMC_CAUSE_COUNT, RULE_COMPILER, RULE_ALTERNATIVE */
    const char *name, *text;
    smc_lib_status worst;
} sarif_rule;

static const sarif_rule sarif_rules[] = {
    {SMC_CAUSE_ARCH, "NoCodeForArchitecture",
     "Fat binary containers hold neither a cubin that loads on the GPU nor PTX it can compile.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_MAIN_ARCH, "ArchitectureListWithoutGpu",
     "Its main architecture list (the widest, its build's) does not serve the GPU, and few or "
     "some of its other modules do.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_FEW, "FewContainersServeGpu",
     "Fewer than one in twenty of the containers serve the GPU.", SMC_STATUS_NONE},
    {SMC_CAUSE_TEGRA, "LowerMinorCubinOnJetson",
     "A cubin built for a lower minor of the same major, which a Jetson GPU does not load.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_CUBIN_ABI, "Cuda13CubinOnOlderDriver",
     "CUDA 13 cubins (entry version 1.8), which a driver older than CUDA 13 does not load.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_PTX_ISA, "PtxNewerThanDriver",
     "PTX of a newer ISA version than the driver can compile.", SMC_STATUS_NONE},
    {SMC_CAUSE_BUILT_NEWER, "BuiltByNewerCuda",
     "Built by a newer CUDA major version than the driver supports.", SMC_STATUS_NONE},
    {SMC_CAUSE_DRIVER_GPU, "DriverOlderThanGpu",
     "The driver is older than the first CUDA release that supports the GPU.", SMC_STATUS_NONE},
    {SMC_CAUSE_RUNTIME, "RuntimeNewerThanDriver",
     "A CUDA runtime from before 11.1, newer than the driver: it stops at start-up.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_PLATFORM, "BinaryForAnotherPlatform",
     "A library built for another machine or operating system than the one it is to load on.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_UNSUPPORTED, "GpuNotSupportedByRelease",
     "NVIDIA does not support the GPU in this release of its library (data/support.tsv), whatever "
     "code it carries.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_NEEDS, "CudaLibraryMissing",
     "A CUDA library it needs (DT_NEEDED) is there only in another major, or not at all in a "
     "complete root: it does not load.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_COUNT, "CpuOnlyBuild",
     "A build of a package that exists to use the GPU, without device code: the GPU is not used.",
     SMC_STATUS_CPU_ONLY},
    {RULE_COMPILER, "RuntimeCompilerTooOld",
     "A compiler used at run time (Triton's ptxas, NVRTC) does not know the GPU: code compiled "
     "at run time fails.",
     SMC_STATUS_COMPILER},
    {RULE_ALTERNATIVE, "AlternativeNotShipped",
     "The package's loader asks for a library of another CUDA (or the _nocublaslt set) than "
     "those it ships: none of them is loaded.",
     SMC_STATUS_NONE},
    {SMC_CAUSE_GATED, "ArchSpecificCodeOnly",
     "Only arch-specific ('a' or 'f') code, for other GPUs: it runs only where host code "
     "dispatches to it.",
     SMC_STATUS_GATED},
    {SMC_CAUSE_PTX_JIT, "RunsThroughPtxJit",
     "Some kernels have no cubin for the GPU and run only through PTX the driver compiles when "
     "they are first loaded.",
     SMC_STATUS_JIT},
};
#define N_SARIF_RULES (sizeof sarif_rules / sizeof sarif_rules[0])

static const char *sarif_severity(smc_lib_status s)
{
    return s == SMC_STATUS_NONE       ? "8.0"
           : s == SMC_STATUS_CPU_ONLY || s == SMC_STATUS_COMPILER ? "7.0"
           : s == SMC_STATUS_JIT      ? "2.0"
                                      : "5.0";
}

static const char *sarif_level(smc_lib_status s, bool informational)
{
    if (informational) return "note"; /* representative GPUs: nothing was asked of them */
    return s == SMC_STATUS_NONE || s == SMC_STATUS_CPU_ONLY || s == SMC_STATUS_COMPILER ? "error"
           : s == SMC_STATUS_JIT                            ? "note"
                                                            : "warning";
}

static const char *sarif_rule_id(const sarif_rule *r)
{
    return r->cause == SMC_CAUSE_COUNT    ? "cpu-only"
           : r->cause == RULE_COMPILER    ? "compiler"
           : r->cause == RULE_ALTERNATIVE ? "alternative-missing"
                                          : smc_cause_str(r->cause);
}

/* A library's result level: a none is an error, as it fails the gate, but for an alternative
 * that is not the one loaded (no failure at all: a note) and a vendored library, which leaves its
 * distribution partial at worst (a warning). */
static const char *sarif_library_level(const smc_library *lib, const smc_judgement *j,
                                       bool informational)
{
    if (informational || j->status != SMC_STATUS_NONE) return sarif_level(j->status, informational);
    return j->unused                         ? "note"
           : lib->role == SMC_ROLE_VENDORED ? "warning"
                                             : "error";
}

static size_t sarif_rule_of(smc_cause c)
{
    for (size_t i = 0; i < N_SARIF_RULES; i++)
        if (sarif_rules[i].cause == c) return i;
    return SMC_NONE;
}

/* The file a library is in, as a URI reference: relative to the working directory when it is
 * under it (code scanning wants paths from the repository's root), else a file: URI. A library
 * inside an archive (a wheel, a conda package, an image: "x.whl!pkg/lib.so") is located at the
 * archive, and *member is set to the path inside it. */
static char *sarif_uri(const smc_input *in, const char *path, const char *cwd,
                       const char **member)
{
    const char *bang = NULL;
    size_t n = strlen(in->path);
    if (strncmp(path, in->path, n) == 0 && path[n] == '!') bang = path + n;
    for (const char *p = path; !bang && (p = strchr(p, '!')) != NULL; p++) {
        static const char *const archives[] = {".whl", ".zip", ".conda", ".tar.bz2", ".tar",
                                               ".tar.gz", ".tgz", ".tar.zst"};
        for (size_t i = 0; i < sizeof archives / sizeof archives[0]; i++) {
            size_t k = strlen(archives[i]);
            if ((size_t)(p - path) >= k && strncmp(p - k, archives[i], k) == 0) bang = p;
        }
    }
    *member = bang ? bang + 1 : NULL;
    size_t len = bang ? (size_t)(bang - path) : strlen(path), c = cwd ? strlen(cwd) : 0;
    bool absolute = path[0] == '/';
    if (absolute && c > 1 && len > c && strncmp(path, cwd, c) == 0 && path[c] == '/') {
        path += c + 1, len -= c + 1, absolute = false;
    }
    while (!absolute && len > 2 && path[0] == '.' && path[1] == '/')
        path += 2, len -= 2;
    char *uri = malloc(3 * len + 8), *o = uri;
    if (!uri) return NULL;
    if (absolute) o += sprintf(o, "file://");
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)path[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            strchr("-._~/+=,@", ch))
            *o++ = (char)ch;
        else
            o += sprintf(o, "%%%02X", ch);
    }
    *o = '\0';
    return uri;
}

/* A fingerprint that stays the same across runs for the same file, member, GPU and rule. */
static void sarif_fingerprint(char out[17], const char *const *parts, size_t n)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a, 64 bits */
    for (size_t i = 0; i < n; i++)
        for (const unsigned char *p = (const unsigned char *)(parts[i] ? parts[i] : "");; p++) {
            h = (h ^ *p) * 1099511628211ull; /* the NUL too: parts stay apart */
            if (!*p) break;
        }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static cJSON *sarif_location(builder *b, const char *uri, const char *member, const char *path)
{
    cJSON *loc = cJSON_CreateObject();
    if (!loc) return NULL;
    cJSON *phys = add(b, loc, "physicalLocation", cJSON_CreateObject());
    cJSON *art = phys ? add(b, phys, "artifactLocation", cJSON_CreateObject()) : NULL;
    if (art) add(b, art, "uri", json_text(uri));
    cJSON *region = phys ? add(b, phys, "region", cJSON_CreateObject()) : NULL;
    if (region) add(b, region, "startLine", cJSON_CreateNumber(1)); /* a binary: its start */
    if (member) {
        cJSON *logical = add(b, loc, "logicalLocations", cJSON_CreateArray());
        cJSON *l = logical ? add(b, logical, NULL, cJSON_CreateObject()) : NULL;
        if (l) {
            add(b, l, "name", json_text(member));
            add(b, l, "fullyQualifiedName", json_text(path));
            add(b, l, "kind", json_text("module"));
        }
    }
    return loc;
}

static cJSON *sarif_rules_json(builder *b)
{
    cJSON *rules = cJSON_CreateArray();
    for (size_t i = 0; rules && i < N_SARIF_RULES; i++) {
        const sarif_rule *r = &sarif_rules[i];
        cJSON *o = add(b, rules, NULL, cJSON_CreateObject());
        if (!o) break;
        add(b, o, "id", json_text(sarif_rule_id(r)));
        add(b, o, "name", json_text(r->name));
        cJSON *sd = add(b, o, "shortDescription", cJSON_CreateObject());
        if (sd) add(b, sd, "text", json_text(r->text));
        cJSON *help = add(b, o, "help", cJSON_CreateObject());
        if (help) {
            char text[512];
            const char *fails =
                r->cause == SMC_CAUSE_COUNT
                    ? "The package installs and imports, and its work runs on the CPU"
                : r->cause == SMC_CAUSE_RUNTIME || r->cause == SMC_CAUSE_PLATFORM
                    ? "It fails before any kernel runs"
                    : "A library with this cause fails with \"no kernel image is available for "
                      "execution on the device\" (or runs only through PTX, for ptx-jit)";
            snprintf(text, sizeof text,
                     "%s %s on the GPU named in the result. The result's message says what to "
                     "install instead; docs/compatibility.md gives the rule and its sources.",
                     r->text, fails);
            add(b, help, "text", json_text(text));
        }
        cJSON *conf = add(b, o, "defaultConfiguration", cJSON_CreateObject());
        if (conf) add(b, conf, "level", json_text(sarif_level(r->worst, false)));
        cJSON *props = add(b, o, "properties", cJSON_CreateObject());
        if (props) {
            cJSON *tags = add(b, props, "tags", cJSON_CreateArray());
            if (tags) {
                add(b, tags, NULL, json_text("cuda"));
                add(b, tags, NULL, json_text("compatibility"));
            }
            add(b, props, "precision", json_text("high"));
            add(b, props, "security-severity", json_text(sarif_severity(r->worst)));
        }
    }
    return rules;
}

/* One result per library and target that is worse than ok. */
static void sarif_results(builder *b, cJSON *results, const smc_input *in,
                          const smc_view *opt, const char *cwd)
{
    for (size_t l = 0; l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        for (size_t t = 0; t < lib->judgement_count && t < opt->target_count; t++) {
            const smc_judgement *j = &lib->judgements[t];
            size_t rule = sarif_rule_of(j->cause);
            if (j->status == SMC_STATUS_OK || j->status == SMC_STATUS_NO_CODE || rule == SMC_NONE)
                continue;
            const smc_target *g = &opt->targets[t];
            char tok[16], *text = NULL;
            snprintf(tok, sizeof tok, "sm_%u%u", g->cc_major, g->cc_minor);
            const char *member;
            char *uri = sarif_uri(in, lib->path, cwd, &member);
            const char *why = j->reason, *next = j->next;
            if (!uri || !why ||
                asprintf(&text, "%s is %s on %s%s%s%s: %s.%s%s", lib->path,
                         smc_lib_status_str(j->status), g->name[0] ? g->name : tok,
                         g->name[0] ? " (" : "", g->name[0] ? tok : "", g->name[0] ? ")" : "",
                         why, next ? " Next: " : "", next ? next : "") < 0) {
                text = NULL;
                b->failed = true;
            }
            cJSON *r = text ? add(b, results, NULL, cJSON_CreateObject()) : NULL;
            if (r) {
                add(b, r, "ruleId", json_text(smc_cause_str(j->cause)));
                add(b, r, "ruleIndex", cJSON_CreateNumber((double)rule));
                add(b, r, "level",
                    json_text(sarif_library_level(lib, j, opt->informational)));
                cJSON *msg = add(b, r, "message", cJSON_CreateObject());
                if (msg) add(b, msg, "text", json_text(text));
                cJSON *locs = add(b, r, "locations", cJSON_CreateArray());
                if (locs) add(b, locs, NULL, sarif_location(b, uri, member, lib->path));
                const char *parts[] = {uri, member, tok, smc_cause_str(j->cause)};
                char fp[17];
                sarif_fingerprint(fp, parts, 4);
                cJSON *fps = add(b, r, "partialFingerprints", cJSON_CreateObject());
                if (fps) add(b, fps, "smcheckLibraryTarget/v1", json_text(fp));
                /* codeql-action's upload-sarif hashes the lines of the located file when this one
                 * is missing: a 1 GB wheel read as text. The same fingerprint says it instead. */
                char line_hash[24];
                snprintf(line_hash, sizeof line_hash, "%s:1", fp);
                if (fps) add(b, fps, "primaryLocationLineHash", json_text(line_hash));
                cJSON *props = add(b, r, "properties", cJSON_CreateObject());
                if (props) {
                    add(b, props, "status", json_text(smc_lib_status_str(j->status)));
                    add(b, props, "role", json_text(smc_role_str(lib->role)));
                    add(b, props, "target", json_text(tok));
                    add(b, props, "gpu", g->name[0] ? json_text(g->name) : cJSON_CreateNull());
                    add(b, props, "security-severity", json_text(sarif_severity(j->status)));
                    add(b, props, "next", next ? json_text(next) : cJSON_CreateNull());
                }
            }
            free(text);
            free(uri);
        }
    }
    /* A CPU-only build of a GPU package, a compiler that does not know the GPU, a loader that
     * asks for an alternative not shipped: a result per target, at the distribution. */
    for (size_t k = 0; k < in->distribution_count; k++) {
        const smc_distribution *d = &in->distributions[k];
        for (size_t t = 0; t < d->verdict_count && t < opt->target_count; t++) {
            const smc_rollup *v = &d->verdicts[t];
            bool missing = v->status == SMC_STATUS_NONE && (v->missing_cuda || v->twin_missing);
            if ((v->status != SMC_STATUS_CPU_ONLY && v->status != SMC_STATUS_COMPILER &&
                 !missing) ||
                !d->location)
                continue;
            const char *status = smc_lib_status_str(v->status);
            size_t rule = sarif_rule_of(missing                            ? RULE_ALTERNATIVE
                                        : v->status == SMC_STATUS_CPU_ONLY ? SMC_CAUSE_COUNT
                                                                           : RULE_COMPILER);
            const smc_target *g = &opt->targets[t];
            char tok[16], *text = NULL;
            snprintf(tok, sizeof tok, "sm_%u%u", g->cc_major, g->cc_minor);
            const char *member;
            char *uri = sarif_uri(in, d->location, cwd, &member);
            if (!uri || asprintf(&text, "%s %s is %s on %s: %s.%s%s",
                                 d->name ? d->name : "?", d->version ? d->version : "", status,
                                 g->name[0] ? g->name : tok, v->reason ? v->reason : "",
                                 v->next ? " Next: " : "", v->next ? v->next : "") < 0) {
                text = NULL;
                b->failed = true;
            }
            cJSON *r = text ? add(b, results, NULL, cJSON_CreateObject()) : NULL;
            if (r) {
                add(b, r, "ruleId", json_text(sarif_rule_id(&sarif_rules[rule])));
                add(b, r, "ruleIndex", cJSON_CreateNumber((double)rule));
                add(b, r, "level", json_text(sarif_level(v->status, opt->informational)));
                cJSON *msg = add(b, r, "message", cJSON_CreateObject());
                if (msg) add(b, msg, "text", json_text(text));
                cJSON *locs = add(b, r, "locations", cJSON_CreateArray());
                if (locs) add(b, locs, NULL, sarif_location(b, uri, member, d->location));
                const char *parts[] = {uri, d->name ? d->name : "", tok, status};
                char fp[17], line_hash[24];
                sarif_fingerprint(fp, parts, 4);
                snprintf(line_hash, sizeof line_hash, "%s:1", fp);
                cJSON *fps = add(b, r, "partialFingerprints", cJSON_CreateObject());
                if (fps) {
                    add(b, fps, "smcheckLibraryTarget/v1", json_text(fp));
                    add(b, fps, "primaryLocationLineHash", json_text(line_hash));
                }
                cJSON *props = add(b, r, "properties", cJSON_CreateObject());
                if (props) {
                    add(b, props, "status", json_text(status));
                    add(b, props, "role", json_text("main"));
                    add(b, props, "target", json_text(tok));
                    add(b, props, "gpu", g->name[0] ? json_text(g->name) : cJSON_CreateNull());
                    add(b, props, "security-severity", json_text(sarif_severity(v->status)));
                    add(b, props, "next", v->next ? json_text(v->next) : cJSON_CreateNull());
                }
            }
            free(text);
            free(uri);
        }
    }
}

/* What could not be read, as the tool's notifications: a SARIF result is a finding about the
 * code, an unreadable input a fact about the run. */
static void sarif_notifications(builder *b, cJSON *notes, const smc_input *in, bool *any)
{
    for (size_t k = 0; k < in->error_count; k++, *any = true) {
        cJSON *o = add(b, notes, NULL, cJSON_CreateObject());
        cJSON *msg = o ? add(b, o, "message", cJSON_CreateObject()) : NULL;
        char *text = NULL;
        if (msg && asprintf(&text, "%s: %s", in->errors[k].path, in->errors[k].message) >= 0)
            add(b, msg, "text", json_text(text));
        else
            b->failed = true;
        free(text);
        if (o) add(b, o, "level", json_text("error"));
    }
    for (size_t l = 0; l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        for (size_t k = 0; k < lib->finding_count; k++, *any = true) {
            cJSON *o = add(b, notes, NULL, cJSON_CreateObject());
            cJSON *msg = o ? add(b, o, "message", cJSON_CreateObject()) : NULL;
            const smc_finding *f = &lib->findings[k];
            char at[32] = "", *text = NULL;
            if (f->offset != SMC_NO_OFFSET)
                snprintf(at, sizeof at, "at 0x%llx: ", (unsigned long long)f->offset);
            if (msg && asprintf(&text, "%s: %s%s", lib->path, at, f->message) >= 0)
                add(b, msg, "text", json_text(text));
            else
                b->failed = true;
            free(text);
            if (o) add(b, o, "level", json_text("error"));
        }
    }
}

smc_status smc_report_sarif(FILE *out, const smc_result *r)
{
    if (!r) return SMC_ERR_ARG;
    const smc_view view = smc_view_of(r, NULL), *opt = &view;
    smc_input *const *inputs = r->inputs;
    size_t n = r->input_count;
    builder b = {false};
    cJSON *root = cJSON_CreateObject();
    if (!root) return SMC_ERR_NOMEM;
    add(&b, root, "$schema", json_text("https://json.schemastore.org/sarif-2.1.0.json"));
    add(&b, root, "version", json_text("2.1.0"));
    cJSON *runs = add(&b, root, "runs", cJSON_CreateArray());
    cJSON *run = runs ? add(&b, runs, NULL, cJSON_CreateObject()) : NULL;
    cJSON *tool = run ? add(&b, run, "tool", cJSON_CreateObject()) : NULL;
    cJSON *drv = tool ? add(&b, tool, "driver", cJSON_CreateObject()) : NULL;
    if (drv) {
        add(&b, drv, "name", json_text("smcheck"));
        add(&b, drv, "version", json_text(SMC_VERSION));
        add(&b, drv, "semanticVersion", json_text(SMC_VERSION));
        add(&b, drv, "rules", sarif_rules_json(&b));
    }
    char cwd[4096];
    const char *here = getcwd(cwd, sizeof cwd);
    cJSON *inv = run ? add(&b, run, "invocations", cJSON_CreateArray()) : NULL;
    cJSON *one = inv ? add(&b, inv, NULL, cJSON_CreateObject()) : NULL;
    cJSON *notes = one ? cJSON_CreateArray() : NULL;
    bool unreadable = false;
    for (size_t i = 0; notes && i < n; i++)
        sarif_notifications(&b, notes, inputs[i], &unreadable);
    if (one) {
        add(&b, one, "executionSuccessful", cJSON_CreateBool(!unreadable));
        add(&b, one, "toolExecutionNotifications", notes);
    }
    cJSON *results = run ? add(&b, run, "results", cJSON_CreateArray()) : NULL;
    for (size_t i = 0; results && i < n; i++)
        sarif_results(&b, results, inputs[i], opt, here);
    cJSON *props = run ? add(&b, run, "properties", cJSON_CreateObject()) : NULL;
    if (props) {
        cJSON *targets = add(&b, props, "targets", cJSON_CreateArray());
        for (size_t t = 0; targets && t < opt->target_count; t++) {
            char tok[16];
            snprintf(tok, sizeof tok, "sm_%u%u", opt->targets[t].cc_major, opt->targets[t].cc_minor);
            add(&b, targets, NULL, json_text(tok));
        }
        char v[32];
        snprintf(v, sizeof v, "%d.%d", opt->driver_cuda / 1000, opt->driver_cuda % 1000 / 10);
        add(&b, props, "driver", opt->driver_cuda > 0 ? json_text(v) : cJSON_CreateNull());
        add(&b, props, "informational", cJSON_CreateBool(opt->informational));
    }
    return print_root(out, root, &b);
}
