/* packages.c: what smcheck knows of packages and libraries beyond their device code, as data
 * compiled in from data/cpu-builds.tsv (which packages exist to use the GPU, and how their CPU-only
 * builds show), data/loaders.tsv (how a package's loader picks one of its alternative libraries),
 * data/support.tsv (the GPUs NVIDIA documents for each release of its libraries) and
 * data/uses.tsv (how a package uses a library). Rows are looked up in the table text itself: a
 * few dozen lines, read without allocating. */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>

extern const char smc_builtin_cpu_builds[];
extern const size_t smc_builtin_cpu_builds_len;
extern const char smc_builtin_loaders[];
extern const size_t smc_builtin_loaders_len;
extern const char smc_builtin_support[];
extern const size_t smc_builtin_support_len;
extern const char smc_builtin_uses[];
extern const size_t smc_builtin_uses_len;

/* A distribution name as the tables write it: lower case, '-' for '_' and '.' (PEP 503). */
static void normalize(const char *name, char *out, size_t n)
{
    size_t k = 0;
    for (; name && *name && k + 1 < n; name++)
        out[k++] = *name == '_' || *name == '.' ? '-'
                   : *name >= 'A' && *name <= 'Z' ? (char)(*name - 'A' + 'a')
                                                  : *name;
    out[k] = '\0';
}

/* The row of a table whose first field is name (NULL: any), from *at on: its fields (up to max,
 * each cut to fit) in f; advances *at past it. Returns the number of fields, 0 at the end. */
static size_t next_row(const char *text, size_t len, size_t *at, const char *name,
                       char f[][320], size_t max)
{
    while (*at < len) {
        const char *line = text + *at, *nl = memchr(line, '\n', len - *at);
        size_t n = nl ? (size_t)(nl - line) : len - *at;
        *at += n + 1;
        if (line[0] == '\n' || line[0] == '#') continue; /* blank, or a comment */
        size_t k = 0;
        for (const char *p = line; k < max && p <= line + n;) {
            const char *tab = memchr(p, '\t', (size_t)(line + n - p));
            size_t fl = tab ? (size_t)(tab - p) : (size_t)(line + n - p);
            snprintf(f[k++], 320, "%.*s", (int)fl, p);
            if (!tab) break;
            p = tab + 1;
        }
        if (!name || strcmp(f[0], name) == 0) return k;
    }
    return 0;
}

/* Whether a file's base name is the library stem names: it starts with stem and goes on with
 * '.', '-', '_' or nothing ("libcudnn" is libcudnn_ops.so.9, "libcublas" is not libcublasLt). */
static bool is_library(const char *file, const char *stem)
{
    size_t n = strlen(stem);
    const char *name = smc_base_name(file);
    return n && strncmp(name, stem, n) == 0 &&
           (!name[n] || name[n] == '.' || name[n] == '-' || name[n] == '_');
}

/* A compute capability "8.6" as 86; 0 when it is not one. */
static unsigned cc_of(const char *s)
{
    unsigned major, minor;
    char end;
    return sscanf(s, "%u.%u%c", &major, &minor, &end) == 2 && major < 100 && minor < 10
               ? major * 10 + minor
               : 0;
}

bool smc_support_for(const char *file, const char *dist, const char *version,
                     unsigned cuda_major, smc_support *out)
{
    char key[128], f[8][320];
    normalize(dist, key, sizeof key);
    size_t at = 0;
    while (next_row(smc_builtin_support, smc_builtin_support_len, &at, NULL, f, 8) == 8) {
        if (!is_library(file, f[0])) continue;
        if (strcmp(f[1], "-") != 0) { /* this distribution, in these releases */
            if (!dist || strcmp(f[1], key) != 0 || !version) continue;
            if (strcmp(f[2], "-") != 0 && smc_version_cmp(version, f[2]) < 0) continue;
            if (strcmp(f[3], "-") != 0 && smc_version_cmp(version, f[3]) >= 0) continue;
        }
        if (strcmp(f[4], "-") != 0 && strtoul(f[4], NULL, 10) != cuda_major) continue;
        *out = (smc_support){.refused = strcmp(f[6], "refused") == 0};
        size_t n = strlen(f[5]);
        if (n && f[5][n - 1] == '-') {
            f[5][n - 1] = '\0';
            out->from = cc_of(f[5]);
        } else {
            for (char *p = f[5]; p && out->count < SMC_SUPPORT_MAX;) {
                char *comma = strchr(p, ',');
                if (comma) *comma = '\0';
                if (cc_of(p)) out->list[out->count++] = cc_of(p);
                p = comma ? comma + 1 : NULL;
            }
        }
        snprintf(out->source, sizeof out->source, "%s", f[7]);
        return out->from || out->count;
    }
    return false;
}

bool smc_support_older(const char *file, const char *dist, unsigned cc, char *before, size_t n)
{
    char key[128], f[8][320];
    normalize(dist, key, sizeof key);
    size_t at = 0;
    while (dist && next_row(smc_builtin_support, smc_builtin_support_len, &at, NULL, f, 8) == 8) {
        if (!is_library(file, f[0]) || strcmp(f[1], key) != 0 || strcmp(f[3], "-") == 0) continue;
        size_t len = strlen(f[5]);
        if (!len || f[5][len - 1] != '-') continue;
        f[5][len - 1] = '\0';
        unsigned from = cc_of(f[5]);
        if (!from || cc < from) continue;
        snprintf(before, n, "%s", f[3]); /* releases before this one support it */
        return true;
    }
    return false;
}

