/* wheel.c: wheels and other zip archives, read with libzip and never extracted. Planning reads
 * the archive's directory and its metadata (METADATA, WHEEL, RECORD, a version.py) and turns each
 * member into an item for the thread pool; scanning a member inflates it into the finder: small
 * members whole, as one window, large ones window by window, so memory stays bounded whatever a
 * member claims or holds (a second inflation only when the finder asks for one). Archives are
 * untrusted: names are only reported (nothing is written), encrypted members are not read, and
 * inflation stops at a cap. */
#include "../find/find.h"
#include "read.h"
#include "../bytes/bytes.h"
#include "../acquire/acquire.h"

#include <smcheck/builds.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#define SMALL_MEMBER (8u << 20) /* inflated whole and read as a file; larger ones stream */
#define BUFFER_MIN (1u << 20)    /* a thread's share of SMC_WHEEL_BUFFERS is at least this */
#define META_MAX (16u << 20)    /* METADATA, WHEEL, RECORD, version.py */
#define REPORT_MAX 20           /* RECORD disagreements reported per wheel */
#define TICK_BYTES (256u << 10) /* a read between progress ticks: 0.2 s at 1.3 MB/s */

bool smc_zip_at(const uint8_t *p, uint64_t n)
{
    return n >= 4 && p[0] == 'P' && p[1] == 'K' &&
           ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6));
}

static const char *zip_code_str(int code, char *buf, size_t n)
{
    zip_error_t e;
    zip_error_init_with_code(&e, code);
    snprintf(buf, n, "%s", zip_error_strerror(&e));
    zip_error_fini(&e);
    return buf;
}

/* The archive of an item, opened as the item says (smc_item_open). */
static zip_t *open_zip(const smc_item *it, char *why, size_t n)
{
    if (it->remote) { /* over the network, through its source */
        zip_error_t e;
        zip_error_init(&e);
        zip_source_t *src = smc_remote_zip_source(it->remote);
        zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY, &e) : NULL;
        if (!za) {
            const char *net = smc_remote_error(it->remote);
            snprintf(why, n, "%s", !src ? "out of memory" : *net ? net : zip_error_strerror(&e));
            zip_source_free(src);
        }
        zip_error_fini(&e);
        return za;
    }
    int code = 0;
    int fd = smc_item_open(it, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, n, "%s", smc_open_error(errno));
        return NULL;
    }
    zip_t *za = zip_fdopen(fd, 0, &code); /* which owns fd from now on, if it opens */
    if (!za) {
        close(fd);
        zip_code_str(code, why, n);
    }
    return za;
}

/* Reads a whole small member (metadata) into a NUL-terminated buffer; NULL when it cannot, with
 * *over set when that is because it is larger than the cap (to its claimed size). */
