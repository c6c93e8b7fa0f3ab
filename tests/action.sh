#!/bin/sh
# The GitHub Action's steps (tools/github-action.sh) as a runner runs them: inputs in the
# environment, outputs in $GITHUB_OUTPUT, the job's status smcheck's. Each way of getting smcheck:
# SMCHECK_BIN; the source build (from SOURCE_DIR into a fresh cache, then the cached binary with no
# cmake at hand); with a smcheck_cuda wheel of this machine in DIST, the wheel file and PyPI's
# smcheck-cuda==VERSION (a local index: pip finds only DIST). apt-get and sudo are stand-ins that
# fail and say so: the build's packages must be here already, and the action must see that.
# Usage: action.sh SMCHECK SOURCE_DIR [DIST]. Prints "N passed, M failed".
set -u
smcheck=$1 src=$2 dist=${3:-}
case $smcheck in /*) ;; *) smcheck=$PWD/$smcheck ;; esac
src=$(cd "$src" && pwd) || exit 1
case $dist in /* | "") ;; *) dist=$PWD/$dist ;; esac
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1
# The caller's runner, if any, is not this test's.
unset RUNNER_OS RUNNER_TEMP GITHUB_OUTPUT SMCHECK_BIN SMCHECK_INSTALL SMCHECK_CACHE_DIR SMCHECK_PATHS \
    SMCHECK_GPUS SMCHECK_DRIVER SMCHECK_FAIL_ON SMCHECK_ARGS SMCHECK_SARIF_FILE SMCHECK_VERSION \
    SMCHECK_WHEEL PIP_FIND_LINKS PIP_NO_INDEX

# Stand-ins, first in PATH: apt-get and sudo (always), cmake and uname (where a check puts them).
mkdir -p "$work/bin" "$work/nocmake" "$work/shim-darwin" "$work/shim-riscv64"
# shellcheck disable=SC2016 # the stand-ins' own $1 and $*
{
    for tool in apt-get sudo; do
        printf '#!/bin/sh\necho "$0 $*" >>"%s/apt-calls"\nexit 1\n' "$work" >"$work/bin/$tool"
    done
    # cmake: new enough, by its word, but it builds nothing.
    printf '#!/bin/sh\necho "cmake $*" >>"%s/cmake-calls"\n[ "$1" = --version ] && echo "cmake version 3.30.0"\nexit 1\n' \
        "$work" >"$work/nocmake/cmake"
    printf '#!/bin/sh\ncase "$1" in -s) echo Darwin ;; -m) echo arm64 ;; *) echo Darwin ;; esac\n' \
        >"$work/shim-darwin/uname"
    printf '#!/bin/sh\ncase "$1" in -m) echo riscv64 ;; *) echo Linux ;; esac\n' >"$work/shim-riscv64/uname"
}
# A smcheck that writes down each judging run's arguments, one a line, then runs the real one.
cat >"$work/bin/smcheck-rec" <<EOF
#!/bin/sh
if [ "\$1" != --version ]; then
    echo "=== run" >>"$work/runs"
    for a in "\$@"; do printf '%s\n' "\$a" >>"$work/runs"; done
fi
exec "$smcheck" "\$@"
EOF
chmod +x "$work"/bin/* "$work"/nocmake/* "$work"/shim-darwin/* "$work"/shim-riscv64/*
rec=$work/bin/smcheck-rec
path=$work/bin:$PATH

action() { # NAME VAR=value...: the action's main step, its outputs in NAME, its log in NAME.log
    out=$work/$1
    shift
    : >"$out"
    env PATH="$path" GITHUB_OUTPUT="$out" "$@" bash "$src/tools/github-action.sh" >"$out.log" 2>&1
}
prepare() { # NAME VAR=value...: the action's first step (--prepare)
    out=$work/$1
    shift
    : >"$out"
    env PATH="$path" GITHUB_OUTPUT="$out" "$@" bash "$src/tools/github-action.sh" --prepare \
        >"$out.log" 2>&1
}
has_arg() { grep -qxF -- "$1" "$work/runs"; } # an argument, exactly, in some judging run

cd "$src" || exit 1

# --- SMCHECK_BIN: the gate, the outputs, one run for the log and the SARIF ---
action none SMCHECK_BIN="$rec" SMCHECK_GPUS=sm_61 \
    SMCHECK_PATHS="fixtures/nvcc/multi.so
fixtures/nvcc/comp_default.so" SMCHECK_SARIF_FILE="$work/none.sarif"
rc=$?
check_quiet "a GPU the code does not serve fails the job (exit 1)" [ "$rc" -eq 1 ]
check_quiet "exit-code=1 and the SARIF file in GITHUB_OUTPUT" \
    sh -c "grep -qx 'exit-code=1' '$work/none' && grep -qx 'sarif-file=$work/none.sarif' '$work/none'"
check_quiet "paths on separate lines are each checked" \
    sh -c "grep -q 'multi.so: sm_61 none' '$work/none.log' && grep -q 'comp_default.so: sm_61 none' '$work/none.log'"
check_quiet "the SARIF report is SARIF 2.1.0 with a result of level error" \
    sh -c "grep -q '\"version\":[[:space:]]*\"2.1.0\"' '$work/none.sarif' &&
        grep -q '\"level\":[[:space:]]*\"error\"' '$work/none.sarif'"
check_quiet "one smcheck run wrote both the log's report and the SARIF (--sarif FILE, no --format sarif)" \
    sh -c "[ \"\$(grep -c '^=== run\$' '$work/runs')\" -eq 1 ] && grep -qxF -- '--sarif' '$work/runs' &&
        grep -qxF -- '$work/none.sarif' '$work/runs' && ! grep -qx -- '--format' '$work/runs' &&
        grep -q '^overall: sm_61 none' '$work/none.log'"

action ok SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_86 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_FAIL_ON=none SMCHECK_SARIF_FILE=
rc=$?
check_quiet "a GPU it serves passes (exit 0), no SARIF asked, none written" \
    sh -c "[ $rc -eq 0 ] && grep -qx 'exit-code=0' '$work/ok' && grep -qx 'sarif-file=' '$work/ok' &&
        ! grep -q -- '--sarif' '$work/ok.log'"
action gate SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_90 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_FAIL_ON=partial SMCHECK_SARIF_FILE=
check_quiet "fail-on partial makes a partial library fail the job" [ $? -eq 1 ]

# --- fail-on never: verdicts never fail; an unreadable input still does ---
action never SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_61 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_FAIL_ON=never SMCHECK_SARIF_FILE="$work/never.sarif"
rc=$?
check_quiet "fail-on never: a library none on the GPU (exit 1 with none) passes, exit-code=0" \
    sh -c "[ $rc -eq 0 ] && grep -qx 'exit-code=0' '$work/never' && grep -q 'multi.so: sm_61 none' '$work/never.log'"
check_quiet "fail-on never still writes the SARIF report, its error result in it" \
    grep -q '"level":[[:space:]]*"error"' "$work/never.sarif"
action never2 SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_61 SMCHECK_FAIL_ON=never SMCHECK_SARIF_FILE= \
    SMCHECK_PATHS="fixtures/nvcc/multi.so
$work/no-such.whl"
check_quiet "fail-on never: an input that cannot be read still fails the job (exit 2)" \
    sh -c "[ $? -eq 2 ] && grep -qx 'exit-code=2' '$work/never2'"

# A URL with credentials (here to a closed port: it fails) is named without them in the log, the
# command line shown included, and in the SARIF report; smcheck gets it whole.
action secret SMCHECK_BIN="$rec" SMCHECK_GPUS=sm_80 SMCHECK_SARIF_FILE="$work/secret.sarif" \
    SMCHECK_PATHS="http://__token__:pypi-SeCrEt0@127.0.0.1:9/x-1.0-py3-none-any.whl" \
    SMCHECK_ARGS="--index-url https://user:pa%24%24-SeCrEt1@127.0.0.1:9/simple/"
check_quiet "credentials: in no line of the log or the SARIF report, shown as ***@" \
    sh -c "[ $? -eq 2 ] && ! grep -q SeCrEt '$work/secret.log' '$work/secret.sarif' && grep -q '+ smcheck.*http://\*\*\*@127.0.0.1:9/x-1.0' '$work/secret.log'"
check_quiet "credentials: smcheck got the URL whole" \
    has_arg "http://__token__:pypi-SeCrEt0@127.0.0.1:9/x-1.0-py3-none-any.whl"

# --- paths one a line (spaces kept, blanks trimmed, globs expanded when they match), args split
# as a shell would without running anything ---
mkdir -p "$work/with space" "$work/globs"
cp fixtures/nvcc/multi.so "$work/with space/a lib.so"
cp fixtures/nvcc/comp_default.so "$work/globs/x1.so"
cp fixtures/nvcc/comp_default.so "$work/globs/x2.so"
rm -f "$work/runs"
tab=$(printf '\t')
action paths SMCHECK_BIN="$rec" SMCHECK_GPUS=sm_86 SMCHECK_SARIF_FILE= SMCHECK_PATHS="
   $work/with space/a lib.so$tab

$work/globs/*.so
$work/nomatch/*.so
  "
rc=$?
check_quiet "a path with spaces is one path, its blanks trimmed" has_arg "$work/with space/a lib.so"
check_quiet "a glob that matches is expanded (both files, each one argument)" \
    sh -c "grep -qxF '$work/globs/x1.so' '$work/runs' && grep -qxF '$work/globs/x2.so' '$work/runs'"
check_quiet "a glob that matches nothing goes on as it is, and smcheck names it (exit 2)" \
    sh -c "[ $rc -eq 2 ] && grep -qxF '$work/nomatch/*.so' '$work/runs' &&
        grep -qF '$work/nomatch/*.so' '$work/paths.log'"
check_quiet "empty lines are no paths (4 after --)" \
    sh -c "[ \"\$(sed -n '/^--\$/,\$p' '$work/runs' | wc -l)\" -eq 5 ]"

rm -f "$work/runs" "$work/pwned" "$work/pwned2"
# shellcheck disable=SC2016 # literal $(...) and `...`: the action must not run them
action args SMCHECK_BIN="$rec" SMCHECK_GPUS=sm_86 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_SARIF_FILE= SMCHECK_ARGS="--detail --exclude 'a b*' --exclude \"c  d\" --exclude
fixtures/nvcc/*.a \$(touch $work/pwned) \`touch $work/pwned2\`"
check_quiet "args pass further options (--detail lists the containers)" grep -q 'container' "$work/args.log"
check_quiet "args: '...' and \"...\" keep their spaces, one argument each" \
    sh -c "grep -qxF 'a b*' '$work/runs' && grep -qxF 'c  d' '$work/runs'"
check_quiet "args: no globbing (fixtures/nvcc/*.a, which matches, stays one argument)" has_arg "fixtures/nvcc/*.a"
check_quiet "args: \$(...) and \`...\` are text, never run" \
    sh -c "[ ! -e '$work/pwned' ] && [ ! -e '$work/pwned2' ] && grep -qxF '\$(touch' '$work/runs' &&
        grep -qxF '\`touch' '$work/runs'"
rm -f "$work/runs"
action quote SMCHECK_BIN="$rec" SMCHECK_PATHS=fixtures/nvcc/multi.so SMCHECK_ARGS="--detail 'oops"
check_quiet "args with an unbalanced quote: a clear error, exit 1, smcheck not run" \
    sh -c "[ $? -eq 1 ] && grep -q '^::error::args: .*quote' '$work/quote.log' && [ ! -e '$work/runs' ]"

# --- runners it cannot serve: refused before anything is installed ---
for os in macOS Windows; do
    action "os-$os" RUNNER_OS="$os" SMCHECK_INSTALL=source SMCHECK_CACHE_DIR="$work/cache-$os" \
        SMCHECK_PATHS=fixtures/nvcc/multi.so
    rc=$?
    prepare "prep-$os" RUNNER_OS="$os" SMCHECK_WHEEL=/nonexistent.whl
    check_quiet "RUNNER_OS=$os: exit 1, '::error::' says Linux runners, nothing built or installed" \
        sh -c "[ $rc -eq 1 ] && [ $? -eq 1 ] &&
            grep -q '^::error::smcheck runs on Linux runners only, and this one is $os' '$work/os-$os.log' &&
            grep -q '^::error::smcheck runs on Linux runners' '$work/prep-$os.log' &&
            [ ! -e '$work/cache-$os' ] && [ ! -s '$work/os-$os' ] && [ ! -s '$work/prep-$os' ] &&
            [ ! -e '$work/apt-calls' ]"
done
path=$work/shim-darwin:$work/bin:$PATH
action darwin SMCHECK_BIN="$smcheck" SMCHECK_PATHS=fixtures/nvcc/multi.so
check_quiet "uname says Darwin (no RUNNER_OS): refused, exit 1" \
    sh -c "[ $? -eq 1 ] && grep -q '^::error::smcheck runs on Linux runners only, and this one is Darwin' '$work/darwin.log'"
path=$work/shim-riscv64:$work/bin:$PATH
prepare riscv-wheel SMCHECK_WHEEL=/nonexistent.whl
rc=$?
prepare riscv-pypi SMCHECK_INSTALL=pypi
check_quiet "a riscv64 machine: wheel and pypi refused (exit 1, ::error::), nothing installed" \
    sh -c "[ $rc -eq 1 ] && [ $? -eq 1 ] && grep -q '^::error::smcheck-cuda wheels are for x86_64 and aarch64.*riscv64' '$work/riscv-wheel.log' &&
        grep -q '^::error::smcheck-cuda wheels' '$work/riscv-pypi.log' && [ ! -e '$work/smcheck-venv' ]"
prepare riscv-source SMCHECK_CACHE_DIR="$work/cache"
check_quiet "a riscv64 machine: the source build goes ahead (mode=source)" \
    sh -c "[ $? -eq 0 ] && grep -qx 'mode=source' '$work/riscv-source'"
path=$work/bin:$PATH
prepare both SMCHECK_WHEEL=x.whl SMCHECK_VERSION=1.0
check_quiet "wheel and version both set: refused, exit 1" \
    sh -c "[ $? -eq 1 ] && grep -q '^::error::set wheel or version, not both' '$work/both.log'"
prepare badmode SMCHECK_INSTALL=conda
check_quiet "install: an unknown mode is refused, exit 1" \
    sh -c "[ $? -eq 1 ] && grep -q '^::error::install: .conda. is none of' '$work/badmode.log'"

# --- the source build: from SOURCE_DIR into a fresh cache, then from the cache alone ---
prepare prep-source SMCHECK_CACHE_DIR="$work/cache"
check_quiet "prepare: mode=source, the cache directory and a key" \
    sh -c "grep -qx 'mode=source' '$work/prep-source' && grep -qx 'cache-dir=$work/cache' '$work/prep-source' &&
        grep -qx 'cache-key=smcheck-build-.*-$(uname -m)-[0-9a-f]\{24\}' '$work/prep-source'"
prepare prep-auto SMCHECK_BIN= SMCHECK_CACHE_DIR="$work/cache"
check_quiet "install auto with no wheel and no version is the source build" \
    grep -qx 'mode=source' "$work/prep-auto"
action build SMCHECK_CACHE_DIR="$work/cache" SMCHECK_GPUS=sm_61 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_SARIF_FILE="$work/build.sarif"
rc=$?
check_quiet "source: built the smcheck target into the cache, the same verdict (exit 1), no apt-get" \
    sh -c "[ $rc -eq 1 ] && grep -q '^smcheck-action: building smcheck from $src' '$work/build.log' &&
        [ -x '$work/cache/smcheck' ] && grep -qx 'exit-code=1' '$work/build' && [ -s '$work/build.sarif' ] &&
        [ ! -e '$work/apt-calls' ]"
check_quiet "source: the key it built under is prepare's cache-key" \
    sh -c "grep -qx \"cache-key=\$(cat '$work/cache/key')\" '$work/prep-source'"
sed -n 's/^smcheck-action: built in/  built in/p' "$work/build.log"
touch "$work/after-build"
path=$work/nocmake:$work/bin:$PATH
action cached SMCHECK_CACHE_DIR="$work/cache" SMCHECK_GPUS=sm_61 SMCHECK_PATHS=fixtures/nvcc/multi.so
rc=$?
check_quiet "source again: the cached binary, no cmake run, no rebuild, the same verdict" \
    sh -c "[ $rc -eq 1 ] && grep -q '^smcheck-action: using the smcheck built before: $work/cache/smcheck' '$work/cached.log' &&
        [ ! -e '$work/cmake-calls' ] && [ ! '$work/cache/smcheck' -nt '$work/after-build' ] &&
        grep -qx 'exit-code=1' '$work/cached'"
cp "$work/cache/key" "$work/key"
echo smcheck-build-stale >"$work/cache/key"
action stale SMCHECK_CACHE_DIR="$work/cache" SMCHECK_PATHS=fixtures/nvcc/multi.so
check_quiet "source with a cache of other sources (another key): builds anew (here cmake fails: exit 1)" \
    sh -c "[ $? -eq 1 ] && [ -s '$work/cmake-calls' ] && grep -q '^::error::building smcheck from' '$work/stale.log'"
cp "$work/key" "$work/cache/key"
path=$work/bin:$PATH

# --- the wheel file, and PyPI's smcheck-cuda==VERSION through a local index of DIST ---
wheel=
if [ -n "$dist" ]; then
    for w in "$dist"/smcheck_cuda-*-manylinux_*_"$(uname -m)".whl; do
        [ -e "$w" ] && wheel=$w
    done
fi
if [ -n "$wheel" ]; then
    action wheel SMCHECK_WHEEL="$wheel" RUNNER_TEMP="$work/wheel-tmp" PIP_NO_INDEX=1 SMCHECK_GPUS=sm_61 \
        SMCHECK_PATHS=fixtures/nvcc/multi.so SMCHECK_SARIF_FILE="$work/wheel.sarif"
    rc=$?
    check_quiet "wheel: installed $(basename "$wheel") into its venv, the same verdict, the SARIF" \
        sh -c "[ $rc -eq 1 ] && [ -x '$work/wheel-tmp/smcheck-venv/bin/smcheck' ] &&
            grep -qx 'exit-code=1' '$work/wheel' && [ -s '$work/wheel.sarif' ]"
    version=$(basename "$wheel" | sed -n 's/^smcheck_cuda-\([^-]*\)-.*/\1/p')
    action pypi SMCHECK_VERSION="$version" RUNNER_TEMP="$work/pypi-tmp" PIP_FIND_LINKS="$dist" \
        PIP_NO_INDEX=1 SMCHECK_GPUS=sm_61 SMCHECK_PATHS=fixtures/nvcc/multi.so SMCHECK_SARIF_FILE=
    rc=$?
    check_quiet "pypi: smcheck-cuda==$version (the index has no smcheck) installed, the same verdict" \
        sh -c "[ $rc -eq 1 ] && grep -qx 'exit-code=1' '$work/pypi' &&
            '$work/pypi-tmp/smcheck-venv/bin/python' -m pip show smcheck-cuda | grep -qx 'Version: $version' &&
            ! '$work/pypi-tmp/smcheck-venv/bin/python' -m pip show smcheck"
else
    echo "skip   the wheel and pypi installs: no wheel smcheck_cuda-*-manylinux_*_$(uname -m).whl in ${dist:-DIST}"
fi
if [ -e "$work/apt-calls" ]; then
    echo "       apt-get was asked for: $(cat "$work/apt-calls")"
fi

finish
