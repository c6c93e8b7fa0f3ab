/* fuzz_fatbin.c: the container parser on a buffer read as a raw fat binary (a container header
 * is put in front, so that the buffer is walked as a fatbin section is), verified, inspected,
 * summarised and judged. */
#include "pipeline.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t head[16] = {0x50, 0xED, 0x55, 0xBA, 1, 0, 16, 0}; /* fatSize 0 */
    uint8_t *buf = malloc(size + sizeof head);
    smc_input *in = buf ? smc_input_new("fuzz", SMC_INPUT_FILE) : NULL;
    if (!in) {
        free(buf);
        return 0;
    }
    memcpy(buf, head, sizeof head);
    memcpy(buf + sizeof head, data, size);
    smc_options opt = {.read.verify = true, .read.inspect = true};
    smc_target t[2] = {{.cc_major = 9, .cc_minor = 0}, {.cc_major = 8, .cc_minor = 7}};
    if (smc_scan_memory(in, "fuzz", buf, size + sizeof head, &opt) == SMC_OK)
        fuzz_pipeline(in, t, 2, 12080);
    smc_input_free(in);
    free(buf);
    return 0;
}
