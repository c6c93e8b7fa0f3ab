/* test_verdict.c: the compatibility rules, one table row per rule and edge of cuda-compat.md §2
 * (binary compatibility, a/f variants, Tegra) and §4/§5 (PTX ISA, drivers), then containers and
 * library statuses. Prints "N passed, M failed". */
#include "../src/lib/judge/judge.h"
#include "../src/lib/derive/derive.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N SMC_VERDICT_NONE
#define NAT SMC_VERDICT_NATIVE
#define COMPAT SMC_VERDICT_COMPATIBLE
#define JIT SMC_VERDICT_JIT
#define BLOCKED SMC_VERDICT_JIT_BLOCKED

/* An image from a token ("sm_90a", "compute_120f", "lto_90") and a version ("1.8", "9.0"). */
static smc_image image(const char *token, const char *version)
{
    smc_image img = {0};
    char variant = 0;
    unsigned arch = 0;
    if (sscanf(token, "sm_%u%c", &arch, &variant) >= 1)
        img.kind = SMC_IMAGE_CUBIN;
    else if (sscanf(token, "compute_%u%c", &arch, &variant) >= 1)
        img.kind = SMC_IMAGE_PTX;
    else if (sscanf(token, "lto_%u%c", &arch, &variant) >= 1)
        img.kind = SMC_IMAGE_LTO;
    img.arch = arch;
    img.variant = variant == 'a'   ? SMC_VARIANT_A
                  : variant == 'f' ? SMC_VARIANT_F
                                   : SMC_VARIANT_NONE;
    sscanf(version, "%u.%u", &img.version_major, &img.version_minor);
    return img;
}

static const struct row {
    const char *token, *version;
    unsigned cc; /* the GPU: major*10 + minor */
    int driver;  /* CUDA version of the driver, 0 unknown */
    smc_verdict want;
    const char *why; /* the rule, cuda-compat.md */
} rows[] = {
    /* §2.1 plain cubins: same major, device minor >= cubin minor */
    {"sm_80", "1.8", 80, 0, NAT, "exact"},
    {"sm_80", "1.8", 86, 0, COMPAT, "8.0 runs on 8.6"},
    {"sm_80", "1.8", 89, 0, COMPAT, "8.0 runs on 8.9"},
    {"sm_86", "1.8", 89, 0, COMPAT, "sm_86 runs on RTX 40 / L4"},
    {"sm_86", "1.8", 80, 0, N, "8.6 does not run on 8.0"},
    {"sm_80", "1.8", 90, 0, N, "never across majors"},
    {"sm_90", "1.8", 100, 0, N, "9.0 not on 10.0"},
    {"sm_90", "1.8", 120, 0, N, "9.0 not on 12.0"},
    {"sm_100", "1.8", 103, 0, COMPAT, "B300 runs sm_100"},
    {"sm_100", "1.8", 107, 0, COMPAT, "Rubin runs sm_100"},
    {"sm_100", "1.8", 110, 0, N, "Thor needs sm_110"},
    {"sm_100", "1.8", 120, 0, N, "10.0 not on 12.0"},
    {"sm_120", "1.8", 121, 0, COMPAT, "GB10 runs sm_120"},
    {"sm_60", "1.7", 61, 0, COMPAT, "6.0 on 6.1"},
    {"sm_50", "1.7", 52, 0, COMPAT, "5.0 on 5.2"},
    {"sm_75", "1.8", 75, 0, NAT, "T4"},
    /* §2.5 Tegra: exact capability only */
    {"sm_80", "1.8", 87, 0, N, "sm_80 fails on Orin"},
    {"sm_86", "1.8", 87, 0, N, "sm_86 fails on Orin"},
    {"sm_87", "1.8", 87, 0, NAT, "sm_87 on Orin"},
    {"sm_70", "1.7", 72, 0, N, "sm_70 fails on Xavier"},
    {"sm_72", "1.7", 72, 0, NAT, "sm_72 on Xavier"},
    {"sm_60", "1.7", 62, 0, N, "sm_60 fails on TX2"},
    {"sm_50", "1.7", 53, 0, N, "sm_50 fails on Nano"},
    {"sm_53", "1.7", 53, 0, NAT, "sm_53 on Nano"},
    {"compute_80", "8.0", 87, 0, JIT, "PTX still runs on Orin"},
    {"sm_120", "1.8", 121, 0, COMPAT, "GB10 is not Tegra"},
    /* §2.2 'a': exactly that capability */
    {"sm_90a", "1.8", 90, 0, NAT, "sm_90a on H100"},
    {"sm_90a", "1.8", 100, 0, N, "sm_90a not on 10.0"},
    {"sm_100a", "1.8", 103, 0, N, "sm_100a not on 10.3"},
    {"sm_103a", "1.8", 103, 0, NAT, "sm_103a on 10.3"},
    {"sm_120a", "1.8", 120, 0, NAT, "sm_120a on 12.0"},
    {"sm_120a", "1.8", 121, 0, N, "sm_120a not on GB10"},
    {"compute_90a", "9.0", 90, 0, JIT, "a PTX on its own capability"},
    {"compute_90a", "9.0", 100, 0, N, "compute_90a not on Blackwell"},
    {"compute_100a", "9.0", 103, 0, N, "compute_100a not on 10.3"},
    /* §2.3 'f': the family table */
    {"sm_100f", "1.8", 100, 0, NAT, "100f on 10.0"},
    {"sm_100f", "1.8", 103, 0, COMPAT, "100f on 10.3"},
    {"sm_100f", "1.8", 107, 0, COMPAT, "100f on 10.7 (13.4 table)"},
    {"sm_100f", "1.8", 110, 0, N, "100f not on Thor"},
    {"sm_100f", "1.8", 120, 0, N, "100f not on 12.0"},
    {"sm_103f", "1.8", 100, 0, N, "103f not on 10.0"},
    {"sm_103f", "1.8", 107, 0, COMPAT, "103f on 10.7"},
    {"sm_110f", "1.8", 110, 0, NAT, "110f on Thor"},
    {"sm_120f", "1.8", 121, 0, COMPAT, "120f on GB10"},
    {"sm_121f", "1.8", 120, 0, N, "121f not on 12.0"},
    {"sm_121f", "1.8", 121, 0, NAT, "121f on GB10"},
    {"compute_100f", "9.0", 103, 0, JIT, "100f PTX in family"},
    {"compute_100f", "9.0", 110, 0, N, "100f PTX not on Thor"},
    {"compute_120f", "9.0", 121, 0, JIT, "120f PTX on GB10"},
    /* §2.4 PTX: any device at or above its arch, across majors */
    {"compute_80", "8.0", 80, 0, JIT, "PTX on its own arch"},
    {"compute_90", "9.0", 120, 0, JIT, "compute_90 on 12.0"},
    {"compute_120", "9.0", 121, 0, JIT, "compute_120 on 12.1"},
    {"compute_86", "7.8", 80, 0, N, "PTX does not go down"},
    {"compute_120", "9.0", 110, 0, N, "compute_120 not on Thor"},
    /* §4 PTX ISA against the driver */
    {"compute_90", "9.0", 120, 12080, BLOCKED, "ISA 9.0 on a 12.8 driver"},
    {"compute_80", "8.7", 90, 12080, JIT, "ISA 8.7 on a 12.8 driver"},
    {"compute_80", "8.7", 90, 12060, BLOCKED, "ISA 8.7 on a 12.6 driver"},
    {"compute_80", "8.5", 90, 12060, JIT, "ISA 8.5 on a 12.6 driver"},
    {"compute_80", "9.0", 90, 13000, JIT, "ISA 9.0 on a 13.0 driver"},
    {"compute_80", "9.1", 90, 13000, BLOCKED, "ISA 9.1 on a 13.0 driver"},
    {"compute_80", "9.4", 90, 0, JIT, "no driver known: jit"},
    /* §5.2 / §11 CUDA 13 cubins on older drivers */
    {"sm_90", "1.8", 90, 12080, N, "ABI v2 cubin on a 12.8 driver"},
    {"sm_86", "1.8", 89, 12040, N, "ABI v2 cubin on a 12.4 driver"},
    {"sm_90", "1.8", 90, 13000, NAT, "ABI v2 cubin on a 13.0 driver"},
    {"sm_90", "1.7", 90, 12040, NAT, "ABI v1 cubin on a 12.4 driver"},
    {"sm_80", "1.7", 90, 13000, N, "an old cubin still needs its major"},
    /* §11 Thor's old number; LTO IR never loads */
    {"sm_101", "1.7", 110, 0, COMPAT, "sm_101 on Thor, per PyTorch"},
    {"sm_101a", "1.7", 110, 0, N, "sm_101a is for 10.1 only"},
    {"sm_101f", "1.7", 110, 0, N, "101f's family is 10.1"},
    {"compute_101", "8.8", 110, 0, JIT, "PTX moves up anyway"},
    {"lto_90", "1.65", 90, 0, N, "LTO IR is never loadable"},
};

