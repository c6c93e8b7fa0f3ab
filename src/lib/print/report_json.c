/* report_json.c: the JSON report (schema_version 2); with report_sarif.c the only user of cJSON.
 * Keys are stable and their order fixed; other tools parse this. One name, one shape: every key
 * is always there (null when unknown or not asked for), lists are arrays, versions "X.Y". */
#include "json_build.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <unistd.h>

#define SCHEMA_VERSION 2

cJSON *json_add(builder *b, cJSON *obj, const char *key, cJSON *item)
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
cJSON *json_text(const char *s)
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
smc_status json_print_root(FILE *out, cJSON *root, const builder *b)
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
    json_add(b, o, "token", json_text(smc_image_token(img, tok)));
    json_add(b, o, "kind", json_text(smc_image_kind_str(img->kind)));
    json_add(b, o, "offset", cJSON_CreateNumber((double)img->offset));
    json_add(b, o, "compression", json_text(smc_compression_str(img->compression)));
    json_add(b, o, "stored_size", cJSON_CreateNumber((double)img->stored_size));
    json_add(b, o, "size", cJSON_CreateNumber((double)img->size));
    /* PTX: its entry's ISA, and what its text says when it was read; cubin: its ABI, release. */
    bool ptx = img->kind == SMC_IMAGE_PTX, cubin = img->kind == SMC_IMAGE_CUBIN;
    char target[SMC_TOKEN_MAX];
    snprintf(target, sizeof target, "sm_%u%s", img->text_arch,
             img->text_variant == SMC_VARIANT_A   ? "a"
             : img->text_variant == SMC_VARIANT_F ? "f"
                                                  : "");
    json_add(b, o, "ptx_isa",
             ptx ? version_json(img->version_major, img->version_minor) : cJSON_CreateNull());
    json_add(b, o, "ptx_target", ptx && img->text_arch ? json_text(target) : cJSON_CreateNull());
    json_add(b, o, "ptx_version",
             ptx && img->text_isa ? version_json(img->text_isa / 10, img->text_isa % 10)
                                  : cJSON_CreateNull());
    json_add(b, o, "cubin_abi",
             cubin ? version_json(img->version_major, img->version_minor) : cJSON_CreateNull());
    json_add(b, o, "release",
             cubin && img->release ? version_json(img->release / 1000, img->release % 1000 / 10)
                                   : cJSON_CreateNull());
    return o;
}

static cJSON *container_json(builder *b, const smc_library *lib, const smc_container *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    json_add(b, o, "section", c->section ? json_text(c->section) : cJSON_CreateNull());
    json_add(b, o, "member", c->member ? json_text(c->member) : cJSON_CreateNull());
    json_add(b, o, "offset", cJSON_CreateNumber((double)c->offset));
    json_add(b, o, "size", cJSON_CreateNumber((double)c->size));
    json_add(b, o, "relocatable", cJSON_CreateBool(c->relocatable));
    json_add(b, o, "bare_cubin", cJSON_CreateBool(c->bare_cubin));
    json_add(b, o, "kernels", c->kernels < 0 ? cJSON_CreateNull() : cJSON_CreateBool(c->kernels));
    json_add(b, o, "kernel_names",
             c->kernel_names ? json_text(c->kernel_names) : cJSON_CreateNull());
    cJSON *imgs = json_add(b, o, "images", cJSON_CreateArray());
    for (size_t i = 0; imgs && i < c->image_count; i++)
        json_add(b, imgs, NULL, image_json(b, &lib->images[c->first_image + i]));
    return o;
}

