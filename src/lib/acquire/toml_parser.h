/* toml_parser.h: what the TOML reader's files share: the parser's state, the tables and their
 * keys' hash table (toml_tables.c), the text: errors, whitespace, strings and keys
 * (toml_text.c); toml.c reads values and statements over them. Private to them. */
#ifndef SMCHECK_TOML_PARSER_H
#define SMCHECK_TOML_PARSER_H

#include "acquire.h"

#include <stdbool.h>
#include <stdint.h>

/* The largest integer a double holds exactly, with all those below it. */
#define SMC_TOML_EXACT ((uint64_t)1 << 53)
#define SMC_TOML_NONE UINT32_MAX

enum { SMC_TOML_IMPLICIT, SMC_TOML_EXPLICIT, SMC_TOML_DOTTED };
enum { SMC_TOML_VALUE, SMC_TOML_TABLE, SMC_TOML_AOT };

typedef struct {
    cJSON *obj;
    uint32_t section; /* DOTTED: the header (counted from 1) under which dotted keys made it */
    uint16_t depth;   /* in the tree: the root is 0 */
    uint8_t state;
} smc_toml_table;

/* One key of one table. item NULL: an empty slot; else item->string is the key. 24 bytes: a
 * lock of 200,000 packages has a million keys. */
typedef struct {
    cJSON *item;
    uint32_t hash;  /* the key's hash, its low bits the slot it wants */
    uint32_t table; /* the table the key is in */
    uint32_t sub;   /* TABLE: the table it names; AOT: the table of its last element */
    uint8_t kind;
} smc_toml_slot;

typedef struct {
    const char *s;
    size_t len, pos;
    /* Decoded keys and strings, used as a stack: each caller puts its text at the end and cuts it
     * off again, so that a key stays put while its value (maybe an inline table) is parsed. */
    char *buf;
    size_t buf_len, buf_cap;
    smc_toml_table *tabs;
    uint32_t ntabs, tabs_cap;
    smc_toml_slot *slots;
    size_t slots_cap, slots_used;
    uint64_t k0, k1;  /* the hash's key */
    uint32_t section; /* headers so far */
    uint32_t values;  /* values read so far, SMC_TOML_MAX_VALUES at most */
    bool failed;
    size_t err_pos;
    char msg[200];
} smc_toml_parser;

static inline int peek_at(const smc_toml_parser *p, size_t i)
{
    return p->pos + i < p->len ? (unsigned char)p->s[p->pos + i] : -1;
}

static inline int peek(const smc_toml_parser *p)
{
    return peek_at(p, 0);
}

static inline bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static inline bool is_bare(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '-';
}

/* The control characters TOML allows nowhere but as newlines and tabs where it says so. */
static inline bool is_control(int c)
{
    return (c >= 0 && c < 0x20) || c == 0x7f;
}

bool toml_fail(smc_toml_parser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool toml_oom(smc_toml_parser *p);
const char *toml_show(char out[48], const char *text, size_t len);
bool toml_check_utf8(smc_toml_parser *p);
bool toml_buf_reserve(smc_toml_parser *p, size_t extra);
bool toml_buf_put(smc_toml_parser *p, const char *data, size_t n);
uint32_t toml_key_hash(const smc_toml_parser *p, uint32_t table, const char *key, size_t len);
size_t toml_slot_find(const smc_toml_parser *p, uint32_t table, const char *key, size_t len,
                        uint32_t h);
bool toml_slot_add(smc_toml_parser *p, uint32_t table, cJSON *item, uint8_t kind, uint32_t sub,
                     uint32_t h);
void toml_tables_close(smc_toml_parser *p, uint32_t first);
bool toml_add_keyed(cJSON *obj, const char *key, cJSON *item);
uint32_t toml_table_new(smc_toml_parser *p, cJSON *obj, uint8_t state, unsigned depth);
bool toml_depth_ok(smc_toml_parser *p, unsigned depth, size_t at);
uint32_t toml_child_table(smc_toml_parser *p, uint32_t parent, size_t koff, uint32_t h,
                            uint8_t state, size_t at);
bool toml_not_a_table(smc_toml_parser *p, const smc_toml_slot *sl, size_t at);
void toml_skip_ws(smc_toml_parser *p);
bool toml_take_newline(smc_toml_parser *p);
bool toml_end_of_line(smc_toml_parser *p, const char *after);
bool toml_skip_blank(smc_toml_parser *p);
bool toml_basic_string(smc_toml_parser *p, bool multi);
bool toml_literal_string(smc_toml_parser *p, bool multi);
bool toml_key_part(smc_toml_parser *p);

#endif
