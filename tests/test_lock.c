/* test_lock.c: the lock file reader (src/lib/acquire/lock.c). The real locks of fixtures/locks (uv.lock,
 * uv's and pip's pylock.toml, uv pip compile's requirements.txt) against what they install: the
 * expected pins below were worked out with Python's tomllib and packaging (markers, wheel tags
 * in pip's order), not with lock.c. Then edge cases built here, one by one, and hostile inputs in
 * bounded time (LOCK_TIME_FACTOR multiplies the budgets: sanitizers). Usage: test_lock FIXTURES */
#include "../src/lib/acquire/acquire.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static smc_pyenv env_of(const char *platform, const char *python)
{
    smc_pyenv e;
    char err[256];
    if (!smc_pyenv_init(&e, platform, python, err, sizeof err)) {
        fprintf(stderr, "smc_pyenv_init %s %s: %s\n", platform, python, err);
        exit(2);
    }
    return e;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) exit(2);
    text[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return text;
}

/* Every message one line, not empty. */
static bool one_line(const char *s)
{
    return s && s[0] && !strchr(s, '\n') && !strchr(s, '\r');
}

static bool lines_ok(const smc_lock *l)
{
    for (size_t i = 0; i < l->problem_count; i++)
        if (!one_line(l->problems[i])) return false;
    return true;
}

/* Reads text as the lock at path, with the project's extras (count of them); prints why and the
 * problems when verbose. */
static bool rd_x(const char *path, const char *text, size_t len, const smc_pyenv *e,
                 const char *const *extras, size_t count, smc_lock *l, char *why, size_t n)
{
    bool ok = smc_lock_read(path, text, len, e, extras, count, l, why, n);
    if (getenv("LOCK_VERBOSE")) {
        fprintf(stderr, "-- %s: %s%s\n", path, ok ? "read" : "refused: ", ok ? "" : why);
        for (size_t i = 0; ok && i < l->problem_count; i++)
            fprintf(stderr, "   problem: %s\n", l->problems[i]);
        for (size_t i = 0; ok && i < l->pin_count; i++)
            fprintf(stderr, "   pin: %s %s %s %s (%zu hashes)\n", l->pins[i].name,
                    l->pins[i].version, l->pins[i].url ? l->pins[i].url : "-", l->pins[i].sha256,
                    l->pins[i].hash_count);
    }
    if (ok)
        CHECK(lines_ok(l));
    else
        CHECK(one_line(why) && l->pins == NULL && l->pin_count == 0 && l->problem_count == 0);
    return ok;
}

static bool rd_n(const char *path, const char *text, size_t len, const smc_pyenv *e, smc_lock *l,
                 char *why, size_t n)
{
    return rd_x(path, text, len, e, NULL, 0, l, why, n);
}

static char why[1024];

static bool rd(const char *path, const char *text, const smc_pyenv *e, smc_lock *l)
{
    return rd_n(path, text, strlen(text), e, l, why, sizeof why);
}

static const smc_pin *pin_of(const smc_lock *l, const char *name)
{
    for (size_t i = 0; i < l->pin_count; i++)
        if (strcmp(l->pins[i].name, name) == 0) return &l->pins[i];
    return NULL;
}

static bool has_problem(const smc_lock *l, const char *a, const char *b)
{
    for (size_t i = 0; i < l->problem_count; i++)
        if (strstr(l->problems[i], a) && (!b || strstr(l->problems[i], b))) return true;
    return false;
}

