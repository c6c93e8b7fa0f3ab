/* test_builds.c: the table of PyTorch builds (parser and its refusals), the advice rules on a
 * small table (tests/builds_fixture.tsv), the next-step sentences, and the built-in table against the answers
 * a person reaches from PyTorch's published matrix and NVIDIA's driver tables. */
#include <smcheck/builds.h>

#include <stdlib.h>
#include <string.h>

#include "check.h"

/* smc_advise for the builds b, on a platform, for nt GPUs with a driver. */
static smc_status advise(const smc_builds *b, const char *platform, const smc_target *t, size_t nt,
                         int driver, smc_advice *a)
{
    smc_advice_request req = {.builds = b, .platform = platform, .targets = t, .target_count = nt,
                              .driver_cuda = driver};
    return smc_advise(&req, a);
}

static smc_target gpu(unsigned major, unsigned minor)
{
    return (smc_target){.cc_major = major, .cc_minor = minor};
}

/* Parses text, expecting failure with a message holding want. */
static void refused(const char *text, const char *want)
{
    smc_builds *b = NULL;
    char err[256] = "";
    int rc = smc_builds_parse(text, strlen(text), &b, err, sizeof err);
    CHECK(rc == 0 && b == NULL);
    CHECK(strstr(err, want) != NULL);
    if (!strstr(err, want)) fprintf(stderr, "  got '%s', wanted '%s'\n", err, want);
}

#define ROW(rel, var, plat, cuda, cubins, ptx, index, src)                                          \
    rel "\t" var "\t" plat "\t" cuda "\t" cubins "\t" ptx "\t" index "\t-\t-\t" src "\n"

/* The commands that install a build, and those that replace an installed torch: pip and uv
 * take a pin without a local label as satisfied by any installed variant of the release (PEP
 * 440), so a download.pytorch.org build is pinned with its label and a replacement is forced. */
