/* arch.c: the GPU table (data/gpus.tsv) and the parser of --gpu items (arch tokens, compute
 * capabilities, product names) into targets. It trusts neither the table text nor what the user
 * typed: every field is length- and range-checked, lines are read within (pointer, length), and a
 * bad line or item is reported with a one-line message. Facts: data/gpus.tsv, with its sources. */
#include "../base/base.h"
#include "../rules/rules.h"

#include <smcheck/targets.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generated at build time from data/gpus.tsv. */
extern const char smc_builtin_gpu_table[];
extern const size_t smc_builtin_gpu_table_len;

/* A name must fit smc_target.name with its terminator. */
#define NAME_CAP 128
_Static_assert(sizeof(((smc_target *)0)->name) == NAME_CAP, "smc_target.name is NAME_CAP bytes");
#define ARCH_CAP 64
/* The table is a few KB; this only stops a wrong path from reading a huge file. */
#define TABLE_FILE_MAX (1u << 20)
/* At most this many names after "closest:", and compute capabilities after "is ambiguous:". */
#define CLOSEST_MAX 3
#define AMBIGUOUS_MAX 8

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ASCII only, and independent of the locale: names and tokens are ASCII. */
static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char to_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Formats into err (which may be NULL or empty); returns 0, so a failure reads `return fail()`. */
PRINTF_LIKE(3, 4) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* Appends to a message being built in err; a message longer than errlen is cut, never overrun. */
PRINTF_LIKE(3, 4) static void append(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    size_t used = strnlen(err, errlen);
    if (used + 1 >= errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + used, errlen - used, fmt, ap);
    va_end(ap);
}

/* Trims blanks at both ends of [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
    while (*n && is_blank((*s)[0])) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_blank((*s)[*n - 1]))
        (*n)--;
}

/* Copies n bytes for quoting in a message: at most cap - 1 of them, non-printable ones as '?', so
 * that a hostile argument or table line cannot put control characters into a diagnostic. */
static void quote_copy(char *dst, size_t cap, const char *s, size_t n)
{
    size_t i = 0;
    for (; i < n && i + 1 < cap; i++)
        dst[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    dst[i] = '\0';
}

/* "MAJOR.MINOR" with digits on both sides. Returns 1 and the numbers (saturated), or 0 when the
 * syntax is wrong. Plausibility is the caller's business. */
static int parse_cc(const char *s, size_t n, unsigned *major, unsigned *minor)
{
    size_t i = 0;
    unsigned v[2] = {0, 0};
    for (int part = 0; part < 2; part++) {
        size_t start = i;
        for (; i < n && is_digit(s[i]); i++)
            v[part] = v[part] > 1000 ? v[part] : v[part] * 10 + (unsigned)(s[i] - '0');
        if (i == start) return 0;
        if (part == 0) {
            if (i >= n || s[i] != '.') return 0;
            i++;
        }
    }
    if (i != n) return 0;
    *major = v[0];
    *minor = v[1];
    return 1;
}

/* Capabilities a GPU can have: real ones run from 1.0 to 12.1, and a minor is one digit because
 * arch tokens write it as the last digit (sm_121 is 12.1). */
static bool cc_plausible(unsigned major, unsigned minor)
{
    return major >= 1 && major <= 99 && minor <= 9;
}

/* Normalises a name for matching: lowercase letters and digits only ("GeForce RTX 4090" ->
 * "geforcertx4090"). out holds NAME_CAP bytes; longer input is cut (callers cap lengths). */
static size_t normalise(const char *s, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < NAME_CAP; i++)
        if (is_alnum(s[i])) out[k++] = to_lower(s[i]);
    out[k] = '\0';
    return k;
}

/* Brand words a user may add or leave out. "quadro" is last on purpose: it is dropped from what the
 * user typed, but not from table names when looking for a whole-name match, because NVIDIA reused
 * Quadro model numbers for later brandless cards ("Quadro RTX 6000" 7.5 vs "RTX 6000 Ada" 8.9), so
 * a bare "rtx 6000" must stay ambiguous. GeForce and Tesla numbers were never reused that way. */