static cJSON *judgement_json(builder *b, const smc_input *in, const smc_library *lib,
                             const smc_judgement *j, size_t target, const smc_view *opt)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    json_add(b, o, "target", cJSON_CreateNumber((double)target));
    json_add(b, o, "status", json_text(smc_lib_status_str(j->status)));
    cJSON *by = json_add(b, o, "containers_by_verdict", cJSON_CreateObject());
    for (int v = 0; by && v < SMC_VERDICT_COUNT; v++)
        json_add(b, by, smc_verdict_str((smc_verdict)v),
                 cJSON_CreateNumber((double)j->containers_by_verdict[v]));
    json_add(b, o, "cause", json_text(smc_cause_str(j->cause)));
    const smc_words *w =
        smc_view_library_words(opt, in, (size_t)(lib - in->libraries), target);
    json_add(b, o, "reason", w->reason ? json_text(w->reason) : NULL);
    json_add(b, o, "warnings", w->warning ? json_text(w->warning) : cJSON_CreateNull());
    json_add(b, o, "next", w->next ? json_text(w->next) : cJSON_CreateNull());
    json_add(b, o, "unused", cJSON_CreateBool(j->unused));
    json_add(b, o, "used_by",
             j->used_by < in->distribution_count && in->distributions[j->used_by].name
                 ? json_text(in->distributions[j->used_by].name)
                 : cJSON_CreateNull());
    const smc_support *row = j->support;
    cJSON *sup = json_add(b, o, "support", row ? cJSON_CreateObject() : cJSON_CreateNull());
    if (row && sup) { /* what NVIDIA documents for this release of its library */
        char cc[16];
        snprintf(cc, sizeof cc, "%u.%u", row->from / 10, row->from % 10);
        json_add(b, sup, "from", row->from ? json_text(cc) : cJSON_CreateNull());
        cJSON *list = json_add(b, sup, "compute_capabilities", cJSON_CreateArray());
        for (size_t i = 0; list && i < row->count; i++) {
            snprintf(cc, sizeof cc, "%u.%u", row->list[i] / 10, row->list[i] % 10);
            json_add(b, list, NULL, json_text(cc));
        }
        json_add(b, sup, "refused", cJSON_CreateBool(row->refused));
        json_add(b, sup, "documented", cJSON_CreateBool(j->documented));
        json_add(b, sup, "source", json_text(row->source));
    }
    cJSON *needs = json_add(b, o, "needs", j->needs ? cJSON_CreateObject() : cJSON_CreateNull());
    if (j->needs && needs) { /* a CUDA library it cannot load, or relies on the host for */
        json_add(b, needs, "soname", json_text(j->needs));
        json_add(b, needs, "other_major",
                 j->needs_other ? json_text(j->needs_other) : cJSON_CreateNull());
        json_add(b, needs, "from_host", cJSON_CreateBool(j->cause != SMC_CAUSE_NEEDS));
        json_add(b, needs, "more_missing", cJSON_CreateNumber((double)j->needs_more));
    }
    /* What the driver compiles at first launch on this GPU. */
    cJSON *jit = json_add(b, o, "jit", cJSON_CreateObject());
    if (jit) {
        json_add(b, jit, "containers", cJSON_CreateNumber((double)j->jit_containers));
        json_add(b, jit, "ptx_bytes", cJSON_CreateNumber((double)j->jit_bytes));
        json_add(b, jit, "large", cJSON_CreateBool(j->warnings & SMC_WARN_JIT_LARGE));
    }
    cJSON *fails = json_add(b, o, "failing_containers",
                            opt->detail ? cJSON_CreateArray() : cJSON_CreateNull());
    for (size_t i = 0; opt->detail && fails && i < j->failing_count; i++) {
        const smc_container *c = &lib->containers[j->failing[i]];
        cJSON *f = json_add(b, fails, NULL, cJSON_CreateObject());
        if (!f) break;
        json_add(b, f, "offset", cJSON_CreateNumber((double)c->offset));
        json_add(b, f, "section", c->section ? json_text(c->section) : cJSON_CreateNull());
        json_add(b, f, "kernel_names",
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

/* {cubins, ptx, ptx_driver_cuda, [tile_ir,] partial, none, sm_arch, cuda_version_lower_bound} */
static cJSON *serving_json(builder *b, const smc_serving *sv)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    json_add(b, o, "cubins", cc_list_json(sv->cubins));
    json_add(b, o, "ptx", cc_list_json(sv->ptx));
    char v[16];
    snprintf(v, sizeof v, "%d.%d", sv->ptx_cuda / 1000, sv->ptx_cuda % 1000 / 10);
    json_add(b, o, "ptx_driver_cuda", sv->ptx_cuda ? json_text(v) : cJSON_CreateNull());
    if (sv->tileir[0]) json_add(b, o, "tile_ir", cc_list_json(sv->tileir)); /* only where some */
    json_add(b, o, "partial", cc_list_json(sv->partial));
    json_add(b, o, "none", cc_list_json(sv->none));
    json_add(b, o, "sm_arch", cc_list_json(sv->sm_arch));
    snprintf(v, sizeof v, "%d.%d", sv->cuda_lower_bound / 1000, sv->cuda_lower_bound % 1000 / 10);
    json_add(b, o, "cuda_version_lower_bound",
             sv->cuda_lower_bound ? json_text(v) : cJSON_CreateNull());
    return o;
}

static cJSON *library_json(builder *b, const smc_input *in, const smc_library *lib,
                           const smc_view *opt)
{
    const smc_library_derived *ld = smc_view_library(opt, in, lib);
    const smc_library_judged *lj = smc_view_library_judged(opt, in, (size_t)(lib - in->libraries));
    const smc_summary sum = ld ? ld->summary : (smc_summary){0};
    cJSON *o = cJSON_CreateObject();
    if (o) {
        json_add(b, o, "path", json_text(lib->path));
        cJSON *links = json_add(b, o, "links", cJSON_CreateArray());
        for (size_t i = 0; links && i < lib->link_count; i++)
            json_add(b, links, NULL, json_text(lib->links[i]));
        json_add(b, o, "layer", lib->layer ? json_text(lib->layer) : cJSON_CreateNull());
        json_add(b, o, "role", json_text(smc_role_str(lj->role)));
        json_add(b, o, "containers", cJSON_CreateNumber((double)lib->container_count));
        char soname[40];
        smc_cudart_name(soname, sizeof soname, lib);
        json_add(b, o, "cudart_soname", lib->cudart_major ? json_text(soname) : cJSON_CreateNull());
        json_add(b, o, "release",
                 lib->release ? version_json(lib->release / 1000, lib->release % 1000 / 10)
                              : cJSON_CreateNull());
        cJSON *counts = json_add(b, o, "token_counts", cJSON_CreateArray());
        for (size_t i = 0; counts && i < sum.token_count; i++) {
            cJSON *c = json_add(b, counts, NULL, cJSON_CreateObject());
            if (!c) break;
            json_add(b, c, "token", json_text(sum.tokens[i].token));
            json_add(b, c, "count", cJSON_CreateNumber((double)sum.tokens[i].count));
        }
        cJSON *sets = json_add(b, o, "token_sets", cJSON_CreateArray());
        for (size_t i = 0; sets && i < sum.set_count; i++) {
            cJSON *s = json_add(b, sets, NULL, cJSON_CreateObject());
            if (!s) break;
            json_add(b, s, "tokens", json_text(sum.sets[i].tokens));
            json_add(b, s, "containers", cJSON_CreateNumber((double)sum.sets[i].containers));
            json_add(b, s, "relocatable", cJSON_CreateBool(sum.sets[i].relocatable));
        }
        cJSON *finds = json_add(b, o, "findings", cJSON_CreateArray());
        for (size_t i = 0; finds && i < lib->finding_count; i++) {
            cJSON *f = json_add(b, finds, NULL, cJSON_CreateObject());
            if (!f) break;
            json_add(b, f, "offset", offset_json(lib->findings[i].offset));
            json_add(b, f, "message", json_text(lib->findings[i].message));
        }
        json_add(b, o, "findings_more", cJSON_CreateNumber((double)lib->findings_more));
        cJSON *vs = json_add(b, o, "verdicts", cJSON_CreateArray());
        bool judged = opt && opt->target_count && opt->target_count >= lj->judgement_count;
        for (size_t t = 0; judged && vs && t < lj->judgement_count; t++)
            json_add(b, vs, NULL, judgement_json(b, in, lib, &lj->judgements[t], t, opt));
        json_add(b, o, "serves", ld && ld->serving ? serving_json(b, ld->serving) : cJSON_CreateNull());
        bool detail = opt && opt->detail;
        cJSON *list =
            json_add(b, o, "container_list", detail ? cJSON_CreateArray() : cJSON_CreateNull());
        for (size_t i = 0; detail && list && i < lib->container_count; i++)
            json_add(b, list, NULL, container_json(b, lib, &lib->containers[i]));
    }
    return o;
}

static cJSON *string_or_null(const char *s)
{
    return s ? json_text(s) : cJSON_CreateNull();
}

/* {target, status, reason, library, vendored, all_gated, alternatives}: how a distribution or an
 * input came to its status. */
static cJSON *rollup_json(builder *b, const smc_input *in, const smc_judged *jd,
                          const smc_rollup *r, const smc_words *w, size_t t)
{
    cJSON *v = cJSON_CreateObject();
    if (!v) return NULL;
    json_add(b, v, "target", cJSON_CreateNumber((double)t));
    json_add(b, v, "status", json_text(smc_lib_status_str(r->status)));
    json_add(b, v, "reason", w->reason ? json_text(w->reason) : NULL);
    json_add(b, v, "library",
             r->library < in->library_count ? json_text(in->libraries[r->library].path)
                                            : cJSON_CreateNull());
    json_add(b, v, "vendored", cJSON_CreateBool(r->vendored));
    json_add(b, v, "on_demand", cJSON_CreateBool(r->on_demand));
    cJSON *store =
        json_add(b, v, "store", r->store_files ? cJSON_CreateObject() : cJSON_CreateNull());
    if (r->store_files && store) { /* loose cubins its loader picks from by GPU */
        json_add(b, store, "files", cJSON_CreateNumber((double)r->store_files));
        json_add(b, store, "serving", cJSON_CreateNumber((double)r->store_serving));
        json_add(b, store, "status", json_text(smc_lib_status_str(r->store)));
    }
    char c[16]; /* an image's forward-compatibility package decided it */
    snprintf(c, sizeof c, "%d.%d", r->compat / 1000, r->compat % 1000 / 10);
    json_add(b, v, "compat_cuda", r->compat ? json_text(c) : cJSON_CreateNull());
    json_add(b, v, "all_gated", cJSON_CreateBool(r->all_gated));
    json_add(b, v, "cpu_only", r->cpu_only ? json_text(r->cpu_only) : cJSON_CreateNull());
    const smc_compiler *comp =
        r->compiler < jd->compiler_count ? &jd->compilers[r->compiler] : NULL;
    cJSON *cj = json_add(b, v, "compiler", comp ? cJSON_CreateObject() : cJSON_CreateNull());
    if (comp && cj) {
        char target[24];
        snprintf(target, sizeof target, "%s_%u%s", r->compile_ptx ? "compute" : "sm",
                 r->compile_arch, r->compile_a ? "a" : "");
        json_add(b, cj, "path", json_text(comp->path));
        json_add(b, cj, "target", json_text(target));
        json_add(b, cj, "knows",
                 r->compile_override || r->compile_knows < 0
                     ? cJSON_CreateNull()
                     : cJSON_CreateBool(r->compile_knows == 1));
        json_add(b, cj, "override",
                 r->compile_override ? json_text(r->compile_override) : cJSON_CreateNull());
    }
    if (r->choices) {
        cJSON *alt = json_add(b, v, "alternatives", cJSON_CreateObject());
        if (alt) {
            json_add(b, alt, "choices", cJSON_CreateNumber((double)r->choices));
            json_add(b, alt, "serving", cJSON_CreateNumber((double)r->serving));
            json_add(b, alt, "chosen_by_torch", cJSON_CreateBool(r->chosen));
            char by[16];
            snprintf(by, sizeof by, "%u.%u", r->chooser_cc / 10, r->chooser_cc % 10);
            json_add(b, alt, "chosen_by_gpu", r->chooser_cc ? json_text(by) : cJSON_CreateNull());
            json_add(b, alt, "chosen_for_machine", cJSON_CreateBool(r->machine_choice));
            char cuda[16];
            snprintf(cuda, sizeof cuda, "%u.%u", r->missing_cuda / 10, r->missing_cuda % 10);
            json_add(b, alt, "missing_cuda",
                     r->missing_cuda ? json_text(cuda) : cJSON_CreateNull());
        }
    } else {
        json_add(b, v, "alternatives", cJSON_CreateNull());
    }
    return v;
}

static cJSON *distribution_json(builder *b, const smc_input *in, const smc_distribution *d,
                                const smc_view *opt)
{
    const smc_distribution_derived *dd = smc_view_distribution(opt, in, d);
    const smc_judged *jd = smc_view_judged(opt, in);
    const smc_distribution_judged *dj =
        smc_view_distribution_judged(opt, in, (size_t)(d - in->distributions));
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    json_add(b, o, "name", string_or_null(d->name));
    json_add(b, o, "version", string_or_null(d->version));
    json_add(b, o, "local_version", string_or_null(d->local_version));
    json_add(b, o, "source", string_or_null(d->source));
    json_add(b, o, "location", string_or_null(d->location));
    json_add(b, o, "tag", string_or_null(d->tag));
    json_add(b, o, "platform", string_or_null(d->platform));
    /* "12.8"; a source that names only the major ("13", a cu13 requirement): null and the major. */
    unsigned major = 0, minor = 0;
    int parts = d->cuda ? sscanf(d->cuda, "%u.%u", &major, &minor) : 0;
    json_add(b, o, "cuda", parts == 2 ? version_json(major, minor) : cJSON_CreateNull());
    json_add(b, o, "cuda_major", parts >= 1 ? cJSON_CreateNumber(major) : cJSON_CreateNull());
    json_add(b, o, "cuda_source", string_or_null(d->cuda_source));
    cJSON *sh =
        json_add(b, o, "shadowed_by", d->shadowed_by ? cJSON_CreateObject() : cJSON_CreateNull());
    if (d->shadowed_by && sh) {
        json_add(b, sh, "name", json_text(d->shadowed_by));
        json_add(b, sh, "evidence", string_or_null(d->shadow_evidence));
    }
    cJSON *libs = json_add(b, o, "libraries", cJSON_CreateArray());
    for (size_t i = 0; libs && i < d->library_count; i++)
        json_add(b, libs, NULL, json_text(in->libraries[d->libraries[i]].path));
    cJSON *vs = json_add(b, o, "verdicts", cJSON_CreateArray());
    if (dj->verdicts && opt && opt->target_count) {
        for (size_t t = 0; vs && t < jd->verdict_count; t++) {
            const smc_words *w =
                smc_view_distribution_words(opt, in, (size_t)(d - in->distributions), t);
            cJSON *v = json_add(b, vs, NULL, rollup_json(b, in, jd, &dj->verdicts[t], w, t));
            const char *next = t < dj->verdict_count ? w->next : NULL;
            if (v) json_add(b, v, "next", next ? json_text(next) : cJSON_CreateNull());
        }
    }
    json_add(b, o, "serves", dd && dd->serving ? serving_json(b, dd->serving) : cJSON_CreateNull());
    if (!d->variant_claim_count) json_add(b, o, "variant", cJSON_CreateNull());
    if (d->variant_claim_count) {
        cJSON *var = json_add(b, o, "variant", cJSON_CreateObject());
        if (var) {
            json_add(b, var, "label", json_text(d->variant_label));
            cJSON *claims = json_add(b, var, "claims", cJSON_CreateArray());
            for (size_t k = 0; claims && k < d->variant_claim_count; k++)
                json_add(b, claims, NULL, json_text(d->variant_claims[k]));
            cJSON *unb = json_add(b, var, "not_backed", cJSON_CreateArray());
            for (size_t k = 0; unb && dd && k < dd->unbacked_count; k++)
                json_add(b, unb, NULL, json_text(dd->unbacked[k]));
        }
    }
    return o;
}

static cJSON *input_json(builder *b, const smc_input *in, const smc_view *opt)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    json_add(b, o, "path", json_text(in->path));
    json_add(b, o, "kind", json_text(smc_input_kind_str(in->kind)));
    json_add(b, o, "files", cJSON_CreateNumber((double)in->files));
    json_add(b, o, "require_cuda", string_or_null(in->require_cuda)); /* an image's */
    char v[16];
    snprintf(v, sizeof v, "%d.%d", in->compat_cuda / 1000, in->compat_cuda % 1000 / 10);
    json_add(b, o, "compat_cuda", in->compat_cuda ? json_text(v) : cJSON_CreateNull());
    cJSON *errs = json_add(b, o, "errors", cJSON_CreateArray());
    for (size_t i = 0; errs && i < in->error_count; i++) {
        cJSON *e = json_add(b, errs, NULL, cJSON_CreateObject());
        if (!e) break;
        json_add(b, e, "path", json_text(in->errors[i].path));
        json_add(b, e, "message", json_text(in->errors[i].message));
    }
    json_add(b, o, "errors_more", cJSON_CreateNumber((double)in->errors_more));
    const smc_judged *jd = smc_view_judged(opt, in);
    cJSON *vs = json_add(b, o, "verdicts", cJSON_CreateArray());
    for (size_t t = 0; opt && opt->target_count && vs && t < jd->verdict_count; t++)
        json_add(b, vs, NULL,
                 rollup_json(b, in, jd, &jd->verdicts[t], smc_view_input_words(opt, in, t), t));
    cJSON *dists = json_add(b, o, "distributions", cJSON_CreateArray());
    for (size_t i = 0; dists && i < in->distribution_count; i++)
        json_add(b, dists, NULL, distribution_json(b, in, &in->distributions[i], opt));
    cJSON *comps = json_add(b, o, "compilers", cJSON_CreateArray());
    for (size_t i = 0; comps && i < jd->compiler_count; i++) { /* found by the judge */
        const smc_compiler *c = &jd->compilers[i];
        cJSON *cj = json_add(b, comps, NULL, cJSON_CreateObject());
        if (!cj) break;
        json_add(b, cj, "kind", json_text(smc_compiler_kind_str(c->kind)));
        json_add(b, cj, "path", json_text(c->path));
        json_add(b, cj, "cuda",
                 c->cuda ? version_json((unsigned)c->cuda / 1000, (unsigned)c->cuda % 1000 / 10)
                         : cJSON_CreateNull());
        json_add(b, cj, "cuda_source", string_or_null(c->cuda_source));
        json_add(b, cj, "distribution",
                 c->distribution < in->distribution_count
                     ? string_or_null(in->distributions[c->distribution].name)
                     : cJSON_CreateNull());
    }
    cJSON *notes = json_add(b, o, "notes", cJSON_CreateArray());
    for (size_t i = 0; notes && i < in->note_count; i++)
        json_add(b, notes, NULL, json_text(in->notes[i]));
    json_add(b, o, "notes_more", cJSON_CreateNumber((double)in->notes_more));
    cJSON *libs = json_add(b, o, "libraries", cJSON_CreateArray());
    for (size_t i = 0; libs && i < in->library_count; i++)
        json_add(b, libs, NULL, library_json(b, in, &in->libraries[i], opt));
    return o;
}

