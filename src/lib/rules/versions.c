/* versions.c: the tables that tie CUDA versions to PTX ISA versions and to driver versions
 * (docs/compatibility.md §2.1 and §2.2), and the parser of --driver. Versions are kept as integers:
 * CUDA 12.8 is 12080 (as cuDriverGetVersion reports it), PTX ISA 8.7 is 87. */
#include "rules.h"

#include <smcheck/builds.h>

#include <stdio.h>
#include <stdlib.h>

/* PTX ISA per CUDA release (NVIDIA/cuda-python _ptx_utils.py; 9.2 to 9.4 from the release notes
 * and the PTX ISA manuals, 9.2 by pattern). */
static const struct {
    unsigned short cuda; /* major*10 + minor */
    unsigned short isa;
} ptx_isa[] = {
    {90, 60},  {91, 61},  {92, 62},  {100, 63}, {101, 64}, {102, 65}, {110, 70}, {111, 71},
    {112, 72}, {113, 73}, {114, 74}, {115, 75}, {116, 76}, {117, 77}, {118, 78}, {120, 80},
    {121, 81}, {122, 82}, {123, 83}, {124, 84}, {125, 85}, {126, 85}, {128, 87}, {129, 88},
    {130, 90}, {131, 91}, {132, 92}, {133, 93}, {134, 94},
};
#define N_PTX_ISA (sizeof ptx_isa / sizeof ptx_isa[0])

/* The Linux driver that first supports each CUDA release (the release notes' Toolkit Driver
 * Version table, GA rows; 8.0's from its GA2 notes; 13.3's from its runfile's name; 13.4's Linux
 * driver is unbundled, and only its branch is known: R615, which CUTLASS 4.8's notes say ships with
 * 13.4 GA (R610, 13.4's developer preview's, is not enough for Rubin); docs/compatibility.md 2.1).
 */
static const struct {
    unsigned short cuda;
    unsigned major, minor, patch;
} drivers[] = {
    {80, 375, 26, 0},   {90, 384, 81, 0},   {91, 390, 46, 0},  {92, 396, 26, 0},  {100, 410, 48, 0},
    {101, 418, 39, 0},  {102, 440, 33, 0},  {110, 450, 51, 5}, {111, 455, 23, 0}, {112, 460, 27, 3},
    {113, 465, 19, 1},  {114, 470, 42, 1},  {115, 495, 29, 5}, {116, 510, 39, 1}, {117, 515, 43, 4},
    {118, 520, 61, 5},  {120, 525, 60, 13}, {121, 530, 30, 2}, {122, 535, 54, 3}, {123, 545, 23, 6},
    {124, 550, 54, 14}, {125, 555, 42, 2},  {126, 560, 28, 3}, {128, 570, 26, 0}, {129, 575, 51, 3},
    {130, 580, 65, 6},  {131, 590, 44, 1},  {132, 595, 45, 4}, {133, 610, 43, 2}, {134, 615, 0, 0},
};
#define N_DRIVERS (sizeof drivers / sizeof drivers[0])

/* The CUDA version each Linux driver branch reports (cuDriverGetVersion, nvidia-smi), whatever
 * its minor: betas and release candidates of a branch report the same (docs/research/drivers.md
 * §3). R387 and R390 both report 9.1, R430 and R435 10.1, R565 12.7 (a version no toolkit has).
 * A branch between two rows is taken as the older; Tegra's own numbers are tegra_branch's. R616 is
 * 13.4's too: its developer drivers, and Windows' 616.x. */
static const struct {
    unsigned short branch, cuda;
} branches[] = {
    {384, 90},  {387, 91},  {396, 92},  {410, 100}, {418, 101}, {440, 102}, {450, 110},
    {455, 111}, {460, 112}, {465, 113}, {470, 114}, {495, 115}, {510, 116}, {515, 117},
    {520, 118}, {525, 120}, {530, 121}, {535, 122}, {545, 123}, {550, 124}, {555, 125},
    {560, 126}, {565, 127}, {570, 128}, {575, 129}, {580, 130}, {590, 131}, {595, 132},
    {610, 133}, {615, 134}, {616, 134},
};
#define N_BRANCHES (sizeof branches / sizeof branches[0])

