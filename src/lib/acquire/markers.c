/* markers.c: PEP 508 environment markers evaluated for an environment, as one bounded pass of
 * recursive descent whose depth is capped: markers come from untrusted lock files. */
#include "pypkg_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int op = pep440_take_op(&m->p, m->end);
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
    if (pep440_pver_parse(l.s, l.s + l.len, &lv, NULL)) {
        res = pep440_clause((enum op)op, r.s, r.s + r.len, &lv, l.s, l.len);
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
