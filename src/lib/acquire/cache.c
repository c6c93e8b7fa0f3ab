/* cache.c: the facts read from a file, kept by its sha256 (acquire.h): a writer of the model as a
 * JSON record, a reader that trusts nothing in the text it is given, and the directory that holds
 * the records (atomic stores, least-recently-used trimming, merging the caches of parallel jobs).
 * It trusts its callers' models; records, and every file under a cache directory, are untrusted. */
#include "acquire.h"
#include "../base/base.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Caps on what a record may hold, far above any real wheel's (the largest real library, cuFFT 12,
 * has 23,984 containers and as many images): they keep what a hostile record can make the reader
 * allocate in proportion to its text. Findings, errors and notes are capped by the model itself (SMC_*_KEPT). */
#define MAX_LIBRARIES 1000000u
#define MAX_CONTAINERS 10000000u
#define MAX_IMAGES 10000000u
#define MAX_LIST 1000000u /* distributions, runtime files, links, a distribution's libraries */
#define MAX_SMALL 65536u  /* DT_NEEDED names, variant claims */
#define MAX_PIECES 4096u  /* pieces of one string around the prefix */
#define EXACT_MAX 9007199254740992ull /* 2^53: larger integers are written as strings */

static const char *const image_fields[] = {
    "kind",          "variant", "compression", "arch",         "version_major",
    "version_minor", "offset",  "header_size", "stored_size",  "size",
    "flags",         "release", "text_arch",   "text_variant", "text_isa"};
#define IMAGE_FIELDS (sizeof image_fields / sizeof image_fields[0])
static const char *const container_fields[] = {
    "offset",     "size",        "section",     "member",  "relocatable",
    "bare_cubin", "first_image", "image_count", "kernels", "kernel_names"};
#define CONTAINER_FIELDS (sizeof container_fields / sizeof container_fields[0])


bool smc_cache_key_ok(const char *s)
{
    size_t i = 0;
    for (; s && i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return s && s[64] == '\0';
}

/* Whether a string is as the model keeps them: no C0 control, DEL or C1 control (smc_sanitize). */
static bool clean(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len; i++)
        if (p[i] < 0x20 || p[i] == 0x7f ||
            (p[i] == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f))
            return false;
    return true;
}

/* Writing ------------------------------------------------------------------------------------ */

typedef struct writer {
    char *p;
    size_t len, cap;
    const char *prefix;
    size_t plen;
    bool first[16]; /* per open object or array: nothing written in it yet */
    int depth;
    bool failed; /* why says */
    char *why;
    size_t n;
} writer;

static void w_fail(writer *w, const char *fmt, ...) SMC_PRINTF(2, 3);
static void w_fail(writer *w, const char *fmt, ...)
{
    if (w->failed) return;
    w->failed = true;
    if (!w->why || !w->n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, w->n, fmt, ap);
    va_end(ap);
}

static void w_raw(writer *w, const char *s, size_t k)
{
    if (w->failed) return;
    if (k > SMC_CACHE_MAX_BYTES - w->len) {
        w_fail(w, "the record would be larger than %u bytes", SMC_CACHE_MAX_BYTES);
        return;
    }
    if (w->len + k + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + k + 1)
            cap *= 2;
        char *grown = realloc(w->p, cap);
        if (!grown) {
            w_fail(w, "out of memory");
            return;
        }
        w->p = grown;
        w->cap = cap;
    }
    memcpy(w->p + w->len, s, k);
    w->len += k;
    w->p[w->len] = '\0';
}

static void w_lit(writer *w, const char *s)
{
    w_raw(w, s, strlen(s));
}

/* Before a value in an array, or a key in an object. */
static void w_item(writer *w)
{
    if (!w->first[w->depth]) w_raw(w, ",", 1);
    w->first[w->depth] = false;
}

static void w_open(writer *w, char c)
{
    w_raw(w, &c, 1);
    w->first[++w->depth] = true;
}

static void w_close(writer *w, char c)
{
    w_raw(w, &c, 1);
    w->depth--;
}

/* A JSON string of s's len bytes: '"' and '\' escaped, other bytes as they are (the model's
 * strings hold no controls; bytes that are not UTF-8 stay, as the model keeps them). */
static void w_strn(writer *w, const char *s, size_t len)
{
    if (len > SMC_CACHE_STRING_MAX) {
        w_fail(w, "a string of %zu bytes, more than %u", len, SMC_CACHE_STRING_MAX);
        return;
    }
    if (!clean(s, len)) {
        w_fail(w, "a string with a control character");
        return;
    }
    w_raw(w, "\"", 1);
    for (size_t i = 0, start = 0; i <= len; i++)
        if (i == len || s[i] == '"' || s[i] == '\\') {
            w_raw(w, s + start, i - start);
            if (i < len) w_raw(w, s[i] == '"' ? "\\\"" : "\\\\", 2);
            start = i + 1;
        }
    w_raw(w, "\"", 1);
}

static void w_str(writer *w, const char *s)
{
    if (s)
        w_strn(w, s, strlen(s));
    else
        w_lit(w, "null");
}

static void w_key(writer *w, const char *k)
{
    w_item(w);
    w_str(w, k);
    w_raw(w, ":", 1);
}

static void w_u64(writer *w, uint64_t v)
{
    char buf[24], *p = buf + sizeof buf;
    bool quoted = v > EXACT_MAX;
    if (quoted) *--p = '"';
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    if (quoted) *--p = '"';
    w_raw(w, p, (size_t)(buf + sizeof buf - p));
}

static void w_int(writer *w, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    w_lit(w, buf);
}

static void w_bool(writer *w, bool v)
{
    w_lit(w, v ? "true" : "false");
}

static void w_index(writer *w, size_t i)
{
    if (i == SMC_NONE)
        w_lit(w, "null");
    else
        w_u64(w, i);
}

/* A string in which the prefix may occur: the pieces around each occurrence, as an array, when it
 * does (the reader joins them with its own prefix); else the string. */
static void w_text(writer *w, const char *s)
{
    const char *at = w->plen ? strstr(s, w->prefix) : NULL;
    if (!at) {
        w_str(w, s);
        return;
    }
    w_open(w, '[');
    for (;;) {
        w_item(w);
        w_strn(w, s, (size_t)(at - s));
        if (at == s + strlen(s)) break;
        s = at + w->plen;
        at = strstr(s, w->prefix);
        if (!at) at = s + strlen(s);
    }
    w_close(w, ']');
}

/* A path under the prefix, written relative to it. */
static void w_path(writer *w, const char *s, const char *what)
{
    if (!s)
        w_lit(w, "null");
    else if (strncmp(s, w->prefix, w->plen) != 0)
        w_fail(w, "%s %.300s is not under %.300s", what, s, w->prefix);
    else
        w_text(w, s + w->plen);
}

static void w_strings(writer *w, char *const *v, size_t n, bool paths, const char *what)
{
    w_open(w, '[');
    for (size_t i = 0; i < n && !w->failed; i++) {
        w_item(w);
        if (paths)
            w_path(w, v[i], what);
        else
            w_str(w, v[i]);
    }
    w_close(w, ']');
}

static void w_distribution(writer *w, const smc_distribution *d)
{
    w_open(w, '{');
    const struct {
        const char *key, *value;
    } strings[] = {{"name", d->name},
                   {"version", d->version},
                   {"local_version", d->local_version},
                   {"source", d->source},
                   {"tag", d->tag},
                   {"platform", d->platform},
                   {"cuda", d->cuda},
                   {"cuda_source", d->cuda_source},
                   {"cpu_build", d->cpu_build},
                   {"shadowed_by", d->shadowed_by},
                   {"shadow_evidence", d->shadow_evidence},
                   {"variant_label", d->variant_label}};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        w_key(w, strings[i].key);
        w_str(w, strings[i].value);
    }
    w_key(w, "location");
    w_path(w, d->location, "the location");
    w_key(w, "variant_claims");
    w_strings(w, d->variant_claims, d->variant_claim_count, false, NULL);
    w_key(w, "libraries");
    w_open(w, '[');
    for (size_t i = 0; i < d->library_count; i++) {
        w_item(w);
        w_u64(w, d->libraries[i]);
    }
    w_close(w, ']');
    w_close(w, '}');
}

