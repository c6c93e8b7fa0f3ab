/* requirements.c: requirements.txt: pins and --hash lines, -r and -c files followed within
 * bounds, --index-url lines; the choice of file is left to the index. */
#include "lock_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *skip_space(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void trim_end(char *p)
{
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        p[--n] = '\0';
}

/* Whether s starts with a URL scheme and "://" (a bare URL line, not a name). */
static bool url_scheme(const char *s)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
    return n > 0 && isalpha((unsigned char)s[0]) && strncmp(s + n, "://", 3) == 0;
}

/* Whether a requirements file is one of those open, by its device and inode; else it is the next
 * one open. False with why when it is (a file that includes itself, directly or not: pip refuses
 * it, "recursively references itself") or when INCLUDE_MAX are open. */
bool lock_opened(reader *r, const struct stat *st, char *why, size_t n)
{
    for (unsigned k = 0; k < r->depth; k++)
        if (r->open[k].dev == st->st_dev && r->open[k].ino == st->st_ino) {
            smc_say(why, n, "it includes itself (through the files that include it)");
            return false;
        }
    if (r->depth == INCLUDE_MAX) {
        smc_say(why, n, "requirements files included more than %u deep", INCLUDE_MAX);
        return false;
    }
    r->open[r->depth].dev = st->st_dev;
    r->open[r->depth++].ino = st->st_ino;
    return true;
}

/* -r FILE and -c FILE: that file's lines, read here, as pip reads them: FILE is a path relative
 * to this file's directory, or a file: URL (one on the web is not fetched: a problem). -c's pins
 * constrain the requirements and install nothing; a file that either includes is a requirements
 * file again, as in pip. A file missing or unreadable is a problem; a bad line in it refuses the
 * whole, as a bad line here does. Its problems and notes begin with where it was included. */
static bool include(reader *r, const char *opt, const char *arg, bool constraint, unsigned lineno,
                    char *why, size_t n)
{
    if (!*arg) {
        smc_say(why, n, "line %u: %s names no file", lineno, opt);
        return false;
    }
    if (url_scheme(arg) && strncasecmp(arg, "file:", 5) != 0)
        return lock_problem(r, "line %u: %s %.200s: a requirements file on the web is not fetched",
                            lineno, opt, arg);
    char *path = lock_beside(r->path, arg), *text = NULL, err[256], inner[512] = "";
    size_t len = 0;
    struct stat st;
    int got = -1; /* out of memory */
    if (path && stat(path, &st) != 0) {
        smc_say(err, sizeof err, "%s", strerror(errno));
        got = 0;
    } else if (path && !S_ISREG(st.st_mode)) { /* a FIFO or /dev/stdin would wait for ever */
        smc_say(err, sizeof err, "not a regular file");
        got = 0;
    } else if (path && (r->files == INCLUDED_FILES_MAX ||
                        (uint64_t)st.st_size > INCLUDED_BYTES_MAX - r->bytes)) {
        smc_say(inner, sizeof inner, "more than %u requirements files or %u MiB included",
                INCLUDED_FILES_MAX, INCLUDED_BYTES_MAX >> 20);
        got = 1; /* refused below */
    } else if (path) {
        got =
            smc_read_small_file(path, INCLUDED_BYTES_MAX - r->bytes, &text, &len, err, sizeof err);
        r->files++;
        r->bytes += len;
    }
    bool ok = got > 0;
    if (got == 0) {
        ok = lock_problem(r, "line %u: %s %.200s: %s", lineno, opt, arg, err);
    } else if (inner[0] || (ok && !lock_opened(r, &st, inner, sizeof inner))) {
        ok = false;
    } else if (ok) {
        const char *path_was = r->path;
        char *label_was = r->label;
        bool constraint_was = r->constraint;
        r->label = label_was ? smc_asprintf("%s: line %u: %s %.200s", label_was, lineno, opt, arg)
                             : smc_asprintf("line %u: %s %.200s", lineno, opt, arg);
        r->path = path;
        r->constraint = constraint;
        ok = r->label && lock_read_requirements(r, text, len, inner, sizeof inner);
        free(r->label);
        r->label = label_was;
        r->path = path_was;
        r->constraint = constraint_was;
        r->depth--;
    }
    if (!ok && inner[0]) smc_say(why, n, "line %u: %s %.200s: %s", lineno, opt, arg, inner);
    free(text);
    free(path);
    return ok;
}

