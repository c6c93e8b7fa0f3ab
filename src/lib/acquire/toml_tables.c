/* toml_tables.c: the TOML reader's tables: one hash table of every table's keys (SipHash-1-3,
 * keyed by a secret per parse, so that no input makes lookups slow), and the tables' states as
 * headers and dotted keys define them. */
#include "toml_parser.h"

#include <stdlib.h>
#include <string.h>

/* --- the keys' hash table: SipHash-1-3 of the key, keyed by a random key and the table ------- */

static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

static void sip_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = rotl(v[1], 13) ^ v[0];
    v[0] = rotl(v[0], 32);
    v[2] += v[3];
    v[3] = rotl(v[3], 16) ^ v[2];
    v[0] += v[3];
    v[3] = rotl(v[3], 21) ^ v[0];
    v[2] += v[1];
    v[1] = rotl(v[1], 17) ^ v[2];
    v[2] = rotl(v[2], 32);
}

uint32_t toml_key_hash(const smc_toml_parser *p, uint32_t table, const char *key, size_t len)
{
    uint64_t k0 = p->k0 ^ table, k1 = p->k1;
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575u, k1 ^ 0x646f72616e646f6du, k0 ^ 0x6c7967656e657261u,
                     k1 ^ 0x7465646279746573u};
    size_t i = 0;
    for (; len - i >= 8; i += 8) {
        uint64_t m;
        memcpy(&m, key + i, 8);
        v[3] ^= m;
        sip_round(v);
        v[0] ^= m;
    }
    uint64_t last = (uint64_t)len << 56;
    for (size_t k = 0; i + k < len; k++)
        last |= (uint64_t)(unsigned char)key[i + k] << (8 * k);
    v[3] ^= last;
    sip_round(v);
    v[0] ^= last;
    v[2] ^= 0xff;
    sip_round(v);
    sip_round(v);
    sip_round(v);
    uint64_t h = v[0] ^ v[1] ^ v[2] ^ v[3];
    return (uint32_t)(h ^ (h >> 32));
}

/* The slot of key in table, or SIZE_MAX. */
size_t toml_slot_find(const smc_toml_parser *p, uint32_t table, const char *key, size_t len,
                      uint32_t h)
{
    size_t mask = p->slots_cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const smc_toml_slot *sl = &p->slots[i];
        if (!sl->item) return SIZE_MAX;
        /* keys hold no NUL (U+0000 is refused), so strncmp compares all len bytes */
        if (sl->hash == h && sl->table == table && strncmp(sl->item->string, key, len) == 0 &&
            sl->item->string[len] == '\0')
            return i;
    }
}

/* Adds a key (item->string) not yet there; the table stays at most three quarters full. */
bool toml_slot_add(smc_toml_parser *p, uint32_t table, cJSON *item, uint8_t kind, uint32_t sub,
                   uint32_t h)
{
    if ((p->slots_used + 1) * 4 > p->slots_cap * 3) {
        if (p->slots_cap > SIZE_MAX / 2 / sizeof *p->slots) return toml_oom(p);
        size_t cap = p->slots_cap * 2;
        smc_toml_slot *s = calloc(cap, sizeof *s);
        if (!s) return toml_oom(p);
        for (size_t i = 0; i < p->slots_cap; i++) {
            if (!p->slots[i].item) continue;
            size_t j = (size_t)p->slots[i].hash & (cap - 1);
            while (s[j].item)
                j = (j + 1) & (cap - 1);
            s[j] = p->slots[i];
        }
        free(p->slots);
        p->slots = s;
        p->slots_cap = cap;
    }
    size_t j = (size_t)h & (p->slots_cap - 1);
    while (p->slots[j].item)
        j = (j + 1) & (p->slots_cap - 1);
    p->slots[j] = (smc_toml_slot){item, h, table, sub, kind};
    p->slots_used++;
    return true;
}

/* Takes the keys of tables first.. out of the slots (backward-shift deletion, so that the probe
 * sequences of the keys left stay whole) and the tables off the list: an inline table that has
 * closed, with what it nests, is a value nothing may add to, and its keys need no more finding
 * (a uv.lock of 800,000 dependency edges is 800,000 inline tables). */
