/* image_private.h: what the files of container images share (image.c the layers, overlay and
 * visible filesystem; image_paths.c what the layers say of each path; image_tar.c a tarball's
 * index with seekable gzip; image_oci.c OCI indexes, manifests and platforms): the image being
 * read, its limits, and their functions. Private to them. */
#ifndef SMCHECK_IMAGE_PRIVATE_H
#define SMCHECK_IMAGE_PRIVATE_H

#include "read.h"

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>
#include <zlib.h>

#define JSON_CAP (4u << 20)   /* index.json, manifests, configs */
#define JSON_ALL (32u << 20)  /* all of them, per image */
#define BLOBS_MAX 64          /* indexes, manifests and configs read per image */
#define ENTRIES_MAX 256       /* manifests read of one index */
#define META_CAP (16u << 20)  /* one metadata file of the environment */
#define META_ALL (64u << 20)  /* all of them, conda-meta records as smc_env_compact cuts them */
#define PATHS_ALL (64u << 20) /* what the layers say of paths, kept while they are read */
#define DEPTH_MAX 4           /* nested indexes */
#define LAYERS_MAX 1024
#define OUTER_MAX 65536      /* members of a tarball indexed */
#define KEEP_ONE (64u << 10) /* a tarball's members kept whole by the pass that indexes it */
#define KEEP_ALL (8u << 20)
#define WIN 32768u      /* deflate's window */
#define SPAN (1u << 20) /* gzip: the least distance between two places kept */
#define POINTS_MAX 1024 /* and the most of them (32 KiB each) */
#define RING 4          /* block ends remembered while indexing */

/* What the layers have said about a path, stored once: what the layers above the one being read
 * say (they hide what the layers below hold), and what that one says (it joins them when the
 * layer is done). A hash set, updated per layer, never sorted (issue 26: re-sorting the sets
 * after every layer took 59 s for 600 layers of 1000 entries). */
enum { P_SEEN = 1, P_NONDIR = 2, P_WHITEOUT = 4, P_OPAQUE = 8 };

typedef struct pnode {
    uint64_t hash;
    size_t len;
    uint8_t above, here;
    char path[];
} pnode;

typedef struct pathmap {
    pnode **slot;
    size_t cap, n;
    pnode **touched; /* the nodes the layer being read has marked */
    size_t touched_n;
    uint64_t bytes;
} pathmap;

/* A place in a gzip stream where inflating can start (zlib's examples/zran.c): the compressed
 * offset, the bits of the byte before it still to use, and the 32 KiB made before it. */
typedef struct point {
    uint64_t in, out;
    int bits;
    unsigned char *window; /* NULL: the start of the file */
} point;

/* A regular member of a tarball, as the one pass found it. */
typedef struct member {
    char *name;
    uint64_t off, size; /* its bytes, in the tarball uncompressed */
    size_t point;       /* gzip: where inflating for it starts */
    char *data;         /* its bytes, when small enough to be kept */
} member;

typedef struct image {
    smc_input *part, *fs; /* fs: the libraries under their paths in the image */
    const char *path;
    const smc_options *opt;
    const smc_ticker *tk;
    int dirfd, tarfd; /* the layout directory, or the tarball */
    uint64_t total, total_max, member_max, members, members_max;
    pathmap paths;
    smc_memfile *meta;
    size_t meta_count;
    uint64_t meta_bytes;
    const char *layer;        /* the digest of the layer being read */
    bool stopped, unreadable; /* unreadable: an entry's bytes failed, its message said */
    char **hardlinks;         /* visible hard links: pairs of (its path, its target's path) */
    size_t hardlink_count;
    char **orphans; /* the same, of this layer, whose target the layers above hide */
    size_t orphan_count;
    /* the tarball's index (indexed: plain or gzip; otherwise each member is looked for) */
    bool indexed, gz;
    member *m;
    size_t mn;
    point *pt;
    size_t npt;
    uint64_t kept, inflated, tar_size;
    size_t blobs; /* JSON documents read */
    uint64_t json_bytes;
    bool blobs_said;
    char capped[160];       /* why the tarball's inflating stopped */
    struct ostream *stream; /* the tarball's bytes being read, whose failure is the reason */
} image;

/* The tarball's bytes, uncompressed, from start to end: read in place (plain) or inflated (gzip)
 * from a place at or before start. While the tarball is indexed, the ends of the last deflate
 * blocks are remembered, one of which becomes the place a member's inflating starts from. */
typedef struct ostream {
    image *im;
    bool raw, fresh, eof_in, done, indexing, zinit;
    unsigned trailer; /* bytes of a gzip member's trailer still to pass over (raw inflating) */
    z_stream z;
    uint64_t in_off, out, start, end;
    size_t wpos;
    const char *err;
    point ring[RING];
    size_t ring_n;
    unsigned char in[1 << 16], win[WIN], ringwin[RING][WIN];
} ostream;

/* image_paths.c */
smc_status img_map_mark(pathmap *m, const char *p, uint8_t kind);
void img_map_settle(pathmap *m);
void img_map_free(pathmap *m);
bool img_hidden(const image *im, const char *path);

/* image_tar.c */
char *img_entry_path(const char *name);
bool img_legacy_name(const char *name);
char *img_blob_name(const char *digest);
struct archive *img_reader(bool filters);
smc_status img_ostream_open(image *im, ostream **out, uint64_t start, uint64_t end, const point *at,
                            bool indexing);
void img_ostream_close(ostream *s);
const char *img_why_of(const image *im, struct archive *a);
la_ssize_t img_ostream_read(struct archive *a, void *ctx, const void **buf);
la_int64_t img_ostream_skip(struct archive *a, void *ctx, la_int64_t request);
smc_status img_index_tarball(image *im);
const member *img_lookup(const image *im, const char *name);
int img_find_member(image *im, struct archive **out, const char *name);
char *img_member_bytes(image *im, const member *m, size_t *len, const char **why);
char *img_read_file(image *im, const char *name, size_t *len, bool quiet);
cJSON *img_read_json(image *im, const char *name, bool quiet);

/* image_oci.c */
smc_status img_choose(image *im, char ***layers, size_t *nl, char **config);
smc_status img_read_config(image *im, const char *name);

#endif
