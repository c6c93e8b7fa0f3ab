/* main.c: the smcheck command. Parses the command line (one table drives both getopt_long and
 * --help), chooses the targets (--gpu, the local GPUs, or the representative matrix), runs the
 * library over each path and prints the report; diagnostics go to stderr as "smcheck: PATH:
 * message". It decides only which targets to use and the exit status. */
#include "audit.h"
#include "options.h"
#include "smcheck/builds.h"
#include "smcheck/fleet.h"
#include "smcheck/model.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* stderr, through smc_text_stream: names that are not UTF-8 reach no terminal raw. */
static FILE *diag;

static void close_diag(void)
{
    if (diag != stderr) fclose(diag);
}

enum { EXIT_CLEAN = 0, EXIT_FAIL = 1, EXIT_INPUT = 2, EXIT_USAGE = 64 };

/* Memory ran out: the check could not be made (as an input that cannot be read), which is no
 * usage error. */
static int oom_exit(void)
{
    fputs("smcheck: out of memory\n", diag);
    return EXIT_INPUT;
}


static void usage(FILE *f)
{
    fputs(usage_synopsis, f);
    fputs("\n", f);
    fputs(usage_description, f);
    fputs("\noptions:\n", f);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const option_row *r = &option_rows[i];
        char left[40];
        if (r->id < 256)
            snprintf(left, sizeof left, "-%c, --%s%s%s", r->id, r->name, r->arg ? " " : "",
                     r->arg ? r->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", r->name, r->arg ? " " : "",
                     r->arg ? r->arg : "");
        /* The help wrapped at 80 columns, under itself. */
        int col = strlen(left) > 22 ? fprintf(f, "  %s\n%25s", left, "") - (int)strlen(left) - 3
                                    : fprintf(f, "  %-22s ", left);
        bool first = true;
        for (const char *w = r->help; *w;) {
            size_t len = strcspn(w, " ");
            if (!first && col + 1 + (int)len > 79) {
                fputc('\n', f);
                col = fprintf(f, "%25s", "");
            } else if (!first) {
                col += fprintf(f, " ");
            }
            col += fprintf(f, "%.*s", (int)len, w);
            first = false;
            w += len + (w[len] == ' ');
        }
        fputc('\n', f);
    }
    fputs("\nexit status:\n", f);
    fputs(usage_exit_status, f);
}

typedef enum mode { MODE_JUDGE, MODE_SCAN, MODE_GPUS, MODE_ADVISE, MODE_AUDIT } mode;

/* "4G", "512M", "100000": bytes. */
static bool parse_size(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || text[0] == '-') return false;
    unsigned shift = *end == 'K' || *end == 'k'   ? 10
                     : *end == 'M' || *end == 'm' ? 20
                     : *end == 'G' || *end == 'g' ? 30
                     : *end == 'T' || *end == 't' ? 40
                                                  : 0;
    if (shift) end++;
    if (*end || v == 0 || v > (UINT64_MAX >> shift)) return false;
    *out = (uint64_t)v << shift;
    return true;
}

typedef struct config {
    mode mode;
    smc_options scan;
    smc_display display;
    int driver_cuda;
    const char *driver_source;
    const char *default_reason;
    bool json, sarif, list, have_driver, driver_newer, quiet, fail_never;
    bool one_machine; /* the targets are one machine's GPUs: local, or joined with '+' */
    unsigned allow; /* --fail-on ...,allow-cpu-only,allow-compiler: SMC_ALLOW_ bits, what does
                     * not fail */
    bool local;       /* they are this machine's GPUs */
    const char *color; /* auto, always, never */
    const char *output, *gpus, *gpu_table, *builds_table, *platform, *sarif_file;
    const char *config; /* --config FILE */
    bool no_config;
    const char *shard;        /* audit's --shard I/N */
    bool merge;               /* audit --merge */
    const char *fleet_target; /* the fleet target being judged, or NULL */
    smc_lib_status fail_on;
    const char **excludes; /* --exclude, in argv's memory */
    const char **extra_indexes; /* --extra-index-url, in argv's memory */
    const char **lock_extras;   /* --extra, in argv's memory */
    bool given[N_OPTIONS]; /* which rows of the option table the command line used */
} config;

/* A repeatable option's argument (in argv's memory) appended to *list of *count; false when out
 * of memory. */
static bool append_arg(const char ***list, size_t *count, const char *arg)
{
    const char **grown = realloc(*list, (*count + 1) * sizeof *grown);
    if (!grown) return false;
    grown[(*count)++] = arg;
    *list = grown;
    return true;
}

/* The option table's row of an option id (getopt's return), or N_OPTIONS. */
static size_t option_row_of(int id)
{
    size_t i = 0;
    while (i < N_OPTIONS && option_rows[i].id != id)
        i++;
    return i;
}

/* The subcommand: the first argument that is neither an option nor an option's argument, when
 * it is "scan", "gpus", "advise" or "audit"; it is taken out of argv. "--" ends the options, so
 * that "smcheck -- scan" names a file. Returns the mode. */
static mode take_subcommand(int *argc, char **argv)
{
    static const char *const names[] = {"scan", "gpus", "advise", "audit"};
    static const mode modes[] = {MODE_SCAN, MODE_GPUS, MODE_ADVISE, MODE_AUDIT};
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) return MODE_JUDGE;
        if (a[0] == '-' && a[1] == '-') { /* --name, --name=value, --name value */
            if (strchr(a, '=')) continue;
            size_t len = strlen(a + 2), match = N_OPTIONS, prefixes = 0;
            for (size_t r = 0; r < N_OPTIONS; r++) /* getopt_long takes unique prefixes */
                if (strncmp(option_rows[r].name, a + 2, len) == 0) {
                    if (option_rows[r].name[len] == '\0') {
                        match = r, prefixes = 1;
                        break;
                    }
                    match = r, prefixes++;
                }
            if (prefixes == 1 && option_rows[match].arg) i++; /* its argument */
            continue;
        }
        if (a[0] == '-' && a[1]) { /* -qj4, -o FILE */
            for (const char *c = a + 1; *c; c++) {
                size_t r = option_row_of((unsigned char)*c);
                if (r < N_OPTIONS && option_rows[r].arg) {
                    if (!c[1]) i++; /* -o FILE; else -oFILE */
                    break;
                }
            }
            continue;
        }
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
            if (strcmp(a, names[k]) == 0) {
                memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof *argv);
                (*argc)--;
                return modes[k];
            }
        return MODE_JUDGE; /* a PATH */
    }
    return MODE_JUDGE;
}

