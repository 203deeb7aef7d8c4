#!/bin/sh
# The README's test command: the quick, complete functional check. A
# build with -Werror, AddressSanitizer and UBSan in build-check/ (made
# anew the first time or when configure changed; after, only what
# changed is rebuilt)
# (with clang when it is there: its UBSan also catches offsets on NULL)
# runs every test script at once on all cores (`make check`), MPI at 2
# and 3 ranks. One line per test script as it finishes, with the reason
# of every SKIP and the lines of every failure. Ends with "N passed, N
# failed" (skips counted apart); exit status 0 only if all passed. Some
# two minutes on an idle 2-core machine.
#
# .ci/run runs it first, then the heavy extras: tests/extras.sh (the
# peak-memory bounds and MPI at 1 to 4 ranks in a plain build, make
# distcheck beside them), tests/memcheck.sh and the -Werror compiler
# matrix.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
start=$(date +%s)
. "$top/tests/report.sh"
suite_setup

cc=
command -v clang >/dev/null && cc=clang
# build-check/ is reused when it was configured so, after configure was
# last made: make then rebuilds what changed since (a fresh clone, as
# CI's, or a configure made anew builds it from scratch)
args="-q --enable-werror --enable-sanitizers${cc:+ CC=$cc}"
if reusable build-check "$args"; then
	echo "building what changed with -Werror, AddressSanitizer and UBSan in build-check/, then every test script at once ..."
	cd build-check || exit 1
	configured=:
else
	echo "building with -Werror, AddressSanitizer and UBSan in build-check/, then every test script at once ..."
	rm -rf build-check && mkdir build-check && cd build-check || exit 1
	configured="../configure $args"
fi
# (the arguments split on blanks, as written above)
# shellcheck disable=SC2086
if ! $configured || ! echo "$args" >configured ||
	! make -j"$jobs" >build.log 2>&1; then
	rm -f configured
	tail -30 build.log 2>/dev/null
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi
built=$(date +%s)
PC_QUICK=1
export PC_QUICK
run_phase "$top/build-check" asan
rc=$?
passed=0; failed=0; skipped=0
sum_trs $(find "$top/build-check/tests" -name '*.trs')
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	tail -30 "$top/build-check/check.log"
	failed=1
fi
end=$(date +%s)
echo "the suite took $((end - start)) s: the build $((built - start)) s, the tests $((end - built)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
