/* pypkg.c: PEP 440 versions and specifiers, PEP 508 markers, wheel file names and pip's tag order
 * for a target environment; every string it reads (markers from lock files, names and versions
 * from index pages) is untrusted, so each parse is one bounded pass with no unbounded recursion. */
#include "acquire.h"
#include "../base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The C library's ctype answers by locale; names and versions are ASCII by their PEPs. */
static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

static bool is_alnum(char c)
{
    c = lower(c);
    return is_digit(c) || (c >= 'a' && c <= 'z');
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* PEP 440's separators between a version's parts, and in local versions. */
static bool is_sep(char c)
{
    return c == '-' || c == '_' || c == '.';
}

/* ---- PEP 440 ---------------------------------------------------------------------------- */

#define REL_MAX 32   /* release parts; more and the string is not taken as a version */
#define LOCAL_MAX 96 /* bytes of a normalized local version */

/* A number of a version, of any size, as its digits in the string parsed (which outlives it),
 * without leading zeros: zero has none. */
typedef struct num {
    const char *s;
    size_t len;
} num;

/* A parsed version: the fields of packaging's _Version, numbers compared exactly (a
 * requires-python of ">=18446744073709551616" is a version like any other). */
typedef struct pver {
    num epoch, rel[REL_MAX], pre, post, dev;
    size_t nrel;
    int pre_kind; /* -1 none; 0 a, 1 b, 2 rc */
    bool post_set, dev_set;
    char local[LOCAL_MAX]; /* lower case, segments joined by '.'; "" when none */
} pver;

/* Digits at *p into v: 1, or 0 when there are none. */
static int take_num(const char **p, const char *end, num *v)
{
    const char *s = *p;
    if (s == end || !is_digit(*s)) return 0;
    while (s < end && *s == '0')
        s++;
    const char *digits = s;
    while (s < end && is_digit(*s))
        s++;
    *p = s;
    *v = (num){digits, (size_t)(s - digits)};
    return 1;
}

static const num zero = {"", 0};

static int numcmp(num a, num b)
{
    if (a.len != b.len) return a.len < b.len ? -1 : 1;
    if (!a.len) return 0; /* two zeros (a number not written has no digits to point at) */
    int c = memcmp(a.s, b.s, a.len);
    return c < 0 ? -1 : c > 0;
}

/* The word w (lower case) at *p, in any case. */
static bool take_word(const char **p, const char *end, const char *w)
{
    size_t k = strlen(w);
    if ((size_t)(end - *p) < k) return false;
    for (size_t i = 0; i < k; i++)
        if (lower((*p)[i]) != w[i]) return false;
    *p += k;
    return true;
}

/* The number after a pre, post or dev word: "[-_.]?N", 0 when absent (PEP 440 "Implicit
 * pre-release number"). The separator goes even without digits, as packaging's pattern takes
 * it ("1.0a-" is 1.0a0). */
static bool take_implicit(const char **p, const char *end, num *v)
{
    const char *s = *p;
    *v = zero;
    if (s < end && is_sep(*s)) s++;
    take_num(&s, end, v);
    *p = s;
    return true;
}

/* Parses [s, end) by packaging's VERSION_PATTERN with its normalizations (case, leading v,
 * alpha/beta/c/pre/preview/rev/r spellings, separators, implicit numbers, "-N" post releases).
 * wild: where non-NULL, a trailing ".*" right after the release is accepted and said (the only
 * place a specifier allows it). */
static bool pver_parse(const char *s, const char *end, pver *v, bool *wild)
{
    static const struct {
        const char *w;
        int kind;
    } pre_words[] = {{"alpha", 0},   {"a", 0},   {"beta", 1}, {"b", 1},
                     {"preview", 2}, {"pre", 2}, {"c", 2},    {"rc", 2}};
    static const char *const post_words[] = {"post", "rev", "r"};
    memset(v, 0, sizeof *v);
    v->pre_kind = -1;
    if (wild) *wild = false;
    while (s < end && is_space(*s))
        s++;
    while (end > s && is_space(end[-1]))
        end--;
    if (s < end && lower(*s) == 'v') s++;
    num x;
    if (take_num(&s, end, &x) <= 0) return false;
    if (s < end && *s == '!') {
        v->epoch = x;
        s++;
        if (take_num(&s, end, &x) <= 0) return false;
    }
    v->rel[v->nrel++] = x;
    while (s + 1 < end && *s == '.' && is_digit(s[1])) {
        s++;
        if (v->nrel == REL_MAX) return false;
        take_num(&s, end, &x);
        v->rel[v->nrel++] = x;
    }
    if (wild && end - s == 2 && s[0] == '.' && s[1] == '*') {
        *wild = true;
        return true;
    }
    const char *q = s + (s < end && is_sep(*s));
    for (size_t i = 0; i < sizeof pre_words / sizeof pre_words[0]; i++) {
        if (!take_word(&q, end, pre_words[i].w)) continue;
        v->pre_kind = pre_words[i].kind;
        if (!take_implicit(&q, end, &v->pre)) return false;
        s = q;
        break;
    }
    q = s;
    if (q + 1 < end && *q == '-' && is_digit(q[1])) {
        q++;
        take_num(&q, end, &v->post);
        v->post_set = true;
        s = q;
    } else {
        q += q < end && is_sep(*q);
        for (size_t i = 0; i < sizeof post_words / sizeof post_words[0]; i++) {
            if (!take_word(&q, end, post_words[i])) continue;
            if (!take_implicit(&q, end, &v->post)) return false;
            v->post_set = true;
            s = q;
            break;
        }
    }
    q = s + (s < end && is_sep(*s));
    if (take_word(&q, end, "dev")) {
        if (!take_implicit(&q, end, &v->dev)) return false;
        v->dev_set = true;
        s = q;
    }
    if (s < end && *s == '+') {
        size_t k = 0;
        bool need = true; /* a segment must follow '+' and each separator */
        for (s++; s < end; s++) {
            char c = lower(*s);
            if (is_alnum(c))
                need = false;
            else if (is_sep(c) && !need)
                c = '.', need = true;
            else
                break;
            if (k + 1 >= LOCAL_MAX) return false;
            v->local[k++] = c;
        }
        if (need) return false;
        v->local[k] = 0;
    }
    return s == end;
}

static bool pver_of(const char *s, pver *v)
{
    return s && pver_parse(s, s + strlen(s), v, NULL);
}

/* Local versions (PEP 440 "Local version identifiers"): segment by segment, numbers as numbers
 * and above words, words as strings; a version without one sorts first. */
static int local_cmp(const char *a, const char *b)
{
    if (!*a || !*b) return (*a != 0) - (*b != 0);
    for (;;) {
        size_t la = strcspn(a, "."), lb = strcspn(b, ".");
        bool na = strspn(a, "0123456789") >= la, nb = strspn(b, "0123456789") >= lb;
        int c;
        if (na && nb) {
            while (la > 1 && *a == '0')
                a++, la--;
            while (lb > 1 && *b == '0')
                b++, lb--;
            c = la != lb ? (la < lb ? -1 : 1) : memcmp(a, b, la);
        } else if (na != nb) {
            c = na ? 1 : -1;
        } else {
            c = memcmp(a, b, la < lb ? la : lb);
            if (!c) c = (la > lb) - (la < lb);
        }
        if (c) return c < 0 ? -1 : 1;
        a += la, b += lb;
        if (!*a || !*b) return (*a != 0) - (*b != 0);
        a++, b++;
    }
}

/* packaging's _cmpkey: a dev release of a final sorts before its pre-releases, a final after
 * them; no post sorts before any post; no dev after any dev. */
static int pre_rank(const pver *v)
{
    if (v->pre_kind >= 0) return 1;
    return !v->post_set && v->dev_set ? 0 : 2;
}

static num rel_at(const pver *v, size_t i)
{
    return i < v->nrel ? v->rel[i] : zero;
}

static int pver_cmp(const pver *a, const pver *b)
{
    int c = numcmp(a->epoch, b->epoch);
    if (c) return c;
    size_t n = a->nrel > b->nrel ? a->nrel : b->nrel;
    for (size_t i = 0; i < n; i++)
        if ((c = numcmp(rel_at(a, i), rel_at(b, i)))) return c;
    int ra = pre_rank(a), rb = pre_rank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    if (ra == 1) {
        if (a->pre_kind != b->pre_kind) return a->pre_kind < b->pre_kind ? -1 : 1;
        if ((c = numcmp(a->pre, b->pre))) return c;
    }
    if (a->post_set != b->post_set) return a->post_set ? 1 : -1;
    if (a->post_set && (c = numcmp(a->post, b->post))) return c;
    if (a->dev_set != b->dev_set) return a->dev_set ? -1 : 1;
    if (a->dev_set && (c = numcmp(a->dev, b->dev))) return c;
    return local_cmp(a->local, b->local);
}

int smc_pep440_cmp(const char *a, const char *b)
{
    pver x, y;
    bool ox = pver_of(a, &x), oy = pver_of(b, &y);
    if (ox && oy) return pver_cmp(&x, &y);
    if (ox != oy) return ox ? 1 : -1;
    int c = strcmp(a ? a : "", b ? b : "");
    return c < 0 ? -1 : c > 0;
}

/* The first k release parts of v (zero-padded) are rel, in epoch epoch: "==V.*". */
static bool prefix_match(const pver *v, num epoch, const num *rel, size_t k)
{
    if (numcmp(v->epoch, epoch) != 0) return false;
    for (size_t i = 0; i < k; i++)
        if (numcmp(rel_at(v, i), rel[i]) != 0) return false;
    return true;
}

/* Same epoch and release: Version(a.base_version) == Version(b.base_version). */
static bool base_eq(const pver *a, const pver *b)
{
    return prefix_match(a, b->epoch, b->rel, b->nrel) && prefix_match(b, a->epoch, a->rel, a->nrel);
}

/* packaging's Version.is_prerelease: a pre or a dev release. */
static bool is_prerelease(const pver *v)
{
    return v->pre_kind >= 0 || v->dev_set;
}

enum op { OP_LT, OP_LE, OP_EQ, OP_NE, OP_GE, OP_GT, OP_COMPAT, OP_ARB, OP_IN, OP_NOT_IN };

/* Longest first, so that "===" is not read as "==" and "=". */
static const struct {
    const char *s;
    enum op op;
} version_ops[] = {{"===", OP_ARB}, {"~=", OP_COMPAT}, {"==", OP_EQ}, {"!=", OP_NE},
                   {"<=", OP_LE},   {">=", OP_GE},     {"<", OP_LT},  {">", OP_GT}};

/* One specifier "op V" against a candidate, by packaging's Specifier rules: 1, 0, or -1 when
 * [vs, ve) is not a version this operator takes (".*" only with == and !=, a local version not
 * with ordering operators or ~=, ~= needs two release parts). cand_s is the candidate as
 * written, for ===; cand NULL when it is not a version. */
static int clause(enum op op, const char *vs, const char *ve, const pver *cand, const char *cand_s,
                  size_t cand_len)
{
    while (vs < ve && is_space(*vs))
        vs++;
    while (ve > vs && is_space(ve[-1]))
        ve--;
    if (vs == ve) return -1;
    if (op == OP_ARB) {
        for (const char *p = vs; p < ve; p++)
            if (is_space(*p) || *p == ';' || *p == ')') return -1;
        if ((size_t)(ve - vs) != cand_len) return 0;
        for (size_t i = 0; i < cand_len; i++)
            if (lower(vs[i]) != lower(cand_s[i])) return 0;
        return 1;
    }
    pver spec;
    bool wild;
    if (!pver_parse(vs, ve, &spec, op == OP_EQ || op == OP_NE ? &wild : NULL)) return -1;
    if (op != OP_EQ && op != OP_NE) {
        wild = false;
        if (spec.local[0]) return -1;
    }
    if (op == OP_COMPAT && spec.nrel < 2) return -1;
    if (!cand) return -1;
    pver pub = *cand; /* the candidate's public version */
    pub.local[0] = 0;
    switch (op) {
    case OP_EQ:
    case OP_NE: {
        bool eq = wild ? prefix_match(cand, spec.epoch, spec.rel, spec.nrel)
                       : pver_cmp(spec.local[0] ? cand : &pub, &spec) == 0;
        return eq == (op == OP_EQ);
    }
    case OP_COMPAT:
        return pver_cmp(&pub, &spec) >= 0 &&
               prefix_match(cand, spec.epoch, spec.rel, spec.nrel - 1);
    case OP_LE:
        return pver_cmp(&pub, &spec) <= 0;
    case OP_GE:
        return pver_cmp(&pub, &spec) >= 0;
    case OP_LT: /* "<V" excludes V's own pre-releases unless V is one */
        if (pver_cmp(cand, &spec) >= 0) return 0;
        return !(!is_prerelease(&spec) && is_prerelease(cand) && base_eq(cand, &spec));
    case OP_GT: /* ">V" excludes V's post releases unless V is one, and V's local versions */
        if (pver_cmp(cand, &spec) <= 0) return 0;
        if (!spec.post_set && cand->post_set && base_eq(cand, &spec)) return 0;
        return !(cand->local[0] && base_eq(cand, &spec));
    default:
        return -1;
    }
}

/* The operator at the start of [*p, end), or -1. */
static int take_op(const char **p, const char *end)
{
    for (size_t i = 0; i < sizeof version_ops / sizeof version_ops[0]; i++) {
        size_t k = strlen(version_ops[i].s);
        if ((size_t)(end - *p) >= k && memcmp(*p, version_ops[i].s, k) == 0) {
            *p += k;
            return (int)version_ops[i].op;
        }
    }
    return -1;
}

int smc_pep440_match(const char *specifiers, const char *version)
{
    if (!specifiers || !version) return -1;
    pver cand;
    bool ok = pver_of(version, &cand);
    const char *cs = version, *ce = version + strlen(version);
    while (cs < ce && is_space(*cs))
        cs++;
    while (ce > cs && is_space(ce[-1]))
        ce--;
    int result = 1;
    for (const char *p = specifiers;;) {
        const char *e = strchr(p, ',');
        if (!e) e = p + strlen(p);
        const char *s = p;
        while (s < e && is_space(*s))
            s++;
        if (s < e) { /* packaging skips empty parts: ">=3.9," is ">=3.9" */
            int op = take_op(&s, e);
            if (op < 0) return -1;
            int r = clause((enum op)op, s, e, ok ? &cand : NULL, cs, (size_t)(ce - cs));
            if (r < 0) return -1;
            if (!r) result = 0;
        }
        if (!*e) return result;
        p = e + 1;
    }
}

/* ---- names ------------------------------------------------------------------------------ */

void smc_pyname_normalize(const char *name, char *out, size_t n)
{
    if (!n) return;
    size_t k = 0;
    bool run = false;
    for (; name && *name && k + 1 < n; name++) {
        if (is_sep(*name)) {
            if (!run) out[k++] = '-';
            run = true;
        } else {
            out[k++] = lower(*name);
            run = false;
        }
    }
    out[k] = 0;
}

/* Copies [s, s+len) into out of n bytes, lower-cased when low: false when it does not fit. */
static bool copy_part(char *out, size_t n, const char *s, size_t len, bool low)
{
    if (len >= n) return false;
    for (size_t i = 0; i < len; i++)
        out[i] = low ? lower(s[i]) : s[i];
    out[len] = 0;
    return true;
}

bool smc_wheel_name_parse(const char *filename, smc_wheel_name *w)
{
    memset(w, 0, sizeof *w);
    if (!filename) return false;
    size_t len = strlen(filename);
    if (len < 4 || strcmp(filename + len - 4, ".whl") != 0) return false;
    len -= 4;
    /* packaging's parse_wheel_filename: 4 or 5 dashes, name-version[-build]-tags */
    const char *dash[5];
    size_t nd = 0;
    for (size_t i = 0; i < len; i++) {
        if (filename[i] != '-') continue;
        if (nd == 5) return false;
        dash[nd++] = filename + i;
    }
    if (nd != 4 && nd != 5) return false;
    const char *name = filename, *ver = dash[0] + 1, *tags = dash[nd - 3] + 1;
    size_t name_len = (size_t)(dash[0] - filename);
    if (!name_len) return false;
    for (size_t i = 0; i < name_len; i++) {
        char c = name[i];
        if (!is_alnum(c) && c != '.' && c != '_') return false;
        if (c == '_' && i + 1 < name_len && name[i + 1] == '_') return false;
    }
    pver v;
    if (!pver_parse(ver, dash[1], &v, NULL)) return false;
    if (!copy_part(w->version, sizeof w->version, ver, (size_t)(dash[1] - ver), false))
        return false;
    if (nd == 5) {
        const char *b = dash[1] + 1;
        if (!is_digit(*b)) return false;
        if (!copy_part(w->build, sizeof w->build, b, (size_t)(dash[2] - b), false)) return false;
    }
    /* each of interpreters, abis, platforms a non-empty dotted set */
    for (size_t i = nd - 3; i < nd; i++) {
        const char *s = dash[i] + 1, *e = i + 1 < nd ? dash[i + 1] : filename + len;
        if (s == e || *s == '.' || e[-1] == '.') return false;
        for (const char *p = s; p < e; p++)
            if (!is_alnum(*p) && *p != '_' && (*p != '.' || p[1] == '.')) return false;
    }
    if (!copy_part(w->tags, sizeof w->tags, tags, (size_t)(filename + len - tags), true))
        return false;
    char raw[sizeof w->name];
    if (!copy_part(raw, sizeof raw, name, name_len, false)) return false;
    smc_pyname_normalize(raw, w->name, sizeof w->name);
    return true;
}

/* ---- the environment and its tags ------------------------------------------------------ */

/* A part of a tag, in the tag's own string. */
typedef struct span {
    const char *s;
    size_t len;
} span;

/* The distinct interpreters, abis and platforms of an environment's tags, and each tag's three
 * as indexes into them: a wheel's compressed tag set then becomes three sets of flags and its
 * rank the first tag whose three flags are up, however many tags its name combines. */
typedef struct tag_index {
    span *dist[3];
    size_t ndist[3];
    uint32_t *of; /* 3 per tag; UINT32_MAX for a tag that is not a triple */
} tag_index;

static void index_free(tag_index *ix)
{
    if (!ix) return;
    for (int k = 0; k < 3; k++)
        free(ix->dist[k]);
    free(ix->of);
}

static long find_span(const span *d, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (d[i].len == len && memcmp(d[i].s, s, len) == 0) return (long)i;
    return -1;
}

static bool index_build(const smc_pyenv *e, tag_index *ix)
{
    memset(ix, 0, sizeof *ix);
    if (e->tag_count >= UINT32_MAX) return false;
    ix->of = malloc((e->tag_count ? e->tag_count : 1) * 3 * sizeof *ix->of);
    for (int k = 0; k < 3; k++)
        ix->dist[k] = malloc((e->tag_count ? e->tag_count : 1) * sizeof(span));
    if (!ix->of || !ix->dist[0] || !ix->dist[1] || !ix->dist[2]) {
        index_free(ix);
        return false;
    }
    for (size_t t = 0; t < e->tag_count; t++) {
        const char *s = e->tags[t], *d1 = strchr(s, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
        uint32_t *of = ix->of + 3 * t;
        if (!d2 || strchr(d2 + 1, '-')) {
            of[0] = of[1] = of[2] = UINT32_MAX;
            continue;
        }
        span parts[3] = {
            {s, (size_t)(d1 - s)}, {d1 + 1, (size_t)(d2 - d1 - 1)}, {d2 + 1, strlen(d2 + 1)}};
        for (int k = 0; k < 3; k++) {
            long at = find_span(ix->dist[k], ix->ndist[k], parts[k].s, parts[k].len);
            if (at < 0) {
                at = (long)ix->ndist[k];
                ix->dist[k][ix->ndist[k]++] = parts[k];
            }
            of[k] = (uint32_t)at;
        }
    }
    return true;
}

long smc_wheel_rank(const smc_pyenv *e, const char *filename)
{
    smc_wheel_name w;
    if (!e || !smc_wheel_name_parse(filename, &w)) return -1;
    tag_index tmp, *ix = e->tag_index;
    if (!ix) {
        if (!index_build(e, &tmp)) return -1;
        ix = &tmp;
    }
    size_t total = ix->ndist[0] + ix->ndist[1] + ix->ndist[2];
    bool *hit = calloc(total ? total : 1, 1), *set[3];
    long rank = -1;
    if (!hit) goto out;
    set[0] = hit, set[1] = hit + ix->ndist[0], set[2] = set[1] + ix->ndist[1];
    /* w.tags is "i.i-a.a-p.p", checked by the parse */
    const char *p = w.tags;
    for (int k = 0; k < 3; k++) {
        for (;;) {
            size_t len = strcspn(p, ".-");
            long at = find_span(ix->dist[k], ix->ndist[k], p, len);
            if (at >= 0) set[k][at] = true;
            p += len;
            if (*p != '.') break;
            p++;
        }
        if (*p == '-') p++;
    }
    for (size_t t = 0; t < e->tag_count; t++) {
        const uint32_t *of = ix->of + 3 * t;
        if (of[0] != UINT32_MAX && set[0][of[0]] && set[1][of[1]] && set[2][of[2]]) {
            rank = (long)t;
            break;
        }
    }
out:
    free(hit);
    if (ix == &tmp) index_free(&tmp);
    return rank;
}

/* A target platform: its kind, glibc or musl floor, machine. */
typedef enum pkind { P_MANYLINUX, P_MUSL, P_LINUX, P_WIN } pkind;

typedef struct plat {
    pkind kind;
    unsigned minor;      /* glibc 2.minor, musl 1.minor */
    char arch[16];       /* the tag's machine part */
    char tag[24];        /* win_amd64, win_arm64, win32 */
    const char *machine; /* platform_machine; NULL: arch */
} plat;

static bool known_arch(const char *a)
{
    static const char *const arches[] = {"x86_64", "i686",  "aarch64", "armv7l",     "ppc64le",
                                         "ppc64",  "s390x", "riscv64", "loongarch64"};
    for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
        if (strcmp(a, arches[i]) == 0) return true;
    return false;
}

/* "N_ARCH" after a prefix: the number and a known machine. */
static bool floor_arch(const char *s, unsigned *minor, char *arch, size_t n)
{
    if (!is_digit(*s)) return false;
    unsigned long x = 0;
    for (; is_digit(*s); s++) {
        x = x * 10 + (unsigned long)(*s - '0');
        if (x > 999) return false;
    }
    if (*s != '_' || !known_arch(s + 1) || strlen(s + 1) >= n) return false;
    *minor = (unsigned)x;
    strcpy(arch, s + 1);
    return true;
}

static bool plat_parse(const char *name, plat *p, char *why, size_t n)
{
    static const struct {
        const char *name, *arch;
        pkind kind;
    } aliases[] = {{"linux-x86_64", "x86_64", P_MANYLINUX},
                   {"linux/amd64", "x86_64", P_MANYLINUX},
                   {"linux-aarch64", "aarch64", P_MANYLINUX},
                   {"linux/arm64", "aarch64", P_MANYLINUX},
                   {"windows-amd64", "win_amd64", P_WIN},
                   {"windows/amd64", "win_amd64", P_WIN},
                   {"win_amd64", "win_amd64", P_WIN},
                   {"win_arm64", "win_arm64", P_WIN},
                   {"win32", "win32", P_WIN}};
    static const struct {
        const char *prefix;
        unsigned minor;
    } legacy[] = {{"manylinux2014_", 17}, {"manylinux2010_", 12}, {"manylinux1_", 5}};
    char s[48];
    memset(p, 0, sizeof *p);
    if (!name || strlen(name) >= sizeof s) goto bad;
    for (size_t i = 0;; i++)
        if (!(s[i] = lower(name[i]))) break;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(s, aliases[i].name) != 0) continue;
        p->kind = aliases[i].kind;
        if (p->kind == P_WIN) {
            strcpy(p->tag, aliases[i].arch);
            p->machine = strcmp(p->tag, "win_amd64") == 0   ? "AMD64"
                         : strcmp(p->tag, "win_arm64") == 0 ? "ARM64"
                                                            : "x86";
        } else {
            strcpy(p->arch, aliases[i].arch);
            p->minor = 28; /* uv's default floor, and torch's since 2.6 */
        }
        return true;
    }
    if (strncmp(s, "manylinux_2_", 12) == 0 && floor_arch(s + 12, &p->minor, p->arch, 16)) {
        p->kind = P_MANYLINUX;
        unsigned lowest = strcmp(p->arch, "x86_64") == 0 || strcmp(p->arch, "i686") == 0 ? 5 : 17;
        if (p->minor < lowest) {
            smc_say(why, n, "platform %s: manylinux for %s starts at glibc 2.%u", name, p->arch,
                lowest);
            return false;
        }
        return true;
    }
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++) {
        size_t k = strlen(legacy[i].prefix);
        if (strncmp(s, legacy[i].prefix, k) != 0 || !known_arch(s + k)) continue;
        strcpy(p->arch, s + k);
        p->kind = P_MANYLINUX;
        p->minor = legacy[i].minor;
        bool x86 = strcmp(p->arch, "x86_64") == 0 || strcmp(p->arch, "i686") == 0;
        if (legacy[i].minor < 17 && !x86) goto bad;
        return true;
    }
    if (strncmp(s, "musllinux_1_", 12) == 0 && floor_arch(s + 12, &p->minor, p->arch, 16)) {
        p->kind = P_MUSL;
        return true;
    }
    if (strncmp(s, "linux_", 6) == 0 && known_arch(s + 6)) {
        p->kind = P_LINUX;
        strcpy(p->arch, s + 6);
        return true;
    }
