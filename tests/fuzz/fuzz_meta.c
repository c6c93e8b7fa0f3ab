/* fuzz_meta.c: the packaging metadata parsers (METADATA, WHEEL tags, RECORD, installed-files.txt,
 * version.py, conda-meta JSON through the splitter of JSON members), the first byte choosing
 * which. */
#include "../../src/lib/read/read.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    switch (data[0] % 6) {
    case 0: {
        smc_metadata md;
        if (smc_metadata_parse(text, len, &md) == SMC_OK) {
            const char *which;
            free(smc_requires_cuda(md.requires, md.requires_count, "linux-aarch64", &which));
            smc_metadata_free(&md);
        }
        break;
    }
    case 1: {
        char *tags, *platform;
        if (smc_wheel_tags(text, len, &tags, &platform) == SMC_OK) {
            free(tags);
            free(platform);
        }
        break;
    }
    case 2:
    case 3: {
        smc_record_row *rows;
        size_t n;
        smc_status st = data[0] % 6 == 2 ? smc_record_parse(text, len, &rows, &n)
                                         : smc_installed_files_parse(text, len, &rows, &n);
        if (st == SMC_OK || st == SMC_ERR_LIMIT) { /* at the limit, the rows so far */
            for (size_t i = 0; i < n; i++)
                free(smc_path_normalize("base/dir", rows[i].path));
            smc_record_free(rows, n);
        }
        break;
    }
    case 4: {
        bool none;
        free(smc_version_py_cuda(text, len, &none));
        break;
    }
    default: {
        char *name, *version;
        smc_record_row *rows;
        size_t n;
        smc_status st = smc_conda_meta_parse(text, len, &name, &version, &rows, &n);
        if (st == SMC_OK || st == SMC_ERR_LIMIT) {
            free(name);
            free(version);
            smc_record_free(rows, n);
        }
    }
    }
    return 0;
}