/* What each mode is called in a message. */
static const char *mode_name(unsigned m)
{
    return m == M_SCAN     ? "'scan'"
           : m == M_GPUS   ? "'gpus'"
           : m == M_ADVISE ? "'advise'"
           : m == M_AUDIT  ? "'audit'"
                           : "judging";
}

static int usage_error(const char *fmt, const char *what)
{
    fputs("smcheck: ", diag);
    fprintf(diag, fmt, what);
    fputs("\nTry 'smcheck --help'.\n", diag);
    return EXIT_USAGE;
}

/* A value an option does not take: "OPTION WANTS, not 'VALUE'". */
static int bad_value(const char *option, const char *wants, const char *value)
{
    char m[512];
    snprintf(m, sizeof m, "%s %s%s not '%s'", option, wants, option[2] == 'f' ? ";" : ",", value);
    return usage_error("%s", m);
}

/* The option nearest a misspelt long one by edit distance ("drvier" -> "driver"), when at most
 * two edits and a third of its length away; else NULL. given: the name after "--", to any '='. */
static const char *nearest_option(const char *given)
{
    size_t n = strcspn(given, "="), best_d = SIZE_MAX, row[65];
    const char *best = NULL;
    for (size_t r = 0; r < N_OPTIONS && n <= 64; r++) {
        const char *name = option_rows[r].name;
        size_t m = strlen(name);
        if (m > 64) continue;
        for (size_t j = 0; j <= m; j++)
            row[j] = j;
        for (size_t i = 1; i <= n; i++) { /* row: the distances of given[0..i) to name[0..j) */
            size_t corner = row[0];
            row[0] = i;
            for (size_t j = 1; j <= m; j++) {
                size_t above = row[j], d = corner + (given[i - 1] != name[j - 1]);
                if (above + 1 < d) d = above + 1;
                if (row[j - 1] + 1 < d) d = row[j - 1] + 1;
                row[j] = d;
                corner = above;
            }
        }
        if (row[m] < best_d) best_d = row[m], best = name;
    }
    return best && best_d <= 2 && best_d * 3 <= n ? best : NULL;
}

/* An http:// or https:// URL, as the library reads them. */
static bool is_url(const char *s)
{
    return strncasecmp(s, "https://", 8) == 0 || strncasecmp(s, "http://", 7) == 0;
}

/* Returns -1 to go on, or the exit status to stop with. */
/* The values of --platform, --driver and --fail-on, from the command line or a fleet's target:
 * false when the value is not one (WANTS_ says what is). */
#define WANTS_PLATFORM                                                                             \
    "wants linux-x86_64, linux-aarch64, windows-amd64 or windows-arm64 (or a wheel platform tag: " \
    "manylinux_2_28_x86_64)"
#define WANTS_DRIVER                                                                               \
    "wants a CUDA version of 9.0 or later (12.8, 12.8.1) or a driver version of CUDA 9.0's R384 "  \
    "or later (570.124.06, 410.48)"
#define WANTS_FAIL_ON                                                                              \
    "wants none, partial, jit or never, optionally followed by ,allow-cpu-only and "               \
    ",allow-compiler"

static bool set_platform(config *cfg, const char *v)
{
    if (!(cfg->platform = smc_platform_name(v))) return false;
    /* a wheel tag says more (the glibc, musl) to the choice of wheels */
    cfg->scan.index.wheel_platform = strchr(v, '_') ? v : NULL;
    return true;
}

static bool set_driver(config *cfg, const char *v)
{
    int r = smc_driver_parse(v, &cfg->driver_cuda);
    if (r == 0) return false;
    cfg->driver_newer = r == 2; /* said in the report, where the driver's source is */
    cfg->have_driver = true;
    return true;
}

static bool set_fail_on(config *cfg, const char *v)
{
    cfg->fail_never = false;
    cfg->fail_on = SMC_STATUS_NONE;
    cfg->allow = 0;
    for (const char *p = v, *end; *p; p = *end ? end + 1 : end) {
        end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        size_t n = (size_t)(end - p);
        bool first = p == v;
#define IS(word) (n == sizeof word - 1 && strncmp(p, word, n) == 0)
        if (first && IS("none"))
            cfg->fail_on = SMC_STATUS_NONE;
        else if (first && IS("partial"))
            cfg->fail_on = SMC_STATUS_PARTIAL;
        else if (first && IS("jit"))
            cfg->fail_on = SMC_STATUS_JIT;
        else if (first && IS("never"))
            cfg->fail_never = true;
        else if (IS("allow-cpu-only"))
            cfg->allow |= SMC_ALLOW_CPU_ONLY;
        else if (IS("allow-compiler"))
            cfg->allow |= SMC_ALLOW_COMPILER;
        else
            return false;
#undef IS
        if (!*end) break;
    }
    return true;
}

