/* report_text.c: the report for people. Prints a result as it is (the model, its summaries,
 * judgements and the sentences smc_check derived); it computes and decides nothing. */
#include "report.h"

#include <stdlib.h>

static void print_offset(FILE *out, uint64_t off)
{
    if (off == SMC_NO_OFFSET)
        fputs("  finding: ", out);
    else
        fprintf(out, "  finding at 0x%llx: ", (unsigned long long)off);
}

static void print_image(FILE *out, const smc_image *img)
{
    char tok[SMC_TOKEN_MAX], sizes[64];
    if (img->compression == SMC_COMPRESS_NONE)
        snprintf(sizes, sizeof sizes, "%llu bytes", (unsigned long long)img->size);
    else
        snprintf(sizes, sizeof sizes, "%llu -> %llu bytes", (unsigned long long)img->stored_size,
                 (unsigned long long)img->size);
    fprintf(out, "      %-14s %-6s %-5s %-24s", smc_image_token(img, tok),
            smc_image_kind_str(img->kind), smc_compression_str(img->compression), sizes);
    if (img->kind == SMC_IMAGE_PTX) {
        fprintf(out, " PTX ISA %u.%u", img->version_major, img->version_minor);
        /* The text, where it says otherwise than the entry: the text is what counts. */
        bool target = img->text_arch && (img->text_arch != img->arch ||
                                          img->text_variant != img->variant);
        bool isa = img->text_isa &&
                   img->text_isa != img->version_major * 10 + img->version_minor;
        if (target || isa) {
            fputs(" (its text says", out);
            if (target)
                fprintf(out, " .target sm_%u%s", img->text_arch,
                        img->text_variant == SMC_VARIANT_A   ? "a"
                        : img->text_variant == SMC_VARIANT_F ? "f"
                                                             : "");
            if (isa) fprintf(out, "%s .version %u.%u", target ? "," : "", img->text_isa / 10,
                             img->text_isa % 10);
            fputc(')', out);
        }
    }
    else if (img->kind == SMC_IMAGE_CUBIN)
        fprintf(out, " cubin ABI %u.%u", img->version_major, img->version_minor);
    else if (img->kind == SMC_IMAGE_TILEIR)
        fprintf(out, " Tile IR bytecode %u.%u", img->version_major, img->version_minor);
    else if (img->kind != SMC_IMAGE_LTO)
        fprintf(out, " entry kind %u, not known to smcheck", (unsigned)img->kind);
    fputc('\n', out);
}

static void print_containers(FILE *out, const smc_library *lib)
{
    for (size_t i = 0; i < lib->container_count; i++) {
        const smc_container *c = &lib->containers[i];
        fprintf(out, "    container at 0x%llx, %llu bytes, %s%s%s%s\n",
                (unsigned long long)c->offset, (unsigned long long)c->size,
                c->bare_cubin ? "the file is a cubin"
                : c->section  ? c->section
                              : "no section",
                c->member ? " of " : "", c->member ? c->member : "",
                c->relocatable ? " (relocatable)" : "");
        for (size_t k = 0; k < c->image_count; k++)
            print_image(out, &lib->images[c->first_image + k]);
    }
}

/* The other paths of the same file, a few of them. */
static void print_links(FILE *out, const smc_library *lib, const char *indent)
{
    if (!lib->link_count) return;
    fprintf(out, "%sthe same file (read once) at:", indent);
    for (size_t i = 0; i < lib->link_count && i < 8; i++)
        fprintf(out, " %s", lib->links[i]);
    if (lib->link_count > 8) fprintf(out, " and %zu more", lib->link_count - 8);
    fputc('\n', out);
}

/* "  serves: cubins 7.0 7.5; PTX only: 12.0 (a driver for CUDA 12.8 or newer); not: 5.2" and
 * the same as wheel-variant properties. */
static void print_serving(FILE *out, const smc_serving *sv, const char *indent)
{
    fprintf(out, "%sserves: cubins %s", indent, sv->cubins[0] ? sv->cubins : "-");
    bool all_tileir = sv->ptx[0] && strcmp(sv->tileir, sv->ptx) == 0;
    if (sv->ptx[0])
        fprintf(out, "; only through %s %s (a driver for CUDA %d.%d or newer)",
                all_tileir ? "Tile IR" : "PTX", sv->ptx, sv->ptx_cuda / 1000,
                sv->ptx_cuda % 1000 / 10);
    if (sv->tileir[0] && !all_tileir)
        fprintf(out, ", of them through Tile IR alone %s", sv->tileir);
    if (sv->partial[0]) fprintf(out, "; partly %s", sv->partial);
    fprintf(out, "; not %s\n", sv->none[0] ? sv->none : "-");
    fprintf(out, "%sas a wheel variant: nvidia :: sm_arch :: %s", indent,
            sv->sm_arch[0] ? sv->sm_arch : "(none)");
    if (sv->cuda_lower_bound)
        fprintf(out, "; nvidia :: cuda_version_lower_bound :: %d.%d", sv->cuda_lower_bound / 1000,
                sv->cuda_lower_bound % 1000 / 10);
    fputc('\n', out);
}

/* A library's path as text shows it: a member of a wheel read over the network by the wheel's
 * file name ("torch-2.8.0-...whl!torch/lib/libtorch_cuda.so"), the URL being said once, where its
 * input is introduced; JSON and SARIF keep the URL. */
static const char *path_shown(const char *path)
{
    if (!smc_url_is(path)) return path;
    const char *bang = strchr(path, '!'), *s = bang;
    if (!bang) return path;
    while (s > path && s[-1] != '/')
        s--;
    return s;
}