static const char *const brands[] = {"nvidia", "geforce", "tesla", "quadro"};
#define BRANDS_ALL 4
#define BRANDS_NAME 3

/* Drops leading brand words (the first nbrands of brands[]) from a normalised key, unless nothing
 * would be left. Returns the rest, a suffix of key. */
static const char *strip_brands(const char *key, size_t nbrands)
{
    const char *k = key;
    for (bool again = true; again;) {
        again = false;
        for (size_t b = 0; b < nbrands; b++) {
            size_t bl = strlen(brands[b]);
            if (strncmp(k, brands[b], bl) == 0 && k[bl] != '\0') {
                k += bl;
                again = true;
            }
        }
    }
    return k;
}

static bool is_brand_word(const char *w, size_t n)
{
    for (size_t b = 0; b < BRANDS_ALL; b++)
        if (strlen(brands[b]) == n && strncmp(w, brands[b], n) == 0) return true;
    return false;
}

/* ---- the table ---------------------------------------------------------------------------- */

void smc_gpu_table_free(smc_gpu_table *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->count; i++) {
        free(t->models[i].name);
        free(t->models[i].architecture);
    }
    free(t->models);
    free(t);
}

/* What the parser remembers of each row to check later rows against. */
typedef struct row_info {
    char key[NAME_CAP];   /* normalised name */
    char key_s[NAME_CAP]; /* the same without a leading GeForce/Tesla */
    unsigned long line;
} row_info;

typedef struct table_builder {
    smc_gpu_table *t;
    row_info *rows;
    size_t cap;
} table_builder;

/* Parses the tags column into m; 1 ok, 0 bad (err set). */
static int parse_tags(const char *s, size_t n, smc_gpu_model *m, unsigned long line, char *err,
                      size_t errlen)
{
    if (n == 0 || (n == 1 && s[0] == '-')) return 1;
    size_t i = 0;
    while (i <= n) {
        size_t start = i;
        while (i < n && s[i] != ',')
            i++;
        const char *tag = s + start;
        size_t tl = i - start;
        trim(&tag, &tl);
        if (tl == 3 && memcmp(tag, "rep", 3) == 0) {
            m->representative = true;
        } else if (tl == 4 && memcmp(tag, "weak", 4) == 0) {
            m->weak = true;
        } else if (tl == 6 && memcmp(tag, "compat", 6) == 0) {
            m->compat = true;
        } else {
            char q[40];
            quote_copy(q, sizeof q, tag, tl);
            return fail(err, errlen, "line %lu: unknown tag '%s' (known: rep, weak, compat)", line, q);
        }
        i++; /* past the comma, or past the end */
    }
    return 1;
}

