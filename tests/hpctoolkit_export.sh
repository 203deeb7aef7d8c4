#!/bin/sh
# Callgrind -> HPCToolkit v4: every real fixture converts, passes
# `profconv check`, and its summary profile holds the right numbers: the
# execution value at context 0 is each metric's total, and each
# function's exclusive (function scope) cost summed by name equals
# callgrind_annotate's self cost for that name; the Calls metric totals
# the calls= counts. Conversion is
# deterministic; an existing output is replaced only with --force. With
# --stats, the statistics variants of metrics/default.yaml evaluate to
# the statistics of the threads' values (tests/yaml_stats.pl).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
AWKF="$top_srcdir/tests/annotate2tsv.awk"
cd "$TD/callgrind" || exit 1
for f in prog.default.out prog.instr-jumps.out prog.cachesim.out \
	prog.sepcallers.out prog.cachegrind.out prog.dumps.out \
	prog.default.out.gz threads.out-01 small.main.out small.spin-instr.out; do
	db="$tmp/$f.d"
	if ! "$PROFCONV" convert -q -o "$db" "$f" 2>"$tmp/err"; then
		not_ok "$f: convert"; sed 's/^/# /' "$tmp/err"; continue
	fi
	check "$f: profconv check" "$PROFCONV" check "$db"
	"$PROFCONV" check --values "$db" >"$tmp/values"
	if ! command -v callgrind_annotate >/dev/null; then
		skip "$f: callgrind_annotate not installed"; continue
	fi
	gzip -dcf "$f" | sed 's/^calls=0 /calls=1 /' >"$tmp/in.out"
	events=$(grep -m1 '^events:' "$tmp/in.out" | cut -d' ' -f2-)
	nev=$(echo "$events" | wc -w)
	callgrind_annotate --auto=no --threshold=100 --inclusive=no "$tmp/in.out" |
		awk -v mode=self -v nev="$nev" -f "$AWKF" >"$tmp/self"
	# totals: one line per event, from the summary profile
	awk -F'\t' -v ev="$events" 'BEGIN {n = split(ev, e, " ")}
		{k = split($2, c, " "); for (i = 1; i <= k; i++) s[i] += c[i]}
		END {for (i = 1; i <= n; i++) if (s[i]) printf "total\t%s\t%.0f\n", e[i], s[i]}' \
		"$tmp/self" | sort >"$tmp/want.total"
	awk -F'\t' '$1 == "total" && $2 != "Calls" {printf "total\t%s\t%.0f\n", $2, $3}' "$tmp/values" |
		sort >"$tmp/got.total"
	if cmp -s "$tmp/want.total" "$tmp/got.total"; then
		ok "$f: summary execution at context 0 = totals ($(tr '\n\t' '  ' <"$tmp/got.total"))"
	else
		not_ok "$f: totals differ"; diff "$tmp/want.total" "$tmp/got.total" | sed 's/^/# /'
	fi
	# per function name (annotate's key is file:function; inlined code
	# is listed under its file, so sum over files)
	awk -F'\t' -v ev="$events" 'BEGIN {n = split(ev, e, " ")}
		{name = $1; sub(/^[^:]*:/, "", name); k = split($2, c, " ");
		 for (i = 1; i <= k; i++) s[e[i] "\t" name] += c[i]}
		END {for (x in s) if (s[x]) printf "function\t%s\t%.0f\n", x, s[x]}' \
		"$tmp/self" | sort >"$tmp/want.fn"
	awk -F'\t' '$1 == "function" && $2 != "Calls" && sprintf("%.0f", $4) != "0" {printf "function\t%s\t%s\t%.0f\n", $2, $3, $4}' \
		"$tmp/values" | sort >"$tmp/got.fn"
	if cmp -s "$tmp/want.fn" "$tmp/got.fn"; then
		ok "$f: $(wc -l <"$tmp/got.fn") function-scope totals equal callgrind_annotate's self costs"
	else
		not_ok "$f: function-scope totals differ"
		diff "$tmp/want.fn" "$tmp/got.fn" | head -10 | sed 's/^/# /'
	fi
	# the Calls metric: its total is the sum of the calls= counts
	want=$(gzip -dcf "$f" | awk '/^calls=/ {split(substr($0, 7), a, " "); s += a[1]} END {printf "%.0f", s}')
	got=$(awk -F'\t' '$1 == "total" && $2 == "Calls" {printf "%.0f", $3}' "$tmp/values")
	if [ "$want" = 0 ] && [ -z "$got" ]; then ok "$f: no calls= lines, no Calls metric"
	elif [ "$want" = "$got" ]; then ok "$f: Calls total $got = the calls= counts"
	else not_ok "$f: Calls total '$got', calls= counts $want"; fi
