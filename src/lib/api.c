/* api.c: the API of include/smcheck.h over the model. A session holds the targets and limits; a
 * check reads the paths, judges them as the command does, and keeps in its report what the
 * accessors give (paths, tokens, reasons), worked out once, so that they are plain reads. */
#include "internal.h"

#include <smcheck.h>
#include <smcheck/builds.h>

#include <stdio.h>
#include <stdlib.h>

_Static_assert((int)SMCHECK_OK == (int)SMC_OK && (int)SMCHECK_E_LIMIT == (int)SMC_ERR_LIMIT,
               "smcheck_error follows smc_status");
_Static_assert((int)SMCHECK_STATUS_OK == (int)SMC_STATUS_OK &&
                   (int)SMCHECK_STATUS_NO_CODE == (int)SMC_STATUS_NO_CODE,
               "smcheck_status follows smc_lib_status");

struct smcheck_session {
    smc_gpu_table *table;
    smc_target *targets; /* NULL: the local GPUs, else the representative ones */
    size_t target_count;
    int driver_cuda; /* 0: the local driver's, when the GPUs are local */
    bool driver_set;
    smc_options scan;
    char message[320];
};

/* One library of the report, with what its accessors return. */
typedef struct api_library {
    const smc_input *in;
    const smc_library *lib;
    char *tokens;
    char **reasons; /* per target */
} api_library;

typedef struct api_error {
    char *path, *message;
} api_error;

struct smcheck_report {
    smc_input **inputs;
    size_t input_count;
    smc_target *targets;
    size_t target_count;
    char (*target_names)[160];
    smc_lib_status *overall;
    int driver_cuda;
    const char *driver_source;
    bool informational;
    smc_builds *builds;
    api_library *libs;
    size_t lib_count;
    const smc_distribution **dists;
    size_t dist_count;
    api_error *errors;
    size_t error_count;
};

const char *smcheck_version(void)
{
    return SMC_VERSION;
}

const char *smcheck_strerror(smcheck_error e)
{
    return smc_status_str((smc_status)e);
}

const char *smcheck_status_str(smcheck_status s)
{
    return smc_lib_status_str((smc_lib_status)s);
}

static smcheck_error fail(smcheck_session *s, smcheck_error e, const char *what)
{
    if (s) snprintf(s->message, sizeof s->message, "%s", what ? what : smcheck_strerror(e));
    return e;
}

smcheck_error smcheck_session_new(smcheck_session **out)
{
    if (!out) return SMCHECK_E_ARG;
    *out = NULL;
    smcheck_session *s = calloc(1, sizeof *s);
    if (!s) return SMCHECK_E_NOMEM;
    int rc = smc_gpu_table_builtin(&s->table);
    if (rc != 1) {
        free(s);
        return rc < 0 ? SMCHECK_E_NOMEM : SMCHECK_E_FORMAT;
    }
    s->scan.inspect = true;
    *out = s;
    return SMCHECK_OK;
}

void smcheck_session_free(smcheck_session *s)
{
    if (!s) return;
    smc_gpu_table_free(s->table);
    free(s->targets);
    free(s);
}

smcheck_error smcheck_session_set_gpus(smcheck_session *s, const char *list)
{
    if (!s || !list) return fail(s, SMCHECK_E_ARG, "no GPU list");
    smc_target *targets = NULL;
    size_t n = 0;
    if (strcmp(list, "auto") != 0) {
        char err[256] = "";
        int rc = smc_target_parse_list(s->table, list, &targets, &n, err, sizeof err);
        if (rc < 0) return fail(s, SMCHECK_E_NOMEM, NULL);
        if (rc == 0) return fail(s, SMCHECK_E_ARG, err);
    }
    free(s->targets);
    s->targets = targets;
    s->target_count = n;
    s->message[0] = '\0';
    return SMCHECK_OK;
}

smcheck_error smcheck_session_set_driver(smcheck_session *s, const char *version)
{
    if (!s) return SMCHECK_E_ARG;
    int cuda = 0;
    if (version && smc_driver_parse(version, &cuda) != 1) {
        char why[160];
        snprintf(why, sizeof why, "not a CUDA or driver version: '%.100s'", version);
        return fail(s, SMCHECK_E_ARG, why);
    }
    s->driver_cuda = cuda;
    s->driver_set = version != NULL;
    s->message[0] = '\0';
    return SMCHECK_OK;
}

