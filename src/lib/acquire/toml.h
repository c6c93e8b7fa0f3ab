/* toml.h: a TOML 1.0 reader (lock files: pylock.toml, uv.lock) that turns text trusted in nothing
 * (any bytes, any length, hostile nesting) into a cJSON tree, or says on which line it is wrong. */
#ifndef SMCHECK_TOML_H
#define SMCHECK_TOML_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Nesting beyond this depth of the tree (tables, dotted keys, arrays, inline tables together) is
 * an error: it bounds the recursion here and in cJSON_Delete and cJSON_Print. */
#define SMC_TOML_MAX_DEPTH 128
/* Values one document may hold: a tree of cJSON nodes costs some 100 bytes a value, whatever the
 * text that wrote it ("1," is two bytes), and the largest real locks hold a few hundred thousand
 * (a pylock.toml of 200,000 packages, 1.4 million, is read in 240 MiB). */
#define SMC_TOML_MAX_VALUES 2000000u

/* Parses TOML 1.0 text of len bytes (need not be NUL-terminated) into a cJSON object: tables and
 * inline tables become objects, arrays and arrays of tables arrays, strings strings, integers and
 * floats numbers, booleans booleans, offset/local date-times, dates and times strings exactly as
 * written. NULL on any error, with why set to "line L: what" (never longer than n bytes).
 * Refused although TOML allows them, since a cJSON tree cannot hold them: integers beyond
 * +-2^53 (a double would round them) and U+0000 in strings and keys (cJSON's are terminated). */
cJSON *smc_toml_parse(const char *text, size_t len, char *why, size_t n);

#endif
