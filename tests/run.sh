#!/bin/sh
# The whole test suite: a fresh build in build-check/ with -Werror,
# AddressSanitizer and UBSan (with clang when it is there: its UBSan
# also catches offsets on NULL), then `make check`; then a plain build
# in build-memcheck/ runs the command-line tests under valgrind's
# memcheck (if valgrind is there), and `make distcheck` from it. Ends
# with the line "N passed, N failed" (skips counted apart). Exit status
# 0 only if all passed.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; echo "0 passed, 1 failed"; exit 1; }
fi
if [ -f config.status ]; then
	echo "the source tree is configured in place; run 'make distclean' first"
	echo "0 passed, 1 failed"
	exit 1
fi
cc=
command -v clang >/dev/null && cc=clang
rm -rf build-check && mkdir build-check && cd build-check || exit 1
if ! ../configure -q --enable-werror --enable-sanitizers ${cc:+CC=$cc} ||
	! make -j2 >build.log 2>&1; then
	tail -30 build.log 2>/dev/null
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi
make -j2 check >check.log 2>&1
rc=$?
grep -E '^(FAIL|ERROR|XPASS)' check.log
sed -n '/^# TOTAL/,/^# ERROR/p' check.log
trs=$(find "$top/build-check/tests" -name '*.trs')
if command -v valgrind >/dev/null; then
	memcheck_tests="tests/cli.sh tests/callgrind_bad.sh tests/reliability.sh
		tests/hpctoolkit_roundtrip.sh tests/ovni.sh tests/hpctoolkit_legacy.sh"
	cd "$top" && rm -rf build-memcheck && mkdir build-memcheck &&
		cd build-memcheck || exit 1
	if ../configure -q CFLAGS='-O1 -g' && make -j2 >build.log 2>&1; then
		echo "memcheck: $(echo $memcheck_tests)"
		PC_VALGRIND=1 make -j2 check TESTS="$(echo $memcheck_tests)" \
			>check.log 2>&1 || rc=1
		grep -E '^(FAIL|ERROR|XPASS)' check.log
		trs="$trs $(find "$top/build-memcheck/tests" -name '*.trs')"
	else
		tail -30 build.log
		echo "memcheck build failed"
		rc=1
	fi
fi
# the release tarball builds and passes its own `make check` (without
# ../shared beside it: those tests skip), counted as one test
dist=0
if [ -d "$top/build-memcheck" ] && cd "$top/build-memcheck"; then
	if make distcheck >distcheck.log 2>&1; then
		dist=1
		echo "distcheck: ok"
	else
		grep -E '^(FAIL|ERROR)' distcheck.log
		tail -20 distcheck.log
		echo "distcheck: failed"
		rc=1
	fi
fi
passed=$dist; failed=0; skipped=0
for t in $trs; do
	passed=$((passed + $(grep -c '^:test-result: PASS' "$t")))
	skipped=$((skipped + $(grep -c '^:test-result: SKIP' "$t")))
	failed=$((failed + $(grep -c -E '^:test-result: (FAIL|ERROR|XPASS)' "$t")))
done
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	tail -30 check.log
	failed=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
