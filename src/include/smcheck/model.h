/* smcheck/model.h: the model, private to libsmcheck, the command and the tests (the public API is
 * include/smcheck.h): what was read of the CUDA device code (cubins, PTX, LTO IR) in ELF files,
 * static archives, raw fat binaries, wheels, images and environments, the request a check makes and
 * its result, and the pipeline's entry points (docs/internals.md says which wing defines each).
 *
 * The library only reads. It never prints and never exits: every call returns an smc_status, and
 * what went wrong with an input is kept in the model (smc_input.errors, smc_library.findings) so
 * that one bad file never stops a scan of many. The model is plain data; printers live apart. */
#ifndef SMCHECK_MODEL_PUBLIC_H
#define SMCHECK_MODEL_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "smcheck/status.h"
#include "smcheck/targets.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMC_VERSION "0.1.0"

/* Kinds of image, with the values of the fatbin entry's kind field (docs/fatbin-format.md §3.1). */
typedef enum smc_image_kind {
    SMC_IMAGE_PTX = 1,
    SMC_IMAGE_CUBIN = 2,
    SMC_IMAGE_LTO = 8,      /* NVVM IR for link-time optimisation: opaque, never loadable */
    SMC_IMAGE_TILEIR = 128, /* Tile IR bytecode (nvFatbinAddTileIR, CUDA 13.1): for the driver's
                             * Tile IR compiler; any other kind is kept with its number */
} smc_image_kind;

/* Whether an image is neither PTX nor a cubin: LTO IR, Tile IR, or a kind smcheck does not know.
 * Such an image is listed, never taken for code a GPU loads as it is. */
static inline bool smc_image_opaque(const smc_image_kind kind)
{
    return kind != SMC_IMAGE_PTX && kind != SMC_IMAGE_CUBIN;
}

typedef enum smc_variant {
    SMC_VARIANT_NONE = 0,
    SMC_VARIANT_A, /* arch-specific: sm_90a runs on 9.0 only */
    SMC_VARIANT_F, /* family-specific: sm_100f runs on the 10.x family members */
} smc_variant;

typedef enum smc_compression {
    SMC_COMPRESS_NONE = 0,
    SMC_COMPRESS_LZ4,  /* raw LZ4 block */
    SMC_COMPRESS_ZSTD, /* one Zstandard frame */
} smc_compression;

/* Judging -------------------------------------------------------------------------------------- */

/* What a container is for one target, best first. The last three take no part in a status. */
typedef enum smc_verdict {
    SMC_VERDICT_NATIVE,      /* a cubin for exactly that compute capability */
    SMC_VERDICT_COMPATIBLE,  /* a cubin the driver will load: same major, lower minor; or 'f' */
    SMC_VERDICT_JIT,         /* no usable cubin; PTX the driver can compile */
    SMC_VERDICT_JIT_BLOCKED, /* PTX for the GPU, but the driver is too old for its ISA */
    SMC_VERDICT_NONE,        /* nothing loadable: "no kernel image is available" */
    SMC_VERDICT_GATED,       /* only 'a'/'f' images for other GPUs: host code dispatches */
    SMC_VERDICT_NO_KERNELS,  /* no kernels: nvlink's device-link module, LTO IR only, empty */
    SMC_VERDICT_RELOCATABLE, /* __nv_relfatbin: -rdc code, not loadable on its own */
    SMC_VERDICT_OTHER_GPUS,  /* no image for the GPU, in a library that runs there: a module for
                              * other GPUs, which the library picks by GPU at run time */
    SMC_VERDICT_COUNT
} smc_verdict;

const char *smc_verdict_str(smc_verdict v);

/* A status for a target, best first (the roll-up rules are smc_judge's, see docs/guide.md). */
typedef enum smc_lib_status {
    SMC_STATUS_OK,      /* every counted container native or compatible */
    SMC_STATUS_JIT,     /* some need the driver to compile PTX */
    SMC_STATUS_PARTIAL, /* it runs, but some of its kernels cannot: the driver cannot load them,
                         * or its build list lacks the GPU and only some modules serve it */
    SMC_STATUS_GATED,   /* a library of only 'a'/'f' code for other GPUs: runs only on those */
    SMC_STATUS_NONE,    /* it has no code for the GPU, or the driver cannot run it */
    SMC_STATUS_NO_CODE, /* an input or distribution without device code: nothing judged */
    /* A distribution that exists to use the GPU, in a build without device code (torch +cpu,
     * onnxruntime): the GPU will not be used. After NO_CODE to keep the numbers the API has
     * published; in the roll-up's order it is worse than gated and better than none. */
    SMC_STATUS_CPU_ONLY,
    /* A compiler the environment uses at run time cannot compile for the GPU (Triton's ptxas,
     * NVRTC): the ahead-of-time code may run, what is compiled at run time (torch.compile,
     * Triton and NVRTC kernels) fails. After CPU_ONLY for the same reason; in the roll-up's
     * order it is worse than partial and better than gated. */
    SMC_STATUS_COMPILER,
} smc_lib_status;

const char *smc_lib_status_str(smc_lib_status s);
/* Whether a status fails a gate (--fail-on): as bad as gate or worse; no device code never; a
 * CPU-only build and a compiler that cannot compile for the GPU at every gate (a caller that
 * allows them reads smc_rollup.allowing). */
bool smc_status_fails(smc_lib_status s, smc_lib_status gate);

/* Why a library has its status for a target: a stable code, with the numbers in smc_judgement
 * that explain it. smc_judgement_reason() turns it into the sentence the reports print. */
typedef enum smc_cause {
    SMC_CAUSE_LOADS,       /* ok: every counted container has a cubin that loads */
    SMC_CAUSE_NOTHING,     /* ok: no container to judge (gated, no kernels, relocatable) */
    SMC_CAUSE_PTX_JIT,     /* jit: some containers rely on PTX */
    SMC_CAUSE_ARCH,        /* partial or none: containers built only for other GPUs */
    SMC_CAUSE_TEGRA,       /* partial or none: a lower-minor cubin on a Jetson GPU */
    SMC_CAUSE_CUBIN_ABI,   /* partial or none: CUDA 13 cubins (ABI 1.8) on an older driver */
    SMC_CAUSE_PTX_ISA,     /* partial or none: PTX newer than the driver compiles */
    SMC_CAUSE_BUILT_NEWER, /* none: built by a newer CUDA major than the driver supports */
    SMC_CAUSE_MAIN_ARCH,   /* none or partial: its main architecture list (main_set, main_example)
                            * lacks the GPU; none when fewer than 1 in 20 of its containers serve
                            * it, partial when more do */
    SMC_CAUSE_FEW,   /* no longer given (issue 29: replaced by main-arch); kept for its number */
    SMC_CAUSE_GATED, /* gated: only 'a'/'f' code for other GPUs */
    SMC_CAUSE_DRIVER_GPU,    /* none: the driver is older than the first CUDA for the GPU */
    SMC_CAUSE_RUNTIME,       /* none: a runtime before CUDA 11.1, newer than the driver: it stops at
                              * start-up (no minor-version compatibility before 11.1) */
    SMC_CAUSE_PLATFORM,      /* none: a binary for another machine (an x86-64 library where
                              * aarch64 ones load): it cannot load at all */
    SMC_CAUSE_NEEDS,         /* none: it needs a CUDA library (DT_NEEDED) that its input has only
                              * in another major, or, in a complete root, not at all */
    SMC_CAUSE_UNSUPPORTED,   /* none: NVIDIA does not support the GPU in this release of its library
                              * (support), whatever code it carries */
    SMC_CAUSE_TILEIR_DRIVER, /* partial or none: Tile IR the driver cannot compile (tileir_cuda) */
    SMC_CAUSE_COUNT
} smc_cause;

