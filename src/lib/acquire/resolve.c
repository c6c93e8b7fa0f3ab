/* resolve.c: a requirement pinned to one version (torch==2.8.0) turned into the wheel pip would
 * install, through package indexes: each index's project page asked for as PEP 691 JSON and
 * taken as PEP 503 HTML where that is what comes; the files of all indexes pooled and chosen
 * among as pip does (smc_index_choose). Pages are capped; a 404 is an index without the
 * project, any other failure an error that names the index. */
#include "acquire.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/utsname.h>

#define PAGE_MAX (256u << 20) /* torch's JSON page is 0.4 MB, numpy's 1.9 MB */
#define DEFAULT_INDEX "https://pypi.org/simple/"
#define ACCEPT "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"

/* The parts of a requirement: [name) [extras) [spec), or false. */
static bool requirement_parts(const char *s, size_t *name_end, size_t *extras_end,
                              const char **spec)
{
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '.' || s[n] == '_' || s[n] == '-')
        n++;
    if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1])) return false;
    *name_end = n;
    if (s[n] == '[') {
        const char *close = strchr(s + n, ']');
        if (!close || close - s > 200 || memchr(s + n, '/', (size_t)(close - s) - n)) return false;
        n = (size_t)(close - s) + 1;
    }
    *extras_end = n;
    while (s[n] == ' ')
        n++;
    *spec = s + n;
    if (!s[n]) return !memchr(s, '.', *name_end); /* a bare name: not a file's */
    char buf[160];
    bool exact, pre;
    return !strchr(s + n, '/') && strchr("=<>!~", s[n]) &&
           smc_pep440_spec(s + n, buf, sizeof buf, &exact, &pre);
}

bool smc_requirement_is(const char *s)
{
    size_t a, b;
    const char *spec;
    return requirement_parts(s, &a, &b, &spec);
}

bool smc_requirement_split(const char *s, char *name, size_t nn, char *extras, size_t en,
                           char *spec, size_t sn)
{
    size_t a, b;
    const char *v;
    if (!requirement_parts(s, &a, &b, &v)) return false;
    snprintf(name, nn, "%.*s", (int)a, s);
    snprintf(extras, en, "%.*s", (int)(b - a), s + a);
    snprintf(spec, sn, "%s", v);
    return true;
}

/* Appends the words of an environment variable (index URLs separated by blanks; uv's "name=url"
 * entries by their url). */
static bool env_urls(const char *var, char ***list, size_t *n)
{
    const char *v = getenv(var);
    for (const char *p = v; p && *p;) {
        p += strspn(p, " \t\n");
        size_t k = strcspn(p, " \t\n");
        if (!k) break;
        const char *eq = memchr(p, '=', k), *u = p;
        if (eq && !smc_url_is(p)) u = eq + 1;
        char *s = smc_asprintf("%.*s", (int)(k - (size_t)(u - p)), u);
        char **slot = s ? smc_push(list, *n, sizeof *slot) : NULL;
        if (!slot) {
            free(s);
            return false;
        }
        *slot = s;
        (*n)++;
        p += k;
    }
    return true;
}

static bool add_url(smc_indexes *ix, const char *u)
{
    char *s = smc_strdup(u);
    char **slot = s ? smc_push(&ix->urls, ix->count, sizeof *slot) : NULL;
    if (!slot) {
        free(s);
        return false;
    }
    *slot = s;
    ix->count++;
    return true;
}

bool smc_indexes_init(smc_indexes *ix, const char *index_url, const char *const *extras,
                      size_t n_extras)
{
    *ix = (smc_indexes){0};
    /* The environment's settings are the options' defaults, as pip's and uv's are. */
    const char *def = index_url;
    if (!def || !*def) def = getenv("PIP_INDEX_URL");
    if (!def || !*def) def = getenv("UV_INDEX_URL");
    if (!def || !*def) def = getenv("UV_DEFAULT_INDEX");
    bool ok = add_url(ix, def && *def ? def : DEFAULT_INDEX);
    for (size_t i = 0; ok && i < n_extras; i++)
        ok = add_url(ix, extras[i]);
    if (ok && n_extras == 0)
        ok = env_urls("PIP_EXTRA_INDEX_URL", &ix->urls, &ix->count) &&
             env_urls("UV_EXTRA_INDEX_URL", &ix->urls, &ix->count) &&
             env_urls("UV_INDEX", &ix->urls, &ix->count);
    if (!ok) smc_indexes_free(ix);
    return ok;
}

void smc_indexes_free(smc_indexes *ix)
{
    for (size_t i = 0; i < ix->count; i++)
        free(ix->urls[i]);
    free(ix->urls);
    *ix = (smc_indexes){0};
}

