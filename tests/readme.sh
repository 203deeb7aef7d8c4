#!/bin/sh
# The README's commands, run as written, so that the README cannot drift
# from the tool: the conversion half of the Quick start's first command
# (the rest installs and builds) and every line of "Common conversions",
# in a folder that holds the bundled fixtures under the names the README
# uses (callgrind.out.1234, its thread files, old-database, ovni-trace).
# Each must exit 0, write what its comment promises and say nothing but
# notes or warnings (the fixtures have quirks); the outputs are then
# read back (check, info, gzip, a JSON parser).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
R="$top_srcdir/README"
w="$tmp/w"
mkdir -p "$w/bin" && ln -s "$PROFCONV" "$w/bin/profconv" || exit 1
cp "$TD/callgrind/small.main.out" "$w/callgrind.out.1234"
for i in 01 02 03; do
	cp "$TD/callgrind/threads.out-$i" "$w/callgrind.out.1234-$i"
done
cp -r "$TD/hpctoolkit-legacy/tiny-4.0" "$w/old-database"
cp -r "$TD/ovni/good" "$w/ovni-trace"
cp "$TD/perf/thr.txt" "$w/perf.txt"
cp "$TD/folded/thr.folded" "$w/stacks.folded"
# two runs of prog (fib(18) and fib(22)), as Callgrind files and databases
cp "$TD/callgrind/prog.default.out" "$w/before.out"
cp "$TD/callgrind/prog.n22.out" "$w/after.out"
"$PROFCONV" convert -q -o "$w/before.d" "$w/before.out" &&
	"$PROFCONV" convert -q -o "$w/after.d" "$w/after.out" || exit 1
chmod -R u+w "$w"

# runs one README command line in $w; ok when it exits 0 and prints
# nothing but notes and its last line
run_line() {
	(cd "$w" && PATH="$w/bin:$PATH" sh -c "$1") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	odd=$(grep -v -e '^profconv: note: ' -e '^profconv: warning: ' -e '^profconv: wrote ' "$tmp/err"
		grep 'KCachegrind opening' "$tmp/err")
	if [ $rc -eq 0 ] && [ -z "$odd" ]; then
		ok "README: $1"
	else
		not_ok "README: $1: exit $rc"
		sed 's/^/# /' "$tmp/err" | head -10
	fi
}

# the Quick start: its first command installs profconv and its manual
# page (make install), where the README says, for the commands that
# follow to run as written; then its conversion, with the build's binary
# on the PATH. Exactly two commands.
qs=$(grep -m1 '^    apt-get update' "$R" | sed 's/.*make -j2 && make install) && //')
case $qs in
profconv\ convert*) ;;
*) qs= ;;
esac
ncmd=$(sed -n '/^Quick start$/,/^Common conversions$/p' "$R" | grep -c '^    [^ ]')
[ "$ncmd" -eq 2 ] && ok "Quick start: two commands" || not_ok "Quick start: $ncmd commands"
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
if [ "$prefix" = /usr/local ]; then
	# make install's own steps (automake's install-binPROGRAMS and
	# install-man1), the programs taken as built: never a rebuild under
	# the tests running beside
	make -s -C "$top_builddir" -o profconv -o profconv-mpi install-binPROGRAMS install-man1 \
		DESTDIR="$tmp/inst" >"$tmp/inst.log" 2>&1
	# (README says: in /usr/local/bin and its manual page in /usr/local/share/man/man1)
	tr '\n' ' ' <"$R" | grep -q 'profconv (and profconv-mpi) in /usr/local/bin and its manual page in /usr/local/share/man/man1' &&
		[ -x "$tmp/inst/usr/local/bin/profconv" ] && [ -f "$tmp/inst/usr/local/share/man/man1/profconv.1" ] &&
		ok "make install puts profconv and its manual page where the README says" ||
		{ not_ok "make install: not where the README says"; sed 's/^/# /' "$tmp/inst.log" | head; }
	if command -v man >/dev/null; then
		check "man finds the installed page" sh -c "MANPATH='$tmp/inst/usr/local/share/man' man -w profconv | grep -q '$tmp/inst/usr/local/share/man/man1/profconv.1'"
	else
		skip "man profconv: needs man (Debian: man-db)"
	fi
