#!/bin/sh
# Callgrind files of other producers (testdata/callgrind/producers): each
# converts with exit 0, says what its quirk does in one line, and its
# Callgrind output shows, in callgrind_annotate, every function with the
# self and inclusive cost the producer's own readers give it
# (callgrind_annotate, KCachegrind; by function name: a file that names
# no fl= has no function files to keep).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
P="$TD/callgrind/producers"
needs callgrind_annotate "producers' files" valgrind
# costs FILE: "name self inclusive" per function, as callgrind_annotate
# reads FILE (the file and object around the name left out)
costs() {
	for inc in no yes; do
		callgrind_annotate --inclusive=$inc --threshold=100 --auto=no "$1" 2>/dev/null |
			awk -v k=$inc '/^-+$/ { sep++; next }
				sep >= 3 && /^ *[0-9,]+ \(/ { v = $1; gsub(/,/, "", v)
					n = $0; sub(/^ *[0-9,]+ \([^)]*\) +/, "", n)
					sub(/ \[[^]]*\]$/, "", n); sub(/^[^:]*:/, "", n)
					print n, k, v }'
	done | sed 's/ no / self /; s/ yes / inclusive /' | sort -u
}
# quirk NAME WARNING COSTS: converts NAME; its one line, and its costs
# ("name self|inclusive value" lines, sorted, joined by ',')
quirk() {
	"$PROFCONV" convert -o "$tmp/$1.callgrind" "$P/$1" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q -- "$2" "$tmp/err"; then
		ok "$1: converted, $(grep -v '^profconv: wrote' "$tmp/err" | head -1 | cut -c1-120)"
	else
		not_ok "$1: exit $rc"; sed 's/^/# /' "$tmp/err"
	fi
	echo "$3" | tr ',' '\n' | sort >"$tmp/a"
	costs "$tmp/$1.callgrind" | grep -v '^PROGRAM TOTALS' >"$tmp/b"
	if cmp -s "$tmp/a" "$tmp/b"; then
		ok "$1: every function's self and inclusive cost kept ($3)"
	else
		not_ok "$1: costs differ"; diff "$tmp/a" "$tmp/b" | sed 's/^/# /'
	fi
}
quirk costless-callee.out "1 function(s) called without cost lines of their own (the first: 'g')" \
	"f self 10,f inclusive 40,g self 30,g inclusive 30"
quirk fi-only.out "wrote" \
	"main self 10,main inclusive 40,g self 30,g inclusive 30"
quirk undefined-id.out "undefined-id.out:5: 1 use(s) of compressed name ids never defined (the first: (7))" \
	"(7) self 10,(7) inclusive 10"
quirk undefined-ob.out "undefined-ob.out:7: 2 use(s) of compressed name ids never defined (the first: (8))" \
	"main self 10,main inclusive 40,g self 30,g inclusive 30"
# Xdebug (a real file): its summary is not the sum of its cost lines (a
# note); every function's costs kept; its events' units reach pprof:
# Time_(10ns) in nanoseconds (times 10), Memory_(bytes) in bytes
"$PROFCONV" convert -o "$tmp/xdebug.callgrind" "$P/xdebug.out" 2>"$tmp/err"
check "xdebug.out: converted, the summary said to differ" \
	grep -q "differs from the sum of the cost lines" "$tmp/err"
# selfs FILE EVENT: "name self" per function, callgrind_annotate's
selfs() {
	callgrind_annotate --threshold=100 --auto=no --show="$2" "$1" 2>/dev/null |
		awk '/^-+$/ { sep++; next }
			sep >= 3 && /^ *-?[0-9,]+ \(/ { v = $1; gsub(/,/, "", v)
				n = $0; sub(/^ *-?[0-9,]+ \([^)]*\) +/, "", n)
				sub(/ \[[^]]*\]$/, "", n); sub(/^[^:]*:/, "", n)
				print n, v }' | grep -v '^PROGRAM TOTALS' | sort
}
# (written as Time_10ns, its long name Time_(10ns): the specification's
# event names are letters, digits and _)
for ev in 'Time_(10ns) Time_10ns' 'Memory_(bytes) Memory_bytes'; do
	selfs "$P/xdebug.out" "${ev% *}" >"$tmp/a"
	selfs "$tmp/xdebug.callgrind" "${ev#* }" >"$tmp/b"
	if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
		ok "xdebug.out: $(wc -l <"$tmp/a") functions keep their self cost in ${ev% *}"
	else
		not_ok "xdebug.out: self costs in ${ev% *} differ"; diff "$tmp/a" "$tmp/b" | sed 's/^/# /'
	fi
