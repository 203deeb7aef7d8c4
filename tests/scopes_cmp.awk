# Compares two outputs of tests/v4_scopes (ORIGINAL then CONVERTED):
# sums the lines of equal keys (profile, context path, metric, scope),
# then every key of the original must have the same value in the
# converted database, within a relative tolerance of 1e-9 (sums of the
# same doubles in other orders; -v tol=X sets another, e.g. for values
# an input printed with 6 significant digits), and so must every key of the converted
# one whose path the original has. Keys under contexts the original
# does not show (elided values written as contexts of their own) are
# counted as extra. Prints "compared N values, M differ, E extra" and the
# first differences; exits 1 if any differ or nothing was compared.
BEGIN { FS = "\t"; if (tol == "") tol = 1e-9 }
{
	k = $1 "\t" $2 "\t" $3 "\t" $4
	if (FILENAME == ARGV[1]) { a[k] += $5; pa[$2] = 1 } else b[k] += $5
	keys[k] = 1; path[k] = $2
}
END {
	n = 0; bad = 0
	for (k in keys) {
		if (!(path[k] in pa)) { extra++; continue }
		n++
		x = a[k] + 0; y = b[k] + 0
		d = x - y; if (d < 0) d = -d
		m = (x < 0 ? -x : x); my = (y < 0 ? -y : y); if (my > m) m = my
		if (d > tol * m) {
			if (bad++ < 10) printf "differ: %s: %.17g vs %.17g\n", k, x, y
		}
	}
	printf "compared %d values, %d differ, %d extra\n", n, bad, extra
	exit (bad || !n)
}
