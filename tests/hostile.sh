#!/bin/sh
# Hostile inputs (issue "Hostile inputs"): a FIFO in place of any file
# of an input directory ends every command at once; a document nested
# too deep is refused with bounded memory; values whose totals pass
# 2^64 do not wrap in Callgrind output. The XML and DCPI reproducers
# are fixtures (tests/hpctoolkit_legacy.sh, tests/dcpi.sh); the
# temporary that cannot be removed is a unit test (tests/test_model).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
# each case's CPU time is bounded (a few seconds under the sanitizers,
# a minute under memcheck), not its wall-clock time
run() { limited 120 "$@" >"$tmp/out" 2>"$tmp/err"; }

# --- a FIFO instead of a file: "not a regular file", exit 1, at once ---
"$PROFCONV" convert -q "$TD/callgrind/small.main.out" -o "$tmp/v4.d" || exit 1
# fifo_case DIR FILE COMMANDS...: DIR copied, FILE made a FIFO
fifo_case() {
	src=$1 file=$2; shift 2
	rm -rf "$tmp/f" && cp -r "$src" "$tmp/f" && chmod -R u+w "$tmp/f" || return
	rm -f "$tmp/f/$file" && mkfifo "$tmp/f/$file" || return
	for cmd in "$@"; do
		case $cmd in
		convert) set -- convert -o "$tmp/fifo-out.d" "$tmp/f" ;;
		*) set -- "$cmd" "$tmp/f" ;;
		esac
		rm -rf "$tmp/fifo-out.d"
		run "$PROFCONV" "$@"
		rc=$?
		if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
			grep -q "$file: not a regular file" "$tmp/err" &&
			[ ! -e "$tmp/fifo-out.d" ]; then
			ok "$cmd with a FIFO as $file: not a regular file"
		else
			not_ok "$cmd with a FIFO as $file: exit $rc (124: hung, 152: CPU bound reached)"
			sed 's/^/# /' "$tmp/err"
		fi
	done
}
for f in meta.db profile.db metrics/default.yaml; do
	fifo_case "$tmp/v4.d" "$f" convert info dump check
done
L="$TD/hpctoolkit-legacy"
fifo_case "$L/tiny-4.0" experiment.xml convert info dump
fifo_case "$L/tiny-4.0" profile.db convert info dump
fifo_case "$L/tiny-2.0" 1.tiny-000000-001-a8c00270-4243-0.metric-db convert info dump
O="$TD/ovni/good"
s=loom.host.fix/proc.100/thread.12
fifo_case "$O" $s/stream.obs convert info dump
fifo_case "$O" $s/stream.json convert info dump

# --- experiment.xml nested deeper than the bound: refused, bounded ---
deep() { # DEPTH: a tiny-4.0 copy whose tree is DEPTH procedure frames deep
	rm -rf "$tmp/deep" && cp -r "$L/tiny-4.0" "$tmp/deep" && chmod -R u+w "$tmp/deep"
	awk -v n="$1" '
		/<SecCallPathProfileData>/ { print; for (i = 0; i < n; i++)
			printf "<PF i=\"%d\" n=\"5\" lm=\"1\" f=\"1\" l=\"10\">\n", 100 + i
			for (i = 0; i < n; i++) print "</PF>"; skip = 1; next }
		/<\/SecCallPathProfileData>/ { skip = 0 }
		!skip' "$L/tiny-4.0/experiment.xml" >"$tmp/deep/experiment.xml"
	rm "$tmp/deep/trace.db"
}
deep 100500
# within 1 GB of address space (400,000 deep took 630 MB before the
# bound; an ASan build reserves terabytes, so not there)
lim="ulimit -v 1000000;"
sanitized && lim=
run sh -c "$lim exec \"$PROFCONV\" info \"$tmp/deep\""
rc=$?
if [ $rc -eq 1 ] && grep -q 'experiment.xml:1000[0-9][0-9]: elements nested more than 100000 deep' "$tmp/err"; then
	ok "experiment.xml 100,500 deep: refused at its line${lim:+, within 1 GB}"
else
	not_ok "deep experiment.xml: exit $rc"; sed 's/^/# /' "$tmp/err" | head -3
