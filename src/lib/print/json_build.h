/* json_build.h: what the JSON report (report_json.c) and SARIF (report_sarif.c) share: a
 * cJSON tree built without checks and checked once, and its printing. Private to them. */
#ifndef SMCHECK_JSON_BUILD_H
#define SMCHECK_JSON_BUILD_H

#include "report.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* cJSON's builders return NULL when out of memory, and adding NULL to an object fails; so a tree
 * is built without checks and its completeness checked once with this flag, set by json_add(). */
typedef struct builder {
    bool failed;
} builder;

cJSON *json_add(builder *b, cJSON *obj, const char *key, cJSON *item);
/* A string for JSON, which is UTF-8: bytes of a name that are not (a Latin-1 file name) are
 * written \udcXX, as Python's surrogateescape reads them: os.fsencode() gives the bytes back. */
cJSON *json_text(const char *s);
/* Prints and frees a finished tree. */
smc_status json_print_root(FILE *out, cJSON *root, const builder *b);

#endif
