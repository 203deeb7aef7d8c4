#!/bin/sh
# The outputs no peer offers: pprof (judged by Go's own `go tool pprof`),
# folded stacks and Chrome traces (judged by speedscope in Chromium,
# where installed), on real fixtures of every input format. Each is
# checked against `profconv check --values` of a v4 database of the same
# input (per function its exclusive and inclusive value, the totals) or
# against the trace `profconv dump` shows (tests/chrome_trace.pl).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
CG="$TD/callgrind"
# inputs of every format: Callgrind (one file, per-thread files), DCPI,
# old databases (2.x and 4.0), ovni; the real ones of ../shared
set -- "$CG/small.main.out" "$CG/cpp.instr.out.gz" "$TD/dcpi/db" \
	"$TD/hpctoolkit-legacy/tiny-2.0" "$TD/hpctoolkit-legacy/tiny-4.0" \
	"$TD/ovni/multi/ovni"
if have_shared; then
	# (the quick check takes one in three of them: every output of each
	# is half a dozen runs of profconv and go tool pprof)
	k=0
	heavy "every output of two in three real databases and traces" || k=1
	for d in "$SHARED"/hpctoolkit-data/*/ "$SHARED"/ovni-data/v3-*; do
		[ -d "$d" ] || continue
		[ $k = 0 ] || { k=$((k % 3 + 1)); [ $k = 2 ] || continue; }
		set -- "$@" "${d%/}"
	done
else
	skip "the real databases and traces: $NO_SHARED"
fi
# a name for the files of one input
label() { echo "$1" | sed 's|.*/testdata/||; s|.*/shared/||; s|[/.]|_|g'; }
export GOFLAGS=-mod=mod GOTOOLCHAIN=local

# folded stacks: per function (the last frame of a line) the sum of its
# lines is its exclusive value, for the first metric and for --metric
folded_cmp() { # FOLDED VALUES METRIC SCALE NCTX
	awk -v metric="$3" -v scale="$4" -v tol="$5" -F'\t' '
		NR == FNR { if ($1 == "function" && $2 == metric) want[$3] = $4; next }
		{ v = $0; sub(/.* /, "", v); s = $0; sub(/ [^ ]*$/, "", s)
		  n = split(s, f, ";"); got[f[n]] += v; lines++ }
		END {
			bad = 0
			for (k in want) {
				d = got[k] - want[k] * scale; if (d < 0) d = -d
				if (d > (scale == 1 ? 0 : 0.5 * tol)) {
					print k ": " got[k] " in the stacks, " want[k] * scale " exclusive"; bad++
				}
			}
			if (!lines) { print "no lines"; bad++ }
			exit bad > 0
		}' "$2" FS=' ' "$1"
}
# the scale a note names: "written in nanoseconds" (a metric in
# seconds) or "in units of 1e-N"
note_scale() {
	if grep -q "metric '$2' written in nanoseconds" "$1"; then echo 1e9
	elif grep -q "metric '$2' written in units of 1e-" "$1"; then
		sed -n "s/.*metric '$2' written in units of 1e-\([0-9]*\).*/1e\1/p" "$1"
	else echo 1; fi
}

for in in "$@"; do
	l=$(label "$in")
	"$PROFCONV_REF" convert -q -o "$tmp/$l.d" "$in" 2>/dev/null
	"$PROFCONV_REF" check --values "$tmp/$l.d" >"$tmp/$l.v"
	nctx=$("$PROFCONV_REF" info -q "$tmp/$l.d" | sed -n 's/^\([0-9]*\) contexts.*/\1/p')
	m1=$(awk -F'\t' '$1 == "total" { print $2; exit }' "$tmp/$l.v")
	# folded stacks, the first metric
	if "$PROFCONV" convert --min-width=0 -o "$tmp/$l.folded" "$in" >/dev/null 2>"$tmp/$l.ferr"; then
		first=$("$PROFCONV_REF" info --json "$tmp/$l.d" | sed -n 's/^      "name":"\(.*\)",*$/\1/p' | head -1)
		if ! grep -q "^function	$first	" "$tmp/$l.v"; then
			check "$l: folded stacks of '$first', which has no values: none, and a warning" \
				sh -c "! test -s '$tmp/$l.folded' && grep -q \"metric '$first' has no positive self value\" '$tmp/$l.ferr'"
		else check "$l: folded stacks, per function the exclusive '$first'" \
			folded_cmp "$tmp/$l.folded" "$tmp/$l.v" "$first" \
			"$(note_scale "$tmp/$l.ferr" "$first")" "${nctx:-0}"
		fi
	else
		not_ok "$l: folded stacks"; sed 's/^/# /' "$tmp/$l.ferr"
	fi
	# pprof, summed over the profiles: go tool pprof's flat, cum, total
	if "$PROFCONV" convert -q -o "$tmp/$l.pb.gz" "$in" 2>"$tmp/$l.perr"; then
		if have_go; then
			check "$l: go tool pprof: flat = exclusive, cum = inclusive, totals (4 types at most)" \
				env HOME="$tmp" perl "$top_srcdir/tests/pprof_cmp.pl" \
				"$tmp/$l.pb.gz" "$tmp/$l.v" "${nctx:-0}" 4
		fi
	else
		not_ok "$l: pprof"; sed 's/^/# /' "$tmp/$l.perr"
	fi
	# Chrome trace, where there is a trace
	if "$PROFCONV_REF" info -q "$in" 2>/dev/null | grep -q '^trace: [0-9]'; then
		"$PROFCONV_REF" dump -q "$in" >"$tmp/$l.dump" 2>/dev/null
		if "$PROFCONV" convert -q -o "$tmp/$l.json" "$in" 2>"$tmp/$l.cerr"; then
			check "$l: Chrome trace: JSON, thread names, busy time and nesting to the ns" \
				perl "$top_srcdir/tests/chrome_trace.pl" "$tmp/$l.json" "$tmp/$l.dump"
		else
			not_ok "$l: Chrome trace"; sed 's/^/# /' "$tmp/$l.cerr"
		fi
	fi
