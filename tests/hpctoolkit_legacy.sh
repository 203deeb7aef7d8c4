#!/bin/sh
# Old HPCToolkit databases (experiment.xml 2.x + metric-db/hpctrace,
# experiment.xml 4.0 + HPCPROF-*.db) -> v4: every stored (profile,
# context, metric) inclusive and exclusive value, read by an independent
# reader (tests/legacy_scopes.pl) from the old files and by
# tests/v4_scopes from the database written, must be equal; trace samples
# keep their times and contexts; identify picks the flavour; damaged
# databases give one clear line. Fixtures: testdata/hpctoolkit-legacy
# (see its README) and, when present, the real samples in ../shared.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
D="$TD/hpctoolkit-legacy"
SCOPES="$top_builddir/tests/v4_scopes"
READER="$top_srcdir/tests/legacy_scopes.pl"

# migrate DB NAME SUMMARY_TOL: convert, check, compare values and traces
migrate() {
	db=$1; name=$2; stol=$3
	if ! "$PROFCONV" convert -q "$db" -o "$tmp/$name.d" 2>"$tmp/err"; then
		not_ok "$name: convert"; sed 's/^/# /' "$tmp/err"; return
	fi
	ok "$name: converts"
	check "$name: the database passes check --strict" "$PROFCONV" check --strict "$tmp/$name.d"
	perl "$READER" "$db" >"$tmp/$name.old" || { not_ok "$name: legacy reader"; return; }
	"$SCOPES" "$tmp/$name.d" >"$tmp/$name.new"
	grep -v '^summary' "$tmp/$name.old" >"$tmp/a"; grep -v '^summary' "$tmp/$name.new" >"$tmp/b"
	check "$name: every per-thread (I) and (E) value equal" awk -f "$top_srcdir/tests/scopes_cmp.awk" "$tmp/a" "$tmp/b"
	grep '^summary' "$tmp/$name.old" >"$tmp/a"; grep '^summary' "$tmp/$name.new" >"$tmp/b"
	check "$name: every summary value equal (tolerance $stol)" awk -v tol="$stol" -f "$top_srcdir/tests/scopes_cmp.awk" "$tmp/a" "$tmp/b"
	perl "$READER" --trace "$db" | sort >"$tmp/a"
	"$SCOPES" -t "$tmp/$name.d" | sort >"$tmp/b"
	if cmp -s "$tmp/a" "$tmp/b"; then ok "$name: $(wc -l <"$tmp/a") trace samples, same times and contexts"
	else not_ok "$name: trace samples differ"; diff "$tmp/a" "$tmp/b" | head -5 | sed 's/^/# /'; fi
	# straight to Callgrind (the stored (I)/(E) values are not kept)
	# and through its v4 database: the same costs
	if command -v callgrind_annotate >/dev/null; then
		"$PROFCONV" convert -q "$db" -o "$tmp/callgrind.out.$name" &&
			"$PROFCONV" convert -q "$tmp/$name.d" -o "$tmp/callgrind.out.$name.v4" &&
			cg_same "$tmp/callgrind.out.$name" "$tmp/callgrind.out.$name.v4" &&
			ok "$name: straight to Callgrind, the same costs as through v4 ($(wc -l <"$tmp/callgrind.out.$name.tsv") rows)" ||
			not_ok "$name: Callgrind straight and through v4 differ"
	else
		skip "callgrind_annotate not installed"
	fi
	"$PROFCONV" identify "$db" >"$tmp/id"
	check "$name: identified as hpctoolkit-legacy with score >= 90" \
		grep -Eq 'hpctoolkit-legacy=(9[0-9]|100) .*-> hpctoolkit-legacy$' "$tmp/id"
	"$PROFCONV" identify "$tmp/$name.d" >"$tmp/id"
	check "$name: its v4 database is not taken for a legacy one" \
		grep -q 'hpctoolkit-legacy=0 .*-> hpctoolkit$' "$tmp/id"
}

