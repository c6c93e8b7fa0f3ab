/* meta.c: parsers of Python packaging metadata, over (text, length) with no I/O: METADATA's
 * headers, WHEEL's tags, RECORD's rows, installed-files.txt, a version.py's cuda string, and
 * conda-meta JSON. The text comes from archives and environments made by others: nothing is
 * assumed terminated, every line is bounded, and what cannot be read is left out, not guessed. */
#include "read.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>

/* Calls fn on each line of text (without its "\n" or "\r\n"); stops when fn says so. */
static smc_status each_line(const char *text, size_t len,
                            smc_status (*fn)(void *ctx, const char *line, size_t n, bool *stop),
                            void *ctx)
{
    bool stop = false;
    for (size_t i = 0; i < len && !stop;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - i;
        if (n && text[i + n - 1] == '\r') n--;
        smc_status st = fn(ctx, text + i, n, &stop);
        if (st != SMC_OK) return st;
        i = end + 1;
    }
    return SMC_OK;
}

/* Calls fn on each record of CSV text (RECORD's rows) as Python's csv module splits them: a line
 * break inside a quoted field (one that begins with a quote) belongs to the field. */
static smc_status each_record(const char *text, size_t len,
                              smc_status (*fn)(void *ctx, const char *line, size_t n, bool *stop),
                              void *ctx)
{
    bool stop = false, quoted = false, field_start = true;
    size_t start = 0;
    for (size_t i = 0; i < len && !stop; i++) {
        char c = text[i];
        if (quoted) { /* "" is a quote; a lone one ends the quoting */
            if (c == '"' && i + 1 < len && text[i + 1] == '"')
                i++;
            else if (c == '"')
                quoted = false;
            continue;
        }
        if (c == '"' && field_start) {
            quoted = true;
            field_start = false;
            continue;
        }
        field_start = c == ',' || c == '\n';
        if (c != '\n') continue;
        size_t n = i - start;
        if (n && text[start + n - 1] == '\r') n--;
        smc_status st = fn(ctx, text + start, n, &stop);
        if (st != SMC_OK) return st;
        start = i + 1;
    }
    if (start < len && !stop) { /* the last row, without its line break */
        size_t n = len - start;
        if (text[start + n - 1] == '\r') n--;
        return fn(ctx, text + start, n, &stop);
    }
    return SMC_OK;
}

/* "Key: value" with the key compared without case; the value trimmed. */
static bool header(const char *line, size_t n, const char *key, const char **value, size_t *vn)
{
    size_t k = strlen(key);
    if (n <= k || strncasecmp(line, key, k) != 0 || line[k] != ':') return false;
    const char *v = line + k + 1;
    size_t m = n - k - 1;
    while (m && (*v == ' ' || *v == '\t'))
        v++, m--;
    while (m && (v[m - 1] == ' ' || v[m - 1] == '\t'))
        m--;
    *value = v;
    *vn = m;
    return true;
}

static smc_status metadata_line(void *ctx, const char *line, size_t n, bool *stop)
{
    smc_metadata *md = ctx;
    const char *v;
    size_t vn;
    if (n == 0) { /* the headers end at the first empty line; the description follows */
        *stop = true;
        return SMC_OK;
    }
    char **field = NULL;
    if (header(line, n, "Name", &v, &vn) && !md->name)
        field = &md->name;
    else if (header(line, n, "Version", &v, &vn) && !md->version)
        field = &md->version;
    else if (header(line, n, "Requires-Dist", &v, &vn)) {
        char **slot = smc_push(&md->requires, md->requires_count, sizeof *slot);
        if (!slot || !(*slot = strndup(v, vn))) return SMC_ERR_NOMEM;
        md->requires_count++;
        return SMC_OK;
    }
    if (field && !(*field = strndup(v, vn))) return SMC_ERR_NOMEM;
    return SMC_OK;
}

smc_status smc_metadata_parse(const char *text, size_t len, smc_metadata *out)
{
    *out = (smc_metadata){0};
    smc_status st = each_line(text, len, metadata_line, out);
    if (st != SMC_OK) smc_metadata_free(out);
    return st;
}

void smc_metadata_free(smc_metadata *md)
{
    for (size_t i = 0; i < md->requires_count; i++)
        free(md->requires[i]);
    free(md->requires);
    free(md->name);
    free(md->version);
    *md = (smc_metadata){0};
}

