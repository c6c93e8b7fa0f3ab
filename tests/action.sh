#!/bin/sh
# The GitHub Action's steps (tools/github-action.sh) as a runner would run them: inputs in the
# environment, outputs in $GITHUB_OUTPUT, the job's status smcheck's. With a wheel in DIST, the
# action's install from a wheel file too. Usage: action.sh SMCHECK SOURCE_DIR [DIST].
# Prints "N passed, M failed".
set -u
smcheck=$1 src=$2 dist=${3:-}
passed=0 failed=0
check() { # WHAT COMMAND...
    what=$1
    shift
    if "$@" >/dev/null 2>&1; then
        echo "ok     $what"
        passed=$((passed + 1))
    else
        echo "FAILED $what"
        failed=$((failed + 1))
    fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1
action() { # OUTPUT_FILE, then VAR=value... as the action's inputs
    out=$1
    shift
    env GITHUB_OUTPUT="$out" "$@" bash "$src/tools/github-action.sh" >"$out.log" 2>&1
}

cd "$src" || exit 1
action "$work/none" SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_61 \
    SMCHECK_PATHS="fixtures/nvcc/multi.so
fixtures/nvcc/comp_default.so" SMCHECK_SARIF_FILE="$work/none.sarif"
rc=$?
check "a GPU the code does not serve fails the job (exit 1)" [ "$rc" -eq 1 ]
check "exit-code=1 and the SARIF file in GITHUB_OUTPUT" \
    sh -c "grep -qx 'exit-code=1' '$work/none' && grep -qx 'sarif-file=$work/none.sarif' '$work/none'"
check "paths on separate lines are each checked" \
    sh -c "grep -q 'multi.so' '$work/none.log' && grep -q 'comp_default.so' '$work/none.log'"
check "the SARIF report has a result with level error" \
    sh -c "grep -q '\"level\":[[:space:]]*\"error\"' '$work/none.sarif'"

action "$work/ok" SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_86 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_FAIL_ON=none SMCHECK_SARIF_FILE=
rc=$?
check "a GPU it serves passes (exit 0), no SARIF asked, none written" \
    sh -c "[ $rc -eq 0 ] && grep -qx 'exit-code=0' '$work/ok' && grep -qx 'sarif-file=' '$work/ok'"
action "$work/gate" SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_86 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_FAIL_ON=partial SMCHECK_SARIF_FILE=
check "fail-on partial makes a partial library fail the job" [ $? -eq 1 ]
action "$work/args" SMCHECK_BIN="$smcheck" SMCHECK_GPUS=sm_86 SMCHECK_PATHS=fixtures/nvcc/multi.so \
    SMCHECK_ARGS="--detail --driver 12.4" SMCHECK_SARIF_FILE=
check "args pass further options (--detail)" grep -q 'containers that fail\|container' "$work/args.log"

if [ -n "$dist" ] && ls "$dist"/smcheck-*-manylinux_*_"$(uname -m)".whl >/dev/null 2>&1; then
    wheel=$(ls "$dist"/smcheck-*-manylinux_*_"$(uname -m)".whl | head -1)
    action "$work/wheel" SMCHECK_WHEEL="$wheel" RUNNER_TEMP="$work" SMCHECK_GPUS=sm_61 \
        SMCHECK_PATHS=fixtures/nvcc/multi.so SMCHECK_SARIF_FILE=
    check "installed from the wheel file into its venv, the same verdict" \
        sh -c "[ -x '$work/smcheck-venv/bin/smcheck' ] && grep -qx 'exit-code=1' '$work/wheel'"
else
    echo "skip   the action's install from a wheel: no wheel of this machine in ${dist:-DIST}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
