/* zipdir.c: where a zip's members lie, for the one check libzip does not make. libzip reads the
 * central directory but does not say where each member's bytes begin, and members whose bytes
 * overlap are one member under many names: a zip bomb that inflates the same bytes again and
 * again. So the directory is read here a second time, but never guessed at: a zip's tail can name
 * more than one directory (a second end record hidden in the comment, a Zip64 record beside the
 * 32-bit one), and only one that lists, index by index, the compressed sizes and CRCs libzip
 * lists is taken for libzip's. Where several do, a member is refused if any of them says so;
 * where none does, the archive is not read. */
#include "read.h"
#include "../acquire/acquire.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#define TAIL_MAX 65557u   /* an end record (22 bytes) and the longest comment */
#define DIRS_MAX 16       /* distinct directories a tail may name; real zips name one or two */

/* A central directory an end record names. */
typedef struct zip_dir {
    uint64_t entries, size, offset;
} zip_dir;

static bool same_dir(const zip_dir *a, const zip_dir *b)
{
    return a->entries == b->entries && a->size == b->size && a->offset == b->offset;
}

static void add_dir(zip_dir *dirs, size_t *n, bool *full, zip_dir d)
{
    for (size_t i = 0; i < *n; i++)
        if (same_dir(&dirs[i], &d)) return;
    if (*n == DIRS_MAX)
        *full = true;
    else
        dirs[(*n)++] = d;
}

/* Every directory the tail names: each end record's 32-bit fields, and the Zip64 record its
 * locator points to where one precedes it. -1 when more than DIRS_MAX, or the tail is
 * unreadable. */
static int tail_dirs(const smc_bytes *b, uint64_t size, zip_dir *dirs)
{
    size_t len = size < TAIL_MAX ? (size_t)size : TAIL_MAX, n = 0;
    uint64_t base = size - len;
    uint8_t *tail = malloc(len ? len : 1);
    if (!tail || !smc_bytes_pread(b, tail, len, base)) {
        free(tail);
        return -1;
    }
    bool full = false;
    for (size_t e = 0; e + 22 <= len && !full; e++) {
        if (memcmp(tail + e, "PK\5\6", 4) != 0) continue;
        add_dir(dirs, &n, &full,
                (zip_dir){smc_le16(tail + e + 10), smc_le32(tail + e + 12), smc_le32(tail + e + 16)});
        uint8_t loc[20], z[56];
        uint64_t at = base + e;
        if (at < 20 || !smc_bytes_pread(b, loc, 20, at - 20) || memcmp(loc, "PK\6\7", 4) != 0)
            continue;
        uint64_t z64 = smc_le64(loc + 8);
        if (z64 <= size - 56 && smc_bytes_pread(b, z, 56, z64) && memcmp(z, "PK\6\6", 4) == 0)
            add_dir(dirs, &n, &full, (zip_dir){smc_le64(z + 32), smc_le64(z + 40), smc_le64(z + 48)});
    }
    free(tail);
    return full ? -1 : (int)n;
}

/* The sizes and offset of a central directory entry at p (46 bytes and its variable fields
 * inside the directory), with the Zip64 extra field's values where the 32-bit ones are all ones. */
static bool entry_fields(const uint8_t *p, uint64_t *comp, uint64_t *off)
{
    uint64_t usize = smc_le32(p + 24), name = smc_le16(p + 28), extra = smc_le16(p + 30);
    *comp = smc_le32(p + 20);
    *off = smc_le32(p + 42);
    if (usize != 0xffffffff && *comp != 0xffffffff && *off != 0xffffffff) return true;
    const uint8_t *x = p + 46 + name, *xe = x + extra;
    while (xe - x >= 4) {
        unsigned id = smc_le16(x), xlen = smc_le16(x + 2);
        if ((size_t)(xe - x - 4) < xlen) return false;
        if (id == 1) { /* the uncompressed size, the compressed size, the offset: those that overflow */
            const uint8_t *v = x + 4, *ve = v + xlen;
            uint64_t *fields[3] = {&usize, comp, off};
            for (int k = 0; k < 3; k++) {
                if (*fields[k] != 0xffffffff) continue;
                if (ve - v < 8) return false;
                *fields[k] = smc_le64(v);
                v += 8;
            }
            return true;
        }
        x += 4 + xlen;
    }
    return false;
}

/* The central directory read in pieces: at least want bytes at cd->buf + cd->at, refilled from
 * the file as the entries pass (an entry is at most 46 + 3 * 65,535 bytes). */
typedef struct cd_reader {
    const smc_bytes *b;
    uint64_t next, end; /* the next byte to read, and the directory's end, in the file */
    uint8_t *buf;
    size_t at, have;
} cd_reader;

#define CD_BUF (1u << 20)

static const uint8_t *cd_need(cd_reader *cd, size_t want)
{
    if (cd->have - cd->at >= want) return cd->buf + cd->at;
    memmove(cd->buf, cd->buf + cd->at, cd->have - cd->at);
    cd->have -= cd->at;
    cd->at = 0;
    uint64_t left = cd->end - cd->next;
    size_t room = CD_BUF - cd->have, n = left < room ? (size_t)left : room;
    if (n && !smc_bytes_pread(cd->b, cd->buf + cd->have, n, cd->next)) return NULL;
    cd->next += n;
    cd->have += n;
    return cd->have >= want ? cd->buf : NULL;
}