typedef struct tags {
    char *joined;
    size_t len, cap;
} tags;

static smc_status tag_line(void *ctx, const char *line, size_t n, bool *stop)
{
    (void)stop;
    tags *t = ctx;
    const char *v;
    size_t vn;
    if (!header(line, n, "Tag", &v, &vn) || vn == 0 || vn > 256) return SMC_OK;
    if (t->len + vn + 3 > t->cap) { /* doubling: one realloc a line would be quadratic */
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + vn + 3)
            cap *= 2;
        char *grown = realloc(t->joined, cap);
        if (!grown) return SMC_ERR_NOMEM;
        t->joined = grown;
        t->cap = cap;
    }
    if (t->len) {
        memcpy(t->joined + t->len, ", ", 2);
        t->len += 2;
    }
    memcpy(t->joined + t->len, v, vn);
    t->len += vn;
    t->joined[t->len] = '\0';
    return SMC_OK;
}

smc_status smc_wheel_tags(const char *text, size_t len, char **joined, char **platform)
{
    tags t = {NULL, 0, 0};
    *joined = *platform = NULL;
    smc_status st = each_line(text, len, tag_line, &t);
    if (st != SMC_OK || !t.joined) {
        free(t.joined);
        return st;
    }
    /* python-abi-platform: the platform is what follows the second dash of the first tag. */
    const char *first_end = strstr(t.joined, ", ");
    size_t flen = first_end ? (size_t)(first_end - t.joined) : t.len;
    const char *d1 = memchr(t.joined, '-', flen);
    const char *d2 = d1 ? memchr(d1 + 1, '-', flen - (size_t)(d1 + 1 - t.joined)) : NULL;
    if (d2 && !(*platform = strndup(d2 + 1, flen - (size_t)(d2 + 1 - t.joined)))) {
        free(t.joined);
        return SMC_ERR_NOMEM;
    }
    *joined = t.joined;
    return SMC_OK;
}

/* RECORD is CSV: path,hash,size; a path with a comma or a quote is quoted ("" for a quote). */
typedef struct row_list {
    smc_record_row *rows;
    size_t n;
} row_list;

static smc_status record_line(void *ctx, const char *line, size_t n, bool *stop)
{
    (void)stop;
    row_list *r = ctx;
    if (n == 0) return SMC_OK;
    if (r->n >= SMC_ROWS_MAX) return SMC_ERR_LIMIT;
    char *path = malloc(n + 1);
    if (!path) return SMC_ERR_NOMEM;
    size_t i = 0, k = 0;
    if (line[0] == '"') {
        for (i = 1; i < n; i++) {
            if (line[i] == '"' && i + 1 < n && line[i + 1] == '"') {
                path[k++] = '"';
                i++;
            } else if (line[i] == '"') {
                i++;
                break;
            } else {
                path[k++] = line[i];
            }
        }
    } else {
        while (i < n && line[i] != ',')
            path[k++] = line[i++];
    }
    path[k] = '\0';
    /* The size is the last field, after the hash. */
    int64_t size = -1;
    const char *last = memrchr(line + i, ',', n - i);
    if (last && (size_t)(last - line) + 1 < n) {
        int64_t v = 0;
        size_t j = (size_t)(last - line) + 1;
        for (; j < n && isdigit((unsigned char)line[j]) && v < INT64_MAX / 10; j++)
            v = v * 10 + (line[j] - '0');
        if (j == n) size = v;
    }
    smc_record_row *row = smc_push(&r->rows, r->n, sizeof *row);
    if (!row) {
        free(path);
        return SMC_ERR_NOMEM;
    }
    *row = (smc_record_row){path, size};
    r->n++;
    return SMC_OK;
}

static smc_status plain_line(void *ctx, const char *line, size_t n, bool *stop)
{
    (void)stop;
    row_list *r = ctx;
    if (n == 0) return SMC_OK;
    if (r->n >= SMC_ROWS_MAX) return SMC_ERR_LIMIT;
    smc_record_row *row = smc_push(&r->rows, r->n, sizeof *row);
    if (!row || !(row->path = strndup(line, n))) return SMC_ERR_NOMEM;
    row->size = -1;
    r->n++;
    return SMC_OK;
}

typedef smc_status (*line_fn)(void *, const char *, size_t, bool *);

