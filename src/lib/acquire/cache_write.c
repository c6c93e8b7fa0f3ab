/* cache_write.c: the facts read from a file written as a cache record: one JSON document for
 * the input, its distributions and libraries, then one line per container and image (rows),
 * paths under the input's own prefix. It trusts its caller's model. */
#include "cache_record.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (!cache_clean(s, len)) {
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
        w_strings(&w, (char *const *)cache_image_fields, IMAGE_FIELDS, false, NULL);
    w_key(&w, "container_fields");
    w_strings(&w, (char *const *)cache_container_fields, CONTAINER_FIELDS, false, NULL);
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
