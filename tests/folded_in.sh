#!/bin/bash
# Folded stacks in (testdata/folded: stackcollapse-perf.pl's and
# difffolded.pl's lines of the perf fixtures): detected from the
# content, the same stacks and counts out again, profconv's own folded
# output read back byte for byte, two counts a line read as the two runs
# `profconv diff` compares, the outputs that check, and one clear line
# for a malformed line.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
D="$TD/folded"

# the counts of a folded file summed (column: 1 the last, 2 the one
# before)
total() { awk -v c="$2" '!/^#/ && NF { s += $(NF - c + 1) } END { print s }' "$1"; }

"$PROFCONV" info "$D/thr.folded" >"$tmp/info"
check "detected as folded stacks from the content" grep -q '^input: .*thr.folded (folded)$' "$tmp/info"
t=$(total "$D/thr.folded" 1)
check "metric 'samples': the sum of the counts ($t)" grep -q "^  samples: $t samples" "$tmp/info"

# the same stacks out: profconv's folded lines are the input's below the
# thread's entry, stack for stack
"$PROFCONV" convert -q "$D/thr.folded" -t folded --min-width=0 -o "$tmp/out.folded"
sed 's/^\[main thread\];//' "$tmp/out.folded" | sort >"$tmp/a"
sort "$D/thr.folded" >"$tmp/b"
check "folded -> folded: the same stacks and counts" cmp "$tmp/a" "$tmp/b"
# profconv's own output reads back as it was written (the entry is the
# entry again; escaped ';' stay part of their names)
"$PROFCONV" convert -q "$tmp/out.folded" -t folded --min-width=0 -o "$tmp/out2.folded"
check "profconv's folded output reads back byte for byte" cmp "$tmp/out.folded" "$tmp/out2.folded"
printf '[application thread];main;a\\x3bb;c 5\nmain;x\\x5cy 2\n' >"$tmp/esc.folded"
"$PROFCONV" convert -q "$tmp/esc.folded" -t folded --min-width=0 -o "$tmp/esc2.folded"
printf '[application thread];main;a\\x3bb;c 5\n[main thread];main;x\\x5cy 2\n' >"$tmp/want"
check "escaped ';' and '\\' and an entry as the first frame read back" cmp "$tmp/esc2.folded" "$tmp/want"
"$PROFCONV" dump -q "$tmp/esc.folded" >"$tmp/esc.dump"
check "an escaped ';' is part of its frame's name" grep -q '"a;b"' "$tmp/esc.dump"

# counts with fractions (flamegraph.pl takes them): not whole
printf 'a;b 1.5\na;c 2\n' >"$tmp/frac.folded"
"$PROFCONV" info "$tmp/frac.folded" >"$tmp/info"
check "fractional counts: total 3.5" grep -q '^  samples: 3.5 samples' "$tmp/info"

# outputs: v4 that checks, with the total; Callgrind
"$PROFCONV" convert -q "$D/thr.folded" -o "$tmp/db.d"
check "v4 database: profconv check --strict" "$PROFCONV" check --strict "$tmp/db.d"
"$PROFCONV" check --values "$tmp/db.d" >"$tmp/values"
check "v4 database: total $t" grep -q "^total	samples	$t$" "$tmp/values"
"$PROFCONV" convert -q "$D/thr.folded" -o "$tmp/callgrind.out.f"
"$PROFCONV" info "$tmp/callgrind.out.f" >"$tmp/info"
check "Callgrind output reads back: total $t" grep -q "^  samples: $t " "$tmp/info"

# two counts a line (difffolded.pl): the model profconv diff makes of
# the two runs, as one-count files
awk '{ c = $(NF - 1); $NF = ""; $(NF - 1) = ""; sub(/ +$/, ""); if (c > 0) print $0, c }' \
	"$D/thr.diff.folded" >"$tmp/base.folded"
awk '{ c = $NF; $NF = ""; $(NF - 1) = ""; sub(/ +$/, ""); if (c > 0) print $0, c }' \
	"$D/thr.diff.folded" >"$tmp/new.folded"