static bool has_note(const smc_lock *l, const char *a, const char *b)
{
    for (size_t i = 0; i < l->note_count; i++)
        if (strstr(l->notes[i], a) && (!b || strstr(l->notes[i], b))) return true;
    return false;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = s ? strlen(s) : 0, b = strlen(tail);
    return s && a >= b && strcmp(s + a - b, tail) == 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double time_factor(void)
{
    const char *f = getenv("LOCK_TIME_FACTOR");
    double v = f ? atof(f) : 1.0;
    return v > 0 ? v : 1.0;
}

/* --- the fixtures ----------------------------------------------------------------------------- */

typedef struct expect {
    const char *name, *version, *file, *sha256;
} expect;

/* CPython 3.11 on manylinux_2_28_x86_64: uv.lock walked from i27-demo, uv's pylock.toml by its
 * markers, pip's pylock.toml as it is (tomllib + packaging.markers + packaging.tags). */
static const expect linux311[] = {
    {"bitsandbytes", "0.45.5", "bitsandbytes-0.45.5-py3-none-manylinux_2_24_x86_64.whl",
     "a5453f30cc6aab6ccaac364e6bf51a7808d3da5f71763dffeb6d9694c59136e4"},
    {"filelock", "4.3.1", "filelock-4.3.1-py3-none-any.whl",
     "79e43df8e9fe509cd83a3899a7c186c8077cbbe4d200a1ed3705c2f3bb6bc487"},
    {"fsspec", "2026.9.0", "fsspec-2026.9.0-py3-none-any.whl",
     "8dd6e646e99ea382bd85f97a45e6b526a442d79423a7dc673f1e2756d05fcb5f"},
    {"jinja2", "3.1.6", "jinja2-3.1.6-py3-none-any.whl",
     "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67"},
    {"markupsafe", "3.0.4",
     "markupsafe-3.0.4-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.manylinux_2_28_x86_"
     "64.whl",
     "6da83a088f8ef93b2d483a8232a4dbf4d69d3d8496b568a03c56becac43e1808"},
    {"mpmath", "1.3.0", "mpmath-1.3.0-py3-none-any.whl",
     "a0b2b9fe80bbcd81a6647ff13108738cfb482d481d826cc0e02f5b35e5c88d2c"},
    {"networkx", "3.6.1", "networkx-3.6.1-py3-none-any.whl",
     "d47fbf302e7d9cbbb9e2555a0d267983d2aa476bac30e90dfbe5669bd57f3762"},
    {"numpy", "2.4.6", "numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
     "89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93"},
    {"nvidia-cublas-cu12", "12.8.4.1",
     "nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl",
     "8ac4e771d5a348c551b2a426eda6193c19aa630236b418086020df5ba9667142"},
    {"nvidia-cuda-cupti-cu12", "12.8.90",
     "nvidia_cuda_cupti_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "ea0cb07ebda26bb9b29ba82cda34849e73c166c18162d3913575b0c9db9a6182"},
    {"nvidia-cuda-nvrtc-cu12", "12.8.93",
     "nvidia_cuda_nvrtc_cu12-12.8.93-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
     "a7756528852ef889772a84c6cd89d41dfa74667e24cca16bb31f8f061e3e9994"},
    {"nvidia-cuda-runtime-cu12", "12.8.90",
     "nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "adade8dcbd0edf427b7204d480d6066d33902cab2a4707dcfc48a2d0fd44ab90"},
    {"nvidia-cudnn-cu12", "9.10.2.21",
     "nvidia_cudnn_cu12-9.10.2.21-py3-none-manylinux_2_27_x86_64.whl",
     "949452be657fa16687d0930933f032835951ef0892b37d2d53824d1a84dc97a8"},
    {"nvidia-cufft-cu12", "11.3.3.83",
     "nvidia_cufft_cu12-11.3.3.83-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "4d2dd21ec0b88cf61b62e6b43564355e5222e4a3fb394cac0db101f2dd0d4f74"},
    {"nvidia-cufile-cu12", "1.13.1.3",
     "nvidia_cufile_cu12-1.13.1.3-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "1d069003be650e131b21c932ec3d8969c1715379251f8d23a1860554b1cb24fc"},
    {"nvidia-curand-cu12", "10.3.9.90",
     "nvidia_curand_cu12-10.3.9.90-py3-none-manylinux_2_27_x86_64.whl",
     "b32331d4f4df5d6eefa0554c565b626c7216f87a06a4f56fab27c3b68a830ec9"},
    {"nvidia-cusolver-cu12", "11.7.3.90",
     "nvidia_cusolver_cu12-11.7.3.90-py3-none-manylinux_2_27_x86_64.whl",
     "4376c11ad263152bd50ea295c05370360776f8c3427b30991df774f9fb26c450"},
    {"nvidia-cusparse-cu12", "12.5.8.93",
     "nvidia_cusparse_cu12-12.5.8.93-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "1ec05d76bbbd8b61b06a80e1eaf8cf4959c3d4ce8e711b65ebd0443bb0ebb13b"},
    {"nvidia-cusparselt-cu12", "0.7.1",
     "nvidia_cusparselt_cu12-0.7.1-py3-none-manylinux2014_x86_64.whl",
     "f1bb701d6b930d5a7cea44c19ceb973311500847f81b634d802b7b539dc55623"},
    {"nvidia-nccl-cu12", "2.27.3",
     "nvidia_nccl_cu12-2.27.3-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "adf27ccf4238253e0b826bce3ff5fa532d65fc42322c8bfdfaf28024c0fbe039"},
    {"nvidia-nvjitlink-cu12", "12.8.93",
     "nvidia_nvjitlink_cu12-12.8.93-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
     "81ff63371a7ebd6e6451970684f916be2eab07321b73c9d244dc2b4da7f73b88"},
    {"nvidia-nvtx-cu12", "12.8.90",
     "nvidia_nvtx_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "5b17e2001cc0d751a5bc2c6ec6d26ad95913324a4adb86788c944f8ce9ba441f"},
    {"setuptools", "84.2.1", "setuptools-84.2.1-py3-none-any.whl",
     "ca140b45d5325a9478f880e351484f62fef15f336462e449ca0c03c873d589c2"},
    {"sympy", "1.14.0", "sympy-1.14.0-py3-none-any.whl",
     "e091cc3e99d2141a0ba2847328f5479b05d94a6635cb96148ccb3f34671bd8f5"},
    {"torch", "2.8.0", "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl",
     "c12fa219f51a933d5f80eeb3a7a5d0cbe9168c0a14bbb4055f1979431660879b"},
    {"triton", "3.4.0", "triton-3.4.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
     "7b70f5e6a41e52e48cfc087436c8a28c17ff98db369447bcaff3b887a3ab4467"},
    {"typing-extensions", "4.16.0", "typing_extensions-4.16.0-py3-none-any.whl",
     "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8"},
};

/* CPython 3.11 on win_amd64: no nvidia-*, no triton, and setuptools only from 3.12. */
static const expect win311[] = {
    {"bitsandbytes", "0.45.5", "bitsandbytes-0.45.5-py3-none-win_amd64.whl",
     "ed1c61b91d989d6a33fd05737d6edbf5086d8ebc89235ee632c7a19144085da2"},
    {"filelock", "4.3.1", "filelock-4.3.1-py3-none-any.whl",
     "79e43df8e9fe509cd83a3899a7c186c8077cbbe4d200a1ed3705c2f3bb6bc487"},
    {"fsspec", "2026.9.0", "fsspec-2026.9.0-py3-none-any.whl",
     "8dd6e646e99ea382bd85f97a45e6b526a442d79423a7dc673f1e2756d05fcb5f"},
    {"jinja2", "3.1.6", "jinja2-3.1.6-py3-none-any.whl",
     "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67"},
    {"markupsafe", "3.0.4", "markupsafe-3.0.4-cp311-cp311-win_amd64.whl",
     "fdb4ca07ab75ffadab4a8b135ad59cdbb3156b99310f3d565370da74a15d6bd3"},
    {"mpmath", "1.3.0", "mpmath-1.3.0-py3-none-any.whl",
     "a0b2b9fe80bbcd81a6647ff13108738cfb482d481d826cc0e02f5b35e5c88d2c"},
    {"networkx", "3.6.1", "networkx-3.6.1-py3-none-any.whl",
     "d47fbf302e7d9cbbb9e2555a0d267983d2aa476bac30e90dfbe5669bd57f3762"},
    {"numpy", "2.4.6", "numpy-2.4.6-cp311-cp311-win_amd64.whl",
     "1e254a00cdf42b1e4d5b3d68d33af63268d41340d8885df2ab6470f2e1500147"},
    {"sympy", "1.14.0", "sympy-1.14.0-py3-none-any.whl",
     "e091cc3e99d2141a0ba2847328f5479b05d94a6635cb96148ccb3f34671bd8f5"},
    {"torch", "2.8.0", "torch-2.8.0-cp311-cp311-win_amd64.whl",
     "8c7ef765e27551b2fbfc0f41bcf270e1292d9bf79f8e0724848b1682be6e80aa"},
    {"typing-extensions", "4.16.0", "typing_extensions-4.16.0-py3-none-any.whl",
     "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8"},
};

/* What differs on 3.10 and 3.12 (manylinux_2_28_x86_64): uv.lock's python_full_version forks. */
static const expect linux310[] = {
    {"filelock", "4.1.0", "filelock-4.1.0-py3-none-any.whl",
     "2ce9818e3e2d8f284c1a964414447ef148d42a5fd5e2a477a7118e574b293ec1"},
    {"networkx", "3.4.2", "networkx-3.4.2-py3-none-any.whl",
     "df5d4365b724cf81b8c6a7312509d0c22386097011ad1abe274afd5e9d3bbc5f"},
    {"numpy", "2.2.6", "numpy-2.2.6-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
     "fc7b73d02efb0e18c000e9ad8b83480dfcd5dfd11065997ed4c6747470ae8915"},
    {"setuptools", "84.2.1", "setuptools-84.2.1-py3-none-any.whl",
     "ca140b45d5325a9478f880e351484f62fef15f336462e449ca0c03c873d589c2"},
};
static const expect linux312[] = {
    {"filelock", "4.3.1", "filelock-4.3.1-py3-none-any.whl",
     "79e43df8e9fe509cd83a3899a7c186c8077cbbe4d200a1ed3705c2f3bb6bc487"},
    {"networkx", "3.7", "networkx-3.7-py3-none-any.whl",
     "e3fd2c13a7814cee3746340d8d7f8598a67f16a58bf47fb7f8793fab6efca1b0"},
    {"numpy", "2.5.5", "numpy-2.5.5-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
     "704d819265e5d1064d932968e9ee85fff2103ccc78c05b878c06943ba27b8507"},
    {"setuptools", "84.2.1", "setuptools-84.2.1-py3-none-any.whl",
     "ca140b45d5325a9478f880e351484f62fef15f336462e449ca0c03c873d589c2"},
};

/* requirements.txt (uv pip compile --generate-hashes, no markers): pin, --hash count, first hash.
 */
static const struct {
    const char *name, *version;
    size_t hashes;
    const char *first;
} req_expect[] = {
    {"bitsandbytes", "0.45.5", 2,
     "a5453f30cc6aab6ccaac364e6bf51a7808d3da5f71763dffeb6d9694c59136e4"},
    {"filelock", "4.3.1", 2, "4c5ee627c401f1863ac6a0de9a14a28d3bb5f8c730b45e2fd6e5dbc79cf34b9e"},
    {"fsspec", "2026.9.0", 2, "0f08147951c8cb31d844c3547d631053b127863b60be04cf06e121333ee0e2fe"},
    {"jinja2", "3.1.6", 2, "0137fb05990d35f1275a587e9aee6d56da821fc83491a0fb838183be43f66d6d"},
    {"markupsafe", "3.0.4", 151,
     "007e1ffd9bf65bb6ee96df7b258fc632a4868dd5566037986c64781f35a36e98"},
    {"mpmath", "1.3.0", 2, "7a28eb2a9774d00c7bc92411c19a89209d5da7c4c9a9e227be8330a23a25b91f"},
    {"networkx", "3.6.1", 2, "26b7c357accc0c8cde558ad486283728b65b6a95d85ee1cd66bafab4c8168509"},
    {"numpy", "2.4.6", 72, "001fbb8e08d942dd57599e781f2472269ee7f2755fae407b4f67b2f0b17da3f1"},
    {"nvidia-cublas-cu12", "12.8.4.1", 3,
     "47e9b82132fa8d2b4944e708049229601448aaad7e6f296f630f2d1a32de35af"},
    {"nvidia-cuda-cupti-cu12", "12.8.90", 3,
     "4412396548808ddfed3f17a467b104ba7751e6b58678a4b840675c56d21cf7ed"},
    {"nvidia-cuda-nvrtc-cu12", "12.8.93", 3,
     "7a4b6b2904850fe78e0bd179c4b655c404d4bb799ef03ddc60804247099ae909"},
    {"nvidia-cuda-runtime-cu12", "12.8.90", 3,
     "52bf7bbee900262ffefe5e9d5a2a69a30d97e2bc5bb6cc866688caa976966e3d"},
    {"nvidia-cudnn-cu12", "9.10.2.21", 3,
     "949452be657fa16687d0930933f032835951ef0892b37d2d53824d1a84dc97a8"},
    {"nvidia-cufft-cu12", "11.3.3.83", 3,
     "4d2dd21ec0b88cf61b62e6b43564355e5222e4a3fb394cac0db101f2dd0d4f74"},
    {"nvidia-cufile-cu12", "1.13.1.3", 2,
     "1d069003be650e131b21c932ec3d8969c1715379251f8d23a1860554b1cb24fc"},
    {"nvidia-curand-cu12", "10.3.9.90", 3,
     "b32331d4f4df5d6eefa0554c565b626c7216f87a06a4f56fab27c3b68a830ec9"},
    {"nvidia-cusolver-cu12", "11.7.3.90", 3,
     "4376c11ad263152bd50ea295c05370360776f8c3427b30991df774f9fb26c450"},
    {"nvidia-cusparse-cu12", "12.5.8.93", 3,
     "1ec05d76bbbd8b61b06a80e1eaf8cf4959c3d4ce8e711b65ebd0443bb0ebb13b"},
    {"nvidia-cusparselt-cu12", "0.7.1", 3,
     "8878dce784d0fac90131b6817b607e803c36e629ba34dc5b433471382196b6a5"},
    {"nvidia-nccl-cu12", "2.27.3", 2,
     "9ddf1a245abc36c550870f26d537a9b6087fb2e2e3d6e0ef03374c6fd19d984f"},
    {"nvidia-nvjitlink-cu12", "12.8.93", 3,
     "81ff63371a7ebd6e6451970684f916be2eab07321b73c9d244dc2b4da7f73b88"},
    {"nvidia-nvtx-cu12", "12.8.90", 3,
     "5b17e2001cc0d751a5bc2c6ec6d26ad95913324a4adb86788c944f8ce9ba441f"},
    {"setuptools", "84.2.1", 2, "3ff8b3b5492a0aa66960f4419365a86b84e013070d4313e4d4a6894f5d64d6bc"},
    {"sympy", "1.14.0", 2, "d3d3fe8df1e5a0b42f0e7bdf50541697dbe7d23746e894990c030e2b05e72517"},
    {"torch", "2.8.0", 24, "06fcee8000e5c62a9f3e52a688b9c5abb7c6228d0e56e3452983416025c41381"},
    {"triton", "3.4.0", 6, "00be2964616f4c619193cb0d1b29a99bd4b001d7dc333816073f92cf2a8ccdeb"},
    {"typing-extensions", "4.16.0", 2,
     "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8"},
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

/* Each expected pin is there with its version, wheel and sha256; all = nothing else. */
static bool pins_are(const smc_lock *l, const expect *x, size_t n, bool all, const char *what)
{
    bool ok = !all || l->pin_count == n;
    if (!ok) fprintf(stderr, "%s: %zu pins, want %zu\n", what, l->pin_count, n);
    for (size_t i = 0; i < n; i++) {
        const smc_pin *p = pin_of(l, x[i].name);
        char tail[300];
        snprintf(tail, sizeof tail, "/%s", x[i].file);
        if (!p || strcmp(p->version, x[i].version) != 0 || !ends_with(p->url, tail) ||
            strcmp(p->sha256, x[i].sha256) != 0) {
            fprintf(stderr, "%s: want %s %s %s, got %s %s %s\n", what, x[i].name, x[i].version,
                    x[i].file, p ? p->version : "(none)", p && p->url ? p->url : "-",
                    p ? p->sha256 : "");
            ok = false;
        }
    }
    return ok;
}

/* The same set of (name, version, url, sha256). */
static bool same_pins(const smc_lock *a, const smc_lock *b)
{
    if (a->pin_count != b->pin_count) return false;
    for (size_t i = 0; i < a->pin_count; i++) {
        const smc_pin *p = &a->pins[i], *q = pin_of(b, p->name);
        if (!q || strcmp(p->version, q->version) != 0 || !p->url || !q->url ||
            strcmp(p->url, q->url) != 0 || strcmp(p->sha256, q->sha256) != 0)
            return false;
    }
    return true;
}

static void fixtures(const char *dir)
{
    char path[4096];
    size_t len;
    smc_pyenv lin = env_of("manylinux_2_28_x86_64", "3.11"), win = env_of("win_amd64", "3.11"),
              l310 = env_of("manylinux_2_28_x86_64", "3.10"),
              l312 = env_of("manylinux_2_28_x86_64", "3.12");
    smc_lock uv, py, pip, req, x;

    snprintf(path, sizeof path, "%s/locks/uv.lock", dir);
    char *uvtext = read_file(path, &len);
    size_t uvlen = len;
    CHECK(rd_n(path, uvtext, uvlen, &lin, &uv, why, sizeof why));
    CHECK(uv.problem_count == 0 && uv.index_count == 0);
    CHECK(pins_are(&uv, linux311, COUNT(linux311), true, "uv.lock linux 3.11"));
    const smc_pin *t = pin_of(&uv, "torch");
    CHECK(t &&
          strcmp(t->sha256, "c12fa219f51a933d5f80eeb3a7a5d0cbe9168c0a14bbb4055f1979431660879b") ==
              0 &&
          ends_with(t->url, "/torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl") && t->index &&
          strcmp(t->index, "https://pypi.org/simple") == 0 && t->hash_count == 0);
    CHECK(!pin_of(&uv, "i27-demo")); /* the project itself is not a wheel */

    snprintf(path, sizeof path, "%s/locks/pylock.toml", dir);
    char *pytext = read_file(path, &len);
    size_t pylen = len;
    CHECK(rd_n(path, pytext, pylen, &lin, &py, why, sizeof why));
    CHECK(py.problem_count == 0);
    CHECK(pins_are(&py, linux311, COUNT(linux311), true, "pylock.toml linux 3.11"));
    CHECK(same_pins(&uv, &py) && same_pins(&py, &uv));
    smc_lock_free(&uv);
    smc_lock_free(&py);

    /* Windows: the nvidia-* packages and triton are Linux x86_64's; torch is the win_amd64 wheel.
     */
    CHECK(rd_n("uv.lock", uvtext, uvlen, &win, &uv, why, sizeof why));
    CHECK(rd_n("pylock.toml", pytext, pylen, &win, &py, why, sizeof why));
    CHECK(pins_are(&uv, win311, COUNT(win311), true, "uv.lock win 3.11"));
    CHECK(pins_are(&py, win311, COUNT(win311), true, "pylock.toml win 3.11"));
    CHECK(same_pins(&uv, &py));
    bool nvidia = false;
    for (size_t i = 0; i < uv.pin_count; i++)
        nvidia |= strncmp(uv.pins[i].name, "nvidia-", 7) == 0;
    CHECK(!nvidia && !pin_of(&uv, "triton") && uv.problem_count == 0 && py.problem_count == 0);
    smc_lock_free(&uv);
    smc_lock_free(&py);

    /* numpy, filelock, networkx by python_full_version; setuptools (triton's) on all three. */
    CHECK(rd_n("uv.lock", uvtext, uvlen, &l310, &uv, why, sizeof why));
    CHECK(rd_n("pylock.toml", pytext, pylen, &l310, &py, why, sizeof why));
    CHECK(pins_are(&uv, linux310, COUNT(linux310), false, "uv.lock linux 3.10"));
    CHECK(uv.pin_count == 27 && same_pins(&uv, &py));
    smc_lock_free(&uv);
    smc_lock_free(&py);
    CHECK(rd_n("uv.lock", uvtext, uvlen, &l312, &uv, why, sizeof why));
    CHECK(rd_n("pylock.toml", pytext, pylen, &l312, &py, why, sizeof why));
    CHECK(pins_are(&uv, linux312, COUNT(linux312), false, "uv.lock linux 3.12"));
    CHECK(uv.pin_count == 27 && same_pins(&uv, &py));
    smc_lock_free(&uv);
    smc_lock_free(&py);

    /* Python 3.9 is outside requires-python: the whole file is refused. */
    smc_pyenv p39 = env_of("manylinux_2_28_x86_64", "3.9");
    CHECK(!rd_n("uv.lock", uvtext, uvlen, &p39, &x, why, sizeof why) && strstr(why, ">=3.10"));
    CHECK(!rd_n("pylock.toml", pytext, pylen, &p39, &x, why, sizeof why) && strstr(why, ">=3.10"));
    smc_pyenv_free(&p39);
    /* linux aarch64: torch's aarch64 wheel, no nvidia-* (their markers want x86_64). */
    smc_pyenv arm = env_of("manylinux_2_28_aarch64", "3.11");
    CHECK(rd_n("uv.lock", uvtext, uvlen, &arm, &uv, why, sizeof why));
    CHECK(rd_n("pylock.toml", pytext, pylen, &arm, &py, why, sizeof why));
    t = pin_of(&uv, "torch");
    CHECK(t && ends_with(t->url, "/torch-2.8.0-cp311-cp311-manylinux_2_28_aarch64.whl"));
    CHECK(!pin_of(&uv, "nvidia-cublas-cu12") && same_pins(&uv, &py));
    /* bitsandbytes 0.45.5 has no aarch64 wheel: a problem naming it, not the end of reading */
    CHECK(!pin_of(&uv, "bitsandbytes") && has_problem(&uv, "bitsandbytes 0.45.5", "no wheel"));
    smc_lock_free(&uv);
    smc_lock_free(&py);
    smc_pyenv_free(&arm);
    free(uvtext);
    free(pytext);

    /* pip's pylock.toml: one wheel per package in [[packages.wheels]] and
     * [packages.wheels.hashes] tables; the same 27 as uv's for cp311 manylinux_2_28_x86_64. */
    snprintf(path, sizeof path, "%s/locks/pylock.pip.toml", dir);
    char *text = read_file(path, &len);
    CHECK(rd_n(path, text, len, &lin, &pip, why, sizeof why));
    CHECK(pip.pin_count == 27 && pip.problem_count == 0);
    CHECK(pins_are(&pip, linux311, COUNT(linux311), true, "pylock.pip.toml"));
    smc_lock_free(&pip);
    /* its wheels are Linux's: on Windows each is a problem naming the package */
    CHECK(rd_n(path, text, len, &win, &pip, why, sizeof why));
    CHECK(pin_of(&pip, "torch") == NULL &&
          has_problem(&pip, "torch 2.8.0", "no wheel for cp311 win_amd64"));
    CHECK(pin_of(&pip, "filelock") != NULL); /* py3-none-any */
    smc_lock_free(&pip);
    free(text);

    /* A packaged project (a build system: fixtures/locks/packaged), as uv 0.13.9 (`uv lock`,
     * `uv export` to pylock.toml and requirements.txt) and pip 26.3 (`pip lock .`) wrote its
     * locks: each names the project itself as a local directory (editable ".", directory ".",
     * `-e .`). Its one dependency is the pin; the project a note, no problem. */
    static const char *const packaged[] = {"uv.lock", "pylock.toml", "pylock.pip.toml",
                                           "requirements.txt"};
    for (size_t i = 0; i < COUNT(packaged); i++) {
        snprintf(path, sizeof path, "%s/locks/packaged/%s", dir, packaged[i]);
        text = read_file(path, &len);
        bool ok = rd_n(path, text, len, &lin, &x, why, sizeof why);
        const smc_pin *six = ok ? pin_of(&x, "six") : NULL;
        bool project = x.note_count == 1 && strstr(x.notes[0], "local directory") &&
                       (strncmp(x.notes[0], "proj", 4) == 0 || strstr(x.notes[0], "-e ."));
        if (!(ok && x.pin_count == 1 && six && strcmp(six->version, "1.17.0") == 0 &&
              x.problem_count == 0 && project))
            printf("packaged/%s: %s, %zu pins, %zu problems (%s), %zu notes (%s)\n", packaged[i],
                   ok ? "read" : why, x.pin_count, x.problem_count,
                   x.problem_count ? x.problems[0] : "", x.note_count,
                   x.note_count ? x.notes[0] : "");
        CHECK(ok && x.pin_count == 1 && six && x.problem_count == 0 && project);
        smc_lock_free(&x);
        free(text);
    }

    /* A project with two extras that conflict (fixtures/locks/extras, uv 0.13.9: six 1.16.0 for
     * "old", 1.17.0 for "new" and without either): uv's conflict markers on its dependencies
     * say which six each installs, as `uv export --extra` does. */
    snprintf(path, sizeof path, "%s/locks/extras/uv.lock", dir);
    text = read_file(path, &len);
    static const char *const old[] = {"old"}, *const neu[] = {"New"}, *const nope[] = {"nope"};
    struct {
        const char *const *extras;
        const char *six, *left, *problem;
    } ex[] = {{NULL, "1.17.0", "extras new, old install", NULL},
              {old, "1.16.0", "extra new installs", NULL},
              {neu, "1.17.0", "extra old installs", NULL},
              {nope, "1.17.0", "extras new, old install", "--extra nope: the project declares"}};
    for (size_t i = 0; i < COUNT(ex); i++) {
        bool ok =
            rd_x(path, text, len, &lin, ex[i].extras, ex[i].extras ? 1 : 0, &x, why, sizeof why);
        const smc_pin *six = ok ? pin_of(&x, "six") : NULL;
        CHECK(ok && x.pin_count == 1 && six && strcmp(six->version, ex[i].six) == 0);
        CHECK(x.problem_count == (ex[i].problem ? 1u : 0u) &&
              (!ex[i].problem || has_problem(&x, ex[i].problem, NULL)));
        CHECK(x.note_count == 2 && has_note(&x, "proj 0.1.0: what its", ex[i].left) &&
              has_note(&x, "proj 0.1.0", "a local directory"));
        smc_lock_free(&x);
    }
    free(text);
    /* the other kinds name what they install: an extra asked of them is a problem */
    snprintf(path, sizeof path, "%s/locks/packaged/pylock.toml", dir);
    text = read_file(path, &len);
    CHECK(rd_x(path, text, len, &lin, old, 1, &x, why, sizeof why) && pin_of(&x, "six") &&
          has_problem(&x, "--extra old", "only a uv.lock's extras"));
    smc_lock_free(&x);
    free(text);

    /* requirements.txt: pins with their hashes, no url; the index chooses the file. */
    snprintf(path, sizeof path, "%s/locks/requirements.txt", dir);
    text = read_file(path, &len);
    CHECK(rd_n(path, text, len, &lin, &req, why, sizeof why));
    CHECK(req.pin_count == COUNT(req_expect) && req.problem_count == 0 && req.index_count == 0 &&
          !req.index_given);
    for (size_t i = 0; i < COUNT(req_expect); i++) {
        const smc_pin *p = pin_of(&req, req_expect[i].name);
        CHECK(p && strcmp(p->version, req_expect[i].version) == 0 && !p->url && !p->sha256[0] &&
              p->hash_count == req_expect[i].hashes &&
              strcmp(p->hashes[0], req_expect[i].first) == 0);
    }
    t = pin_of(&req, "torch");
    bool has = false;
    for (size_t k = 0; t && k < t->hash_count; k++)
        has |= strcmp(t->hashes[k],
                      "c12fa219f51a933d5f80eeb3a7a5d0cbe9168c0a14bbb4055f1979431660879b") == 0;
    CHECK(t && t->hash_count >= 24 && has);
    smc_lock_free(&req);
    /* no markers in it: Windows gets the same pins */
    CHECK(rd_n(path, text, len, &win, &req, why, sizeof why) && req.pin_count == 27);
    smc_lock_free(&req);
    /* CRLF line ends read the same */
    char *crlf = malloc(2 * len + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') crlf[k++] = '\r';
        crlf[k++] = text[i];
    }
    CHECK(rd_n(path, crlf, k, &lin, &req, why, sizeof why) && req.pin_count == 27);
    t = pin_of(&req, "torch");
    CHECK(t && t->hash_count == 24 && req.problem_count == 0);
    smc_lock_free(&req);
    free(crlf);
    free(text);

    smc_pyenv_free(&lin);
    smc_pyenv_free(&win);
    smc_pyenv_free(&l310);
    smc_pyenv_free(&l312);
}

/* --- uv.lock edge cases ------------------------------------------------------------------------
 */

#define H64(c)                                                                                     \
    c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c  \
        c c c c c c c c c c c c c c c c c
#define HA H64("a")
#define HB H64("b")
#define HC H64("c")

#define UV_HEAD "version = 1\nrequires-python = \">=3.10\"\n\n"
#define REG "source = { registry = \"https://pypi.org/simple\" }\n"
#define WHEEL(n, v)                                                                                \
    "wheels = [{ url = \"https://e.org/" n "-" v "-py3-none-any.whl\", hash = \"sha256:" HA        \
    "\" }]\n"
#define UVPKG(n, v, deps)                                                                          \
    "[[package]]\nname = \"" n "\"\nversion = \"" v "\"\n" REG deps WHEEL(n, v) "\n"

static void uv_cases(void)
{
    smc_pyenv lin = env_of("manylinux_2_28_x86_64", "3.11"),
              l310 = env_of("manylinux_2_28_x86_64", "3.10");
    smc_lock l;

    /* Extras on edges are followed (and an extra's own extras); extras nobody names are not;
     * the dev group is. */
    const char *extras = UV_HEAD
        "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { editable = \".\" }\n"
        "dependencies = [{ name = \"a\", extra = [\"gpu\"] }]\n\n"
        "[package.optional-dependencies]\ncli = [{ name = \"never\" }]\n\n"
        "[package.dev-dependencies]\ndev = [{ name = \"d\" }]\ntest = [{ name = \"never\" "
        "}]\n\n" UVPKG(
            "a", "1.0",
            "dependencies = [{ name = \"b\" }]\n") "[package.optional-dependencies]\n"
                                                   "gpu = [{ name = \"c\", extra = [\"fast\", "
                                                   "\"nosuch\"] }, { name = \"w\", marker = "
                                                   "\"sys_platform == 'win32'\" }]\n"
                                                   "cpu = [{ name = \"never\" }]\n\n" UVPKG(
                                                       "b", "1.0", "")
                                                       UVPKG("c", "1.0",
                                                             "") "[package.optional-dependencies]"
                                                                 "\nfast = [{ name = \"e\" "
                                                                 "}]\n\n" UVPKG("d", "1.0", "")
                                                                     UVPKG("e", "1.0",
                                                                           "") UVPKG("w", "1.0", "")
                                                                         UVPKG("never", "1.0", "");
    CHECK(rd("uv.lock", extras, &lin, &l));
    CHECK(l.pin_count == 5 && pin_of(&l, "a") && pin_of(&l, "b") && pin_of(&l, "c") &&
          pin_of(&l, "d") && pin_of(&l, "e") && !pin_of(&l, "w") && !pin_of(&l, "never") &&
          !pin_of(&l, "proj") && l.problem_count == 0);
    const smc_pin *p = pin_of(&l, "a");
    CHECK(p && strcmp(p->url, "https://e.org/a-1.0-py3-none-any.whl") == 0 &&
          strcmp(p->sha256, HA) == 0 && strcmp(p->index, "https://pypi.org/simple") == 0);
    smc_lock_free(&l);

    /* A package in two versions: the edge's version decides; else resolution-markers; the
     * edge's source picks between two registries. */
    const char *versions = UV_HEAD
        "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
        "dependencies = [\n { name = \"x\", version = \"2.0\", source = { registry = "
        "\"https://pypi.org/simple\" } },\n"
        " { name = \"y\" },\n { name = \"z\", version = \"1.0\", source = { registry = "
        "\"https://other.org/simple\" } },\n]\n\n" UVPKG("x", "1.0", "")
            UVPKG(
                "x", "2.0",
                "") "[[package]]\nname = \"y\"\nversion = \"1.0\"\n" REG
                    "resolution-markers = [\"python_full_version < '3.11'\"]\n" WHEEL(
                        "y", "1.0") "\n"
                                    "[[package]]\nname = \"y\"\nversion = \"2.0\"\n" REG
                                    "resolution-markers = [\"python_full_version >= "
                                    "'3.11'\"]\n" WHEEL("y", "2.0") "\n" UVPKG(
                                        "z", "1.0",
                                        "") "[[package]]\nname = \"z\"\nversion = \"1.0\"\nsource "
                                            "= { registry = \"https://other.org/simple\" }\n"
                                            "wheels = [{ url = "
                                            "\"https://other.org/z-1.0-py3-none-any.whl\", hash = "
                                            "\"sha256:" HB "\" }]\n";
    CHECK(rd("uv.lock", versions, &lin, &l));
    p = pin_of(&l, "x");
    CHECK(l.pin_count == 3 && p && strcmp(p->version, "2.0") == 0 &&
          ends_with(p->url, "/x-2.0-py3-none-any.whl"));
    p = pin_of(&l, "y");
    CHECK(p && strcmp(p->version, "2.0") == 0);
    p = pin_of(&l, "z");
    CHECK(p && strcmp(p->url, "https://other.org/z-1.0-py3-none-any.whl") == 0 &&
          strcmp(p->sha256, HB) == 0 && strcmp(p->index, "https://other.org/simple") == 0);
    CHECK(l.problem_count == 0);
    smc_lock_free(&l);
    CHECK(rd("uv.lock", versions, &l310, &l));
    p = pin_of(&l, "y");
    CHECK(p && strcmp(p->version, "1.0") == 0 && l.pin_count == 3);
    smc_lock_free(&l);

    /* A dependency the lock does not hold: a problem naming both, the rest read. A malformed
     * marker: a problem naming the edge, the edge not followed. */
    const char *missing =
        UV_HEAD "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
                "dependencies = [{ name = \"ghost\" }, { name = \"a\" }, { name = \"b\", marker = "
                "\"python_version >>> '3'\" },"
                " { name = \"x\", version = \"9.9\" }]\n\n" UVPKG("a", "1.0", "")
                    UVPKG("b", "1.0", "") UVPKG("x", "1.0", "");
    CHECK(rd("uv.lock", missing, &lin, &l));
    CHECK(l.pin_count == 1 && pin_of(&l, "a") && has_problem(&l, "ghost", "proj") &&
          has_problem(&l, "b", "python_version >>> '3'") && has_problem(&l, "x", NULL));
    smc_lock_free(&l);

    /* Non-hex and short hashes: a problem naming the package, no pin for it. */
    const char *badhash = UV_HEAD
        "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
        "dependencies = [{ name = \"a\" }, { name = \"b\" }, { name = \"c\" }]\n\n"
        "[[package]]\nname = \"a\"\nversion = \"1.0\"\n" REG
        "wheels = [{ url = \"https://e.org/a-1.0-py3-none-any.whl\", hash = \"sha256:" H64(
            "z") "\" }]\n\n"
                 "[[package]]\nname = \"b\"\nversion = \"1.0\"\n" REG
                 "wheels = [{ url = \"https://e.org/b-1.0-py3-none-any.whl\", hash = "
                 "\"sha256:abc\" }]\n\n"
                 "[[package]]\nname = \"c\"\nversion = \"1.0\"\n" REG
                 "wheels = [{ url = \"https://e.org/c-1.0-py3-none-any.whl\", hash = \"sha256:" H64(
                     "C") "\" }]\n\n";
    CHECK(rd("uv.lock", badhash, &lin, &l));
    p = pin_of(&l, "c");
    CHECK(l.pin_count == 1 && p && strcmp(p->sha256, HC) == 0 && has_problem(&l, "a 1.0", "zzz") &&
          has_problem(&l, "b 1.0", "abc"));
    smc_lock_free(&l);

    /* a hash of another algorithm: nothing to check, no problem */
    const char *sha512 = UV_HEAD
        "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
        "dependencies = [{ name = \"a\" }, { name = \"b\" }]\n\n"
        "[[package]]\nname = \"a\"\nversion = \"1.0\"\nsource = { registry = "
        "\"https://x.org/simple\" }\n"
        "wheels = [{ url = \"https://x.org/a-1.0-py3-none-any.whl\", hash = \"sha512:" HA HA
        "\" }]\n\n"
        "[[package]]\nname = \"b\"\nversion = \"1.0\"\nsource = { registry = "
        "\"https://x.org/simple\" }\n"
        "wheels = [{ url = \"https://x.org/b-1.0-py3-none-any.whl\", hash = \"ash256:" HA "\" }]\n";
    /* (fuzzing found the second: a hash half read into the pin's sha256) */
    CHECK(rd("uv.lock", sha512, &lin, &l) && l.pin_count == 2 && !l.pins[0].sha256[0] &&
          !l.pins[1].sha256[0] && l.problem_count == 0);
    smc_lock_free(&l);

    /* Sources that are not wheels: a problem each, saying what they are. A path wheel beside
     * the lock, by its source path and filename. */
    const char *sources = UV_HEAD
        "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
        "dependencies = [{ name = \"g\" }, { name = \"dir\" }, { name = \"sd\" }, { name = "
        "\"local\" }, { name = \"member\" }]\n\n"
        "[[package]]\nname = \"g\"\nversion = \"1.0\"\nsource = { git = "
        "\"https://github.com/o/g?rev=x#abc\" }\n\n"
        "[[package]]\nname = \"dir\"\nversion = \"1.0\"\nsource = { directory = \"../dir\" }\n\n"
        "[[package]]\nname = \"sd\"\nversion = \"1.0\"\n" REG
        "sdist = { url = \"https://e.org/sd-1.0.tar.gz\", hash = \"sha256:" HA "\" }\n"
        "wheels = [{ url = \"https://e.org/sd-1.0-cp311-cp311-win_amd64.whl\", hash = \"sha256:" HA
        "\" }]\n\n"
        "[[package]]\nname = \"local\"\nversion = \"1.0\"\nsource = { path = "
        "\"dist/local-1.0-py3-none-any.whl\" }\n"
        "wheels = [{ filename = \"local-1.0-py3-none-any.whl\", hash = \"sha256:" HB "\" }]\n\n"
        "[[package]]\nname = \"member\"\nversion = \"0.2\"\nsource = { editable = "
        "\"packages/member\" }\n";
    CHECK(rd("/work/proj/uv.lock", sources, &lin, &l));
    p = pin_of(&l, "local");
    CHECK(l.pin_count == 1 && p &&
          strcmp(p->url, "/work/proj/dist/local-1.0-py3-none-any.whl") == 0 &&
          strcmp(p->sha256, HB) == 0);
    CHECK(has_problem(&l, "g 1.0", "version control") &&
          has_problem(&l, "sd 1.0", "no wheel for cp311 manylinux_2_28_x86_64") &&
          has_problem(&l, "sd 1.0", "source distribution") && l.problem_count == 2);
    /* local directories, the editable member too, are notes: built from source, not judged */
    CHECK(has_note(&l, "dir 1.0", "a local directory") &&
          has_note(&l, "member 0.2", "a local directory") && l.note_count == 2);
    smc_lock_free(&l);

    /* The workspace root (source ".") is the project; another member is installed only when
     * something depends on it. */
    const char *workspace = UV_HEAD
        "[[package]]\nname = \"other\"\nversion = \"0.1.0\"\nsource = { editable = "
        "\"packages/other\" }\n"
        "dependencies = [{ name = \"never\" }]\n\n"
        "[[package]]\nname = \"root\"\nversion = \"0.1.0\"\nsource = { editable = \".\" }\n"
        "dependencies = [{ name = \"a\" }]\n\n" UVPKG("a", "1.0", "") UVPKG("never", "1.0", "");
    CHECK(rd("uv.lock", workspace, &lin, &l) && l.pin_count == 1 && pin_of(&l, "a") &&
          l.problem_count == 0 && l.note_count == 1 && has_note(&l, "root 0.1.0", "local"));
    smc_lock_free(&l);

    /* Fields of the wrong type are skipped (or a problem), never followed as something else. */
    const char *types = UV_HEAD
        "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
        "dependencies = [\"a\", 1, { name = 2 }, { name = \"b\", extra = \"gpu\" }, { name = "
        "\"c\", marker = 1 }, [], { name = \"d\", extra = { gpu = \"x\" } }]\n\n"
        "[package.dev-dependencies]\ndev = { name = \"never\" }\n\n" UVPKG("a", "1.0", "") UVPKG(
            "b", "1.0", "") "[package.optional-dependencies]\ngpu = [{ name = \"never\" }]\n\n"
                            "[[package]]\nname = \"c\"\nversion = \"1.0\"\n" REG
                            "wheels = { url = \"https://e.org/c-1.0-py3-none-any.whl\" }\n\n" UVPKG(
                                "d", "1.0", "dependencies = { name = \"never\" }\n")
                                UVPKG("never", "1.0", "");
    CHECK(rd("uv.lock", types, &lin, &l));
    CHECK(!pin_of(&l, "never") && !pin_of(&l, "a") && pin_of(&l, "b") && pin_of(&l, "d") &&
          !pin_of(&l, "c"));
    smc_lock_free(&l);

    /* No project in it; not a lock at all. */
    CHECK(!rd("uv.lock", UV_HEAD UVPKG("a", "1.0", ""), &lin, &l) && strstr(why, "project"));
    CHECK(!rd("uv.lock", "version = 1\npackage = 3\n", &lin, &l) && strstr(why, "[[package]]"));
    CHECK(!rd("uv.lock", "[tool.poetry]\nname = \"x\"\n", &lin, &l) && strstr(why, "neither"));
    CHECK(!rd("uv.lock", "this is = not = toml", &lin, &l) && strncmp(why, "not TOML", 8) == 0);
    CHECK(!rd("uv.lock", "", &lin, &l));
    /* the same package reached in two versions (markers that overlap): one is read, a problem */
    const char *twice =
        UV_HEAD "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
                "dependencies = [{ name = \"x\", version = \"1.0\" }, { name = \"x\", version = "
                "\"2.0\" }]\n\n" UVPKG("x", "1.0", "") UVPKG("x", "2.0", "");
    CHECK(rd("uv.lock", twice, &lin, &l) && l.pin_count == 1 && has_problem(&l, "x", "2.0"));
    smc_lock_free(&l);
    /* a cycle */
    const char *cycle = UV_HEAD
        "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
        "dependencies = [{ name = \"a\", extra = [\"x\"] }]\n\n" UVPKG(
            "a", "1.0",
            "dependencies = [{ name = \"b\" }]\n") "[package.optional-dependencies]\nx = [{ name = "
                                                   "\"a\", extra = [\"x\"] }, { name = \"proj\" "
                                                   "}]\n\n" UVPKG("b", "1.0",
                                                                  "dependencies = [{ name = \"a\", "
                                                                  "extra = [\"x\"] }, { name = "
                                                                  "\"proj\" }]\n");
    CHECK(rd("uv.lock", cycle, &lin, &l) && l.pin_count == 2 && l.problem_count == 0);
    smc_lock_free(&l);
    /* control characters in names do not break a message's line */
    const char *ctl =
        UV_HEAD "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
                "dependencies = [{ name = \"gh\\nost\\u001b[31m\" }]\n";
    CHECK(rd("uv.lock", ctl, &lin, &l) && l.problem_count == 1 && !strchr(l.problems[0], 0x1b));
    smc_lock_free(&l);

    smc_pyenv_free(&lin);
    smc_pyenv_free(&l310);
}

/* --- pylock.toml edge cases --------------------------------------------------------------------
 */

#define PYHEAD "lock-version = \"1.0\"\ncreated-by = \"test\"\n\n"

static void pylock_cases(void)
{
    smc_pyenv lin = env_of("manylinux_2_28_x86_64", "3.11");
    smc_lock l;
    const smc_pin *p;

    /* environments: none of them this one is the whole file; one of them is fine. */
    const char *envs =
        "lock-version = \"1.0\"\nenvironments = [\"sys_platform == 'win32'\", \"sys_platform == "
        "'darwin'\"]\n\n"
        "[[packages]]\nname = \"a\"\nversion = \"1.0\"\n"
        "wheels = [{ url = \"https://e.org/a-1.0-py3-none-any.whl\", hashes = { sha256 = \"" HA
        "\" } }]\n";
    CHECK(!rd("pylock.toml", envs, &lin, &l) && strstr(why, "environments") &&
          strstr(why, "cp311"));
    const char *envs_ok =
        "lock-version = \"1.0\"\nenvironments = [\"sys_platform == 'win32'\", \"sys_platform == "
        "'linux'\"]\n\n"
        "[[packages]]\nname = \"a\"\nversion = \"1.0\"\n"
        "wheels = [{ url = \"https://e.org/a-1.0-py3-none-any.whl\", hashes = { sha256 = \"" HA
        "\" } }]\n";
    CHECK(rd("pylock.toml", envs_ok, &lin, &l) && l.pin_count == 1);
    smc_lock_free(&l);

    /* A wheel by path is relative to the lock's directory; an absolute one stays. */
    const char *paths = PYHEAD
        "[[packages]]\nname = \"a\"\nversion = \"1.0\"\n"
        "wheels = [{ path = \"wheels/a-1.0-py3-none-any.whl\", hashes = { sha256 = \"" HA
        "\" } }]\n\n"
        "[[packages]]\nname = \"b\"\nversion = \"1.0\"\n"
        "wheels = [{ path = \"/abs/b-1.0-py3-none-any.whl\", hashes = { sha256 = \"" HB "\" } }]\n";
    CHECK(rd("/srv/proj/pylock.toml", paths, &lin, &l) && l.pin_count == 2);
    p = pin_of(&l, "a");
    CHECK(p && strcmp(p->url, "/srv/proj/wheels/a-1.0-py3-none-any.whl") == 0 &&
          strcmp(p->sha256, HA) == 0);
    p = pin_of(&l, "b");
    CHECK(p && strcmp(p->url, "/abs/b-1.0-py3-none-any.whl") == 0);
    smc_lock_free(&l);
    CHECK(rd("pylock.toml", paths, &lin, &l));
    p = pin_of(&l, "a");
    CHECK(p && strcmp(p->url, "wheels/a-1.0-py3-none-any.whl") == 0);
    smc_lock_free(&l);

    /* Markers on packages: malformed is a problem naming the package; the best wheel by pip's
     * tag order; a wheel's name, when given, is its file name; an archive that is a wheel;
     * an sdist only, a vcs: problems saying so. */
    const char *pk = PYHEAD
        "[[packages]]\nname = \"bad\"\nversion = \"1.0\"\nmarker = \"os_name = 'x'\"\n"
        "wheels = [{ url = \"https://e.org/bad-1.0-py3-none-any.whl\", hashes = { sha256 = \"" HA
        "\" } }]\n\n"
        "[[packages]]\nname = \"best\"\nversion = \"1.0\"\nwheels = [\n"
        " { url = \"https://e.org/best-1.0-py3-none-any.whl\", hashes = { sha256 = \"" HA
        "\" } },\n"
        " { url = \"https://e.org/best-1.0-cp311-cp311-manylinux_2_17_x86_64.whl\", hashes = { "
        "sha256 = \"" HB "\" } },\n"
        " { url = \"https://e.org/best-1.0-cp311-cp311-win_amd64.whl\", hashes = { sha256 = \"" HC
        "\" } },\n]\n\n"
        "[[packages]]\nname = \"named\"\nversion = \"2.0\"\n"
        "wheels = [{ name = \"named-2.0-py3-none-any.whl\", url = \"https://e.org/download?id=7\", "
        "hashes = { sha256 = \"" HA "\" } }]\n\n"
        "[[packages]]\nname = \"arch\"\nversion = \"3.0\"\n"
        "archive = { url = \"https://e.org/arch-3.0-py3-none-any.whl\", hashes = { sha256 = \"" HB
        "\" } }\n\n"
        "[[packages]]\nname = \"src\"\nversion = \"1.0\"\nsdist = { url = "
        "\"https://e.org/src-1.0.tar.gz\", hashes = { sha256 = \"" HA "\" } }\n\n"
        "[[packages]]\nname = \"git\"\nvcs = { type = \"git\", url = \"https://github.com/o/git\", "
        "commit-id = \"abc\" }\n\n"
        "[[packages]]\nname = \"nohash\"\nversion = \"1.0\"\nwheels = [{ url = "
        "\"https://e.org/nohash-1.0-py3-none-any.whl\", hashes = { sha512 = \"ff\" } }]\n\n"
        "[[packages]]\nname = \"badhash\"\nversion = \"1.0\"\nwheels = [{ url = "
        "\"https://e.org/badhash-1.0-py3-none-any.whl\", hashes = { sha256 = \"xyz\" } }]\n\n"
        "[[packages]]\nversion = \"1.0\"\n\n"
        "[[packages]]\nname = \"spc\"\nversion = \"1.0\"\nwheels = [{ url = \"https://e.org/a "
        "b/spc-1.0-py3-none-any.whl\" }]\n";
    CHECK(rd("pylock.toml", pk, &lin, &l));
    CHECK(!pin_of(&l, "bad") && has_problem(&l, "bad 1.0", "os_name = 'x'"));
    p = pin_of(&l, "best");
    CHECK(p && ends_with(p->url, "manylinux_2_17_x86_64.whl") && strcmp(p->sha256, HB) == 0);
    p = pin_of(&l, "named");
    CHECK(p && strcmp(p->url, "https://e.org/download?id=7") == 0);
    p = pin_of(&l, "arch");
    CHECK(p && strcmp(p->url, "https://e.org/arch-3.0-py3-none-any.whl") == 0 &&
          strcmp(p->sha256, HB) == 0);
    CHECK(!pin_of(&l, "src") && has_problem(&l, "src 1.0", "source distribution"));
    CHECK(!pin_of(&l, "git") && has_problem(&l, "git", "version control"));
    p = pin_of(&l, "nohash");
    CHECK(p && p->sha256[0] == '\0');
    CHECK(!pin_of(&l, "badhash") && has_problem(&l, "badhash 1.0", "xyz"));
    CHECK(has_problem(&l, "without a name", NULL));
    CHECK(!pin_of(&l, "spc") && has_problem(&l, "spc 1.0", "url"));
    smc_lock_free(&l);

    /* The same package twice for this environment: a problem, the first read. */
    const char *dup =
        PYHEAD "[[packages]]\nname = \"Foo_Bar\"\nversion = \"1.0\"\n"
               "wheels = [{ url = \"https://e.org/foo_bar-1.0-py3-none-any.whl\" }]\n\n"
               "[[packages]]\nname = \"foo.bar\"\nversion = \"2.0\"\n"
               "wheels = [{ url = \"https://e.org/foo_bar-2.0-py3-none-any.whl\" }]\n";
    CHECK(rd("pylock.toml", dup, &lin, &l) && l.pin_count == 1 &&
          strcmp(l.pins[0].version, "1.0") == 0 && has_problem(&l, "foo.bar", "2.0"));
    smc_lock_free(&l);

    /* lock-version 2: refused; packages not an array; not TOML at all. */
    CHECK(!rd("pylock.toml", "lock-version = \"2.0\"\n", &lin, &l) && strstr(why, "2.0"));
    CHECK(!rd("pylock.toml", "lock-version = 1\n", &lin, &l));
    CHECK(!rd("pylock.toml", "lock-version = \"1.0\"\npackages = 5\n", &lin, &l));
    CHECK(rd("pylock.toml", "lock-version = \"1.0\"\n", &lin, &l) && l.pin_count == 0);
    smc_lock_free(&l);
    CHECK(!rd("pylock.toml", "lock-version = \"1.0\"\nrequires-python = \">=3.12\"\n", &lin, &l) &&
          strstr(why, ">=3.12"));
    CHECK(!rd("pylock.toml", "\x01\x02", &lin, &l));

    /* Nesting far deeper than any lock: refused by the TOML reader, no crash. */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 64);
    size_t k = (size_t)sprintf(deep, "lock-version = \"1.0\"\nx = ");
    for (size_t i = 0; i < depth; i++)
        deep[k++] = '[';
    for (size_t i = 0; i < depth; i++)
        deep[k++] = ']';
    deep[k] = '\0';
    CHECK(!rd("pylock.toml", deep, &lin, &l));
    free(deep);

    smc_pyenv_free(&lin);
}

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (b->p && (size_t)w < b->cap - b->n) {
            b->n += (size_t)w;
            return;
        }
        b->cap = b->cap ? 2 * b->cap + (size_t)w : 1u << 20;
        b->p = realloc(b->p, b->cap);
        if (!b->p) exit(2);
    }
}

/* --- requirements.txt edge cases ---------------------------------------------------------------
 */

static void requirements_cases(void)
{
    smc_pyenv lin = env_of("manylinux_2_28_x86_64", "3.11");
    smc_lock l;
    const smc_pin *p;

    const char *txt =
        "# header comment\n"
        "\n"
        "alpha==1.0 \\\n"
        "    --hash=sha256:" HA " \\\n"
        "    --hash=sha256:" H64(
            "B") "\n"
                 "    # via x\n"
                 "beta==2.0  # a comment after the pin\n"
                 "gamma==3.0 \\\n"
                 "    # a comment inside a continuation ends the line (pip)\n"
                 "    --hash=sha256:" HC "\n"
                 "delta==4.0 # a comment that ends in a backslash swallows the next line (pip) \\\n"
                 "epsilon==5.0\n"
                 "zeta==6.0;python_version>=\"3\"\n"
                 "eta == 7.0 ; python_version < \"3\"\n"
                 "theta[one,two]==8.0\n"
                 "iota===1.0-custom\n"
                 "kappa==1.0+cu128 --hash sha256:" HA "\n"
                 "lambda==1.0 --hash=sha256:" H64(
                     "z") " --hash=sha256:" HB "\n"
                          "mu==1.0 --hash=sha512:ffff\n"
                          "foo @ https://e.org/p;v/foo-1.2-py3-none-any.whl --hash=sha256:" HC "\n"
                          "bar @ https://e.org/bar-1.0.tar.gz\n"
                          "baz @ https://e.org/baz-1.0-cp311-cp311-win_amd64.whl\n"
                          "qux @ https://e.org/qux-1.0-py3-none-any.whl ; sys_platform == 'win32'\n"
                          "nu==1.0 ; python_version >>> '3'\n"
                          "xi==1.0 \\\n"
                          "  ; sys_platform == 'linux'\n"
                          "last==9.0 \\";
    CHECK(rd("requirements.txt", txt, &lin, &l));
    p = pin_of(&l, "alpha");
    CHECK(p && strcmp(p->version, "1.0") == 0 && p->hash_count == 2 &&
          strcmp(p->hashes[0], HA) == 0 && strcmp(p->hashes[1], HB) == 0 && !p->url &&
          !p->sha256[0]);
    p = pin_of(&l, "beta");
    CHECK(p && strcmp(p->version, "2.0") == 0 && p->hash_count == 0);
    p = pin_of(&l, "gamma");
    CHECK(p && strcmp(p->version, "3.0") == 0 && p->hash_count == 0);
    CHECK(pin_of(&l, "delta") && !pin_of(&l, "epsilon"));
    p = pin_of(&l, "zeta");
    CHECK(p && strcmp(p->version, "6.0") == 0);
    CHECK(!pin_of(&l, "eta"));
    p = pin_of(&l, "theta");
    CHECK(p && strcmp(p->version, "8.0") == 0);
    p = pin_of(&l, "iota");
    CHECK(p && strcmp(p->version, "1.0-custom") == 0);
    p = pin_of(&l, "kappa");
    CHECK(p && strcmp(p->version, "1.0+cu128") == 0 && p->hash_count == 1);
    p = pin_of(&l, "lambda");
    CHECK(p && p->hash_count == 1 && strcmp(p->hashes[0], HB) == 0 &&
          has_problem(&l, "lambda", "zzzz"));
    p = pin_of(&l, "mu");
    CHECK(p && p->hash_count == 0 && has_problem(&l, "mu", "sha256"));
    p = pin_of(&l, "foo");
    CHECK(p && p->url && strcmp(p->url, "https://e.org/p;v/foo-1.2-py3-none-any.whl") == 0 &&
          strcmp(p->version, "1.2") == 0 && strcmp(p->sha256, HC) == 0);
    CHECK(!pin_of(&l, "bar") && has_problem(&l, "bar", "not a wheel"));
    CHECK(!pin_of(&l, "baz") && has_problem(&l, "baz", "cp311 manylinux_2_28_x86_64"));
    CHECK(!pin_of(&l, "qux"));
    CHECK(!pin_of(&l, "nu") && has_problem(&l, "nu", ">>>"));
    CHECK(pin_of(&l, "xi") && pin_of(&l, "last"));
    /* every line's problem names its line */
    CHECK(has_problem(&l, "line 18: lambda", NULL));
    smc_lock_free(&l);

    /* CRLF, and a lone CR, end lines too */
    CHECK(rd("requirements.txt", "a==1.0 \\\r\n  --hash=sha256:" HA "\r\nb==2.0\r\n\rc==3.0\r",
             &lin, &l));
    p = pin_of(&l, "a");
    CHECK(l.pin_count == 3 && p && p->hash_count == 1 &&
          strcmp(pin_of(&l, "c")->version, "3.0") == 0);
    smc_lock_free(&l);

    /* A UTF-8 byte-order mark (Notepad's) is no part of the first line, as pip reads it */
    CHECK(rd("requirements.txt", "\xef\xbb\xbf" "a==1.0\nb==2.0\n", &lin, &l));
    CHECK(l.pin_count == 2 && l.problem_count == 0 && pin_of(&l, "a") &&
          strcmp(pin_of(&l, "a")->version, "1.0") == 0);
    smc_lock_free(&l);

    /* Options: the index lines; -r and -c of files not there, and -e, are problems or notes
     * naming them (included_files reads files that are there); others are skipped. */
    const char *opts = "--index-url https://first.org/simple\n"
                       "--extra-index-url=https://extra.org/simple\n"
                       "-i https://second.org/simple\n"
                       "--find-links ./wheels\n"
                       "--no-binary :all:\n"
                       "-r other.txt\n"
                       "--requirement=more.txt\n"
                       "-rthird.txt\n"
                       "-c constraints.txt\n"
                       "-e ./local\n"
                       "--editable=git+https://github.com/o/x#egg=x\n"
                       "a==1.0\n";
    CHECK(rd("requirements.txt", opts, &lin, &l));
    CHECK(l.index_given && l.index_count == 2 &&
          strcmp(l.indexes[0], "https://second.org/simple") == 0 &&
          strcmp(l.indexes[1], "https://extra.org/simple") == 0);
    CHECK(has_problem(&l, "line 6", "other.txt") && has_problem(&l, "line 7", "more.txt") &&
          has_problem(&l, "line 8", "third.txt") && has_problem(&l, "line 9", "constraints.txt") &&
          has_note(&l, "line 10: -e ./local", "a local directory") &&
          has_problem(&l, "line 11", "github.com") && l.problem_count == 5 && l.note_count == 1 &&
          l.pin_count == 1);
    smc_lock_free(&l);
    CHECK(rd("requirements.txt", "--extra-index-url https://x.org/simple\na==1\n", &lin, &l) &&
          !l.index_given && l.index_count == 1);
    smc_lock_free(&l);
    CHECK(rd("requirements.txt", "--index-url\na==1\n", &lin, &l) && l.index_count == 0 &&
          has_problem(&l, "line 1", "--index-url"));
    smc_lock_free(&l);

    /* A range, or a bare name, is kept as its specifier set, for the index to resolve. */
    static const struct {
        const char *text, *spec;
    } ranges[] = {
        {"torch>=2.0\n", ">=2.0"},
        {"torch\n", ""},
        {"torch==2.*\n", "==2.*"},
        {"torch==2.0,<3\n", "==2.0,<3"},
        {"torch~=2.0\n", "~=2.0"},
        {"torch!=2.0\n", "!=2.0"},
        {"torch[cuda] >= 2.8 ; python_version >= '3'\n", ">= 2.8"},
    };
    for (size_t i = 0; i < COUNT(ranges); i++) {
        bool read = rd("requirements.txt", ranges[i].text, &lin, &l);
        const smc_pin *pt = read ? pin_of(&l, "torch") : NULL;
        CHECK(read && l.pin_count == 1 && pt && strcmp(pt->version, ranges[i].spec) == 0 &&
              !pt->url);
        if (read) smc_lock_free(&l);
    }
    /* What is not a requirement pip takes refuses the whole file, naming the line. */
    static const struct {
        const char *text, *word;
    } unpinned[] = {
        {"a==1\ntorch ==\n", "line 2"},
        {"torch>=2.0.x\n", "torch"},
        {"torch=2.0\n", "torch"},
        {"torch==2.0 junk\n", "torch"},
        {"torch[cuda\n", "torch"},
        {"torch==not a version\n", "torch"},
        {"torch==2.0.0.dev1.dev2\n", "torch"},
        {"torch @\n", "torch"},
        {"@ https://e.org/x.whl\n", "line 1"},
        {"-\n\n(torch)\n", "line 3"},
    };
    for (size_t i = 0; i < COUNT(unpinned); i++) {
        bool read = rd("requirements.txt", unpinned[i].text, &lin, &l);
        CHECK(!read && strstr(why, "line ") && strstr(why, unpinned[i].word));
        if (read) {
            fprintf(stderr, "accepted: %s", unpinned[i].text);
            smc_lock_free(&l);
        }
    }
    /* a pin with an empty marker: the marker is malformed (a problem), the pin not read */
    CHECK(rd("requirements.txt", "torch==2.0 ;\n", &lin, &l) && l.pin_count == 0 &&
          has_problem(&l, "torch", NULL));
    smc_lock_free(&l);

    /* A NUL byte: not a requirements file. */
    static const char nul[] = "a==1.0\nb==2\0.0\n";
    CHECK(!rd_n("requirements.txt", nul, sizeof nul - 1, &lin, &l, why, sizeof why) &&
          strstr(why, "NUL") && strstr(why, "line 2"));

    /* Very long lines: a comment of 4 MB is skipped; a pin with 2,000 hashes is read; a line of
     * 2 MB refuses the file (bounded memory). */
    size_t big = 4u << 20;
    char *longtext = malloc(big + 200);
    memset(longtext, 'x', big);
    memcpy(longtext, "# ", 2);
    strcpy(longtext + big, "\na==1.0\n");
    CHECK(rd("requirements.txt", longtext, &lin, &l) && l.pin_count == 1);
    smc_lock_free(&l);
    size_t k = (size_t)sprintf(longtext, "a==1.0");
    for (int i = 0; i < 2000; i++) {
        k += (size_t)sprintf(longtext + k, " \\\n  --hash=sha256:%064x", i);
    }
    longtext[k] = '\0';
    CHECK(rd("requirements.txt", longtext, &lin, &l) && l.pin_count == 1 &&
          l.pins[0].hash_count == 2000);
    smc_lock_free(&l);
    memset(longtext, 'a', 2u << 20);
    strcpy(longtext + (2u << 20), "==1.0\n");
    CHECK(!rd("requirements.txt", longtext, &lin, &l) && strstr(why, "line 1"));
    free(longtext);

    /* The same package twice: a problem, the first read; the same pin twice: no problem. */
    CHECK(rd("requirements.txt", "foo_bar==1.0\nFoo.Bar==1.0\nb==1\nB==2\n", &lin, &l) &&
          l.pin_count == 2 && strcmp(pin_of(&l, "b")->version, "1") == 0 &&
          has_problem(&l, "B", "2") && l.problem_count == 1);
    smc_lock_free(&l);
    /* hash-checking mode: once one pin has hashes, pip wants them on all */
    CHECK(rd("requirements.txt", "a==1.0 --hash=sha256:" HA "\nb==2.0\n", &lin, &l) &&
          l.pin_count == 2 && has_problem(&l, "b 2.0", "hash"));
    smc_lock_free(&l);
    /* empty and comment-only files: no pins, no problems */
    CHECK(rd("requirements.txt", "", &lin, &l) && l.pin_count == 0 && l.problem_count == 0);
    smc_lock_free(&l);
    CHECK(rd("requirements.txt", "# nothing\n   \n\t# more\n", &lin, &l) && l.pin_count == 0);
    smc_lock_free(&l);
    /* a bare wheel URL names its package */
    CHECK(rd("requirements.txt", "https://e.org/w/spam-3.1-py3-none-any.whl\n", &lin, &l) &&
          l.pin_count == 1 && strcmp(l.pins[0].name, "spam") == 0 &&
          strcmp(l.pins[0].version, "3.1") == 0);
    smc_lock_free(&l);
    /* a bare wheel path is relative to the working directory (pip, uv), not to the file's;
     * name (==version) is a pin */
    CHECK(rd("/r/requirements.txt", "./w/spam-3.1-py3-none-any.whl\nham (==2.0)\n", &lin, &l) &&
          l.pin_count == 2 && strcmp(l.pins[0].url, "./w/spam-3.1-py3-none-any.whl") == 0 &&
          strcmp(pin_of(&l, "ham")->version, "2.0") == 0);
    smc_lock_free(&l);
    /* a bare URL that is not a wheel has no name to pin: a problem */
    CHECK(rd("requirements.txt", "git+https://github.com/o/x\n", &lin, &l) && l.pin_count == 0 &&
          has_problem(&l, "line 1", "not a wheel"));
    smc_lock_free(&l);
    /* problems stop at 1,000, the last saying so */
    buf many = {0};
    for (int i = 0; i < 3000; i++)
        put(&many, "same==%d.0\n", i);
    CHECK(rd_n("requirements.txt", many.p, many.n, &lin, &l, why, sizeof why) && l.pin_count == 1 &&
          l.problem_count == 1000 && strstr(l.problems[999], "not listed"));
    smc_lock_free(&l);
    free(many.p);
    /* a file: URL is a path */
    CHECK(rd("requirements.txt", "spam @ file:///w/spam-3.1-py3-none-any.whl\n", &lin, &l) &&
          l.pin_count == 1 && strcmp(l.pins[0].url, "/w/spam-3.1-py3-none-any.whl") == 0);
    smc_lock_free(&l);

    smc_pyenv_free(&lin);
}

/* --- hostile sizes, in bounded time ------------------------------------------------------------
 */

static void timed(const char *what, const char *path, const buf *b, const smc_pyenv *e,
                  size_t want_pins, double budget)
{
    smc_lock l;
    double t0 = now();
    bool ok = rd_n(path, b->p, b->n, e, &l, why, sizeof why);
    double dt = now() - t0;
    if (!ok) fprintf(stderr, "%s: %s\n", what, why);
    CHECK(ok && l.pin_count == want_pins);
    if (ok && l.pin_count != want_pins)
        fprintf(stderr, "%s: %zu pins, want %zu; %zu problems, first: %s\n", what, l.pin_count,
                want_pins, l.problem_count, l.problem_count ? l.problems[0] : "");
    CHECK(dt < budget * time_factor());
    printf("%s: %.3f s (%zu bytes)\n", what, dt, b->n);
    if (ok) smc_lock_free(&l);
}

static void hostile(void)
{
    smc_pyenv lin = env_of("manylinux_2_28_x86_64", "3.11");
    enum { N = 20000 };
    buf b = {0};

    /* uv.lock: 20,000 packages in a chain, listed last first (every name looked up). */
    put(&b,
        UV_HEAD "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
                "dependencies = [{ name = \"p0\" }]\n\n");
    for (int i = N - 1; i >= 0; i--) {
        put(&b, "[[package]]\nname = \"p%d\"\nversion = \"1.0\"\n" REG, i);
        if (i + 1 < N) put(&b, "dependencies = [{ name = \"p%d\" }]\n", i + 1);
        put(&b,
            "wheels = [{ url = \"https://e.org/p%d-1.0-py3-none-any.whl\", hash = \"sha256:" HA
            "\" }]\n\n",
            i);
    }
    timed("uv.lock, a chain of 20,000", "uv.lock", &b, &lin, N, 1.0);

    /* The same chain through extras: each package reaches the next by an extra of its own,
     * and each names all of the next one's 10 extras. */
    b.n = 0;
    put(&b,
        UV_HEAD "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
                "dependencies = [{ name = \"p0\", extra = [\"go\"] }]\n\n");
    for (int i = 0; i < N; i++) {
        put(&b, "[[package]]\nname = \"p%d\"\nversion = \"1.0\"\n" REG, i);
        put(&b, "wheels = [{ url = \"https://e.org/p%d-1.0-py3-none-any.whl\" }]\n\n", i);
        put(&b, "[package.optional-dependencies]\n");
        if (i + 1 < N) {
            put(&b, "go = [{ name = \"p%d\", extra = [\"go\"", i + 1);
            for (int x = 0; x < 10; x++)
                put(&b, ", \"e%d\"", x);
            put(&b, "] }]\n");
        }
        for (int x = 0; x < 10; x++)
            put(&b, "e%d = []\n", x);
        put(&b, "\n");
    }
    timed("uv.lock, 20,000 packages of 11 extras, chained by them", "uv.lock", &b, &lin, N, 2.0);

    /* A virtual workspace of 20,000 projects (each a root) of 10 extras, two asked for: 60,000
     * extras and groups installed, which each project's edge to its wheel names in conflict
     * markers (a bisection each, not a pass over all of them); 20,000 notes of extras left out,
     * kept to 1,000. */
    b.n = 0;
    put(&b, UV_HEAD);
    for (int i = 0; i < N; i++) {
        char pn[16];
        int len = snprintf(pn, sizeof pn, "p%d", i);
        put(&b,
            "[[package]]\nname = \"%s\"\nversion = \"1.0\"\nsource = { virtual = \"%s\" }\n"
            "dependencies = [{ name = \"w%d\", marker = \"extra == 'extra-2-zz-e0' or "
            "extra != 'group-%d-%s-nodev' and extra == 'extra-%d-%s-e5'\" }]\n",
            pn, pn, i, len, pn, len, pn);
        put(&b, "[package.optional-dependencies]\n");
        for (int x = 0; x < 10; x++)
            put(&b, "e%d = []\n", x);
        put(&b,
            "\n[[package]]\nname = \"w%d\"\nversion = \"1.0\"\n" REG
            "wheels = [{ url = \"https://e.org/w%d-1.0-py3-none-any.whl\" }]\n\n",
            i, i);
    }
    {
        static const char *const asked[] = {"e0", "E5"};
        smc_lock l;
        double t0 = now();
        bool ok = rd_x("uv.lock", b.p, b.n, &lin, asked, 2, &l, why, sizeof why);
        double dt = now() - t0;
        CHECK(ok && l.pin_count == N && l.problem_count == 0 && l.note_count == 1000);
        CHECK(dt < 2.0 * time_factor());
        printf("uv.lock, 20,000 projects of 10 extras, conflict markers: %.3f s (%zu bytes)\n", dt,
               b.n);
        if (ok) smc_lock_free(&l);
    }

    /* One name in 20,000 versions; 20,000 edges name it with and without a version. */
    b.n = 0;
    put(&b,
        UV_HEAD "[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n"
                "dependencies = [{ name = \"hub\" }]\n\n"
                "[[package]]\nname = \"hub\"\nversion = \"1.0\"\n" REG "dependencies = [\n");
    for (int i = 0; i < N; i++)
        put(&b,
            " { name = \"x\" },\n { name = \"x\", version = \"%d.0\", marker = \"python_version < "
            "'3'\" },\n",
            i);
    put(&b, "]\nwheels = [{ url = \"https://e.org/hub-1.0-py3-none-any.whl\" }]\n\n");
    for (int i = 0; i < N; i++)
        put(&b,
            "[[package]]\nname = \"x\"\nversion = \"%d.0\"\n" REG
            "resolution-markers = [\"%s\"]\nwheels = [{ url = "
            "\"https://e.org/x-%d.0-py3-none-any.whl\" }]\n\n",
            i, i == N - 1 ? "python_full_version >= '3.11'" : "python_full_version < '3.11'", i);
    timed("uv.lock, one name in 20,000 versions", "uv.lock", &b, &lin, 2, 2.0);

    /* pylock.toml with 20,000 packages of 5 wheels each. */
    b.n = 0;
    put(&b, PYHEAD);
    for (int i = 0; i < N; i++) {
        put(&b,
            "[[packages]]\nname = \"p%d\"\nversion = \"1.0\"\nmarker = \"sys_platform == "
            "'linux'\"\nwheels = [\n",
            i);
        static const char *const tags[] = {"cp311-cp311-win_amd64", "cp311-cp311-macosx_11_0_arm64",
                                           "cp311-cp311-manylinux_2_17_x86_64",
                                           "cp311-cp311-manylinux_2_28_aarch64", "py3-none-any"};
        for (int w = 0; w < 5; w++)
            put(&b,
                " { url = \"https://e.org/p%d-1.0-%s.whl\", hashes = { sha256 = \"" HA "\" } },\n",
                i, tags[w]);
        put(&b, "]\n\n");
    }
    timed("pylock.toml, 20,000 packages", "pylock.toml", &b, &lin, N, 3.0);

    /* requirements.txt: 200,000 pins with a hash each, and the same name 200,000 times. */
    b.n = 0;
    for (int i = 0; i < 10 * N; i++)
        put(&b, "p%d==1.0 \\\n    --hash=sha256:" HA "\n    # via x\n", i);
    timed("requirements.txt, 200,000 pins", "requirements.txt", &b, &lin, 10 * N, 2.0);
    b.n = 0;
    for (int i = 0; i < 10 * N; i++)
        put(&b, "same==%d.0\n", i);
    timed("requirements.txt, one name 200,000 times", "requirements.txt", &b, &lin, 1, 2.0);

    free(b.p);
    smc_pyenv_free(&lin);
}

static void named(void)
{
    CHECK(smc_lock_named("uv.lock") && smc_lock_named("/a/b/pylock.toml") &&
          smc_lock_named("pylock.gpu.toml") && smc_lock_named("requirements.txt") &&
          smc_lock_named("requirements-linux.txt") && smc_lock_named("x/deps.lock.txt"));
    CHECK(!smc_lock_named("pyproject.toml") && !smc_lock_named("pylock..toml") &&
          !smc_lock_named("requirements.in") && !smc_lock_named("poetry.lock") &&
          !smc_lock_named("uv.lock.bak") && !smc_lock_named(""));
}

/* --- requirements.txt: -r and -c ------------------------------------------------------------ */

static char tmp[512];
static char made[64][600];
static int made_count;

/* Writes tmp/name (its directory made first when it has one): the file's text. */
static const char *file_at(const char *name, const char *text)
{
    char *path = made[made_count];
    snprintf(path, sizeof made[0], "%s/%s", tmp, name);
    int k = 0;
    while (strcmp(made[k], path) != 0)
        k++;
    if (k == made_count) made_count++; /* else written again */
    path = made[k];
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir(path, 0700);
    *slash = '/';
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

/* Reads tmp/name, written with text first. */
static bool rd_file(const char *name, const char *text, const smc_pyenv *e, smc_lock *l)
{
    return rd(file_at(name, text), text, e, l);
}

static void included_files(void)
{
    smc_pyenv lin = env_of("manylinux_2_28_x86_64", "3.11");
    smc_lock l;
    const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(tmp, sizeof tmp, "%.400s/test_lock.XXXXXX", base);
    CHECK(mkdtemp(tmp) != NULL);

    /* -r: a path relative to the file that names it; its markers evaluated, its pins installed */
    file_at("base/common.txt", "a==1.0\n-r ../more.txt\n");
    file_at("more.txt", "c==3.0; sys_platform == 'win32'\nd==4.0\n");
    CHECK(rd_file("requirements.txt", "-r base/common.txt\nb==2.0\n", &lin, &l) &&
          l.pin_count == 3 && pin_of(&l, "a") && pin_of(&l, "b") && pin_of(&l, "d") &&
          !pin_of(&l, "c") && l.problem_count == 0);
    smc_lock_free(&l);
    /* an included file's problems say where it was included; its --index-url is the file's */
    file_at("sub.txt", "--index-url https://sub.org/simple\ngit+https://github.com/o/x\ne==5\n");
    CHECK(rd_file("requirements.txt", "a==1\n--requirement=sub.txt\n", &lin, &l) &&
          l.pin_count == 2 && l.problem_count == 1 &&
          has_problem(&l, "line 2: --requirement sub.txt: line 2", "not a wheel") &&
          l.index_given && strcmp(l.indexes[0], "https://sub.org/simple") == 0);
    smc_lock_free(&l);
    /* one missing, or on the web: a problem naming it; the rest is read */
    CHECK(rd_file("requirements.txt", "-r gone.txt\n-r https://e.org/r.txt\na==1\n", &lin, &l) &&
          l.pin_count == 1 && l.problem_count == 2 &&
          has_problem(&l, "line 1: -r gone.txt", "No such file") &&
          has_problem(&l, "line 2: -r https://e.org/r.txt", "not fetched"));
    smc_lock_free(&l);
    /* a bad line in an included file refuses the whole, naming both lines */
    file_at("bad.txt", "\n\ntorch foo\n");
    CHECK(!rd_file("requirements.txt", "a==1\n-rbad.txt\n", &lin, &l) &&
          strstr(why, "line 2: -r bad.txt: line 3: 'torch foo'"));
    /* a file that includes itself, directly or through another: pip refuses it too */
    CHECK(!rd_file("requirements.txt", "a==1\n-r requirements.txt\n", &lin, &l) &&
          strstr(why, "line 2: -r requirements.txt: it includes itself"));
    file_at("loop.txt", "b==1\n-r ./requirements.txt\n");
    CHECK(!rd_file("requirements.txt", "-r loop.txt\n", &lin, &l) &&
          strstr(why, "line 1: -r loop.txt: line 2: -r ./requirements.txt: it includes itself"));
    /* a diamond is no loop: the same file twice, its pins once */
    CHECK(rd_file("requirements.txt", "-r more.txt\n-r base/../more.txt\n", &lin, &l) &&
          l.pin_count == 1 && l.problem_count == 0);
    smc_lock_free(&l);
    /* a chain deeper than 16 files */
    for (int i = 0; i < 17; i++) {
        char name[32], text[64];
        snprintf(name, sizeof name, "deep%d.txt", i);
        snprintf(text, sizeof text, "-r deep%d.txt\n", i + 1);
        file_at(name, text);
    }
    file_at("deep17.txt", "a==1\n");
    CHECK(!rd_file("requirements.txt", "-r deep1.txt\n", &lin, &l) && strstr(why, "16 deep"));
    CHECK(rd_file("requirements.txt", "-r deep3.txt\n", &lin, &l) && l.pin_count == 1);
    smc_lock_free(&l);

    /* hostile: a FIFO (or /dev/stdin) would block a read: refused unread; a file that includes
     * another 2,000 times (a tree of includes grows as fast) stops at 1,000 files read */
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/fifo", tmp);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(rd_file("requirements.txt", "-r fifo\n-r /dev/stdin\na==1\n", &lin, &l) &&
          l.pin_count == 1 && has_problem(&l, "line 1: -r fifo", "not a regular file") &&
          has_problem(&l, "line 2: -r /dev/stdin", "not a regular file"));
    smc_lock_free(&l);
    unlink(fifo);
    buf fan = {0};
    for (int i = 0; i < 2000; i++)
        put(&fan, "-r more.txt\n");
    CHECK(!rd_file("requirements.txt", fan.p, &lin, &l) &&
          strstr(why, "line 1001: -r more.txt: more than 1000 requirements files"));
    free(fan.p);

    /* -c: its pins give versions (and hashes) to requirements that have none; it installs
     * nothing of its own; a constraint that excludes a requirement's version is a problem; a -r
     * in a constraints file names requirements again (pip's nested_constraint) */
    file_at("constraints.txt", "torch==2.8.0 --hash=sha256:" HA "\n"
                               "NumPy==1.26.4 --hash=sha256:" HB "\n"
                               "six==1.17.0\n"
                               "unused==1.0\n"
                               "ranged<3\n"
                               "late==9; sys_platform == 'win32'\n"
                               "-r extra.txt\n");
    file_at("extra.txt", "e==5.0 --hash=sha256:" HC "\n");
    CHECK(rd_file("requirements.txt",
                  "torch\nnumpy>=1.20 --hash=sha256:" HC "\nsix==1.16.0 --hash=sha256:" HA
                  "\nold (<1.26) ; python_version < '3'\n-c constraints.txt\n",
                  &lin, &l));
    const smc_pin *p = pin_of(&l, "torch");
    CHECK(l.pin_count == 3 && p && strcmp(p->version, "2.8.0") == 0 && p->hash_count == 1 &&
          strcmp(p->hashes[0], HA) == 0);
    p = pin_of(&l, "numpy"); /* its own hash, not the constraint's */
    CHECK(p && strcmp(p->version, "1.26.4") == 0 && p->hash_count == 1 &&
          strcmp(p->hashes[0], HC) == 0);
    p = pin_of(&l, "e");
    CHECK(p && strcmp(p->version, "5.0") == 0 && !pin_of(&l, "unused") && !pin_of(&l, "six") &&
          l.problem_count == 1 && has_problem(&l, "six 1.16.0", "its constraint pins 1.17.0"));
    smc_lock_free(&l);
    /* a requirement's range that its constraint's pin is outside */
    CHECK(rd_file("requirements.txt", "a==1\nnumpy>=2\n-c constraints.txt\n", &lin, &l) &&
          l.pin_count == 2 && pin_of(&l, "a") && pin_of(&l, "e") &&
          has_problem(&l, "line 2: numpy>=2", "pins 1.26.4"));
    smc_lock_free(&l);
    /* constraints of one name: the same version twice is one; two versions pin nothing */
    file_at("twice.txt", "six==1.0\nSix==1.0.0\nham==1\nham==2\n");
    CHECK(rd_file("requirements.txt", "six\nham==1\na==1\n-c twice.txt\n", &lin, &l) &&
          l.pin_count == 2 && strcmp(pin_of(&l, "six")->version, "1.0") == 0 &&
          l.problem_count == 1 && has_problem(&l, "ham: its constraints pin more than one", NULL));
    smc_lock_free(&l);
    /* a requirement no constraint pins keeps its range (or none), for the index to answer */
    CHECK(rd_file("requirements.txt", "-c constraints.txt\n\nlate\n", &lin, &l) &&
          l.pin_count == 2 && pin_of(&l, "e") && strcmp(pin_of(&l, "late")->version, "") == 0 &&
          !pin_of(&l, "late")->url); /* its constraint is for win32 alone */
    smc_lock_free(&l);
    file_at("sub2.txt", "x>=1, !=1.5\n");
    CHECK(rd_file("requirements.txt", "a==1\n-r sub2.txt\n", &lin, &l) && l.pin_count == 2 &&
          strcmp(pin_of(&l, "x")->version, ">=1, !=1.5") == 0);
    smc_lock_free(&l);
    /* a specifier pip would not take refuses the file, naming its line */
    file_at("sub3.txt", "x>=1.x\n");
    CHECK(!rd_file("requirements.txt", "a==1\n-r sub3.txt\n", &lin, &l) &&
          strstr(why, "line 2: -r sub3.txt: line 1: 'x>=1.x' is not a requirement pip takes"));

    for (int i = made_count - 1; i >= 0; i--)
        unlink(made[i]);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/base", tmp);
    rmdir(dir);
    CHECK(rmdir(tmp) == 0);
    smc_pyenv_free(&lin);
}

/* The one Python a lock fixes (smc_lock_python): by requires-python, or by its wheels' tags. */
static void lock_pythons(void)
{
    static const struct {
        const char *text, *python, *how;
    } cases[] = {
        {"version = 1\nrequires-python = \"==3.11.*\"\n[[package]]\nname = \"a\"\n", "3.11",
         "its requires-python (==3.11.*) admits no other"},
        {"requires-python = '>=3.12,<3.13'\n", "3.12",
         "its requires-python (>=3.12,<3.13) admits no other"},
        {"requires-python = \">=3.12, <3.13\"\n", "3.12",
         "its requires-python (>=3.12, <3.13) admits no other"},
        {"requires-python = \">=3.10\"\n", NULL, NULL},
        {"[tool]\nrequires-python = \"==3.11.*\"\n", NULL, NULL}, /* not at the top */
        {"x @ https://e.org/x-1.0-cp311-cp311-manylinux_2_28_x86_64.whl\n"
         "y==2 ; python_version > '3'\nz @ https://e.org/z-1.0-cp311-cp311-win_amd64.whl\n",
         "3.11", "each of its 2 wheels is built for cp311"},
        {"url = \"https://e.org/x-1.0-cp311-cp311-linux_x86_64.whl\"\n"
         "url = \"https://e.org/x-1.0-cp312-cp312-linux_x86_64.whl\"\n",
         NULL, NULL},
        {"x @ https://e.org/x-1.0-cp311-abi3-linux_x86_64.whl\n", NULL, NULL},
        {"x @ https://e.org/x-1.0-py3-none-any.whl\n", NULL, NULL},
        {"torch==2.8.0\n", NULL, NULL},
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        char py[16], how[200];
        bool got =
            smc_lock_python(cases[i].text, strlen(cases[i].text), py, sizeof py, how, sizeof how);
        CHECK(got == (cases[i].python != NULL) &&
              (!got || (strcmp(py, cases[i].python) == 0 && strcmp(how, cases[i].how) == 0)));
    }
}

int main(int argc, char **argv)
{
    named();
    lock_pythons();
    if (argc > 1) fixtures(argv[1]);
    uv_cases();
    pylock_cases();
    requirements_cases();
    included_files();
    if (!getenv("LOCK_SKIP_HOSTILE")) hostile();
    return check_report();
}
