/* runtime.c: the whole runtime, beyond the code compiled ahead of time: the files that hold no
 * device code but take part when it runs (recognised by name while scanning), the compilers code
 * is compiled with at run time (Triton's ptxas, NVRTC, JAX's ptxas, numba-cuda's NVVM) and the
 * targets each CUDA release of them
 * knows, and the CUDA libraries a library needs (DT_NEEDED) resolved against its input.
 * Facts and sources: docs/compatibility.md 6.4 and 6.5. */
#include "rules.h"

#include <stdlib.h>

/* Names ----------------------------------------------------------------------------------------- */

/* The stems of the CUDA libraries whose DT_NEEDED names are resolved: the toolkit's and the
 * libraries NVIDIA ships beside it. Not libcuda (the driver's, the host's by definition). */
static const char *const cuda_stems[] = {
    "libcudart",   "libcublasLt", "libcublas",     "libcudnn",   "libcufftw", "libcufft",
    "libcurand",   "libcusolverMg", "libcusolver", "libcusparseLt", "libcusparse", "libnccl",
    "libnvrtc",    "libnvJitLink", "libcupti",     "libnvToolsExt", "libcufile", "libnvjpeg",
    "libcutensor", "libnpp",      "libnvshmem",
};

size_t smc_cuda_soname(const uint8_t *p, size_t n)
{
    size_t stem = 0;
    for (size_t i = 0; i < sizeof cuda_stems / sizeof cuda_stems[0] && !stem; i++) {
        size_t k = strlen(cuda_stems[i]);
        if (n > k && memcmp(p, cuda_stems[i], k) == 0) stem = k;
    }
    if (!stem) return 0;
    /* libcudnn_ops_infer.so.8, libcudart-d0da41ae.so.11.0 (a wheel's renamed copy) */
    size_t len = stem;
    while (len < n && len < SMC_SONAME_MAX && p[len] && p[len] > ' ' && p[len] < 127 && p[len] != '/')
        len++;
    if (len >= n || len >= SMC_SONAME_MAX || p[len] != 0) return 0;
    const void *so = memmem(p, len, ".so", 3);
    return so ? len : 0;
}

/* Whether path's file lies right in dir, a folder path ending in '/' ("nvidia/cu13/bin/"). */
static bool in_dir(const char *path, const char *dir)
{
    size_t at = (size_t)(smc_base_name(path) - path), n = strlen(dir);
    return at >= n && memcmp(path + at - n, dir, n) == 0 &&
           (at == n || path[at - n - 1] == '/' || path[at - n - 1] == '!');
}

bool smc_runtime_kind_of(const char *path, smc_runtime_kind *kind)
{
    const char *name = smc_base_name(path);
    if ((strcmp(name, "ptxas") == 0 || strcmp(name, "ptxas-blackwell") == 0) &&
        strstr(path, "triton/")) {
        *kind = SMC_RUNTIME_PTXAS;
        return true;
    }
    /* The nvidia-cuda-nvcc wheels' ptxas: nvidia/cuda_nvcc/bin/ (CUDA 12), nvidia/cu13/bin/ */
    if (strcmp(name, "ptxas") == 0 &&
        (in_dir(path, "nvidia/cuda_nvcc/bin/") || in_dir(path, "nvidia/cu13/bin/"))) {
        *kind = SMC_RUNTIME_PTXAS;
        return true;
    }
    if (strncmp(name, "lib", 3) == 0 && strstr(name, ".so")) {
        *kind = SMC_RUNTIME_SHARED;
        return true;
    }
    return false;
}

/* "Cuda compilation tools, release 12.8, V12.8.93": ptxas --version prints it from its bytes. */
static const char release_key[] = "Cuda compilation tools, release ";
#define RELEASE_KEY (sizeof release_key - 1)

static int release_at(const uint8_t *p, size_t n)
{
    unsigned major = 0, minor = 0;
    size_t i = RELEASE_KEY;
    while (i < n && p[i] >= '0' && p[i] <= '9' && major < 100)
        major = major * 10 + (unsigned)(p[i++] - '0');
    if (i == RELEASE_KEY || i + 1 >= n || p[i] != '.' || p[i + 1] < '0' || p[i + 1] > '9') return 0;
    for (i++; i < n && p[i] >= '0' && p[i] <= '9' && minor < 100;)
        minor = minor * 10 + (unsigned)(p[i++] - '0');
    if (i >= n || p[i] != ',' || major < 7 || major > 99 || minor > 9) return 0;
    return (int)(major * 1000 + minor * 10);
}