static void test_install(void)
{
    smc_builds *b = NULL;
    const char *text =
        "2.11.0\tcu128\tlinux-x86_64\t12.8\tsm_90\t-\tpytorch\t0.26.0\t2.11.1\tclaim c\n"
        "2.11.0\tcu126\tlinux-x86_64\t12.6\tsm_90\t-\tpypi\t0.26.0\t-\tclaim c\n";
    char err[256];
    CHECK(smc_builds_parse(text, strlen(text), &b, err, sizeof err) == 1 && b->count == 2);
    if (!b || b->count != 2) return;
    const smc_build *cu128 = &b->rows[0], *pypi = &b->rows[1];
    static const struct {
        int row;
        bool uv;
        const char *also;
        smc_torch_installed now;
        bool replace;
        const char *want;
    } cases[] = {
        {0, false, NULL, {0}, false,
         "pip install torch==2.11.0+cu128 --index-url https://download.pytorch.org/whl/cu128"},
        {0, false, "torchvision", {0}, false,
         "pip install torch==2.11.0+cu128 torchvision==0.26.0 --index-url "
         "https://download.pytorch.org/whl/cu128"},
        {1, false, NULL, {0}, false, "pip install torch==2.11.0"},
        /* 2.11.0+cu126 installed with both companions: all three replaced, forced. */
        {0, false, NULL, {"2.11.0+cu126", "0.26.0+cu126", "2.11.0"}, true,
         "pip install --force-reinstall torch==2.11.0+cu128 torchvision==0.26.0 "
         "torchaudio==2.11.1 --index-url https://download.pytorch.org/whl/cu128"},
        {0, true, NULL, {"2.11.0+cu126", "0.26.0+cu126", "2.11.0"}, true,
         "uv pip install --reinstall-package torch --reinstall-package torchvision "
         "--reinstall-package torchaudio torch==2.11.0+cu128 torchvision==0.26.0 "
         "torchaudio==2.11.1 --index-url https://download.pytorch.org/whl/cu128"},
        /* The PyPI default over a download.pytorch.org variant: the pin alone is satisfied. */
        {1, false, NULL, {"2.11.0+cu128", NULL, NULL}, true,
         "pip install --force-reinstall torch==2.11.0"},
        /* torchaudio installed, no release known for this build: left out. */
        {1, true, NULL, {"2.8.0", NULL, "2.8.0"}, true,
         "uv pip install --reinstall-package torch torch==2.11.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const smc_torch_installed *now = cases[i].replace ? &cases[i].now : NULL;
        char *cmd = smc_build_install(&b->rows[cases[i].row], cases[i].uv, cases[i].also, now);
        if (!cmd || strcmp(cmd, cases[i].want) != 0)
            fprintf(stderr, "case %zu:\n  got  %s\n  want %s\n", i, cmd ? cmd : "(null)",
                    cases[i].want);
        CHECK(cmd && strcmp(cmd, cases[i].want) == 0);
        free(cmd);
    }
    /* Which build is the installed one: the release, and the variant by the local label (none
     * for the PyPI default). */
    smc_torch_installed now = {"2.11.0+cu128", NULL, NULL};
    CHECK(smc_build_is_installed(cu128, &now) && !smc_build_is_installed(pypi, &now));
    now.torch = "2.11.0";
    CHECK(!smc_build_is_installed(cu128, &now) && smc_build_is_installed(pypi, &now));
    now.torch = "2.10.0+cu128";
    CHECK(!smc_build_is_installed(cu128, &now));
    CHECK(!smc_build_is_installed(cu128, NULL));
    smc_builds_free(b);
}

static void test_parse(void)
{
    smc_builds *b = NULL;
    CHECK(smc_builds_builtin(&b) == 1 && b && b->count > 50);
    size_t wheels = 0;
    for (size_t i = 0; b && i < b->count; i++)
        wheels += strncmp(b->rows[i].source, "wheel ", 6) == 0;
    CHECK(wheels >= 10); /* the PyPI defaults read from real wheels */
    smc_builds_free(b);

    const char *one = "# a comment\n\n" ROW("2.8.0", "cu128", "linux-x86_64", "12.8",
                                             "sm_90,sm_100f,sm_120a", "compute_120", "pypi",
                                             "claim here");
    char err[256];
    CHECK(smc_builds_parse(one, strlen(one), &b, err, sizeof err) == 1 && b->count == 1);
    if (b && b->count == 1) {
        const smc_build *r = &b->rows[0];
        CHECK(strcmp(r->torch, "2.8.0") == 0 && r->cuda == 12080 && r->pypi && !r->torchvision);
        CHECK(r->image_count == 4);
        CHECK(r->images[0].kind == SMC_IMAGE_CUBIN && r->images[0].arch == 90 &&
              r->images[0].version_minor == 7 && r->images[0].release == 12080);
        CHECK(r->images[1].arch == 100 && r->images[1].variant == SMC_VARIANT_F &&
              r->images[1].version_minor == 8); /* Blackwell cubins of 12.8: ABI v2 */
        CHECK(r->images[2].variant == SMC_VARIANT_A);
        CHECK(r->images[3].kind == SMC_IMAGE_PTX && r->images[3].version_major == 8 &&
              r->images[3].version_minor == 7); /* PTX ISA 8.7 is CUDA 12.8's */
        char buf[160];
        CHECK(smc_build_index(r, buf, sizeof buf) == NULL);
        char *cmd = smc_build_install(r, true, "torchvision", NULL);
        CHECK(cmd && strcmp(cmd, "uv pip install torch==2.8.0") == 0);
        free(cmd);
    }
    smc_builds_free(b);
    test_install();

    refused("2.8.0\tcu128\n", "expected 10 tab-separated columns, found 2");
    refused(ROW("2.x", "cu128", "linux-x86_64", "12.8", "sm_90", "-", "pypi", "claim c"),
            "line 1: bad torch release");
    refused(ROW("2.8.0", "cu128", "linux-riscv", "12.8", "sm_90", "-", "pypi", "claim c"),
            "unknown platform 'linux-riscv'");
    refused(ROW("2.8.0", "cu128", "linux-x86_64", "12", "sm_90", "-", "pypi", "claim c"),
            "bad CUDA version '12'");
    refused(ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "sm_9x", "-", "pypi", "claim c"),
            "bad token 'sm_9x'");
    refused(ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "sm_90", "-", "conda", "claim c"),
            "the index is pypi or pytorch");
    refused(ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "sm_90", "-", "pypi", "said so"),
            "must start with 'wheel ' or 'claim '");
    refused(ROW("2.8.0", "cpu", "linux-x86_64", "-", "sm_90", "-", "pypi", "claim c"),
            "a cpu build carries no GPU code");
    refused(ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "-", "-", "pypi", "claim c"),
            "a CUDA build without images");
    refused(ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "sm_90", "-", "pytorch", "claim c")
                ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "sm_90", "-", "pytorch", "claim c"),
            "line 2: torch 2.8.0 cu128 linux-x86_64 is in the table twice");
    refused(ROW("2.8.0", "cu126", "linux-x86_64", "12.6", "sm_90", "-", "pypi", "claim c")
                ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "sm_90", "-", "pypi", "claim c"),
            "two PyPI defaults");
    refused("# only comments\n", "the table has no build");
    refused(ROW("2.8.0", "cu128", "linux-x86_64", "12.8", "sm_90", "-", "pypi", "claim \001"),
            "not printable ASCII");
}

