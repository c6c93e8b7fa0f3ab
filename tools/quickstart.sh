#!/usr/bin/env bash
# Quick start: installs what the build and the README's test command need (Debian, when run as
# root and something is missing), builds smcheck in build/, and judges the demo wheels in
# fixtures/demo (made by fixtures/make-demo.py: one runs everywhere, one only through PTX, one
# not on an RTX 5090) against the local GPUs or, with none, four GPUs people have. Extra
# arguments go to smcheck instead of the demo input.
# What apt-get and cmake say goes to build/quickstart.log; the last lines of it are shown when a
# step fails. CMAKE_ARGS adds options to the configure step (CI passes -DSMCHECK_WERROR=ON).
# The packages are what the build and the tests need, no more (the same names on Debian 12 and
# 13): the compiler, make and pkgconf, the libraries' -dev packages, python3 with
# python3-jsonschema, python3-yaml (the Kubernetes manifests' test) and python3-venv (the wheel
# tests make a venv once dist/ holds a wheel), util-linux's setpriv (cli.sh runs a scan as
# nobody) and zstd (the reference reader decompresses with it). CI's extras (clang, its sanitizer and fuzzer runtime, valgrind, cppcheck) are
# installed by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake make gcc libc6-dev pkgconf python3 python3-jsonschema python3-venv util-linux zstd
          libelf-dev libzip-dev zlib1g-dev libcjson-dev liblz4-dev libzstd-dev libisal-dev libarchive-dev
          libcurl4-openssl-dev libssl-dev libyaml-dev python3-yaml)
mkdir -p build
log=build/quickstart.log
: >"$log"
step() { # WHAT COMMAND...: runs it with its output in the log; on failure shows the log's end
    local what=$1
    shift
    printf '%s ... ' "$what"
    local start=$SECONDS
    if "$@" >>"$log" 2>&1; then
        echo "done ($((SECONDS - start)) s)"
    else
        local status=$?
        echo "FAILED (exit $status); the end of $log:"
        tail -n 25 "$log" | sed 's/^/  | /'
        exit "$status"
    fi
}

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
echo "quickstart: the output of apt-get and cmake goes to $log"
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "quickstart: please install: ${missing[*]} (or run this as root)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    step "apt-get update" apt-get update
    step "installing ${#missing[@]} packages and what they need (listed in $log)" \
        apt-get install -y --no-install-recommends "${missing[@]}"
fi

# shellcheck disable=SC2086 # CMAKE_ARGS is a list of options
step "configuring (cmake -S . -B build${CMAKE_ARGS:+ $CMAKE_ARGS})" cmake -S . -B build ${CMAKE_ARGS:-}
step "building with $(nproc) jobs" cmake --build build -j"$(nproc)"

if [ "$#" -gt 0 ]; then
    echo "+ build/smcheck $*"
    exec build/smcheck "$@"
fi

# The demo: the local GPUs when there are any, else four that people have.
demo=(fixtures/demo/*.whl)
local_gpus=$(build/smcheck gpus --format json |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)["gpus"]))')
gpus=()
for_whom="the local GPU(s)"
if [ "$local_gpus" -eq 0 ]; then
    gpus=(--gpu a100,rtx-4090,h100,rtx-5090)
    for_whom="an A100, an RTX 4090, an H100 and an RTX 5090
(this machine has no NVIDIA GPU)"
fi
echo
echo "+ build/smcheck ${gpus[*]} fixtures/demo/*.whl"
echo
status=0
build/smcheck "${gpus[@]}" "${demo[@]}" || status=$?
case $status in
0) verdict="exit status 0: every library runs on these GPUs (or runs through PTX)" ;;
1) verdict="exit status 1: some library cannot run on one of these GPUs" ;;
*) verdict="exit status $status: something could not be read (see the messages above)" ;;
esac
cat <<EOF

That was smcheck judging the ${#demo[@]} demo wheels in fixtures/demo
for $for_whom:
one row per distribution and library, 'overall' one verdict per GPU, and
$verdict.
Next:
  build/smcheck --gpu YOUR-GPU FILE.whl   a wheel before you install it (--gpu h100, rtx-4090, sm_120, 8.6)
  build/smcheck                           the active Python environment, against the local GPU
  build/smcheck advise --gpu YOUR-GPU     the PyTorch build to install for it
  build/smcheck fixtures/nvcc             a matrix: one representative GPU per architecture
  ctest --test-dir build -j$(nproc) -LE long   the tests (README: Quick start)
EOF