static void test_rules(void)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *r = &rows[i];
        smc_image img = image(r->token, r->version);
        int cause;
        smc_verdict got = smc_image_verdict(&img, r->cc, r->driver, &cause);
        if (got != r->want)
            fprintf(stderr, "rule '%s': %s %s on %u.%u (driver %d): %s, want %s\n", r->why,
                    r->token, r->version, r->cc / 10, r->cc % 10, r->driver, smc_verdict_str(got),
                    smc_verdict_str(r->want));
        CHECK(got == r->want);
    }
}

/* A library of containers given as token lists: "sm_80:1.8 compute_80:9.0|sm_90a:1.8". A
 * container prefixed with '!' is relocatable. Whether a container holds kernels is not known
 * (-1: it counts as holding them), as where the reader read none of its cubins. */
static smc_library *library(const char *spec)
{
    smc_library *lib = smc_library_new("lib.so");
    char copy[8192];
    snprintf(copy, sizeof copy, "%s", spec);
    char *save = NULL;
    for (char *c = strtok_r(copy, "|", &save); c; c = strtok_r(NULL, "|", &save)) {
        smc_container *ct = smc_push(&lib->containers, lib->container_count, sizeof *ct);
        *ct = (smc_container){.first_image = lib->image_count, .kernels = -1};
        if (*c == '!') {
            ct->relocatable = true;
            c++;
        }
        char *save2 = NULL;
        for (char *t = strtok_r(c, " ", &save2); t; t = strtok_r(NULL, " ", &save2)) {
            char *colon = strchr(t, ':');
            *colon = '\0';
            smc_image *img = smc_push(&lib->images, lib->image_count, sizeof *img);
            *img = image(t, colon + 1);
            lib->image_count++;
            ct->image_count++;
        }
        lib->container_count++;
    }
    return lib;
}

/* n containers of two alternating cubin lists for sm_80..sm_90 and one of compute_52 PTX: on 6.0
 * only the PTX serves (spec: room for the text). */
static smc_library *few_serve(char *spec, int n)
{
    spec[0] = '\0';
    for (int i = 0; i < n; i++)
        strcat(spec, i % 2 ? "sm_80:1.7 sm_86:1.7|" : "sm_86:1.7 sm_90:1.7|");
    strcat(spec, "compute_52:7.8");
    return library(spec);
}

/* Reading found no kernels in containers of one sm_75 image here (nvlink's device-link module);
 * the others are not known, which counts as holding kernels. */
static void mark_kernels(smc_library *lib)
{
    for (size_t i = 0; i < lib->container_count; i++) {
        smc_container *c = &lib->containers[i];
        const smc_image *first = &lib->images[c->first_image];
        c->kernels = c->image_count == 1 && first->kind == SMC_IMAGE_CUBIN && first->arch == 75
                         ? 0
                         : -1;
    }
}