const char *smc_host_platform(void)
{
    struct utsname u;
    if (uname(&u) == 0 && (strcmp(u.machine, "aarch64") == 0 || strcmp(u.machine, "arm64") == 0))
        return "linux-aarch64";
    return "linux-x86_64";
}

/* A page's pieces, as they come, into its reader. */
static bool page_sink(void *ctx, const char *type, const char *final_url, const char *p, size_t n)
{
    return smc_index_stream_feed(ctx, type, final_url, p, n);
}

/* Adds the files of one index's page for a project (of version only, when not NULL) to files
 * (growing *n). False with why on a failure other than "not there". The page is read as it
 * comes, never held whole. */
static bool read_page(const smc_net *net, smc_fetch *f, const char *index, const char *project,
                      const char *version, smc_index_file **files, size_t *n,
                      size_t *dropped_all, char *why, size_t wn)
{
    size_t il = strlen(index);
    char *url = smc_asprintf("%s%s%s/", index, il && index[il - 1] == '/' ? "" : "/", project);
    smc_index_stream *page = url ? smc_index_stream_new(project, version) : NULL;
    if (!page) {
        free(url);
        return false;
    }
    char err[256];
    bool ok = smc_http_stream(net, f, url, ACCEPT, PAGE_MAX, page_sink, page, err, sizeof err);
    char *shown = smc_redact(smc_strdup(url)); /* whole, before the message is cut */
    if (!ok && err[0]) { /* the transfer's failure; else the page's, said below */
        bool absent = strcmp(err, "HTTP 404") == 0 || strcmp(err, "HTTP 410") == 0;
        if (!absent) snprintf(why, wn, "the index %s: %s", shown ? shown : "page", err);
        smc_index_stream_free(page);
        free(url);
        free(shown);
        return absent;
    }
    smc_index_file *got = NULL;
    size_t k = 0, dropped = 0;
    ok = smc_index_stream_end(page, &got, &k, &dropped, err, sizeof err);
    *dropped_all += dropped;
    if (!ok) snprintf(why, wn, "the index page %s: %s", shown ? shown : "", err);
    for (size_t i = 0; ok && i < k; i++) {
        smc_index_file *slot = smc_push(files, *n, sizeof *slot);
        if (!slot) {
            ok = false;
            break;
        }
        *slot = got[i];
        got[i] = (smc_index_file){0};
        (*n)++;
    }
    smc_index_files_free(got, k); /* what was not moved, and the array */
    smc_index_stream_free(page);
    free(url);
    free(shown);
    return ok;
}

bool smc_index_project(const smc_net *net, smc_fetch *f, const char *index, const char *project,
                       smc_index_file **files, size_t *n, char *why, size_t wn)
{
    *files = NULL;
    *n = 0;
    why[0] = '\0';
    size_t dropped = 0;
    bool ok = read_page(net, f, index && *index ? index : DEFAULT_INDEX, project, NULL, files, n,
                        &dropped, why, wn);
    if (!ok && !why[0]) snprintf(why, wn, "out of memory");
    if (!ok) {
        smc_index_files_free(*files, *n);
        *files = NULL;
        *n = 0;
    }
    return ok;
}

