#!/usr/bin/env bash
# map-vs-read.sh [DIR] [OUTDIR]
# How a library's bytes are best brought in for the candidate search (issue 28: mapped and
# faulted, populated, advised, or read into a reused buffer). A small C program (compiled into
# OUTDIR) reads every regular *.so* and *.a file directly in DIR (default /usr/local/cuda/lib64)
# each way and tests every 8-aligned word for the container header's first 8 bytes, the access
# pattern of smcheck's search over a library's gaps (finder.c: search, fatbin.c: smc_fatbin_find):
#   map           mmap, plain page faults (the kernel maps the pages around a fault: fault-around)
#   populate      mmap with MAP_POPULATE (every page mapped before the search)
#   populate-read mmap, then madvise(MADV_POPULATE_READ)
#   sequential / random / willneed / hugepage   mmap, then madvise(MADV_SEQUENTIAL, ...)
#   read-1m / read-128k   pread into one reused buffer of that size
# and cat as the floor of reading every byte once. Page cache warm, best of RUNS (3) each; prints
# wall, CPU and system time, minor faults (common.sh) and the ratio to "map". Note: how the page
# cache holds the files (large folios after a fresh read, small ones after memory pressure)
# changes the faults and the system time more than any of these choices; drop the caches and
# read the files once (as root: sync; echo 3 > /proc/sys/vm/drop_caches) for comparable runs.
set -euo pipefail

dir=${1:-/usr/local/cuda/lib64}
out=${2:-/tmp/smcheck-bench}
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

die() { echo "map-vs-read: $*" >&2; exit 2; }
[ -d "$dir" ] || die "$dir: not a directory"
library_files "$dir" archives
[ "${#files[@]}" -gt 0 ] || die "no *.so* or *.a files in $dir"
mkdir -p "$out"
prog=$out/map-vs-read
if [ ! -x "$prog" ] || [ "$0" -nt "$prog" ]; then
    cat >"$out/map-vs-read.c" <<'EOF'
/* map-vs-read MODE FILE...: counts the 8-aligned words equal to a fat binary container header's
 * first 8 bytes in every FILE, reading it the way MODE says (see map-vs-read.sh). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static const uint8_t prefix[8] = {0x50, 0xED, 0x55, 0xBA, 0x01, 0x00, 0x10, 0x00};

static size_t count(const uint8_t *p, size_t n)
{
    uint64_t want, w[4];
    size_t c = 0, i = 0;
    memcpy(&want, prefix, sizeof want);
    for (; i + sizeof w <= n; i += sizeof w) {
        memcpy(w, p + i, sizeof w);
        c += (w[0] == want) + (w[1] == want) + (w[2] == want) + (w[3] == want);
    }
    for (; i + 8 <= n; i += 8)
        c += memcmp(p + i, prefix, 8) == 0;
    return c;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *m = argv[1];
    int advice = !strcmp(m, "populate-read") ? MADV_POPULATE_READ
                 : !strcmp(m, "sequential")  ? MADV_SEQUENTIAL
                 : !strcmp(m, "random")      ? MADV_RANDOM
                 : !strcmp(m, "willneed")    ? MADV_WILLNEED
                 : !strcmp(m, "hugepage")    ? MADV_HUGEPAGE
                                             : -1;
    size_t chunk = !strcmp(m, "read-1m") ? 1u << 20 : !strcmp(m, "read-128k") ? 128u << 10 : 0;
    uint8_t *buf = chunk ? malloc(chunk) : NULL;
    size_t found = 0;
    for (int i = 2; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) != 0) {
            perror(argv[i]);
            return 2;
        }
        size_t len = (size_t)sb.st_size;
        if (chunk) {
            ssize_t r;
            for (off_t at = 0; (r = pread(fd, buf, chunk, at)) > 0; at += r)
                found += count(buf, (size_t)r); /* chunks are 8-aligned in the file */
        } else if (len) {
            int flags = MAP_PRIVATE | (!strcmp(m, "populate") ? MAP_POPULATE : 0);
            uint8_t *p = mmap(NULL, len, PROT_READ, flags, fd, 0);
            if (p == MAP_FAILED) {
                perror(argv[i]);
                return 2;
            }
            if (advice >= 0 && madvise(p, len, advice) != 0) perror("madvise");
            found += count(p, len);
            munmap(p, len);
        }
        close(fd);
    }
    free(buf);
    printf("%zu\n", found);
    return 0;
}
EOF
    cc -O2 -o "$prog" "$out/map-vs-read.c" || die "cannot compile $out/map-vs-read.c"
fi

cat -- "${files[@]}" >/dev/null # warm the page cache
modes=(map populate populate-read sequential random willneed hugepage read-1m read-128k)
rows=("cat $(best_of cat -- "${files[@]}")")
for m in "${modes[@]}"; do
    rows+=("$m $(best_of "$prog" "$m" "${files[@]}")")
done
python3 - "$(machine)" "$dir" "${#files[@]}" "$runs" "${rows[@]}" <<'PY'
import sys
mach, d, nfiles, runs = sys.argv[1:5]
rows = [r.split() for r in sys.argv[5:]]
base = {r[0]: float(r[1]) for r in rows}["map"]
print("machine: %s" % mach)
print("input:   %s files (*.so*, *.a) in %s, page cache warm, best of %s" % (nfiles, d, runs))
print("%-14s %9s %9s %9s %10s %8s" % ("", "wall", "CPU", "system", "minor flt", "vs map"))
for name, wall, cpu, sys_, minor, _ in rows:
    print("%-14s %7.3f s %7.3f s %7.3f s %10s %7.2fx" %
          (name, float(wall), float(cpu), float(sys_), minor, float(wall) / base if base else 0))
PY