static int parse_args(int argc, char **argv, config *cfg)
{
    struct option longs[N_OPTIONS + 1];
    char shorts[2 * N_OPTIONS + 2] = ":"; /* ':' first: a missing argument returns ':' */
    size_t ns = 1;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const option_row *r = &option_rows[i];
        longs[i] = (struct option){r->name, r->arg ? required_argument : no_argument, NULL, r->id};
        if (r->id < 256) {
            shorts[ns++] = (char)r->id;
            if (r->arg) shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    longs[N_OPTIONS] = (struct option){0};

    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        size_t row = option_row_of(c);
        if (row < N_OPTIONS) cfg->given[row] = true;
        switch (c) {
        case OPT_FORMAT:
            cfg->sarif = strcmp(optarg, "sarif") == 0; /* JSON too: UTF-8 as it is */
            if (strcmp(optarg, "json") == 0 || cfg->sarif)
                cfg->json = true;
            else if (strcmp(optarg, "text") == 0)
                cfg->json = false;
            else
                return usage_error("unknown format '%s' (text, json or sarif)", optarg);
            break;
        case OPT_GPU:
            cfg->gpus = optarg;
            break;
        case OPT_GPU_TABLE:
            cfg->gpu_table = optarg;
            break;
        case OPT_BUILDS_TABLE:
            cfg->builds_table = optarg;
            break;
        case OPT_PLATFORM:
            if (!set_platform(cfg, optarg)) return bad_value("--platform", WANTS_PLATFORM, optarg);
            break;
        case OPT_DRIVER:
            if (!set_driver(cfg, optarg)) return bad_value("--driver", WANTS_DRIVER, optarg);
            break;
        case OPT_FAIL_ON: /* LEVEL, then ,allow-cpu-only and ,allow-compiler */
            if (!set_fail_on(cfg, optarg)) return bad_value("--fail-on", WANTS_FAIL_ON, optarg);
            break;
        case OPT_SARIF:
            cfg->sarif_file = optarg;
            break;
        case OPT_DETAIL:
            cfg->display.detail = true;
            break;
        case OPT_VERIFY:
            cfg->scan.read.verify = true;
            break;
        case OPT_LIST:
            cfg->list = true;
            break;
        case OPT_JOBS: {
            char *end;
            errno = 0;
            unsigned long n = strtoul(optarg, &end, 10);
            if (errno || *end || end == optarg || n < 1 || n > 256 || optarg[0] == '-')
                return usage_error("--jobs wants a number from 1 to 256, not '%s'", optarg);
            cfg->scan.run.jobs = (unsigned)n;
            break;
        }
        case OPT_INDEX_URL:
            if (!is_url(optarg))
                return usage_error("--index-url wants an http:// or https:// URL, not '%s'", optarg);
            cfg->scan.index.index_url = optarg;
            break;
        case OPT_EXTRA_INDEX_URL: {
            if (!is_url(optarg))
                return usage_error("--extra-index-url wants an http:// or https:// URL, not '%s'",
                                   optarg);
            if (!append_arg(&cfg->extra_indexes, &cfg->scan.index.extra_index_count, optarg))
                return oom_exit();
            cfg->scan.index.extra_index_urls = cfg->extra_indexes;
            break;
        }
        case OPT_EXTRA: {
            if (!*optarg) return usage_error("%s", "--extra wants the name of an extra");
            if (!append_arg(&cfg->lock_extras, &cfg->scan.index.lock_extra_count, optarg))
                return oom_exit();
            cfg->scan.index.lock_extras = cfg->lock_extras;
            break;
        }
        case OPT_PYTHON_VERSION: {
            unsigned major, minor;
            char tail;
            if (sscanf(optarg, "%u.%u%c", &major, &minor, &tail) != 2 || major != 3 || minor > 99)
                return usage_error("--python-version wants 3.X (3.11), not '%s'", optarg);
            cfg->scan.index.python_version = optarg;
            break;
        }
        case OPT_CONFIG:
            cfg->config = optarg;
            break;
        case OPT_NO_CONFIG:
            cfg->no_config = true;
            break;
        case OPT_NO_CACHE:
            cfg->scan.cache.off = true;
            break;
        case OPT_SHARD:
            cfg->shard = optarg;
            break;
        case OPT_MERGE:
            cfg->merge = true;
            break;
        case OPT_FACTS_URL:
            if (strncmp(optarg, "http://", 7) != 0 && strncmp(optarg, "https://", 8) != 0)
                return usage_error("--facts-url wants an http:// or https:// URL, not '%s'",
                                   optarg);
            cfg->scan.cache.facts_url = optarg;
            break;
        case OPT_CACHE_MAX:
            if (!parse_size(optarg, &cfg->scan.cache.cap) || cfg->scan.cache.cap == 0)
                return usage_error("--cache-max wants a size such as 512M or 4G, not '%s'", optarg);
            break;
        case OPT_TIMEOUT: {
            char *end;
            errno = 0;
            unsigned long n = strtoul(optarg, &end, 10);
            if (errno || *end || end == optarg || n < 1 || n > 86400 || optarg[0] == '-')
                return usage_error("--timeout wants seconds from 1 to 86400, not '%s'", optarg);
            cfg->scan.net.timeout = (unsigned)n;
            break;
        }
        case OPT_SPEED_LIMIT:
            if (!parse_size(optarg, &cfg->scan.net.speed_limit) || cfg->scan.net.speed_limit == 0 ||
                cfg->scan.net.speed_limit > (1u << 30))
                return usage_error("--speed-limit wants bytes a second such as 512 or 10k, at "
                                   "most 1G, not '%s'", optarg);
            break;
        case OPT_MAX_INFLATE:
        case OPT_MAX_INFLATE_TOTAL: {
            uint64_t v;
            if (!parse_size(optarg, &v))
                return usage_error(
                    "--max-inflate(-total) wants a size such as 512M or 4G, not '%s'", optarg);
            *(c == OPT_MAX_INFLATE ? &cfg->scan.limits.max_member_bytes
                                   : &cfg->scan.limits.max_input_bytes) = v;
            break;
        }
        case OPT_MAX_CONTAINERS:
        case OPT_MAX_IMAGES:
        case OPT_MAX_MEMBERS:
        case OPT_MAX_DEPTH:
        case OPT_MAX_PATH:
        case OPT_MAX_FILES: {
            uint64_t v;
            if (!parse_size(optarg, &v))
                return usage_error("a --max-... option wants a positive number, not '%s'", optarg);
            uint64_t *field[] = {&cfg->scan.limits.max_containers, &cfg->scan.limits.max_images,
                                 &cfg->scan.limits.max_members,    &cfg->scan.limits.max_depth,
                                 &cfg->scan.limits.max_path,       &cfg->scan.limits.max_files};
            *field[c - OPT_MAX_CONTAINERS] = v;
            break;
        }
        case OPT_COLOR:
            if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 &&
                strcmp(optarg, "never") != 0)
                return usage_error("--color wants auto, always or never, not '%s'", optarg);
            cfg->color = optarg;
            break;
        case OPT_QUIET:
            cfg->quiet = true;
            break;
        case OPT_ONE_FILE_SYSTEM:
            cfg->scan.walk.one_file_system = true;
            break;
        case OPT_EXCLUDE: {
            if (!append_arg(&cfg->excludes, &cfg->scan.walk.exclude_count, optarg))
                return oom_exit();
            cfg->scan.walk.excludes = cfg->excludes;
            break;
        }
        case OPT_OUTPUT:
            cfg->output = optarg;
            break;
        case OPT_VERSION:
            printf("smcheck %s\n", SMC_VERSION);
            return EXIT_CLEAN;
        case OPT_HELP:
            usage(stdout);
            return EXIT_CLEAN;
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: {
            const char opt[3] = {'-', (char)optopt, '\0'};
            const char *given = optopt ? opt : argv[optind - 1];
            const char *near = strncmp(given, "--", 2) == 0 ? nearest_option(given + 2) : NULL;
            if (!near) return usage_error("unknown option '%s'", given);
            fprintf(diag, "smcheck: unknown option '%s' (did you mean --%s?)\n", given, near);
            fputs("Try 'smcheck --help'.\n", diag);
            return EXIT_USAGE;
        }
        }
    }
    return -1;
}