/* The judgement, its sentence and its cautions, from smc_judge over an input of one library. */
static smc_judgement last;
static char reason[1024], cautions[1024];

static smc_judgement judge(smc_library *lib, const char *name, unsigned cc, int driver)
{
    smc_target t = {.cc_major = cc / 10, .cc_minor = cc % 10};
    snprintf(t.name, sizeof t.name, "%s", name);
    mark_kernels(lib);
    smc_input *in = smc_input_new("in", SMC_INPUT_FILE);
    in->libraries = lib;
    in->library_count = 1;
    in->inspected = true; /* mark_kernels said what the payloads would */
    smc_lib_status overall = SMC_STATUS_OK;
    smc_judged jd;
    smc_status st = smc_judge(&in, 1, &t, 1, driver, NULL, &jd, &overall);
    CHECK(st == SMC_OK && jd.libraries[0].judgement_count == 1);
    last = jd.libraries[0].judgements[0];
    /* One library that no distribution claims: the input's status is its own, but a gated one
     * cannot run here at all. */
    smc_lib_status want = last.status == SMC_STATUS_GATED ? SMC_STATUS_NONE : last.status;
    CHECK(overall == want && jd.verdict_count == 1 && jd.verdicts[0].status == want);
    char *why = smc_judgement_reason(lib, &last, &t, driver);
    char *warn = smc_judgement_warnings(&last, driver);
    snprintf(reason, sizeof reason, "%s", why ? why : "");
    snprintf(cautions, sizeof cautions, "%s", warn ? warn : "");
    free(why);
    free(warn);
    smc_judged_free(&jd);
    last.failing = NULL; /* freed with jd: the tests read its numbers */
    last.support = NULL;
    in->libraries = NULL; /* the caller frees lib */
    in->library_count = 0;
    smc_input_free(in);
    return last;
}

static bool says(const smc_judgement *j, const char *words)
{
    (void)j;
    bool ok = strstr(reason, words) != NULL;
    if (!ok) fprintf(stderr, "reason '%s' lacks '%s'\n", reason, words);
    return ok;
}

