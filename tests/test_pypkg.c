/* test_pypkg.c: Python packaging without I/O (pypkg.c, pyindex.c): PEP 440 order and
 * specifiers, PEP 508 markers (the ones uv.lock and torch's METADATA carry), names, wheel names,
 * pip's tag order against `pip debug`'s, and the wheel chosen from the index pages in
 * fixtures/index, then hostile pages. argv[1]: the fixtures directory. Prints "N passed, M
 * failed". */
#include "../src/lib/acquire/acquire.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static const char *fixtures = "fixtures";

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fixtures, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0, r;
    char *s = malloc(cap + 1);
    while (s && (r = fread(s + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) s = realloc(s, (cap *= 2) + 1);
    }
    fclose(f);
    if (s) s[n] = 0;
    *len = n;
    return s;
}

static int env(smc_pyenv *e, const char *platform, const char *python)
{
    char why[256];
    bool ok = smc_pyenv_init(e, platform, python, why, sizeof why);
    if (!ok) fprintf(stderr, "pyenv %s %s: %s\n", platform, python ? python : "-", why);
    return ok;
}

static long tag_at(const smc_pyenv *e, const char *tag)
{
    for (size_t i = 0; i < e->tag_count; i++)
        if (strcmp(e->tags[i], tag) == 0) return (long)i;
    return -1;
}

/* ---- PEP 440 ---------------------------------------------------------------------------- */

static void test_versions(void)
{
    /* packaging's test order (PEP 440's examples, local versions included) */
    static const char *const order[] = {
        "1.0.dev456",    "1.0a1",         "1.0a2.dev456", "1.0a12.dev456",
        "1.0a12",        "1.0b1.dev456",  "1.0b2",        "1.0b2.post345.dev456",
        "1.0b2.post345", "1.0rc1.dev456", "1.0rc1",       "1.0",
        "1.0+abc.5",     "1.0+abc.7",     "1.0+5",        "1.0.post456.dev34",
        "1.0.post456",   "1.0.15",        "1.1.dev1",     "1!0.1",
    };
    size_t n = sizeof order / sizeof order[0];
    for (size_t i = 0; i < n; i++) {
        CHECK(smc_pep440_cmp(order[i], order[i]) == 0);
        for (size_t j = i + 1; j < n; j++) {
            if (smc_pep440_cmp(order[i], order[j]) >= 0 || smc_pep440_cmp(order[j], order[i]) <= 0)
                fprintf(stderr, "order: %s vs %s\n", order[i], order[j]);
            CHECK(smc_pep440_cmp(order[i], order[j]) < 0);
            CHECK(smc_pep440_cmp(order[j], order[i]) > 0);
        }
    }
    const char *chain[] = {"1.0.dev0", "1.0a1", "1.0b1", "1.0rc1", "1.0", "1.0.post1"};
    for (size_t i = 0; i + 1 < 6; i++)
        CHECK(smc_pep440_cmp(chain[i], chain[i + 1]) < 0);
    /* normalizations (PEP 440 "Normalization") */
    static const char *const same[][2] = {
        {"1.0ALPHA1", "1.0a1"},
        {"1.0-1", "1.0.post1"},
        {"v1.0", "1.0"},
        {"1.0.0", "1"},
        {"1.0c1", "1.0rc1"},
        {"1.0-dev", "1.0.dev0"},
        {"1.0.rev1", "1.0.post1"},
        {"1.0r", "1.0.post0"},
        {"1.0pre2", "1.0rc2"},
        {"1.0preview2", "1.0rc2"},
        {"1.0+ubuntu-1", "1.0+ubuntu.1"},
        {"1.0+01", "1.0+1"},
        {"0!1.0", "1.0"},
        {" 1.0 ", "1.0"},
        {"1.0-a_1", "1.0a1"},
        {"1.0b", "1.0b0"},
        {"1.0.post", "1.0.post0"},
        {"1.0_post_2", "1.0.post2"},
        {"1.0+ABC", "1.0+abc"},
        {"1.0a.", "1.0a0"}, /* packaging takes a trailing separator */
        {"1.0.post-", "1.0.post0"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        if (smc_pep440_cmp(same[i][0], same[i][1]) != 0)
            fprintf(stderr, "same: %s vs %s\n", same[i][0], same[i][1]);
        CHECK(smc_pep440_cmp(same[i][0], same[i][1]) == 0);
    }
    /* numbers of any size, compared exactly, leading zeros dropped as int() drops them */
    CHECK(smc_pep440_cmp("18446744073709551616", "18446744073709551615") > 0);
    CHECK(smc_pep440_cmp("3.99999999999999999999999999", "3.100000000000000000000000000") < 0);
    CHECK(smc_pep440_cmp("1.00000000000000000000000000000001", "1.1") == 0);
    CHECK(smc_pep440_cmp("1.0.post18446744073709551617", "1.0.post18446744073709551616") > 0);
    CHECK(smc_pep440_cmp("99999999999999999999!0.1", "5.0") > 0);
    CHECK(smc_pep440_match(">=18446744073709551616", "3.12.0") == 0);
    CHECK(smc_pep440_match("<18446744073709551616", "3.12.0") == 1);
    CHECK(smc_pep440_match(">=3.8,!=3.18446744073709551616.*", "3.12.0") == 1);
    CHECK(smc_pep440_match("==3.12.00000000000000000000000", "3.12") == 1);
    CHECK(smc_pep440_cmp("1!1.0", "2.0") > 0);
    CHECK(smc_pep440_cmp("2.10.0", "2.9.1") > 0);
    CHECK(smc_pep440_cmp("1.0+1", "1.0+abc") > 0);
    CHECK(smc_pep440_cmp("1.0+abc", "1.0+abc.1") < 0);
    CHECK(smc_pep440_cmp("1.0+cpu", "1.0+cu128") < 0);
    CHECK(smc_pep440_cmp("1.0", "1.0+cu128") < 0);
    /* not versions: before every version, among themselves by strcmp */
    static const char long_local[] = /* a local version past the 96-byte cap */
        "1.0+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    static const char *const bad[] = {
        "", "abc", "1.0+", "1..0", "1.0.*", "1.0+a..b", "1.0-", "1!", "1.0 1", long_local,
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (smc_pep440_cmp(bad[i], "0") >= 0) fprintf(stderr, "bad version taken: %s\n", bad[i]);
        CHECK(smc_pep440_cmp(bad[i], "0") < 0);
        CHECK(smc_pep440_match(">=0", bad[i]) == -1);
    }
    CHECK(smc_pep440_cmp("abc", "abd") < 0);
    CHECK(smc_pep440_cmp(NULL, "1") < 0);
}