bad:
    smc_say(why, n,
        "unknown platform %.40s (linux-x86_64, linux-aarch64, windows-amd64, or a wheel "
        "platform tag such as manylinux_2_28_x86_64, musllinux_1_2_aarch64, win_amd64)",
        name ? name : "(none)");
    return false;
}

/* A growing list of strings. */
typedef struct strs {
    char **v;
    size_t n, cap;
    bool oom;
} strs;

static void push(strs *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void push(strs *l, const char *fmt, ...)
{
    if (l->oom) return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = true;
            return;
        }
        l->v = v, l->cap = cap;
    }
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = k >= 0 && (size_t)k < sizeof buf ? malloc((size_t)k + 1) : NULL;
    if (!s) {
        l->oom = true;
        return;
    }
    memcpy(s, buf, (size_t)k + 1);
    l->v[l->n++] = s;
}

static void strs_free(strs *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* The platform tags, most preferred first, as packaging's _manylinux.platform_tags and
 * _musllinux.platform_tags yield them: newest floor first, each legacy manylinux alias right
 * after its 2_X equivalent (pip 26, remote.md §5). linux_ARCH only when asked for alone. */
static void plat_tags(const plat *p, strs *out)
{
    switch (p->kind) {
    case P_WIN:
        push(out, "%s", p->tag);
        break;
    case P_LINUX:
        push(out, "linux_%s", p->arch);
        break;
    case P_MUSL:
        for (unsigned m = p->minor + 1; m-- > 0;)
            push(out, "musllinux_1_%u_%s", m, p->arch);
        break;
    case P_MANYLINUX: {
        bool x86 = strcmp(p->arch, "x86_64") == 0 || strcmp(p->arch, "i686") == 0;
        /* manylinux2014 exists for these (PEP 599); older ones only for x86 */
        bool has2014 = x86 || strcmp(p->arch, "aarch64") == 0 || strcmp(p->arch, "armv7l") == 0 ||
                       strcmp(p->arch, "ppc64") == 0 || strcmp(p->arch, "ppc64le") == 0 ||
                       strcmp(p->arch, "s390x") == 0;
        for (unsigned m = p->minor; m >= (x86 ? 5u : 17u); m--) {
            push(out, "manylinux_2_%u_%s", m, p->arch);
            if (m == 17 && has2014) push(out, "manylinux2014_%s", p->arch);
            if (m == 12) push(out, "manylinux2010_%s", p->arch);
            if (m == 5) push(out, "manylinux1_%s", p->arch);
        }
        break;
    }
    }
}

/* "3.N" or "3.N.M" (N, M at most 99 and 999). */
static bool python_parse(const char *s, unsigned *minor, unsigned *micro, bool *has_micro)
{
    if (s[0] != '3' || s[1] != '.' || !is_digit(s[2])) return false;
    s += 2;
    unsigned v[2] = {0, 0};
    const unsigned lim[2] = {99, 999};
    *has_micro = false;
    for (int i = 0; i < 2; i++) {
        if (!is_digit(*s) || (*s == '0' && is_digit(s[1]))) return false;
        for (; is_digit(*s); s++)
            if ((v[i] = v[i] * 10 + (unsigned)(*s - '0')) > lim[i]) return false;
        if (i == 0 && *s == '.') {
            s++;
            *has_micro = true;
            continue;
        }
        break;
    }
    *minor = v[0], *micro = v[1];
    return *s == 0;
}

bool smc_pyenv_init(smc_pyenv *e, const char *platform, const char *python, char *why, size_t n)
{
    memset(e, 0, sizeof *e);
    unsigned minor, micro;
    bool has_micro;
    if (!python) python = "3.12";
    if (!python_parse(python, &minor, &micro, &has_micro)) {
        smc_say(why, n, "unknown python %.40s (3.N or 3.N.M, CPython)", python);
        return false;
    }
    plat p;
    if (!plat_parse(platform, &p, why, n)) return false;
    snprintf(e->python_version, sizeof e->python_version, "3.%u", minor);
    snprintf(e->python_full_version, sizeof e->python_full_version, "3.%u.%u", minor, micro);
    strcpy(e->implementation_version, e->python_full_version);
    strcpy(e->implementation_name, "cpython");
    strcpy(e->platform_python_implementation, "CPython");
    bool win = p.kind == P_WIN;
    strcpy(e->sys_platform, win ? "win32" : "linux");
    strcpy(e->platform_system, win ? "Windows" : "Linux");
    strcpy(e->os_name, win ? "nt" : "posix");
    strcpy(e->platform_machine, p.machine ? p.machine : p.arch);

    strs plats = {0}, t = {0};
    plat_tags(&p, &plats);
    /* packaging's cpython_tags then compatible_tags, as pip's get_supported lists them for
     * --python-version 3.N: the interpreter's abi (cp37m below 3.8), abi3 where it applies
     * (3.2 on), none, abi3 of every older minor down to cp32; then pyXY-none, py3-none ...
     * py30-none for the platforms; then cpXY-none-any and the py ones for any. */
    for (size_t i = 0; i < plats.n; i++)
        push(&t, "cp3%u-cp3%u%s-%s", minor, minor, minor < 8 ? "m" : "", plats.v[i]);
    for (size_t i = 0; minor >= 2 && i < plats.n; i++)
        push(&t, "cp3%u-abi3-%s", minor, plats.v[i]);
    for (size_t i = 0; i < plats.n; i++)
        push(&t, "cp3%u-none-%s", minor, plats.v[i]);
    for (unsigned m = minor; m-- > 2;)
        for (size_t i = 0; i < plats.n; i++)
            push(&t, "cp3%u-abi3-%s", m, plats.v[i]);
    for (size_t i = 0; i < plats.n; i++)
        push(&t, "py3%u-none-%s", minor, plats.v[i]);
    for (size_t i = 0; i < plats.n; i++)
        push(&t, "py3-none-%s", plats.v[i]);
    for (unsigned m = minor; m-- > 0;)
        for (size_t i = 0; i < plats.n; i++)
            push(&t, "py3%u-none-%s", m, plats.v[i]);
    push(&t, "cp3%u-none-any", minor);
    push(&t, "py3%u-none-any", minor);
    push(&t, "py3-none-any");
    for (unsigned m = minor; m-- > 0;)
        push(&t, "py3%u-none-any", m);
    bool oom = plats.oom || t.oom;
    strs_free(&plats);
    e->tags = t.v;
    e->tag_count = t.n;
    tag_index *ix = oom ? NULL : malloc(sizeof *ix);
    if (ix && !index_build(e, ix)) {
        free(ix);
        ix = NULL;
    }
    e->tag_index = ix;
    if (!ix) {
        smc_pyenv_free(e);
        smc_say(why, n, "out of memory");
        return false;
    }
    return true;
}

void smc_pyenv_free(smc_pyenv *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->tag_count; i++)
        free(e->tags[i]);
    free(e->tags);
    index_free(e->tag_index);
    free(e->tag_index);
    e->tags = NULL;
    e->tag_count = 0;
    e->tag_index = NULL;
}

