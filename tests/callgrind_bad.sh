#!/bin/sh
# Malformed Callgrind inputs: exit status 1, no crash, and the first line
# of stderr equal to the expected one (bad/NAME.err), which names the
# file and line.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
cd "$TD/callgrind/bad" || exit 1
for f in *.out *.out.gz; do
	"$PROFCONV" dump -f callgrind "$f" >/dev/null 2>"$tmp/err"
	rc=$?
	first=$(head -n 1 "$tmp/err")
	want=$(cat "${f%.gz}.err" 2>/dev/null || cat "$f.err")
	if [ "$rc" -eq 1 ] && [ "$first" = "$want" ]; then
		ok "$f: $want"
	else
		not_ok "$f: exit $rc"
		echo "# got:  $first"
		echo "# want: $want"
	fi
done
done_testing
