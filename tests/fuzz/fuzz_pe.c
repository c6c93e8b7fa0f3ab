/* fuzz_pe.c: the PE header reader on arbitrary bytes (its section table, import directory and
 * RVA mapping), then the finder on them as one window, inspected, judged and reported. */
#include "../../src/lib/bytes/bytes.h"
#include "pipeline.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    smc_pe pe;
    char err[96];
    if (smc_pe_parse(data, size < 4096 ? size : 4096, &pe, err, sizeof err) == 1) {
        for (size_t i = 0; i < pe.section_count; i++) { /* every edge of every section */
            const smc_pe_map *m = &pe.map[i];
            (void)smc_pe_offset(&pe, m->va);
            (void)smc_pe_offset(&pe, m->va + m->rawsize - 1);
            (void)smc_pe_offset(&pe, m->va + m->vsize);
        }
        smc_pe_free(&pe);
    }
    smc_target t = {.cc_major = 9, .cc_minor = 0};
    smc_options opt = {.read.inspect = true};
    smc_input *in = smc_input_new("fuzz.dll", SMC_INPUT_FILE);
    if (!in) return 0;
    if (smc_scan_memory(in, "fuzz.dll", data, size, &opt) == SMC_OK) fuzz_pipeline(in, &t, 1, 12080);
    smc_input_free(in);
    return 0;
}
