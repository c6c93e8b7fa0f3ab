/* smcheck.h: the API of libsmcheck, the library behind the smcheck command. It says whether the
 * CUDA device code in wheels, Python environments, container images, conda packages, shared
 * libraries and directories of them will run on given GPUs, reading them in place.
 *
 * Two opaque handles: an smcheck_session holds what to judge against (GPUs, a driver, limits),
 * an smcheck_report what one check found. Everything else is read through accessors, by index.
 *
 * One error convention: a call that can fail returns an smcheck_error, SMCHECK_OK (0) when it
 * did what was asked; smcheck_strerror() names the code, and smcheck_session_message() says in
 * one line what went wrong with the session's last failed call. What is wrong with an input (a
 * truncated wheel, a malformed library) is not an error of the call: the check goes on and the
 * report holds it (smcheck_report_error_count). Accessors never fail: an index out of range
 * gives NULL, 0 or SMCHECK_STATUS_NO_CODE. Strings returned are owned by their handle and live
 * as long as it does. The library never prints, never exits and is safe to use from several
 * threads on different handles.
 *
 * What a check does to the process besides reading its paths, each allowed unless the session
 * says otherwise (smcheck_session_allow): it reads over HTTP(S) the URLs, requirements
 * ("torch==2.8.0") and lock files' wheels it is given, from PyPI or the index PIP_INDEX_URL,
 * UV_INDEX_URL or UV_DEFAULT_INDEX names; it keeps what it learned of wheels read so in a cache,
 * $XDG_CACHE_HOME/smcheck (else ~/.cache/smcheck); it installs once, for the whole process, a
 * SIGBUS handler that chains to the one before it, so that a file cut short while mapped reads as
 * zeros and is reported; it calls glibc's malloc_trim(0) after large inputs, to give freed memory
 * back; and with no GPUs set it loads libcuda.so.1 to ask for the local ones.
 *
 * Build against it with `pkg-config --cflags --libs smcheck`. */
#ifndef SMCHECK_H
#define SMCHECK_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SMCHECK_VERSION_MAJOR 0
#define SMCHECK_VERSION_MINOR 1
#define SMCHECK_VERSION_PATCH 0
#define SMCHECK_VERSION_STRING "0.1.0"
/* One number that grows with each release: 0x000100 for 0.1.0. */
#define SMCHECK_VERSION_NUMBER                                                                     \
    ((SMCHECK_VERSION_MAJOR << 16) | (SMCHECK_VERSION_MINOR << 8) | SMCHECK_VERSION_PATCH)

#if defined(__GNUC__) && !defined(SMCHECK_STATIC)
#define SMCHECK_API __attribute__((visibility("default")))
#else
#define SMCHECK_API
#endif

/* The version of the library loaded at run time ("0.1.0"), which may be newer than the header. */
SMCHECK_API const char *smcheck_version(void);

typedef enum smcheck_error {
    SMCHECK_OK = 0,
    SMCHECK_E_IO,     /* an input could not be read at all (a missing path, for instance) */
    SMCHECK_E_FORMAT, /* bytes that cannot be right */
    SMCHECK_E_NOMEM,
    SMCHECK_E_ARG,   /* a caller's mistake: a NULL handle, an unknown GPU, a bad version */
    SMCHECK_E_LIMIT, /* a limit was reached */
} smcheck_error;

/* "out of memory", "bad argument" ...: a static string. */
SMCHECK_API const char *smcheck_strerror(smcheck_error e);

/* What a library (or a distribution, an input, the whole check) is for one GPU, best first. */
typedef enum smcheck_status {
    SMCHECK_STATUS_OK,      /* every kernel has a cubin that loads */
    SMCHECK_STATUS_JIT,     /* some run only through PTX that the driver compiles */
    SMCHECK_STATUS_PARTIAL, /* it runs, but some modules built only for other GPUs do not */
    SMCHECK_STATUS_GATED,   /* only arch-specific ('a'/'f') code for other GPUs */
    SMCHECK_STATUS_NONE,    /* "no kernel image is available for execution on the device" */
    SMCHECK_STATUS_NO_CODE, /* no device code: nothing judged */
    SMCHECK_STATUS_CPU_ONLY, /* a distribution that exists to use the GPU, in a CPU-only build
                              * (torch +cpu, onnxruntime): the GPU is not used */
    SMCHECK_STATUS_COMPILER, /* a compiler used at run time (Triton's ptxas, NVRTC) does not
                              * know the GPU: what is compiled at run time fails */
} smcheck_status;

/* "ok", "jit", "partial", "gated", "none", "no-code": the words of the JSON report. */
SMCHECK_API const char *smcheck_status_str(smcheck_status s);

/* Sessions ------------------------------------------------------------------------------------ */

typedef struct smcheck_session smcheck_session;

/* A session judging against the local GPUs (through libcuda.so.1, loaded when a check runs), or
 * with none, one representative GPU per architecture; with the built-in GPU table. */
SMCHECK_API smcheck_error smcheck_session_new(smcheck_session **out);
SMCHECK_API void smcheck_session_free(smcheck_session *s);

/* The GPUs to judge against, as smcheck --gpu takes them: "h100,8.6,sm_120,rtx-4090", or "auto"
 * for the local ones. SMCHECK_E_ARG for a name the table does not know (the message says). */
SMCHECK_API smcheck_error smcheck_session_set_gpus(smcheck_session *s, const char *list);

