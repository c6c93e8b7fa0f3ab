/* builds.c: the table of PyTorch builds (data/builds.tsv) and the advice drawn from it. A build
 * is judged as a library of one container that holds its images, written as the toolkit that
 * built it writes them (entry version 1.8 for CUDA 13, and for Blackwell from 12.8; the ptxas
 * release from 12.8), so smc_judge() says what it says of the real wheel's main libraries. */
#include "derive.h"

#include <smcheck/builds.h>

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* Generated at build time from data/builds.tsv. */
extern const char smc_builtin_builds_table[];
extern const size_t smc_builtin_builds_table_len;

#define COLUMNS 10
#define FIELD_MAX 512
#define TABLE_FILE_MAX (4u << 20)

void smc_builds_free(smc_builds *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->count; i++) {
        smc_build *r = &b->rows[i];
        free(r->torch);
        free(r->variant);
        free(r->platform);
        free(r->images);
        free(r->torchvision);
        free(r->torchaudio);
        free(r->source);
    }
    free(b->rows);
    free(b);
}

/* A release number: "2.10.0" as digits and dots, at most four parts. */
static bool is_release(const char *s, size_t n)
{
    size_t parts = 1, digits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' && digits) {
            parts++;
            digits = 0;
        } else if (s[i] >= '0' && s[i] <= '9' && digits < 6) {
            digits++;
        } else {
            return false;
        }
    }
    return n && digits && parts <= 4;
}

/* One image token of the table: sm_90, sm_90a, sm_100f, compute_120. */
static bool parse_token(const char *s, size_t n, smc_image *img)
{
    size_t skip = 0;
    if (n > 3 && memcmp(s, "sm_", 3) == 0) skip = 3;
    if (n > 8 && memcmp(s, "compute_", 8) == 0) skip = 8;
    if (!skip) return false;
    *img = (smc_image){.kind = skip == 3 ? SMC_IMAGE_CUBIN : SMC_IMAGE_PTX};
    size_t i = skip;
    unsigned arch = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && i - skip < 3)
        arch = arch * 10 + (unsigned)(s[i++] - '0');
    if (i == skip || arch < 10) return false;
    if (i + 1 == n && (s[i] == 'a' || s[i] == 'f'))
        img->variant = s[i++] == 'a' ? SMC_VARIANT_A : SMC_VARIANT_F;
    img->arch = arch;
    return i == n;
}

/* The images a build made by CUDA cuda carries, as its toolkit writes their entries. */
static void dress(smc_image *img, int cuda)
{
    if (img->kind == SMC_IMAGE_CUBIN) {
        img->version_major = 1;
        img->version_minor = cuda >= 13000 || (cuda >= 12080 && img->arch >= 100) ? 8 : 7;
        img->release = cuda >= 12080 ? (unsigned)cuda : 0; /* .note.nv.tkinfo from 12.8 */
    } else {
        smc_ptx_isa_for_cuda(cuda, &img->version_major, &img->version_minor);
    }
}

/* Parses a comma-separated token list into r->images ("-" for none). 1 ok, 0 bad, -1 memory. */
static int parse_tokens(smc_build *r, const char *s, size_t n, char *err, size_t errlen,
                        unsigned long line)
{
    if (n == 1 && s[0] == '-') return 1;
    for (size_t i = 0; i <= n;) {
        const char *comma = memchr(s + i, ',', n - i); /* within the field: text need not end */
        size_t len = comma ? (size_t)(comma - (s + i)) : n - i;
        smc_image img;
        if (!parse_token(s + i, len, &img)) {
            snprintf(err, errlen, "line %lu: bad token '%.*s' (expected e.g. sm_90, sm_90a, "
                     "compute_120)", line, (int)(len < 32 ? len : 32), s + i);
            return 0;
        }
        dress(&img, r->cuda);
        smc_image *slot = smc_push(&r->images, r->image_count, sizeof *slot);
        if (!slot) return -1;
        *slot = img;
        r->image_count++;
        i += len + 1;
    }
    return 1;
}

static char *dup_field(const char *s, size_t n)
{
    return n == 1 && s[0] == '-' ? NULL : strndup(s, n);
}