/* Refuses the options the mode would ignore, and formats it has no use for. */
static int check_modes(const config *cfg)
{
    static const unsigned bit[] = {[MODE_JUDGE] = M_JUDGE,
                                   [MODE_SCAN] = M_SCAN,
                                   [MODE_GPUS] = M_GPUS,
                                   [MODE_ADVISE] = M_ADVISE,
                                   [MODE_AUDIT] = M_AUDIT};
    unsigned m = bit[cfg->mode];
    for (size_t r = 0; r < N_OPTIONS; r++) {
        if (!cfg->given[r] || (option_rows[r].modes & m)) continue;
        char forms[64] = "";
        for (unsigned k = M_JUDGE; k <= M_AUDIT; k <<= 1)
            if (option_rows[r].modes & k)
                snprintf(forms + strlen(forms), sizeof forms - strlen(forms), "%s%s",
                         forms[0] ? " and " : "", mode_name(k));
        char what[160];
        snprintf(what, sizeof what, "--%s is not for %s: it is for %s", option_rows[r].name,
                 mode_name(m), forms);
        return usage_error("%s", what);
    }
    if (cfg->sarif && cfg->mode != MODE_JUDGE)
        return usage_error("--format sarif is for judging, not for %s", mode_name(m));
    if (cfg->sarif_file && cfg->sarif)
        return usage_error("%s", "--sarif writes SARIF beside another format: not with --format "
                                 "sarif");
    return -1;
}

/* Opens the report's destination; NULL after a message when it cannot. */
static FILE *open_output(const config *cfg)
{
    FILE *out = cfg->output ? fopen(cfg->output, "w") : stdout;
    if (!out) {
        fprintf(diag, "smcheck: %s: %s\n", cfg->output, strerror(errno));
        return NULL;
    }
    /* JSON and SARIF are UTF-8 by themselves (names: \udcXX); every format hides credentials. */
    FILE *safe = cfg->json ? smc_redact_stream(out, out != stdout) /* SARIF too */
                           : smc_text_stream(out, out != stdout);
    if (!safe) fputs("smcheck: out of memory\n", diag);
    if (!safe && out != stdout) fclose(out);
    return safe;
}

/* What main keeps to its end (the lists of repeatable options), released at exit whichever way
 * it returns. */
static void *kept_to_exit[3];

static void free_kept(void)
{
    for (size_t i = 0; i < sizeof kept_to_exit / sizeof *kept_to_exit; i++)
        free(kept_to_exit[i]);
}

/* p (NULL: nothing) freed at exit, beside what is kept already. */
static void atexit_free(void *p)
{
    static bool registered;
    size_t i = 0;
    while (i < sizeof kept_to_exit / sizeof *kept_to_exit && kept_to_exit[i])
        i++;
    if (!p || i == sizeof kept_to_exit / sizeof *kept_to_exit) return;
    kept_to_exit[i] = p;
    if (!registered) registered = atexit(free_kept) == 0;
}

static int close_output(FILE *out, smc_status st)
{
    int closed = out == stdout ? fflush(out) : fclose(out);
    if (closed != 0 && st == SMC_OK) st = SMC_ERR_IO;
    if (st == SMC_OK) return EXIT_CLEAN;
    fprintf(diag, "smcheck: writing the report: %s\n", smc_status_str(st));
    return EXIT_INPUT;
}

static int load_table(const config *cfg, smc_gpu_table **table)
{
    char err[256];
    int rc = cfg->gpu_table ? smc_gpu_table_load(cfg->gpu_table, table, err, sizeof err)
                            : smc_gpu_table_builtin(table);
    if (rc == 1) return -1;
    if (rc < 0) return oom_exit();
    fprintf(diag, "smcheck: %s\n", cfg->gpu_table ? err : "the built-in GPU table is broken");
    return EXIT_INPUT;
}

/* smcheck gpus: the local GPUs and driver, or the table. No driver is an answer, not an error. */
static int gpus(const config *cfg)
{
    if (cfg->list) {
        smc_gpu_table *t;
        int stop = load_table(cfg, &t);
        if (stop >= 0) return stop;
        FILE *out = open_output(cfg);
        int status = out ? close_output(out, cfg->json ? smc_report_gpu_table_json(out, t)
                                                       : smc_report_gpu_table_text(out, t))
                         : EXIT_INPUT;
        smc_gpu_table_free(t);
        return status;
    }
    smc_driver d;
    if (smc_driver_probe(&d) != SMC_OK) return oom_exit();
    FILE *out = open_output(cfg);
    int status = EXIT_INPUT;
    if (out)
        status = close_output(out, cfg->json ? smc_report_gpus_json(out, &d)
                                             : smc_report_gpus_text(out, &d));
    smc_driver_free(&d);
    return status;
}

/* Chooses the targets: --gpu, else the local GPUs, else one representative per capability
 * (*informational then: the exit status ignores the verdicts). Returns -1 or an exit status. */
/* A --gpu list: "7.0+7.5", the GPUs of one machine in the driver's order (a loader chooses once
 * for all of them; *one_machine); "7.0,7.5", GPUs judged each on its own. 1, 0 with err, -1 out
 * of memory. */
static int parse_gpus(const smc_gpu_table *table, const char *gpus, smc_target **targets, size_t *n,
                      bool *one_machine, char *err, size_t en)
{
    *targets = NULL;
    *n = 0;
    *one_machine = strchr(gpus, '+') != NULL;
    if (*one_machine && strchr(gpus, ',')) {
        snprintf(err, en,
                 "'+' joins the GPUs of one machine, ',' lists GPUs judged apart: use "
                 "one or the other, not '%s'",
                 gpus);
        return 0;
    }
    char *list = strdup(gpus);
    if (!list) return -1;
    for (char *p = list; *p; p++)
        if (*p == '+') *p = ',';
    int rc = smc_target_parse_list(table, list, targets, n, err, en);
    free(list);
    return rc;
}

