# shellcheck shell=bash
# common.sh: what the benchmark scripts share (sourced, not run).
# runs: RUNS from the environment (3). best_of CMD...: runs CMD (its output discarded; exit
# status 2 or more stops the benchmark with the first lines of its stderr) $runs times and prints
# "WALL CPU SYS MINFLT MAJFLT": the shortest wall time, the least CPU time (user + system), the
# least system time, in seconds, and the fewest minor and major page faults, each over the runs
# (CPU time is the steadier of the times on a shared machine; faults barely vary). The times are
# bash's `time` (to the millisecond), the faults GNU time's (/usr/bin/time -f '%R %F': what
# `time -v` calls minor and major page faults; "n/a" without it, or where CMD is a shell function).
# machine: prints "N CPUs, model". library_files DIR [archives]: sets files to the shared
# libraries (*.so*) directly in DIR, and with "archives" the static ones (*.a) too, sorted;
# regular files only, so that a link such as libcublas.so -> libcublas.so.13 is not read twice
# (DIR itself may be a link: the trailing / follows it).

runs=${RUNS:-3}

best_of() {
    local best="" out i rc tf ef wf TIMEFORMAT='%R %U %S'
    tf=$(mktemp)
    ef=$(mktemp)
    wf=$(mktemp)
    for ((i = 0; i < runs; i++)); do
        rc=0
        if [ -x /usr/bin/time ] && ! declare -F "$1" >/dev/null; then
            { time /usr/bin/time -o "$tf" -f '%R %F' "$@" >/dev/null 2>"$ef"; } 2>"$wf" || rc=$?
            out="$(tail -n 1 "$wf") $(tail -n 1 "$tf")"
        else
            { time "$@" >/dev/null 2>"$ef"; } 2>"$wf" || rc=$?
            out="$(tail -n 1 "$wf") n/a n/a"
        fi
        if [ "$rc" -ge 2 ]; then # 0 = fine, 1 = a gate failed (harmless here)
            echo "$(basename "$0"): $*: exit status $rc:" >&2
            head -n 20 "$ef" >&2
            rm -f "$tf" "$ef" "$wf"
            exit "$rc"
        fi
        best=$(python3 -c "
w, u, s, mi, ma = '$out'.split()
row = [float(w), float(u) + float(s), float(s), mi, ma]
old = '$best'.split()
if old:
    row = [min(a, float(b)) for a, b in zip(row[:3], old[:3])] + [
        x if x == 'n/a' else str(min(int(x), int(y))) for x, y in zip(row[3:], old[3:])]
print('%.3f %.3f %.3f %s %s' % tuple(row))")
    done
    rm -f "$tf" "$ef" "$wf"
    echo "$best"
}

machine() {
    local cpu
    cpu=$(grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f 2- | sed 's/^ *//' || true)
    echo "$(nproc) CPUs, ${cpu:-unknown}"
}

library_files() {
    local also=()
    [ "${2:-}" = archives ] && also=(-o -name '*.a')
    files=()
    while IFS= read -r -d '' f; do
        files+=("$f")
    done < <(find "$1/" -maxdepth 1 -type f \( -name '*.so*' "${also[@]}" \) -print0 | LC_ALL=C sort -z)
}
