#!/bin/sh
# Real HPCToolkit databases (../shared/hpctoolkit-data/v4-*), judged by an
# independent reader (tests/v4_scopes, no code shared with profconv):
#  - v4 -> v4: every context visible in meta.db keeps, in every profile
#    (summary included) and metric, the execution and function values the
#    original stores (what hpcviewer and hatchet show), and the context
#    count; no "[context N not in meta.db]" placeholder is left (hpcprof's
#    elided ids are all placed); metrics/default.yaml is the original's;
#    with -l, the lex_aware values (summary included) as well;
#  - v4 -> Callgrind: callgrind_annotate's self cost of each function is
#    the function's exclusive cost in the original summed over its
#    contexts, for every metric.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
SCOPES="$top_builddir/tests/v4_scopes"
AWKF="$top_srcdir/tests/annotate2tsv.awk"
T=$(printf '\t')
if ! have_shared; then
	skip "real HPCToolkit databases: $NO_SHARED"
	done_testing
	exit
fi
set -- "$SHARED"/hpctoolkit-data/v4-*
for db in "$@"; do
	dn=$(basename "$db")
	rm -rf "$tmp/o.d"
	if ! "$PROFCONV" convert -o "$tmp/o.d" "$db" 2>"$tmp/err"; then
		not_ok "$dn: convert"; sed 's/^/# /' "$tmp/err"; continue
	fi
	if grep -q 'no single place' "$tmp/err"; then not_ok "$dn: $(cat "$tmp/err")"
	else ok "$dn: every elided context placed"; fi
	"$PROFCONV" dump -q "$db" >"$tmp/dump"
	check "$dn: no placeholder context" sh -c "! grep -q 'not in meta.db\\|place undecided' '$tmp/dump'"
	a=$("$PROFCONV" check "$db" | sed 's/.*: \([0-9]*\) contexts.*/\1/')
	b=$("$PROFCONV" check "$tmp/o.d" | sed 's/.*: \([0-9]*\) contexts.*/\1/')
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$dn: $a contexts, as the original"
	else not_ok "$dn: $a contexts in the original, $b written"; fi
	# a copy keeps meta.db's title and description (HPCToolkit's strict
	# diff compares them)
	"$PROFCONV" info "$db" | grep -E '^(title|description):' >"$tmp/ta"
	"$PROFCONV" info "$tmp/o.d" | grep -E '^(title|description):' >"$tmp/tb"
	check "$dn: v4 -> v4 keeps the title and description ($(grep -c . "$tmp/ta") lines)" \
		sh -c "grep -q '^description: ' '$tmp/ta' && cmp -s '$tmp/ta' '$tmp/tb'"
	# hpcprof's default.yaml says which metrics hpcviewer and hatchet
	# show and how (derived ones, hidden raw ones): carried unchanged
	if [ -f "$db/metrics/default.yaml" ]; then
		check "$dn: metrics/default.yaml carried unchanged" \
			cmp -s "$db/metrics/default.yaml" "$tmp/o.d/metrics/default.yaml"
	fi
	"$SCOPES" "$db" >"$tmp/a" && "$SCOPES" "$tmp/o.d" >"$tmp/b"
	# the loop-aware exclusive values too: hpcprof gives the summary the
	# loops' function values without nested loops, not the threads' sum
	"$SCOPES" -l "$db" >"$tmp/la" && "$SCOPES" -l "$tmp/o.d" >"$tmp/lb"
	# (to 16 ULPs, as HPCToolkit's strict diff: 4e-15 relative)
	if awk -v tol=4e-15 -f "$top_srcdir/tests/scopes_cmp.awk" "$tmp/la" "$tmp/lb" >"$tmp/cmp"; then
		ok "$dn: v4 -> v4 keeps the lex_aware values: $(tail -1 "$tmp/cmp")"
	else
		not_ok "$dn: v4 -> v4 lex_aware values"; head -5 "$tmp/cmp" | sed 's/^/# /'
	fi
	if awk -v tol=4e-15 -f "$top_srcdir/tests/scopes_cmp.awk" "$tmp/a" "$tmp/b" >"$tmp/cmp"; then
		ok "$dn: v4 -> v4 keeps what viewers show: $(tail -1 "$tmp/cmp")"
	else
		not_ok "$dn: v4 -> v4 values"; head -5 "$tmp/cmp" | sed 's/^/# /'
	fi

	# v4 -> Callgrind, per function and metric
	command -v callgrind_annotate >/dev/null || { skip "$dn: callgrind_annotate not installed"; continue; }
	out="$tmp/callgrind.out.$dn"
	if ! "$PROFCONV" convert -q -o "$out" "$db"; then not_ok "$dn: -> callgrind"; continue; fi
	# expected: NAME<TAB>METRIC<TAB>exclusive, from the summary profile
	awk -F'\t' '$1 == "summary" && $4 == "function" && NF == 6 {s[$6 T $3] += $5}
		END {for (k in s) if (s[k] != 0) printf "%s\t%.17g\n", k, s[k]}' T="$T" "$tmp/a" |
		sort >"$tmp/want"
	# callgrind_annotate's self costs, scaled back, by function name
	nev=$(grep -m1 '^events:' "$out" | wc -w); nev=$((nev - 1))
	callgrind_annotate --auto=no --threshold=100 --inclusive=no "$out" 2>/dev/null |
		awk -v mode=self -v nev="$nev" -f "$AWKF" >"$tmp/self"
	longnames "$db" >"$tmp/long"
	awk -F'\t' 'FILENAME == L { long[$1] = $2; next }
		FILENAME == O {
			if ($0 ~ /^event: /) {
				name = $0; sub(/^event: [^ ]* : /, "", name); sc = 1
				if (match(name, / \(x[0-9]+\)$/)) {
					sc = substr(name, RSTART + 3, RLENGTH - 4)
					name = substr(name, 1, RSTART - 1)
				}
				names[++n] = (name in long) ? long[name] : name; scale[n] = sc
			}
			next
		}
		{
			fn = $1; sub(/^[^:]*:/, "", fn); split($2, c, " ")
			for (i = 1; i <= n; i++) if (c[i] != 0) s[fn T names[i]] += c[i] / scale[i]
		}
		END {for (k in s) printf "%s\t%.17g\n", k, s[k]}' T="$T" L="$tmp/long" O="$out" "$tmp/long" "$out" "$tmp/self" |
		sort >"$tmp/got"
	if awk -F'\t' 'FNR == NR {w[$1 T $2] = $3; next}
		{g[$1 T $2] = $3}
		END {
			for (k in w) { x = w[k]; y = g[k] + 0; d = x - y; if (d < 0) d = -d
				m = x < 0 ? -x : x
				if (d > 1e-6 * m + 1e-6) { if (bad++ < 5) printf "# %s: want %.17g got %.17g\n", k, x, y } }
			for (k in g) if (!(k in w)) { if (bad++ < 5) printf "# %s: unexpected cost %.17g\n", k, g[k] }
			printf "# %d (function, metric) costs\n", length(w)
			exit bad > 0
		}' T="$T" "$tmp/want" "$tmp/got" >"$tmp/res"; then
		ok "$dn: -> callgrind: self cost of every function = its exclusive cost $(tail -1 "$tmp/res" | sed 's/^# //')"
	else
		not_ok "$dn: -> callgrind self costs"; cat "$tmp/res"
	fi
	# our copy has no elided ids, so its stored scopes are not read
	# for Callgrind output: the same costs must come out
	rm -f "$tmp/callgrind.out.copy"
	"$PROFCONV" convert -q -o "$tmp/callgrind.out.copy" "$tmp/o.d" &&
		cg_same "$out" "$tmp/callgrind.out.copy" &&
		ok "$dn: its v4 copy gives the same Callgrind costs (stored scopes not read)" ||
		not_ok "$dn: Callgrind of the v4 copy differs"
