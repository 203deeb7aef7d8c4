#!/bin/sh
# The Callgrind reader takes the usual lines in place (fast_lines in
# importers/callgrind.c: cost lines, calls= and jump= lines and their
# position lines, name ids defined before or on their line: "fn=(12)",
# "fn=(12) name") and any other line by its
# general path (parse_line). A file with CRLF line ends goes through the
# general path alone (the in-place reader takes no '\r'), so each
# fixture's model (profconv dump) read from its LF and its CRLF copies
# must be the same; the fixtures cover name compression, instruction
# and line positions, 0x addresses, jumps, inlined files (fi=/fe=),
# several parts, and lines across the reader's 1 MiB reads
# (cc1plus, 2 MB). Errors on lines the in-place reader sees (bad/fast-*)
# are callgrind_bad.sh's.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
mkdir "$tmp/lf" "$tmp/crlf"
for f in cc1plus.out.gz prog.instr-jumps.out prog.default.out \
	prog.dumps.out recinl.out.gz interp.out.gz \
	cache.out.gz prog.nocompress.out small.spin-instr.out; do
	src="$TD/callgrind/$f"
	b=$(basename "$f" .gz)
	case $f in
	*.gz) gzip -dc "$src" >"$tmp/lf/$b" ;;
	*) cp "$src" "$tmp/lf/$b" ;;
	esac
	sed 's/$/\r/' "$tmp/lf/$b" >"$tmp/crlf/$b"
	for opt in "" --instructions; do
		(cd "$tmp/lf" && "$PROFCONV" dump $opt "$b") >"$tmp/a" 2>&1
		ra=$?
		(cd "$tmp/crlf" && "$PROFCONV" dump $opt "$b") >"$tmp/b" 2>&1
		rb=$?
		if [ $ra = 0 ] && [ $rb = 0 ] && [ -s "$tmp/a" ] &&
			cmp -s "$tmp/a" "$tmp/b"; then
			ok "$f ${opt:-(default)}: LF and CRLF read the same"
		else
			not_ok "$f ${opt:-(default)}: LF (exit $ra) and CRLF (exit $rb) differ"
			diff "$tmp/a" "$tmp/b" | head -5 | sed 's/^/# /'
		fi
	done
done
done_testing
