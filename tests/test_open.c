/* test_open.c: files the walk found are opened relative to the directory it started from, never
 * through a link. The race the walk cannot see is made to happen: after the walk, a directory of
 * the tree (and then a file) is replaced by a symbolic link to a tree outside, whose file a plain
 * open by path would read. Opening the item must fail, with openat2 and component by component.
 * Then paths of PATH_MAX bytes and longer: they are walked and scanned. Usage: test_open LIBRARY */
#include "../src/lib/read/read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* The first bytes of what fd reads, then closes it. */
static char first(int fd)
{
    char c = 0;
    if (fd >= 0 && read(fd, &c, 1) != 1) c = 0;
    if (fd >= 0) close(fd);
    return c;
}

/* dir/a/lib.so and dir/b.so, holding text. */
static void make_tree(const char *dir, const char *text)
{
    char path[512];
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(path, sizeof path, "%s/a", dir);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/a/lib.so", dir);
    put(path, text);
    snprintf(path, sizeof path, "%s/b.so", dir);
    put(path, text);
}

static const smc_item *item_named(const smc_item *items, size_t n, const char *tail)
{
    for (size_t i = 0; i < n; i++)
        if (smc_ends_with(items[i].path, tail)) return &items[i];
    return NULL;
}

/* Copies the library at from to dir/name (dir a descriptor). */
static void copy_into(int dir, const char *name, const char *from)
{
    int src = open(from, O_RDONLY), dst = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[65536];
    ssize_t n;
    CHECK(src >= 0 && dst >= 0);
    while (src >= 0 && dst >= 0 && (n = read(src, buf, sizeof buf)) > 0)
        CHECK(write(dst, buf, (size_t)n) == n);
    if (src >= 0) close(src);
    if (dst >= 0) close(dst);
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    char top[] = "/tmp/smcheck-open-XXXXXX";
    CHECK(mkdtemp(top) != NULL);
    char tree[256], outside[256], path[512], moved[512];
    snprintf(tree, sizeof tree, "%s/tree", top);
    snprintf(outside, sizeof outside, "%s/outside", top);
    make_tree(tree, "inside");
    make_tree(outside, "OUTSIDE");

    smc_options opt = {0};
    smc_item *items = NULL;
    size_t n = 0;
    int root = -1;
    smc_input *walked = smc_input_new(tree, SMC_INPUT_DIRECTORY);
    CHECK(walked && smc_walk_dir(walked, tree, &opt, &items, &n, &root) == SMC_OK && n == 2 &&
          root >= 0);
    const smc_item *a = item_named(items, n, "/a/lib.so"), *b = item_named(items, n, "/b.so");
    CHECK(a && b);
    if (!a || !b) return check_report();
    CHECK(first(smc_item_open(a, O_RDONLY)) == 'i');
    CHECK(first(smc_open_beneath(root, a->path + a->rel, O_RDONLY, false)) == 'i');

    /* The race: tree/a becomes a link to outside/a, tree/b.so one to outside/b.so. */
    snprintf(moved, sizeof moved, "%s/a.moved", tree);
    snprintf(path, sizeof path, "%s/a", tree);
    CHECK(rename(path, moved) == 0);
    char target[512];
    snprintf(target, sizeof target, "%s/a", outside);
    CHECK(symlink(target, path) == 0);
    snprintf(path, sizeof path, "%s/b.so", tree);
    CHECK(unlink(path) == 0);
    snprintf(target, sizeof target, "%s/b.so", outside);
    CHECK(symlink(target, path) == 0);
    /* By full path, the outside is there to be read ... */
    CHECK(first(open(a->path, O_RDONLY)) == 'O');
    CHECK(first(open(b->path, O_RDONLY)) == 'O');
    /* ... but not for the items. */
    for (int use2 = 0; use2 <= 1; use2++) {
        errno = 0;
        int fd = smc_open_beneath(root, a->path + a->rel, O_RDONLY, use2);
        CHECK(fd < 0 && (errno == ELOOP || errno == ENOTDIR));
        if (fd >= 0) close(fd);
        errno = 0;
        fd = smc_open_beneath(root, b->path + b->rel, O_RDONLY, use2);
        CHECK(fd < 0 && errno == ELOOP);
        if (fd >= 0) close(fd);
    }
    /* A name that climbs out (a manifest's free text) is refused by both openers, as openat2's
     * RESOLVE_BENEATH refuses it: EXDEV, whether or not the component it names exists. */
    static const char *const climbing[] = {"../outside/b.so", "a.moved/../../outside/b.so",
                                           "/etc/passwd", ".."};
    for (size_t k = 0; k < sizeof climbing / sizeof climbing[0]; k++)
        for (int use2 = 0; use2 <= 1; use2++) {
            errno = 0;
            int fd = smc_open_beneath(root, climbing[k], O_RDONLY, use2);
            CHECK(fd < 0 && errno == EXDEV);
            if (fd >= 0) close(fd);
        }
    CHECK(!smc_path_beneath("x/../../y") && !smc_path_beneath("/x") && smc_path_beneath("a/..b") &&
          smc_path_beneath("l1/layer.tar") && smc_path_beneath("x/./y"));
    /* And a scan of the tree reads nothing of the outside: the links are not followed. */
    smc_input *in = NULL;
    CHECK(smc_scan_path(tree, &opt, &in) == SMC_OK && in && in->error_count == 0);
    smc_input_free(in);
    smc_items_free(items, n);
    smc_input_free(walked);
    close(root);

    /* Paths of exactly 4,096 bytes (read by default) and of 5,000 (read with --max-path 8192),
     * made one directory from another. */
    static const size_t lengths[] = {4096, 5000};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/long%d", top, k);
        CHECK(mkdir(path, 0755) == 0);
        int dir = open(path, O_RDONLY | O_DIRECTORY);
        size_t len = strlen(path), want = lengths[k] - strlen("/lib.so");
        while (dir >= 0 && len < want) {
            char part[201];
            size_t take = want - len - 1 > 200 ? 200 : want - len - 1;
            if (want - len - 1 - take > 0 && want - len - 1 - take < 2) take -= 2;
            memset(part, 'd', take);
            part[take] = '\0';
            CHECK(mkdirat(dir, part, 0755) == 0);
            int next = openat(dir, part, O_RDONLY | O_DIRECTORY);
            close(dir);
            dir = next;
            len += 1 + take;
        }
        CHECK(dir >= 0 && len == want);
        copy_into(dir, "lib.so", argv[1]);
        close(dir);
        opt.limits.max_path = k ? 8192 : 0;
        in = NULL;
        CHECK(smc_scan_path(path, &opt, &in) == SMC_OK && in);
        CHECK(in && in->error_count == 0 && in->library_count == 1 &&
              strlen(in->libraries[0].path) == lengths[k] &&
              in->libraries[0].container_count > 0);
        if (in && in->error_count) fprintf(stderr, "%s\n", in->errors[0].message);
        smc_input_free(in);
    }
    /* With the default --max-path of 4096, the longer one is reported, not read. */
    opt.limits.max_path = 0;
    in = NULL;
    snprintf(path, sizeof path, "%s/long1", top);
    CHECK(smc_scan_path(path, &opt, &in) == SMC_OK && in && in->library_count == 0 &&
          in->error_count == 1 && strstr(in->errors[0].message, "--max-path"));
    smc_input_free(in);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    CHECK(system(cmd) == 0);
    return check_report();
}
