#!/bin/sh
# The SVG flame graph's options, flamegraph.pl's (issue 61, items 1-2):
# --title, --subtitle, --width, --frame-height, --inverted, --reverse,
# --colors, --count-name on convert and diff, each judged in the file
# (tests/svg_frames.py: every frame's value is that of the folded stacks'
# path, reversed for --reverse; the layout's facts); the frames in one
# <g>; in Chromium, Ctrl-F searches, "ic" and Ctrl-I switch the case,
# and the zoom and search kept in the URL open the same view.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
needs /usr/bin/python3 "the judge of the SVG" python3
J="/usr/bin/python3 $top_srcdir/tests/svg_frames.py"
IN="$TD/callgrind/small.main.out"
"$PROFCONV" convert -q --min-width=0 -o "$tmp/f.folded" "$IN" || exit 1

svg() { # NAME ARGS...: convert with --min-width=0, judged; facts in NAME.facts
	f=$1; shift
	rm -f "$tmp/$f.svg"
	if ! "$PROFCONV" convert -q --min-width=0 -o "$tmp/$f.svg" "$@" "$IN" 2>"$tmp/err"; then
		not_ok "convert $*"; sed 's/^/# /' "$tmp/err"; return 1
	fi
	rev=
	case " $* " in *" --reverse "*) rev=reverse ;; esac
	if xmllint --noout "$tmp/$f.svg" 2>"$tmp/err" &&
		$J "$tmp/$f.svg" "$tmp/f.folded" $rev >"$tmp/$f.facts" 2>&1; then
		return 0
	fi
	not_ok "convert $*: the SVG"; sed 's/^/# /' "$tmp/err" "$tmp/$f.facts" | head -5
	return 1
}
fact() { sed -n "s/^$2 //p" "$tmp/$1.facts"; }

if svg plain; then
	check "no option: the frames are the folded stacks', in one <g> below the root, the title the command line, unit Ir, 16-pixel frames, 1,200 wide, the root at the bottom, $(fact plain attributes_per_frame) attributes a frame (at most 8: flamegraph.pl's 9 load faster than 15)" \
		sh -c "[ '$(fact plain groups_below_root)' = 1 ] && [ '$(fact plain title)' = ./prog ] &&
			[ '$(fact plain unit)' = Ir ] && [ '$(fact plain rect_height)' = 15 ] &&
			[ '$(fact plain width)' = 1220 ] &&
			[ '$(fact plain subtitle)' = None ] &&
			[ '$(fact plain attributes_per_frame)' -le 8 ] &&
			awk 'BEGIN { exit !($(fact plain root_y) > $(fact plain deepest_y)) }'"
fi
depth=$(awk -F';' '{ if (NF > d) d = NF } END { print d }' "$tmp/f.folded")
if svg opts --title 'Sort <run> & "1"' --subtitle 'ref: 2026' --width 800 \
	--frame-height 20 --count-name instructions; then
	check "--title, --subtitle, --width 800, --frame-height 20, --count-name: shown as given, the image 820 wide and $depth+1 frames of 20 high" \
		sh -c "[ '$(fact opts title)' = 'Sort <run> & \"1\"' ] &&
			[ '$(fact opts subtitle)' = 'ref: 2026' ] &&
			[ '$(fact opts width)' = 820 ] && [ '$(fact opts rect_height)' = 19 ] &&
			[ '$(fact opts height)' = $((46 + 18 + 24 + (depth + 1) * 20)) ] &&
			[ '$(fact opts unit)' = instructions ]"
fi
if svg inv --inverted; then
	check "--inverted: an icicle graph, the root at the top (y $(fact inv root_y)), the deepest frame lowest" \
		sh -c "[ '$(fact inv root_y)' = 46 ] && awk 'BEGIN { exit !($(fact inv deepest_y) > 46) }'"
fi
svg rev --reverse &&
	ok "--reverse: every frame's value is the folded stacks' read innermost first ($(fact rev frames) frames)"
for p in hot mem io; do
	svg "c$p" --colors=$p &&
		check "--colors=$p: every frame in flamegraph.pl's $p palette, one colour per name" \
			sh -c "[ '$(fact c$p palette)' = $p ] && [ '$(fact c$p name_colours)' = consistent ]"
done
check "--reverse is not the plain graph (its frames are not the folded stacks' read outermost first)" \
	sh -c "[ -f '$tmp/rev.svg' ] && ! $J '$tmp/rev.svg' '$tmp/f.folded' >/dev/null"

