/* options.h: the command line of smcheck, once: the option table that drives getopt_long and
 * --help (main.c) and the man page (manpage.c), and the texts around it. */
#ifndef SMCHECK_OPTIONS_H
#define SMCHECK_OPTIONS_H

#include <stddef.h>

enum {
    OPT_FORMAT = 'f',
    OPT_GPU = 'g',
    OPT_JOBS = 'j',
    OPT_OUTPUT = 'o',
    OPT_HELP = 'h',
    OPT_DETAIL = 256,
    OPT_VERIFY,
    OPT_DRIVER,
    OPT_FAIL_ON,
    OPT_GPU_TABLE,
    OPT_LIST,
    OPT_MAX_INFLATE,
    OPT_MAX_INFLATE_TOTAL,
    OPT_MAX_CONTAINERS,
    OPT_MAX_IMAGES,
    OPT_MAX_MEMBERS,
    OPT_MAX_DEPTH,
    OPT_MAX_PATH,
    OPT_MAX_FILES,
    OPT_VERSION,
    OPT_COLOR,
    OPT_PLATFORM,
    OPT_BUILDS_TABLE,
    OPT_ONE_FILE_SYSTEM,
    OPT_EXCLUDE,
    OPT_SARIF,
    OPT_TIMEOUT,
    OPT_INDEX_URL,
    OPT_EXTRA_INDEX_URL,
    OPT_PYTHON_VERSION,
    OPT_EXTRA,
    OPT_NO_CACHE,
    OPT_CACHE_MAX,
    OPT_SPEED_LIMIT,
    OPT_CONFIG,
    OPT_NO_CONFIG,
    OPT_FACTS_URL,
    OPT_SHARD,
    OPT_MERGE,
    OPT_QUIET = 'q',
};

/* The modes (subcommands) an option is for: any other refuses it rather than ignore it. */
enum {
    M_JUDGE = 1,  /* smcheck [PATH]... */
    M_SCAN = 2,   /* smcheck scan */
    M_GPUS = 4,   /* smcheck gpus */
    M_ADVISE = 8, /* smcheck advise */
    M_AUDIT = 16, /* smcheck audit */
    M_ALL = 15,   /* every mode but audit, whose options are its own */
};

typedef struct option_row {
    const char *name;
    int id; /* the short option letter when it has one */
    const char *arg;
    const char *help;
    unsigned modes; /* M_* */
} option_row;

