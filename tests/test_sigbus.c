/* test_sigbus.c: a file that shrinks while it is mapped must not kill the run. The test maps a
 * library padded to 1 MiB, truncates the file to 8 KiB under the mapping, and scans the mapping:
 * every page past 8 KiB now raises SIGBUS. The scan must finish, report the file as changed, and
 * a second file scanned afterwards must come out whole. Usage: test_sigbus LIBRARY */
#include "../src/lib/find/find.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    char path[] = "/tmp/smcheck-sigbus-XXXXXX";
    int fd = mkstemp(path), src = open(argv[1], O_RDONLY);
    CHECK(fd >= 0 && src >= 0);
    static uint8_t buf[1 << 20];
    ssize_t n = read(src, buf, sizeof buf);
    CHECK(n > 0 && write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
    close(src);
    uint8_t *map = mmap(NULL, sizeof buf, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(map != MAP_FAILED);

    /* Turned off (smcheck_session_allow), no handler is installed: the mapping, read whole
     * before the file is cut, leaves SIGBUS as it was. */
    smc_options quiet = {.read.verify = true, .run.no_signals = true};
    smc_input *whole = smc_input_new(path, SMC_INPUT_FILE);
    struct sigaction before, now; /* a sanitizer's own handler may be there from the start */
    CHECK(sigaction(SIGBUS, NULL, &before) == 0);
    CHECK(smc_scan_mapped(whole, path, map, sizeof buf, &quiet) == SMC_OK);
    CHECK(sigaction(SIGBUS, NULL, &now) == 0 && now.sa_sigaction == before.sa_sigaction);
    smc_input_free(whole);
    CHECK(ftruncate(fd, 8192) == 0);

    smc_options opt = {.read.verify = true};
    smc_input *in = smc_input_new(path, SMC_INPUT_FILE);
    CHECK(smc_scan_mapped(in, path, map, sizeof buf, &opt) == SMC_OK);
    bool said = false;
    for (size_t i = 0; i < in->error_count; i++)
        said |= strstr(in->errors[i].message, "the file shrank while being read") != NULL;
    CHECK(said);
    CHECK(sigaction(SIGBUS, NULL, &now) == 0 && now.sa_sigaction != before.sa_sigaction);
    smc_input_free(in);
    munmap(map, sizeof buf);
    close(fd);
    unlink(path);

    /* The next file is read whole, with the guard gone. */
    smc_input *again;
    CHECK(smc_scan_path(argv[1], &opt, &again) == SMC_OK);
    CHECK(again && again->error_count == 0 && again->library_count == 1 &&
          again->libraries[0].container_count == 4);
    smc_input_free(again);
    return check_report();
}