static int choose_targets(config *cfg, const smc_gpu_table *table, smc_target **targets, size_t *n,
                          bool *informational)
{
    *targets = NULL;
    *n = 0;
    *informational = false;
    if (cfg->gpus && strcmp(cfg->gpus, "auto") != 0) {
        char err[512];
        int rc = parse_gpus(table, cfg->gpus, targets, n, &cfg->one_machine, err, sizeof err);
        if (rc == 1) return -1;
        if (rc < 0) return oom_exit();
        return usage_error("--gpu: %s", err);
    }
    /* The local GPUs, chosen as the library chooses them for smcheck_check. */
    smc_request q = {.driver_cuda = cfg->driver_cuda,
                     .driver_source = cfg->have_driver ? "--driver" : NULL};
    smc_driver d = {0};
    if (smc_request_local(&q, table, targets, &d) != SMC_OK) {
        smc_driver_free(&d);
        return oom_exit();
    }
    *n = q.target_count;
    if (!cfg->have_driver) {
        cfg->driver_cuda = q.driver_cuda;
        cfg->driver_source = q.driver_source;
    }
    cfg->one_machine = q.one_machine;
    cfg->local = q.local;
    *informational = q.informational;
    if (!cfg->local && (cfg->gpus || cfg->mode == MODE_ADVISE)) { /* there is no local GPU */
        char why[400];
        if (cfg->gpus)
            snprintf(why, sizeof why, "--gpu auto: no local GPU (%s)",
                     d.message[0] ? d.message : "none found");
        else
            snprintf(why, sizeof why,
                     "advise: name the GPUs to advise for with --gpu (for example: smcheck "
                     "advise --gpu rtx-4090); there is no local GPU: %s",
                     d.message[0] ? d.message : "none found");
        smc_driver_free(&d);
        free(*targets);
        *targets = NULL;
        *n = 0;
        return usage_error("%s", why);
    }
    if (!cfg->local && !cfg->quiet)
        fprintf(diag,
                "smcheck: no local GPU (%s); judging against one representative GPU per "
                "architecture, for information (--gpu names yours)\n",
                d.message[0] ? d.message : "none found");
    smc_driver_free(&d);
    return -1;
}

typedef struct progress_state {
    bool shown;
} progress_state;

/* One line on stderr, rewritten in place: how far, how fast, what now. */
static void show_progress(void *ctx, uint64_t done, uint64_t total, const char *current)
{
    progress_state *ps = ctx;
    static struct timespec start;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!ps->shown) start = now;
    double secs = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
    const char *slash = strrchr(current, '/');
    char base[64]; /* a name as the walk found it: no control reaches the terminal */
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : current);
    for (char *c = base; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    double rate = secs > 0 ? (double)done / 1e6 / secs : 0.0;
    bool gb = (total && done <= total ? total : done) >= 1000000000u; /* the unit of both */
    double unit = gb ? 1e9 : 1e6;
    if (total && done <= total)
        fprintf(diag, "\r\033[Ksmcheck: %3.0f%% %.1f of %.1f %s, %.0f MB/s, %.60s",
                100.0 * (double)done / (double)total, (double)done / unit, (double)total / unit,
                gb ? "GB" : "MB", rate, base);
    else /* more than was known to come: a remote wheel before its directory is read */
        fprintf(diag, "\r\033[Ksmcheck: %.1f %s, %.0f MB/s, %.60s", (double)done / unit,
                gb ? "GB" : "MB", rate, base);
    fflush(diag); /* line-buffered, and this line has no end: out now, as it happens */
    ps->shown = true;
}

/* Prints each input error and finding as a one-line diagnostic; returns whether there were any. */
static bool diagnose(smc_input *const *inputs, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const smc_input *in = inputs[i];
        for (size_t k = 0; k < in->error_count; k++, any = true)
            fprintf(diag, "smcheck: %s: %s\n", in->errors[k].path, in->errors[k].message);
        if (in->errors_more)
            fprintf(diag, "smcheck: %s: and %zu more errors, not kept (%d are, an input)\n",
                    in->path, in->errors_more, SMC_ERRORS_KEPT);
        for (size_t l = 0; l < in->library_count; l++) {
            const smc_library *lib = &in->libraries[l];
            for (size_t k = 0; k < lib->finding_count; k++, any = true) {
                const smc_finding *f = &lib->findings[k];
                if (f->offset == SMC_NO_OFFSET)
                    fprintf(diag, "smcheck: %s: %s\n", lib->path, f->message);
                else
                    fprintf(diag, "smcheck: %s: at 0x%llx: %s\n", lib->path,
                            (unsigned long long)f->offset, f->message);
            }
            if (lib->findings_more)
                fprintf(diag, "smcheck: %s: and %zu more findings, not kept (%d are, a library)\n",
                        lib->path, lib->findings_more, SMC_FINDINGS_KEPT);
        }
    }
    return any;
}

/* How the report names a --driver: a branch newer than the tables is judged as the newest. */
static const char *driver_source(const config *cfg)
{
    if (cfg->fleet_target) return "the fleet"; /* a target of pyproject.toml's */
    return cfg->driver_newer ? "--driver, newer than any smcheck knows: a branch is judged as "
                               "the newest it knows, a CUDA version as given"
                             : "--driver";
}

/* The exit status the overall verdicts call for, and the warning that partial always gets. */
static int gate(const config *cfg, const smc_result *r)
{
    bool fail = false;
    for (size_t t = 0; t < r->target_count; t++) {
        if (!cfg->allow) {
            fail |= !cfg->fail_never && smc_status_fails(r->overall[t], cfg->fail_on);
            continue;
        }
        for (size_t i = 0; i < r->input_count; i++) /* each input without what is allowed */
            fail |= !cfg->fail_never && t < r->judged[i].verdict_count &&
                    smc_status_fails(r->judged[i].verdicts[t].allowing[cfg->allow], cfg->fail_on);
    }
    if (r->partial && !cfg->quiet)
        fprintf(diag,
                "smcheck: warning: %zu librar%s partial: it runs, but some of its kernels cannot "
                "on the GPU (--detail names them)\n",
                r->partial, r->partial == 1 ? "y is" : "ies are");
    return fail ? EXIT_FAIL : EXIT_CLEAN;
}

static int load_builds(const config *cfg, smc_builds **builds)
{
    char err[320];
    int rc = cfg->builds_table ? smc_builds_load(cfg->builds_table, builds, err, sizeof err)
                               : smc_builds_builtin(builds);
    if (rc == 1) return -1;
    if (rc < 0) fputs("smcheck: out of memory\n", diag);
    else fprintf(diag, "smcheck: %s\n", cfg->builds_table ? err : "the built-in builds table is broken");
    return EXIT_INPUT;
}

/* Whether every target is a GPU that only Arm machines have (Jetson, DGX Spark). */
static bool arm_only(const smc_target *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!smc_gpu_arm_only(&t[i])) return false;
    return n > 0;
}

