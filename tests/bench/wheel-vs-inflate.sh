#!/usr/bin/env bash
# wheel-vs-inflate.sh [SMCHECK] [OUTDIR]
# Measures `SMCHECK scan` of a wheel against the floor: inflating every member of the same wheel
# and discarding the bytes. The wheel is built once from large real libraries of the CUDA toolkit
# (libcublasLt, libcufft, libcusparse, libcublas: about 1 GB, 300 MB deflated at level 6) and kept
# in OUTDIR; it is rebuilt when the libraries change. In one run, page cache warm, best of 3 each:
#   floor          a C program (compiled here) that reads every member with libzip's
#                  zip_fopen_index/zip_fread into a 1 MiB buffer: zlib inflate plus libzip's CRC
#                  check, which is what smcheck's libzip path costs at least;
#   raw inflate    for information: zlib inflate of each member's raw deflate stream
#                  (ZIP_FL_COMPRESSED), no CRC;
#   ISA-L floor    each member's raw deflate stream through ISA-L's isal_inflate with its CRC-32
#                  (what smcheck's ISA-L path costs at least; when libisal-dev is installed);
#   smcheck -jN    SMCHECK scan --format json -jN WHEEL for each N of BENCH_JOBS, with peak RSS,
#                  system time and minor page faults (/usr/bin/time -f '%M %S %R'), and -j1 again with SMCHECK_INFLATE=zlib (the zlib
#                  fallback of the same build). A member of 4 MiB deflated or more is inflated
#                  by more than one thread when -j allows (pinflate.c): one-member.sh measures that.
# Prints the times, MiB/s of inflated output, ratios to the zlib floor, peak RSS, the machine, and
# the goals of issues 4 and 11 (-j1 within 1.10x the zlib floor, -j2 below it, -j1 at most 0.8x
# the zlib floor with ISA-L, peak RSS at most 64 MiB).
# Defaults: SMCHECK=build/smcheck, OUTDIR=/tmp/smcheck-bench. Environment: RUNS (3),
# BENCH_LIBDIR (/usr/local/cuda/lib64), BENCH_LIBS (space-separated names in BENCH_LIBDIR, or
# "all": every *.so* and *.a file in it, 34 libraries and 2.57 GB in CUDA 13.0),
# BENCH_JOBS (the -j values, "1 2").
# Needs python3, cc, libzip and zlib headers (libzip-dev, zlib1g-dev).
set -euo pipefail

smcheck=${1:-build/smcheck}
out=${2:-/tmp/smcheck-bench}
runs=${RUNS:-3}
libdir=${BENCH_LIBDIR:-/usr/local/cuda/lib64}
read -r -a names <<<"${BENCH_LIBS:-libcublasLt.so.13 libcufft.so.12 libcusparse.so.12 libcublas.so.13}"
if [ "${names[*]}" = all ]; then # every library in the directory (issue 28: many members, some small)
    # shellcheck source=common.sh
    . "$(dirname "$0")/common.sh"
    library_files "$libdir" archives
    names=()
    for f in "${files[@]}"; do names+=("$(basename "$f")"); done
fi
read -r -a jobs <<<"${BENCH_JOBS:-1 2}"
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "wheel-vs-inflate: $*" >&2; exit 2; }

[ -x "$smcheck" ] || die "$smcheck: not an executable (build it first, or pass its path)"
smcheck=$(cd "$(dirname "$smcheck")" && pwd)/$(basename "$smcheck")
libs=()
for n in "${names[@]}"; do
    f=$libdir/$n
    [ -f "$f" ] || die "$f: not found (BENCH_LIBDIR and BENCH_LIBS choose the libraries)"
    libs+=("$(readlink -f "$f")")
done
mkdir -p "$out"

