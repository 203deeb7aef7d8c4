#!/usr/bin/perl
# prerelease.pl FINAL.d OUT.d: rewrites a v4 database of the final
# 4.0 layout (one profconv writes) into the pre-release 4.0 layout that
# hpcprof wrote in early 2022 (hpcviewer's quicksilver, loop-inline and
# multithread test databases; read by hpcviewer.e4 at f254cf6e, see
# doc/formats.md):
#  - meta.db's Metrics section: 24-byte metrics {pName, nScopes u16 @8,
#    pScopes @0x10}, 24-byte scopes {pName, nSummaries u16 @8,
#    propMetricId u16 @0xa, pSummaries @0x10}, 16-byte summaries
#    {pFormula, combine u8 @8, statMetric u16 @0xa}; the scopes listed
#    are point, function and execution (that hpcprof had no lex_aware);
#  - meta.db's Context section: {szRoot, pRoot}, no entry points (the
#    main entry's children are the root's), context records without the
#    propagation word (flex words at 0x18);
#  - profile.db's profile infos of 0x28 bytes (no flags): the summary is
#    the profile without an id tuple.
# The new sections are appended before each file's footer; what they
# replace stays as unused bytes. cct.db is copied.
use strict;
use warnings;

my ($in, $out) = @ARGV;
die "usage: prerelease.pl FINAL.d OUT.d\n" unless $in && $out;
sub slurp { open my $h, '<:raw', $_[0] or die "$_[0]: $!"; local $/; <$h> }
sub put { open my $h, '>:raw', $_[0] or die "$_[0]: $!"; print $h $_[1]; close $h }
sub u64 { unpack 'Q<', substr($_[0], $_[1], 8) }
sub u32 { unpack 'L<', substr($_[0], $_[1], 4) }
sub u16 { unpack 'S<', substr($_[0], $_[1], 2) }
sub u8 { unpack 'C', substr($_[0], $_[1], 1) }
sub cstr { my ($b, $o) = @_; my $e = index($b, "\0", $o); substr($b, $o, $e - $o) }

mkdir $out;
# ---- meta.db ----
my $m = slurp("$in/meta.db");
my $footer = substr($m, -8, 8, '');
my $sec = sub { (u64($m, 0x10 + 16 * $_[0]), u64($m, 0x18 + 16 * $_[0])) };
my $align = sub { $m .= "\0" x ((8 - length($m) % 8) % 8) };
my $set = sub { my ($i, $p) = @_; substr($m, 0x10 + 16 * $i, 16) = pack 'Q<Q<', length($m) - $p, $p };

# Metrics
my (undef, $ms) = $sec->(2);
my ($pm, $nm, $szm) = (u64($m, $ms), u32($m, $ms + 8), u8($m, $ms + 0xc));
my $szi = u8($m, $ms + 0xd);
$align->();
my $start = length $m;
my $hdr = $start;
$m .= pack('Q<L<CCCC', 0, $nm, 0x18, 0x18, 0x10, 0);
my $tab = length $m;
my $dollars = index($m, "\$\$\0"); # the formula "$$", a string of the file
$m .= "\0" x (0x18 * $nm);
for my $i (0 .. $nm - 1) {
	my $e = $pm + $i * $szm;
	my ($pname, $pinst, $ninst) = (u64($m, $e), u64($m, $e + 8), u16($m, $e + 0x18));
	my @sc;
	for my $k (0 .. $ninst - 1) {
		my $x = $pinst + $k * $szi;
		my $scope = u64($m, $x);
		my $name = cstr($m, u64($m, $scope));
		next if $name eq 'lex_aware';
		push @sc, [u64($m, $scope), u16($m, $x + 8)];
	}
	$align->();
	my $psc = length $m;
	$m .= "\0" x (0x18 * @sc);
	for my $k (0 .. $#sc) {
		$align->();
		my $psum = length $m;
		$m .= pack('Q<CxS<L<', $dollars, 0, $sc[$k][1], 0);
		substr($m, $psc + 0x18 * $k, 0x18) = pack('Q<S<S<L<Q<', $sc[$k][0], 1, $sc[$k][1], 0, $psum);
	}
	substr($m, $tab + 0x18 * $i, 0x18) = pack('Q<S<x6Q<', $pname, scalar @sc, $psc);
}
substr($m, $hdr, 8) = pack 'Q<', $tab;
$set->(2, $start);

# Context tree: the main entry's children are the root's
my (undef, $cs) = $sec->(3);
my ($pe, $ne, $sze) = (u64($m, $cs), u16($m, $cs + 8), u8($m, $cs + 0xa));
my ($root_p, $root_sz) = (0, 0);
for my $i (0 .. $ne - 1) {
	my $e = $pe + $i * $sze;
	($root_sz, $root_p) = (u64($m, $e), u64($m, $e + 8)) if u16($m, $e + 0x14) == 1;
}
# converts a children array; returns its new (pointer, size)
sub array {
	my ($p, $sz) = @_;
	return (0, 0) unless $sz;
	my @recs;
	for (my $x = $p; $x < $p + $sz;) {
		my $nflex = u8($m, $x + 0x17);
		my ($cp, $csz) = array(u64($m, $x + 8), u64($m, $x));
		push @recs, pack('Q<Q<', $csz, $cp) . substr($m, $x + 0x10, 8)
			. substr($m, $x + 0x20, 8 * $nflex);
		$x += 0x20 + 8 * $nflex;
	}
	$align->();
	my $at = length $m;
	$m .= join '', @recs;
	return ($at, length($m) - $at);
}
$align->();
$start = length $m;
$m .= "\0" x 16; # {szRoot, pRoot}, then the records
my ($np, $nsz) = array($root_p, $root_sz);
substr($m, $start, 16) = pack 'Q<Q<', $nsz, $np;
$set->(3, $start);
put("$out/meta.db", $m . $footer);

# ---- profile.db ----
my $b = slurp("$in/profile.db");
my $pfooter = substr($b, -8, 8, '');
my $ps = u64($b, 0x18);
my ($pp, $np2, $szp) = (u64($b, $ps), u32($b, $ps + 8), u8($b, $ps + 0xc));
$b .= "\0" x ((8 - length($b) % 8) % 8);
my $new = length $b;
for my $i (0 .. $np2 - 1) {
	my $e = $pp + $i * $szp;
	my $summary = u32($b, $e + 0x28) & 1;
	$b .= substr($b, $e, 0x20) . pack('Q<', $summary ? 0 : u64($b, $e + 0x20));
}
substr($b, $ps, 8) = pack 'Q<', $new;
substr($b, $ps + 0xc, 1) = pack 'C', 0x28;
substr($b, 0x10, 8) = pack 'Q<', length($b) - $ps;
put("$out/profile.db", $b . $pfooter);

# ---- cct.db, as it is ----
put("$out/cct.db", slurp("$in/cct.db"));