static void test_statuses(void)
{
    /* The classic failure, as the issue words it. */
    smc_library *lib = library("sm_50:1.7 sm_60:1.7 sm_70:1.7 sm_75:1.7 sm_80:1.7 sm_86:1.7 "
                               "sm_90:1.7|sm_80:1.7 sm_90:1.7");
    smc_judgement j = judge(lib, "GeForce RTX 5090", 120, 0);
    CHECK(j.status == SMC_STATUS_NONE && j.containers_by_verdict[SMC_VERDICT_NONE] == 2);
    CHECK(says(&j, "has sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 and no PTX; GeForce RTX 5090 "
                   "(12.0) needs an sm_120 cubin or PTX"));
    CHECK(j.cause == SMC_CAUSE_ARCH && strcmp(smc_cause_str(j.cause), "arch") == 0);
    smc_library_free(lib);

    /* Vendor style: its main list (sm_80 sm_90) serves the GPU, so the module it keeps for
     * another GPU is one, not a failure: ok, with the count. */
    lib = library("sm_80:1.8 sm_90:1.8|sm_90a:1.8 sm_90:1.8|sm_100:1.8|sm_100a:1.8");
    j = judge(lib, "", 90, 0);
    CHECK(j.status == SMC_STATUS_OK && j.cause == SMC_CAUSE_LOADS);
    CHECK(j.containers_by_verdict[SMC_VERDICT_NATIVE] == 2);
    CHECK(j.containers_by_verdict[SMC_VERDICT_OTHER_GPUS] == 1 && j.failing_count == 0);
    CHECK(j.containers_by_verdict[SMC_VERDICT_NONE] == 0);
    CHECK(j.containers_by_verdict[SMC_VERDICT_GATED] == 1);
    CHECK(says(&j, "2 native, 0 compatible of 2 containers; 1 module for other GPUs"));
    /* On sm_100 the main list fails, and the one module for it is 1 of 3: partial. */
    j = judge(lib, "", 100, 0);
    CHECK(j.status == SMC_STATUS_PARTIAL && j.cause == SMC_CAUSE_MAIN_ARCH);
    CHECK(says(&j, "its main architecture list sm_80 sm_90 (1 container) lacks a GPU of compute "
                   "capability 10.0: 2 of 4 containers serve it, 2 do not (they carry sm_80 sm_90 "
                   "sm_90a)"));
    smc_library_free(lib);

    /* PTX only: jit, with the driver it needs when none is known. */
    lib = library("sm_80:1.8 compute_80:9.0|sm_80:1.8 compute_80:9.0");
    j = judge(lib, "", 120, 0);
    CHECK(j.status == SMC_STATUS_JIT && j.containers_by_verdict[SMC_VERDICT_JIT] == 2);
    CHECK(j.cause == SMC_CAUSE_PTX_JIT && j.isa == 90);
    CHECK(says(&j, "needs a driver for CUDA 13.0 (R580) or newer"));
    smc_library_free(lib);

    /* The same with a 12.8 driver: the PTX is blocked, and CUDA 13 cubins are too. */
    lib = library("sm_80:1.8 compute_80:9.0|sm_90:1.8");
    j = judge(lib, "", 90, 12080);
    CHECK(j.status == SMC_STATUS_NONE);
    CHECK(j.containers_by_verdict[SMC_VERDICT_NONE] == 2);
    CHECK(says(&j, "built by CUDA 13 (cubin ABI 1.8 below sm_100); the driver supports 12.8; needs "
                   "a driver for CUDA 13.0 (R580) or newer"));
    CHECK(j.cause == SMC_CAUSE_BUILT_NEWER && j.built_major == 13 &&
          j.built_by == SMC_EVIDENCE_CUBIN_ABI);
    smc_library_free(lib);

    /* cudart 13 on a 12.x driver: nothing runs, whatever the cubins. */
    lib = library("sm_90:1.7");
    lib->cudart_major = 13;
    j = judge(lib, "", 90, 12080);
    CHECK(j.status == SMC_STATUS_NONE &&
          says(&j, "built by CUDA 13 (it needs libcudart.so.13); the driver supports 12.8"));
    CHECK(j.built_by == SMC_EVIDENCE_CUDART);
    smc_library_free(lib);
    lib = library("sm_90:1.7");
    lib->cudart_major = 13;
    j = judge(lib, "", 90, 13000);
    CHECK(j.status == SMC_STATUS_OK);
    smc_library_free(lib);

    /* One CUDA 13 cubin makes the whole library CUDA 13's: its old-ABI cubins do not save it. */
    lib = library("sm_90:1.7|sm_90:1.8|sm_80:1.7 compute_80:8.0");
    j = judge(lib, "", 90, 12080);
    CHECK(j.status == SMC_STATUS_NONE && j.containers_by_verdict[SMC_VERDICT_NONE] == 3);
    CHECK(says(&j, "built by CUDA 13 (cubin ABI 1.8 below sm_100); the driver supports 12.8"));
    smc_library_free(lib);
    lib = library("sm_90:1.7|sm_80:1.7 compute_80:9.0");
    j = judge(lib, "", 90, 12080);
    CHECK(j.status == SMC_STATUS_NONE && says(&j, "built by CUDA 13 (PTX ISA 9.x)"));
    smc_library_free(lib);

    /* Jetson: the lower-minor cubin fails, with the note. */
    lib = library("sm_80:1.8 sm_86:1.8");
    j = judge(lib, "Jetson AGX Orin", 87, 0);
    CHECK(j.status == SMC_STATUS_NONE && says(&j, "no binary compatibility on Tegra"));
    smc_library_free(lib);

    /* Containers that take no part: relocatable, LTO IR only, gated, the kernel-less device-link
     * module (the probe's sm_75 here); with nothing left the library is ok. */
    lib = library("!sm_80:1.8|lto_90:1.65|sm_90a:1.8|sm_75:1.8|sm_86:1.8");
    j = judge(lib, "", 86, 0);
    CHECK(j.status == SMC_STATUS_OK);
    CHECK(j.containers_by_verdict[SMC_VERDICT_RELOCATABLE] == 1);
    CHECK(j.containers_by_verdict[SMC_VERDICT_NO_KERNELS] == 2);
    CHECK(j.containers_by_verdict[SMC_VERDICT_GATED] == 1);
    CHECK(j.containers_by_verdict[SMC_VERDICT_NATIVE] == 1);
    smc_library_free(lib);

    /* A gated-only library (FlashAttention-3 style): neither ok nor none, and it says which GPUs
     * it serves. Alone in its input it cannot run at all (see judge()). */
    lib = library("sm_90a:1.8 compute_90a:9.0");
    j = judge(lib, "A100", 80, 0);
    CHECK(j.status == SMC_STATUS_GATED && j.containers_by_verdict[SMC_VERDICT_GATED] == 1);
    CHECK(says(&j, "it runs on 9.0 only, not on A100 (8.0)"));
    CHECK(j.cause == SMC_CAUSE_GATED);
    smc_library_free(lib);
    lib = library("sm_100f:1.8|sm_100a:1.8");
    j = judge(lib, "", 90, 0);
    CHECK(j.status == SMC_STATUS_GATED && says(&j, "it runs on the 10.0 family, 10.0 only"));
    smc_library_free(lib);

    /* A CUDA 12.8 build: ABI 7 below sm_100, ABI 8 for Blackwell (whose ptxas says 12.8): not
     * CUDA 13, so it runs on a 12.8 driver; the same ABI 8 cubin from CUDA 13.0 does not. */
    lib = library("sm_80:1.7 sm_90:1.7 sm_100:1.8 sm_120:1.8 compute_120:8.7");
    lib->images[3].release = 12080;
    lib->release = 12080;
    j = judge(lib, "RTX 5090", 120, 12080);
    CHECK(j.status == SMC_STATUS_OK && j.containers_by_verdict[SMC_VERDICT_NATIVE] == 1);
    CHECK(j.built_major == 12 && j.built_cuda == 12080 && j.built_by == SMC_EVIDENCE_TKINFO);
    j = judge(lib, "RTX 5090", 120, 12040);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_DRIVER_GPU && j.gpu_cuda == 12080);
    CHECK(says(&j, "no driver before CUDA 12.8 runs this GPU: the driver supports 12.4; needs a "
                   "driver for CUDA 12.8 (R570) or newer"));
    lib->images[3].release = 13000;
    lib->release = 13000;
    j = judge(lib, "RTX 5090", 120, 12080);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_BUILT_NEWER &&
          says(&j, "built by CUDA 13 (its cubins' ptxas: release 13.0)"));
    smc_library_free(lib);
    /* Without the note, an ABI 8 cubin for Blackwell proves nothing; one below sm_100 does. */
    lib = library("sm_120:1.8");
    j = judge(lib, "", 120, 12080);
    CHECK(j.status == SMC_STATUS_OK && j.built_major == 0);
    smc_library_free(lib);

    /* PTX is for what its .target says: sm_90a PTX under an entry without the 'a' flag does not
     * JIT on Blackwell. */
    lib = library("compute_90:8.4");
    lib->images[0].text_arch = 90;
    lib->images[0].text_variant = SMC_VARIANT_A;
    j = judge(lib, "", 120, 0);
    CHECK(j.status == SMC_STATUS_GATED);
    lib->images[0].text_variant = SMC_VARIANT_NONE;
    j = judge(lib, "", 120, 0);
    CHECK(j.status == SMC_STATUS_JIT);
    smc_library_free(lib);

    /* The build pattern: its main list (the widest) lacks 6.1, and the one module for 6.1 is 1
     * of 44: the library does not run there (vllm 0.9.1's _C). On 7.5 that module is one for
     * another GPU: ok. */
    char spec[4096] = "";
    for (int i = 0; i < 43; i++)
        strcat(spec, "sm_70:1.7 sm_75:1.7 sm_80:1.7 sm_86:1.7 sm_90:1.7|");
    strcat(spec, "sm_61:1.7");
    lib = library(spec);
    j = judge(lib, "GTX 1080 Ti", 61, 0);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_MAIN_ARCH && j.main_set == 43);
    CHECK(says(&j, "it is built for sm_70 sm_75 sm_80 sm_86 sm_90 (43 containers), none of it "
                   "for GTX 1080 Ti (6.1), and only 1 of 44 containers serves it"));
    CHECK(says(&j, "(no CUDA release since 12.9 builds for it)"));
    j = judge(lib, "T4", 75, 0);
    CHECK(j.status == SMC_STATUS_OK && j.containers_by_verdict[SMC_VERDICT_OTHER_GPUS] == 1);
    smc_library_free(lib);
    /* A store of per-architecture modules (no list of two architectures): it runs wherever one
     * serves. */
    lib = library("sm_80:1.7|sm_86:1.7|sm_90:1.7|sm_100:1.7");
    j = judge(lib, "", 90, 0);
    CHECK(j.status == SMC_STATUS_OK && j.containers_by_verdict[SMC_VERDICT_OTHER_GPUS] == 3);
    j = judge(lib, "", 75, 0);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_ARCH);
    smc_library_free(lib);
    /* Fewer than 1 in 20 serve it and its main list does not: no code for it (libcusparseLt 0.6
     * on a P100, its compute_52 probe serving); 1 in 20 exactly is partial. */
    lib = few_serve(spec, 20);
    j = judge(lib, "P100", 60, 0);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_MAIN_ARCH && j.failing_count == 20);
    CHECK(says(&j, "none of it for P100 (6.0), and only 1 of 21 containers serves it"));
    smc_library_free(lib);
    lib = few_serve(spec, 19);
    j = judge(lib, "P100", 60, 0);
    CHECK(j.status == SMC_STATUS_PARTIAL && j.cause == SMC_CAUSE_MAIN_ARCH);
    CHECK(says(&j, "lacks P100 (6.0): 1 of 20 containers serve it, 19 do not"));
    smc_library_free(lib);

    /* A runtime linked statically, no toolkit note, no libcudart to name (ctranslate2 4.8.5):
     * its PTX's ISA 8.7 says CUDA 12 built it, so an 11.8 driver does not run it; 12.4 does. */
    lib = library("sm_80:1.7 sm_86:1.7 compute_86:8.7");
    j = judge(lib, "", 86, 11080);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_BUILT_NEWER && j.built_major == 12 &&
          j.built_by == SMC_EVIDENCE_PTX_ISA);
    CHECK(says(&j, "built by CUDA 12 (its PTX's ISA 8.7, nothing else says); the driver supports "
                   "11.8"));
    j = judge(lib, "", 86, 12040);
    CHECK(j.status == SMC_STATUS_OK);
    smc_library_free(lib);

    /* A newer minor toolkit than the driver: a warning, not a failure. */
    lib = library("sm_90:1.7 compute_90:8.7");
    j = judge(lib, "", 90, 12040);
    CHECK(j.status == SMC_STATUS_OK && (j.warnings & SMC_WARN_NEWER_MINOR) &&
          strstr(cautions, "built by CUDA 12.8 (PTX ISA 8.7)"));
    smc_library_free(lib);
}

