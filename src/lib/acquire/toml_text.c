/* toml_text.c: the TOML reader's text: the first error kept, UTF-8 checked once, the scratch
 * stack of decoded text, whitespace, comments and newlines, strings of the four kinds with
 * their escapes, and keys. */
#include "toml_parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the first error only: a later one would be a consequence. Returns false for the callers'
 * `return toml_fail(...)`. */
bool toml_fail(smc_toml_parser *p, size_t at, const char *fmt, ...)
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

bool toml_oom(smc_toml_parser *p)
{
    return toml_fail(p, p->pos, "out of memory");
}

/* A key or text as a message shows it: at most 40 bytes, anything but printable ASCII as '?'
 * (it is the input's, and the message may reach a terminal). */
const char *toml_show(char out[48], const char *text, size_t len)
{
    size_t n = 0;
    for (; n < len && n < 40; n++)
        out[n] = text[n] >= 0x20 && text[n] < 0x7f ? text[n] : '?';
    strcpy(out + n, n < len ? "..." : "");
    return out;
}

/* The whole text is UTF-8 (TOML requires it): checked once here, so that the rest may copy any
 * byte at or above 0x80 as it is. Overlong forms, surrogates and code points past U+10FFFF are not
 * UTF-8. */
bool toml_check_utf8(smc_toml_parser *p)
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
            return toml_fail(p, i, "invalid UTF-8 (byte 0x%02x)", c);
        if (p->len - i <= need) return toml_fail(p, i, "invalid UTF-8 (truncated sequence)");
        if (s[i + 1] < lo || s[i + 1] > hi)
            return toml_fail(p, i, "invalid UTF-8 (byte 0x%02x after 0x%02x)", s[i + 1], c);
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return toml_fail(p, i, "invalid UTF-8 (byte 0x%02x in a sequence)", s[i + k]);
        i += need + 1;
    }
    return true;
}

/* --- the scratch stack --------------------------------------------------------------------- */

bool toml_buf_reserve(smc_toml_parser *p, size_t extra)
{
    if (p->buf_cap - p->buf_len > extra) return true; /* one more for a NUL */
    if (extra > SIZE_MAX / 4 - p->buf_len) return toml_oom(p);
    size_t cap = p->buf_cap ? p->buf_cap : 256;
    while (cap - p->buf_len <= extra)
        cap *= 2;
    char *b = realloc(p->buf, cap);
    if (!b) return toml_oom(p);
    p->buf = b;
    p->buf_cap = cap;
    return true;
}

bool toml_buf_put(smc_toml_parser *p, const char *data, size_t n)
{
    if (!toml_buf_reserve(p, n)) return false;
    memcpy(p->buf + p->buf_len, data, n);
    p->buf_len += n;
    p->buf[p->buf_len] = '\0';
    return true;
}

/* --- whitespace, comments, newlines -------------------------------------------------------- */

void toml_skip_ws(smc_toml_parser *p)
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
            return toml_fail(p, p->pos, "carriage return without a line feed");
        }
        if (is_control(c) && c != '\t')
            return toml_fail(p, p->pos, "control character U+%04X in a comment", c);
    }
    return true;
}

/* Takes one newline (LF or CRLF); false when there is none (a bare CR is an error). */
bool toml_take_newline(smc_toml_parser *p)
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
        toml_fail(p, p->pos, "carriage return without a line feed");
    }
    return false;
}

/* The rest of a line after a statement: blanks, maybe a comment, the newline or the end. */
bool toml_end_of_line(smc_toml_parser *p, const char *after)
{
    toml_skip_ws(p);
    if (peek(p) == '#' && !skip_comment(p)) return false;
    if (p->pos >= p->len || toml_take_newline(p)) return true;
    if (p->failed) return false;
    int c = peek(p);
    if (c >= 0x20 && c < 0x7f)
        return toml_fail(p, p->pos, "'%c' after %s: expected a new line", c, after);
    return toml_fail(p, p->pos, "byte 0x%02x after %s: expected a new line", (unsigned)c, after);
}