static smc_status print_library(FILE *out, const smc_library *lib,
                                const smc_library_derived *ld, const smc_view *opt)
{
    const smc_summary sum = ld ? ld->summary : (smc_summary){0};
    fprintf(out, "%s: %zu container%s, %zu image%s\n", path_shown(lib->path), lib->container_count,
            lib->container_count == 1 ? "" : "s", lib->image_count,
            lib->image_count == 1 ? "" : "s");
    print_links(out, lib, "  ");
    if (sum.token_count) {
        fputs("  tokens:", out);
        for (size_t i = 0; i < sum.token_count; i++)
            fprintf(out, " %s=%zu", sum.tokens[i].token, sum.tokens[i].count);
        fputc('\n', out);
    }
    if (sum.set_count) fputs("  containers by token set:\n", out);
    for (size_t i = 0; i < sum.set_count; i++)
        fprintf(out, "    %7zu  %s%s\n", sum.sets[i].containers,
                *sum.sets[i].tokens ? sum.sets[i].tokens : "(no images)",
                sum.sets[i].relocatable ? "  [relocatable]" : "");
    if (ld && ld->serving) print_serving(out, ld->serving, "  ");
    if (opt && opt->detail && lib->cudart_major) {
        char rt[40];
        fprintf(out, "  needs %s (%s)\n", smc_cudart_name(rt, sizeof rt, lib),
                lib->windows ? "imported" : "DT_NEEDED");
    }
    if (opt && opt->detail && lib->release)
        fprintf(out, "  cubins written by CUDA %u.%u (.note.nv.tkinfo)\n", lib->release / 1000,
                lib->release % 1000 / 10);
    if (opt && opt->detail) print_containers(out, lib);
    for (size_t i = 0; i < lib->finding_count; i++) {
        print_offset(out, lib->findings[i].offset);
        fprintf(out, "%s\n", lib->findings[i].message);
    }
    if (lib->findings_more)
        fprintf(out, "  and %zu more findings, not kept (%d are, a library)\n", lib->findings_more,
                SMC_FINDINGS_KEPT);
    return SMC_OK;
}

/* A status, padded to width (0: none), in colour when asked: green ok, yellow jit and partial,
 * red none and cpu-only. */
static void print_status(FILE *out, const smc_view *opt, smc_lib_status s, int width)
{
    static const char *const colors[] = {"\033[32m", "\033[33m", "\033[33m", "\033[33m",
                                         "\033[31m", "",         "\033[31m"};
    const char *name = s == SMC_STATUS_NO_CODE ? "no device code" : smc_lib_status_str(s);
    bool color = opt && opt->color && (unsigned)s < 7 && s != SMC_STATUS_NO_CODE;
    fprintf(out, "%s%s%s%*s", color ? colors[s] : "", name, color ? "\033[0m" : "",
            width > (int)strlen(name) ? width - (int)strlen(name) : 0, "");
}

static void target_token(char buf[16], const smc_target *t)
{
    snprintf(buf, 16, "sm_%u%u", t->cc_major, t->cc_minor);
}

/* "demo-cuda 1.0+cu130 (wheel cp312-cp312-manylinux_2_28_x86_64; CUDA 13.0 per version.py)",
 * and with targets its worst status per target. */
/* A distribution of the input at input_path: its line, and where a remote wheel came from when
 * the input's own name does not say it (a requirement, a lock): the URL said once. */
static smc_status print_distribution(FILE *out, const char *input_path, const smc_distribution *d,
                                     const smc_distribution_judged *dj,
                                     const smc_distribution_derived *dd, const smc_view *opt)
{
    if (opt && opt->target_count > 1) {
        for (size_t t = 0; t < opt->target_count; t++)
            if (dj->verdicts && dj->verdicts[t].status != SMC_STATUS_NO_CODE)
                print_status(out, opt, dj->verdicts[t].status, opt->cell);
            else
                fprintf(out, "%-*s", opt->cell, "-");
    }
    fprintf(out, "[%s %s] %s", d->name ? d->name : "(unnamed)", d->version ? d->version : "",
            d->source);
    if (d->tag) fprintf(out, " %s", d->tag);
    if (d->cuda) fprintf(out, "; CUDA %s (%s)", d->cuda, d->cuda_source);
    fprintf(out, "; %zu librar%s", d->library_count, d->library_count == 1 ? "y" : "ies");
    if (opt && opt->target_count == 1 && dj->verdicts) {
        char tok[16];
        target_token(tok, &opt->targets[0]);
        fprintf(out, "; %s ", tok);
        print_status(out, opt, dj->verdicts[0].status, 0);
    }
    fputc('\n', out);
    if (smc_url_is(d->location) && strcmp(d->location, input_path) != 0)
        fprintf(out, "    from %.*s\n", (int)strcspn(d->location, "!"), d->location);
    if (dd && dd->serving) print_serving(out, dd->serving, "    ");
    size_t unbacked = dd ? dd->unbacked_count : 0;
    if (d->variant_claim_count) {
        fprintf(out, "    variant %s: %zu claim%s, %s\n", d->variant_label, d->variant_claim_count,
                d->variant_claim_count == 1 ? "" : "s",
                unbacked ? "some not backed by its libraries:" : "each backed by its libraries");
        for (size_t k = 0; k < unbacked; k++)
            fprintf(out, "      %s\n", dd->unbacked[k]);
    }
    /* What to install instead, once per distinct answer. */
    size_t nt = opt && dj->verdicts ? opt->target_count : 0;
    const smc_words *words = dd ? dd->words : NULL;
    size_t nw = dd ? dd->word_count : 0;
#define WORDS(t) smc_words_at(words, nw, (t))
    for (size_t t = 0; t < nt && t < dj->verdict_count; t++) {
        const char *next = WORDS(t)->next;
        bool said = false; /* with an earlier target's */
        for (size_t k = 0; next && k < t; k++)
            said |= WORDS(k)->next && strcmp(WORDS(k)->next, next) == 0;
        if (!next || said) continue;
        fputs("    next for", out);
        for (size_t k = t; k < nt && k < dj->verdict_count; k++) {
            if (k > t && (!WORDS(k)->next || strcmp(WORDS(k)->next, next) != 0)) continue;
            char tok[16];
            target_token(tok, &opt->targets[k]);
            fprintf(out, "%s %s", k == t ? "" : ",", tok);
        }
        fprintf(out, ": %s\n", next);
    }
    /* A compiler's word, a CPU-only build's and a missing alternative's, once per sentence: why
     * it fails, and with --detail why a compiler does not. */
    for (size_t t = 0; t < nt && t < dj->verdict_count; t++) {
        const smc_rollup *r = &dj->verdicts[t];
        const char *why = WORDS(t)->reason;
        bool compiler = r->compiler != SMC_NONE && r->library == SMC_NONE;
        if (!why || !(r->status == SMC_STATUS_CPU_ONLY || compiler || r->missing_cuda) ||
            (compiler && r->status != SMC_STATUS_COMPILER && !opt->detail))
            continue;
        bool said = false;
        for (size_t k = 0; k < t; k++)
            said |= WORDS(k)->reason && dj->verdicts[k].status == r->status &&
                    strcmp(WORDS(k)->reason, why) == 0;
        if (said) continue;
        fputs("   ", out);
        for (size_t k = t; k < nt && k < dj->verdict_count; k++) {
            const char *its = WORDS(k)->reason;
            if (k > t && (!its || dj->verdicts[k].status != r->status || strcmp(its, why) != 0))
                continue;
            char tok[16];
            target_token(tok, &opt->targets[k]);
            fprintf(out, "%s %s", k == t ? "" : ",", tok);
        }
        fputc(' ', out);
        print_status(out, opt, r->status, 0);
        fprintf(out, ": %s\n", why);
    }
    /* Why, where it is not simply the worst library's word. */
    for (size_t t = 0; t < nt && t < dj->verdict_count; t++) {
        const smc_rollup *r = &dj->verdicts[t];
        if ((!r->vendored && !r->all_gated && !r->choices) || r->missing_cuda) continue;
        if (opt->target_count > 1 && !opt->detail) continue;
        char tok[16];
        target_token(tok, &opt->targets[t]);
        fprintf(out, "    %s ", tok);
        print_status(out, opt, r->status, 0);
        fprintf(out, ": %s\n", WORDS(t)->reason ? WORDS(t)->reason : "");
    }
#undef WORDS
    return SMC_OK;
}