static char *read_member_max(zip_t *za, zip_uint64_t i, uint64_t max, size_t *len,
                             uint64_t *over)
{
    zip_stat_t st;
    *over = 0;
    if (zip_stat_index(za, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) return NULL;
    if (st.size > max) {
        *over = st.size;
        return NULL;
    }
    zip_file_t *zf = zip_fopen_index(za, i, 0);
    char *buf = zf ? malloc(st.size + 1) : NULL;
    zip_int64_t got = buf ? zip_fread(zf, buf, st.size) : -1;
    if (zf) zip_fclose(zf);
    if (got < 0) {
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    *len = (size_t)got;
    return buf;
}

static char *read_member(zip_t *za, zip_uint64_t i, size_t *len, uint64_t *over)
{
    return read_member_max(za, i, META_MAX, len, over);
}

/* A member name that would land outside the archive's root if extracted. */
static bool escapes(const char *name)
{
    if (name[0] == '/' || name[0] == '\\') return true;
    for (const char *p = name; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == name || p[-1] == '/' || p[-1] == '\\') &&
            (p[2] == '\0' || p[2] == '/' || p[2] == '\\'))
            return true;
    return false;
}

/* A member's name as pip and the RECORD see it: the bytes the zip holds when they are ASCII
 * (libzip reads a name without the UTF-8 flag as CP437 and draws C0 controls as symbols, ESC as
 * U+2190, where Python keeps them), else as libzip reads it (UTF-8, or CP437 as Python does). */
static const char *member_name(zip_t *za, zip_uint64_t i)
{
    const char *raw = zip_get_name(za, i, ZIP_FL_ENC_RAW);
    for (const unsigned char *p = (const unsigned char *)raw; p && *p; p++)
        if (*p >= 0x80) return zip_get_name(za, i, 0);
    return raw;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A metadata member that could not be read, said so. */
static smc_status metadata_unread(smc_input *in, const char *path, const char *name, uint64_t over)
{
    if (over)
        return smc_input_add_error(in, path,
                                   "%s claims %llu bytes, over the cap of %u MiB for metadata: "
                                   "not read",
                                   name, (unsigned long long)over, META_MAX >> 20);
    return smc_input_add_error(in, path, "%s cannot be read", name);
}


/* pip installs a wheel by the tags of its file name and never reads its WHEEL file's: where the
 * two name different platforms, the file name's is the one it is installed on (its libraries'
 * own machine then decides whether they load there), and the difference is said. */
static smc_status name_over_tag(smc_input *in, const char *path, smc_distribution *d)
{
    char file[512];
    const char *base = smc_base_name(path);
    snprintf(file, sizeof file, "%.*s", (int)strcspn(base, "?#"), base); /* a URL's too */
    smc_wheel_name wn;
    const char *dash = smc_wheel_name_parse(file, &wn) ? strchr(wn.tags, '-') : NULL;
    dash = dash ? strchr(dash + 1, '-') : NULL;
    if (!dash) return SMC_OK;
    char plat[256];
    snprintf(plat, sizeof plat, "%.*s", (int)strcspn(dash + 1, "."), dash + 1);
    const char *file_plat = smc_platform_name(plat), *tag_plat = smc_platform_name(d->platform);
    if (file_plat == tag_plat || (file_plat && tag_plat && strcmp(file_plat, tag_plat) == 0))
        return SMC_OK;
    smc_status st = smc_input_add_note(in, "%s: its file name is for %s and its WHEEL file for %s: "
                                       "pip installs it by its file name; where its libraries "
                                       "load, their own machine says",
                                       path, file_plat ? file_plat : plat,
                                       tag_plat      ? tag_plat
                                       : d->platform ? d->platform
                                                     : "no platform");
    free(d->platform);
    d->platform = smc_strdup(plat);
    return st != SMC_OK ? st : d->platform ? SMC_OK : SMC_ERR_NOMEM;
}

/* The wheel's facts from its *.dist-info (the one whose WHEEL is at the top). */
static smc_status read_metadata(smc_input *in, zip_t *za, const char *path, zip_int64_t count,
                                smc_distribution *d)
{
    const char *info = NULL;
    size_t info_len = 0;
    for (zip_int64_t i = 0; i < count && !info; i++) {
        const char *name = member_name(za, (zip_uint64_t)i);
        const char *slash = name ? strchr(name, '/') : NULL;
        if (slash && strcmp(slash, "/WHEEL") == 0 && slash - name > 10 &&
            strncmp(slash - 10, ".dist-info", 10) == 0) {
            info = name;
            info_len = (size_t)(slash - name) + 1; /* "demo-1.0.dist-info/" */
        }
    }
    d->source = smc_strdup("wheel");
    d->location = smc_strdup(path);
    if (!d->source || !d->location) return SMC_ERR_NOMEM;
    if (!info)
        return smc_input_add_note(in, "%s: no *.dist-info/WHEEL: a zip archive, not a wheel", path);
    char *prefix = malloc(info_len + 1);
    if (!prefix) return SMC_ERR_NOMEM;
    memcpy(prefix, info, info_len);
    prefix[info_len] = '\0';
    smc_status st = SMC_OK;
    size_t len;
    uint64_t over;
    char *name = smc_asprintf("%sMETADATA", prefix);
    zip_int64_t at = name ? zip_name_locate(za, name, 0) : -1;
    char *text = at >= 0 ? read_member(za, (zip_uint64_t)at, &len, &over) : NULL;
    smc_metadata md = {0};
    if (text) st = smc_metadata_parse(text, len, &md);
    if (!text && at >= 0) st = metadata_unread(in, path, name, over);
    free(text);
    free(name);
    if (st == SMC_OK) {
        d->name = md.name;
        d->version = md.version;
        md.name = md.version = NULL;
        st = smc_local_version(d);
    }
    /* Without METADATA's name, the dist-info's: NAME-VERSION.dist-info/ */
    const char *dash = memchr(prefix, '-', info_len - 11);
    if (st == SMC_OK && !d->name && dash &&
        (!(d->name = smc_asprintf("%.*s", (int)(dash - prefix), prefix)) ||
         (!d->version &&
          !(d->version = smc_asprintf("%.*s", (int)(info_len - 11 - (size_t)(dash - prefix) - 1),
                                      dash + 1)))))
        st = SMC_ERR_NOMEM;
    name = st == SMC_OK ? smc_asprintf("%sWHEEL", prefix) : NULL;
    at = name ? zip_name_locate(za, name, 0) : -1;
    text = at >= 0 ? read_member(za, (zip_uint64_t)at, &len, &over) : NULL;
    if (text) st = smc_wheel_tags(text, len, &d->tag, &d->platform);
    if (!text && at >= 0 && st == SMC_OK) st = metadata_unread(in, path, name, over);
    free(text);
    free(name);
    if (st == SMC_OK) st = name_over_tag(in, path, d);
    /* The CUDA runtime its dependencies name, on the platform its tag is for (markers). */
    const char *which = NULL;
    if (st == SMC_OK &&
        (d->cuda = smc_requires_cuda(md.requires, md.requires_count, smc_platform_name(d->platform),
                                     &which)) &&
        !(d->cuda_source = smc_asprintf("Requires-Dist: %s", which)))
        st = SMC_ERR_NOMEM;
    smc_metadata_free(&md);
    /* A wheel variant's properties (PEP 825 draft), for its label: the file name's last field. */
    name = st == SMC_OK ? smc_asprintf("%svariant.json", prefix) : NULL;
    at = name ? zip_name_locate(za, name, 0) : -1;
    text = at >= 0 ? read_member(za, (zip_uint64_t)at, &len, &over) : NULL;
    if (text) {
        const char *base = smc_base_name(path), *last = strrchr(base, '-'), *why = NULL;
        char *label = last && smc_ends_with(last, ".whl")
                          ? smc_asprintf("%.*s", (int)(strlen(last) - 5), last + 1)
                          : NULL;
        st = smc_variant_json_parse(text, len, label, d, &why);
        free(label);
        if (st == SMC_ERR_FORMAT) st = smc_input_add_error(in, path, "%s: %s", name, why);
    }
    if (!text && at >= 0 && st == SMC_OK) st = metadata_unread(in, path, name, over);
    free(text);
    free(name);
    /* The version.py at the top of its own package states the CUDA it was built with (torch
     * does); no other is read. */
    char *own = d->name ? smc_asprintf("%s/version.py", d->name) : NULL;
    for (char *c = own; c && *c != '/'; c++)
        if (*c == '-' || *c == '.') *c = '_';
    at = own ? zip_name_locate(za, own, ZIP_FL_NOCASE) : -1;
    text = at >= 0 ? read_member_max(za, (zip_uint64_t)at, SMC_VERSION_PY_MAX, &len, &over) : NULL;
    const char *m = at >= 0 ? member_name(za, (zip_uint64_t)at) : NULL;
    bool found = false;
    if (text && m && smc_version_py_owned(m, d->name))
        st = smc_version_py_apply(d, m, text, len, &found);
    free(text);
    free(own);
    free(prefix);
    return st;
}

typedef struct named {
    const char *name;
    zip_uint64_t index;
} named;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* The first count members' names (member_name, "" where libzip has none) with their indexes,
 * sorted by name. */
static named *names_sorted(zip_t *za, zip_int64_t count)
{
    named *v = malloc((count > 0 ? (size_t)count : 1) * sizeof *v);
    for (zip_int64_t i = 0; v && i < count; i++) {
        const char *m = member_name(za, (zip_uint64_t)i);
        v[i] = (named){m ? m : "", (zip_uint64_t)i};
    }
    if (v && count > 1) qsort(v, (size_t)count, sizeof *v, by_name);
    return v;
}

/* RECORD must list every member with its size; what disagrees is reported (hashes are not
 * checked: no hash library is among smcheck's dependencies). */
static smc_status check_record(smc_input *in, zip_t *za, const char *path, zip_int64_t count,
                               const char *info_prefix)
{
    char *name = smc_asprintf("%sRECORD", info_prefix);
    if (!name) return SMC_ERR_NOMEM;
    zip_int64_t at = zip_name_locate(za, name, 0);
    size_t len;
    uint64_t over;
    char *text = at >= 0 ? read_member(za, (zip_uint64_t)at, &len, &over) : NULL;
    smc_record_row *rows = NULL;
    size_t n = 0, reported = 0;
    smc_status st = SMC_OK;
    if (!text) {
        st = at < 0 ? smc_input_add_error(in, path, "%s is missing", name)
                    : metadata_unread(in, path, name, over);
        free(name);
        return st;
    }
    st = smc_record_parse(text, len, &rows, &n);
    free(text);
    bool whole = st != SMC_ERR_LIMIT; /* else only the first rows: what they say is checked */
    if (!whole)
        st = smc_input_add_error(in, path, "%s has more than %d rows: the rest are not read",
                                 name, SMC_ROWS_MAX);
    char **listed = st == SMC_OK ? calloc(n ? n : 1, sizeof *listed) : NULL;
    if (st == SMC_OK && !listed) st = SMC_ERR_NOMEM;
    /* The members by name, for the rows to be looked up in (libzip's own lookup compares its
     * reading of the names). */
    zip_int64_t all = zip_get_num_entries(za, 0); /* those past --max-members are there too */
    if (all < count) all = count;
    named *members = st == SMC_OK ? names_sorted(za, all) : NULL;
    if (st == SMC_OK && !members) st = SMC_ERR_NOMEM;
    for (size_t i = 0; i < n && st == SMC_OK; i++) {
        listed[i] = rows[i].path;
        named key = {rows[i].path, 0}, *hit = bsearch(&key, members, (size_t)all, sizeof key, by_name);
        zip_int64_t m = hit ? (zip_int64_t)hit->index : -1;
        zip_stat_t zs;
        if (m < 0) {
            if (reported++ < REPORT_MAX)
                st = smc_input_add_error(in, path, "RECORD lists %s, which the wheel does not hold",
                                         rows[i].path);
        } else if (rows[i].size >= 0 && zip_stat_index(za, (zip_uint64_t)m, 0, &zs) == 0 &&
                   (zs.valid & ZIP_STAT_SIZE) && zs.size != (zip_uint64_t)rows[i].size &&
                   strncmp(rows[i].path, info_prefix, strlen(info_prefix)) == 0) {
            /* Its own metadata, rewritten after RECORD was (PyPI's torch 1.12.1 METADATA):
             * nothing it holds is unread, so a note, not an error. */
            st = smc_input_add_note(in, "%s: RECORD says %s has %lld bytes; the wheel's has %llu",
                                    path, rows[i].path, (long long)rows[i].size,
                                    (unsigned long long)zs.size);
        } else if (rows[i].size >= 0 && zip_stat_index(za, (zip_uint64_t)m, 0, &zs) == 0 &&
                   (zs.valid & ZIP_STAT_SIZE) && zs.size != (zip_uint64_t)rows[i].size) {
            if (reported++ < REPORT_MAX)
                st = smc_input_add_error(
                    in, path, "RECORD says %s has %lld bytes; the wheel's has %llu", rows[i].path,
                    (long long)rows[i].size, (unsigned long long)zs.size);
        }
    }
    if (st == SMC_OK && n) qsort(listed, n, sizeof *listed, by_string);
    for (zip_int64_t i = 0; i < count && st == SMC_OK && whole; i++) {
        const char *m = member_name(za, (zip_uint64_t)i);
        if (!m || smc_ends_with(m, "/") || strcmp(m, name) == 0 || smc_ends_with(m, "RECORD.jws") ||
            smc_ends_with(m, "RECORD.p7s") || bsearch(&m, listed, n, sizeof *listed, by_string))
            continue;
        if (reported++ < REPORT_MAX) st = smc_input_add_error(in, path, "%s is not in RECORD", m);
    }
    if (st == SMC_OK && reported > REPORT_MAX)
        st = smc_input_add_error(in, path, "%zu more disagreements with RECORD",
                                 reported - REPORT_MAX);
    free(listed);
    free(members);
    smc_record_free(rows, n);
    free(name);
    return st;
}

smc_status smc_wheel_plan(smc_input *in, const char *path, const smc_item *proto,
                          const smc_options *opt, smc_item **items, size_t *n)
{
    char why[128];
    zip_t *za = open_zip(proto, why, sizeof why);
    if (!za) return smc_input_add_error(in, path, "not a readable zip archive: %s", why);
    zip_int64_t count = zip_get_num_entries(za, 0);
    /* Members whose bytes overlap or pass the directory, by the directory libzip read. */
    uint8_t *what = malloc(count > 0 ? (size_t)count : 1);
    smc_bytes bytes = {.fd = what && !proto->remote ? smc_item_open(proto, O_RDONLY | O_CLOEXEC) : -1,
                       .remote = proto->remote};
    const char *dir = !what                          ? "out of memory"
                      : bytes.fd < 0 && !bytes.remote ? smc_open_error(errno)
                                                      : smc_zip_members(&bytes, za, what);
    if (bytes.fd >= 0) close(bytes.fd);
    if (dir) {
        free(what);
        zip_discard(za);
        return smc_input_add_error(in, path,
                                   "its members cannot be checked for overlaps (%s): not read", dir);
    }
    uint64_t max = smc_limits_of(opt).max_members;
    if (count > 0 && (uint64_t)count > max) {
        smc_status st0 = smc_input_add_error(in, path,
                                             "%lld members, more than %llu: the rest are not "
                                             "read (--max-members)",
                                             (long long)count, (unsigned long long)max);
        if (st0 != SMC_OK) {
            free(what);
            zip_discard(za);
            return st0;
        }
        count = (zip_int64_t)max;
    }
    smc_distribution *d = smc_push(&in->distributions, in->distribution_count, sizeof *d);
    if (!d) {
        free(what);
        zip_discard(za);
        return SMC_ERR_NOMEM;
    }
    *d = (smc_distribution){0};
    size_t dist = in->distribution_count++;
    smc_status st = read_metadata(in, za, path, count, d);
    d = &in->distributions[dist];
    smc_distribution_sanitize(d);

    /* RECORD beside WHEEL, when there is a dist-info. */
    for (zip_int64_t i = 0; i < count && st == SMC_OK; i++) {
        const char *m = member_name(za, (zip_uint64_t)i);
        const char *slash = m ? strchr(m, '/') : NULL;
        if (slash && strcmp(slash, "/WHEEL") == 0 && slash - m > 10 &&
            strncmp(slash - 10, ".dist-info", 10) == 0) {
            char *prefix = smc_asprintf("%.*s", (int)(slash - m + 1), m);
            st = prefix ? check_record(in, za, path, count, prefix) : SMC_ERR_NOMEM;
            free(prefix);
            break;
        }
    }

    /* Names: duplicates and names that leave the root are reported; nothing is ever written. */
    const char **names = calloc(count > 0 ? (size_t)count : 1, sizeof *names);
    if (!names && st == SMC_OK) st = SMC_ERR_NOMEM;
    size_t k = 0;
    for (zip_int64_t i = 0; i < count && st == SMC_OK; i++) {
        const char *m = member_name(za, (zip_uint64_t)i);
        if (!m) continue;
        names[k++] = m;
        if (escapes(m))
            st = smc_input_add_error(in, path, "member name %s points outside the archive", m);
    }
    if (st == SMC_OK && k) qsort(names, k, sizeof *names, by_string);
    for (size_t i = 1; i < k && st == SMC_OK; i++)
        if (strcmp(names[i - 1], names[i]) == 0 && !(i >= 2 && strcmp(names[i - 2], names[i]) == 0))
            st = smc_input_add_error(in, path, "member name %s appears more than once", names[i]);
    free(names);

    char *shared = NULL; /* the members' path */
    for (zip_int64_t i = 0; i < count && st == SMC_OK; i++) {
        zip_stat_t zs;
        const char *m = member_name(za, (zip_uint64_t)i);
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &zs) != 0 || !m || smc_ends_with(m, "/"))
            continue;
        if ((zs.valid & ZIP_STAT_SIZE) && zs.size < 4) continue; /* no signature fits */
        if (what[i] != SMC_ZIP_MEMBER_OK) {
            st = smc_input_add_error(in, path, "member %s %s", m, smc_zip_member_problem(what[i]));
            continue;
        }
        if ((zs.valid & ZIP_STAT_ENCRYPTION_METHOD) && zs.encryption_method != ZIP_EM_NONE) {
            st = smc_input_add_error(in, path, "member %s is encrypted: not read", m);
            continue;
        }
        smc_item *it = smc_push(items, *n, sizeof *it);
        if (it) *it = (smc_item){0};
        if (!it || !(it->path = shared ? shared : smc_strdup(path))) {
            st = SMC_ERR_NOMEM;
            break;
        }
        it->borrowed = shared != NULL; /* the first member owns the one copy */
        shared = it->path;
        it->root = proto->root;
        it->rel = proto->rel;
        it->error = NULL;
        it->nofollow = proto->nofollow;
        it->kind = SMC_ITEM_MEMBER;
        it->member = i;
        it->dist = dist;
        /* Progress counts inflated bytes, but never more than deflate can make of the member:
         * a claimed size is not believed (at most 1032 to 1). */
        uint64_t most = (zs.valid & ZIP_STAT_COMP_SIZE) ? zs.comp_size * 1032 + 1024 : 0;
        it->size = (zs.valid & ZIP_STAT_SIZE) ? (zs.size < most ? zs.size : most) : 0;
        it->input = proto->input;
        it->dev = proto->dev;
        it->ino = proto->ino;
        it->same_as = SMC_NONE;
        it->remote = proto->remote;
        it->solo = count > SMC_SOLO_MEMBERS;
        (*n)++;
    }
    free(what);
    zip_discard(za);
    return st;
}

