#!/usr/bin/perl
# Writes the DCPI fixtures of this directory (run from it). No real DCPI
# file is public: these are made by hand from dcpiformat(4) (the v0
# binary layout) and the dcpicat(1) example quoted in
# ../../../shared/FORMAT-NOTES.md section 4 (image, epoch, platform, text
# range, events and the first sample row 0x00012006cbb8 29 27 are the
# man page's; the other rows are invented near it). See README.
use strict;
use warnings;
no warnings "portable"; # 64-bit Alpha addresses

my $tstart = 0x120000000;
my $tsize = 0x800000;
# address => [cycles samples, imiss samples]
my %rows = (
	0x12006cbb8 => [29, 27], 0x12006cbbc => [3, 0],
	0x12006cbc0 => [0, 1],   0x12006cbc8 => [112, 40],
	0x120070000 => [7, 0],   0x120070004 => [9, 2],
	0x1207ffffc => [1, 1],
);
my @ev = (['cycles', 63488, 10000], ['imiss', 4096, 10000]);

sub header {
	my ($event, $period, %o) = @_;
	my $h = ($o{version} // "version pdb-0.07\n")
	  . "image 19970328081403c0c18b\n"
	  . "epoch 199805191724\n" . "platform walnut\n"
	  . "event $event\n" . "period $period\n"
	  . sprintf("tstart %x\n", $o{tstart} // $tstart) . "tsize $tsize\n"
	  . "cpuspeed 500\n" . "cpucount 2\n"
	  . "path /usr/local/bin/xemacs\n";
	return $h if $o{nosamples};
	$h .= "samples";
	# pad so that the binary part starts 4-aligned (dcpiformat(4))
	$h .= " " while (length($h) + 1) % 4;
	return $h . "\n";
}

# chunks of consecutive addresses, as DCPI writes them
sub chunks {
	my ($k) = @_;
	my @a = sort { $a <=> $b } grep { $rows{$_}[$k] } keys %rows;
	my @c;
	for my $x (@a) {
		if (@c && $c[-1]{end} == $x) {
			push @{$c[-1]{n}}, $rows{$x}[$k];
			$c[-1]{end} += 4;
		} elsif (@c && $x - $c[-1]{end} < 16) {
			# a short gap: zero counts inside the chunk
			while ($c[-1]{end} < $x) { push @{$c[-1]{n}}, 0; $c[-1]{end} += 4 }
			push @{$c[-1]{n}}, $rows{$x}[$k];
			$c[-1]{end} += 4;
		} else {
			push @c, { off => $x - $tstart, end => $x + 4, n => [$rows{$x}[$k]] };
		}
	}
	return @c;
}

sub binary {
	my ($k, %o) = @_;
	my @c = chunks($k);
	$o{edit}->(\@c) if $o{edit};
	my $b = '';
	my ($na, $ns) = (0, 0);
	for my $c (@c) {
		$b .= pack('V V', $c->{off}, scalar(@{$c->{n}}) + ($c->{extra} // 0));
		$b .= pack('V*', @{$c->{n}});
		$na += grep { $_ } @{$c->{n}};
		$ns += $_ for @{$c->{n}};
	}
	$ns += $o{sumdelta} // 0;
	$b .= pack('V V', $na, $ns);
	$b = substr($b, 0, length($b) - $o{cut}) if $o{cut};
	return $b;
}

sub put { my ($f, $s) = @_; open my $h, '>:raw', $f or die "$f: $!"; print $h $s; close $h }

put('xemacs_19970328081403c0c18b', header('cycles', 63488) . binary(0));
mkdir 'db';
mkdir 'db/199805191724';
mkdir 'db/199805191724/walnut';
put('db/199805191724/walnut/xemacs_19970328081403c0c18b',
    header('cycles', 63488) . binary(0));
put('db/199805191724/walnut/xemacs_19970328081403c0c18b.imiss',
    header('imiss', 4096) . binary(1));

sub dcpicat {
	my (@k) = @_;
	my $t = "name xemacs\nimage 19970328081403c0c18b\nlabel foo\n"
	  . "path /usr/local/bin/xemacs\nepoch 199805191724\nplatform walnut\n"
	  . sprintf("text_start 0x%012x\ntext_size 0x%012x\n", $tstart, $tsize);
	for my $k (@k) {
		my $w = 0;
		$w += $rows{$_}[$k] for keys %rows;
		$t .= "event $w $ev[$k][0]:$ev[$k][1]:$ev[$k][2]\n";
	}
	for my $x (sort { $a <=> $b } keys %rows) {
		my @n = map { $rows{$x}[$_] } @k;
		next unless grep { $_ } @n;
		$t .= sprintf("0x%012x %s\n", $x, join(' ', @n));
	}
	return $t;
}
put('xemacs.cycles.dcpicat', dcpicat(0));
put('xemacs.dcpicat', dcpicat(0, 1));

# bad inputs: one fault each
put('bad/footer-sum.dcpi', header('cycles', 63488) . binary(0, sumdelta => 1));
put('bad/truncated-chunk.dcpi', header('cycles', 63488) . binary(0, edit => sub {
	$_[0][-1]{extra} = 10 }));
put('bad/offsets-down.dcpi', header('cycles', 63488) . binary(0, edit => sub {
	@{$_[0]} = reverse @{$_[0]} }));
put('bad/overlapping-chunks.dcpi', header('cycles', 63488) . binary(0, edit => sub {
	$_[0][1]{off} = $_[0][0]{off} + 4 }));
put('bad/past-text-size.dcpi', header('cycles', 63488) . binary(0, edit => sub {
	$_[0][-1]{off} = $tsize - 4; push @{$_[0][-1]{n}}, 5 }));
put('bad/no-samples-line.dcpi', header('cycles', 63488, nosamples => 1) . binary(0));
put('bad/unknown-version.dcpi', header('cycles', 63488, version => "version pdb-7.2\n") . binary(0));
put('bad/version-1.dcpi', header('cycles', 63488, version => "version pdb-1.01\n") . binary(0));
put('bad/big-endian.dcpi', header('cycles', 63488) .
    join('', map { pack('N', $_) } unpack('V*', binary(0))));
put('bad/non-hex-pc.dcpicat', dcpicat(0, 1) . "0x00012zz6cbb8 1 1\n");
put('bad/fewer-counts.dcpicat', dcpicat(0, 1) . "0x00012006cc00 4\n");
# hostile: bounds that keep samples x period and the addresses in 64 bits
put('bad/period-max.dcpi', header('cycles', '18446744073709551615') . binary(0));
put('bad/tstart-wrap.dcpi', header('cycles', 63488, tstart => 0xffffffffffff0000) . binary(0));
put('bad/period-max.dcpicat', dcpicat(0) =~ s/cycles:63488:/cycles:4294967296:/r);
put('bad/count-max.dcpicat', dcpicat(0) . "0x0001207ffff8 4294967296\n");
put('bad/pc-outside-text.dcpicat', dcpicat(0, 1) . "0x000000000000 3 0\n");
