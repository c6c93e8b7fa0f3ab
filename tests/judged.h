/* judged.h: the tests' one way to compare two models: the detailed JSON report of an input
 * judged against targets with a driver, and where two such texts first differ. */
#ifndef SMCHECK_TESTS_JUDGED_H
#define SMCHECK_TESTS_JUDGED_H

#include <smcheck/model.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The detailed JSON report of in, judged against targets with a driver; NULL when it fails. */
static inline char *judged_report(smc_input *in, const smc_target *t, size_t nt, int driver)
{
    smc_request req = {.targets = t, .target_count = nt, .driver_cuda = driver};
    smc_result *r = NULL;
    if (smc_check_inputs(&in, 1, &req, &r) != SMC_OK) return NULL;
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    smc_status st = out ? smc_report_json(out, r, &(smc_display){.detail = true}) : SMC_ERR_NOMEM;
    smc_result_free(r);
    if (!out) return NULL;
    fclose(out);
    if (st != SMC_OK) {
        free(text);
        return NULL;
    }
    return text;
}

/* Where two texts first differ, as "line N: <a> | <b>". */
static inline void first_difference(const char *a, const char *b, char *why, size_t n)
{
    size_t line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++, b++;
    }
    snprintf(why, n, "line %zu: %.*s | %.*s", line, (int)strcspn(la, "\n"), la,
             (int)strcspn(lb, "\n"), lb);
}

#endif
