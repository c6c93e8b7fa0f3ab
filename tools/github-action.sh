#!/usr/bin/env bash
# The steps of action.yml, as a script that runs anywhere on Linux: gets smcheck (builds it from this
# checkout, or installs the smcheck-cuda wheel from a file or PyPI into a private venv, or takes
# SMCHECK_BIN), runs it once on SMCHECK_PATHS, the text report to the log and the SARIF report to
# SMCHECK_SARIF_FILE, and exits with smcheck's status. It trusts its inputs as a workflow's author
# writes them, but runs none of them: paths and args are split here, never by a shell's eval.
#
# Inputs (environment), as action.yml passes them:
#   SMCHECK_INSTALL     auto (default): wheel when SMCHECK_WHEEL is set, pypi when SMCHECK_VERSION is,
#                       else source. source: build the `smcheck` target of this checkout with cmake,
#                       the binary kept in SMCHECK_CACHE_DIR under a key of the sources and the OS, and
#                       taken from there while the key holds. wheel: pip-install SMCHECK_WHEEL. pypi:
#                       pip-install smcheck-cuda (==SMCHECK_VERSION when set) from PyPI.
#   SMCHECK_BIN         a smcheck to run instead (tests); the other install inputs are then unused
#   SMCHECK_CACHE_DIR   where the source build keeps its binary ($XDG_CACHE_HOME/smcheck-action)
#   SMCHECK_PATHS       what to check, one path a line (see paths below); empty: .
#   SMCHECK_GPUS SMCHECK_DRIVER SMCHECK_FAIL_ON   smcheck's --gpu, --driver, --fail-on
#   SMCHECK_ARGS        more smcheck options, split as a shell would, without running or globbing
#   SMCHECK_SARIF_FILE  where smcheck writes the SARIF report (--sarif); empty for none
# Outputs ($GITHUB_OUTPUT when set): exit-code and sarif-file; with --prepare (action.yml's first
# step, which says no to a runner smcheck cannot serve before anything is installed) mode, and for
# the source build cache-dir and cache-key, which actions/cache restores and saves.
# Build packages (Debian 12/13, Ubuntu 22.04/24.04, the same names), installed with apt-get only when
# missing: make gcc libc6-dev pkg-config and the libraries' -dev packages below; cmake 3.25 or newer
# (from PyPI into a venv when apt's is older, as on Ubuntu 22.04 without the runner image's own).
set -euo pipefail

# --- the runner: Linux only. This comes first and in bash 3.2 (macOS's bash reads this far). ---
kernel=$(uname -s 2>/dev/null || echo unknown)
runner_os=${RUNNER_OS:-$kernel}
if [ "$runner_os" != Linux ] || [ "$kernel" != Linux ]; then
    [ "$runner_os" != Linux ] || runner_os=$kernel
    echo "::error::smcheck runs on Linux runners only, and this one is $runner_os: run the job on ubuntu-latest (it reads Linux and Windows wheels alike from there)"
    exit 1
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'smcheck-action: %s\n' "$*"; }
fail() {
    printf '::error::%s\n' "$*"
    exit 1
}
output() { # NAME VALUE: a step output, when there is a step
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
    fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- how smcheck is had: the mode, from the inputs ---
install=${SMCHECK_INSTALL:-auto}
wheel=${SMCHECK_WHEEL:-}
version=${SMCHECK_VERSION:-}
if [ -n "${SMCHECK_BIN:-}" ]; then
    mode=bin
else
    case $install in
    auto)
        if [ -n "$wheel" ] && [ -n "$version" ]; then
            fail "set wheel or version, not both: a wheel file, or smcheck-cuda==version from PyPI"
        elif [ -n "$wheel" ]; then
            mode=wheel
        elif [ -n "$version" ]; then
            mode=pypi
        else
            mode=source
        fi
        ;;
    source | wheel | pypi) mode=$install ;;
    *) fail "install: '$install' is none of auto, source, wheel, pypi" ;;
    esac
    [ "$mode" != wheel ] || [ -n "$wheel" ] || fail "install: wheel needs the wheel input (a smcheck_cuda-*.whl file)"
    [ -z "$wheel" ] || [ "$mode" = wheel ] || fail "install: $mode, but the wheel input is set: which one?"
    [ -z "$version" ] || [ "$mode" = pypi ] || fail "install: $mode, but the version input is set: which one?"