else
	skip "make install's place: a build configured with --prefix=$prefix, not the README's /usr/local"
fi
if [ -n "$qs" ]; then
	mkdir -p "$w/testdata/callgrind" &&
		cp "$TD/callgrind/small.main.out" "$w/testdata/callgrind/"
	run_line "$qs"
	grep -q '^ok: sample.d: ' "$tmp/out" && ! grep -q 'note:' "$tmp/err" &&
		ok "Quick start: check says ok, and the conversion no note (0.75% of the cost off its paths)" ||
		{ not_ok "Quick start: no 'ok', or a note"; sed 's/^/# /' "$tmp/out" "$tmp/err"; }
else
	not_ok "README's Quick start: its first command no longer ends with make install) && profconv convert"
fi

# "Common conversions": every indented line that starts with profconv
sed -n '/^Common conversions$/,/^Calling context/p' "$R" |
	sed -n 's/^    \(profconv .*\)/\1/p' >"$tmp/lines"
[ "$(wc -l <"$tmp/lines")" -ge 6 ] && ok "README lists $(wc -l <"$tmp/lines") common conversions" ||
	not_ok "README's Common conversions: $(wc -l <"$tmp/lines") command lines"
while IFS= read -r line; do
	case $line in
	*callgrind_annotate*)
		command -v callgrind_annotate >/dev/null ||
			{ skip "README: $line: needs callgrind_annotate (valgrind)"; continue; } ;;
	esac
	run_line "$line"
	cmd=${line%%#*}
	case $cmd in
	*callgrind_annotate*)
		grep -q 'PROGRAM TOTALS' "$tmp/out" && ok "callgrind_annotate reads the database's Callgrind" ||
			not_ok "callgrind_annotate printed no totals" ;;
	*"-o prog.d"* | *"-o threads.d"* | *"-o new.d"* | *"-o perf.d"*)
		db=$(echo "$cmd" | sed 's/.*-o \([^ ]*\).*/\1/')
		check "$db is a database check accepts" "$PROFCONV" check --strict "$w/$db" ;;
	*"info "*)
		grep -q '^input: callgrind.out.1234 (callgrind)' "$tmp/out" && ok "info names the format" ||
			not_ok "info: $(head -3 "$tmp/out")" ;;
	*"-o prog.pb.gz"*)
		check "prog.pb.gz is gzip" gzip -t "$w/prog.pb.gz" ;;
	*"-o prog.folded"*)
		[ -s "$w/prog.folded" ] && ! grep -qv ' [0-9][0-9]*$' "$w/prog.folded" &&
			ok "prog.folded: 'stack count' lines" || not_ok "prog.folded: other lines" ;;
	*"-o prog.svg"*)
		check "prog.svg is XML" /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$w/prog.svg" ;;
	*"-o prog.callgrind"* | *"-o stacks.callgrind"*)
		out=$(echo "$cmd" | sed 's/.*-o \([^ ]*\).*/\1/')
		check "$out reads back" "$PROFCONV" info "$w/$out" ;;
	*"-o change.svg"*)
		check "change.svg is XML, a differential flame graph" sh -c "grep -q 'Red: grew from BASE' '$w/change.svg' &&
			/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '$w/change.svg'" ;;
	*"-o change.d"*)
		check "change.d: a database with BASE, NEW and NEW-BASE columns" sh -c \
			"'$PROFCONV' check --values '$w/change.d' | grep -q '^total	Ir \[new-base\]	710689\$'" ;;
	*"-o trace.json"*)
		check "trace.json is JSON" perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; decode_json(<$f>)' "$w/trace.json" ;;
	*) not_ok "README: no check for: $line" ;;
	esac
