/* fuzz_layout.c: the image reader on an OCI image layout directory, the walk from index.json
 * through nested indexes and manifests to configs and layers (fuzz_image reads a tarball). The
 * input is a list of files, each [which: 1 byte][length: 2 bytes, little-endian][bytes]: which
 * picks index.json, oci-layout, manifest.json, or one of five blobs whose digests are
 * sha256:000...0 to sha256:444...4, so that the fuzzer can name them. The files are written
 * into a directory of this process's, emptied before each input. */
#include "../../src/lib/read/read.h"
#include "pipeline.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAMES 8
static char names[NAMES][96];
static char root[64];

static int layout_dir(void)
{
    if (!root[0]) {
        snprintf(root, sizeof root, "%s/smcheck-fuzz-layout-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(root)) return -1;
        char sub[128];
        snprintf(sub, sizeof sub, "%s/blobs", root);
        mkdir(sub, 0700);
        snprintf(sub, sizeof sub, "%s/blobs/sha256", root);
        mkdir(sub, 0700);
        snprintf(names[0], sizeof names[0], "index.json");
        snprintf(names[1], sizeof names[1], "oci-layout");
        snprintf(names[2], sizeof names[2], "manifest.json");
        for (int k = 3; k < NAMES; k++) {
            char hex[65];
            memset(hex, '0' + (k - 3), 64);
            hex[64] = '\0';
            snprintf(names[k], sizeof names[k], "blobs/sha256/%s", hex);
        }
    }
    int dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int k = 0; dirfd >= 0 && k < NAMES; k++)
        unlinkat(dirfd, names[k], 0);
    return dirfd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int dirfd = layout_dir();
    if (dirfd < 0) return 0;
    for (size_t p = 0; p + 3 <= size;) {
        unsigned which = data[p] % NAMES, len = data[p + 1] | (unsigned)data[p + 2] << 8;
        p += 3;
        if (len > size - p) len = (unsigned)(size - p);
        int fd = openat(dirfd, names[which], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (write(fd, data + p, len) != (ssize_t)len) {
                close(fd);
                break;
            }
            close(fd);
        }
        p += len;
    }
    smc_target t = {.cc_major = 9, .cc_minor = 0};
    smc_options opt = {.read.inspect = true,
                       .limits.max_member_bytes = 32u << 20,
                       .limits.max_input_bytes = 64u << 20,
                       .limits.max_members = 10000};
    smc_input *in = smc_input_new(root, SMC_INPUT_IMAGE);
    if (in && smc_image_scan(in, root, dirfd, -1, &opt, NULL) == SMC_OK) fuzz_pipeline(in, &t, 1, 12040);
    smc_input_free(in);
    close(dirfd);
    return 0;
}
