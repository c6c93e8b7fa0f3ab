/* builds.h: which PyTorch build to install. A table of builds (data/builds.tsv: torch release x
 * CUDA variant x platform -> the cubins and PTX it carries, its CUDA, where it is installed from)
 * and the advice drawn from it: each build is judged by smc_judge() as a library of one container
 * holding those images, against the GPUs and the driver, so advice and verdicts follow one set
 * of rules.
 *
 * Like the rest of libsmcheck, nothing here prints or exits. */
#ifndef SMCHECK_BUILDS_H
#define SMCHECK_BUILDS_H

#include "smcheck/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One build: a row of the table. */
typedef struct smc_build {
    char *torch;       /* "2.8.0" */
    char *variant;     /* "cu128"; "cpu" for a build without CUDA */
    char *platform;    /* "linux-x86_64", "linux-aarch64", "windows-amd64" */
    int cuda;          /* the CUDA it was built with, 1000*major + 10*minor; 0 for cpu */
    smc_image *images; /* its cubins and PTX (kind, arch, variant, version) */
    size_t image_count;
    bool pypi;         /* what `pip install torch==V` gets from PyPI on that platform */
    char *torchvision; /* the matching releases, NULL when unknown */
    char *torchaudio;
    char *source;      /* "wheel FILE" (read by smcheck from that wheel) or "claim WHERE" */
} smc_build;

typedef struct smc_builds {
    smc_build *rows; /* in the order of the table text */
    size_t count;
} smc_builds;

/* Parses table text in the format of data/builds.tsv (len bytes). Returns 1 and a new table in
 * *out; 0 for bad input, with err = "line N: why"; -1 when out of memory. */
int smc_builds_parse(const char *text, size_t len, smc_builds **out, char *err, size_t errlen);
/* Reads the file at path and parses it; err = "PATH: why" on failure. Same returns. */
int smc_builds_load(const char *path, smc_builds **out, char *err, size_t errlen);
/* Parses the copy of data/builds.tsv compiled into the library (1, 0 broken, -1 no memory). */
int smc_builds_builtin(smc_builds **out);
void smc_builds_free(smc_builds *b);


/* One build judged for the GPUs. */
typedef struct smc_advice_row {
    size_t build;            /* index into the table */
    smc_lib_status status;   /* the worst over the GPUs with the driver; NO_CODE for cpu */
    smc_lib_status any;      /* the same with a driver new enough for it */
    int needs_cuda;          /* the CUDA version the driver must support for `any`; 0 when
                              * it does not run on the GPUs whatever the driver */
    unsigned warnings;       /* SMC_WARN_ bits of the GPUs' judgements */
    size_t worst;            /* the GPU (index of targets) whose judgement gave status */
    const smc_judgement *judgements; /* per GPU, with the driver (in judged); NULL for cpu */
    /* Derived by smc_advise for the reports: */
    char *reason;          /* why it is not ok ("no GPU code" for cpu); NULL when ok */
    char *warning;         /* the cautions of its worst judgement; NULL when none */
    char *pip, *uv;        /* the commands that install it (smc_build_install, with installed) */
    char needs_driver[32]; /* the driver for needs_cuda ("570.26"); "" when none is known */
    char index[96];        /* where it is installed from (smc_build_index); "" for PyPI */
    bool installed;        /* it is the build installed (smc_build_is_installed) */
    bool shown;            /* the row of its release a person would install, else its first */
} smc_advice_row;

/* What to advise for: the builds, the platform, the GPUs and the driver (a CUDA version, 0
 * unknown, with how it is known), and what is installed where (NULL: nothing known). */
typedef struct smc_advice_request {
    const struct smc_builds *builds;
    const char *platform;
    const smc_target *targets;
    size_t target_count;
    int driver_cuda;
    const char *driver_source;
    const struct smc_torch_installed *installed;
    const char *installed_where;
} smc_advice_request;

