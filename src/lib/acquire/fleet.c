/* fleet.c: a fleet declared in pyproject.toml's [tool.smcheck] table (smcheck/fleet.h), read
 * through the TOML reader of the lock files. Strict on purpose: a gate that reads a fleet wrong
 * must stop, never pass, so every key and value is checked and an error names its line. */
#include "smcheck/fleet.h"
#include "acquire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FLEET_FILE_MAX (1u << 20) /* a pyproject.toml is a few KiB */

/* Whether text holds a [tool.smcheck] table or one of its arrays of tables, by its lines. */
static bool declares(const char *text)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "[tool.smcheck]", 14) == 0 || strncmp(p, "[[tool.smcheck.", 15) == 0 ||
            strncmp(p, "[tool.smcheck.", 14) == 0)
            return true;
    }
    return false;
}

/* The fleet declared in directory at: its pyproject.toml's [tool.smcheck], else skylos's
 * .skylos/gpu-targets.yml (or .yaml). 1 and *path, 0 none, -1 out of memory. skylos's file is
 * taken when it is there at all, a symbolic link or a FIFO too: reading it then fails closed, as
 * skylos does. */
static int in_dir(const char *at, char **path)
{
    const char *sep = strcmp(at, "/") == 0 ? "" : "/";
    char *file = smc_asprintf("%s%spyproject.toml", at, sep);
    if (!file) return -1;
    char *text = NULL, err[256];
    size_t len = 0;
    struct stat sb; /* a FIFO of that name would block the open: regular files alone */
    int r = stat(file, &sb) == 0 && S_ISREG(sb.st_mode)
                ? smc_read_small_file(file, FLEET_FILE_MAX, &text, &len, err, sizeof err)
                : 0;
    bool found = r > 0 && declares(text);
    free(text);
    for (int i = 0; r >= 0 && !found && i < 2; i++) {
        free(file);
        if (!(file = smc_asprintf("%s%s.skylos/gpu-targets.%s", at, sep, i ? "yaml" : "yml")))
            return -1;
        found = lstat(file, &sb) == 0;
    }
    if (r < 0 || !found) {
        free(file);
        return r < 0 ? -1 : 0;
    }
    *path = file;
    return 1;
}

int smc_fleet_find(const char *dir, char **path)
{
    *path = NULL;
    char *at = realpath(dir && *dir ? dir : ".", NULL);
    if (!at) return errno == ENOMEM ? -1 : 0;
    for (;;) {
        int r = in_dir(at, path);
        if (r != 0) {
            free(at);
            return r;
        }
        char *slash = strrchr(at, '/');
        if (!slash || slash == at) {
            bool root = strcmp(at, "/") == 0;
            if (root) break;
            at[1] = '\0'; /* then "/" itself */
            continue;
        }
        *slash = '\0';
    }
    free(at);
    return 0;
}

/* The line of the n-th (from 0) line of text that starts with header, blanks aside; 0 if none. */
static unsigned header_line(const char *text, const char *header, size_t nth)
{
    unsigned line = 1;
    size_t seen = 0, hl = strlen(header);
    for (const char *p = text; *p; line++) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, header, hl) == 0 && seen++ == nth) return line;
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

/* A string key of a table into *out (copied), or NULL when absent; false (why) when present and
 * not a string, or empty. */
static bool string_key(const cJSON *t, const char *key, char **out, const char *path, unsigned line,
                       const char *what, char *why, size_t n)
{
    *out = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!v) return true;
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > 1024)
        return smc_say_at(why, n, path, line, "%s%s must be a string (\"...\") of 1 to 1024 bytes",
                          what[0] ? what : "[tool.smcheck]: ", key);
    if (!(*out = smc_strdup(v->valuestring)))
        return smc_say_at(why, n, path, line, "out of memory");
    return true;
}

/* Whether path names skylos's file: .yml or .yaml. */
static bool is_yaml(const char *path)
{
    return smc_ends_with(path, ".yml") || smc_ends_with(path, ".yaml");
}

