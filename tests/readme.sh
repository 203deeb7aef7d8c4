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
	odd=$(grep -v -e '^profconv: note: ' -e '^profconv: warning: ' -e '^profconv: wrote ' "$tmp/err")
	if [ $rc -eq 0 ] && [ -z "$odd" ]; then
		ok "README: $1"
	else
		not_ok "README: $1: exit $rc"
		sed 's/^/# /' "$tmp/err" | head -10
	fi
}

# the Quick start's conversion, with the build's binary for build/profconv
qs=$(grep -m1 '^    apt-get update' "$R" | sed 's/.*make -j2) && //')
case $qs in
build/profconv\ convert*) ;;
*) qs= ;;
esac
if [ -n "$qs" ]; then
	mkdir -p "$w/build" "$w/testdata/callgrind" &&
		ln -sf "$PROFCONV" "$w/build/profconv" &&
		cp "$TD/callgrind/small.main.out" "$w/testdata/callgrind/"
	run_line "$qs"
	grep -q '^ok: sample.d: ' "$tmp/out" && grep -q '^profconv: note: the call tree' "$tmp/err" &&
		ok "Quick start: check says ok, and the conversion prints its note" ||
		{ not_ok "Quick start: no 'ok' or no note"; sed 's/^/# /' "$tmp/out" "$tmp/err"; }
else
	not_ok "README's Quick start: its first command no longer ends with build/profconv convert"
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
	*"-o callgrind.out.prog"* | *"-o callgrind.out.stacks"*)
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
# the thread files gave a profile each
"$PROFCONV" info "$w/threads.d" >"$tmp/info" 2>&1
grep -q '^3 profiles:' "$tmp/info" && ok "threads.d holds the 3 thread profiles" ||
	{ not_ok "threads.d: not 3 profiles"; sed 's/^/# /' "$tmp/info" | head; }
done_testing
