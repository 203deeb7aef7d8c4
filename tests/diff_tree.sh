#!/bin/sh
# profconv diff of two Callgrind runs lays both on one calling-context
# tree (issue 58, item 5). The recinl program run with and without
# --cache-sim=yes has the same Ir per function (its call edges too, but
# for exit's path, 2 Ir apart); the second's 9 events weigh the layout
# of ld.so's recursive groups otherwise, so two trees built apart
# differed at 174 contexts, and at 440 (7.5% of the total) when cut to
# --max-contexts=5000. On one tree no context changes, in any output,
# whole or cut; runs that do differ show [new] - [base] at every
# context, their totals exact.
. "$(dirname "$0")/lib.sh"
CG="$TD/callgrind"
A="$CG/recinl.pair.out.gz"
B="$CG/recinl.pair-cachesim.out.gz"

# the inputs: the same Ir per function, as callgrind_annotate reads them
if command -v callgrind_annotate >/dev/null; then
	self() {
		gzip -dc "$1" >"$tmp/self.out"
		callgrind_annotate --threshold=100 --show=Ir "$tmp/self.out" 2>/dev/null |
			sed -n '/file:function/,$p' | grep -v 'PROGRAM TOTALS' | sort
	}
	self "$A" >"$tmp/a.self"
	self "$B" >"$tmp/b.self"
	check "the pair: the same Ir per function in both runs ($(wc -l <"$tmp/a.self") functions, callgrind_annotate)" \
		sh -c "[ \$(wc -l <'$tmp/a.self') -gt 100 ] && cmp '$tmp/a.self' '$tmp/b.self'"
else
	skip "the pair's Ir per function: needs callgrind_annotate (Debian: valgrind)"
fi

# folded "stack base new": every stack's two counts equal, the whole
# tree and one cut to 5,000 contexts (summed frames in both)
for mc in "" --max-contexts=5000; do
	"$PROFCONV" diff -q --min-width=0 $mc "$A" "$B" -o "$tmp/ab$mc.folded"
	check "folded${mc:+, $mc}: no stack changes ($(wc -l <"$tmp/ab$mc.folded") stacks, each run 2,729,109 Ir)" \
		awk '{ b += $(NF - 1); n += $NF; if ($NF != $(NF - 1)) bad++ }
			END { exit !(NR > 200 && !bad && b == 2729109 && n == 2729109) }' \
		"$tmp/ab$mc.folded"
done
check "folded, --max-contexts=5000: the tree is cut (summed frames)" \
	grep -q '\[summed: [0-9]* functions\?\]' "$tmp/ab--max-contexts=5000.folded"
# --apart builds each run's tree alone, as convert does: the trees'
# estimates differ (what the default no longer shows)
"$PROFCONV" diff -q --apart --min-width=0 --max-contexts=5000 "$A" "$B" -o "$tmp/apart.folded"
check "folded, --apart --max-contexts=5000: two trees, which differ (as before one tree)" \
	awk '$NF != $(NF - 1) { bad++ } END { exit !(bad > 100) }' "$tmp/apart.folded"

# the v4 database: no value of Ir [new-base] or Calls [new-base] at any
# context, in any scope it stores; BASE's and NEW's values there
"$PROFCONV" diff -q --max-contexts=5000 "$A" "$B" -o "$tmp/ab.d"
"$PROFCONV" dump "$tmp/ab.d" >"$tmp/ab.dump"
no_change() {
	awk '
		/^metrics / { m = 1; next }
		m && /^m[0-9]+ "/ { id = substr($1, 2); nm = $0; sub(/^[^"]*"/, "", nm)
			sub(/".*/, "", nm); name[id] = nm; next }
		/^profiles / { m = 0 }
		/^(values|scoped) / { v = 1; next }
		/^traces / { v = 0 }
		v && /^p[0-9]+ c[0-9]+ m/ { mm = substr($3, 2); sub(/\..*/, "", mm)
			if (name[mm] == "Ir [base]") nb++
			if (name[mm] == "Ir [new-base]" || name[mm] == "Calls [new-base]")
				if ($4 != 0) bad++ }
		END { print nb, bad + 0; exit !(nb > 1000 && !bad) }' "$1"
}
check "v4 database (cut to 5,000 contexts): no Ir or Calls [new-base] value at any context, any scope" \
	no_change "$tmp/ab.dump"
check "v4 database: its description says the one tree was cut" \
	sh -c "'$PROFCONV' info '$tmp/ab.d' 2>&1 | grep -q 'one tree for both runs: call tree cut'"

# Callgrind: Ir_base and Ir_new equal on every cost line
"$PROFCONV" diff -q --max-contexts=5000 "$A" "$B" -o "$tmp/ab.callgrind"
check "Callgrind: Ir_base = Ir_new on every cost line and call" \
	awk '/^events: Ir_base Ir_new / { ev = 1; next }
		ev && /^[0-9+*-]/ { n++; if ($2 != $3) bad++ }
		END { exit !(ev && n > 1000 && !bad) }' "$tmp/ab.callgrind"