static smc_status collect(const char *text, size_t len,
                          smc_status (*each)(const char *, size_t, line_fn, void *), line_fn fn,
                          smc_record_row **out, size_t *n)
{
    row_list r = {NULL, 0};
    smc_status st = each(text, len, fn, &r);
    if (st != SMC_OK && st != SMC_ERR_LIMIT) { /* at the limit, the rows so far stay */
        smc_record_free(r.rows, r.n);
        r = (row_list){NULL, 0};
    }
    *out = r.rows;
    *n = r.n;
    return st;
}

smc_status smc_record_parse(const char *text, size_t len, smc_record_row **out, size_t *n)
{
    return collect(text, len, each_record, record_line, out, n);
}

smc_status smc_installed_files_parse(const char *text, size_t len, smc_record_row **out, size_t *n)
{
    return collect(text, len, each_line, plain_line, out, n);
}

void smc_record_free(smc_record_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(rows[i].path);
    free(rows);
}

/* A quoted version after "cuda" in a version.py: cuda = '12.8' or cuda: Optional[str] = "12.8";
 * *none (when not NULL) says whether it assigns None instead (a CPU-only build). */
char *smc_version_py_cuda(const char *text, size_t len, bool *none)
{
    if (none) *none = false;
    /* One pass: a "cuda" word marks the line until its next '='; then the quoted version that
     * follows that '=' ("cuda = '12.8'", "cuda: Optional[str] = '12.8'"). Linear in the text,
     * however many "cuda" words it holds. */
    bool marked = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\n') {
            marked = false;
        } else if (c == '=' && marked) {
            marked = false;
            size_t j = i + 1;
            while (j < len && (text[j] == ' ' || text[j] == '\t'))
                j++;
            if (none && len - j >= 4 && memcmp(text + j, "None", 4) == 0 &&
                (len - j == 4 || !(isalnum((unsigned char)text[j + 4]) || text[j + 4] == '_')))
                *none = true;
            if (j >= len || (text[j] != '\'' && text[j] != '"')) continue;
            char q = text[j++];
            size_t k = j;
            while (k < len && k - j < 16 && (isdigit((unsigned char)text[k]) || text[k] == '.'))
                k++;
            if (k < len && text[k] == q && k > j) return strndup(text + j, k - j);
        } else if (c == 'c' && len - i >= 4 && memcmp(text + i, "cuda", 4) == 0 &&
                   !(i && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_')) &&
                   !(i + 4 < len && (isalnum((unsigned char)text[i + 4]) || text[i + 4] == '_'))) {
            marked = true;
            i += 3;
        }
    }
    return NULL;
}

/* One clause of an environment marker, `name op "value"`, on platform (NULL: not known): whether
 * it can hold. Extras are asked for, not installed by default: never. What the platform does not
 * decide (python_version, ...) can. */
static bool clause_may_hold(const char *c, size_t n, const char *platform)
{
    while (n && (*c == ' ' || *c == '(')) c++, n--;
    while (n && (c[n - 1] == ' ' || c[n - 1] == ')')) n--;
    static const struct {
        const char *name, *values[4]; /* on linux-x86_64, linux-aarch64, windows-amd64, -arm64 */
    } vars[] = {
        {"platform_machine", {"x86_64", "aarch64", "AMD64", "ARM64"}},
        {"platform_system", {"Linux", "Linux", "Windows", "Windows"}},
        {"sys_platform", {"linux", "linux", "win32", "win32"}},
    };
    bool eq = memmem(c, n, "==", 2) != NULL, ne = memmem(c, n, "!=", 2) != NULL;
    if (n >= 5 && memcmp(c, "extra", 5) == 0 && eq) return false;
    int p = !platform                                ? -1
            : strcmp(platform, "linux-x86_64") == 0  ? 0
            : strcmp(platform, "linux-aarch64") == 0 ? 1
            : strcmp(platform, "windows-arm64") == 0 ? 3
                                                     : 2;
    const char *q = memchr(c, '"', n);
    if (!q) q = memchr(c, '\'', n);
    if (p < 0 || !q || !(eq || ne)) return true;
    size_t vlen = n - (size_t)(q + 1 - c);
    const char *end = memchr(q + 1, *q, vlen);
    if (!end) return true;
    vlen = (size_t)(end - q - 1);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        size_t k = strlen(vars[i].name);
        if (n < k || memcmp(c, vars[i].name, k) != 0) continue;
        const char *here = vars[i].values[p];
        bool same = strlen(here) == vlen && strncasecmp(here, q + 1, vlen) == 0;
        return eq ? same : !same;
    }
    return true;
}

