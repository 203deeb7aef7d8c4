#!/bin/sh
# The whole test suite: a fresh build in build-check/ with -Werror,
# AddressSanitizer and UBSan (with clang when it is there: its UBSan
# also catches offsets on NULL) runs `make check`; a plain build in
# build-plain/ runs `make distcheck` meanwhile, then the tests that
# need a build without sanitizers (peak memory), so that the machine's
# cores stay busy. One line per test script as it finishes, with the
# reason of every SKIP and the lines of every failure. Ends with the line
# "N passed, N failed" (skips counted apart). Exit status 0 only if all
# passed. The command-line tests under valgrind's memcheck are
# tests/memcheck.sh (.ci/run runs both).
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
start=$(date +%s)
. "$top/tests/report.sh"
suite_setup

cc=
command -v clang >/dev/null && cc=clang
# the plain build first: distcheck (from it) then runs beside the
# sanitizer build and its tests, and the two cores stay busy
rm -rf build-check && mkdir build-check || exit 1
echo "building plain in build-plain/ (then make distcheck beside the rest), with -Werror, AddressSanitizer and UBSan in build-check/ ..."
plain=1 dist=0 dpid=
if ! plain_build build-plain; then
	plain=0
else
	(make distcheck >distcheck.log 2>&1; rc=$?; date +%s >distcheck.end; exit $rc) &
	dpid=$!
fi
dstart=$(date +%s)
cd "$top/build-check" || exit 1
if ! ../configure -q --enable-werror --enable-sanitizers ${cc:+CC=$cc} ||
	! make -j"$jobs" >build.log 2>&1; then
	tail -30 build.log 2>/dev/null
	echo "build failed"
	[ -z "$dpid" ] || wait "$dpid"
	echo "0 passed, 1 failed"
	exit 1
fi
built=$(date +%s)
run_phase "$top/build-check" asan
rc=$?
asan_end=$(date +%s)
trs=$(find "$top/build-check/tests" -name '*.trs')
if [ $plain = 1 ]; then
	# the peak memory bounds, which a sanitizer's shadow would break
	run_phase "$top/build-plain" plain TESTS=tests/bounded.sh || rc=1
	trs="$trs $(find "$top/build-plain/tests" -name '*.trs')"
	# the release tarball builds and passes its own `make check`
	# (without ../shared beside it: those tests skip), one test
	if wait $dpid; then
		dist=1
		echo "PASS distcheck: the tarball builds and passes its own make check"
	else
		grep -E '^(FAIL|ERROR)|build products' "$top/build-plain/distcheck.log"
		tail -20 "$top/build-plain/distcheck.log"
		echo "FAIL distcheck"
		rc=1
	fi
else
	rc=1
fi
passed=$dist; failed=0; skipped=0
sum_trs $trs
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	tail -30 "$top"/build-check/check.log "$top"/build-plain/check.log 2>/dev/null
	failed=1
fi
end=$(date +%s)
# where the time went (distcheck runs beside the tests)
dend=$(cat "$top/build-plain/distcheck.end" 2>/dev/null || echo "$end")
echo "the suite took $((end - start)) s: builds $((built - start)) s, sanitizer tests $((asan_end - built)) s, plain-build tests $((end - asan_end)) s, distcheck $((dend - dstart)) s beside them"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
