# Sums the calls= counts of a Callgrind file per call edge, by function
# names (name compression resolved), one "caller<TAB>callee<TAB>calls"
# line per edge; with -v per=callee, per callee function instead.
function name(v,   id, rest) {
	if (v !~ /^\(/)
		return v
	id = v; sub(/\).*/, "", id)
	rest = v; sub(/^\([0-9]+\) ?/, "", rest)
	if (rest != "")
		names[id] = rest
	return names[id]
}
/^fn=/ { fn = name(substr($0, 4)) }
/^cfn=/ { cfn = name(substr($0, 5)) }
/^calls=/ {
	split(substr($0, 7), a, " ")
	key = (per == "callee") ? cfn : fn "\t" cfn
	n[key] += a[1]
}
END { for (k in n) printf "%s\t%d\n", k, n[k] }