done
have_go || skip "go tool pprof judges: $go_why"

# pprof: lines inlined from another file (a header's function at -O2,
# Callgrind's fi=/fe=) name that file, and the function keeps its cost
if have_go; then
	"$PROFCONV" convert -q -o "$tmp/inl.pb.gz" "$CG/recinl.out.gz"
	HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -raw "$tmp/inl.pb.gz" >"$tmp/inl.raw" 2>&1
	HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -top -nodecount=5 "$tmp/inl.pb.gz" >"$tmp/inl.top" 2>&1
	gzip -dc "$CG/recinl.out.gz" >"$tmp/inl.cg"
	# (callgrind_annotate lists work once per file its lines are in)
	want=$(callgrind_annotate --threshold=100 --auto=no "$tmp/inl.cg" 2>/dev/null |
		awk '/:work( |$)/ { gsub(/,/, "", $1); n += $1 } END { print n + 0 }')
	got=$(awk '$NF == "work" { print $1; exit }' "$tmp/inl.top")
	grep -q ' work /tmp/profconv-fixtures/helpers.h:[0-9]' "$tmp/inl.raw" &&
		grep -q ' work /tmp/profconv-fixtures/recinl.c:[0-9]' "$tmp/inl.raw" &&
		[ -n "$want" ] && [ "$got" = "$want" ] &&
		ok "pprof: work's lines inlined from helpers.h name helpers.h, its own recinl.c; work's flat $got as callgrind_annotate's self in both files" ||
		{ not_ok "pprof: inlined lines (flat '$got', want '$want')"; grep ' work ' "$tmp/inl.raw" | sed 's/^/# /'; }
fi

# call counts (the calls' shares over the contexts of each call) are
# written whole: each function's flat count is its count rounded, the
# total exact (scaled x1e3 before, pprof printed "507208995calls" for
# 507,209 calls); go tool pprof takes 8 s of CPU on cc1plus's file
if have_go && heavy "pprof's call counts of cc1plus"; then
	"$PROFCONV" convert -q -o "$tmp/calls.pb.gz" "$CG/cc1plus.out.gz"
	HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -raw "$tmp/calls.pb.gz" 2>/dev/null | sed -n "/^Samples:/{n;p;q}" >"$tmp/types"
	HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -top -sample_index=1 "$tmp/calls.pb.gz" >"$tmp/ctop" 2>/dev/null
	gzip -dc "$CG/cc1plus.out.gz" >"$tmp/cc.cg"
	# bitmap_set_bit's calls in callgrind_annotate's reading: the sum of
	# the calls= lines into it
	want=$(awk '/^c?fn=\(/ { id = $1; sub(/^c?fn=/, "", id); n0 = $0
			sub(/^[^ ]* ?/, "", n0); if (n0 != "") name[id] = n0 }
		/^cfn=/ { t = name[id] }
		/^calls=/ && t ~ /^bitmap_set_bit\(/ { split($1, a, "="); n += a[2] }
		END { print n + 0 }' "$tmp/cc.cg")
	got=$(awk '/ bitmap_set_bit\(/ { print $1; exit }' "$tmp/ctop")
	grep -q 'Calls/count' "$tmp/types" && ! grep -q '[0-9]calls' "$tmp/ctop" &&
		grep -q "of $(awk -f /dev/stdin "$tmp/cc.cg" <<'AWK'
/^calls=/ { split($1, a, "="); n += a[2] } END { print n }
AWK
) total" "$tmp/ctop" && [ "$got" = "$want" ] &&
		ok "pprof: call counts whole (Calls/count): bitmap_set_bit $got calls as in the input, the total the input's" ||
		{ not_ok "pprof: call counts (bitmap_set_bit '$got', want '$want')"; sed 's/^/# /' "$tmp/types"; head -8 "$tmp/ctop" | sed 's/^/# /'; }
fi

# an old database's "<no activity>" samples are idle time, as a v4
# database's samples at the root: a gap, not an event
if have_shared; then
	"$PROFCONV" convert -q -o "$tmp/idle.json" "$SHARED/hpctoolkit-data/legacy-pipit-ping-pong" 2>/dev/null
	idle=$(grep -c '"name":"<no activity>"' "$tmp/idle.json")
	[ -s "$tmp/idle.json" ] && [ "$idle" = 0 ] &&
		ok "legacy-pipit-ping-pong: Chrome trace: its '<no activity>' samples are idle, as a v4 database's root samples" ||
		not_ok "legacy-pipit-ping-pong: $idle '<no activity>' events in the Chrome trace"
else
	skip "an old database's idle samples: $NO_SHARED"
fi