int smc_ptxas_release(const uint8_t *p, size_t n, size_t *need)
{
    *need = RELEASE_KEY + 8;
    for (const uint8_t *at = p; (at = memmem(at, n - (size_t)(at - p), release_key, RELEASE_KEY));
         at++) {
        int v = release_at(at, n - (size_t)(at - p));
        if (v) return v;
        if (n - (size_t)(at - p) < *need) return -1; /* cut at the end: the next bytes say */
    }
    return 0;
}

/* What the compilers know ------------------------------------------------------------------------ */

/* The targets a compiler (ptxas, NVRTC) of a CUDA release accepts: sm_XX from `first`, until
 * `last` (0: still), and sm_XXa from `first_a` (0: none). docs/compatibility.md 6.4; measured
 * with each release's ptxas and NVRTC (--gpu-name, --gpu-architecture). */
static const struct target_row {
    unsigned short arch, first, last, first_a;
} targets_known[] = {
    {20, 70, 80, 0},    {21, 70, 80, 0},    {30, 70, 102, 0},   {32, 70, 102, 0},   {35, 70, 118, 0},   {37, 70, 118, 0},
    {50, 70, 129, 0},   {52, 70, 129, 0},   {53, 70, 129, 0},   {60, 80, 129, 0},
    {61, 80, 129, 0},   {62, 80, 129, 0},   {70, 90, 129, 0},   {72, 91, 129, 0},
    {75, 100, 0, 0},    {80, 110, 0, 0},    {86, 111, 0, 0},    {87, 114, 0, 0},
    {88, 130, 0, 0},    {89, 118, 0, 0},    {90, 118, 0, 120},  {100, 128, 0, 128},
    {101, 128, 129, 128}, {103, 129, 0, 129}, {107, 134, 0, 134}, {110, 130, 0, 130},
    {120, 128, 0, 128}, {121, 129, 0, 129},
};

static const struct target_row *target_row(unsigned arch)
{
    for (size_t i = 0; i < sizeof targets_known / sizeof targets_known[0]; i++)
        if (targets_known[i].arch == arch) return &targets_known[i];
    return NULL;
}

static int long_cuda(unsigned short v)
{
    return v / 10 * 1000 + v % 10 * 10;
}

int smc_compiler_knows(int cuda, unsigned arch, bool a)
{
    const struct target_row *r = target_row(arch);
    if (!r || !cuda) return -1;
    int first = long_cuda(a ? r->first_a : r->first);
    if (a && !r->first_a) return 0;
    return cuda >= first && (!r->last || cuda <= long_cuda(r->last));
}

int smc_compiler_first(unsigned arch, bool a)
{
    const struct target_row *r = target_row(arch);
    return !r || (a && !r->first_a) ? 0 : long_cuda(a ? r->first_a : r->first);
}

/* Triton's releases: the CUDA of the ptxas each ships, of its ptxas-blackwell (0: none), and the
 * architectures that one is used for (from `blackwell_from` up). docs/compatibility.md 6.4; read
 * from each wheel's binaries and triton/backends/nvidia/compiler.py (2.3.1 to 3.9.0). */
static const struct triton_row {
    const char *version;
    unsigned short ptxas, blackwell, blackwell_from;
} tritons[] = {
    {"2.3.0", 123, 0, 0},     {"3.0.0", 124, 0, 0},     {"3.3.0", 124, 128, 100},
    {"3.4.0", 128, 0, 0},     {"3.6.0", 128, 129, 100}, {"3.7.0", 128, 131, 100},
    {"3.8.0", 129, 133, 100}, {"3.9.0", 129, 134, 90},
};

/* From which architecture a Triton release uses ptxas-blackwell, when it ships one: 10.0 until
 * 3.8, 9.0 from 3.9. */
static unsigned blackwell_from(const char *version)
{
    return smc_version_cmp(version, "3.9.0") >= 0 ? 90 : 100;
}

