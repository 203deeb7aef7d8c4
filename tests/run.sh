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
# PC_QUICK: the heavy checks (tests/lib.sh's heavy: the big Callgrind
# fixtures laid out whole and judged, go tool pprof on their files,
# KCachegrind on every file written, MPI at every rank count) are SKIPs
# here. .ci/run runs it first, then the heavy extras: tests/extras.sh
# (those heavy checks in build-check/, the peak-memory bounds and MPI
# at 1 to 4 ranks in a plain build, make distcheck beside them),
# tests/memcheck.sh and the -Werror compiler matrix.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
start=$(date +%s)
. "$top/tests/report.sh"
suite_setup

if ! sanitizer_build; then
	echo "0 passed, 1 failed"
	exit 1
fi
built=$(date +%s)
echo "every test script at once ..."
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
# the CPU time of everything it ran (the shell's `times`: its children's
# user and system time, the build's included), which the load of the
# machine does not change as it does the wall-clock time
times >"$top/build-check/times"
cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t[i] = a[1] * 60 + a[2] }
	printf "%.0f s of CPU (%.0f user, %.0f system)", t[1] + t[2], t[1], t[2] }' "$top/build-check/times")
echo "the suite took $((end - start)) s: the build $((built - start)) s, the tests $((end - built)) s; ${cpu:-its CPU time unknown}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
