/* report_sarif.c: the report as SARIF 2.1.0, for code scanning: one rule per cause, one result
 * per library and GPU worse than ok (and per distribution's own status), locations as URIs
 * relative to the working directory, stable fingerprints. */
#include "json_build.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    {SMC_CAUSE_TILEIR_DRIVER, "TileIrNewerThanDriver",
     "Tile IR the driver cannot compile: a driver older than its bytecode (or than CUDA 13.1, the "
     "first whose Tile IR compiler takes it).",
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
    return s == SMC_STATUS_NONE                                   ? "8.0"
           : s == SMC_STATUS_CPU_ONLY || s == SMC_STATUS_COMPILER ? "7.0"
           : s == SMC_STATUS_JIT                                  ? "2.0"
                                                                  : "5.0";
}

static const char *sarif_level(smc_lib_status s, bool informational)
{
    if (informational) return "note"; /* representative GPUs: nothing was asked of them */
    return s == SMC_STATUS_NONE || s == SMC_STATUS_CPU_ONLY || s == SMC_STATUS_COMPILER ? "error"
           : s == SMC_STATUS_JIT                                                        ? "note"
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
static const char *sarif_library_level(const smc_library_judged *lj, const smc_judgement *j,
                                       bool informational)
{
    if (informational || j->status != SMC_STATUS_NONE) return sarif_level(j->status, informational);
    return j->unused ? "note" : lj->role == SMC_ROLE_VENDORED ? "warning" : "error";
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
static char *sarif_uri(const smc_input *in, const char *path, const char *cwd, const char **member)
{
    const char *bang = NULL;
    size_t n = strlen(in->path);
    if (strncmp(path, in->path, n) == 0 && path[n] == '!') bang = path + n;
    for (const char *p = path; !bang && (p = strchr(p, '!')) != NULL; p++) {
        static const char *const archives[] = {".whl", ".zip",    ".conda", ".tar.bz2",
                                               ".tar", ".tar.gz", ".tgz",   ".tar.zst"};
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
    cJSON *phys = json_add(b, loc, "physicalLocation", cJSON_CreateObject());
    cJSON *art = phys ? json_add(b, phys, "artifactLocation", cJSON_CreateObject()) : NULL;
    if (art) json_add(b, art, "uri", json_text(uri));
    cJSON *region = phys ? json_add(b, phys, "region", cJSON_CreateObject()) : NULL;
    if (region) json_add(b, region, "startLine", cJSON_CreateNumber(1)); /* a binary: its start */
    if (member) {
        cJSON *logical = json_add(b, loc, "logicalLocations", cJSON_CreateArray());
        cJSON *l = logical ? json_add(b, logical, NULL, cJSON_CreateObject()) : NULL;
        if (l) {
            json_add(b, l, "name", json_text(member));
            json_add(b, l, "fullyQualifiedName", json_text(path));
            json_add(b, l, "kind", json_text("module"));
        }
    }
    return loc;
}

static cJSON *sarif_rules_json(builder *b)
{
    cJSON *rules = cJSON_CreateArray();
    for (size_t i = 0; rules && i < N_SARIF_RULES; i++) {
        const sarif_rule *r = &sarif_rules[i];
        cJSON *o = json_add(b, rules, NULL, cJSON_CreateObject());
        if (!o) break;
        json_add(b, o, "id", json_text(sarif_rule_id(r)));
        json_add(b, o, "name", json_text(r->name));
        cJSON *sd = json_add(b, o, "shortDescription", cJSON_CreateObject());
        if (sd) json_add(b, sd, "text", json_text(r->text));
        cJSON *help = json_add(b, o, "help", cJSON_CreateObject());
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
            json_add(b, help, "text", json_text(text));
        }
        cJSON *conf = json_add(b, o, "defaultConfiguration", cJSON_CreateObject());
        if (conf) json_add(b, conf, "level", json_text(sarif_level(r->worst, false)));
        cJSON *props = json_add(b, o, "properties", cJSON_CreateObject());
        if (props) {
            cJSON *tags = json_add(b, props, "tags", cJSON_CreateArray());
            if (tags) {
                json_add(b, tags, NULL, json_text("cuda"));
                json_add(b, tags, NULL, json_text("compatibility"));
            }
            json_add(b, props, "precision", json_text("high"));
            json_add(b, props, "security-severity", json_text(sarif_severity(r->worst)));
        }
    }
    return rules;
}

/* One result per library and target that is worse than ok. */
static void sarif_results(builder *b, cJSON *results, const smc_input *in, const smc_view *opt,
                          const char *cwd)
{
    const smc_judged *jd = smc_view_judged(opt, in);
    for (size_t l = 0; l < in->library_count && l < jd->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        const smc_library_judged *lj = &jd->libraries[l];
        for (size_t t = 0; t < lj->judgement_count && t < opt->target_count; t++) {
            const smc_judgement *j = &lj->judgements[t];
            size_t rule = sarif_rule_of(j->cause);
            if (j->status == SMC_STATUS_OK || j->status == SMC_STATUS_NO_CODE || rule == SMC_NONE)
                continue;
            const smc_target *g = &opt->targets[t];
            char tok[16], *text = NULL;
            snprintf(tok, sizeof tok, "sm_%u%u", g->cc_major, g->cc_minor);
            const char *member;
            char *uri = sarif_uri(in, lib->path, cwd, &member);
            const smc_words *w = smc_view_library_words(opt, in, l, t);
            const char *why = w->reason, *next = w->next;
            if (!uri || !why ||
                asprintf(&text, "%s is %s on %s%s%s%s: %s.%s%s", lib->path,
                         smc_lib_status_str(j->status), g->name[0] ? g->name : tok,
                         g->name[0] ? " (" : "", g->name[0] ? tok : "", g->name[0] ? ")" : "", why,
                         next ? " Next: " : "", next ? next : "") < 0) {
                text = NULL;
                b->failed = true;
            }
            cJSON *r = text ? json_add(b, results, NULL, cJSON_CreateObject()) : NULL;
            if (r) {
                json_add(b, r, "ruleId", json_text(smc_cause_str(j->cause)));
                json_add(b, r, "ruleIndex", cJSON_CreateNumber((double)rule));
                json_add(b, r, "level", json_text(sarif_library_level(lj, j, opt->informational)));
                cJSON *msg = json_add(b, r, "message", cJSON_CreateObject());
                if (msg) json_add(b, msg, "text", json_text(text));
                cJSON *locs = json_add(b, r, "locations", cJSON_CreateArray());
                if (locs) json_add(b, locs, NULL, sarif_location(b, uri, member, lib->path));
                const char *parts[] = {uri, member, tok, smc_cause_str(j->cause)};
                char fp[17];
                sarif_fingerprint(fp, parts, 4);
                cJSON *fps = json_add(b, r, "partialFingerprints", cJSON_CreateObject());
                if (fps) json_add(b, fps, "smcheckLibraryTarget/v1", json_text(fp));
                /* codeql-action's upload-sarif hashes the lines of the located file when this one
                 * is missing: a 1 GB wheel read as text. The same fingerprint says it instead. */
                char line_hash[24];
                snprintf(line_hash, sizeof line_hash, "%s:1", fp);
                if (fps) json_add(b, fps, "primaryLocationLineHash", json_text(line_hash));
                cJSON *props = json_add(b, r, "properties", cJSON_CreateObject());
                if (props) {
                    json_add(b, props, "status", json_text(smc_lib_status_str(j->status)));
                    json_add(b, props, "role", json_text(smc_role_str(lj->role)));
                    json_add(b, props, "target", json_text(tok));
                    json_add(b, props, "gpu", g->name[0] ? json_text(g->name) : cJSON_CreateNull());
                    json_add(b, props, "security-severity", json_text(sarif_severity(j->status)));
                    json_add(b, props, "next", next ? json_text(next) : cJSON_CreateNull());
                }
            }
            free(text);
            free(uri);
        }
    }
    /* A CPU-only build of a GPU package, a compiler that does not know the GPU, a loader that
     * asks for an alternative not shipped: a result per target, at the distribution. */
    for (size_t k = 0; k < in->distribution_count && k < jd->distribution_count; k++) {
        const smc_distribution *d = &in->distributions[k];
        const smc_distribution_judged *dj = &jd->distributions[k];
        for (size_t t = 0; t < dj->verdict_count && t < opt->target_count; t++) {
            const smc_rollup *v = &dj->verdicts[t];
            bool missing = v->status == SMC_STATUS_NONE && (v->missing_cuda || v->twin_missing);
            if ((v->status != SMC_STATUS_CPU_ONLY && v->status != SMC_STATUS_COMPILER &&
                 !missing) ||
                !d->location)
                continue;
            const char *status = smc_lib_status_str(v->status);
            const smc_words *w = smc_view_distribution_words(opt, in, k, t);
            size_t rule = sarif_rule_of(missing                            ? RULE_ALTERNATIVE
                                        : v->status == SMC_STATUS_CPU_ONLY ? SMC_CAUSE_COUNT
                                                                           : RULE_COMPILER);
            const smc_target *g = &opt->targets[t];
            char tok[16], *text = NULL;
            snprintf(tok, sizeof tok, "sm_%u%u", g->cc_major, g->cc_minor);
            const char *member;
            char *uri = sarif_uri(in, d->location, cwd, &member);
            if (!uri || asprintf(&text, "%s %s is %s on %s: %s.%s%s", d->name ? d->name : "?",
                                 d->version ? d->version : "", status, g->name[0] ? g->name : tok,
                                 w->reason ? w->reason : "", w->next ? " Next: " : "",
                                 w->next ? w->next : "") < 0) {
                text = NULL;
                b->failed = true;
            }
            cJSON *r = text ? json_add(b, results, NULL, cJSON_CreateObject()) : NULL;
            if (r) {
                json_add(b, r, "ruleId", json_text(sarif_rule_id(&sarif_rules[rule])));
                json_add(b, r, "ruleIndex", cJSON_CreateNumber((double)rule));
                json_add(b, r, "level", json_text(sarif_level(v->status, opt->informational)));
                cJSON *msg = json_add(b, r, "message", cJSON_CreateObject());
                if (msg) json_add(b, msg, "text", json_text(text));
                cJSON *locs = json_add(b, r, "locations", cJSON_CreateArray());
                if (locs) json_add(b, locs, NULL, sarif_location(b, uri, member, d->location));
                const char *parts[] = {uri, d->name ? d->name : "", tok, status};
                char fp[17], line_hash[24];
                sarif_fingerprint(fp, parts, 4);
                snprintf(line_hash, sizeof line_hash, "%s:1", fp);
                cJSON *fps = json_add(b, r, "partialFingerprints", cJSON_CreateObject());
                if (fps) {
                    json_add(b, fps, "smcheckLibraryTarget/v1", json_text(fp));
                    json_add(b, fps, "primaryLocationLineHash", json_text(line_hash));
                }
                cJSON *props = json_add(b, r, "properties", cJSON_CreateObject());
                if (props) {
                    json_add(b, props, "status", json_text(status));
                    json_add(b, props, "role", json_text("main"));
                    json_add(b, props, "target", json_text(tok));
                    json_add(b, props, "gpu", g->name[0] ? json_text(g->name) : cJSON_CreateNull());
                    json_add(b, props, "security-severity", json_text(sarif_severity(v->status)));
                    json_add(b, props, "next", w->next ? json_text(w->next) : cJSON_CreateNull());
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
        cJSON *o = json_add(b, notes, NULL, cJSON_CreateObject());
        cJSON *msg = o ? json_add(b, o, "message", cJSON_CreateObject()) : NULL;
        char *text = NULL;
        if (msg && asprintf(&text, "%s: %s", in->errors[k].path, in->errors[k].message) >= 0)
            json_add(b, msg, "text", json_text(text));
        else
            b->failed = true;
        free(text);
        if (o) json_add(b, o, "level", json_text("error"));
    }
    for (size_t l = 0; l < in->library_count; l++) {
        const smc_library *lib = &in->libraries[l];
        for (size_t k = 0; k < lib->finding_count; k++, *any = true) {
            cJSON *o = json_add(b, notes, NULL, cJSON_CreateObject());
            cJSON *msg = o ? json_add(b, o, "message", cJSON_CreateObject()) : NULL;
            const smc_finding *f = &lib->findings[k];
            char at[32] = "", *text = NULL;
            if (f->offset != SMC_NO_OFFSET)
                snprintf(at, sizeof at, "at 0x%llx: ", (unsigned long long)f->offset);
            if (msg && asprintf(&text, "%s: %s%s", lib->path, at, f->message) >= 0)
                json_add(b, msg, "text", json_text(text));
            else
                b->failed = true;
            free(text);
            if (o) json_add(b, o, "level", json_text("error"));
        }
    }
}

/* One result's run, appended to runs; name: the fleet target's, or NULL. */
static void sarif_run(builder *b, cJSON *runs, const smc_result *r, const char *name)
{
    const smc_view view = smc_view_of(r, NULL), *opt = &view;
    smc_input *const *inputs = r->inputs;
    size_t n = r->input_count;
    cJSON *run = json_add(b, runs, NULL, cJSON_CreateObject());
    cJSON *tool = run ? json_add(b, run, "tool", cJSON_CreateObject()) : NULL;
    cJSON *drv = tool ? json_add(b, tool, "driver", cJSON_CreateObject()) : NULL;
    if (drv) {
        json_add(b, drv, "name", json_text("smcheck"));
        json_add(b, drv, "version", json_text(SMC_VERSION));
        json_add(b, drv, "semanticVersion", json_text(SMC_VERSION));
        json_add(b, drv, "rules", sarif_rules_json(b));
    }
    if (run && name) { /* code scanning keeps one category a fleet target */
        cJSON *ad = json_add(b, run, "automationDetails", cJSON_CreateObject());
        char *id = smc_asprintf("smcheck/%s/", name);
        if (ad && id) json_add(b, ad, "id", json_text(id));
        if (!id) b->failed = true;
        free(id);
    }
    char cwd[4096];
    const char *here = getcwd(cwd, sizeof cwd);
    cJSON *inv = run ? json_add(b, run, "invocations", cJSON_CreateArray()) : NULL;
    cJSON *one = inv ? json_add(b, inv, NULL, cJSON_CreateObject()) : NULL;
    cJSON *notes = one ? cJSON_CreateArray() : NULL;
    bool unreadable = false;
    for (size_t i = 0; notes && i < n; i++)
        sarif_notifications(b, notes, inputs[i], &unreadable);
    if (one) {
        json_add(b, one, "executionSuccessful", cJSON_CreateBool(!unreadable));
        json_add(b, one, "toolExecutionNotifications", notes);
    }
    cJSON *results = run ? json_add(b, run, "results", cJSON_CreateArray()) : NULL;
    for (size_t i = 0; results && i < n; i++)
        sarif_results(b, results, inputs[i], opt, here);
    cJSON *props = run ? json_add(b, run, "properties", cJSON_CreateObject()) : NULL;
    if (props) {
        cJSON *targets = json_add(b, props, "targets", cJSON_CreateArray());
        for (size_t t = 0; targets && t < opt->target_count; t++) {
            char tok[16];
            snprintf(tok, sizeof tok, "sm_%u%u", opt->targets[t].cc_major,
                     opt->targets[t].cc_minor);
            json_add(b, targets, NULL, json_text(tok));
        }
        char v[32];
        snprintf(v, sizeof v, "%d.%d", opt->driver_cuda / 1000, opt->driver_cuda % 1000 / 10);
        json_add(b, props, "driver", opt->driver_cuda > 0 ? json_text(v) : cJSON_CreateNull());
        json_add(b, props, "informational", cJSON_CreateBool(opt->informational));
        if (name) json_add(b, props, "fleetTarget", json_text(name));
    }
}

smc_status smc_report_sarif_fleet(FILE *out, const smc_result *const *r, const char *const *names,
                                  size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!r[i]) return SMC_ERR_ARG;
    builder b = {false};
    cJSON *root = cJSON_CreateObject();
    if (!root) return SMC_ERR_NOMEM;
    json_add(&b, root, "$schema", json_text("https://json.schemastore.org/sarif-2.1.0.json"));
    json_add(&b, root, "version", json_text("2.1.0"));
    cJSON *runs = json_add(&b, root, "runs", cJSON_CreateArray());
    for (size_t i = 0; runs && i < n; i++)
        sarif_run(&b, runs, r[i], names ? names[i] : NULL);
    return json_print_root(out, root, &b);
}

smc_status smc_report_sarif(FILE *out, const smc_result *r)
{
    return smc_report_sarif_fleet(out, &r, NULL, 1);
}