/* Prints text after a label ("legend: "), wrapped at 100 columns under its first word; words
 * are separated by spaces, and "\037" (a unit separator) joins words that must stay together. */
static void print_wrapped(FILE *out, const char *label, const char *text)
{
    size_t indent = strlen(label), col = indent;
    fputs(label, out);
    for (const char *w = text; *w;) {
        size_t len = strcspn(w, " ");
        if (col > indent && col + 1 + len > 100) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        for (size_t i = 0; i < len; i++)
            fputc(w[i] == '\x1f' ? ' ' : w[i], out);
        col += len;
        w += len + (w[len] == ' ');
    }
    fputc('\n', out);
}

static void print_targets(FILE *out, const smc_view *opt)
{
    /* One item per GPU, its words joined, so that a line breaks only between GPUs. */
    size_t cap = opt->target_count * (sizeof opt->targets->name + 40) + 1, len = 0;
    char *items = malloc(cap);
    for (size_t t = 0; items && t < opt->target_count; t++) {
        const smc_target *g = &opt->targets[t];
        char tok[16], item[sizeof g->name + 40];
        target_token(tok, g);
        snprintf(item, sizeof item, "%s%s%s (%u.%u)%s", tok, g->name[0] ? " " : "", g->name,
                 g->cc_major, g->cc_minor, t + 1 < opt->target_count ? "," : "");
        for (char *c = item; *c; c++)
            if (*c == ' ') *c = '\x1f';
        len += (size_t)snprintf(items + len, cap - len, "%s%s", t ? " " : "", item);
    }
    if (items) print_wrapped(out, "targets: ", items);
    free(items);
    if (!items) fputs("targets: (out of memory)\n", out);
    if (opt->driver_cuda > 0)
        fprintf(out, "driver: CUDA %d.%d (%s)\n", opt->driver_cuda / 1000,
                opt->driver_cuda % 1000 / 10, opt->driver_source ? opt->driver_source : "given");
    else
        fputs("driver: unknown (what PTX needs is stated; --driver tells it)\n", out);
}

/* Why a library fails a target, and which containers (with --detail). */
static smc_status print_why(FILE *out, const smc_library *lib, const smc_judgement *j,
                            const smc_words *w, const smc_view *opt, const char *indent)
{
    if (w->warning) fprintf(out, "%swarning: %s\n", indent, w->warning);
    if (!opt->detail) return SMC_OK;
    for (size_t f = 0; f < j->failing_count; f++) {
        const smc_container *c = &lib->containers[j->failing[f]];
        fprintf(out, "%s  fails: container at 0x%llx (%s):", indent, (unsigned long long)c->offset,
                c->section      ? c->section
                : c->bare_cubin ? "the file is a cubin"
                                : "no section");
        for (size_t i = c->first_image; i < c->first_image + c->image_count; i++) {
            char tok[SMC_TOKEN_MAX];
            fprintf(out, " %s", smc_image_token(&lib->images[i], tok));
        }
        fputc('\n', out);
        if (c->kernel_names) fprintf(out, "%s    kernels: %s\n", indent, c->kernel_names);
    }
    return SMC_OK;
}

/* "sm_90 partial: 1 of 3 containers ...", then why. */
static smc_status print_verdict(FILE *out, const smc_library *lib, const smc_judgement *j,
                                const smc_words *w, const smc_view *opt, const char *indent)
{
    print_status(out, opt, j->status, 0);
    if (j->unused)
        fputs(j->used_by != SMC_NONE
                  ? " (not used on this GPU: the package that uses it calls it only where NVIDIA "
                    "supports it; it fails nothing)"
                  : " (an alternative that is not loaded on this GPU: it fails nothing)",
              out);
    fprintf(out, ": %s\n", w->reason ? w->reason : "");
    if (w->next) fprintf(out, "%snext: %s\n", indent, w->next);
    return print_why(out, lib, j, w, opt, indent);
}

/* A matrix row's cells: the library's status per target; one with no container (only
 * findings) has no verdicts: "-". */
