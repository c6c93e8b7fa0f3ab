/* entry.c: a member of a tar stream (a conda package's, an image layer's) copied out of its
 * archive and scanned as the same file on disk would be: to memory when small, else to an
 * unlinked temporary file that is then read window by window, so that memory stays bounded
 * whatever the member's size. */
#include "../find/find.h"
#include "read.h"

#include <archive.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define IN_MEMORY (16u << 20) /* a member copied out: to memory up to this, else a file */


const char *smc_archive_why(struct archive *a)
{
    const char *why = a ? archive_error_string(a) : NULL;
    if (why && *why) return why;
    int err = a ? archive_errno(a) : 0;
    return err > 0 ? strerror(err) : "unreadable (libarchive gives no reason)";
}

smc_entry_end smc_entry_scan(struct archive *a, const uint8_t *head, size_t hlen, uint64_t cap,
                             uint64_t *total, uint64_t total_cap, const smc_ticker *tk,
                             smc_input *into, const char *name, const smc_options *opt,
                             smc_status *st)
{
    *st = SMC_OK;
    uint8_t *mem = malloc(IN_MEMORY);
    if (!mem) {
        *st = SMC_ERR_NOMEM;
        return SMC_ENTRY_SCANNED;
    }
    memcpy(mem, head, hlen);
    uint64_t size = hlen;
    int fd = -1;
    smc_entry_end end = SMC_ENTRY_SCANNED;
    for (;;) {
        uint8_t block[64 << 10];
        la_ssize_t got = archive_read_data(a, block, sizeof block);
        if (got <= 0) {
            if (got < 0) end = SMC_ENTRY_UNREADABLE;
            break;
        }
        if (size + (uint64_t)got > cap || (total && *total + (uint64_t)got > total_cap)) {
            end = SMC_ENTRY_CAPPED;
            break;
        }
        if (total) *total += (uint64_t)got;
        if (tk && tk->tick) tk->tick(tk->ctx, (uint64_t)got, name);
        if (fd < 0 && size + (uint64_t)got > IN_MEMORY) { /* large: the rest goes to a file */
            fd = smc_temp_file();
            if (fd < 0 || write(fd, mem, (size_t)size) != (ssize_t)size) {
                end = SMC_ENTRY_NO_COPY;
                break;
            }
        }
        if (fd >= 0 && write(fd, block, (size_t)got) != got) {
            end = SMC_ENTRY_NO_COPY;
            break;
        }
        if (fd < 0) memcpy(mem + size, block, (size_t)got);
        size += (uint64_t)got;
    }
    int saved = errno;
    if (end == SMC_ENTRY_SCANNED && fd >= 0) {
        into->files++;
        *st = smc_scan_fd_streamed(into, name, fd, opt);
    } else if (end == SMC_ENTRY_SCANNED) {
        *st = smc_scan_memory(into, name, mem, (size_t)size, opt);
    }
    if (fd >= 0) close(fd);
    free(mem);
    errno = saved; /* for a message about the temporary file */
    return end;
}
