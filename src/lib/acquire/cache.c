/* cache.c: the facts read from a file, kept by its sha256 (acquire.h): the directory that holds
 * the records (atomic stores, least-recently-used trimming, merging the caches of parallel jobs).
 * A record of facts is written by cache_write.c and read by cache_read.c, a record of the wheel
 * chosen for a pin by cache_record.c. Records, and every file under a cache directory, are
 * untrusted. */
#include "../base/base.h"
#include "cache_record.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether a record decodes for its key, as facts or as a choice. */
static bool record_ok(const char *text, size_t len, const char *key)
{
    if (!text) return false;
    char *url, sha[65];
    if (smc_choice_decode(text, len, key, &url, sha, NULL, 0)) {
        free(url);
        return true;
    }
    smc_input *in = smc_cache_decode(text, len, "", "", key, NULL, 0);
    bool ok = in != NULL;
    smc_input_free(in);
    return ok;
}

/* The directory ---------------------------------------------------------------------------- */

char *smc_cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') return smc_asprintf("%s/smcheck", xdg);
    if (home && home[0]) return smc_asprintf("%s/.cache/smcheck", home);
    return NULL;
}

/* Makes path and the directories above it that are missing, 0700. */
static bool make_dirs(const char *path, char *why, size_t n)
{
    char *p = smc_strdup(path);
    if (!p || !*p) {
        smc_say(why, n, p ? "no directory" : "out of memory");
        free(p);
        return false;
    }
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0') continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            smc_say(why, n, "%s: cannot make the directory: %s", p, strerror(errno));
            free(p);
            return false;
        }
        *s = c;
        if (!c) break;
    }
    free(p);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        smc_say(why, n, "%s: not a directory", path);
        return false;
    }
    return true;
}

/* A directory of the cache under at, opened without following a link in its place (made 0700
 * first when make); -1 with errno (ELOOP or ENOTDIR: a link or a file is there). */
