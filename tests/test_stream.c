/* test_stream.c: the same bytes give the same answer as one window (a file on disk) and as a
 * stream (a wheel member inflating). For each file named it reads the bytes once as one window,
 * once fed to the finder in uneven pieces from 1 byte to 1 MiB (so that headers, strings and
 * payloads straddle every kind of boundary, with the second pass when the finder asks for one),
 * then judges both for several targets and drivers and compares the two detailed JSON reports
 * byte for byte: libraries, containers, sections, members, relocatable flags, images and what was
 * read of them, the runtime needed, findings (their text) and verdicts with their reasons. Archives
 * are compared cut short at several places too.
 * Usage: test_stream FILE...   Prints one line per file and "N passed, M failed". */
#include "../src/lib/find/find.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "judged.h"
#include "pieces.h"

static const size_t sizes[] = {1, 7, 4093, 65537, 1u << 20, 3};

/* The input as a stream reads it. */
static smc_input *streamed(const char *path, const uint8_t *buf, size_t len,
                           const smc_options *opt, bool *twice, bool *spilled)
{
    smc_input *in = smc_input_new(path, SMC_INPUT_FILE);
    smc_finder *f = in ? smc_finder_new(path, opt, false) : NULL;
    if (f) smc_finder_expect(f, len); /* as a wheel member's claimed size says */
    smc_status st = f ? pieces_feed(f, buf, len, sizes, 6, twice) : SMC_ERR_NOMEM;
    /* A stream that outgrew its bounds is read as one window by its reader: nothing to compare. */
    *spilled = st == SMC_OK && smc_finder_spilled(f);
    if (st == SMC_OK && !*spilled) st = smc_finder_finish(f, in);
    smc_finder_free(f);
    if (st != SMC_OK || *spilled) {
        smc_input_free(in);
        return NULL;
    }
    in->files = 1;
    in->inspected = opt->read.inspect;
    return in;
}


/* The same, read for one target only (what the judge of --gpu 9.0 --driver 12.8 reads). */
static void compare_for(const char *path, const uint8_t *buf, size_t len, bool verify,
                        const smc_target *only)
{
    static const smc_target targets[] = {
        {.cc_major = 7, .cc_minor = 5},  {.cc_major = 8, .cc_minor = 0},
        {.cc_major = 8, .cc_minor = 7},  {.cc_major = 9, .cc_minor = 0},
        {.cc_major = 10, .cc_minor = 0}, {.cc_major = 12, .cc_minor = 0},
    };
    static const int drivers[] = {0, 12080, 13000};
    smc_options opt = {.read.verify = verify, .read.inspect = true, .run.jobs = 1};
    if (only) {
        opt.read.targets = only;
        opt.read.target_count = 1;
        opt.read.driver_cuda = 12080;
    }
    smc_input *whole = smc_input_new(path, SMC_INPUT_FILE);
    bool twice = false, spilled = false;
    smc_input *stream = streamed(path, buf, len, &opt, &twice, &spilled);
    bool ok = whole && (stream || spilled) && smc_scan_memory(whole, path, buf, len, &opt) == SMC_OK;
    char why[512] = "";
    if (!ok) snprintf(why, sizeof why, "a scan failed");
    if (spilled) { /* only the hostile fixtures outgrow a stream */
        ok = ok && strstr(path, "hostile");
        if (!ok) snprintf(why, sizeof why, "the stream outgrew its bounds");
        twice = false;
    }
    for (size_t d = 0; ok && !spilled && d < sizeof drivers / sizeof drivers[0]; d++) {
        char *a = judged_report(whole, targets, 6, drivers[d]);
        char *b = judged_report(stream, targets, 6, drivers[d]);
        ok = a && b && strcmp(a, b) == 0;
        if (!ok && a && b) first_difference(a, b, why, sizeof why);
        free(a);
        free(b);
    }
    printf("%s %s%s%s%s%s%s%s\n", ok ? "ok    " : "FAILED", path, verify ? " (--verify)" : "",
           only ? " (read for sm_90, driver 12.8)" : "", twice ? " (two passes)" : "",
           spilled ? " (spilled: read as one window)" : "", ok ? "" : ": ", why);
    CHECK(ok);
    smc_input_free(whole);
    smc_input_free(stream);
}

static void compare(const char *path, const uint8_t *buf, size_t len, bool verify)
{
    static const smc_target sm_90 = {.cc_major = 9, .cc_minor = 0};
    compare_for(path, buf, len, verify, NULL);
    if (!verify) compare_for(path, buf, len, verify, &sm_90);
}

/* An archive whose second member header cannot be read, after a member of 992 bytes: a stream once
 * fed the first member's bytes to it again when the bad header came in the same window. */
static void bad_second_header(void)
{
    static uint8_t a[8 + 60 + 992 + 60 + 2000];
    memset(a, 0, sizeof a);
    memcpy(a, "!<arch>\n", 8);
    memcpy(a + 8, "a.o/            0           0     0     644     992       `\n", 60);
    static const uint8_t fatbin[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
                                       0, 0, 0, 0, 0, 0, 0, 0xe0}; /* fatSize past any end */
    memcpy(a + 68, fatbin, sizeof fatbin);
    memset(a + 68 + 992, 'x', 60); /* no header */
    compare("(built) an archive whose second member header cannot be read", a, sizeof a, false);
}

int main(int argc, char **argv)
{
    bad_second_header();
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) != 0) {
            printf("FAILED %s: cannot read\n", argv[i]);
            CHECK(false);
            if (fd >= 0) close(fd);
            continue;
        }
        size_t len = (size_t)sb.st_size;
        void *map = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        close(fd);
        if (len && map == MAP_FAILED) {
            printf("FAILED %s: cannot map\n", argv[i]);
            CHECK(false);
            continue;
        }
        compare(argv[i], map ? map : "", len, false);
        compare(argv[i], map ? map : "", len, true);
        /* An archive cut short, in a member header and in a member's data, says the same too
         * (the stream once said "runs past the end" for a header cut short, at another offset). */
        static const size_t cuts[] = {9, 60, 68, 100, 1000, 3000};
        for (size_t k = 0; smc_ends_with(argv[i], ".a") && k < sizeof cuts / sizeof cuts[0]; k++) {
            if (cuts[k] >= len) continue;
            char name[512];
            snprintf(name, sizeof name, "%s cut at %zu", argv[i], cuts[k]);
            compare(name, map, cuts[k], false);
        }
        if (map) munmap(map, len);
    }
    return check_report();
}