static const option_row option_rows[] = {
    {"gpu", OPT_GPU, "LIST",
     "judge against these GPUs: arch tokens (sm_86), compute capabilities (8.6), product names "
     "(h100, rtx-4090, gb10), comma-separated; joined with '+' instead (v100+t4) they are one "
     "machine's, in the driver's order, where a package's loader chooses once for all of them; "
     "'auto' for the local GPUs (one machine)",
     M_JUDGE | M_ADVISE},
    {"driver", OPT_DRIVER, "VERSION",
     "the driver to judge with: a CUDA version (12.8, 12.8.1) or a driver version of R384 (CUDA "
     "9.0) or later (570.124.06, 410.48, Jetson's 540.4.0)",
     M_JUDGE | M_ADVISE},
    {"config", OPT_CONFIG, "FILE",
     "the fleet to judge against: a pyproject.toml with a [tool.smcheck] table (fail-on, and "
     "[[tool.smcheck.targets]] each with a name, gpus, and a driver and platform where known); "
     "or skylos's .skylos/gpu-targets.yml (version 1; each target with a compute_capability); "
     "default: the nearest of these, from the working directory up. Each target is "
     "judged as if its gpus, driver and platform were given, its name on its report; a fleet "
     "that cannot be read is exit 2, never a pass; --gpu, --driver or --platform given instead "
     "leave it out, and --fail-on overrides its own",
     M_JUDGE},
    {"no-config", OPT_NO_CONFIG, NULL, "read no fleet (pyproject.toml, .skylos)", M_JUDGE},
    {"fail-on", OPT_FAIL_ON, "LEVEL",
     "exit 1 when a library is this bad or worse: none (default), partial, jit; or never (the "
     "verdicts never fail; an unreadable input still exits 2). A CPU-only build of a GPU package "
     "(cpu-only: torch +cpu, onnxruntime) and a compiler used at run time that does not know the "
     "GPU (compiler: Triton's ptxas, NVRTC, JAX's ptxas, numba-cuda's NVVM) fail at every level: "
     "add ',allow-cpu-only' or "
     "',allow-compiler' (none,allow-compiler) to let them pass",
     M_JUDGE},
    {"format", OPT_FORMAT, "FMT",
     "report format: text (default), json, or sarif (SARIF 2.1.0 for code scanning: a result per "
     "library and GPU worse than ok)",
     M_ALL},
    {"sarif", OPT_SARIF, "FILE",
     "also write the SARIF report to FILE, beside the report in --format (one run for a CI log "
     "and code scanning)",
     M_JUDGE},
    {"detail", OPT_DETAIL, NULL,
     "list every container and its images; when judging, the containers that fail and their "
     "kernels",
     M_JUDGE | M_SCAN | M_ADVISE},
    {"verify", OPT_VERIFY, NULL, "decompress every image and check it against its header",
     M_JUDGE | M_SCAN},
    {"jobs", OPT_JOBS, "N",
     "scan N files at once, and inflate one long wheel member with up to N threads (4 at most; "
     "default: one per online CPU)",
     M_JUDGE | M_SCAN},
    {"output", OPT_OUTPUT, "FILE",
     "write the report to FILE instead of stdout; audit: the directory it writes (FILE/facts/AB/"
     "SHA256.json, FILE/shards/I-of-N.tsv; --merge: FILE/index.tsv)",
     M_ALL | M_AUDIT},
    {"shard", OPT_SHARD, "I/N",
     "audit: read the wheels of shard I (0 to N-1; I defaults to JOB_COMPLETION_INDEX) of N, "
     "split the same way by every process, balanced by size (default 0/1: all of them)",
     M_AUDIT},
    {"merge", OPT_MERGE, NULL,
     "audit: combine the shard indexes under --output into its index.tsv (every shard of one N "
     "must be there)",
     M_AUDIT},
    {"gpu-table", OPT_GPU_TABLE, "FILE", "read GPU names from FILE instead of the built-in table",
     M_ALL},
    {"platform", OPT_PLATFORM, "PLATFORM",
     "linux-x86_64 (linux/amd64), linux-aarch64 (linux/arm64), windows-amd64 or windows-arm64, "
     "or a wheel platform tag (manylinux_2_17_x86_64, win_amd64, win_arm64): where the "
     "libraries must load (one for another machine is none, in a wheel tagged for another "
     "platform too; without it a wheel's tag says), the "
     "image to read from a multi-platform image, the wheels requirements and lock files install "
     "(linux: glibc 2.28), and with 'advise' the platform to install for "
     "(default: this machine's for the local GPUs, else not checked; for advise "
     "linux-aarch64 when every GPU is one only Arm machines have)",
     M_JUDGE | M_SCAN | M_ADVISE},
    {"builds-table", OPT_BUILDS_TABLE, "FILE",
     "read the PyTorch builds from FILE instead of the built-in table (data/builds.tsv)",
     M_JUDGE | M_ADVISE},
    {"max-inflate", OPT_MAX_INFLATE, "SIZE",
     "stop inflating a wheel member past SIZE bytes (K, M, G suffixes; default 16G)",
     M_JUDGE | M_SCAN},
    {"max-inflate-total", OPT_MAX_INFLATE_TOTAL, "SIZE",
     "stop inflating one input's members past SIZE bytes in all (default 256G)", M_JUDGE | M_SCAN},
    {"max-containers", OPT_MAX_CONTAINERS, "N", "read at most N containers of one file (200000)",
     M_JUDGE | M_SCAN},
    {"max-images", OPT_MAX_IMAGES, "N", "read at most N images of one file (1000000)",
     M_JUDGE | M_SCAN},
    {"max-members", OPT_MAX_MEMBERS, "N", "read at most N members of one archive (1000000)",
     M_JUDGE | M_SCAN},
    {"max-depth", OPT_MAX_DEPTH, "N", "walk directories at most N deep (256)", M_JUDGE | M_SCAN},
    {"max-path", OPT_MAX_PATH, "N", "skip paths longer than N bytes (4096)", M_JUDGE | M_SCAN},
    {"max-files", OPT_MAX_FILES, "N", "walk at most N files of one input (10000000)",
     M_JUDGE | M_SCAN},
    {"index-url", OPT_INDEX_URL, "URL",
     "resolve requirements (torch==2.8.0) and requirements.txt pins through this package index "
     "(PEP 691 JSON or PEP 503 HTML; default: PIP_INDEX_URL, UV_INDEX_URL or UV_DEFAULT_INDEX, "
     "else https://pypi.org/simple/); audit: the index whose projects it reads",
     M_JUDGE | M_SCAN | M_AUDIT},
    {"extra-index-url", OPT_EXTRA_INDEX_URL, "URL",
     "also look in this index (repeatable; the files of all indexes are chosen among as pip "
     "does; default: PIP_EXTRA_INDEX_URL, UV_EXTRA_INDEX_URL, UV_INDEX)",
     M_JUDGE | M_SCAN},
    {"python-version", OPT_PYTHON_VERSION, "X.Y",
     "choose the wheels of requirements and lock files for this CPython (default: the one a "
     "lock fixes, else 3.12), on --platform's (default: this machine's; linux means glibc 2.28)",
     M_JUDGE | M_SCAN},
    {"extra", OPT_EXTRA, "NAME",
     "install the project's extra NAME from a uv.lock, as uv sync --extra NAME does (repeatable; "
     "the extras left out are named in a note)",
     M_JUDGE | M_SCAN},
    {"no-cache", OPT_NO_CACHE, NULL,
     "neither read nor keep the facts of wheels read over the network (kept by their sha256 in "
     "$XDG_CACHE_HOME/smcheck, else ~/.cache/smcheck)",
     M_JUDGE | M_SCAN},
    {"cache-max", OPT_CACHE_MAX, "SIZE",
     "keep that cache to SIZE bytes, the least recently used going first (default 1G)",
     M_JUDGE | M_SCAN},
    {"facts-url", OPT_FACTS_URL, "URL",
     "ask the facts store at URL (the tree 'smcheck audit --output' writes, served over HTTP: "
     "URL/facts/AB/SHA256.json) for a wheel's facts before reading the wheel; a record that is "
     "missing or does not check falls back to reading it, a store that cannot be read is a note "
     "(also facts-url in [tool.smcheck])",
     M_JUDGE | M_SCAN},
    {"timeout", OPT_TIMEOUT, "SECONDS",
     "reading a URL, give up on a connection that takes SECONDS to open or a transfer that "
     "stalls that long (default 30)",
     M_JUDGE | M_SCAN | M_AUDIT},
    {"speed-limit", OPT_SPEED_LIMIT, "RATE",
     "reading a URL, give up on a transfer slower than RATE bytes a second over the --timeout "
     "window, as a server that drips bytes is (default 1k)",
     M_JUDGE | M_SCAN | M_AUDIT},
    {"one-file-system", OPT_ONE_FILE_SYSTEM, NULL,
     "do not walk into directories on other filesystems than the one named", M_JUDGE | M_SCAN},
    {"exclude", OPT_EXCLUDE, "GLOB",
     "leave out paths that match GLOB (with a '/': the whole path, else a name); repeatable. A "
     "root filesystem is walked without its proc, sys, dev and run",
     M_JUDGE | M_SCAN},
    {"color", OPT_COLOR, "WHEN",
     "statuses in colour: auto (default: when stdout is a terminal and NO_COLOR is unset), "
     "always, never",
     M_JUDGE | M_SCAN},
    {"quiet", OPT_QUIET, NULL,
     "no progress and no notes or warnings on stderr (errors are still said)", M_ALL | M_AUDIT},
    {"list", OPT_LIST, NULL, "with 'gpus': print the GPU table instead of the local GPUs", M_GPUS},
    {"version", OPT_VERSION, NULL, "print the version and exit", M_ALL},
    {"help", OPT_HELP, NULL, "print this help and exit", M_ALL},
};
#define N_OPTIONS (sizeof option_rows / sizeof option_rows[0])