# --metric: the second metric of a Callgrind file (its call counts)
"$PROFCONV" convert --min-width=0 -o "$tmp/calls.folded" --metric=Calls "$CG/small.main.out" 2>"$tmp/err"
l=$(label "$CG/small.main.out")
check "--metric=Calls: per function the exclusive call counts" \
	folded_cmp "$tmp/calls.folded" "$tmp/$l.v" Calls "$(note_scale "$tmp/err" Calls)" 2000
"$PROFCONV" convert -q -o "$tmp/no.folded" --metric=nope "$CG/small.main.out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/no.folded" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	grep -q "^profconv: error: --metric 'nope': the input has no such metric (it has 'Ir', 'Calls')" "$tmp/err" &&
	ok "--metric of a metric the input lacks: one line naming the metrics, exit 1, no output" ||
	{ not_ok "--metric nope: exit $rc"; sed 's/^/# /' "$tmp/err"; }
"$PROFCONV" convert -q -o "$tmp/x.pb.gz" --metric=Ir "$CG/small.main.out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "^profconv: --metric is for folded stacks or SVG flame graph output, and the output is pprof" "$tmp/err" &&
	ok "--metric with another output: a usage error" || { not_ok "--metric with pprof"; sed 's/^/# /' "$tmp/err"; }

# no trace: Chrome trace output says so, writes nothing
"$PROFCONV" convert -q -o "$tmp/none.json" "$CG/small.main.out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/none.json" ] && ! ls "$tmp" | grep -q 'none.json.tmp' &&
	grep -q "^profconv: error: nothing to write: this input has no trace" "$tmp/err" &&
	ok "Chrome trace of an input without a trace: one line, exit 1, nothing left" ||
	{ not_ok "Chrome trace without a trace: exit $rc"; sed 's/^/# /' "$tmp/err"; }

# standard output: the stacks go to a pipe
"$PROFCONV" convert -q --min-width=0 -t folded -o - "$CG/small.main.out" >"$tmp/stdout.folded"
check "-t folded -o -: the same stacks on standard output" cmp "$tmp/stdout.folded" "$tmp/$l.folded"
"$PROFCONV" convert -q -t pprof -o - "$CG/small.main.out" | gzip -t
check "-t pprof -o -: a gzip stream on standard output" test $? = 0

# names that are not UTF-8, with the characters each format reserves
printf 'events: Ir\nfl=a.c\nfn=main\n1 5\ncfn=bad\377;na"me\\x\ncalls=1 2\n2 7\nfn=bad\377;na"me\\x\n3 7\n' >"$tmp/names.out"
"$PROFCONV" convert -q -o "$tmp/names.folded" "$tmp/names.out" &&
	grep -q '^\[main thread\];main;bad\\xFF\\x3bna"me\\x5cx 7$' "$tmp/names.folded" &&
	ok "folded: ';' in a name becomes \\x3b and '\\' \\x5c (a;b and a:b stay distinct), a byte that is not UTF-8 \\xFF" ||
	{ not_ok "folded names"; sed 's/^/# /' "$tmp/names.folded"; }
if have_go; then
	"$PROFCONV" convert -q -o "$tmp/names.pb.gz" "$tmp/names.out" &&
		HOME="$tmp" go tool pprof -symbolize=none -top "$tmp/names.pb.gz" 2>/dev/null |
		grep -q ' 7 .* bad\\xFF;na"me\\x$' &&
		ok "pprof: the name as valid UTF-8, \\xFF as text" || not_ok "pprof names"
fi

# a call chain 5,000 deep: stacks are cut at 4,096 frames, with a
# warning, and the costs are all there
perl -e 'print "events: Ir\nfl=a.c\n"; for $i (0..4999) { print "fn=f$i\n1 1\n";
	if ($i < 4999) { print "cfn=f", $i + 1, "\ncalls=1 1\n2 ", 4999 - $i, "\n" } }' >"$tmp/deep.out"
"$PROFCONV" convert -o "$tmp/deep.folded" "$tmp/deep.out" 2>"$tmp/err"
check "folded: a stack deeper than 4,096 frames is cut, with a warning" \
	grep -q "frame(s) deeper than 4096: their costs are their callers'" "$tmp/err"
check "folded: the cut stacks keep every cost (5000)" \
	test "$(awk '{ s += $NF } END { print s }' "$tmp/deep.folded")" = 5000
"$PROFCONV" convert -o "$tmp/deep.pb.gz" "$tmp/deep.out" 2>"$tmp/err"
check "pprof: stacks deeper than 4,096 frames keep their innermost frames, with a warning" \
	grep -q "sample(s) with stacks deeper than 4096 frames" "$tmp/err"

# pprof lists every sample's whole stack: a chain of 20,000 calls, each
# with a cost, made 20,000 stacks of up to 4,096 frames (8 * 10^7 frame
# ids, 340 MB unpacked; at 10^5 deep 9.5 s of CPU). The frames a sample
# keeps are lowered so that the file holds at most 2^25 of them (not
# below 128 a sample): its unpacked size stays within 128 MB
perl -e 'print "events: Ir\nfl=a.c\n"; for $i (0..19999) { print "fn=f$i\n1 1\n";
	if ($i < 19999) { print "cfn=f", $i + 1, "\ncalls=1 1\n2 ", 19999 - $i, "\n" } }' >"$tmp/deep2.out"