/* Stable names of the causes for JSON ("arch", "ptx-isa"). */
const char *smc_cause_str(smc_cause c);

/* What says which CUDA built a library (SMC_CAUSE_BUILT_NEWER). */
typedef enum smc_evidence {
    SMC_EVIDENCE_NONE,
    SMC_EVIDENCE_TKINFO,    /* the ptxas release in its cubins' .note.nv.tkinfo */
    SMC_EVIDENCE_CUBIN_ABI, /* cubins of entry version 1.8 below sm_100 (CUDA 13's format) */
    SMC_EVIDENCE_PTX_ISA,   /* PTX ISA 9.x */
    SMC_EVIDENCE_CUDART,    /* DT_NEEDED libcudart.so.N */
    SMC_EVIDENCE_WHEEL,     /* the distribution says so (Requires-Dist, version.py) */
} smc_evidence;

/* Cautions that do not change a status, as bits of smc_judgement.warnings. */
enum {
    SMC_WARN_THOR = 1,        /* sm_101 images counted on Thor (11.0), per PyTorch only */
    SMC_WARN_NEWER_MINOR = 2, /* built by a newer minor toolkit than the driver (built_cuda) */
    SMC_WARN_ZSTD = 4,        /* Zstandard payloads and a driver older than 12.4 */
    SMC_WARN_LZ4 = 8,         /* LZ4 payloads and a driver older than 12.0 */
    SMC_WARN_TEGRA_SBSA = 16, /* lower-minor cubins counted on Orin with a CUDA 13 driver, as
                               * users report (JetPack 7.2) and NVIDIA does not document */
    SMC_WARN_JIT_LARGE = 32,  /* much PTX to compile at first launch (jit_bytes) */
    SMC_WARN_HOST_LIBRARY = 64, /* an environment's library needs a CUDA library (needs) that
                                 * the environment lacks: it relies on the host's */
};

/* The GPUs NVIDIA documents for a release of one of its libraries (a row of data/support.tsv). */
#define SMC_SUPPORT_MAX 16
typedef struct smc_support {
    unsigned from; /* major*10+minor: from this one on (where the release knows the GPU), or 0:
                    * exactly those of list */
    unsigned list[SMC_SUPPORT_MAX];
    size_t count;
    bool refused;  /* a GPU beyond them is none (the library checks the GPU when it starts),
                    * else its bytes decide */
    char source[320];
} smc_support;

/* A library judged against one target: filled by smc_judge() from the model alone. */
typedef struct smc_judgement {
    smc_lib_status status;
    smc_cause cause;
    size_t containers_by_verdict[SMC_VERDICT_COUNT];
    size_t counted;         /* containers that take part: native to none */
    size_t *failing;        /* indices of the containers judged none or jit-blocked */
    size_t failing_count;
    unsigned isa;           /* PTX ISA, major*10+minor: the newest a jit container relies on,
                             * or the newest the driver cannot compile */
    int tileir_cuda;        /* the CUDA whose driver compiles the Tile IR a jit container relies
                             * on, or (none) the newest the driver is older than; 0: none */
    unsigned built_major;   /* the CUDA major that built it, when its bytes say; else 0 */
    smc_evidence built_by;  /* and what says so */
    int built_cuda;         /* the toolkit that built it (1000*major + 10*minor), 0 unknown */
    smc_evidence built_cuda_by; /* what says that minor: TKINFO, PTX_ISA, WHEEL; NONE when only
                                 * the major is known */
    unsigned warnings;      /* SMC_WARN_ bits */
    unsigned newest_isa;    /* its newest PTX ISA, major*10+minor */
    size_t main_set;        /* SMC_CAUSE_MAIN_ARCH: how many containers share the list, */
    size_t main_example;    /* and one of them */
    /* The GPUs NVIDIA documents for this release of its library (data/support.tsv), when a row
     * knows it; documented: the GPU is one of them (its containers without an image for it are
     * other-gpus wherever one serves it). SMC_CAUSE_UNSUPPORTED: it is not. Freed with the
     * judgement. */
    smc_support *support;
    bool documented;
    size_t used_by;         /* unused because a package calls it only where NVIDIA supports it
                             * (data/uses.tsv): that distribution (index into the input's); else
                             * SMC_NONE */
    int gpu_cuda;           /* SMC_CAUSE_DRIVER_GPU: the first CUDA for the GPU's architecture */
    bool unused;            /* fails nothing: one of alternatives that is not the one loaded, or a
                             * library its package uses only where it runs (used_by) */
    int runtime_cuda;       /* SMC_CAUSE_RUNTIME: the runtime's CUDA version (10020) */
    const char *platform;   /* SMC_CAUSE_PLATFORM: where it must load ("linux-aarch64") */
    const char *needs;      /* SMC_CAUSE_NEEDS: the library it cannot load ("libcudnn.so.9"), */
    const char *needs_other; /* and the one of another major its input has ("libcudnn.so.8"),
                              * or NULL when it has none; */
    size_t needs_more;       /* how many more CUDA libraries it needs are not there at all */
    /* What the driver compiles at first launch on this GPU (jit and partial): the containers
     * that run only through PTX, and the bytes of the PTX each would compile (the newest ISA
     * the driver takes, one image a container), decompressed. */
    size_t jit_containers;
    uint64_t jit_bytes;
} smc_judgement;

/* One entry of a container. Offsets count from the start of the library's bytes (for an archive
 * member, from the start of the member). */