/* Whether a Requires-Dist line's environment marker (after ';') can hold on platform: "or" of
 * "and"s of clauses (parentheses are dropped, which is exact for the forms wheels use). */
static bool marker_may_hold(const char *r, const char *platform)
{
    const char *m = strchr(r, ';');
    if (!m) return true;
    m++;
    for (;;) { /* each alternative */
        const char *or = strstr(m, " or ");
        size_t alen = or ? (size_t)(or - m) : strlen(m);
        bool holds = true;
        for (const char *a = m; holds && a < m + alen;) { /* each clause */
            const char *and = memmem(a, (size_t)(m + alen - a), " and ", 5);
            size_t clen = and ? (size_t)(and - a) : (size_t)(m + alen - a);
            holds = clause_may_hold(a, clen, platform);
            a += clen + (and ? 5 : 0);
        }
        if (holds) return true;
        if (!or) return false;
        m = or + 4;
    }
}

bool smc_version_py_cpu(const char *text, size_t len)
{
    static const char key[] = "__version__";
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *k = memmem(p, (size_t)(end - p), key, sizeof key - 1);
        if (!k) return false;
        p = k + sizeof key - 1;
        while (p < end && (*p == ' ' || *p == '\t' || *p == ':' || isalnum((unsigned char)*p) ||
                           *p == '[' || *p == ']'))
            p++; /* an annotation: __version__: str = ... */
        if (p >= end || *p != '=') continue;
        p++;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end || (*p != '\'' && *p != '"')) continue;
        char q = *p++;
        const char *close = memchr(p, q, (size_t)(end - p));
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!close || (nl && nl < close)) continue;
        if (close - p >= 4 && memcmp(close - 4, "+cpu", 4) == 0) return true;
        p = close + 1;
    }
    return false;
}

bool smc_version_py_owned(const char *member, const char *name)
{
    const char *slash = member && name ? strchr(member, '/') : NULL;
    if (!slash || slash == member || strcmp(slash, "/version.py") != 0) return false;
    size_t n = (size_t)(slash - member);
    if (strlen(name) != n) return false;
    for (size_t i = 0; i < n; i++) {
        char a = member[i], b = name[i];
        if (b == '-' || b == '.') b = '_';
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
        if (a != b) return false;
    }
    return true;
}

smc_status smc_version_py_apply(smc_distribution *d, const char *member, const char *text,
                                size_t len, bool *found)
{
    bool none = false, cpu = smc_version_py_cpu(text, len);
    char *cuda = smc_version_py_cuda(text, len, &none);
    *found = cuda != NULL;
    if ((none || cpu) && !d->cpu_build &&
        !(d->cpu_build = smc_asprintf(none ? "%s: cuda = None" : "%s: __version__ is +cpu", member))) {
        free(cuda);
        return SMC_ERR_NOMEM;
    }
    /* "No CUDA" in its own words beats a CUDA runtime its dependencies name (an installed
     * aarch64 torch 2.5.1 keeps the x86_64-only Requires-Dist line, whose marker nobody read). */
    if (none && d->cuda_source && strncmp(d->cuda_source, "Requires-Dist", 13) == 0) {
        free(d->cuda);
        free(d->cuda_source);
        d->cuda = d->cuda_source = NULL;
    }
    if (!cuda) return SMC_OK;
    free(d->cuda);
    free(d->cuda_source);
    d->cuda = cuda;
    return (d->cuda_source = smc_strdup(member)) ? SMC_OK : SMC_ERR_NOMEM;
}

smc_status smc_local_version(smc_distribution *d)
{
    const char *plus = d->version ? strchr(d->version, '+') : NULL;
    if (!plus) return SMC_OK;
    if (!(d->local_version = smc_strdup(plus + 1))) return SMC_ERR_NOMEM;
    if (strcmp(plus, "+cpu") == 0 && !(d->cpu_build = smc_asprintf("version %s", d->version)))
        return SMC_ERR_NOMEM;
    return SMC_OK;
}

/* Requires-Dist: nvidia-cuda-runtime-cu12==12.8.57 (CUDA 12 wheels) or nvidia-cuda-runtime==13.0.48
 * (CUDA 13) whose marker can hold on platform (NULL: not known): the CUDA version, "12.8" or
 * "13.0", or just the major from the name. */
