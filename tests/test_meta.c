/* test_meta.c: the packaging metadata parsers on texts built here: version.py's CUDA (torch's
 * annotated form, quotes, words that only look like it) and WHEEL's tags, including inputs built
 * to be slow for a parser that rescans (many "cuda" words, many Tag lines). Prints "N passed, M
 * failed". */
#include "../src/lib/read/read.h"

#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static bool cuda_is(const char *text, const char *want)
{
    bool none;
    char *got = smc_version_py_cuda(text, strlen(text), &none);
    if (got && none) {
        fprintf(stderr, "version.py %.40s...: both a version and None\n", text);
        free(got);
        return false;
    }
    bool ok = want ? got && strcmp(got, want) == 0 : !got;
    if (!ok) fprintf(stderr, "version.py %.40s...: got %s, want %s\n", text, got ? got : "none",
                     want ? want : "none");
    free(got);
    return ok;
}

int main(void)
{
    CHECK(cuda_is("__version__ = '2.8.0'\ndebug = False\ncuda: Optional[str] = '12.8'\n", "12.8"));
    CHECK(cuda_is("cuda = \"13.0\"\n", "13.0"));
    CHECK(cuda_is("git_version = 'abc'\ncuda = None\nhip = '6.2'\n", NULL));
    /* A CPU-only build says None (torch 2.8.0's aarch64 and win_amd64 wheels, 2.5.1 aarch64). */
    bool none;
    char *v = smc_version_py_cuda("cuda: Optional[str] = None\n", 27, &none);
    CHECK(!v && none);
    v = smc_version_py_cuda("cuda = Nonesuch\nhip = None\n", 27, &none);
    CHECK(!v && !none);
    v = smc_version_py_cuda("cuda = '12.8'\n", 14, &none);
    CHECK(v && !none);
    free(v);
    /* torchaudio's CPU-only wheels say it only in __version__ (2.8.0 win_amd64). */
    const char ta[] = "__version__ = '2.8.0+cpu'\ngit_version = 'abc'\n";
    CHECK(smc_version_py_cpu(ta, sizeof ta - 1));
    const char tc[] = "__version__: str = \"2.8.0+cu128\"\n";
    CHECK(!smc_version_py_cpu(tc, sizeof tc - 1));
    const char tn[] = "__version__ = '2.8.0'\nx = '+cpu'\n";
    CHECK(!smc_version_py_cpu(tn, sizeof tn - 1));
    CHECK(cuda_is("# cuda support\nversion = '1.0'\n", NULL)); /* '=' on another line */
    CHECK(cuda_is("cudart = '12.4'\nmy_cuda = '11.8'\n", NULL));  /* other words */
    CHECK(cuda_is("x = 1; cuda = '12.1'\n", "12.1"));
    /* 4 MiB of "cuda " without '=': one pass, no rescanning to the end per word. */
    size_t n = 4u << 20;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = "cuda "[i % 5];
    big[n] = '\0';
    CHECK(cuda_is(big, NULL));
    memcpy(big + n - 16, "= '12.6'       ", 15);
    CHECK(cuda_is(big, "12.6"));
    free(big);

    /* WHEEL: 100,000 Tag lines, joined (doubling, not one realloc a line). */
    size_t lines = 100000, len = 0;
    char *wheel = malloc(lines * 48 + 64);
    len += (size_t)sprintf(wheel, "Wheel-Version: 1.0\n");
    for (size_t i = 0; i < lines; i++)
        len += (size_t)sprintf(wheel + len, "Tag: cp312-cp312-manylinux_2_%zu_x86_64\n", i % 40);
    char *tags = NULL, *platform = NULL;
    CHECK(smc_wheel_tags(wheel, len, &tags, &platform) == SMC_OK);
    CHECK(platform && strcmp(platform, "manylinux_2_0_x86_64") == 0);
    CHECK(tags && strncmp(tags, "cp312-cp312-manylinux_2_0_x86_64, cp312-cp312-manylinux_2_1_x86_64",
                          66) == 0);
    CHECK(tags && strlen(tags) > lines * 30);
    free(tags);
    free(platform);
    free(wheel);
    return check_report();
}
