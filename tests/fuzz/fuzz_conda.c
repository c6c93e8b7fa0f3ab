/* fuzz_conda.c: the conda package reader on in-memory bytes (a memfd): as a .tar.bz2 (any tar
 * libarchive reads, under any of its filters) when the first byte is even, as a .conda (a zip of
 * tar.zst members) when odd; members copied out and scanned, the package's metadata read,
 * judged. Caps keep bombs short. */
#include "../../src/lib/read/read.h"
#include "pipeline.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    int fd = memfd_create("fuzz.pkg", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0) {
        smc_target t = {.cc_major = 9, .cc_minor = 0};
        smc_options opt = {.read.inspect = true,
                           .limits.max_member_bytes = 32u << 20,
                           .limits.max_input_bytes = 64u << 20,
                           .limits.max_members = 10000};
        smc_input *in = smc_input_new("fuzz", SMC_INPUT_FILE);
        const char *name = data[0] & 1 ? "fuzz-1.0-0.conda" : "fuzz-1.0-0.tar.bz2";
        if (in && smc_conda_scan(in, name, fd, true, &opt, NULL) == SMC_OK)
            fuzz_pipeline(in, &t, 1, 12080);
        smc_input_free(in);
    }
    close(fd);
    return 0;
}