/* Parses one line (without its newline). 1 ok or nothing to add, 0 bad, -1 out of memory. */
static int parse_line(smc_builds *b, const char *s, size_t n, unsigned long line, char *err,
                      size_t errlen)
{
    if (n == 0 || s[0] == '#') return 1;
    const char *f[COLUMNS + 1];
    size_t fl[COLUMNS + 1], nf = 0;
    for (size_t i = 0, start = 0; i <= n && nf <= COLUMNS; i++)
        if (i == n || s[i] == '\t') {
            f[nf] = s + start;
            fl[nf++] = i - start;
            start = i + 1;
        }
    if (nf != COLUMNS) {
        snprintf(err, errlen, "line %lu: expected %d tab-separated columns, found %s%zu", line,
                 COLUMNS, nf > COLUMNS ? "more than " : "", nf > COLUMNS ? (size_t)COLUMNS : nf);
        return 0;
    }
    for (size_t c = 0; c < COLUMNS; c++) {
        if (fl[c] == 0 || fl[c] > FIELD_MAX) {
            snprintf(err, errlen, "line %lu: column %zu must have 1 to %d bytes", line, c + 1,
                     FIELD_MAX);
            return 0;
        }
        for (size_t i = 0; i < fl[c]; i++)
            if ((unsigned char)f[c][i] < 0x20 || (unsigned char)f[c][i] >= 0x7f) {
                snprintf(err, errlen, "line %lu: column %zu: a byte that is not printable ASCII",
                         line, c + 1);
                return 0;
            }
    }
    if (!is_release(f[0], fl[0])) {
        snprintf(err, errlen, "line %lu: bad torch release '%.*s'", line, (int)fl[0], f[0]);
        return 0;
    }
    char plat[32];
    snprintf(plat, sizeof plat, "%.*s", (int)(fl[2] < 31 ? fl[2] : 31), f[2]);
    const char *platform = smc_platform_name(plat);
    if (!platform || strcmp(platform, plat) != 0) {
        snprintf(err, errlen,
                 "line %lu: unknown platform '%s' (linux-x86_64, linux-aarch64, "
                 "windows-amd64, windows-arm64)",
                 line, plat);
        return 0;
    }
    bool cpu = fl[1] == 3 && memcmp(f[1], "cpu", 3) == 0;
    int cuda = 0;
    char cv[16];
    snprintf(cv, sizeof cv, "%.*s", (int)(fl[3] < 15 ? fl[3] : 15), f[3]);
    if (cpu ? strcmp(cv, "-") != 0 : !smc_driver_parse(cv, &cuda) || fl[3] > 5) {
        snprintf(err, errlen, "line %lu: bad CUDA version '%s' (expected e.g. 12.8; - for cpu)",
                 line, cv);
        return 0;
    }
    bool pypi = fl[6] == 4 && memcmp(f[6], "pypi", 4) == 0;
    if (!pypi && !(fl[6] == 7 && memcmp(f[6], "pytorch", 7) == 0)) {
        snprintf(err, errlen, "line %lu: the index is pypi or pytorch, not '%.*s'", line,
                 (int)(fl[6] < 32 ? fl[6] : 32), f[6]);
        return 0;
    }
    if (!(fl[9] > 6 && memcmp(f[9], "wheel ", 6) == 0) &&
        !(fl[9] > 6 && memcmp(f[9], "claim ", 6) == 0)) {
        snprintf(err, errlen, "line %lu: the source must start with 'wheel ' or 'claim '", line);
        return 0;
    }
    for (size_t i = 0; i < b->count; i++) {
        const smc_build *o = &b->rows[i];
        bool same = strlen(o->torch) == fl[0] && memcmp(o->torch, f[0], fl[0]) == 0 &&
                    strcmp(o->platform, platform) == 0;
        if (same && strlen(o->variant) == fl[1] && memcmp(o->variant, f[1], fl[1]) == 0) {
            snprintf(err, errlen, "line %lu: torch %s %s %s is in the table twice", line, o->torch,
                     o->variant, platform);
            return 0;
        }
        if (same && pypi && o->pypi) {
            snprintf(err, errlen, "line %lu: two PyPI defaults for torch %s on %s", line,
                     o->torch, platform);
            return 0;
        }
    }
    smc_build *r = smc_push(&b->rows, b->count, sizeof *r);
    if (!r) return -1;
    *r = (smc_build){.cuda = cuda, .pypi = pypi, .platform = strdup(platform)};
    b->count++;
    r->torch = strndup(f[0], fl[0]);
    r->variant = strndup(f[1], fl[1]);
    r->source = strndup(f[9], fl[9]);
    r->torchvision = dup_field(f[7], fl[7]);
    r->torchaudio = dup_field(f[8], fl[8]);
    if (!r->torch || !r->variant || !r->source || !r->platform ||
        (!r->torchvision && !(fl[7] == 1 && f[7][0] == '-')) ||
        (!r->torchaudio && !(fl[8] == 1 && f[8][0] == '-')))
        return -1;
    int rc = parse_tokens(r, f[4], fl[4], err, errlen, line);
    if (rc == 1) rc = parse_tokens(r, f[5], fl[5], err, errlen, line);
    if (rc == 1 && cpu != (r->image_count == 0)) {
        snprintf(err, errlen, "line %lu: %s", line,
                 cpu ? "a cpu build carries no GPU code" : "a CUDA build without images");
        return 0;
    }
    return rc;
}