static unsigned short short_cuda(int cuda)
{
    return (unsigned short)(cuda / 1000 * 10 + cuda % 1000 / 10);
}

bool smc_ptx_isa_for_cuda(int cuda_version, unsigned *major, unsigned *minor)
{
    /* A driver newer than the table knows at least the newest ISA in it. */
    unsigned short v = cuda_version > 0 ? short_cuda(cuda_version) : 0, isa = 0;
    for (size_t i = 0; i < N_PTX_ISA; i++)
        if (ptx_isa[i].cuda <= v) isa = ptx_isa[i].isa;
    if (!isa) return false;
    *major = isa / 10u;
    *minor = isa % 10u;
    return true;
}

int smc_cuda_for_ptx_isa(unsigned major, unsigned minor)
{
    unsigned isa = major * 10 + minor;
    for (size_t i = 0; i < N_PTX_ISA; i++)
        if (ptx_isa[i].isa >= isa) return ptx_isa[i].cuda / 10 * 1000 + ptx_isa[i].cuda % 10 * 10;
    /* Past the table: ISA 9.x has come with CUDA 13.x. */
    return major >= 9 ? (int)((major + 4) * 1000 + minor * 10) : 0;
}

int smc_cuda_for_arch(unsigned cc)
{
    /* The first CUDA release whose driver runs a GPU of this architecture
     * (docs/research/drivers.md §3; "≤ 7.0" taken as 7.0). */
    static const struct {
        unsigned short cc, cuda;
    } first[] = {
        {20, 70},  {21, 70},  {30, 70},  {32, 70},  {35, 70},   {37, 70},   {50, 70},   {52, 70},   {53, 70},
        {60, 80},  {61, 80},  {62, 80},   {70, 90},   {72, 91},   {75, 100},  {80, 110},
        {86, 111}, {87, 114}, {88, 130},  {89, 118},  {90, 118},  {100, 128}, {101, 128},
        {103, 129}, {107, 134}, {110, 130}, {120, 128}, {121, 129},
    };
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
        if (first[i].cc == cc) return first[i].cuda / 10 * 1000 + first[i].cuda % 10 * 10;
    return 0;
}

const char *smc_driver_for_cuda(int cuda, bool exact, char *buf, size_t len)
{
    /* Minor-version compatibility (docs/compatibility.md §2.1): a driver of the same major runs
     * it. */
    static const struct {
        unsigned short major;
        unsigned short v[3];
    } floors[] = {{11, {450, 80, 2}}, {12, {525, 60, 13}}, {13, {580, 65, 6}}};
    for (size_t i = 0; !exact && i < sizeof floors / sizeof floors[0]; i++)
        if (floors[i].major == cuda / 1000) {
            snprintf(buf, len, "%u.%02u.%02u", floors[i].v[0], floors[i].v[1], floors[i].v[2]);
            return buf;
        }
    unsigned short v = short_cuda(cuda);
    for (size_t i = 0; i < N_DRIVERS; i++)
        if (drivers[i].cuda >= v) {
            if (drivers[i].minor == 0 && drivers[i].patch == 0)
                snprintf(buf, len, "R%u", drivers[i].major); /* only the branch is known */
            else if (drivers[i].patch == 0)
                snprintf(buf, len, "%u.%02u", drivers[i].major, drivers[i].minor);
            else
                snprintf(buf, len, "%u.%02u.%02u", drivers[i].major, drivers[i].minor,
                         drivers[i].patch);
            return buf;
        }
    return NULL;
}