static void w_image(writer *w, const smc_image *img)
{
    const uint64_t v[IMAGE_FIELDS] = {(uint64_t)img->kind,
                                      (uint64_t)img->variant,
                                      (uint64_t)img->compression,
                                      img->arch,
                                      img->version_major,
                                      img->version_minor,
                                      img->offset,
                                      img->header_size,
                                      img->stored_size,
                                      img->size,
                                      img->flags,
                                      img->release,
                                      img->text_arch,
                                      (uint64_t)img->text_variant,
                                      img->text_isa};
    w_open(w, '[');
    for (size_t i = 0; i < IMAGE_FIELDS; i++) {
        w_item(w);
        w_u64(w, v[i]);
    }
    w_close(w, ']');
}

static void w_container(writer *w, const smc_container *c)
{
    w_open(w, '[');
    w_item(w), w_u64(w, c->offset);
    w_item(w), w_u64(w, c->size);
    w_item(w), w_str(w, c->section);
    w_item(w), w_str(w, c->member);
    w_item(w), w_bool(w, c->relocatable);
    w_item(w), w_bool(w, c->bare_cubin);
    w_item(w), w_u64(w, c->first_image);
    w_item(w), w_u64(w, c->image_count);
    w_item(w), w_int(w, c->kernels);
    w_item(w), w_str(w, c->kernel_names);
    w_close(w, ']');
}

static void w_library(writer *w, const smc_library *lib)
{
    w_open(w, '{');
    w_key(w, "path"), w_path(w, lib->path, "library");
    w_key(w, "file_size"), w_u64(w, lib->file_size);
    w_key(w, "machine"), w_u64(w, lib->machine);
    w_key(w, "windows"), w_bool(w, lib->windows);
    w_key(w, "links_torch"), w_bool(w, lib->links_torch);
    w_key(w, "cudart_major"), w_u64(w, lib->cudart_major);
    w_key(w, "cudart_minor"), w_u64(w, lib->cudart_minor);
    w_key(w, "release"), w_u64(w, lib->release);
    w_key(w, "distribution"), w_index(w, lib->distribution);
    w_key(w, "layer"), w_str(w, lib->layer);
    w_key(w, "needed"), w_strings(w, lib->needed, lib->needed_count, false, NULL);
    w_key(w, "links"), w_strings(w, lib->links, lib->link_count, true, "link");
    w_key(w, "findings");
    w_open(w, '[');
    for (size_t i = 0; i < lib->finding_count; i++) {
        w_item(w);
        w_open(w, '{');
        w_key(w, "offset");
        if (lib->findings[i].offset == SMC_NO_OFFSET)
            w_lit(w, "null");
        else
            w_u64(w, lib->findings[i].offset);
        w_key(w, "message"), w_text(w, lib->findings[i].message);
        w_close(w, '}');
    }
    w_close(w, ']');
    w_key(w, "findings_more"), w_u64(w, lib->findings_more);
    w_key(w, "images"), w_u64(w, lib->image_count); /* their rows follow the document */
    w_key(w, "containers"), w_u64(w, lib->container_count);
    w_close(w, '}');
}

/* The rows of every library's images, then its containers, library by library: one line each. */
static void w_rows(writer *w, const smc_input *in)
{
    for (size_t l = 0; l < in->library_count && !w->failed; l++) {
        const smc_library *lib = &in->libraries[l];
        for (size_t i = 0; i < lib->image_count && !w->failed; i++) {
            w_image(w, &lib->images[i]);
            w_raw(w, "\n", 1);
        }
        for (size_t i = 0; i < lib->container_count && !w->failed; i++) {
            w_container(w, &lib->containers[i]);
            w_raw(w, "\n", 1);
        }
    }
}

static void w_input(writer *w, const smc_input *in)
{
    w_open(w, '{');
    w_key(w, "kind"), w_str(w, smc_input_kind_str(in->kind));
    w_key(w, "files"), w_u64(w, in->files);
    w_key(w, "inspected"), w_bool(w, in->inspected);
    w_key(w, "root"), w_bool(w, in->root);
    w_key(w, "require_cuda"), w_str(w, in->require_cuda);
    w_key(w, "require_cuda_version"), w_int(w, in->require_cuda_version);
    w_key(w, "compat_cuda"), w_int(w, in->compat_cuda);
    w_key(w, "errors");
    w_open(w, '[');
    for (size_t i = 0; i < in->error_count && !w->failed; i++) {
        w_item(w);
        w_open(w, '{');
        w_key(w, "path"), w_path(w, in->errors[i].path, "error's path");
        w_key(w, "message"), w_text(w, in->errors[i].message);
        w_close(w, '}');
    }
    w_close(w, ']');
    w_key(w, "errors_more"), w_u64(w, in->errors_more);
    w_key(w, "notes");
    w_open(w, '[');
    for (size_t i = 0; i < in->note_count && !w->failed; i++) {
        w_item(w);
        w_text(w, in->notes[i]);
    }
    w_close(w, ']');
    w_key(w, "notes_more"), w_u64(w, in->notes_more);
    w_key(w, "distributions");
    w_open(w, '[');
    for (size_t i = 0; i < in->distribution_count && !w->failed; i++) {
        w_item(w);
        w_distribution(w, &in->distributions[i]);
    }
    w_close(w, ']');
    w_key(w, "libraries");
    w_open(w, '[');
    for (size_t i = 0; i < in->library_count && !w->failed; i++) {
        w_item(w);
        w_library(w, &in->libraries[i]);
    }
    w_close(w, ']');
    w_key(w, "runtime");
    w_open(w, '[');
    for (size_t i = 0; i < in->runtime_count && !w->failed; i++) {
        const smc_runtime_file *f = &in->runtime[i];
        w_item(w);
        w_open(w, '{');
        w_key(w, "path"), w_path(w, f->path, "runtime file");
        w_key(w, "kind"), w_str(w, f->kind == SMC_RUNTIME_PTXAS ? "ptxas" : "shared");
        w_key(w, "cuda"), w_int(w, f->cuda);
        w_key(w, "distribution"), w_index(w, f->distribution);
        w_close(w, '}');
    }
    w_close(w, ']');
    w_close(w, '}');
}

char *smc_cache_encode(const smc_input *in, const char *prefix, const char *sha256, char *why,
                       size_t n)
{
    smc_say(why, n, "%s", "");
    if (!in || !prefix) {
        smc_say(why, n, "no input or prefix");
        return NULL;
    }
    if (!smc_cache_key_ok(sha256)) {
        smc_say(why, n, "the key is not a sha256 (64 lower-case hex digits)");
        return NULL;
    }
    writer w = {.prefix = prefix, .plen = strlen(prefix), .why = why, .n = n};
    w_open(&w, '{');
    w_key(&w, "format"), w_str(&w, "smcheck-facts");
    w_key(&w, "version"), w_int(&w, SMC_CACHE_FORMAT);
    w_key(&w, "reader"), w_str(&w, SMC_VERSION);
    w_key(&w, "sha256"), w_str(&w, sha256);
    w_key(&w, "image_fields"),
        w_strings(&w, (char *const *)image_fields, IMAGE_FIELDS, false, NULL);
    w_key(&w, "container_fields");
    w_strings(&w, (char *const *)container_fields, CONTAINER_FIELDS, false, NULL);
    w_key(&w, "input"), w_input(&w, in);
    w_close(&w, '}');
    w_raw(&w, "\n", 1);
    w_rows(&w, in);
    if (w.failed) {
        free(w.p);
        return NULL;
    }
    return w.p;
}

/* Reading ------------------------------------------------------------------------------------ */