fi
machine=$(uname -m)
if [ "$mode" = wheel ] || [ "$mode" = pypi ]; then
    case $machine in
    x86_64 | aarch64) ;;
    *) fail "smcheck-cuda wheels are for x86_64 and aarch64 machines, and this one is $machine: use install: source" ;;
    esac
fi

# --- the source build: its key, its cache, its packages ---
cache_dir=${SMCHECK_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/smcheck-action}
# What the build reads (the sources, the tables, this script's cmake line) and where it runs (the
# binary links the OS's own libraries): a new commit of the action or another OS gets a new build.
cache_key() {
    local sources os_id
    sources=$(cd "$root" && find CMakeLists.txt cmake include src data tools/github-action.sh -type f -print0 |
        LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)
    os_id=$(sed -n 's/^ID="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null || true)
    os_id+=$(sed -n 's/^VERSION_ID="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null || true)
    printf 'smcheck-build-%s-%s-%s\n' "${os_id:-linux}" "$machine" "${sources:0:24}"
}

as_root() { # COMMAND...: as root, through sudo when not
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        fail "installing ${missing[*]} needs root, and sudo asks for a password here: install them first"
    fi
}
missing=()
apt_install() { # the packages in missing, when there are any
    [ "${#missing[@]}" -gt 0 ] || return 0
    command -v apt-get >/dev/null 2>&1 ||
        fail "the build needs ${missing[*]} (Debian's names), and this machine has no apt-get: install them first"
    log "installing what the build needs and this runner lacks: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    missing=()
}
cmake_ok() { # is `cmake` 3.25 or newer?
    local major minor
    read -r major minor < <(cmake --version 2>/dev/null |
        sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p') || true
    [ -n "${minor:-}" ] && { [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -ge 25 ]; }; }
}
build_packages() { # install what the build needs that is not there
    local p
    # Commands first (the runner images bring cmake outside dpkg), then the -dev packages.
    command -v cc >/dev/null 2>&1 || missing+=(gcc)
    command -v make >/dev/null 2>&1 || missing+=(make)
    command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
    cmake_ok || missing+=(cmake)
    if command -v dpkg-query >/dev/null 2>&1; then
        for p in libc6-dev libelf-dev libzip-dev zlib1g-dev libcjson-dev libyaml-dev liblz4-dev libzstd-dev \
            libisal-dev libarchive-dev; do
            dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
        done
    fi
    apt_install
    if ! cmake_ok; then # Ubuntu 22.04's apt has 3.22: PyPI's cmake, in a venv of its own
        log "cmake $(cmake --version 2>/dev/null | sed -n 's/^cmake version //p') is older than 3.25: cmake from PyPI"
        python_venv "$tmp/cmake-venv"
        "$tmp/cmake-venv/bin/python" -m pip install --quiet --disable-pip-version-check 'cmake>=3.25'
        PATH=$tmp/cmake-venv/bin:$PATH
    fi
}
python_venv() { # DIR: a fresh venv there (python3-venv installed when missing)
    command -v python3 >/dev/null 2>&1 || missing+=(python3)
    python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
    apt_install
    python3 -m venv --clear "$1" || fail "python3 -m venv $1 failed"
}

build() { # the smcheck target of $root, its binary to $cache_dir/smcheck under $key
    local dir start
    build_packages
    dir=$tmp/build
    start=$SECONDS
    log "building smcheck from $root (the smcheck target only; cached as $key)"
    echo "::group::cmake: configure and build smcheck"
    if ! { cmake -S "$root" -B "$dir" -DBUILD_TESTING=OFF -DSMCHECK_SHARED=OFF &&
        cmake --build "$dir" --target smcheck -j"$(nproc 2>/dev/null || echo 2)"; }; then
        echo "::endgroup::"
        fail "building smcheck from $root failed: cmake's messages are in the group above"
    fi
    echo "::endgroup::"
    mkdir -p "$cache_dir"
    rm -f "$cache_dir/key"
    cp "$dir/smcheck" "$cache_dir/smcheck.new"
    mv -f "$cache_dir/smcheck.new" "$cache_dir/smcheck"
    printf '%s\n' "$key" >"$cache_dir/key"
    log "built in $((SECONDS - start)) s"
}

if [ "${1:-}" = --prepare ]; then
    output mode "$mode"
    if [ "$mode" = source ]; then
        key=$(cache_key)
        output cache-dir "$cache_dir"
        output cache-key "$key"
    fi
    exit 0
fi

# --- smcheck, as the mode says ---
case $mode in
bin) smcheck=$SMCHECK_BIN ;;
source)
    key=$(cache_key)
    smcheck=
    if [ -x "$cache_dir/smcheck" ] && [ "$(cat "$cache_dir/key" 2>/dev/null)" = "$key" ]; then
        # A restored cache on a fresh runner: the binary may need the libraries' packages first.
        "$cache_dir/smcheck" --version >/dev/null 2>&1 || build_packages
        if "$cache_dir/smcheck" --version >/dev/null 2>&1; then
            log "using the smcheck built before: $cache_dir/smcheck ($key)"
            smcheck=$cache_dir/smcheck
        fi
    fi
    if [ -z "$smcheck" ]; then
        build
        smcheck=$cache_dir/smcheck
    fi
    ;;
