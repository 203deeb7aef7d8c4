# Turns callgrind_annotate output into tab-separated rows:
#   mode=self:  "file:function<TAB>cost cost ..."   (--inclusive=no)
#   mode=edges: "caller<TAB>callee<TAB>cost cost ..." (--tree=calling)
# nev = number of events. Costs print with thousands separators, zero as
# "." or "0", followed by "(pct%)" groups.
BEGIN { body = 0 }
/file:function$/ { body = 1; next }
!body || /^-+$/ || /^ *$/ { next }
{
	line = $0
	gsub(/\( *[0-9.]+%\)/, "", line)
	costs = ""
	nonzero = 0
	for (i = 0; i < nev; i++) {
		sub(/^ +/, "", line)
		match(line, /^[0-9,.]+/)
		c = substr(line, 1, RLENGTH)
		line = substr(line, RLENGTH + 1)
		gsub(/,/, "", c)
		if (c == ".")
			c = 0
		costs = costs (i ? " " : "") c
		if (c + 0 != 0)
			nonzero = 1
	}
	sub(/^ +/, "", line)
	marker = ""
	if (mode == "edges") {
		marker = substr(line, 1, 1)
		line = substr(line, 2)
		sub(/^ +/, "", line)
		sub(/ \([0-9,]+x\)/, "", line)
	}
	sub(/ \[[^][]*\]$/, "", line)
	if (mode == "self" && nonzero)
		print line "\t" costs
	else if (marker == "*")
		caller = line
	else if (marker == ">")
		print caller "\t" line "\t" costs
}