/* Parses one line (without its newline) into b. 1 ok or nothing to add, 0 bad, -1 out of memory. */
static int parse_line(table_builder *b, const char *s, size_t n, unsigned long line, char *err,
                      size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
            return fail(err, errlen, "line %lu: control character 0x%02x", line,
                        (unsigned)(unsigned char)s[i]);
    const char *p = s;
    size_t pn = n;
    trim(&p, &pn);
    if (pn == 0 || p[0] == '#') return 1;

    /* Split at tabs; one more field than allowed is enough to say there are too many. */
    const char *f[5];
    size_t fl[5], nf = 0, start = 0;
    for (size_t i = 0; i <= n && nf < 5; i++) {
        if (i == n || s[i] == '\t') {
            f[nf] = s + start;
            fl[nf] = i - start;
            trim(&f[nf], &fl[nf]);
            nf++;
            start = i + 1;
        }
    }
    if (nf < 3 || nf > 4)
        return fail(err, errlen,
                    "line %lu: expected 3 or 4 tab-separated columns (compute capability, name, "
                    "architecture, tags), found %s%zu",
                    line, nf > 4 ? "more than " : "", nf > 4 ? (size_t)4 : nf);

    smc_gpu_model m = {0};
    char q[NAME_CAP];
    if (!parse_cc(f[0], fl[0], &m.cc_major, &m.cc_minor) || !cc_plausible(m.cc_major, m.cc_minor)) {
        quote_copy(q, sizeof q, f[0], fl[0]);
        return fail(err, errlen, "line %lu: bad compute capability '%s' (expected e.g. 8.6)", line,
                    q);
    }
    if (fl[1] == 0 || fl[1] >= NAME_CAP)
        return fail(err, errlen, "line %lu: a name must have 1 to %d bytes, not %zu", line,
                    NAME_CAP - 1, fl[1]);
    if (fl[2] == 0 || fl[2] >= ARCH_CAP)
        return fail(err, errlen, "line %lu: an architecture must have 1 to %d bytes, not %zu", line,
                    ARCH_CAP - 1, fl[2]);
    for (size_t c = 1; c <= 2; c++)
        for (size_t i = 0; i < fl[c]; i++)
            if ((unsigned char)f[c][i] >= 0x7f)
                return fail(err, errlen, "line %lu: non-ASCII byte in the %s", line,
                            c == 1 ? "name" : "architecture");
    if (nf == 4 && !parse_tags(f[3], fl[3], &m, line, err, errlen)) return 0;

    row_info ri = {.line = line};
    quote_copy(q, sizeof q, f[1], fl[1]);
    if (normalise(f[1], fl[1], ri.key) == 0)
        return fail(err, errlen, "line %lu: the name '%s' has no letter or digit", line, q);
    const char *ks = strip_brands(ri.key, BRANDS_NAME);
    memcpy(ri.key_s, ks, strlen(ks) + 1);

    smc_gpu_table *t = b->t;
    for (size_t i = 0; i < t->count; i++) {
        const row_info *o = &b->rows[i];
        const smc_gpu_model *om = &t->models[i];
        if (strcmp(ri.key, o->key) == 0 || strcmp(ri.key_s, o->key_s) == 0 ||
            strcmp(ri.key, o->key_s) == 0 || strcmp(ri.key_s, o->key) == 0)
            return fail(err, errlen, "line %lu: duplicate name '%s' (line %lu has '%s')", line, q,
                        o->line, om->name);
        if (om->cc_major != m.cc_major || om->cc_minor != m.cc_minor) continue;
        if (m.representative && om->representative)
            return fail(err, errlen,
                        "line %lu: a second rep for %u.%u (line %lu has '%s' as rep already)", line,
                        m.cc_major, m.cc_minor, o->line, om->name);
        if (strlen(om->architecture) != fl[2] || memcmp(om->architecture, f[2], fl[2]) != 0) {
            char qa[ARCH_CAP];
            quote_copy(qa, sizeof qa, f[2], fl[2]);
            return fail(err, errlen,
                        "line %lu: architecture '%s' differs from '%s' given for %u.%u on line %lu",
                        line, qa, om->architecture, m.cc_major, m.cc_minor, o->line);
        }
    }

    if (t->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        smc_gpu_model *mm = realloc(t->models, cap * sizeof *mm);
        if (!mm) return -1;
        t->models = mm;
        row_info *rr = realloc(b->rows, cap * sizeof *rr);
        if (!rr) return -1;
        b->rows = rr;
        b->cap = cap;
    }
    m.name = strndup(f[1], fl[1]);
    m.architecture = strndup(f[2], fl[2]);
    if (!m.name || !m.architecture) {
        free(m.name);
        free(m.architecture);
        return -1;
    }
    t->models[t->count] = m;
    b->rows[t->count] = ri;
    t->count++;
    return 1;
}

