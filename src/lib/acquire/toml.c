/* toml.c: a TOML 1.0 reader that builds a cJSON tree from lock files (pylock.toml, uv.lock) whose
 * bytes anyone may have written: every read is bounded by the length, the tree's depth is bounded
 * (SMC_TOML_MAX_DEPTH) and so is the recursion, and keys are found through one hash table keyed by
 * a secret per parse, so that no input makes the work grow faster than its length.
 *
 * TOML's rules on defining tables are kept as tomllib (Python 3.11) keeps them. Each table has a
 * state: IMPLICIT (made as a part of a [a.b.c] header's path, may later get its own header),
 * EXPLICIT (made by its own header, or an element of an array of tables) or DOTTED (made or first
 * reached by dotted keys under one header: only that header's keys may add to it, no header may
 * define it). Inline tables and arrays are values: nothing may add to them once written. */
#include "acquire.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

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

/* Keeps the first error only: a later one would be a consequence. Returns false for the callers'
 * `return fail(...)`. */
__attribute__((format(printf, 3, 4))) static bool fail(smc_toml_parser *p, size_t at,
                                                       const char *fmt, ...)
{
    if (p->failed) return false;
    p->failed = true;
    p->err_pos = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    return false;
}

static bool oom(smc_toml_parser *p)
{
    return fail(p, p->pos, "out of memory");
}

/* A key or text as a message shows it: at most 40 bytes, anything but printable ASCII as '?'
 * (it is the input's, and the message may reach a terminal). */
static const char *show(char out[48], const char *text, size_t len)
{
    size_t n = 0;
    for (; n < len && n < 40; n++)
        out[n] = text[n] >= 0x20 && text[n] < 0x7f ? text[n] : '?';
    strcpy(out + n, n < len ? "..." : "");
    return out;
}

static int peek_at(const smc_toml_parser *p, size_t i)
{
    return p->pos + i < p->len ? (unsigned char)p->s[p->pos + i] : -1;
}

static int peek(const smc_toml_parser *p)
{
    return peek_at(p, 0);
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_bare(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '-';
}

/* The control characters TOML allows nowhere but as newlines and tabs where it says so. */
static bool is_control(int c)
{
    return (c >= 0 && c < 0x20) || c == 0x7f;
}

/* The whole text is UTF-8 (TOML requires it): checked once here, so that the rest may copy any
 * byte at or above 0x80 as it is. Overlong forms, surrogates and code points past U+10FFFF are not
 * UTF-8. */
static bool check_utf8(smc_toml_parser *p)
{
    const unsigned char *s = (const unsigned char *)p->s;
    for (size_t i = 0; i < p->len;) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        unsigned lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            need = 1;
        else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            if (c == 0xe0) lo = 0xa0;
            if (c == 0xed) hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            if (c == 0xf0) lo = 0x90;
            if (c == 0xf4) hi = 0x8f;
        } else
            return fail(p, i, "invalid UTF-8 (byte 0x%02x)", c);
        if (p->len - i <= need) return fail(p, i, "invalid UTF-8 (truncated sequence)");
        if (s[i + 1] < lo || s[i + 1] > hi)
            return fail(p, i, "invalid UTF-8 (byte 0x%02x after 0x%02x)", s[i + 1], c);
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return fail(p, i, "invalid UTF-8 (byte 0x%02x in a sequence)", s[i + k]);
        i += need + 1;
    }
    return true;
}

/* --- the scratch stack --------------------------------------------------------------------- */

static bool buf_reserve(smc_toml_parser *p, size_t extra)
{
    if (p->buf_cap - p->buf_len > extra) return true; /* one more for a NUL */
    if (extra > SIZE_MAX / 4 - p->buf_len) return oom(p);
    size_t cap = p->buf_cap ? p->buf_cap : 256;
    while (cap - p->buf_len <= extra)
        cap *= 2;
    char *b = realloc(p->buf, cap);
    if (!b) return oom(p);
    p->buf = b;
    p->buf_cap = cap;
    return true;
}

static bool buf_put(smc_toml_parser *p, const char *data, size_t n)
{
    if (!buf_reserve(p, n)) return false;
    memcpy(p->buf + p->buf_len, data, n);
    p->buf_len += n;
    p->buf[p->buf_len] = '\0';
    return true;
}

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

