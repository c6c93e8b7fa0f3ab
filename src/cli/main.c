/* main.c: the smcheck command. Parses the command line (one table drives both getopt_long and
 * --help), runs the library over each path and prints the report; diagnostics go to stderr as
 * "smcheck: PATH: message". It decides only the exit status. */
#include "smcheck/smcheck.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_CLEAN = 0, EXIT_INPUT = 2, EXIT_USAGE = 64 };

enum {
    OPT_FORMAT = 'f',
    OPT_JOBS = 'j',
    OPT_OUTPUT = 'o',
    OPT_HELP = 'h',
    OPT_DETAIL = 256,
    OPT_VERIFY,
    OPT_VERSION
};

typedef struct option_row {
    const char *name;
    int id; /* the short option letter when it has one */
    const char *arg;
    const char *help;
} option_row;

static const option_row option_rows[] = {
    {"format", OPT_FORMAT, "FMT", "report format: text (default) or json"},
    {"detail", OPT_DETAIL, NULL, "list every container and its images"},
    {"verify", OPT_VERIFY, NULL, "decompress every image and check it against its header"},
    {"jobs", OPT_JOBS, "N", "scan N files at once (default: one per online CPU)"},
    {"output", OPT_OUTPUT, "FILE", "write the report to FILE instead of stdout"},
    {"version", OPT_VERSION, NULL, "print the version and exit"},
    {"help", OPT_HELP, NULL, "print this help and exit"},
};
#define N_OPTIONS (sizeof option_rows / sizeof option_rows[0])

static void usage(FILE *f)
{
    fputs("usage: smcheck [scan] [OPTION]... PATH...\n"
          "       smcheck gpus [--format FMT]\n"
          "\n"
          "Lists the CUDA device code (sm_XX cubins, compute_XX PTX, lto_XX IR) in ELF files,\n"
          "static archives, raw fat binaries and directories of them, recognised by their bytes.\n"
          "Directories are walked recursively; symbolic links inside them are not followed.\n"
          "'smcheck gpus' lists the local GPUs and the driver's CUDA version through the CUDA\n"
          "Driver API (libcuda.so.1, or the library SMCHECK_LIBCUDA names).\n"
          "\n"
          "options:\n",
          f);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const option_row *r = &option_rows[i];
        char left[40];
        if (r->id < 256)
            snprintf(left, sizeof left, "-%c, --%s%s%s", r->id, r->name, r->arg ? " " : "",
                     r->arg ? r->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", r->name, r->arg ? " " : "",
                     r->arg ? r->arg : "");
        fprintf(f, "  %-22s %s\n", left, r->help);
    }
    fputs("\n"
          "exit status:\n"
          "  0   every input was read and every library parsed cleanly\n"
          "  2   some input could not be read, or a library holds malformed device code\n"
          "  64  usage error\n",
          f);
}

typedef struct config {
    smc_options scan;
    smc_report_options report;
    bool json;
    const char *output;
} config;

static int usage_error(const char *fmt, const char *what)
{
    fputs("smcheck: ", stderr);
    fprintf(stderr, fmt, what);
    fputs("\nTry 'smcheck --help'.\n", stderr);
    return EXIT_USAGE;
}

/* Returns -1 to go on, or the exit status to stop with. */
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
    memset(&longs[N_OPTIONS], 0, sizeof longs[N_OPTIONS]);

    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT:
            if (strcmp(optarg, "json") == 0)
                cfg->json = true;
            else if (strcmp(optarg, "text") == 0)
                cfg->json = false;
            else
                return usage_error("unknown format '%s' (text or json)", optarg);
            break;
        case OPT_DETAIL:
            cfg->report.detail = true;
            break;
        case OPT_VERIFY:
            cfg->scan.verify = true;
            break;
        case OPT_JOBS: {
            char *end;
            errno = 0;
            unsigned long n = strtoul(optarg, &end, 10);
            if (errno || *end || end == optarg || n < 1 || n > 256 || optarg[0] == '-')
                return usage_error("--jobs wants a number from 1 to 256, not '%s'", optarg);
            cfg->scan.jobs = (unsigned)n;
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
            char opt[3] = {'-', (char)optopt, '\0'};
            return usage_error("unknown option '%s'", optopt ? opt : argv[optind - 1]);
        }
        }
    }
    return -1;
}

