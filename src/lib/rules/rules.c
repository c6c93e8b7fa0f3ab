/* rules.c: what one image is for one GPU and driver, the rules of binary compatibility, 'a' and
 * 'f' variants, Tegra, PTX ISA and CUDA 13's cubins (docs/compatibility.md §1 and §2):
 * pure functions of an image's facts, below both the readers (which ask whether the payloads can
 * change a verdict, smc_facts_matter) and the judge (verdict.c). */
#include "rules.h"

unsigned smc_arch_major(unsigned arch)
{
    return arch / 10;
}

/* Jetson GPUs: "binary compatibility is supported only for the desktop. It is not supported for
 * Tegra" (Programming Guide §6.1.2): only a cubin for exactly their capability counts. */
bool smc_tegra(unsigned cc)
{
    return cc == 53 || cc == 62 || cc == 72 || cc == 87;
}

/* Which capabilities run an 'f' (family) image: Programming Guide 13.x Table 28, 10.7 from the
 * 13.4 edition; 101f is Thor's family before CUDA 13 renamed it 11.0 (§2.3). */
static const struct {
    unsigned arch, members[4];
} families[] = {
    {100, {100, 103, 107}}, {101, {101}},      {103, {103, 107}}, {107, {107}},
    {110, {110}},           {120, {120, 121}}, {121, {121}},
};

bool smc_in_family(unsigned arch, unsigned cc)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        if (families[i].arch != arch) continue;
        for (size_t k = 0; k < 4 && families[i].members[k]; k++)
            if (families[i].members[k] == cc) return true;
        return false;
    }
    /* A family the table does not know yet: nvcc's rule, same major and no lower minor. */
    return smc_arch_major(cc) == smc_arch_major(arch) && cc >= arch;
}

/* What a PTX image is for: the .target and .version of its text when they were read (the text
 * wins over the entry: tensorflow's kernel_gen PTX says .target sm_90a under entries without the
 * 'a' flag), else the entry's. */
void smc_image_target(const smc_image *img, unsigned *arch, smc_variant *variant)
{
    bool text = img->kind == SMC_IMAGE_PTX && img->text_arch;
    *arch = text ? img->text_arch : img->arch;
    *variant = text ? img->text_variant : img->variant;
}

unsigned smc_image_arch(const smc_image *img)
{
    unsigned a;
    smc_variant v;
    smc_image_target(img, &a, &v);
    return a;
}

smc_variant smc_image_variant(const smc_image *img)
{
    unsigned a;
    smc_variant v;
    smc_image_target(img, &a, &v);
    return v;
}

unsigned smc_image_isa(const smc_image *img)
{
    if (img->kind == SMC_IMAGE_PTX && img->text_isa) return img->text_isa;
    return img->version_major * 10 + img->version_minor;
}

/* A cubin in CUDA 13's format: ELF ABI v2 (entry version 1.8) below sm_100, or one whose ptxas
 * says 13.x. CUDA 12.8 and 12.9 write ABI v2 for Blackwell cubins too (docs/compatibility.md
 * §2.5). */
bool smc_image_cuda13(const smc_image *img)
{
    if (img->kind != SMC_IMAGE_CUBIN || img->version_major != 1 || img->version_minor < 8)
        return false;
    return img->release ? img->release >= 13000 : img->arch < 100;
}

int smc_tileir_cuda(const smc_image *img)
{
    int v = (int)(img->version_major * 1000 + img->version_minor * 10);
    return v > 13010 ? v : 13010;
}