static uint32_t key_hash(const smc_toml_parser *p, uint32_t table, const char *key, size_t len)
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
static size_t slot_find(const smc_toml_parser *p, uint32_t table, const char *key, size_t len,
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
static bool slot_add(smc_toml_parser *p, uint32_t table, cJSON *item, uint8_t kind, uint32_t sub,
                     uint32_t h)
{
    if ((p->slots_used + 1) * 4 > p->slots_cap * 3) {
        if (p->slots_cap > SIZE_MAX / 2 / sizeof *p->slots) return oom(p);
        size_t cap = p->slots_cap * 2;
        smc_toml_slot *s = calloc(cap, sizeof *s);
        if (!s) return oom(p);
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
static void tables_close(smc_toml_parser *p, uint32_t first)
{
    size_t mask = p->slots_cap - 1;
    for (uint32_t t = first; t < p->ntabs; t++) {
        for (const cJSON *c = p->tabs[t].obj ? p->tabs[t].obj->child : NULL; c; c = c->next) {
            uint32_t h = key_hash(p, t, c->string, strlen(c->string));
            size_t i = slot_find(p, t, c->string, strlen(c->string), h);
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
static bool add_keyed(cJSON *obj, const char *key, cJSON *item)
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

static uint32_t table_new(smc_toml_parser *p, cJSON *obj, uint8_t state, unsigned depth)
{
    if (p->ntabs == p->tabs_cap) {
        if (p->tabs_cap >= UINT32_MAX / 2) {
            oom(p);
            return SMC_TOML_NONE;
        }
        uint32_t cap = p->tabs_cap ? p->tabs_cap * 2 : 64;
        smc_toml_table *t = realloc(p->tabs, cap * sizeof *t);
        if (!t) {
            oom(p);
            return SMC_TOML_NONE;
        }
        p->tabs = t;
        p->tabs_cap = cap;
    }
    p->tabs[p->ntabs] = (smc_toml_table){obj, p->section, (uint16_t)depth, state};
    return p->ntabs++;
}

static bool depth_ok(smc_toml_parser *p, unsigned depth, size_t at)
{
    if (depth <= SMC_TOML_MAX_DEPTH) return true;
    return fail(p, at, "nested deeper than %d levels", SMC_TOML_MAX_DEPTH);
}

/* A new table under key (the scratch text at koff, NUL-terminated) of table parent. */
static uint32_t child_table(smc_toml_parser *p, uint32_t parent, size_t koff, uint32_t h,
                            uint8_t state, size_t at)
{
    unsigned depth = p->tabs[parent].depth + 1u;
    if (!depth_ok(p, depth, at)) return SMC_TOML_NONE;
    cJSON *obj = cJSON_CreateObject();
    if (!obj || !add_keyed(p->tabs[parent].obj, p->buf + koff, obj)) {
        cJSON_Delete(obj);
        oom(p);
        return SMC_TOML_NONE;
    }
    uint32_t t = table_new(p, obj, state, depth);
    if (t == SMC_TOML_NONE || !slot_add(p, parent, obj, SMC_TOML_TABLE, t, h)) return SMC_TOML_NONE;
    return t;
}

/* Why an existing key cannot be opened as a table. */
static bool not_a_table(smc_toml_parser *p, const smc_toml_slot *sl, size_t at)
{
    char k[48];
    const char *key = show(k, sl->item->string, strlen(sl->item->string));
    if (sl->kind == SMC_TOML_AOT)
        return fail(p, at, "'%s' is an array of tables: this cannot add to it", key);
    if (cJSON_IsObject(sl->item))
        return fail(p, at, "'%s' is an inline table: nothing can be added to it", key);
    if (cJSON_IsArray(sl->item)) return fail(p, at, "'%s' is an array value, not a table", key);
    return fail(p, at, "'%s' is already a value, not a table", key);
}

/* --- whitespace, comments, newlines -------------------------------------------------------- */

static void skip_ws(smc_toml_parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
        p->pos++;
}

/* From '#' to the end of the line (left there). */
static bool skip_comment(smc_toml_parser *p)
{
    for (p->pos++; p->pos < p->len; p->pos++) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '\n') return true;
        if (c == '\r') {
            if (peek_at(p, 1) == '\n') return true;
            return fail(p, p->pos, "carriage return without a line feed");
        }
        if (is_control(c) && c != '\t')
            return fail(p, p->pos, "control character U+%04X in a comment", c);
    }
    return true;
}

/* Takes one newline (LF or CRLF); false when there is none (a bare CR is an error). */
static bool take_newline(smc_toml_parser *p)
{
    int c = peek(p);
    if (c == '\n') {
        p->pos++;
        return true;
    }
    if (c == '\r') {
        if (peek_at(p, 1) == '\n') {
            p->pos += 2;
            return true;
        }
        fail(p, p->pos, "carriage return without a line feed");
    }
    return false;
}

/* The rest of a line after a statement: blanks, maybe a comment, the newline or the end. */
static bool end_of_line(smc_toml_parser *p, const char *after)
{
    skip_ws(p);
    if (peek(p) == '#' && !skip_comment(p)) return false;
    if (p->pos >= p->len || take_newline(p)) return true;
    if (p->failed) return false;
    int c = peek(p);
    if (c >= 0x20 && c < 0x7f)
        return fail(p, p->pos, "'%c' after %s: expected a new line", c, after);
    return fail(p, p->pos, "byte 0x%02x after %s: expected a new line", (unsigned)c, after);
}

/* Blanks, comments and newlines, as arrays allow between their elements. */
static bool skip_blank(smc_toml_parser *p)
{
    for (;;) {
        skip_ws(p);
        if (peek(p) == '#' && !skip_comment(p)) return false;
        if (!take_newline(p)) return !p->failed;
    }
}

/* --- strings ------------------------------------------------------------------------------- */

static bool put_utf8(smc_toml_parser *p, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | cp >> 12);
        u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | cp >> 18);
        u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return buf_put(p, u, n);
}

/* One escape at pos (the backslash) of a basic string. */
static bool escape(smc_toml_parser *p)
{
    size_t at = p->pos;
    int e = peek_at(p, 1);
    char c;
    switch (e) {
    case 'b':
        c = '\b';
        break;
    case 't':
        c = '\t';
        break;
    case 'n':
        c = '\n';
        break;
    case 'f':
        c = '\f';
        break;
    case 'r':
        c = '\r';
        break;
    case '"':
        c = '"';
        break;
    case '\\':
        c = '\\';
        break;
    case 'u':
    case 'U': {
        int width = e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int i = 0; i < width; i++) {
            int h = peek_at(p, 2 + (size_t)i);
            unsigned d;
            if (is_digit(h))
                d = (unsigned)(h - '0');
            else if (h >= 'a' && h <= 'f')
                d = (unsigned)(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                d = (unsigned)(h - 'A' + 10);
            else
                return fail(p, at, "\\%c needs %d hexadecimal digits", e, width);
            cp = cp << 4 | d;
        }
        if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
            return fail(p, at, "\\%c%0*X is not a Unicode scalar value", e, width, cp);
        if (cp == 0)
            return fail(p, at, "\\%c%0*X: U+0000 cannot be held (cJSON strings end at NUL)", e,
                        width, cp);
        p->pos += 2 + (size_t)width;
        return put_utf8(p, cp);
    }
    default:
        if (e >= 0x20 && e < 0x7f) return fail(p, at, "invalid escape \\%c", e);
        return fail(p, at, "invalid escape: a backslash before byte 0x%02x", (unsigned)(e & 0xff));
    }
    p->pos += 2;
    return buf_put(p, &c, 1);
}

static bool bad_string_char(smc_toml_parser *p, int c, size_t open, bool multi)
{
    if (c < 0)
        return fail(p, open, multi ? "unterminated multi-line string" : "unterminated string");
    if (c == '\r' && multi) return fail(p, p->pos, "carriage return without a line feed");
    if (c == '\n' || c == '\r') return fail(p, p->pos, "newline in a single-line string");
    return fail(p, p->pos, "control character U+%04X in a string", (unsigned)c);
}

/* After a line-ending backslash: blanks and newlines up to the next text. */
static bool skip_blank_in_string(smc_toml_parser *p)
{
    for (;;) {
        skip_ws(p);
        if (!take_newline(p)) return !p->failed;
    }
}

/* A basic string, "..." or """...""", decoded onto the scratch stack. */
static bool basic_string(smc_toml_parser *p, bool multi)
{
    size_t open = p->pos;
    p->pos += multi ? 3 : 1;
    if (multi && peek(p) == '\n') /* a newline right after the opening is not content */
        p->pos++;
    else if (multi && peek(p) == '\r' && peek_at(p, 1) == '\n')
        p->pos += 2;
    for (;;) {
        size_t run = p->pos;
        while (p->pos < p->len) {
            unsigned char c = (unsigned char)p->s[p->pos];
            if (c == '"' || c == '\\' || (is_control(c) && c != '\t' && !(multi && c == '\n')))
                break;
            p->pos++;
        }
        if (!buf_put(p, p->s + run, p->pos - run)) return false;
        int c = peek(p);
        if (c == '"') {
            if (!multi) {
                p->pos++;
                return true;
            }
            if (peek_at(p, 1) == '"' && peek_at(p, 2) == '"') {
                /* """ ends it; one or two quotes more belong to the content */
                p->pos += 3;
                for (int k = 0; k < 2 && peek(p) == '"'; k++, p->pos++)
                    if (!buf_put(p, "\"", 1)) return false;
                return true;
            }
            p->pos++;
            if (!buf_put(p, "\"", 1)) return false;
        } else if (c == '\\') {
            int e = peek_at(p, 1);
            if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
                /* a line-ending backslash: it, blanks and newlines up to the next text go */
                size_t at = p->pos++;
                skip_ws(p);
                if (!take_newline(p)) {
                    if (p->failed) return false;
                    return fail(p, at, "a backslash followed by blanks must end the line");
                }
                if (!skip_blank_in_string(p)) return false;
            } else if (!escape(p))
                return false;
        } else if (multi && c == '\r' && peek_at(p, 1) == '\n') {
            p->pos += 2; /* a newline is LF, as tomllib has it */
            if (!buf_put(p, "\n", 1)) return false;
        } else
            return bad_string_char(p, c, open, multi);
    }
}

/* A literal string, '...' or '''...''', copied onto the scratch stack. */
static bool literal_string(smc_toml_parser *p, bool multi)
{
    size_t open = p->pos;
    p->pos += multi ? 3 : 1;
    if (multi && peek(p) == '\n')
        p->pos++;
    else if (multi && peek(p) == '\r' && peek_at(p, 1) == '\n')
        p->pos += 2;
    for (;;) {
        size_t run = p->pos;
        while (p->pos < p->len) {
            unsigned char c = (unsigned char)p->s[p->pos];
            if (c == '\'' || (is_control(c) && c != '\t' && !(multi && c == '\n'))) break;
            p->pos++;
        }
        if (!buf_put(p, p->s + run, p->pos - run)) return false;
        int c = peek(p);
        if (c == '\'') {
            if (!multi) {
                p->pos++;
                return true;
            }
            if (peek_at(p, 1) == '\'' && peek_at(p, 2) == '\'') {
                p->pos += 3;
                for (int k = 0; k < 2 && peek(p) == '\''; k++, p->pos++)
                    if (!buf_put(p, "'", 1)) return false;
                return true;
            }
            p->pos++;
            if (!buf_put(p, "'", 1)) return false;
        } else if (multi && c == '\r' && peek_at(p, 1) == '\n') {
            p->pos += 2;
            if (!buf_put(p, "\n", 1)) return false;
        } else
            return bad_string_char(p, c, open, multi);
    }
}

/* --- keys ---------------------------------------------------------------------------------- */

/* One part of a (dotted) key, decoded onto the scratch stack, NUL-terminated. */
static bool key_part(smc_toml_parser *p)
{
    int c = peek(p);
    if (c == '"' || c == '\'') {
        if (peek_at(p, 1) == c && peek_at(p, 2) == c)
            return fail(p, p->pos, "a key cannot be a multi-line string");
        return c == '"' ? basic_string(p, false) : literal_string(p, false);
    }
    size_t start = p->pos;
    while (is_bare(peek(p)))
        p->pos++;
    if (p->pos == start) {
        if (c >= 0x20 && c < 0x7f) return fail(p, p->pos, "expected a key, found '%c'", c);
        if (c < 0) return fail(p, p->pos, "expected a key, found the end");
        return fail(p, p->pos, "expected a key, found byte 0x%02x", (unsigned)c);
    }
    return buf_put(p, p->s + start, p->pos - start);
}

/* --- values -------------------------------------------------------------------------------- */

static bool value(smc_toml_parser *p, unsigned depth, cJSON **out);
static bool keyval(smc_toml_parser *p, uint32_t t);

/* The decoded text at off..buf_len as a cJSON string; the scratch stack is cut back to off. */
static bool string_item(smc_toml_parser *p, size_t off, cJSON **out)
{
    if (!buf_reserve(p, 0)) return false;
    p->buf[p->buf_len] = '\0';
    *out = cJSON_CreateString(p->buf + off);
    p->buf_len = off;
    return *out ? true : oom(p);
}

/* Digits with single underscores between them; the first must be there. */
static bool digits(smc_toml_parser *p, int base)
{
    bool first = true;
    for (;;) {
        int c = peek(p);
        bool ok = base == 16 ? is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
                             : c >= '0' && c < '0' + base;
        if (ok) {
            p->pos++;
            first = false;
            continue;
        }
        if (c == '_' && !first) {
            int d = peek_at(p, 1);
            bool next = base == 16 ? is_digit(d) || (d >= 'a' && d <= 'f') || (d >= 'A' && d <= 'F')
                                   : d >= '0' && d < '0' + base;
            if (!next) return fail(p, p->pos, "'_' in a number must stand between digits");
            p->pos++;
            continue;
        }
        if (first) return fail(p, p->pos, "expected a digit");
        return true;
    }
}

/* The integer spelled by s[start..end) in base, underscores left out; refused beyond 2^53. */
static bool integer_value(smc_toml_parser *p, size_t start, size_t end, int base, bool neg,
                          size_t at, cJSON **out)
{
    uint64_t v = 0;
    for (size_t i = start; i < end; i++) {
        int c = (unsigned char)p->s[i];
        if (c == '_') continue;
        unsigned d = is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
        v = v * (unsigned)base + d; /* below 2^53 * 16 + 15: no overflow */
        if (v > SMC_TOML_EXACT) {
            char t[48];
            return fail(p, at,
                        "integer %s is beyond +-2^53, which a JSON number cannot hold exactly",
                        show(t, p->s + at, end - at));
        }
    }
    *out = cJSON_CreateNumber(neg && v ? -(double)v : (double)v); /* -0 is 0 */
    return *out ? true : oom(p);
}

/* A float's text, checked already: underscores left out, the locale's decimal point for strtod. */
static bool float_value(smc_toml_parser *p, size_t start, size_t end, cJSON **out)
{
    const char *point = localeconv()->decimal_point;
    size_t plen = point && *point ? strlen(point) : 1, off = p->buf_len;
    if (!buf_reserve(p, (end - start) * plen)) return false;
    char *d = p->buf + off;
    for (size_t i = start; i < end; i++) {
        char c = p->s[i];
        if (c == '_') continue;
        if (c == '.' && point && *point) {
            memcpy(d, point, plen);
            d += plen;
        } else
            *d++ = c;
    }
    *d = '\0';
    double v = strtod(p->buf + off, NULL);
    *out = cJSON_CreateNumber(v);
    return *out ? true : oom(p);
}

/* An integer or float (decimal; 0x, 0o, 0b integers; inf, nan). */
static bool number(smc_toml_parser *p, cJSON **out)
{
    size_t start = p->pos;
    int c = peek(p);
    bool neg = c == '-', sign = c == '-' || c == '+';
    if (sign) p->pos++;
    if (p->len - p->pos >= 3 &&
        (memcmp(p->s + p->pos, "inf", 3) == 0 || memcmp(p->s + p->pos, "nan", 3) == 0)) {
        bool inf = p->s[p->pos] == 'i';
        p->pos += 3;
        *out = cJSON_CreateNumber(inf ? (neg ? -HUGE_VAL : HUGE_VAL) : NAN);
        return *out ? true : oom(p);
    }
    c = peek(p);
    if (!sign && c == '0' &&
        (peek_at(p, 1) == 'x' || peek_at(p, 1) == 'o' || peek_at(p, 1) == 'b')) {
        int k = peek_at(p, 1), base = k == 'x' ? 16 : k == 'o' ? 8 : 2;
        p->pos += 2;
        size_t from = p->pos;
        if (!digits(p, base)) return false;
        return integer_value(p, from, p->pos, base, false, start, out);
    }
    if (!is_digit(c)) {
        if (c >= 0x20 && c < 0x7f) return fail(p, p->pos, "expected a value, found '%c'", c);
        return fail(p, p->pos, "expected a value");
    }
    if (c == '0') {
        p->pos++;
        if (is_digit(peek(p)) || peek(p) == '_')
            return fail(p, start, "a decimal number cannot have a leading zero");
    } else if (!digits(p, 10))
        return false;
    size_t int_end = p->pos;
    bool is_float = false;
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p))) return fail(p, p->pos, "expected a digit after the decimal point");
        if (!digits(p, 10)) return false;
        is_float = true;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-') p->pos++;
        if (!is_digit(peek(p))) return fail(p, p->pos, "expected digits in the exponent");
        if (!digits(p, 10)) return false;
        is_float = true;
    }
    if (is_float) return float_value(p, start, p->pos, out);
    return integer_value(p, sign ? start + 1 : start, int_end, 10, neg, start, out);
}