# diff takes them too
rm -f "$tmp/d.svg"
if "$PROFCONV" diff -q -o "$tmp/d.svg" --title 'a vs b' --inverted --width 600 "$IN" "$IN" 2>"$tmp/err"; then
	check "diff --title --inverted --width: in the differential graph" \
		sh -c "xmllint --noout '$tmp/d.svg' && grep -q '>a vs b</text>' '$tmp/d.svg' &&
			grep -q '<svg version=\"1.1\" width=\"620\"' '$tmp/d.svg' &&
			grep -q '<g><title>all ([^<]*</title><rect x=\"10.00\" y=\"46\"' '$tmp/d.svg'"
else
	not_ok "diff with SVG options"; sed 's/^/# /' "$tmp/err"
fi

# the options of another output, and bad values, are usage errors
for a in "--title=x -o $tmp/x.folded" "--inverted -o $tmp/x.pb.gz" \
	"--colors=red -o $tmp/x.svg" "--width=50 -o $tmp/x.svg" \
	"--frame-height=0 -o $tmp/x.svg" "--width=12px -o $tmp/x.svg"; do
	# shellcheck disable=SC2086
	"$PROFCONV" convert -q $a "$IN" >/dev/null 2>"$tmp/err"
	rc=$?
	check "convert $(echo "$a" | sed "s|$tmp/||"): usage error (exit $rc), one line and the hint, nothing written" \
		sh -c "[ $rc = 2 ] && [ \$(wc -l <'$tmp/err') = 2 ] && ! ls '$tmp'/x.* >/dev/null 2>&1"
done
check "help convert names every SVG option" sh -c "
	\"$PROFCONV\" help convert >'$tmp/help' &&
	for o in --title --subtitle --width --frame-height --inverted --reverse --colors --count-name Ctrl-F; do
		grep -q -- \"\$o\" '$tmp/help' || exit 1; done"

# in Chromium: Ctrl-F, the case toggle, a view shared by its URL
ss="$top_srcdir/tests/speedscope"
if ! have_chromium playwright-core; then
	skip "the SVG in Chromium: $chromium_why"
elif heavy "the SVG's keys, search and URL in Chromium (a page is some 10 s of the browser's CPU here; the quick check opens SVGs there in tests/escape.sh, their zoom and search included)"; then
	node "$ss/svg_ui.mjs" "$tmp/plain.svg" 'MAIN' >"$tmp/ui" 2>&1
	v() { sed -n "s/^$1 //p" "$tmp/ui"; }
	check "Chromium: the pointer over a frame shows its title; Ctrl-F opens the search; 'MAIN' matches nothing" \
		sh -c "[ '$(v hover)' = title ] && [ '$(v ctrlf)' = 1 ] && [ '$(v matched)' = 0.00 ]"
	check "Chromium: 'ic' makes the search case-insensitive ($(v ic_matched)%), Ctrl-I back ($(v ctrli_matched)%)" \
		sh -c "[ '$(v ic_matched)' = 100.00 ] && [ '$(v ctrli_matched)' = 0.00 ]"
	check "Chromium: a click zooms ($(v zoom)); the URL keeps zoom, search, case: $(v hash)" \
		sh -c "echo '$(v zoom)' | grep -q ' 100.00$' &&
			echo '$(v hash)' | grep -q '^#z=[0-9]*&s=MAIN&ic=1$'"
	check "Chromium: the URL opens the same view (zoomed frame $(v restored_zoom)%, matched $(v restored_matched)%), no error" \
		sh -c "[ '$(v restored_zoom)' = 100.00 ] && [ '$(v restored_matched)' = 100.00 ] && [ '$(v errors)' = 0 ]"
	if heavy "the icicle graph in Chromium (a second browser)"; then
		node "$ss/svg_judge.mjs" "$tmp/inv.svg" 'main' "$tmp/inv.png" >"$tmp/sj" 2>&1
		check "Chromium: the icicle graph zooms and searches, no error" \
			sh -c "grep -q '^zoom .* 100.00$' '$tmp/sj' && grep -q '^errors 0$' '$tmp/sj' && grep -q '^matched 100.00$' '$tmp/sj'"
	fi
	[ "$(v errors)" = 0 ] || sed 's/^/# /' "$tmp/ui"
fi
done_testing
