#!/usr/bin/env bash
# Quick start: installs what the build needs (Debian, when run as root and something is missing),
# builds smcheck in build/, and judges the demo input, the small libraries that nvcc built for the
# tests (fixtures/nvcc), against the local GPU or, with none, one representative GPU per
# architecture. Extra arguments go to smcheck instead of the demo input.
# CMAKE_ARGS adds options to the configure step (CI passes -DSMCHECK_WERROR=ON).
# The packages are what the build and the README's test command need, no more (the same names on
# Debian 12 and 13): the compiler, make and pkgconf, the libraries' -dev packages, python3 and
# python3-jsonschema for the tests, util-linux's setpriv (cli.sh runs a scan as nobody) and zstd
# (the reference reader decompresses with it). CI's extras (clang, its sanitizer and fuzzer runtime,
# valgrind, cppcheck) are installed by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake make gcc libc6-dev pkgconf python3 python3-jsonschema util-linux zstd
          libelf-dev libzip-dev zlib1g-dev libcjson-dev liblz4-dev libzstd-dev libisal-dev libarchive-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "quickstart: please install: ${missing[*]} (or run this as root)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
fi

# shellcheck disable=SC2086 # CMAKE_ARGS is a list of options
cmake -S . -B build ${CMAKE_ARGS:-}
cmake --build build -j"$(nproc)"
if [ "$#" -eq 0 ]; then
    set -- fixtures/nvcc
fi
echo "+ build/smcheck $*"
build/smcheck "$@"
