#!/usr/bin/perl
# Writes synthetic `perf script` text (its -F comm,pid,tid,time,period,
# event,ip,sym,symoff,dso output of `perf record -g`) of about MB
# megabytes to standard output, for bench/perf.sh: 8 processes of 8
# threads, 4,000 distinct call paths of 8 to 40 frames over 2,000
# functions in 10 libraries (each the outer frames of an earlier one and
# frames of its own), taken as a profile takes them (path i about
# as often as 1/i: a few hot paths, a long tail), one of 40 kernel paths
# (an interrupt, a system call) below a fifth of the samples, [unknown]
# frames in a tenth of the paths, a new leaf address every sample
# (seeded: the same text every time).
#   perl gen_perf.pl MB > perf.txt
use strict;
use warnings;
no warnings "portable";
my $mb = shift // 100;
srand(7);
my @dso = map { "/usr/lib/x86_64-linux-gnu/libbench$_.so" } 0 .. 9;
my @fn = map { sprintf("bench_fn_%04d", $_) } 0 .. 1999;
my @kfn = map { sprintf("kernel_fn_%03d", $_) } 0 .. 99;
# a path: frames outermost first, each [name, dso, entry]; a path after
# the first is an earlier one's first frames (a call tree: programs share
# their outer frames) and frames of its own
sub frame {
	my $i = int(rand(@fn));
	return ["[unknown]", "[unknown]", 0x7f0000000000 + int(rand(1 << 30))]
		if rand() < 0.1 / 8;
	return [$fn[$i], $dso[$i % 10], 0x1000 + 0x400 * $i];
}
my @paths;
for my $p (0 .. 3999) {
	my $depth = 8 + int(rand(33));
	my @f;
	if (@paths) {
		my $q = $paths[int(rand(@paths))];
		my $k = 1 + int(rand(@$q < $depth ? @$q : $depth));
		@f = @$q[0 .. $k - 1];
	}
	push @f, frame() while @f < $depth;
	push @paths, \@f;
}
my @kpaths;
for my $k (0 .. 39) {
	push @kpaths, [map { $kfn[int(rand(@kfn))] } 0 .. 2 + int(rand(4))];
}
my $bytes = 0;
my $t = 1000_000_000_000;
my $n = 0;
while ($bytes < $mb * 1e6) {
	my $proc = int(rand(8));
	my $pid = 1000 + 100 * $proc;
	my $tid = $pid + int(rand(8));
	# 1/i: exp of a uniform share of log(n)
	my $path = $paths[int(exp(rand(log(scalar @paths)))) - 1];
	$t += 1 + int(rand(2_000_000));
	my $s = sprintf("bench%d %d/%d %d.%09d: %10d cpu-clock:ppp: \n",
		$proc, $pid, $tid, int($t / 1e9), $t % 1_000_000_000, 1000000);
	if (rand() < 0.2) {
		my $kp = $kpaths[int(rand(@kpaths))];
		for my $k (0 .. $#$kp) {
			my $e = $kp->[$k];
			$s .= sprintf("\t%16x %s+0x%x ([kernel.kallsyms])\n",
				0xffffffff81000000 + 0x100 * $k + 0x13, $e, 0x13);
		}
	}
	my $leaf = 1;
	for my $f (reverse @$path) {
		my ($name, $d, $entry) = @$f;
		my $off = $leaf ? int(rand(0x300)) : 0x2f;
		if ($name eq "[unknown]") {
			$s .= sprintf("\t%16x [unknown] (%s)\n", $entry, $d);
		} else {
			$s .= sprintf("\t%16x %s+0x%x (%s)\n", $entry + $off, $name, $off, $d);
		}
		$leaf = 0;
	}
	$s .= "\n";
	print $s;
	$bytes += length $s;
	$n++;
}
print STDERR "gen_perf.pl: $n samples, $bytes bytes\n";
