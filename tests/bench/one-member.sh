#!/usr/bin/env bash
# one-member.sh [SMCHECK] [OUTDIR]
# One huge member on more than one thread (issue 11, item 3): wheel-vs-inflate.sh on a wheel of a
# single large library (BENCH_LIBS, default libcublasLt.so.13 of the CUDA toolkit: 541 MB, 330 MB
# deflated), with -j1 (ISA-L, in order), -j2 (one helper thread: pinflate.c) and -j3 (two). Its
# report adds the line "one member: -j2 ..x -j1; ..x the ISA-L floor (one thread)".
# Same arguments and environment as wheel-vs-inflate.sh.
set -euo pipefail
export BENCH_LIBS=${BENCH_LIBS:-libcublasLt.so.13} BENCH_JOBS=${BENCH_JOBS:-1 2 3} BENCH_ONE_MEMBER=1
exec bash "$(dirname "$0")/wheel-vs-inflate.sh" "$@"
