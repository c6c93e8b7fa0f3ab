/* audit.c: the facts of a whole index in shards (smcheck/audit.h). Listing asks each project's
 * page of the index; sharding is arithmetic on what the listing gives, so every process of an
 * Indexed Job computes the same split; a wheel's facts are read as a check reads a URL with its
 * #sha256=, through a scratch cache whose one record is then renamed into the tree. */
#include "smcheck/audit.h"
#include "../acquire/acquire.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Projects that shipped their CUDA libraries in py3-none-any wheels (bitsandbytes up to 0.41). */
static const char *const pure_gpu[] = {"bitsandbytes"};

/* Whether a wheel's platform tag (the last of its tag triple) is one that can hold libraries
 * for Linux or Windows. */
static bool gpu_platform(const char *tags, const char *project)
{
    const char *plat = strrchr(tags, '-');
    plat = plat ? plat + 1 : tags;
    for (const char *p = plat; p && *p; p = strchr(p, '.'), p = p ? p + 1 : NULL) {
        /* a compressed tag set: manylinux_2_17_x86_64.manylinux2014_x86_64 */
        if (strncmp(p, "manylinux", 9) == 0 || strncmp(p, "musllinux", 9) == 0 ||
            strncmp(p, "linux_", 6) == 0 || strncmp(p, "win_amd64", 9) == 0 ||
            strncmp(p, "win_arm64", 9) == 0)
            return true;
    }
    if (strcmp(plat, "any") == 0)
        for (size_t i = 0; i < sizeof pure_gpu / sizeof *pure_gpu; i++)
            if (strcmp(project, pure_gpu[i]) == 0) return true;
    return false;
}

static int by_name(const void *a, const void *b)
{
    const smc_audit_wheel *x = a, *y = b;
    int c = strcmp(x->project, y->project);
    return c ? c : strcmp(x->filename, y->filename);
}

/* Positions by sha256, then position (so the first of equal ones comes first). */
static int by_sha(const void *a, const void *b, void *ctx)
{
    const smc_audit_wheel *w = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(w[x].sha256, w[y].sha256);
    return c ? c : (x > y) - (x < y);
}

static void wheel_free(smc_audit_wheel *w)
{
    free(w->project);
    free(w->version);
    free(w->filename);
    free(w->url);
}

void smc_audit_list_free(smc_audit_list *l)
{
    for (size_t i = 0; l->wheels && i < l->count; i++)
        wheel_free(&l->wheels[i]);
    free(l->wheels);
    for (size_t i = 0; i < l->error_count; i++)
        free(l->errors[i]);
    free(l->errors);
    memset(l, 0, sizeof *l);
}

static smc_status add_error(smc_audit_list *l, const char *project, const char *why)
{
    char **slot = smc_push(&l->errors, l->error_count, sizeof *slot);
    if (!slot || !(*slot = smc_asprintf("%s: %s", project, why))) return SMC_ERR_NOMEM;
    l->error_count++;
    return SMC_OK;
}

/* Adds the GPU-capable wheels among one page's files to l. */
static smc_status add_files(smc_audit_list *l, const smc_index_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        smc_wheel_name wn;
        if (!smc_wheel_name_parse(files[i].filename, &wn) || !gpu_platform(wn.tags, wn.name)) {
            l->other_platforms++;
            continue;
        }
        if (!smc_cache_key_ok(files[i].sha256)) {
            l->no_sha256++;
            continue;
        }
        smc_audit_wheel *w = smc_push(&l->wheels, l->count, sizeof *w);
        if (!w) return SMC_ERR_NOMEM;
        *w = (smc_audit_wheel){.project = smc_strdup(wn.name),
                               .version = smc_strdup(wn.version),
                               .filename = smc_strdup(files[i].filename),
                               .url = smc_strdup(files[i].url),
                               .size = files[i].size};
        memcpy(w->sha256, files[i].sha256, sizeof w->sha256);
        l->count++;
        if (!w->project || !w->version || !w->filename || !w->url) return SMC_ERR_NOMEM;
    }
    return SMC_OK;
}