"$PROFCONV" convert -o "$tmp/deep2.pb.gz" "$tmp/deep2.out" 2>"$tmp/err"
nb=$(gzip -dc "$tmp/deep2.pb.gz" | wc -c)
[ "$nb" -gt 0 ] && [ "$nb" -le 134217728 ] && grep -q "sample(s) with stacks deeper than [0-9]* frames" "$tmp/err" &&
	ok "pprof: a chain 20,000 deep, a cost at each call: $nb bytes unpacked (within 128 MB), with a warning" ||
	{ not_ok "pprof: a chain 20,000 deep: $nb bytes unpacked"; sed 's/^/# /' "$tmp/err"; }
# every writer on a chain 99,990 calls deep (experiment.xml 4.0, the
# deepest it reads), within a CPU limit generous for a sanitizer build
# (Chrome traces need a trace: not here)
set -- d callgrind pb.gz folded svg
rm -rf "$tmp/chain" && cp -r "$TD/hpctoolkit-legacy/tiny-4.0" "$tmp/chain" && chmod -R u+w "$tmp/chain" && rm -f "$tmp/chain/trace.db"
awk -v n=99990 '
	/<\/ProcedureTable>/ { for (i = 0; i < n; i++) printf "<Procedure i=\"%d\" n=\"f%d\" v=\"0\"/>\n", 1000 + i, i }
	/<SecCallPathProfileData>/ { print "<SecCallPathProfileData>\n<PF i=\"2\" n=\"4\" lm=\"2147483647\" f=\"0\" l=\"0\">"
		print "<S i=\"11\" l=\"20\" it=\"11\"/>"
		for (i = 0; i < n; i++) { printf "<PF i=\"%d\" n=\"%d\" lm=\"1\" f=\"1\" l=\"10\">\n", 100 + i, 1000 + i
			if (i == int(n / 2)) print "<S i=\"10\" l=\"6\" it=\"10\"/>" }
		print "<S i=\"5\" l=\"13\" it=\"5\"/>"
		for (i = 0; i <= n; i++) print "</PF>"
		skip = 1; next }
	/<\/SecCallPathProfileData>/ { skip = 0 }
	!skip' "$TD/hpctoolkit-legacy/tiny-4.0/experiment.xml" >"$tmp/chain/experiment.xml"
heavy "every writer on a chain 99,990 calls deep" || set --
for o in "$@"; do
	rm -rf "$tmp/chain.$o"
	sh -c "ulimit -t 120; exec \"$PROFCONV\" convert -q -j1 -o \"$tmp/chain.$o\" \"$tmp/chain\"" 2>"$tmp/err" &&
		test -s "$tmp/chain.$o" -o -d "$tmp/chain.$o" &&
		ok "a chain 99,990 calls deep to $o within 120 s of CPU" ||
		{ not_ok "a chain 99,990 calls deep to $o"; sed 's/^/# /' "$tmp/err" | head -3; }
done

# --split: a file per profile, labelled with its ids, summing to the one
tiny="$TD/hpctoolkit-legacy/tiny-4.0"
"$PROFCONV" convert -q --split -o "$tmp/split.pb.gz" "$tiny" 2>"$tmp/err"
check "--split: one file per profile (OUT-01.pb.gz, OUT-02.pb.gz)" \
	test -s "$tmp/split-01.pb.gz" -a -s "$tmp/split-02.pb.gz" -a ! -e "$tmp/split-03.pb.gz"
if have_go; then
	"$PROFCONV" convert -q -o "$tmp/whole.pb.gz" "$tiny"
	tot() { HOME="$tmp" go tool pprof -symbolize=none -unit=ns -top "$@" 2>/dev/null |
		sed -n 's/.* of \([0-9.]*\)[a-z]* total.*/\1/p'; }
	a=$(tot "$tmp/split-01.pb.gz"); b=$(tot "$tmp/split-02.pb.gz"); w=$(tot "$tmp/whole.pb.gz")
	[ -n "$a" ] && [ -n "$w" ] && [ "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%d", a + b }')" = "$w" ] &&
		ok "--split: the files' totals ($a + $b) are the summed file's ($w)" ||
		not_ok "--split totals $a + $b, summed $w"
	HOME="$tmp" go tool pprof -symbolize=none -tags "$tmp/split-02.pb.gz" >"$tmp/tags" 2>&1
	check "--split: samples labelled with the profile's ids (go tool pprof -tags)" \
		grep -q 'thread: Total' "$tmp/tags"
	# ... thread 0 and rank 0 too (a numeric label of 0 without a unit
	# is dropped by pprof)
	HOME="$tmp" go tool pprof -symbolize=none -tags "$tmp/split-01.pb.gz" >"$tmp/tags" 2>&1
	check "--split: rank 0 and thread 0 are labels too" \
		sh -c "grep -q 'rank: Total' '$tmp/tags' && grep -q 'thread: Total' '$tmp/tags'"
fi

