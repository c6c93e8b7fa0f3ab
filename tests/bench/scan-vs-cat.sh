#!/usr/bin/env bash
# scan-vs-cat.sh [SMCHECK] [DIR]
# Compares `SMCHECK scan --format json FILES` (at the default -j, and at -j1)
# with `cat FILES >/dev/null` on the same regular files (the shared and static
# libraries (*.so*, *.a) directly in DIR, symlinks excluded), page cache warm,
# best of 3 runs each. The floor is cat: reading every byte once. Prints the
# times, GB/s, the ratios to cat, CPU and system time and page faults (see
# common.sh), and issue 28's bound (0.33x cat) and goal (0.25x).
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

library_files "$dir" archives
if [ "${#files[@]}" -eq 0 ]; then
    echo "scan-vs-cat: no *.so* or *.a files in $dir" >&2
    exit 2
fi
bytes=$(du -b --apparent-size -c -- "${files[@]}" | tail -n 1 | cut -f 1)

# Warm the page cache: read every file once.
cat -- "${files[@]}" >/dev/null

t_cat=$(best_of cat -- "${files[@]}")
t_scan=$(best_of "$smcheck" scan --format json "${files[@]}")
t_scan1=$(best_of "$smcheck" scan --format json -j1 "${files[@]}")

# shellcheck disable=SC2086 # each t_ is five words, split on purpose
python3 - "$(machine)" "$smcheck" "$dir" "$runs" "${#files[@]}" "$bytes" $t_cat $t_scan $t_scan1 <<'PY'
import sys
mach, smcheck, d, runs, nfiles, nbytes = sys.argv[1:7]
nbytes = int(nbytes)
rows = [sys.argv[7 + 5 * k: 12 + 5 * k] for k in range(3)]
wall = [float(r[0]) for r in rows]
gbs = lambda t: nbytes / t / 1e9 if t > 0 else float("inf")
print("machine: %s" % mach)
print("input:   %s files (*.so*, *.a) in %s, %d bytes (%.2f GB), page cache warm, best of %s" %
      (nfiles, d, nbytes, nbytes / 1e9, runs))
print("%-34s %8s %9s %6s %8s %8s %10s %6s" %
      ("", "wall", "GB/s", "ratio", "CPU", "system", "minor flt", "major"))
names = ["cat", "smcheck scan --format json", "smcheck scan --format json -j1"]
for name, (w, cpu, sys_, mi, ma) in zip(names, rows):
    w = float(w)
    print("%-34s %6.3f s %9.2f %6.2f %6.3f s %6.3f s %10s %6s" %
          (name, w, gbs(w), w / wall[0] if wall[0] > 0 else float("inf"), float(cpu),
           float(sys_), mi, ma))
r = wall[1] / wall[0] if wall[0] > 0 else float("inf")
print("ratio smcheck/cat: %.2f (issue 28: at most 0.33: %s; the goal beyond it 0.25: %s)" %
      (r, "met" if r <= 0.33 else "NOT met", "met" if r <= 0.25 else "not met"))
PY