void smc_zipcache_close(smc_zipcache *zc)
{
    smc_big_free(zc->buf, zc->buf_cap);
    if (zc->za) zip_discard(zc->za);
    free(zc->path);
    for (unsigned i = 0; i < zc->held; i++)
        sem_post(zc->slots);
    *zc = (smc_zipcache){.slots = zc->slots};
}

/* "MZ" with a "PE\0\0" header where e_lfanew says: a Windows DLL or executable. */

/* A member inflating, as a pull source (smc_pull): at most limit bytes (its claim or cap) and
 * what the input's cap leaves, with progress; rewinding opens it again for a second pass, which
 * reads as far as the first did. */
typedef struct member_pull {
    smc_member *zf;      /* the first pass's, or the second's */
    smc_member *again;
    const smc_zipcache *zc;
    const smc_item *it;
    const zip_stat_t *zs;
    const smc_options *opt;
    const smc_ticker *tk;
    const char *name;
    uint64_t limit, input_max;
    uint64_t total;  /* bytes of the first pass */
    uint64_t second; /* of the second */
    bool stopped, bad, rewound, reopen_failed;
} member_pull;

static size_t member_read(void *ctx, uint8_t *buf, size_t n)
{
    member_pull *p = ctx;
    if (p->rewound) { /* the second pass: the bytes the first read, no more, counted once */
        bool bad = false;
        uint64_t left = p->total - p->second;
        size_t r = left ? smc_member_read(p->again, buf, n < left ? n : (size_t)left, &bad) : 0;
        p->second += r;
        return bad ? 0 : r;
    }
    if (p->bad || p->stopped) return 0;
    uint64_t left = p->limit - p->total;
    size_t room = n < left ? n : (size_t)left;
    if (room == 0) { /* at the cap: one byte more says whether there is more */
        uint8_t probe;
        if (smc_member_read(p->zf, &probe, 1, &p->bad) == 1) p->stopped = true;
        return 0;
    }
    size_t r = smc_member_read(p->zf, buf, room, &p->bad);
    p->total += r;
    const smc_ticker *tk = p->tk;
    if (r && tk && tk->input_bytes &&
        atomic_fetch_add(tk->input_bytes, (uint_fast64_t)r) + r > p->input_max)
        p->stopped = true; /* these bytes are read; no more */
    if (r && tk && tk->tick) tk->tick(tk->ctx, r, p->name);
    return r;
}

