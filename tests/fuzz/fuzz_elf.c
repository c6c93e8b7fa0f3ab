/* fuzz_elf.c: the scanner on an in-memory file: ELF (sections, archives, bare cubins), raw fatbin;
 * verified and judged, as `smcheck --verify --gpu 9.0,8.7 --driver 12.8` would. */
#include "../../src/lib/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    smc_target t[2] = {{.cc_major = 9, .cc_minor = 0}, {.cc_major = 8, .cc_minor = 7}};
    smc_options opt = {.verify = true,
                       .targets = t,
                       .target_count = 2,
                       .driver_cuda = 12080,
                       .kernel_names = true};
    smc_input *in = smc_input_new("fuzz", SMC_INPUT_FILE);
    if (!in) return 0;
    smc_scan_memory(in, "fuzz", data, size, &opt);
    smc_input_free(in);
    return 0;
}
