/* fleet_yaml.c: a fleet declared for skylos's `preflight` (.skylos/gpu-targets.yml, version 1),
 * read through libyaml, so that a repository that has one needs nothing more. The contract is
 * skylos's, read as strictly as skylos reads it (with PyYAML's safe loader): a mapping of version
 * (the integer 1) and targets, a list of 1 to 256 mappings of name, vendor (nvidia), driver
 * ("535", "r535", "535.104.05"), compute_capability ("7.5", "75", "sm_75", "8.6+ptx") and
 * platform (linux or windows, /amd64 or /arm64), each value a string, a key given once. Anything
 * else fails closed, naming its line: a gate must never pass on a fleet it read wrong. Beyond
 * skylos: a target must name its compute capability (smcheck judges code against GPUs; a target
 * that names only a driver would judge nothing), and aliases and tags are refused, not expanded. */
#include "acquire.h"
#include "smcheck/fleet.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define YAML_FILE_MAX 1000000u /* skylos's bound */
#define STR_TAG "tag:yaml.org,2002:str"

/* What YAML 1.1's resolver (PyYAML's, which skylos uses) makes of a plain scalar that is not a
 * string: "an integer", "a float", ... or NULL for a string. `driver: 535` is an integer there
 * and `compute_capability: 7.5` a float, which skylos refuses; so does smcheck, saying so. */
