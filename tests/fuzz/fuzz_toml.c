/* fuzz_toml.c: the TOML reader (lock files) on any bytes: a tree is walked and freed, a refusal
 * must say why in the room given. */
#include "../../src/lib/acquire/acquire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touches every node, so that a tree with a bad pointer or an unterminated string shows. */
static size_t walk(const cJSON *item)
{
    size_t n = 1;
    if (item->string) n += strlen(item->string);
    if (cJSON_IsString(item)) n += strlen(item->valuestring);
    for (const cJSON *c = item->child; c; c = c->next)
        n += walk(c);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly size bytes, no NUL after it: a read past the end is caught */
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    char why[64];
    cJSON *t = smc_toml_parse(text, size, why, sizeof why);
    if (t) {
        if (walk(t) == 0) abort();
        cJSON_Delete(t);
    } else if (strncmp(why, "line ", 5) != 0 || strlen(why) >= sizeof why)
        abort();
    free(text);
    return 0;
}