/* An option line (pip's file options): the index lines kept; -r and -c read (include); -e of a
 * path a note, of version control a problem; the rest (--find-links, --no-binary, --trusted-host
 * ...) change nothing a pin's wheel is judged by. */
static bool option_line(reader *r, char *p, unsigned lineno, char *why, size_t n)
{
    smc_lock *l = r->l;
    char opt[64], *arg;
    if (p[1] != '-' && p[1] && !strchr(" \t=", p[1])) { /* -rFILE, -i URL */
        snprintf(opt, sizeof opt, "-%c", p[1]);
        arg = p + 2;
    } else {
        size_t len = strcspn(p, " \t=");
        snprintf(opt, sizeof opt, "%.*s", (int)(len < 63 ? len : 63), p);
        arg = p + len;
    }
    arg = skip_space(arg);
    if (*arg == '=') arg = skip_space(arg + 1);
    arg[strcspn(arg, " \t")] = '\0';
    bool index = strcmp(opt, "-i") == 0 || strcmp(opt, "--index-url") == 0;
    if (index || strcmp(opt, "--extra-index-url") == 0) {
        if (!*arg) return lock_problem(r, "line %u: %s names no URL", lineno, opt);
        char *u = smc_strdup(arg);
        if (!u) return false;
        if (!index) return lock_add_string(&l->indexes, &l->index_count, u);
        if (l->index_given) { /* the last --index-url is the one pip uses */
            free(l->indexes[0]);
            l->indexes[0] = u;
            return true;
        }
        if (!lock_add_string(&l->indexes, &l->index_count, u)) return false;
        memmove(l->indexes + 1, l->indexes, (l->index_count - 1) * sizeof *l->indexes);
        l->indexes[0] = u; /* the index first: it replaces the default */
        l->index_given = true;
        return true;
    }
    if (strcmp(opt, "-r") == 0 || strcmp(opt, "--requirement") == 0)
        return include(r, opt, arg, false, lineno, why, n);
    if (strcmp(opt, "-c") == 0 || strcmp(opt, "--constraint") == 0)
        return include(r, opt, arg, true, lineno, why, n);
    if (strcmp(opt, "-e") == 0 || strcmp(opt, "--editable") == 0) {
        /* a path or a file: URL (`uv export` writes -e .), not version control's git+https: */
        if (*arg && (!strstr(arg, "://") || strncasecmp(arg, "file:", 5) == 0))
            return lock_note(r, "line %u: %s %.200s: %s", lineno, opt, arg, LOCAL_DIRECTORY);
        return lock_problem(
            r, "line %u: %s %.200s: an editable project is built from source, not a wheel", lineno,
            opt, arg);
    }
    return true;
}

/* One logical line (continuations joined, the comment cut): a pin with its --hash options, or
 * an option of the file. What is not a requirement refuses the file (as pip would refuse it);
 * one not pinned to one version waits for the constraints (settle), and without one is resolved
 * as pip would. In a -c file a pin is a
 * constraint, and a requirement not pinned constrains nothing this reads. */