int smc_gpu_table_parse(const char *text, size_t len, smc_gpu_table **out, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!out) return fail(err, errlen, "no place for the table");
    *out = NULL;
    if (!text && len) return fail(err, errlen, "no table text");
    table_builder b = {.t = calloc(1, sizeof(smc_gpu_table))};
    if (!b.t) return -1;
    int rc = 1;
    unsigned long line = 0;
    for (size_t pos = 0; pos < len && rc == 1;) {
        line++;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t n = end - pos;
        if (n && text[pos + n - 1] == '\r') /* a table edited on Windows */
            n--;
        rc = parse_line(&b, text + pos, n, line, err, errlen);
        pos = nl ? end + 1 : len;
    }
    free(b.rows);
    if (rc == 1 && b.t->count == 0) rc = fail(err, errlen, "the table has no GPU");
    if (rc != 1) {
        smc_gpu_table_free(b.t);
        return rc;
    }
    *out = b.t;
    return 1;
}

int smc_gpu_table_load(const char *path, smc_gpu_table **out, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!out || !path) return fail(err, errlen, "no table path");
    *out = NULL;
    char *text, why[256];
    size_t n;
    int rc = smc_read_small_file(path, TABLE_FILE_MAX, &text, &n, why, sizeof why);
    if (rc == 1) {
        rc = smc_gpu_table_parse(text, n, out, why, sizeof why);
        free(text);
    }
    if (rc == 0) fail(err, errlen, "%s: %s", path, why);
    return rc;
}

int smc_gpu_table_builtin(smc_gpu_table **out)
{
    char why[256];
    return smc_gpu_table_parse(smc_builtin_gpu_table, smc_builtin_gpu_table_len, out, why,
                               sizeof why);
}

const char *smc_gpu_table_representative(const smc_gpu_table *t, unsigned cc_major,
                                         unsigned cc_minor)
{
    if (!t) return NULL;
    for (size_t i = 0; i < t->count; i++) {
        const smc_gpu_model *m = &t->models[i];
        if (m->representative && m->cc_major == cc_major && m->cc_minor == cc_minor) return m->name;
    }
    return NULL;
}

/* ---- --gpu items -------------------------------------------------------------------------- */

static bool has_prefix_ci(const char *s, size_t n, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (n < pl) return false;
    for (size_t i = 0; i < pl; i++)
        if (to_lower(s[i]) != prefix[i]) return false;
    return true;
}

/* Whether a compute capability is one a table knows: a row of the GPU table t, or an
 * architecture of CUDA's (versions.c). Otherwise an error naming the closest known ones: a typo
 * (sm_200, 12.5) must not be judged as a GPU that does not exist. */
static int known_cc(const smc_gpu_table *t, unsigned major, unsigned minor, const char *what,
                    const char *q, char *err, size_t errlen)
{
    unsigned cc = major * 10 + minor;
    if (smc_cuda_for_arch(cc)) return 1;
    for (size_t i = 0; t && i < t->count; i++)
        if (t->models[i].cc_major == major && t->models[i].cc_minor == minor) return 1;
    unsigned near[3] = {0, 0, 0};
    for (unsigned k = 10; k < 1000; k++) { /* the three nearest, nearest first */
        if (!smc_cuda_for_arch(k)) continue;
        unsigned d = k > cc ? k - cc : cc - k;
        for (size_t s = 0; s < 3; s++) {
            unsigned e = near[s] > cc ? near[s] - cc : cc - near[s];
            if (near[s] && e <= d) continue;
            memmove(near + s + 1, near + s, (2 - s) * sizeof *near);
            near[s] = k;
            break;
        }
    }
    return fail(err, errlen,
                "unknown %s '%s': no GPU table row or CUDA release has compute capability %u.%u "
                "(closest: %u.%u, %u.%u, %u.%u; --gpu-table can define a newer GPU)",
                what, q, major, minor, near[0] / 10, near[0] % 10, near[1] / 10, near[1] % 10,
                near[2] / 10, near[2] % 10);
}