typedef struct smc_image {
    smc_image_kind kind;
    smc_variant variant;
    smc_compression compression;
    unsigned arch; /* SM number: 90 for sm_90a, 120 for compute_120 */
    unsigned
        version_major; /* PTX: PTX ISA version; cubin: entry version, 1.7 (ABI v1) or 1.8 (v2) */
    unsigned version_minor;
    uint64_t offset;      /* of the entry header */
    uint64_t header_size; /* the payload starts at offset + header_size */
    uint64_t stored_size; /* payload bytes as stored (compressed size when compressed) */
    uint64_t size;        /* payload bytes once decompressed */
    uint64_t flags;       /* the entry's raw flags */
    /* Read from the payload when smc_options.read.inspect asks (0 when not known): */
    unsigned release;          /* cubin: the CUDA release of its ptxas (12080), .note.nv.tkinfo */
    unsigned text_arch;        /* PTX: the SM of its .target line (90 for ".target sm_90a") */
    smc_variant text_variant;  /* and its variant */
    unsigned text_isa;         /* PTX: its .version line, major*10+minor */
} smc_image;

/* Longest token smc_image_token() writes, NUL included ("kind65535_4294967295f"). */
#define SMC_TOKEN_MAX 24

/* Writes the image's token ("sm_90a", "compute_120", "lto_90", "tileir_80", "kind64_80" for a
 * kind smcheck does not know) to buf and returns buf. */
const char *smc_image_token(const smc_image *img, char buf[SMC_TOKEN_MAX]);
const char *smc_image_kind_str(smc_image_kind kind);
const char *smc_compression_str(smc_compression c);

/* One fat binary container (normally one per translation unit), or a bare cubin file. */
typedef struct smc_container {
    uint64_t offset;     /* of the container header */
    uint64_t size;       /* header and entries */
    char *section;       /* the ELF section it was found in; NULL for a raw fatbin or bare cubin */
    char *member;        /* the archive member it came from ("a.o"); NULL when none */
    bool relocatable;    /* found in __nv_relfatbin: -rdc code, not loadable as it is */
    bool bare_cubin;     /* the library is itself a cubin, not a fat binary */
    size_t first_image;  /* its images are library.images[first_image .. first_image+image_count) */
    size_t image_count;
    /* With smc_options.read.inspect: 1 when a cubin of it holds a kernel (a .text.* section), 0
     * when every cubin was read and none does, -1 when not known: a cubin not read counts as one, and
     * the cubins of a container with PTX are read only for kernel_names. */
    int kernels;
    char *kernel_names; /* the kernels of its first cubin that has any, or NULL */
} smc_container;

#define SMC_NO_OFFSET UINT64_MAX

/* Something wrong inside a library: it is reported, and the rest of the library still is. */
typedef struct smc_finding {
    uint64_t offset; /* where, from the start of the library; SMC_NO_OFFSET when nowhere */
    char *message;
} smc_finding;

/* A library's part in its distribution, from its path: vendored (auditwheel's *.libs/, or a
 * library another project makes, such as libcusparseLt in torch/lib), one of alternatives of which
 * one is loaded at run time (libbitsandbytes_cuda118.so ... _cuda128.so), or its own code. */
typedef enum smc_role {
    SMC_ROLE_MAIN,
    SMC_ROLE_VENDORED,
    SMC_ROLE_ALTERNATIVE,
    SMC_ROLE_ON_DEMAND, /* loaded at the first call of one feature (data/uses.tsv): what it cannot
                         * run makes its distribution partial (torch's libtorch_cuda_linalg.so) */
    SMC_ROLE_STORE,     /* one of a store of loose cubin files, of which its package's loader
                         * takes the one for the GPU (flashinfer-cubin's 10,560) */
} smc_role;

/* Stable names of the roles for JSON and SARIF ("main", "on-demand"). */
const char *smc_role_str(smc_role r);

/* What a gate may be told to let pass (--fail-on LEVEL,allow-...), as bits: the index into
 * smc_rollup.allowing. */
enum { SMC_ALLOW_CPU_ONLY = 1, SMC_ALLOW_COMPILER = 2 };

/* How a distribution or an input comes to its status for one target. */
typedef struct smc_rollup {
    smc_lib_status status;
    size_t library;  /* the library that decides it (index into the input's), or SMC_NONE */
    bool vendored;   /* that library is vendored: what it cannot do makes it partial */
    bool on_demand;  /* that library is loaded at the first call of one feature (SMC_ROLE_
                      * ON_DEMAND): what it cannot do makes it partial */
    size_t store_files;   /* its store of loose cubins (SMC_ROLE_STORE): how many files, */
    size_t store_serving; /* how many of them serve the GPU, */
    smc_lib_status store; /* and its status: the best of its files', gated where none serves */
    bool all_gated;  /* every library with device code is gated for the GPU */
    size_t serving;  /* alternatives: how many of the choice serve the GPU, */
    size_t choices;  /* of how many */
    bool chosen;     /* the alternative was chosen by the installed torch's CUDA (nearest:
                      * the loader's nearest of its major, as none is for that CUDA): */
    bool nearest;
    size_t torch;    /* that torch (index into the input's distributions), or SMC_NONE */
    size_t torches;  /* torches installed in the input: with several, the one beside the
                      * distribution (in its site-packages) chooses, and none when none is */
    int requires;    /* an image's: the CUDA its NVIDIA_REQUIRE_CUDA asks for, newer than the
                      * driver: none whatever its libraries say; else 0 */
    int compat;      /* an image's: the CUDA of its forward-compatibility package, by which it
                      * runs on this GPU (a compat target) with an older driver; else 0 */
    const char *cpu_only; /* SMC_STATUS_CPU_ONLY: what says the build is CPU-only (the
                           * distribution's cpu_only), else NULL */
    bool machine_choice;  /* the loader chose one alternative for every GPU of the machine, by
                           * another GPU than this one (chooser_cc) */
    unsigned chooser_cc;  /* the compute capability the loader chose by (major*10+minor), 0 */
    bool twin_missing;    /* its loader wants the _nocublaslt set (chooser_cc), which it lacks */
    unsigned missing_cuda; /* its loader asks for the alternative of this CUDA (as the _cudaNNN
                            * digits: 130), named by the installed torch (torch) or override,
                            * and it ships none: nothing is loaded; else 0. missing: one of the
                            * alternatives it ships (index into the input's libraries) */
    size_t missing;
    const char *override; /* the environment setting that named the alternative's CUDA instead
                           * of torch ("BNB_CUDA_VERSION=122"), or NULL */
    size_t compiler;      /* SMC_STATUS_COMPILER, or a distribution that is a compiler: the one
                           * used for this GPU (index into the input's compilers), else SMC_NONE; */
    unsigned compile_arch; /* the target it is asked for: sm_<arch>, */
    bool compile_a;        /* with 'a' (Triton asks for sm_90a and up); */
    bool compile_ptx;      /* or compute_<arch>: NVRTC's users cap what they ask for (torch);
                            * whether the compiler knows it: 1, 0, -1 not known (a release or
                            * GPU the tables lack), */
    int compile_knows;
    const char *compile_override; /* or the setting that names another compiler ("TRITON_PTXAS_
                                   * PATH=..."): not read, taken to know it */
    /* An input's: its status with what each set of SMC_ALLOW_ bits allows left out (--fail-on
     * allow-cpu-only, allow-compiler). allowing[0] is status. */
    smc_lib_status allowing[4];
} smc_rollup;