char *smc_requires_cuda(char *const *requires, size_t n, const char *platform, const char **which)
{
    static const char name[] = "nvidia-cuda-runtime";
    for (size_t i = 0; i < n; i++) {
        const char *r = requires[i];
        if (strncasecmp(r, name, sizeof name - 1) != 0 || !marker_may_hold(r, platform)) continue;
        const char *rest = r + sizeof name - 1;
        unsigned major = 0;
        if (rest[0] == '-' && (rest[1] == 'c' || rest[1] == 'C') &&
            (rest[2] == 'u' || rest[2] == 'U'))
            major = (unsigned)strtoul(rest + 3, NULL, 10);
        const char *eq = strstr(rest, "==");
        unsigned a = 0, b = 0;
        *which = r;
        if (eq && sscanf(eq + 2, "%u.%u", &a, &b) == 2 && (!major || a == major))
            return smc_asprintf("%u.%u", a, b);
        if (major) return smc_asprintf("%u", major);
    }
    return NULL;
}

/* JSON documents by their members --------------------------------------------------------------
 * A metadata file of megabytes as one cJSON tree takes some thirty times its size (a node and a
 * string for every "a" of a files list): the top-level object is split here into its members,
 * only the members asked for are parsed, and an array among them element by element, so that
 * memory holds one element's tree at a time. cJSON parses every value; the splitter only finds
 * where values end (strings with their escapes, brackets nested to any depth). */

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* The end of the value that starts at i (one past it); 0 when it does not end. */
static size_t value_end(const char *t, size_t len, size_t i)
{
    size_t depth = 0;
    for (; i < len; i++) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < len && t[i] != '"'; i++)
                if (t[i] == '\\') i++;
            if (i >= len) return 0;
            if (depth == 0) return i + 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) return i; /* a scalar ends at its container's end */
            if (--depth == 0) return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            return i;
        }
    }
    return depth == 0 ? len : 0;
}

smc_status smc_json_members(const char *text, size_t len, const char *const *keys, bool by_element,
                            smc_json_fn fn, void *ctx)
{
    size_t i = skip_ws(text, len, 0);
    if (i >= len || text[i] != '{') return SMC_ERR_FORMAT;
    i = skip_ws(text, len, i + 1);
    if (i < len && text[i] == '}') return SMC_OK;
    for (;;) {
        size_t kend = i < len && text[i] == '"' ? value_end(text, len, i) : 0;
        if (!kend) return SMC_ERR_FORMAT;
        size_t vs = skip_ws(text, len, kend);
        if (vs >= len || text[vs] != ':') return SMC_ERR_FORMAT;
        vs = skip_ws(text, len, vs + 1);
        size_t ve = value_end(text, len, vs);
        if (!ve || ve == vs) return SMC_ERR_FORMAT;
        int which = -1; /* keys are compared as written (an escaped key matches none) */
        for (int k = 0; keys[k] && which < 0; k++)
            if (kend - i - 2 == strlen(keys[k]) && memcmp(text + i + 1, keys[k], kend - i - 2) == 0)
                which = k;
        smc_status st = SMC_OK;
        if (which >= 0 && by_element && text[vs] == '[') {
            size_t e = skip_ws(text, len, vs + 1);
            for (size_t index = 0; st == SMC_OK && e < ve - 1; index++) {
                size_t ee = value_end(text, ve - 1, e);
                if (!ee || ee == e) return SMC_ERR_FORMAT;
                cJSON *one = cJSON_ParseWithLength(text + e, ee - e);
                if (!one) return SMC_ERR_FORMAT;
                st = fn(ctx, which, one, index);
                cJSON_Delete(one);
                e = skip_ws(text, ve - 1, ee);
                if (e < ve - 1 && text[e] != ',') return SMC_ERR_FORMAT;
                e = skip_ws(text, ve - 1, e + 1);
            }
        } else if (which >= 0) {
            cJSON *value = cJSON_ParseWithLength(text + vs, ve - vs);
            if (!value) return SMC_ERR_FORMAT;
            st = fn(ctx, which, value, SIZE_MAX);
            cJSON_Delete(value);
        }
        if (st != SMC_OK) return st;
        i = skip_ws(text, len, ve);
        if (i < len && text[i] == '}') return SMC_OK;
        if (i >= len || text[i] != ',') return SMC_ERR_FORMAT;
        i = skip_ws(text, len, i + 1);
    }
}

