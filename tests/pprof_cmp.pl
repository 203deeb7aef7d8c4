#!/usr/bin/perl
# pprof_cmp.pl FILE.pb.gz VALUES NCONTEXTS [MAXTYPES]: judges a pprof
# file that profconv wrote with Go's own pprof. VALUES is `profconv check
# --values` of a v4 database of the same input (per function name its
# exclusive "function" and its "inclusive" value, per metric the total).
# For each sample type (the first MAXTYPES, default all), `go tool pprof
# -top` must show, per function, flat = the exclusive value and cum =
# the inclusive value, and the total; a type written scaled ("(x1e9)" in
# its name, or nanoseconds for a metric in seconds) is compared scaled,
# within half a unit per context, and so are call counts (Calls), which
# are written whole. Prints "types N, functions N" and
# exits 0, or prints each difference and exits 1.
use strict;
use warnings;

my ($file, $values, $nctx, $maxtypes) = @ARGV;
die "usage: pprof_cmp.pl FILE VALUES NCONTEXTS [MAXTYPES]\n" unless defined $nctx;
my @pprof = ('go', 'tool', 'pprof', '-symbolize=none');

my (%fn, %incl, %total);
open(my $vh, '<', $values) or die "$values: $!\n";
while (<$vh>) {
	chomp;
	my @f = split /\t/;
	if ($f[0] eq 'total') { $total{ $f[1] } = $f[2]; }
	elsif ($f[0] eq 'function') { $fn{ $f[1] }{ $f[2] } = $f[3]; }
	elsif ($f[0] eq 'inclusive') { $incl{ $f[1] }{ $f[2] } = $f[3]; }
}
close $vh;

# the sample types, "NAME/UNIT" each, from -raw's header
my $raw = `@pprof -raw '$file' 2>&1`;
die "go tool pprof -raw failed:\n$raw" if $?;
my ($hdr) = $raw =~ /^Samples:\n(.*)\n/m or die "no Samples: header\n$raw";
my @types;
while ($hdr =~ /\G\s*(.+?)\/(count|nanoseconds|microseconds|milliseconds|seconds|bytes|[^\s\/\[]+)(?:\[dflt\])?(?=\s|$)/g) {
	push @types, [ $1, $2 ];
}
die "no sample types in '$hdr'\n" unless @types;

my ($bad, $nfun) = (0, 0);
my $ntypes = defined $maxtypes && $maxtypes < @types ? $maxtypes : @types;
for my $i (0 .. $ntypes - 1) {
	my ($type, $unit) = @{ $types[$i] };
	my ($metric, $scale) = ($type, 1);
	if ($type =~ /^(.*) \(x1e(-?\d+)\)$/) { ($metric, $scale) = ($1, 10**$2); }
	my $opt = '';
	if ($unit =~ /seconds$/) {
		# -unit=ns: every time in nanoseconds, the model's in seconds
		# (or nanoseconds, a unit of "ns": ovni)
		$opt = '-unit=ns';
		$scale = $metric =~ /\(sec\)$|\(s\)$/ ? 1e9 : 1;
	} elsif ($unit eq 'bytes') {
		$opt = '-unit=B';
	}
	# (call counts are written whole, each function's flat its
	# exclusive count rounded: within half a unit per context too)
	my $tol = $scale == 1 && $metric ne 'Calls' ? 0 : 0.5 * $nctx + 1e-9;
	next unless exists $total{$metric};
	my $top = `@pprof -top -nodecount=10000000 -nodefraction=0 -edgefraction=0 -sample_index=$i $opt '$file' 2>&1`;
	die "go tool pprof -top failed:\n$top" if $?;
	my (%flat, %cum, $tot);
	my $rows = 0;
	for (split /\n/, $top) {
		if (/of (-?[\d.]+)[A-Za-z]* total/) { $tot = $1; next; }
		next unless /^\s*(-?[\d.]+)[A-Za-z]*\s+[-\d.e+]+%\s+[-\d.e+]+%\s+(-?[\d.]+)[A-Za-z]*\s+[-\d.e+]+%\s+(.*)$/;
		$flat{$3} += $1;
		$cum{$3} += $2;
		$rows++;
	}
	my $want = $total{$metric} * $scale;
	if (!defined $tot || abs($tot - $want) > $tol) {
		print "$type: total ", $tot // '(none)', ", the model's $want\n";
		$bad++;
	}
	for my $name (sort keys %{ $fn{$metric} || {} }) {
		my $w = $fn{$metric}{$name} * $scale;
		my $g = $flat{$name} // 0;
		if (abs($g - $w) > $tol) { print "$type: $name: flat $g, exclusive $w\n"; $bad++; }
		$nfun++;
	}
	for my $name (sort keys %{ $incl{$metric} || {} }) {
		my $w = $incl{$metric}{$name} * $scale;
		my $g = $cum{$name} // 0;
		if (abs($g - $w) > $tol) { print "$type: $name: cum $g, inclusive $w\n"; $bad++; }
	}
	last if $bad > 20;
}
print "types $ntypes, functions $nfun\n";
exit($bad ? 1 : 0);