/* The target Triton asks ptxas for: sm_<arch>a from 9.0 (3.3 on; before, for 9.0 only). */
static bool triton_a(const char *version, unsigned arch)
{
    return smc_version_cmp(version, "3.3.0") >= 0 ? arch >= 90 : arch == 90;
}

/* The setting that names another binary: TRITON_PTXAS_PATH, and for ptxas-blackwell
 * TRITON_PTXAS_BLACKWELL_PATH from 3.6 (3.3 spelt it TRITON_PTXAS-BLACKWELL_PATH). */
static const char *triton_setting(const char *version, bool blackwell)
{
    if (!blackwell) return "TRITON_PTXAS_PATH";
    return smc_version_cmp(version, "3.6.0") >= 0 ? "TRITON_PTXAS_BLACKWELL_PATH"
                                                   : "TRITON_PTXAS-BLACKWELL_PATH";
}

const char *smc_triton_first(unsigned arch, int *cuda, const char **setting, const char **last)
{
    /* The first release whose ptxas knows it, and the last one, when a newer one does not
     * (CUDA 13's ptxas dropped sm_101). */
    const char *first = NULL;
    *last = NULL;
    *setting = "TRITON_PTXAS_PATH";
    *cuda = 0;
    for (size_t i = 0; i < sizeof tritons / sizeof tritons[0]; i++) {
        const struct triton_row *r = &tritons[i];
        bool bw = r->blackwell && arch >= r->blackwell_from;
        unsigned short v = bw ? r->blackwell : r->ptxas;
        bool knows = smc_compiler_knows(long_cuda(v), arch, triton_a(r->version, arch)) == 1;
        if (knows && !first) {
            first = r->version;
            *cuda = long_cuda(v);
            *setting = triton_setting(r->version, bw);
        } else if (!knows && first && !*last) {
            *last = tritons[i - 1].version;
        }
    }
    if (!first) *cuda = smc_compiler_first(arch, arch >= 90);
    return first;
}

int smc_compiler_last(unsigned arch)
{
    const struct target_row *r = target_row(arch);
    return r && r->last ? long_cuda(r->last) : 0;
}

/* The judge's part -------------------------------------------------------------------------------- */

/* The directory part of a path ("x.whl!nvidia/cudnn/lib/" of its file), as a length. */
static size_t dir_len(const char *path)
{
    return (size_t)(smc_base_name(path) - path);
}

/* "libnvrtc-builtins.so.12.8" beside libnvrtc: its CUDA release; 0 none. */
static int builtins_release(const smc_input *in, const char *nvrtc, char **source)
{
    size_t dl = dir_len(nvrtc);
    static const char key[] = "libnvrtc-builtins.so.";
    for (size_t i = 0; i < in->runtime_count; i++) {
        const char *p = in->runtime[i].path;
        if (dir_len(p) != dl || strncmp(p, nvrtc, dl) != 0) continue;
        const char *name = p + dl;
        unsigned major, minor;
        if (strncmp(name, key, sizeof key - 1) != 0 ||
            sscanf(name + sizeof key - 1, "%u.%u", &major, &minor) != 2 || major > 99 || minor > 9)
            continue;
        *source = smc_asprintf("%s beside it", name);
        return *source ? (int)(major * 1000 + minor * 10) : -1;
    }
    return 0;
}

static bool nvrtc_name(const char *path)
{
    const char *name = smc_base_name(path);
    return strncmp(name, "libnvrtc.so.", 12) == 0 && name[12] >= '1' && name[12] <= '9';
}

/* The libNVVM numba-cuda loads from NVIDIA's wheels (cuda.pathfinder's, and numba-cuda 0.24's own
 * search): nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so (nvidia-cuda-nvcc-cu12), nvidia/cu13/lib/
 * libnvvm.so.4 (nvidia-nvvm, CUDA 13). */
static bool nvvm_name(const char *path)
{
    return strncmp(smc_base_name(path), "libnvvm.so", 10) == 0 &&
           (in_dir(path, "nvidia/cuda_nvcc/nvvm/lib64/") || in_dir(path, "nvidia/cu13/lib/"));
}

/* The CUDA release of distribution d when it is one of NVIDIA's wheels (named by one of the
 * prefixes), which carry the release as their version (nvidia-nvvm 13.4.92: 13.4), and what says
 * so; 0 when it is not, -1 out of memory. */
