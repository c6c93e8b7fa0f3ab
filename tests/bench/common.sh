# common.sh: what the benchmark scripts share (sourced, not run).
# runs: RUNS from the environment (3). best_of CMD...: runs CMD $runs times and prints the
# shortest wall time and the least CPU time (user + system, this process's children), in
# seconds: "WALL CPU". CPU time is the steadier of the two on a shared machine.
# machine: prints "N CPUs, model". library_files DIR: sets files to the shared libraries (*.so*)
# directly in DIR, sorted; regular files only, so that a link such as libcublas.so ->
# libcublas.so.13 is not read twice (DIR itself may be a link: the trailing / follows it).

runs=${RUNS:-3}

best_of() {
    local best_wall="" best_cpu="" out i TIMEFORMAT='%R %U %S'
    for ((i = 0; i < runs; i++)); do
        out=$({ time "$@" >/dev/null; } 2>&1 | tail -n 1)
        read -r best_wall best_cpu < <(python3 -c "
w, u, s = map(float, '$out'.split())
bw, bc = '$best_wall', '$best_cpu'
print('%.3f %.3f' % (min(w, float(bw)) if bw else w, min(u + s, float(bc)) if bc else u + s))")
    done
    echo "$best_wall $best_cpu"
}

machine() {
    local cpu
    cpu=$(grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f 2- | sed 's/^ *//' || true)
    echo "$(nproc) CPUs, ${cpu:-unknown}"
}

library_files() {
    files=()
    while IFS= read -r -d '' f; do
        files+=("$f")
    done < <(find "$1/" -maxdepth 1 -type f -name '*.so*' -print0 | LC_ALL=C sort -z)
}
