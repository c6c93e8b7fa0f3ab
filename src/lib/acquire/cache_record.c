/* cache_record.c: what every record of the facts cache shares: the fields of its rows, its key
 * (a sha256), the strings it may hold; and the records of the wheel chosen for a pin (choices),
 * small JSON objects written and read here. */
#include "../base/base.h"
#include "cache_record.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* The fields of an image and a container, in the order a record's rows give them. */
const char *const cache_image_fields[IMAGE_FIELDS] = {
    "kind",          "variant", "compression", "arch",         "version_major",
    "version_minor", "offset",  "header_size", "stored_size",  "size",
    "flags",         "release", "text_arch",   "text_variant", "text_isa"};
const char *const cache_container_fields[CONTAINER_FIELDS] = {
    "offset",     "size",        "section",     "member",  "relocatable",
    "bare_cubin", "first_image", "image_count", "kernels", "kernel_names"};

bool smc_cache_key_ok(const char *s)
{
    size_t i = 0;
    for (; s && i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return s && s[64] == '\0';
}

/* Whether a string is as the model keeps them: no C0 control, DEL or C1 control (smc_sanitize). */
bool cache_clean(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len; i++)
        if (p[i] < 0x20 || p[i] == 0x7f ||
            (p[i] == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f))
            return false;
    return true;
}

/* Choices ---------------------------------------------------------------------------------- */

#define CHOICE_URL_MAX (16u << 10) /* a link of at most 8 KiB, with its page's URL before it */

static bool choice_url_ok(const char *url)
{
    size_t len = strlen(url);
    return len <= CHOICE_URL_MAX && cache_clean(url, len) &&
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