int smc_builds_parse(const char *text, size_t len, smc_builds **out, char *err, size_t errlen)
{
    char why[256] = "";
    if (!out || (!text && len)) return 0;
    *out = NULL;
    smc_builds *b = calloc(1, sizeof *b);
    if (!b) return -1;
    int rc = 1;
    unsigned long line = 0;
    for (size_t pos = 0; pos < len && rc == 1;) {
        line++;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - pos;
        if (n && text[pos + n - 1] == '\r') n--;
        rc = parse_line(b, text + pos, n, line, why, sizeof why);
        pos = nl ? end + 1 : len;
    }
    if (rc == 1 && b->count == 0) {
        snprintf(why, sizeof why, "the table has no build");
        rc = 0;
    }
    if (err && errlen) snprintf(err, errlen, "%s", why);
    if (rc != 1) {
        smc_builds_free(b);
        return rc;
    }
    *out = b;
    return 1;
}

int smc_builds_load(const char *path, smc_builds **out, char *err, size_t errlen)
{
    char *text, why[256];
    size_t n;
    int rc = smc_read_small_file(path, TABLE_FILE_MAX, &text, &n, why, sizeof why);
    if (rc == 1) {
        rc = smc_builds_parse(text, n, out, why, sizeof why);
        free(text);
    }
    if (rc == 0 && err && errlen) snprintf(err, errlen, "%s: %s", path ? path : "", why);
    return rc;
}

int smc_builds_builtin(smc_builds **out)
{
    return smc_builds_parse(smc_builtin_builds_table, smc_builtin_builds_table_len, out, NULL, 0);
}




const char *smc_build_index(const smc_build *b, char *buf, size_t len)
{
    if (b->pypi) return NULL;
    snprintf(buf, len, "https://download.pytorch.org/whl/%s", b->variant);
    return buf;
}

/* The release of an installed version: "2.11.0" of "2.11.0+cu126", into buf. */
static const char *release_of(const char *version, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(version, "+"), version);
    return buf;
}

smc_torch_installed smc_torch_installed_in(const smc_input *in)
{
    smc_torch_installed now = {0};
    if (!in || (in->kind != SMC_INPUT_ENVIRONMENT && in->kind != SMC_INPUT_IMAGE)) return now;
    for (size_t i = 0; i < in->distribution_count; i++) {
        const smc_distribution *d = &in->distributions[i];
        const char **slot = !d->name || !d->version || !smc_distribution_installed(d) ? NULL
                            : strcmp(d->name, "torch") == 0       ? &now.torch
                            : strcmp(d->name, "torchvision") == 0 ? &now.torchvision
                            : strcmp(d->name, "torchaudio") == 0  ? &now.torchaudio
                                                                  : NULL;
        if (slot && !*slot) *slot = d->version;
    }
    return now;
}

bool smc_build_is_installed(const smc_build *b, const smc_torch_installed *now)
{
    if (!now || !now->torch) return false;
    char rel[64];
    if (strcmp(release_of(now->torch, rel, sizeof rel), b->torch) != 0) return false;
    const char *label = strchr(now->torch, '+');
    return label ? strcmp(label + 1, b->variant) == 0 : b->pypi;
}

/* Appends " NAME==VERSION", or " NAME==VERSION+LABEL", to cmd (at *len of cap). */
static void pin(char *cmd, size_t cap, size_t *len, const char *name, const char *version,
                const char *label)
{
    if (*len < cap)
        *len += (size_t)snprintf(cmd + *len, cap - *len, " %s==%s%s%s", name, version,
                                 label ? "+" : "", label ? label : "");
}

