#!/bin/sh
# profconv diff: two runs of prog (valgrind, fib(18) and fib(22)) and
# two real databases compared, in every output, by the readers: go tool
# pprof -diff_base, callgrind_annotate, KCachegrind, Chromium, and our
# own reading back of the v4 database (hpcviewer's in tests/hpcviewer.sh).
. "$(dirname "$0")/lib.sh"
CG="$TD/callgrind"
A="$CG/prog.default.out"
B="$CG/prog.n22.out"

# the command line
"$PROFCONV" diff "$A" -o "$tmp/x.d" 2>"$tmp/err"
check "diff with one input: a usage error (exit 2)" test $? -eq 2
"$PROFCONV" diff "$A" "$B" : -o "$tmp/x.d" 2>"$tmp/err"
check "diff with nothing after ':': a usage error" test $? -eq 2
"$PROFCONV" diff "$A" "$B" -o "$tmp/x.json" 2>"$tmp/err"
rc=$?
check "diff to a Chrome trace: refused in one line, nothing written" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'time line' '$tmp/err' && [ ! -e '$tmp/x.json' ]"
"$PROFCONV" diff --split "$A" "$B" -o "$tmp/x.pb.gz" 2>"$tmp/err"
check "diff --split: a usage error (a comparison is one file)" test $? -eq 2

# the model: each metric three times; NEW - BASE exact for every value
# and stored value of every context (read back from the v4 database)
"$PROFCONV" diff -q "$A" "$B" -o "$tmp/ab.d"
"$PROFCONV" dump "$tmp/ab.d" >"$tmp/ab.dump"
delta_ok() { # DUMP MIN
	awk -v min="$2" -f "$top_srcdir/tests/diff_delta.awk" "$1"
}
check "v4 database: [new-base] = [new] - [base] at every context, every scope" \
	delta_ok "$tmp/ab.dump" 10000
# BASE's and NEW's columns are what convert gives each run alone, with
# --apart (each run's call tree built alone); on one tree (the default)
# every function's exclusive value and total are
"$PROFCONV" convert -q "$A" -o "$tmp/a.d"
"$PROFCONV" convert -q "$B" -o "$tmp/b.d"
"$PROFCONV" diff -q --apart "$A" "$B" -o "$tmp/apart.d"
side_values() { # DB SIDE: check --values of one side, its names plain
	"$PROFCONV" check --values "$1" | awk -F'\t' -v s=" [$2]" '
		{ i = index($2, s); if (i && i + length(s) - 1 == length($2)) { $2 = substr($2, 1, i - 1); print } }' OFS='\t' | sort
}
"$PROFCONV" check --values "$tmp/a.d" | sort >"$tmp/a.vals"
"$PROFCONV" check --values "$tmp/b.d" | sort >"$tmp/b.vals"
# (whole numbers exactly; the calls apportioned to contexts, fractions,
# within 1e-12: the database of a comparison gives a call its own line
# context, for hpcviewer, so a function sums them in another order)
same_vals() {
	awk -F'\t' 'NR == FNR { v[$1 FS $2 FS $3] = $4; n++; next }
		{ k = $1 FS $2 FS $3; m++; w = v[k]
		  if (!(k in v)) bad++
		  else if (w != $4) { d = w - $4; a = w < 0 ? -w : w
			if ((w $4) !~ /[.e]/ || d > 1e-12 * a || -d > 1e-12 * a) bad++ }
		  if (bad && !said) { print "differ:", $0, "against", w; said = 1 } }
		END { exit !(n == m && !bad) }' "$1" "$2"
}
side_values "$tmp/apart.d" base >"$tmp/ab.base"
side_values "$tmp/apart.d" new >"$tmp/ab.new"
check "--apart: BASE's columns: every function's exclusive and inclusive value as convert writes A ($(wc -l <"$tmp/a.vals") lines)" \
	same_vals "$tmp/a.vals" "$tmp/ab.base"
