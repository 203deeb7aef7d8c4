#!/usr/bin/perl
# Rewrites an ovni stream as a machine of the other byte order would have
# written it: perl ovni_swap.pl ovnievents.tsv IN OUT
# The field widths of each payload come from the signatures in the event
# table (e.g. "OHx(i32 cpu, i32 tid, u64 tag)", "VYc+(u32 typeid, str
# label)"); every multi-byte field, the clock and jumbo lengths are
# reversed, strings are kept.
use strict;
use warnings;
my ($tsv, $in, $out) = @ARGV;
my %size = (u8 => 1, i8 => 1, u16 => 2, i16 => 2, u32 => 4, i32 => 4,
	    u64 => 8, i64 => 8, str => 0);
my %fields;
open my $t, '<', $tsv or die "$tsv: $!";
<$t>;
while (<$t>) {
	chomp;
	my (undef, undef, undef, $mcv, $sig) = split /\t/;
	my @f;
	if ($sig =~ /\((.*)\)/) {
		for (split /,\s*/, $1) { my ($ty) = split / /; push @f, $size{$ty} }
	}
	$fields{$mcv} = [@f];
}
local $/;
open my $i, '<:raw', $in or die "$in: $!";
my $b = <$i>;
close $i;
my $o = substr($b, 0, 4) . reverse(substr($b, 4, 4));
my $pos = 8;
sub swapf { my ($data, $f) = @_; my ($r, $p) = ('', 0);
	for my $w (@$f) {
		if ($w == 0) { $r .= substr($data, $p); $p = length $data; last }
		$r .= reverse substr($data, $p, $w); $p += $w;
	}
	return $r . substr($data, $p);
}
while ($pos < length $b) {
	my $h = ord substr($b, $pos, 1);
	my $s = $h & 15;
	my $ps = $s ? $s + 1 : 0;
	my $mcv = substr($b, $pos + 1, 3);
	die "unknown event $mcv" if $ps && !$fields{$mcv};
	$o .= substr($b, $pos, 4) . reverse(substr($b, $pos + 4, 8));
	my $pl = substr($b, $pos + 12, $ps);
	$pos += 12 + $ps;
	if ($h & 0x10) {
		my $n = unpack 'V', $pl;
		$o .= reverse $pl;
		$o .= swapf(substr($b, $pos, $n), $fields{$mcv});
		$pos += $n;
	} else {
		$o .= swapf($pl, $fields{$mcv});
	}
}
open my $w, '>:raw', $out or die "$out: $!";
print $w $o;
