/* pypkg_private.h: what the files of Python packaging share (pep440.c versions, specifiers and
 * names; pyenv.c the environment and its tags; markers.c PEP 508 markers): ASCII character
 * classes and parsed versions. Private to them. */
#ifndef SMCHECK_PYPKG_PRIVATE_H
#define SMCHECK_PYPKG_PRIVATE_H

#include "acquire.h"

/* The C library's ctype answers by locale; names and versions are ASCII by their PEPs. */
static inline bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

static inline bool is_alnum(char c)
{
    c = lower(c);
    return is_digit(c) || (c >= 'a' && c <= 'z');
}

static inline bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* PEP 440's separators between a version's parts, and in local versions. */
static inline bool is_sep(char c)
{
    return c == '-' || c == '_' || c == '.';
}

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

enum op { OP_LT, OP_LE, OP_EQ, OP_NE, OP_GE, OP_GT, OP_COMPAT, OP_ARB, OP_IN, OP_NOT_IN };

/* Parses [s, end) by packaging's VERSION_PATTERN with its normalizations (case, leading v,
 * alpha/beta/c/pre/preview/rev/r spellings, separators, implicit numbers, "-N" post releases).
 * wild: where non-NULL, a trailing ".*" right after the release is accepted and said (the only
 * place a specifier allows it). */
bool pep440_pver_parse(const char *s, const char *end, pver *v, bool *wild);

/* One specifier "op V" against a candidate, by packaging's Specifier rules: 1, 0, or -1 when
 * [vs, ve) is not a version this operator takes (".*" only with == and !=, a local version not
 * with ordering operators or ~=, ~= needs two release parts). cand_s is the candidate as
 * written, for ===; cand NULL when it is not a version. */
int pep440_clause(enum op op, const char *vs, const char *ve, const pver *cand, const char *cand_s,
                  size_t cand_len);

/* The operator at the start of [*p, end), or -1. */
int pep440_take_op(const char **p, const char *end);

#endif