smcheck_error smcheck_session_set_jobs(smcheck_session *s, unsigned jobs)
{
    if (!s || jobs > 256) return fail(s, SMCHECK_E_ARG, "jobs: from 0 (one per CPU) to 256");
    s->scan.jobs = jobs;
    return SMCHECK_OK;
}

smcheck_error smcheck_session_set_max_inflate(smcheck_session *s, unsigned long long bytes)
{
    if (!s) return SMCHECK_E_ARG;
    s->scan.max_member_bytes = bytes;
    return SMCHECK_OK;
}

const char *smcheck_session_message(const smcheck_session *s)
{
    return s ? s->message : "no session";
}

void smcheck_report_free(smcheck_report *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->lib_count; i++) {
        free(r->libs[i].tokens);
        for (size_t t = 0; r->libs[i].reasons && t < r->target_count; t++)
            free(r->libs[i].reasons[t]);
        free(r->libs[i].reasons);
    }
    for (size_t i = 0; i < r->error_count; i++) {
        free(r->errors[i].path);
        free(r->errors[i].message);
    }
    for (size_t i = 0; i < r->input_count; i++)
        smc_input_free(r->inputs[i]);
    free(r->inputs);
    free(r->libs);
    free(r->dists);
    free(r->errors);
    free(r->targets);
    free(r->target_names);
    free(r->overall);
    smc_builds_free(r->builds);
    free(r);
}

/* The targets of a check: the session's, else the local GPUs, else the representative ones. */
static smc_status choose_targets(const smcheck_session *s, smcheck_report *r)
{
    r->driver_cuda = s->driver_cuda;
    r->driver_source = s->driver_set ? "the caller" : NULL;
    if (s->targets) {
        r->targets = malloc(s->target_count * sizeof *r->targets);
        if (!r->targets) return SMC_ERR_NOMEM;
        memcpy(r->targets, s->targets, s->target_count * sizeof *r->targets);
        r->target_count = s->target_count;
        return SMC_OK;
    }
    smc_driver d;
    smc_status st = smc_driver_probe(&d);
    if (st == SMC_OK) st = smc_targets_local(s->table, &d, &r->targets, &r->target_count);
    if (st == SMC_OK && r->target_count && !s->driver_set) {
        r->driver_cuda = d.cuda_version;
        r->driver_source = "the local driver";
    }
    if (st == SMC_OK && !r->target_count) {
        r->informational = true;
        st = smc_targets_representative(s->table, &r->targets, &r->target_count);
    }
    smc_driver_free(&d);
    return st;
}

static char *tokens_of(const smc_library *lib)
{
    smc_summary sum;
    if (smc_library_summarize(lib, &sum) != SMC_OK) return NULL;
    size_t len = 1;
    for (size_t i = 0; i < sum.token_count; i++)
        len += strlen(sum.tokens[i].token) + 1;
    char *out = malloc(len), *o = out;
    for (size_t i = 0; out && i < sum.token_count; i++)
        o += sprintf(o, "%s%s", i ? " " : "", sum.tokens[i].token);
    if (out) *o = '\0';
    smc_summary_free(&sum);
    return out;
}

static bool add_error(smcheck_report *r, const char *path, const char *message, uint64_t offset)
{
    api_error *grown = realloc(r->errors, (r->error_count + 1) * sizeof *grown);
    if (!grown) return false;
    r->errors = grown;
    api_error *e = &grown[r->error_count];
    e->path = strdup(path);
    e->message = NULL;
    if (offset == SMC_NO_OFFSET) {
        e->message = strdup(message);
    } else if (asprintf(&e->message, "at 0x%llx: %s", (unsigned long long)offset, message) < 0) {
        e->message = NULL;
    }
    r->error_count++;
    return e->path && e->message;
}

