/* test_guard.c: every file named, read from memory that ends where an inaccessible page begins, so
 * that a read past the end of the bytes faults in any build, not only under AddressSanitizer (the
 * way fuzz_pe found the finder reading a section header that was not there). Each file is scanned
 * with smc_scan_memory, inspected for and judged against three targets, and reported as JSON.
 * Usage: test_guard FILE...; prints "N passed, M failed". */
#include "check.h"
#include "smcheck/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void guarded(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = ((size_t)len + page - 1) / page * page;
    uint8_t *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    CHECK(map != MAP_FAILED);
    if (map == MAP_FAILED) {
        fclose(f);
        return;
    }
    uint8_t *bytes = map + span - (size_t)len; /* the last byte is the page's last */
    CHECK(fread(bytes, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    CHECK(mprotect(map + span, page, PROT_NONE) == 0);
    CHECK(mprotect(map, span, PROT_READ) == 0);

    smc_target t[3] = {{.cc_major = 9}, {.cc_major = 8, .cc_minor = 6}, {.cc_major = 12}};
    smc_options opt = {.read.inspect = true, .read.kernel_names = true, .read.verify = true};
    smc_input *in = smc_input_new(path, SMC_INPUT_FILE);
    CHECK(in != NULL);
    if (in) {
        CHECK(smc_scan_memory(in, path, bytes, (size_t)len, &opt) == SMC_OK);
        smc_request req = {.targets = t, .target_count = 3, .driver_cuda = 12080};
        smc_result *r = NULL;
        CHECK(smc_check_inputs(&in, 1, &req, &r) == SMC_OK);
        FILE *null = fopen("/dev/null", "w");
        if (null && r) {
            CHECK(smc_report_json(null, r, &(smc_display){.detail = true}) == SMC_OK);
            fclose(null);
        }
        smc_result_free(r);
        smc_input_free(in);
    }
    munmap(map, span + page);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        guarded(argv[i]);
    CHECK(argc > 1);
    return check_report();
}