done <"$tmp/lines"
# KCachegrind loads every file whose name starts with the one opened:
# the README's Callgrind outputs are named *.callgrind, not
# callgrind.out.NAME (callgrind.out.prog2 would load with
# callgrind.out.prog), and none warned of such a name
bad=$(sed 's/#.*//' "$tmp/lines" | grep -o -- '-o [^ ]*' | grep -v -e '-o -$' -e '\.d$' -e '\.pb\.gz$' -e '\.folded$' -e '\.svg$' -e '\.json$' -e '\.callgrind$')
[ -z "$bad" ] && ok "README: the Callgrind outputs are named *.callgrind" ||
	not_ok "README: Callgrind outputs named otherwise: $bad"
# the README promises the reason of every SKIP, naming what is really
# missing: hpctoolkit_real.sh without ../shared (it skipped with none),
# and the reasons of the Go and Chromium judges from what lib.sh finds
# (they named Go and Chromium where both were installed)
SHARED="$tmp/no-shared" sh "$top_srcdir/tests/hpctoolkit_real.sh" >"$tmp/real" 2>&1
grep -q '^ok 1 - # SKIP .*needs ../shared/hpctoolkit-data' "$tmp/real" &&
	ok "hpctoolkit_real.sh without ../shared: a SKIP with its reason" ||
	{ not_ok "hpctoolkit_real.sh: no SKIP reason"; sed 's/^/# /' "$tmp/real"; }
lit=$(grep -n 'skip ".*\(needs go\|golang-go\|needs Go\|/usr/bin/chromium\|npm ci\)' "$top_srcdir"/tests/*.sh | grep -v -e '^[^:]*/lib.sh:' -e '^[^:]*/readme.sh:')
[ -z "$lit" ] && ok "no SKIP reason names Go or Chromium outright (lib.sh says which is missing)" ||
	not_ok "SKIP reasons that name Go or Chromium whatever is missing: $lit"
have_chromium no-such-module
case $chromium_why in
*"no-such-module in tests/speedscope/node_modules"*) r=ok ;;
*) r=bad ;;
esac
case $chromium_why in *chromium\ \(Debian*) [ -x /usr/bin/chromium ] && r=bad ;; *) [ -x /usr/bin/chromium ] || r=bad ;; esac
case $chromium_why in *node\ \(Debian*) command -v node >/dev/null && r=bad ;; *) command -v node >/dev/null || r=bad ;; esac
[ $r = ok ] && ok "a missing npm module: the reason names it, and Chromium or node only where missing" ||
	not_ok "chromium_why: $chromium_why"
# one test script at a time: the README's command for it, and `sh
# tests/x.sh` finds the build (build/, else build-check/) or says there
# is none; tests/run.sh takes the Quick start's build/ (made as the
# Quick start makes it where there is none), tests/extras.sh reuses
# build-check/ configured as it would
grep -q '^    make -C build check TESTS=tests/outputs.sh$' "$R" &&
	ok "README: make -C build check TESTS=tests/outputs.sh runs one test script" ||
	not_ok "README: no command for one test script"
mkdir -p "$tmp/st/tests" && cp "$top_srcdir/tests/lib.sh" "$top_srcdir/tests/report.sh" "$tmp/st/tests/" &&
	printf '. "$(dirname "$0")/lib.sh"\nok "built in $top_builddir"\ndone_testing\n' >"$tmp/st/tests/x.sh"
(unset top_srcdir top_builddir; cd "$tmp/st" && sh tests/x.sh) >"$tmp/st.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q '^Bail out! no profconv in .*: build it first (the README.s Quick start builds in build/), or set top_builddir=DIR' "$tmp/st.out" &&
	ok "sh tests/x.sh without a build: exit $rc, says to build first or set top_builddir" ||
	{ not_ok "sh tests/x.sh without a build: exit $rc"; sed 's/^/# /' "$tmp/st.out"; }