char *smc_build_install(const smc_build *b, bool uv, const char *also,
                        const smc_torch_installed *now)
{
    char index[96];
    const char *url = smc_build_index(b, index, sizeof index);
    bool replace = now && (now->torch || now->torchvision || now->torchaudio);
    bool vision = (also && strcmp(also, "torchvision") == 0) || (replace && now->torchvision);
    bool audio = (also && strcmp(also, "torchaudio") == 0) || (replace && now->torchaudio);
    vision &= b->torchvision != NULL;
    audio &= b->torchaudio != NULL;
    char pins[256], force[160] = "";
    size_t n = 0;
    /* The variant's local label: download.pytorch.org's wheels carry it, PyPI's do not. */
    pin(pins, sizeof pins, &n, "torch", b->torch, url ? b->variant : NULL);
    if (vision) pin(pins, sizeof pins, &n, "torchvision", b->torchvision, NULL);
    if (audio) pin(pins, sizeof pins, &n, "torchaudio", b->torchaudio, NULL);
    if (replace && !uv) snprintf(force, sizeof force, " --force-reinstall");
    if (replace && uv) {
        const char *names[] = {"torch", vision ? "torchvision" : NULL, audio ? "torchaudio" : NULL};
        size_t f = 0;
        for (size_t i = 0; i < 3; i++)
            if (names[i] && f < sizeof force)
                f += (size_t)snprintf(force + f, sizeof force - f, " --reinstall-package %s",
                                      names[i]);
    }
    return smc_asprintf("%s install%s%s%s%s", uv ? "uv pip" : "pip", force, pins,
                        url ? " --index-url " : "", url ? url : "");
}

char *smc_next_build(const smc_builds *b, const char *platform, const smc_target *t,
                     int driver_cuda, const char *name, const smc_torch_installed *now)
{
    smc_advice a;
    smc_advice_request req = {.builds = b, .platform = platform, .targets = t, .target_count = 1,
                              .driver_cuda = driver_cuda};
    if (smc_advise(&req, &a) != SMC_OK) return NULL;
    char *out;
    if (a.best != SMC_NONE) {
        const smc_build *row = &b->rows[a.rows[a.best].build];
        char *cmd = smc_build_install(row, false, strcmp(name, "torch") == 0 ? NULL : name, now);
        out = cmd ? smc_asprintf("torch %s %s: %s", row->torch, row->variant, cmd) : NULL;
        free(cmd);
    } else if (a.newer_driver != SMC_NONE) {
        const smc_advice_row *r = &a.rows[a.newer_driver];
        const smc_build *row = &b->rows[r->build];
        char drv[32];
        const char *d = smc_driver_for_cuda(r->needs_cuda, r->needs_cuda % 1000 != 0, drv, sizeof drv);
        out = smc_asprintf("no torch build runs with this driver; torch %s %s needs a driver of %s "
                           "or newer",
                           row->torch, row->variant, d ? d : "a newer branch");
    } else if (smc_gpu_arm_only(t) && t->cc_major < 10) {
        out = smc_asprintf("no torch build on PyPI or download.pytorch.org runs on a Jetson GPU "
                           "before Thor: NVIDIA's builds for its JetPack do");
    } else if (smc_gpu_arm_only(t) && strcmp(platform, "linux-aarch64") != 0) {
        char *there = smc_next_build(b, "linux-aarch64", t, driver_cuda, name, now);
        out = there ? smc_asprintf("it is an Arm machine's GPU: on linux-aarch64, %s", there) : NULL;
        free(there);
    } else {
        out = smc_asprintf("no torch build in smcheck's table runs on this GPU on %s", platform);
    }
    smc_advice_free(&a);
    return out;
}

/* The platform a distribution was built for: its wheel's tag, else the ELF machine of its
 * libraries (an installed torch in an image or a venv copied from elsewhere), else this one. */
static const char *distribution_platform(const smc_input *in, const smc_distribution *d)
{
    const char *tag = smc_platform_name(d->platform);
    if (tag) return tag;
    for (size_t i = 0; i < d->library_count; i++) {
        unsigned m = in->libraries[d->libraries[i]].machine;
        if (m == 62) return "linux-x86_64";
        if (m == 183) return "linux-aarch64";
    }
    return smc_platform_here();
}