/* Issue 24: what the driver compiles at first launch, runtimes before 11.1, Orin with a CUDA 13
 * driver, and a library for another platform. */
static void test_situation(void)
{
    /* Two containers only through PTX (the newest PTX each: compute_80 of 40 MiB, compute_75 of
     * 1 MiB); one with a cubin for another GPU. */
    smc_library *lib = library("sm_70:1.7 compute_70:7.0 compute_80:7.8|compute_75:7.8|sm_90:1.7");
    lib->images[1].size = 5u << 20;  /* compute_70: not the one compiled on 8.6 */
    lib->images[2].size = 40u << 20; /* compute_80 */
    lib->images[3].size = 1u << 20;  /* compute_75 */
    smc_judgement j = judge(lib, "", 86, 0);
    CHECK(j.status == SMC_STATUS_JIT && j.jit_containers == 2 && j.jit_bytes == (41u << 20));
    CHECK((j.warnings & SMC_WARN_JIT_LARGE) && strstr(cautions, "compiles 41 MiB of PTX (2 "
                                                                "containers) at first launch"));
    lib->images[2].size = 20u << 20;
    j = judge(lib, "", 86, 0);
    CHECK(j.jit_bytes == (21u << 20) && !(j.warnings & SMC_WARN_JIT_LARGE));
    j = judge(lib, "", 70, 0); /* its own cubin: nothing to compile */
    CHECK(j.status == SMC_STATUS_OK && j.jit_containers == 0 && j.jit_bytes == 0 &&
          j.containers_by_verdict[SMC_VERDICT_OTHER_GPUS] == 2);
    smc_library_free(lib);

    /* libcudart.so.10.1 on a driver for 10.0: none before any kernel; on 10.1 it runs. A CUDA
     * 11.8 runtime on an 11.4 driver only warns (minor-version compatibility from 11.1). */
    lib = library("sm_70:1.7");
    lib->cudart_major = 10;
    lib->cudart_minor = 1;
    j = judge(lib, "", 70, 10000);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_RUNTIME && j.runtime_cuda == 10010 &&
          says(&j, "its CUDA 10.1 runtime is newer than the driver (CUDA 10.0)") &&
          smc_next_driver(&j) == 10010);
    j = judge(lib, "", 70, 10010);
    CHECK(j.status == SMC_STATUS_OK);
    lib->cudart_major = 11;
    lib->cudart_minor = 0;
    lib->release = 11080;
    j = judge(lib, "", 70, 11040);
    CHECK(j.status == SMC_STATUS_OK && (j.warnings & SMC_WARN_NEWER_MINOR));
    lib->release = 10020; /* a CUDA 10.2 ptxas: the same rule as the soname */
    lib->cudart_major = 0;
    j = judge(lib, "", 70, 10010);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_RUNTIME);
    smc_library_free(lib);

    /* Orin: an sm_80 cubin with JetPack 6's CUDA 12.6 driver is none; with a CUDA 13 driver it
     * counts, with the caution; with no driver known, the strict rule. */
    lib = library("sm_80:1.7");
    j = judge(lib, "Jetson AGX Orin", 87, 12060);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_TEGRA);
    j = judge(lib, "Jetson AGX Orin", 87, 13020);
    CHECK(j.status == SMC_STATUS_OK && j.containers_by_verdict[SMC_VERDICT_COMPATIBLE] == 1 &&
          (j.warnings & SMC_WARN_TEGRA_SBSA) && strstr(cautions, "CUDA_FORCE_PTX_JIT=0"));
    j = judge(lib, "Jetson AGX Orin", 87, 0);
    CHECK(j.status == SMC_STATUS_NONE && j.cause == SMC_CAUSE_TEGRA);
    j = judge(lib, "Jetson AGX Xavier", 72, 13020); /* not Orin: no report says so */
    CHECK(j.status == SMC_STATUS_NONE);
    smc_library_free(lib);

    /* A GPU's own minimum is part of the driver a reason asks for: PTX of ISA 7.8 (CUDA 11.8) on
     * an RTX 5090, which no driver before CUDA 12.8 runs. */
    lib = library("compute_80:7.8");
    j = judge(lib, "GeForce RTX 5090", 120, 0);
    CHECK(j.status == SMC_STATUS_JIT && says(&j, "needs a driver for CUDA 12.8 (R570) or newer"));
    smc_library_free(lib);
}