static const smc_build *best(const smc_builds *b, const smc_advice *a)
{
    return a->best == SMC_NONE ? NULL : &b->rows[a->rows[a->best].build];
}

static bool is(const smc_build *r, const char *rel, const char *variant)
{
    return r && strcmp(r->torch, rel) == 0 && strcmp(r->variant, variant) == 0;
}

/* The rules on tests/builds_fixture.tsv: the shapes that matter, not PyTorch's real lists. */
static void test_advice(const char *fixture)
{
    smc_builds *b = NULL;
    char err[256];
    CHECK(smc_builds_load(fixture, &b, err, sizeof err) == 1);
    if (!b) return;
    smc_advice a;

    /* RTX 50 on a 12.8 driver: not 3.0's cu130 (driver), not its cu126 (no sm_120): 2.9 cu128,
     * the PyPI default, before cu129 (newer minor than the driver); a newer driver gives 3.0. */
    smc_target t = gpu(12, 0);
    CHECK(advise(b, "linux-x86_64", &t, 1, 12080, &a) == SMC_OK);
    CHECK(a.count == 6 && is(best(b, &a), "2.9.0", "cu128"));
    CHECK(a.newer_driver != SMC_NONE && is(&b->rows[a.rows[a.newer_driver].build], "3.0.0", "cu130"));
    CHECK(a.newer_driver != SMC_NONE && a.rows[a.newer_driver].needs_cuda == 13000 &&
          a.rows[a.newer_driver].status == SMC_STATUS_NONE &&
          a.rows[a.newer_driver].any == SMC_STATUS_OK);
    CHECK(a.best != SMC_NONE && a.rows[a.best].needs_cuda == 12080); /* the GPU's first CUDA */
    smc_advice_free(&a);

    /* GTX 1080 Ti (6.1) on 13.0: sm_60 serves it; cu130 has no Pascal. */
    t = gpu(6, 1);
    CHECK(advise(b, "linux-x86_64", &t, 1, 13000, &a) == SMC_OK);
    CHECK(is(best(b, &a), "3.0.0", "cu126") && a.newer_driver == SMC_NONE);
    smc_advice_free(&a);

    /* H100 on 12.4: 3.0 cu126 by minor-version compatibility (a 12.x driver runs 12.6). */
    t = gpu(9, 0);
    CHECK(advise(b, "linux-x86_64", &t, 1, 12040, &a) == SMC_OK);
    CHECK(is(best(b, &a), "3.0.0", "cu126") && a.rows[a.best].needs_cuda == 12000);
    CHECK(a.rows[a.best].warnings & SMC_WARN_NEWER_MINOR);
    smc_advice_free(&a);
    /* ... and with 13.0, the PyPI default of 3.0. */
    CHECK(advise(b, "linux-x86_64", &t, 1, 13000, &a) == SMC_OK);
    CHECK(is(best(b, &a), "3.0.0", "cu130"));
    smc_advice_free(&a);
    /* No driver known: the newest release, and what driver it needs. */
    CHECK(advise(b, "linux-x86_64", &t, 1, 0, &a) == SMC_OK);
    CHECK(is(best(b, &a), "3.0.0", "cu130") && a.rows[a.best].needs_cuda == 13000);
    smc_advice_free(&a);

    /* Two GPUs: a build must serve both. V100 and RTX 50 on 13.0: only 2.9's cu12x have sm_70
     * and sm_120; cu128 is the PyPI default and the 13.0 driver runs both. */
    smc_target two[2] = {gpu(7, 0), gpu(12, 0)};
    CHECK(advise(b, "linux-x86_64", two, 2, 13000, &a) == SMC_OK);
    CHECK(is(best(b, &a), "2.9.0", "cu128"));
    smc_advice_free(&a);

    /* A GPU only PTX serves (8.9 is not in the list: sm_86 would not... it is: same major). A
     * future 9.5 has no cubin anywhere; 2.1's compute_86 PTX runs by JIT. */
    t = gpu(9, 5);
    CHECK(advise(b, "linux-x86_64", &t, 1, 0, &a) == SMC_OK);
    CHECK(is(best(b, &a), "3.0.0", "cu130")); /* sm_90 serves 9.5: same major, lower minor */
    smc_advice_free(&a);
    t = gpu(14, 0);
    CHECK(advise(b, "linux-x86_64", &t, 1, 0, &a) == SMC_OK);
    CHECK(is(best(b, &a), "2.1.0", "cu118") && a.rows[a.best].status == SMC_STATUS_JIT);
    CHECK(a.rows[a.best].needs_cuda >= 11080); /* its PTX needs a driver that compiles it */
    smc_advice_free(&a);
    /* The same with a driver older than that PTX's ISA: nothing runs. */
    CHECK(advise(b, "linux-x86_64", &t, 1, 11040, &a) == SMC_OK);
    CHECK(a.best == SMC_NONE);
    smc_advice_free(&a);

    /* Orin (8.7) on aarch64: sm_80 does not run on Tegra; the cpu row never serves. */
    t = gpu(8, 7);
    CHECK(advise(b, "linux-aarch64", &t, 1, 12060, &a) == SMC_OK);
    CHECK(a.count == 2 && a.best == SMC_NONE && a.newer_driver == SMC_NONE);
    for (size_t i = 0; i < a.count; i++)
        if (b->rows[a.rows[i].build].image_count == 0)
            CHECK(a.rows[i].status == SMC_STATUS_NO_CODE && a.library[a.rows[i].build] == SMC_NONE);
    smc_advice_free(&a);
    /* Thor (11.0) there: sm_110, with a 13.0 driver. */
    t = gpu(11, 0);
    CHECK(advise(b, "linux-aarch64", &t, 1, 13000, &a) == SMC_OK);
    CHECK(is(best(b, &a), "3.0.0", "cu130"));
    smc_advice_free(&a);
    /* A platform with no rows: nothing, no failure. */
    CHECK(advise(b, "windows-amd64", &t, 1, 13000, &a) == SMC_OK && a.count == 0 &&
          a.best == SMC_NONE);
    smc_advice_free(&a);

    /* The next step of a torch distribution that is none. */
    t = gpu(12, 0);
    char *next = smc_next_build(b, "linux-x86_64", &t, 12080, "torchvision", NULL);
    CHECK(next && strcmp(next, "torch 2.9.0 cu128: pip install torch==2.9.0") == 0);
    free(next);
    next = smc_next_build(b, "linux-x86_64", &t, 12040, "torch", NULL); /* below the GPU's 12.8 */
    CHECK(next && strstr(next, "no torch build runs with this driver; torch 3.0.0 cu130 needs a "
                               "driver of 580.65.06 or newer"));
    free(next);
    t = gpu(8, 7);
    next = smc_next_build(b, "linux-aarch64", &t, 12060, "torch", NULL);
    CHECK(next && strstr(next, "JetPack"));
    free(next);
    next = smc_next_build(b, "linux-x86_64", &t, 12060, "torch", NULL); /* 2.1's compute_86 JITs */
    CHECK(next && strcmp(next, "torch 2.1.0 cu118: pip install torch==2.1.0") == 0);
    free(next);
    smc_builds_free(b);
}

