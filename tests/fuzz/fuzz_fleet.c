/* fuzz_fleet.c: skylos's gpu-targets.yml reader (libyaml, then the contract) on any bytes: a fleet
 * it takes has a named target with GPUs, a refusal says why, naming the file. */
#include "../../src/lib/acquire/acquire.h"
#include "smcheck/fleet.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly size bytes, no NUL after it: a read past the end is caught */
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    smc_fleet f;
    char why[256] = "";
    if (smc_fleet_parse_yaml(text, size, "gpu-targets.yml", &f, why, sizeof why)) {
        if (f.count == 0 || f.count > FLEET_TARGETS_MAX) abort();
        for (size_t i = 0; i < f.count; i++)
            if (!f.targets[i].name[0] || !f.targets[i].gpus[0]) abort();
        smc_fleet_free(&f);
    } else if (strncmp(why, "gpu-targets.yml", 15) != 0) {
        abort();
    } else {
        smc_fleet_free(&f); /* what it read before it gave up */
    }
    free(text);
    return 0;
}
