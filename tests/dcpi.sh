#!/bin/sh
# DCPI: v0 binary profile files, dcpicat text and profile database
# directories, from the hand-made fixtures of testdata/dcpi (see its
# README): per-address samples and estimated events, totals against the
# footer, the same model from both forms, events merged per image, and
# one clear error per damaged file.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
D="$TD/dcpi"
V0="$D/xemacs_19970328081403c0c18b"
PERIOD=63488

# v0 -> v4: check passes; totals equal the footer
"$PROFCONV" convert -q "$V0" -o "$tmp/v0.d" && ok "v0 file converts" || not_ok "v0 file converts"
check "the database passes check --strict" "$PROFCONV" check --strict "$tmp/v0.d"
"$PROFCONV" check --values "$tmp/v0.d" >"$tmp/values"
# the footer: the last 8 bytes (total_offsets, total_samples), little-endian
foot=$(tail -c 8 "$V0" | od -An -tu4 | tr -s ' ' | sed 's/^ //')
naddr=${foot% *}; nsamp=${foot#* }
check "samples total = the footer's $nsamp" grep -q "^total	cycles (samples)	$nsamp$" "$tmp/values"
check "estimated events total = samples x period" grep -q "^total	cycles	$((nsamp * PERIOD))$" "$tmp/values"
"$PROFCONV" dump -q "$V0" >"$tmp/v0.dump"
ni=$(grep -c 'lexical instruction' "$tmp/v0.dump")
[ "$ni" -eq "$naddr" ] && ok "one instruction context per sampled address ($naddr, as the footer says)" ||
	not_ok "$ni instruction contexts, footer says $naddr"
# address 0x12006cbb8 (the man page's row) holds 29 samples
c=$(sed -n 's/^c\([0-9]*\) .*lexical instruction at=M0+0x12006cbb8.*/\1/p' "$tmp/v0.dump")
check "0x12006cbb8: 29 samples" grep -q "^p0 c$c m1 29$" "$tmp/v0.dump"
check "0x12006cbb8: 29 x $PERIOD estimated cycles" grep -q "^p0 c$c m0 $((29 * PERIOD))$" "$tmp/v0.dump"

# the same data as dcpicat text: the same model (the title differs: each
# form keeps what only it has, cpuspeed or label)
"$PROFCONV" dump -q "$D/xemacs.cycles.dcpicat" >"$tmp/cat.dump"
grep -v '^title ' "$tmp/v0.dump" >"$tmp/a"; grep -v '^title ' "$tmp/cat.dump" >"$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then ok "dcpicat text of the same data gives the same dump"
else not_ok "dcpicat and v0 dumps differ"; diff "$tmp/a" "$tmp/b" | head -10 | sed 's/^/# /'; fi

# a database directory: two events of one image -> one module, 4 metrics
"$PROFCONV" info "$D/db" >"$tmp/info"
check "database: one profile per (platform, epoch)" grep -q '^1 profile:' "$tmp/info"
check "database: two events of one image merge into one module" grep -q ', 1 module,' "$tmp/info"
check "database: 4 metrics (2 events x estimated and samples)" grep -q '^4 metrics' "$tmp/info"
"$PROFCONV" dump -q "$D/db" | grep -v '^title ' >"$tmp/db.dump"
"$PROFCONV" dump -q "$D/xemacs.dcpicat" | grep -v '^title ' >"$tmp/cat2.dump"
check "database and two-event dcpicat give the same dump" cmp "$tmp/db.dump" "$tmp/cat2.dump"

# DCPI -> Callgrind: instruction positions, read by callgrind_annotate
"$PROFCONV" convert -q "$D/db" -o "$tmp/callgrind.out.dcpi"
check "Callgrind output has instr positions" grep -q '^positions: instr line$' "$tmp/callgrind.out.dcpi"
check "per-address costs: 0x12006cbb8" grep -q "^0x12006cbb8 0 $((29 * PERIOD)) 29 " "$tmp/callgrind.out.dcpi"
if command -v callgrind_annotate >/dev/null; then
	callgrind_annotate "$tmp/callgrind.out.dcpi" >"$tmp/ann" 2>&1
	check "callgrind_annotate reads it: totals" grep -q "10,221,568 (100.0%).*PROGRAM TOTALS" "$tmp/ann"
else
	skip "callgrind_annotate not installed"
fi

# damaged files: one line with file and line or offset, exit 1, nothing
# written
bad_inputs "$D/bad" <<'LIST'
footer-sum.dcpi footer-sum.dcpi@0x[0-9a-f]*: footer says 6 addresses and 162 samples
truncated-chunk.dcpi truncated-chunk.dcpi@0x[0-9a-f]*: truncated chunk
offsets-down.dcpi offsets-down.dcpi@0x[0-9a-f]*: chunk offset 0x[0-9a-f]* goes down
overlapping-chunks.dcpi overlapping-chunks.dcpi@0x[0-9a-f]*: chunk offset .* overlaps
past-text-size.dcpi past-text-size.dcpi@0x[0-9a-f]*: .*runs past the text size
no-samples-line.dcpi no-samples-line.dcpi:[0-9]*: no 'samples' line
unknown-version.dcpi unknown-version.dcpi:1: DCPI profile version pdb-7.2: the binary layout of major version 7 is not documented
version-1.dcpi version-1.dcpi:1: DCPI profile version pdb-1.01: .*dcpicat
version-wrap.dcpi version-wrap.dcpi:1: DCPI profile version pdb-4294967296.07: .*not documented
big-endian.dcpi big-endian.dcpi@0x[0-9a-f]*: .*only when read big-endian
non-hex-pc.dcpicat non-hex-pc.dcpicat:18: bad address '0x00012zz6cbb8'
fewer-counts.dcpicat fewer-counts.dcpicat:18: 1 count for 2 events
period-max.dcpi period-max.dcpi:6: period 18446744073709551615 is above 2^32-1
tstart-wrap.dcpi tstart-wrap.dcpi@0x[0-9a-f]*: chunk at offset 0x[0-9a-f]* leaves the address space
period-max.dcpicat period-max.dcpicat:9: period 4294967296 is above 2^32-1
count-max.dcpicat count-max.dcpicat:16: count 4294967296 is above 2^32-1
pc-outside-text.dcpicat pc-outside-text.dcpicat:18: address 0x0 is outside the text
LIST
done_testing