/* An ELF file (or static archive, raw fatbin, bare cubin) that holds device code. A static
 * archive is one library, as it will be once linked: its containers name their member. */
typedef struct smc_library {
    char *path; /* nested inside wheels: "x.whl!pkg/libx.so" */
    smc_container *containers;
    size_t container_count;
    smc_image *images;
    size_t image_count;
    smc_finding *findings;   /* the first SMC_FINDINGS_KEPT */
    size_t finding_count;
    size_t findings_more;    /* past those: counted, not kept */
    unsigned cudart_major;     /* N of a DT_NEEDED libcudart.so.N (a DLL: cudart64_N.dll); 0
                                * when none */
    unsigned cudart_minor;     /* M of libcudart.so.N.M (CUDA 10 and before name their minor;
                                * cudart64_101.dll too); 0 when not named */
    bool windows;              /* a Windows DLL (PE), not an ELF file */
    bool links_torch;          /* DT_NEEDED libc10.so or libc10_cuda.so: built against PyTorch
                                * (torch itself, or an extension that TORCH_CUDA_ARCH_LIST builds) */
    char **needed;             /* the CUDA libraries its DT_NEEDED names ("libcublasLt.so.12",
                                * "libcudnn.so.9"), in its order; an ELF file's only */
    size_t needed_count;
    unsigned machine;          /* the host ELF's e_machine (62 x86-64, 183 AArch64); 0 none */
    unsigned release;          /* the newest cubin release read (see smc_image.release); 0 none */
    uint64_t file_size;        /* of the file (or wheel member) it came from */
    size_t distribution; /* index into its input's distributions; SMC_NONE when none claims it */
    char **links;        /* the same file at other paths of its input (hard links, bind mounts):
                          * read once, reported here */
    char *layer;         /* in a container image: the layer it comes from ("blobs/sha256/..."),
                          * else NULL */
    size_t link_count;
} smc_library;

#define SMC_NONE SIZE_MAX

/* A Python distribution: a wheel, or one installed in an environment. */
typedef struct smc_distribution {
    char *name, *version;
    char *local_version; /* "cu128" of "2.7.0+cu128"; NULL when none */
    char *source;        /* "wheel", "dist-info", "egg-info", "conda" */
    char *location;      /* the wheel, or its metadata in the environment */
    char *tag;           /* a wheel's tags ("cp312-cp312-manylinux_2_28_x86_64"), else NULL */
    char *platform;      /* a wheel's platform tag ("manylinux_2_28_x86_64", "win_amd64", "any") */
    char *cuda;          /* the CUDA runtime it was built for ("12.8", "13"), NULL when unknown */
    char *cuda_source;   /* what says so */
    char *cpu_build;     /* what the package says of itself that makes it a CPU-only build
                          * ("torch/version.py: cuda = None"); NULL when it says nothing so */
    size_t *libraries;   /* indices into its input's libraries */
    size_t library_count;
    /* A wheel's *.dist-info/variant.json (wheel variants, PEP 825 draft): its label and the
     * properties it claims, "nvidia :: sm_arch :: 90_real"; NULL and 0 when it has none. */
    char *variant_label;
    char **variant_claims;
    size_t variant_claim_count;
    /* Installed beside another build of the same package that installs the same files
     * (onnxruntime and onnxruntime-gpu, data/cpu-builds.tsv): the other's name when the files
     * are the other's (it was installed after), and what says so; NULL when not so. */
    char *shadowed_by;
    char *shadow_evidence;
} smc_distribution;

/* A file without device code that takes part when the code runs, found by its name. */
typedef enum smc_runtime_kind {
    SMC_RUNTIME_SHARED, /* a shared library (lib*.so*), which a loader finds by that name */
    SMC_RUNTIME_PTXAS,  /* a ptxas binary (Triton's bin/ptxas and ptxas-blackwell) */
} smc_runtime_kind;

typedef struct smc_runtime_file {
    char *path;
    smc_runtime_kind kind;
    int cuda;            /* a ptxas's release in its own text ("release 12.8"): 12080; else 0 */
    size_t distribution; /* index into its input's distributions; SMC_NONE when none claims it */
} smc_runtime_file;

typedef enum smc_compiler_kind {
    SMC_COMPILER_TRITON, /* Triton's ptxas: torch.compile and Triton kernels */
    SMC_COMPILER_NVRTC,  /* libnvrtc: CuPy's and PyTorch's run-time kernels, and more */
    SMC_COMPILER_XLA,    /* the ptxas of an nvidia-cuda-nvcc wheel, which XLA (JAX) compiles its
                          * kernels with at the first jit, where jaxlib is installed */
    SMC_COMPILER_NVVM,   /* the libNVVM of an nvidia-cuda-nvcc-cu12 or nvidia-nvvm wheel, which
                          * numba-cuda compiles its kernels with, where numba-cuda is installed */
} smc_compiler_kind;

/* A compiler that code is compiled with at run time, found by the judge among the runtime files:
 * for each target, whether it can compile for it is in its distribution's (or the input's)
 * roll-up (SMC_STATUS_COMPILER). */
typedef struct smc_compiler {
    smc_compiler_kind kind;
    char *path;          /* Triton's ptxas or ptxas-blackwell; libnvrtc.so.N; libnvvm.so.N */
    int cuda;            /* its CUDA release (12080); 0 when not known */
    char *cuda_source;   /* what says so ("its own text", "libnvrtc-builtins.so.12.8 beside it") */
    bool blackwell;      /* Triton's ptxas-blackwell */
    size_t distribution; /* whose it is (Triton's, nvidia-cuda-nvrtc-cu12's), or SMC_NONE */
} smc_compiler;

const char *smc_compiler_kind_str(smc_compiler_kind k);

/* A file or directory that could not be read at all. */
typedef struct smc_error {
    char *path;
    char *message;
} smc_error;