check "--apart: NEW's columns: as convert writes B" same_vals "$tmp/b.vals" "$tmp/ab.new"
side_values "$tmp/ab.d" base | grep -v '^inclusive' >"$tmp/ab.base"
side_values "$tmp/ab.d" new | grep -v '^inclusive' >"$tmp/ab.new"
grep -v '^inclusive' "$tmp/a.vals" >"$tmp/a.xvals"
grep -v '^inclusive' "$tmp/b.vals" >"$tmp/b.xvals"
check "one tree: BASE's total and exclusive values as convert writes A ($(wc -l <"$tmp/ab.base") lines)" \
	same_vals "$tmp/a.xvals" "$tmp/ab.base"
check "one tree: NEW's as convert writes B" same_vals "$tmp/b.xvals" "$tmp/ab.new"
# a database (stored scopes) against a call graph (point values only):
# the scopes the database stored are derived for the call graph's side
"$PROFCONV" diff -q "$tmp/a.d" "$B" -o "$tmp/mix.d"
"$PROFCONV" dump "$tmp/mix.d" >"$tmp/mix.dump"
check "a database against a Callgrind file: [new-base] = [new] - [base] everywhere" \
	delta_ok "$tmp/mix.dump" 10000
"$PROFCONV" check --values "$tmp/ab.d" >"$tmp/ab.vals"
check "the change of the total: fib(22) - fib(18) runs 710,689 more instructions" \
	grep -q "^total	Ir \[new-base\]	710689$" "$tmp/ab.vals"

# diff A A: no change anywhere; diff B A: the exact negative of diff A B
"$PROFCONV" diff -q "$A" "$A" -o "$tmp/aa.d"
"$PROFCONV" check --values "$tmp/aa.d" >"$tmp/aa.vals"
check "diff A A: no change: no [new-base] total, exclusive or inclusive value" \
	sh -c "grep -q 'Ir \[base\]' '$tmp/aa.vals' && ! grep -q 'new-base' '$tmp/aa.vals'"
"$PROFCONV" diff -q "$B" "$A" -o "$tmp/ba.d"
side_values "$tmp/ab.d" new-base >"$tmp/ab.delta"
side_values "$tmp/ba.d" new-base |
	awk -F'\t' '{ if (!sub(/^-/, "", $NF)) $NF = "-" $NF; print }' OFS='\t' | sort >"$tmp/ba.delta"
# (whole numbers exactly; the calls shared out over contexts, fractions,
# are summed in the order of each tree, which puts the run read first
# first: to 1e-12)
check "diff B A: every function's change the negative of diff A B's (Ir exactly)" \
	awk -F'\t' 'NR == FNR { v[$1 FS $2 FS $3] = $4; next }
		{ k = $1 FS $2 FS $3; n++; d = v[k] - $4
		  if (!(k in v) || ($2 == "Ir" ? v[k] != $4 : d * d > 1e-24 * ($4 * $4 + 1))) bad++ }
		END { exit !(n > 100 && !bad) }' "$tmp/ab.delta" "$tmp/ba.delta"

# --normalize: NEW scaled to BASE's total
"$PROFCONV" diff -q --normalize "$A" "$B" -o "$tmp/norm.d"
check "--normalize: NEW's total is BASE's (527,325 Ir), the change 0" \
	sh -c "'$PROFCONV' check --values '$tmp/norm.d' | grep -q '^total	Ir \\[new\\]	527325\$'"
# ... in BASE's unit, as every reader shows it: whole instructions,
# summing to BASE's total (they were times 1000, and readers show them
# raw: Ir_new 527,325,396 beside Ir_base 527,325)
"$PROFCONV" diff -q --normalize "$A" "$B" -o "$tmp/norm.callgrind"
if command -v callgrind_annotate >/dev/null; then
	check "--normalize: callgrind_annotate's totals 527,325 and 527,325 (Ir_new in BASE's unit)" \
		sh -c "callgrind_annotate '$tmp/norm.callgrind' | grep -q '^527,325 (100.0%) 527,325 (100.0%)  PROGRAM TOTALS'"