typedef struct reader {
    const char *prefix;
    size_t plen;
    size_t rows; /* the lines after the document, not yet claimed by a library's counts */
    char *why;
    size_t n;
    char where[96];   /* what is being read, for the message: "library 3", */
    const char *item; /* and in it, without a snprintf per row: ", container 12" */
    size_t index;
} reader;

static bool r_fail(reader *r, const char *fmt, ...) SMC_PRINTF(2, 3);
static bool r_fail(reader *r, const char *fmt, ...)
{
    if (!r->why || !r->n) return false;
    int k = !r->where[0] ? 0
            : r->item    ? snprintf(r->why, r->n, "%s, %s %zu: ", r->where, r->item, r->index)
                         : snprintf(r->why, r->n, "%s: ", r->where);
    if (k < 0 || (size_t)k >= r->n) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why + k, r->n - (size_t)k, fmt, ap);
    va_end(ap);
    return false;
}

/* The entries of an array, counted up to max + 1 (an array past max need not be walked). */
static size_t entries(const cJSON *a, size_t max)
{
    size_t k = 0;
    for (const cJSON *v = a->child; v && k <= max; v = v->next)
        k++;
    return k;
}

static const cJSON *r_get(reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) r_fail(r, "no \"%s\"", key);
    return v;
}

/* An integer of at most max: a JSON number (exact: at most 2^53) or a string of decimal digits. */
static bool r_u64v(reader *r, const cJSON *v, uint64_t max, uint64_t *out, const char *key)
{
    uint64_t u = 0;
    bool ok = false;
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d >= 0 && d <= (double)EXACT_MAX) {
            u = (uint64_t)d;
            ok = (double)u == d;
        }
    } else if (cJSON_IsString(v) && v->valuestring) {
        const char *s = v->valuestring;
        size_t k = strlen(s);
        ok = k > 0 && k <= 20 && (s[0] != '0' || k == 1);
        for (size_t i = 0; ok && i < k; i++) {
            unsigned digit = (unsigned)(s[i] - '0');
            ok = s[i] >= '0' && s[i] <= '9' && u <= (UINT64_MAX - digit) / 10;
            u = u * 10 + digit;
        }
    }
    if (!ok) return r_fail(r, "\"%s\" is not a whole number", key);
    if (u > max) return r_fail(r, "\"%s\" is %" PRIu64 ", more than %" PRIu64, key, u, max);
    *out = u;
    return true;
}

static bool r_u64(reader *r, const cJSON *o, const char *key, uint64_t max, uint64_t *out)
{
    const cJSON *v = r_get(r, o, key);
    return v && r_u64v(r, v, max, out, key);
}

static bool r_unsigned(reader *r, const cJSON *o, const char *key, unsigned *out)
{
    uint64_t u;
    if (!r_u64(r, o, key, UINT_MAX, &u)) return false;
    *out = (unsigned)u;
    return true;
}

static bool r_size(reader *r, const cJSON *o, const char *key, size_t *out)
{
    uint64_t u;
    if (!r_u64(r, o, key, SIZE_MAX - 1, &u)) return false; /* SIZE_MAX is SMC_NONE */
    *out = (size_t)u;
    return true;
}

static bool r_intv(reader *r, const cJSON *v, int lo, int hi, int *out, const char *key)
{
    double d = cJSON_IsNumber(v) ? v->valuedouble : (double)lo - 1;
    if (!(d >= lo && d <= hi) || (double)(int)d != d)
        return r_fail(r, "\"%s\" is not a whole number from %d to %d", key, lo, hi);
    *out = (int)d;
    return true;
}

static bool r_int(reader *r, const cJSON *o, const char *key, int lo, int hi, int *out)
{
    const cJSON *v = r_get(r, o, key);
    return v && r_intv(r, v, lo, hi, out, key);
}

static bool r_boolv(reader *r, const cJSON *v, bool *out, const char *key)
{
    if (!cJSON_IsBool(v)) return r_fail(r, "\"%s\" is not true or false", key);
    *out = cJSON_IsTrue(v);
    return true;
}

static bool r_bool(reader *r, const cJSON *o, const char *key, bool *out)
{
    const cJSON *v = r_get(r, o, key);
    return v && r_boolv(r, v, out, key);
}

/* A string as the model keeps them (or NULL for null, when nullable), in new memory. */
static bool r_strv(reader *r, const cJSON *v, bool nullable, char **out, const char *key)
{
    *out = NULL;
    if (nullable && cJSON_IsNull(v)) return true;
    if (!cJSON_IsString(v) || !v->valuestring)
        return r_fail(r, "\"%s\" is not a string%s", key, nullable ? " or null" : "");
    size_t len = strlen(v->valuestring);
    if (len > SMC_CACHE_STRING_MAX)
        return r_fail(r, "\"%s\" is longer than %u bytes", key, SMC_CACHE_STRING_MAX);
    if (!clean(v->valuestring, len)) return r_fail(r, "\"%s\" holds a control character", key);
    if (!(*out = smc_strdup(v->valuestring))) return r_fail(r, "out of memory");
    return true;
}

static bool r_str(reader *r, const cJSON *o, const char *key, bool nullable, char **out)
{
    const cJSON *v = r_get(r, o, key);
    *out = NULL;
    return v && r_strv(r, v, nullable, out, key);
}

/* A string the prefix was taken out of (w_text), with this reader's prefix put back; a path
 * (w_path) has it in front too. */
static bool r_textv(reader *r, const cJSON *v, bool path, bool nullable, char **out,
                    const char *key)
{
    *out = NULL;
    if (nullable && cJSON_IsNull(v)) return true;
    if (cJSON_IsString(v) && !path) return r_strv(r, v, false, out, key);
    const cJSON *one = cJSON_IsString(v) ? v : NULL, *piece;
    if (!one && !cJSON_IsArray(v))
        return r_fail(r, "\"%s\" is not a string or a list of them", key);
    size_t pieces = one ? 1 : entries(v, MAX_PIECES), total = path ? r->plen : 0;
    if (pieces < 1 || pieces > MAX_PIECES)
        return r_fail(r, "\"%s\" has %zu pieces, not 1 to %u", key, pieces, MAX_PIECES);
    uint64_t body = 0;
    for (piece = one ? one : v->child; piece; piece = one ? NULL : piece->next) {
        if (!cJSON_IsString(piece) || !piece->valuestring)
            return r_fail(r, "a piece of \"%s\" is not a string", key);
        size_t len = strlen(piece->valuestring);
        if (!clean(piece->valuestring, len))
            return r_fail(r, "\"%s\" holds a control character", key);
        body += len;
    }
    if (body > SMC_CACHE_STRING_MAX)
        return r_fail(r, "\"%s\" is longer than %u bytes", key, SMC_CACHE_STRING_MAX);
    total += (size_t)body + (pieces - 1) * r->plen; /* body and pieces are capped: no overflow */
    char *s = malloc(total + 1), *o = s;
    if (!s) return r_fail(r, "out of memory");
    if (path) memcpy(o, r->prefix, r->plen), o += r->plen;
    for (piece = one ? one : v->child; piece; piece = one ? NULL : piece->next) {
        if (piece != (one ? one : v->child)) memcpy(o, r->prefix, r->plen), o += r->plen;
        size_t len = strlen(piece->valuestring);
        memcpy(o, piece->valuestring, len);
        o += len;
    }
    *o = '\0';
    *out = s;
    return true;
}

static bool r_text(reader *r, const cJSON *o, const char *key, bool path, bool nullable, char **out)
{
    const cJSON *v = r_get(r, o, key);
    *out = NULL;
    return v && r_textv(r, v, path, nullable, out, key);
}

/* A zeroed array for k entries whose room is the next power of two (smc_push may grow it later). */
static bool r_array(reader *r, size_t k, size_t elsize, void **arr, size_t *count)
{
    if (k == 0) return true;
    size_t room = 1;
    while (room < k)
        room *= 2;
    if (!(*arr = calloc(room, elsize))) return r_fail(r, "out of memory");
    *count = k;
    return true;
}

