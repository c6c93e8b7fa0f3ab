#!/bin/sh
# The library as others get it: installs the build into a fresh prefix, checks what is there
# (libsmcheck.so with its SONAME and only smcheck_* exported, <smcheck.h> alone, smcheck.pc, the
# man page), builds tests/api/example.c with `pkg-config --cflags --libs smcheck` against that
# prefix only, and compares what it says with the command's JSON report on the same inputs.
# Usage: installed.sh BUILD_DIR SOURCE_DIR SMCHECK [COMPILER_ID]. Prints "N passed, M failed".
set -u
build=$1 src=$2 smcheck=$3 compiler=${4:-GNU}
. "$(dirname "$0")/lib.sh"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix/usr" >"$prefix/install.log" 2>&1 ||
    { cat "$prefix/install.log"; echo "0 passed, 1 failed"; exit 1; }
lib=$(ls -d "$prefix"/usr/lib*/ | head -1)
lib=${lib%/}
check_quiet "libsmcheck.so.0 installed, its SONAME libsmcheck.so.0" \
    sh -c "readelf -d '$lib/libsmcheck.so.0' | grep -q 'SONAME.*\[libsmcheck.so.0\]'"
check_quiet "only the API is exported (smcheck_*)" \
    sh -c "nm -D --defined-only '$lib/libsmcheck.so' | awk '{print \$3}' | grep -qv '^smcheck_' && exit 1 || exit 0"
check_quiet "the API exports smcheck_check" \
    sh -c "nm -D --defined-only '$lib/libsmcheck.so' | grep -q ' smcheck_check$'"
check_quiet "one header installed, <smcheck.h>, the model stays private" \
    sh -c "[ \"\$(cd '$prefix/usr/include' && find . -type f)\" = ./smcheck.h ]"
check_quiet "the man page smcheck.1 installed" test -s "$prefix/usr/share/man/man1/smcheck.1"
export PKG_CONFIG_PATH="$lib/pkgconfig"
check_quiet "pkg-config knows smcheck at the project's version" \
    sh -c "[ \"\$(pkg-config --modversion smcheck)\" = \"\$('$smcheck' --version | awk '{print \$2}')\" ]"
# shellcheck disable=SC2046 # pkg-config's flags are words
if cc -std=c11 -Wall -Wextra -Werror -o "$prefix/example" "$src/tests/api/example.c" \
    $(pkg-config --cflags --libs smcheck) -Wl,-rpath,"$lib" 2>"$prefix/cc.log"; then
    echo "ok     tests/api/example.c builds with pkg-config smcheck alone"
    passed=$((passed + 1))
else
    cat "$prefix/cc.log"
    echo "FAILED tests/api/example.c builds with pkg-config smcheck alone"
    echo "$passed passed, $((failed + 1)) failed"
    exit 1
fi
check_quiet "the example runs against the installed library" \
    sh -c "ldd '$prefix/example' | grep -q '$lib/libsmcheck.so.0'"

export SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1
inputs="$src/fixtures/nvcc $src/fixtures/gen/cuda128.so $src/fixtures/gen/ptx_sm90a.so"
# shellcheck disable=SC2086 # inputs is a list of paths
"$prefix/example" h100,sm_120,7.0 12.4 $inputs >"$prefix/api.txt"
api_rc=$?
# shellcheck disable=SC2086
"$smcheck" --gpu h100,sm_120,7.0 --driver 12.4 --format json $inputs 2>/dev/null >"$prefix/cli.json"
cli_rc=$?
python3 - "$prefix/cli.json" >"$prefix/cli.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cc = [t["compute_capability"].replace(".", "") for t in d["targets"]]
for inp in d["inputs"]:
    for lib in inp["libraries"]:
        for v in lib.get("verdicts", []):
            print(f"{lib['path']}\tsm_{cc[v['target']]}\t{v['status']}\t{v['cause']}")
PY
sort -o "$prefix/cli.txt" "$prefix/cli.txt"
check_quiet "the API gives the command's verdicts, library by library" \
    sh -c "grep -v '^error' '$prefix/api.txt' | sort | diff - '$prefix/cli.txt' && [ -s '$prefix/cli.txt' ]"
check_quiet "the API's exit gate matches the command's (1: none)" test "$api_rc" -eq 1 -a "$cli_rc" -eq 1
"$prefix/example" h100 "" "$src/fixtures/gen/bad_truncated.so" "$prefix/missing" >"$prefix/bad.txt"
bad_rc=$?
check_quiet "unreadable inputs are in the report, not an error of the call" \
    sh -c "[ $bad_rc -eq 2 ] && grep -q 'bad_truncated.so' '$prefix/bad.txt' && grep -q 'missing' '$prefix/bad.txt'"
"$prefix/example" no-such-gpu "" "$src/fixtures/nvcc" 2>"$prefix/arg.txt"
arg_rc=$?
check_quiet "an unknown GPU is SMCHECK_E_ARG with a message naming it" \
    sh -c "[ $arg_rc -eq 64 ] && grep -q 'no-such-gpu' '$prefix/arg.txt'"
# valgrind 3.19 (Debian 12) cannot read clang 14's DWARF 5 debug information and gives up.
if ! command -v valgrind >/dev/null; then
    echo "skip   valgrind: not installed"
elif [ "$compiler" != GNU ]; then
    echo "skip   valgrind: the library was built by $compiler, whose debug information it may not read"
else
    # Exit 99 is valgrind's (an error or a leak); the example's own is 2: an input was unreadable.
    # shellcheck disable=SC2086
    valgrind -q --leak-check=full --errors-for-leak-kinds=all --error-exitcode=99 \
        "$prefix/example" h100,sm_120,7.0 12.4 $inputs "$src/fixtures/gen/bad_truncated.so" \
        "$prefix/missing" >/dev/null 2>"$prefix/valgrind.log"
    vg_rc=$?
    check_quiet "valgrind: no error and no leak through the API (exit $vg_rc)" [ "$vg_rc" -eq 2 ]
fi
finish
