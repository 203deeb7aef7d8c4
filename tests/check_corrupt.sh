#!/bin/sh
# `profconv check` accepts every real v4 database in ../shared and
# rejects (--strict, as for our own output) corrupted copies of one we
# write, naming the file, the offset
# and the rule.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
have_shared || skip "real databases pass check: $NO_SHARED"
have_shared && for d in "$SHARED"/hpctoolkit-data/v4-*; do
	check "real database $(basename "$d") passes check" "$PROFCONV" check "$d"
done

good="$tmp/good.d"
"$PROFCONV" convert -q -o "$good" "$TD/callgrind/small.threads.out-02" \
	"$TD/callgrind/small.threads.out-03" || exit 1
check "the original passes" "$PROFCONV" check "$good"

u64() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
put_u64() { # file offset value (little-endian)
	v=$3; i=0; bytes=""
	while [ $i -lt 8 ]; do bytes="$bytes$(printf '\\%03o' $((v & 255)))"; v=$((v >> 8)); i=$((i + 1)); done
	printf "$bytes" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# corrupt NAME EXPECTED-MESSAGE-PART: copy, run the commands on $c, check
corrupt() {
	name=$1; want=$2; shift 2
	c="$tmp/$name.d"; rm -rf "$c"; cp -r "$good" "$c"
	"$@"
	if "$PROFCONV" check --strict "$c" 2>"$tmp/err"; then
		not_ok "$name: accepted"
	elif grep -q -- "$want" "$tmp/err"; then
		ok "$name: $(cat "$tmp/err")"
	else
		not_ok "$name: wrong message"; sed 's/^/# /' "$tmp/err"
	fi
}
truncate_meta() { truncate -s -100 "$c/meta.db"; }
corrupt truncated "meta.db@0x.*: footer is not '_meta.db'" truncate_meta
bad_footer() { printf 'X' | dd of="$c/profile.db" bs=1 seek=$(($(wc -c <"$c/profile.db") - 1)) conv=notrunc 2>/dev/null; }
corrupt footer "profile.db@0x.*: footer is not '_prof.db'" bad_footer
far_pointer() { put_u64 "$c/meta.db" $((0x48)) 99999992; }
corrupt pointer "meta.db@0x48: section 3 .* outside the file body" far_pointer
misalign() { put_u64 "$c/profile.db" $((0x18)) $(($(u64 "$c/profile.db" $((0x18))) + 4)); }
corrupt misaligned "profile.db@0x18: section 0 at .* is not 8-aligned" misalign
unsort() { # swap the ctxIds of the first two context indices of profile 1
	f="$c/profile.db"; infos=$(u64 "$f" $((0x18))); p=$(u64 "$f" "$infos")
	idx=$(u64 "$f" $((p + 0x30 + 0x18)))
	dd if="$f" of="$tmp/a" bs=1 skip="$idx" count=4 2>/dev/null
	dd if="$f" of="$tmp/b" bs=1 skip=$((idx + 12)) count=4 2>/dev/null
	dd if="$tmp/b" of="$f" bs=1 seek="$idx" conv=notrunc 2>/dev/null
	dd if="$tmp/a" of="$f" bs=1 seek=$((idx + 12)) conv=notrunc 2>/dev/null
}
corrupt unsorted "profile.db@0x.*: context indices not sorted by ctxId" unsort
few_ctx() { sec=$(u64 "$c/cct.db" $((0x18))); printf '\001\000\000\000' | dd of="$c/cct.db" bs=1 seek=$((sec + 8)) conv=notrunc 2>/dev/null; }
corrupt cct-entries "cct.db@0x.*: 1 context entries, but meta.db has ctxId" few_ctx
no_yaml() { rm "$c/metrics/default.yaml"; }
corrupt no-yaml "default.yaml: No such file" no_yaml
yaml_mismatch() { sed -i 's/formula: \$\$/formula: 2*$$/' "$c/metrics/default.yaml"; }
corrupt yaml "default.yaml:[0-9]*: input matches no summary of meta.db" yaml_mismatch
bad_magic() { printf 'X' | dd of="$c/cct.db" bs=1 seek=0 conv=notrunc 2>/dev/null; }
corrupt magic "cct.db@0x0: magic is not 'HPCTOOLKITctxt'" bad_magic

# The values' own rules, each broken in one place: profile 1's block in
# profile.db, a context's block in cct.db (a context with two metrics,
# or a metric with both profiles' values)
poke() {
	/usr/bin/python3 - "$c" "$1" <<'PY'
import struct, sys
d, what = sys.argv[1], sys.argv[2]
def u(b, o, f): return struct.unpack_from(f, b, o)[0]
if what.startswith("prof-"):
    b = bytearray(open(d + "/profile.db", "rb").read())
    infos = u(b, 0x18, "<Q")
    p = u(b, infos, "<Q") + u(b, infos + 0xc, "B")  # profile 1
    nv, pv, nc, pi = (u(b, p, "<Q"), u(b, p + 8, "<Q"),
                      u(b, p + 0x10, "<I"), u(b, p + 0x18, "<Q"))
    starts = [u(b, pi + 12 * i + 4, "<Q") for i in range(nc)] + [nv]
    i = next(i for i in range(nc) if starts[i + 1] - starts[i] >= 2)
    y = pv + 10 * starts[i]
    if what == "prof-unsorted":
        b[y + 10:y + 12] = b[y:y + 2]
    elif what == "prof-metric":
        struct.pack_into("<H", b, y, 0xffff)
    else:
        struct.pack_into("<d", b, y + 2, float("inf"))
    open(d + "/profile.db", "wb").write(b)
else:
    b = bytearray(open(d + "/cct.db", "rb").read())
    sec = u(b, 0x18, "<Q")
    pc, nc, sz = u(b, sec, "<Q"), u(b, sec + 8, "<I"), u(b, sec + 0xc, "B")
    for i in range(nc):
        e = pc + i * sz
        nv, pv, nm, pm = (u(b, e, "<Q"), u(b, e + 8, "<Q"),
                          u(b, e + 0x10, "<H"), u(b, e + 0x18, "<Q"))
        ends = [u(b, pm + 10 * k + 2, "<Q") for k in range(1, nm)] + [nv]
        if what in ("cct-unsorted", "cct-start") and nm >= 2:
            if what == "cct-unsorted":
                b[pm + 10:pm + 12] = b[pm:pm + 2]
            else:
                b[pm + 12:pm + 20] = b[pm + 2:pm + 10]
            break
        if what == "cct-prof0" and nv:
            struct.pack_into("<I", b, pv, 0)
            break
        if what == "cct-prof-unsorted" and nm and ends[0] >= 2:
            b[pv + 12:pv + 16], b[pv:pv + 4] = b[pv:pv + 4], b[pv + 12:pv + 16]
            break
    open(d + "/cct.db", "wb").write(b)
PY
}
if [ -x /usr/bin/python3 ]; then
	for x in "prof-unsorted|profile.db@0x.*: metric ids of context [0-9]* not sorted" \
		"prof-metric|profile.db@0x.*: metric id 65535 is not a propMetricId of meta.db" \
		"prof-inf|profile.db@0x.*: value +infinity of context [0-9]*, metric id [0-9]*, is not a finite number" \
		"cct-unsorted|cct.db@0x.*: metric indices of context [0-9]* not sorted" \
		"cct-start|cct.db@0x.*: startIndex [0-9]* out of order or range" \
		"cct-prof0|cct.db@0x.*: profile index 0 not a measured profile (1..2)" \
		"cct-prof-unsorted|cct.db@0x.*: profile indices not sorted"; do
		corrupt "${x%%|*}" "${x#*|}" poke "${x%%|*}"
	done
else
	skip "the values' rules broken: needs /usr/bin/python3"
fi
done_testing
