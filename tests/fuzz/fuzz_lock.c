/* fuzz_lock.c: the lock file reader on any bytes, the first byte choosing the kind (its value mod
 * 3: pylock.toml, uv.lock, requirements.txt; seeds start with '0', '1', '2') and the environment
 * (cp311 on manylinux_2_28_x86_64, or on win_amd64); the rest is the file. What it returns must
 * keep acquire.h's promises for lock files: one-line messages, pins with a name and version, sha256s of 64
 * lower-case hex digits, and nothing left after a refusal. A requirements.txt lies beside three
 * files its -r and -c lines can name. */
#include "../../src/lib/acquire/acquire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool hex64(const char *s)
{
    if (strlen(s) != 64) return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return false;
    return true;
}

static bool one_line(const char *s)
{
    return s && s[0] && !strchr(s, '\n') && !strchr(s, '\r');
}

static void check(const smc_lock *l)
{
    for (size_t i = 0; i < l->pin_count; i++) {
        const smc_pin *p = &l->pins[i];
        if (!p->name || !p->version || (p->sha256[0] && !hex64(p->sha256))) abort();
        if (p->url && !p->url[0]) abort();
        for (size_t k = 0; k < p->hash_count; k++)
            if (!hex64(p->hashes[k])) abort();
    }
    for (size_t i = 0; i < l->problem_count; i++)
        if (!one_line(l->problems[i])) abort();
    for (size_t i = 0; i < l->note_count; i++)
        if (!one_line(l->notes[i])) abort();
    for (size_t i = 0; i < l->index_count; i++)
        if (!l->indexes[i] || !l->indexes[i][0]) abort();
    if (l->index_given && l->index_count == 0) abort();
}

/* requirements.txt's -r and -c read files beside it: a few, made once in a directory of their
 * own (a -c that installs through its -r, a loop), that the bytes can name */
static char dir[256], req[300];
static const char *const beside[][2] = {
    {"a.txt", "six==1.0 --hash=sha256:" "0123456789abcdef0123456789abcdef"
              "0123456789abcdef0123456789abcdef\nham>=1\n-c c.txt\n"},
    {"c.txt", "ham==2.0\nspam==3 ; sys_platform == 'win32'\n-r a.txt\n"},
    {"loop.txt", "-r loop.txt\n"},
};

static void remove_beside(void)
{
    char path[300];
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, beside[i][0]);
        unlink(path);
    }
    rmdir(dir);
}

static void make_beside(void)
{
    const char *tmp = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%.200s/fuzz_lock.XXXXXX", tmp);
    if (!mkdtemp(dir)) abort();
    atexit(remove_beside);
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/%s", dir, beside[i][0]);
        FILE *f = fopen(path, "w");
        if (!f || fputs(beside[i][1], f) < 0 || fclose(f) != 0) abort();
    }
    snprintf(req, sizeof req, "%s/requirements.txt", dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static smc_pyenv envs[2];
    static bool ready;
    char why[256];
    if (!ready) {
        if (!smc_pyenv_init(&envs[0], "manylinux_2_28_x86_64", "3.11", why, sizeof why) ||
            !smc_pyenv_init(&envs[1], "win_amd64", "3.11", why, sizeof why))
            abort();
        make_beside();
        ready = true;
    }
    if (size < 1) return 0;
    const char *const paths[] = {"/lock/dir/pylock.toml", "/lock/dir/uv.lock", req};
    const char *path = paths[data[0] % 3];
    const smc_pyenv *e = &envs[data[0] / 3 % 2];
    /* the project's extras asked for, sometimes (uv.lock's conflict markers see them) */
    static const char *const extras[] = {"cu128", "dev", "Old"};
    size_t extra_count = data[0] / 6 % 4;
    /* a copy of exactly size - 1 bytes, no NUL after it: a read past the end is caught */
    size_t len = size - 1;
    char *text = malloc(len ? len : 1);
    if (!text) return 0;
    if (len) memcpy(text, data + 1, len);
    smc_lock l;
    if (smc_lock_read(path, text, len, e, extras, extra_count, &l, why, sizeof why)) {
        check(&l);
        smc_lock_free(&l);
    } else if (!one_line(why) || strlen(why) >= sizeof why || l.pins || l.pin_count || l.problems ||
               l.problem_count || l.indexes || l.index_count || l.notes || l.note_count) {
        abort();
    }
    free(text);
    return 0;
}