static void test_versions(void)
{
    int v = 0;
    CHECK(smc_driver_parse("12.4", &v) == 1 && v == 12040);
    CHECK(smc_driver_parse("13.0", &v) == 1 && v == 13000);
    CHECK(smc_driver_parse("550.54.14", &v) == 1 && v == 12040);
    /* A driver reports its branch's CUDA, betas and release candidates too (550.40.07). */
    CHECK(smc_driver_parse("550.54.13", &v) == 1 && v == 12040);
    CHECK(smc_driver_parse("450.36.06", &v) == 1 && v == 11000);
    /* Every branch back to CUDA 9.0's R384, two-part versions too. */
    CHECK(smc_driver_parse("384.81", &v) == 1 && v == 9000);
    CHECK(smc_driver_parse("384.130", &v) == 1 && v == 9000);
    CHECK(smc_driver_parse("390.46", &v) == 1 && v == 9010);
    CHECK(smc_driver_parse("396.37", &v) == 1 && v == 9020);
    CHECK(smc_driver_parse("410.48", &v) == 1 && v == 10000);
    CHECK(smc_driver_parse("418.67", &v) == 1 && v == 10010);
    CHECK(smc_driver_parse("430.50", &v) == 1 && v == 10010);
    CHECK(smc_driver_parse("440.33.01", &v) == 1 && v == 10020);
    CHECK(smc_driver_parse("565.57.01", &v) == 1 && v == 12070);
    CHECK(smc_driver_parse("383.1", &v) == 0); /* before CUDA 9.0: not in the tables */
    /* Jetson's: JetPack 6.0 (540.3.0) and 6.1/6.2 (540.4.0); Thor's 580.00 (JetPack 7). */
    CHECK(smc_driver_parse("540.3.0", &v) == 1 && v == 12020);
    CHECK(smc_driver_parse("540.4.0", &v) == 1 && v == 12060);
    CHECK(smc_driver_parse("580.00", &v) == 1 && v == 13000);
    /* A CUDA version with its update, as images write CUDA_VERSION. */
    CHECK(smc_driver_parse("12.8.1", &v) == 1 && v == 12080);
    CHECK(smc_driver_parse("10.0", &v) == 1 && v == 10000);
    /* A branch past the tables: the newest they know, said as such. */
    CHECK(smc_driver_parse("999", &v) == 2 && v == 13040);
    CHECK(smc_driver_parse("620.10", &v) == 2 && v == 13040);
    CHECK(smc_driver_parse("616.00", &v) == 1 && v == 13040);
    /* CUDA 13.4 GA's branch is R615 (615.71.09 ships with 13.4.1), 13.3's R610. */
    CHECK(smc_driver_parse("615.71.09", &v) == 1 && v == 13040);
    CHECK(smc_driver_parse("610.43.02", &v) == 1 && v == 13030);
    CHECK(smc_driver_parse("14.0", &v) == 2 && v == 14000); /* a CUDA version past the tables */
    CHECK(smc_driver_parse("99.9", &v) == 2 && v == 99090);
    CHECK(smc_driver_parse("8.0", &v) == 0 && smc_driver_parse("2.0", &v) == 0);
    CHECK(smc_driver_parse("570.26", &v) == 1 && v == 12080);
    CHECK(smc_driver_parse("580.65.06", &v) == 1 && v == 13000);
    CHECK(smc_driver_parse("580", &v) == 1 && v == 13000);
    CHECK(smc_driver_parse("535.104.05", &v) == 1 && v == 12020);
    CHECK(smc_driver_parse("12", &v) == 0 && smc_driver_parse("12.", &v) == 0);
    CHECK(smc_driver_parse("abc", &v) == 0 && smc_driver_parse("12.4x", &v) == 0);
    CHECK(smc_driver_parse("", &v) == 0);
    CHECK(smc_driver_parse("1.2.3.4", &v) == 0);
    unsigned M, m;
    CHECK(smc_ptx_isa_for_cuda(12080, &M, &m) && M == 8 && m == 7);
    CHECK(smc_ptx_isa_for_cuda(12060, &M, &m) && M == 8 && m == 5);
    CHECK(smc_ptx_isa_for_cuda(13000, &M, &m) && M == 9 && m == 0);
    CHECK(smc_ptx_isa_for_cuda(14000, &M, &m) && M == 9 && m == 4);
    CHECK(!smc_ptx_isa_for_cuda(8000, &M, &m));
    CHECK(smc_cuda_for_ptx_isa(9, 0) == 13000 && smc_cuda_for_ptx_isa(8, 7) == 12080);
    CHECK(smc_cuda_for_ptx_isa(8, 5) == 12050 && smc_cuda_for_ptx_isa(9, 6) == 13060);
    CHECK(smc_driver_branch_for_cuda(13000) == 580 && smc_driver_branch_for_cuda(12040) == 550);
}

