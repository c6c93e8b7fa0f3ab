/* cache_read.c: a cache record read back into an input, trusting nothing in its text: every
 * field checked for its type and range, every count capped in proportion to the text, every
 * index checked against what it indexes, every string as the model keeps them. */
#include "cache_record.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Caps on what a record may hold, far above any real wheel's (the largest real library, cuFFT 12,
 * has 23,984 containers and as many images): they keep what a hostile record can make the reader
 * allocate in proportion to its text. Findings, errors and notes are capped by the model itself
 * (SMC_*_KEPT). */
#define MAX_LIBRARIES 1000000u
#define MAX_CONTAINERS 10000000u
#define MAX_IMAGES 10000000u
#define MAX_LIST 1000000u /* distributions, runtime files, links, a distribution's libraries */
#define MAX_SMALL 65536u  /* DT_NEEDED names, variant claims */
#define MAX_PIECES 4096u  /* pieces of one string around the prefix */

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
    if (!cache_clean(v->valuestring, len))
        return r_fail(r, "\"%s\" holds a control character", key);
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
        if (!cache_clean(piece->valuestring, len))
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
        if (!r_u64v(r, x, UINT64_MAX, &v[i], cache_image_fields[i])) return false;
    if (v[0] == 0 || v[0] > 0xffff) /* an entry's kind is 16 bits; 0 is none */
        return r_fail(r, "\"kind\" %" PRIu64 " is no entry kind", v[0]);
    if (v[1] > SMC_VARIANT_F || v[2] > SMC_COMPRESS_ZSTD || v[13] > SMC_VARIANT_F)
        return r_fail(r, "a variant or compression out of range");
    const size_t narrow[] = {3, 4, 5, 11, 12, 14};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
        if (v[narrow[i]] > UINT_MAX)
            return r_fail(r, "\"%s\" is more than %u", cache_image_fields[narrow[i]], UINT_MAX);
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
    cJSON *row =
        *at < end ? cJSON_ParseWithLengthOpts(*at, (size_t)(end - *at), &stop, false) : NULL;
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
            bool ok =
                row && (image ? r_image(r, row, &lib->images[i])
                              : r_container(r, row, &lib->containers[r->index], lib->image_count));
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
        char other[48] =
            "(unknown)"; /* its text, as far as it is cache_clean (the message is printed) */
        if (cJSON_IsString(reader_version))
            snprintf(other, sizeof other, "%s", reader_version->valuestring);
        r_fail(&r, "a record made by smcheck %s, not by this %s: not used", smc_sanitize(other),
               SMC_VERSION);
    } else if (!cJSON_IsString(key) || strcmp(key->valuestring, sha256) != 0)
        r_fail(&r, "a record for another sha256 than %s", sha256);
    else if (!same_names(cJSON_GetObjectItemCaseSensitive(root, "image_fields"),
                         cache_image_fields, IMAGE_FIELDS) ||
             !same_names(cJSON_GetObjectItemCaseSensitive(root, "container_fields"),
                         cache_container_fields, CONTAINER_FIELDS))
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