void toml_tables_close(smc_toml_parser *p, uint32_t first)
{
    size_t mask = p->slots_cap - 1;
    for (uint32_t t = first; t < p->ntabs; t++) {
        for (const cJSON *c = p->tabs[t].obj ? p->tabs[t].obj->child : NULL; c; c = c->next) {
            uint32_t h = toml_key_hash(p, t, c->string, strlen(c->string));
            size_t i = toml_slot_find(p, t, c->string, strlen(c->string), h);
            if (i == SIZE_MAX) continue;
            for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) { /* shift back what may move */
                if (!p->slots[j].item) break;
                size_t want = p->slots[j].hash & mask;
                /* j's entry may fill hole i unless it wants a place cyclically in (i, j] */
                bool stays = i <= j ? (want > i && want <= j) : (want > i || want <= j);
                if (stays) continue;
                p->slots[i] = p->slots[j];
                i = j;
            }
            p->slots[i] = (smc_toml_slot){0};
            p->slots_used--;
        }
    }
    p->ntabs = first;
}

/* Adds item under key to obj. The keys locks repeat on every package and wheel are not copied
 * (cJSON keeps a constant key as it is): a copy is a malloc of 32 bytes, and a uv.lock of
 * 800,000 dependency edges has 800,000 "name" keys. */
bool toml_add_keyed(cJSON *obj, const char *key, cJSON *item)
{
    static const char *const common[] = {
        "name",
        "version",
        "source",
        "url",
        "hash",
        "hashes",
        "sha256",
        "size",
        "wheels",
        "sdist",
        "upload-time",
        "marker",
        "dependencies",
        "extra",
        "path",
        "registry",
        "requires-python",
        "index",
        "optional-dependencies",
        "dev-dependencies",
        "resolution-markers",
        "metadata",
        "requires-dist",
        "specifier",
        "filename",
        "editable",
        "virtual",
        "directory",
        "packages",
    };
    for (size_t i = 0; i < sizeof common / sizeof *common; i++)
        if (strcmp(key, common[i]) == 0) return cJSON_AddItemToObjectCS(obj, common[i], item);
    return cJSON_AddItemToObject(obj, key, item);
}

/* --- tables -------------------------------------------------------------------------------- */

uint32_t toml_table_new(smc_toml_parser *p, cJSON *obj, uint8_t state, unsigned depth)
{
    if (p->ntabs == p->tabs_cap) {
        if (p->tabs_cap >= UINT32_MAX / 2) {
            toml_oom(p);
            return SMC_TOML_NONE;
        }
        uint32_t cap = p->tabs_cap ? p->tabs_cap * 2 : 64;
        smc_toml_table *t = realloc(p->tabs, cap * sizeof *t);
        if (!t) {
            toml_oom(p);
            return SMC_TOML_NONE;
        }
        p->tabs = t;
        p->tabs_cap = cap;
    }
    p->tabs[p->ntabs] = (smc_toml_table){obj, p->section, (uint16_t)depth, state};
    return p->ntabs++;
}

bool toml_depth_ok(smc_toml_parser *p, unsigned depth, size_t at)
{
    if (depth <= SMC_TOML_MAX_DEPTH) return true;
    return toml_fail(p, at, "nested deeper than %d levels", SMC_TOML_MAX_DEPTH);
}

/* A new table under key (the scratch text at koff, NUL-terminated) of table parent. */
uint32_t toml_child_table(smc_toml_parser *p, uint32_t parent, size_t koff, uint32_t h,
                          uint8_t state, size_t at)
{
    unsigned depth = p->tabs[parent].depth + 1u;
    if (!toml_depth_ok(p, depth, at)) return SMC_TOML_NONE;
    cJSON *obj = cJSON_CreateObject();
    if (!obj || !toml_add_keyed(p->tabs[parent].obj, p->buf + koff, obj)) {
        cJSON_Delete(obj);
        toml_oom(p);
        return SMC_TOML_NONE;
    }
    uint32_t t = toml_table_new(p, obj, state, depth);
    if (t == SMC_TOML_NONE || !toml_slot_add(p, parent, obj, SMC_TOML_TABLE, t, h))
        return SMC_TOML_NONE;
    return t;
}

/* Why an existing key cannot be opened as a table. */
bool toml_not_a_table(smc_toml_parser *p, const smc_toml_slot *sl, size_t at)
{
    char k[48];
    const char *key = toml_show(k, sl->item->string, strlen(sl->item->string));
    if (sl->kind == SMC_TOML_AOT)
        return toml_fail(p, at, "'%s' is an array of tables: this cannot add to it", key);
    if (cJSON_IsObject(sl->item))
        return toml_fail(p, at, "'%s' is an inline table: nothing can be added to it", key);
    if (cJSON_IsArray(sl->item))
        return toml_fail(p, at, "'%s' is an array value, not a table", key);
    return toml_fail(p, at, "'%s' is already a value, not a table", key);
}
