/* cache_record.h: what the files of the facts cache share (cache.c the directory,
 * cache_write.c the writer of a record, cache_read.c its reader, cache_record.c the fields, keys
 * and strings of every record, and the choices). Private to them. */
#ifndef SMCHECK_CACHE_RECORD_H
#define SMCHECK_CACHE_RECORD_H

#include "acquire.h"

#define EXACT_MAX 9007199254740992ull /* 2^53: larger integers are written as strings */

/* The fields of an image and a container, in the order a record's rows give them. */
#define IMAGE_FIELDS ((size_t)15)
#define CONTAINER_FIELDS ((size_t)10)
extern const char *const cache_image_fields[IMAGE_FIELDS];
extern const char *const cache_container_fields[CONTAINER_FIELDS];

/* Whether a string is as the model keeps them: no C0 control, DEL or C1 control (smc_sanitize). */
bool cache_clean(const char *s, size_t len);

#endif