# one summed file of several profiles: each profile's samples labelled
# with its ids, so that one file answers -tags and -tagfocus (its
# samples carried no labels: every thread under [main thread])
multi="$TD/ovni/multi/ovni"
if have_go; then
	"$PROFCONV" convert -q -o "$tmp/multi.pb.gz" "$multi"
	"$PROFCONV" convert -q --split -o "$tmp/msplit.pb.gz" "$multi"
	HOME="$tmp" go tool pprof -symbolize=none -tags "$tmp/multi.pb.gz" >"$tmp/tags" 2>&1
	check "one summed file: go tool pprof -tags shows ranks 0, 1, 2, threads 0, 1, nodes 0, 1" \
		awk '/^ *[a-z]*: Total/ { k = $1 } /%\): [0-9]+$/ { seen[k $NF]++ }
			END { exit !(seen["rank:0"] && seen["rank:1"] && seen["rank:2"] &&
				seen["thread:0"] && seen["thread:1"] && seen["node:0"] && seen["node:1"]) }' "$tmp/tags"
	# -tagfocus=rank=1: rank 1's samples, as --split's file of it
	# (the third profile) has them, function for function
	topf() { HOME="$tmp" go tool pprof -symbolize=none -top -nodefraction=0 "$@" 2>/dev/null |
		sed -n '/flat%/,$p'; }
	topf -tagfocus=rank=1 "$tmp/multi.pb.gz" | awk '{ print $1, $4, $NF }' >"$tmp/r1"
	topf "$tmp/msplit-03.pb.gz" | awk '{ print $1, $4, $NF }' >"$tmp/r1s"
	check "one summed file: -tagfocus=rank=1 gives rank 1's flat and cum values, as its --split file ($(($(wc -l <"$tmp/r1") - 1)) functions)" \
		sh -c "[ \$(wc -l <'$tmp/r1') -gt 2 ] && cmp '$tmp/r1' '$tmp/r1s'"
	# two threads of rank 0 apart: thread=1 is only rank 0's second
	topf -tagfocus=thread=1 "$tmp/multi.pb.gz" | awk '{ print $1, $4, $NF }' >"$tmp/t1"
	topf "$tmp/msplit-02.pb.gz" | awk '{ print $1, $4, $NF }' >"$tmp/t1s"
	check "one summed file: -tagfocus=thread=1 gives that thread's values, as its --split file" \
		sh -c "[ \$(wc -l <'$tmp/t1') -gt 2 ] && cmp '$tmp/t1' '$tmp/t1s'"
	# one profile: no labels (its file as before)
	"$PROFCONV" convert -q -o "$tmp/one.pb.gz" "$CG/small.main.out"
	check "one profile: its samples carry no labels (go tool pprof -tags empty)" \
		sh -c "HOME='$tmp' go tool pprof -tags '$tmp/one.pb.gz' 2>&1 | awk 'NF { n++ } END { exit n > 0 }'"
else
	skip "pprof labels of profiles: $go_why"
fi

# where the tree was cut, said by every output (only the note on stderr
# said it): the SVG's subtitle, a pprof comment, a '#' line of the
# Callgrind file, the v4 database's description; a whole tree: none
cut="call tree cut to its size bound: [0-9.]*% of the cost is in \\[summed: N functions\\] frames below the contexts whose callees were cut"
"$PROFCONV" convert -q --max-contexts=3000 -o "$tmp/cut.svg" "$CG/prog.default.out"
check "a cut tree: the SVG's subtitle says where it was cut; well-formed XML" \
	sh -c "grep -q '<text x=\"610\" y=\"38\" text-anchor=\"middle\" id=\"subtitle\">$cut' '$tmp/cut.svg' &&
		{ ! command -v xmllint >/dev/null || xmllint --noout '$tmp/cut.svg'; }"
"$PROFCONV" convert -q --max-contexts=3000 -o "$tmp/cut.callgrind" "$CG/prog.default.out"
check "a cut tree: the Callgrind file's second line is a '#' line saying so" \
	sh -c "sed -n 2p '$tmp/cut.callgrind' | grep -q '^# $cut'"
if command -v callgrind_annotate >/dev/null; then
	check "a cut tree: callgrind_annotate reads the file with that line (527,325 Ir)" \
		sh -c "callgrind_annotate '$tmp/cut.callgrind' | grep -q '^527,325 (100.0%)  PROGRAM TOTALS'"
fi
"$PROFCONV" convert -q --max-contexts=3000 -o "$tmp/cut.d" "$CG/prog.default.out"
check "a cut tree: the v4 database's description says so" \
	sh -c "'$PROFCONV' info --json '$tmp/cut.d' | grep -q '^  \"description\":\"Converted by profconv [^ ]*\\. The $cut'"
if have_go; then
	"$PROFCONV" convert -q --max-contexts=3000 -o "$tmp/cut.pb.gz" "$CG/prog.default.out"
	check "a cut tree: go tool pprof prints a comment saying so" \
		sh -c "HOME='$tmp' go tool pprof -top '$tmp/cut.pb.gz' 2>/dev/null | sed -n 3p | grep -q '^$cut'"
fi
"$PROFCONV" convert -q --max-contexts=1000000 -o "$tmp/whole.svg" "$CG/prog.default.out"
"$PROFCONV" convert -q --max-contexts=1000000 -o "$tmp/whole.callgrind" "$CG/prog.default.out"
check "a whole tree: no such subtitle or line" \
	sh -c "! grep -q 'call tree cut' '$tmp/whole.svg' '$tmp/whole.callgrind'"

# -j: the same bytes from writer threads
for o in folded pb.gz json; do
	"$PROFCONV" convert -q -j1 -o "$tmp/j1.$o" "$TD/ovni/multi/ovni"
	"$PROFCONV" convert -q -j3 -o "$tmp/j3.$o" "$TD/ovni/multi/ovni"
	check "-j3 writes the same $o as -j1" cmp "$tmp/j1.$o" "$tmp/j3.$o"
done