else
	skip "--normalize in callgrind_annotate: needs callgrind_annotate (Debian: valgrind)"
fi
"$PROFCONV" diff -q --normalize "$A" "$B" -o "$tmp/norm.svg"
check "--normalize: the SVG's fib'2 says 353967 Ir in NEW (1238014 times 0.426, whole)" \
	grep -q "<title>fib'2 (353967 Ir in NEW, 121213 in BASE: +232754, " "$tmp/norm.svg"
"$PROFCONV" diff -q --normalize "$tmp/a.d" "$tmp/b.d" -o "$tmp/normdb.d"
check "--normalize of two v4 databases: every Ir [new] value whole, its total 527,325" \
	sh -c "'$PROFCONV' check --values '$tmp/normdb.d' | awk -F'\t' '\$2 == \"Ir [new]\" { n++; if (\$NF != int(\$NF)) bad++; if (\$1 == \"total\") t = \$NF } END { exit !(n > 100 && !bad && t == 527325) }'"
if have_go; then
	"$PROFCONV" diff -q --normalize "$A" "$B" -o "$tmp/norm.pb.gz"
	check "--normalize: go tool pprof -top of NEW's samples: 527325 total" \
		sh -c "HOME='$tmp' go tool pprof -top -sample_index=Ir -tagignore=pprof::base=true '$tmp/norm.pb.gz' 2>&1 | grep -q ' of 527325 total\$'"
else
	skip "--normalize in go tool pprof: $go_why"
fi
# totals of opposite sign (negative costs, as Xdebug's memory): NEW
# scaled by the magnitudes, its signs kept, with a warning (a scale
# below 0 turned every value of NEW's sign without a word)
printf 'events: Ir\nfl=a.c\nfn=main\n1 100\nfn=g\n2 50\n' >"$tmp/pos.out"
printf 'events: Ir\nfl=a.c\nfn=main\n1 -30\nfn=g\n2 10\n' >"$tmp/neg.out"
"$PROFCONV" diff --normalize "$tmp/pos.out" "$tmp/neg.out" -o "$tmp/sign.d" 2>"$tmp/err"
check "--normalize, totals 150 and -20: one warning, NEW's signs kept (main -225, g 75, total -150)" \
	sh -c "[ \$(grep -c 'warning: --normalize: metric .Ir. totals 150 in BASE, -20 in NEW (opposite signs): NEW scaled by their magnitudes, its signs kept' '$tmp/err') -eq 1 ] &&
	'$PROFCONV' check --values '$tmp/sign.d' >'$tmp/sign.vals' &&
	grep -q '^total	Ir \[new\]	-150\$' '$tmp/sign.vals' &&
	grep -q '^function	Ir \[new\]	main	-225\$' '$tmp/sign.vals' &&
	grep -q '^function	Ir \[new\]	g	75\$' '$tmp/sign.vals'"

# folded: "stack base new", the columns summing to each run's total
"$PROFCONV" diff -q --min-width=0 "$A" "$B" -o "$tmp/ab.folded"
check "folded: two columns, BASE's summing to 527,325, NEW's to 1,238,014" \
	awk '{ b += $(NF - 1); n += $NF } END { exit !(b == 527325 && n == 1238014) }' "$tmp/ab.folded"
"$PROFCONV" convert -q --min-width=0 "$A" -o "$tmp/a.folded"
"$PROFCONV" diff -q --apart --min-width=0 "$A" "$B" -o "$tmp/apart.folded"
awk '$(NF - 1) > 0 { $NF = ""; print }' "$tmp/apart.folded" | sed 's/ $//' | sort >"$tmp/ab.base"
sort "$tmp/a.folded" >"$tmp/a.sorted"
check "folded, --apart: BASE's column is convert's folded A, stack by stack" \
	cmp "$tmp/ab.base" "$tmp/a.sorted"