/* n digits at pos + i, their value in *v. */
static bool fixed_digits(const smc_toml_parser *p, size_t i, int n, int *v)
{
    *v = 0;
    for (int k = 0; k < n; k++) {
        int c = peek_at(p, i + (size_t)k);
        if (!is_digit(c)) return false;
        *v = *v * 10 + c - '0';
    }
    return true;
}

/* HH:MM:SS with an optional fraction at pos + i: its length, 0 when there is none. As in tomllib
 * (Python's datetime), a 60th second is refused. */
static size_t time_len(const smc_toml_parser *p, size_t i)
{
    int h, m, s;
    if (!fixed_digits(p, i, 2, &h) || peek_at(p, i + 2) != ':' || !fixed_digits(p, i + 3, 2, &m) ||
        peek_at(p, i + 5) != ':' || !fixed_digits(p, i + 6, 2, &s) || h > 23 || m > 59 || s > 59)
        return 0;
    size_t n = 8;
    if (peek_at(p, i + n) == '.' && is_digit(peek_at(p, i + n + 1))) {
        n += 2;
        while (is_digit(peek_at(p, i + n)))
            n++;
    }
    return n;
}

/* A date, date-time (local or with an offset) or local time, kept as its text. The time after a
 * date is optional (after a space, what follows may be a comment); what does not fit the form
 * ends the value, and the caller finds the rest out of place. */