/* A list of at most max entries: its length, and an array for them (r_array). */
static bool r_list(reader *r, const cJSON *a, size_t max, size_t elsize, void **arr, size_t *count,
                   const char *key)
{
    *arr = NULL;
    *count = 0;
    if (!cJSON_IsArray(a)) return r_fail(r, "\"%s\" is not a list", key);
    size_t k = entries(a, max);
    if (k > max) return r_fail(r, "\"%s\" has more than %zu entries", key, max);
    return r_array(r, k, elsize, arr, count);
}

static bool r_index(reader *r, const cJSON *o, const char *key, size_t count, size_t *out)
{
    const cJSON *v = r_get(r, o, key);
    uint64_t u;
    if (!v) return false;
    if (cJSON_IsNull(v)) {
        *out = SMC_NONE;
        return true;
    }
    if (!r_u64v(r, v, UINT64_MAX, &u, key)) return false;
    if (u >= count)
        return r_fail(r, "\"%s\" is %" PRIu64 ", past the %zu there are", key, u, count);
    *out = (size_t)u;
    return true;
}

/* A list of strings (paths: with the prefix put back), counted into *count as they are read. */
static bool r_strings(reader *r, const cJSON *o, const char *key, size_t max, bool paths,
                      char ***out, size_t *count)
{
    const cJSON *a = r_get(r, o, key), *v;
    size_t k;
    void *arr;
    if (!a || !r_list(r, a, max, sizeof(char *), &arr, &k, key)) return false;
    *out = arr;
    *count = k; /* zeroed: freed as NULLs if a later one fails */
    size_t i = 0;
    cJSON_ArrayForEach(v, a)
    {
        bool ok = paths ? r_textv(r, v, true, false, &(*out)[i], key)
                        : r_strv(r, v, false, &(*out)[i], key);
        if (!ok) return false;
        i++;
    }
    return true;
}

static bool r_image(reader *r, const cJSON *a, smc_image *img)
{
    uint64_t v[IMAGE_FIELDS];
    if (!cJSON_IsArray(a) || entries(a, IMAGE_FIELDS) != IMAGE_FIELDS)
        return r_fail(r, "not a list of %zu numbers", IMAGE_FIELDS);
    const cJSON *x = a->child;
    for (size_t i = 0; i < IMAGE_FIELDS; i++, x = x->next)
        if (!r_u64v(r, x, UINT64_MAX, &v[i], image_fields[i])) return false;
    if (v[0] != SMC_IMAGE_PTX && v[0] != SMC_IMAGE_CUBIN && v[0] != SMC_IMAGE_LTO)
        return r_fail(r, "\"kind\" %" PRIu64 " is none of 1, 2, 8", v[0]);
    if (v[1] > SMC_VARIANT_F || v[2] > SMC_COMPRESS_ZSTD || v[13] > SMC_VARIANT_F)
        return r_fail(r, "a variant or compression out of range");
    const size_t narrow[] = {3, 4, 5, 11, 12, 14};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
        if (v[narrow[i]] > UINT_MAX)
            return r_fail(r, "\"%s\" is more than %u", image_fields[narrow[i]], UINT_MAX);
    *img = (smc_image){.kind = (smc_image_kind)v[0],
                       .variant = (smc_variant)v[1],
                       .compression = (smc_compression)v[2],
                       .arch = (unsigned)v[3],
                       .version_major = (unsigned)v[4],
                       .version_minor = (unsigned)v[5],
                       .offset = v[6],
                       .header_size = v[7],
                       .stored_size = v[8],
                       .size = v[9],
                       .flags = v[10],
                       .release = (unsigned)v[11],
                       .text_arch = (unsigned)v[12],
                       .text_variant = (smc_variant)v[13],
                       .text_isa = (unsigned)v[14]};
    return true;
}

static bool r_container(reader *r, const cJSON *a, smc_container *c, size_t images)
{
    if (!cJSON_IsArray(a) || entries(a, CONTAINER_FIELDS) != CONTAINER_FIELDS)
        return r_fail(r, "not a list of %zu fields", CONTAINER_FIELDS);
    const cJSON *x[CONTAINER_FIELDS];
    x[0] = a->child;
    for (size_t i = 1; i < CONTAINER_FIELDS; i++)
        x[i] = x[i - 1]->next;
    uint64_t first, count;
    if (!r_u64v(r, x[0], UINT64_MAX, &c->offset, "offset") ||
        !r_u64v(r, x[1], UINT64_MAX, &c->size, "size") ||
        !r_strv(r, x[2], true, &c->section, "section") ||
        !r_strv(r, x[3], true, &c->member, "member") ||
        !r_boolv(r, x[4], &c->relocatable, "relocatable") ||
        !r_boolv(r, x[5], &c->bare_cubin, "bare_cubin") ||
        !r_u64v(r, x[6], images, &first, "first_image") ||
        !r_u64v(r, x[7], images - first, &count, "image_count") ||
        !r_intv(r, x[8], -1, 1, &c->kernels, "kernels") ||
        !r_strv(r, x[9], true, &c->kernel_names, "kernel_names"))
        return false;
    c->first_image = (size_t)first;
    c->image_count = (size_t)count;
    return true;
}

/* A count of rows that follow the document (images or containers), at most max and no more
 * than the lines left unclaimed, so that what a record makes the reader allocate stays in
 * proportion to its text; and an array for them (r_array). */
static bool r_rows(reader *r, const cJSON *o, const char *key, size_t max, size_t elsize,
                   void **arr, size_t *count)
{
    *arr = NULL;
    *count = 0;
    size_t k;
    if (!r_size(r, o, key, &k)) return false;
    if (k > max) return r_fail(r, "\"%s\" counts more than %zu", key, max);
    if (k > r->rows) return r_fail(r, "\"%s\" counts more rows than the record holds", key);
    r->rows -= k;
    return r_array(r, k, elsize, arr, count);
}

static bool r_library(reader *r, const cJSON *o, smc_library *lib, size_t distributions)
{
    lib->distribution = SMC_NONE;
    if (!cJSON_IsObject(o)) return r_fail(r, "not an object");
    uint64_t file_size;
    if (!r_text(r, o, "path", true, false, &lib->path) ||
        !r_u64(r, o, "file_size", UINT64_MAX, &file_size) ||
        !r_unsigned(r, o, "machine", &lib->machine) || !r_bool(r, o, "windows", &lib->windows) ||
        !r_bool(r, o, "links_torch", &lib->links_torch) ||
        !r_unsigned(r, o, "cudart_major", &lib->cudart_major) ||
        !r_unsigned(r, o, "cudart_minor", &lib->cudart_minor) ||
        !r_unsigned(r, o, "release", &lib->release) ||
        !r_index(r, o, "distribution", distributions, &lib->distribution) ||
        !r_str(r, o, "layer", true, &lib->layer) ||
        !r_strings(r, o, "needed", MAX_SMALL, false, &lib->needed, &lib->needed_count) ||
        !r_strings(r, o, "links", MAX_LIST, true, &lib->links, &lib->link_count) ||
        !r_size(r, o, "findings_more", &lib->findings_more))
        return false;
    lib->file_size = file_size;

    const cJSON *a = r_get(r, o, "findings"), *v;
    void *arr;
    size_t k, i = 0;
    if (!a || !r_list(r, a, SMC_FINDINGS_KEPT, sizeof(smc_finding), &arr, &k, "findings"))
        return false;
    lib->findings = arr;
    lib->finding_count = k;
    cJSON_ArrayForEach(v, a)
    {
        smc_finding *f = &lib->findings[i++];
        if (!cJSON_IsObject(v)) return r_fail(r, "a finding is not an object");
        const cJSON *off = r_get(r, v, "offset");
        if (!off) return false;
        f->offset = SMC_NO_OFFSET;
        if (!cJSON_IsNull(off) && !r_u64v(r, off, UINT64_MAX, &f->offset, "offset")) return false;
        if (!r_text(r, v, "message", false, false, &f->message)) return false;
    }

    if (!r_rows(r, o, "images", MAX_IMAGES, sizeof(smc_image), &arr, &lib->image_count))
        return false;
    lib->images = arr;
    if (!r_rows(r, o, "containers", MAX_CONTAINERS, sizeof(smc_container), &arr,
                &lib->container_count))
        return false;
    lib->containers = arr;
    return true;
}

