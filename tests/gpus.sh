#!/bin/sh
# Tests of `smcheck gpus` through a stub libcuda (SMCHECK_LIBCUDA): devices as the driver lists
# them, and the message for each way a driver can be missing or unusable.
# Usage: gpus.sh SMCHECK STUB_LIBCUDA
set -u
smcheck=$1 stub=$2
. "$(dirname "$0")/lib.sh"
run() { out=$(env "$@" "$smcheck" gpus 2>&1); status=$?; }
runj() { out=$(env "$@" "$smcheck" gpus --format json 2>&1); status=$?; }

unset CUDA_VISIBLE_DEVICES
run SMCHECK_LIBCUDA="$stub" STUB_DRIVER_VERSION=12080 "STUB_DEVICES=NVIDIA H100 80GB HBM3|9.0|0;Orin|8.7|1"
check "devices: exit 0" status_is 0
check "driver CUDA version and PTX ISA" has "$out" "driver: supports CUDA 12.8, compiles PTX up to ISA 8.7"
check "a discrete GPU" has "$out" "GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0 (sm_90), discrete"
check "an integrated GPU" has "$out" "GPU 1: Orin, compute capability 8.7 (sm_87), integrated"
runj SMCHECK_LIBCUDA="$stub" STUB_DRIVER_VERSION=13000 "STUB_DEVICES=NVIDIA B200|10.0|0"
check "json: driver version" has "$out" '"cuda_version":	"13.0"'
check "json: PTX ISA" has "$out" '"max_ptx_isa":	"9.0"'
check "json: compute capability" has "$out" '"compute_capability":	"10.0"'

run SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1
check "no driver: exit 0" status_is 0
check "no driver: says so" has "$out" "no GPU: no NVIDIA driver: cannot load /nonexistent/libcuda.so.1"
run SMCHECK_LIBCUDA="$stub" STUB_INIT_ERROR=34
check "toolkit stub library" has "$out" "no GPU: libcuda.so.1 is the CUDA toolkit's stub library, not a driver"
run SMCHECK_LIBCUDA="$stub" STUB_INIT_ERROR=100
check "no device" has "$out" "no GPU: the driver is installed but sees no CUDA device"
run SMCHECK_LIBCUDA="$stub"
check "no device (count 0)" has "$out" "no GPU: the driver is installed but sees no CUDA device"
run SMCHECK_LIBCUDA="$stub" STUB_INIT_ERROR=100 CUDA_VISIBLE_DEVICES=
check "CUDA_VISIBLE_DEVICES hides every device" has "$out" 'no GPU: CUDA_VISIBLE_DEVICES="" hides every device'
run SMCHECK_LIBCUDA="$stub" STUB_INIT_ERROR=803
check "driver and kernel module mismatch" has "$out" "does not match the loaded NVIDIA kernel module"
run SMCHECK_LIBCUDA="$stub" STUB_INIT_ERROR=35
check "insufficient driver" has "$out" "older than libcuda.so.1 (insufficient driver)"
run SMCHECK_LIBCUDA="$stub" STUB_INIT_ERROR=999
check "other errors are named" has "$out" "cuInit failed with CUDA error 999 (CUDA_ERROR_UNKNOWN)"
check "the driver version survives a failed cuInit" has "$out" "driver: supports CUDA 13.0"

# smcheck advise with the local GPUs and driver (issue 12): a build must serve every GPU.
builds=$(dirname "$0")/builds_fixture.tsv
out=$(env SMCHECK_LIBCUDA="$stub" STUB_DRIVER_VERSION=12080 "STUB_DEVICES=NVIDIA GeForce RTX 5090|12.0|0" \
    "$smcheck" advise --builds-table "$builds" 2>&1)
check "advise, local GPU and driver: the driver is the local one" has "$out" "driver: CUDA 12.8 (the local driver)"
check "advise, local GPU and driver: the build that runs there" has "$out" "install: torch 2.9.0 cu128"
out=$(env SMCHECK_LIBCUDA="$stub" STUB_DRIVER_VERSION=13000 "STUB_DEVICES=Tesla V100-SXM2-16GB|7.0|0;NVIDIA GeForce RTX 5090|12.0|0" \
    "$smcheck" advise --builds-table "$builds" 2>&1)
check "advise, two local GPUs: a build for both" has "$out" "install: torch 2.9.0 cu128"

finish
