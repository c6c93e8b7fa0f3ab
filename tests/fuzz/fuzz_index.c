/* fuzz_index.c: what a package index and a lock hand over untrusted (pyindex.c, index_html.c,
 * markers.c, pep440.c, pyenv.c): a project page as PEP 691 JSON or PEP 503 HTML and the choice of
 * a file from it, a marker, a version against a specifier, a wheel's name; the first byte chooses
 * which. A page is read
 * whole and again as it comes over the network, in pieces whose sizes its bytes choose: the two
 * must read the same files (it aborts where they do not). */
#include "../../src/lib/acquire/acquire.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static smc_pyenv env;
static int ready; /* 1 made, -1 could not be */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[256];
    if (!ready) ready = smc_pyenv_init(&env, "manylinux_2_28_x86_64", "3.11", why, sizeof why) ? 1 : -1;
    if (ready < 0 || size < 1) return 0;
    char *text = malloc(size); /* NUL-terminated: the rest of the input */
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    switch (data[0] % 5) {
    case 0:
    case 1: {
        smc_index_file *files = NULL;
        size_t n = 0, dropped = 0;
        const char *type = data[0] % 5 ? "text/html" : "application/vnd.pypi.simple.v1+json";
        bool whole = smc_index_parse(text, size - 1, type, "https://example.org/simple/x/", &files,
                                     &n, &dropped, why, sizeof why);
        smc_index_stream *s = smc_index_stream_new(NULL, NULL);
        if (s && size == 1) /* an empty body: fed once, as a whole one is */
            smc_index_stream_feed(s, type, "https://example.org/simple/x/", text, 0);
        for (size_t at = 0, k = 1; s && at < size - 1; at += k) {
            k = 1 + (size_t)(data[at % size] % 97) * (1 + at % 7); /* 1 to a few hundred */
            if (k > size - 1 - at) k = size - 1 - at;
            if (!smc_index_stream_feed(s, type, "https://example.org/simple/x/", text + at, k))
                break;
        }
        smc_index_file *pieces = NULL;
        size_t pn = 0, pd = 0;
        char pwhy[256];
        if (s) {
            bool same = smc_index_stream_end(s, &pieces, &pn, &pd, pwhy, sizeof pwhy) == whole &&
                        pn == n && (!whole || pd == dropped);
            for (size_t i = 0; same && i < n; i++)
                same = strcmp(pieces[i].url, files[i].url) == 0 &&
                       strcmp(pieces[i].filename, files[i].filename) == 0 &&
                       strcmp(pieces[i].sha256, files[i].sha256) == 0;
            /* An HTML construct the window cannot hold (over 1 MiB) is text when it comes in
             * pieces: inputs here are smaller. */
            if (!same) abort();
            smc_index_files_free(pieces, pn);
            smc_index_stream_free(s);
        }
        if (whole) {
            const char *hashes[] = {files && n ? files[0].sha256 : ""};
            smc_index_choose(files, n, "x", "1.0", &env, NULL, 0, why, sizeof why);
            smc_index_choose(files, n, "x", "==1.0", &env, hashes, 1, why, sizeof why);
            smc_index_choose(files, n, "x", ">=0.5,!=1.1", &env, NULL, 0, why, sizeof why);
            smc_index_choose(files, n, "x", "", &env, NULL, 0, why, sizeof why); /* a bare name */
            smc_index_files_free(files, n);
        }
        break;
    }
    case 2:
        smc_marker_eval(text, &env, "cuda", why, sizeof why);
        break;
    case 3: { /* "SPECIFIERS\nVERSION" */
        char *nl = strchr(text, '\n');
        if (nl) {
            *nl = '\0';
            smc_pep440_match(text, nl + 1);
            smc_pep440_cmp(text, nl + 1);
        }
        break;
    }
    default: {
        smc_wheel_name w;
        smc_wheel_name_parse(text, &w);
        smc_wheel_rank(&env, text);
    }
    }
    free(text);
    return 0;
}