/* The head every JSON document of smcheck starts with: schema_version and tool. */
static cJSON *head_json(builder *b)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    json_add(b, root, "schema_version", cJSON_CreateNumber(SCHEMA_VERSION));
    cJSON *tool = json_add(b, root, "tool", cJSON_CreateObject());
    if (tool) {
        json_add(b, tool, "name", json_text("smcheck"));
        json_add(b, tool, "version", json_text(SMC_VERSION));
    }
    return root;
}

/* The report's head: schema_version, tool, the default input, targets and driver. */
static cJSON *root_json(builder *b, const smc_view *opt)
{
    cJSON *root = head_json(b);
    if (!root) return NULL;
    json_add(b, root, "default_input", string_or_null(opt ? opt->default_reason : NULL));
    cJSON *targets = json_add(b, root, "targets", cJSON_CreateArray());
    for (size_t t = 0; targets && opt && t < opt->target_count; t++) {
        const smc_target *g = &opt->targets[t];
        cJSON *o = json_add(b, targets, NULL, cJSON_CreateObject());
        if (!o) break;
        char tok[16];
        snprintf(tok, sizeof tok, "sm_%u%u", g->cc_major, g->cc_minor);
        json_add(b, o, "token", json_text(tok));
        json_add(b, o, "name", g->name[0] ? json_text(g->name) : cJSON_CreateNull());
        json_add(b, o, "compute_capability", version_json(g->cc_major, g->cc_minor));
    }
    if (!opt || !opt->target_count) json_add(b, root, "driver", cJSON_CreateNull());
    if (opt && opt->target_count) {
        cJSON *drv = json_add(b, root, "driver", cJSON_CreateObject());
        char v[32];
        snprintf(v, sizeof v, "%d.%d", opt->driver_cuda / 1000, opt->driver_cuda % 1000 / 10);
        if (drv) {
            json_add(b, drv, "cuda_version",
                     opt->driver_cuda > 0 ? json_text(v) : cJSON_CreateNull());
            json_add(b, drv, "source",
                     opt->driver_source ? json_text(opt->driver_source) : cJSON_CreateNull());
        }
    }
    return root;
}