typedef enum smc_input_kind {
    SMC_INPUT_FILE,
    SMC_INPUT_DIRECTORY,
    SMC_INPUT_WHEEL,       /* a zip archive; a wheel when it holds *.dist-info */
    SMC_INPUT_ENVIRONMENT, /* a directory where Python distributions are installed */
    SMC_INPUT_IMAGE,       /* a container image: an OCI layout, an oci-archive, a docker save */
} smc_input_kind;

const char *smc_input_kind_str(smc_input_kind kind);

/* Whether a distribution is installed (a dist-info, an egg-info, a conda-meta record), not a
 * package file (a wheel, a conda package) that nothing has installed yet. */
bool smc_distribution_installed(const smc_distribution *d);

/* The result of scanning one path given by the user. */
typedef struct smc_input {
    char *path;
    smc_input_kind kind;
    uint64_t files;         /* regular files looked at */
    smc_library *libraries; /* in path order */
    size_t library_count;
    smc_error *errors; /* the first SMC_ERRORS_KEPT */
    size_t error_count;
    size_t errors_more; /* past those: counted, not kept */
    smc_distribution *distributions;
    size_t distribution_count;
    char **notes; /* what was left aside on purpose, and what an image says of itself: the
                   * first SMC_ERRORS_KEPT */
    size_t note_count;
    size_t notes_more;
    /* A container image's config: NVIDIA_REQUIRE_CUDA ("cuda>=12.8 brand=tesla,...") and the
     * CUDA version it asks for (1000*major + 10*minor), which the judge holds against the
     * driver; NULL and 0 when none. */
    char *require_cuda;
    int require_cuda_version;
    /* An image's CUDA forward-compatibility package (/usr/local/cuda-X.Y/compat/libcuda.so*):
     * its CUDA version, 0 none. On a target of the table's tag compat the judge takes it as the
     * driver when it is newer than the driver. */
    int compat_cuda;
    /* Whether the facts the judge needs were read from the payloads (smc_options.read.inspect):
     * the judge refuses a model without them (an assertion, in debug builds). */
    bool inspected;
    bool root; /* a complete root filesystem (an image, a directory with etc/ and usr/): a CUDA
                * library it lacks, nothing provides */
    /* The files that hold no device code but take part at run time (every shared library by
     * name, Triton's ptxas binaries). */
    smc_runtime_file *runtime;
    size_t runtime_count;
} smc_input;

/* What one library or input keeps of its findings, errors and notes: the output stays small
 * whatever an input holds, and the count of the rest is reported. */
#define SMC_FINDINGS_KEPT 100
#define SMC_ERRORS_KEPT 1000

/* How a scan reads, by concern: what is read of the bytes, how directories and images are
 * walked, the limits on what an input can make smcheck do, the network, the indexes requirements
 * and locks are resolved on, the facts cache, and what a scan does to the process. */

typedef struct smc_read_options {
    /* Decompress every image and check it against its header: a cubin must be an EM_CUDA ELF for
     * the same SM, PTX must name the same .version and .target. Mismatches become findings. */
    bool verify;
    /* Read what judging needs from the payloads: whether cubins hold kernels (and their names),
     * the toolkit release in cubins, the .version and .target lines of PTX (see targets below).
     * Judging itself reads no bytes (smc_judge). */
    bool inspect;
    /* Also name the kernels of every container (reads a cubin of each: --detail). */
    bool kernel_names;
    /* With inspect, the targets the model is for and the driver (a CUDA version, 0 unknown):
     * payloads are read only where what they say can change a verdict for one of them (and a
     * small cubin of each container for its ptxas release, whatever the targets). NULL: for
     * every target. */
    const smc_target *targets;
    size_t target_count;
    int driver_cuda;
} smc_read_options;

typedef struct smc_walk_options {
    /* Walking directories: stay on the filesystem of the directory named (--one-file-system),
     * and leave out what matches one of these fnmatch(3) patterns (--exclude): a pattern with a
     * '/' is matched against the whole path as reported, one without against each name. A root
     * filesystem (a directory with etc/, usr/ and proc/ or sys/) is walked without its proc,
     * sys, dev and run. Each is said in a note of the input. */
    bool one_file_system;
    const char *const *excludes;
    size_t exclude_count;
    /* A container image's platform to read from a multi-platform index ("linux/arm64",
     * "linux-aarch64"); NULL: this machine's. */
    const char *image_platform;
} smc_walk_options;

typedef struct smc_limits {
    /* Bytes one wheel member may inflate to, and one input altogether (0: the defaults, 16 GiB
     * and 256 GiB): a cap on what a hostile archive can make smcheck do. */
    uint64_t max_member_bytes, max_input_bytes;
    /* Other limits on what an input can make smcheck do (0: the defaults in brackets): containers
     * [200,000] and images [1,000,000] in one file (the largest real library, cuFFT 12, has
     * 23,984 containers and as many images), members in one archive [1,000,000], directory depth
     * [256], path length [4096], files walked in one input [10,000,000]. */
    uint64_t max_containers, max_images, max_members, max_depth, max_path, max_files;
} smc_limits;

typedef struct smc_net_options {
    /* Reading URLs: the seconds a connection may take to open and a transfer may stall (0: 30),
     * and the bytes a second a transfer must keep over that many seconds (0: 1024). */
    unsigned timeout;
    uint64_t speed_limit;
    /* Every read over HTTP(S) fails, saying so (URLs, requirements, the indexes locks are
     * resolved on): smcheck_session_allow's network. */
    bool off;
} smc_net_options;

typedef struct smc_index_options {
    /* Requirements (torch==2.8.0) and lock files: the index (NULL: PIP_INDEX_URL, UV_INDEX_URL,
     * UV_DEFAULT_INDEX, else PyPI), the extra ones (none: PIP_EXTRA_INDEX_URL,
     * UV_EXTRA_INDEX_URL, UV_INDEX), and the Python the wheels are for ("3.11"; NULL: 3.12),
     * on the platform walk.image_platform names (NULL: this machine's). */
    const char *index_url;
    const char *const *extra_index_urls;
    size_t extra_index_count;
    const char *python_version;
    /* A wheel platform tag the wheels are chosen for ("manylinux_2_17_x86_64", "win_amd64"), when
     * --platform named one; NULL: by walk.image_platform. */
    const char *wheel_platform;
    /* A uv.lock's project extras to install, as uv sync --extra NAME (none: none). */
    const char *const *lock_extras;
    size_t lock_extra_count;
} smc_index_options;

