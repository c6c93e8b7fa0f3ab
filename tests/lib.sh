# lib.sh: what every shell test shares (sourced: `. "$(dirname "$0")/lib.sh"`). One line per
# check, "ok     WHAT" or "FAILED WHAT" with what was compared, and "N passed, M failed".
#   check WHAT COMMAND...   passes when COMMAND succeeds (its output shows)
#   check_quiet WHAT COMMAND...   the same, its output hidden
#   has TEXT NEEDLE, lacks TEXT NEEDLE, equals GOT WANT, status_is N: conditions that, when they
#   fail, leave what they looked at for check to print
#   finish: the count, and the exit status (1 when a check failed)
passed=0 failed=0 why=

_result() { # WHAT OK
    if [ "$2" -eq 0 ]; then
        echo "ok     $1"
        passed=$((passed + 1))
    else
        echo "FAILED $1"
        [ -n "$why" ] && printf '       %s\n' "$why"
        failed=$((failed + 1))
    fi
    why=
}

check() {
    what=$1
    shift
    why=
    if "$@"; then _result "$what" 0; else _result "$what" $?; fi # a failure is counted, even under set -e
}

check_quiet() {
    what=$1
    shift
    why=
    if "$@" >/dev/null 2>&1; then _result "$what" 0; else _result "$what" $?; fi
}

has() {
    printf '%s\n' "$1" | grep -qF -- "$2" && return 0
    why="wanted: $2 | in: $(printf '%s' "$1" | tail -c 400 | tr '\n' ' ')"
    return 1
}

lacks() {
    printf '%s\n' "$1" | grep -qF -- "$2" || return 0
    why="unwanted: $2 | in: $(printf '%s' "$1" | grep -F -- "$2" | head -n 2 | tr '\n' ' ')"
    return 1
}

equals() {
    [ "$1" = "$2" ] && return 0
    why="got: $1 | wanted: $2"
    return 1
}

status_is() { # N: the last run's $status
    [ "$status" -eq "$1" ] && return 0
    why="exit status $status, wanted $1${err:+ (stderr: $(printf '%s' "$err" | head -c 300 | tr '\n' ' '))}"
    return 1
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