/* One result's report, as its own document's tree. */
static cJSON *report_json(builder *b, const smc_result *r, const smc_display *how)
{
    const smc_view view = smc_view_of(r, how), *opt = &view;
    smc_input *const *inputs = r->inputs;
    size_t n = r->input_count;
    cJSON *root = root_json(b, opt);
    if (!root) return NULL;
    cJSON *all = json_add(b, root, "overall", cJSON_CreateArray());
    if (opt->target_count && opt->overall) {
        for (size_t t = 0; all && t < opt->target_count; t++) {
            cJSON *v = json_add(b, all, NULL, cJSON_CreateObject());
            if (!v) break;
            json_add(b, v, "target", cJSON_CreateNumber((double)t));
            json_add(b, v, "status", json_text(smc_lib_status_str(opt->overall[t])));
        }
    }
    cJSON *ins = json_add(b, root, "inputs", cJSON_CreateArray());
    for (size_t i = 0; ins && i < n; i++)
        json_add(b, ins, NULL, input_json(b, inputs[i], opt));
    return root;
}

smc_status smc_report_json(FILE *out, const smc_result *r, const smc_display *how)
{
    builder b = {false};
    cJSON *root = report_json(&b, r, how);
    return root ? json_print_root(out, root, &b) : SMC_ERR_NOMEM;
}