/* The container's verdict, its cause and the tokens the reason names, for one target. */
static void one_verdict(smc_library *lib, unsigned cc, int driver, char *out, size_t n)
{
    smc_target t = {.cc_major = cc / 10, .cc_minor = cc % 10};
    smc_input *in = smc_input_new("in", SMC_INPUT_FILE);
    in->libraries = lib;
    in->library_count = 1;
    in->inspected = true;
    smc_lib_status overall;
    smc_judged jd;
    CHECK(smc_judge(&in, 1, &t, 1, driver, NULL, &jd, &overall) == SMC_OK);
    const smc_judgement *j = &jd.libraries[0].judgements[0];
    snprintf(out, n, "%s %d %zu %zu %zu %zu %zu %zu", smc_lib_status_str(j->status), (int)j->cause,
             j->containers_by_verdict[SMC_VERDICT_NATIVE], j->containers_by_verdict[SMC_VERDICT_JIT],
             j->containers_by_verdict[SMC_VERDICT_JIT_BLOCKED],
             j->containers_by_verdict[SMC_VERDICT_NONE], j->containers_by_verdict[SMC_VERDICT_GATED],
             j->containers_by_verdict[SMC_VERDICT_NO_KERNELS]);
    smc_judged_free(&jd);
    in->libraries = NULL;
    in->library_count = 0;
    smc_input_free(in);
}

/* Where smc_facts_matter says a container's PTX cannot change its verdict for a target, no choice
 * of what it says does: any variant on its PTX text's .target, either ptxas release on its
 * cubins. (What the library as a whole is built by, which the releases and PTX versions also say,
 * and whether its cubins hold kernels, are read whatever the targets; here they stay the same:
 * releases are never 0, so no cubin counts as CUDA 13 by its ABI alone, and the text's .version
 * is the entry's.) The finder reads no PTX where the rule says it cannot matter. */
static void test_facts_matter(void)
{
    static const char *const specs[] = {
        "sm_75:1.7",
        "sm_80:1.7 sm_90:1.7",
        "sm_80:1.8 sm_90:1.8 sm_100:1.8 sm_120:1.8",
        "sm_90a:1.8 sm_100a:1.8",
        "sm_90a:1.8 compute_90:8.4",
        "sm_80:1.7 compute_90:8.4",
        "sm_75:1.7 sm_86:1.7 compute_86:7.8",
        "compute_90:9.0",
        "sm_100f:1.8 sm_120f:1.8 compute_120:9.0",
        "sm_87:1.7 compute_80:8.0",
        "lto_90:1.65",
    };
    static const unsigned ccs[] = {52, 70, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
    static const int drivers[] = {0, 12040, 12080, 13000};
    static const unsigned releases[] = {12080, 13000};
    static const smc_variant variants[] = {SMC_VARIANT_NONE, SMC_VARIANT_A, SMC_VARIANT_F};
    size_t skipped = 0, matter = 0;
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        smc_library *lib = library(specs[s]);
        for (size_t c = 0; c < sizeof ccs / sizeof ccs[0]; c++)
            for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++) {
                smc_target t = {.cc_major = ccs[c] / 10, .cc_minor = ccs[c] % 10};
                for (size_t i = 0; i < lib->image_count; i++) /* as the finder has them: unread */
                    lib->images[i].release = lib->images[i].text_arch = lib->images[i].text_isa = 0;
                if (smc_facts_matter(lib->images, lib->image_count, &t, 1, drivers[d])) {
                    matter++;
                    continue;
                }
                skipped++;
                char base[128] = "";
                for (size_t r = 0; r < 2; r++)
                    for (size_t v = 0; v < 3; v++) {
                        for (size_t i = 0; i < lib->image_count; i++) {
                            smc_image *img = &lib->images[i];
                            if (img->kind == SMC_IMAGE_CUBIN) img->release = releases[r];
                            if (img->kind != SMC_IMAGE_PTX) continue;
                            img->text_arch = img->arch;
                            img->text_variant = variants[v];
                            img->text_isa = img->version_major * 10 + img->version_minor;
                        }
                        char got[128];
                        one_verdict(lib, ccs[c], drivers[d], got, sizeof got);
                        if (!base[0]) memcpy(base, got, sizeof got);
                        if (strcmp(got, base) != 0)
                            fprintf(stderr, "facts changed '%s' on %u (driver %d): %s, not %s\n",
                                    specs[s], ccs[c], drivers[d], got, base);
                        CHECK(strcmp(got, base) == 0);
                    }
            }
        smc_library_free(lib);
    }
    /* Both kinds occur: the rule is neither always nor never. */
    CHECK(skipped > 50 && matter > 50);
    smc_target sm_90 = {.cc_major = 9, .cc_minor = 0}, rtx50 = {.cc_major = 12, .cc_minor = 0};
    smc_library *lib = library("sm_80:1.7 sm_90:1.8 compute_90:9.0");
    CHECK(!smc_facts_matter(lib->images, lib->image_count, &sm_90, 1, 0));     /* sm_90 serves */
    CHECK(smc_facts_matter(lib->images, lib->image_count, &sm_90, 1, 12080));  /* by its release */
    CHECK(smc_facts_matter(lib->images, lib->image_count, &rtx50, 1, 0));      /* the PTX's text */
    smc_target both[] = {sm_90, rtx50};
    CHECK(smc_facts_matter(lib->images, lib->image_count, both, 2, 0));        /* one is enough */
    smc_library_free(lib);
}