static bool date_time(smc_toml_parser *p, cJSON **out)
{
    size_t start = p->pos;
    if (peek_at(p, 2) == ':') { /* a local time */
        size_t n = time_len(p, 0);
        if (!n) return fail(p, start, "invalid time (HH:MM:SS, 00:00:00 to 23:59:59)");
        p->pos += n;
    } else {
        int y, m, d;
        static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (!fixed_digits(p, 0, 4, &y) || peek_at(p, 4) != '-' || !fixed_digits(p, 5, 2, &m) ||
            peek_at(p, 7) != '-' || !fixed_digits(p, 8, 2, &d))
            return fail(p, start, "invalid date (YYYY-MM-DD)");
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if (y < 1 || m < 1 || m > 12 || d < 1 || d > days[m - 1] + (m == 2 && leap))
            return fail(p, start, "invalid date: no such day (years 0001 to 9999)");
        p->pos += 10;
        int c = peek(p);
        size_t n = c == 'T' || c == 't' || c == ' ' ? time_len(p, 1) : 0;
        if (!n && (c == 'T' || c == 't'))
            return fail(p, p->pos, "invalid time after the date (HH:MM:SS)");
        if (n) {
            p->pos += 1 + n;
            c = peek(p);
            int oh, om;
            if (c == 'Z' || c == 'z')
                p->pos++;
            else if ((c == '+' || c == '-') && fixed_digits(p, 1, 2, &oh) && peek_at(p, 3) == ':' &&
                     fixed_digits(p, 4, 2, &om) && oh <= 23 && om <= 59)
                p->pos += 6;
        }
    }
    size_t off = p->buf_len;
    return buf_put(p, p->s + start, p->pos - start) && string_item(p, off, out);
}

