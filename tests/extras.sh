#!/bin/sh
# What .ci/run adds to the README's test command (tests/run.sh: the
# quick check in the Quick start's plain build, heavy checks SKIPs):
# in a plain build in build-plain/, the peak-memory bounds of the
# generated inputs (tests/bounded.sh: a sanitizer's shadow memory would
# break them) and MPI at 1 to 4 ranks (tests/mpi.sh), with `make
# distcheck` beside them (the release tarball builds and passes its own
# make check) so that the two cores stay busy; then the -j tests
# (tests/jobs.sh) in a ThreadSanitizer build in build-tsan/; then the
# whole suite, the heavy checks included (tests/lib.sh's heavy), under
# AddressSanitizer and UBSan with -Werror (build-check/, brought up to
# date or made). One line per test script as it finishes. Ends with "N
# passed, N failed" (skips counted apart); exit status 0 only if all
# passed.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
start=$(date +%s)
. "$top/tests/report.sh"
suite_setup

echo "building plain in build-plain/, then make distcheck beside the peak-memory and MPI tests ..."
if ! plain_build build-plain; then
	echo "0 passed, 1 failed"
	exit 1
fi
(make distcheck >distcheck.log 2>&1; rc=$?; date +%s >distcheck.end; exit $rc) &
dpid=$!
built=$(date +%s)
run_phase "$top/build-plain" plain TESTS="tests/bounded.sh tests/mpi.sh"
rc=$?
# the -j tests in a ThreadSanitizer build: a data race report fails the
# conversion it is in (exit 66), and with it the test
cd "$top" || exit 1
if ! plain_build build-tsan CFLAGS='-O1 -g -fsanitize=thread' \
	LDFLAGS=-fsanitize=thread; then
	rc=1
else
	TSAN_OPTIONS="halt_on_error=1:exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
	export TSAN_OPTIONS
	run_phase "$top/build-tsan" tsan TESTS="tests/jobs.sh" || rc=1
fi
# every test script (but mpi.sh, whole in build-plain/ above), every
# check of them, under AddressSanitizer and UBSan
cd "$top" || exit 1
all_tests=$(sed -n '/^SH_TESTS = /,/^TESTS = /p' Makefile.am | grep -o 'tests/[a-z0-9_]*\.sh' | grep -v '/mpi.sh$' | tr '\n' ' ')
find "$top/build-check/tests" -name '*.trs' -exec rm -f {} + 2>/dev/null
if ! sanitizer_build; then
	rc=1
else
	browser_start
	run_phase "$top/build-check" asan TESTS="tests/test_model $all_tests" 8>&- || rc=1
	browser_stop
fi
dist=0
if wait $dpid; then
	dist=1
	echo "PASS distcheck: the tarball builds and passes its own make check"
else
	grep -E '^(FAIL|ERROR)|build products' "$top/build-plain/distcheck.log"
	tail -20 "$top/build-plain/distcheck.log"
	echo "FAIL distcheck"
	rc=1
fi
passed=$dist; failed=0; skipped=0
sum_trs $(find "$top/build-plain/tests" "$top/build-tsan/tests" "$top/build-check/tests" -name '*.trs' 2>/dev/null)
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	tail -30 "$top/build-plain/check.log" 2>/dev/null
	failed=1
fi
end=$(date +%s)
dend=$(cat "$top/build-plain/distcheck.end" 2>/dev/null || echo "$end")
echo "the extras took $((end - start)) s: the build $((built - start)) s, the tests $((end - built)) s, distcheck $((dend - built)) s beside them"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
