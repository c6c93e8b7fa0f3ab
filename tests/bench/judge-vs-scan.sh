#!/usr/bin/env bash
# judge-vs-scan.sh [SMCHECK] [DIR]
# What judging costs beyond listing: in one run, page cache warm, best of 3 each, on the same
# regular files (the shared libraries (*.so*) directly in DIR, symlinks excluded):
#   scan      SMCHECK scan --format json FILES                    (the floor: listing)
#   1 target  SMCHECK --gpu 9.0 --format json FILES
#   1 target, a driver   the same with --driver 12.8 (CUDA 12.8+ cubins then decide by their release)
#   matrix    SMCHECK --format json FILES, no GPU: the representative matrix (15 targets)
# The local driver is hidden (SMCHECK_LIBCUDA), so the matrix is what runs on any machine.
# Prints wall and CPU times, their ratios to scan, system time and minor page faults (common.sh),
# and the goals on the wall time (issue 11: one target within 1.1x of scan; issue 28: the matrix
# within 1.1x). Defaults: SMCHECK=build/smcheck, DIR=/usr/local/cuda/lib64.
set -euo pipefail

smcheck=${1:-build/smcheck}
dir=${2:-/usr/local/cuda/lib64}
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

die() { echo "judge-vs-scan: $*" >&2; exit 2; }
[ -x "$smcheck" ] || die "$smcheck: not an executable (build it first, or pass its path)"
[ -d "$dir" ] || die "$dir: not a directory"

library_files "$dir"
[ "${#files[@]}" -gt 0 ] || die "no *.so* files in $dir"
bytes=$(du -b --apparent-size -c -- "${files[@]}" | tail -n 1 | cut -f 1)

# run ARGS...: SMCHECK ARGS FILES, the local driver hidden; exit status 0 or 1 (a gate) is fine.
run() { best_of env SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1 "$smcheck" "$@" --format json -q "${files[@]}"; }

cat -- "${files[@]}" >/dev/null # warm the page cache
t_scan=$(run scan)
t_one=$(run --gpu 9.0)
t_drv=$(run --gpu 9.0 --driver 12.8)
t_mat=$(run)

# shellcheck disable=SC2086 # each t_ is five words, split on purpose
python3 - "$(machine)" "${#files[@]}" "$dir" "$bytes" "$runs" "$smcheck" \
    $t_scan $t_one $t_drv $t_mat <<'PY'
import sys
mach, nfiles, d, nbytes, runs, smcheck = sys.argv[1:7]
t = [sys.argv[7 + 5 * k: 12 + 5 * k] for k in range(4)]
print("machine: %s" % mach)
print("input:   %s files in %s, %d bytes (%.2f GB), page cache warm, best of %s" %
      (nfiles, d, int(nbytes), int(nbytes) / 1e9, runs))
print("smcheck: %s" % smcheck)
print("%-30s %9s %6s %9s %6s %9s %10s" % ("", "wall", "ratio", "CPU", "ratio", "system", "minor flt"))
rows = [("scan (the floor)", None), ("--gpu 9.0", 1.1), ("--gpu 9.0 --driver 12.8", None),
        ("no GPU: the 15-target matrix", 1.1)]
ratio = lambda a, b: a / b if b > 0 else float("inf")
w0, c0 = float(t[0][0]), float(t[0][1])
for (name, goal), (wall, cpu, sys_, minor, _) in zip(rows, t):
    wall, cpu = float(wall), float(cpu)
    rw, rc = ratio(wall, w0), ratio(cpu, c0)
    verdict = "" if goal is None else "  goal <= %.2f: %s" % (goal, "met" if rw <= goal else "NOT met")
    print("%-30s %7.3f s %6.2f %7.3f s %6.2f %7.3f s %10s%s" %
          (name, wall, rw, cpu, rc, float(sys_), minor, verdict))
PY