static unsigned inflate_helpers(const smc_item *it, const smc_options *opt);

static bool member_rewind(void *ctx)
{
    member_pull *p = ctx;
    if (p->bad || p->stopped || p->rewound) return false;
    p->again = smc_member_open(p->zc->za, (zip_uint64_t)p->it->member, p->zs,
                               inflate_helpers(p->it, p->opt), p->tk ? p->tk->idle : NULL);
    p->rewound = p->again != NULL;
    p->reopen_failed = !p->rewound; /* only out of memory */
    return p->rewound;
}

/* The threads more one long member may inflate with: what -j allows (the CPUs by default); none
 * for a member of a wheel read over the network (it): one stream in member order leaves them
 * only pinflate's speculative decoding, which bought no time there and cost a third more CPU and
 * 3 MiB. */
static unsigned inflate_helpers(const smc_item *it, const smc_options *opt)
{
    if (it && it->remote) return 0;
    unsigned jobs = opt && opt->run.jobs ? opt->run.jobs : smc_cpus();
    return jobs - 1;
}

/* A member whose stream outgrew what a stream may hold (smc_finder_spilled: hostile nesting,
 * floods of headers or images) is inflated again, its first len bytes, into a temporary file and
 * read as a file on disk is: the same answer as the same bytes on disk, in bounded memory. */