/* "sm_86", "sm_90a", "compute_120f": 2 or 3 digits, the last one the minor (sm_121 is 12.1, the
 * numbering of nvcc's -arch), then at most one a/f suffix, which names the same GPU (§1.2). */
static int parse_token(const smc_gpu_table *t, const char *s, size_t n, size_t plen,
                       smc_target *out, const char *q, char *err, size_t errlen)
{
    size_t i = plen;
    unsigned v = 0;
    for (; i < n && is_digit(s[i]) && i - plen < 3; i++)
        v = v * 10 + (unsigned)(s[i] - '0');
    size_t digits = i - plen;
    if (i < n && (to_lower(s[i]) == 'a' || to_lower(s[i]) == 'f')) i++;
    if (digits < 2 || i != n)
        return fail(err, errlen,
                    "bad arch token '%s' (expected sm_ or compute_ and 2 or 3 digits, with an "
                    "optional a or f: sm_86, sm_90a, compute_120f)",
                    q);
    if (!cc_plausible(v / 10, v % 10)) return fail(err, errlen, "implausible arch token '%s'", q);
    if (!known_cc(t, v / 10, v % 10, "arch token", q, err, errlen)) return 0;
    out->cc_major = v / 10;
    out->cc_minor = v % 10;
    return 1;
}

/* Splits s into lowercase alphanumeric words. Returns how many (at most max); each is stored
 * terminated in words[k] (cut at NAME_CAP - 1). */
static size_t split_words(const char *s, size_t n, char (*words)[NAME_CAP], size_t max)
{
    size_t nw = 0;
    for (size_t i = 0; i < n && nw < max;) {
        while (i < n && !is_alnum(s[i]))
            i++;
        if (i == n) break;
        size_t k = 0;
        for (; i < n && is_alnum(s[i]); i++)
            if (k + 1 < NAME_CAP) words[nw][k++] = to_lower(s[i]);
        words[nw][k] = '\0';
        nw++;
    }
    return nw;
}

#define WORDS_MAX 16

/* Whether item occurs in the normalised form of name starting at the start of one of its words:
 * "4090" and "rtx4090" in "GeForce RTX 4090", "tx2" in "Jetson TX2" but not in "GeForce RTX 2080"
 * (inside a word, a match is more often noise than meant). */
static bool holds_at_word(const char *name, const char *item)
{
    char key[NAME_CAP];
    size_t k = 0, il = strlen(item);
    normalise(name, strlen(name), key);
    for (size_t i = 0; name[i] && key[k]; i++) {
        if (!is_alnum(name[i])) continue;
        if ((i == 0 || !is_alnum(name[i - 1])) && strncmp(key + k, item, il) == 0) return true;
        k++;
    }
    return false;
}

/* Whether the words of the item start words of the name, in order ("rtx 6000" and "RTX PRO 6000
 * Blackwell"). Taking the first fitting name word each time is enough for an in-order match. */
static bool words_match(char (*iw)[NAME_CAP], size_t niw, const char *name)
{
    char nw[WORDS_MAX][NAME_CAP];
    size_t nnw = split_words(name, strlen(name), nw, WORDS_MAX);
    size_t j = 0;
    for (size_t i = 0; i < niw; i++) {
        size_t il = strlen(iw[i]);
        while (j < nnw && strncmp(nw[j], iw[i], il) != 0)
            j++;
        if (j == nnw) return false;
        j++;
    }
    return niw > 0;
}

/* Levenshtein distance of two normalised names (each shorter than NAME_CAP). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t prev[NAME_CAP + 1], cur[NAME_CAP + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

static size_t common_prefix(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return i;
}

/* The message for a name that matches nothing: the nearest names by edit distance, ties broken
 * by the longer common prefix (users get the start of a model number right more often than its
 * end: "rtx 4095" is nearer 4080 than 5090) and then by table order. */
