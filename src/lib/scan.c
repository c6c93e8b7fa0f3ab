/* scan.c: where bytes come from for a scan: paths given by the user, files mapped from disk and
 * buffers in memory. It recognises inputs by their first bytes, never by their names, and maps a
 * file only when those bytes say it can hold device code. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SIG_NONE, SIG_ELF, SIG_AR, SIG_FATBIN };

static int signature(const uint8_t *p, uint64_t n)
{
    if (n >= 4 && memcmp(p, "\177ELF", 4) == 0) return SIG_ELF;
    if (n >= 8 && memcmp(p, "!<arch>\n", 8) == 0) return SIG_AR;
    if (smc_fatbin_at(p, n, 0)) return SIG_FATBIN;
    return SIG_NONE;
}

smc_status smc_scan_bytes(smc_input *in, const char *name, uint8_t *buf, uint64_t len,
                          const smc_options *opt, unsigned depth)
{
    switch (signature(buf, len)) {
    case SIG_ELF:
    case SIG_AR: return smc_elf_scan(in, name, buf, len, opt, depth);
    case SIG_FATBIN: {
        smc_library *lib = smc_library_new(name);
        if (!lib) return SMC_ERR_NOMEM;
        smc_status st = smc_fatbin_walk(lib, buf, 0, len, NULL, false);
        if (st == SMC_OK && opt && opt->verify) st = smc_library_verify(lib, buf, len);
        if (st != SMC_OK) {
            smc_library_free(lib);
            return st;
        }
        return smc_input_take_library(in, lib);
    }
    default: return SMC_OK; /* no device code: skipped quietly */
    }
}

smc_status smc_scan_memory(smc_input *in, const char *name, const void *buf, size_t len,
                           const smc_options *opt)
{
    if (!in || !name || (!buf && len)) return SMC_ERR_ARG;
    in->files++;
    uint8_t *copy = malloc(len ? len : 1); /* libelf may write to the bytes it is given */
    if (!copy) return SMC_ERR_NOMEM;
    if (len) memcpy(copy, buf, len);
    smc_status st = smc_scan_bytes(in, name, copy, len, opt, 0);
    free(copy);
    return st;
}

smc_status smc_scan_fd(smc_input *in, const char *path, int fd, const smc_options *opt)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    if (!S_ISREG(sb.st_mode)) return smc_input_add_error(in, path, "not a regular file");
    in->files++;
    uint8_t head[8];
    ssize_t got = pread(fd, head, sizeof head, 0);
    if (got < 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    if (signature(head, (uint64_t)got) == SIG_NONE) return SMC_OK;

    uint64_t len = (uint64_t)sb.st_size;
    if (len > SIZE_MAX) return smc_input_add_error(in, path, "too large to map");
    /* Private and writable: libelf may convert headers in place, and nothing reaches the file. */
    void *map = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return smc_input_add_error(in, path, "cannot map: %s", strerror(errno));
    smc_status st = smc_scan_bytes(in, path, map, len, opt, 0);
    munmap(map, (size_t)len);
    return st;
}

static smc_status scan_file(smc_input *in, const char *path, const smc_options *opt)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    smc_status st = smc_scan_fd(in, path, fd, opt);
    close(fd);
    return st;
}

smc_status smc_scan_path(const char *path, const smc_options *opt, smc_input **out)
{
    *out = NULL;
    if (!path) return SMC_ERR_ARG;
    struct stat sb;
    /* A path the user named is followed if it is a link; links inside a directory are not. */
    bool have = stat(path, &sb) == 0;
    int saved = errno;
    smc_input *in =
        smc_input_new(path, have && S_ISDIR(sb.st_mode) ? SMC_INPUT_DIRECTORY : SMC_INPUT_FILE);
    if (!in) return SMC_ERR_NOMEM;
    smc_status st;
    if (!have)
        st = smc_input_add_error(in, path, "%s", strerror(saved));
    else if (S_ISDIR(sb.st_mode))
        st = smc_walk_dir(in, path, opt);
    else if (S_ISREG(sb.st_mode))
        st = scan_file(in, path, opt);
    else
        st = smc_input_add_error(in, path, "not a regular file or directory");
    if (st != SMC_OK) {
        smc_input_free(in);
        return st;
    }
    *out = in;
    return SMC_OK;
}