# the SVG flame graph: XML, its whole as the total, its frames merged
# below --min-width as folded stacks' are
ccsvg=
if ! heavy "the SVG flame graph of cc1plus, and in Chromium"; then :
elif "$PROFCONV" convert -o "$tmp/cc.svg" "$CG/cc1plus.out.gz" 2>"$tmp/err" &&
	ccsvg=1 && /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/cc.svg" 2>"$tmp/xerr" &&
	grep -q '<title>all (696643155 Ir, 100.00%)</title>' "$tmp/cc.svg" &&
	grep -q "frame(s) narrower than 0.01% of the total merged" "$tmp/err"; then
	ok "SVG flame graph: well-formed XML ($(wc -c <"$tmp/cc.svg") bytes for a $(wc -c <"$CG/cc1plus.out.gz")-byte input), all = 696643155 Ir, narrow frames merged with a note"
else
	not_ok "SVG flame graph"; sed 's/^/# /' "$tmp/err" "$tmp/xerr"
fi

# speedscope, in Chromium: the file opens, thread names and time spans
# (the checks read the profiles' names and totals: the judge does not
# visit each profile's view, which no check reads)
ss="$top_srcdir/tests/speedscope"
SS_MAX_VISIT=0
export SS_MAX_VISIT
if have_chromium speedscope playwright-core; then
	if have_shared && heavy "speedscope on the Chrome traces of a real database and a real ovni trace"; then
		in="$SHARED/hpctoolkit-data/v4-pipit-ping-pong"
		"$PROFCONV" convert -q -o "$tmp/pp.json" "$in"
		SS_DETAIL=0 node "$ss/speedscope.mjs" "$tmp/pp.json" "$tmp/pp.png" >"$tmp/ss" 2>&1
		check "speedscope opens the Chrome trace: two threads named by rank" \
			grep -q '^profiles 2$' "$tmp/ss"
		# ranks in order, whatever the database's order (RANK 1's
		# profile comes first in it: it was drawn first)
		check "speedscope: the first thread is RANK 0's (span 125,900 us), the second RANK 1's (125,994 us)" \
			sh -c "grep -q '^profile 0 name=\"NODE 0 RANK 0 (pid 1), THREAD 0 (tid 1)\" start=0 end=125900 ' '$tmp/ss' &&
				grep -q '^profile 1 name=\"NODE 0 RANK 1 (pid 2), THREAD 0 (tid 2)\" start=0 end=125994 ' '$tmp/ss'"
		# an ovni trace's real PID and TIDs in the names
		"$PROFCONV" convert -q -o "$tmp/nosv.json" "$SHARED/ovni-data/v3-nosv-2t"
		SS_DETAIL=0 node "$ss/speedscope.mjs" "$tmp/nosv.json" "$tmp/nosv.png" >"$tmp/ss" 2>&1
		check "speedscope: an ovni trace's threads named by its real PID 32631 and TIDs 32632, 32633" \
			sh -c "grep -q '^profile 0 name=\"NODE 0 RANK 0 PID 32631 (pid 1), THREAD 0 TID 32632 (tid 1)\"' '$tmp/ss' &&
				grep -q '^profile 1 name=\"NODE 0 RANK 0 PID 32631 (pid 1), THREAD 1 TID 32633 (tid 2)\"' '$tmp/ss'"
		check "speedscope: no import warning (events nest)" sh -c "! grep -q '^warning\\|^error' '$tmp/ss'"
	fi
	# (a page is some 10 s of the browser's CPU here: the extras)
	if heavy "speedscope on the ovni fixture's Chrome trace"; then
		"$PROFCONV" convert -q -o "$tmp/ov.json" "$TD/ovni/multi/ovni"
		SS_DETAIL=0 node "$ss/speedscope.mjs" "$tmp/ov.json" "$tmp/ov.png" >"$tmp/ss" 2>&1
		check "speedscope opens an ovni trace: four threads" grep -q '^profiles 4$' "$tmp/ss"
		check "speedscope: the ovni fixture's four threads in (rank, thread) order, with their PIDs and TIDs" \
			sh -c "grep '^profile [0-9]' '$tmp/ss' | sed 's/ start=.*//' | tr '\n' ';' | grep -qx 'profile 0 name=\"NODE 0 RANK 0 PID 100 (pid 1), THREAD 0 TID 11 (tid 1)\";profile 1 name=\"NODE 0 RANK 0 PID 100 (pid 1), THREAD 1 TID 12 (tid 2)\";profile 2 name=\"NODE 0 RANK 1 PID 101 (pid 2), THREAD 0 TID 13 (tid 3)\";profile 3 name=\"NODE 1 RANK 2 PID 200 (pid 3), THREAD 0 TID 21 (tid 4)\";'"
	fi
	if heavy "speedscope on folded stacks (a second browser)"; then
		SS_DETAIL=0 node "$ss/speedscope.mjs" "$tmp/$l.folded" "$tmp/f.png" >"$tmp/ss" 2>&1
		total=$(awk '{ s += $NF } END { print s }' "$tmp/$l.folded")
		check "speedscope imports the folded stacks: their total weight $total" \
			grep -q "^profile 0 .* total=$total " "$tmp/ss"
	fi
	# the SVG flame graph in Chromium: no error; the widest frame as wide
	# as its share; a click zooms a frame to the full width; the search
	# for toplev::main finds main's inclusive share (callgrind_annotate's)
	if [ -n "$ccsvg" ]; then
		node "$ss/svg_judge.mjs" "$tmp/cc.svg" 'toplev::main' "$tmp/cc.png" >"$tmp/sj" 2>&1
		gzip -dc "$CG/cc1plus.out.gz" >"$tmp/cc.cg"
		want=$(callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$tmp/cc.cg" 2>/dev/null |
			awk '/:toplev::main\(/ { gsub(/[(%)]/, "", $2); print $2; exit }')
		if grep -q '^errors 0$' "$tmp/sj" && grep -q '^zoom .* 100.00$' "$tmp/sj" &&
			awk '$1 == "top" { d = $(NF - 1) - $NF; exit !(d < 0.05 && -d < 0.05) }' "$tmp/sj" &&
			awk -v w="$want" '$1 == "matched" { exit !(w != "" && $2 - w < 0.1 && w - $2 < 0.1) }' "$tmp/sj"; then
			ok "SVG flame graph in Chromium: no error, widths as shares, zoom to full width, search toplev::main $(awk '$1 == "matched" { print $2 }' "$tmp/sj")% (callgrind_annotate ${want}%)"
		else
			not_ok "SVG flame graph in Chromium (callgrind_annotate: toplev::main ${want}%)"; sed 's/^/# /' "$tmp/sj"
		fi
	fi
