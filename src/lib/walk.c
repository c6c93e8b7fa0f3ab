/* walk.c: directory traversal. It visits regular files only, in name order so that reports are
 * deterministic, never follows a symbolic link (so it cannot leave the tree or loop), never opens
 * a FIFO, socket or device, and reports what it cannot read and goes on. */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH_MAX 256

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the names in a directory, sorted; "." and ".." left out. */
static smc_status list_dir(DIR *d, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        char **slot = smc_push(names, *n, sizeof *slot);
        if (!slot || !(*slot = smc_strdup(de->d_name))) return SMC_ERR_NOMEM;
        (*n)++;
    }
    if (*n) qsort(*names, *n, sizeof **names, by_name);
    return errno ? SMC_ERR_IO : SMC_OK;
}

static smc_status walk(smc_input *in, int dfd, const char *path, const smc_options *opt,
                       unsigned depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return smc_input_add_error(in, path, "%s", strerror(errno));
    }
    char **names;
    size_t n;
    smc_status st = list_dir(d, &names, &n);
    if (st == SMC_ERR_IO) st = smc_input_add_error(in, path, "cannot list: %s", strerror(errno));
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        char *child = smc_asprintf("%s/%s", path, names[i]);
        if (!child) {
            st = SMC_ERR_NOMEM;
            break;
        }
        struct stat sb;
        if (fstatat(dirfd(d), names[i], &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            st = smc_input_add_error(in, child, "%s", strerror(errno));
        } else if (S_ISDIR(sb.st_mode)) {
            int fd = depth < DEPTH_MAX ? openat(dirfd(d), names[i],
                                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                       : -1;
            if (depth >= DEPTH_MAX)
                st = smc_input_add_error(in, child, "directories nested deeper than %d",
                                         DEPTH_MAX);
            else if (fd < 0)
                st = smc_input_add_error(in, child, "%s", strerror(errno));
            else
                st = walk(in, fd, child, opt, depth + 1);
        } else if (S_ISREG(sb.st_mode)) {
            /* O_NOFOLLOW and O_NONBLOCK: the entry may have been swapped for a link or a FIFO
             * since fstatat; smc_scan_fd checks again that it is a regular file. */
            int fd = openat(dirfd(d), names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) {
                st = smc_input_add_error(in, child, "%s", strerror(errno));
            } else {
                st = smc_scan_fd(in, child, fd, opt);
                close(fd);
            }
        } /* links, FIFOs, sockets and devices are not ours to open */
        free(child);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return st;
}

smc_status smc_walk_dir(smc_input *in, const char *path, const smc_options *opt)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return smc_input_add_error(in, path, "%s", strerror(errno));
    /* "dir/" given by the user should not print as "dir//lib.so". */
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    char *base = malloc(n + 1);
    if (!base) {
        close(fd);
        return SMC_ERR_NOMEM;
    }
    memcpy(base, path, n);
    base[n] = '\0';
    smc_status st = walk(in, fd, strcmp(base, "/") == 0 ? "" : base, opt, 0);
    free(base);
    return st;
}