smc_status smc_report_json_fleet(FILE *out, const char *fleet, const smc_result *const *r,
                                 const char *const *names, size_t n, const smc_display *how)
{
    builder b = {false};
    cJSON *root = head_json(&b);
    if (!root) return SMC_ERR_NOMEM;
    cJSON *f = json_add(&b, root, "fleet", cJSON_CreateObject());
    if (f) json_add(&b, f, "path", json_text(fleet));
    cJSON *targets = f ? json_add(&b, f, "targets", cJSON_CreateArray()) : NULL;
    for (size_t i = 0; targets && i < n; i++) {
        cJSON *t = json_add(&b, targets, NULL, cJSON_CreateObject());
        if (!t) break;
        json_add(&b, t, "name", json_text(names[i]));
        json_add(&b, t, "report", report_json(&b, r[i], how));
    }
    return json_print_root(out, root, &b);
}

smc_status smc_report_gpus_json(FILE *out, const smc_driver *d)
{
    builder b = {false};
    cJSON *root = head_json(&b);
    if (!root) return SMC_ERR_NOMEM;
    cJSON *drv = json_add(&b, root, "driver", cJSON_CreateObject());
    if (drv) {
        char v[32];
        snprintf(v, sizeof v, "%d.%d", d->cuda_version / 1000, d->cuda_version % 1000 / 10);
        json_add(&b, drv, "loaded", cJSON_CreateBool(d->loaded));
        json_add(&b, drv, "cuda_version", d->cuda_version > 0 ? json_text(v) : cJSON_CreateNull());
        json_add(&b, drv, "max_ptx_isa",
                 d->max_ptx_isa ? version_json(d->max_ptx_isa / 10, d->max_ptx_isa % 10)
                                : cJSON_CreateNull());
        json_add(&b, drv, "error", d->message[0] ? json_text(d->message) : cJSON_CreateNull());
    }
    cJSON *gpus = json_add(&b, root, "gpus", cJSON_CreateArray());
    for (size_t i = 0; gpus && i < d->gpu_count; i++) {
        const smc_gpu *g = &d->gpus[i];
        cJSON *o = json_add(&b, gpus, NULL, cJSON_CreateObject());
        if (!o) break;
        json_add(&b, o, "index", cJSON_CreateNumber(g->index));
        json_add(&b, o, "name", json_text(g->name));
        json_add(&b, o, "compute_capability", version_json(g->cc_major, g->cc_minor));
        json_add(&b, o, "integrated", cJSON_CreateBool(g->integrated));
    }
    return json_print_root(out, root, &b);
}