bool smc_resolve_pin(const smc_net *net, smc_fetch *f, const smc_indexes *ix, const smc_pyenv *e,
                     const char *name, const char *version, const char *const *hashes,
                     size_t n_hashes, char **url, char sha256[65], char *chose, size_t cn,
                     char *why, size_t wn)
{
    *url = NULL;
    sha256[0] = '\0';
    why[0] = '\0';
    if (cn) chose[0] = '\0';
    char project[128], spec[160];
    smc_pyname_normalize(name, project, sizeof project);
    bool exact, pre;
    if (!smc_pep440_spec(version, spec, sizeof spec, &exact, &pre)) {
        snprintf(why, wn, "%.100s: '%.100s' is not a version or a specifier set", name, version);
        return false;
    }
    smc_index_file *files = NULL;
    size_t n = 0, dropped = 0;
    bool ok = true;
    /* A pin keeps its version's files alone; a range, or a pin to a version the indexes do not
     * have (then for the message), every version's. */
    for (int pass = 0; pass < 2 && ok && n == 0 && (pass == 0 || (exact && !dropped)); pass++)
        for (size_t i = 0; ok && i < ix->count; i++)
            ok = read_page(net, f, ix->urls[i], project, pass == 0 && exact ? spec : "", &files, &n,
                           &dropped, why, wn);
    if (ok && n == 0 && dropped) {
        snprintf(why, wn, "the index's page of %s has no link to take (%zu dropped: not http(s), "
                 "over 8 KiB, or no file name)", project, dropped);
        ok = false;
    } else if (ok && n == 0) {
        char *first = ix->count ? smc_redact(smc_strdup(ix->urls[0])) : NULL;
        snprintf(why, wn, "no index has %s (%s%s)", project, first ? first : "no index",
                 ix->count > 1 ? " and the others" : "");
        free(first);
        ok = false;
    }
    long k = ok ? smc_index_choose(files, n, project, spec, e, hashes, n_hashes, why, wn) : -1;
    if (k >= 0) {
        *url = smc_strdup(files[k].url);
        snprintf(sha256, 65, "%s", files[k].sha256);
        ok = *url != NULL;
        if (!ok) snprintf(why, wn, "out of memory");
        smc_wheel_name w;
        const char *t = e->tags[0], *d1 = strchr(t, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
        if (ok && !exact && cn && smc_wheel_name_parse(files[k].filename, &w))
            snprintf(chose, cn, "%s, the newest with a wheel for %.*s %s", w.version,
                     d1 ? (int)(d1 - t) : 0, t, d2 ? d2 + 1 : "");
    } else {
        ok = false;
    }
    if (!ok && !why[0]) snprintf(why, wn, "out of memory");
    smc_index_files_free(files, n);
    return ok;
}

/* The length of a URL's scheme, "://" and authority ("https://host:port"); 0 when it has none. */
static size_t origin_len(const char *u)
{
    const char *p = strstr(u, "://");
    return p ? (size_t)(p + 3 - u) + strcspn(p + 3, "/?#") : 0;
}

/* Whether the index at index serves the file at url: the same scheme, host and port, or PyPI's
 * files host for PyPI. */
static bool serves(const char *index, const char *url)
{
    size_t a = origin_len(index);
    if (a && a == origin_len(url) && strncasecmp(index, url, a) == 0) return true;
    return strncasecmp(index, "https://pypi.org/", 17) == 0 &&
           strncasecmp(url, "https://files.pythonhosted.org/", 31) == 0;
}

bool smc_resolve_url_sha256(const smc_net *net, const smc_indexes *ix, const char *url,
                            char sha256[65])
{
    sha256[0] = '\0';
    size_t ul = strcspn(url, "#");
    char *bare = smc_asprintf("%.*s", (int)ul, url), *file = NULL;
    bool bad;
    smc_wheel_name wn;
    bool wheel = bare && (file = smc_url_filename(bare, &bad)) && smc_ends_with(file, ".whl") &&
                 smc_wheel_name_parse(file, &wn);
    for (size_t i = 0; wheel && !sha256[0] && i < ix->count; i++) {
        if (!serves(ix->urls[i], bare)) continue;
        smc_index_file *files = NULL;
        size_t n = 0, dropped = 0;
        char why[512];
        if (read_page(net, NULL, ix->urls[i], wn.name, wn.version, &files, &n, &dropped, why,
                      sizeof why))
            for (size_t k = 0; k < n && !sha256[0]; k++)
                if (strcmp(files[k].url, bare) == 0) memcpy(sha256, files[k].sha256, 65);
        smc_index_files_free(files, n);
    }
    free(file);
    free(bare);
    return sha256[0] != '\0';
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool smc_resolve_choice_key(const smc_indexes *ix, const smc_pyenv *e, const char *name,
                            const char *version, const char *const *hashes, size_t n_hashes,
                            char key[65])
{
    key[0] = '\0';
    if (!n_hashes) return false;
    const char **sorted = malloc(n_hashes * sizeof *sorted);
    if (!sorted) return false;
    memcpy(sorted, hashes, n_hashes * sizeof *sorted);
    qsort(sorted, n_hashes, sizeof *sorted, by_text);
    char project[128];
    smc_pyname_normalize(name, project, sizeof project);
    /* One line a fact, each named, so that no two lists of facts write the same text. */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    bool ok = m != NULL;
    if (ok) {
        fprintf(m, "smcheck-choice\nproject %s\nversion %s\npython %s\n", project, version,
                e->python_full_version);
        for (size_t i = 0; i < ix->count; i++)
            fprintf(m, "index %s\n", ix->urls[i]);
        for (size_t i = 0; i < e->tag_count; i++)
            fprintf(m, "tag %s\n", e->tags[i]);
        for (size_t i = 0; i < n_hashes; i++)
            fprintf(m, "hash %s\n", sorted[i]);
        ok = !ferror(m);
        ok = fclose(m) == 0 && ok;
    }
    free(sorted);
    ok = ok && text && smc_sha256_hex(text, len, key);
    free(text);
    return ok;
}
