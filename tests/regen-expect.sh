#!/bin/sh
# Regenerates the expected outputs of the golden tests. Run on purpose,
# from a build directory, and review the diff before committing:
#   sh ../tests/regen-expect.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
pc=$(pwd)/profconv
cd "$top/testdata/callgrind/bad"
for f in *.out *.out.gz; do
	"$pc" dump -f callgrind "$f" 2>&1 >/dev/null | head -n 1 > "${f%.gz}.err" || true
done
cd "$top/testdata/callgrind"
for f in small.*.out; do
	[ -s "$f" ] || continue # nothing to convert: an error, tested as such
	"$pc" dump -q "$f" > "expect/$f.dump"
done
"$pc" dump -q small.threads.out-0* > expect/small.threads.all.dump
