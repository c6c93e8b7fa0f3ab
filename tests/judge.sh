#!/bin/sh
# Tests of judging from the command line: --gpu names, --driver, --fail-on, exit statuses, the
# local GPU through a stub libcuda, the representative matrix, --gpu-table.
# Usage: judge.sh SMCHECK FIXTURES_DIR STUB_LIBCUDA
set -u
smcheck=$1 fixtures=$2 stub=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
# run ARGS...: smcheck in the fixtures folder, no driver; sets status, out, err.
run() {
    (cd "$fixtures" && SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1 "$smcheck" "$@") >"$tmp/out" 2>"$tmp/err"
    status=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

run --gpu sm_120 nvcc/kernel.cubin
check "none exits 1" status_is 1
check "none says what it has and what the GPU needs" has "$out" \
    "nvcc/kernel.cubin: sm_120 none: has sm_89 and no PTX; a GPU of compute capability 12.0 needs an sm_120 cubin or PTX"
run --gpu rtx-4090 nvcc/kernel.cubin
check "a product name: native cubin is ok, exit 0" status_is 0
check "the product is named" has "$out" "targets: sm_89 GeForce RTX 4090 (8.9)"
check "ok line" has "$out" "nvcc/kernel.cubin: sm_89 ok: 1 native, 0 compatible of 1 container"
run --gpu "rtx 6000" nvcc/kernel.cubin
check "an ambiguous name is a usage error" status_is 64
check "it lists the candidates" has "$err" "'rtx 6000' is ambiguous: Quadro RTX 6000 (7.5)"
run --gpu rtx4095 nvcc/kernel.cubin
check "an unknown name is a usage error" status_is 64
check "it lists the closest names" has "$err" "unknown GPU 'rtx4095' (closest: GeForce RTX 4090"
run scan --gpu h100 nvcc/kernel.cubin
check "scan does not judge" status_is 64
run --driver 12.x --gpu h100 nvcc/kernel.cubin
check "a bad --driver is a usage error" status_is 64

run --gpu sm_120 nvcc/multi.so
check "partial passes the default gate" status_is 0
check "partial explains itself" has "$out" "sm_120 partial: its main architecture list sm_75 sm_86 (1 container) lacks a GPU of compute capability 12.0: 2 of 3 containers serve it, 1 does not (it carries sm_75 sm_86)"
check "partial always warns" has "$err" "warning: 1 library is partial"
run --gpu sm_120 --fail-on partial nvcc/multi.so
check "--fail-on partial fails it" status_is 1
run --gpu sm_120 nvcc/comp_default.so
check "jit passes the default gate" status_is 0
check "jit says which driver it needs" has "$out" "needs a driver for CUDA 13.0 (R580) or newer"
run --gpu sm_120 --fail-on jit nvcc/comp_default.so
check "--fail-on jit fails it" status_is 1
run --gpu sm_120 --driver 11.4 gen/lz4_old.so
check "no driver before R570 runs an RTX 50: none" has "$out" \
    "sm_120 none: no driver before CUDA 12.8 runs this GPU: the driver supports 11.4; needs a driver for CUDA 12.8 (R570) or newer"
run --gpu sm_87 --driver 11.4 gen/lz4_old.so
check "PTX ISA 7.8 on an 11.4 driver: none" status_is 1
check "blocked JIT names the driver it needs" has "$out" \
    "its PTX (ISA 7.8) is newer than a driver for CUDA 11.4 can compile; needs a driver for CUDA 11.8 (R520) or newer"
check "LZ4 on an 11.x driver is a warning naming its weak source" has "$out" "LZ4-compressed images need a driver of 525.60.13 (CUDA 12.0) or newer, per RAPIDS' documentation"
check "a newer minor toolkit than the driver is a warning" has "$out" "warning: built by CUDA 11.8 (PTX ISA 7.8) and the driver supports 11.4"
run --gpu sm_87 --driver 11.8 gen/lz4_old.so
check "LZ4 written by a toolkit the driver supports is no caution" lacks "$out" "LZ4-compressed"
run --gpu sm_86 --driver 570.124.06 nvcc/plain.o
check "a CUDA 13 cubin on R570: none, by its ptxas release" has "$out" "sm_86 none: built by CUDA 13 (its cubins' ptxas: release 13.0); the driver supports 12.8; needs a driver for CUDA 13.0 (R580) or newer"
run --gpu sm_120 --driver 12.8 nvcc/ptx_only.so
check "CUDA 13 PTX on a 12.8 driver: none" has "$out" "built by CUDA 13 (PTX ISA 9.x); the driver supports 12.8"
run --gpu sm_80 --driver 12.4 gen/zstd_gen.so
check "one CUDA 13 container makes the whole library CUDA 13's" has "$out" "none: built by CUDA 13"
run --gpu sm_90 --driver 12.8 gen/old_arches.so
check "CUDA 12 code on a 12.8 driver is judged by the GPU" has "$out" "sm_90 partial"
run --gpu orin nvcc/gplusplus.so
check "Jetson: a lower-minor cubin fails, with the note" has "$out" "no binary compatibility on Tegra"
run --gpu sm_90 nvcc/libperarch.a
check "a static library is judged as one library" has "$out" "nvcc/libperarch.a: sm_90 ok: 1 native, 0 compatible of 1 container; 1 module for other GPUs"
check "per-architecture members do not make it fail" status_is 0
run scan nvcc/libperarch.a
check "listed, it is one library too" has "$out" "nvcc/libperarch.a: 2 containers, 2 images"
run --gpu sm_120 --detail nvcc/multi.so
check "--detail names the failing container" has "$out" "fails: container at 0x3870 (.nv_fatbin): sm_75 sm_86"
check "--detail names its kernels" has "$out" "kernels: _Z5k_addPfPKfi"
run --gpu sm_120 missing.so nvcc/kernel.cubin
check "an unreadable input beats none: exit 2" status_is 2

run nvcc/kernel.cubin
check "no GPU: the representative matrix, exit 0" status_is 0
check "no GPU: says why" has "$err" "no local GPU (no NVIDIA driver: cannot load /nonexistent/libcuda.so.1"
check "no GPU: one column per representative" has "$out" "sm_75   sm_80   sm_86   sm_87   sm_89   sm_90"

out=$(cd "$fixtures" && env SMCHECK_LIBCUDA="$stub" STUB_DRIVER_VERSION=12080 \
    "STUB_DEVICES=NVIDIA GeForce RTX 5090|12.0|0;NVIDIA GeForce RTX 5090|12.0|0" \
    "$smcheck" nvcc/kernel.cubin 2>&1)
status=$?
check "the local GPU is the target" has "$out" "targets: sm_120 NVIDIA GeForce RTX 5090 (12.0)"
check "its driver is used" has "$out" "driver: CUDA 12.8 (the local driver)"
check "two identical GPUs judge once" has "$out" "nvcc/kernel.cubin: sm_120 none"
check "the local GPU gates: exit 1" status_is 1
out=$(cd "$fixtures" && env SMCHECK_LIBCUDA="$stub" "STUB_DEVICES=H|9.0|0" "$smcheck" --gpu auto --driver 13.0 nvcc/plain.o 2>&1)
check "--gpu auto, --driver wins over the local driver" has "$out" "driver: CUDA 13.0 (--driver)"

out=$(cd "$fixtures" && env SMCHECK_LIBCUDA="$stub" STUB_INIT_ERROR=803 "$smcheck" nvcc/kernel.cubin 2>&1)
status=$?
check "a broken driver falls back to the matrix, with its reason" has "$out" \
    "no local GPU (libcuda.so.1 does not match the loaded NVIDIA kernel module"
check "the fallback matrix does not fail the run" status_is 0

printf '# a newer table\n9.9\tFuture GPU 9000\tNext\trep\n' >"$tmp/table.tsv"
run --gpu-table "$tmp/table.tsv" --gpu "future gpu 9000" nvcc/kernel.cubin
check "--gpu-table names a new GPU" has "$out" "targets: sm_99 Future GPU 9000 (9.9)"
printf '9.9\tBroken\n' >"$tmp/bad.tsv"
run --gpu-table "$tmp/bad.tsv" --gpu h100 nvcc/kernel.cubin
check "a broken --gpu-table exits 2" status_is 2
check "a broken --gpu-table names the file and line" has "$err" "$tmp/bad.tsv"
run gpus --list
check "gpus --list prints the table" has "$out" "12.1  sm_121  Blackwell     DGX Spark (GB10)"

# Three copies of multi.so's device-link module (no kernels), as one raw fat binary: its cubins
# are read once and remembered by their bytes, and all three say no kernels; on sm_90, which
# they serve, they are not read at all.
python3 - "$fixtures/nvcc/multi.so" "$tmp/three.fatbin" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()[8240:8240 + 6208]
assert b[:4] == bytes([0x50, 0xed, 0x55, 0xba]), "multi.so changed: the module moved"
open(sys.argv[2], "wb").write(b * 3)
PY
run --gpu sm_61 --format json "$tmp/three.fatbin"
check "three copies of one kernel-less module: no kernels, each" has "$out" '"no-kernels":	3'
run --gpu sm_90 --format json "$tmp/three.fatbin"
check "the same on a GPU they serve: native, unread" has "$out" '"native":	3'
run --gpu sm_90,sm_120 --format json --detail nvcc/multi.so
check "json: targets" has "$out" '"token":	"sm_120"'
check "json: verdicts per library" has "$out" '"containers_by_verdict":'
check "json: every verdict key" has "$out" '"no-kernels":	1'
check "json: input status" has "$out" '"status":	"partial"'
check "json: a cause code beside the sentence" has "$out" '"cause":	"main-arch"'
check "json: the overall verdict per target" has "$out" '"overall":'

# What the reader records, whatever the layout (issue 8 fixtures).
run scan --detail gen/extnum_be.so gen/extnum_le.so gen/unaligned.so gen/far_names.so
check "extended numbering, big-endian: the section is named" has "$out" \
    "container at 0x50, 824 bytes, .nv_fatbin"
check "a fatbin section off 8-alignment is walked" has "$out" "container at 0x38c, 560 bytes, .nv_fatbin"
check "section names far before the table" has "$out" "container at 0x50, 560 bytes, .nv_fatbin"
run scan --format json gen/cudart11.so gen/mentions_cudart.so
check "DT_NEEDED libcudart.so.11.0 is CUDA 11" has "$out" '"cudart_soname":	"libcudart.so.11",'
check "a string that only mentions libcudart.so.13 is not DT_NEEDED" has "$out" '"cudart_soname":	"libcudart.so.12",'
run scan --format json gen/cudart_flood.so
check "5000 libcudart strings before .dynstr: DT_NEEDED still read" has "$out" '"cudart_soname":	"libcudart.so.12",'
run --gpu 9.0 --detail gen/long_kernel.so
check "a kernel name over 255 bytes is named by its start" has "$out" "kernels: _Z30xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxIN4cute5tupleI"
run scan --detail gen/archive_offsets.a
check "an archive is one library, its containers name their member" has "$out" \
    ".ldata of a_member_with_a_long_name.o"
run --gpu 9.0 --driver 12.8 gen/cudart11.so
check "a CUDA 11 build on a CUDA 12 driver is not too new" has "$out" "gen/cudart11.so: sm_90 none: has sm_80 and no PTX"

finish
