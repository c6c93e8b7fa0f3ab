#!/usr/bin/env bash
# Measures the targets each libNVVM of PyPI's wheels accepts (the nvidia-cuda-nvcc-cu12 wheels for
# CUDA 12, nvidia-nvvm for 13), as tools/nvvm-targets.c asks it, and prints a line per release
# beside the CUDA release read from its bytes: the data behind numba-cuda's NVVM in
# docs/compatibility.md 6.4. Needs the network (PyPI) and a C compiler; no GPU.
# usage: tools/nvvm-targets.sh [WHEEL_DIR]   (wheels already there are not downloaded again)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/smcheck-nvvm-wheels}
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O1 -o "$work/probe" tools/nvvm-targets.c -ldl
archs="30 35 37 50 52 53 60 61 62 70 72 75 80 86 87 88 89 90 90a 100 100a 100f 101 101a 103 103a 107 107a 110 110a 120 120a 121 121a"
get() { # PACKAGE VERSION
    ls "$dir/$(tr - _ <<<"$1")-$2-"*.whl >/dev/null 2>&1 ||
        pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
            --platform manylinux2014_x86_64 --python-version 3.11 -d "$dir" "$1==$2"
}
for w in nvidia-cuda-nvcc-cu12:12.0.140 nvidia-cuda-nvcc-cu12:12.2.140 nvidia-cuda-nvcc-cu12:12.4.131 \
    nvidia-cuda-nvcc-cu12:12.6.85 nvidia-cuda-nvcc-cu12:12.8.93 nvidia-cuda-nvcc-cu12:12.9.86 \
    nvidia-nvvm:13.0.88 nvidia-nvvm:13.1.115 nvidia-nvvm:13.2.86 nvidia-nvvm:13.3.73 \
    nvidia-nvvm:13.4.92 nvidia-nvvm:13.5.37; do
    pkg=${w%%:*} version=${w#*:}
    get "$pkg" "$version"
    wheel=$(ls "$dir/$(tr - _ <<<"$pkg")-$version-"*.whl | head -n1)
    rm -rf "$work/x" && mkdir "$work/x"
    # the library where numba-cuda looks for it: nvidia/cuda_nvcc/nvvm/lib64/, nvidia/cu13/lib/
    python3 - "$wheel" "$work/x" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if "/libnvvm.so" in n and (n.startswith("nvidia/cuda_nvcc/nvvm/lib64/") or n.startswith("nvidia/cu13/lib/")):
            z.extract(n, sys.argv[2])
PY
    lib=$(find "$work/x" -name 'libnvvm.so*' -type f | head -n1)
    release=$(grep -a -o -m1 'Cuda compilation tools, release [0-9]*\.[0-9]*' "$lib" | head -n1 | sed 's/.*release //')
    printf '%s %s (%s, release %s): %s\n' "$pkg" "$version" "${lib#"$work/x/"}" "$release" \
        "$("$work/probe" "$lib" $archs)"
done
