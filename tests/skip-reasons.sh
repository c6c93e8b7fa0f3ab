#!/bin/sh
# Run by ctest after the tests (CTEST_CUSTOM_POST_TEST, written by tests/CMakeLists.txt): names
# each test that skipped itself and says why, from its "skipped: REASON" line in ctest's log, so
# that the reason shows in ctest's normal output and not only with -V. While ctest runs, this
# run's log is LastTest.log.tmp (LastTest.log is the previous run's). Always exits 0.
# Usage: skip-reasons.sh BUILD_DIR/Testing/Temporary
log=$1/LastTest.log.tmp
[ -f "$log" ] || log=$1/LastTest.log
awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 }
     /^skipped: / { if (!shown++) print "Why tests were skipped:"; print "  " name ": " substr($0, 10) }' \
    "$log" 2>/dev/null
exit 0
