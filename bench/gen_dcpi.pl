#!/usr/bin/perl
# Writes a synthetic DCPI profile database for the benchmarks: NIMAGES
# images (profiles of /usr/lib/libN.so) of NADDR sampled addresses each,
# in chunks of 100 consecutive addresses with gaps between, cycles
# counts 1..50 (seeded, so the same every time).
#   perl gen_dcpi.pl DIR NIMAGES NADDR
# DIR is the epoch's platform directory (DB/201001011200/alpha1).
use strict;
use warnings;
my ($dir, $ni, $na) = @ARGV;
srand(1);
for my $i (1 .. $ni) {
	my $h = "version pdb-0.07\nimage 20100101120000" . sprintf("%06x", $i)
	  . "\nepoch 201001011200\nplatform alpha1\nevent cycles\nperiod 63488\n"
	  . "tstart 120000000\ntsize " . (8 * $na + 64) . "\ncpuspeed 500\n"
	  . "path /usr/lib/lib$i.so\nsamples";
	$h .= " " while (length($h) + 1) % 4;
	my $b = "";
	my ($n, $s) = (0, 0);
	# chunks of 100 addresses with gaps between
	for (my $c = 0; $c < $na / 100; $c++) {
		my @v = map { 1 + int(rand(50)) } 1 .. 100;
		$b .= pack("V V V*", $c * 800, 100, @v);
		$n += 100; $s += $_ for @v;
	}
	$b .= pack("V V", $n, $s & 0xffffffff);
	open my $f, ">:raw", "$dir/lib${i}_20100101120000" . sprintf("%06x", $i) or die;
	print $f "$h\n$b";
	close $f;
}
