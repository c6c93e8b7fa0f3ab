/* fuzz_wheel.c: the wheel reader on an in-memory zip (a memfd, read through libzip as a file
 * would be): directory, metadata, RECORD, members small and streamed, verified and judged. */
#include "pipeline.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz.whl", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        smc_target t[1] = {{.cc_major = 9, .cc_minor = 0}};
        smc_options opt = {.read.verify = true,
                           .read.inspect = true,
                           .run.jobs = 1,
                           .limits.max_member_bytes = 64u << 20,
                           .limits.max_input_bytes = 256u << 20};
        smc_input *in = NULL;
        if (smc_scan_path(path, &opt, &in) == SMC_OK) {
            fuzz_pipeline(in, t, 1, 12080);
            smc_input_free(in);
        }
    }
    close(fd);
    return 0;
}