char *smc_distribution_next(const smc_input *in, const smc_distribution *d, const smc_rollup *r,
                            const smc_builds *builds, const smc_target *t, int driver_cuda)
{
    static const char *const family[] = {"torch", "torchvision", "torchaudio"};
    if (!builds || r->status != SMC_STATUS_NONE || !d->name) return NULL;
    smc_torch_installed now = smc_torch_installed_in(in);
    for (size_t i = 0; i < 3; i++)
        if (strcmp(d->name, family[i]) == 0)
            return smc_next_build(builds, distribution_platform(in, d), t, driver_cuda, family[i],
                                  &now);
    return NULL;
}

char *smc_driver_note(const smc_target *t, int driver_cuda)
{
    int last = smc_last_driver_branch(t->cc_major * 10 + t->cc_minor);
    int branch = driver_cuda > 0 ? smc_driver_branch_for_cuda(driver_cuda) : 0;
    if (!last || branch <= last) return NULL;
    return smc_asprintf("R%d is the last driver branch for compute capability %u.%u: no R%d "
                        "driver runs it",
                        last, t->cc_major, t->cc_minor, branch);
}

void smc_advice_free(smc_advice *a)
{
    if (!a) return;
    for (size_t i = 0; a->rows && i < a->count; i++) {
        free(a->rows[i].reason);
        free(a->rows[i].warning);
        free(a->rows[i].pip);
        free(a->rows[i].uv);
    }
    for (size_t i = 0; i < a->note_count; i++)
        free(a->notes[i]);
    free(a->notes);
    free(a->rows);
    free(a->library);
    smc_judged_free(&a->judged);
    smc_input_free(a->model);
    *a = (smc_advice){.best = SMC_NONE, .newer_driver = SMC_NONE};
}

static bool runs(smc_lib_status s)
{
    return s == SMC_STATUS_OK || s == SMC_STATUS_JIT;
}

/* The library a build stands for: one container of its images. */
static smc_status build_library(smc_input *in, const smc_build *b)
{
    char name[160];
    snprintf(name, sizeof name, "torch %s %s %s", b->torch, b->variant, b->platform);
    smc_library *lib = smc_library_new(name);
    if (!lib) return SMC_ERR_NOMEM;
    lib->images = malloc(b->image_count * sizeof *lib->images);
    lib->containers = calloc(1, sizeof *lib->containers);
    if (!lib->images || !lib->containers) {
        smc_library_free(lib);
        return SMC_ERR_NOMEM;
    }
    memcpy(lib->images, b->images, b->image_count * sizeof *lib->images);
    lib->image_count = b->image_count;
    lib->container_count = 1;
    lib->containers[0] = (smc_container){.image_count = b->image_count, .kernels = 1};
    lib->cudart_major = (unsigned)(b->cuda / 1000);
    lib->release = (unsigned)b->cuda; /* what its ptxas notes say from 12.8; the row says it too */
    return smc_input_take_library(in, lib);
}


/* Within one release, how much a person would rather install a row that runs: 0 best. */
static int preference(const smc_advice_row *r, const smc_build *b)
{
    return r->status == SMC_STATUS_JIT                ? 3
           : (r->warnings & SMC_WARN_NEWER_MINOR) ? 2
           : b->pypi                              ? 0
                                                  : 1;
}

size_t smc_advice_pick(const smc_builds *b, const smc_advice *a, size_t i)
{
    if (i >= a->count) return SMC_NONE;
    const char *rel = b->rows[a->rows[i].build].torch;
    while (i > 0 && strcmp(b->rows[a->rows[i - 1].build].torch, rel) == 0)
        i--;
    size_t pick = SMC_NONE;
    for (; i < a->count && strcmp(b->rows[a->rows[i].build].torch, rel) == 0; i++) {
        const smc_advice_row *r = &a->rows[i];
        if (!runs(r->status)) continue;
        if (pick == SMC_NONE ||
            preference(r, &b->rows[r->build]) < preference(&a->rows[pick], &b->rows[a->rows[pick].build]))
            pick = i;
    }
    return pick;
}

static const smc_builds *sort_table;