fi
deep 5000
run "$PROFCONV" info "$tmp/deep"
rc=$?
[ $rc -eq 0 ] && grep -q '^500[0-9] contexts' "$tmp/out" &&
	ok "experiment.xml 5,000 deep (deeper than real trees) is read" ||
	{ not_ok "5,000 deep: exit $rc"; sed 's/^/# /' "$tmp/err" "$tmp/out" | head -5; }

# --- totals past 2^64 in Callgrind output: scaled with a warning ---
# three rows of 2^32-1 samples at a period of 2^32-1: 5.5e19 estimated
# events, more than a 64-bit cost holds
{
	sed -n '1,/^text_size/p' "$TD/dcpi/xemacs.cycles.dcpicat"
	echo 'event 12884901885 cycles:4294967295:10000'
	for a in 0x000120000000 0x000120000004 0x000120000008; do
		echo "$a 4294967295"
	done
	echo '0x00012000000c 7'
} >"$tmp/big.dcpicat"
run "$PROFCONV" convert "$tmp/big.dcpicat" -o "$tmp/big.callgrind"
rc=$?
sum=$(sed -n 's/^summary: \([0-9]*\) .*/\1/p' "$tmp/big.callgrind" 2>/dev/null)
if [ $rc -eq 0 ] && grep -q "total 5.5340232[0-9.e+]* does not fit Callgrind's 64-bit costs" "$tmp/err" &&
	grep -q '^event: cycles : .*(x1e-1)$' "$tmp/big.callgrind" &&
	[ "$sum" = 5534023222542362674 ]; then
	ok "a total past 2^64 is written in units of 10 (x1e-1)"
else
	not_ok "Callgrind total past 2^64: exit $rc, summary '$sum'"
	sed 's/^/# /' "$tmp/err"; grep -E '^(event|summary)' "$tmp/big.callgrind" | sed 's/^/# /'
fi
# (profconv's reader refuses a summary that is not the sum of the lines)
run "$PROFCONV" info "$tmp/big.callgrind"
grep -q '^  cycles: 5.53402322254236[0-9]*e+19 ' "$tmp/out" &&
	ok "profconv reads it back: 5.534e19 cycles" ||
	{ not_ok "read back"; sed 's/^/# /' "$tmp/out" "$tmp/err"; }
# --- a NaN among a v4 database's values: refused where it is ---
"$PROFCONV" convert -q "$TD/callgrind/small.main.out" -o "$tmp/nan.d" || exit 1
perl -e 'open(my $f, "+<", $ARGV[0]) or die; binmode $f; local $/; my $d = <$f>;
	my $i = index($d, pack("d<", 381818)); die "no total" if $i < 0;
	seek($f, $i, 0); print $f pack("d<", 9**9**9 / 9**9**9)' "$tmp/nan.d/profile.db"
for cmd in check convert; do
	case $cmd in
	check) run "$PROFCONV" check "$tmp/nan.d" ;;
	convert) run "$PROFCONV" convert "$tmp/nan.d" -o "$tmp/nan.pb.gz" ;;
	esac
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "nan.d/profile.db@0x[0-9a-f]*: value NaN of .*metric id [0-9]*,\{0,1\} is not a finite number" "$tmp/err" &&
		[ ! -e "$tmp/nan.pb.gz" ] &&
		ok "$cmd: a NaN value is refused with its offset" ||
		{ not_ok "$cmd of a NaN value: exit $rc"; sed 's/^/# /' "$tmp/err"; }
done
# --- an infinity: refused with the offset of the value itself ---
"$PROFCONV" convert -q "$TD/callgrind/small.main.out" -o "$tmp/inf.d" || exit 1
at=$(perl -e 'open(my $f, "+<", $ARGV[0]) or die; binmode $f; local $/; my $d = <$f>;
	my $i = index($d, pack("d<", 381818)); die "no total" if $i < 0;
	seek($f, $i, 0); print $f pack("d<", -9**9**9); printf "%x", $i' "$tmp/inf.d/profile.db")
run "$PROFCONV" check "$tmp/inf.d"
rc=$?
[ $rc -eq 1 ] && grep -q "inf.d/profile.db@0x$at: value -infinity of .* is not a finite number" "$tmp/err" &&
	ok "check: -infinity refused at its offset 0x$at" ||
	{ not_ok "check of -infinity: exit $rc, wanted @0x$at"; sed 's/^/# /' "$tmp/err"; }
done_testing