/* One row of the lines after the document, at *at (before end): a JSON value and its newline. A
 * new, small tree (the caller deletes it), so that a library of many rows never needs them all
 * parsed at once. */
static cJSON *r_row(reader *r, const char **at, const char *end)
{
    const char *stop = NULL;
    cJSON *row = *at < end ? cJSON_ParseWithLengthOpts(*at, (size_t)(end - *at), &stop, false) : NULL;
    if (!row || !stop || (stop < end && *stop != '\n')) {
        cJSON_Delete(row);
        r_fail(r, "not a row of JSON on a line of its own (cut short or damaged)");
        return NULL;
    }
    *at = stop < end ? stop + 1 : end;
    return row;
}

/* The rows of every library, in the order w_rows writes them; nothing but them to the end. */
static bool r_all_rows(reader *r, smc_input *in, const char *at, const char *end)
{
    for (size_t l = 0; l < in->library_count; l++) {
        smc_library *lib = &in->libraries[l];
        snprintf(r->where, sizeof r->where, "library %zu", l);
        for (size_t i = 0; i < lib->image_count + lib->container_count; i++) {
            bool image = i < lib->image_count;
            r->item = image ? "image" : "container";
            r->index = image ? i : i - lib->image_count;
            cJSON *row = r_row(r, &at, end);
            bool ok = row && (image ? r_image(r, row, &lib->images[i])
                                    : r_container(r, row, &lib->containers[r->index],
                                                  lib->image_count));
            cJSON_Delete(row);
            if (!ok) return false;
        }
    }
    r->where[0] = '\0';
    r->item = NULL;
    while (at < end && (*at == ' ' || *at == '\n' || *at == '\t' || *at == '\r'))
        at++;
    return at == end || r_fail(r, "more than the rows the libraries count");
}

static bool r_distribution(reader *r, const cJSON *o, smc_distribution *d)
{
    if (!cJSON_IsObject(o)) return r_fail(r, "not an object");
    struct {
        const char *key;
        char **value;
    } strings[] = {{"name", &d->name},
                   {"version", &d->version},
                   {"local_version", &d->local_version},
                   {"source", &d->source},
                   {"tag", &d->tag},
                   {"platform", &d->platform},
                   {"cuda", &d->cuda},
                   {"cuda_source", &d->cuda_source},
                   {"cpu_build", &d->cpu_build},
                   {"shadowed_by", &d->shadowed_by},
                   {"shadow_evidence", &d->shadow_evidence},
                   {"variant_label", &d->variant_label}};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        if (!r_str(r, o, strings[i].key, true, strings[i].value)) return false;
    if (!r_text(r, o, "location", true, true, &d->location) ||
        !r_strings(r, o, "variant_claims", MAX_SMALL, false, &d->variant_claims,
                   &d->variant_claim_count))
        return false;
    const cJSON *a = r_get(r, o, "libraries"), *v;
    void *arr;
    size_t k, i = 0;
    if (!a || !r_list(r, a, MAX_LIST, sizeof(size_t), &arr, &k, "libraries")) return false;
    d->libraries = arr;
    d->library_count = k;
    cJSON_ArrayForEach(v, a)
    {
        uint64_t u;
        if (!r_u64v(r, v, SIZE_MAX - 1, &u, "libraries")) return false;
        d->libraries[i++] = (size_t)u; /* checked against the libraries once they are read */
    }
    return true;
}

/* Each distribution lists exactly the libraries that name it, in order (smc_distributions_finish).
 */
static bool r_owners(reader *r, const smc_input *in)
{
    size_t listed = 0, named = 0;
    for (size_t k = 0; k < in->distribution_count; k++) {
        const smc_distribution *d = &in->distributions[k];
        snprintf(r->where, sizeof r->where, "distribution %zu", k);
        for (size_t i = 0; i < d->library_count; i++) {
            size_t l = d->libraries[i];
            if (l >= in->library_count)
                return r_fail(r, "library %zu is past the %zu there are", l, in->library_count);
            if (i && l <= d->libraries[i - 1]) return r_fail(r, "its libraries are not in order");
            if (in->libraries[l].distribution != k)
                return r_fail(r, "library %zu names another distribution", l);
        }
        listed += d->library_count;
    }
    r->where[0] = '\0';
    for (size_t i = 0; i < in->library_count; i++)
        named += in->libraries[i].distribution != SMC_NONE;
    if (listed != named)
        return r_fail(r, "%zu libraries name a distribution, the distributions list %zu", named,
                      listed);
    return true;
}

static bool r_input(reader *r, const cJSON *o, smc_input *in)
{
    uint64_t files;
    if (!r_u64(r, o, "files", UINT64_MAX, &files) || !r_bool(r, o, "inspected", &in->inspected) ||
        !r_bool(r, o, "root", &in->root) || !r_str(r, o, "require_cuda", true, &in->require_cuda) ||
        !r_int(r, o, "require_cuda_version", 0, INT_MAX, &in->require_cuda_version) ||
        !r_int(r, o, "compat_cuda", 0, INT_MAX, &in->compat_cuda) ||
        !r_size(r, o, "errors_more", &in->errors_more) ||
        !r_size(r, o, "notes_more", &in->notes_more))
        return false;
    in->files = files;

    const cJSON *a = r_get(r, o, "errors"), *v;
    void *arr;
    size_t k, i = 0;
    if (!a || !r_list(r, a, SMC_ERRORS_KEPT, sizeof(smc_error), &arr, &k, "errors")) return false;
    in->errors = arr;
    in->error_count = k;
    cJSON_ArrayForEach(v, a)
    {
        smc_error *e = &in->errors[i];
        snprintf(r->where, sizeof r->where, "error %zu", i++);
        if (!cJSON_IsObject(v)) return r_fail(r, "not an object");
        if (!r_text(r, v, "path", true, false, &e->path) ||
            !r_text(r, v, "message", false, false, &e->message))
            return false;
    }
    r->where[0] = '\0';

    a = r_get(r, o, "notes");
    if (!a || !r_list(r, a, SMC_ERRORS_KEPT, sizeof(char *), &arr, &k, "notes")) return false;
    in->notes = arr;
    in->note_count = k;
    i = 0;
    cJSON_ArrayForEach(v,
                       a) if (!r_textv(r, v, false, false, &in->notes[i++], "notes")) return false;

    a = r_get(r, o, "distributions");
    if (!a || !r_list(r, a, MAX_LIST, sizeof(smc_distribution), &arr, &k, "distributions"))
        return false;
    in->distributions = arr;
    in->distribution_count = k;
    i = 0;
    cJSON_ArrayForEach(v, a)
    {
        snprintf(r->where, sizeof r->where, "distribution %zu", i);
        if (!r_distribution(r, v, &in->distributions[i++])) return false;
    }
    r->where[0] = '\0';

    a = r_get(r, o, "libraries");
    if (!a || !r_list(r, a, MAX_LIBRARIES, sizeof(smc_library), &arr, &k, "libraries"))
        return false;
    in->libraries = arr;
    in->library_count = k;
    for (size_t j = 0; j < k; j++) /* zeroed, as smc_library_new leaves them */
        in->libraries[j].distribution = SMC_NONE;
    i = 0;
    cJSON_ArrayForEach(v, a)
    {
        snprintf(r->where, sizeof r->where, "library %zu", i);
        if (!r_library(r, v, &in->libraries[i++], in->distribution_count)) return false;
    }
    r->where[0] = '\0';

    a = r_get(r, o, "runtime");
    if (!a || !r_list(r, a, MAX_LIST, sizeof(smc_runtime_file), &arr, &k, "runtime")) return false;
    in->runtime = arr;
    in->runtime_count = k;
    i = 0;
    cJSON_ArrayForEach(v, a)
    {
        smc_runtime_file *f = &in->runtime[i];
        snprintf(r->where, sizeof r->where, "runtime file %zu", i++);
        f->distribution = SMC_NONE;
        if (!cJSON_IsObject(v)) return r_fail(r, "not an object");
        const cJSON *kind = r_get(r, v, "kind");
        if (!kind) return false;
        if (!cJSON_IsString(kind) ||
            (strcmp(kind->valuestring, "shared") != 0 && strcmp(kind->valuestring, "ptxas") != 0))
            return r_fail(r, "\"kind\" is neither \"shared\" nor \"ptxas\"");
        f->kind = strcmp(kind->valuestring, "ptxas") == 0 ? SMC_RUNTIME_PTXAS : SMC_RUNTIME_SHARED;
        if (!r_text(r, v, "path", true, false, &f->path) ||
            !r_int(r, v, "cuda", 0, INT_MAX, &f->cuda) ||
            !r_index(r, v, "distribution", in->distribution_count, &f->distribution))
            return false;
    }
    r->where[0] = '\0';
    return r_owners(r, in);
}

