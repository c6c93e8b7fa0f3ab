/* fuzz_stream.c: the finder on an in-memory file read twice, as one window and as a stream fed
 * in pieces whose size the first two bytes choose (1 byte to 64 KiB), with the second pass when
 * it asks; both judged and reported as detailed JSON, which must be the same: a difference
 * aborts. */
#include "../pieces.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *report(smc_input *in)
{
    smc_target t[2] = {{.cc_major = 12, .cc_minor = 0}, {.cc_major = 8, .cc_minor = 0}};
    in->inspected = true;
    smc_request req = {.targets = t, .target_count = 2, .driver_cuda = 12080};
    smc_result *r = NULL;
    if (smc_check_inputs(&in, 1, &req, &r) != SMC_OK) return NULL;
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    smc_status st = out ? smc_report_json(out, r, &(smc_display){.detail = true}) : SMC_ERR_NOMEM;
    smc_result_free(r);
    if (!out) return NULL;
    fclose(out);
    if (st != SMC_OK) {
        free(text);
        return NULL;
    }
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    size_t piece = ((size_t)data[0] | (size_t)data[1] << 8) + 1;
    data += 2, size -= 2;
    smc_options opt = {.read.verify = true, .read.inspect = true};
    smc_input *whole = smc_input_new("fuzz", SMC_INPUT_FILE);
    smc_input *stream = smc_input_new("fuzz", SMC_INPUT_FILE);
    smc_finder *f = stream ? smc_finder_new("fuzz", &opt, false) : NULL;
    smc_status st = whole && f ? smc_scan_memory(whole, "fuzz", data, size, &opt) : SMC_ERR_NOMEM;
    if (f) smc_finder_expect(f, size); /* as a wheel member's claimed size says */
    bool twice;
    if (st == SMC_OK) st = pieces_feed(f, data, size, &piece, 1, &twice);
    /* A stream that outgrew its bounds is read as one window by its reader: nothing to compare. */
    bool spilled = st == SMC_OK && smc_finder_spilled(f);
    if (st == SMC_OK && !spilled) st = smc_finder_finish(f, stream);
    if (st == SMC_OK && !spilled) {
        stream->files = 1;
        char *a = report(whole), *b = report(stream);
        if (a && b && strcmp(a, b) != 0) {
            fprintf(stderr, "one window and a stream of %zu-byte pieces disagree:\n%s\n---\n%s\n",
                    piece, a, b);
            abort();
        }
        free(a);
        free(b);
    }
    smc_finder_free(f);
    smc_input_free(whole);
    smc_input_free(stream);
    return 0;
}
