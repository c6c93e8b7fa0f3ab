/* api.c: the API of include/smcheck.h over the model. A session holds the targets and limits; a
 * check runs the command's own pipeline (smc_check) and indexes its result, so that the
 * accessors are plain reads of what the command prints. */
#include "../base/base.h"

#include <smcheck.h>
#include <smcheck/builds.h>

#include <stdio.h>
#include <stdlib.h>

_Static_assert((int)SMCHECK_OK == (int)SMC_OK && (int)SMCHECK_E_LIMIT == (int)SMC_ERR_LIMIT,
               "smcheck_error follows smc_status");
_Static_assert((int)SMCHECK_STATUS_OK == (int)SMC_STATUS_OK &&
                   (int)SMCHECK_STATUS_CPU_ONLY == (int)SMC_STATUS_CPU_ONLY &&
                   (int)SMCHECK_STATUS_COMPILER == (int)SMC_STATUS_COMPILER &&
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
    const smc_library_judged *judged;
    const smc_library_derived *derived;
    char *tokens;
} api_library;

/* One distribution of the report, as read and as judged. */
typedef struct api_distribution {
    const smc_distribution *dist;
    const smc_distribution_judged *judged;
} api_distribution;

typedef struct api_error {
    char *path, *message;
} api_error;

struct smcheck_report {
    smc_result *result;
    char (*target_names)[160];
    smc_builds *builds;
    api_library *libs;
    size_t lib_count;
    api_distribution *dists;
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
    s->scan.read.inspect = true;
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
    if (version && smc_driver_parse(version, &cuda) < 1) {
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
    s->scan.run.jobs = jobs;
    return SMCHECK_OK;
}

smcheck_error smcheck_session_set_max_inflate(smcheck_session *s, unsigned long long bytes)
{
    if (!s) return SMCHECK_E_ARG;
    s->scan.limits.max_member_bytes = bytes;
    return SMCHECK_OK;
}

smcheck_error smcheck_session_allow(smcheck_session *s, unsigned allowed)
{
    if (!s) return SMCHECK_E_ARG;
    if (allowed & ~SMCHECK_ALLOW_ALL) return fail(s, SMCHECK_E_ARG, "an unknown SMCHECK_ALLOW_ bit");
    s->scan.net.off = !(allowed & SMCHECK_ALLOW_NETWORK);
    s->scan.cache.off = !(allowed & SMCHECK_ALLOW_CACHE);
    s->scan.run.no_signals = !(allowed & SMCHECK_ALLOW_SIGBUS);
    s->scan.run.no_trim = !(allowed & SMCHECK_ALLOW_TRIM);
    return SMCHECK_OK;
}

const char *smcheck_session_message(const smcheck_session *s)
{
    return s ? s->message : "no session";
}

void smcheck_report_free(smcheck_report *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->lib_count; i++)
        free(r->libs[i].tokens);
    for (size_t i = 0; i < r->error_count; i++) {
        free(r->errors[i].path);
        free(r->errors[i].message);
    }
    smc_result_free(r->result);
    free(r->libs);
    free(r->dists);
    free(r->errors);
    free(r->target_names);
    smc_builds_free(r->builds);
    free(r);
}

/* The targets of a check: the session's, else the local GPUs, else the representative ones. */
static smc_status choose_targets(const smcheck_session *s, smc_request *q, smc_target **own)
{
    q->driver_cuda = s->driver_cuda;
    q->driver_source = s->driver_set ? "the caller" : NULL;
    if (s->targets) {
        q->targets = s->targets;
        q->target_count = s->target_count;
        return SMC_OK;
    }
    smc_driver d = {0};
    smc_status st = smc_request_local(q, s->table, own, &d); /* as the command does */
    smc_driver_free(&d);
    return st;
}