"$PROFCONV" info "$D/thr.diff.folded" >"$tmp/info"
check "two counts: three metrics, base, new, new-base" \
	grep -q '^  samples \[new-base\]: ' "$tmp/info"
for t in folded pprof callgrind; do
	"$PROFCONV" convert -q "$D/thr.diff.folded" -t $t --min-width=0 -o "$tmp/one.$t" 2>/dev/null ||
		"$PROFCONV" convert -q "$D/thr.diff.folded" -t $t -o "$tmp/one.$t"
	"$PROFCONV" diff -q "$tmp/base.folded" "$tmp/new.folded" -t $t --min-width=0 -o "$tmp/two.$t" 2>/dev/null ||
		"$PROFCONV" diff -q "$tmp/base.folded" "$tmp/new.folded" -t $t -o "$tmp/two.$t"
done
sort "$tmp/one.folded" >"$tmp/a"; sort "$tmp/two.folded" >"$tmp/b"
check "two counts -> folded: the lines of profconv diff BASE NEW" cmp "$tmp/a" "$tmp/b"
sed 's/^\[main thread\];//' "$tmp/one.folded" | sort >"$tmp/a"; sort "$D/thr.diff.folded" >"$tmp/b"
check "two counts -> folded: difffolded.pl's lines again" cmp "$tmp/a" "$tmp/b"
if have_go; then
	for f in one two; do
		HOME="$tmp" go tool pprof -top -nodecount=100000 "$tmp/$f.pprof" 2>/dev/null |
			sed -n '/flat%/,$p' | sort >"$tmp/$f.top"
	done
	check "two counts -> pprof: go tool pprof -top shows profconv diff's" \
		sh -c "[ \$(wc -l <'$tmp/one.top') -gt 20 ] && cmp '$tmp/one.top' '$tmp/two.top'"
else
	skip "go tool pprof: $go_why"
fi
"$PROFCONV" convert -q "$D/thr.diff.folded" -o "$tmp/diff.d"
check "two counts -> v4: checks" "$PROFCONV" check --strict "$tmp/diff.d"
"$PROFCONV" convert "$D/thr.folded" "$D/thr.diff.folded" -o "$tmp/x.d" 2>"$tmp/err"
check "two counts with another input: one line that says so, nothing written" \
	sh -c "[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'thr.diff.folded:1: two counts a line' '$tmp/err' && [ ! -e '$tmp/x.d' ]"

# perf -> folded -> folded in: the same stacks
"$PROFCONV" convert -q "$TD/perf/thr.txt" -t folded --min-width=0 -o "$tmp/p.folded"
"$PROFCONV" convert -q "$tmp/p.folded" -t folded --min-width=0 -o "$tmp/p2.folded"
check "perf -> folded -> folded: unchanged" cmp "$tmp/p.folded" "$tmp/p2.folded"

# malformed lines: one line with the file and line, exit 1, nothing
# written (three lines in four are good: the file is still detected)
mkdir -p "$tmp/bad"
good='a;b;c 3
a;b 2
a;d 1
'
printf '%sa;b;e\n' "$good" >"$tmp/bad/no-count.folded"
printf '%sa;;e 4\n' "$good" >"$tmp/bad/empty-frame.folded"
printf '%sa;b;e 4 5\n' "$good" >"$tmp/bad/mixed.folded"
printf '%sa;b;e -4\n' "$good" >"$tmp/bad/negative.folded"
printf '%sa;b;e 1.2.3\n' "$good" >"$tmp/bad/number.folded"
printf '%sa;b;e; 4\n' "$good" >"$tmp/bad/trailing.folded"
bad_inputs "$tmp/bad" <<'LIST'
no-count.folded no-count.folded:4: no count at the end of the line
empty-frame.folded empty-frame.folded:4: an empty frame
mixed.folded mixed.folded:4: 2 counts where the lines before have 1
negative.folded negative.folded:4: no count at the end of the line
number.folded number.folded:4: no count at the end of the line
trailing.folded trailing.folded:4: an empty frame
LIST
done_testing