# The wheel (one per list of libraries), rebuilt only when the libraries' sizes or times change.
key=$(printf '%s\n' "${names[@]}" | md5sum | cut -c 1-8)
wheel=$out/bench_cuda_$key-13.0-py3-none-manylinux_2_28_x86_64.whl
stamp=$out/bench-wheel-$key.stamp
want=$(printf 'v1\n'; stat -c '%n %s %Y' "${libs[@]}")
if [ ! -f "$wheel" ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "building $wheel from ${#libs[@]} libraries (once; deflate level 6, $(nproc) processes) ..." >&2
    rm -f "$stamp"
    t0=$(date +%s.%N)
    python3 "$here/wheel-vs-inflate.py" build "$wheel" "${libs[@]}"
    echo "built in $(python3 -c "print('%.1f' % ($(date +%s.%N) - $t0))") s" >&2
    printf '%s\n' "$want" >"$stamp"
fi

# The floor program, compiled once per OUTDIR (rebuilt when this script is newer).
floor=$out/inflate-floor
if [ ! -x "$floor" ] || [ "$0" -nt "$floor" ]; then
    cat >"$out/inflate-floor.c" <<'EOF'
/* inflate-floor WHEEL [raw|isal]: inflates every member of WHEEL and discards the bytes. Default:
 * libzip's zip_fread (zlib inflate and the CRC check) into a 1 MiB buffer. "raw": the member's
 * raw deflate stream (ZIP_FL_COMPRESSED) through zlib's inflate, no CRC. "isal": the raw stream
 * through ISA-L's isal_inflate, its CRC-32 computed and checked. Prints the members and the bytes
 * inflated. */
#include <inttypes.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <zlib.h>

#define BUF (1u << 20)

static unsigned char in[BUF], outb[BUF];

int main(int argc, char **argv)
{
    int err = 0, raw = argc > 2 && strcmp(argv[2], "raw") == 0;
    int isal = argc > 2 && strcmp(argv[2], "isal") == 0;
#ifndef HAVE_ISAL
    if (isal) {
        fprintf(stderr, "inflate-floor: built without ISA-L\n");
        return 2;
    }
#endif
    zip_t *z = argc > 1 ? zip_open(argv[1], ZIP_RDONLY, &err) : NULL;
    if (!z) {
        fprintf(stderr, "inflate-floor: cannot open %s (libzip error %d)\n", argc > 1 ? argv[1] : "", err);
        return 2;
    }
    zip_int64_t n = zip_get_num_entries(z, 0);
    uint64_t total = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t st;
        if (zip_stat_index(z, (zip_uint64_t)i, 0, &st) != 0) goto fail;
        int deflated = st.comp_method == ZIP_CM_DEFLATE;
        zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)i, (raw || isal) && deflated ? ZIP_FL_COMPRESSED : 0);
        if (!f) goto fail;
        zip_int64_t r;
#ifdef HAVE_ISAL
        if (isal && deflated) {
            static struct inflate_state s;
            isal_inflate_init(&s);
            s.crc_flag = ISAL_GZIP_NO_HDR;
            while (s.block_state != ISAL_BLOCK_FINISH) {
                if (s.avail_in == 0) {
                    if ((r = zip_fread(f, in, BUF)) <= 0) break;
                    s.next_in = in;
                    s.avail_in = (uint32_t)r;
                }
                s.next_out = outb;
                s.avail_out = BUF;
                if (isal_inflate(&s) < 0) {
                    fprintf(stderr, "inflate-floor: %s: isal_inflate error\n", st.name);
                    return 2;
                }
                total += BUF - s.avail_out;
            }
            if (s.block_state != ISAL_BLOCK_FINISH || s.crc != st.crc) {
                fprintf(stderr, "inflate-floor: %s: stream ends early or CRC error\n", st.name);
                return 2;
            }
            zip_fclose(f);
            continue;
        }
#endif
        if (raw && deflated) {
            z_stream s;
            memset(&s, 0, sizeof s);
            if (inflateInit2(&s, -15) != Z_OK) return 2;
            int zr = Z_OK;
            while (zr != Z_STREAM_END && (r = zip_fread(f, in, BUF)) > 0) {
                s.next_in = in;
                s.avail_in = (uInt)r;
                do {
                    s.next_out = outb;
                    s.avail_out = BUF;
                    zr = inflate(&s, Z_NO_FLUSH);
                    if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
                        fprintf(stderr, "inflate-floor: %s: inflate error %d\n", st.name, zr);
                        return 2;
                    }
                    total += BUF - s.avail_out;
                } while (s.avail_out == 0 && zr != Z_STREAM_END);
            }
            inflateEnd(&s);
            if (zr != Z_STREAM_END) {
                fprintf(stderr, "inflate-floor: %s: deflate stream ends early\n", st.name);
                return 2;
            }
        } else {
            while ((r = zip_fread(f, outb, BUF)) > 0)
                total += (uint64_t)r;
            if (r < 0) {
                fprintf(stderr, "inflate-floor: %s: %s\n", st.name, zip_file_strerror(f));
                return 2;
            }
        }
        zip_fclose(f);
    }
    zip_discard(z);
    printf("%" PRId64 " %" PRIu64 "\n", n, total);
    return 0;