/* The torch family installed in env (or, with NULL, in the active environment, else the first
 * site-packages on disk that has torch): *now, whose strings live in *in (free it); both empty
 * when none has. Returns -1, or the exit status to stop with. */
static int installed_torch(config *cfg, const char *env, smc_torch_installed *now, smc_input **in)
{
    char **found_paths = NULL, *why = NULL;
    const char *given[1] = {env};
    const char *const *paths = given;
    size_t n = 1;
    *in = NULL;
    *now = (smc_torch_installed){0};
    if (!env) {
        if (smc_default_paths(&found_paths, &n, &why) != SMC_OK)
            return oom_exit();
        paths = (const char *const *)found_paths;
    }
    int stop = -1;
    for (size_t i = 0; i < n && !now->torch && stop < 0; i++) {
        smc_input *got = NULL;
        smc_status st = smc_scan_paths(&paths[i], 1, &cfg->scan, &got);
        if (st != SMC_OK) {
            fprintf(diag, "smcheck: %s\n", smc_status_str(st));
            stop = EXIT_INPUT;
        } else if (env && diagnose(&got, 1)) {
            stop = EXIT_INPUT;
        }
        smc_torch_installed found = smc_torch_installed_in(got);
        if (stop < 0 && (found.torch || found.torchvision || found.torchaudio)) {
            *now = found;
            *in = got;
        } else {
            smc_input_free(got);
        }
    }
    if (env && stop < 0 && !*in && !cfg->quiet)
        fprintf(diag, "smcheck: %s: no torch, torchvision or torchaudio installed there\n", env);
    for (size_t i = 0; found_paths && i < n; i++)
        free(found_paths[i]);
    free(found_paths);
    free(why);
    return stop;
}

/* smcheck advise: the build to install for the GPUs (local or --gpu) and the driver; with an
 * environment that has torch, the commands replace it. */
static int advise(config *cfg, const char *env)
{
    smc_gpu_table *table = NULL;
    smc_builds *builds = NULL;
    smc_target *targets = NULL;
    size_t n = 0;
    bool informational = false;
    int stop = load_table(cfg, &table);
    if (stop >= 0) return stop;
    if ((stop = load_builds(cfg, &builds)) >= 0) {
        smc_gpu_table_free(table);
        return stop;
    }
    stop = choose_targets(cfg, table, &targets, &n, &informational);
    smc_gpu_table_free(table);
    if (stop >= 0) {
        smc_builds_free(builds);
        return stop;
    }
    if (cfg->have_driver) cfg->driver_source = driver_source(cfg);
    const char *platform = cfg->platform ? cfg->platform
                           : arm_only(targets, n) ? "linux-aarch64"
                                                  : smc_platform_here();
    smc_torch_installed now;
    smc_input *where = NULL;
    if ((stop = installed_torch(cfg, env, &now, &where)) >= 0) {
        smc_builds_free(builds);
        free(targets);
        return stop;
    }
    smc_advice_request req = {.builds = builds,
                              .platform = platform,
                              .targets = targets,
                              .target_count = n,
                              .driver_cuda = cfg->driver_cuda,
                              .driver_source = cfg->driver_source,
                              .installed = where ? &now : NULL,
                              .installed_where = where ? where->path : NULL};
    smc_advice a;
    smc_status st = smc_advise(&req, &a);
    int status = EXIT_INPUT;
    if (st != SMC_OK) {
        fprintf(diag, "smcheck: %s\n", smc_status_str(st));
    } else {
        FILE *out = open_output(cfg);
        if (out)
            status = close_output(out, cfg->json ? smc_report_advice_json(out, &a, &cfg->display)
                                                 : smc_report_advice_text(out, &a, &cfg->display));
        if (status == EXIT_CLEAN && a.best == SMC_NONE) status = EXIT_FAIL;
        smc_advice_free(&a);
    }
    smc_input_free(where);
    smc_builds_free(builds);
    free(targets);
    return status;
}

/* Judges (or scans) paths for cfg's targets, the command line's or a fleet target's, into *out:
 * -1 and the result, or the exit status to stop with. */
static int check_once(config *cfg, char **paths, int npaths, smc_result **out,
                      smc_builds **builds_out)
{
    *out = NULL;
    *builds_out = NULL;
    int stop;
    static progress_state ps; /* once shown, its line goes after each check */
    ps.shown = false;
    if (!cfg->quiet && isatty(STDERR_FILENO)) {
        cfg->scan.run.progress = show_progress;
        cfg->scan.run.progress_ctx = &ps;
    }

    smc_gpu_table *table = NULL;
    smc_builds *builds = NULL;
    smc_target *targets = NULL, *serving = NULL;
    size_t ntargets = 0, nserving = 0;
    bool informational = false;
    if ((stop = load_table(cfg, &table)) >= 0) return stop;
    if (cfg->mode == MODE_JUDGE) {
        stop = choose_targets(cfg, table, &targets, &ntargets, &informational);
        if (stop < 0) stop = load_builds(cfg, &builds);
        if (cfg->have_driver) cfg->driver_source = driver_source(cfg);
    } else if (smc_targets_representative(table, &serving, &nserving) != SMC_OK) {
        stop = oom_exit(); /* scan: what each library serves */
    }
    smc_gpu_table_free(table);
    if (stop >= 0) {
        free(targets);
        free(serving);
        return stop;
    }
    smc_request req = {.paths = (const char *const *)paths,
                       .path_count = (size_t)npaths,
                       .scan = cfg->scan,
                       .targets = targets,
                       .target_count = ntargets,
                       .driver_cuda = cfg->driver_cuda,
                       .driver_source = cfg->driver_source,
                       .informational = informational,
                       .serving = serving,
                       .serving_count = nserving,
                       .kernel_names = cfg->display.detail,
                       .builds = builds,
                       .default_reason = cfg->default_reason,
                       .platform = cfg->platform,
                       .one_machine = cfg->one_machine,
                       .local = cfg->local,
                       /* the local GPUs: the packages run here, in this environment */
                       .environment = cfg->local ? (const char *const *)environ : NULL};
    smc_result *r = NULL;
    smc_status st = smc_check(&req, &r);
    if (ps.shown) { /* the progress line goes, before the report comes */
        fputs("\r\033[K", diag);
        fflush(diag);
    }
    free(targets);
    free(serving);
    if (st != SMC_OK) {
        fprintf(diag, "smcheck: %s\n", smc_status_str(st));
        smc_builds_free(builds);
        return EXIT_INPUT;
    }
    if (r->arm_left_out && !cfg->quiet)
        fputs("smcheck: every library is x86-64: no columns for the GPUs of Arm machines (Jetson, "
              "DGX Spark)\n",
              diag);
    *out = r;
    *builds_out = builds;
    return -1;
}