static int unknown_name(const smc_gpu_table *t, const char *item_n, const char *item_s,
                        const char *q, char *err, size_t errlen)
{
    size_t best[CLOSEST_MAX], bd[CLOSEST_MAX], bp[CLOSEST_MAX], nb = 0;
    size_t il = strlen(item_s);
    size_t limit = il / 2 > 2 ? il / 2 : 2; /* beyond this a "closest" name is noise */
    for (size_t i = 0; t && i < t->count; i++) {
        /* The forms of a whole-name match (see parse_name): Quadro stays part of the name, so
         * "rtx 4095" is near GeForce RTX 4080, not Quadro RTX 4000. */
        char key[NAME_CAP];
        normalise(t->models[i].name, strlen(t->models[i].name), key);
        const char *ks = strip_brands(key, BRANDS_NAME);
        size_t d = edit_distance(item_s, ks), dn = edit_distance(item_n, ks);
        const char *from = item_s;
        if (dn < d) {
            d = dn;
            from = item_n;
        }
        if (d > limit) continue;
        size_t p = common_prefix(from, ks);
        /* Insert into the sorted best list; later rows lose ties, keeping table order. */
        size_t at = nb;
        while (at > 0 && (d < bd[at - 1] || (d == bd[at - 1] && p > bp[at - 1])))
            at--;
        if (at >= CLOSEST_MAX) continue;
        size_t last = nb < CLOSEST_MAX ? nb : CLOSEST_MAX - 1;
        for (size_t k = last; k > at; k--) {
            best[k] = best[k - 1];
            bd[k] = bd[k - 1];
            bp[k] = bp[k - 1];
        }
        best[at] = i;
        bd[at] = d;
        bp[at] = p;
        if (nb < CLOSEST_MAX) nb++;
    }
    if (nb == 0)
        return fail(err, errlen,
                    "unknown GPU '%s' (give a product name, a compute capability such as 8.6, or "
                    "an arch such as sm_86)",
                    q);
    fail(err, errlen, "unknown GPU '%s' (closest: ", q);
    for (size_t k = 0; k < nb; k++)
        append(err, errlen, "%s%s", k ? ", " : "", t->models[best[k]].name);
    append(err, errlen, ")");
    return 0;
}

/* Among candidates of one compute capability the shortest name is taken ("3090" is GeForce RTX
 * 3090, not 3090 Ti); callers keep the earlier row on a tie. */
static bool shorter(const smc_gpu_model *a, const smc_gpu_model *b)
{
    return strlen(a->name) < strlen(b->name);
}

static int fill_named(smc_target *out, const smc_gpu_model *m)
{
    snprintf(out->name, sizeof out->name, "%s", m->name);
    out->cc_major = m->cc_major;
    out->cc_minor = m->cc_minor;
    out->compat = m->compat;
    return 1;
}

/* Resolves the candidates flagged in cand[]: one compute capability → its shortest name; several
 * → "ambiguous", naming the shortest candidate of each capability, capabilities ascending. */
static int pick(const smc_gpu_table *t, const bool *cand, smc_target *out, const char *q, char *err,
                size_t errlen)
{
    const smc_gpu_model *first = NULL;
    bool mixed = false;
    for (size_t i = 0; i < t->count; i++) {
        if (!cand[i]) continue;
        const smc_gpu_model *m = &t->models[i];
        if (!first) {
            first = m;
        } else if (m->cc_major != first->cc_major || m->cc_minor != first->cc_minor) {
            mixed = true;
        } else if (shorter(m, first)) {
            first = m;
        }
    }
    if (!first) return -1; /* no candidate: the caller says "unknown" */
    if (!mixed) return fill_named(out, first);

    fail(err, errlen, "'%s' is ambiguous: ", q);
    /* Capabilities ascending: each round takes the smallest one above the last shown. */
    unsigned last = 0;
    bool any = false;
    for (size_t shown = 0;; shown++) {
        const smc_gpu_model *best = NULL;
        for (size_t i = 0; i < t->count; i++) {
            const smc_gpu_model *m = &t->models[i];
            unsigned cc = m->cc_major * 10 + m->cc_minor;
            if (!cand[i] || (any && cc <= last)) continue;
            unsigned bcc = best ? best->cc_major * 10 + best->cc_minor : 0;
            if (!best || cc < bcc || (cc == bcc && shorter(m, best))) best = m;
        }
        if (!best) break;
        if (shown == AMBIGUOUS_MAX) {
            append(err, errlen, ", ...");
            break;
        }
        append(err, errlen, "%s%s (%u.%u)", any ? ", " : "", best->name, best->cc_major,
               best->cc_minor);
        last = best->cc_major * 10 + best->cc_minor;
        any = true;
    }
    return 0;
}