/* [ values, ... ] over any number of lines, a trailing comma allowed. */
static bool array(smc_toml_parser *p, unsigned depth, cJSON **out)
{
    if (!depth_ok(p, depth, p->pos)) return false;
    cJSON *arr = cJSON_CreateArray();
    if (!arr) return oom(p);
    p->pos++;
    for (;;) {
        if (!skip_blank(p)) break;
        if (peek(p) == ']') {
            p->pos++;
            *out = arr;
            return true;
        }
        cJSON *v;
        if (!value(p, depth + 1, &v)) break;
        if (!cJSON_AddItemToArray(arr, v)) {
            cJSON_Delete(v);
            oom(p);
            break;
        }
        if (!skip_blank(p)) break;
        int c = peek(p);
        if (c == ',') {
            p->pos++;
            continue;
        }
        if (c == ']') {
            p->pos++;
            *out = arr;
            return true;
        }
        fail(p, p->pos, c < 0 ? "unterminated array" : "expected ',' or ']' in an array");
        break;
    }
    cJSON_Delete(arr);
    return false;
}

/* { key = value, ... } on one line (TOML 1.0): no trailing comma; nothing adds to it later. */
static bool inline_table(smc_toml_parser *p, unsigned depth, cJSON **out)
{
    if (!depth_ok(p, depth, p->pos)) return false;
    cJSON *obj = cJSON_CreateObject();
    if (!obj) return oom(p);
    uint32_t t = table_new(p, obj, SMC_TOML_EXPLICIT, depth);
    if (t == SMC_TOML_NONE) goto bad;
    p->pos++;
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        tables_close(p, t);
        *out = obj;
        return true;
    }
    for (;;) {
        if (!keyval(p, t)) goto bad;
        skip_ws(p);
        int c = peek(p);
        if (c == '}') {
            p->pos++;
            tables_close(p, t);
            *out = obj;
            return true;
        }
        if (c != ',') {
            fail(p, p->pos,
                 c < 0 ? "unterminated inline table"
                       : "expected ',' or '}' in an inline table (it must fit on one line)");
            goto bad;
        }
        p->pos++;
        skip_ws(p);
        if (peek(p) == '}') {
            fail(p, p->pos, "a trailing comma in an inline table");
            goto bad;
        }
    }
