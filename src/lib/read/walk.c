/* walk.c: directory traversal. It lists regular files only, in name order so that reports are
 * deterministic, never follows a symbolic link (so it cannot leave the tree or loop), never opens
 * a FIFO, socket or device, and records what it cannot read in its place and goes on. What it
 * lists is opened later relative to the directory it started from, never through a link, so a
 * directory swapped for a link between the walk and the scan leads nowhere outside. */
#include "read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct list {
    smc_item *items;
    size_t n;
    int root;   /* the directory the walk started from */
    size_t rel; /* the length of its path and a slash: where an item's relative path starts */
    uint64_t max_depth, max_path, max_files;
    bool full; /* max_files reached: the walk has stopped */
    const smc_options *opt;
    dev_t top_dev;    /* the filesystem of the directory named */
    bool root_fs;     /* it is a root filesystem: its proc, sys, dev and run are left out */
    size_t excluded;  /* paths --exclude left out */
    size_t other_fs;  /* directories on other filesystems left out (--one-file-system) */
    size_t linked;    /* package files (*.whl, *.conda) that are symbolic links: not followed */
    char *linked_example;
    char *other_example;
} list;

/* Whether --exclude leaves out an entry: path as reported, name its last component. */
static bool excluded(const smc_options *opt, const char *path, const char *name)
{
    for (size_t i = 0; opt && i < opt->walk.exclude_count; i++) {
        const char *pat = opt->walk.excludes[i];
        if (fnmatch(pat, strchr(pat, '/') ? path : name, 0) == 0) return true;
    }
    return false;
}

/* The pseudo and runtime filesystems of a root filesystem: not files to read. */
static bool pseudo(const char *name)
{
    return strcmp(name, "proc") == 0 || strcmp(name, "sys") == 0 || strcmp(name, "dev") == 0 ||
           strcmp(name, "run") == 0;
}

/* A root filesystem: etc/ and usr/, and proc/ or sys/. */
static bool is_root_fs(int dfd)
{
    struct stat sb;
    bool etc = fstatat(dfd, "etc", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode);
    bool usr = fstatat(dfd, "usr", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode);
    bool proc = fstatat(dfd, "proc", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode);
    bool sys = fstatat(dfd, "sys", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode);
    return etc && usr && (proc || sys);
}

/* Appends a file (sb its status) or an entry that could not be read (error); takes path. */
static smc_status add_file(list *l, char *path, const char *error, const struct stat *sb);

static smc_status add(list *l, char *path, const char *error)
{
    return add_file(l, path, error, NULL);
}

