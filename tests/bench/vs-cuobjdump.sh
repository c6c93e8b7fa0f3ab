#!/usr/bin/env bash
# vs-cuobjdump.sh [SMCHECK] [DIR] [CUOBJDUMP]
# smcheck against NVIDIA's cuobjdump, the closed tool people use to list device code today, on the
# same files: the shared libraries (*.so*) directly in DIR, symlinks excluded; page cache warm,
# best of 3 each, in one run:
#   cuobjdump   CUOBJDUMP --list-elf --list-ptx FILE, for each file in turn (it takes one file
#               at a time)
#   smcheck     SMCHECK scan --format json -j1 FILES, and with its default -j
# Prints the times and ratios, then per file the cubins and PTX images each one lists, and where
# they differ. CUOBJDUMP: cuobjdump on PATH, else the one in PyPI's nvidia-cuda-cuobjdump wheel
# (pip download --no-deps nvidia-cuda-cuobjdump; unzip; nvidia/cu13/bin/cuobjdump).
# Defaults: SMCHECK=build/smcheck, DIR=/usr/local/cuda/lib64.
set -euo pipefail

smcheck=${1:-build/smcheck}
dir=${2:-/usr/local/cuda/lib64}
cuobjdump=${3:-$(command -v cuobjdump || true)}
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

die() { echo "vs-cuobjdump: $*" >&2; exit 2; }
[ -x "$smcheck" ] || die "$smcheck: not an executable (build it first, or pass its path)"
if [ -z "$cuobjdump" ] || [ ! -x "$cuobjdump" ]; then
    die "no cuobjdump (pass its path; PyPI: pip download --no-deps nvidia-cuda-cuobjdump)"
fi
[ -d "$dir" ] || die "$dir: not a directory"

library_files "$dir"
[ "${#files[@]}" -gt 0 ] || die "no *.so* files in $dir"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_cuobjdump() {
    local i=0
    for f in "${files[@]}"; do
        # exit status 255: "does not contain device code"; the listing is what counts
        "$cuobjdump" --list-elf --list-ptx "$f" >"$tmp/cuobjdump.$i" 2>/dev/null || true
        i=$((i + 1))
    done
}
run_smcheck() { "$smcheck" scan --format json -q "$@" "${files[@]}" >"$tmp/smcheck.json" || true; }

cat -- "${files[@]}" >/dev/null
read -r t_cu _ < <(best_of run_cuobjdump)
read -r t_j1 _ < <(best_of run_smcheck -j1)
read -r t_jn _ < <(best_of run_smcheck)

python3 - "$(machine)" "$dir" "$runs" "$smcheck" "$("$cuobjdump" --version | tail -n 2 | head -n 1)" \
    "$t_cu" "$t_j1" "$t_jn" "$tmp" "${files[@]}" <<'PY'
import json, os, sys
mach, d, runs, smcheck, cuver = sys.argv[1:6]
t_cu, t_j1, t_jn = map(float, sys.argv[6:9])
tmp, files = sys.argv[9], sys.argv[10:]
print("machine:   %s" % mach)
print("input:     %d files in %s, page cache warm, best of %s" % (len(files), d, runs))
print("cuobjdump: %s" % cuver)
print("%-38s %8.3f s" % ("cuobjdump --list-elf --list-ptx", t_cu))
for name, t in (("smcheck scan -j1", t_j1), ("smcheck scan (default -j)", t_jn)):
    print("%-38s %8.3f s  %5.1fx faster" % (name, t, t_cu / t if t > 0 else float("inf")))
ours = {}
for inp in json.load(open(os.path.join(tmp, "smcheck.json")))["inputs"]:
    for lib in inp["libraries"]:
        counts = {t["token"]: t["count"] for t in lib["token_counts"]}
        ours[lib["path"]] = (sum(n for k, n in counts.items() if k.startswith("sm_")),
                             sum(n for k, n in counts.items() if k.startswith("compute_")))
print("\nimages per file (cubins / PTX): cuobjdump, smcheck")
same = 0
for i, f in enumerate(files):
    lines = open(os.path.join(tmp, "cuobjdump.%d" % i)).read().splitlines()
    theirs = (sum(l.startswith("ELF file") for l in lines), sum(l.startswith("PTX file") for l in lines))
    mine = ours.get(f, (0, 0))
    if theirs == mine:
        same += 1
        continue
    print("  %-40s %6d / %-6d %6d / %-6d" % (os.path.basename(f), *theirs, *mine))
print("  %d of %d files list the same counts" % (same, len(files)))
PY