smc_verdict smc_image_verdict(const smc_image *img, unsigned cc, int driver_cuda, int *cause)
{
    *cause = SMC_WHY_NONE;
    if (img->kind == SMC_IMAGE_TILEIR) {
        if (cc < img->arch) {
            *cause = SMC_WHY_ARCH;
            return SMC_VERDICT_NONE;
        }
        if (driver_cuda > 0 && driver_cuda < smc_tileir_cuda(img)) {
            *cause = SMC_WHY_TILEIR;
            return SMC_VERDICT_JIT_BLOCKED;
        }
        return SMC_VERDICT_JIT;
    }
    if (smc_image_opaque(img->kind)) {
        *cause = SMC_WHY_LTO;
        return SMC_VERDICT_NONE;
    }
    unsigned a = smc_image_arch(img);
    smc_variant variant = smc_image_variant(img);
    bool cubin = img->kind == SMC_IMAGE_CUBIN, fits;
    if (variant == SMC_VARIANT_A) {
        fits = cc == a;
    } else if (variant == SMC_VARIANT_F) {
        fits = smc_in_family(a, cc);
    } else if (cubin && a == 101 && cc == 110) {
        /* Thor was 10.1 in CUDA 12.8/12.9; PyTorch's table says a plain sm_101 cubin runs on
         * 11.0. No source says so of sm_101a or sm_101f. */
        *cause = SMC_WHY_THOR_RENAMED;
        fits = true;
    } else if (cubin) {
        fits = smc_arch_major(cc) == smc_arch_major(a) && cc >= a;
        /* Orin under JetPack 7.2 runs CUDA 13's SBSA driver stack, where users report that
         * lower-minor cubins run (sm_80 on 8.7: conda-forge's pytorch, ollama, nixpkgs);
         * NVIDIA does not say so. Under older (L4T) drivers, and an unknown one, no. */
        if (fits && cc != a && cc == 87 && driver_cuda >= 13000) {
            *cause = SMC_WHY_TEGRA_SBSA;
        } else if (fits && cc != a && smc_tegra(cc)) {
            *cause = SMC_WHY_TEGRA;
            return SMC_VERDICT_NONE;
        }
    } else {
        fits = cc >= a; /* PTX moves up, across majors */
    }
    if (!fits) {
        *cause = SMC_WHY_ARCH;
        return SMC_VERDICT_NONE;
    }
    if (cubin) {
        /* CUDA 13's cubin format: a 12.x driver rejects it. */
        if (driver_cuda > 0 && driver_cuda < 13000 && smc_image_cuda13(img)) {
            *cause = SMC_WHY_CUDA13;
            return SMC_VERDICT_NONE;
        }
        return cc == a ? SMC_VERDICT_NATIVE : SMC_VERDICT_COMPATIBLE;
    }
    unsigned major = 0, minor = 0;
    if (driver_cuda > 0 &&
        (!smc_ptx_isa_for_cuda(driver_cuda, &major, &minor) || smc_image_isa(img) > major * 10 + minor)) {
        *cause = SMC_WHY_PTX_ISA;
        return SMC_VERDICT_JIT_BLOCKED;
    }
    return SMC_VERDICT_JIT;
}

/* For each target, either a cubin serves it by its entry alone, or the payloads may decide: a
 * cubin of entry version 1.8 that fits, under a driver older than CUDA 13, serves by its release
 * (its ptxas's); a container without PTX fails or holds no kernels; PTX that may fit is for its
 * text's .target and .version (the text names the entry's arch, which --verify checks: it can
 * only add a variant); and PTX beside only 'a'/'f' cubins may be gated by its text's variant.
 * Otherwise nothing fits whatever the payloads say: none. */
bool smc_facts_matter(const smc_image *images, size_t n, const smc_target *targets, size_t nt,
                      int driver_cuda)
{
    bool old_driver = driver_cuda > 0 && driver_cuda < 13000;
    for (size_t t = 0; t < nt; t++) {
        unsigned cc = targets[t].cc_major * 10 + targets[t].cc_minor;
        bool served = false, ptx = false, ptx_fits = false, plain_cubin = false;
        for (size_t i = 0; i < n && !served; i++) {
            const smc_image *img = &images[i];
            int why;
            if (img->kind == SMC_IMAGE_PTX) {
                ptx = true;
                ptx_fits |= cc >= img->arch;
            } else if (img->kind == SMC_IMAGE_CUBIN) {
                plain_cubin |= img->variant == SMC_VARIANT_NONE;
                smc_verdict v = smc_image_verdict(img, cc, driver_cuda, &why);
                if (old_driver && img->version_major == 1 && img->version_minor >= 8 &&
                    (v <= SMC_VERDICT_COMPATIBLE || why == SMC_WHY_CUDA13))
                    return true;
                served = v <= SMC_VERDICT_COMPATIBLE;
            }
        }
        if (!served && (!ptx || ptx_fits || !plain_cubin)) return true;
    }
    return false;
}