static const char *plain_kind(const char *s)
{
    static const struct {
        const char *kind, *ere;
    } kinds[] = {
        {"null", "^(~|null|Null|NULL|)$"},
        {"a boolean",
         "^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"},
        {"an integer", "^([-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|"
                       "[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$"},
        {"a float", "^([-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?|\\.[0-9_]+([eE][-+][0-9]+)?|"
                    "[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(inf|Inf|INF)|"
                    "\\.(nan|NaN|NAN))$"},
        {"a date",
         "^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)"
         "[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)$"},
        {"a merge key", "^<<$"},
        {"a value key", "^=$"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        regex_t re;
        if (regcomp(&re, kinds[i].ere, REG_EXTENDED | REG_NOSUB) != 0) return "unreadable";
        bool hit = regexec(&re, s, 0, NULL, 0) == 0;
        regfree(&re);
        if (hit) return kinds[i].kind;
    }
    return NULL;
}

typedef struct {
    yaml_document_t *doc;
    const char *path;
    char *why;
    size_t n;
} reader;

static unsigned line_of(const yaml_node_t *node)
{
    return (unsigned)node->start_mark.line + 1;
}

/* A scalar that YAML reads as a string (its text), else NULL with why. */
static const char *string_of(reader *r, const yaml_node_t *v, const char *what)
{
    if (v->type != YAML_SCALAR_NODE) {
        smc_say_at(r->why, r->n, r->path, line_of(v), "%s must be a string, not a %s", what,
                   v->type == YAML_MAPPING_NODE ? "mapping" : "list");
        return NULL;
    }
    const char *s = (const char *)v->data.scalar.value;
    if (strcmp((const char *)v->tag, STR_TAG) != 0) {
        smc_say_at(r->why, r->n, r->path, line_of(v), "%s has a tag (%.60s): none is read here",
                   what, (const char *)v->tag);
        return NULL;
    }
    const char *kind = v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? plain_kind(s) : NULL;
    if (kind) {
        smc_say_at(r->why, r->n, r->path, line_of(v),
                   "%s must be a string: '%.40s' is read as %s; quote it (\"%.40s\")", what, s,
                   kind, s);
        return NULL;
    }
    if (strlen(s) != v->data.scalar.length) {
        smc_say_at(r->why, r->n, r->path, line_of(v), "%s holds a NUL byte", what);
        return NULL;
    }
    return s;
}

/* s without the blanks around it, in new memory; NULL out of memory. */
static char *trimmed(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    return strndup(s, len);
}

/* skylos's compute capability ("7.5", "75", "sm_75", "compute_86", "8.6+ptx", "90-real") as
 * --gpu takes it ("7.5"), into out; false when it is none of those. */
static bool capability(const char *text, char *out, size_t n)
{
    char s[32];
    size_t len = 0;
    for (const char *p = text; *p && len + 1 < sizeof s; p++)
        s[len++] = (char)tolower((unsigned char)*p);
    s[len] = '\0';
    char *b = s, *e = s + len;
    while (isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        *--e = '\0';
    if (strncmp(b, "sm_", 3) == 0)
        b += 3;
    else if (strncmp(b, "compute_", 8) == 0)
        b += 8;
    size_t bl = strlen(b);
    if (bl > 5 && strcmp(b + bl - 5, "-real") == 0)
        b[bl -= 5] = '\0';
    else if (bl > 8 && strcmp(b + bl - 8, "-virtual") == 0)
        b[bl -= 8] = '\0';
    if (bl > 4 && strcmp(b + bl - 4, "+ptx") == 0) b[bl -= 4] = '\0';
    unsigned major, minor;
    if (bl >= 3 && bl <= 4 && b[bl - 2] == '.' && isdigit((unsigned char)b[0]) &&
        isdigit((unsigned char)b[bl - 1]) && (bl == 3 || isdigit((unsigned char)b[1]))) {
        major = (unsigned)atoi(b);
        minor = (unsigned)(b[bl - 1] - '0');
    } else if ((bl == 2 || bl == 3) && strspn(b, "0123456789") == bl) {
        unsigned v = (unsigned)atoi(b);
        major = v / 10;
        minor = v % 10;
    } else {
        return false;
    }
    snprintf(out, n, "%u.%u", major, minor);
    return major > 0;
}

/* skylos's driver ("535", "r535", "535.104", "535.104.05") as --driver takes it, into out. */
static bool driver(const char *text, char *out, size_t n)
{
    while (isspace((unsigned char)*text))
        text++;
    if (*text == 'r' || *text == 'R') text++;
    size_t digits = strspn(text, "0123456789");
    if (digits < 3 || digits > 4) return false;
    const char *p = text + digits;
    for (int parts = 0; *p == '.' && parts < 2; parts++) {
        size_t d = strspn(p + 1, "0123456789");
        if (d == 0) return false;
        p += 1 + d;
    }
    size_t len = (size_t)(p - text);
    while (isspace((unsigned char)*p))
        p++;
    if (*p || len + 1 > n) return false;
    memcpy(out, text, len);
    out[len] = '\0';
    return true;
}

static const char *const target_keys[] = {"name", "vendor", "driver", "compute_capability",
                                          "platform"};
enum { KEY_NAME, KEY_VENDOR, KEY_DRIVER, KEY_CC, KEY_PLATFORM, KEYS };

/* The values of one mapping's keys (known[] names them), each once; false with why for a key
 * not known, given twice, or not a string. */
static bool keys_of(reader *r, const yaml_node_t *map, const char *const *known, size_t nknown,
                    const yaml_node_t **values, const char *what)
{
    for (size_t k = 0; k < nknown; k++)
        values[k] = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *key = yaml_document_get_node(r->doc, p->key);
        const yaml_node_t *value = yaml_document_get_node(r->doc, p->value);
        const char *name = key ? string_of(r, key, "a key") : NULL;
        if (!name || !value) return false;
        size_t k = 0;
        while (k < nknown && strcmp(known[k], name) != 0)
            k++;
        if (k == nknown)
            return smc_say_at(r->why, r->n, r->path, line_of(key),
                              "%shas a key skylos's version 1 does not know: '%.60s'", what, name);
        if (values[k])
            return smc_say_at(r->why, r->n, r->path, line_of(key), "%sgives '%s' twice", what,
                              name);
        values[k] = value;
    }
    return true;
}

/* One target, checked as skylos checks it, into t as the command line would give it. */
static bool read_target(reader *r, const yaml_node_t *node, size_t i, smc_fleet_target *t)
{
    char what[40];
    snprintf(what, sizeof what, "target %zu: ", i + 1);
    t->line = line_of(node);
    if (node->type != YAML_MAPPING_NODE)
        return smc_say_at(r->why, r->n, r->path, t->line, "%sis not a mapping", what);
    const yaml_node_t *v[KEYS];
    if (!keys_of(r, node, target_keys, KEYS, v, what)) return false;
    const char *s[KEYS] = {0};
    for (int k = 0; k < KEYS; k++) {
        char field[80];
        snprintf(field, sizeof field, "%s%s", what, target_keys[k]);
        if (v[k] && !(s[k] = string_of(r, v[k], field))) return false;
    }
    if (!s[KEY_NAME]) return smc_say_at(r->why, r->n, r->path, t->line, "%shas no name", what);
    if (!(t->name = trimmed(s[KEY_NAME])))
        return smc_say_at(r->why, r->n, r->path, 0, "out of memory");
    unsigned at = t->line;
    if (!t->name[0] || strlen(t->name) > 256)
        return smc_say_at(r->why, r->n, r->path, at, "%sname must be 1 to 256 characters", what);
    char *vendor = s[KEY_VENDOR] ? trimmed(s[KEY_VENDOR]) : NULL;
    bool nvidia = vendor && strcasecmp(vendor, "nvidia") == 0;
    free(vendor);
    if (!nvidia)
        return smc_say_at(r->why, r->n, r->path, v[KEY_VENDOR] ? line_of(v[KEY_VENDOR]) : at,
                          "%svendor must be nvidia%s", what,
                          s[KEY_VENDOR] ? "" : " (it is not given)");
    if (!s[KEY_CC])
        return smc_say_at(r->why, r->n, r->path, at,
                          "%snames no compute_capability: smcheck judges code against GPUs, "
                          "so each target names its GPUs' (\"8.0\", \"sm_90\")",
                          what);
    char buf[32];
    if (!capability(s[KEY_CC], buf, sizeof buf))
        return smc_say_at(r->why, r->n, r->path, line_of(v[KEY_CC]),
                          "%scompute_capability '%.40s' is none of \"8.6\", \"86\", "
                          "\"sm_86\", \"8.6+ptx\"",
                          what, s[KEY_CC]);
    if (!(t->gpus = smc_strdup(buf))) return smc_say_at(r->why, r->n, r->path, 0, "out of memory");
    if (s[KEY_DRIVER]) {
        if (strlen(s[KEY_DRIVER]) > 128 || !driver(s[KEY_DRIVER], buf, sizeof buf))
            return smc_say_at(r->why, r->n, r->path, line_of(v[KEY_DRIVER]),
                              "%sdriver '%.40s' is none of \"535\", \"r535\", \"535.104.05\"", what,
                              s[KEY_DRIVER]);
        if (!(t->driver = smc_strdup(buf)))
            return smc_say_at(r->why, r->n, r->path, 0, "out of memory");
    }
    if (s[KEY_PLATFORM]) {
        char *p = trimmed(s[KEY_PLATFORM]);
        if (!p) return smc_say_at(r->why, r->n, r->path, 0, "out of memory");
        for (char *c = p; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        static const char *const os[] = {"linux", "windows"}, *const arch[] = {"", "/amd64",
                                                                               "/arm64"};
        bool known = false;
        for (int o = 0; o < 2; o++)
            for (int a = 0; a < 3; a++) {
                size_t ol = strlen(os[o]);
                known |= strncmp(p, os[o], ol) == 0 && strcmp(p + ol, arch[a]) == 0;
            }
        if (!known || strlen(s[KEY_PLATFORM]) > 128) {
            free(p);
            return smc_say_at(r->why, r->n, r->path, line_of(v[KEY_PLATFORM]),
                              "%splatform '%.40s' is none of linux, windows, linux/amd64, "
                              "linux/arm64, windows/amd64, windows/arm64",
                              what, s[KEY_PLATFORM]);
        }
        t->platform = p; /* linux or windows alone: the command says what that leaves unchecked */
    }
    return true;
}

static bool read_document(reader *r, smc_fleet *f)
{
    const yaml_node_t *root = yaml_document_get_root_node(r->doc);
    if (!root)
        return smc_say_at(r->why, r->n, r->path, 0,
                          "is empty: a fleet that is empty would pass everything");
    if (root->type != YAML_MAPPING_NODE)
        return smc_say_at(r->why, r->n, r->path, line_of(root),
                          "is not a mapping of version and targets");
    static const char *const top[] = {"version", "targets"};
    const yaml_node_t *v[2];
    if (!keys_of(r, root, top, 2, v, "")) return false;
    const yaml_node_t *version = v[0];
    bool one = version && version->type == YAML_SCALAR_NODE &&
               strcmp((const char *)version->tag, STR_TAG) == 0 &&
               version->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
               (strcmp((const char *)version->data.scalar.value, "1") == 0 ||
                strcmp((const char *)version->data.scalar.value, "+1") == 0);
    if (!one)
        return smc_say_at(r->why, r->n, r->path, version ? line_of(version) : line_of(root),
                          "version must be 1, unquoted (the version of skylos's contract "
                          "that smcheck reads)%s",
                          version ? "" : "; it is not given");
    const yaml_node_t *targets = v[1];
    size_t count =
        targets && targets->type == YAML_SEQUENCE_NODE
            ? (size_t)(targets->data.sequence.items.top - targets->data.sequence.items.start)
            : 0;
    if (count == 0 || count > FLEET_TARGETS_MAX)
        return smc_say_at(r->why, r->n, r->path, targets ? line_of(targets) : line_of(root),
                          "targets must be a list of 1 to %d mappings (name, vendor, "
                          "compute_capability, driver, platform)",
                          FLEET_TARGETS_MAX);
    if (!(f->targets = calloc(count, sizeof *f->targets)))
        return smc_say_at(r->why, r->n, r->path, 0, "out of memory");
    for (size_t i = 0; i < count; i++) {
        f->count = i + 1;
        const yaml_node_t *t =
            yaml_document_get_node(r->doc, targets->data.sequence.items.start[i]);
        if (!t || !read_target(r, t, i, &f->targets[i])) return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(f->targets[j].name, f->targets[i].name) == 0)
                return smc_say_at(r->why, r->n, r->path, f->targets[i].line,
                                  "target %zu: is named '%.60s', as target %zu is", i + 1,
                                  f->targets[i].name, j + 1);
    }
    return true;
}

/* Whether the event stream holds an alias: refused before any node is built from it. */
static bool has_alias(const char *text, size_t len, unsigned *line)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return false;
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    bool found = false;
    for (;;) {
        yaml_event_t e;
        if (!yaml_parser_parse(&p, &e)) break; /* the loader says what is wrong */
        bool end = e.type == YAML_STREAM_END_EVENT;
        if (e.type == YAML_ALIAS_EVENT) {
            found = true;
            *line = (unsigned)e.start_mark.line + 1;
        }
        yaml_event_delete(&e);
        if (end || found) break;
    }
    yaml_parser_delete(&p);
    return found;
}