wheel | pypi)
    venv=${RUNNER_TEMP:-$tmp}/smcheck-venv
    python_venv "$venv"
    pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
    if [ "$mode" = wheel ]; then
        log "installing $wheel into $venv"
        "${pip[@]}" "$wheel" || fail "pip could not install the wheel $wheel"
    else
        # smcheck-cuda, never smcheck: that name on PyPI is another project's.
        log "installing smcheck-cuda${version:+==$version} from PyPI into $venv"
        "${pip[@]}" --only-binary smcheck-cuda "smcheck-cuda${version:+==$version}" ||
            fail "pip could not install smcheck-cuda${version:+==$version}"
    fi
    smcheck=$venv/bin/smcheck
    [ -x "$smcheck" ] || fail "the $mode install left no smcheck command in $venv/bin"
    ;;
esac
"$smcheck" --version

# --- the inputs, split without a shell ---
# paths: one a line, surrounding blanks trimmed, empty lines skipped; a line with *, ? or [ that is
# not itself an existing path is a bash glob (** too) when it matches, else passed on as it is, so
# that smcheck names what is missing.
paths=()
add_glob() {
    local IFS=
    local -a matches
    shopt -s nullglob globstar
    # shellcheck disable=SC2206 # globbing wanted; IFS is empty, so no word splitting
    matches=($1)
    shopt -u nullglob globstar
    if [ "${#matches[@]}" -gt 0 ]; then
        paths+=("${matches[@]}")
    else
        paths+=("$1")
    fi
}
while IFS= read -r line || [ -n "$line" ]; do
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    [ -n "$line" ] || continue
    case $line in
    *[*?[]*) if [ -e "$line" ]; then paths+=("$line"); else add_glob "$line"; fi ;;
    *) paths+=("$line") ;;
    esac
done <<<"${SMCHECK_PATHS:-}"
[ "${#paths[@]}" -gt 0 ] || paths=(.)
# args: split by xargs, which keeps '...' and "..." and \ as a shell does and runs, globs and
# substitutes nothing ($(...) and `...` stay text).
extra=()
if [ -n "${SMCHECK_ARGS:-}" ]; then
    printf '%s' "$SMCHECK_ARGS" | xargs -r printf '%s\0' >"$tmp/args" 2>"$tmp/args.err" ||
        fail "args: $(head -1 "$tmp/args.err"): quote as in a shell"
    mapfile -t -d '' extra <"$tmp/args"
fi

args=() # no --quiet: the notes and warnings belong in the log (progress shows only on a terminal)
[ -z "${SMCHECK_GPUS:-}" ] || args+=(--gpu "$SMCHECK_GPUS")
[ -z "${SMCHECK_DRIVER:-}" ] || args+=(--driver "$SMCHECK_DRIVER")
[ -z "${SMCHECK_FAIL_ON:-}" ] || args+=(--fail-on "$SMCHECK_FAIL_ON")
sarif=${SMCHECK_SARIF_FILE:-}
if [ -n "$sarif" ]; then
    rm -f -- "$sarif" # what is there after the run is this run's
    args+=(--sarif "$sarif")
fi

# --- one run: the text report to the log, the SARIF report to its file ---
# The command as run, the user information of any URL in it hidden as smcheck hides it.
{
    printf '+ smcheck'
    printf ' %q' "${args[@]}" "${extra[@]}" -- "${paths[@]}"
    printf '\n'
} | sed -E 's|(://)[^/?#[:space:]"'"'"'<>`]*@|\1***@|g' # %q's backslashes stay inside
status=0
"$smcheck" "${args[@]}" "${extra[@]}" -- "${paths[@]}" || status=$?
[ -z "$sarif" ] || [ -s "$sarif" ] || sarif=
output exit-code "$status"
output sarif-file "$sarif"
exit "$status"