/* Writes the reports of n results (a fleet's targets when names is not NULL) in cfg's format to
 * its output, and as SARIF to --sarif's file: EXIT_CLEAN, or EXIT_INPUT when one could not be
 * written. */
static int write_reports(config *cfg, const char *fleet, smc_result *const *r,
                         const char *const *names, const char *const *heads, size_t n)
{
    if (cfg->color && strcmp(cfg->color, "auto") != 0)
        cfg->display.color = strcmp(cfg->color, "always") == 0;
    else {
        const char *no_color = getenv("NO_COLOR"); /* no-color.org: set and not empty */
        cfg->display.color = !cfg->output && isatty(STDOUT_FILENO) && !(no_color && *no_color);
    }
    const smc_result *const *all = (const smc_result *const *)r;
    FILE *out = open_output(cfg);
    smc_status st = SMC_OK;
    if (out && !names)
        st = cfg->sarif  ? smc_report_sarif(out, r[0])
             : cfg->json ? smc_report_json(out, r[0], &cfg->display)
                         : smc_report_text(out, r[0], &cfg->display);
    else if (out && cfg->sarif)
        st = smc_report_sarif_fleet(out, all, names, n);
    else if (out && cfg->json)
        st = smc_report_json_fleet(out, fleet, all, names, n, &cfg->display);
    for (size_t i = 0; out && names && !cfg->sarif && !cfg->json && i < n && st == SMC_OK; i++) {
        fprintf(out, "%s== fleet target %s\n", i ? "\n" : "", heads[i]);
        st = smc_report_text(out, r[i], &cfg->display);
    }
    int written = out ? close_output(out, st) : EXIT_INPUT;
    if (cfg->sarif_file && written == EXIT_CLEAN) { /* the same results, as SARIF, beside it */
        FILE *file = fopen(cfg->sarif_file, "w");
        if (!file) fprintf(diag, "smcheck: %s: %s\n", cfg->sarif_file, strerror(errno));
        FILE *sf = file ? smc_redact_stream(file, true) : NULL;
        if (file && !sf) {
            fputs("smcheck: out of memory\n", diag);
            fclose(file);
        }
        written = sf ? close_output(sf, smc_report_sarif_fleet(sf, all, names, n)) : EXIT_INPUT;
    }
    return written;
}

/* The fleet to judge against, unless --no-config, or the command line names the GPUs, driver
 * or platform itself (said once): -1 to go on (fleet->count 0: none), or the exit status. */
static int load_fleet(config *cfg, smc_fleet *fleet)
{
    char *path = NULL;
    int found = cfg->config ? 1 : cfg->no_config ? 0 : smc_fleet_find(".", &path);
    if (found < 0) return oom_exit();
    if (found == 0) return -1;
    const char *file = cfg->config ? cfg->config : path;
    if (cfg->gpus || cfg->have_driver || cfg->platform) {
        if (!cfg->quiet)
            fprintf(diag, "smcheck: %s: its fleet is not used: the command line names %s\n", file,
                    cfg->gpus          ? "--gpu"
                    : cfg->have_driver ? "--driver"
                                       : "--platform");
        free(path);
        return -1;
    }
    char why[640];
    bool ok = smc_fleet_read(file, fleet, why, sizeof why);
    free(path);
    if (!ok) {
        fprintf(diag, "smcheck: %s (the fleet is not judged: fix it, or --no-config)\n", why);
        return EXIT_INPUT;
    }
    return -1;
}

/* skylos's platform "linux" or "windows": no architecture, so where the libraries load is not
 * checked (said when the fleet is judged). */
static bool os_only(const char *platform)
{
    return strcmp(platform, "linux") == 0 || strcmp(platform, "windows") == 0;
}

/* A fleet target as the command line would give it: its GPUs (one machine's with '+'), driver and
 * platform into c; false with why when one is not what the option takes. */
static bool target_config(config *c, const smc_fleet_target *t, const smc_gpu_table *table,
                          char *why, size_t n)
{
    c->gpus = t->gpus;
    smc_target *g = NULL;
    size_t ng = 0;
    bool one;
    char err[400];
    int rc = parse_gpus(table, t->gpus, &g, &ng, &one, err, sizeof err);
    free(g);
    bool ok = rc == 1;
    if (rc < 0) snprintf(err, sizeof err, "out of memory");
    if (!ok)
        snprintf(why, n, "gpus: %s", err);
    else if (t->driver && !set_driver(c, t->driver))
        snprintf(why, n, "driver %s, not '%s'", WANTS_DRIVER, t->driver), ok = false;
    else if (t->platform && !os_only(t->platform) && !set_platform(c, t->platform))
        snprintf(why, n, "platform %s, not '%s'", WANTS_PLATFORM, t->platform), ok = false;
    if (ok) {
        c->scan.walk.image_platform = c->platform;
        c->fleet_target = t->name;
    }
    return ok;
}

/* Judges paths for each target of the fleet, as if its gpus, driver and platform were given: one
 * report a target, named; the exit status is the worst. Every target is checked before any is
 * judged: one the command line would refuse is exit 2, naming its line. */