static smc_status add_file(list *l, char *path, const char *error, const struct stat *sb)
{
    smc_item *it = smc_push(&l->items, l->n, sizeof *it);
    char *err = error ? smc_strdup(error) : NULL;
    if (!it || (error && !err)) {
        free(path);
        free(err);
        return SMC_ERR_NOMEM;
    }
    *it = (smc_item){.path = path,
                     .root = l->root,
                     .rel = l->rel,
                     .error = err,
                     .nofollow = true,
                     .member = -1,
                     .dist = SMC_NONE,
                     .size = sb ? (uint64_t)sb->st_size : 0,
                     .dev = sb ? (uint64_t)sb->st_dev : 0,
                     .ino = sb ? (uint64_t)sb->st_ino : 0,
                     .same_as = SMC_NONE};
    l->n++;
    return SMC_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the names in a directory, sorted; "." and ".." left out. */
static smc_status list_dir(DIR *d, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    const struct dirent *de;
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

static smc_status walk(list *l, int dfd, const char *path, uint64_t depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        char *p = smc_strdup(path);
        return p ? add(l, p, strerror(errno)) : SMC_ERR_NOMEM;
    }
    char **names;
    size_t n;
    smc_status st = list_dir(d, &names, &n);
    if (st == SMC_ERR_IO) {
        char *p = smc_strdup(path), *msg = smc_asprintf("cannot list: %s", strerror(errno));
        st = p && msg ? add(l, p, msg) : SMC_ERR_NOMEM;
        if (!p || !msg) free(p);
        free(msg);
    }
    for (size_t i = 0; i < n && st == SMC_OK && !l->full; i++) {
        if (depth == 0 && l->root_fs && pseudo(names[i])) continue;
        char *child = smc_asprintf("%s/%s", path, names[i]);
        if (!child) {
            st = SMC_ERR_NOMEM;
            break;
        }
        if (excluded(l->opt, child, names[i])) {
            l->excluded++;
            free(child);
            continue;
        }
        if (strlen(child) > l->max_path) {
            char *msg = smc_asprintf("a path longer than %llu bytes: not read (--max-path)",
                                     (unsigned long long)l->max_path);
            st = msg ? add(l, child, msg) : SMC_ERR_NOMEM;
            free(msg);
            continue;
        }
        if (l->n >= l->max_files) {
            char *msg = smc_asprintf("more than %llu files: the rest of this input is not read "
                                     "(--max-files)",
                                     (unsigned long long)l->max_files);
            l->full = true;
            st = msg ? add(l, child, msg) : SMC_ERR_NOMEM;
            free(msg);
            break;
        }
        struct stat sb;
        if (fstatat(dirfd(d), names[i], &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            st = add(l, child, strerror(errno));
        } else if (S_ISDIR(sb.st_mode) && l->opt && l->opt->walk.one_file_system &&
                   sb.st_dev != l->top_dev) {
            if (l->other_fs++ == 0)
                l->other_example = child;
            else
                free(child);
        } else if (S_ISDIR(sb.st_mode)) {
            int fd = depth < l->max_depth ? openat(dirfd(d), names[i],
                                                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                          : -1;
            if (depth >= l->max_depth)
                st = add(l, child, "directories nested deeper than --max-depth: not read");
            else if (fd < 0)
                st = add(l, child, strerror(errno));
            else {
                st = walk(l, fd, child, depth + 1);
                free(child);
            }
        } else if (S_ISREG(sb.st_mode)) {
            st = add_file(l, child, NULL, &sb);
        } else if (S_ISLNK(sb.st_mode) &&
                   (smc_ends_with(names[i], ".whl") || smc_ends_with(names[i], ".conda"))) {
            if (l->linked++ == 0) /* a wheelhouse of links: said, as nothing of it is read */
                l->linked_example = child;
            else
                free(child);
        } else {
            free(child); /* links, FIFOs, sockets and devices are not ours to open */
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return st;
}

/* What the walk left out on purpose, as notes of the input. */
static smc_status say_left_out(smc_input *in, const list *l, const char *path)
{
    smc_status st = SMC_OK;
    if (l->root_fs)
        st = smc_input_add_note(in, "%s: a root filesystem: its proc, sys, dev and run are not "
                                    "walked",
                                *path ? path : "/");
    if (st == SMC_OK && l->excluded)
        st = smc_input_add_note(in, "%s: %zu path%s left out (--exclude)", *path ? path : "/",
                                l->excluded, l->excluded == 1 ? "" : "s");
    if (st == SMC_OK && l->other_fs)
        st = smc_input_add_note(in, "%s: %zu director%s on other filesystems not walked "
                                    "(--one-file-system), %s the first",
                                *path ? path : "/", l->other_fs, l->other_fs == 1 ? "y" : "ies",
                                l->other_example);
    if (st == SMC_OK && l->linked)
        st = smc_input_add_note(in, "%s: %zu package file%s %s symbolic link%s, not followed "
                                    "(%s the first): name %s to read %s",
                                *path ? path : "/", l->linked, l->linked == 1 ? "" : "s",
                                l->linked == 1 ? "is a" : "are", l->linked == 1 ? "" : "s",
                                l->linked_example, l->linked == 1 ? "it" : "them",
                                l->linked == 1 ? "it" : "them");
    return st;
}

smc_status smc_walk_dir(smc_input *in, const char *path, const smc_options *opt, smc_item **items,
                        size_t *n, int *root)
{
    smc_limits lim = smc_limits_of(opt);
    list l = {.max_depth = lim.max_depth,
              .max_path = lim.max_path,
              .max_files = lim.max_files,
              .root = -1,
              .opt = opt};
    *items = NULL;
    *n = 0;
    *root = -1;
    /* "dir/" given by the user should not print as "dir//lib.so"; "/" walks as "". */
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    char *base = strndup(path, len);
    if (!base) return SMC_ERR_NOMEM;
    smc_status st;
    /* The directory the user named is followed if it is a link; nothing under it is. */
    int top = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fd = top >= 0 ? openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd < 0) {
        if (top >= 0) close(top);
        st = add(&l, base, strerror(errno));
        base = NULL;
    } else {
        l.root = *root = top;
        l.rel = len + 1;
        struct stat sb;
        if (fstat(fd, &sb) == 0) l.top_dev = sb.st_dev;
        in->root = l.root_fs = is_root_fs(fd);
        st = walk(&l, fd, base, 0);
        if (st == SMC_OK) st = say_left_out(in, &l, base);
    }
    free(base);
    free(l.other_example);
    free(l.linked_example);
    if (st != SMC_OK) {
        smc_items_free(l.items, l.n);
        if (*root >= 0) close(*root);
        *root = -1;
        return st;
    }
    *items = l.items;
    *n = l.n;
    return SMC_OK;
}

/* One component at a time: each directory opened from the one before, none through a link, and
 * never above root (an absolute path or a ".." component is refused, as openat2's
 * RESOLVE_BENEATH refuses it: EXDEV). */
static int open_by_components(int root, const char *rel, int flags)
{
    if (!smc_path_beneath(rel)) {
        errno = EXDEV;
        return -1;
    }
    int dir = root;
    for (;;) {
        const char *slash = strchr(rel, '/');
        if (!slash) break;
        size_t k = (size_t)(slash - rel);
        char part[NAME_MAX + 1];
        if (k > NAME_MAX) {
            if (dir != root) close(dir);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(part, rel, k);
        part[k] = '\0';
        int next = k ? openat(dir, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : dir;
        int saved = errno;
        if (dir != root && next != dir) close(dir);
        if (next < 0) {
            errno = saved;
            return -1;
        }
        dir = next;
        rel = slash + 1;
    }
    int fd = openat(dir, rel, flags | O_NOFOLLOW);
    int saved = errno;
    if (dir != root) close(dir);
    errno = saved;
    return fd;
}

bool smc_path_beneath(const char *rel)
{
    if (!rel || rel[0] == '/') return false;
    for (const char *p = rel; *p;) {
        size_t k = strcspn(p, "/");
        if (k == 2 && p[0] == '.' && p[1] == '.') return false;
        p += k + (p[k] == '/');
    }
    return true;
}

int smc_open_beneath(int root, const char *rel, int flags, bool use_openat2)
{
#ifdef SYS_openat2
    /* The kernel (or a seccomp filter, or valgrind) has none; SMCHECK_NO_OPENAT2 (tests) says
     * to act so, as before Linux 5.6. */
    static atomic_bool missing;
    static atomic_int asked; /* 0 not yet, 1 use it, 2 the environment says not */
    if (!atomic_load(&asked)) atomic_store(&asked, getenv("SMCHECK_NO_OPENAT2") ? 2 : 1);
    if (atomic_load(&asked) == 2) use_openat2 = false;
    if (use_openat2 && !atomic_load(&missing)) {
        struct open_how how = {.flags = (uint64_t)(unsigned)(flags | O_NOFOLLOW),
                               .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS};
        long fd = syscall(SYS_openat2, root, rel, &how, sizeof how);
        if (fd < 0 && (errno == ENOSYS || errno == EPERM)) atomic_store(&missing, true);
        /* Else a path past PATH_MAX is opened by components too. */
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG &&
                        errno != ENAMETOOLONG))
            return (int)fd;
    }
#else
    (void)use_openat2;
#endif
    return open_by_components(root, rel, flags);
}

const char *smc_open_error(int err)
{
    if (err == ELOOP) return "a symbolic link in its place or on its path: not followed";
    if (err == ENOTDIR) return "on its path, no directory any more (a link is not followed)";
    if (err == EXDEV) return "outside the input (an absolute path or '..'): not opened";
    return strerror(err);
}

int smc_item_open(const smc_item *it, int flags)
{
    if (it->root < 0) return open(it->path, flags | (it->nofollow ? O_NOFOLLOW : 0));
    return smc_open_beneath(it->root, it->path + it->rel, flags, true);
}

void smc_items_free(smc_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!items[i].borrowed) free(items[i].path);
        free(items[i].error);
        if (items[i].net) {
            free(items[i].net->url);
            smc_input_free(items[i].net->wheel);
            free(items[i].net);
        }
    }
    free(items);
}
