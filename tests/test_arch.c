/* test_arch.c: unit tests of the GPU table (the built-in copy of data/gpus.tsv and malformed table
 * texts) and of the --gpu item parser: names, tokens, capabilities, ambiguity, unknown names and
 * lists. Prints "N passed, M failed". */
#include <smcheck/targets.h>

#include <stdio.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static smc_gpu_table *table;

/* The compute capabilities that must have exactly one rep row (the matrix shown without --gpu). */
static const unsigned rep_ccs[][2] = {{5, 2},  {6, 0},  {6, 1},  {7, 0},  {7, 5},
                                      {8, 0},  {8, 6},  {8, 7},  {8, 9},  {9, 0},
                                      {10, 0}, {10, 3}, {11, 0}, {12, 0}, {12, 1}};

static void test_builtin(void)
{
    CHECK(smc_gpu_table_builtin(&table) == 1 && table);
    if (!table) exit(1);
    CHECK(table->count >= 100);
    for (size_t i = 0; i < table->count; i++) {
        const smc_gpu_model *m = &table->models[i];
        bool ok = m->name && m->name[0] && strlen(m->name) < sizeof((smc_target *)0)->name &&
                  strncmp(m->name, "NVIDIA", 6) != 0 && m->architecture && m->architecture[0] &&
                  m->cc_major >= 2 && m->cc_major <= 12 && m->cc_minor <= 9;
        if (!ok) fprintf(stderr, "bad row %zu: %s\n", i, m->name ? m->name : "(null)");
        CHECK(ok);
    }
    for (size_t k = 0; k < sizeof rep_ccs / sizeof rep_ccs[0]; k++) {
        unsigned reps = 0;
        for (size_t i = 0; i < table->count; i++) {
            const smc_gpu_model *m = &table->models[i];
            reps +=
                m->representative && m->cc_major == rep_ccs[k][0] && m->cc_minor == rep_ccs[k][1];
        }
        if (reps != 1) fprintf(stderr, "%u.%u has %u reps\n", rep_ccs[k][0], rep_ccs[k][1], reps);
        CHECK(reps == 1);
        CHECK(smc_gpu_table_representative(table, rep_ccs[k][0], rep_ccs[k][1]) != NULL);
    }
    CHECK(strcmp(smc_gpu_table_representative(table, 9, 0), "H100") == 0);
    CHECK(smc_gpu_table_representative(table, 8, 8) == NULL);
    CHECK(smc_gpu_table_representative(NULL, 9, 0) == NULL);
    /* Weakly sourced rows carry the tag; sourced ones do not. */
    bool h800_weak = false, h100_weak = true;
    for (size_t i = 0; i < table->count; i++) {
        if (strcmp(table->models[i].name, "H800") == 0) h800_weak = table->models[i].weak;
        if (strcmp(table->models[i].name, "H100") == 0) h100_weak = table->models[i].weak;
    }
    CHECK(h800_weak && !h100_weak);
}

/* Parses item with the built-in table and checks the capability (and the name, when want_name). */
static void want(const char *item, unsigned major, unsigned minor, const char *want_name)
{
    smc_target tg;
    char err[256] = "";
    int rc = smc_target_parse(table, item, &tg, err, sizeof err);
    bool ok = rc == 1 && tg.cc_major == major && tg.cc_minor == minor &&
              (!want_name || strcmp(tg.name, want_name) == 0);
    if (!ok)
        fprintf(stderr, "'%s': rc %d, %u.%u '%s', err '%s'; wanted %u.%u '%s'\n", item, rc,
                tg.cc_major, tg.cc_minor, tg.name, err, major, minor, want_name ? want_name : "");
    CHECK(ok);
}

/* Parses item and checks that it fails with exactly msg (or, when prefix, a message starting so).
 */
static void refuse(const char *item, const char *msg, bool prefix)
{
    smc_target tg;
    char err[512] = "";
    int rc = smc_target_parse(table, item, &tg, err, sizeof err);
    bool ok = rc == 0 && (prefix ? strncmp(err, msg, strlen(msg)) == 0 : strcmp(err, msg) == 0);
    if (!ok)
        fprintf(stderr, "'%s': rc %d, err '%s'; wanted '%s'%s\n", item, rc, err, msg,
                prefix ? "..." : "");
    CHECK(ok);
}