static int judge_fleet(config *cfg, const smc_fleet *fleet, char **paths, int npaths)
{
    size_t fail_on_row = option_row_of(OPT_FAIL_ON);
    if (fleet->fail_on && !cfg->given[fail_on_row] && !set_fail_on(cfg, fleet->fail_on)) {
        fprintf(diag, "smcheck: %s:%u: fail-on %s; not '%s'\n", fleet->path, fleet->fail_on_line,
                WANTS_FAIL_ON, fleet->fail_on);
        return EXIT_INPUT;
    }
    if (fleet->facts_url && !cfg->scan.cache.facts_url)
        cfg->scan.cache.facts_url = fleet->facts_url;
    smc_gpu_table *table = NULL;
    int stop = load_table(cfg, &table);
    if (stop >= 0) return stop;
    size_t n = fleet->count;
    config *c = calloc(n, sizeof *c);
    smc_result **r = calloc(n, sizeof *r);
    smc_builds **b = calloc(n, sizeof *b);
    const char **names = calloc(n, sizeof *names), **heads = calloc(n, sizeof *heads);
    if (!c || !r || !b || !names || !heads) stop = oom_exit();
    for (size_t i = 0; stop < 0 && i < n; i++) {
        const smc_fleet_target *t = &fleet->targets[i];
        char why[640];
        c[i] = *cfg;
        if (!target_config(&c[i], t, table, why, sizeof why)) {
            fprintf(diag, "smcheck: %s:%u: target '%s': %s\n", fleet->path, t->line, t->name, why);
            stop = EXIT_INPUT;
        }
        if (stop < 0 && t->platform && os_only(t->platform) && !cfg->quiet)
            fprintf(diag,
                    "smcheck: %s:%u: target '%s': platform %s names no architecture (amd64, "
                    "arm64): where the libraries load is not checked\n",
                    fleet->path, t->line, t->name, t->platform);
        names[i] = t->name;
#define HEAD_ARGS                                                                                  \
    "%s (%s:%u): --gpu %s%s%s%s%s", t->name, fleet->path, t->line, t->gpus,                        \
        t->driver ? " --driver " : "", t->driver ? t->driver : "",                                 \
        t->platform && !os_only(t->platform) ? " --platform " : "",                                \
        t->platform && !os_only(t->platform) ? t->platform : ""
        int len = snprintf(NULL, 0, HEAD_ARGS);
        char *head = len >= 0 ? malloc((size_t)len + 1) : NULL;
        if (head) snprintf(head, (size_t)len + 1, HEAD_ARGS);
#undef HEAD_ARGS
        if (!(heads[i] = head)) stop = oom_exit();
    }
    smc_gpu_table_free(table);
    int status = EXIT_CLEAN;
    bool unreadable = false;
    for (size_t i = 0; stop < 0 && i < n; i++) {
        stop = check_once(&c[i], paths, npaths, &r[i], &b[i]);
        if (stop >= 0) break;
        if (i == 0) unreadable = diagnose(r[i]->inputs, r[i]->input_count); /* the same inputs */
        int s = r[i]->informational ? EXIT_CLEAN : gate(&c[i], r[i]);
        if (s > status) status = s;
    }
    if (stop < 0) {
        int written = write_reports(cfg, fleet->path, r, names, heads, n);
        stop = unreadable || written != EXIT_CLEAN ? EXIT_INPUT : status;
    }
    for (size_t i = 0; i < n; i++) {
        if (r) smc_result_free(r[i]);
        if (b) smc_builds_free(b[i]);
        if (heads) free((char *)heads[i]);
    }
    free(c);
    free(r);
    free(b);
    free(names);
    free(heads);
    return stop;
}

int main(int argc, char **argv)
{
    config cfg = {.fail_on = SMC_STATUS_NONE};
    /* One malloc arena for all the scanning threads: with one each, what every thread once freed
     * stays resident in its own (tensorflow's wheel at -j16: 136 MiB, against 53 MiB), and the
     * scan mallocs per container, not per byte, so they hardly contend for it. */
    mallopt(M_ARENA_MAX, 1);
    /* libzip turns each member's DOS time into a time_t with mktime, and glibc, with TZ unset,
     * checks /etc/localtime again on every call (a stat a member: 500,000 for a wheel of 500,000
     * members). smcheck prints no times; named, the zone is read once. */
    setenv("TZ", ":/etc/localtime", 0);
    diag = smc_text_stream(stderr, false);
    if (diag) {
        setvbuf(diag, NULL, _IOLBF, 0);
        atexit(close_diag);
    } else {
        diag = stderr;
    }
    cfg.mode = take_subcommand(&argc, argv);
    int stop = parse_args(argc, argv, &cfg);
    atexit_free(cfg.excludes);
    atexit_free(cfg.extra_indexes);
    atexit_free(cfg.lock_extras);
    if (stop >= 0) return stop;
    int npaths = argc - optind;
    char **paths = argv + optind;
    if ((stop = check_modes(&cfg)) >= 0) return stop;
    if (cfg.mode == MODE_GPUS)
        return npaths > 0 ? usage_error("'gpus' takes no PATH: %s", paths[0]) : gpus(&cfg);
    if (cfg.mode == MODE_AUDIT) {
        audit_args a = {.opt = &cfg.scan,
                        .index_url = cfg.scan.index.index_url,
                        .shard = cfg.shard,
                        .output = cfg.output,
                        .merge = cfg.merge,
                        .quiet = cfg.quiet,
                        .paths = paths,
                        .npaths = npaths};
        return audit_run(&a, diag);
    }
    cfg.scan.walk.image_platform = cfg.platform; /* a multi-platform image's */
    if (cfg.mode == MODE_ADVISE)
        return npaths > 1 ? usage_error("'advise' takes one environment at most: %s", paths[1])
                          : advise(&cfg, npaths ? paths[0] : NULL);
    /* No PATH: the active Python environment, or the site-packages found on disk. */
    char **defaults = NULL, *why = NULL;
    size_t ndefaults = 0;
    if (npaths <= 0) {
        if (smc_default_paths(&defaults, &ndefaults, &why) != SMC_OK)
            return oom_exit();
        if (ndefaults == 0) {
            free(defaults);
            free(why);
            return usage_error("%s", "no PATH given, and no Python environment found to scan");
        }
        paths = defaults;
        npaths = (int)ndefaults;
        cfg.default_reason = why;
    }
    smc_fleet fleet = {0};
    if (cfg.mode == MODE_JUDGE && (stop = load_fleet(&cfg, &fleet)) >= 0) return stop;
    if (fleet.count) {
        stop = judge_fleet(&cfg, &fleet, paths, npaths);
        smc_fleet_free(&fleet);
        for (size_t i = 0; i < ndefaults; i++)
            free(defaults[i]);
        free(defaults);
        free(why);
        return stop;
    }
    smc_result *r = NULL;
    smc_builds *builds = NULL;
    if ((stop = check_once(&cfg, paths, npaths, &r, &builds)) >= 0) return stop;
    bool unreadable = diagnose(r->inputs, r->input_count);
    int status = gate(&cfg, r);
    if (r->informational) status = EXIT_CLEAN; /* the matrix is for information */
    int written = write_reports(&cfg, NULL, &r, NULL, NULL, 1);
    if (unreadable || written != EXIT_CLEAN) status = EXIT_INPUT;
    smc_result_free(r);
    smc_builds_free(builds);
    for (size_t i = 0; i < ndefaults; i++)
        free(defaults[i]);
    free(defaults);
    free(why);
    return status;
}