fail:
    fprintf(stderr, "inflate-floor: %s\n", zip_strerror(z));
    return 2;
}
EOF
    isal=()
    if pkg-config --exists libisal 2>/dev/null; then isal=(-DHAVE_ISAL -lisal); fi
    # shellcheck disable=SC2046
    cc -O2 -o "$floor" "$out/inflate-floor.c" \
        $(pkg-config --cflags --libs libzip zlib 2>/dev/null || echo -lzip -lz) "${isal[@]}" ||
        die "cannot compile the floor program (needs libzip-dev and zlib1g-dev)"
fi

have_time=0
[ -x /usr/bin/time ] && have_time=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure LABEL CMD...: runs CMD $runs times (stdout to /dev/null), keeps the shortest wall time,
# the largest peak RSS (KiB), the least system time and the fewest minor page faults (GNU time's
# %M %S %R, what `time -v` calls them). Exit status 2 or more from CMD stops the benchmark.
measure() {
    local label=$1 best="" rss="" sys="" flt="" t0 t1 t r s f i rc
    shift
    for ((i = 0; i < runs; i++)); do
        rc=0
        t0=$(date +%s%N)
        if [ "$have_time" = 1 ]; then
            /usr/bin/time -f '%M %S %R' -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err" || rc=$?
        else
            "$@" >/dev/null 2>"$tmp/err" || rc=$?
        fi
        t1=$(date +%s%N)
        if [ "$rc" -ge 2 ]; then
            echo "wheel-vs-inflate: $label: exit status $rc:" >&2
            head -n 20 "$tmp/err" >&2
            exit "$rc"
        fi
        t=$((t1 - t0))
        if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
        if [ "$have_time" = 1 ]; then
            read -r r s f < <(tail -n 1 "$tmp/rss")
            if [ -z "$rss" ] || [ "$r" -gt "$rss" ]; then rss=$r; fi
            if [ -z "$flt" ] || [ "$f" -lt "$flt" ]; then flt=$f; fi
            if [ -z "$sys" ] || python3 -c "import sys; sys.exit(not $s < $sys)"; then sys=$s; fi
        fi
    done
    results+=("$label=$(python3 -c "print('%.6f' % ($best / 1e9))"):${rss:-n/a}:${sys:-n/a}:${flt:-n/a}")
}

# Warm the page cache, and count what the floor inflates.
cat "$wheel" >/dev/null
read -r members obytes < <("$floor" "$wheel") || die "the floor program failed on $wheel"

results=()
measure "floor (libzip zip_fread, 1 MiB)" "$floor" "$wheel"
measure "raw inflate (zlib, no CRC; info)" "$floor" "$wheel" raw
if "$floor" "$wheel" isal >/dev/null 2>&1; then
    measure "ISA-L floor (raw, CRC)" "$floor" "$wheel" isal
fi
for j in "${jobs[@]}"; do
    measure "smcheck scan -j$j" "$smcheck" scan --format json "-j$j" "$wheel"
done
measure "smcheck scan -j1, SMCHECK_INFLATE=zlib" env SMCHECK_INFLATE=zlib "$smcheck" scan --format json -j1 "$wheel"

cpu=$(grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f 2- | sed 's/^ *//' || true)
echo "smcheck: $smcheck"
python3 "$here/wheel-vs-inflate.py" report "$(nproc)" "${cpu:-unknown}" "$wheel" \
    "$(stat -c %s "$wheel")" "$members" "$obytes" "$runs" "${results[@]}"