bool smc_fleet_read(const char *path, smc_fleet *f, char *why, size_t n)
{
    if (is_yaml(path)) {
        bool ok = smc_fleet_read_yaml(path, f, why, n);
        if (!ok) smc_fleet_free(f);
        return ok;
    }
    memset(f, 0, sizeof *f);
    char *text = NULL, err[256];
    size_t len = 0;
    int r = smc_read_small_file(path, FLEET_FILE_MAX, &text, &len, err, sizeof err);
    if (r <= 0) return smc_say_at(why, n, path, 0, "%s", r < 0 ? "out of memory" : err);
    char terr[256];
    cJSON *doc = smc_toml_parse(text, len, terr, sizeof terr);
    bool ok = doc != NULL;
    if (!doc) smc_say_at(why, n, path, 0, "not TOML: %s", terr);
    const cJSON *tool = ok ? cJSON_GetObjectItemCaseSensitive(doc, "tool") : NULL;
    const cJSON *me = cJSON_GetObjectItemCaseSensitive(tool, "smcheck");
    unsigned top = text ? header_line(text, "[tool.smcheck]", 0) : 0;
    if (ok && !cJSON_IsObject(me))
        ok = smc_say_at(why, n, path, 0, "no [tool.smcheck] table: no fleet is declared here");
    for (const cJSON *k = ok ? me->child : NULL; ok && k; k = k->next)
        if (strcmp(k->string, "fail-on") != 0 && strcmp(k->string, "targets") != 0 &&
            strcmp(k->string, "facts-url") != 0)
            ok = smc_say_at(why, n, path, top,
                            "[tool.smcheck] has a key smcheck does not know: '%.60s' (fail-on, "
                            "facts-url, targets)",
                            k->string);
    if (ok && (f->path = smc_strdup(path)) == NULL)
        ok = smc_say_at(why, n, path, 0, "out of memory");
    if (ok) {
        f->fail_on_line = top;
        ok = string_key(me, "fail-on", &f->fail_on, path, top, "", why, n) &&
             string_key(me, "facts-url", &f->facts_url, path, top, "", why, n);
        if (ok && f->facts_url && strncmp(f->facts_url, "http://", 7) != 0 &&
            strncmp(f->facts_url, "https://", 8) != 0)
            ok = smc_say_at(why, n, path, top,
                            "[tool.smcheck]: facts-url wants an http:// or https:// URL, not "
                            "'%.60s'",
                            f->facts_url);
    }
    const cJSON *targets = ok ? cJSON_GetObjectItemCaseSensitive(me, "targets") : NULL;
    size_t count = cJSON_IsArray(targets) ? (size_t)cJSON_GetArraySize(targets) : 0;
    if (ok && (!targets || !cJSON_IsArray(targets) || count == 0))
        ok = smc_say_at(
            why, n, path, top,
            "[tool.smcheck] declares no targets ([[tool.smcheck.targets]] tables, each with "
            "a name and gpus): a fleet that is empty would pass everything");
    if (ok && count > FLEET_TARGETS_MAX)
        ok = smc_say_at(why, n, path, top, "more than %d targets", FLEET_TARGETS_MAX);
    if (ok && !(f->targets = calloc(count, sizeof *f->targets)))
        ok = smc_say_at(why, n, path, 0, "out of memory");
    size_t i = 0;
    for (const cJSON *t = ok ? targets->child : NULL; ok && t; t = t->next, i++) {
        smc_fleet_target *ft = &f->targets[i];
        f->count = i + 1;
        ft->line = header_line(text, "[[tool.smcheck.targets]]", i);
        char what[64];
        snprintf(what, sizeof what, "target %zu: ", i + 1);
        if (!cJSON_IsObject(t)) {
            ok = smc_say_at(why, n, path, ft->line, "%sis not a table", what);
            break;
        }
        for (const cJSON *k = t->child; ok && k; k = k->next)
            if (strcmp(k->string, "name") && strcmp(k->string, "gpus") &&
                strcmp(k->string, "driver") && strcmp(k->string, "platform"))
                ok = smc_say_at(why, n, path, ft->line,
                                "%shas a key smcheck does not know: '%.60s' (name, gpus, driver, "
                                "platform)",
                                what, k->string);
        ok = ok && string_key(t, "name", &ft->name, path, ft->line, what, why, n) &&
             string_key(t, "gpus", &ft->gpus, path, ft->line, what, why, n) &&
             string_key(t, "driver", &ft->driver, path, ft->line, what, why, n) &&
             string_key(t, "platform", &ft->platform, path, ft->line, what, why, n);
        if (ok && (!ft->name || !ft->gpus))
            ok =
                smc_say_at(why, n, path, ft->line, "%shas no %s", what, ft->name ? "gpus" : "name");
        for (size_t j = 0; ok && j < i; j++)
            if (strcmp(f->targets[j].name, ft->name) == 0)
                ok = smc_say_at(why, n, path, ft->line, "%sis named '%.60s', as target %zu is",
                                what, ft->name, j + 1);
    }
    cJSON_Delete(doc);
    free(text);
    if (!ok) smc_fleet_free(f);
    return ok;
}

void smc_fleet_free(smc_fleet *f)
{
    for (size_t i = 0; f->targets && i < f->count; i++) {
        free(f->targets[i].name);
        free(f->targets[i].gpus);
        free(f->targets[i].driver);
        free(f->targets[i].platform);
    }
    free(f->targets);
    free(f->path);
    free(f->fail_on);
    free(f->facts_url);
    memset(f, 0, sizeof *f);
}