/* Everything the accessors return, worked out once. */
static smc_status index_report(smcheck_report *r)
{
    size_t libs = 0, dists = 0;
    for (size_t i = 0; i < r->input_count; i++) {
        libs += r->inputs[i]->library_count;
        dists += r->inputs[i]->distribution_count;
    }
    r->libs = calloc(libs ? libs : 1, sizeof *r->libs);
    r->dists = calloc(dists ? dists : 1, sizeof *r->dists);
    r->target_names = calloc(r->target_count ? r->target_count : 1, sizeof *r->target_names);
    if (!r->libs || !r->dists || !r->target_names) return SMC_ERR_NOMEM;
    for (size_t t = 0; t < r->target_count; t++) {
        const smc_target *g = &r->targets[t];
        if (g->name[0])
            snprintf(r->target_names[t], sizeof r->target_names[t], "%s", g->name);
        else
            snprintf(r->target_names[t], sizeof r->target_names[t], "sm_%u%u", g->cc_major,
                     g->cc_minor);
    }
    for (size_t i = 0; i < r->input_count; i++) {
        const smc_input *in = r->inputs[i];
        for (size_t k = 0; k < in->distribution_count; k++)
            r->dists[r->dist_count++] = &in->distributions[k];
        for (size_t k = 0; k < in->error_count; k++)
            if (!add_error(r, in->errors[k].path, in->errors[k].message, SMC_NO_OFFSET))
                return SMC_ERR_NOMEM;
        for (size_t l = 0; l < in->library_count; l++) {
            const smc_library *lib = &in->libraries[l];
            api_library *a = &r->libs[r->lib_count++];
            a->in = in;
            a->lib = lib;
            a->tokens = tokens_of(lib);
            a->reasons = calloc(r->target_count ? r->target_count : 1, sizeof *a->reasons);
            if (!a->tokens || !a->reasons) return SMC_ERR_NOMEM;
            for (size_t t = 0; t < r->target_count && t < lib->judgement_count; t++)
                if (!(a->reasons[t] = smc_judgement_reason(lib, &lib->judgements[t],
                                                           &r->targets[t], r->driver_cuda)))
                    return SMC_ERR_NOMEM;
            for (size_t k = 0; k < lib->finding_count; k++)
                if (!add_error(r, lib->path, lib->findings[k].message, lib->findings[k].offset))
                    return SMC_ERR_NOMEM;
        }
    }
    return SMC_OK;
}

smcheck_error smcheck_check(smcheck_session *s, const char *const *paths, size_t count,
                            smcheck_report **out)
{
    if (out) *out = NULL;
    if (!s || !out || (!paths && count)) return fail(s, SMCHECK_E_ARG, "no session or paths");
    if (count == 0) return fail(s, SMCHECK_E_ARG, "no path to check");
    for (size_t i = 0; i < count; i++)
        if (!paths[i]) return fail(s, SMCHECK_E_ARG, "a NULL path");
    smcheck_report *r = calloc(1, sizeof *r);
    if (!r) return fail(s, SMCHECK_E_NOMEM, NULL);
    smc_status st = choose_targets(s, r);
    if (st == SMC_OK && smc_builds_builtin(&r->builds) != 1) st = SMC_ERR_NOMEM;
    smc_options opt = s->scan;
    opt.targets = r->targets;
    opt.target_count = r->target_count;
    opt.driver_cuda = r->driver_cuda;
    if (st == SMC_OK) {
        r->inputs = calloc(count, sizeof *r->inputs);
        st = r->inputs ? smc_scan_paths(paths, count, &opt, r->inputs) : SMC_ERR_NOMEM;
        if (st == SMC_OK) r->input_count = count;
    }
    if (st == SMC_OK && r->informational)
        smc_targets_for_platform(r->inputs, r->input_count, r->targets, &r->target_count);
    if (st == SMC_OK) {
        r->overall = calloc(r->target_count ? r->target_count : 1, sizeof *r->overall);
        st = r->overall ? smc_judge(r->inputs, r->input_count, r->targets, r->target_count,
                                    r->driver_cuda, r->overall)
                        : SMC_ERR_NOMEM;
    }
    if (st == SMC_OK) st = index_report(r);
    if (st != SMC_OK) {
        smcheck_report_free(r);
        return fail(s, (smcheck_error)st, NULL);
    }
    s->message[0] = '\0';
    *out = r;
    return SMCHECK_OK;
}

size_t smcheck_report_target_count(const smcheck_report *r)
{
    return r ? r->target_count : 0;
}

const char *smcheck_report_target_name(const smcheck_report *r, size_t target)
{
    return r && target < r->target_count ? r->target_names[target] : NULL;
}

unsigned smcheck_report_target_capability(const smcheck_report *r, size_t target)
{
    if (!r || target >= r->target_count) return 0;
    return r->targets[target].cc_major * 10 + r->targets[target].cc_minor;
}

smcheck_status smcheck_report_status(const smcheck_report *r, size_t target)
{
    if (!r || target >= r->target_count) return SMCHECK_STATUS_NO_CODE;
    return (smcheck_status)r->overall[target];
}

