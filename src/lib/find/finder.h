/* finder.h: the one container finder, over windows of bytes (finder.c) */
#ifndef SMCHECK_FINDER_H
#define SMCHECK_FINDER_H

#include "../base/model.h"

typedef struct smc_finder smc_finder;
/* A finder for the file named name. whole: its bytes come in one window, which stays valid until
 * smc_finder_finish; else they stream in windows of any size, each valid only during its call. */
smc_finder *smc_finder_new(const char *name, const smc_options *opt, bool whole);
/* The next n bytes of the file. SMC_ERR_NOMEM is the only failure. */
smc_status smc_finder_feed(smc_finder *f, const uint8_t *p, size_t n);
/* After the last window: true when the finder needs the bytes once more, from the start (a
 * stream whose section names went by before its section table said where they were). */
bool smc_finder_again(smc_finder *f);
/* A stream outgrew what it may hold (hostile nesting, floods of headers or images): its bytes are
 * to be read again as one window (from a temporary file), and f freed unfinished. */
bool smc_finder_spilled(const smc_finder *f);
/* A stream's size, as its archive claims: what it may decompress is counted from it. */
void smc_finder_expect(smc_finder *f, uint64_t size);
/* Builds the library from what was found and moves it into in (when it holds device code);
 * file_size is set to the bytes fed. */
smc_status smc_finder_finish(smc_finder *f, smc_input *in);
void smc_finder_free(smc_finder *f);

/* True when the first bytes are one of the files the finder reads (ELF, ar, raw fatbin). */
bool smc_finder_signature(const uint8_t *p, uint64_t n);

#endif