/* ---- PEP 508 markers ------------------------------------------------------------------- */

#define MARKER_MAX (64u << 10) /* bytes; lock files' markers are a few hundred */
#define MARKER_DEPTH 64        /* parentheses */

typedef struct mctx {
    const char *start, *p, *end;
    const smc_pyenv *e;
    const char *extra;
    const char *const *active; /* with has_set: the extras installed together (uv's sets) */
    size_t active_count;
    bool has_set;
    char *why;
    size_t n;
    int depth;
} mctx;

/* A value of a comparison: a literal, or a variable's value (extra says it was `extra`). */
typedef struct mval {
    const char *s;
    size_t len;
    bool extra;
} mval;

static int bad(mctx *m, const char *what)
{
    smc_say(m->why, m->n, "malformed marker: %s at offset %zu", what, (size_t)(m->p - m->start));
    return -1;
}

static void skip_ws(mctx *m)
{
    while (m->p < m->end && is_space(*m->p))
        m->p++;
}

static bool ident_char(char c)
{
    return is_alnum(c) || c == '_' || c == '.';
}

/* The keyword w at the cursor, as a whole word. */
static bool keyword(mctx *m, const char *w)
{
    size_t k = strlen(w);
    if ((size_t)(m->end - m->p) < k || memcmp(m->p, w, k) != 0) return false;
    if (m->p + k < m->end && ident_char(m->p[k])) return false;
    m->p += k;
    return true;
}

