/* fuzz_targets.c: the --gpu parser (items and lists against the built-in table), the GPU table
 * loader, --driver, and the table of PyTorch builds with advice from it; the first byte choosing
 * which. */
#include "smcheck/builds.h"
#include "smcheck/model.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static smc_gpu_table *builtin;
    if (!builtin && smc_gpu_table_builtin(&builtin) != 1) return 0;
    if (size < 1) return 0;
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0'; /* the CLI's strings end with a NUL */
    char err[256];
    switch (data[0] % 5) {
    case 0: {
        smc_target t;
        smc_target_parse(builtin, text, &t, err, sizeof err);
        break;
    }
    case 1: {
        smc_target *t;
        size_t n;
        if (smc_target_parse_list(builtin, text, &t, &n, err, sizeof err) == 1) free(t);
        break;
    }
    case 2: {
        smc_gpu_table *table;
        if (smc_gpu_table_parse((const char *)data + 1, size - 1, &table, err, sizeof err) == 1) {
            smc_target t;
            smc_target_parse(table, "rtx 4090", &t, err, sizeof err);
            smc_gpu_table_free(table);
        }
        break;
    }
    case 3: { /* the bytes as they come: the parser must not read past them */
        smc_builds *b;
        if (smc_builds_parse((const char *)data + 1, size - 1, &b, err, sizeof err) == 1) {
            smc_target t = {.cc_major = 12, .cc_minor = 0};
            smc_advice a;
            smc_advice_request req = {.builds = b, .platform = "linux-x86_64", .targets = &t,
                                      .target_count = 1, .driver_cuda = 12080};
            if (smc_advise(&req, &a) == SMC_OK) smc_advice_free(&a);
            smc_builds_free(b);
        }
        break;
    }
    default: {
        int v;
        smc_driver_parse(text, &v);
    }
    }
    free(text);
    return 0;
}
