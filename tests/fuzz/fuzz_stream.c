/* fuzz_stream.c: the stream reader (wheel members) on an in-memory file fed in pieces whose sizes
 * the first bytes choose, verified and judged. */
#include "../../src/lib/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    size_t piece = (size_t)data[0] * 7 + 1;
    data++, size--;
    smc_target t[1] = {{.cc_major = 12, .cc_minor = 0}};
    smc_options opt = {.verify = true, .targets = t, .target_count = 1};
    smc_input *in = smc_input_new("fuzz", SMC_INPUT_FILE);
    smc_stream *s = in ? smc_stream_new(&opt, size) : NULL;
    smc_status st = s ? SMC_OK : SMC_ERR_NOMEM;
    for (size_t at = 0; at < size && st == SMC_OK; at += piece)
        st = smc_stream_feed(s, data + at, size - at < piece ? size - at : piece);
    if (st == SMC_OK) smc_stream_finish(s, in, "fuzz");
    smc_stream_free(s);
    smc_input_free(in);
    return 0;
}