static int wheel_release(const smc_input *in, size_t d, const char *const *prefixes, char **source)
{
    const smc_distribution *dist = d < in->distribution_count ? &in->distributions[d] : NULL;
    unsigned major, minor;
    if (!dist || !dist->name || !dist->version ||
        sscanf(dist->version, "%u.%u", &major, &minor) != 2 || major >= 100 || minor >= 10)
        return 0;
    for (const char *const *p = prefixes; *p; p++)
        if (strncmp(dist->name, *p, strlen(*p)) == 0) {
            *source = smc_asprintf("%s %s", dist->name, dist->version);
            return *source ? (int)(major * 1000 + minor * 10) : -1;
        }
    return 0;
}

static smc_status add_compiler(smc_compiler **to, size_t *n, smc_compiler c)
{
    smc_compiler *slot = smc_push(to, *n, sizeof *slot);
    if (!slot) {
        free(c.path);
        free(c.cuda_source);
        return SMC_ERR_NOMEM;
    }
    *slot = c;
    ++*n;
    return SMC_OK;
}

smc_status smc_find_compilers(const smc_input *in, smc_compiler **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < in->runtime_count; i++) {
        const smc_runtime_file *f = &in->runtime[i];
        smc_compiler c = {.distribution = f->distribution};
        if (f->kind == SMC_RUNTIME_PTXAS) {
            c.kind = strstr(f->path, "triton/") ? SMC_COMPILER_TRITON : SMC_COMPILER_XLA;
            c.cuda = f->cuda;
            c.blackwell = strcmp(smc_base_name(f->path), "ptxas-blackwell") == 0;
            c.cuda_source = smc_strdup(f->cuda ? "its own text" : "not in its text");
        } else if (nvrtc_name(f->path)) {
            static const char *const nvrtc_wheels[] = {"nvidia-cuda-nvrtc", NULL};
            c.kind = SMC_COMPILER_NVRTC;
            c.cuda = builtins_release(in, f->path, &c.cuda_source);
            if (!c.cuda) c.cuda = wheel_release(in, f->distribution, nvrtc_wheels, &c.cuda_source);
            if (c.cuda < 0) return SMC_ERR_NOMEM;
            if (!c.cuda) c.cuda_source = smc_strdup("no libnvrtc-builtins beside it");
        } else if (nvvm_name(f->path)) {
            /* Its bytes say its release too ("Cuda compilation tools, release 13.4", as ptxas's),
             * but the facts cache records a shared library without it; the wheel's version is
             * the same release (measured on the 12 wheels of tools/nvvm-targets.sh). */
            static const char *const nvvm_wheels[] = {"nvidia-cuda-nvcc", "nvidia-nvvm", NULL};
            c.kind = SMC_COMPILER_NVVM;
            c.cuda = wheel_release(in, f->distribution, nvvm_wheels, &c.cuda_source);
            if (c.cuda < 0) return SMC_ERR_NOMEM;
            if (!c.cuda) c.cuda_source = smc_strdup("not one of NVIDIA's wheels");
        } else {
            continue;
        }
        c.path = smc_strdup(f->path);
        if (!c.path || !c.cuda_source) {
            free(c.path);
            free(c.cuda_source);
            return SMC_ERR_NOMEM;
        }
        smc_status st = add_compiler(out, n, c);
        if (st != SMC_OK) return st;
    }
    return SMC_OK;
}

/* The setting of name in the environment the packages run in, or NULL. */
static const char *setting(const char *const *environment, const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = environment; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=' && (*e)[n + 1]) return *e;
    return NULL;
}

/* What an NVRTC of CUDA cuda is asked for by the packages of in that use it, when every one of
 * them caps the architecture at what that NVRTC knows: torch (aten's jit_utils.cpp,
 * codegenOutputQuery) asks NVRTC 11.0 for at most 8.0 (from 1.7.1) and 11.1 to 11.7 for at most
 * 8.6 (from 1.13, pytorch/pytorch#87611), and a newer GPU gets PTX for that (compute_86) for the
 * driver to compile; NVRTC 11.8 and later it asks for the GPU's own. CuPy asks for the GPU's own
 * (its table caps only at each NVRTC's newest); any other user is not known. 0: no cap (some user
 * asks for the GPU's own, or none is known). */