bool smc_fleet_read_yaml(const char *path, smc_fleet *f, char *why, size_t n)
{
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return smc_say_at(why, n, path, 0, "%s",
                          errno == ELOOP ? "a symbolic link: a fleet is read from a regular "
                                           "file only, as skylos reads it"
                                         : strerror(errno));
    size_t len = 0;
    int err = 0;
    char *text = smc_read_fd_small(fd, YAML_FILE_MAX, &len, &err);
    close(fd);
    if (!text)
        return smc_say_at(why, n, path, 0, "%s",
                          err == EFBIG ? "not a regular file of at most 1,000,000 bytes"
                                       : strerror(err));
    bool ok = smc_fleet_parse_yaml(text, len, path, f, why, n);
    free(text);
    return ok;
}

bool smc_fleet_parse_yaml(const char *text, size_t len, const char *path, smc_fleet *f, char *why,
                          size_t n)
{
    memset(f, 0, sizeof *f);
    reader r = {.path = path, .why = why, .n = n};
    unsigned alias_line = 0;
    bool ok = true;
    if (has_alias(text, len, &alias_line))
        ok = smc_say_at(why, n, path, alias_line, "an alias (*name): none is read here");
    yaml_parser_t parser;
    yaml_document_t doc, next;
    bool parser_ok = ok && yaml_parser_initialize(&parser);
    if (ok && !parser_ok) ok = smc_say_at(why, n, path, 0, "out of memory");
    if (parser_ok) yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    bool loaded = parser_ok && yaml_parser_load(&parser, &doc);
    if (parser_ok && !loaded)
        ok = smc_say_at(why, n, path, (unsigned)parser.problem_mark.line + 1, "not YAML: %s%s%.60s",
                        parser.problem ? parser.problem : "unreadable", parser.context ? " " : "",
                        parser.context ? parser.context : "");
    if (loaded) {
        r.doc = &doc;
        if (!(f->path = smc_strdup(path)))
            ok = smc_say_at(why, n, path, 0, "out of memory");
        else
            ok = read_document(&r, f);
        if (ok && yaml_parser_load(&parser, &next)) {
            const yaml_node_t *second = yaml_document_get_root_node(&next);
            if (second)
                ok = smc_say_at(why, n, path, line_of(second),
                                "holds a second document: one is read");
            yaml_document_delete(&next);
        } else if (ok) {
            ok = smc_say_at(why, n, path, (unsigned)parser.problem_mark.line + 1,
                            "not YAML after its first document: %s",
                            parser.problem ? parser.problem : "unreadable");
        }
        yaml_document_delete(&doc);
    }
    if (parser_ok) yaml_parser_delete(&parser);
    return ok;
}