static void print_cells(FILE *out, const smc_library_judged *lj, const smc_view *opt)
{
    for (size_t t = 0; t < opt->target_count; t++)
        if (t < lj->judgement_count && lj->judgements[t].unused) { /* fails nothing: dimmed */
            fputc('~', out);
            print_status(out, opt, lj->judgements[t].status, opt->cell - 1);
        } else if (t < lj->judgement_count) {
            print_status(out, opt, lj->judgements[t].status, opt->cell);
        } else {
            fprintf(out, "%-*s", opt->cell, "-");
        }
}

#define LEGEND                                                                                     \
    "ok runs; jit runs once the driver has compiled its PTX; partial runs, but some kernels "      \
    "cannot (a warning); gated: only arch-specific code for other GPUs; none cannot run (fails); " \
    "-\037no\037device\037code"
#define LEGEND_ALTERNATIVE "; ~\037not\037used\037there\037(it\037fails\037nothing)"
#define LEGEND_CPU_ONLY "; cpu-only: a GPU package's build without device code (fails)"
#define LEGEND_COMPILER                                                                            \
    "; compiler: a compiler used at run time (Triton's ptxas, NVRTC) does not know the GPU (fails)"

/* Whether a distribution was judged for a compiler it carries (Triton, NVRTC). */
static bool judged_compiler(const smc_distribution_judged *d)
{
    for (size_t t = 0; t < d->verdict_count; t++)
        if (d->verdicts[t].compiler != SMC_NONE) return true;
    return false;
}

static bool any_compiler(const smc_view *opt)
{
    for (size_t i = 0; i < opt->input_count; i++) {
        const smc_judged *jd = smc_view_judged(opt, opt->inputs[i]);
        for (size_t t = 0; t < jd->verdict_count; t++)
            if (jd->verdicts[t].allowing[SMC_ALLOW_COMPILER] != jd->verdicts[t].status)
                return true;
    }
    return false;
}

/* Whether some distribution is a CPU-only build. */
static bool any_cpu_only(const smc_view *opt)
{
    for (size_t i = 0; i < opt->input_count; i++) {
        const smc_judged *jd = smc_view_judged(opt, opt->inputs[i]);
        for (size_t k = 0; k < jd->distribution_count; k++)
            if (jd->distributions[k].cpu_only) return true;
    }
    return false;
}

/* Whether some library is an alternative that is not loaded on some target. */
static bool any_unused(const smc_view *opt)
{
    for (size_t i = 0; i < opt->input_count; i++) {
        const smc_judged *jd = smc_view_judged(opt, opt->inputs[i]);
        for (size_t l = 0; l < jd->library_count; l++)
            for (size_t t = 0; t < jd->libraries[l].judgement_count; t++)
                if (jd->libraries[l].judgements[t].unused) return true;
    }
    return false;
}

/* Library l of in, judged. */
static smc_status print_judged(FILE *out, const smc_input *in, size_t l, const smc_view *opt)
{
    const smc_library *lib = &in->libraries[l];
    const smc_library_judged *lj = smc_view_library_judged(opt, in, l);
    if (opt->target_count == 1 && lj->judgement_count == 0) {
        fprintf(out, "%s: no container could be read\n", path_shown(lib->path));
        return SMC_OK;
    }
    if (opt->target_count == 1) {
        char tok[16];
        target_token(tok, &opt->targets[0]);
        fprintf(out, "%s: %s ", path_shown(lib->path), tok);
        smc_status st = print_verdict(out, lib, &lj->judgements[0],
                                      smc_view_library_words(opt, in, l, 0), opt, "  ");
        print_links(out, lib, "  ");
        return st;
    }
    print_cells(out, lj, opt);
    fprintf(out, "%s\n", path_shown(lib->path));
    print_links(out, lib, "    ");
    smc_status st = SMC_OK;
    for (size_t t = 0; t < lj->judgement_count && t < opt->target_count && opt->detail && st == SMC_OK;
         t++) {
        const smc_judgement *j = &lj->judgements[t];
        if (j->status == SMC_STATUS_OK && !j->warnings) continue;
        char tok[16];
        target_token(tok, &opt->targets[t]);
        fprintf(out, "    %s ", tok);
        st = print_verdict(out, lib, j, smc_view_library_words(opt, in, l, t), opt, "      ");
    }
    return st;
}

/* A store of loose cubins (SMC_ROLE_STORE), judged: one row of its statuses, and how many of its
 * files serve each GPU. first: its first file. */
static void print_store(FILE *out, const smc_input *in, const smc_judged *jd,
                        const smc_distribution_judged *d, const smc_library *first,
                        const smc_view *opt)
{
    size_t files = d->verdict_count ? d->verdicts[0].store_files : 0;
    /* Where its files lie: the directory they all share. */
    size_t common = strlen(first->path);
    for (size_t k = 0; k < in->library_count; k++) {
        const smc_library *lib = &in->libraries[k];
        if (jd->libraries[k].role != SMC_ROLE_STORE || lib->distribution != first->distribution)
            continue;
        size_t n = 0;
        while (n < common && lib->path[n] == first->path[n])
            n++;
        common = n;
    }
    int dir = (int)common;
    while (dir > 0 && first->path[dir - 1] != '/')
        dir--;
    dir = dir > 0 ? dir - 1 : 0;
    if (opt->target_count == 1) {
        char tok[16];
        target_token(tok, &opt->targets[0]);
        fprintf(out, "%.*s: a store of %zu cubin files its loader picks from by GPU: %s ", dir,
                first->path, files, tok);
        print_status(out, opt, d->verdicts[0].store, 0);
        fprintf(out, ", %zu of them for it\n", d->verdicts[0].store_serving);
        return;
    }
    for (size_t t = 0; t < opt->target_count; t++)
        print_status(out, opt, t < d->verdict_count ? d->verdicts[t].store : SMC_STATUS_NO_CODE,
                     opt->cell);
    fprintf(out, "%.*s: a store of %zu cubin files its loader picks from by GPU (serving:", dir,
            first->path, files);
    for (size_t t = 0; t < opt->target_count && t < d->verdict_count; t++)
        fprintf(out, " %zu", d->verdicts[t].store_serving);
    fputs("; --detail lists them)\n", out);
}