static unsigned nvrtc_cap(const smc_input *in, int cuda)
{
    unsigned cap = cuda >= 11010 && cuda < 11080 ? 86 : cuda >= 11000 && cuda < 11010 ? 80 : 0;
    bool torch = false;
    for (size_t k = 0; cap && k < in->distribution_count; k++) {
        const smc_distribution *d = &in->distributions[k];
        if (!d->name || !smc_distribution_installed(d)) continue;
        if (strncmp(d->name, "cupy", 4) == 0) return 0;
        if (strcmp(d->name, "torch") != 0) continue;
        const char *from = cap == 86 ? "1.13" : "1.7.1";
        if (!d->version || smc_version_cmp(d->version, from) < 0) return 0;
        torch = true;
    }
    return torch ? cap : 0;
}

/* Whether JAX's GPU backend is installed in in: jaxlib, or a jax CUDA plugin (its ptxas is then
 * the nvidia-cuda-nvcc wheel's, which the plugin names to XLA as its CUDA data dir). */
static bool jax_installed(const smc_input *in)
{
    for (size_t k = 0; k < in->distribution_count; k++) {
        const smc_distribution *d = &in->distributions[k];
        if (d->name && smc_distribution_installed(d) &&
            (strcmp(d->name, "jaxlib") == 0 || strncmp(d->name, "jax-cuda", 8) == 0))
            return true;
    }
    return false;
}

/* Whether a distribution whose name is name (or starts with it, where name ends in '-') is
 * installed in in. */
static bool installed(const smc_input *in, const char *name)
{
    size_t n = strlen(name);
    bool prefix = n && name[n - 1] == '-';
    for (size_t k = 0; k < in->distribution_count; k++) {
        const smc_distribution *d = &in->distributions[k];
        if (d->name && (prefix ? strncmp(d->name, name, n) == 0 : strcmp(d->name, name) == 0) &&
            smc_distribution_installed(d))
            return true;
    }
    return false;
}

/* What numba-cuda asks for on a GPU of arch: the newest target at most arch that its NVRTC knows
 * (numba-cuda's find_closest_arch, over nvrtcGetSupportedArchs: a GPU newer than NVRTC gets PTX
 * of an older target, which the driver compiles); 0 when NVRTC knows none that old
 * (CCSupportError: "GPU compute capability X.Y is not supported"). Without a known NVRTC, arch. */
static unsigned numba_arch(const smc_compiler *compilers, size_t nc, unsigned arch)
{
    int cuda = 0;
    for (size_t i = 0; i < nc && !cuda; i++)
        if (compilers[i].kind == SMC_COMPILER_NVRTC) cuda = compilers[i].cuda;
    if (!cuda) return arch;
    unsigned best = 0;
    for (size_t i = 0; i < sizeof targets_known / sizeof targets_known[0]; i++) {
        unsigned a = targets_known[i].arch;
        if (a <= arch && a > best && smc_compiler_knows(cuda, a, false) == 1) best = a;
    }
    return best;
}