/* "sm_80 sm_90 compute_90": the library's tokens, from its summary. */
static char *tokens_of(const smc_summary *sum)
{
    size_t len = 1, n = sum->token_count;
    for (size_t i = 0; i < n; i++)
        len += strlen(sum->tokens[i].token) + 1;
    char *out = malloc(len), *o = out;
    for (size_t i = 0; out && i < n; i++)
        o += sprintf(o, "%s%s", i ? " " : "", sum->tokens[i].token);
    if (out) *o = '\0';
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

/* The result, by index: libraries, distributions, errors and target names in report order. */
static smc_status index_report(smcheck_report *r)
{
    const smc_result *res = r->result;
    size_t libs = 0, dists = 0;
    for (size_t i = 0; i < res->input_count; i++) {
        libs += res->inputs[i]->library_count;
        dists += res->inputs[i]->distribution_count;
    }
    r->libs = calloc(libs ? libs : 1, sizeof *r->libs);
    r->dists = calloc(dists ? dists : 1, sizeof *r->dists);
    r->target_names = calloc(res->target_count ? res->target_count : 1, sizeof *r->target_names);
    if (!r->libs || !r->dists || !r->target_names) return SMC_ERR_NOMEM;
    for (size_t t = 0; t < res->target_count; t++) {
        const smc_target *g = &res->targets[t];
        if (g->name[0])
            snprintf(r->target_names[t], sizeof r->target_names[t], "%s", g->name);
        else
            snprintf(r->target_names[t], sizeof r->target_names[t], "sm_%u%u", g->cc_major,
                     g->cc_minor);
    }
    for (size_t i = 0; i < res->input_count; i++) {
        const smc_input *in = res->inputs[i];
        for (size_t k = 0; k < in->distribution_count; k++)
            r->dists[r->dist_count++] = (api_distribution){&in->distributions[k],
                                                           &res->judged[i].distributions[k]};
        for (size_t k = 0; k < in->error_count; k++)
            if (!add_error(r, in->errors[k].path, in->errors[k].message, SMC_NO_OFFSET))
                return SMC_ERR_NOMEM;
        for (size_t l = 0; l < in->library_count; l++) {
            const smc_library *lib = &in->libraries[l];
            api_library *a = &r->libs[r->lib_count++];
            a->in = in;
            a->lib = lib;
            a->judged = &res->judged[i].libraries[l];
            a->derived = &res->derived[i].libraries[l];
            if (!(a->tokens = tokens_of(&res->derived[i].libraries[l].summary)))
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
    smc_request q = {.paths = paths, .path_count = count, .scan = s->scan};
    smc_target *own = NULL;
    smc_status st = choose_targets(s, &q, &own);
    if (st == SMC_OK && smc_builds_builtin(&r->builds) != 1) st = SMC_ERR_NOMEM;
    q.builds = r->builds;
    if (st == SMC_OK) st = smc_check(&q, &r->result);
    free(own);
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
    return r ? r->result->target_count : 0;
}

const char *smcheck_report_target_name(const smcheck_report *r, size_t target)
{
    return r && target < r->result->target_count ? r->target_names[target] : NULL;
}

unsigned smcheck_report_target_capability(const smcheck_report *r, size_t target)
{
    if (!r || target >= r->result->target_count) return 0;
    return r->result->targets[target].cc_major * 10 + r->result->targets[target].cc_minor;
}

smcheck_status smcheck_report_status(const smcheck_report *r, size_t target)
{
    if (!r || target >= r->result->target_count) return SMCHECK_STATUS_NO_CODE;
    return (smcheck_status)r->result->overall[target];
}

int smcheck_report_informational(const smcheck_report *r)
{
    return r && r->result->informational;
}

int smcheck_report_driver_cuda(const smcheck_report *r)
{
    return r ? r->result->driver_cuda : 0;
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
    return a && target < r->result->target_count && target < a->judged->judgement_count
               ? &a->judged->judgements[target]
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
    const api_library *a = judgement_at(r, lib, target) ? library_at(r, lib) : NULL;
    return a && target < a->derived->word_count ? a->derived->words[target].reason : NULL;
}

size_t smcheck_report_distribution_count(const smcheck_report *r)
{
    return r ? r->dist_count : 0;
}

const char *smcheck_distribution_name(const smcheck_report *r, size_t dist)
{
    return r && dist < r->dist_count ? r->dists[dist].dist->name : NULL;
}

const char *smcheck_distribution_version(const smcheck_report *r, size_t dist)
{
    return r && dist < r->dist_count ? r->dists[dist].dist->version : NULL;
}

smcheck_status smcheck_distribution_status(const smcheck_report *r, size_t dist, size_t target)
{
    if (!r || dist >= r->dist_count || target >= r->dists[dist].judged->verdict_count)
        return SMCHECK_STATUS_NO_CODE;
    return (smcheck_status)r->dists[dist].judged->verdicts[target].status;
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
    smc_display how = {0};
    bool text = strcmp(format, "text") == 0;
    if (!text && strcmp(format, "json") != 0 && strcmp(format, "sarif") != 0) return SMCHECK_E_ARG;
    /* No credential leaves, and no name sends a control sequence to a terminal. */
    FILE *safe = text ? smc_text_stream(out, false) : smc_redact_stream(out, false);
    if (!safe) return SMCHECK_E_NOMEM;
    smc_status st = text                      ? smc_report_text(safe, r->result, &how)
                    : strcmp(format, "json") == 0 ? smc_report_json(safe, r->result, &how)
                                                  : smc_report_sarif(safe, r->result);
    if (fclose(safe) != 0 && st == SMC_OK) st = SMC_ERR_IO;
    return (smcheck_error)st;
}
