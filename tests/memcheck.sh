#!/bin/sh
# The command-line tests again, every profconv run under valgrind's
# memcheck (tests/lib.sh, PC_VALGRIND: an error or a definite leak fails
# the run): what AddressSanitizer does not see, reads of uninitialized
# memory (bytes written to an output among them). A plain build in
# build-memcheck/; one line per test script as it finishes. Ends with
# "N passed, N failed" (skips counted apart); exit status 0 only if all
# passed. .ci/run runs it after tests/run.sh.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
start=$(date +%s)
if ! command -v valgrind >/dev/null; then
	echo "valgrind is not installed (Debian: apt-get install valgrind)"
	echo "0 passed, 1 failed"
	exit 1
fi
. "$top/tests/report.sh"
suite_setup

echo "building plain in build-memcheck/ ..."
if ! plain_build build-memcheck; then
	echo "0 passed, 1 failed"
	exit 1
fi
# the longest first, so that the two cores end together
tests="tests/hpctoolkit_roundtrip.sh tests/outputs.sh tests/hpctoolkit_legacy.sh
	tests/cli.sh tests/ovni.sh tests/reliability.sh tests/callgrind_bad.sh
	tests/bounded.sh"
PC_VALGRIND=1
export PC_VALGRIND
run_phase "$top/build-memcheck" memcheck TESTS="$(echo $tests)"
rc=$?
passed=0; failed=0; skipped=0
sum_trs $(find "$top/build-memcheck/tests" -name '*.trs')
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	tail -30 "$top/build-memcheck/check.log"
	failed=1
fi
echo "the memcheck tests took $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
