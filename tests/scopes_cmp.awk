# Compares two outputs of tests/v4_scopes (ORIGINAL then CONVERTED):
# sums the lines of equal keys (profile, context path, metric, scope),
# then every key of either must have the same value in both, within a
# relative tolerance of 1e-9 (sums of the same doubles in other orders).
# Prints "compared N values, M differ" and the first differences; exits
# 1 if any differ or nothing was compared.
BEGIN { FS = "\t" }
{
	k = $1 "\t" $2 "\t" $3 "\t" $4
	if (FILENAME == ARGV[1]) a[k] += $5; else b[k] += $5
	keys[k] = 1
}
END {
	n = 0; bad = 0
	for (k in keys) {
		n++
		x = a[k] + 0; y = b[k] + 0
		d = x - y; if (d < 0) d = -d
		m = (x < 0 ? -x : x); my = (y < 0 ? -y : y); if (my > m) m = my
		if (d > 1e-9 * m) {
			if (bad++ < 10) printf "differ: %s: %.17g vs %.17g\n", k, x, y
		}
	}
	printf "compared %d values, %d differ\n", n, bad
	exit (bad || !n)
}