/* A model whose facts were not read (no smc_options.inspect) is refused by the judge:
 * SMC_ERR_ARG, and an assertion that aborts in a debug build. */
static void test_uninspected(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        smc_input *in = smc_input_new("in", SMC_INPUT_FILE);
        smc_library *lib = smc_library_new("lib.so");
        static smc_image img = {.kind = SMC_IMAGE_CUBIN, .arch = 90, .version_major = 1,
                                .version_minor = 7};
        static smc_container c = {.image_count = 1, .kernels = -1};
        lib->images = &img;
        lib->image_count = 1;
        lib->containers = &c;
        lib->container_count = 1;
        in->libraries = lib;
        in->library_count = 1; /* in->inspected stays false */
        smc_target t = {.cc_major = 9};
        fclose(stderr); /* a debug build's assertion message is expected */
        smc_judged jd;
        _exit(smc_judge(&in, 1, &t, 1, 12080, NULL, &jd, NULL) == SMC_ERR_ARG ? 3 : 0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
          ((WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) ||
           (WIFEXITED(status) && WEXITSTATUS(status) == 3)));
}

/* Issue 25: what each compiler release accepts (measured with each release's ptxas and NVRTC),
 * a ptxas's release statement in its bytes, and the CUDA sonames DT_NEEDED names. */
static void test_runtime(void)
{
    static const struct {
        int cuda;
        unsigned arch;
        bool a;
        int knows;
    } accepts[] = {
        {12040, 120, false, 0}, {12040, 100, false, 0}, {12040, 90, true, 1},
        {12080, 120, true, 1},  {12080, 121, true, 0},  {12080, 103, false, 0},
        {12080, 101, true, 1},  {12090, 121, true, 1},  {12090, 103, true, 1},
        {12090, 110, true, 0},  {13000, 110, true, 1},  {13010, 101, true, 0},
        {13000, 70, false, 0},  {12090, 70, false, 1},  {13000, 88, false, 1},
        {12090, 88, false, 0},  {11070, 89, false, 0},  {11080, 89, false, 1},
        {11080, 35, false, 1},  {12000, 35, false, 0},  {13030, 107, true, 0},
        {13040, 107, true, 1},  {12080, 999, false, -1}, {0, 80, false, -1},
        {12080, 88, true, 0}, /* no sm_88a */
    };
    for (size_t i = 0; i < sizeof accepts / sizeof accepts[0]; i++) {
        int got = smc_compiler_knows(accepts[i].cuda, accepts[i].arch, accepts[i].a);
        CHECK(got == accepts[i].knows);
        if (got != accepts[i].knows)
            fprintf(stderr, "  CUDA %d sm_%u%s: %d\n", accepts[i].cuda, accepts[i].arch,
                    accepts[i].a ? "a" : "", got);
    }
    int cuda;
    const char *setting, *until;
    CHECK(strcmp(smc_triton_first(121, &cuda, &setting, &until), "3.6.0") == 0 && cuda == 12090 &&
          !until && strcmp(setting, "TRITON_PTXAS_BLACKWELL_PATH") == 0);
    CHECK(strcmp(smc_triton_first(101, &cuda, &setting, &until), "3.3.0") == 0 && until &&
          strcmp(until, "3.6.0") == 0 && strcmp(setting, "TRITON_PTXAS-BLACKWELL_PATH") == 0);
    CHECK(strcmp(smc_triton_first(110, &cuda, &setting, &until), "3.7.0") == 0 && cuda == 13010);
    CHECK(strcmp(smc_triton_first(107, &cuda, &setting, &until), "3.9.0") == 0);
    CHECK(smc_triton_first(999, &cuda, &setting, &until) == NULL);
    size_t need;
    static const char v[] = "x Cuda compilation tools, release %d.%d, V%s\0"
                            "Cuda compilation tools, release 12.8, V12.8.93";
    CHECK(smc_ptxas_release((const uint8_t *)v, sizeof v - 1, &need) == 12080);
    static const char cut[] = "Cuda compilation tools, release 12.";
    CHECK(smc_ptxas_release((const uint8_t *)cut, sizeof cut - 1, &need) == -1 &&
          need > sizeof cut - 1);
    static const char odd[] = "Cuda compilation tools, release 1234567890.1, V";
    CHECK(smc_ptxas_release((const uint8_t *)odd, sizeof odd - 1, &need) == 0);
    static const char names[] = "libcudnn.so.9\0libcuda.so.1\0libcudart-d0da41ae.so.11.0\0"
                                "libnvrtc.so.12";
    CHECK(smc_cuda_soname((const uint8_t *)names, sizeof names) == 13);
    CHECK(smc_cuda_soname((const uint8_t *)names + 14, sizeof names - 14) == 0); /* the driver */
    CHECK(smc_cuda_soname((const uint8_t *)names + 27, sizeof names - 27) == 26);
    /* Not NUL-terminated within the bytes: not a name. */
    CHECK(smc_cuda_soname((const uint8_t *)names + 54, 14) == 0);
    char wheel[96];
    CHECK(strcmp(smc_soname_wheel(wheel, sizeof wheel, "libcudnn.so.9", 12),
                 "nvidia-cudnn-cu12 9.x") == 0);
    CHECK(strcmp(smc_soname_wheel(wheel, sizeof wheel, "libcublasLt.so.11", 0),
                 "nvidia-cublas-cu11 11.x") == 0);
    CHECK(strcmp(smc_soname_wheel(wheel, sizeof wheel, "libcudart.so.13", 13),
                 "nvidia-cuda-runtime 13.x") == 0);
    CHECK(strcmp(smc_soname_wheel(wheel, sizeof wheel, "libcufft.so.11", 0), "") == 0);
}

int main(void)
{
    test_uninspected();
    test_rules();
    test_facts_matter();
    test_statuses();
    test_versions();
    test_situation();
    test_runtime();
    return check_report();
}
