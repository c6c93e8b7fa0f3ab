/* fuzz_elf.c: the finder on an in-memory file as one window: ELF (sections, archives, bare
 * cubins), raw fatbin; verified, inspected and judged, as `smcheck --verify --gpu 9.0,8.7
 * --driver 12.8 --detail` would, and reported. */
#include "pipeline.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    smc_target t[2] = {{.cc_major = 9, .cc_minor = 0}, {.cc_major = 8, .cc_minor = 7}};
    smc_options opt = {.read.verify = true, .read.inspect = true};
    smc_input *in = smc_input_new("fuzz", SMC_INPUT_FILE);
    if (!in) return 0;
    if (smc_scan_memory(in, "fuzz", data, size, &opt) == SMC_OK) fuzz_pipeline(in, t, 2, 12080);
    smc_input_free(in);
    return 0;
}
