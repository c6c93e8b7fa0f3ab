/* audit.c: `smcheck audit`: the facts of an index's GPU wheels, one shard of them a process
 * (a Kubernetes Indexed Job's pod, a CI matrix job), and the merge of the shards' indexes.
 * Each shard writes DIR/facts/<ab>/<sha256>.json (smc_audit_facts) and, at its end, its index
 * DIR/shards/I-of-N.tsv, whole, by a rename: a shard killed half-way and run again skips the
 * records it made and writes the same index. */
#include "audit.h"

#include "smcheck/audit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* printf into new memory; NULL when out of memory. */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

/* A whole file of at most cap bytes, NUL-terminated; NULL with err set (errno, EFBIG). */
static char *read_whole(const char *path, size_t cap, int *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *err = errno;
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, room = 0;
    for (;;) {
        if (len == room) {
            room = room ? 2 * room : 64u << 10;
            char *grown = room <= cap + 1 ? realloc(buf, room + 1) : NULL;
            if (!grown) {
                *err = room > cap + 1 ? EFBIG : ENOMEM;
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + len, 1, room - len, f);
        len += got;
        if (got == 0) break;
    }
    *err = ferror(f) ? EIO : 0;
    fclose(f);
    if (*err) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

#define INDEX_HEAD "# project\tversion\tfile\tsha256\tsize\tfacts (or: error: why)\n"

/* "I/N" (I may be empty: JOB_COMPLETION_INDEX, else 0): false when it is not one. */
static bool parse_shard(const char *text, unsigned *i, unsigned *n)
{
    const char *slash = strchr(text ? text : "0/1", '/');
    const char *job = getenv("JOB_COMPLETION_INDEX");
    char head[16];
    if (!slash) return false;
    size_t hl = (size_t)(slash - (text ? text : "0/1"));
    if (hl >= sizeof head) return false;
    memcpy(head, text ? text : "0/1", hl);
    head[hl] = '\0';
    const char *index = hl ? head : job && *job ? job : "0";
    char *end;
    unsigned long a = strtoul(index, &end, 10);
    if (*end || end == index || index[0] == '-') return false;
    unsigned long b = strtoul(slash + 1, &end, 10);
    if (*end || end == slash + 1 || slash[1] == '-' || b < 1 || b > 100000 || a >= b) return false;
    *i = (unsigned)a;
    *n = (unsigned)b;
    return true;
}

/* The project names of a file, one a line ('#' comments, blanks skipped): malloc'd array of
 * pointers into *text. */
static bool read_projects(const char *path, char **text, char ***names, size_t *count, FILE *diag)
{
    *names = NULL;
    *count = 0;
    int err = 0;
    if (!(*text = read_whole(path, 64u << 20, &err))) {
        fprintf(diag, "smcheck: %s: %s\n", path, err == EFBIG ? "over 64 MiB" : strerror(err));
        return false;
    }
    for (char *line = *text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        while (*line == ' ' || *line == '\t' || *line == '\r')
            line++;
        size_t l = strlen(line);
        while (l && (line[l - 1] == ' ' || line[l - 1] == '\t' || line[l - 1] == '\r'))
            line[--l] = '\0';
        if (!l) continue;
        char **grown = realloc(*names, (*count + 1) * sizeof *grown);
        if (!grown) return false;
        *names = grown;
        grown[(*count)++] = line;
    }
    return true;
}

/* Writes text to path through a temporary file and a rename. */
static bool write_whole(const char *path, const char *text, size_t len)
{
    char *tmp = format("%s.%ld.tmp", path, (long)getpid());
    FILE *f = tmp ? fopen(tmp, "w") : NULL;
    bool ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = false;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok && tmp) unlink(tmp);
    free(tmp);
    return ok;
}

/* Appends a printf'd line to a growing buffer. */
static bool add_line(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool add_line(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    if (vasprintf(&line, fmt, ap) < 0) line = NULL;
    va_end(ap);
    if (!line) return false;
    size_t l = strlen(line);
    char *grown = realloc(*buf, *len + l + 1);
    if (grown) {
        memcpy(grown + *len, line, l + 1);
        *buf = grown;
        *len += l;
    }
    free(line);
    return grown != NULL;
}

/* A one-line reason: tabs and newlines become blanks. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
}

int audit_run(const audit_args *a, FILE *diag)
{
    unsigned shard, shards;
    if (!a->output) {
        fprintf(diag, "smcheck: audit needs --output DIR\nTry 'smcheck --help'.\n");
        return 64;
    }
    if (!parse_shard(a->shard, &shard, &shards)) {
        fprintf(diag,
                "smcheck: --shard wants I/N with 0 <= I < N (I may be left out: "
                "JOB_COMPLETION_INDEX), not '%s'\nTry 'smcheck --help'.\n",
                a->shard ? a->shard : "");
        return 64;
    }
    if (a->merge) return audit_merge(a, diag);
    if (a->npaths > 1) {
        fprintf(diag, "smcheck: audit takes one PROJECTS file (a project name a line), or none "
                      "for every project of the index\nTry 'smcheck --help'.\n");
        return 64;
    }
    char *text = NULL, **names = NULL;
    size_t count = 0;
    if (a->npaths == 1 && !read_projects(a->paths[0], &text, &names, &count, diag)) {
        free(text);
        free(names);
        return 2;
    }
    if (a->npaths == 0) { /* the index's project list */
        char why[512];
        smc_status got =
            smc_audit_index_projects(a->opt, a->index_url, &names, &count, why, sizeof why);
        if (got != SMC_OK) {
            fprintf(diag, "smcheck: %s\n", got == SMC_ERR_NOMEM ? "out of memory" : why);
            return 2;
        }
    }
    smc_audit_list list;
    smc_status st =
        smc_audit_list_wheels(a->opt, a->index_url, (const char *const *)names, count, &list);
    for (size_t i = 0; !text && i < count; i++) /* the index's names are their own */
        free(names[i]);
    free(names);
    if (st != SMC_OK) {
        free(text);
        fprintf(diag, "smcheck: %s\n", smc_status_str(st));
        return 2;
    }
    int status = 0;
    for (size_t i = 0; i < list.error_count; i++) {
        fprintf(diag, "smcheck: %s\n", list.errors[i]);
        status = 2;
    }
    unsigned *of = calloc(list.count ? list.count : 1, sizeof *of);
    char *shards_dir = format("%s/shards", a->output);
    char *index = format("%s/shards/%u-of-%u.tsv", a->output, shard, shards);
    char *out = NULL;
    size_t len = 0;
    bool ok = of && shards_dir && index && add_line(&out, &len, "%s", INDEX_HEAD);
    if (ok) smc_audit_shards(list.wheels, list.count, shards, of);
    size_t mine = 0, had = 0, read = 0, failed = 0;
    for (size_t i = 0; ok && i < list.count; i++) {
        if (of[i] != shard) continue;
        mine++;
        const smc_audit_wheel *w = &list.wheels[i];
        char why[512];
        bool there = false;
        st = smc_audit_facts(a->opt, w, a->output, &there, why, sizeof why);
        if (st == SMC_ERR_NOMEM) {
            ok = false;
            break;
        }
        if (st != SMC_OK) {
            one_line(why);
            fprintf(diag, "smcheck: %s: %s\n", w->filename, why);
            failed++;
            status = 2;
        } else {
            there ? had++ : read++;
        }
        ok = add_line(&out, &len, "%s\t%s\t%s\t%s\t%llu\t%s%s\n", w->project, w->version,
                      w->filename, w->sha256, (unsigned long long)w->size,
                      st == SMC_OK ? "facts" : "error: ", st == SMC_OK ? "" : why);
    }
    if (ok && (mkdir(shards_dir, 0755) == 0 || errno == EEXIST) && write_whole(index, out, len)) {
        if (!a->quiet)
            fprintf(diag,
                    "smcheck: shard %u of %u: %zu of %zu wheels (%zu left out: other platforms; "
                    "%zu: no sha256); %zu read, %zu already there, %zu failed; %s\n",
                    shard, shards, mine, list.count, list.other_platforms, list.no_sha256, read,
                    had, failed, index);
    } else {
        fprintf(diag, "smcheck: %s: %s\n", index ? index : a->output,
                ok ? strerror(errno) : "out of memory");
        status = 2;
    }
    char *tmp = format("%s/tmp", a->output);
    if (tmp) rmdir(tmp); /* the scratch of each wheel went with it; a killed run's stays */
    free(tmp);
    free(out);
    free(index);
    free(shards_dir);
    free(of);
    free(text);
    smc_audit_list_free(&list);
    return status;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int audit_merge(const audit_args *a, FILE *diag)
{
    /* The shards of the N the first one found names, each of them there. */
    char *dir = format("%s/shards", a->output);
    if (!dir) return 2;
    unsigned n = 0;
    for (unsigned tries = 1; tries <= 100000 && !n; tries++) {
        char *p = format("%s/0-of-%u.tsv", dir, tries);
        struct stat sb;
        if (p && stat(p, &sb) == 0) n = tries;
        free(p);
    }
    if (!n) {
        fprintf(diag, "smcheck: %s: no shard index (0-of-N.tsv) to merge\n", dir);
        free(dir);
        return 2;
    }
    char **lines = NULL;
    size_t count = 0;
    int status = 0;
    char **texts = calloc(n, sizeof *texts);
    for (unsigned i = 0; texts && i < n && status == 0; i++) {
        char *p = format("%s/%u-of-%u.tsv", dir, i, n);
        int err = ENOMEM;
        if (!p || !(texts[i] = read_whole(p, 1u << 30, &err))) {
            fprintf(diag, "smcheck: %s: %s: the shards are not all there: not merged\n",
                    p ? p : dir, strerror(err));
            status = 2;
        }
        free(p);
        for (char *line = texts[i], *next; status == 0 && line && *line; line = next) {
            next = strchr(line, '\n');
            if (next) *next++ = '\0';
            if (line[0] == '#' || !line[0]) continue;
            char **grown = realloc(lines, (count + 1) * sizeof *grown);
            if (!grown) {
                status = 2;
                break;
            }
            lines = grown;
            lines[count++] = line;
        }
    }
    char *out = NULL;
    size_t len = 0;
    if (status == 0) {
        size_t errors = 0;
        qsort(lines, count, sizeof *lines, by_text);
        bool ok = add_line(&out, &len, "%s", INDEX_HEAD);
        for (size_t i = 0; ok && i < count; i++) {
            if (i && strcmp(lines[i], lines[i - 1]) == 0) continue;
            errors += strstr(lines[i], "\terror: ") != NULL;
            ok = add_line(&out, &len, "%s\n", lines[i]);
        }
        char *index = format("%s/index.tsv", a->output);
        if (!ok || !index || !write_whole(index, out, len)) {
            fprintf(diag, "smcheck: %s: cannot be written\n", index ? index : a->output);
            status = 2;
        } else if (!a->quiet) {
            fprintf(diag, "smcheck: merged %u shards: %zu wheels (%zu with errors) in %s\n", n,
                    count, errors, index);
        }
        free(index);
    }
    for (unsigned i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
    free(lines);
    free(out);
    free(dir);
    return status;
}