smc_status smc_audit_list_wheels(const smc_options *opt, const char *index_url,
                                 const char *const *projects, size_t n, smc_audit_list *out)
{
    memset(out, 0, sizeof *out);
    smc_net net = smc_net_of(opt);
    smc_fetch f = {0};
    smc_status st = SMC_OK;
    for (size_t p = 0; p < n && st == SMC_OK; p++) {
        smc_index_file *files = NULL;
        size_t count = 0;
        char why[512];
        if (!smc_index_project(&net, &f, index_url, projects[p], &files, &count, why, sizeof why))
            st = add_error(out, projects[p], why);
        else
            st = add_files(out, files, count);
        smc_index_files_free(files, count);
    }
    smc_fetch_done(&f);
    if (st == SMC_OK && out->count) qsort(out->wheels, out->count, sizeof *out->wheels, by_name);
    /* The same file listed twice (a project named twice, two names of one project): the first,
     * found among the positions sorted by sha256 (n log n: an index holds 10^5 GPU wheels). */
    size_t *order = st == SMC_OK && out->count ? malloc(out->count * sizeof *order) : NULL;
    if (st == SMC_OK && out->count && !order) st = SMC_ERR_NOMEM;
    for (size_t i = 0; order && i < out->count; i++)
        order[i] = i;
    if (order) qsort_r(order, out->count, sizeof *order, by_sha, out->wheels);
    for (size_t k = 1; order && k < out->count; k++)
        if (strcmp(out->wheels[order[k]].sha256, out->wheels[order[k - 1]].sha256) == 0) {
            wheel_free(&out->wheels[order[k]]); /* a later position of the same sha256 */
            out->wheels[order[k]].project = NULL;
        }
    free(order);
    size_t kept = 0;
    for (size_t i = 0; st == SMC_OK && i < out->count; i++)
        if (out->wheels[i].project) out->wheels[kept++] = out->wheels[i];
    if (st == SMC_OK) out->count = kept;
    if (st != SMC_OK) smc_audit_list_free(out);
    return st;
}

static bool add_name(char ***names, size_t *count, const char *s, size_t len)
{
    char **slot = smc_push(names, *count, sizeof *slot);
    if (!slot || !(*slot = strndup(s, len))) return false;
    (*count)++;
    return true;
}

smc_status smc_audit_index_projects(const smc_options *opt, const char *index_url, char ***names,
                                    size_t *count, char *why, size_t n)
{
    *names = NULL;
    *count = 0;
    const char *url = index_url && *index_url ? index_url : "https://pypi.org/simple/";
    smc_net net = smc_net_of(opt);
    char *text = NULL;
    size_t len = 0;
    bool ok = smc_http_get(&net, NULL, url,
                           "application/vnd.pypi.simple.v1+json, "
                           "application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01",
                           1u << 30, &text, &len, why, n);
    smc_status st = ok ? SMC_OK : strcmp(why, "out of memory") == 0 ? SMC_ERR_NOMEM : SMC_ERR_IO;
    size_t lead = text ? strspn(text, " \t\r\n") : 0;
    if (st == SMC_OK && text[lead] == '{') { /* PEP 691: {"projects": [{"name": ...}]} */
        cJSON *doc = cJSON_ParseWithLength(text, len);
        const cJSON *projects = cJSON_GetObjectItemCaseSensitive(doc, "projects");
        if (!cJSON_IsArray(projects)) {
            smc_say(why, n, "the index's project list %s is not PEP 691 JSON", url);
            st = SMC_ERR_IO;
        }
        for (const cJSON *p = st == SMC_OK ? projects->child : NULL; p && st == SMC_OK;
             p = p->next) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
            if (cJSON_IsString(name) && name->valuestring[0] &&
                !add_name(names, count, name->valuestring, strlen(name->valuestring)))
                st = SMC_ERR_NOMEM;
        }
        cJSON_Delete(doc);
    } else if (st == SMC_OK) { /* PEP 503: each project an <a>'s text */
        for (const char *a = text; st == SMC_OK && (a = strstr(a, "<a ")); a++) {
            const char *gt = strchr(a, '>'), *end = gt ? strstr(gt, "</a>") : NULL;
            if (!end) break;
            size_t nl = (size_t)(end - gt - 1);
            if (nl && nl < 256 && !memchr(gt + 1, '<', nl) && !add_name(names, count, gt + 1, nl))
                st = SMC_ERR_NOMEM;
        }
    }
    free(text);
    if (st != SMC_OK) {
        for (size_t i = 0; i < *count; i++)
            free((*names)[i]);
        free(*names);
        *names = NULL;
        *count = 0;
    }
    return st;
}

/* For the order of assignment: larger first, then sha256. */
static int by_size(const void *a, const void *b, void *ctx)
{
    const smc_audit_wheel *w = ctx;
    const smc_audit_wheel *x = &w[*(const size_t *)a], *y = &w[*(const size_t *)b];
    uint64_t sx = x->size ? x->size : 1u << 20, sy = y->size ? y->size : 1u << 20;
    if (sx != sy) return sx > sy ? -1 : 1;
    return strcmp(x->sha256, y->sha256);
}

