#!/bin/sh
# The data flow of DESIGN.md, checked in the code: readers never call the judge, the judge reads no
# bytes and does no I/O, printers judge nothing. Usage: structure.sh SRC_LIB_DIR
# Prints one line per rule and "N passed, M failed".
set -u
lib=$1
passed=0 failed=0
rule() { # WHAT PATTERN FILE...
    what=$1 pattern=$2
    shift 2
    hits=$(cd "$lib" && grep -nE "$pattern" "$@" | grep -v '^[^:]*:[0-9]*: *\(/\*\|\*\)')
    if [ -z "$hits" ]; then
        echo "ok     $what"
        passed=$((passed + 1))
    else
        echo "FAILED $what:"
        echo "$hits" | head -5
        failed=$((failed + 1))
    fi
}
readers="finder.c fatbin.c elf.c scan.c source.c wheel.c walk.c env.c meta.c"
rule "readers call no judge" 'smc_judge|smc_image_verdict|smc_judgement_|smc_failing_tokens' $readers
rule "the judge reads no bytes" \
    'smc_finder_|smc_payload_|smc_cubin_|smc_elf_|smc_scan_|\b(open|fopen|mmap|read|pread)\(' \
    verdict.c describe.c
rule "printers judge nothing" 'smc_judge\(|smc_image_verdict' report_text.c report_json.c summary.c
rule "one finder: no second reader of containers" 'smc_fatbin_header|smc_fatbin_entry' \
    elf.c scan.c wheel.c verdict.c describe.c report_text.c report_json.c
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