bad:
    cJSON_Delete(obj);
    return false;
}

/* Any value at pos; depth: its own in the tree, should it be an array or inline table. */
static bool value(smc_toml_parser *p, unsigned depth, cJSON **out)
{
    if (++p->values > SMC_TOML_MAX_VALUES) /* some 100 bytes a value, whatever its text */
        return fail(p, p->pos, "more than %u values: not read", SMC_TOML_MAX_VALUES);
    int c = peek(p);
    size_t off = p->buf_len;
    switch (c) {
    case '"':
    case '\'': {
        bool multi = peek_at(p, 1) == c && peek_at(p, 2) == c;
        bool ok = c == '"' ? basic_string(p, multi) : literal_string(p, multi);
        if (!ok) {
            p->buf_len = off;
            return false;
        }
        return string_item(p, off, out);
    }
    case 't':
    case 'f': {
        const char *word = c == 't' ? "true" : "false";
        size_t n = strlen(word);
        if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
            return fail(p, p->pos, "expected a value (true or false?)");
        p->pos += n;
        *out = cJSON_CreateBool(c == 't');
        return *out ? true : oom(p);
    }
    case '[':
        return array(p, depth, out);
    case '{':
        return inline_table(p, depth, out);
    default:
        if (is_digit(c) && is_digit(peek_at(p, 1)) &&
            ((is_digit(peek_at(p, 2)) && is_digit(peek_at(p, 3)) && peek_at(p, 4) == '-') ||
             peek_at(p, 2) == ':'))
            return date_time(p, out);
        if (c < 0) return fail(p, p->pos, "expected a value, found the end");
        return number(p, out);
    }
}

