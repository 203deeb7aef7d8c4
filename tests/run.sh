#!/bin/sh
# The README's test command: the quick, complete functional check, in
# the Quick start's build (build/, configured as it configures it; made
# here the first time, as in a fresh clone; after, only what changed is
# rebuilt): every test script at once on all cores (`make check`), MPI
# at 2 and 3 ranks, one page in Chromium (escape.sh's SVGs). One line
# per test script as it finishes, with the
# reason of every SKIP and the lines of every failure. Ends with "N
# passed, N failed" (skips counted apart); exit status 0 only if all
# passed; prints the CPU time it took (the build's included).
#
# PC_QUICK: the heavy checks (tests/lib.sh's heavy: the big Callgrind
# fixtures laid out whole and judged, go tool pprof and Chromium on
# their files, KCachegrind on every file written, MPI at every rank
# count, the peak-memory bounds) are SKIPs here. .ci/run runs it first,
# then the extras (tests/extras.sh): the whole suite, heavy checks
# included, under AddressSanitizer and UBSan with -Werror (build-check/),
# the peak-memory bounds and MPI at 1 to 4 ranks in a plain build, make
# distcheck beside them, ThreadSanitizer on the -j tests; then
# tests/memcheck.sh and the -Werror compiler matrix.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
start=$(date +%s)
. "$top/tests/report.sh"
suite_setup

if ! quick_build; then
	echo "0 passed, 1 failed"
	exit 1
fi
built=$(date +%s)
echo "every test script at once ..."
PC_QUICK=1
export PC_QUICK
# (no browser for the whole run: the quick check opens one page in
# Chromium, whose judge starts its own; a browser kept for the whole
# run spent some 7 s of CPU idling beside it. The extras share one.)
run_phase "$top/build" quick
rc=$?
passed=0; failed=0; skipped=0
sum_trs $(find "$top/build/tests" -name '*.trs')
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	tail -30 "$top/build/check.log"
	failed=1
fi
end=$(date +%s)
# the CPU time of everything it ran (the shell's `times`: its children's
# user and system time, the build's included), which the load of the
# machine does not change as it does the wall-clock time
times >"$top/build/times"
cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t[i] = a[1] * 60 + a[2] }
	printf "%.0f s of CPU (%.0f user, %.0f system)", t[1] + t[2], t[1], t[2] }' "$top/build/times")
echo "the suite took $((end - start)) s: the build $((built - start)) s, the tests $((end - built)) s; ${cpu:-its CPU time unknown}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
