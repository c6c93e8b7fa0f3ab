#!/usr/bin/env bash
# The steps of action.yml, as a script that runs anywhere: installs smcheck from its wheel into a
# private venv (unless SMCHECK_BIN names a smcheck to use), runs it on SMCHECK_PATHS with the
# inputs below, writes the SARIF report when SMCHECK_SARIF_FILE is set, and exits with smcheck's
# status. Inputs (environment): SMCHECK_PATHS, SMCHECK_GPUS, SMCHECK_DRIVER, SMCHECK_FAIL_ON,
# SMCHECK_ARGS, SMCHECK_SARIF_FILE, SMCHECK_VERSION, SMCHECK_WHEEL, SMCHECK_BIN. Outputs go to
# $GITHUB_OUTPUT when it is set: exit-code, sarif-file.
set -euo pipefail

smcheck=${SMCHECK_BIN:-}
if [ -z "$smcheck" ]; then
    venv="${RUNNER_TEMP:-$(mktemp -d)}/smcheck-venv"
    python3 -m venv "$venv"
    if [ -n "${SMCHECK_WHEEL:-}" ]; then
        "$venv/bin/pip" install --quiet --disable-pip-version-check "$SMCHECK_WHEEL"
    else
        "$venv/bin/pip" install --quiet --disable-pip-version-check \
            "smcheck${SMCHECK_VERSION:+==$SMCHECK_VERSION}"
    fi
    smcheck="$venv/bin/smcheck"
fi
"$smcheck" --version

args=()
[ -n "${SMCHECK_GPUS:-}" ] && args+=(--gpu "$SMCHECK_GPUS")
[ -n "${SMCHECK_DRIVER:-}" ] && args+=(--driver "$SMCHECK_DRIVER")
[ -n "${SMCHECK_FAIL_ON:-}" ] && args+=(--fail-on "$SMCHECK_FAIL_ON")
read -ra extra <<<"${SMCHECK_ARGS:-}"
read -ra paths -d '' <<<"${SMCHECK_PATHS:-.}" || true # spaces or newlines
[ "${#paths[@]}" -gt 0 ] || paths=(.)

status=0
"$smcheck" "${args[@]}" "${extra[@]}" --quiet "${paths[@]}" || status=$?
sarif=${SMCHECK_SARIF_FILE:-}
if [ -n "$sarif" ]; then
    # The same judgement again, as SARIF (smcheck is fast; the text above is for the log).
    "$smcheck" "${args[@]}" "${extra[@]}" --quiet --format sarif --output "$sarif" \
        "${paths[@]}" 2>/dev/null || true
    [ -s "$sarif" ] || sarif=
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "exit-code=$status" >>"$GITHUB_OUTPUT"
    echo "sarif-file=$sarif" >>"$GITHUB_OUTPUT"
fi
exit "$status"
