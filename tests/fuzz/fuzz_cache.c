/* fuzz_cache.c: the readers of cache records, on records of any bytes. What smc_cache_decode
 * takes must be a model like one a scan makes: it is encoded again and decoded to the same text
 * (under another prefix too), and judged against a few GPUs into a detailed JSON report; what
 * smc_choice_decode takes is written back to the same choice. Seeds are records under the key
 * below (tests/fuzz/seeds/cache, a choice among them; test_cache --seeds DIR FILE... makes more).
 */
#include "../../src/lib/acquire/acquire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define URL "https://files.example.org/packages/x.whl"

/* A choice record (smc_choice_decode): one it takes is written back to the same choice. */
static void choice(const uint8_t *data, size_t size)
{
    char why[256], *url = NULL, sha[65];
    if (!smc_choice_decode((const char *)data, size, KEY, &url, sha, why, sizeof why)) {
        if (!why[0] || url || sha[0]) abort();
        return;
    }
    char *text = smc_choice_encode(KEY, url, sha), *again = NULL, sha2[65];
    if (!text || !smc_choice_decode(text, strlen(text), KEY, &again, sha2, why, sizeof why) ||
        strcmp(url, again) != 0 || strcmp(sha, sha2) != 0)
        abort();
    free(text);
    free(again);
    free(url);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    choice(data, size);
    char why[256];
    smc_input *in =
        smc_cache_decode((const char *)data, size, "x.whl", "x.whl", KEY, why, sizeof why);
    if (!in) {
        if (!why[0]) abort(); /* a refusal always says why */
        return 0;
    }
    /* Encoded again, decoded under another prefix, encoded back: the same text. */
    char *text = smc_cache_encode(in, "x.whl", KEY, why, sizeof why);
    smc_input *far =
        text ? smc_cache_decode(text, strlen(text), URL, URL, KEY, why, sizeof why) : NULL;
    char *again = far ? smc_cache_encode(far, URL, KEY, why, sizeof why) : NULL;
    if (!text || !far || !again || strcmp(text, again) != 0) abort();
    free(text);
    free(again);
    smc_input_free(far);

    static const smc_target targets[] = {{.cc_major = 7, .cc_minor = 5},
                                         {.cc_major = 9, .cc_minor = 0},
                                         {.cc_major = 12, .cc_minor = 0}};
    smc_request req = {.targets = targets, .target_count = 3, .driver_cuda = 12080};
    smc_result *r = NULL;
    if (smc_check_inputs(&in, 1, &req, &r) == SMC_OK) {
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            smc_report_json(out, r, &(smc_display){.detail = true});
            smc_report_text(out, r, &(smc_display){.detail = true});
            fclose(out);
        }
        smc_result_free(r);
    }
    smc_input_free(in);
    return 0;
}