static int newest_first(const void *x, const void *y)
{
    const smc_build *a = &sort_table->rows[((const smc_advice_row *)x)->build];
    const smc_build *b = &sort_table->rows[((const smc_advice_row *)y)->build];
    int c = smc_version_cmp(b->torch, a->torch);
    if (c) return c;
    if (a->cuda != b->cuda) return a->cuda < b->cuda ? 1 : -1;
    return strcmp(a->variant, b->variant);
}

/* Judges the rows against the targets with one driver, into jd: the worst status over the
 * targets into each row's status (with_driver: its judgements are jd's) or any. */
static smc_status judge_rows(smc_advice *a, const smc_target *targets, size_t nt, int driver,
                             bool with_driver, smc_judged *jd)
{
    smc_status st = smc_judge(&a->model, 1, targets, nt, driver, NULL, jd, NULL);
    for (size_t i = 0; st == SMC_OK && i < a->count; i++) {
        smc_advice_row *r = &a->rows[i];
        size_t l = a->library[r->build];
        smc_lib_status worst = l == SMC_NONE ? SMC_STATUS_NO_CODE : SMC_STATUS_OK;
        size_t at = 0;
        const smc_library_judged *lj = l == SMC_NONE ? NULL : &jd->libraries[l];
        for (size_t t = 0; lj && t < nt && t < lj->judgement_count; t++) {
            if (lj->judgements[t].status > worst) {
                worst = lj->judgements[t].status;
                at = t;
            }
            if (with_driver) r->warnings |= lj->judgements[t].warnings;
        }
        if (!with_driver) {
            r->any = worst;
            continue;
        }
        r->status = worst;
        r->worst = at;
        r->judgements = lj ? lj->judgements : NULL;
    }
    return st;
}

/* The row to install: the pick of the newest release that runs by cubins, else of the newest
 * that runs through PTX. */
static size_t choose(const smc_advice *a, const smc_builds *b)
{
    size_t jit = SMC_NONE;
    for (size_t i = 0; i < a->count; i++) {
        size_t p = smc_advice_pick(b, a, i);
        if (p != SMC_NONE && a->rows[p].status == SMC_STATUS_OK) return p;
        if (p != SMC_NONE && jit == SMC_NONE) jit = p;
    }
    return jit;
}

/* The row shown for the release of row i: the one to install, else its first. */
static size_t release_pick(const smc_builds *b, const smc_advice *a, size_t i)
{
    size_t p = smc_advice_pick(b, a, i);
    while (p == SMC_NONE && i > 0 &&
           strcmp(b->rows[a->rows[i - 1].build].torch, b->rows[a->rows[i].build].torch) == 0)
        i--;
    return p == SMC_NONE ? i : p;
}

static smc_status add_note(smc_advice *a, char *note)
{
    char **slot = note ? smc_push(&a->notes, a->note_count, sizeof *slot) : NULL;
    if (!slot) {
        free(note);
        return SMC_ERR_NOMEM;
    }
    *slot = note;
    a->note_count++;
    return SMC_OK;
}

/* What the reports show of each row, and the notes. */
static smc_status advice_derive(smc_advice *a)
{
    const smc_advice_request *q = &a->req;
    const smc_builds *b = q->builds;
    for (size_t i = 0; i < a->count; i++) {
        smc_advice_row *r = &a->rows[i];
        const smc_build *row = &b->rows[r->build];
        size_t l = a->library[r->build];
        if (l == SMC_NONE) {
            r->reason = smc_strdup("no GPU code");
        } else {
            const smc_judgement *j = &r->judgements[r->worst];
            r->warning = smc_judgement_warnings(j, q->driver_cuda);
            if (r->status != SMC_STATUS_OK)
                r->reason = smc_judgement_reason(&a->model->libraries[l], j,
                                                 &q->targets[r->worst], q->driver_cuda);
        }
        r->pip = smc_build_install(row, false, NULL, q->installed);
        r->uv = smc_build_install(row, true, NULL, q->installed);
        if ((r->status != SMC_STATUS_OK && !r->reason) || !r->pip || !r->uv) return SMC_ERR_NOMEM;
        const char *d = r->needs_cuda ? smc_driver_for_cuda(r->needs_cuda, r->needs_cuda % 1000 != 0,
                                                            r->needs_driver, sizeof r->needs_driver)
                                      : NULL;
        if (!d) r->needs_driver[0] = '\0';
        if (!smc_build_index(row, r->index, sizeof r->index)) r->index[0] = '\0';
        r->installed = smc_build_is_installed(row, q->installed);
        r->shown = release_pick(b, a, i) == i;
    }
    bool jetson = false;
    for (size_t t = 0; t < q->target_count; t++) {
        char *note = smc_driver_note(&q->targets[t], q->driver_cuda);
        if (note && add_note(a, note) != SMC_OK) return SMC_ERR_NOMEM;
        jetson |= smc_gpu_arm_only(&q->targets[t]) && q->targets[t].cc_major < 10;
    }
    if (jetson && a->best == SMC_NONE)
        return add_note(a, smc_strdup("Jetson GPUs before Thor need NVIDIA's PyTorch builds for "
                                      "their JetPack; the aarch64 wheels on PyPI and "
                                      "download.pytorch.org are server (SBSA) builds"));
    if (jetson)
        return add_note(a, smc_strdup("on Orin these server (SBSA) builds run by JetPack 7.2's "
                                      "CUDA 13 driver, as users report; NVIDIA's PyTorch builds "
                                      "for its JetPack are the ones it supports"));
    return SMC_OK;
}

