# profconv dump of a comparison's database: [new-base] = [new] - [base]
# at every (profile, context, scope, metric), within 1e-9 relative;
# prints the values compared, exits 1 if fewer than min or any is off
# (tests/diff.sh, tests/diff_tree.sh)
/^metrics / { m = 1; next }
m && /^m[0-9]+ "/ { id = substr($1, 2); nm = $0; sub(/^[^"]*"/, "", nm)
	sub(/".*/, "", nm); stem[id] = nm; sub(/ \[[a-z-]*\]$/, "", stem[id])
	side[id] = nm; sub(/.*\[/, "", side[id]); sub(/\]$/, "", side[id]); next }
/^profiles / { m = 0 }
/^(values|scoped) / { v = 1; next }
/^traces / { v = 0 }
v && /^p[0-9]+ c[0-9]+ m/ { mm = substr($3, 2); sc = "point"
	if (split(mm, q, ".") == 2) { mm = q[1]; sc = q[2] }
	k = $1 " " $2 " " sc " " stem[mm]; val[k, side[mm]] = $4; keys[k] = 1 }
END {
	for (k in keys) {
		n++; d = val[k, "new"] - val[k, "base"] - val[k, "new-base"]
		s = val[k, "new"] < 0 ? -val[k, "new"] : val[k, "new"]
		if (d > 1e-9 * (s + 1) || -d > 1e-9 * (s + 1)) { bad++; if (bad < 4) print "bad", k, d }
	}
	print n, "values"; exit !(n >= min && !bad)
}
