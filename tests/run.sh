#!/bin/sh
# The whole test suite: a fresh build in build-check/ with -Werror,
# AddressSanitizer and UBSan (with clang when it is there: its UBSan
# also catches offsets on NULL) runs `make check`; a plain build in
# build-memcheck/ runs `make distcheck` meanwhile, then the command-line
# tests under valgrind's memcheck (if valgrind is there), so that the
# machine's cores stay busy. One line per test script as it finishes, with the
# reason of every SKIP and the lines of every failure. Ends with the line
# "N passed, N failed" (skips counted apart). Exit status 0 only if all
# passed.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
start=$(date +%s)
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; echo "0 passed, 1 failed"; exit 1; }
fi
if [ -f config.status ]; then
	echo "the source tree is configured in place; run 'make distclean' first"
	echo "0 passed, 1 failed"
	exit 1
fi
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -ge 2 ] || jobs=2

# watch DIR FLAG: prints a line for each test script of DIR/tests as its
# .trs appears (its counts, its SKIP reasons, its failures), until FLAG
# exists and every script seen so far is printed
watch() {
	seen=" "
	while :; do
		last=0
		[ -e "$2" ] && last=1
		for t in $(find "$1/tests" -name '*.trs' 2>/dev/null | sort); do
			case $seen in *" $t "*) continue ;; esac
			seen="$seen$t "
			report_trs "$t"
		done
		[ $last = 1 ] && break
		sleep 1
	done
}
report_trs() {
	log=${1%.trs}.log
	name=${1#"$top"/build-*/}
	p=$(grep -c '^:test-result: PASS' "$1")
	s=$(grep -c '^:test-result: SKIP' "$1")
	f=$(grep -c -E '^:test-result: (FAIL|ERROR|XPASS)' "$1")
	v=PASS
	[ "$f" -gt 0 ] && v=FAIL
	printf '%-4s %s (%s): %d passed, %d failed, %d skipped\n' "$v" \
		"${name%.trs}" "$phase" "$p" "$f" "$s"
	grep -E '^ok [0-9]+ - # SKIP' "$log" | sed 's/^ok [0-9]* - # SKIP */skip: /' |
		sort | uniq -c | awk '{ n = $1; $1 = ""; sub(/^ /, "")
			print "    " $0 (n > 1 ? " (x" n ")" : "") }'
	if [ "$f" -gt 0 ]; then
		grep -E -A6 '^not ok|^ERROR' "$log" | head -40 | sed 's/^/    /'
	fi
}

cc=
command -v clang >/dev/null && cc=clang
# both builds first: then distcheck (from the plain one) runs beside the
# sanitizer tests and the memcheck tests, and the two cores stay busy
rm -rf build-check build-memcheck && mkdir build-check build-memcheck || exit 1
echo "building with -Werror, AddressSanitizer and UBSan in build-check/, plain in build-memcheck/ ..."
cd "$top/build-check" || exit 1
if ! ../configure -q --enable-werror --enable-sanitizers ${cc:+CC=$cc} ||
	! make -j"$jobs" >build.log 2>&1; then
	tail -30 build.log 2>/dev/null
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi
cd "$top/build-memcheck" || exit 1
plain=1
if ! ../configure -q CFLAGS='-O1 -g' || ! make -j"$jobs" >build.log 2>&1; then
	tail -30 build.log
	echo "plain build failed"
	plain=0
fi
built=$(date +%s)
dist=0
if [ $plain = 1 ]; then
	(make distcheck >distcheck.log 2>&1; rc=$?; date +%s >distcheck.end; exit $rc) &
	dpid=$!
fi
cd "$top/build-check" || exit 1
rm -f "$top/build-check/done"
phase=asan
watch "$top/build-check" "$top/build-check/done" &
wpid=$!
make -j"$jobs" check >check.log 2>&1
rc=$?
asan_end=$(date +%s)
[ $plain = 1 ] || rc=1
touch "$top/build-check/done"
wait $wpid
trs=$(find "$top/build-check/tests" -name '*.trs')

if [ $plain = 1 ]; then
	cd "$top/build-memcheck" || exit 1
	if command -v valgrind >/dev/null; then
		memcheck_tests="tests/hpctoolkit_legacy.sh tests/hpctoolkit_roundtrip.sh
			tests/reliability.sh tests/cli.sh tests/callgrind_bad.sh tests/ovni.sh
			tests/bounded.sh tests/outputs.sh"
		phase=memcheck
		rm -f "$top/build-memcheck/done"
		watch "$top/build-memcheck" "$top/build-memcheck/done" &
		wpid=$!
		PC_VALGRIND=1 make -j"$jobs" check TESTS="$(echo $memcheck_tests)" \
			>check.log 2>&1 || rc=1
		touch "$top/build-memcheck/done"
		wait $wpid
		mem_end=$(date +%s)
		trs="$trs $(find "$top/build-memcheck/tests" -name '*.trs')"
	fi
	# the release tarball builds and passes its own `make check`
	# (without ../shared beside it: those tests skip), one test
	if wait $dpid; then
		dist=1
		echo "PASS distcheck: the tarball builds and passes its own make check"
	else
		grep -E '^(FAIL|ERROR)|build products' distcheck.log
		tail -20 distcheck.log
		echo "FAIL distcheck"
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
	tail -30 "$top"/build-*/check.log
	failed=1
fi
end=$(date +%s)
# where the time went (phases overlap: distcheck runs beside the others)
dend=$(cat "$top/build-memcheck/distcheck.end" 2>/dev/null || echo "$end")
echo "the suite took $((end - start)) s: builds $((built - start)) s, sanitizer tests $((asan_end - built)) s, memcheck tests $((${mem_end:-$asan_end} - asan_end)) s, distcheck $((dend - built)) s beside them"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
