/* fuzz_elf.c: the finder on an in-memory file as one window: ELF (sections, archives, bare
 * cubins), raw fatbin; verified, inspected and judged, as `smcheck --verify --gpu 9.0,8.7
 * --driver 12.8 --detail` would, and reported. */
#include "../../src/lib/internal.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    smc_target t[2] = {{.cc_major = 9, .cc_minor = 0}, {.cc_major = 8, .cc_minor = 7}};
    smc_options opt = {.verify = true, .inspect = true};
    smc_input *in = smc_input_new("fuzz", SMC_INPUT_FILE);
    if (!in) return 0;
    smc_lib_status overall[2];
    if (smc_scan_memory(in, "fuzz", data, size, &opt) == SMC_OK &&
        smc_judge(&in, 1, t, 2, 12080, overall) == SMC_OK) {
        FILE *null = fopen("/dev/null", "w");
        smc_report_options ro = {.detail = true, .targets = t, .target_count = 2,
                                 .driver_cuda = 12080, .overall = overall};
        if (null) {
            smc_report_text(null, &in, 1, &ro);
            fclose(null);
        }
    }
    smc_input_free(in);
    return 0;
}