typedef struct conda_meta {
    char **name, **version;
    smc_record_row **files;
    size_t *n;
    bool over; /* more than SMC_ROWS_MAX files */
} conda_meta;

static smc_status conda_meta_member(void *ctx, int key, const cJSON *v, size_t index)
{
    conda_meta *m = ctx;
    (void)index;
    if (key < 2) { /* name, version: the first of each */
        char **slot = key == 0 ? m->name : m->version;
        if (!cJSON_IsString(v) || *slot) return SMC_OK;
        return (*slot = smc_strdup(v->valuestring)) ? SMC_OK : SMC_ERR_NOMEM;
    }
    if (!cJSON_IsString(v) || index == SIZE_MAX) return SMC_OK; /* files: strings */
    if (*m->n >= SMC_ROWS_MAX) {
        m->over = true; /* the name may follow */
        return SMC_OK;
    }
    smc_record_row *row = smc_push(m->files, *m->n, sizeof *row);
    if (!row || !(row->path = smc_strdup(v->valuestring))) return SMC_ERR_NOMEM;
    row->size = -1;
    (*m->n)++;
    return SMC_OK;
}

smc_status smc_conda_meta_parse(const char *text, size_t len, char **name, char **version,
                                smc_record_row **files, size_t *n)
{
    *name = *version = NULL;
    *files = NULL;
    *n = 0;
    static const char *const keys[] = {"name", "version", "files", NULL};
    conda_meta m = {name, version, files, n, false};
    smc_status st = smc_json_members(text, len, keys, true, conda_meta_member, &m);
    if (st == SMC_OK && (!*name || !*version)) st = SMC_ERR_FORMAT;
    if (st == SMC_OK && m.over) return SMC_ERR_LIMIT; /* the rows so far stay */
    if (st != SMC_OK) {
        free(*name);
        free(*version);
        smc_record_free(*files, *n);
        *name = *version = NULL;
        *files = NULL;
        *n = 0;
    }
    return st;
}

/* Appends "ns :: feature :: value" for each string value of one variant's properties. */
static smc_status variant_claims(const cJSON *props, smc_distribution *d, const char **why)
{
    const cJSON *ns, *feature, *value;
    cJSON_ArrayForEach(ns, props)
    {
        if (!cJSON_IsObject(ns)) return *why = "a namespace is not an object", SMC_ERR_FORMAT;
        cJSON_ArrayForEach(feature, ns)
        {
            if (!cJSON_IsArray(feature))
                return *why = "a feature's values are not a list", SMC_ERR_FORMAT;
            cJSON_ArrayForEach(value, feature)
            {
                if (!cJSON_IsString(value))
                    return *why = "a feature's value is not a string", SMC_ERR_FORMAT;
                if (d->variant_claim_count >= 256) return *why = "more than 256 claims", SMC_ERR_FORMAT;
                char **slot = smc_push(&d->variant_claims, d->variant_claim_count, sizeof *slot);
                if (!slot ||
                    !(*slot = smc_asprintf("%s :: %s :: %s", ns->string, feature->string,
                                           value->valuestring)))
                    return SMC_ERR_NOMEM;
                smc_sanitize(*slot);
                d->variant_claim_count++;
            }
        }
    }
    return SMC_OK;
}

smc_status smc_variant_json_parse(const char *text, size_t len, const char *label,
                                  smc_distribution *d, const char **why)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *variants = root ? cJSON_GetObjectItemCaseSensitive(root, "variants") : NULL;
    smc_status st = SMC_OK;
    if (!cJSON_IsObject(variants)) {
        *why = root ? "no \"variants\" object" : "not JSON";
        st = SMC_ERR_FORMAT;
    }
    const cJSON *mine = NULL;
    if (st == SMC_OK) {
        mine = label ? cJSON_GetObjectItemCaseSensitive(variants, label) : NULL;
        if (!mine && cJSON_GetArraySize(variants) == 1) mine = variants->child;
        if (!mine) {
            *why = "no variant of the wheel's label, and not exactly one";
            st = SMC_ERR_FORMAT;
        } else if (!cJSON_IsObject(mine)) {
            *why = "a variant is not an object";
            st = SMC_ERR_FORMAT;
        }
    }
    if (st == SMC_OK && !(d->variant_label = smc_strdup_clean(mine->string))) st = SMC_ERR_NOMEM;
    if (st == SMC_OK) st = variant_claims(mine, d, why);
    cJSON_Delete(root);
    return st;
}