/* PEP 508's variables, with the dotted spellings packaging still takes. */
static const char *variable(const mctx *m, const char *s, size_t len, bool *extra)
{
    const smc_pyenv *e = m->e;
    const struct {
        const char *name, *value;
    } vars[] = {
        {"python_version", e->python_version},
        {"python_full_version", e->python_full_version},
        {"os_name", e->os_name},
        {"os.name", e->os_name},
        {"sys_platform", e->sys_platform},
        {"sys.platform", e->sys_platform},
        {"platform_machine", e->platform_machine},
        {"platform.machine", e->platform_machine},
        {"platform_system", e->platform_system},
        {"platform_python_implementation", e->platform_python_implementation},
        {"platform.python_implementation", e->platform_python_implementation},
        {"python_implementation", e->platform_python_implementation},
        {"implementation_name", e->implementation_name},
        {"implementation_version", e->implementation_version},
        {"platform_release", ""}, /* the target's kernel and build are not known */
        {"platform_version", ""},
        {"platform.version", ""},
        {"extra", m->extra ? m->extra : ""},
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        if (strlen(vars[i].name) == len && memcmp(vars[i].name, s, len) == 0) {
            *extra = i + 1 == sizeof vars / sizeof vars[0];
            return vars[i].value;
        }
    }
    return NULL;
}

