/* pipeline.h: what every fuzzer does with the model it read: the command's pipeline after the
 * readers (judge, derive, next steps checked) and all three reports, written to /dev/null. */
#ifndef FUZZ_PIPELINE_H
#define FUZZ_PIPELINE_H

#include "../../src/lib/base/base.h"

#include <stdio.h>

static inline void fuzz_pipeline(smc_input *in, const smc_target *t, size_t nt, int driver)
{
    in->inspected = true; /* read with smc_options.inspect */
    smc_request req = {.targets = t, .target_count = nt, .driver_cuda = driver};
    smc_result *r = NULL;
    if (smc_check_inputs(&in, 1, &req, &r) != SMC_OK) return;
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        smc_report_text(null, r, &(smc_display){.detail = true});
        smc_report_json(null, r, &(smc_display){.detail = true});
        smc_report_sarif(null, r);
        fclose(null);
    }
    smc_result_free(r);
}

#endif
