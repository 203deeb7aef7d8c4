# "PATH METRIC VALUE" for each value of profile p0 in `profconv dump`: the
# names of the functions from the thread root down, joined by "/"
function q(s) { match(s, /"([^"\\]|\\.)*"/); return substr(s, RSTART + 1, RLENGTH - 2) }
/^f[0-9]+ "/ { fname[substr($1, 2)] = q($0); next }
/^m[0-9]+ "/ { metric[substr($1, 2)] = q($0); next }
/^c[0-9]+ parent=c/ {
	id = substr($1, 2); p = $2; sub(/parent=c/, "", p)
	nm = ""
	if (match($0, / fn=f[0-9]+/)) nm = fname[substr($0, RSTART + 5, RLENGTH - 5)]
	path[id] = (p in path && path[p] != "" ? path[p] "/" : "") nm
	next
}
/^p0 c[0-9]+ m[0-9]+ / { print path[substr($2, 2)], metric[substr($3, 2)], $4 }
