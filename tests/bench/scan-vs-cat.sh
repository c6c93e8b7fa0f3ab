#!/usr/bin/env bash
# scan-vs-cat.sh [SMCHECK] [DIR]
# Compares `SMCHECK scan --format json FILES` with `cat FILES >/dev/null` on
# the same regular files (the shared libraries (*.so*) directly in DIR,
# symlinks excluded), page cache warm, best of 3 runs each. The floor is cat:
# reading every byte once. Prints both times, the bytes, GB/s and the ratio.
# Defaults: SMCHECK=build/smcheck, DIR=/usr/local/cuda/lib64.
set -euo pipefail

smcheck=${1:-build/smcheck}
dir=${2:-/usr/local/cuda/lib64}
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

if [ ! -x "$smcheck" ]; then
    echo "scan-vs-cat: $smcheck: not an executable (build it first, or pass its path)" >&2
    exit 2
fi
if [ ! -d "$dir" ]; then
    echo "scan-vs-cat: $dir: not a directory" >&2
    exit 2
fi

library_files "$dir"
if [ "${#files[@]}" -eq 0 ]; then
    echo "scan-vs-cat: no *.so* files in $dir" >&2
    exit 2
fi
bytes=$(du -b --apparent-size -c -- "${files[@]}" | tail -n 1 | cut -f 1)

run_cat() { cat -- "${files[@]}" >/dev/null; }
run_smcheck() {
    local rc=0
    "$smcheck" scan --format json "${files[@]}" >/dev/null 2>"$errlog" || rc=$?
    # 0 = fine, 1 = a gate failed (not for scan, but harmless); 2+ = a real problem
    if [ "$rc" -ge 2 ]; then
        echo "scan-vs-cat: $smcheck exited with status $rc:" >&2
        head -n 20 "$errlog" >&2
        exit "$rc"
    fi
}
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT

# Warm the page cache: read every file once.
cat -- "${files[@]}" >/dev/null

read -r t_cat _ < <(best_of run_cat)
read -r t_scan _ < <(best_of run_smcheck)

python3 - "$t_cat" "$t_scan" "$bytes" "${#files[@]}" "$(machine)" "$smcheck" "$dir" "$runs" <<'PY'
import sys
t_cat, t_scan, nbytes = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
nfiles, mach, smcheck, d, runs = sys.argv[4:9]
gbs = lambda t: nbytes / t / 1e9 if t > 0 else float("inf")
print("machine: %s" % mach)
print("input:   %s files in %s, %d bytes (%.2f GB), page cache warm, best of %s" % (nfiles, d, nbytes, nbytes / 1e9, runs))
print("cat:     %8.3f s  %7.2f GB/s" % (t_cat, gbs(t_cat)))
print("smcheck: %8.3f s  %7.2f GB/s  (%s scan --format json)" % (t_scan, gbs(t_scan), smcheck))
print("ratio smcheck/cat: %.2f" % (t_scan / t_cat if t_cat > 0 else float("inf")))
PY