typedef struct smc_cache_options {
    /* The facts of wheels read over the network whose sha256 is known are kept in dir (NULL:
     * none; smc_check fills in $XDG_CACHE_HOME/smcheck), trimmed to cap bytes (0: 1 GiB); off
     * neither reads nor writes it. */
    const char *dir;
    uint64_t cap;
    bool off;
    /* A store of facts (an audit's --output served over HTTP): a wheel whose sha256 is known and
     * whose facts are not in dir is first asked of it, URL/facts/<ab>/<sha256>.json; NULL: none.
     * Off (or options for which facts are not kept) leaves it unasked too. */
    const char *facts_url;
} smc_cache_options;

typedef struct smc_run_options {
    /* Files scanned at once by a pool of threads; 0 means one per online CPU. The report's
     * order does not depend on it. */
    unsigned jobs;
    /* What else a scan does to the process, each on unless turned off (smcheck_session_allow):
     * no_signals installs no SIGBUS handler (source.c), so that a file cut while mapped raises
     * SIGBUS in the process; no_trim never calls malloc_trim. */
    bool no_signals, no_trim;
    /* Called about ten times a second from the scanning threads, one call at a time: bytes done
     * of the total, and the file being read. NULL for none. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total, const char *current);
    void *progress_ctx;
} smc_run_options;

typedef struct smc_options {
    smc_read_options read;
    smc_walk_options walk;
    smc_limits limits;
    smc_net_options net;
    smc_index_options index;
    smc_cache_options cache;
    smc_run_options run;
} smc_options;

/* The limits of opt (NULL: none set), each left 0 replaced by its default. */
smc_limits smc_limits_of(const smc_options *opt);

/* What a library carries, counted: each distinct token with its number of images (counted without
 * de-duplication), and each distinct per-container token set with the number of containers that
 * carry exactly that set. This is the view that says "109 containers carry sm_86, 77 only sm_80".
 * Tokens are ordered cubins, PTX, LTO IR, then by arch, then plain, a, f; sets by count, largest
 * first. Relocatable containers (__nv_relfatbin) form sets of their own. */
typedef struct smc_token_count {
    char token[SMC_TOKEN_MAX];
    size_t count;
} smc_token_count;

typedef struct smc_token_set {
    char *tokens; /* space-separated, in token order; "" for a container without images */
    size_t containers;
    bool relocatable;
} smc_token_set;

typedef struct smc_summary {
    smc_token_count *tokens;
    size_t token_count;
    smc_token_set *sets;
    size_t set_count;
} smc_summary;

smc_status smc_library_summarize(const smc_library *lib, smc_summary *out);
void smc_summary_free(smc_summary *sum);

/* What the judge made of one input against targets: kept beside the input, which judging does
 * not change. Its arrays follow the input's (libraries[l] is in->libraries[l]'s). */
typedef struct smc_library_judged {
    smc_judgement *judgements; /* one per target; NULL without containers or targets */
    size_t judgement_count;
    smc_role role;             /* its part in its distribution, from its path */
} smc_library_judged;

typedef struct smc_distribution_judged {
    smc_rollup *verdicts; /* one per target */
    size_t verdict_count;
    /* A build of a package that exists to use the GPU, without device code (torch's version.py
     * cuda = None, "+cpu", onnxruntime rather than onnxruntime-gpu): what says so, from the
     * table data/cpu-builds.tsv; NULL when not one. */
    char *cpu_only;
} smc_distribution_judged;

typedef struct smc_judged {
    smc_library_judged *libraries;         /* library_count of them */
    smc_distribution_judged *distributions; /* distribution_count of them */
    size_t library_count, distribution_count;
    smc_rollup *verdicts; /* the input's, per target; none when nothing could be read */
    size_t verdict_count;
    /* The compilers found among the input's runtime files (smc_input.runtime); a roll-up's
     * compiler is an index into them. */
    smc_compiler *compilers;
    size_t compiler_count;
} smc_judged;

/* What a library or distribution serves, judged (smc_judge, no driver) against GPUs of distinct
 * compute capabilities: each list space-separated ("7.0 7.5 8.0"), "" when empty. */
typedef struct smc_serving {
    char cubins[256];  /* native or compatible cubins for every counted container */
    char ptx[256];     /* only through PTX, compiled by a driver of at least ptx_cuda */
    int ptx_cuda;
    char tileir[256];  /* those of ptx that run only through Tile IR (its compiler, the driver's) */
    char partial[256]; /* some containers run, some not */
    char none[256];    /* nothing runs (or only arch-specific code for other GPUs) */
    /* In wheel-variant terms (nvidia-variant-provider): the sm_arch values it can honestly claim
     * ("75_real ... 120_virtual": a plain cubin, or PTX, of that architecture in more than half
     * of the counted containers of every main library), and the lowest CUDA a driver must support
     * (cuda_version_lower_bound: its CUDA major, by minor-version compatibility; 0 unknown). */
    char sm_arch[512];
    int cuda_lower_bound;
} smc_serving;

/* A library's serving; its judgements (lj) must be against targets (nt of them), with no
 * driver. */
smc_status smc_library_serving(const smc_library *lib, const smc_library_judged *lj,
                               const smc_target *targets, size_t nt, smc_serving *out);
/* The same for a distribution of in, judged so (jd): its roll-up per target, its main libraries'
 * claims. */
smc_status smc_distribution_serving(const smc_input *in, const smc_judged *jd,
                                    const smc_distribution *d, const smc_target *targets,
                                    size_t nt, smc_serving *out);
/* Each claim of a distribution's variant.json that one of its main libraries does not back, as a
 * sentence ("nvidia :: sm_arch :: 120_virtual: not backed by torch/lib/libtorch_cuda.so: no
 * compute_120 in 389 of 393 containers"), in a new array of *n new strings; claims of other
 * namespaces and features are not checked. */
smc_status smc_variant_unbacked(const smc_input *in, const smc_judged *jd,
                                const smc_distribution *d, char ***out, size_t *n);

/* Scans a file or directory. On SMC_OK *out holds the result, read errors included; other
 * statuses (SMC_ERR_NOMEM, SMC_ERR_ARG) mean there is no result. */
smc_status smc_scan_path(const char *path, const smc_options *opt, smc_input **out);

/* Scans count paths with one pool of threads; out[i] receives path i's result. On a status other
 * than SMC_OK no result is kept. */
smc_status smc_scan_paths(const char *const *paths, size_t count, const smc_options *opt,
                          smc_input **out);

/* The paths to scan when the user names none: $VIRTUAL_ENV, else $CONDA_PREFIX, else the user's
 * and the system's site-packages directories found on disk (no Python is run). *why says which,
 * for the report. Free each path, the array and *why. */
smc_status smc_default_paths(char ***paths, size_t *n, char **why);

/* Scans bytes already in memory as one file named name (an archive yields several libraries).
 * Appends what holds device code to in->libraries and counts one file. The bytes are not kept. */
smc_status smc_scan_memory(smc_input *in, const char *name, const void *buf, size_t len,
                           const smc_options *opt);

/* An empty input to pass to smc_scan_memory. */
smc_input *smc_input_new(const char *path, smc_input_kind kind);
void smc_input_free(smc_input *in);

/* The situation a model is judged in (smc_check's, from the request): the platform its
 * libraries must load on where no wheel tag names one ("linux-aarch64": --platform; NULL: not
 * known, or the host's with assume_host, compared by machine only), whether the targets are the
 * GPUs of one machine, among which a loader chooses once (bitsandbytes by the highest), and the
 * environment the packages run in ("NAME=value", NULL-terminated: a loader's override and a
 * compiler's setting are read there; NULL: not known). */
typedef struct smc_situation {
    const char *platform;
    bool assume_host;
    bool one_machine;
    const char *const *environment;
} smc_situation;

/* Judges every library of the inputs against the targets, with a driver of this CUDA version
 * (1000*major + 10*minor; 0 unknown), in a situation (NULL: nothing known of it): a pure pass
 * over the model that writes out[i] for inputs[i]
 * (n of them, each freed with smc_judged_free, also on failure); overall (target_count entries,
 * or NULL) receives the worst status of all inputs that have one, per target (SMC_STATUS_NO_CODE
 * when none has device code). Scan with smc_options.read.inspect. */
smc_status smc_judge(smc_input *const *inputs, size_t n, const smc_target *targets,
                     size_t target_count, int driver_cuda, const smc_situation *where,
                     smc_judged *out, smc_lib_status *overall);
/* Frees what one judging made, leaving it empty. */
void smc_judged_free(smc_judged *jd);

/* The sentence that explains a judgement ("1 of 3 containers have no usable image (...)"), and
 * its cautions joined by "; " (NULL when none), in new memory. */
char *smc_judgement_reason(const smc_library *lib, const smc_judgement *j, const smc_target *t,
                           int driver_cuda);
char *smc_judgement_warnings(const smc_judgement *j, int driver_cuda);
/* What to get instead when a library is none for t: a driver ("a driver of 580.65.06 or newer
 * (CUDA 13), or a build of it for CUDA 12"), or, with build or for a library built for other
 * GPUs, a build for the GPU ("a build for sm_120: CUDA 12.8 or newer, nvcc -gencode
 * arch=compute_120,code=sm_120 (TORCH_CUDA_ARCH_LIST=12.0), and a driver of 570.26 or newer";
 * TORCH_CUDA_ARCH_LIST only for a library built against PyTorch, lib->links_torch). New memory;
 * NULL otherwise. Unchecked: smc_check offers a step only once judging again with it applied
 * makes the library ok or jit. */
char *smc_next_step(const smc_library *lib, const smc_judgement *j, const smc_target *t,
                    int driver_cuda, bool build);
/* The CUDA version a driver step for j asks the driver to support, or 0 when no driver helps. */
int smc_next_driver(const smc_judgement *j);
/* How a distribution or input of in (judged so: jd) came to its status for target t, in new
 * memory. */
char *smc_rollup_reason(const smc_input *in, const smc_judged *jd, const smc_rollup *r, size_t t);

/* The newest PTX ISA a driver of this CUDA version (1000*major + 10*minor) can compile. */
bool smc_ptx_isa_for_cuda(int cuda_version, unsigned *major, unsigned *minor);

/* Reads --driver: a CUDA version ("12.4", "12.8.1") or a Linux driver version ("550.54.14",
 * "410.48", a branch "580"; Jetson's "540.4.0") of CUDA 9.0's R384 or later, into the CUDA
 * version the driver supports: the one its branch reports. Returns 1; 2 for a branch newer than
 * any the tables know (*cuda_version is then the newest they know) or a CUDA version newer than
 * theirs (kept as given); 0 when text is neither, or older than CUDA 9.0. */
int smc_driver_parse(const char *text, int *cuda_version);

/* The last Linux driver branch that supports a GPU of compute capability cc (major*10+minor):
 * 470 for Kepler, 580 for Maxwell, Pascal and Volta; 0 while current drivers still do. */
int smc_last_driver_branch(unsigned cc);

/* The oldest Linux driver that runs what CUDA version cuda built, by minor-version compatibility
 * (11.x 450.80.02, 12.x 525.60.13, 13.x 580.65.06), or that supports cuda itself when exact,
 * into buf ("570.26"); docs/compatibility.md §2.1. NULL when the table does not know. */
const char *smc_driver_for_cuda(int cuda, bool exact, char *buf, size_t len);

/* The check: one pipeline for the command and the API. ------------------------------------ */

/* What to check: the paths, how to read them, and what to judge them against. */
typedef struct smc_request {
    const char *const *paths;
    size_t path_count;
    /* Limits, jobs, --verify, walking, progress. What is read for the judge (inspect, targets,
     * driver_cuda) is smc_check's to set from the rest of the request. */
    smc_options scan;
    /* The GPUs to judge against and the driver (a CUDA version, 0 unknown), with how it is known
     * ("the local driver", "--driver"; NULL unknown). No targets: only what is served (scan). */
    const smc_target *targets;
    size_t target_count;
    int driver_cuda;
    const char *driver_source;
    /* The targets are the representative matrix, for information (no GPU named, none local): the
     * GPUs only Arm machines have are left out when every library is an x86-64 one. */
    bool informational;
    /* scan: GPUs of distinct capabilities to judge against, with no driver, to say what each
     * library and distribution serves. NULL: not said. */
    const smc_target *serving;
    size_t serving_count;
    bool kernel_names; /* also read the kernels' names (--detail) */
    /* The PyTorch builds (smcheck/builds.h): a torch, torchvision or torchaudio that is none for a
     * target is told which build to install instead. NULL: no such advice. */
    const struct smc_builds *builds;
    const char *default_reason; /* why these inputs, when the user named none */
    /* The platform the libraries must load on where no wheel tag names one (--platform; NULL:
     * the host's when the targets are the local GPUs, else not checked), whether the targets
     * are one machine's GPUs (the local ones, or a --gpu list joined with '+'), and whether
     * they are this machine's own (local). */
    const char *platform;
    bool one_machine;
    bool local;
    /* The environment the packages run in ("NAME=value" strings, NULL-terminated, as environ):
     * a loader's override (BNB_CUDA_VERSION) is read there. NULL: not known. */
    const char *const *environment;
} smc_request;

/* What a check found: the model, judged, with everything the reports show derived once. */
/* What deriving adds to the model for the reports, kept in the result: the model stays as the
 * reader and the judge left it, and a new check makes a new result. */
/* The words of one judgement (a library for one target) or roll-up, for the reports. */
typedef struct smc_words {
    char *reason;         /* the sentence that explains it (smc_judgement_reason,
                           * smc_rollup_reason) */
    char *warning;        /* a judgement's cautions (smc_judgement_warnings); NULL when none */
    char *failing_tokens; /* a judgement's failing containers' distinct tokens; NULL when none */
    char *next;           /* a next step that, applied and judged again, makes a library ok or
                           * jit (or says that nothing in smcheck's tables does); for a
                           * distribution, what to install instead; NULL when none */
} smc_words;

typedef struct smc_library_derived {
    smc_summary summary;  /* its tokens and token sets (smc_library_summarize) */
    smc_serving *serving; /* what it serves, when the check asked (scan); else NULL */
    smc_words *words;     /* one per judgement (word_count), else NULL */
    size_t word_count;
} smc_library_derived;

typedef struct smc_distribution_derived {
    smc_serving *serving; /* what it serves, when the check asked (scan); else NULL */
    char **unbacked;      /* its variant claims that no main library backs (sentences) */
    size_t unbacked_count;
    smc_words *words;     /* one per roll-up (word_count), else NULL */
    size_t word_count;
} smc_distribution_derived;

typedef struct smc_input_derived {
    smc_library_derived *libraries;         /* one per library of the input */
    smc_distribution_derived *distributions; /* one per distribution */
    smc_words *words;                        /* one per roll-up of the input */
    size_t word_count;
} smc_input_derived;

typedef struct smc_result {
    smc_input **inputs; /* one per path */
    size_t input_count;
    smc_target *targets; /* the request's, less the Arm GPUs left out (arm_left_out) */
    size_t target_count;
    bool arm_left_out;
    smc_target *serving;
    size_t serving_count;
    int driver_cuda;
    const char *driver_source;
    const char *default_reason;
    bool informational;
    smc_lib_status *overall; /* per target: the worst status of all inputs */
    size_t partial;          /* libraries partial on some target */
    bool unreadable;         /* some input error or library finding */
    bool owns_inputs;        /* smc_result_free frees them (smc_check's, not smc_check_inputs') */
    smc_situation situation;    /* what the targets were judged in */
    smc_judged *judged;         /* one per input: what the judge made of it */
    smc_input_derived *derived; /* one per input: what deriving made of it for the reports */
} smc_result;

/* A request's targets when none are named, the one way both front doors (the command and
 * smcheck_check) choose them: this machine's GPUs, judged as one machine (a loader chooses once
 * for all of them), on this machine's platform, in this process's environment, with the local
 * driver's CUDA unless req->driver_source says one was given; with none, one representative GPU
 * per architecture, for information. *own receives the targets (the caller frees it), *d the
 * driver as probed (its message says why there is none; the caller frees it). */
smc_status smc_request_local(smc_request *req, const smc_gpu_table *table, smc_target **own,
                             smc_driver *d);
/* Reads the paths with the facts the request needs, judges them, and derives the reasons, roll-
 * ups, serving lists, variant properties and next steps (each next step checked by judging again
 * with it applied). SMC_OK with *out even when inputs could not be read (their errors are in the
 * model); other statuses leave *out NULL. */
smc_status smc_check(const smc_request *req, smc_result **out);
/* The same over inputs already read (smc_scan_memory with smc_options.read.inspect; req->paths
 * and req->scan are not used). The result borrows them: free them after it, which judging and
 * deriving do not change. */
smc_status smc_check_inputs(smc_input **inputs, size_t n, const smc_request *req,
                            smc_result **out);
void smc_result_free(smc_result *r);

/* Reports. They print a result as it is, compute nothing and decide nothing. ------------------ */

/* How to print: display only, never what is judged. */
typedef struct smc_display {
    bool detail; /* every container with its images; when judging, why each target fails */
    bool color;  /* text: statuses in colour (ANSI escapes) */
} smc_display;

/* A stream for a terminal that writes to `to` (closing it too when owned): what is UTF-8 as it is,
 * but C1 controls as "??", and a byte that is not UTF-8 as \xHH, so that no name can send a
 * control sequence (the library's own strings carry no C0 controls). NULL when out of memory. */
FILE *smc_text_stream(FILE *to, bool owned);
/* Both streams hide credentials: the user information of any URL written through them goes out
 * as "***" (user:token@host becomes ***@host). This one writes the bytes as they are otherwise (JSON,
 * SARIF). NULL when out of memory. */
FILE *smc_redact_stream(FILE *to, bool owned);
/* The text report for people: per library its containers, tokens and token sets, then a line
 * counting files and libraries. Input errors are not printed here (they are diagnostics). */
smc_status smc_report_text(FILE *out, const smc_result *r, const smc_display *how);

/* The JSON report (schema_version 2, see docs/cli.md and docs/report.schema.json). */
smc_status smc_report_json(FILE *out, const smc_result *r, const smc_display *how);
/* A fleet's reports in one document: {"fleet": {"path", "targets": [{"name", "report"}]}}, a
 * report per target, each as smc_report_json writes it (smcheck/fleet.h). */
smc_status smc_report_json_fleet(FILE *out, const char *fleet, const smc_result *const *r,
                                 const char *const *names, size_t n, const smc_display *how);
/* The advice of smcheck/builds.h as text for people and as JSON; with how->detail every build,
 * not only the best of each release. */
typedef struct smc_advice smc_advice;
smc_status smc_report_advice_text(FILE *out, const smc_advice *a, const smc_display *how);
smc_status smc_report_advice_json(FILE *out, const smc_advice *a, const smc_display *how);

/* SARIF 2.1.0 for code scanning: a rule per cause, a result per library and target worse than
 * ok (level and security-severity from the status), located at the file or archive (a URI
 * relative to the working directory), with partialFingerprints; unreadable inputs are the
 * run's notifications. */
smc_status smc_report_sarif(FILE *out, const smc_result *r);
/* A fleet's SARIF: one run per target, each named by its automationDetails.id
 * ("smcheck/NAME/") and its properties' fleetTarget. */
smc_status smc_report_sarif_fleet(FILE *out, const smc_result *const *r, const char *const *names,
                                  size_t n);

/* The GPU table (`smcheck gpus --list`). */
smc_status smc_report_gpu_table_text(FILE *out, const smc_gpu_table *t);
smc_status smc_report_gpu_table_json(FILE *out, const smc_gpu_table *t);

/* The local GPUs and driver (`smcheck gpus`). */
smc_status smc_report_gpus_text(FILE *out, const smc_driver *d);
smc_status smc_report_gpus_json(FILE *out, const smc_driver *d);

#ifdef __cplusplus
}
#endif
#endif