/* Prints each input error and finding as a one-line diagnostic; returns whether there were any. */
static bool diagnose(smc_input *const *inputs, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const smc_input *in = inputs[i];
        for (size_t k = 0; k < in->error_count; k++, any = true)
            fprintf(stderr, "smcheck: %s: %s\n", in->errors[k].path, in->errors[k].message);
        for (size_t l = 0; l < in->library_count; l++) {
            const smc_library *lib = &in->libraries[l];
            for (size_t k = 0; k < lib->finding_count; k++, any = true) {
                const smc_finding *f = &lib->findings[k];
                if (f->offset == SMC_NO_OFFSET)
                    fprintf(stderr, "smcheck: %s: %s\n", lib->path, f->message);
                else
                    fprintf(stderr, "smcheck: %s: at 0x%llx: %s\n", lib->path,
                            (unsigned long long)f->offset, f->message);
            }
        }
    }
    return any;
}

/* smcheck gpus: the local GPUs and driver. No driver is an answer, not an error. */
static int gpus(const config *cfg)
{
    smc_driver d;
    if (smc_driver_probe(&d) != SMC_OK) {
        fputs("smcheck: out of memory\n", stderr);
        return EXIT_INPUT;
    }
    FILE *out = cfg->output ? fopen(cfg->output, "w") : stdout;
    int status = EXIT_CLEAN;
    if (!out) {
        fprintf(stderr, "smcheck: %s: %s\n", cfg->output, strerror(errno));
        status = EXIT_INPUT;
    } else {
        smc_status st = cfg->json ? smc_report_gpus_json(out, &d) : smc_report_gpus_text(out, &d);
        if ((out != stdout ? fclose(out) : fflush(out)) != 0 || st != SMC_OK) {
            fputs("smcheck: writing the report failed\n", stderr);
            status = EXIT_INPUT;
        }
    }
    smc_driver_free(&d);
    return status;
}

int main(int argc, char **argv)
{
    config cfg = {0};
    /* "scan" names what a bare invocation does today; judging against GPUs will extend it. */
    bool list_gpus = argc > 1 && strcmp(argv[1], "gpus") == 0;
    int first = argc > 1 && (list_gpus || strcmp(argv[1], "scan") == 0) ? 1 : 0;
    int stop = parse_args(argc - first, argv + first, &cfg);
    if (stop >= 0) return stop;
    int npaths = argc - first - optind;
    char **paths = argv + first + optind;
    if (list_gpus) return npaths > 0 ? usage_error("'gpus' takes no PATH: %s", paths[0]) : gpus(&cfg);
    if (npaths <= 0) return usage_error("%s", "no PATH given");

    smc_input **inputs = calloc((size_t)npaths, sizeof *inputs);
    smc_status st =
        inputs ? smc_scan_paths((const char *const *)paths, (size_t)npaths, &cfg.scan, inputs)
               : SMC_ERR_NOMEM;
    if (st != SMC_OK) {
        fprintf(stderr, "smcheck: %s\n", smc_status_str(st));
        free(inputs);
        return EXIT_INPUT;
    }
    int status = EXIT_CLEAN;
    size_t n = (size_t)npaths;
    if (diagnose(inputs, n)) status = EXIT_INPUT;

    FILE *out = cfg.output ? fopen(cfg.output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "smcheck: %s: %s\n", cfg.output, strerror(errno));
        status = EXIT_INPUT;
    } else {
        st = cfg.json ? smc_report_json(out, inputs, n, &cfg.report)
                      : smc_report_text(out, inputs, n, &cfg.report);
        if ((out != stdout ? fclose(out) : fflush(out)) != 0 && st == SMC_OK) st = SMC_ERR_IO;
        if (st != SMC_OK) {
            fprintf(stderr, "smcheck: writing the report: %s\n", smc_status_str(st));
            status = EXIT_INPUT;
        }
    }
    for (size_t i = 0; i < n; i++)
        smc_input_free(inputs[i]);
    free(inputs);
    return status;
}