smc_status smc_advise(const smc_advice_request *req, smc_advice *out)
{
    *out = (smc_advice){.best = SMC_NONE, .newer_driver = SMC_NONE};
    if (!req || !req->builds || !req->platform || !req->target_count || !req->targets)
        return SMC_ERR_ARG;
    out->req = *req;
    const smc_builds *b = req->builds;
    const char *platform = req->platform;
    const smc_target *targets = req->targets;
    size_t nt = req->target_count;
    int driver_cuda = req->driver_cuda;
    out->model = smc_input_new("builds", SMC_INPUT_FILE);
    if (out->model) out->model->inspected = true; /* a build's row says all its facts */
    out->library = malloc((b->count ? b->count : 1) * sizeof *out->library);
    out->rows = calloc(b->count ? b->count : 1, sizeof *out->rows);
    if (!out->model || !out->library || !out->rows) {
        smc_advice_free(out);
        return SMC_ERR_NOMEM;
    }
    smc_status st = SMC_OK;
    for (size_t i = 0; i < b->count && st == SMC_OK; i++) {
        out->library[i] = SMC_NONE;
        if (strcmp(b->rows[i].platform, platform) != 0) continue;
        out->rows[out->count++].build = i;
        if (!b->rows[i].image_count) continue;
        out->library[i] = out->model->library_count;
        st = build_library(out->model, &b->rows[i]);
    }
    sort_table = b;
    if (st == SMC_OK) {
        qsort(out->rows, out->count, sizeof *out->rows, newest_first);
        smc_judged any = {0}; /* with a driver new enough: only the rows' statuses are kept */
        st = judge_rows(out, targets, nt, 0, false, &any);
        smc_judged_free(&any);
    }
    if (st == SMC_OK) st = judge_rows(out, targets, nt, driver_cuda, true, &out->judged);
    if (st != SMC_OK) {
        smc_advice_free(out);
        return st;
    }
    for (size_t i = 0; i < out->count; i++) {
        smc_advice_row *r = &out->rows[i];
        const smc_build *row = &b->rows[r->build];
        if (!runs(r->any)) continue;
        /* The driver it needs: one of its CUDA major (minor-version compatibility), and of
         * each GPU's first CUDA; for PTX, one that compiles its ISA. */
        int need = row->cuda / 1000 * 1000;
        if (r->any == SMC_STATUS_JIT && row->cuda > need) need = row->cuda;
        for (size_t t = 0; t < nt; t++) {
            int gpu = smc_cuda_for_arch(targets[t].cc_major * 10 + targets[t].cc_minor);
            if (gpu > need) need = gpu;
        }
        r->needs_cuda = need;
        if (!runs(r->status) && out->newer_driver == SMC_NONE) out->newer_driver = i;
    }
    out->best = choose(out, b);
    /* A newer driver matters only where it gives a newer release than the one chosen. */
    if (out->newer_driver != SMC_NONE && out->best != SMC_NONE &&
        smc_version_cmp(b->rows[out->rows[out->newer_driver].build].torch,
                    b->rows[out->rows[out->best].build].torch) <= 0)
        out->newer_driver = SMC_NONE;
    smc_status st2 = advice_derive(out);
    if (st2 != SMC_OK) smc_advice_free(out);
    return st2;
}