# the fixtures: summaries are exact in 4.0 (profile 0), 6 significant
# digits in 2.x (inline <M>)
migrate "$D/tiny-4.0" tiny-4.0 1e-9
migrate "$D/tiny-2.0" tiny-2.0 5e-6
if have_shared; then
	migrate "$SHARED/hpctoolkit-data/legacy-pipit-ping-pong" pipit 1e-9
	migrate "$SHARED/hpctoolkit-data/legacy-prof2-empty-trace" prof2-empty-trace 1e-9
	migrate "$SHARED/hpctoolkit-data/old-xml2-metricdb-cpi" xml2-cpi 5e-6
	"$PROFCONV" identify "$SHARED/hpctoolkit-data/v4-small.d" >"$tmp/id"
	check "a v4 database is never taken for a legacy one" grep -q 'hpctoolkit-legacy=0 .*-> hpctoolkit$' "$tmp/id"
else
	skip "$NO_SHARED"
fi

# libxml2 (with the ICU and C++ libraries it brings: two thirds of a
# short run's start) is loaded to read an experiment.xml, not before
LD_DEBUG=libs "$PROFCONV" convert -q "$D/tiny-4.0" -o "$tmp/lazy.folded" 2>"$tmp/ld" &&
	grep -q 'calling init: .*libxml2' "$tmp/ld" && loaded=1 || loaded=0
LD_DEBUG=libs "$PROFCONV" convert -q "$tmp/tiny-4.0.d" -o "$tmp/lazy2.folded" 2>"$tmp/ld2"
if [ "$loaded" = 1 ] && [ -s "$tmp/lazy2.folded" ] && ! grep -q 'libxml2' "$tmp/ld2"; then
	ok "libxml2 is loaded to read experiment.xml, and only then"
else not_ok "libxml2 loaded when not needed, or not loaded when needed (loaded for experiment.xml: $loaded)"
	grep 'libxml2' "$tmp/ld2" | head -3 | sed 's/^/# /'; fi

# point values: the statement costs the fixture was made of (its
# README), as Callgrind self costs (x1000000: the exporter's scale for
# fractional costs)
"$PROFCONV" convert -q "$tmp/tiny-4.0.d" -o "$tmp/callgrind.out.tiny"
if command -v callgrind_annotate >/dev/null; then
	callgrind_annotate --inclusive=no "$tmp/callgrind.out.tiny" |
		awk -v mode=self -v nev=1 -f "$top_srcdir/tests/annotate2tsv.awk" | sort >"$tmp/got"
	printf '%s\t%s\n' /home/user/tiny.c:main 157000000 /home/user/tiny.c:work 300500000 \
		/home/user/helper.h:helper 60000000 | sort >"$tmp/want"
	if cmp -s "$tmp/want" "$tmp/got"; then
		ok "Callgrind: main 157, work 300.5, helper 60 (statement costs recovered as points)"
	else not_ok "Callgrind self costs"; diff "$tmp/want" "$tmp/got" | sed 's/^/# /'; fi
else
	skip "callgrind_annotate not installed"
fi

# values only inline (no metric-db files): one profile of the sums
mkdir "$tmp/inline" && cp "$D/tiny-2.0/experiment.xml" "$tmp/inline/"
"$PROFCONV" convert "$tmp/inline" -o "$tmp/inline.d" 2>"$tmp/err" &&
	grep -q "no per-thread values" "$tmp/err" && ok "inline values only: converted, with a note" ||
	not_ok "inline values only"
perl "$READER" "$tmp/inline" >"$tmp/a"
"$SCOPES" "$tmp/inline.d" | grep '^summary' >"$tmp/b"
check "inline values only: every value as the XML has it" awk -v tol=5e-6 -f "$top_srcdir/tests/scopes_cmp.awk" "$tmp/a" "$tmp/b"
check "inline values only: the statistics over threads (no threads) are named as dropped" \
	grep -q "derived metric(s) not carried.*'T:Mean (I)'" "$tmp/err"

# hpcprof -M stats metrics (tiny-2.0: T:Mean, T:StdDev, T:Max) become the
# v4 statistics, whose default.yaml formulas give the threads' statistics
"$PROFCONV" convert --force "$D/tiny-2.0" -o "$tmp/stats.d" 2>"$tmp/err"
check "tiny-2.0: its statistics over threads are carried, with a note" \
	grep -q "statistics over threads (Mean, StdDev, CfVar, Min, Max) become" "$tmp/err"
