/* check.h: the unit tests' one assertion. CHECK counts passes and failures (printed at the end as
 * "N passed, M failed") and names a failed condition with its place, then goes on. */
#ifndef SMCHECK_TESTS_CHECK_H
#define SMCHECK_TESTS_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, __func__, #cond); \
        }                                                                                          \
    } while (0)

/* Ends main: the closing line and the exit status. */
static inline int check_report(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

#endif