else
	skip "speedscope in Chromium: $chromium_why"
fi
# pprof: its "File:" header names the program (mapping 1), and the
# synthetic roots keep their names (pprof drops names in angle brackets)
if have_go && heavy "pprof's File: and [main thread] of py-json"; then
	"$PROFCONV" convert -q -o "$tmp/file.pb.gz" "$CG/py-json.out.gz"
	HOME="$tmp" go tool pprof -top -cum "$tmp/file.pb.gz" >"$tmp/top" 2>/dev/null
	check "pprof: File: names the program (python3.11), not its first library" \
		grep -q '^File: python3.11$' "$tmp/top"
	check "pprof: the thread's root shows as [main thread]" \
		grep -q ' \[main thread\]$' "$tmp/top"
fi
# Chrome trace: processes drawn in the order of their ids, whatever
# order their profiles come in (pipit's ping-pong lists RANK 1 first)
PP="$SHARED/hpctoolkit-data/v4-pipit-ping-pong"
if [ -d "$PP" ]; then
	"$PROFCONV" convert -q -o "$tmp/ppsort.json" "$PP"
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die;
		my $j = decode_json(<$f>); my (%name, %idx);
		for my $e (@{$j->{traceEvents}}) {
			next unless ($e->{ph} // "") eq "M";
			$name{$e->{pid}} = $e->{args}{name} if $e->{name} eq "process_name";
			$idx{$e->{pid}} = $e->{args}{sort_index} if $e->{name} eq "process_sort_index";
		}
		print join(",", map { $name{$_} } sort { $idx{$a} <=> $idx{$b} } keys %idx), "\n"' \
		"$tmp/ppsort.json" >"$tmp/order"
	check "Chrome trace: processes sorted RANK 0, RANK 1 ($(cat "$tmp/order"))" \
		grep -q '^NODE 0 RANK 0,NODE 0 RANK 1$' "$tmp/order"
else
	skip "Chrome trace process order: $NO_SHARED"
fi
# ... refused before any input is read: a named pipe nobody writes to
# (with -f callgrind) is never opened
mkfifo "$tmp/nobody"
limited 60 "$PROFCONV" convert -f callgrind -o "$tmp/fifo.json" "$tmp/nobody" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "nothing to write: this input has no trace" "$tmp/err" &&
	ok "Chrome trace of a Callgrind input: refused before the input is opened" ||
	{ not_ok "Chrome trace of a FIFO: exit $rc"; sed 's/^/# /' "$tmp/err"; }
# an input that is not there is found before the first is read: one line
"$PROFCONV" convert -o "$tmp/two.d" "$CG/py-json.out.gz" "$tmp/not-there.out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "not-there.out: No such file or directory" "$tmp/err" &&
	[ ! -e "$tmp/two.d" ] &&
	ok "a second input that is not there: one line before the first is read, nothing written" ||
	{ not_ok "missing second input: exit $rc"; sed 's/^/# /' "$tmp/err"; }
# --split --force over an earlier, larger split: the set is one output,
# replaced whole; the last line names what was written
mkdir "$tmp/sp"
"$PROFCONV" convert -q --split -o "$tmp/sp/m.pb.gz" "$TD/ovni/multi/ovni"
"$PROFCONV" convert --split --force -o "$tmp/sp/m.pb.gz" "$CG"/threads.out-0* 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(ls "$tmp/sp" | tr '\n' ' ')" = "m-01.pb.gz m-02.pb.gz m-03.pb.gz " ] &&
	grep -q "note: removed the 1 file of an earlier split beyond the 3 written (.*/m-04.pb.gz)" "$tmp/err" &&
	grep -q "^profconv: wrote 3 files, .*/m-01.pb.gz ... .*/m-03.pb.gz (pprof, [0-9.]* kB): 3 profiles" "$tmp/err" &&
	ok "--split --force: the earlier split's extra file removed, the last line names the files written" ||
	{ not_ok "--split --force: exit $rc, $(ls "$tmp/sp" | tr '\n' ' ')"; sed 's/^/# /' "$tmp/err"; }
# ... over a set of 40 with a gap (m-30 gone): every file of it goes,
# not only those before the gap (issue 57)
for k in $(seq 4 40); do
	cp "$tmp/sp/m-01.pb.gz" "$tmp/sp/m-$(printf %02d "$k").pb.gz"
done
rm "$tmp/sp/m-30.pb.gz"
"$PROFCONV" convert --split --force -o "$tmp/sp/m.pb.gz" "$CG"/threads.out-0* 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(ls "$tmp/sp" | tr '\n' ' ')" = "m-01.pb.gz m-02.pb.gz m-03.pb.gz " ] &&
	grep -q "note: removed the 36 files of an earlier split beyond the 3 written (.*/m-04.pb.gz ... .*/m-40.pb.gz)" "$tmp/err" &&
	ok "--split --force over a larger split with a gap: every earlier file beyond removed, named" ||
	{ not_ok "--split --force, a gap: exit $rc, $(ls "$tmp/sp" | tr '\n' ' ')"; sed 's/^/# /' "$tmp/err"; }
# a single file over an earlier split of its name: without --force the
# set is kept and named; with --force the new output replaces it whole,
# once it is in place. Valgrind's thread files (OUT-01, creator:
# callgrind) are never touched.
"$PROFCONV" convert -o "$tmp/sp/m.pb.gz" "$CG/small.main.out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(ls "$tmp/sp" | wc -l)" -eq 4 ] &&
	grep -q "warning: kept the 3 files of an earlier split of the same name (.*/m-01.pb.gz ... .*/m-03.pb.gz): --force replaces them" "$tmp/err" &&
	ok "one pprof file beside an earlier split of its name: the split kept, named in a warning" ||
	{ not_ok "one file beside a split: exit $rc, $(ls "$tmp/sp" | tr '\n' ' ')"; sed 's/^/# /' "$tmp/err"; }