static int parse_name(const smc_gpu_table *t, const char *s, size_t n, smc_target *out,
                      const char *q, char *err, size_t errlen)
{
    char item[NAME_CAP];
    if (normalise(s, n, item) == 0) return fail(err, errlen, "bad GPU '%s': no letter or digit", q);
    if (!t || t->count == 0)
        return fail(err, errlen,
                    "unknown GPU '%s' (no GPU table: give a compute capability such as 8.6, or an "
                    "arch such as sm_86)",
                    q);
    /* Two forms of the item: with only "nvidia" dropped (so "Quadro RTX 6000" can match whole),
     * and with every brand dropped ("Tesla T4" -> "t4"). */
    const char *item_n = strip_brands(item, 1);
    const char *item_s = strip_brands(item, BRANDS_ALL);
    char iw[WORDS_MAX][NAME_CAP];
    size_t niw = split_words(s, n, iw, WORDS_MAX), skip = 0;
    while (skip + 1 < niw && is_brand_word(iw[skip], strlen(iw[skip])))
        skip++;

    bool *exact = calloc(t->count, sizeof *exact), *cand = calloc(t->count, sizeof *cand);
    if (!exact || !cand) {
        free(exact);
        free(cand);
        return -1;
    }
    bool any_exact = false;
    for (size_t i = 0; i < t->count; i++) {
        char key[NAME_CAP];
        const char *name = t->models[i].name;
        normalise(name, strlen(name), key);
        const char *key_s = strip_brands(key, BRANDS_NAME);
        if (strcmp(item_n, key) == 0 || strcmp(item_n, key_s) == 0 || strcmp(item_s, key) == 0 ||
            strcmp(item_s, key_s) == 0) {
            exact[i] = true;
            any_exact = true;
        }
        cand[i] = holds_at_word(name, item_s) || words_match(iw + skip, niw - skip, name);
    }
    int rc = pick(t, any_exact ? exact : cand, out, q, err, errlen);
    if (rc < 0) rc = unknown_name(t, item_n, item_s, q, err, errlen);
    free(exact);
    free(cand);
    return rc;
}

/* One item of [s, s + n), blanks around it already allowed. */
static int parse_item(const smc_gpu_table *t, const char *s, size_t n, smc_target *out, char *err,
                      size_t errlen)
{
    trim(&s, &n);
    memset(out, 0, sizeof *out);
    char q[NAME_CAP];
    quote_copy(q, sizeof q, s, n);
    if (n == 0) return fail(err, errlen, "empty GPU name");
    if (n >= NAME_CAP) return fail(err, errlen, "GPU name too long (%zu bytes): '%s...'", n, q);

    if (has_prefix_ci(s, n, "sm_")) return parse_token(t, s, n, 3, out, q, err, errlen);
    if (has_prefix_ci(s, n, "compute_")) return parse_token(t, s, n, 8, out, q, err, errlen);
    if (is_digit(s[0]) && memchr(s, '.', n)) {
        unsigned major, minor;
        if (!parse_cc(s, n, &major, &minor))
            return fail(err, errlen, "bad compute capability '%s' (expected MAJOR.MINOR, e.g. 8.6)",
                        q);
        if (!cc_plausible(major, minor))
            return fail(err, errlen, "implausible compute capability '%s'", q);
        if (!known_cc(t, major, minor, "compute capability", q, err, errlen)) return 0;
        out->cc_major = major;
        out->cc_minor = minor;
        return 1;
    }
    return parse_name(t, s, n, out, q, err, errlen);
}

