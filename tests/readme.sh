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
	make -s -C "$top_builddir" install DESTDIR="$tmp/inst" >"$tmp/inst.log" 2>&1
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
	*"-o prog.d"* | *"-o threads.d"* | *"-o new.d"*)
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
	*"-o prog.callgrind"*)
		check "prog.callgrind reads back" "$PROFCONV" info "$w/prog.callgrind" ;;
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
# the thread files gave a profile each
"$PROFCONV" info "$w/threads.d" >"$tmp/info" 2>&1
grep -q '^3 profiles:' "$tmp/info" && ok "threads.d holds the 3 thread profiles" ||
	{ not_ok "threads.d: not 3 profiles"; sed 's/^/# /' "$tmp/info" | head; }
done_testing