done

# several thread files merge into one database, one profile each
"$PROFCONV" convert -q -o "$tmp/threads.d" threads.out threads.out-0*
"$PROFCONV" check "$tmp/threads.d" >"$tmp/ok"
check "thread files: check passes with 3 threads + summary" grep -q ' 3 profiles + summary' "$tmp/ok"

# determinism and --force
"$PROFCONV" convert -q -o "$tmp/a.d" small.main.out
"$PROFCONV" convert -q -o "$tmp/b.d" small.main.out
check "converting twice gives identical files" diff -r "$tmp/a.d" "$tmp/b.d"
if "$PROFCONV" convert -q -o "$tmp/a.d" small.main.out 2>"$tmp/err"; then
	not_ok "existing output replaced without --force"
else
	check "existing output refused without --force" grep -q 'output exists (use --force' "$tmp/err"
fi
check "--force replaces it" "$PROFCONV" convert -q --force -o "$tmp/a.d" small.spin-instr.out
check "replaced database checks" "$PROFCONV" check "$tmp/a.d"
mkdir "$tmp/notdb"; touch "$tmp/notdb/precious"
"$PROFCONV" convert -q --force -o "$tmp/notdb" small.main.out 2>"$tmp/err"
check "--force does not remove a directory that is not a database" test -f "$tmp/notdb/precious"
"$PROFCONV" convert -q -o "$tmp/bad.d" bad/garbage-line.out 2>/dev/null
check "failed conversion leaves nothing behind" sh -c "! ls -d '$tmp'/bad.d* 2>/dev/null"
"$PROFCONV" convert -q --stats -o "$tmp/stats.d" small.threads.out-0*
check "--stats database checks" "$PROFCONV" check "$tmp/stats.d"
check "--stats writes min and max summaries" grep -q 'combine: max' "$tmp/stats.d/metrics/default.yaml"
# the statistics variants (Mean, StdDev, CfVar, Min, Max), evaluated from
# the formulas default.yaml gives over the threads' values, equal the
# statistics of those values
"$top_builddir/tests/v4_scopes" "$tmp/stats.d" >"$tmp/stats.scopes"
perl "$top_srcdir/tests/yaml_stats.pl" "$tmp/stats.d/metrics/default.yaml" \
	"$tmp/stats.scopes" >"$tmp/stats.out" 2>&1
check "--stats variants' formulas give the thread statistics ($(tail -1 "$tmp/stats.out"))" \
	grep -q '^[1-9][0-9]* checked, 0 differ$' "$tmp/stats.out"
check "--stats writes all six variants" grep -q '^variants: CfVar x[1-9].* Sum x' "$tmp/stats.out"
# hpcviewer 2024 shows an exclusive column only when the exclusive
# formula lists custom: (lex_aware) before standard: (function)
for y in "$tmp/stats.d/metrics/default.yaml"; do
	awk '/exclusive:$/ { want = 1; n++; next }
		want { if ($1 != "custom:") bad++; want = 0 }
		END { exit !(n > 0 && bad == 0) }' "$y"
	[ $? -eq 0 ] && ok "default.yaml: every exclusive formula has custom: before standard:" ||
		not_ok "default.yaml: an exclusive formula without custom: first"
done
done_testing
