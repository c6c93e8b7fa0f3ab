/* walk.h: the items a scan reads, and the walk of directories (walk.c) */
#ifndef SMCHECK_WALK_H
#define SMCHECK_WALK_H

#include "../base/model.h"

/* A file to scan, or what kept the walk from reading an entry, in the order of the report. */
/* A wheel read over the network (remote.h): its facts, read into an input of its own by the
 * thread that takes the item (or from the cache: from_cache), then merged as a wheel found by
 * the walk is; where it is fetched from (the item's path, its name, is the URL without
 * credentials); its sha256 when known ("" not), the cache's key; and whether a lock file
 * installs it. Only such an item has one: a wheel of 500,000 members makes 500,000 items. */
typedef struct smc_net_wheel {
    smc_input *wheel;
    char *url;
    bool from_cache, lock;
    char cache_key[65];
} smc_net_wheel;

typedef struct smc_item {
    char *path;
    char *error;        /* set when the walk could not read it */
    size_t rel;         /* found by the walk: path + rel relative to root; -1 for a path named */
    long long member;   /* a member of the zip archive at path; -1 for the file itself */
    size_t dist;        /* a member's wheel: its distribution in the input, or SMC_NONE */
    uint64_t size;      /* bytes, for progress */
    size_t input;       /* the path given by the user it belongs to */
    uint64_t dev, ino;  /* the file's, when known (ino 0: not known) */
    size_t same_as;     /* an earlier item with the same file (hard link, bind mount), or SMC_NONE */
    smc_net_wheel *net; /* a wheel read over the network, else NULL */
    struct smc_remote *remote; /* a member of a wheel read over the network: read through it */
    int root;           /* found by the walk: the directory it opened */
    bool borrowed;      /* path belongs to another item (the members of one wheel share it) */
    bool nofollow;      /* found by the walk: a link in its place is not followed */
    bool image;         /* a container image the user named: read by smc_image_scan */
    bool solo;          /* a member of an archive of so many members (SMC_SOLO_MEMBERS) that its
                         * directory, which each thread reading it holds, is read by one at a time */
} smc_item;


/* Lists the regular files under a directory, in name order; *root is the directory, held open
 * for the items to be opened from (the caller closes it), or -1. */
smc_status smc_walk_dir(smc_input *in, const char *path, const smc_options *opt, smc_item **items,
                        size_t *n, int *root);
void smc_items_free(smc_item *items, size_t n);
/* Opens rel under the directory root without following a symbolic link in any component, so
 * that nothing outside the tree is reached whatever changes meanwhile (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or component by component where the kernel has no
 * openat2 or the path is longer than PATH_MAX: use_openat2 false forces the latter). */
int smc_open_beneath(int root, const char *rel, int flags, bool use_openat2);
/* Whether a relative path stays beneath where it starts: not absolute, no ".." component. */
bool smc_path_beneath(const char *rel);
/* An item's file: by smc_open_beneath when the walk found it, else by its path. */
int smc_item_open(const smc_item *it, int flags);
/* What an open that failed with err says to the user. */
const char *smc_open_error(int err);

#endif