static smc_status scan_spilled(smc_input *part, zip_t *za, const zip_stat_t *zs, const char *name,
                               uint64_t len, uint8_t *buf, size_t cap, const smc_options *opt)
{
    int fd = smc_temp_file();
    if (fd < 0)
        return smc_input_add_error(part, name, "cannot make a temporary file to read it from: %s",
                                   strerror(errno));
    smc_member *zf = smc_member_open(za, zs->index, zs, inflate_helpers(NULL, opt), NULL);
    uint64_t done = 0;
    bool bad = zf == NULL;
    int werr = 0;
    while (!bad && !werr && done < len) {
        size_t want = len - done < cap ? (size_t)(len - done) : cap;
        size_t r = smc_member_read(zf, buf, want, &bad);
        if (r == 0) break;
        for (size_t w = 0; w < r && !werr;) {
            ssize_t k = write(fd, buf + w, r - w);
            if (k < 0) werr = errno;
            else w += (size_t)k;
        }
        done += r;
    }
    smc_member_close(zf);
    smc_status st;
    if (werr || bad || done != len) {
        st = smc_input_add_error(part, name, "cannot read it again into a temporary file: %s",
                                 werr ? strerror(werr) : "the member did not inflate as before");
    } else {
        void *map = len ? mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        if (len && map == MAP_FAILED) {
            st = smc_input_add_error(part, name, "cannot map its temporary file: %s",
                                     strerror(errno));
        } else {
            st = smc_scan_mapped(part, name, map, len, opt);
            if (len) munmap(map, (size_t)len);
        }
    }
    close(fd);
    return st;
}