done

# twins: hpcprof writes two '<gpu kernel>' functions with equal fields,
# each with its own contexts; they stay two
"$PROFCONV" dump -q "$SHARED/hpctoolkit-data/v4-loops-cuda-nvidia-t.d" >"$tmp/cuda"
check "v4-loops-cuda: twin functions stay distinct" grep -q '^f[0-9]* "<gpu kernel>" .* dup=1$' "$tmp/cuda"

# --stats adds statistics hpcprof's default.yaml does not name: ours is
# written instead, with a warning, and shows the raw metric it hid
rm -rf "$tmp/st.d"
"$PROFCONV" convert --stats -o "$tmp/st.d" "$SHARED/hpctoolkit-data/v4-loops-cuda-nvidia-t.d" 2>"$tmp/err"
check "--stats: the input's default.yaml not carried, with a warning" grep -q 'default.yaml of the HPCToolkit input is not carried' "$tmp/err"
check "--stats: our default.yaml, raw metrics as roots" grep -q '^- name: GKER:LMEM_ACUMU (B)' "$tmp/st.d/metrics/default.yaml"
check "--stats: check --strict accepts it" "$PROFCONV" check --strict "$tmp/st.d"

# a database of an older hpcprof without metrics/default.yaml: read with
# a warning, accepted by check (warning) but not by check --strict, and
# what we write from it has one
cp -r "$SHARED/hpctoolkit-data/v4-small.d" "$tmp/old.d"; chmod -R u+w "$tmp/old.d"
rm -r "$tmp/old.d/metrics"
check "no default.yaml: check accepts with a warning" sh -c \
	"'$PROFCONV' check '$tmp/old.d' 2>&1 | grep -q 'default.yaml: missing'"
if "$PROFCONV" check --strict "$tmp/old.d" >/dev/null 2>&1; then
	not_ok "no default.yaml: check --strict accepts it"
else
	ok "no default.yaml: check --strict rejects it"
fi
rm -rf "$tmp/new.d"
check "no default.yaml: read with a note" sh -c \
	"'$PROFCONV' convert -o '$tmp/new.d' '$tmp/old.d' 2>&1 | grep -q 'no metrics/default.yaml'"
check "no default.yaml: our output has one" "$PROFCONV" check --strict "$tmp/new.d"
done_testing