smc_status smc_report_gpu_table_json(FILE *out, const smc_gpu_table *t)
{
    builder b = {false};
    cJSON *root = head_json(&b);
    if (!root) return SMC_ERR_NOMEM;
    cJSON *gpus = json_add(&b, root, "gpus", cJSON_CreateArray());
    for (size_t i = 0; gpus && i < t->count; i++) {
        const smc_gpu_model *m = &t->models[i];
        cJSON *o = json_add(&b, gpus, NULL, cJSON_CreateObject());
        if (!o) break;
        json_add(&b, o, "name", json_text(m->name));
        json_add(&b, o, "compute_capability", version_json(m->cc_major, m->cc_minor));
        json_add(&b, o, "architecture", json_text(m->architecture));
        json_add(&b, o, "representative", cJSON_CreateBool(m->representative));
        json_add(&b, o, "weakly_sourced", cJSON_CreateBool(m->weak));
    }
    return json_print_root(out, root, &b);
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
    json_add(b, o, "torch", json_text(row->torch));
    json_add(b, o, "variant", json_text(row->variant));
    json_add(b, o, "platform", json_text(row->platform));
    json_add(b, o, "cuda", cuda_json(row->cuda));
    cJSON *tokens = json_add(b, o, "tokens", cJSON_CreateArray());
    for (size_t k = 0; tokens && k < row->image_count; k++) {
        char tok[SMC_TOKEN_MAX];
        json_add(b, tokens, NULL, json_text(smc_image_token(&row->images[k], tok)));
    }
    json_add(b, o, "pypi_default", cJSON_CreateBool(row->pypi));
    json_add(b, o, "index_url", string_or_null(r->index[0] ? r->index : NULL));
    json_add(b, o, "torchvision", string_or_null(row->torchvision));
    json_add(b, o, "torchaudio", string_or_null(row->torchaudio));
    json_add(b, o, "source", json_text(row->source));
    json_add(b, o, "status", json_text(smc_lib_status_str(r->status)));
    json_add(b, o, "status_with_newer_driver", json_text(smc_lib_status_str(r->any)));
    json_add(b, o, "needs_cuda", cuda_json(r->needs_cuda));
    json_add(b, o, "needs_driver", string_or_null(r->needs_driver[0] ? r->needs_driver : NULL));
    json_add(b, o, "reason", string_or_null(r->reason));
    json_add(b, o, "warnings", string_or_null(r->warning));
    json_add(b, o, "installed", cJSON_CreateBool(r->installed));
    json_add(b, o, "pip", json_text(r->pip));
    json_add(b, o, "uv", json_text(r->uv));
    return o;
}