static int value(mctx *m, mval *v)
{
    skip_ws(m);
    memset(v, 0, sizeof *v);
    if (m->p == m->end) return bad(m, "a value expected");
    char q = *m->p;
    if (q == '"' || q == '\'') { /* PEP 508 strings have no escapes */
        const char *s = m->p + 1, *e = memchr(s, q, (size_t)(m->end - s));
        if (!e) return bad(m, "unterminated string");
        v->s = s, v->len = (size_t)(e - s);
        m->p = e + 1;
        return 0;
    }
    const char *s = m->p;
    while (m->p < m->end && ident_char(*m->p))
        m->p++;
    if (m->p == s) return bad(m, "a value expected");
    const char *val = variable(m, s, (size_t)(m->p - s), &v->extra);
    if (!val) {
        m->p = s;
        return bad(m, "unknown variable");
    }
    v->s = val, v->len = strlen(val);
    return 0;
}

static int marker_op(mctx *m)
{
    skip_ws(m);
    int op = take_op(&m->p, m->end);
    if (op >= 0) return op;
    if (keyword(m, "in")) return OP_IN;
    if (keyword(m, "not")) {
        skip_ws(m);
        if (keyword(m, "in")) return OP_NOT_IN;
    }
    return bad(m, "an operator expected");
}