smc_compile smc_compile_for(const smc_input *in, const char *const *environment,
                            const smc_compiler *compilers, size_t nc, size_t d,
                            const smc_target *t)
{
    unsigned arch = t->cc_major * 10 + t->cc_minor;
    smc_compile out = {.compiler = SMC_NONE, .arch = arch};
    const smc_distribution *dist = d < in->distribution_count ? &in->distributions[d] : NULL;
    /* Triton: one binary for each architecture; NVRTC: the first of the distribution's. */
    size_t plain = SMC_NONE, blackwell = SMC_NONE, nvrtc = SMC_NONE, xla = SMC_NONE,
           nvvm = SMC_NONE;
    bool numba = installed(in, "numba-cuda");
    for (size_t i = 0; i < nc; i++) {
        const smc_compiler *c = &compilers[i];
        if (c->distribution != d) continue;
        if (c->kind == SMC_COMPILER_XLA && xla == SMC_NONE && jax_installed(in)) xla = i;
        if (c->kind == SMC_COMPILER_NVVM && nvvm == SMC_NONE && numba) nvvm = i;
        if (c->kind == SMC_COMPILER_NVRTC && nvrtc == SMC_NONE) nvrtc = i;
        if (c->kind == SMC_COMPILER_TRITON && c->blackwell && blackwell == SMC_NONE) blackwell = i;
        if (c->kind == SMC_COMPILER_TRITON && !c->blackwell && plain == SMC_NONE) plain = i;
    }
    if (plain != SMC_NONE || blackwell != SMC_NONE) {
        const char *version = dist && dist->version ? dist->version : "0";
        bool bw = blackwell != SMC_NONE && (plain == SMC_NONE || arch >= blackwell_from(version));
        out.compiler = bw ? blackwell : plain;
        out.a = triton_a(version, arch);
        out.setting = triton_setting(version, bw);
        out.override = setting(environment, out.setting);
    } else if (xla != SMC_NONE) { /* XLA asks for sm_XXa from 9.0, as Triton does */
        out.compiler = xla;
        out.a = arch >= 90;
        /* JAX gives XLA its CUDA data dir: CUDA_ROOT, else the nvcc wheel's (jax/_src/lib's
         * _cuda_path), over what XLA_FLAGS' --xla_gpu_cuda_data_dir says */
        out.setting = "CUDA_ROOT";
        out.override = setting(environment, out.setting);
    } else if (nvvm != SMC_NONE) { /* numba-cuda: PTX for what its NVRTC chose, from NVVM */
        unsigned chosen = numba_arch(compilers, nc, arch);
        out.compiler = nvvm;
        out.ptx = true;
        out.arch = chosen ? chosen : arch;
    } else if ((out.compiler = nvrtc) != SMC_NONE) {
        unsigned cap = nvrtc_cap(in, compilers[nvrtc].cuda);
        out.ptx = cap && arch > cap; /* torch asks for PTX of what NVRTC knows */
        if (out.ptx) out.arch = cap;
        bool own = installed(in, "torch") || installed(in, "cupy-") || !numba; /* cupy-cuda12x */
        unsigned chosen = own ? arch : numba_arch(compilers, nc, arch);
        if (!own && chosen && chosen != arch) { /* numba-cuda alone: the closest it knows */
            out.ptx = true;
            out.arch = chosen;
        }
    }
    if (out.compiler == SMC_NONE) return out;
    out.knows =
        out.override ? 1 : smc_compiler_knows(compilers[out.compiler].cuda, out.arch, out.a);
    return out;
}

/* DT_NEEDED, resolved ----------------------------------------------------------------------------- */

/* "libcudnn.so.9" of "libcudnn.so.9.1.0" or "libcudnn.so.9": the stem and major's end. */
static size_t major_end(const char *name)
{
    const char *so = strstr(name, ".so.");
    if (!so) return strlen(name);
    const char *p = so + 4;
    while (*p >= '0' && *p <= '9')
        p++;
    return (size_t)(p - name);
}

/* Whether a file name provides a soname: the name itself, or a version of it (libcudnn.so.9.1.0
 * for libcudnn.so.9, as ldconfig links it). */
static bool provides(const char *name, const char *soname)
{
    size_t n = strlen(soname);
    return strncmp(name, soname, n) == 0 && (name[n] == 0 || name[n] == '.');
}