/* Whether d lists what libzip lists (count entries, each with libzip's compressed size and CRC);
 * if so, each member's local header offset and compressed size. */
static bool dir_members(const smc_bytes *b, uint64_t size, const zip_dir *d, zip_t *za, uint64_t count,
                        uint64_t *offs, uint64_t *comps)
{
    if (d->entries != count || d->offset > size || d->size > size - d->offset ||
        d->size < 46 * count)
        return false;
    cd_reader cd = {b, d->offset, d->offset + d->size, malloc(CD_BUF), 0, 0};
    bool ok = cd.buf != NULL;
    for (uint64_t i = 0; ok && i < count; i++) {
        const uint8_t *e = cd_need(&cd, 46);
        ok = e && memcmp(e, "PK\1\2", 4) == 0;
        size_t len = ok ? 46u + smc_le16(e + 28) + smc_le16(e + 30) + smc_le16(e + 32) : 0;
        ok = ok && (e = cd_need(&cd, len)) != NULL && entry_fields(e, &comps[i], &offs[i]);
        zip_stat_t zs;
        ok = ok && zip_stat_index(za, i, 0, &zs) == 0 && (zs.valid & ZIP_STAT_COMP_SIZE) &&
             (zs.valid & ZIP_STAT_CRC) && zs.comp_size == comps[i] && zs.crc == smc_le32(e + 16);
        cd.at += len;
    }
    free(cd.buf);
    return ok;
}

static int by_offset(const void *a, const void *b, void *ctx)
{
    const uint64_t *offs = ctx;
    uint64_t x = offs[*(const uint64_t *)a], y = offs[*(const uint64_t *)b];
    return x < y ? -1 : x > y ? 1 : *(const uint64_t *)a < *(const uint64_t *)b ? -1 : 1;
}

/* Marks in what[] the members of one directory whose bytes (a local header and the compressed
 * size) begin inside an earlier member's in offset order, or reach past the start of the
 * directory (a claim no archive can hold); such a claim does not shadow the members after it. */
static bool mark(uint8_t *what, const uint64_t *offs, const uint64_t *comps, uint64_t count,
                 uint64_t data_end)
{
    uint64_t *order = malloc(count * sizeof *order + 1);
    if (!order) return false;
    for (uint64_t i = 0; i < count; i++)
        order[i] = i;
    qsort_r(order, count, sizeof *order, by_offset, (void *)offs);
    uint64_t end = 0; /* where the members so far end, at the least */
    for (uint64_t k = 0; k < count; k++) {
        uint64_t i = order[k];
        if (offs[i] > data_end || comps[i] > data_end - offs[i] || data_end - offs[i] - comps[i] < 30) {
            if (what[i] < SMC_ZIP_PAST_END) what[i] = SMC_ZIP_PAST_END;
            continue;
        }
        if (k > 0 && offs[i] < end)
            what[i] = SMC_ZIP_OVERLAPS;
        if (offs[i] + 30 + comps[i] > end) end = offs[i] + 30 + comps[i];
    }
    free(order);
    return true;
}

bool smc_bytes_pread(const smc_bytes *b, void *buf, size_t n, uint64_t off)
{
    if (b->remote) return smc_remote_pread(b->remote, buf, n, off);
    for (size_t done = 0; done < n;) {
        ssize_t k = pread(b->fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));
        if (k <= 0) return false;
        done += (size_t)k;
    }
    return true;
}

const char *smc_zip_members(const smc_bytes *b, zip_t *za, uint8_t *what)
{
    struct stat sb;
    uint64_t size = b->remote ? smc_remote_size(b->remote)
                    : fstat(b->fd, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    zip_int64_t n = zip_get_num_entries(za, 0);
    uint64_t count = n > 0 ? (uint64_t)n : 0;
    memset(what, SMC_ZIP_MEMBER_OK, count);
    if (count == 0) return NULL;
    zip_dir dirs[DIRS_MAX];
    int ndirs = size >= 22 ? tail_dirs(b, size, dirs) : -1;
    if (ndirs < 0) return "more than 16 end records, or an unreadable tail";
    uint64_t *offs = malloc(2 * count * sizeof *offs);
    if (!offs) return "out of memory";
    bool found = false, nomem = false;
    for (int k = 0; k < ndirs && !nomem; k++)
        if (dir_members(b, size, &dirs[k], za, count, offs, offs + count)) {
            found = true;
            nomem = !mark(what, offs, offs + count, count, dirs[k].offset);
        }
    free(offs);
    return nomem ? "out of memory"
           : found ? NULL
                   : "no central directory in its tail lists the members libzip reads";
}

const char *smc_zip_member_problem(uint8_t what)
{
    return what == SMC_ZIP_OVERLAPS ? "overlaps another member's bytes (one member under many "
                                      "names: a zip bomb): not read"
           : what == SMC_ZIP_PAST_END ? "claims more compressed bytes than the archive holds "
                                        "before its directory: not read"
                                      : NULL;
}