mkdir -p "$tmp/st/build-check" "$tmp/st/build" && ln -s "$PROFCONV" "$tmp/st/build-check/profconv"
(unset top_srcdir top_builddir; cd "$tmp/st" && sh tests/x.sh) >"$tmp/st.out" 2>&1
grep -q "^ok 1 - built in $tmp/st/build-check\$" "$tmp/st.out" && ln -s "$PROFCONV" "$tmp/st/build/profconv" &&
	(unset top_srcdir top_builddir; cd "$tmp/st" && sh tests/x.sh) | grep -q "^ok 1 - built in $tmp/st/build\$" &&
	ok "sh tests/x.sh: build/'s profconv, else build-check/'s" ||
	{ not_ok "sh tests/x.sh: not the build"; sed 's/^/# /' "$tmp/st.out"; }
args="-q --enable-werror --enable-sanitizers CC=clang"
(cd "$tmp/st" && : >configure && : >build-check/Makefile && echo "$args" >build-check/configured &&
	. tests/report.sh && reusable build-check "$args" && ! reusable build-check "-q" &&
	touch -d '+1 min' configure && ! reusable build-check "$args" &&
	rm -r build-check && ! reusable build-check "$args") &&
	ok "extras.sh reuses build-check/ configured so since configure was made (else, and in a fresh clone, a new one)" ||
	not_ok "extras.sh's reuse of build-check/"
# (a configure that records its arguments and writes a Makefile whose
# make records that it ran)
rm -rf "$tmp/st/build" && printf '#!/bin/sh\necho "$*" >configured-with\nprintf "all:\\n\\techo made >>made\\n" >Makefile\n: >config.status\n' >"$tmp/st/configure" &&
	chmod +x "$tmp/st/configure" &&
	(cd "$tmp/st" && jobs=2 && . tests/report.sh && quick_build) >/dev/null 2>&1 &&
	[ "$(cat "$tmp/st/build/configured-with")" = "-q" ] && [ "$(cat "$tmp/st/build/made")" = made ] &&
	rm "$tmp/st/build/configured-with" &&
	(cd "$tmp/st" && jobs=2 && . tests/report.sh && quick_build) >/dev/null 2>&1 &&
	[ ! -e "$tmp/st/build/configured-with" ] && [ "$(cat "$tmp/st/build/made")" = "made
made" ] &&
	ok "run.sh makes build/ as the Quick start does (../configure, make) where there is none, then only runs make there" ||
	not_ok "run.sh's build/"
# CONTRIBUTING: where each format lives (every file it names exists),
# one test, a fixture, byte-identical outputs, the outside judges
C="$top_srcdir/CONTRIBUTING"
if [ -f "$C" ]; then
	gone=""
	for f in $(grep -o '\(^\|[ (]\)\(src\|importers\|exporters\|tests\|bench\|testdata\)/[A-Za-z0-9_.*/-]*[A-Za-z0-9_*]' "$C" |
		sed 's/^[ (]//' | grep -v -e '[*]' -e 'FORMAT' -e '/x\.sh$' -e '_$' | sort -u); do
		[ -e "$top_srcdir/$f" ] || [ -e "$top_builddir/$f" ] || gone="$gone $f"
	done
	missing=""
	for word in "make -C build check TESTS=tests/" "sh bench/identical.sh" "testdata/FORMAT/" \
		"npm ci" "setup-hpcviewer-judge.sh" "go tool pprof" "callgrind_annotate" "KCachegrind" \
		"importers/callgrind.c" "exporters/svg.c" "importers/ovni" "importers/dcpi.c"; do
		grep -q -F -- "$word" "$C" || missing="$missing '$word'"
	done
	[ -z "$gone$missing" ] && ok "CONTRIBUTING: formats' files (all there), one test, fixtures, identical outputs, judges" ||
		not_ok "CONTRIBUTING: files not there:$gone; not said:$missing"
else
	not_ok "no CONTRIBUTING"
fi
# the thread files gave a profile each
"$PROFCONV" info "$w/threads.d" >"$tmp/info" 2>&1
grep -q '^3 profiles:' "$tmp/info" && ok "threads.d holds the 3 thread profiles" ||
	{ not_ok "threads.d: not 3 profiles"; sed 's/^/# /' "$tmp/info" | head; }
done_testing