# Callgrind: both runs as events, calls= of NEW
"$PROFCONV" diff -q "$A" "$B" -o "$tmp/ab.callgrind"
check "Callgrind: events Ir_base Ir_new" grep -q '^events: Ir_base Ir_new$' "$tmp/ab.callgrind"
if command -v callgrind_annotate >/dev/null; then
	fn_self() { callgrind_annotate --threshold=100 --show="$2" "$1" 2>/dev/null |
		awk '/^-+$/ { s++ } s >= 6 && $2 ~ /^\(/ && !/=>/ { gsub(/,/, "", $1); $2 = ""; print }' | sort; }
	"$PROFCONV" convert -q "$A" -o "$tmp/a.callgrind"
	fn_self "$tmp/ab.callgrind" Ir_base >"$tmp/fs1"
	fn_self "$tmp/a.callgrind" Ir >"$tmp/fs2"
	check "callgrind_annotate: Ir_base per function as in convert's A" \
		cmp "$tmp/fs1" "$tmp/fs2"
	"$PROFCONV" convert -q "$B" -o "$tmp/b.callgrind"
	fn_self "$tmp/ab.callgrind" Ir_new >"$tmp/fs1"
	fn_self "$tmp/b.callgrind" Ir >"$tmp/fs2"
	check "callgrind_annotate: Ir_new per function as in convert's B" \
		cmp "$tmp/fs1" "$tmp/fs2"
else
	skip "callgrind_annotate: needs valgrind"
fi
if have_kc; then
	check "KCachegrind loads the comparison without a message" \
		sh -c "[ -z \"\$(kc '$tmp/ab.callgrind' 2>/dev/null | grep -v '^Loading .*done')\" ]"
else
	skip "KCachegrind: needs kcachegrind and dbus-run-session"
fi

# pprof: what go tool pprof -diff_base builds, node for node
"$PROFCONV" diff -q "$A" "$B" -o "$tmp/ab.pb.gz"
"$PROFCONV" diff -q --apart "$A" "$B" -o "$tmp/apart.pb.gz"
if have_go; then
	"$PROFCONV" convert -q "$A" -o "$tmp/a.pb.gz"
	"$PROFCONV" convert -q "$B" -o "$tmp/b.pb.gz"
	# (a go tool pprof -diff_base is some 0.8 s of CPU: the calls in the
	# extras)
	tys=Ir
	heavy "go tool pprof -diff_base of the calls" && tys="Ir Calls"
	for ty in $tys; do
		top() { HOME="$tmp" go tool pprof -top -nodefraction=0 -nodecount=1000000 \
			-sample_index=$ty "$@" 2>/dev/null | sed -n '/flat%/,$p' | sort; }
		top "$tmp/apart.pb.gz" >"$tmp/top1"
		top -diff_base "$tmp/a.pb.gz" "$tmp/b.pb.gz" >"$tmp/top2"
		check "pprof -top of the comparison (--apart) = go tool pprof -top -diff_base A B ($ty, $(wc -l <"$tmp/top1") lines)" \
			sh -c "[ \$(wc -l <'$tmp/top1') -gt 10 ] && cmp '$tmp/top1' '$tmp/top2'"
	done
	HOME="$tmp" go tool pprof -top "$tmp/ab.pb.gz" >"$tmp/top" 2>/dev/null
	check "pprof: fib'2 grew by 709,804 instructions" grep -q "^ *709804 .* fib'2$" "$tmp/top"
else
	skip "go tool pprof: $go_why"
fi

# the program pprof names ("File:"): the main binary's, not the first
# module of BASE (a diff's title names its inputs, not a command; it
# was libexpat.so.1.8.10 for a python3 pair)
PY="$CG/py-json.out.gz"
if ! have_go; then
	skip "pprof's File: of a diff: $go_why"
elif heavy "pprof's File: of a python3 pair (go tool pprof: 6 s of CPU)"; then
	"$PROFCONV" diff -q "$PY" "$PY" -o "$tmp/py.pb.gz"
	check "pprof of a python3 pair: File: python3.11 (as convert's)" \
		sh -c "HOME='$tmp' go tool pprof -top '$tmp/py.pb.gz' 2>/dev/null | head -1 | grep -qx 'File: python3.11'"