static void test_specifiers(void)
{
    static const struct {
        const char *spec, *version;
        int want;
    } cases[] = {
        {">=3.9,!=3.10.*,<4", "3.11.0", 1},
        {">=3.9,!=3.10.*,<4", "3.10.5", 0},
        {">=3.9,!=3.10.*,<4", "4.0", 0},
        {">=3.9,!=3.10.*,<4", "3.8", 0},
        {">= 3.9 , < 4", "3.9", 1},
        {">=3.9,", "3.9", 1},
        {"", "1.0", 1},
        {"~=2.2", "2.3", 1},
        {"~=2.2", "2.2", 1},
        {"~=2.2", "3.0", 0},
        {"~=2.2", "2.1", 0},
        {"~=1.4.5", "1.4.9", 1},
        {"~=1.4.5", "1.5.0", 0},
        {"~=1.4.5a4", "1.4.5", 1},
        {"~=2.2.post3", "2.3", 1},
        {"~=1", "1.0", -1},
        {"==2.8", "2.8.0", 1},
        {"==2.8.0", "2.8", 1},
        {"==2.8.0", "2.8.0+cu128", 1},
        {"==2.8.0+cu128", "2.8.0", 0},
        {"==2.8.0+cu128", "2.8.0+cu128", 1},
        {"==2.8.0+cu126", "2.8.0+cu128", 0},
        {"==3.11.*", "3.11.4", 1},
        {"==3.11.*", "3.11", 1},
        {"==3.11.*", "3.12.0", 0},
        {"==3.11.*", "3.1", 0},
        {"==1.0.*", "1.0a1", 1},
        {"==1.0.*", "1.0.post1+local", 1},
        {"==1.0.0.*", "1", 1},
        {"!=3.10.*", "3.10.2", 0},
        {"!=3.10.*", "3.11", 1},
        {"!=2.8.0", "2.8.0+cpu", 0},
        {"===foo", "foo", 1},
        {"===foo", "FOO", 1},
        {"===1.0", "1.0.0", 0},
        {"===1.0", "1.0", 1},
        {"<3.0", "3.0a1", 0},
        {"<3.0", "3.0.dev1", 0},
        {"<3.0rc1", "3.0a1", 1},
        {"<3.0", "2.9", 1},
        {"<3.0", "2.9a1", 1},
        {">1.7", "1.7.post1", 0},
        {">1.7.post1", "1.7.post2", 1},
        {">1.7", "1.7+local", 0},
        {">1.7", "1.8", 1},
        {">1.7", "1.7.1", 1},
        {"<=2.0", "2.0+local", 1},
        {">=2.0", "2.0+local", 1},
        {">=1.0", "1.1a1", 1},
        {">=3.9.0", "3.8.0", 0},
        {">=3.9.0", "3.9", 1},
        {">=1!1.0", "2.0", 0},
        {"foo", "1.0", -1},
        {">=3.*", "3.0", -1},
        {"~=3.*", "3.0", -1},
        {"<1.0+local", "0.9", -1},
        {"==1.0.dev1.*", "1.0", -1},
        {"==", "1.0", -1},
        {">=1.0,bar", "1.0", -1},
        {"=>1.0", "1.0", -1},
        {">=1.0", "not a version", -1},
        {"== 2.8.0", "2.8.0", 1},
        {"==v2.8.0", "2.8.0", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = smc_pep440_match(cases[i].spec, cases[i].version);
        if (got != cases[i].want)
            fprintf(stderr, "match %s %s: %d, want %d\n", cases[i].spec, cases[i].version, got,
                    cases[i].want);
        CHECK(got == cases[i].want);
    }
    CHECK(smc_pep440_match(NULL, "1") == -1);
}

/* ---- markers ---------------------------------------------------------------------------- */

static int mark(const smc_pyenv *e, const char *m, const char *extra)
{
    char why[256] = "";
    int r = smc_marker_eval(m, e, extra, why, sizeof why);
    if (r < 0 && !why[0]) fprintf(stderr, "marker %s: -1 without why\n", m);
    return r;
}

static void test_markers(void)
{
    smc_pyenv lx, win, arm, py312;
    if (!env(&lx, "linux-x86_64", "3.11") || !env(&win, "windows-amd64", "3.11") ||
        !env(&arm, "linux-aarch64", "3.11") || !env(&py312, "manylinux_2_28_x86_64", "3.12")) {
        CHECK(false); /* the environments */
        return;
    }
    static const struct {
        const char *m;
        int lx, win, arm;
    } cases[] = {
        {"python_version >= \"3.8\"", 1, 1, 1},
        {"python_version > \"3.9\"", 1, 1, 1}, /* as versions; as strings "3.11" < "3.9" */
        {"python_version == \"3.11.0\"", 1, 1, 1},
        {"python_full_version == '3.11.*'", 1, 1, 1},
        {"python_full_version < '3.11'", 0, 0, 0},
        {"python_full_version >= '3.11'", 1, 1, 1},
        {"python_full_version >= '3.12'", 0, 0, 0},
        {"platform_machine == 'x86_64' and sys_platform == 'linux'", 1, 0, 0},
        {"platform_system == \"Linux\" and platform_machine == \"x86_64\"", 1, 0, 0},
        {"platform_machine == 'aarch64'", 0, 0, 1},
        {"platform_machine == 'AMD64'", 0, 1, 0},
        {"sys_platform == 'win32' and os_name == 'nt' and platform_system == 'Windows'", 0, 1, 0},
        {"os_name == 'posix'", 1, 0, 1},
        {"os.name == 'posix'", 1, 0, 1},
        {"sys.platform == 'linux'", 1, 0, 1},
        {"implementation_name == 'cpython'", 1, 1, 1},
        {"platform_python_implementation == 'CPython'", 1, 1, 1},
        {"python_implementation != 'PyPy'", 1, 1, 1},
        {"implementation_version >= '3.11'", 1, 1, 1},
        {"sys_platform < 'm'", 1, 0, 1}, /* strings: "linux" < "m" < "win32" */
        {"'linux' in sys_platform", 1, 0, 1},
        {"'x86' in platform_machine", 1, 0, 0},
        {"'arm' not in platform_machine", 1, 1, 1},
        {"sys_platform in 'linux darwin'", 1, 0, 1},
        {"sys_platform not in \"linux darwin\"", 0, 1, 0},
        {"'' in os_name", 1, 1, 1},
        {"os_name == \"nt\" and python_version < \"3\" or sys_platform == \"linux\"", 1, 0, 1},
        {"sys_platform == \"linux\" or os_name == \"nt\" and python_version < \"3\"", 1, 0, 1},
        {"(sys_platform == \"linux\" or os_name == \"nt\") and python_version < \"3\"", 0, 0, 0},
        {"((((sys_platform == 'linux'))))", 1, 0, 1},
        {"  python_version>='3'and(os_name=='nt'or os_name=='posix')  ", 1, 1, 1},
        {"'3.11' == python_version", 1, 1, 1},
        {"'3.9' < python_version", 1, 1, 1},
        {"platform_release >= '5'", 0, 0, 0},
        {"platform_version == ''", 1, 1, 1},
        {"extra == 'optree'", 0, 0, 0},
        {"python_version === '3.11'", 1, 1, 1},
        {"python_version ~= '3.0'", 1, 1, 1},
        {"python_version ~= '3.12'", 0, 0, 0},
        {"sys_platform ~= 'linux'", -1, -1, -1},
        {"python_version >=", -1, -1, -1},
        {"foo == '1'", -1, -1, -1},
        {"python_version == \"3.11", -1, -1, -1},
        {"python_version == \"3.11\" and", -1, -1, -1},
        {"python_version \"3.11\"", -1, -1, -1},
        {")", -1, -1, -1},
        {"", -1, -1, -1},
        {"(python_version == '3'", -1, -1, -1},
        {"python_version == '3' extra", -1, -1, -1},
        {"python_version = '3'", -1, -1, -1},
        {"python_version == '3' andx os_name == 'nt'", -1, -1, -1},
        {"python_version not '3'", -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int a = mark(&lx, cases[i].m, NULL), b = mark(&win, cases[i].m, NULL),
            c = mark(&arm, cases[i].m, NULL);
        if (a != cases[i].lx || b != cases[i].win || c != cases[i].arm)
            fprintf(stderr, "marker %s: %d %d %d\n", cases[i].m, a, b, c);
        CHECK(a == cases[i].lx && b == cases[i].win && c == cases[i].arm);
    }
    /* extras, by their normalized names */
    CHECK(mark(&lx, "extra == 'optree'", "optree") == 1);
    CHECK(mark(&lx, "extra == 'optree'", "OpTree") == 1);
    CHECK(mark(&lx, "extra == \"opt_einsum\"", "opt-einsum") == 1);
    CHECK(mark(&lx, "extra != 'optree'", NULL) == 1);
    CHECK(mark(&lx, "extra == 'optree' and python_version >= '3.12'", "optree") == 0);
    CHECK(mark(&py312, "extra == 'optree' or python_version >= '3.12'", NULL) == 1);
    /* nesting: 64 levels evaluate, 65 are refused, and a deep one costs no stack */
    char deep[400000];
    for (int depth = 64; depth <= 65; depth++) {
        size_t k = 0;
        for (int i = 0; i < depth; i++)
            deep[k++] = '(';
        k += (size_t)sprintf(deep + k, "os_name == 'posix'");
        for (int i = 0; i < depth; i++)
            deep[k++] = ')';
        deep[k] = 0;
        CHECK(mark(&lx, deep, NULL) == (depth == 64 ? 1 : -1));
    }
    memset(deep, '(', sizeof deep - 1);
    deep[sizeof deep - 1] = 0;
    CHECK(mark(&lx, deep, NULL) == -1); /* also longer than 64 KiB */
    memset(deep, '(', 60000);
    deep[60000] = 0;
    CHECK(mark(&lx, deep, NULL) == -1);
    /* a long marker of many terms: linear */
    size_t k = 0;
    while (k + 40 < 60000)
        k += (size_t)sprintf(deep + k, "os_name == 'nt' or ");
    sprintf(deep + k, "os_name == 'posix'");
    CHECK(mark(&lx, deep, NULL) == 1);
    CHECK(mark(&win, deep, NULL) == 1);
    CHECK(smc_marker_eval(NULL, &lx, NULL, NULL, 0) == -1);
    /* A set of extras installed together (uv.lock's conflict markers; normalized and sorted):
     * == is membership of the marker's name normalized, != its absence; other variables and
     * operators as before. */
    static const char *const both[] = {"extra-4-proj-cu128", "group-4-proj-dev"};
    char why[256];
    CHECK(smc_marker_eval_set("extra == 'Extra_4-proj.CU128'", &lx, both, 2, why, 64) == 1);
    CHECK(smc_marker_eval_set("extra == 'group-4-proj-dev'", &lx, both, 2, why, 64) == 1);
    CHECK(smc_marker_eval_set("extra != 'extra-4-proj-cpu'", &lx, both, 2, why, 64) == 1);
    CHECK(smc_marker_eval_set("'extra-4-proj-cpu' == extra", &lx, both, 2, why, 64) == 0);
    CHECK(smc_marker_eval_set("extra == 'extra-4-proj-cpu' or extra != 'extra-4-proj-cu128'", &lx,
                              both, 2, why, 64) == 0);
    CHECK(smc_marker_eval_set("extra != 'extra-4-proj-cpu' and sys_platform == 'linux'", &lx, both,
                              2, why, 64) == 1);
    CHECK(smc_marker_eval_set("extra == 'x'", &lx, NULL, 0, why, 64) == 0);
    CHECK(smc_marker_eval_set("extra != 'x'", &lx, NULL, 0, why, 64) == 1);
    CHECK(smc_marker_eval_set("extra ==", &lx, both, 2, why, 64) == -1);

    /* every marker uv.lock carries parses; the edges of torch's nvidia wheels hold on linux */
    size_t len;
    char *lock = slurp("locks/uv.lock", &len);
    CHECK(lock != NULL);
    size_t seen = 0, bad = 0;
    for (char *p = lock; p && (p = strstr(p, "\"")) != NULL;) {
        char *q = strchr(p + 1, '"');
        if (!q) break;
        *q = 0;
        const char *s = p + 1;
        if (strstr(s, "python_full_version") || strstr(s, "platform_machine") ||
            strstr(s, "sys_platform")) {
            seen++;
            int r[4] = {mark(&lx, s, NULL), mark(&win, s, NULL), mark(&arm, s, NULL),
                        mark(&py312, s, NULL)};
            for (int i = 0; i < 4; i++)
                bad += r[i] < 0;
            if (strcmp(s, "platform_machine == 'x86_64' and sys_platform == 'linux'") == 0)
                CHECK(r[0] == 1 && r[1] == 0 && r[2] == 0 && r[3] == 1);
            if (strcmp(s, "python_full_version == '3.11.*'") == 0)
                CHECK(r[0] == 1 && r[1] == 1 && r[3] == 0);
            if (strcmp(s, "python_full_version < '3.11'") == 0) CHECK(r[0] == 0 && r[3] == 0);
            if (strcmp(s, "python_full_version >= '3.12'") == 0) CHECK(r[0] == 0 && r[3] == 1);
        }
        p = q + 1;
    }
    CHECK(seen == 36); /* grep -o '"[^"]*\(python_full_version\|platform_machine\)[^"]*"' */
    CHECK(bad == 0);
    free(lock);

    /* torch 2.8.0's Requires-Dist markers */
    char *meta = slurp("index/torch-2.8.0-cp311-manylinux_2_28_x86_64.whl.metadata", &len);
    CHECK(meta != NULL);
    int on[4] = {0}, total = 0, malformed = 0;
    const smc_pyenv *envs[4] = {&lx, &win, &arm, &py312};
    for (char *line = meta; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *semi = strchr(line, ';');
        if (strncmp(line, "Requires-Dist:", 14) == 0 && semi) {
            total++;
            for (int i = 0; i < 4; i++) {
                int r = mark(envs[i], semi + 1, NULL);
                malformed += r < 0;
                on[i] += r == 1;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    CHECK(total == 19);
    CHECK(malformed == 0);
    CHECK(on[0] == 15 && on[1] == 0 && on[2] == 0 && on[3] == 16);
    free(meta);
    smc_pyenv_free(&lx);
    smc_pyenv_free(&win);
    smc_pyenv_free(&arm);
    smc_pyenv_free(&py312);
}

/* ---- names ------------------------------------------------------------------------------ */

static void test_names(void)
{
    char out[64];
    static const char *const cases[][2] = {
        {"Bits_And.Bytes", "bits-and-bytes"},
        {"a--b__c", "a-b-c"},
        {"Torch", "torch"},
        {"nvidia_cuda_runtime_cu12", "nvidia-cuda-runtime-cu12"},
        {"_x.", "-x-"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        smc_pyname_normalize(cases[i][0], out, sizeof out);
        CHECK(strcmp(out, cases[i][1]) == 0);
    }
    smc_pyname_normalize("abcdef", out, 4);
    CHECK(strcmp(out, "abc") == 0);

    smc_wheel_name w;
    CHECK(smc_wheel_name_parse("torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl", &w));
    CHECK(strcmp(w.name, "torch") == 0 && strcmp(w.version, "2.8.0") == 0 && !w.build[0] &&
          strcmp(w.tags, "cp311-cp311-manylinux_2_28_x86_64") == 0);
    CHECK(smc_wheel_name_parse(
        "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", &w));
    CHECK(strcmp(w.tags, "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64") == 0);
    CHECK(smc_wheel_name_parse("six-1.16.0-py2.py3-none-any.whl", &w));
    CHECK(strcmp(w.tags, "py2.py3-none-any") == 0);
    CHECK(smc_wheel_name_parse("foo-1.0-1-py3-none-any.whl", &w) && strcmp(w.build, "1") == 0);
    CHECK(smc_wheel_name_parse("foo-1.0-12abc-py3-none-any.whl", &w) &&
          strcmp(w.build, "12abc") == 0);
    CHECK(smc_wheel_name_parse("Foo.Bar-1.0-py3-none-any.whl", &w) &&
          strcmp(w.name, "foo-bar") == 0);
    CHECK(smc_wheel_name_parse("nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64."
                               "manylinux_2_17_x86_64.whl",
                               &w) &&
          strcmp(w.name, "nvidia-cuda-runtime-cu12") == 0);
    CHECK(smc_wheel_name_parse("foo-1.0-PY3-NONE-ANY.whl", &w) &&
          strcmp(w.tags, "py3-none-any") == 0);
    CHECK(smc_wheel_name_parse("torch-2.8.0+cu128-cp311-cp311-linux_x86_64.whl", &w) &&
          strcmp(w.version, "2.8.0+cu128") == 0);
    static const char *const bad[] = {
        "foo-1.0-py3-none-any.zip",
        "foo-1.0-abc-py3-none-any.whl",
        "foo-1.0-py3-none.whl",
        "foo-bar-1.0-1-py3-none-any.whl",
        "foo__bar-1.0-py3-none-any.whl",
        "foo-notaversion-py3-none-any.whl",
        "foo-1.0-1-2-py3-none-any.whl",
        "-1.0-py3-none-any.whl",
        "foo-1.0-py3--any.whl",
        "foo-1.0-py3..py2-none-any.whl",
        "foo-1.0-.py3-none-any.whl",
        "foo-1.0-py3-none-any.WHL",
        "foo-1.0.tar.gz",
        ".whl",
        "fo o-1.0-py3-none-any.whl",
        "foo-1.0-py3-none-an/y.whl",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (smc_wheel_name_parse(bad[i], &w)) fprintf(stderr, "wheel name taken: %s\n", bad[i]);
        CHECK(!smc_wheel_name_parse(bad[i], &w));
    }
    char longname[700];
    memset(longname, 'a', 600);
    strcpy(longname + 600, "-1.0-py3-none-any.whl");
    CHECK(!smc_wheel_name_parse(longname, &w));
    CHECK(!smc_wheel_name_parse(NULL, &w));
}

/* ---- tags ------------------------------------------------------------------------------- */

static void test_tags(void)
{
    smc_pyenv e;
    if (!env(&e, "manylinux_2_28_x86_64", "3.11")) {
        CHECK(false); /* manylinux_2_28_x86_64 */
        return;
    }
    /* 27 platforms (2_28 .. 2_5 and three legacy names) for 25 interpreter/abi groups, then 14
     * for any */
    CHECK(e.tag_count == 27 * 25 + 14);
    CHECK(strcmp(e.tags[0], "cp311-cp311-manylinux_2_28_x86_64") == 0);
    CHECK(strcmp(e.tags[1], "cp311-cp311-manylinux_2_27_x86_64") == 0);
    CHECK(tag_at(&e, "cp311-cp311-manylinux2014_x86_64") ==
          tag_at(&e, "cp311-cp311-manylinux_2_17_x86_64") + 1);
    CHECK(tag_at(&e, "cp311-cp311-manylinux2010_x86_64") ==
          tag_at(&e, "cp311-cp311-manylinux_2_12_x86_64") + 1);
    CHECK(tag_at(&e, "cp311-cp311-manylinux1_x86_64") ==
          tag_at(&e, "cp311-cp311-manylinux_2_5_x86_64") + 1);
    CHECK(tag_at(&e, "cp311-abi3-manylinux_2_28_x86_64") == 27);
    CHECK(tag_at(&e, "cp311-cp311-linux_x86_64") < 0);
    CHECK(tag_at(&e, "cp311-cp311-manylinux_2_4_x86_64") < 0);
    CHECK(tag_at(&e, "cp311-cp311-manylinux_2_29_x86_64") < 0);
    CHECK(strcmp(e.tags[e.tag_count - 1], "py30-none-any") == 0);
    CHECK(strcmp(e.python_full_version, "3.11.0") == 0 && strcmp(e.python_version, "3.11") == 0);
    CHECK(strcmp(e.platform_machine, "x86_64") == 0 && strcmp(e.sys_platform, "linux") == 0);

    /* pip 26.3's list for --platform manylinux_2_28_x86_64 --python-version 3.11: every one of
     * its tags in ours, in the same order */
    size_t len;
    char *pip = slurp("index/pip-debug-tags-cp311-manylinux_2_28_x86_64.txt", &len);
    CHECK(pip != NULL);
    char *at = pip ? strstr(pip, "Compatible tags:") : NULL;
    size_t count = 0;
    long last = -1;
    bool ordered = true;
    for (char *line = at ? strchr(at, '\n') : NULL; line && line[1] == ' ';) {
        line++;
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        while (*line == ' ')
            line++;
        long i = tag_at(&e, line);
        if (i <= last) {
            fprintf(stderr, "pip tag %s: at %ld after %ld\n", line, i, last);
            ordered = false;
        }
        last = i;
        count++;
        line = nl;
    }
    CHECK(count == 39);
    CHECK(ordered);
    free(pip);

    /* ranks */
    CHECK(smc_wheel_rank(&e, "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl") == 0);
    CHECK(smc_wheel_rank(&e, "bitsandbytes-0.45.5-py3-none-manylinux_2_24_x86_64.whl") ==
          tag_at(&e, "py3-none-manylinux_2_24_x86_64"));
    CHECK(smc_wheel_rank(&e, "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64."
                             "whl") == tag_at(&e, "cp311-cp311-manylinux_2_17_x86_64"));
    CHECK(smc_wheel_rank(&e, "six-1.16.0-py2.py3-none-any.whl") == tag_at(&e, "py3-none-any"));
    CHECK(smc_wheel_rank(&e, "x-1.0-cp39.cp311-abi3.cp311-manylinux1_x86_64.whl") ==
          tag_at(&e, "cp311-cp311-manylinux1_x86_64"));
    CHECK(smc_wheel_rank(&e, "x-1.0-cp310-abi3-manylinux_2_28_x86_64.whl") ==
          tag_at(&e, "cp310-abi3-manylinux_2_28_x86_64"));
    CHECK(smc_wheel_rank(&e, "x-1.0-cp312-abi3-manylinux_2_28_x86_64.whl") == -1);
    CHECK(smc_wheel_rank(&e, "torch-2.8.0-cp311-cp311-win_amd64.whl") == -1);
    CHECK(smc_wheel_rank(&e, "torch-2.8.0-cp311-cp311-linux_x86_64.whl") == -1);
    CHECK(smc_wheel_rank(&e, "torch-2.8.0-cp311-cp311-manylinux_2_28_aarch64.whl") == -1);
    CHECK(smc_wheel_rank(&e, "torch-2.8.0-cp313-cp313t-manylinux_2_28_x86_64.whl") == -1);
    CHECK(smc_wheel_rank(&e, "torch-2.8.0.tar.gz") == -1);
    /* the same answer with no index (an environment built by hand) */
    void *ix = e.tag_index;
    e.tag_index = NULL;
    CHECK(smc_wheel_rank(&e, "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64."
                             "whl") == tag_at(&e, "cp311-cp311-manylinux_2_17_x86_64"));
    e.tag_index = ix;
    /* a long compressed set is cheap: each part is looked up once */
    char many[600] = "x-1.0-";
    size_t k = strlen(many);
    while (k < 440)
        k += (size_t)sprintf(many + k, "py2%zu.", k);
    strcpy(many + k, "py3-none-any.whl");
    CHECK(smc_wheel_rank(&e, many) == tag_at(&e, "py3-none-any"));
    smc_pyenv_free(&e);
    smc_pyenv_free(&e); /* twice is harmless */

    /* the platforms and pythons */
    CHECK(env(&e, "linux_x86_64", "3.11"));
    CHECK(e.tag_count == 39 && strcmp(e.tags[0], "cp311-cp311-linux_x86_64") == 0);
    smc_pyenv_free(&e);
    CHECK(env(&e, "windows-amd64", "3.11.4"));
    CHECK(strcmp(e.tags[0], "cp311-cp311-win_amd64") == 0 && e.tag_count == 39);
    CHECK(strcmp(e.platform_machine, "AMD64") == 0 && strcmp(e.sys_platform, "win32") == 0 &&
          strcmp(e.os_name, "nt") == 0 && strcmp(e.platform_system, "Windows") == 0);
    CHECK(strcmp(e.python_full_version, "3.11.4") == 0);
    smc_pyenv_free(&e);
    CHECK(env(&e, "linux/arm64", NULL));
    CHECK(strcmp(e.python_version, "3.12") == 0);
    CHECK(strcmp(e.tags[0], "cp312-cp312-manylinux_2_28_aarch64") == 0);
    CHECK(tag_at(&e, "cp312-cp312-manylinux2014_aarch64") ==
          tag_at(&e, "cp312-cp312-manylinux_2_17_aarch64") + 1);
    CHECK(tag_at(&e, "cp312-cp312-manylinux_2_16_aarch64") < 0);
    CHECK(tag_at(&e, "cp312-cp312-manylinux2010_aarch64") < 0);
    CHECK(e.tag_count == 13 * 27 + 15);
    CHECK(strcmp(e.platform_machine, "aarch64") == 0);
    smc_pyenv_free(&e);
    CHECK(env(&e, "musllinux_1_2_x86_64", "3.11"));
    CHECK(strcmp(e.tags[0], "cp311-cp311-musllinux_1_2_x86_64") == 0 &&
          strcmp(e.tags[2], "cp311-cp311-musllinux_1_0_x86_64") == 0 && e.tag_count == 3 * 25 + 14);
    smc_pyenv_free(&e);
    CHECK(env(&e, "manylinux2014_x86_64", "3.7"));
    CHECK(strcmp(e.tags[0], "cp37-cp37m-manylinux_2_17_x86_64") == 0);
    CHECK(tag_at(&e, "cp37-abi3-manylinux1_x86_64") >= 0);
    smc_pyenv_free(&e);
    CHECK(env(&e, "linux-x86_64", "3.13"));
    CHECK(strcmp(e.tags[0], "cp313-cp313-manylinux_2_28_x86_64") == 0);
    smc_pyenv_free(&e);
    char why[256];
    static const char *const bad_plat[] = {"macos",
                                           "manylinux_2_28_sparc",
                                           "manylinux2010_aarch64",
                                           "manylinux_2_3_x86_64",
                                           "manylinux_2_12_aarch64",
                                           "linux",
                                           "",
                                           "linux_",
                                           "manylinux_2__x86_64"};
    for (size_t i = 0; i < sizeof bad_plat / sizeof bad_plat[0]; i++) {
        why[0] = 0;
        CHECK(!smc_pyenv_init(&e, bad_plat[i], "3.11", why, sizeof why) && why[0]);
        CHECK(e.tags == NULL);
    }
    CHECK(!smc_pyenv_init(&e, NULL, "3.11", why, sizeof why));
    static const char *const bad_py[] = {"2.7", "3",     "3.x",   "3.11.4.5", "abc",
                                         "",    "3.011", "3.100", "3.11.",    "3.11rc1"};
    for (size_t i = 0; i < sizeof bad_py / sizeof bad_py[0]; i++) {
        why[0] = 0;
        CHECK(!smc_pyenv_init(&e, "linux-x86_64", bad_py[i], why, sizeof why) && why[0]);
    }
}

/* ---- index pages and the choice --------------------------------------------------------- */

static smc_index_file *page(const char *name, const char *type, size_t *n)
{
    size_t len, dropped = 9;
    char *body = slurp(name, &len), why[256] = "";
    smc_index_file *files = NULL;
    *n = 0;
    bool ok = body && smc_index_parse(body, len, type, "https://pypi.org/simple/x/", &files, n,
                                      &dropped, why, sizeof why);
    if (!ok) fprintf(stderr, "%s: %s\n", name, why);
    CHECK(ok);
    CHECK(dropped == 0);
    free(body);
    return files;
}

static const char *choose(const smc_index_file *f, size_t n, const char *project,
                          const char *version, const char *platform, const char *python,
                          const char *const *hashes, size_t nh, char *why, size_t whylen)
{
    smc_pyenv e;
    if (!env(&e, platform, python)) return NULL;
    long i = smc_index_choose(f, n, project, version, &e, hashes, nh, why, whylen);
    smc_pyenv_free(&e);
    if (i < 0) return NULL;
    CHECK((size_t)i < n);
    return f[i].filename;
}

static bool same(const char *a, const char *b)
{
    if (!a || strcmp(a, b) != 0) fprintf(stderr, "chose %s, want %s\n", a ? a : "none", b);
    return a && strcmp(a, b) == 0;
}

static void test_choose(void)
{
    size_t n;
    char why[512];
    smc_index_file *t =
        page("index/simple-torch-2.8.0-trimmed.json", "application/vnd.pypi.simple.v1+json", &n);
    CHECK(n == 24);
    const smc_index_file *cp311 = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].filename, "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl") == 0)
            cp311 = &t[i];
    CHECK(cp311 && cp311->size == 888063640 && !cp311->yanked && cp311->requires_python &&
          strcmp(cp311->requires_python, ">=3.9.0") == 0 &&
          strncmp(cp311->sha256, "c12fa219f51a933d5f80eeb3a7a5d0cbe9168c0a14bbb4055f1979431660879b",
                  64) == 0 &&
          strncmp(cp311->url, "https://files.pythonhosted.org/packages/", 40) == 0);
    CHECK(same(
        choose(t, n, "torch", "2.8.0", "manylinux_2_28_x86_64", "3.11", NULL, 0, why, sizeof why),
        "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
    CHECK(same(choose(t, n, "torch", "2.8.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why),
               "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
    CHECK(same(choose(t, n, "Torch", "==2.8", "linux-x86_64", "3.11.4", NULL, 0, why, sizeof why),
               "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
    CHECK(same(choose(t, n, "torch", "2.8.0", "windows-amd64", "3.11", NULL, 0, why, sizeof why),
               "torch-2.8.0-cp311-cp311-win_amd64.whl"));
    CHECK(same(choose(t, n, "torch", "2.8.0", "linux-aarch64", "3.11", NULL, 0, why, sizeof why),
               "torch-2.8.0-cp311-cp311-manylinux_2_28_aarch64.whl"));
    CHECK(same(choose(t, n, "torch", "2.8.0", "linux-x86_64", "3.13", NULL, 0, why, sizeof why),
               "torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64.whl"));
    CHECK(!choose(t, n, "torch", "2.8.0", "linux-x86_64", "3.8", NULL, 0, why, sizeof why));
    printf("python 3.8: %s\n", why);
    CHECK(strstr(why, "no wheel of torch 2.8.0 for cp38 manylinux_2_28_x86_64") &&
          strstr(why, "requires-python >=3.9.0 excludes 3.8.0 for 24"));
    CHECK(
        !choose(t, n, "torch", "2.8.0", "manylinux_2_27_x86_64", "3.11", NULL, 0, why, sizeof why));
    printf("glibc 2.27: %s\n", why);
    CHECK(strstr(why, "tags cp39, cp310") && strstr(why, "manylinux_2_28_x86_64") &&
          !strchr(why, '\n'));
    CHECK(!choose(t, n, "torch", "2.8.1", "linux-x86_64", "3.11", NULL, 0, why, sizeof why));
    CHECK(strstr(why, "no file of torch 2.8.1") != NULL);
    CHECK(!choose(t, n, "torch", "banana", "linux-x86_64", "3.11", NULL, 0, why, sizeof why));
    CHECK(strstr(why, "not a version") != NULL);
    /* hashes: only listed files count */
    const char *h311[] = {"0000000000000000000000000000000000000000000000000000000000000000",
                          cp311 ? cp311->sha256 : ""};
    CHECK(same(choose(t, n, "torch", "2.8.0", "linux-x86_64", "3.11", h311, 2, why, sizeof why),
               "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
    CHECK(!choose(t, n, "torch", "2.8.0", "linux-x86_64", "3.11", h311, 1, why, sizeof why));
    printf("hashes: %s\n", why);
    CHECK(strstr(why, "sha256") != NULL);
    /* a small why buffer is cut, never overrun */
    char tiny[16];
    CHECK(!choose(t, n, "torch", "2.8.0", "linux-x86_64", "3.8", NULL, 0, tiny, sizeof tiny));
    CHECK(strlen(tiny) == sizeof tiny - 1);
    smc_index_files_free(t, n);

    /* bitsandbytes: both formats give the same files, and the same choice */
    size_t nj, nh;
    smc_index_file *j =
        page("index/simple-bitsandbytes.json", "application/vnd.pypi.simple.v1+json", &nj);
    smc_index_file *h = page("index/simple-bitsandbytes.html", "text/html", &nh);
    CHECK(nj == 145 && nh == 145);
    size_t matched = 0;
    for (size_t a = 0; a < nj; a++) {
        for (size_t b = 0; b < nh; b++) {
            if (strcmp(j[a].filename, h[b].filename) != 0) continue;
            bool rp = (!j[a].requires_python && !h[b].requires_python) ||
                      (j[a].requires_python && h[b].requires_python &&
                       strcmp(j[a].requires_python, h[b].requires_python) == 0);
            if (strcmp(j[a].url, h[b].url) == 0 && strcmp(j[a].sha256, h[b].sha256) == 0 &&
                j[a].sha256[0] && rp && j[a].yanked == h[b].yanked)
                matched++;
            else
                fprintf(stderr, "differs: %s\n", j[a].filename);
        }
    }
    CHECK(matched == 145);
    for (int f = 0; f < 2; f++) {
        smc_index_file *p = f ? h : j;
        size_t np = f ? nh : nj;
        CHECK(same(choose(p, np, "bitsandbytes", "0.45.5", "manylinux_2_28_x86_64", "3.11", NULL, 0,
                          why, sizeof why),
                   "bitsandbytes-0.45.5-py3-none-manylinux_2_24_x86_64.whl"));
        CHECK(same(choose(p, np, "bitsandbytes", "0.45.5", "windows-amd64", "3.12", NULL, 0, why,
                          sizeof why),
                   "bitsandbytes-0.45.5-py3-none-win_amd64.whl"));
        CHECK(!choose(p, np, "bitsandbytes", "0.45.5", "linux-aarch64", "3.11", NULL, 0, why,
                      sizeof why));
        if (!f) printf("aarch64: %s\n", why);
        CHECK(strstr(why, "tags py3 for manylinux_2_24_x86_64, win_amd64") != NULL);
        CHECK(!choose(p, np, "bitsandbytes", "0.45.5", "linux_x86_64", "3.11", NULL, 0, why,
                      sizeof why));
        CHECK(same(choose(p, np, "BitsAndBytes", "0.31.8", "linux-aarch64", "3.11", NULL, 0, why,
                          sizeof why),
                   "bitsandbytes-0.31.8-py3-none-any.whl"));
    }
    smc_index_files_free(j, nj);
    smc_index_files_free(h, nh);
}

/* The choice's order on a page built here: yanked last, higher version (local ones), best tag,
 * higher build, requires-python. */
static void test_order(void)
{
    const char *html =
        "<a href='/p/t-2.0-cp311-cp311-manylinux_2_28_x86_64.whl' data-yanked>y</a>"
        "<a href='/p/t-2.0-py3-none-any.whl'>a</a>"
        "<a href='/p/t-2.0-cp311-abi3-manylinux_2_17_x86_64.whl'>b</a>"
        "<a href='/p/t-2.0-1-cp311-abi3-manylinux_2_17_x86_64.whl'>c</a>"
        "<a href='/p/t-2.0-2-cp311-abi3-manylinux_2_17_x86_64.whl'>d</a>"
        "<a href='/p/t-2.0-10-cp311-abi3-manylinux_2_17_x86_64.whl'>e</a>"
        "<a href='/p/u-1.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl'>f</a>"
        "<a href='/p/u-1.0+cu128-cp311-cp311-manylinux_2_17_x86_64.whl'>g</a>"
        "<a href='/p/u-1.0-cp311-cp311-manylinux_2_28_x86_64.whl'>h</a>"
        "<a href='/p/v-1.0-cp311-cp311-manylinux_2_28_x86_64.whl' data-yanked=''>i</a>"
        "<a href='/p/w-1.0-cp312-cp312-manylinux_2_28_x86_64.whl' "
        "data-requires-python='&gt;=3.12'>j</a>"
        "<a href='/p/w-1.0-py3-none-any.whl' data-requires-python='&gt;=3.10'>k</a>"
        "<a href='/p/z-1.0-py3-none-any.whl' data-requires-python='&gt;=3.12'>l</a>";
    smc_index_file *f;
    size_t n, dropped;
    char why[512];
    CHECK(smc_index_parse(html, strlen(html), "text/html", "https://h.example/simple/t/", &f, &n,
                          &dropped, why, sizeof why));
    CHECK(n == 13 && dropped == 0);
    CHECK(f[0].yanked && !f[1].yanked && f[9].yanked);
    CHECK(same(choose(f, n, "t", "2.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why),
               "t-2.0-10-cp311-abi3-manylinux_2_17_x86_64.whl"));
    CHECK(same(choose(f, n, "u", "1.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why),
               "u-1.0+cu128-cp311-cp311-manylinux_2_17_x86_64.whl"));
    CHECK(same(choose(f, n, "u", "1.0+cpu", "linux-x86_64", "3.11", NULL, 0, why, sizeof why),
               "u-1.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"));
    CHECK(same(choose(f, n, "v", "1.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why),
               "v-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
    CHECK(same(choose(f, n, "w", "1.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why),
               "w-1.0-py3-none-any.whl"));
    CHECK(same(choose(f, n, "w", "1.0", "linux-x86_64", "3.12", NULL, 0, why, sizeof why),
               "w-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
    CHECK(!choose(f, n, "z", "1.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why));
    /* an sdist is counted, never chosen */
    const char *sd =
        "<a href='/p/s-1.0.tar.gz'>s</a><a href='/p/s-1.0-py3-none-win_amd64.whl'>s</a>";
    smc_index_files_free(f, n);
    CHECK(smc_index_parse(sd, strlen(sd), NULL, "https://h.example/s/", &f, &n, &dropped, why,
                          sizeof why));
    CHECK(!choose(f, n, "s", "1.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why));
    CHECK(strstr(why, "2 files (1 wheel, 1 sdist); tags py3 for win_amd64") != NULL);
    /* the yanked one only when nothing else fits (windows has only the yanked t? none) */
    smc_index_files_free(f, n);
    const char *yanked_only =
        "<a href='/p/t-2.0-cp311-cp311-manylinux_2_28_x86_64.whl' "
        "data-yanked='bad'>y</a><a href='/p/t-2.0-py3-none-win_amd64.whl'>a</a>";
    CHECK(smc_index_parse(yanked_only, strlen(yanked_only), NULL, "https://h.example/s/", &f, &n,
                          &dropped, why, sizeof why));
    CHECK(same(choose(f, n, "t", "2.0", "linux-x86_64", "3.11", NULL, 0, why, sizeof why),
               "t-2.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
    smc_index_files_free(f, n);
}

/* Specifier sets and bare names choose as pip does: the newest release that matches and has a
 * wheel for the environment; yanked files only for a pin; pre-releases only when a clause names
 * one or nothing final matches; nothing that matches names the releases there are. */
static void test_ranges(void)
{
    const char *html = "<a href='/p/r-1.0-py3-none-any.whl'>a</a>"
                       "<a href='/p/r-1.1-py3-none-any.whl'>b</a>"
                       "<a href='/p/r-1.2-py3-none-any.whl' data-yanked='broken'>c</a>"
                       "<a href='/p/r-1.3-cp39-cp39-manylinux_2_28_x86_64.whl'>d</a>"
                       "<a href='/p/r-2.0rc1-py3-none-any.whl'>e</a>"
                       "<a href='/p/r-0.9.tar.gz'>f</a>"
                       "<a href='/p/other-9.0-py3-none-any.whl'>g</a>";
    smc_index_file *f;
    size_t n, dropped;
    char why[512];
    CHECK(smc_index_parse(html, strlen(html), "text/html", "https://h.example/simple/r/", &f, &n,
                          &dropped, why, sizeof why));
    static const struct {
        const char *spec, *want;
    } cases[] = {
        {"", "r-1.1-py3-none-any.whl"},
        {">=1.0", "r-1.1-py3-none-any.whl"},
        {"~=1.0", "r-1.1-py3-none-any.whl"},
        {"==1.*", "r-1.1-py3-none-any.whl"},
        {"!=1.1", "r-1.0-py3-none-any.whl"},
        {">=1.0, <1.1", "r-1.0-py3-none-any.whl"},
        {"==1.2", "r-1.2-py3-none-any.whl"},
        {"1.2", "r-1.2-py3-none-any.whl"},
        {">=2.0rc1", "r-2.0rc1-py3-none-any.whl"},
        {">1.3", "r-2.0rc1-py3-none-any.whl"},
        {"<1.0", NULL},
        {">1.1,<2", NULL},
        {"==1.5", NULL},
        {">=1.x", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got =
            choose(f, n, "r", cases[i].spec, "linux-x86_64", "3.12", NULL, 0, why, sizeof why);
        CHECK(cases[i].want ? same(got, cases[i].want) : got == NULL);
    }
    CHECK(!choose(f, n, "r", ">1.1,<2", "linux-x86_64", "3.12", NULL, 0, why, sizeof why) &&
          strstr(why, "1 yanked (taken only when pinned with ==)") &&
          strstr(why, "tags cp39 for manylinux_2_28_x86_64"));
    CHECK(!choose(f, n, "r", "<1.0", "linux-x86_64", "3.12", NULL, 0, why, sizeof why) &&
          strstr(why, "1 file (0 wheels, 1 sdist)")); /* 0.9: an sdist, never chosen */
    CHECK(!choose(f, n, "r", "<0.5", "linux-x86_64", "3.12", NULL, 0, why, sizeof why) &&
          strstr(why, "no release of r matches '<0.5'") &&
          strstr(why, "the newest releases with wheels: 2.0rc1, 1.3, 1.2"));
    CHECK(!choose(f, n, "r", "==1.5", "linux-x86_64", "3.12", NULL, 0, why, sizeof why) &&
          strstr(why, "no file of r 1.5 on the index page") &&
          strstr(why, "the nearest releases with wheels: 1.3, 2.0rc1"));
    CHECK(!choose(f, n, "r", "0.5", "linux-x86_64", "3.12", NULL, 0, why, sizeof why) &&
          strstr(why, "the nearest releases with wheels: 1.0") && !strstr(why, "1.0,"));
    CHECK(!choose(f, n, "r", ">=1.x", "linux-x86_64", "3.12", NULL, 0, why, sizeof why) &&
          strstr(why, "is not a version or a specifier set"));
    smc_index_files_free(f, n);
}

/* The one file of a one-link page, its URL (NULL when the link is dropped). */
static char *one_link(const char *base, const char *attrs_html)
{
    char html[20000];
    snprintf(html, sizeof html, "<html><body><a %s>x</a></body></html>", attrs_html);
    smc_index_file *f;
    size_t n, dropped;
    char why[256];
    if (!smc_index_parse(html, strlen(html), "text/html", base, &f, &n, &dropped, why, sizeof why))
        return NULL;
    char *u = n == 1 ? strdup(f[0].url) : NULL;
    CHECK(n + dropped == 1);
    smc_index_files_free(f, n);
    return u;
}

static bool link_is(const char *base, const char *attrs_html, const char *want)
{
    char *u = one_link(base, attrs_html);
    bool ok = want ? u && strcmp(u, want) == 0 : u == NULL;
    if (!ok)
        fprintf(stderr, "link %s: %s, want %s\n", attrs_html, u ? u : "dropped",
                want ? want : "dropped");
    free(u);
    return ok;
}

static void test_urls(void)
{
    /* RFC 3986 §5.4's examples whose result names a file */
    const char *b = "http://a/b/c/d;p?q";
    static const char *const rfc[][2] = {
        {"g", "http://a/b/c/g"},
        {"./g", "http://a/b/c/g"},
        {"/g", "http://a/g"},
        {"?y", "http://a/b/c/d;p?y"},
        {"g?y", "http://a/b/c/g?y"},
        {"#s", "http://a/b/c/d;p?q"},
        {"g#s", "http://a/b/c/g"},
        {"g?y#s", "http://a/b/c/g?y"},
        {";x", "http://a/b/c/;x"},
        {"g;x", "http://a/b/c/g;x"},
        {"", "http://a/b/c/d;p?q"},
        {"../g", "http://a/b/g"},
        {"../../g", "http://a/g"},
        {"../../../g", "http://a/g"},
        {"../../../../g", "http://a/g"},
        {"/./g", "http://a/g"},
        {"/../g", "http://a/g"},
        {"g.", "http://a/b/c/g."},
        {".g", "http://a/b/c/.g"},
        {"g..", "http://a/b/c/g.."},
        {"..g", "http://a/b/c/..g"},
        {"./../g", "http://a/b/g"},
        {"g/./h", "http://a/b/c/g/h"},
        {"g/../h", "http://a/b/c/h"},
        {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
        {"g;x=1/../y", "http://a/b/c/y"},
        {"//g/h", "http://g/h"},
        {"HTTPS://h/x", "https://h/x"},
        {"http:g", NULL}, /* a scheme without a host */
    };
    for (size_t i = 0; i < sizeof rfc / sizeof rfc[0]; i++) {
        char a[256];
        snprintf(a, sizeof a, "href=\"%s\"", rfc[i][0]);
        CHECK(link_is(b, a, rfc[i][1]));
    }
    /* links an index has, and ones that are dropped */
    const char *base = "https://example.com/simple/foo/";
    CHECK(link_is(base, "href=\"../../packages/foo-1.0.tar.gz#sha256=AB\"",
                  "https://example.com/packages/foo-1.0.tar.gz"));
    CHECK(link_is(base, "href='https://h/a/foo-1.0.tar.gz?a=1&amp;b=2'",
                  "https://h/a/foo-1.0.tar.gz?a=1&b=2"));
    CHECK(
        link_is(base, "HREF=https://h/a/foo-1.0.tar.gz data-yanked", "https://h/a/foo-1.0.tar.gz"));
    CHECK(link_is(base, "href=\"  https://h/a/b c-1.0.tar.gz\n\"", "https://h/a/b%20c-1.0.tar.gz"));
    CHECK(
        link_is(base, "href=\"https://h/a/\xc3\xa9-1.0.tar.gz\"", "https://h/a/%C3%A9-1.0.tar.gz"));
    CHECK(link_is(base, "href=\"javascript:alert(1)//x.whl\"", NULL));
    CHECK(link_is(base, "href=\"JavaScript:alert(1)\"", NULL));
    CHECK(link_is(base, "href=\"file:///etc/passwd\"", NULL));
    CHECK(link_is(base, "href=\"ftp://h/foo-1.0.tar.gz\"", NULL));
    CHECK(link_is(base, "href=\"data:text/html,hi\"", NULL));
    CHECK(link_is(base, "href=\"https://h/a/\"", NULL));          /* no file name */
    CHECK(link_is(base, "href=\"https://h/a/x%2Fy.whl\"", NULL)); /* '/' once decoded */
    CHECK(link_is(base, "href=\"https://h/a/x%00y.whl\"", NULL));
    CHECK(link_is(base, "href=\"https://h/a/x&#1;y.whl\"", NULL));
    CHECK(link_is(base, "href=\"https:///a/x.whl\"", NULL)); /* no host */
    CHECK(link_is(NULL, "href=\"x-1.0.tar.gz\"", NULL));     /* relative, no base */
    CHECK(link_is(NULL, "href=\"https://h/x-1.0.tar.gz\"", "https://h/x-1.0.tar.gz"));

    /* the rest of one link: file name, hash, requires-python, yanked */
    const char *html =
        "<!DOCTYPE html><html><head><title>Links</title>"
        "<base href=\"https://mirror.example/files/\"></head><body>\n"
        "<!-- <a href=\"https://h/p/hidden-1.0.tar.gz\">x</a> -->"
        "<script>var s = \"<a href='https://h/p/s-1.0.tar.gz'>\";</script>"
        "<a "
        "href=\"foo-1.0%2Bcu128-py3-none-any.whl#md5=00&amp;sha256="
        "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789\" "
        "data-requires-python=\"&gt;=3.8,&#60;4,!=3.9.*&#x2C;\" "
        "data-yanked=\"&quot;why&quot;\">foo</a><br/>\n"
        "<a data-requires-python='' href=https://h/p/bar-1.0.tar.gz#sha256=short>bar</a>\n"
        "<A HREF='https://h/p/one.whl' href='https://h/p/two.whl'>first wins</A>"
        "<p>a < b</p><a>no href</a><a href=\"https://h/p/ok-1.0.tar.gz\">ok</a>"
        "<a href=\"https://h/p/cut-1.0.tar.gz";
    smc_index_file *f;
    size_t n, dropped;
    char why[256];
    CHECK(smc_index_parse(html, strlen(html), "text/html; charset=utf-8",
                          "https://x.example/s/foo/", &f, &n, &dropped, why, sizeof why));
    CHECK(n == 4 && dropped == 0);
    if (n == 4) {
        CHECK(strcmp(f[0].url, "https://mirror.example/files/foo-1.0%2Bcu128-py3-none-any.whl") ==
              0);
        CHECK(strcmp(f[0].filename, "foo-1.0+cu128-py3-none-any.whl") == 0);
        CHECK(strcmp(f[0].sha256,
                     "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789") == 0);
        CHECK(f[0].requires_python && strcmp(f[0].requires_python, ">=3.8,<4,!=3.9.*,") == 0);
        CHECK(f[0].yanked && f[0].size == 0);
        CHECK(strcmp(f[1].url, "https://h/p/bar-1.0.tar.gz") == 0 && !f[1].sha256[0] &&
              !f[1].requires_python && !f[1].yanked);
        CHECK(strcmp(f[2].filename, "one.whl") == 0);
        CHECK(strcmp(f[3].filename, "ok-1.0.tar.gz") == 0);
    }
    smc_index_files_free(f, n);
}

static void test_hostile(void)
{
    smc_index_file *f;
    size_t n, dropped;
    char why[256];
    /* huge attributes: dropped, counted */
    size_t big = 1 << 20;
    char *html = malloc(3 * big);
    size_t k = (size_t)sprintf(html, "<a href=\"https://h/p/");
    memset(html + k, 'a', 9000);
    k += 9000;
    k += (size_t)sprintf(html + k,
                         ".whl\">x</a><a href='https://h/p/r-1.0.tar.gz' data-requires-python='");
    memset(html + k, '>', 10000);
    k += 10000;
    k += (size_t)sprintf(html + k, "'>x</a><a href='https://h/p/fine-1.0.tar.gz'>x</a>");
    CHECK(smc_index_parse(html, k, "text/html", NULL, &f, &n, &dropped, why, sizeof why));
    CHECK(n == 1 && dropped == 2);
    smc_index_files_free(f, n);
    /* pages built to be slow for a parser that rescans: all linear here */
    const char *pieces[] = {"<a href='",  "<",  "<a ",      "<!--",
                            "<a href=x ", "&#", "<script>", "<a href='https://h/p/x-1.0.tar.gz'>"};
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
        size_t pl = strlen(pieces[p]);
        for (k = 0; k + pl <= 3 * big; k += pl)
            memcpy(html + k, pieces[p], pl);
        bool ok = smc_index_parse(html, k, "text/html", NULL, &f, &n, &dropped, why, sizeof why);
        CHECK(ok);
        if (p == 7)
            CHECK(n == k / pl);
        else
            CHECK(n == 0);
        smc_index_files_free(f, n);
    }
    /* a page that is not text */
    for (k = 0; k < big; k++)
        html[k] = (char)(k * 7 + (k >> 8));
    CHECK(smc_index_parse(html, big, "text/html", "https://h/", &f, &n, &dropped, why, sizeof why));
    smc_index_files_free(f, n);
    CHECK(smc_index_parse("", 0, "text/html", NULL, &f, &n, &dropped, why, sizeof why) && n == 0);
    smc_index_files_free(f, n);

    /* JSON: deep nesting, wrong shapes, hostile entries */
    k = (size_t)sprintf(html, "{\"files\": ");
    for (size_t i = 0; i < 200000; i++)
        html[k++] = '[';
    for (size_t i = 0; i < 200000; i++)
        html[k++] = ']';
    html[k++] = '}';
    why[0] = 0;
    CHECK(!smc_index_parse(html, k, "application/vnd.pypi.simple.v1+json", NULL, &f, &n, &dropped,
                           why, sizeof why));
    CHECK(why[0] && f == NULL && n == 0);
    static const char *const not_pages[] = {"{\"files\": 3}",  "[]",       "{", "{\"meta\": {}}",
                                            "{\"files\": [] ", "\"files\""};
    for (size_t i = 0; i < sizeof not_pages / sizeof not_pages[0]; i++) {
        why[0] = 0;
        CHECK(!smc_index_parse(not_pages[i], strlen(not_pages[i]), "application/json", NULL, &f, &n,
                               &dropped, why, sizeof why) &&
              why[0]);
    }
    const char *json =
        " {\"files\": [3, {\"filename\": \"no-url.whl\"},"
        "{\"filename\": \"x.whl\", \"url\": \"javascript:alert(1)\"},"
        "{\"filename\": \"a/b.whl\", \"url\": \"https://h/a/b.whl\"},"
        "{\"filename\": \"c\\u0001.whl\", \"url\": \"https://h/c.whl\"},"
        "{\"filename\": \"r-1.0-py3-none-any.whl\", \"url\": "
        "\"../../p/r-1.0-py3-none-any.whl#sha256=00\","
        " \"hashes\": {\"sha256\": "
        "\"ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789\"},"
        " \"requires-python\": \">=3.8\", \"yanked\": \"broken\", \"size\": 123},"
        "{\"url\": \"https://h/p/s-1.0-py3-none-any.whl\", \"yanked\": \"\", \"size\": -5,"
        " \"requires-python\": null, \"hashes\": {\"md5\": \"00\"}},"
        "{\"filename\": \"t.whl\", \"url\": \"https://h/p/t.whl\", \"yanked\": true, \"size\": "
        "1e300}"
        "], \"meta\": {\"api-version\": \"1.1\"}}";
    CHECK(smc_index_parse(json, strlen(json), NULL, "https://h/simple/r/", &f, &n, &dropped, why,
                          sizeof why));
    CHECK(n == 3 && dropped == 5);
    if (n == 3) {
        CHECK(strcmp(f[0].url, "https://h/p/r-1.0-py3-none-any.whl") == 0);
        CHECK(strcmp(f[0].sha256,
                     "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789") == 0);
        CHECK(f[0].yanked && f[0].size == 123 && strcmp(f[0].requires_python, ">=3.8") == 0);
        CHECK(strcmp(f[1].filename, "s-1.0-py3-none-any.whl") == 0 && !f[1].yanked &&
              f[1].size == 0 && !f[1].requires_python && !f[1].sha256[0]);
        CHECK(f[2].yanked && f[2].size == 0);
    }
    smc_index_files_free(f, n);
    /* choose on an empty page, and with nothing */
    smc_pyenv e;
    if (env(&e, "linux-x86_64", "3.11")) {
        CHECK(smc_index_choose(NULL, 0, "torch", "2.8.0", &e, NULL, 0, why, sizeof why) == -1);
        CHECK(strstr(why, "no file of torch 2.8.0") != NULL);
        CHECK(smc_index_choose(NULL, 0, "torch\n\x1b[31m", "2.8.0", &e, NULL, 0, why, sizeof why) ==
              -1);
        CHECK(!strchr(why, '\n') && !strchr(why, '\x1b'));
        smc_pyenv_free(&e);
    }
    free(html);
}

int main(int argc, char **argv)
{
    if (argc > 1) fixtures = argv[1];
    test_versions();
    test_specifiers();
    test_markers();
    test_names();
    test_tags();
    test_choose();
    test_order();
    test_ranges();
    test_urls();
    test_hostile();
    return check_report();
}
