#!/bin/sh
# The pre-commit hook of .pre-commit-hooks.yaml, run by pre-commit itself (Debian's pre-commit, or
# PyPI's) against a temporary git repository: a requirements.txt that pins a wheel without code
# for the fleet's GPU is refused; the same lock with a fleet it runs on passes; a broken fleet
# fails closed. Skipped (77) without pre-commit.
# Usage: precommit.sh SMCHECK SOURCE_DIR. Prints "N passed, M failed".
set -u
smcheck=$1 src=$2
command -v pre-commit >/dev/null 2>&1 || { echo "skipped: no pre-commit (Debian: pre-commit)"; exit 77; }
command -v git >/dev/null 2>&1 || { echo "skipped: no git"; exit 77; }
. "$(dirname "$0")/lib.sh"
all() { for c in "$@"; do eval "$c" || return 1; done; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/repo"
ln -s "$smcheck" "$work/bin/smcheck"
export PATH="$work/bin:$PATH" PRE_COMMIT_HOME="$work/cache" HOME="$work" SMCHECK_LIBCUDA=/nonexistent
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
unset VIRTUAL_ENV CONDA_PREFIX
fleet() { # GPUS
    printf '[tool.smcheck]\nfail-on = "none"\n\n[[tool.smcheck.targets]]\nname = "fleet"\ngpus = "%s"\ndriver = "13.0"\n' "$1" \
        >"$work/repo/pyproject.toml"
}
cd "$work/repo" || exit 1
git init -q .
printf '%s\n' "$src"/fixtures/demo/demo_sm80_sm90-*.whl >requirements.txt
fleet rtx-5090
git add -A
hook() { out=$(pre-commit try-repo "$src" smcheck-locks --files requirements.txt 2>&1); status=$?; }
hook
check "a lock pinning a wheel without code for the fleet's RTX 5090: refused" all 'status_is 1' \
    'has "$out" "sm_120 none"' 'has "$out" "Failed"'
fleet h100
hook
check "the same lock, a fleet of H100s it runs on: passes" all 'status_is 0' 'has "$out" "Passed"'
printf '[tool.smcheck]\n' >pyproject.toml
hook
check "a fleet with no targets: the hook fails closed" all 'status_is 1' \
    'has "$out" "declares no targets"'
printf 'x = 1\n' >notes.txt
out=$(pre-commit try-repo "$src" smcheck-locks --files notes.txt 2>&1)
check "a commit without a lock file: the hook is skipped" has "$out" "(no files to check)Skipped"
finish