/* The representative matrix, for information: how many libraries after in->libraries[k], none
 * claimed by a distribution like it, have the same status on every GPU (and no links or
 * detail to show), so that they share its row. */
static size_t same_row(const smc_input *in, const smc_judged *jd, size_t k, bool unowned)
{
    const smc_library_judged *a = &jd->libraries[k];
    size_t n = 0;
    if (!unowned || in->libraries[k].link_count || !a->judgement_count) return 0;
    for (size_t i = k + 1; i < in->library_count; i++, n++) {
        const smc_library_judged *b = &jd->libraries[i];
        if (in->libraries[i].distribution != SMC_NONE || in->libraries[i].link_count ||
            b->judgement_count != a->judgement_count)
            break;
        size_t t = 0;
        while (t < a->judgement_count && a->judgements[t].status == b->judgements[t].status)
            t++;
        if (t < a->judgement_count) break;
    }
    return n;
}

/* One row for in->libraries[k] and the `same` after it: the first path, then the others' names. */
static void print_grouped(FILE *out, const smc_input *in, const smc_judged *jd, size_t k,
                          size_t same, const smc_view *opt)
{
    const smc_library *lib = &in->libraries[k];
    print_cells(out, &jd->libraries[k], opt);
    fputs(path_shown(lib->path), out);
    for (size_t i = 1; i <= same; i++)
        fprintf(out, ", %s", smc_base_name(in->libraries[k + i].path));
    fputc('\n', out);
}

#define CELL_TARGETS 64

/* Failing cells of a matrix that share a library, a status, a cause and the images that fail:
 * one reason for all their targets. */
typedef struct cell {
    const smc_library *lib;
    smc_lib_status status;
    smc_cause cause;
    size_t failing, counted;
    const char *tokens; /* of the failing containers */
    const char *reason; /* the first target's */
    bool targets[CELL_TARGETS];
} cell;

/* A reason that holds for every GPU of a cell: the architecture causes name the GPU in theirs. */
static char *cell_reason(const cell *c)
{
    bool arch = c->status == SMC_STATUS_NONE &&
                (c->cause == SMC_CAUSE_ARCH || c->cause == SMC_CAUSE_MAIN_ARCH ||
                 c->cause == SMC_CAUSE_FEW || c->cause == SMC_CAUSE_TEGRA);
    if (!arch) return smc_strdup(c->reason);
    return smc_asprintf("has %s%s", c->tokens,
                        c->cause == SMC_CAUSE_TEGRA
                            ? ": a cubin for a lower minor does not run on Jetson"
                            : ", none of it for these GPUs");
}

/* Under a matrix: why each failing cell fails, once per reason (none fails; partial warns). */
static smc_status print_reasons(FILE *out, smc_input *const *inputs, size_t n,
                                const smc_view *opt)
{
    cell *cells = NULL;
    size_t count = 0, nt = opt->target_count;
    if (nt > CELL_TARGETS) nt = CELL_TARGETS; /* more GPUs than that: the first ones */
    smc_status st = SMC_OK;
    for (size_t i = 0; i < n && st == SMC_OK; i++)
        for (size_t l = 0; l < inputs[i]->library_count && st == SMC_OK; l++) {
            const smc_library *lib = &inputs[i]->libraries[l];
            const smc_library_judged *lj = smc_view_library_judged(opt, inputs[i], l);
            for (size_t t = 0; t < nt && t < lj->judgement_count && st == SMC_OK; t++) {
                const smc_judgement *j = &lj->judgements[t];
                if ((j->status != SMC_STATUS_NONE && j->status != SMC_STATUS_PARTIAL) || j->unused)
                    continue; /* an alternative that is not loaded fails nothing */
                const smc_words *w = smc_view_library_words(opt, inputs[i], l, t);
                const char *toks = w->failing_tokens ? w->failing_tokens : "";
                size_t k = 0;
                while (k < count && !(cells[k].lib == lib && cells[k].status == j->status &&
                                      cells[k].cause == j->cause &&
                                      cells[k].failing == j->failing_count &&
                                      cells[k].counted == j->counted &&
                                      strcmp(cells[k].tokens, toks) == 0))
                    k++;
                if (k < count) {
                    cells[k].targets[t] = true;
                    continue;
                }
                cell *c = smc_push(&cells, count, sizeof *c);
                if (!c) {
                    st = SMC_ERR_NOMEM;
                    break;
                }
                *c = (cell){.lib = lib, .status = j->status, .cause = j->cause,
                            .failing = j->failing_count, .counted = j->counted, .tokens = toks,
                            .reason = w->reason ? w->reason : ""};
                c->targets[t] = true;
                count++;
            }
        }
    /* The sentence of each cell; then cells that say the same for the same GPUs, merged. */
    char **why = calloc(count ? count : 1, sizeof *why);
    if (!why) st = SMC_ERR_NOMEM;
    for (size_t k = 0; why && k < count && st == SMC_OK; k++) {
        size_t many = 0;
        for (size_t t = 0; t < nt; t++)
            many += cells[k].targets[t];
        if (!(why[k] = many > 1 ? cell_reason(&cells[k]) : smc_strdup(cells[k].reason)))
            st = SMC_ERR_NOMEM;
    }
    /* One library, one sentence: its GPUs together (a driver cause fails whatever the images). */
    for (size_t k = 0; why && k < count && st == SMC_OK; k++)
        for (size_t m = k + 1; m < count && why[k]; m++)
            if (why[m] && cells[m].lib == cells[k].lib && cells[m].status == cells[k].status &&
                strcmp(why[m], why[k]) == 0) {
                for (size_t t = 0; t < nt; t++)
                    cells[k].targets[t] |= cells[m].targets[t];
                free(why[m]);
                why[m] = NULL;
            }
    if (st == SMC_OK && count)
        fputs("why (once per reason; none fails, partial is a warning):\n", out);
    for (size_t k = 0; k < count && st == SMC_OK; k++) {
        if (!why[k]) continue; /* merged into an earlier line */
        fputs(" ", out);
        for (size_t t = 0; t < nt; t++) {
            char tok[16];
            target_token(tok, &opt->targets[t]);
            if (cells[k].targets[t]) fprintf(out, " %s", tok);
        }
        fputc(' ', out);
        print_status(out, opt, cells[k].status, 0);
        size_t same = 0;
        for (size_t m = k; m < count; m++) {
            if (m > k && (!why[m] || cells[m].status != cells[k].status ||
                          memcmp(cells[m].targets, cells[k].targets, sizeof cells[k].targets) != 0 ||
                          strcmp(why[m], why[k]) != 0))
                continue;
            if (same < 3) fprintf(out, "%s %s", same ? "," : "", smc_base_name(cells[m].lib->path));
            same++;
            if (m > k) {
                free(why[m]);
                why[m] = NULL;
            }
        }
        if (same > 3) fprintf(out, " and %zu more", same - 3);
        fprintf(out, ": %s\n", why[k]);
    }
    for (size_t k = 0; why && k < count; k++)
        free(why[k]);
    free(why);
    free(cells);
    return st;
}