"$PROFCONV" convert --force -o "$tmp/sp/m.pb.gz" "$CG/small.main.out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(ls "$tmp/sp" | tr '\n' ' ')" = "m.pb.gz " ] &&
	grep -q "note: removed the 3 files of an earlier split of the same name (.*/m-01.pb.gz ... .*/m-03.pb.gz): the new output replaces them" "$tmp/err" &&
	ok "--force, one pprof file over an earlier split of its name: the split removed, named" ||
	{ not_ok "--force over a split: exit $rc, $(ls "$tmp/sp" | tr '\n' ' ')"; sed 's/^/# /' "$tmp/err"; }
"$PROFCONV" convert -q --split -o "$tmp/sp/callgrind.out.m" "$CG"/threads.out-0*
cp "$CG/threads.out-01" "$tmp/sp/callgrind.out.v-01"
"$PROFCONV" convert --force -o "$tmp/sp/callgrind.out.m" "$CG/small.main.out" 2>"$tmp/err" &&
	"$PROFCONV" convert --force -o "$tmp/sp/callgrind.out.v" "$CG/small.main.out" 2>>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(ls "$tmp/sp" | tr '\n' ' ')" = "callgrind.out.m callgrind.out.v callgrind.out.v-01 m.pb.gz " ] &&
	[ "$(grep -c 'removed the' "$tmp/err")" -eq 1 ] &&
	ok "--force, one Callgrind file over an earlier split: removed; valgrind's thread file kept" ||
	{ not_ok "--force over a Callgrind split: exit $rc, $(ls "$tmp/sp" | tr '\n' ' ')"; sed 's/^/# /' "$tmp/err"; }
# pprof's default sample type has values (the GPU database's first
# metric has none: "0 total" before)
GPU="$SHARED/hpctoolkit-data/v4-loops-cuda-nvidia-t.d"
if have_go && [ -d "$GPU" ]; then :; else
	skip "pprof's default sample type: $(have_go || echo "$go_why, ")$([ -d "$GPU" ] || echo "$NO_SHARED")"
fi
if have_go && [ -d "$GPU" ]; then
	"$PROFCONV" convert -q -o "$tmp/gpu.pb.gz" "$GPU"
	HOME="$tmp" go tool pprof -top "$tmp/gpu.pb.gz" >"$tmp/top" 2>/dev/null
	check "pprof: the default sample type has values ($(sed -n 's/^Type: //p' "$tmp/top"))" \
		sh -c "grep -q '^Showing nodes accounting for .* of [1-9][0-9.]*[a-z]* total' '$tmp/top'"
fi
# folded stacks are bounded by default: frames narrower than 0.01% of
# the total merge into their callers, with a note, the total kept
if heavy "folded stacks of cc1plus, bounded by default"; then
	"$PROFCONV" convert -o "$tmp/cc.folded" "$CG/cc1plus.out.gz" 2>"$tmp/err"
	"$PROFCONV" convert -q --min-width=0 -o "$tmp/cc0.folded" "$CG/cc1plus.out.gz"
	a=$(awk '{ s += $NF } END { printf "%d", s }' "$tmp/cc.folded")
	b=$(awk '{ s += $NF } END { printf "%d", s }' "$tmp/cc0.folded")
	in=$(gzip -dc "$CG/cc1plus.out.gz" | wc -c)
	sa=$(wc -c <"$tmp/cc.folded"); sb=$(wc -c <"$tmp/cc0.folded")
	[ "$a" = "$b" ] && [ "$sa" -le $((3 * in)) ] && [ "$sb" -gt "$sa" ] &&
		grep -q "note: [0-9]* frame(s) narrower than 0.01% of the total merged into their callers" "$tmp/err" &&
		ok "folded: cc1plus in $sa bytes by default ($sb with --min-width=0, input $in), the total $a kept, a note" ||
		{ not_ok "folded bound: totals $a/$b, sizes $sa/$sb, input $in"; sed 's/^/# /' "$tmp/err"; }
fi
done_testing