smc_status smc_report_advice_json(FILE *out, const smc_advice *a, const smc_display *how)
{
    const smc_view view = smc_view_of_advice(a, how), *opt = &view;
    builder b = {false};
    cJSON *root = root_json(&b, opt);
    if (!root) return SMC_ERR_NOMEM;
    json_add(&b, root, "platform", json_text(a->req.platform));
    const smc_torch_installed *now = a->req.installed;
    cJSON *inst = json_add(&b, root, "installed", now ? cJSON_CreateObject() : cJSON_CreateNull());
    if (now && inst) {
        json_add(&b, inst, "environment", string_or_null(a->req.installed_where));
        json_add(&b, inst, "torch", string_or_null(now->torch));
        json_add(&b, inst, "torchvision", string_or_null(now->torchvision));
        json_add(&b, inst, "torchaudio", string_or_null(now->torchaudio));
    }
    cJSON *notes = json_add(&b, root, "notes", cJSON_CreateArray());
    for (size_t k = 0; notes && k < a->note_count; k++)
        json_add(&b, notes, NULL, json_text(a->notes[k]));
    json_add(&b, root, "recommended",
             a->best != SMC_NONE ? advice_row_json(&b, a, a->best) : cJSON_CreateNull());
    json_add(&b, root, "with_newer_driver",
             a->newer_driver != SMC_NONE ? advice_row_json(&b, a, a->newer_driver)
                                         : cJSON_CreateNull());
    cJSON *rows = json_add(&b, root, "builds", cJSON_CreateArray());
    for (size_t i = 0; rows && i < a->count; i++)
        json_add(&b, rows, NULL, advice_row_json(&b, a, i));
    return json_print_root(out, root, &b);
}