/* The table's tag compat: forward compatibility works on data-center GPUs and Jetson only. */
static void test_compat(void)
{
    static const struct {
        const char *name;
        bool compat;
    } cases[] = {{"h100", true}, {"l4", true}, {"orin", true}, {"b200", true},
                 {"rtx-4090", false}, {"rtx 6000 ada", false}, {"gb10", false}, {"9.0", false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        smc_target t;
        char err[256];
        CHECK(smc_target_parse(table, cases[i].name, &t, err, sizeof err) == 1 &&
              t.compat == cases[i].compat);
    }
}

static void test_names(void)
{
    want("h100", 9, 0, "H100");
    want("H200", 9, 0, "H200");
    want("NVIDIA H100", 9, 0, "H100");
    want("rtx-4090", 8, 9, "GeForce RTX 4090");
    want("RTX 4090", 8, 9, "GeForce RTX 4090");
    want("GeForce RTX 4090", 8, 9, "GeForce RTX 4090");
    want("NVIDIA GeForce RTX 4090", 8, 9, "GeForce RTX 4090");
    want("rtx_4090", 8, 9, "GeForce RTX 4090");
    want("rtx4090", 8, 9, "GeForce RTX 4090");
    want("4090", 8, 9, "GeForce RTX 4090");
    want("gb10", 12, 1, "DGX Spark (GB10)");
    want("DGX Spark", 12, 1, "DGX Spark (GB10)");
    want("thor", 11, 0, "Jetson AGX Thor (T5000)");
    want("orin", 8, 7, NULL);
    want("Jetson AGX Orin", 8, 7, "Jetson AGX Orin");
    want("rtx 5090", 12, 0, "GeForce RTX 5090");
    want("5090", 12, 0, "GeForce RTX 5090");
    want("l4", 8, 9, "L4"); /* not ambiguous with L40, L40S: the whole name wins */
    want("L40", 8, 9, "L40");
    want("t4", 7, 5, "T4"); /* not Jetson T4000 (11.0) */
    want("Tesla T4", 7, 5, "T4");
    want("t4000", 11, 0, "Jetson T4000");
    want("a100", 8, 0, "A100");
    want("a10", 8, 6, "A10");
    want("b300", 10, 3, "B300");
    want("rubin", 10, 7, "Rubin");
    want("v100", 7, 0, "Tesla V100");
    want("Tesla V100", 7, 0, "Tesla V100");
    want("jetson nano", 5, 3, "Jetson Nano"); /* not Jetson Orin Nano */
    want("orin nano", 8, 7, "Jetson Orin Nano");
    want("h20", 9, 0, "H20");
    want("quadro rtx 6000", 7, 5, "Quadro RTX 6000");
    want("rtx 6000 ada", 8, 9, "RTX 6000 Ada");
    want("rtx pro 6000", 12, 0, "RTX PRO 6000 Blackwell");
    want("titan x pascal", 6, 1, "TITAN X (Pascal)");
    want("GTX TITAN X", 5, 2, "GeForce GTX TITAN X");
    want("gtx 1080", 6, 1, "GeForce GTX 1080");
    want("  h100  ", 9, 0, "H100");
}

static void test_tokens(void)
{
    want("sm_86", 8, 6, "");
    want("sm_90a", 9, 0, "");
    want("SM_90A", 9, 0, "");
    want("sm_100f", 10, 0, "");
    want("compute_86", 8, 6, "");
    want("compute_120f", 12, 0, "");
    want("sm_121", 12, 1, "");
    want("8.6", 8, 6, "");
    want("12.1", 12, 1, "");
    want("12.0", 12, 0, "");
    /* Known to CUDA though in no table row (sm_88 came with CUDA 13.0). */
    want("8.8", 8, 8, "");
    /* A compute capability NVIDIA shipped is a known one, however old (Fermi, Kepler's first):
     * judged, and told why nothing runs on it. */
    want("2.1", 2, 1, "");
    want("sm_20", 2, 0, "");
    want("3.0", 3, 0, "");
    want("gtx 560", 2, 1, "GeForce GTX 560");
    want("gtx-680", 3, 0, "GeForce GTX 680");
    /* A capability no table and no CUDA release knows is a typo, not a GPU: refused with the
     * closest known ones. */
    refuse("sm_99", "unknown arch token 'sm_99': no GPU table row or CUDA release has compute "
                    "capability 9.9 (closest: 10.0, 10.1, 10.3",
           true);
    refuse("4.2", "unknown compute capability '4.2'", true);
    refuse("sm_200", "unknown arch token 'sm_200': no GPU table row or CUDA release has compute "
                     "capability 20.0 (closest: 12.1, 12.0, 11.0",
           true);
    /* Unless a --gpu-table defines it. */
    smc_gpu_table *future = NULL;
    char err[256];
    const char text[] = "20.0\tFuture GPU\tFuture\trep\n";
    CHECK(smc_gpu_table_parse(text, sizeof text - 1, &future, err, sizeof err) == 1);
    smc_target tg;
    CHECK(future && smc_target_parse(future, "sm_200", &tg, err, sizeof err) == 1 &&
          tg.cc_major == 20 && tg.cc_minor == 0);
    smc_gpu_table_free(future);

    refuse("sm_", "bad arch token 'sm_'", true);
    refuse("sm_8", "bad arch token 'sm_8'", true);
    refuse("sm_1000", "bad arch token 'sm_1000'", true);
    refuse("sm_90b", "bad arch token 'sm_90b'", true);
    refuse("sm_90af", "bad arch token 'sm_90af'", true);
    refuse("compute_", "bad arch token 'compute_'", true);
    refuse("sm_05", "implausible arch token 'sm_05'", false);
    refuse("8.", "bad compute capability '8.'", true);
    refuse("8.6.1", "bad compute capability '8.6.1'", true);
    refuse("0.5", "implausible compute capability '0.5'", false);
    refuse("8.10", "implausible compute capability '8.10'", false);
    refuse("100.0", "implausible compute capability '100.0'", false);
    refuse("x.y", "unknown GPU 'x.y'", true);
    refuse("", "empty GPU name", false);
    refuse("   ", "empty GPU name", false);
    refuse("--", "bad GPU '--': no letter or digit", false);
}

static void test_ambiguous_unknown(void)
{
    refuse("rtx 6000",
           "'rtx 6000' is ambiguous: Quadro RTX 6000 (7.5), RTX 6000 Ada (8.9), RTX PRO 6000 "
           "Blackwell (12.0)",
           false);
    refuse("titan x", "'titan x' is ambiguous: GeForce GTX TITAN X (5.2), TITAN Xp (6.1)", false);
    refuse("nano", "'nano' is ambiguous: Jetson Nano (5.3), Jetson Orin Nano (8.7)", false);
    refuse("rtx 4095",
           "unknown GPU 'rtx 4095' (closest: GeForce RTX 4090, GeForce RTX 4080, GeForce RTX "
           "4070)",
           false);
    refuse("h1000", "unknown GPU 'h1000' (closest: H100", true);
    refuse("zzzzzzzzzz", "unknown GPU 'zzzzzzzzzz' (give a product name", true);
    /* A control character is not echoed into the message. */
    refuse("rtx\x1b[31m", "unknown GPU 'rtx?[31m'", true);
    char longname[300];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    refuse(longname, "GPU name too long (299 bytes)", true);

    /* Without a table, names are unknown but tokens still parse. */
    smc_target tg;
    char err[256];
    CHECK(smc_target_parse(NULL, "sm_90", &tg, err, sizeof err) == 1 && tg.cc_major == 9);
    CHECK(smc_target_parse(NULL, "h100", &tg, err, sizeof err) == 0 &&
          strncmp(err, "unknown GPU 'h100'", 18) == 0);
    /* A tiny err buffer is cut, not overrun. */
    char small[12];
    memset(small, 'x', sizeof small);
    CHECK(smc_target_parse(table, "rtx 6000", &tg, small, 8) == 0 && strlen(small) == 7 &&
          small[8] == 'x');
    CHECK(smc_target_parse(table, "rtx 6000", &tg, NULL, 0) == 0);
}

/* Parses table text and checks the result; for failures, that err starts with msg. */
static void table_case(const char *text, int want_rc, const char *msg)
{
    smc_gpu_table *t = NULL;
    char err[256] = "";
    int rc = smc_gpu_table_parse(text, strlen(text), &t, err, sizeof err);
    bool ok = rc == want_rc && (rc == 1 ? t != NULL : t == NULL) &&
              (!msg || strncmp(err, msg, strlen(msg)) == 0);
    if (!ok)
        fprintf(stderr, "table %.40s...: rc %d err '%s'; wanted %d '%s'\n", text, rc, err, want_rc,
                msg ? msg : "");
    CHECK(ok);
    smc_gpu_table_free(t);
}

static void test_table_parse(void)
{
    table_case("# c\n\n8.6\tA10\tAmpere\trep\n8.6\tA40\tAmpere\n9.0\tH100\tHopper\t-\n", 1, NULL);
    table_case("8.6\tA10\tAmpere\t rep , weak \r\n", 1, NULL); /* CRLF and blanks in tags */
    table_case("8.6\tA10\tAmpere\t\n", 1, NULL);               /* empty tags */
    table_case("8.6\tA10\tAmpere", 1, NULL);                   /* no final newline */

    table_case("8.x\tA10\tAmpere\t-\n", 0, "line 1: bad compute capability '8.x'");
    table_case("# c\n86\tA10\tAmpere\t-\n", 0, "line 2: bad compute capability '86'");
    table_case("0.6\tA10\tAmpere\t-\n", 0, "line 1: bad compute capability '0.6'");
    table_case("8.6\tA10\n", 0, "line 1: expected 3 or 4 tab-separated columns");
    table_case("8.6 A10 Ampere -\n", 0, "line 1: expected 3 or 4 tab-separated columns");
    table_case("8.6\tA10\tAmpere\t-\textra\n", 0, "line 1: expected 3 or 4");
    table_case("8.6\t\tAmpere\t-\n", 0, "line 1: a name must have 1 to 127 bytes");
    table_case("8.6\tA10\t\t-\n", 0, "line 1: an architecture must have");
    table_case("8.6\tA10\tAmpere\tfast\n", 0, "line 1: unknown tag 'fast'");
    table_case("8.6\tA10\tAmpere\t-\n8.6\ta-10\tAmpere\t-\n", 0,
               "line 2: duplicate name 'a-10' (line 1 has 'A10')");
    table_case("7.5\tTesla T4\tTuring\t-\n7.5\tT4\tTuring\t-\n", 0, "line 2: duplicate name 'T4'");
    table_case("8.6\tA10\tAmpere\trep\n8.6\tA40\tAmpere\trep\n", 0, "line 2: a second rep for 8.6");
    table_case("8.6\tA10\tAmpere\t-\n8.6\tA40\tAda\t-\n", 0, "line 2: architecture 'Ada' differs");
    table_case("8.6\t---\tAmpere\t-\n", 0, "line 1: the name '---' has no letter or digit");
    table_case("8.6\tA\x01\tAmpere\t-\n", 0, "line 1: control character 0x01");
    table_case("# only comments\n", 0, "the table has no GPU");
    table_case("", 0, "the table has no GPU");

    char err[256];
    smc_gpu_table *t = (smc_gpu_table *)1;
    CHECK(smc_gpu_table_load("/nonexistent/gpus.tsv", &t, err, sizeof err) == 0 && t == NULL &&
          strncmp(err, "/nonexistent/gpus.tsv: ", 23) == 0);
    /* The file's name is part of a load error. */
    char path[] = "/tmp/test_arch_XXXXXX";
    FILE *g = NULL;
    int fd = mkstemp(path);
    if (fd >= 0) g = fdopen(fd, "w");
    CHECK(g != NULL);
    if (g) {
        fputs("8.6\tA10\tAmpere\t-\n8.6\tA10\tAmpere\t-\n", g);
        fclose(g);
        size_t pl = strlen(path);
        CHECK(smc_gpu_table_load(path, &t, err, sizeof err) == 0 && t == NULL &&
              strncmp(err, path, pl) == 0 && strncmp(err + pl, ": line 2: duplicate", 19) == 0);
        remove(path);
    }
}

static void test_list(void)
{
    smc_target *v = NULL;
    size_t n = 0;
    char err[256] = "";
    CHECK(smc_target_parse_list(table, "h100, l4 ,sm_120", &v, &n, err, sizeof err) == 1 && n == 3);
    if (v && n == 3) {
        CHECK(strcmp(v[0].name, "H100") == 0 && v[0].cc_major == 9 && v[0].cc_minor == 0);
        CHECK(strcmp(v[1].name, "L4") == 0 && v[1].cc_major == 8 && v[1].cc_minor == 9);
        CHECK(v[2].name[0] == '\0' && v[2].cc_major == 12 && v[2].cc_minor == 0);
    }
    free(v);
    CHECK(smc_target_parse_list(table, "h100,h100", &v, &n, err, sizeof err) == 1 && n == 2);
    free(v);
    CHECK(smc_target_parse_list(table, "sm_90", &v, &n, err, sizeof err) == 1 && n == 1);
    free(v);
    CHECK(smc_target_parse_list(table, "h100,,l4", &v, &n, err, sizeof err) == 0 && !v && n == 0 &&
          strcmp(err, "empty item 2 in the GPU list") == 0);
    CHECK(smc_target_parse_list(table, "h100,", &v, &n, err, sizeof err) == 0 && !v);
    CHECK(smc_target_parse_list(table, "", &v, &n, err, sizeof err) == 0 && !v);
    CHECK(smc_target_parse_list(table, "h100,rtx 6000", &v, &n, err, sizeof err) == 0 && !v &&
          strncmp(err, "'rtx 6000' is ambiguous", 23) == 0);
    CHECK(smc_target_parse_list(table, "l4,sm_", &v, &n, err, sizeof err) == 0 && !v &&
          strncmp(err, "bad arch token 'sm_'", 20) == 0);
}

int main(void)
{
    test_builtin();
    test_names();
    test_compat();
    test_tokens();
    test_ambiguous_unknown();
    test_table_parse();
    test_list();
    smc_gpu_table_free(table);
    return check_report();
}
