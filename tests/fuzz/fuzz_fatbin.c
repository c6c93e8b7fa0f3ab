/* fuzz_fatbin.c: the fatbin parser on a buffer: walked as a fatbin section, searched for
 * candidates, verified (payloads decompressed and checked), summarised and judged. */
#include "../../src/lib/internal.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    smc_library *lib = smc_library_new("fuzz");
    if (!lib) return 0;
    smc_fatbin_walk(lib, data, 0, size, ".nv_fatbin", false);
    for (uint64_t p = smc_fatbin_find(data, 0, size); p < size;
         p = smc_fatbin_find(data, p + 8, size)) {
        uint64_t end;
        smc_fatbin_error err;
        smc_fatbin_parse(lib, data, size, p, SMC_FATBIN_CANDIDATE, &end, &err);
    }
    smc_library_verify(lib, data, size);
    smc_summary sum;
    if (smc_library_summarize(lib, &sum) == SMC_OK) smc_summary_free(&sum);
    smc_target t[2] = {{.cc_major = 9, .cc_minor = 0}, {.cc_major = 8, .cc_minor = 7}};
    smc_library_judge(lib, t, 2, 12080, NULL, NULL);
    smc_library_free(lib);
    return 0;
}