fi
# two programs, runs that share no metric: said in one line (they went
# on without a word)
"$PROFCONV" diff "$A" "$PY" -o "$tmp/two.folded" 2>"$tmp/err"
check "diff of prog and python3: one warning naming both programs" \
	sh -c "[ \$(grep -c '^profconv: warning: BASE and NEW are different programs (prog, python3.11): only what they share compares\$' '$tmp/err') -eq 1 ]"
"$PROFCONV" diff "$A" "$B" -o "$tmp/same.folded" 2>"$tmp/err"
check "diff of two runs of prog: no such warning" sh -c "! grep -q 'different programs\|share no metric' '$tmp/err'"
sed 's/^events: Ir$/events: Cycles/' "$A" >"$tmp/cycles.out"
"$PROFCONV" diff "$A" "$tmp/cycles.out" -o "$tmp/nom.svg" 2>"$tmp/err"
check "diff of runs with no metric in common (Ir, Cycles): one warning; the SVG's note says 100%, not 1e+02%" \
	sh -c "[ \$(grep -c '^profconv: warning: BASE and NEW share no metric (BASE has .Ir., NEW .Cycles.): each is compared with nothing\$' '$tmp/err') -eq 1 ] &&
	grep -q '^profconv: note: 100% of BASE.s cost is in frames NEW does not have' '$tmp/err' && ! grep -q 'e+' '$tmp/err'"

# SVG: a differential flame graph (widths NEW, colours by change)
"$PROFCONV" diff -q "$A" "$B" -o "$tmp/ab.svg"
check "SVG: fib'2 grew: red, its title with both runs and the change" \
	grep -q "<title>fib'2 (831017 Ir in NEW, 121213 in BASE: +709804, +585.58%, [0-9.]*%)</title><rect [^>]*fill=\"rgb(255,50,50)\"" "$tmp/ab.svg"
if command -v xmllint >/dev/null; then
	check "SVG: well-formed XML" xmllint --noout "$tmp/ab.svg"
fi
ss="$top_srcdir/tests/speedscope"
if ! have_chromium playwright-core; then
	skip "SVG in Chromium: $chromium_why"
elif heavy "the differential SVG of fib in Chromium (a page is 4-5 s of CPU; the quick check opens a differential SVG there in tests/escape.sh)"; then
	node "$ss/svg_judge.mjs" "$tmp/ab.svg" "fib" "$tmp/ab.png" >"$tmp/sj" 2>&1
	check "SVG in Chromium: no error, the widest frame as wide as its NEW share, zoom" \
		sh -c "grep -q '^errors 0\$' '$tmp/sj' && grep -q '^zoom .* 100.00\$' '$tmp/sj' &&
			awk '\$1 == \"top\" { d = \$(NF - 1) - \$NF; exit !(d < 0.05 && -d < 0.05) }' '$tmp/sj'"
fi

# two real databases: pipit's ping-pong, old hpcprof's and hpcprof v4's
if have_shared; then
	L="$SHARED/hpctoolkit-data/legacy-pipit-ping-pong"
	V="$SHARED/hpctoolkit-data/v4-pipit-ping-pong"
	"$PROFCONV" diff -q "$L" "$V" -o "$tmp/pp.d"
	"$PROFCONV" check "$tmp/pp.d" >/dev/null
	check "two databases: a valid v4 database" test $? -eq 0
	"$PROFCONV" dump "$tmp/pp.d" >"$tmp/pp.dump"
	check "two databases: [new-base] = [new] - [base] at every context, every scope" \
		delta_ok "$tmp/pp.dump" 100
	check "two databases: main is one context (modules and files matched by name)" \
		sh -c "'$PROFCONV' diff '$L' '$V' -o '$tmp/pp2.d' 2>&1 | grep -q '^profconv: note: [1-9][0-9]* context(s) in both runs'"
else
	skip "two real databases: $NO_SHARED"
fi
done_testing
