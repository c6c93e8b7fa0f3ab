#!/bin/sh
# Runs one fuzz target for SECONDS on its seed corpora: new inputs go to a work directory (the
# seeds stay as they are), crashes to fuzz-artifacts/ beside it. An input that takes more than
# FUZZ_TIMEOUT seconds (5) fails the run: that is how quadratic time shows on inputs of a few
# kilobytes to a megabyte. Usage: run.sh TARGET SECONDS SEED...
set -eu
target=$1 seconds=$2
shift 2
work=fuzz-work/$(basename "$target")
mkdir -p "$work" fuzz-artifacts
exec "$target" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-5}" -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=fuzz-artifacts/"$(basename "$target")"- "$work" "$@"