/* Blanks, comments and newlines, as arrays allow between their elements. */
bool toml_skip_blank(smc_toml_parser *p)
{
    for (;;) {
        toml_skip_ws(p);
        if (peek(p) == '#' && !skip_comment(p)) return false;
        if (!toml_take_newline(p)) return !p->failed;
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
    return toml_buf_put(p, u, n);
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
                return toml_fail(p, at, "\\%c needs %d hexadecimal digits", e, width);
            cp = cp << 4 | d;
        }
        if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
            return toml_fail(p, at, "\\%c%0*X is not a Unicode scalar value", e, width, cp);
        if (cp == 0)
            return toml_fail(p, at, "\\%c%0*X: U+0000 cannot be held (cJSON strings end at NUL)", e,
                             width, cp);
        p->pos += 2 + (size_t)width;
        return put_utf8(p, cp);
    }
    default:
        if (e >= 0x20 && e < 0x7f) return toml_fail(p, at, "invalid escape \\%c", e);
        return toml_fail(p, at, "invalid escape: a backslash before byte 0x%02x",
                         (unsigned)(e & 0xff));
    }
    p->pos += 2;
    return toml_buf_put(p, &c, 1);
}

static bool bad_string_char(smc_toml_parser *p, int c, size_t open, bool multi)
{
    if (c < 0)
        return toml_fail(p, open, multi ? "unterminated multi-line string" : "unterminated string");
    if (c == '\r' && multi) return toml_fail(p, p->pos, "carriage return without a line feed");
    if (c == '\n' || c == '\r') return toml_fail(p, p->pos, "newline in a single-line string");
    return toml_fail(p, p->pos, "control character U+%04X in a string", (unsigned)c);
}

/* After a line-ending backslash: blanks and newlines up to the next text. */
static bool skip_blank_in_string(smc_toml_parser *p)
{
    for (;;) {
        toml_skip_ws(p);
        if (!toml_take_newline(p)) return !p->failed;
    }
}

/* A basic string, "..." or """...""", decoded onto the scratch stack. */
bool toml_basic_string(smc_toml_parser *p, bool multi)
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
        if (!toml_buf_put(p, p->s + run, p->pos - run)) return false;
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
                    if (!toml_buf_put(p, "\"", 1)) return false;
                return true;
            }
            p->pos++;
            if (!toml_buf_put(p, "\"", 1)) return false;
        } else if (c == '\\') {
            int e = peek_at(p, 1);
            if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
                /* a line-ending backslash: it, blanks and newlines up to the next text go */
                size_t at = p->pos++;
                toml_skip_ws(p);
                if (!toml_take_newline(p)) {
                    if (p->failed) return false;
                    return toml_fail(p, at, "a backslash followed by blanks must end the line");
                }
                if (!skip_blank_in_string(p)) return false;
            } else if (!escape(p))
                return false;
        } else if (multi && c == '\r' && peek_at(p, 1) == '\n') {
            p->pos += 2; /* a newline is LF, as tomllib has it */
            if (!toml_buf_put(p, "\n", 1)) return false;
        } else
            return bad_string_char(p, c, open, multi);
    }
}

/* A literal string, '...' or '''...''', copied onto the scratch stack. */
bool toml_literal_string(smc_toml_parser *p, bool multi)
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
        if (!toml_buf_put(p, p->s + run, p->pos - run)) return false;
        int c = peek(p);
        if (c == '\'') {
            if (!multi) {
                p->pos++;
                return true;
            }
            if (peek_at(p, 1) == '\'' && peek_at(p, 2) == '\'') {
                p->pos += 3;
                for (int k = 0; k < 2 && peek(p) == '\''; k++, p->pos++)
                    if (!toml_buf_put(p, "'", 1)) return false;
                return true;
            }
            p->pos++;
            if (!toml_buf_put(p, "'", 1)) return false;
        } else if (multi && c == '\r' && peek_at(p, 1) == '\n') {
            p->pos += 2;
            if (!toml_buf_put(p, "\n", 1)) return false;
        } else
            return bad_string_char(p, c, open, multi);
    }
}

/* --- keys ---------------------------------------------------------------------------------- */

/* One part of a (dotted) key, decoded onto the scratch stack, NUL-terminated. */
bool toml_key_part(smc_toml_parser *p)
{
    int c = peek(p);
    if (c == '"' || c == '\'') {
        if (peek_at(p, 1) == c && peek_at(p, 2) == c)
            return toml_fail(p, p->pos, "a key cannot be a multi-line string");
        return c == '"' ? toml_basic_string(p, false) : toml_literal_string(p, false);
    }
    size_t start = p->pos;
    while (is_bare(peek(p)))
        p->pos++;
    if (p->pos == start) {
        if (c >= 0x20 && c < 0x7f) return toml_fail(p, p->pos, "expected a key, found '%c'", c);
        if (c < 0) return toml_fail(p, p->pos, "expected a key, found the end");
        return toml_fail(p, p->pos, "expected a key, found byte 0x%02x", (unsigned)c);
    }
    return toml_buf_put(p, p->s + start, p->pos - start);
}