/* The driver: a CUDA version ("12.8") or a driver version ("570.124.06"); NULL: the local one
 * when the GPUs are local, else unknown. */
SMCHECK_API smcheck_error smcheck_session_set_driver(smcheck_session *s, const char *version);

/* Files read at once (0: one per online CPU), and the bytes one archive member may inflate to
 * (0: 16 GiB). */
SMCHECK_API smcheck_error smcheck_session_set_jobs(smcheck_session *s, unsigned jobs);
SMCHECK_API smcheck_error smcheck_session_set_max_inflate(smcheck_session *s,
                                                          unsigned long long bytes);

/* What a check may do beyond reading its paths (the paragraph at the top), OR-ed; all of them
 * unless this says otherwise. Without SMCHECK_ALLOW_NETWORK a URL, requirement or lock that needs
 * the network is an error of the report ("reading over the network is turned off"); without
 * SMCHECK_ALLOW_CACHE nothing is read from or written to the cache; without SMCHECK_ALLOW_SIGBUS
 * a file cut short while it is read raises SIGBUS in the process, as any mapping's would; without
 * SMCHECK_ALLOW_TRIM malloc_trim is never called. SMCHECK_E_ARG for an unknown bit. */
#define SMCHECK_ALLOW_NETWORK 1u
#define SMCHECK_ALLOW_CACHE 2u
#define SMCHECK_ALLOW_SIGBUS 4u
#define SMCHECK_ALLOW_TRIM 8u
#define SMCHECK_ALLOW_ALL 15u
SMCHECK_API smcheck_error smcheck_session_allow(smcheck_session *s, unsigned allowed);

/* What went wrong with the session's last failed call, in one line; "" when nothing did. */
SMCHECK_API const char *smcheck_session_message(const smcheck_session *s);

/* Checks: read, then judge ---------------------------------------------------------------------- */

typedef struct smcheck_report smcheck_report;

/* Reads the paths (files, directories, wheels, environments, images, conda packages) and judges
 * what they hold against the session's GPUs. SMCHECK_OK with a report even when inputs could not
 * be read (see smcheck_report_error_count); other codes leave *out NULL. */
SMCHECK_API smcheck_error smcheck_check(smcheck_session *s, const char *const *paths, size_t count,
                                        smcheck_report **out);
SMCHECK_API void smcheck_report_free(smcheck_report *r);

/* The GPUs judged against: their count, a name ("NVIDIA H100" or "sm_86") and compute capability
 * (major*10 + minor: 90), and the worst status of all inputs for each. */
SMCHECK_API size_t smcheck_report_target_count(const smcheck_report *r);
SMCHECK_API const char *smcheck_report_target_name(const smcheck_report *r, size_t target);
SMCHECK_API unsigned smcheck_report_target_capability(const smcheck_report *r, size_t target);
SMCHECK_API smcheck_status smcheck_report_status(const smcheck_report *r, size_t target);
/* Whether the GPUs were the representative ones (no GPU named, none local): for information. */
SMCHECK_API int smcheck_report_informational(const smcheck_report *r);
/* The driver judged with, as a CUDA version (12080 for 12.8); 0 unknown. */
SMCHECK_API int smcheck_report_driver_cuda(const smcheck_report *r);

/* The libraries with device code, of every input in order. */
SMCHECK_API size_t smcheck_report_library_count(const smcheck_report *r);
/* Its path ("torch-2.8.0-...whl!torch/lib/libtorch_cuda.so"). */
SMCHECK_API const char *smcheck_library_path(const smcheck_report *r, size_t lib);
/* Its fat binary containers, and the architectures of their images ("sm_80 sm_90 compute_90"). */
SMCHECK_API size_t smcheck_library_container_count(const smcheck_report *r, size_t lib);
SMCHECK_API const char *smcheck_library_tokens(const smcheck_report *r, size_t lib);
/* Its status for a target, the stable name of why ("arch", "ptx-isa", "loads" ...) and the
 * sentence the reports print. */
SMCHECK_API smcheck_status smcheck_library_status(const smcheck_report *r, size_t lib,
                                                  size_t target);
SMCHECK_API const char *smcheck_library_cause(const smcheck_report *r, size_t lib, size_t target);
SMCHECK_API const char *smcheck_library_reason(const smcheck_report *r, size_t lib, size_t target);

/* The Python distributions (wheels, installed packages) found, with their status per target. */
SMCHECK_API size_t smcheck_report_distribution_count(const smcheck_report *r);
SMCHECK_API const char *smcheck_distribution_name(const smcheck_report *r, size_t dist);
SMCHECK_API const char *smcheck_distribution_version(const smcheck_report *r, size_t dist);
SMCHECK_API smcheck_status smcheck_distribution_status(const smcheck_report *r, size_t dist,
                                                       size_t target);

/* What could not be read: the inputs' errors and the libraries' findings, each a path and a
 * one-line message. */
SMCHECK_API size_t smcheck_report_error_count(const smcheck_report *r);
SMCHECK_API const char *smcheck_report_error_path(const smcheck_report *r, size_t i);
SMCHECK_API const char *smcheck_report_error_message(const smcheck_report *r, size_t i);

/* The reports the smcheck command prints: "text", "json" (schema_version 2) or "sarif" (2.1.0). */
SMCHECK_API smcheck_error smcheck_report_write(const smcheck_report *r, const char *format,
                                               FILE *out);

#ifdef __cplusplus
}
#endif
#endif
