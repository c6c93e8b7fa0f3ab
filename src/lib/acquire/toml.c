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
#include "toml_parser.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* --- values -------------------------------------------------------------------------------- */

static bool value(smc_toml_parser *p, unsigned depth, cJSON **out);
static bool keyval(smc_toml_parser *p, uint32_t t);

/* The decoded text at off..buf_len as a cJSON string; the scratch stack is cut back to off. */
static bool string_item(smc_toml_parser *p, size_t off, cJSON **out)
{
    if (!toml_buf_reserve(p, 0)) return false;
    p->buf[p->buf_len] = '\0';
    *out = cJSON_CreateString(p->buf + off);
    p->buf_len = off;
    return *out ? true : toml_oom(p);
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
            if (!next) return toml_fail(p, p->pos, "'_' in a number must stand between digits");
            p->pos++;
            continue;
        }
        if (first) return toml_fail(p, p->pos, "expected a digit");
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
            return toml_fail(p, at,
                             "integer %s is beyond +-2^53, which a JSON number cannot hold exactly",
                             toml_show(t, p->s + at, end - at));
        }
    }
    *out = cJSON_CreateNumber(neg && v ? -(double)v : (double)v); /* -0 is 0 */
    return *out ? true : toml_oom(p);
}

/* A float's text, checked already: underscores left out, the locale's decimal point for strtod. */
static bool float_value(smc_toml_parser *p, size_t start, size_t end, cJSON **out)
{
    const char *point = localeconv()->decimal_point;
    size_t plen = point && *point ? strlen(point) : 1, off = p->buf_len;
    if (!toml_buf_reserve(p, (end - start) * plen)) return false;
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
    return *out ? true : toml_oom(p);
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
        return *out ? true : toml_oom(p);
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
        if (c >= 0x20 && c < 0x7f) return toml_fail(p, p->pos, "expected a value, found '%c'", c);
        return toml_fail(p, p->pos, "expected a value");
    }
    if (c == '0') {
        p->pos++;
        if (is_digit(peek(p)) || peek(p) == '_')
            return toml_fail(p, start, "a decimal number cannot have a leading zero");
    } else if (!digits(p, 10))
        return false;
    size_t int_end = p->pos;
    bool is_float = false;
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p)))
            return toml_fail(p, p->pos, "expected a digit after the decimal point");
        if (!digits(p, 10)) return false;
        is_float = true;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-') p->pos++;
        if (!is_digit(peek(p))) return toml_fail(p, p->pos, "expected digits in the exponent");
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
        if (!n) return toml_fail(p, start, "invalid time (HH:MM:SS, 00:00:00 to 23:59:59)");
        p->pos += n;
    } else {
        int y, m, d;
        static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (!fixed_digits(p, 0, 4, &y) || peek_at(p, 4) != '-' || !fixed_digits(p, 5, 2, &m) ||
            peek_at(p, 7) != '-' || !fixed_digits(p, 8, 2, &d))
            return toml_fail(p, start, "invalid date (YYYY-MM-DD)");
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if (y < 1 || m < 1 || m > 12 || d < 1 || d > days[m - 1] + (m == 2 && leap))
            return toml_fail(p, start, "invalid date: no such day (years 0001 to 9999)");
        p->pos += 10;
        int c = peek(p);
        size_t n = c == 'T' || c == 't' || c == ' ' ? time_len(p, 1) : 0;
        if (!n && (c == 'T' || c == 't'))
            return toml_fail(p, p->pos, "invalid time after the date (HH:MM:SS)");
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
    return toml_buf_put(p, p->s + start, p->pos - start) && string_item(p, off, out);
}

/* [ values, ... ] over any number of lines, a trailing comma allowed. */
static bool array(smc_toml_parser *p, unsigned depth, cJSON **out)
{
    if (!toml_depth_ok(p, depth, p->pos)) return false;
    cJSON *arr = cJSON_CreateArray();
    if (!arr) return toml_oom(p);
    p->pos++;
    for (;;) {
        if (!toml_skip_blank(p)) break;
        if (peek(p) == ']') {
            p->pos++;
            *out = arr;
            return true;
        }
        cJSON *v;
        if (!value(p, depth + 1, &v)) break;
        if (!cJSON_AddItemToArray(arr, v)) {
            cJSON_Delete(v);
            toml_oom(p);
            break;
        }
        if (!toml_skip_blank(p)) break;
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
        toml_fail(p, p->pos, c < 0 ? "unterminated array" : "expected ',' or ']' in an array");
        break;
    }
    cJSON_Delete(arr);
    return false;
}