int smc_support_covers(const smc_support *s, unsigned cc, int release_cuda)
{
    unsigned lowest = s->from;
    for (size_t i = 0; i < s->count; i++) {
        if (s->list[i] == cc) return 1;
        if (!lowest || s->list[i] < lowest) lowest = s->list[i];
    }
    if (cc < lowest) return 0;
    /* FROM-: every GPU its release knows (the GPU's first CUDA no newer than it). */
    int first = smc_cuda_for_arch(cc);
    if (s->from && first && release_cuda >= first) return 1;
    return s->refused ? 0 : -1;
}

bool smc_use_for(const char *package, const char *file, smc_use *out)
{
    char key[128], f[5][320];
    normalize(package, key, sizeof key);
    size_t at = 0;
    while (next_row(smc_builtin_uses, smc_builtin_uses_len, &at, key, f, 5) == 5) {
        if (!is_library(file, f[1])) continue;
        size_t n = strlen(f[2]);
        *out = (smc_use){.how = strcmp(f[2], "on-demand") == 0 ? SMC_USE_ON_DEMAND
                                : strcmp(f[2], "supported") == 0 ? SMC_USE_SUPPORTED
                                                                 : SMC_USE_FROM};
        if (out->how == SMC_USE_FROM) { /* "8.0-" */
            if (!n || f[2][n - 1] != '-') continue;
            f[2][n - 1] = '\0';
            if (!(out->from = cc_of(f[2]))) continue;
        }
        snprintf(out->feature, sizeof out->feature, "%s", f[3]);
        snprintf(out->source, sizeof out->source, "%s", f[4]);
        return true;
    }
    return false;
}

bool smc_cpu_rule_for(const char *name, smc_cpu_rule *out)
{
    char key[128], f[6][320];
    normalize(name, key, sizeof key);
    size_t at = 0;
    if (next_row(smc_builtin_cpu_builds, smc_builtin_cpu_builds_len, &at, key, f, 6) != 6)
        return false;
    *out = (smc_cpu_rule){.how = strcmp(f[1], "named") == 0  ? SMC_CPU_NAMED
                                 : strcmp(f[1], "says") == 0 ? SMC_CPU_SAYS
                                                             : SMC_CPU_NO_CODE};
    snprintf(out->companions, sizeof out->companions, "%s", strcmp(f[2], "-") ? f[2] : "");
    snprintf(out->instead, sizeof out->instead, "%s", f[3]);
    snprintf(out->shadows, sizeof out->shadows, "%s", strcmp(f[4], "-") ? f[4] : "");
    return true;
}

/* Whether a comma-separated list of normalized names holds name. */
static bool listed(const char *list, const char *name)
{
    char key[128];
    normalize(name, key, sizeof key);
    size_t k = strlen(key);
    for (const char *p = list; k && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == k && memcmp(p, key, k) == 0) return true;
        p += n + (comma != NULL);
    }
    return false;
}

bool smc_cpu_companion(const smc_cpu_rule *rule, const char *name)
{
    return listed(rule->companions, name);
}

bool smc_cpu_shadows(const smc_cpu_rule *rule, const char *name)
{
    return listed(rule->shadows, name);
}

bool smc_loader_rule_for(const char *name, const char *version, smc_loader_rule *out)
{
    char key[128], f[8][320];
    normalize(name, key, sizeof key);
    if (!version) return false;
    size_t at = 0;
    while (next_row(smc_builtin_loaders, smc_builtin_loaders_len, &at, key, f, 8) == 8) {
        bool before = smc_version_cmp(version, f[1]) < 0;
        if (before || (strcmp(f[2], "-") != 0 && smc_version_cmp(version, f[2]) >= 0)) continue;
        unsigned major = 0, minor = 0;
        *out = (smc_loader_rule){
            .by = strcmp(f[3], "last") == 0     ? SMC_CHOOSE_LAST
                  : strcmp(f[3], "sorted") == 0 ? SMC_CHOOSE_SORTED
                                                : SMC_CHOOSE_HIGHEST,
            .nocublaslt_below = sscanf(f[4], "%u.%u", &major, &minor) == 2 ? major * 10 + minor : 0,
            .torch_cuda = strcmp(f[5], "torch") == 0 || strcmp(f[5], "torch-major") == 0,
            .same_major = strcmp(f[5], "torch-major") == 0,
        };
        snprintf(out->override, sizeof out->override, "%s", strcmp(f[6], "-") ? f[6] : "");
        snprintf(out->source, sizeof out->source, "%s", f[7]);
        return true;
    }
    return false;
}

unsigned smc_loader_chooser(const smc_loader_rule *rule, const smc_target *targets, size_t n,
                            size_t t, bool one_machine)
{
    if (!one_machine) return targets[t].cc_major * 10 + targets[t].cc_minor;
    unsigned best = 0;
    char best_s[16] = "", s[16];
    for (size_t i = 0; i < n; i++) {
        unsigned cc = targets[i].cc_major * 10 + targets[i].cc_minor;
        snprintf(s, sizeof s, "%u.%u", targets[i].cc_major, targets[i].cc_minor);
        if (rule->by == SMC_CHOOSE_LAST || (rule->by == SMC_CHOOSE_HIGHEST && cc > best) ||
            (rule->by == SMC_CHOOSE_SORTED && strcmp(s, best_s) > 0)) {
            best = cc;
            memcpy(best_s, s, sizeof s);
        }
    }
    return best;
}