static int sub_dir(int at, const char *name, bool make)
{
    if (make && mkdirat(at, name, 0700) != 0 && errno != EEXIST) return -1;
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Why a directory or record of the cache could not be opened, in words. */
static const char *open_why(int err)
{
    return err == ELOOP || err == ENOTDIR
               ? "a symbolic link or a file in its place: not followed, nothing read or written "
                 "through it"
               : strerror(err);
}

/* The directory of key's record (dir/vN/ab), reached from dir without following a link below
 * it (dir itself, the user's choice, may be one); made when make. -1 with why, or with why empty
 * when it is absent and not made. */
static int record_dir(const char *dir, const char *key, bool make, char *why, size_t n)
{
    if (make && !make_dirs(dir, why, n)) return -1;
    char ver[16], fan[3] = {key[0], key[1], '\0'};
    snprintf(ver, sizeof ver, "v%d", SMC_CACHE_FORMAT);
    int root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int v = root >= 0 ? sub_dir(root, ver, make) : -1;
    int err = errno;
    int sub = v >= 0 ? sub_dir(v, fan, make) : -1;
    if (v >= 0) err = errno;
    if (sub < 0 && (make || err != ENOENT))
        smc_say(why, n, "%s%s%s%s%s: %s", dir, root >= 0 ? "/" : "", root >= 0 ? ver : "",
                v >= 0 ? "/" : "", v >= 0 ? fan : "", open_why(err));
    if (root >= 0) close(root);
    if (v >= 0) close(v);
    return sub;
}

/* The record of key in dir, read whole (touched when touch); NULL: absent (why empty) or not. */
static char *read_record(const char *dir, const char *key, bool touch, size_t *len, char *why,
                         size_t n)
{
    smc_say(why, n, "%s", "");
    if (!dir || !smc_cache_key_ok(key)) {
        smc_say(why, n,
                dir ? "the key is not a sha256 (64 lower-case hex digits)" : "no directory");
        return NULL;
    }
    int sub = record_dir(dir, key, false, why, n);
    if (sub < 0) return NULL;
    char name[72];
    snprintf(name, sizeof name, "%s.json", key);
    int fd = openat(sub, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    int err = errno;
    close(sub);
    char *text = NULL;
    if (fd < 0 && err != ENOENT)
        smc_say(why, n, "%s/v%d/%.2s/%s: %s", dir, SMC_CACHE_FORMAT, key, name, open_why(err));
    if (fd >= 0) {
        text = smc_read_fd_small(fd, SMC_CACHE_MAX_BYTES, len, &err);
        if (!text && err == EFBIG)
            smc_say(why, n, "%s/v%d/%.2s/%s: not a regular file of at most %u MiB", dir,
                    SMC_CACHE_FORMAT, key, name, SMC_CACHE_MAX_BYTES >> 20);
        else if (!text)
            smc_say(why, n, "%s/v%d/%.2s/%s: %s", dir, SMC_CACHE_FORMAT, key, name, strerror(err));
        if (text && touch) (void)futimens(fd, NULL); /* read-only caches stay as they are */
        close(fd);
    }
    return text;
}

char *smc_cache_load(const char *dir, const char *sha256, size_t *len, char *why, size_t n)
{
    size_t dummy;
    return read_record(dir, sha256, true, len ? len : &dummy, why, n);
}

/* A new file beside the records of sub, named ".KEY.json.XXXXXX" (a writer's, until its rename),
 * made without following a link; -1 with errno. */
static int temp_file(int sub, const char *key, char name[96])
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int tries = 0; tries < 16; tries++) {
        unsigned char r[6];
        if (getentropy(r, sizeof r) != 0) return -1;
        char tail[7];
        for (size_t i = 0; i < 6; i++)
            tail[i] = digits[r[i] % (sizeof digits - 1)];
        tail[6] = '\0';
        snprintf(name, 96, ".%s.json.%s", key, tail);
        int fd = openat(sub, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

/* Writes a record into dir atomically; with times, the record gets them (merge). */
static bool write_record(const char *dir, const char *key, const char *text, size_t len,
                         const struct timespec *times, char *why, size_t n)
{
    int sub = record_dir(dir, key, true, why, n);
    if (sub < 0) return false;
    char tmp[96], final[72];
    snprintf(final, sizeof final, "%s.json", key);
    int fd = temp_file(sub, key, tmp);
    bool ok = fd >= 0;
    if (!ok)
        smc_say(why, n, "%s/v%d/%.2s: cannot make a temporary file: %s", dir, SMC_CACHE_FORMAT, key,
                strerror(errno));
    for (size_t done = 0; ok && done < len;) {
        ssize_t k = write(fd, text + done, len - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            smc_say(why, n, "%s: cannot write: %s", tmp, k < 0 ? strerror(errno) : "no progress");
            ok = false;
        } else {
            done += (size_t)k;
        }
    }
    if (ok && times) (void)futimens(fd, times);
    if (fd >= 0 && close(fd) != 0 && ok) {
        smc_say(why, n, "%s: cannot write: %s", tmp, strerror(errno));
        ok = false;
    }
    if (ok &&
        renameat(sub, tmp, sub, final) != 0) { /* a link named final is replaced, not followed */
        smc_say(why, n, "%s/v%d/%.2s/%s: cannot rename it into place: %s", dir, SMC_CACHE_FORMAT,
                key, final, strerror(errno));
        ok = false;
    }
    if (!ok && fd >= 0) unlinkat(sub, tmp, 0);
    close(sub);
    return ok;
}

bool smc_cache_store(const char *dir, const char *sha256, const char *text, size_t len,
                     uint64_t cap, char *why, size_t n)
{
    smc_say(why, n, "%s", "");
    if (!dir || !text || !smc_cache_key_ok(sha256)) {
        smc_say(why, n, "no directory, no record, or a key that is not a sha256");
        return false;
    }
    if (len > SMC_CACHE_MAX_BYTES) {
        smc_say(why, n, "a record of %zu bytes, more than %u", len, SMC_CACHE_MAX_BYTES);
        return false;
    }
    if (smc_has_credentials(text)) { /* a choice from an index that asks for a login */
        smc_say(why, n, "it names a URL with credentials, which the cache does not keep");
        return false;
    }
    if (!write_record(dir, sha256, text, len, NULL, why, n)) return false;
    char ignored[256];
    (void)smc_cache_trim(dir, cap, sha256, ignored, sizeof ignored);
    return true;
}

/* Names in a cache directory: "v1", "ab", "<sha256>.json", ".<sha256>.json.XXXXXX". */
static bool version_name(const char *s)
{
    size_t k = s[0] == 'v' ? strspn(s + 1, "0123456789") : 0;
    return k > 0 && k < 10 && s[k + 1] == '\0';
}

static bool fan_name(const char *s)
{
    return strspn(s, "0123456789abcdef") == 2 && s[2] == '\0';
}

static bool record_name(const char *s)
{
    return strspn(s, "0123456789abcdef") == 64 && strcmp(s + 64, ".json") == 0;
}

static bool temp_name(const char *s)
{
    return s[0] == '.' && strspn(s + 1, "0123456789abcdef") == 64 &&
           strncmp(s + 65, ".json.", 6) == 0;
}

typedef struct entry {
    char ver[12], fan[3], name[80]; /* dir/ver/fan/name */
    uint64_t size;
    struct timespec mtime;
    bool keep;
} entry;

static int by_age(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    int c = strcmp(x->ver, y->ver);
    if (!c) c = strcmp(x->fan, y->fan);
    return c ? c : strcmp(x->name, y->name);
}

/* Opens the directory name inside at (not following a link) for listing. */
static DIR *open_sub(DIR *at, const char *name)
{
    int fd = openat(dirfd(at), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (fd >= 0 && !d) close(fd);
    return d;
}

bool smc_cache_trim(const char *dir, uint64_t cap, const char *keep, char *why, size_t n)
{
    smc_say(why, n, "%s", "");
    if (!cap) cap = SMC_CACHE_DEFAULT_CAP;
    DIR *top = dir ? opendir(dir) : NULL;
    if (!top) {
        if (dir && errno == ENOENT) return true;
        smc_say(why, n, "%s: cannot list: %s", dir ? dir : "(none)",
                dir ? strerror(errno) : "no directory");
        return false;
    }
    entry *list = NULL;
    size_t count = 0;
    uint64_t total = 0;
    bool ok = true;
    time_t stale = time(NULL) - 24 * 3600;
    for (struct dirent *ve; ok && (ve = readdir(top));) {
        DIR *vd = version_name(ve->d_name) ? open_sub(top, ve->d_name) : NULL;
        bool current = vd && atoi(ve->d_name + 1) == SMC_CACHE_FORMAT;
        for (struct dirent *fe; ok && vd && (fe = readdir(vd));) {
            DIR *sd = fan_name(fe->d_name) ? open_sub(vd, fe->d_name) : NULL;
            for (struct dirent *re; ok && sd && (re = readdir(sd));) {
                struct stat sb;
                bool rec = record_name(re->d_name), tmp = !rec && temp_name(re->d_name);
                if ((!rec && !tmp) ||
                    fstatat(dirfd(sd), re->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
                    !S_ISREG(sb.st_mode))
                    continue;
                if (tmp) { /* a writer that stopped before its rename */
                    if (sb.st_mtim.tv_sec < stale) (void)unlinkat(dirfd(sd), re->d_name, 0);
                    continue;
                }
                entry *e = smc_push(&list, count, sizeof *e);
                if (!e) {
                    smc_say(why, n, "out of memory");
                    ok = false;
                    break;
                }
                *e = (entry){.size = (uint64_t)sb.st_size,
                             .mtime = sb.st_mtim,
                             .keep = current && keep && strncmp(re->d_name, keep, 64) == 0};
                snprintf(e->ver, sizeof e->ver, "%.11s", ve->d_name); /* names checked above */
                snprintf(e->fan, sizeof e->fan, "%.2s", fe->d_name);
                snprintf(e->name, sizeof e->name, "%.79s", re->d_name);
                count++;
                total += e->size;
            }
            if (sd) closedir(sd);
        }
        if (vd) closedir(vd);
    }
    if (ok && total > cap && count > 1) qsort(list, count, sizeof *list, by_age);
    for (size_t i = 0; ok && i < count && total > cap; i++) {
        if (list[i].keep) continue;
        /* Through the directories again, none of them a link now either. */
        int v = sub_dir(dirfd(top), list[i].ver, false);
        int sub = v >= 0 ? sub_dir(v, list[i].fan, false) : -1;
        if (sub >= 0 && (unlinkat(sub, list[i].name, 0) == 0 || errno == ENOENT))
            total -= list[i].size;
        if (sub >= 0) close(sub);
        if (v >= 0) close(v);
    }
    closedir(top);
    free(list);
    return ok;
}

bool smc_cache_merge(const char *into, const char *from, size_t *copied, size_t *skipped, char *why,
                     size_t n)
{
    size_t dummy_c, dummy_s;
    if (!copied) copied = &dummy_c;
    if (!skipped) skipped = &dummy_s;
    *copied = *skipped = 0;
    smc_say(why, n, "%s", "");
    struct stat sb;
    if (!into || !from) {
        smc_say(why, n, "no directory");
        return false;
    }
    bool there = stat(from, &sb) == 0;
    if (!there || !S_ISDIR(sb.st_mode)) {
        smc_say(why, n, "%s: %s", from, there ? "not a directory" : strerror(errno));
        return false;
    }
    char ver[16];
    snprintf(ver, sizeof ver, "v%d", SMC_CACHE_FORMAT);
    int root = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int vfd = root >= 0 ? sub_dir(root, ver, false) : -1;
    int err = errno;
    if (root >= 0) close(root);
    DIR *vd = vfd >= 0 ? fdopendir(vfd) : NULL;
    if (!vd) {
        if (vfd >= 0) err = errno, close(vfd);
        bool none = err == ENOENT; /* no record of this format: nothing to merge */
        if (!none) smc_say(why, n, "%s/%s: cannot list: %s", from, ver, open_why(err));
        return none;
    }
    bool ok = true;
    for (struct dirent *fe; ok && (fe = readdir(vd));) {
        DIR *sd = fan_name(fe->d_name) ? open_sub(vd, fe->d_name) : NULL;
        for (struct dirent *re; ok && sd && (re = readdir(sd));) {
            if (!record_name(re->d_name)) continue; /* temporary files, and what is not ours */
            char key[65];
            memcpy(key, re->d_name, 64);
            key[64] = '\0';
            size_t len = 0;
            char *text = NULL;
            int f =
                strncmp(key, fe->d_name, 2) == 0
                    ? openat(dirfd(sd), re->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
                    : -1; /* in the wrong fan-out directory: load would never find it */
            struct stat rs;
            int ignored;
            if (f >= 0 && fstat(f, &rs) == 0)
                text = smc_read_fd_small(f, SMC_CACHE_MAX_BYTES, &len, &ignored);
            if (f >= 0) close(f);
            if (!record_ok(text, len, key)) {
                (*skipped)++;
                free(text);
                continue;
            }
            size_t olen = 0;
            char *old = read_record(into, key, false, &olen, NULL, 0);
            bool had = record_ok(old, olen, key);
            free(old);
            if (had) { /* the same record is there already */
                free(text);
                continue;
            }
            struct timespec times[2] = {rs.st_atim, rs.st_mtim};
            ok = write_record(into, key, text, len, times, why, n);
            if (ok) (*copied)++;
            free(text);
        }
        if (sd) closedir(sd);
    }
    closedir(vd);
    return ok;
}
