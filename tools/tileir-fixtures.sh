#!/usr/bin/env bash
# Remakes fixtures/nvfatbin from NVIDIA's own tools on PyPI (needs the network and a C compiler;
# no GPU): Tile IR bytecode of a small vector-add kernel from cuTile Python (cuda-tile 1.7.0's
# export_kernel), put in fat binaries by nvFatbin (nvidia-nvfatbin 13.5.37, whose Tile IR entries
# name sm_80 as their arch) through tools/tileir-fatbin.c.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=${PYTHON:-$(command -v python3.12 || command -v python3)} # cuda-tile 1.7.0: CPython 3.12
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q cuda-tile==1.7.0 nvidia-nvfatbin==13.5.37
# cuTile reads its kernel's source, so the kernel is a file.
cat >"$work/vadd.py" <<'PY'
import sys
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, export_kernel


@ct.kernel
def vadd(a, b, c):
    i = ct.bid(0)
    ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(16,)) + ct.load(b, index=(i,), shape=(16,)))


arr = ArrayConstraint(ct.float32, 1, index_dtype=ct.int32, stride_lower_bound_incl=0,
                      alias_groups=(), may_alias_internally=False)
sig = KernelSignature([arr, arr, arr], CallingConvention.cutile_python_v1(), symbol="vadd")
# Before 13.3 the bytecode names an architecture (cuTile's rule); from 13.3 it needs none.
for version, gpu in (("13.1", "sm_100"), ("13.3", None)):
    export_kernel(vadd, [sig], "%s/vadd-%s.tileirbc" % (sys.argv[1], version), gpu_code=gpu,
                  output_format="tileir_bytecode", bytecode_version=version)
PY
"$work/venv/bin/python" "$work/vadd.py" "$work"
nv=$("$work/venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))')
cc -O1 -o "$work/tileir-fatbin" tools/tileir-fatbin.c -I"$nv/include" -L"$nv/lib" -l:libnvfatbin.so.13 \
    -Wl,-rpath,"$nv/lib"
"$work/tileir-fatbin" fixtures/nvfatbin/tileir_ptx.fatbin "$work/vadd-13.3.tileirbc" --ptx
"$work/tileir-fatbin" fixtures/nvfatbin/tileir_only.fatbin "$work/vadd-13.1.tileirbc"
ls -l fixtures/nvfatbin/*.fatbin