typedef struct smc_advice {
    smc_advice_request req; /* as asked (its pointers borrowed) */
    smc_advice_row *rows; /* the builds of the platform, newest release first */
    size_t count;
    size_t best;          /* the row to install: the newest release that runs on every GPU with
                           * the driver (see smc_advise); SMC_NONE when none does */
    size_t newer_driver;  /* the newest that would run with a newer driver, when it is newer
                           * than best; else SMC_NONE */
    /* The rows as libraries, which the judgements explain (smc_judgement_reason). */
    smc_input *model;
    smc_judged judged;    /* model judged against the GPUs with the driver */
    size_t *library;      /* per row: its library in model, SMC_NONE for cpu */
    char **notes;         /* drivers the GPUs cannot have, Jetson's builds: for the reports */
    size_t note_count;
} smc_advice;

/* Judges every build of the platform against the GPUs with a driver of this CUDA version
 * (0 unknown: then every build runs "with a driver new enough", and needs_cuda says which).
 * Among the releases that run on every GPU, the newest is chosen; within it a build that runs
 * without a caution (no newer minor CUDA than the driver), then the PyPI default, then the
 * newest CUDA; a build that only runs through PTX comes after every one with cubins. */
smc_status smc_advise(const smc_advice_request *req, smc_advice *out);
void smc_advice_free(smc_advice *a);
/* The row of row i's release that a person would install (by the rules of smc_advise), or
 * SMC_NONE when no row of that release runs. */
size_t smc_advice_pick(const smc_builds *b, const smc_advice *a, size_t i);

/* The index a build is installed from: NULL for PyPI, else https://download.pytorch.org/whl/VARIANT,
 * in buf. */
const char *smc_build_index(const smc_build *b, char *buf, size_t len);

/* What an environment has installed of the torch family, as installed ("2.11.0+cu126"); NULL
 * each when absent. */
typedef struct smc_torch_installed {
    const char *torch, *torchvision, *torchaudio;
} smc_torch_installed;

/* The torch family installed in an input that is installed (an environment, an image): what
 * its distributions say; all NULL for anything else (a wheel is not installed yet). */
smc_torch_installed smc_torch_installed_in(const smc_input *in);
/* Whether build b is the one installed (its release, and its variant by the local version
 * label: none for the PyPI default). */
bool smc_build_is_installed(const smc_build *b, const smc_torch_installed *now);

/* The command that installs a build: "pip install torch==2.11.0+cu128 --index-url URL" ("uv pip
 * install ..." with uv). torch is pinned with the variant's local version label where the build
 * comes from download.pytorch.org: a pin without one is satisfied by any installed variant of
 * the release, and pip and uv would do nothing. also ("torchvision", "torchaudio") adds that one
 * at its matching release. With now (what an environment has installed: torch, torchvision,
 * torchaudio), the command replaces it: each of the three installed is pinned at the release
 * that goes with b, and forced (pip --force-reinstall; uv --reinstall-package for each), since
 * an installed variant of the same release would otherwise stay. A companion with no known
 * release is left out. New memory, NULL when out of it. */
char *smc_build_install(const smc_build *b, bool uv, const char *also,
                        const smc_torch_installed *now);

/* The next step for a torch-family distribution (name: torch, torchvision, torchaudio) that is
 * none for t with this driver on platform: "torch 2.11.0 cu128: pip install torch==2.11.0+cu128
 * --index-url https://download.pytorch.org/whl/cu128", or what driver the newest build needs,
 * or that no build of the table runs there; with now, the command replaces what is installed
 * (smc_build_install). New memory; NULL when out of it. */
char *smc_next_build(const smc_builds *b, const char *platform, const smc_target *t,
                     int driver_cuda, const char *name, const smc_torch_installed *now);

/* "R580 is the last driver branch for compute capability 6.1: no R590 driver runs it", when the
 * driver (a CUDA version) is newer than the last branch for t; else NULL. New memory. */
char *smc_driver_note(const smc_target *t, int driver_cuda);

#ifdef __cplusplus
}
#endif
#endif