/* What the built-in table answers for GPUs, drivers and platforms a person can check against
 * PyTorch's published matrix and NVIDIA's driver tables (cuda-compat.md §5, §6, §9). */
static void test_builtin_answers(void)
{
    smc_builds *b = NULL;
    CHECK(smc_builds_builtin(&b) == 1);
    if (!b) return;
    static const struct {
        unsigned major, minor;
        int driver;
        const char *platform, *release, *variant; /* NULL: none runs */
    } cases[] = {
        {12, 0, 12080, "linux-x86_64", "2.11.0", "cu128"}, /* RTX 5090, R570: last cu128 */
        {6, 1, 13000, "linux-x86_64", "2.14.1", "cu126"},  /* GTX 1080 Ti, R580: cu126 */
        {7, 0, 13000, "linux-x86_64", "2.14.1", "cu126"},  /* V100 */
        {9, 0, 12000, "linux-x86_64", "2.14.1", "cu126"},  /* H100, R525: 12.x by minor compat */
        {9, 0, 13020, "linux-x86_64", "2.15.0", "cu132"},  /* H100, R595: the PyPI default */
        {8, 7, 12060, "linux-aarch64", NULL, NULL},        /* Orin: JetPack builds only */
        {12, 1, 13000, "linux-aarch64", "2.15.0", "cu132"}, /* GB10 */
        {5, 2, 12040, "linux-x86_64", "2.14.1", "cu126"},  /* Maxwell, minor compat */
        {3, 7, 11040, "linux-x86_64", "2.7.1", "cu118"},   /* K80, R470: the last cu118 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        smc_target t = gpu(cases[i].major, cases[i].minor);
        smc_advice a;
        CHECK(advise(b, cases[i].platform, &t, 1, cases[i].driver, &a) == SMC_OK);
        const smc_build *r = best(b, &a);
        bool ok = cases[i].release ? is(r, cases[i].release, cases[i].variant) : r == NULL;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  case %zu (%u.%u): got %s %s\n", i, cases[i].major, cases[i].minor,
                    r ? r->torch : "none", r ? r->variant : "");
        smc_advice_free(&a);
    }
    smc_builds_free(b);
}

static void test_sentences(void)
{
    char buf[32];
    CHECK(strcmp(smc_driver_for_cuda(12080, false, buf, sizeof buf), "525.60.13") == 0);
    CHECK(strcmp(smc_driver_for_cuda(12080, true, buf, sizeof buf), "570.26") == 0);
    CHECK(strcmp(smc_driver_for_cuda(13000, true, buf, sizeof buf), "580.65.06") == 0);
    CHECK(strcmp(smc_driver_for_cuda(11000, false, buf, sizeof buf), "450.80.02") == 0);
    CHECK(strcmp(smc_driver_for_cuda(13040, true, buf, sizeof buf), "R615") == 0);
    CHECK(smc_driver_for_cuda(99000, true, buf, sizeof buf) == NULL);
    CHECK(strcmp(smc_platform_name("manylinux_2_28_aarch64"), "linux-aarch64") == 0);
    CHECK(strcmp(smc_platform_name("linux_x86_64"), "linux-x86_64") == 0);
    CHECK(strcmp(smc_platform_name("win_amd64"), "windows-amd64") == 0);
    CHECK(strcmp(smc_platform_name("linux-64"), "linux-x86_64") == 0 &&
          strcmp(smc_platform_name("win-64"), "windows-amd64") == 0);
    CHECK(smc_platform_name("macosx_11_0_arm64") == NULL && smc_platform_name("any") == NULL);

    smc_target t = gpu(12, 0);
    smc_judgement j = {.status = SMC_STATUS_NONE, .cause = SMC_CAUSE_ARCH};
    /* TORCH_CUDA_ARCH_LIST only for a library built against PyTorch (DT_NEEDED libc10). */
    smc_library ext = {.links_torch = true}, plain = {0};
    char *s = smc_next_step(&ext, &j, &t, 12080, false);
    CHECK(s && strcmp(s, "a build for sm_120: CUDA 12.8 or newer, nvcc -gencode "
                         "arch=compute_120,code=sm_120 (TORCH_CUDA_ARCH_LIST=12.0), and a driver "
                         "of 570.26 or newer") == 0);
    free(s);
    s = smc_next_step(&plain, &j, &t, 12080, false);
    CHECK(s && strcmp(s, "a build for sm_120: CUDA 12.8 or newer, nvcc -gencode "
                         "arch=compute_120,code=sm_120, and a driver of 570.26 or newer") == 0);
    free(s);
    j = (smc_judgement){.status = SMC_STATUS_NONE, .cause = SMC_CAUSE_BUILT_NEWER, .built_major = 13};
    s = smc_next_step(&plain, &j, &t, 12080, false);
    CHECK(s && strcmp(s, "a driver of 580.65.06 or newer (CUDA 13), or a build of it for CUDA 12") == 0);
    free(s);
    j = (smc_judgement){.status = SMC_STATUS_NONE, .cause = SMC_CAUSE_DRIVER_GPU, .gpu_cuda = 12080};
    s = smc_next_step(&plain, &j, &t, 12040, false);
    CHECK(s && strcmp(s, "a driver of 570.26 or newer (CUDA 12.8)") == 0);
    free(s);
    j.status = SMC_STATUS_PARTIAL;
    CHECK(smc_next_step(&plain, &j, &t, 12040, false) == NULL);

    /* The last driver branch of old architectures. */
    CHECK(smc_last_driver_branch(37) == 470 && smc_last_driver_branch(61) == 580 &&
          smc_last_driver_branch(70) == 580 && smc_last_driver_branch(75) == 0);
    t = gpu(6, 1);
    s = smc_driver_note(&t, 13010); /* a 590 driver */
    CHECK(s && strcmp(s, "R580 is the last driver branch for compute capability 6.1: no R590 "
                         "driver runs it") == 0);
    free(s);
    CHECK(smc_driver_note(&t, 13000) == NULL && smc_driver_note(&t, 0) == NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: test_builds tests/builds_fixture.tsv\n", stderr);
        return 2;
    }
    test_parse();
    test_advice(argv[1]);
    test_builtin_answers();
    test_sentences();
    return check_report();
}
