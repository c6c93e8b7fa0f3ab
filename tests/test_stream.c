/* test_stream.c: the stream reader (wheel members) must find what the mapped-file reader finds.
 * For each file named, it scans the file mapped, then feeds the same bytes to the stream reader in
 * uneven pieces (so headers straddle every kind of boundary), and compares the libraries:
 * containers (offset, size, section, relocatable), images, the runtime needed, and findings.
 * Usage: test_stream FILE...   Prints one line per file and "N passed, M failed". */
#include "../src/lib/internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static bool same_library(const smc_library *a, const smc_library *b, char *why, size_t n)
{
    if (a->container_count != b->container_count || a->image_count != b->image_count) {
        snprintf(why, n, "%zu/%zu containers, %zu/%zu images", a->container_count,
                 b->container_count, a->image_count, b->image_count);
        return false;
    }
    for (size_t i = 0; i < a->container_count; i++) {
        const smc_container *x = &a->containers[i], *y = &b->containers[i];
        bool names = (!x->section && !y->section) ||
                     (x->section && y->section && strcmp(x->section, y->section) == 0);
        if (x->offset != y->offset || x->size != y->size || !names ||
            x->relocatable != y->relocatable || x->image_count != y->image_count) {
            snprintf(why, n, "container %zu: 0x%llx %s vs 0x%llx %s", i,
                     (unsigned long long)x->offset, x->section ? x->section : "-",
                     (unsigned long long)y->offset, y->section ? y->section : "-");
            return false;
        }
    }
    for (size_t i = 0; i < a->image_count; i++)
        if (memcmp(&a->images[i], &b->images[i], sizeof a->images[i]) != 0) {
            snprintf(why, n, "image %zu differs", i);
            return false;
        }
    if (a->cudart_major != b->cudart_major) {
        snprintf(why, n, "libcudart %u vs %u", a->cudart_major, b->cudart_major);
        return false;
    }
    if (a->finding_count != b->finding_count) {
        snprintf(why, n, "%zu vs %zu findings", a->finding_count, b->finding_count);
        return false;
    }
    return true;
}

static void compare(const char *path, bool verify)
{
    smc_options opt = {.verify = verify, .jobs = 1};
    smc_input *mapped;
    if (smc_scan_path(path, &opt, &mapped) != SMC_OK) {
        CHECK(false && "scan");
        return;
    }
    int fd = open(path, O_RDONLY);
    struct stat sb;
    uint8_t *buf = NULL;
    if (fd < 0 || fstat(fd, &sb) != 0 || !(buf = malloc((size_t)sb.st_size + 1)) ||
        read(fd, buf, (size_t)sb.st_size) != sb.st_size) {
        CHECK(false && "read");
        free(buf);
        if (fd >= 0) close(fd);
        smc_input_free(mapped);
        return;
    }
    close(fd);
    smc_input *streamed = smc_input_new(path, SMC_INPUT_FILE);
    smc_stream *s = smc_stream_new(&opt, (uint64_t)sb.st_size);
    /* Pieces of 1, 7, 4093 and 65537 bytes in turn. */
    static const size_t pieces[] = {1, 7, 4093, 65537};
    size_t at = 0;
    smc_status st = SMC_OK;
    for (unsigned k = 0; at < (size_t)sb.st_size && st == SMC_OK; k++) {
        size_t n =
            pieces[k % 4] < (size_t)sb.st_size - at ? pieces[k % 4] : (size_t)sb.st_size - at;
        st = smc_stream_feed(s, buf + at, n);
        at += n;
    }
    if (st == SMC_OK) st = smc_stream_finish(s, streamed, path);
    smc_stream_free(s);
    free(buf);

    char why[256] = "";
    bool ok = st == SMC_OK;
    /* An archive is listed member by member when mapped: compare only single libraries. */
    size_t nm = mapped->library_count, ns = streamed->library_count;
    if (ok && nm <= 1) {
        if (nm != ns) {
            snprintf(why, sizeof why, "%zu vs %zu libraries", nm, ns);
            ok = false;
        } else if (nm == 1) {
            ok = same_library(&mapped->libraries[0], &streamed->libraries[0], why, sizeof why);
        }
    }
    printf("%s %s%s%s%s\n", ok ? "ok    " : "FAILED", path, verify ? " (--verify)" : "",
           ok ? "" : ": ", why);
    CHECK(ok);
    smc_input_free(mapped);
    smc_input_free(streamed);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        compare(argv[i], false);
        compare(argv[i], true);
    }
    return check_report();
}