done
if have_go; then
	"$PROFCONV" convert -q -o "$tmp/xdebug.pb.gz" "$P/xdebug.out"
	HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -raw "$tmp/xdebug.pb.gz" >"$tmp/raw" 2>&1
	t=$(selfs "$P/xdebug.out" 'Time_(10ns)' | awk '{ n += $NF } END { print n }')
	# the samples' first values, summed (pprof -raw: "values: stack ids")
	s=$(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		on && /^ *[0-9]+ .*:/ { n += $1 } END { print n + 0 }' "$tmp/raw")
	check "xdebug.out -> pprof: sample types in nanoseconds and bytes" \
		grep -q "Time_(10ns)/nanoseconds\[dflt\] Memory_(bytes)/bytes" "$tmp/raw"
	if [ -n "$t" ] && [ "$s" = "$((t * 10))" ]; then
		ok "xdebug.out -> pprof: $s ns in all, 10 times the file's $t (10 ns units)"
	else
		not_ok "xdebug.out -> pprof: '$s' ns in all for '$t' units of 10 ns"
	fi
else
	skip "Xdebug's units in pprof: $go_why"
fi
# Negative costs (negative.out, written by hand as Xdebug writes a
# memory that goes down): read, and laid out along the calling contexts
# of the time; each function keeps its self cost in both events as
# callgrind_annotate reads them, the time its inclusive cost too, and
# all the memory lies below {main}; the Callgrind output writes them
# signed and says KCachegrind does not read them, the folded stacks
# leave them out and say so, the database and pprof hold them
"$PROFCONV" convert -o "$tmp/neg.callgrind" "$P/negative.out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q "event 'Memory_(bytes)' has negative costs: laid out along the calling contexts of the first event without them" "$tmp/err" &&
	[ "$(grep -c "warning: metric 'Memory_(bytes)' has negative costs: written signed, as Xdebug writes them; callgrind_annotate reads them, KCachegrind reads costs as unsigned and skips them" "$tmp/err")" -eq 1 ] &&
	ok "negative.out: read, with a note; the Callgrind output says KCachegrind skips them" ||
	{ not_ok "negative.out: exit $rc"; sed 's/^/# /' "$tmp/err"; }
for ev in 'Time_(10ns) Time_10ns' 'Memory_(bytes) Memory_bytes'; do
	selfs "$P/negative.out" "${ev% *}" >"$tmp/a"
	selfs "$tmp/neg.callgrind" "${ev#* }" >"$tmp/b"
	if [ "$(wc -l <"$tmp/a")" -eq 5 ] && cmp -s "$tmp/a" "$tmp/b"; then
		ok "negative.out: 5 functions keep their self cost in ${ev% *} ($(tr '\n' ' ' <"$tmp/b"))"
	else
		not_ok "negative.out: self costs in ${ev% *} differ"; diff "$tmp/a" "$tmp/b" | sed 's/^/# /'
	fi
done
costs "$P/negative.out" | grep -v 'PROGRAM TOTALS' >"$tmp/a"
costs "$tmp/neg.callgrind" | grep -v 'PROGRAM TOTALS' >"$tmp/b"
check "negative.out: every function's inclusive time kept" cmp "$tmp/a" "$tmp/b"
callgrind_annotate --inclusive=yes --threshold=100 --auto=no --show=Memory_bytes "$tmp/neg.callgrind" >"$tmp/ann" 2>&1
check "negative.out: all the memory (51,184 bytes) below {main}" \
	grep -q '^ *51,184 (100.0%) .*{main}' "$tmp/ann"
rm -rf "$tmp/neg.d"
"$PROFCONV" convert -q -o "$tmp/neg.d" "$P/negative.out" &&
	"$PROFCONV" check --values "$tmp/neg.d" >"$tmp/vals" 2>&1
check "negative.out -> v4: the total and drop's -200,000 bytes held" \
	sh -c "grep -q '^total	Memory_(bytes)	51184\$' '$tmp/vals' && grep -q '^function	Memory_(bytes)	drop	-200000\$' '$tmp/vals'"
"$PROFCONV" convert --metric 'Memory_(bytes)' -o "$tmp/neg.folded" "$P/negative.out" 2>"$tmp/err"
check "negative.out -> folded stacks of the memory: the negative ones left out, said" \
	grep -q "metric 'Memory_(bytes)': 2 stack(s) with a negative self value left out (folded stacks count up)" "$tmp/err"
if have_go; then
	"$PROFCONV" convert -q -o "$tmp/neg.pb.gz" "$P/negative.out"
	HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -sample_index=1 -unit=B -top "$tmp/neg.pb.gz" >"$tmp/top" 2>&1
	check "negative.out -> pprof: drop's -200000 bytes as go tool pprof reads them" \
		grep -q '^ *-200000B .* drop$' "$tmp/top"
else
	skip "negative costs in pprof: $go_why"
fi
# an event named "Calls" (the name of the metric of the calls= counts):
# kept apart as Calls_event, with a warning (it was summed with them)
printf 'events: Calls Ir\nfn=main\n1 5 10\ncfn=f\ncalls=7 1\n1 3 4\nfn=f\n1 3 4\n' >"$tmp/calls.out"
rm -rf "$tmp/calls.d"
"$PROFCONV" convert -q -o "$tmp/calls.d" "$tmp/calls.out" 2>/dev/null &&
	"$PROFCONV" check --values "$tmp/calls.d" >"$tmp/vals" 2>&1
"$PROFCONV" convert -o "$tmp/calls2.d" "$tmp/calls.out" 2>"$tmp/err"
check "an event named Calls: kept apart from the 7 calls (8 as Calls_event), with a warning" \
	sh -c "grep -q '^total	Calls	7\$' '$tmp/vals' && grep -q '^total	Calls_event	8\$' '$tmp/vals' &&
		grep -q \"calls.out:1: an event named 'Calls' is read as 'Calls_event'\" '$tmp/err'"
# gperftools' pprof --callgrind of a run without samples: recognized
# without -f (the events line alone), and said to have nothing
"$PROFCONV" identify "$P/gperftools-empty.out" >"$tmp/id" 2>&1
check "gperftools-empty.out: recognized as Callgrind without -f" grep -q -- '-> callgrind$' "$tmp/id"
# a run without samples: an empty output in every form, and a note
for t in hpctoolkit callgrind pprof folded; do
	if "$PROFCONV" convert -t $t -o "$tmp/empty.$t" "$P/gperftools-empty.out" 2>"$tmp/err" &&
		grep -q "no costs: it measured nothing in its 1 metric; the output is empty" "$tmp/err"; then
		ok "gperftools-empty.out -> $t: converted, with the note"
	else
		not_ok "gperftools-empty.out -> $t"; sed 's/^/# /' "$tmp/err"
	fi
done
check "the empty database passes check" "$PROFCONV" check "$tmp/empty.hpctoolkit"
callgrind_annotate "$tmp/empty.callgrind" >"$tmp/ann" 2>&1
check "callgrind_annotate reads the empty Callgrind output" grep -q "PROGRAM TOTALS" "$tmp/ann"
if have_go; then
	HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -top "$tmp/empty.pprof" >"$tmp/top" 2>&1
	check "go tool pprof reads the empty profile" grep -q "Type: Hits" "$tmp/top"
else
	skip "go tool pprof on the empty profile: $go_why"
fi
done_testing