/* Whether a status the matrix shows has a name as wide as a cell (cpu-only, compiler). */
static bool wide_status(const smc_result *r)
{
    for (size_t i = 0; r->judged && i < r->input_count; i++) {
        const smc_judged *jd = &r->judged[i];
        for (size_t k = 0; k < jd->distribution_count; k++)
            for (size_t t = 0; t < jd->distributions[k].verdict_count; t++)
                if (strlen(smc_lib_status_str(jd->distributions[k].verdicts[t].status)) >= 8)
                    return true;
    }
    return false;
}

smc_status smc_report_text(FILE *out, const smc_result *r, const smc_display *how)
{
    smc_view view = smc_view_of(r, how);
    view.cell = wide_status(r) ? 10 : 8;
    const smc_view *opt = &view;
    smc_input *const *inputs = r->inputs;
    size_t n = r->input_count;
    uint64_t files = 0;
    size_t libraries = 0, errors = 0;
    bool judging = opt && opt->target_count;
    if (opt && opt->default_reason) fprintf(out, "input: %s\n", opt->default_reason);
    if (judging) {
        print_targets(out, opt);
        if (opt->target_count > 1) {
            if (!opt->detail) {
                char legend[1024];
                snprintf(legend, sizeof legend, "%s%s%s%s", LEGEND,
                         any_unused(opt) ? LEGEND_ALTERNATIVE : "",
                         any_cpu_only(opt) ? LEGEND_CPU_ONLY : "",
                         any_compiler(opt) ? LEGEND_COMPILER : "");
                print_wrapped(out, "legend: ", legend);
            }
            fputc('\n', out);
            for (size_t t = 0; t < opt->target_count; t++) {
                char tok[16];
                target_token(tok, &opt->targets[t]);
                fprintf(out, "%-*s", opt->cell, tok);
            }
            fputs("library\n", out);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const smc_input *in = inputs[i];
        const smc_judged *jd = smc_view_judged(opt, in);
        size_t with = 0;
        for (size_t d = 0; d < in->distribution_count; d++)
            with += in->distributions[d].library_count > 0;
        if (in->distribution_count || in->kind == SMC_INPUT_ENVIRONMENT ||
            in->kind == SMC_INPUT_IMAGE)
            fprintf(out, "%s: %s, %zu distribution%s, %zu with device code\n", in->path,
                    smc_input_kind_str(in->kind), in->distribution_count,
                    in->distribution_count == 1 ? "" : "s", with);
        for (size_t t = 0; judging && t < jd->verdict_count; t++) { /* an image's own word */
            if (!jd->verdicts[t].requires && jd->verdicts[t].compat) {
                char tok[16];
                target_token(tok, &opt->targets[t]);
                fprintf(out, "    %s: judged with the image's CUDA %d.%d forward-compatibility "
                             "package, which stands in for the older driver on this GPU\n",
                        tok, jd->verdicts[t].compat / 1000, jd->verdicts[t].compat % 1000 / 10);
                continue;
            }
            const smc_rollup *iv = &jd->verdicts[t];
            const char *why = smc_view_input_words(opt, in, t)->reason;
            if (iv->status == SMC_STATUS_COMPILER && iv->library == SMC_NONE && why &&
                iv->compiler < jd->compiler_count &&
                jd->compilers[iv->compiler].distribution == SMC_NONE) { /* a compiler of its own */
                char tok[16];
                target_token(tok, &opt->targets[t]);
                fprintf(out, "    %s ", tok);
                print_status(out, opt, iv->status, 0);
                fprintf(out, ": %s\n", why);
                continue;
            }
            if (!jd->verdicts[t].requires) continue;
            char tok[16];
            target_token(tok, &opt->targets[t]);
            fprintf(out, "    %s ", tok);
            print_status(out, opt, jd->verdicts[t].status, 0);
            fprintf(out, ": %s\n", why ? why : "");
        }
        /* Grouped by distribution, then the libraries none claims. */
        for (size_t d = 0; d <= in->distribution_count; d++) {
            const smc_distribution *dist =
                d < in->distribution_count ? &in->distributions[d] : NULL;
            /* In an environment, a distribution without libraries is left out, unless it is a
             * CPU-only build or a compiler: then it is what the status is about. */
            if (dist && !dist->library_count && in->kind == SMC_INPUT_ENVIRONMENT &&
                !jd->distributions[d].cpu_only && !judged_compiler(&jd->distributions[d]))
                continue;
            if (dist) {
                smc_status st = print_distribution(out, in->path, dist, &jd->distributions[d],
                                                   smc_view_distribution(opt, in, dist), opt);
                if (st != SMC_OK) return st;
            }
            size_t unowned = 0;
            bool store_shown = false;
            for (size_t k = 0; k < in->library_count; k++) {
                const smc_library *lib = &in->libraries[k];
                if (dist ? lib->distribution != d : lib->distribution != SMC_NONE) continue;
                if (jd->libraries[k].role == SMC_ROLE_STORE && !opt->detail) { /* one row */
                    if (!store_shown && judging)
                        print_store(out, in, jd, &jd->distributions[d], lib, opt);
                    if (!store_shown && !judging)
                        print_library(out, lib, smc_view_library(opt, in, lib), opt);
                    store_shown = true;
                    continue;
                }
                if (!dist && in->distribution_count && unowned++ == 0)
                    fputs("no distribution claims these:\n", out);
                size_t same = judging && opt->informational && !opt->detail
                                  ? same_row(in, jd, k, dist == NULL)
                                  : 0;
                if (same) {
                    print_grouped(out, in, jd, k, same, opt);
                    k += same;
                    continue;
                }
                smc_status st = judging
                                    ? print_judged(out, in, k, opt)
                                    : print_library(out, lib, smc_view_library(opt, in, lib), opt);
                if (st != SMC_OK) return st;
            }
        }
        for (size_t k = 0; k < in->note_count; k++)
            fprintf(out, "note: %s\n", in->notes[k]);
        if (in->notes_more)
            fprintf(out, "note: and %zu more notes, not kept (%d are, an input)\n",
                    in->notes_more, SMC_ERRORS_KEPT);
        files += inputs[i]->files;
        for (size_t l = 0; l < in->library_count; l++) /* a file with no device code is none */
            libraries += in->libraries[l].container_count > 0;
        errors += inputs[i]->error_count + inputs[i]->errors_more;
    }
    if (judging && opt->target_count > 1 && !opt->detail) {
        smc_status st = print_reasons(out, inputs, n, opt);
        if (st != SMC_OK) return st;
    }
    fprintf(out, "%llu file%s looked at, %zu librar%s found", (unsigned long long)files,
            files == 1 ? "" : "s", libraries, libraries == 1 ? "y" : "ies");
    if (errors) fprintf(out, ", %zu error%s", errors, errors == 1 ? "" : "s");
    fputc('\n', out);
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any |= smc_view_judged(opt, inputs[i])->verdict_count > 0;
    if (judging && !any) {
        fputs("overall: nothing could be read\n", out);
        return ferror(out) ? SMC_ERR_IO : SMC_OK;
    }
    /* A few GPUs a person named: one line each, with the inputs that give it its status; the
     * matrix and a single GPU: one line. */
    bool lines = judging && opt->overall && opt->target_count > 1 && opt->target_count <= 6;
    bool same = judging && opt->overall;
    for (size_t u = 1; same && u < opt->target_count; u++)
        same = opt->overall[u] == opt->overall[0];
    size_t col = 0;
    if (lines) fputs("overall:\n", out);
    for (size_t t = 0; judging && opt->overall && t < opt->target_count; t++) {
        smc_lib_status worst = opt->overall[t];
        char tok[16];
        target_token(tok, &opt->targets[t]);
        if (!lines) { /* one line, wrapped at 100 columns; the same status everywhere: once */
            if (same && opt->target_count > 1) {
                fputs("overall: ", out);
                print_status(out, opt, worst, 0);
                fprintf(out, " on all %zu GPUs", opt->target_count);
                break;
            }
            const char *name = worst == SMC_STATUS_NO_CODE ? "no device code"
                                                           : smc_lib_status_str(worst);
            size_t width = strlen(tok) + 1 + strlen(name) + 1;
            if (t && col + 1 + width > 100) {
                fputs(",\n        ", out);
                col = 8;
            } else {
                fputs(t ? ", " : "overall: ", out);
                col += t ? 2 : 9;
            }
            fprintf(out, "%s ", tok);
            print_status(out, opt, worst, 0);
            col += width;
            continue;
        }
        const smc_target *g = &opt->targets[t];
        char who[sizeof g->name + 32];
        snprintf(who, sizeof who, "%s%s(%u.%u)", g->name, g->name[0] ? " " : "", g->cc_major,
                 g->cc_minor);
        fprintf(out, "  %-7s %-28s ", tok, who);
        print_status(out, opt, worst, 0);
        size_t shown = 0, failing = 0;
        bool name = worst != SMC_STATUS_OK && worst != SMC_STATUS_NO_CODE;
        for (size_t i = 0; name && i < n; i++) {
            const smc_judged *jd = smc_view_judged(opt, inputs[i]);
            if (t >= jd->verdict_count || jd->verdicts[t].status != worst) continue;
            if (failing++ < 3)
                fprintf(out, "%s%s", shown++ ? ", " : ": ",
                        *smc_base_name(inputs[i]->path) ? smc_base_name(inputs[i]->path)
                                                        : inputs[i]->path); /* "dir/" */
        }
        if (failing > shown) fprintf(out, " and %zu more", failing - shown);
        fputc('\n', out);
    }
    if (judging && !lines) fputc('\n', out);
    return ferror(out) ? SMC_ERR_IO : SMC_OK;
}

smc_status smc_report_gpus_text(FILE *out, const smc_driver *d)
{
    if (d->cuda_version > 0) {
        fprintf(out, "driver: supports CUDA %d.%d", d->cuda_version / 1000,
                d->cuda_version % 1000 / 10);
        if (d->max_ptx_isa)
            fprintf(out, ", compiles PTX up to ISA %u.%u", d->max_ptx_isa / 10,
                    d->max_ptx_isa % 10);
        fputc('\n', out);
    } else {
        fputs("driver: none usable\n", out);
    }
    for (size_t i = 0; i < d->gpu_count; i++) {
        const smc_gpu *g = &d->gpus[i];
        fprintf(out, "GPU %d: %s, compute capability %u.%u (sm_%u%u), %s\n", g->index, g->name,
                g->cc_major, g->cc_minor, g->cc_major, g->cc_minor,
                g->integrated ? "integrated" : "discrete");
    }
    if (d->message[0]) fprintf(out, "no GPU: %s\n", d->message);
    return ferror(out) ? SMC_ERR_IO : SMC_OK;
}

smc_status smc_report_gpu_table_text(FILE *out, const smc_gpu_table *t)
{
    for (size_t i = 0; i < t->count; i++) {
        const smc_gpu_model *m = &t->models[i];
        char tok[16];
        snprintf(tok, sizeof tok, "sm_%u%u", m->cc_major, m->cc_minor);
        fprintf(out, "%2u.%u  %-7s %-13s %s%s%s\n", m->cc_major, m->cc_minor, tok, m->architecture,
                m->name, m->representative ? "  (representative)" : "",
                m->weak ? "  (weakly sourced)" : "");
    }
    return ferror(out) ? SMC_ERR_IO : SMC_OK;
}

/* Advice ----------------------------------------------------------------------------------- */

static const char *advice_cuda(int cuda, char buf[16])
{
    snprintf(buf, 16, "%d.%d", cuda / 1000, cuda % 1000 / 10);
    return buf;
}

/* "2.11.0 cu128 (CUDA 12.8, download.pytorch.org)" */
static void print_build(FILE *out, const smc_build *b)
{
    char cv[16];
    fprintf(out, "torch %s %s (%s%s%s)", b->torch, b->variant, b->cuda ? "CUDA " : "CPU only",
            b->cuda ? advice_cuda(b->cuda, cv) : "", b->pypi ? ", the PyPI default" : "");
}

/* Why a row does not run, or the caution it runs with; NULL when there is nothing to say. */
static const char *row_words(const smc_advice_row *r)
{
    return r->reason ? r->reason : r->warnings ? r->warning : NULL;
}

static void print_needs(FILE *out, const smc_advice_row *r)
{
    char cv[16];
    fprintf(out, "a driver for CUDA %s (%s or newer)", advice_cuda(r->needs_cuda, cv),
            r->needs_driver[0] ? r->needs_driver : "no known driver");
}

smc_status smc_report_advice_text(FILE *out, const smc_advice *a, const smc_display *how)
{
    const smc_view view = smc_view_of_advice(a, how), *opt = &view;
    const smc_builds *b = a->req.builds;
    print_targets(out, opt);
    fprintf(out, "platform: %s\n", a->req.platform);
    const smc_torch_installed *now = a->req.installed;
    if (now) {
        const char *name[] = {"torch", "torchvision", "torchaudio"};
        const char *version[] = {now->torch, now->torchvision, now->torchaudio};
        fputs("installed:", out);
        for (size_t i = 0, shown = 0; i < 3; i++)
            if (version[i]) fprintf(out, "%s %s %s", shown++ ? "," : "", name[i], version[i]);
        fprintf(out, " (in %s)\n", a->req.installed_where ? a->req.installed_where
                                                           : "the environment");
    }
    fputc('\n', out);
    if (a->best != SMC_NONE) {
        const smc_advice_row *r = &a->rows[a->best];
        const smc_build *row = &b->rows[r->build];
        bool done = r->installed;
        fputs(done ? "keep: " : now ? "replace with: " : "install: ", out);
        print_build(out, row);
        fputs(done ? " (installed)\n" : "\n", out);
        if (!done) fprintf(out, "  %s\n  %s\n", r->pip, r->uv);
        if (!now && (row->torchvision || row->torchaudio))
            fprintf(out, "  with torchvision %s, torchaudio %s\n",
                    row->torchvision ? row->torchvision : "(none known)",
                    row->torchaudio ? row->torchaudio : "(none known)");
        if (!done && now && now->torchvision && !row->torchvision)
            fprintf(out, "  no torchvision release is known for torch %s: the installed one "
                         "stays\n", row->torch);
        if (!done && now && now->torchaudio && !row->torchaudio)
            fprintf(out, "  no torchaudio release is known for torch %s: the installed one "
                         "stays\n", row->torch);
        if (row_words(r))
            fprintf(out, "  %s: %s\n", r->status == SMC_STATUS_JIT ? "through PTX" : "caution",
                    row_words(r));
        if (r->needs_cuda) {
            fputs("  it needs ", out);
            print_needs(out, r);
            fputs("\n", out);
        }
        /* Newer releases on the platform that have no build for it, when no driver helps. */
        size_t above = a->best;
        while (above > 0 && strcmp(b->rows[a->rows[above - 1].build].torch, row->torch) == 0)
            above--;
        if (above > 0 && a->newer_driver == SMC_NONE) {
            const char *top = b->rows[a->rows[0].build].torch;
            const char *low = b->rows[a->rows[above - 1].build].torch;
            if (strcmp(top, low) == 0)
                fprintf(out, "  torch %s, the newest release, has no build that runs here\n", top);
            else
                fprintf(out, "  torch %s to %s, the newer releases, have no build that runs here\n",
                        low, top);
        }
    } else {
        fprintf(out, "install: no build in the table runs on %s with this driver on %s\n",
                opt->target_count == 1 ? "this GPU" : "all of these GPUs", a->req.platform);
    }
    if (a->newer_driver != SMC_NONE) {
        const smc_advice_row *r = &a->rows[a->newer_driver];
        fputs("with a newer driver: ", out);
        print_build(out, &b->rows[r->build]);
        fputs(" needs ", out);
        print_needs(out, r);
        if (opt->driver_cuda > 0) {
            char cv[16];
            fprintf(out, "; the driver supports CUDA %s", advice_cuda(opt->driver_cuda, cv));
        }
        fputc('\n', out);
    }
    for (size_t k = 0; k < a->note_count; k++)
        fprintf(out, "note: %s\n", a->notes[k]);

    fprintf(out, "\n%s, newest first:\n", opt->detail ? "every build" : "the best build of each release");
    for (size_t i = 0; i < a->count; i++) {
        const smc_advice_row *r = &a->rows[i];
        const smc_build *row = &b->rows[r->build];
        if (!opt->detail && !r->shown) continue;
        fprintf(out, "  %-8s %-6s ", row->torch, row->variant);
        print_status(out, opt, r->status, 8);
        fprintf(out, "%s\n", row_words(r) ? row_words(r) : "runs");
    }
    return ferror(out) ? SMC_ERR_IO : SMC_OK;
}
