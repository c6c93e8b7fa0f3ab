/* pep440.c: PEP 440 versions and specifiers, and project and wheel file names (with pyenv.c and
 * markers.c, Python packaging without I/O). Every string it reads (names and versions from lock
 * files and index pages) is untrusted, so each parse is one bounded pass. */
#include "pypkg_private.h"
#include "../base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PEP 440 ---------------------------------------------------------------------------- */




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
bool pep440_pver_parse(const char *s, const char *end, pver *v, bool *wild)
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
    return s && pep440_pver_parse(s, s + strlen(s), v, NULL);
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
int pep440_clause(enum op op, const char *vs, const char *ve, const pver *cand, const char *cand_s,
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
    if (!pep440_pver_parse(vs, ve, &spec, op == OP_EQ || op == OP_NE ? &wild : NULL)) return -1;
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
int pep440_take_op(const char **p, const char *end)
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
            int op = pep440_take_op(&s, e);
            if (op < 0) return -1;
            int r = pep440_clause((enum op)op, s, e, ok ? &cand : NULL, cs, (size_t)(ce - cs));
            if (r < 0) return -1;
            if (!r) result = 0;
        }
        if (!*e) return result;
        p = e + 1;
    }
}

bool smc_pep440_is_version(const char *version, bool *pre)
{
    pver v;
    if (!pver_of(version, &v)) return false;
    if (pre) *pre = is_prerelease(&v);
    return true;
}

bool smc_pep440_spec(const char *version, char *spec, size_t n, bool *exact, bool *pre)
{
    while (is_space(*version))
        version++;
    bool op = strchr("=<>!~", *version) && *version;
    int k = snprintf(spec, n, "%s%s", op || !*version ? "" : "==", version);
    if (k < 0 || (size_t)k >= n) return false;
    while (k > 0 && is_space(spec[k - 1]))
        spec[--k] = '\0';
    *exact = strncmp(spec, "===", 3) == 0 || (strncmp(spec, "==", 2) == 0 && !strpbrk(spec, ",*"));
    *pre = false;
    if (smc_pep440_match(spec, "0") < 0) return false;
    /* packaging's SpecifierSet.prereleases: a clause naming a pre-release takes them */
    for (const char *p = spec; *p;) {
        const char *e = p + strcspn(p, ","), *s = p;
        while (s < e && is_space(*s))
            s++;
        int o = pep440_take_op(&s, e);
        pver v;
        if (o >= 0 && o != OP_ARB && pep440_pver_parse(s, e, &v, &(bool){false}))
            *pre = *pre || is_prerelease(&v);
        p = *e ? e + 1 : e;
    }
    return true;
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
    if (!pep440_pver_parse(ver, dash[1], &v, NULL)) return false;
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