/* Same stem, another major: "libcudnn.so.8" for "libcudnn.so.9". */
static bool other_major(const char *name, const char *soname)
{
    const char *so = strstr(soname, ".so.");
    if (!so) return false;
    size_t stem = (size_t)(so - soname) + 4;
    return strncmp(name, soname, stem) == 0 && name[stem] >= '0' && name[stem] <= '9' &&
           !provides(name, soname);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

smc_status smc_names_of(const smc_input *in, smc_names *out)
{
    *out = (smc_names){0};
    if (!in->runtime_count) return SMC_OK;
    if (!(out->v = malloc(in->runtime_count * sizeof *out->v))) return SMC_ERR_NOMEM;
    for (size_t i = 0; i < in->runtime_count; i++)
        if (in->runtime[i].kind == SMC_RUNTIME_SHARED)
            out->v[out->n++] = smc_base_name(in->runtime[i].path);
    qsort(out->v, out->n, sizeof *out->v, by_name);
    return SMC_OK;
}

void smc_names_free(smc_names *names)
{
    free(names->v);
    *names = (smc_names){0};
}

/* The first of the sorted names not below key. */
static size_t lower_bound(const smc_names *names, const char *key)
{
    size_t lo = 0, hi = names->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(names->v[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

smc_status smc_resolve_needed(const smc_names *names, const smc_library *lib, smc_needs *out)
{
    *out = (smc_needs){0};
    for (size_t k = 0; k < lib->needed_count; k++) {
        const char *soname = lib->needed[k];
        /* The names that provide it sort from it on ("libcudnn.so.9", "libcudnn.so.9.1.0"); those
         * of its stem ("libcudnn.so.") together, from the stem on. */
        bool found = false;
        for (size_t i = lower_bound(names, soname); i < names->n && !found; i++) {
            if (strncmp(names->v[i], soname, strlen(soname)) != 0) break;
            found = provides(names->v[i], soname);
        }
        if (found) continue;
        const char *other = NULL, *so = strstr(soname, ".so.");
        if (so) {
            char stem[SMC_SONAME_MAX];
            snprintf(stem, sizeof stem, "%.*s", (int)(so - soname) + 4, soname);
            for (size_t i = lower_bound(names, stem); i < names->n && !other; i++) {
                if (strncmp(names->v[i], stem, strlen(stem)) != 0) break;
                if (other_major(names->v[i], soname)) other = names->v[i];
            }
        }
        if (other && !out->other) { /* another major only: it cannot load, wherever */
            out->soname = soname;
            out->other = other;
            out->other_len = major_end(other);
        } else if (!other) {
            if (!out->missing) out->missing = soname;
            out->missing_count++;
        }
    }
    return SMC_OK;
}

const char *smc_soname_wheel(char *buf, size_t n, const char *soname, unsigned cuda_major)
{
    /* The wheel of each library, and whether its soname's major is the CUDA major (libcublas,
     * libcudart, libnvrtc, libnvJitLink) or its own (libcudnn: the cuDNN major; the others: a
     * library version that says nothing of CUDA). */
    static const struct {
        const char *stem, *wheel;
        int major_is; /* 1 the CUDA major, 2 the wheel's own major, 0 neither */
    } wheels[] = {
        {"libcudart.so.", "nvidia-cuda-runtime", 1}, {"libcublasLt.so.", "nvidia-cublas", 1},
        {"libcublas.so.", "nvidia-cublas", 1},       {"libnvrtc.so.", "nvidia-cuda-nvrtc", 1},
        {"libnvJitLink.so.", "nvidia-nvjitlink", 1}, {"libcudnn", "nvidia-cudnn", 2},
        {"libcufft.so.", "nvidia-cufft", 0},         {"libcurand.so.", "nvidia-curand", 0},
        {"libcusolver.so.", "nvidia-cusolver", 0},   {"libcusparse.so.", "nvidia-cusparse", 0},
        {"libnccl.so.", "nvidia-nccl", 0},           {"libcupti.so.", "nvidia-cuda-cupti", 1},
        {"libnvToolsExt.so.", "nvidia-nvtx", 0},     {"libcufile.so.", "nvidia-cufile", 0},
    };
    buf[0] = '\0';
    const char *so = strstr(soname, ".so.");
    unsigned major = so ? (unsigned)strtoul(so + 4, NULL, 10) : 0;
    for (size_t i = 0; i < sizeof wheels / sizeof wheels[0]; i++) {
        if (strncmp(soname, wheels[i].stem, strlen(wheels[i].stem)) != 0) continue;
        unsigned cuda = wheels[i].major_is == 1 ? major : cuda_major;
        if (cuda < 11 || cuda > 99) return buf; /* CUDA 10's wheels were not on PyPI */
        /* CUDA 13's wheels dropped the suffix (nvidia-cuda-runtime 13.x). */
        char name[64];
        snprintf(name, sizeof name, cuda >= 13 ? "%s" : "%s-cu%u", wheels[i].wheel, cuda);
        if (wheels[i].major_is == 2)
            snprintf(buf, n, "%s %u.x", name, major);
        else if (wheels[i].major_is == 1)
            snprintf(buf, n, "%s %u.x", name, cuda);
        else
            snprintf(buf, n, "%s (CUDA %u's)", name, cuda);
        return buf;
    }
    return buf;
}