# pprof: go tool pprof -top of the comparison, NEW's samples less
# BASE's: nothing left at any function
"$PROFCONV" diff -q --max-contexts=5000 "$A" "$B" -o "$tmp/ab.pb.gz"
if have_go; then
	for ty in Ir Calls; do
		HOME="$tmp" go tool pprof -top -nodefraction=0 -nodecount=1000000 \
			-sample_index=$ty "$tmp/ab.pb.gz" >"$tmp/top.$ty" 2>/dev/null
		check "pprof ($ty): go tool pprof -top shows no change (nodes accounting for 0)" \
			sh -c "grep -q '^Showing nodes accounting for 0, 0% of [1-9][0-9]* total' '$tmp/top.$ty' &&
				! sed '1,/flat%/d' '$tmp/top.$ty' | grep -q ."
	done
else
	skip "pprof: $go_why"
fi

# SVG: no frame coloured or titled as a change
"$PROFCONV" diff -q --max-contexts=5000 "$A" "$B" -o "$tmp/ab.svg"
check "SVG: every frame +0 ($(grep -c '<title>' "$tmp/ab.svg") frames)" \
	sh -c "[ \$(grep -c '<title>' '$tmp/ab.svg') -gt 50 ] && ! grep '<title>' '$tmp/ab.svg' | grep -v ': +0, +0.00%, '"

# the same program built elsewhere (its paths moved): functions one by
# a path's last component unique in both runs, as diff matches them
# apart (444 functions changed on one tree without it)
sed 's|/tmp/profconv-fixtures/|/home/u/src/|g' "$CG/prog.default.out" >"$tmp/moved.out"
"$PROFCONV" diff -q "$CG/prog.default.out" "$tmp/moved.out" -o "$tmp/mv.d"
"$PROFCONV" check --values "$tmp/mv.d" >"$tmp/mv.vals"
check "a run built elsewhere (paths moved): no function changes ($(grep -c '^function	Ir \[base\]' "$tmp/mv.vals") functions)" \
	sh -c "grep -q '^function	Ir \[base\]	main	' '$tmp/mv.vals' && ! grep -q 'new-base' '$tmp/mv.vals'"

# parts: a file of three threads (valgrind's three thread files, one
# after another) against itself, and against its first two: parts pair
# by number, a part of one run is laid out alone
cat "$CG/threads.out-01" "$CG/threads.out-02" "$CG/threads.out-03" >"$tmp/t3.out"
cat "$CG/threads.out-01" "$CG/threads.out-02" >"$tmp/t2.out"
"$PROFCONV" diff -q "$tmp/t3.out" "$tmp/t3.out" -o "$tmp/t33.d"
"$PROFCONV" diff -q "$tmp/t3.out" "$tmp/t2.out" -o "$tmp/t32.d"
"$PROFCONV" convert -q "$tmp/t3.out" -o "$tmp/t3.d"
"$PROFCONV" info "$tmp/t33.d" >"$tmp/t33.info"
"$PROFCONV" check --values "$tmp/t32.d" >"$tmp/t32.vals"
"$PROFCONV" check --values "$tmp/t3.d" >"$tmp/t3.vals"
check "three parts against themselves: three profiles, no change" \
	sh -c "grep -q '^3 profiles:' '$tmp/t33.info' && ! '$PROFCONV' check --values '$tmp/t33.d' | grep -q 'new-base'"
tb=$(awk -F'\t' '$1 == "total" && $2 == "Ir" { print $3 }' "$tmp/t3.vals")
tn=$(awk '/^totals:/ { s += $2 } END { print s }' "$tmp/t2.out")
check "three parts against two: BASE's total convert's ($tb), NEW's the first two threads' ($tn)" \
	sh -c "grep -q '^total	Ir \[base\]	$tb\$' '$tmp/t32.vals' &&
		grep -q '^total	Ir \[new\]	$tn\$' '$tmp/t32.vals' && [ $tn -eq 257353 ]"

# runs that differ (prog at fib(18) and fib(22)), on one tree cut to 300
# contexts: [new-base] = [new] - [base] at every context and scope, the
# totals each run's
P18="$CG/prog.default.out"
P22="$CG/prog.n22.out"
"$PROFCONV" diff --max-contexts=300 "$P18" "$P22" -o "$tmp/p.d" 2>"$tmp/err"
"$PROFCONV" dump "$tmp/p.d" >"$tmp/p.dump"
check "runs that differ, cut: [new-base] = [new] - [base] at every context, every scope" \
	awk -v min=1001 -f "$top_srcdir/tests/diff_delta.awk" "$tmp/p.dump"
"$PROFCONV" check --values "$tmp/p.d" >"$tmp/p.vals"
check "runs that differ, cut: totals 527,325 and 1,238,014 Ir, the change 710,689" \
	sh -c "grep -q '^total	Ir \[base\]	527325\$' '$tmp/p.vals' &&
		grep -q '^total	Ir \[new\]	1238014\$' '$tmp/p.vals' &&
		grep -q '^total	Ir \[new-base\]	710689\$' '$tmp/p.vals'"
check "runs that differ, cut: one note says both runs lie on one tree" \
	grep -q '^profconv: note: BASE and NEW laid out on one calling-context tree' "$tmp/err"
done_testing
