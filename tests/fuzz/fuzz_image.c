/* fuzz_image.c: the image reader on an in-memory tarball (a memfd): its index or manifest.json,
 * nested indexes, configs, and the layers it names, applied with whiteouts; the flattened
 * filesystem as an environment; judged. Caps keep layer bombs short. */
#include "../../src/lib/read/read.h"
#include "pipeline.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz.tar", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        smc_target t = {.cc_major = 9, .cc_minor = 0};
        smc_options opt = {.read.inspect = true,
                           .limits.max_member_bytes = 32u << 20,
                           .limits.max_input_bytes = 64u << 20,
                           .limits.max_members = 10000};
        smc_input *in = smc_input_new("fuzz.tar", SMC_INPUT_IMAGE);
        if (in && smc_image_scan(in, "fuzz.tar", -1, fd, &opt, NULL) == SMC_OK)
            fuzz_pipeline(in, &t, 1, 12040);
        smc_input_free(in);
    }
    close(fd);
    return 0;
}
