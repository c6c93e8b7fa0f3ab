#!/bin/sh
# Golden tests of smcheck's reports on the fixtures: each case's stdout, stderr and exit status
# must equal tests/golden/CASE. Run with UPDATE=1 to rewrite them, then review the diff by hand.
# Usage: golden.sh SMCHECK FIXTURES_DIR GOLDEN_DIR
set -u
smcheck=$1 fixtures=$2 golden=$3
passed=0 failed=0

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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