/* The buffer members are inflated into, kept with the archive: a fresh mapping per member faulted
 * in a zeroed page for every 4 KiB a small member inflated to (a wheel of 441 small libraries:
 * 26,700 page faults for 104 MB). Held no longer than the archive (smc_zipcache_close), so only
 * the threads that hold one (SMC_ZIP_READERS) keep a buffer, as before while reading. */
static uint8_t *member_buffer(smc_zipcache *zc, size_t cap)
{
    if (zc->buf && zc->buf_cap == cap) return zc->buf;
    smc_big_free(zc->buf, zc->buf_cap);
    zc->buf = smc_big_alloc(cap);
    zc->buf_cap = zc->buf ? cap : 0;
    return zc->buf;
}

smc_status smc_wheel_member(smc_input *part, smc_zipcache *zc, const smc_item *it,
                            const smc_options *opt, const smc_ticker *tk, bool *unreadable)
{
    if (!zc->path || strcmp(zc->path, it->path) != 0) {
        char why[128];
        smc_zipcache_close(zc);
        if (zc->slots) { /* wait for one (or all): the others read on and close theirs */
            static pthread_mutex_t taking_all = PTHREAD_MUTEX_INITIALIZER;
            unsigned want = it->solo ? SMC_ZIP_READERS : 1;
            if (want > 1) pthread_mutex_lock(&taking_all); /* two takers of all never split them */
            for (; zc->held < want; zc->held++)
                while (sem_wait(zc->slots) != 0)
                    ;
            if (want > 1) pthread_mutex_unlock(&taking_all);
        }
        if (!(zc->path = smc_strdup(it->path))) return SMC_ERR_NOMEM;
        if (!(zc->za = open_zip(it, why, sizeof why)))
            return smc_input_add_error(part, it->path, "not a readable zip archive: %s", why);
    }
    if (!zc->za) return SMC_OK; /* reported with the first member */
    zip_stat_t zs;
    if (zip_stat_index(zc->za, (zip_uint64_t)it->member, 0, &zs) != 0 || !zs.name)
        return smc_input_add_error(part, it->path, "member %lld: %s", (long long)it->member,
                                   zip_strerror(zc->za));
    char *name = smc_asprintf("%s!%s", it->path, member_name(zc->za, (zip_uint64_t)it->member));
    if (!name) return SMC_ERR_NOMEM;
    smc_member *zf = smc_member_open(zc->za, (zip_uint64_t)it->member, &zs, inflate_helpers(it, opt),
                                      tk ? tk->idle : NULL);
    if (!zf) {
        free(name);
        return SMC_ERR_NOMEM;
    }
    part->files++;
    uint64_t member_max = smc_limits_of(opt).max_member_bytes;
    if ((zs.valid & ZIP_STAT_SIZE) && zs.size > member_max) {
        smc_status st =
            smc_input_add_error(part, name,
                                "claims %llu bytes, past the cap of %llu bytes for one "
                                "member (--max-inflate): not read",
                                (unsigned long long)zs.size, (unsigned long long)member_max);
        smc_member_close(zf);
        free(name);
        return st;
    }
    uint64_t input_max = smc_limits_of(opt).max_input_bytes;

    /* A claimed size is a limit too: a member that inflates past it lies, and is read no
     * further than it claims. */
    bool claimed = (zs.valid & ZIP_STAT_SIZE) && zs.size < member_max;
    uint64_t limit = claimed ? zs.size : member_max;

    /* The first bytes say whether it is ours (most members are not, and get no buffer); ours is
     * inflated into a buffer, and one that outgrows it is read window by window. */
    uint8_t head[4097];
    bool bad = false, stopped = false;
    size_t first = limit < 4096 ? (size_t)limit + 1 : 4096; /* enough for any signature */
    size_t got = smc_member_read(zf, head, first, &bad);
    if (got > limit) { /* one byte past the claim */
        got = (size_t)limit;
        stopped = true;
    }
    smc_status st = SMC_OK;
    size_t before = part->library_count, before_runtime = part->runtime_count;
    uint64_t total = got;
    bool scan = smc_finder_signature(head, got);
    /* This thread's share of what the buffers may take (the more threads, the smaller): members
     * up to it are read whole, as one window; larger ones stream through it. */
    size_t cap = tk && tk->buffer < SMALL_MEMBER ? tk->buffer : SMALL_MEMBER;
    if (cap < BUFFER_MIN) cap = BUFFER_MIN;
    uint8_t *buf = scan ? member_buffer(zc, cap) : NULL;
    if (scan && !buf) st = SMC_ERR_NOMEM;
    if (buf) memcpy(buf, head, got);
    bool whole = true, spilled = false;
    while (scan && st == SMC_OK && !bad && !stopped && whole) { /* small: whole, one window */
        uint64_t left = limit - total;
        size_t room = cap - got < left ? cap - got : (size_t)left;
        if (room == 0) {
            if (total < limit) { /* the buffer is full: a large member */
                whole = false;
            } else { /* at the cap: one byte more says whether there is more */
                uint8_t probe;
                if (smc_member_read(zf, &probe, 1, &bad) == 1) stopped = true;
            }
            break;
        }
        size_t r = smc_member_read(zf, buf + got, room < TICK_BYTES ? room : TICK_BYTES, &bad);
        if (r == 0) break;
        got += r;
        total += r;
        if (tk && tk->input_bytes &&
            atomic_fetch_add(tk->input_bytes, (uint_fast64_t)r) + r > input_max) {
            stopped = true;
            break;
        }
        if (tk && tk->tick) tk->tick(tk->ctx, r, name);
    }
    smc_finder *f = scan && st == SMC_OK ? smc_finder_new(name, opt, whole) : NULL;
    if (scan && st == SMC_OK && !f) st = SMC_ERR_NOMEM;
    if (f && (zs.valid & ZIP_STAT_SIZE)) smc_finder_expect(f, zs.size);
    if (f && whole) {
        st = smc_finder_feed(f, buf, got);
    } else if (f) {
        member_pull p = {.zf = zf, .zc = zc, .it = it, .zs = &zs, .opt = opt, .tk = tk,
                         .name = name, .limit = limit, .input_max = input_max, .total = got};
        smc_pull src = {.read = member_read, .rewind = member_rewind, .ctx = &p};
        st = smc_feed(f, &src, buf, cap, got);
        if (st == SMC_OK && p.reopen_failed) st = SMC_ERR_NOMEM;
        smc_member_close(p.again);
        total = p.total;
        stopped = p.stopped;
        bad = p.bad;
        if (st == SMC_OK && smc_finder_spilled(f)) { /* inflated to its end all the same */
            smc_finder_free(f);
            f = NULL;
            spilled = true;
        }
    }
    if (bad && unreadable) *unreadable = true;
    if (st == SMC_OK && bad)
        st = smc_input_add_error(part, name, "cannot inflate: %s", smc_member_error(zf));
    if (st == SMC_OK && stopped && claimed && total >= limit)
        st = smc_input_add_error(part, name,
                                 "inflates past the %llu bytes it claims: read no further",
                                 (unsigned long long)limit);
    else if (st == SMC_OK && stopped)
        st = smc_input_add_error(part, name,
                                 "stopped after inflating %llu bytes: past the cap of %llu bytes "
                                 "for %s (--max-inflate%s)",
                                 (unsigned long long)total,
                                 (unsigned long long)(total >= limit ? member_max : input_max),
                                 total >= limit ? "one member" : "one input",
                                 total >= limit ? "" : "-total");
    if (st == SMC_OK && scan && !bad && !stopped && (zs.valid & ZIP_STAT_SIZE) && total != zs.size)
        st = smc_input_add_error(part, name, "claims %llu bytes but inflates to %llu",
                                 (unsigned long long)zs.size, (unsigned long long)total);
    smc_member_close(zf);
    /* What was read is scanned, even when the rest could not be. */
    if (st == SMC_OK && spilled) st = scan_spilled(part, zc->za, &zs, name, total, buf, cap, opt);
    if (st == SMC_OK && f) st = smc_finder_finish(f, part);
    smc_finder_free(f);
    for (size_t i = before; i < part->library_count; i++)
        part->libraries[i].distribution = it->dist;
    for (size_t i = before_runtime; i < part->runtime_count; i++)
        part->runtime[i].distribution = it->dist;
    free(name);
    return st;
}