/* --- statements ---------------------------------------------------------------------------- */

/* Where dotted keys under the current header step into key of table t: a new table, or one that
 * these keys made or that only a header's path made; no other. */
static uint32_t dotted_table(smc_toml_parser *p, uint32_t t, size_t koff, size_t klen, size_t at)
{
    uint32_t h = key_hash(p, t, p->buf + koff, klen);
    size_t i = slot_find(p, t, p->buf + koff, klen, h);
    if (i == SIZE_MAX) return child_table(p, t, koff, h, SMC_TOML_DOTTED, at);
    const smc_toml_slot *sl = &p->slots[i];
    if (sl->kind != SMC_TOML_TABLE) {
        not_a_table(p, sl, at);
        return SMC_TOML_NONE;
    }
    smc_toml_table *sub = &p->tabs[sl->sub];
    char k[48];
    if (sub->state == SMC_TOML_IMPLICIT) {
        sub->state = SMC_TOML_DOTTED;
        sub->section = p->section;
    } else if (sub->state == SMC_TOML_EXPLICIT) {
        fail(p, at, "table '%s' has its own [header]: dotted keys cannot add to it",
             show(k, p->buf + koff, klen));
        return SMC_TOML_NONE;
    } else if (sub->section != p->section) {
        fail(p, at, "table '%s' was made by dotted keys under another header: it is closed",
             show(k, p->buf + koff, klen));
        return SMC_TOML_NONE;
    }
    return sl->sub;
}

/* key = value (keys maybe dotted) into table t. */
static bool keyval(smc_toml_parser *p, uint32_t t)
{
    size_t mark = p->buf_len, at;
    for (;;) {
        at = p->pos;
        p->buf_len = mark;
        if (!key_part(p)) return false;
        skip_ws(p);
        if (peek(p) != '.') break;
        p->pos++;
        skip_ws(p);
        t = dotted_table(p, t, mark, p->buf_len - mark, at);
        if (t == SMC_TOML_NONE) return false;
    }
    size_t klen = p->buf_len - mark;
    p->buf_len++; /* the key's NUL stays below what the value puts on the stack */
    uint32_t h = key_hash(p, t, p->buf + mark, klen);
    if (slot_find(p, t, p->buf + mark, klen, h) != SIZE_MAX) {
        char k[48];
        return fail(p, at, "key '%s' is defined twice", show(k, p->buf + mark, klen));
    }
    if (peek(p) != '=') {
        int c = peek(p);
        if (c >= 0x20 && c < 0x7f)
            return fail(p, p->pos, "expected '=' after a key, found '%c'", c);
        return fail(p, p->pos, "expected '=' after a key");
    }
    p->pos++;
    skip_ws(p);
    cJSON *v;
    if (!value(p, p->tabs[t].depth + 1u, &v)) return false;
    if (!add_keyed(p->tabs[t].obj, p->buf + mark, v)) {
        cJSON_Delete(v);
        return oom(p);
    }
    if (!slot_add(p, t, v, SMC_TOML_VALUE, 0, h)) return false;
    p->buf_len = mark;
    return true;
}

