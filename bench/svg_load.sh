#!/bin/sh
# Chromium's load of profconv's SVG flame graph against flamegraph.pl's
# of the same folded stacks (issue 61, item 1), in one run of headless
# Debian Chromium (bench/svg_load.mjs): per file the wall-clock time to
# the load event and to the page drawn (medians and minima of ROUNDS
# rounds, default 5, the files in turn), and the CPU time of the page's
# main thread (DevTools' thread ticks, the figure that holds on a loaded
# machine). The input (INPUT, default the cc1plus fixture) is written as
# folded stacks by profconv, drawn by flamegraph.pl, and as an SVG by
# profconv (and by OLD_BUILD_DIR's profconv, to compare).
#   sh bench/svg_load.sh BUILD_DIR [OLD_BUILD_DIR]
# FLAMEGRAPH_PL: flamegraph.pl (default: taken from a mirror of
# brendangregg/FlameGraph in FLAMEGRAPH_GIT, default
# /work/.mirror/brendangregg+FlameGraph/repo). Needs node, /usr/bin/chromium
# and 'npm ci' in tests/speedscope.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: sh bench/svg_load.sh BUILD_DIR [OLD_BUILD_DIR]}/profconv
old=${2:+$2/profconv}
work=$(mktemp -d "${TMPDIR:-/tmp}/svg_load.XXXXXX")
trap 'rm -rf "$work"' EXIT
in=${INPUT:-$top/testdata/callgrind/cc1plus.out.gz}
fg=${FLAMEGRAPH_PL:-}
if [ -z "$fg" ]; then
	git --git-dir="${FLAMEGRAPH_GIT:-/work/.mirror/brendangregg+FlameGraph/repo}" \
		show HEAD:flamegraph.pl >"$work/flamegraph.pl"
	fg="$work/flamegraph.pl"
fi
"$bin" convert -q -o "$work/in.folded" "$in"
perl "$fg" "$work/in.folded" >"$work/flamegraph.pl.svg"
"$bin" convert -q -o "$work/profconv.svg" "$in"
set -- "$work/flamegraph.pl.svg" "$work/profconv.svg"
if [ -n "$old" ]; then
	"$old" convert -q -o "$work/profconv-old.svg" "$in"
	set -- "$@" "$work/profconv-old.svg"
fi
echo "input: $in ($(wc -l <"$work/in.folded") folded stacks)"
printf '%-20s %9s %9s %9s %9s %9s %9s %7s %6s\n' file load_med load_min drawn_med \
	drawn_min cpu_med cpu_min bytes rects
node "$top/bench/svg_load.mjs" "${ROUNDS:-5}" "$@" | while read -r f a b c d e g r; do
	printf '%-20s %9s %9s %9s %9s %9s %9s %7s %6s\n' "$f" "$a" "$b" "$c" "$d" "$e" "$g" \
		"$(wc -c <"$work/$f")" "$r"
done
echo "(milliseconds; load average $(cut -d' ' -f1-3 /proc/loadavg))"