check "tiny-2.0: only the formula of the root's value (@0) is named as dropped" \
	grep -q "1 derived metric(s) not carried.*: 'T of the total (I)'$" "$tmp/err"
"$SCOPES" "$tmp/stats.d" >"$tmp/stats.scopes"
perl "$top_srcdir/tests/yaml_stats.pl" "$tmp/stats.d/metrics/default.yaml" \
	"$tmp/stats.scopes" >"$tmp/stats.out" 2>&1
check "tiny-2.0: the six statistics variants give the threads' statistics ($(tail -1 "$tmp/stats.out"))" \
	grep -q '^[1-9][0-9]* checked, 0 differ$' "$tmp/stats.out"
check "tiny-2.0: Mean, StdDev, CfVar, Min and Max variants are written" \
	grep -q '^variants: CfVar x[1-9].* Max x[1-9].* Mean x[1-9].* Min x[1-9].* StdDev x[1-9].* Sum x' "$tmp/stats.out"
# its derived metric "100 * $1 / $0" ($1: T:Sum (E), $0: T:Sum (I)) is a
# default.yaml formula: evaluated at every context, it is 100 x the
# threads' exclusive sum over their inclusive sum
perl "$top_srcdir/tests/yaml_stats.pl" --root "T exclusive share" \
	"$tmp/stats.d/metrics/default.yaml" "$tmp/stats.scopes" | sort >"$tmp/got"
awk -F'\t' '$1 != "summary" && $3 == "T" { if ($4 == "function") e[$2] += $5; else i[$2] += $5 }
	END { for (p in i) if (i[p]) printf "%s\t%.10g\n", p, 100 * e[p] / i[p] }' \
	"$tmp/stats.scopes" | sort >"$tmp/want"
join -t "$(printf '\t')" "$tmp/want" "$tmp/got" | awk -F'\t' '
	{ n++; d = $2 - $3; if (d < 0) d = -d; if (d > 1e-6 * ($2 < 0 ? -$2 : $2) + 1e-12) bad++ }
	END { printf "%d contexts, %d differ\n", n, bad; exit !(n > 0 && !bad && n == want) }' \
	want="$(wc -l <"$tmp/want")" >"$tmp/cmp"
check "tiny-2.0: the derived metric is a default.yaml formula giving 100 E / I ($(cat "$tmp/cmp"))" \
	grep -q '^[1-9][0-9]* contexts, 0 differ$' "$tmp/cmp"

# experiment.xml given as a file: its directory is read
"$PROFCONV" convert -q "$D/tiny-4.0/experiment.xml" -o "$tmp/byfile.d" &&
	"$SCOPES" "$tmp/byfile.d" | cmp -s - "$tmp/tiny-4.0.new" &&
	ok "experiment.xml as INPUT reads its database" || not_ok "experiment.xml as INPUT"

# the viewers' containers: experiment-1.mdb and experiment.mt made from
# the per-thread files of tiny-2.0 (rank, thread, offset index)
mkdir "$tmp/merged" && cp "$D/tiny-2.0/experiment.xml" "$tmp/merged/"
merge() { # SUFFIX CONTAINER
	perl -e '
		my ($dir, $suffix, $out) = @ARGV;
		opendir my $d, $dir or die; my @f = sort grep { /\Q$suffix\E$/ } readdir $d;
		my ($body, $idx, $at) = ("", "", 8 + 16 * @f);
		for my $f (@f) {
			my @t = split /-/, $f =~ s/\Q$suffix\E$//r;
			open my $h, "<:raw", "$dir/$f" or die; local $/; my $b = <$h>;
			$idx .= pack("N N Q>", $t[-5], $t[-4], $at + length $body); $body .= $b;
		}
		open my $o, ">:raw", $out or die;
		print $o pack("N N", 2, scalar @f), $idx, $body, pack("Q>", 0xFFFFFFFFDEADF00D);
	' "$D/tiny-2.0" "$1" "$tmp/merged/$2"
}
merge .metric-db experiment-1.mdb
merge .hpctrace experiment.mt
"$PROFCONV" convert -q "$tmp/merged" -o "$tmp/merged.d" 2>"$tmp/err"
"$SCOPES" "$tmp/merged.d" >"$tmp/b"
check "experiment-1.mdb: the same values as the metric-db files" awk -f "$top_srcdir/tests/scopes_cmp.awk" "$tmp/tiny-2.0.new" "$tmp/b"
"$SCOPES" -t "$tmp/merged.d" | sort >"$tmp/a"; "$SCOPES" -t "$tmp/tiny-2.0.d" | sort >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then ok "experiment.mt: the same trace samples as the hpctrace files"
else not_ok "experiment.mt traces differ"; fi