/* Normalizes an extra name into new memory (packaging compares extras by their PEP 503 names). */
static char *norm_dup(const mval *v)
{
    char *raw = malloc(v->len + 1), *out = malloc(v->len + 1);
    if (raw && out) {
        memcpy(raw, v->s, v->len);
        raw[v->len] = 0;
        smc_pyname_normalize(raw, out, v->len + 1);
    }
    free(raw);
    if (!raw) {
        free(out);
        out = NULL;
    }
    return out;
}

/* bsearch's order of a name (the key) and an element of a sorted array of names. */
static int name_cmp(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

/* packaging's _eval_op: the operator and right side as a specifier on the left side when both
 * are versions; otherwise Python's string operators. */
static int compare(mctx *m, mval l, int op, mval r)
{
    char *nl = NULL, *nr = NULL;
    if (l.extra || r.extra) {
        nl = norm_dup(&l), nr = norm_dup(&r);
        if (!nl || !nr) {
            free(nl);
            free(nr);
            smc_say(m->why, m->n, "out of memory");
            return -1;
        }
        l.s = nl, l.len = strlen(nl), r.s = nr, r.len = strlen(nr);
    }
    int res = -1;
    if (m->has_set && (l.extra != r.extra) && (op == OP_EQ || op == OP_NE)) {
        const char *name = l.extra ? nr : nl; /* extra == "x": whether x is among those installed */
        bool in = m->active_count &&
                  bsearch(name, m->active, m->active_count, sizeof *m->active, name_cmp);
        res = in == (op == OP_EQ);
        goto out;
    }
    if (op == OP_IN || op == OP_NOT_IN) {
        bool in = l.len == 0 || (r.len >= l.len && memmem(r.s, r.len, l.s, l.len));
        res = in == (op == OP_IN);
        goto out;
    }
    pver lv;
    if (pver_parse(l.s, l.s + l.len, &lv, NULL)) {
        res = clause((enum op)op, r.s, r.s + r.len, &lv, l.s, l.len);
        if (res >= 0) goto out;
    }
    size_t k = l.len < r.len ? l.len : r.len;
    int c = memcmp(l.s, r.s, k);
    if (!c) c = (l.len > r.len) - (l.len < r.len);
    switch (op) {
    case OP_LT:
        res = c < 0;
        break;
    case OP_LE:
        res = c <= 0;
        break;
    case OP_EQ:
        res = c == 0;
        break;
    case OP_NE:
        res = c != 0;
        break;
    case OP_GE:
        res = c >= 0;
        break;
    case OP_GT:
        res = c > 0;
        break;
    case OP_ARB:
        res = c == 0;
        break;
    default:
        smc_say(m->why, m->n, "marker: ~= between values that are not versions");
        res = -1;
    }
out:
    free(nl);
    free(nr);
    return res;
}

static int m_or(mctx *m);

static int m_atom(mctx *m)
{
    skip_ws(m);
    if (m->p < m->end && *m->p == '(') {
        if (++m->depth > MARKER_DEPTH) return bad(m, "nested too deep");
        m->p++;
        int r = m_or(m);
        if (r < 0) return r;
        skip_ws(m);
        if (m->p == m->end || *m->p != ')') return bad(m, "')' expected");
        m->p++;
        m->depth--;
        return r;
    }
    mval l, r;
    if (value(m, &l) < 0) return -1;
    int op = marker_op(m);
    if (op < 0 || value(m, &r) < 0) return -1;
    return compare(m, l, op, r);
}

/* Both sides are always evaluated, so that a malformed right side is found as packaging's parser
 * would; "and" binds tighter than "or". */
static int m_and(mctx *m)
{
    int r = m_atom(m);
    for (;;) {
        if (r < 0) return r;
        skip_ws(m);
        if (!keyword(m, "and")) return r;
        int r2 = m_atom(m);
        if (r2 < 0) return r2;
        r = r && r2;
    }
}

static int m_or(mctx *m)
{
    int r = m_and(m);
    for (;;) {
        if (r < 0) return r;
        skip_ws(m);
        if (!keyword(m, "or")) return r;
        int r2 = m_and(m);
        if (r2 < 0) return r2;
        r = r || r2;
    }
}

static int marker_eval(mctx *mc, const char *marker)
{
    if (!marker || !mc->e) {
        smc_say(mc->why, mc->n, "no marker");
        return -1;
    }
    size_t len = strnlen(marker, MARKER_MAX + 1);
    if (len > MARKER_MAX) {
        smc_say(mc->why, mc->n, "marker longer than %u bytes", MARKER_MAX);
        return -1;
    }
    mctx m = *mc;
    m.start = m.p = marker;
    m.end = marker + len;
    int r = m_or(&m);
    if (r < 0) return r;
    skip_ws(&m);
    if (m.p != m.end) return bad(&m, "unexpected text");
    return r;
}

int smc_marker_eval(const char *marker, const smc_pyenv *e, const char *extra, char *why, size_t n)
{
    mctx m = {.e = e, .extra = extra, .why = why, .n = n};
    return marker_eval(&m, marker);
}

int smc_marker_eval_set(const char *marker, const smc_pyenv *e, const char *const *extras,
                        size_t count, char *why, size_t n)
{
    mctx m = {.e = e, .active = extras, .active_count = count, .has_set = true, .why = why, .n = n};
    return marker_eval(&m, marker);
}
