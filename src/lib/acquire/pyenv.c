/* pyenv.c: the environment wheels are chosen for (a platform and a Python) and pip's order of
 * its tags, by which a wheel file is ranked. */
#include "pypkg_private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
                   {"windows-arm64", "win_arm64", P_WIN},
                   {"windows/arm64", "win_arm64", P_WIN},
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
            "unknown platform %.40s (linux-x86_64, linux-aarch64, windows-amd64, windows-arm64, "
            "or a wheel "
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
 * after its 2_X equivalent (pip 26, docs/research/remote.md §5). linux_ARCH only when asked for alone. */
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