int smc_last_driver_branch(unsigned cc)
{
    /* docs/research/drivers.md §3 (weak: secondary reports of NVIDIA's notices): R390 was the
     * last branch for Fermi, R470 for Kepler, R580 is the last for Maxwell, Pascal and Volta
     * (Xavier's 7.2 included). */
    if (cc >= 20 && cc < 30) return 390;
    if (cc >= 30 && cc < 50) return 470;
    if (cc >= 50 && cc < 75) return 580;
    return 0;
}

int smc_driver_branch_for_cuda(int cuda)
{
    unsigned short v = short_cuda(cuda);
    for (size_t i = 0; i < N_DRIVERS; i++)
        if (drivers[i].cuda >= v) return (int)drivers[i].major;
    return 0;
}

bool smc_driver_parse_prefix(const char *text, int *cuda_version)
{
    char v[16];
    size_t n = 0;
    while (n < sizeof v - 1 && ((text[n] >= '0' && text[n] <= '9') || text[n] == '.'))
        n++;
    memcpy(v, text, n);
    v[n] = '\0';
    if (n && v[n - 1] == '.') v[n - 1] = '\0';
    const char *dot = strchr(v, '.');
    char *second = dot ? strchr(v + (dot - v) + 1, '.') : NULL; /* v's own: writable */
    if (second) *second = '\0'; /* 12.8.1 -> 12.8 */
    if (!dot && n) { /* "12" -> 12.0 */
        size_t k = strlen(v);
        if (k + 2 < sizeof v) memcpy(v + k, ".0", 3);
    }
    return smc_driver_parse(v, cuda_version) >= 1 && *cuda_version < 100000;
}

/* Jetson's drivers (L4T) have numbers of their own: R540 exists only there, 540.2 and 540.3
 * (JetPack 6.0) report CUDA 12.2, 540.4 and later (JetPack 6.1, 6.2) 12.6 (nvidia-smi on Orin,
 * docs/research/drivers.md §4). Thor's 580.00 (JetPack 7) is R580's 13.0 by the branch table. */
static int tegra_branch(unsigned long major, unsigned long minor)
{
    if (major != 540) return 0;
    return minor >= 4 ? 12060 : 12020;
}

/* Reads "12.4" or "12.8.1" (a CUDA version, with or without its update) or "550.54.14",
 * "410.48", "580" (a driver version or branch: its first number has 3 digits). */
int smc_driver_parse(const char *text, int *cuda_version)
{
    /* Up to three dot-separated decimal numbers, nothing else. */
    unsigned long v[3] = {0, 0, 0};
    int parts = 0;
    const char *p = text ? text : "";
    for (;;) {
        if (parts == 3 || *p < '0' || *p > '9') return 0;
        char *end;
        v[parts++] = strtoul(p, &end, 10);
        if (v[parts - 1] > 99999) return 0;
        if (*end == '\0') break;
        if (*end != '.') return 0;
        p = end + 1;
    }
    if (v[0] < 100) { /* a CUDA version: 12.4, 12.8.1 (the update does not change the driver) */
        if (parts < 2 || v[0] < 9 || v[1] > 9) return 0; /* before 9.0: not in the tables */
        *cuda_version = (int)(v[0] * 1000 + v[1] * 10);
        /* Past the newest release the tables know: taken as said, and said so. */
        int newest = branches[N_BRANCHES - 1].cuda / 10 * 1000 + branches[N_BRANCHES - 1].cuda % 10 * 10;
        return *cuda_version > newest ? 2 : 1;
    }
    /* A driver version: the CUDA its branch reports. */
    int tegra = tegra_branch(v[0], v[1]);
    if (tegra) {
        *cuda_version = tegra;
        return 1;
    }
    if (v[0] < branches[0].branch) return 0; /* before CUDA 9.0: not in the tables */
    size_t at = 0;
    for (size_t i = 0; i < N_BRANCHES; i++)
        if (branches[i].branch <= v[0]) at = i;
    *cuda_version = branches[at].cuda / 10 * 1000 + branches[at].cuda % 10 * 10;
    /* Past the newest branch known: at least what that one supports, said as such. */
    return v[0] > branches[N_BRANCHES - 1].branch ? 2 : 1;
}