/* { key = value, ... } on one line (TOML 1.0): no trailing comma; nothing adds to it later. */
static bool inline_table(smc_toml_parser *p, unsigned depth, cJSON **out)
{
    if (!toml_depth_ok(p, depth, p->pos)) return false;
    cJSON *obj = cJSON_CreateObject();
    if (!obj) return toml_oom(p);
    uint32_t t = toml_table_new(p, obj, SMC_TOML_EXPLICIT, depth);
    if (t == SMC_TOML_NONE) goto bad;
    p->pos++;
    toml_skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        toml_tables_close(p, t);
        *out = obj;
        return true;
    }
    for (;;) {
        if (!keyval(p, t)) goto bad;
        toml_skip_ws(p);
        int c = peek(p);
        if (c == '}') {
            p->pos++;
            toml_tables_close(p, t);
            *out = obj;
            return true;
        }
        if (c != ',') {
            toml_fail(p, p->pos,
                      c < 0 ? "unterminated inline table"
                            : "expected ',' or '}' in an inline table (it must fit on one line)");
            goto bad;
        }
        p->pos++;
        toml_skip_ws(p);
        if (peek(p) == '}') {
            toml_fail(p, p->pos, "a trailing comma in an inline table");
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
        return toml_fail(p, p->pos, "more than %u values: not read", SMC_TOML_MAX_VALUES);
    int c = peek(p);
    size_t off = p->buf_len;
    switch (c) {
    case '"':
    case '\'': {
        bool multi = peek_at(p, 1) == c && peek_at(p, 2) == c;
        bool ok = c == '"' ? toml_basic_string(p, multi) : toml_literal_string(p, multi);
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
            return toml_fail(p, p->pos, "expected a value (true or false?)");
        p->pos += n;
        *out = cJSON_CreateBool(c == 't');
        return *out ? true : toml_oom(p);
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
        if (c < 0) return toml_fail(p, p->pos, "expected a value, found the end");
        return number(p, out);
    }
}

/* --- statements ---------------------------------------------------------------------------- */

/* Where dotted keys under the current header step into key of table t: a new table, or one that
 * these keys made or that only a header's path made; no other. */
static uint32_t dotted_table(smc_toml_parser *p, uint32_t t, size_t koff, size_t klen, size_t at)
{
    uint32_t h = toml_key_hash(p, t, p->buf + koff, klen);
    size_t i = toml_slot_find(p, t, p->buf + koff, klen, h);
    if (i == SIZE_MAX) return toml_child_table(p, t, koff, h, SMC_TOML_DOTTED, at);
    const smc_toml_slot *sl = &p->slots[i];
    if (sl->kind != SMC_TOML_TABLE) {
        toml_not_a_table(p, sl, at);
        return SMC_TOML_NONE;
    }
    smc_toml_table *sub = &p->tabs[sl->sub];
    char k[48];
    if (sub->state == SMC_TOML_IMPLICIT) {
        sub->state = SMC_TOML_DOTTED;
        sub->section = p->section;
    } else if (sub->state == SMC_TOML_EXPLICIT) {
        toml_fail(p, at, "table '%s' has its own [header]: dotted keys cannot add to it",
                  toml_show(k, p->buf + koff, klen));
        return SMC_TOML_NONE;
    } else if (sub->section != p->section) {
        toml_fail(p, at, "table '%s' was made by dotted keys under another header: it is closed",
                  toml_show(k, p->buf + koff, klen));
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
        if (!toml_key_part(p)) return false;
        toml_skip_ws(p);
        if (peek(p) != '.') break;
        p->pos++;
        toml_skip_ws(p);
        t = dotted_table(p, t, mark, p->buf_len - mark, at);
        if (t == SMC_TOML_NONE) return false;
    }
    size_t klen = p->buf_len - mark;
    p->buf_len++; /* the key's NUL stays below what the value puts on the stack */
    uint32_t h = toml_key_hash(p, t, p->buf + mark, klen);
    if (toml_slot_find(p, t, p->buf + mark, klen, h) != SIZE_MAX) {
        char k[48];
        return toml_fail(p, at, "key '%s' is defined twice", toml_show(k, p->buf + mark, klen));
    }
    if (peek(p) != '=') {
        int c = peek(p);
        if (c >= 0x20 && c < 0x7f)
            return toml_fail(p, p->pos, "expected '=' after a key, found '%c'", c);
        return toml_fail(p, p->pos, "expected '=' after a key");
    }
    p->pos++;
    toml_skip_ws(p);
    cJSON *v;
    if (!value(p, p->tabs[t].depth + 1u, &v)) return false;
    if (!toml_add_keyed(p->tabs[t].obj, p->buf + mark, v)) {
        cJSON_Delete(v);
        return toml_oom(p);
    }
    if (!toml_slot_add(p, t, v, SMC_TOML_VALUE, 0, h)) return false;
    p->buf_len = mark;
    return true;
}

/* [a.b.c] or [[a.b.c]]: the table that the keys after it go to, in *cur. */
static bool header(smc_toml_parser *p, uint32_t *cur)
{
    bool aot = peek_at(p, 1) == '[';
    p->pos += aot ? 2 : 1;
    if (p->section == UINT32_MAX) return toml_fail(p, p->pos, "too many tables");
    p->section++;
    toml_skip_ws(p);
    uint32_t t = 0;
    size_t mark = p->buf_len, at;
    char k[48];
    for (;;) {
        at = p->pos;
        p->buf_len = mark;
        if (!toml_key_part(p)) return false;
        toml_skip_ws(p);
        if (peek(p) != '.') break;
        p->pos++;
        toml_skip_ws(p);
        /* a part of the path: any table, or the last element of an array of tables */
        size_t klen = p->buf_len - mark;
        uint32_t h = toml_key_hash(p, t, p->buf + mark, klen);
        size_t i = toml_slot_find(p, t, p->buf + mark, klen, h);
        if (i == SIZE_MAX) {
            t = toml_child_table(p, t, mark, h, SMC_TOML_IMPLICIT, at);
            if (t == SMC_TOML_NONE) return false;
        } else if (p->slots[i].kind == SMC_TOML_VALUE)
            return toml_not_a_table(p, &p->slots[i], at);
        else
            t = p->slots[i].sub;
    }
    size_t klen = p->buf_len - mark;
    const char *key = p->buf + mark;
    uint32_t h = toml_key_hash(p, t, key, klen);
    size_t i = toml_slot_find(p, t, key, klen, h);
    if (!aot) {
        if (i == SIZE_MAX) {
            t = toml_child_table(p, t, mark, h, SMC_TOML_EXPLICIT, at);
            if (t == SMC_TOML_NONE) return false;
        } else if (p->slots[i].kind == SMC_TOML_TABLE) {
            smc_toml_table *sub = &p->tabs[p->slots[i].sub];
            if (sub->state == SMC_TOML_EXPLICIT)
                return toml_fail(p, at, "table [%s] is defined twice", toml_show(k, key, klen));
            if (sub->state == SMC_TOML_DOTTED)
                return toml_fail(p, at, "table [%s] was already defined by dotted keys",
                                 toml_show(k, key, klen));
            sub->state = SMC_TOML_EXPLICIT;
            t = p->slots[i].sub;
        } else if (p->slots[i].kind == SMC_TOML_AOT)
            return toml_fail(p, at, "[%s] is an array of tables, not a table",
                             toml_show(k, key, klen));
        else
            return toml_fail(p, at, "key '%s' already holds a value: it cannot become a table",
                             toml_show(k, key, klen));
    } else {
        cJSON *arr;
        if (i == SIZE_MAX) {
            unsigned depth = p->tabs[t].depth + 1u;
            if (!toml_depth_ok(p, depth + 1, at)) return false;
            arr = cJSON_CreateArray();
            if (!arr || !toml_add_keyed(p->tabs[t].obj, key, arr)) {
                cJSON_Delete(arr);
                return toml_oom(p);
            }
            if (!toml_slot_add(p, t, arr, SMC_TOML_AOT, 0, h)) return false;
            i = toml_slot_find(p, t, key, klen, h);
        } else if (p->slots[i].kind == SMC_TOML_AOT)
            arr = p->slots[i].item;
        else if (p->slots[i].kind == SMC_TOML_VALUE && cJSON_IsArray(p->slots[i].item))
            return toml_fail(p, at, "'%s' is an array value: [[%s]] cannot append to it",
                             toml_show(k, key, klen), k);
        else
            return toml_fail(p, at, "'%s' is already a %s, not an array of tables",
                             toml_show(k, key, klen),
                             p->slots[i].kind == SMC_TOML_TABLE ? "table" : "value");
        cJSON *elem = cJSON_CreateObject();
        if (!elem || !cJSON_AddItemToArray(arr, elem)) {
            cJSON_Delete(elem);
            return toml_oom(p);
        }
        uint32_t e = toml_table_new(p, elem, SMC_TOML_EXPLICIT, p->tabs[t].depth + 2u);
        if (e == SMC_TOML_NONE) return false;
        p->slots[i].sub = e; /* later headers through it reach this element */
        t = e;
    }
    p->buf_len = mark;
    if (peek(p) != ']') return toml_fail(p, p->pos, "expected ']' to close the table header");
    p->pos++;
    if (aot) {
        if (peek(p) != ']') return toml_fail(p, p->pos, "expected ']]' to close the header");
        p->pos++;
    }
    *cur = t;
    return toml_end_of_line(p, "a table header");
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
        toml_oom(&p);
        goto done;
    }
    seed(&p);
    if (!text && len) {
        toml_fail(&p, 0, "no text");
        goto done;
    }
    if (!toml_check_utf8(&p)) goto done;
    root = cJSON_CreateObject();
    if (!root || toml_table_new(&p, root, SMC_TOML_EXPLICIT, 0) == SMC_TOML_NONE) {
        toml_oom(&p);
        goto done;
    }
    uint32_t cur = 0;
    while (p.pos < p.len && !p.failed) {
        toml_skip_ws(&p);
        int c = peek(&p);
        if (c == '[')
            header(&p, &cur);
        else if (c == '#' || c == '\n' || c == '\r' || c < 0)
            toml_end_of_line(&p, "a blank");
        else if (keyval(&p, cur))
            toml_end_of_line(&p, "a value");
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