static bool requirement_line(reader *r, char *line, unsigned lineno, char *why, size_t n)
{
    char *p = skip_space(line);
    trim_end(p);
    if (!*p) return true;
    if (*p == '-') return option_line(r, p, lineno, why, n);
    /* pip's break_args_options: the requirement ends at the first word that starts with '-' */
    char *opts = NULL;
    for (char *q = p; *q;) {
        if (*q == '-' && (q[-1] == ' ' || q[-1] == '\t')) { /* q > p: p is not an option */
            opts = q;
            q[-1] = '\0';
            break;
        }
        q++;
    }
    trim_end(p);
    char name[128] = "", *q = NULL, *url = NULL, *marker = NULL, *version = NULL, *spec = NULL;
    bool bare = url_scheme(p) || *p == '.' || *p == '/';
    if (bare) { /* a wheel's URL or path alone: its name is the wheel's */
        url = p;
        q = p + strcspn(p, " \t");
        if (*q) *q++ = '\0';
        q = skip_space(q);
        if (*q == ';')
            marker = q + 1;
        else if (*q)
            q = NULL;
    } else {
        size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
        if (len == 0 || len >= sizeof name || !isalnum((unsigned char)p[0]) ||
            !isalnum((unsigned char)p[len - 1])) {
            smc_say(why, n, "line %u: '%.200s' is not a requirement (name==version)", lineno, p);
            return false;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        q = skip_space(p + len);
        if (*q == '[') { /* extras change nothing of the wheel */
            char *close = strchr(q, ']');
            q = close ? skip_space(close + 1) : NULL;
        }
        if (q && *q == '@') { /* PEP 508: the URL ends at a space; the marker follows "; " */
            url = skip_space(q + 1);
            q = url + strcspn(url, " \t");
            if (*q) *q++ = '\0';
            q = skip_space(q);
            if (*q == ';')
                marker = q + 1;
            else if (*q || !*url)
                q = NULL;
        } else if (q) {
            char *semi = strchr(q, ';');
            if (semi) {
                *semi = '\0';
                marker = semi + 1;
            }
            trim_end(q);
            size_t end = strlen(q);
            if (*q == '(' && end > 1 && q[end - 1] == ')') { /* name (==1.0) */
                q[end - 1] = '\0';
                q = skip_space(q + 1);
                trim_end(q);
            }
            bool arbitrary = strncmp(q, "===", 3) == 0;
            version = arbitrary                  ? skip_space(q + 3)
                      : strncmp(q, "==", 2) == 0 ? skip_space(q + 2)
                                                 : NULL;
            bool pinned = version && *version && !strpbrk(version, " \t,*;");
            if (pinned && !arbitrary) { /* == wants a PEP 440 version; === any string */
                char pinspec[160];
                snprintf(pinspec, sizeof pinspec, "==%s", version);
                pinned = strlen(version) <= 128 && smc_pep440_match(pinspec, version) == 1;
            }
            if (!pinned && (strlen(q) > 200 || smc_pep440_match(q, "0") < 0)) {
                smc_say(why, n,
                        "line %u: '%.200s' is not a requirement pip takes (%s with a "
                        "specifier set such as ==2.8.0 or >=2.8,<3)",
                        lineno, p, name);
                return false;
            }
            if (!pinned) spec = q; /* its version comes from a constraint, or from nowhere */
        }
    }
    if (!q) {
        smc_say(why, n, "line %u: '%.200s' is not a requirement (name==version)", lineno, p);
        return false;
    }
    /* the wheel a URL names: its name and version, and whether it fits */
    char file[1024] = "";
    smc_wheel_name wn = {0};
    bool wheel = false;
    if (url) {
        lock_url_file(url, file, sizeof file);
        wheel = smc_ends_with(file, ".whl") && smc_wheel_name_parse(file, &wn);
        if (bare && wheel) snprintf(name, sizeof name, "%s", wn.name);
    }
    char what[256]; /* a bare URL that is not a wheel (a project to build) has no name to give */
    snprintf(what, sizeof what, "line %u%s%s", lineno, name[0] ? ": " : "", name);
    if (marker && !lock_marker_text_holds(r, what, skip_space(marker))) return true;
    if (url && !wheel)
        return lock_problem(r, "%s: %.200s is not a wheel: it is built from source", what, url);
    if (url && smc_wheel_rank(r->e, file) < 0)
        return lock_problem(r, "%s: its wheel %.200s is not for %s", what, file, r->env);
    /* A path, or a file: URL. A path is relative to the working directory, as pip and uv take
     * it (pip 26.3 and uv 0.13 tried: not to the file's directory, unlike -r and -c). */
    char *local = NULL;
    if (url && (!url_scheme(url) || strncasecmp(url, "file:", 5) == 0) &&
        !(local = url_scheme(url) ? lock_beside(r->path, url) : smc_strdup(url)))
        return false;
    if (url && !lock_location_ok(local ? local : url)) {
        free(local);
        return lock_problem(r, "%s: '%.200s' is not a URL to fetch", what, url);
    }
    if (spec && r->constraint) return true;
    smc_lock *into = r->constraint ? &r->cons : r->l;
    const char *v = url ? wn.version : spec ? spec : version;
    smc_pin *pin = lock_add_pin(into, name, v, local ? local : url, NULL, NULL);
    free(local);
    if (!pin) return false;
    if (spec) {
        loose *lo = smc_push(&r->loose, r->loose_count, sizeof *r->loose);
        if (!lo) return false;
        lo->pin = r->l->pin_count - 1;
        lo->where = r->label ? smc_asprintf("%s: line %u", r->label, lineno)
                             : smc_asprintf("line %u", lineno);
        r->loose_count++;
        if (!lo->where) return false;
    }
    /* --hash=ALGO:HEX or --hash ALGO:HEX, any number; pip also takes sha384 and sha512 */
    bool hashed = false, other = false;
    for (char *h = opts; opts && *h;) { /* opts: after the requirement, or NULL */
        h = skip_space(h);
        size_t wl = strcspn(h, " \t");
        char *value = NULL;
        if (wl > 7 && strncmp(h, "--hash=", 7) == 0) {
            value = h + 7;
        } else if (wl == 6 && strncmp(h, "--hash", 6) == 0) {
            value = skip_space(h + 6);
            wl = (size_t)(value - h) + strcspn(value, " \t");
        }
        char *next = h + wl;
        if (*next) *next++ = '\0';
        h = next;
        if (!value) continue;
        hashed = true;
        char hex[65];
        if (strncasecmp(value, "sha256:", 7) != 0) {
            other = true;
        } else if (!lock_sha256_of(value, hex)) {
            if (!lock_problem(r, "%s: its hash '%.80s' is not a sha256 of 64 hex digits", what,
                              value))
                return false;
        } else if (!lock_add_string(&pin->hashes, &pin->hash_count, smc_strdup(hex))) {
            return false;
        }
    }
    if (hashed && pin->hash_count == 0 &&
        !lock_problem(
            r, "%s: none of its hashes is a sha256 of 64 hex digits%s: its file is not checked",
            what, other ? " (sha384 and sha512 are not checked)" : ""))
        return false;
    if (url && pin->hash_count == 1)
        snprintf(pin->sha256, sizeof pin->sha256, "%s", pin->hashes[0]);
    return true;
}

/* Lines as pip reads them (req_file.py): split at \n, \r\n or \r; a line that ends in '\' is
 * joined to the next, unless it is a comment line (which ends the joined line); then a comment,
 * from a '#' at the start or after a space, is cut, so that a comment ending in '\' swallows the
 * next line. */
bool lock_read_requirements(reader *r, const char *text, size_t len, char *why, size_t n)
{
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) { /* a UTF-8 byte-order mark, as pip */
        text += 3;
        len -= 3;
    }
    char *line = malloc(LINE_MAX_BYTES + 1);
    if (!line) return false;
    size_t k = 0, i = 0;
    unsigned lineno = 0, first = 1;
    bool ok = true, joining = false, comment = false;
    while (ok && i < len) {
        size_t start = i, end = i;
        while (end < len && text[end] != '\n' && text[end] != '\r')
            end++;
        i = end < len ? end + (text[end] == '\r' && end + 1 < len && text[end + 1] == '\n' ? 2 : 1)
                      : len;
        lineno++;
        if (memchr(text + start, '\0', end - start)) {
            smc_say(why, n, "line %u: a NUL byte: not a requirements file", lineno);
            ok = false;
            break;
        }
        if (!joining) {
            first = lineno;
            k = 0;
            comment = false;
        }
        size_t s = start;
        while (s < end && (text[s] == ' ' || text[s] == '\t'))
            s++;
        bool comment_line = s < end && text[s] == '#';
        bool cont = !comment_line && end > start && text[end - 1] == '\\';
        size_t stop = end;
        while (cont && stop > start && text[stop - 1] == '\\')
            stop--;
        for (size_t c = start; ok && c < stop && !comment_line && !comment; c++) {
            if (text[c] == '#' && (k == 0 || line[k - 1] == ' ' || line[k - 1] == '\t')) {
                comment = true;
            } else if (k == LINE_MAX_BYTES) {
                smc_say(why, n, "line %u: longer than %u bytes", first, LINE_MAX_BYTES);
                ok = false;
            } else {
                line[k++] = text[c];
            }
        }
        if (ok && cont) {
            if (k == LINE_MAX_BYTES) {
                smc_say(why, n, "line %u: longer than %u bytes", first, LINE_MAX_BYTES);
                ok = false;
            } else if (!comment) {
                line[k++] = ' ';
            }
        }
        joining = ok && cont;
        if (ok && !joining) {
            line[k] = '\0';
            ok = requirement_line(r, line, first, why, n);
        }
    }
    if (ok && joining) { /* the last line ends in '\' */
        line[k] = '\0';
        ok = requirement_line(r, line, first, why, n);
    }
    free(line);
    return ok;
}