/* Whether a is a list of exactly the n strings of names. */
static bool same_names(const cJSON *a, const char *const *names, size_t n)
{
    if (!cJSON_IsArray(a) || entries(a, n) != n) return false;
    const cJSON *v = a->child;
    for (size_t i = 0; i < n; i++, v = v->next)
        if (!cJSON_IsString(v) || strcmp(v->valuestring, names[i]) != 0) return false;
    return true;
}

smc_input *smc_cache_decode(const char *text, size_t len, const char *path, const char *prefix,
                            const char *sha256, char *why, size_t n)
{
    reader r = {.prefix = prefix, .plen = prefix ? strlen(prefix) : 0, .why = why, .n = n};
    smc_say(why, n, "%s", "");
    if (!text || !path || !prefix) return r_fail(&r, "no text, path or prefix"), NULL;
    if (!smc_cache_key_ok(sha256))
        return r_fail(&r, "the key is not a sha256 (64 lower-case hex digits)"), NULL;
    if (len > SMC_CACHE_MAX_BYTES)
        return r_fail(&r, "a record of %zu bytes, more than %u", len, SMC_CACHE_MAX_BYTES), NULL;
    /* The document is the first line; the rows follow it, one per line. */
    const char *end = NULL, *nl = memchr(text, '\n', len);
    size_t doc = nl ? (size_t)(nl - text) : len;
    cJSON *root = cJSON_ParseWithLengthOpts(text, doc, &end, false);
    while (root && end && end < text + doc && (*end == ' ' || *end == '\t' || *end == '\r'))
        end++;
    if (!root || end != text + doc) {
        cJSON_Delete(root);
        return r_fail(&r, "not JSON (cut short, damaged, or nested more than %d deep)",
                      CJSON_NESTING_LIMIT),
               NULL;
    }
    for (const char *p = nl; p; p = memchr(p + 1, '\n', len - (size_t)(p + 1 - text)))
        if (p + 1 < text + len) r.rows++; /* a line begins after it */
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    const cJSON *reader_version = cJSON_GetObjectItemCaseSensitive(root, "reader");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(root, "sha256");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "input");
    smc_input *in = NULL;
    if (!cJSON_IsObject(root) || !cJSON_IsString(format) ||
        strcmp(format->valuestring, "smcheck-facts") != 0)
        r_fail(&r, "not a record of smcheck's facts");
    else if (!cJSON_IsNumber(version) || version->valuedouble != SMC_CACHE_FORMAT)
        r_fail(&r, "a record of another format than %d: not used", SMC_CACHE_FORMAT);
    else if (!cJSON_IsString(reader_version) ||
             strcmp(reader_version->valuestring, SMC_VERSION) != 0) {
        char other[48] = "(unknown)"; /* its text, as far as it is clean (the message is printed) */
        if (cJSON_IsString(reader_version))
            snprintf(other, sizeof other, "%s", reader_version->valuestring);
        r_fail(&r, "a record made by smcheck %s, not by this %s: not used", smc_sanitize(other),
               SMC_VERSION);
    } else if (!cJSON_IsString(key) || strcmp(key->valuestring, sha256) != 0)
        r_fail(&r, "a record for another sha256 than %s", sha256);
    else if (!same_names(cJSON_GetObjectItemCaseSensitive(root, "image_fields"), image_fields,
                         IMAGE_FIELDS) ||
             !same_names(cJSON_GetObjectItemCaseSensitive(root, "container_fields"),
                         container_fields, CONTAINER_FIELDS))
        r_fail(&r, "image or container fields other than this reader's");
    else if (!cJSON_IsObject(o))
        r_fail(&r, "no \"input\" object");
    else {
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
        int k = SMC_INPUT_FILE;
        for (; cJSON_IsString(kind) && k <= SMC_INPUT_IMAGE; k++)
            if (strcmp(kind->valuestring, smc_input_kind_str((smc_input_kind)k)) == 0) break;
        if (!cJSON_IsString(kind) || k > SMC_INPUT_IMAGE)
            r_fail(&r, "\"kind\" is not a kind of input");
        else if (!(in = smc_input_new(path, (smc_input_kind)k)))
            r_fail(&r, "out of memory");
        else if (!r_input(&r, o, in) || !r_all_rows(&r, in, nl ? nl + 1 : text + len, text + len)) {
            smc_input_free(in);
            in = NULL;
        }
    }
    cJSON_Delete(root);
    return in;
}

/* Choices ---------------------------------------------------------------------------------- */

#define CHOICE_URL_MAX (16u << 10) /* a link of at most 8 KiB, with its page's URL before it */

static bool choice_url_ok(const char *url)
{
    size_t len = strlen(url);
    return len <= CHOICE_URL_MAX && clean(url, len) &&
           (strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0);
}

char *smc_choice_encode(const char *key, const char *url, const char *sha256)
{
    if (!smc_cache_key_ok(key) || !url || !choice_url_ok(url) || !smc_cache_key_ok(sha256))
        return NULL;
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;
    if (o && cJSON_AddStringToObject(o, "format", "smcheck-choice") &&
        cJSON_AddNumberToObject(o, "version", SMC_CACHE_FORMAT) &&
        cJSON_AddStringToObject(o, "reader", SMC_VERSION) &&
        cJSON_AddStringToObject(o, "key", key) && cJSON_AddStringToObject(o, "url", url) &&
        cJSON_AddStringToObject(o, "sha256", sha256))
        text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

bool smc_choice_decode(const char *text, size_t len, const char *key, char **url, char sha256[65],
                       char *why, size_t n)
{
    *url = NULL;
    sha256[0] = '\0';
    smc_say(why, n, "%s", "");
    if (!text || len > CHOICE_URL_MAX + 4096 || !smc_cache_key_ok(key)) {
        smc_say(why, n, "not a choice record of at most %u bytes", CHOICE_URL_MAX + 4096);
        return false;
    }
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(text, len, &end, false);
    while (o && end && end < text + len &&
           (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
        end++;
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(o, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(o, "version");
    const cJSON *made_by = cJSON_GetObjectItemCaseSensitive(o, "reader");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "key");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "url");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "sha256");
    bool ok = false;
    if (!o || end != text + len || !cJSON_IsObject(o))
        smc_say(why, n, "not JSON");
    else if (!cJSON_IsString(format) || strcmp(format->valuestring, "smcheck-choice") != 0)
        smc_say(why, n, "not a record of smcheck's choices");
    else if (!cJSON_IsNumber(version) || version->valuedouble != SMC_CACHE_FORMAT)
        smc_say(why, n, "a record of another format than %d: not used", SMC_CACHE_FORMAT);
    else if (!cJSON_IsString(made_by) || strcmp(made_by->valuestring, SMC_VERSION) != 0)
        smc_say(why, n, "a record made by another smcheck than this %s: not used", SMC_VERSION);
    else if (!cJSON_IsString(k) || strcmp(k->valuestring, key) != 0)
        smc_say(why, n, "a record for another key than %s", key);
    else if (!cJSON_IsString(u) || !choice_url_ok(u->valuestring))
        smc_say(why, n, "its \"url\" is not a clean http(s) URL of at most %u bytes",
                CHOICE_URL_MAX);
    else if (!cJSON_IsString(h) || !smc_cache_key_ok(h->valuestring))
        smc_say(why, n, "its \"sha256\" is not one (64 lower-case hex digits)");
    else if (!(*url = smc_strdup(u->valuestring)))
        smc_say(why, n, "out of memory");
    else {
        memcpy(sha256, h->valuestring, 65);
        ok = true;
    }
    cJSON_Delete(o);
    return ok;
}

/* Whether a record decodes for its key, as facts or as a choice. */
static bool record_ok(const char *text, size_t len, const char *key)
{
    if (!text) return false;
    char *url, sha[65];
    if (smc_choice_decode(text, len, key, &url, sha, NULL, 0)) {
        free(url);
        return true;
    }
    smc_input *in = smc_cache_decode(text, len, "", "", key, NULL, 0);
    bool ok = in != NULL;
    smc_input_free(in);
    return ok;
}

/* The directory ---------------------------------------------------------------------------- */

char *smc_cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') return smc_asprintf("%s/smcheck", xdg);
    if (home && home[0]) return smc_asprintf("%s/.cache/smcheck", home);
    return NULL;
}

