#!/bin/sh
# Golden tests of smcheck's reports on the fixtures: each case's stdout, stderr and exit status
# must equal tests/golden/CASE. Run with UPDATE=1 to rewrite them, then review the diff by hand.
# Usage: golden.sh SMCHECK FIXTURES_DIR GOLDEN_DIR
set -u
smcheck=$1 fixtures=$2 golden=$3
passed=0 failed=0
# advise reads the active environment's torch: an empty one, whatever this machine has.
VIRTUAL_ENV=$(mktemp -d)
export VIRTUAL_ENV
trap 'rmdir "$VIRTUAL_ENV"' EXIT

run_case() { # NAME ARGS...
    name=$1
    shift
    out=$(cd "$fixtures" && "$smcheck" "$@" 2>/tmp/smcheck-golden.$$)
    status=$?
    actual=$(printf '%s\n--- stderr ---\n%s\n--- exit %s ---\n' "$out" "$(cat /tmp/smcheck-golden.$$)" "$status")
    rm -f /tmp/smcheck-golden.$$
    if [ "${UPDATE:-}" = 1 ]; then
        printf '%s\n' "$actual" >"$golden/$name"
    fi
    if [ "$(cat "$golden/$name" 2>/dev/null)" = "$actual" ]; then
        echo "ok     $name"
        passed=$((passed + 1))
    else
        echo "FAILED $name (smcheck $*):"
        printf '%s\n' "$actual" | diff -u "$golden/$name" - | head -40
        failed=$((failed + 1))
    fi
}

run_case scan.txt scan nvcc gen
run_case scan.json scan --format json nvcc gen
run_case detail.txt scan --detail nvcc/multi.so nvcc/variants.so nvcc/librdc.a nvcc/kernel.cubin gen/ldata.so gen/lz4_old.so
run_case detail.json scan --format json --detail nvcc/multi.so nvcc/librdc.a nvcc/kernel.cubin gen/ldata.so gen/lz4_old.so
run_case verify.txt scan --verify gen
run_case verify.json scan --format json --verify gen/bad_verify_ptx.so gen/bad_lz4.so gen/bad_truncated.so

# Judging: the targets of issue 3 with no driver, a 12.8 driver and a 13.0 driver; one target with
# reasons; --detail; JSON. SMCHECK_LIBCUDA keeps a real driver out of it.
export SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1
targets=7.5,8.6,8.9,9.0,10.0,10.3,11.0,12.0,12.1
run_case judge_matrix.txt --gpu $targets nvcc gen
run_case judge_matrix_12.8.txt --gpu $targets --driver 12.8 nvcc gen
run_case judge_matrix_13.0.txt --gpu $targets --driver 13.0 nvcc gen
run_case judge_rtx5090.txt --gpu "RTX 5090" nvcc gen
# Orin: JetPack 6.2's driver (540.4.0, CUDA 12.6) runs exact cubins only; JetPack 7.2's CUDA 13
# driver runs lower-minor ones too, with a caution.
run_case judge_orin_detail.txt --gpu orin --driver 540.4.0 --detail nvcc gen
run_case judge_orin_jp72.txt --gpu orin --driver 13.2 nvcc
run_case judge_h100.json --gpu h100,sm_120 --driver 12.8 --format json --detail nvcc/multi.so nvcc/plain.o gen/old_arches.so
run_case judge_default.txt nvcc/multi.so gen/sm90a_v1.so

# Advice from a small table of builds (tests/builds_fixture.tsv): the build to install, what a
# newer driver gives, every build with --detail; JSON; none for a Jetson.
builds=../tests/builds_fixture.tsv
run_case advise_rtx5090.txt advise --builds-table $builds --gpu "RTX 5090" --driver 570.124.06
run_case advise_v100_detail.txt advise --builds-table $builds --gpu v100,h100 --driver 13.0 --detail
run_case advise_orin.json advise --builds-table $builds --gpu orin --driver 12.6 --format json

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