int smc_target_parse(const smc_gpu_table *t, const char *text, smc_target *out, char *err,
                     size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!out) return fail(err, errlen, "no place for the target");
    if (!text) {
        memset(out, 0, sizeof *out);
        return fail(err, errlen, "empty GPU name");
    }
    return parse_item(t, text, strlen(text), out, err, errlen);
}

int smc_target_parse_list(const smc_gpu_table *t, const char *list, smc_target **out, size_t *n,
                          char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!out || !n) return fail(err, errlen, "no place for the targets");
    *out = NULL;
    *n = 0;
    if (!list) return fail(err, errlen, "empty GPU list");
    size_t len = strlen(list), items = 1;
    for (size_t i = 0; i < len; i++)
        items += list[i] == ',';
    smc_target *v = calloc(items, sizeof *v);
    if (!v) return -1;
    size_t k = 0;
    for (size_t pos = 0; pos <= len;) {
        const char *comma = memchr(list + pos, ',', len - pos);
        size_t end = comma ? (size_t)(comma - list) : len;
        const char *s = list + pos;
        size_t sl = end - pos;
        trim(&s, &sl);
        if (sl == 0) {
            free(v);
            return fail(err, errlen, "empty item %zu in the GPU list", k + 1);
        }
        int rc = parse_item(t, s, sl, &v[k], err, errlen);
        if (rc != 1) {
            free(v);
            return rc;
        }
        k++;
        pos = end + 1;
    }
    *out = v;
    *n = k;
    return 1;
}

/* Platforms, and the GPUs only one has. */

const char *smc_platform_name(const char *text)
{
    static const char *const names[] = {"linux-x86_64", "linux-aarch64", "windows-amd64",
                                        "windows-arm64"};
    if (!text) return NULL;
    for (size_t i = 0; i < 4; i++)
        if (strcmp(text, names[i]) == 0) return names[i];
    if (strcmp(text, "win_amd64") == 0 || strcmp(text, "windows/amd64") == 0 ||
        strcmp(text, "win-64") == 0) /* a wheel tag, an OCI platform, a conda subdir */
        return names[2];
    if (strcmp(text, "win_arm64") == 0 || strcmp(text, "windows/arm64") == 0 ||
        strcmp(text, "win-arm64") == 0) /* Windows on Arm (CUDA 13.4 lists it) */
        return names[3];
    if (strcmp(text, "linux-64") == 0) return names[0];
    bool linux_tag = strncmp(text, "manylinux", 9) == 0 || strncmp(text, "musllinux", 9) == 0 ||
                     strncmp(text, "linux", 5) == 0 || strchr(text, '_') == NULL;
    if (!linux_tag) return NULL;
    if (smc_ends_with(text, "x86_64") || smc_ends_with(text, "amd64")) return names[0];
    if (smc_ends_with(text, "aarch64") || smc_ends_with(text, "arm64")) return names[1];
    return NULL;
}

bool smc_gpu_arm_only(const smc_target *t)
{
    static const unsigned arm[] = {53, 62, 72, 87, 101, 110, 121};
    unsigned cc = t->cc_major * 10 + t->cc_minor;
    for (size_t k = 0; k < sizeof arm / sizeof arm[0]; k++)
        if (arm[k] == cc) return true;
    return false;
}

const char *smc_platform_here(void)
{
#if defined(__aarch64__)
    return "linux-aarch64";
#else
    return "linux-x86_64";
#endif
}