void smc_audit_shards(const smc_audit_wheel *w, size_t n, unsigned shards, unsigned *shard_of)
{
    size_t *order = n ? malloc(n * sizeof *order) : NULL;
    uint64_t *load = shards ? calloc(shards, sizeof *load) : NULL;
    if (!order || !load) { /* out of memory: round-robin by position, still the same everywhere */
        for (size_t i = 0; i < n; i++)
            shard_of[i] = shards ? (unsigned)(i % shards) : 0;
        free(order);
        free(load);
        return;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, by_size, (void *)w);
    for (size_t k = 0; k < n; k++) {
        unsigned best = 0;
        for (unsigned s = 1; s < shards; s++)
            if (load[s] < load[best]) best = s;
        const smc_audit_wheel *x = &w[order[k]];
        load[best] += x->size ? x->size : 1u << 20;
        shard_of[order[k]] = best;
    }
    free(order);
    free(load);
}

/* mkdir -p of dir's components below an existing base. */
static bool make_dirs(const char *path)
{
    char *p = smc_strdup(path);
    if (!p) return false;
    bool ok = true;
    for (char *s = p + 1; ok && (s = strchr(s, '/')); s++) {
        *s = '\0';
        ok = mkdir(p, 0755) == 0 || errno == EEXIST;
        *s = '/';
    }
    ok = ok && (mkdir(p, 0755) == 0 || errno == EEXIST);
    free(p);
    return ok;
}

/* Removes a scratch tree (records and the directories of the cache's layout, no links). */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char *sub = smc_asprintf("%s/%s", path, e->d_name);
                struct stat sb;
                if (sub && lstat(sub, &sb) == 0) {
                    if (S_ISDIR(sb.st_mode))
                        remove_tree(sub);
                    else
                        unlink(sub);
                }
                free(sub);
            }
        closedir(d);
    }
    rmdir(path);
}

/* Whether file holds a record of sha256 that decodes. */
static bool have_record(const char *file, const char *sha256)
{
    char *text = NULL, err[256];
    size_t len = 0;
    if (smc_read_small_file(file, SMC_CACHE_MAX_BYTES, &text, &len, err, sizeof err) <= 0)
        return false;
    smc_input *in = smc_cache_decode(text, len, "x", "x", sha256, err, sizeof err);
    bool ok = in != NULL;
    free(text);
    smc_input_free(in);
    return ok;
}

smc_status smc_audit_facts(const smc_options *opt, const smc_audit_wheel *w, const char *dir,
                           bool *had, char *why, size_t n)
{
    *had = false;
    why[0] = '\0';
    char *dest_dir = smc_asprintf("%s/facts/%.2s", dir, w->sha256);
    char *dest = smc_asprintf("%s/facts/%.2s/%s.json", dir, w->sha256, w->sha256);
    char *work = smc_asprintf("%s/tmp/%ld-%s", dir, (long)getpid(), w->sha256);
    char *url = smc_asprintf("%s#sha256=%s", w->url, w->sha256);
    char *record =
        work ? smc_asprintf("%s/v%d/%.2s/%s.json", work, SMC_CACHE_FORMAT, w->sha256, w->sha256)
             : NULL;
    smc_status st = dest_dir && dest && work && url && record ? SMC_OK : SMC_ERR_NOMEM;
    if (st == SMC_OK && have_record(dest, w->sha256)) {
        *had = true;
        goto done;
    }
    if (st == SMC_OK && !make_dirs(work)) {
        smc_say(why, n, "%s: %s", work, strerror(errno));
        st = SMC_ERR_IO;
    }
    if (st == SMC_OK) {
        smc_options o = opt ? *opt : (smc_options){0};
        o.cache.dir = work;
        o.cache.cap = UINT64_MAX;
        o.cache.off = false;
        o.cache.facts_url = NULL;
        const char *paths[] = {url};
        smc_request q = {.paths = paths, .path_count = 1, .scan = o};
        smc_result *r = NULL;
        st = smc_check(&q, &r);
        const smc_input *in = st == SMC_OK && r->input_count ? r->inputs[0] : NULL;
        if (in && in->error_count) {
            smc_say(why, n, "%s", in->errors[0].message);
            st = SMC_ERR_IO;
        } else if (st == SMC_OK && (!make_dirs(dest_dir) || rename(record, dest) != 0)) {
            smc_say(why, n, "its facts were not kept (%s)", strerror(errno));
            st = SMC_ERR_IO;
        }
        smc_result_free(r);
    }
done:
    if (work) remove_tree(work);
    free(dest_dir);
    free(dest);
    free(work);
    free(url);
    free(record);
    return st;
}