# values only in experiment.xml: their one profile has an id (NODE 0);
# with an empty tuple hpcviewer's thread view and plots failed
mkdir "$tmp/inline" && cp "$D/tiny-2.0/experiment.xml" "$tmp/inline/"
"$PROFCONV" info "$tmp/inline" >"$tmp/out" 2>/dev/null
check "inline values only: one profile, NODE 0" sh -c "grep -q '^1 profile:' '$tmp/out' && grep -q '^  1: NODE 0,' '$tmp/out'"

# a tree and a metric but no values (hpcviewer's bug-empty test database
# is such): migrated as it is, with a warning
mkdir "$tmp/novalues" && grep -v '<M ' "$D/tiny-2.0/experiment.xml" >"$tmp/novalues/experiment.xml"
"$PROFCONV" convert -o "$tmp/novalues.d" "$tmp/novalues" 2>"$tmp/err"
check "a tree without values migrates, with a warning" sh -c "grep -q 'novalues: no values, only a tree of 10 contexts and 1 metric' '$tmp/err' &&
	'$PROFCONV' check '$tmp/novalues.d' | grep -q ': 10 contexts'"

# damaged databases: one line with file and line or offset, exit 1,
# nothing written
bad_inputs "$D/bad" <<'LIST'
truncated-profile truncated-profile/profile.db@0x[0-9a-f]*: id tuple runs past the end of the file
profile-magic profile-magic/profile.db@0x0: not a HPCPROF-profdb__ file
profile-version profile-version/profile.db@0x10: version 7.0
profile-count-bomb profile-count-bomb/profile.db@0x12: 1073741823 entries in the profile info section, which holds 3
context-not-in-xml context-not-in-xml/profile.db@0x[0-9a-f]*: context id 99 is neither in experiment.xml nor among cct.db's 13 contexts
trace-it-unknown trace-it-unknown/trace.db@0x[0-9a-f]*: trace sample names context 77, which no element
xml-syntax xml-syntax/experiment.xml:59: XML: Opening and ending tag mismatch
xml-version xml-version/experiment.xml:2: experiment.xml version 3
billion-laughs billion-laughs/experiment.xml:[0-9]*: the document declares entities
xml-encoding xml-encoding/experiment.xml:1: a NUL byte: experiment.xml is UTF-8 text
utf7-billion-laughs utf7-billion-laughs/experiment.xml:3: XML: .*(the declared encoding UTF-7 is ignored
utf7-entity-name utf7-entity-name/experiment.xml:3: XML: .*(the declared encoding UTF-7 is ignored
parameter-entity parameter-entity/experiment.xml:3: the document declares entities
utf16-bom utf16-bom/experiment.xml:1: not UTF-8 text (a byte-order mark
unknown-procedure unknown-procedure/experiment.xml:54: procedure 66 is not in the procedure table
metricdb-short metricdb-short/1.tiny-000000-000-a8c00270-4242-0.metric-db@0x18: header says 13 nodes x 2 metrics, but 192 bytes of 8-byte values follow
metricdb-count-bomb metricdb-count-bomb/1.tiny-000000-000-a8c00270-4242-0.metric-db@0x18: header says 1073741824 nodes
metricdb-magic metricdb-magic/1.tiny-000000-000-a8c00270-4242-0.metric-db@0x0: not a metric-db
LIST
done_testing