int smcheck_report_informational(const smcheck_report *r)
{
    return r && r->informational;
}

int smcheck_report_driver_cuda(const smcheck_report *r)
{
    return r ? r->driver_cuda : 0;
}

size_t smcheck_report_library_count(const smcheck_report *r)
{
    return r ? r->lib_count : 0;
}

static const api_library *library_at(const smcheck_report *r, size_t lib)
{
    return r && lib < r->lib_count ? &r->libs[lib] : NULL;
}

const char *smcheck_library_path(const smcheck_report *r, size_t lib)
{
    const api_library *a = library_at(r, lib);
    return a ? a->lib->path : NULL;
}

size_t smcheck_library_container_count(const smcheck_report *r, size_t lib)
{
    const api_library *a = library_at(r, lib);
    return a ? a->lib->container_count : 0;
}

const char *smcheck_library_tokens(const smcheck_report *r, size_t lib)
{
    const api_library *a = library_at(r, lib);
    return a ? a->tokens : NULL;
}

static const smc_judgement *judgement_at(const smcheck_report *r, size_t lib, size_t target)
{
    const api_library *a = library_at(r, lib);
    return a && target < r->target_count && target < a->lib->judgement_count
               ? &a->lib->judgements[target]
               : NULL;
}

smcheck_status smcheck_library_status(const smcheck_report *r, size_t lib, size_t target)
{
    const smc_judgement *j = judgement_at(r, lib, target);
    return j ? (smcheck_status)j->status : SMCHECK_STATUS_NO_CODE;
}

const char *smcheck_library_cause(const smcheck_report *r, size_t lib, size_t target)
{
    const smc_judgement *j = judgement_at(r, lib, target);
    return j ? smc_cause_str(j->cause) : NULL;
}

const char *smcheck_library_reason(const smcheck_report *r, size_t lib, size_t target)
{
    return judgement_at(r, lib, target) ? r->libs[lib].reasons[target] : NULL;
}

size_t smcheck_report_distribution_count(const smcheck_report *r)
{
    return r ? r->dist_count : 0;
}

const char *smcheck_distribution_name(const smcheck_report *r, size_t dist)
{
    return r && dist < r->dist_count ? r->dists[dist]->name : NULL;
}

const char *smcheck_distribution_version(const smcheck_report *r, size_t dist)
{
    return r && dist < r->dist_count ? r->dists[dist]->version : NULL;
}

smcheck_status smcheck_distribution_status(const smcheck_report *r, size_t dist, size_t target)
{
    if (!r || dist >= r->dist_count || target >= r->target_count || !r->dists[dist]->verdicts)
        return SMCHECK_STATUS_NO_CODE;
    return (smcheck_status)r->dists[dist]->verdicts[target].status;
}

size_t smcheck_report_error_count(const smcheck_report *r)
{
    return r ? r->error_count : 0;
}

const char *smcheck_report_error_path(const smcheck_report *r, size_t i)
{
    return r && i < r->error_count ? r->errors[i].path : NULL;
}

const char *smcheck_report_error_message(const smcheck_report *r, size_t i)
{
    return r && i < r->error_count ? r->errors[i].message : NULL;
}

smcheck_error smcheck_report_write(const smcheck_report *r, const char *format, FILE *out)
{
    if (!r || !format || !out) return SMCHECK_E_ARG;
    smc_report_options opt = {
        .targets = r->targets,
        .target_count = r->target_count,
        .driver_cuda = r->driver_cuda,
        .driver_source = r->driver_source,
        .overall = r->overall,
        .builds = r->builds,
        .informational = r->informational,
    };
    smc_status st;
    if (strcmp(format, "json") == 0) {
        st = smc_report_json(out, r->inputs, r->input_count, &opt);
    } else if (strcmp(format, "sarif") == 0) {
        st = smc_report_sarif(out, r->inputs, r->input_count, &opt);
    } else if (strcmp(format, "text") == 0) {
        FILE *safe = smc_text_stream(out, false); /* no name sends a control sequence */
        if (!safe) return SMCHECK_E_NOMEM;
        st = smc_report_text(safe, r->inputs, r->input_count, &opt);
        if (fclose(safe) != 0 && st == SMC_OK) st = SMC_ERR_IO;
    } else {
        return SMCHECK_E_ARG;
    }
    return (smcheck_error)st;
}