/* The synopsis, one line per form and its gloss after two spaces, and the description: lines
 * of at most 80 columns. */
static const char usage_synopsis[] =
    "usage: smcheck [OPTION]... [PATH]...         judge the device code against GPUs\n"
    "       smcheck scan [OPTION]... [PATH]...    list it only\n"
    "       smcheck gpus [--list] [--format FMT]  the local GPUs, or the GPU table\n"
    "       smcheck advise [OPTION]... [ENV]      the PyTorch build to install\n"
    "       smcheck audit [--shard I/N] --output DIR [PROJECTS]\n"
    "                                             the facts of an index's wheels\n";

static const char usage_description[] =
    "The subcommand is the first word that is not an option (./scan names a file).\n"
    "Reads the CUDA device code (sm_XX cubins, compute_XX PTX, lto_XX IR) in ELF files,\n"
    "static archives, Windows DLLs, raw fat binaries, wheels and conda packages (read\n"
    "in place, never extracted), container images (an OCI layout, an oci-archive or\n"
    "docker save tarball, layers applied with their whiteouts) and directories of them,\n"
    "recognised by their bytes; in a Python environment (a venv, a conda prefix,\n"
    "site-packages, a root filesystem, an image) each library is given to the\n"
    "distribution that installed it. Symbolic links inside directories are not followed.\n"
    "Without PATH: $VIRTUAL_ENV, else $CONDA_PREFIX, else the site-packages on disk.\n"
    "Without --gpu it judges against the local GPUs, found through the CUDA Driver API\n"
    "(libcuda.so.1, or SMCHECK_LIBCUDA), and without those against one representative\n"
    "GPU per architecture, for information. 'smcheck gpus' shows the local GPUs and\n"
    "driver; 'smcheck gpus --list' the GPU table. 'smcheck advise' says which PyTorch\n"
    "build to install for the GPUs and driver (local, or --gpu and --driver): the newest\n"
    "release that runs on all of them, its pip and uv command, and what a newer driver\n"
    "would give; --detail lists every build judged. Where ENV (default: the active\n"
    "environment) has torch installed, the commands replace it, with torchvision\n"
    "and torchaudio (pinned with the variant, forced). 'smcheck audit' reads the\n"
    "wheels that can carry GPU code of the projects PROJECTS names (one a line;\n"
    "without it, every project of the index) on --index-url, its shard of them, into\n"
    "DIR/facts/AB/SHA256.json (what --facts-url reads) and DIR/shards/I-of-N.tsv; a\n"
    "wheel whose facts are there is skipped.\n";

/* The exit statuses: "  N   meaning" lines, continued lines indented further. */
static const char usage_exit_status[] =
    "  0   nothing fails the gate (always, when judging the representative matrix)\n"
    "  1   some input is 'none', 'cpu-only' or 'compiler' for some target (or worse than\n"
    "      --fail-on allows);\n"
    "      advise: no build runs on the GPUs\n"
    "  2   some input could not be read, or a library holds malformed device code, or\n"
    "      memory ran out\n"
    "  64  usage error\n";

#endif