/* Makes path and the directories above it that are missing, 0700. */
static bool make_dirs(const char *path, char *why, size_t n)
{
    char *p = smc_strdup(path);
    if (!p || !*p) {
        smc_say(why, n, p ? "no directory" : "out of memory");
        free(p);
        return false;
    }
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0') continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            smc_say(why, n, "%s: cannot make the directory: %s", p, strerror(errno));
            free(p);
            return false;
        }
        *s = c;
        if (!c) break;
    }
    free(p);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        smc_say(why, n, "%s: not a directory", path);
        return false;
    }
    return true;
}

/* A directory of the cache under at, opened without following a link in its place (made 0700
 * first when make); -1 with errno (ELOOP or ENOTDIR: a link or a file is there). */
static int sub_dir(int at, const char *name, bool make)
{
    if (make && mkdirat(at, name, 0700) != 0 && errno != EEXIST) return -1;
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Why a directory or record of the cache could not be opened, in words. */
static const char *open_why(int err)
{
    return err == ELOOP || err == ENOTDIR
               ? "a symbolic link or a file in its place: not followed, nothing read or written "
                 "through it"
               : strerror(err);
}

/* The directory of key's record (dir/vN/ab), reached from dir without following a link below
 * it (dir itself, the user's choice, may be one); made when make. -1 with why, or with why empty
 * when it is absent and not made. */
static int record_dir(const char *dir, const char *key, bool make, char *why, size_t n)
{
    if (make && !make_dirs(dir, why, n)) return -1;
    char ver[16], fan[3] = {key[0], key[1], '\0'};
    snprintf(ver, sizeof ver, "v%d", SMC_CACHE_FORMAT);
    int root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int v = root >= 0 ? sub_dir(root, ver, make) : -1;
    int err = errno;
    int sub = v >= 0 ? sub_dir(v, fan, make) : -1;
    if (v >= 0) err = errno;
    if (sub < 0 && (make || err != ENOENT))
        smc_say(why, n, "%s%s%s%s%s: %s", dir, root >= 0 ? "/" : "", root >= 0 ? ver : "",
                v >= 0 ? "/" : "", v >= 0 ? fan : "", open_why(err));
    if (root >= 0) close(root);
    if (v >= 0) close(v);
    return sub;
}

/* The record of key in dir, read whole (touched when touch); NULL: absent (why empty) or not. */
static char *read_record(const char *dir, const char *key, bool touch, size_t *len, char *why,
                         size_t n)
{
    smc_say(why, n, "%s", "");
    if (!dir || !smc_cache_key_ok(key)) {
        smc_say(why, n, dir ? "the key is not a sha256 (64 lower-case hex digits)" : "no directory");
        return NULL;
    }
    int sub = record_dir(dir, key, false, why, n);
    if (sub < 0) return NULL;
    char name[72];
    snprintf(name, sizeof name, "%s.json", key);
    int fd = openat(sub, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    int err = errno;
    close(sub);
    char *text = NULL;
    if (fd < 0 && err != ENOENT)
        smc_say(why, n, "%s/v%d/%.2s/%s: %s", dir, SMC_CACHE_FORMAT, key, name, open_why(err));
    if (fd >= 0) {
        text = smc_read_fd_small(fd, SMC_CACHE_MAX_BYTES, len, &err);
        if (!text && err == EFBIG)
            smc_say(why, n, "%s/v%d/%.2s/%s: not a regular file of at most %u MiB", dir,
                    SMC_CACHE_FORMAT, key, name, SMC_CACHE_MAX_BYTES >> 20);
        else if (!text)
            smc_say(why, n, "%s/v%d/%.2s/%s: %s", dir, SMC_CACHE_FORMAT, key, name, strerror(err));
        if (text && touch) (void)futimens(fd, NULL); /* read-only caches stay as they are */
        close(fd);
    }
    return text;
}

char *smc_cache_load(const char *dir, const char *sha256, size_t *len, char *why, size_t n)
{
    size_t dummy;
    return read_record(dir, sha256, true, len ? len : &dummy, why, n);
}

/* A new file beside the records of sub, named ".KEY.json.XXXXXX" (a writer's, until its rename),
 * made without following a link; -1 with errno. */
static int temp_file(int sub, const char *key, char name[96])
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int tries = 0; tries < 16; tries++) {
        unsigned char r[6];
        if (getentropy(r, sizeof r) != 0) return -1;
        char tail[7];
        for (size_t i = 0; i < 6; i++)
            tail[i] = digits[r[i] % (sizeof digits - 1)];
        tail[6] = '\0';
        snprintf(name, 96, ".%s.json.%s", key, tail);
        int fd = openat(sub, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

/* Writes a record into dir atomically; with times, the record gets them (merge). */
static bool write_record(const char *dir, const char *key, const char *text, size_t len,
                         const struct timespec *times, char *why, size_t n)
{
    int sub = record_dir(dir, key, true, why, n);
    if (sub < 0) return false;
    char tmp[96], final[72];
    snprintf(final, sizeof final, "%s.json", key);
    int fd = temp_file(sub, key, tmp);
    bool ok = fd >= 0;
    if (!ok)
        smc_say(why, n, "%s/v%d/%.2s: cannot make a temporary file: %s", dir, SMC_CACHE_FORMAT,
                key, strerror(errno));
    for (size_t done = 0; ok && done < len;) {
        ssize_t k = write(fd, text + done, len - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            smc_say(why, n, "%s: cannot write: %s", tmp, k < 0 ? strerror(errno) : "no progress");
            ok = false;
        } else {
            done += (size_t)k;
        }
    }
    if (ok && times) (void)futimens(fd, times);
    if (fd >= 0 && close(fd) != 0 && ok) {
        smc_say(why, n, "%s: cannot write: %s", tmp, strerror(errno));
        ok = false;
    }
    if (ok && renameat(sub, tmp, sub, final) != 0) { /* a link named final is replaced, not followed */
        smc_say(why, n, "%s/v%d/%.2s/%s: cannot rename it into place: %s", dir, SMC_CACHE_FORMAT,
                key, final, strerror(errno));
        ok = false;
    }
    if (!ok && fd >= 0) unlinkat(sub, tmp, 0);
    close(sub);
    return ok;
}

bool smc_cache_store(const char *dir, const char *sha256, const char *text, size_t len,
                     uint64_t cap, char *why, size_t n)
{
    smc_say(why, n, "%s", "");
    if (!dir || !text || !smc_cache_key_ok(sha256)) {
        smc_say(why, n, "no directory, no record, or a key that is not a sha256");
        return false;
    }
    if (len > SMC_CACHE_MAX_BYTES) {
        smc_say(why, n, "a record of %zu bytes, more than %u", len, SMC_CACHE_MAX_BYTES);
        return false;
    }
    if (smc_has_credentials(text)) { /* a choice from an index that asks for a login */
        smc_say(why, n, "it names a URL with credentials, which the cache does not keep");
        return false;
    }
    if (!write_record(dir, sha256, text, len, NULL, why, n)) return false;
    char ignored[256];
    (void)smc_cache_trim(dir, cap, sha256, ignored, sizeof ignored);
    return true;
}

/* Names in a cache directory: "v1", "ab", "<sha256>.json", ".<sha256>.json.XXXXXX". */
static bool version_name(const char *s)
{
    size_t k = s[0] == 'v' ? strspn(s + 1, "0123456789") : 0;
    return k > 0 && k < 10 && s[k + 1] == '\0';
}

static bool fan_name(const char *s)
{
    return strspn(s, "0123456789abcdef") == 2 && s[2] == '\0';
}

static bool record_name(const char *s)
{
    return strspn(s, "0123456789abcdef") == 64 && strcmp(s + 64, ".json") == 0;
}

static bool temp_name(const char *s)
{
    return s[0] == '.' && strspn(s + 1, "0123456789abcdef") == 64 &&
           strncmp(s + 65, ".json.", 6) == 0;
}

typedef struct entry {
    char ver[12], fan[3], name[80]; /* dir/ver/fan/name */
    uint64_t size;
    struct timespec mtime;
    bool keep;
} entry;

static int by_age(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    int c = strcmp(x->ver, y->ver);
    if (!c) c = strcmp(x->fan, y->fan);
    return c ? c : strcmp(x->name, y->name);
}

/* Opens the directory name inside at (not following a link) for listing. */
static DIR *open_sub(DIR *at, const char *name)
{
    int fd = openat(dirfd(at), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (fd >= 0 && !d) close(fd);
    return d;
}

bool smc_cache_trim(const char *dir, uint64_t cap, const char *keep, char *why, size_t n)
{
    smc_say(why, n, "%s", "");
    if (!cap) cap = SMC_CACHE_DEFAULT_CAP;
    DIR *top = dir ? opendir(dir) : NULL;
    if (!top) {
        if (dir && errno == ENOENT) return true;
        smc_say(why, n, "%s: cannot list: %s", dir ? dir : "(none)",
            dir ? strerror(errno) : "no directory");
        return false;
    }
    entry *list = NULL;
    size_t count = 0;
    uint64_t total = 0;
    bool ok = true;
    time_t stale = time(NULL) - 24 * 3600;
    for (struct dirent *ve; ok && (ve = readdir(top));) {
        DIR *vd = version_name(ve->d_name) ? open_sub(top, ve->d_name) : NULL;
        bool current = vd && atoi(ve->d_name + 1) == SMC_CACHE_FORMAT;
        for (struct dirent *fe; ok && vd && (fe = readdir(vd));) {
            DIR *sd = fan_name(fe->d_name) ? open_sub(vd, fe->d_name) : NULL;
            for (struct dirent *re; ok && sd && (re = readdir(sd));) {
                struct stat sb;
                bool rec = record_name(re->d_name), tmp = !rec && temp_name(re->d_name);
                if ((!rec && !tmp) ||
                    fstatat(dirfd(sd), re->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
                    !S_ISREG(sb.st_mode))
                    continue;
                if (tmp) { /* a writer that stopped before its rename */
                    if (sb.st_mtim.tv_sec < stale) (void)unlinkat(dirfd(sd), re->d_name, 0);
                    continue;
                }
                entry *e = smc_push(&list, count, sizeof *e);
                if (!e) {
                    smc_say(why, n, "out of memory");
                    ok = false;
                    break;
                }
                *e = (entry){.size = (uint64_t)sb.st_size,
                             .mtime = sb.st_mtim,
                             .keep = current && keep && strncmp(re->d_name, keep, 64) == 0};
                snprintf(e->ver, sizeof e->ver, "%.11s", ve->d_name); /* names checked above */
                snprintf(e->fan, sizeof e->fan, "%.2s", fe->d_name);
                snprintf(e->name, sizeof e->name, "%.79s", re->d_name);
                count++;
                total += e->size;
            }
            if (sd) closedir(sd);
        }
        if (vd) closedir(vd);
    }
    if (ok && total > cap && count > 1) qsort(list, count, sizeof *list, by_age);
    for (size_t i = 0; ok && i < count && total > cap; i++) {
        if (list[i].keep) continue;
        /* Through the directories again, none of them a link now either. */
        int v = sub_dir(dirfd(top), list[i].ver, false);
        int sub = v >= 0 ? sub_dir(v, list[i].fan, false) : -1;
        if (sub >= 0 && (unlinkat(sub, list[i].name, 0) == 0 || errno == ENOENT))
            total -= list[i].size;
        if (sub >= 0) close(sub);
        if (v >= 0) close(v);
    }
    closedir(top);
    free(list);
    return ok;
}

bool smc_cache_merge(const char *into, const char *from, size_t *copied, size_t *skipped, char *why,
                     size_t n)
{
    size_t dummy_c, dummy_s;
    if (!copied) copied = &dummy_c;
    if (!skipped) skipped = &dummy_s;
    *copied = *skipped = 0;
    smc_say(why, n, "%s", "");
    struct stat sb;
    if (!into || !from) {
        smc_say(why, n, "no directory");
        return false;
    }
    bool there = stat(from, &sb) == 0;
    if (!there || !S_ISDIR(sb.st_mode)) {
        smc_say(why, n, "%s: %s", from, there ? "not a directory" : strerror(errno));
        return false;
    }
    char ver[16];
    snprintf(ver, sizeof ver, "v%d", SMC_CACHE_FORMAT);
    int root = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int vfd = root >= 0 ? sub_dir(root, ver, false) : -1;
    int err = errno;
    if (root >= 0) close(root);
    DIR *vd = vfd >= 0 ? fdopendir(vfd) : NULL;
    if (!vd) {
        if (vfd >= 0) err = errno, close(vfd);
        bool none = err == ENOENT; /* no record of this format: nothing to merge */
        if (!none) smc_say(why, n, "%s/%s: cannot list: %s", from, ver, open_why(err));
        return none;
    }
    bool ok = true;
    for (struct dirent *fe; ok && (fe = readdir(vd));) {
        DIR *sd = fan_name(fe->d_name) ? open_sub(vd, fe->d_name) : NULL;
        for (struct dirent *re; ok && sd && (re = readdir(sd));) {
            if (!record_name(re->d_name)) continue; /* temporary files, and what is not ours */
            char key[65];
            memcpy(key, re->d_name, 64);
            key[64] = '\0';
            size_t len = 0;
            char *text = NULL;
            int f =
                strncmp(key, fe->d_name, 2) == 0
                    ? openat(dirfd(sd), re->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
                    : -1; /* in the wrong fan-out directory: load would never find it */
            struct stat rs;
            int ignored;
            if (f >= 0 && fstat(f, &rs) == 0)
                text = smc_read_fd_small(f, SMC_CACHE_MAX_BYTES, &len, &ignored);
            if (f >= 0) close(f);
            if (!record_ok(text, len, key)) {
                (*skipped)++;
                free(text);
                continue;
            }
            size_t olen = 0;
            char *old = read_record(into, key, false, &olen, NULL, 0);
            bool had = record_ok(old, olen, key);
            free(old);
            if (had) { /* the same record is there already */
                free(text);
                continue;
            }
            struct timespec times[2] = {rs.st_atim, rs.st_mtim};
            ok = write_record(into, key, text, len, times, why, n);
            if (ok) (*copied)++;
            free(text);
        }
        if (sd) closedir(sd);
    }
    closedir(vd);
    return ok;
}