/* [a.b.c] or [[a.b.c]]: the table that the keys after it go to, in *cur. */
static bool header(smc_toml_parser *p, uint32_t *cur)
{
    bool aot = peek_at(p, 1) == '[';
    p->pos += aot ? 2 : 1;
    if (p->section == UINT32_MAX) return fail(p, p->pos, "too many tables");
    p->section++;
    skip_ws(p);
    uint32_t t = 0;
    size_t mark = p->buf_len, at;
    char k[48];
    for (;;) {
        at = p->pos;
        p->buf_len = mark;
        if (!key_part(p)) return false;
        skip_ws(p);
        if (peek(p) != '.') break;
        p->pos++;
        skip_ws(p);
        /* a part of the path: any table, or the last element of an array of tables */
        size_t klen = p->buf_len - mark;
        uint32_t h = key_hash(p, t, p->buf + mark, klen);
        size_t i = slot_find(p, t, p->buf + mark, klen, h);
        if (i == SIZE_MAX) {
            t = child_table(p, t, mark, h, SMC_TOML_IMPLICIT, at);
            if (t == SMC_TOML_NONE) return false;
        } else if (p->slots[i].kind == SMC_TOML_VALUE)
            return not_a_table(p, &p->slots[i], at);
        else
            t = p->slots[i].sub;
    }
    size_t klen = p->buf_len - mark;
    const char *key = p->buf + mark;
    uint32_t h = key_hash(p, t, key, klen);
    size_t i = slot_find(p, t, key, klen, h);
    if (!aot) {
        if (i == SIZE_MAX) {
            t = child_table(p, t, mark, h, SMC_TOML_EXPLICIT, at);
            if (t == SMC_TOML_NONE) return false;
        } else if (p->slots[i].kind == SMC_TOML_TABLE) {
            smc_toml_table *sub = &p->tabs[p->slots[i].sub];
            if (sub->state == SMC_TOML_EXPLICIT)
                return fail(p, at, "table [%s] is defined twice", show(k, key, klen));
            if (sub->state == SMC_TOML_DOTTED)
                return fail(p, at, "table [%s] was already defined by dotted keys",
                            show(k, key, klen));
            sub->state = SMC_TOML_EXPLICIT;
            t = p->slots[i].sub;
        } else if (p->slots[i].kind == SMC_TOML_AOT)
            return fail(p, at, "[%s] is an array of tables, not a table", show(k, key, klen));
        else
            return fail(p, at, "key '%s' already holds a value: it cannot become a table",
                        show(k, key, klen));
    } else {
        cJSON *arr;
        if (i == SIZE_MAX) {
            unsigned depth = p->tabs[t].depth + 1u;
            if (!depth_ok(p, depth + 1, at)) return false;
            arr = cJSON_CreateArray();
            if (!arr || !add_keyed(p->tabs[t].obj, key, arr)) {
                cJSON_Delete(arr);
                return oom(p);
            }
            if (!slot_add(p, t, arr, SMC_TOML_AOT, 0, h)) return false;
            i = slot_find(p, t, key, klen, h);
        } else if (p->slots[i].kind == SMC_TOML_AOT)
            arr = p->slots[i].item;
        else if (p->slots[i].kind == SMC_TOML_VALUE && cJSON_IsArray(p->slots[i].item))
            return fail(p, at, "'%s' is an array value: [[%s]] cannot append to it",
                        show(k, key, klen), k);
        else
            return fail(p, at, "'%s' is already a %s, not an array of tables", show(k, key, klen),
                        p->slots[i].kind == SMC_TOML_TABLE ? "table" : "value");
        cJSON *elem = cJSON_CreateObject();
        if (!elem || !cJSON_AddItemToArray(arr, elem)) {
            cJSON_Delete(elem);
            return oom(p);
        }
        uint32_t e = table_new(p, elem, SMC_TOML_EXPLICIT, p->tabs[t].depth + 2u);
        if (e == SMC_TOML_NONE) return false;
        p->slots[i].sub = e; /* later headers through it reach this element */
        t = e;
    }
    p->buf_len = mark;
    if (peek(p) != ']') return fail(p, p->pos, "expected ']' to close the table header");
    p->pos++;
    if (aot) {
        if (peek(p) != ']') return fail(p, p->pos, "expected ']]' to close the header");
        p->pos++;
    }
    *cur = t;
    return end_of_line(p, "a table header");
}

/* A random key for the hash, so that no input can be made to collide; should the kernel give
 * none, addresses (randomised by ASLR) stand in. */
static void seed(smc_toml_parser *p)
{
    uint64_t k[2];
    if (getrandom(k, sizeof k, GRND_NONBLOCK) != (ssize_t)sizeof k) {
        k[0] = (uint64_t)(uintptr_t)p ^ (uint64_t)(uintptr_t)&seed * 0x9e3779b97f4a7c15u;
        k[1] = (uint64_t)(uintptr_t)p->slots ^ (uint64_t)(uintptr_t)&k;
    }
    p->k0 = k[0];
    p->k1 = k[1];
}

cJSON *smc_toml_parse(const char *text, size_t len, char *why, size_t n)
{
    if (why && n) why[0] = '\0';
    smc_toml_parser p = {.s = text ? text : "", .len = text ? len : 0};
    cJSON *root = NULL;
    p.slots_cap = 64;
    p.slots = calloc(p.slots_cap, sizeof *p.slots);
    if (!p.slots) {
        oom(&p);
        goto done;
    }
    seed(&p);
    if (!text && len) {
        fail(&p, 0, "no text");
        goto done;
    }
    if (!check_utf8(&p)) goto done;
    root = cJSON_CreateObject();
    if (!root || table_new(&p, root, SMC_TOML_EXPLICIT, 0) == SMC_TOML_NONE) {
        oom(&p);
        goto done;
    }
    uint32_t cur = 0;
    while (p.pos < p.len && !p.failed) {
        skip_ws(&p);
        int c = peek(&p);
        if (c == '[')
            header(&p, &cur);
        else if (c == '#' || c == '\n' || c == '\r' || c < 0)
            end_of_line(&p, "a blank");
        else if (keyval(&p, cur))
            end_of_line(&p, "a value");
    }
done:
    free(p.buf);
    free(p.tabs);
    free(p.slots);
    if (!p.failed) return root;
    cJSON_Delete(root);
    if (why && n) {
        size_t line = 1;
        for (const char *s = p.s, *end = p.s + (p.err_pos < p.len ? p.err_pos : p.len);
             (s = memchr(s, '\n', (size_t)(end - s))) != NULL; s++)
            line++;
        snprintf(why, n, "line %zu: %s", line, p.msg);
    }
    return NULL;
}
