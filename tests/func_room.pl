#!/usr/bin/perl
# func_room.pl ORIGINAL BASE.pb.gz MORE.pb.gz...: more room never tells
# a worse story (issue 58, item 3). For every function of ORIGINAL on no
# cycle of its call graph with 1% or more of the total inclusively (as
# callgrind_annotate --tree=calling --inclusive=yes shows it; the
# functions ../shared/tools/func_cum.py judges), its distance from that
# share in go tool pprof's cumulative view (-top -cum, the first sample
# type) of BASE (the default bound's conversion) and of each MORE (a
# larger bound's). Prints one line per MORE:
#   FILE further N worst W NAME (BASE's B, here M)
# N counts the functions further from their inclusive share than in
# BASE by more than EPS points (env FUNC_ROOM_EPS, default 0.0005: the
# two decimals of a percent pprof's shares are compared at, and the
# rounding of the values' sums), W the largest of those excesses. Names
# are compared as pprof shows C++ names (no argument or template lists),
# an overloaded short name left out. Exit 0.
use strict;
use warnings;
use FindBin;
require "$FindBin::Bin/cg_annotate.pl";

my ($src, @pb) = @ARGV;
die "usage: func_room.pl ORIGINAL BASE.pb.gz MORE.pb.gz...\n" if @pb < 2;
my $eps = $ENV{FUNC_ROOM_EPS} // 0.0005;
my ($total, $rows) = annotate_tree($src);
my (%incl, %g, $cur);
for my $r (@$rows) {
	my ($v, $mark, $n) = @$r;
	if ($mark eq '*') {
		$cur = $n;
		$incl{$n} = $v if !defined $incl{$n} || $v > $incl{$n};
	} elsif (defined $cur) {
		$g{$cur}{$n} = 1;
	}
}
die "func_room.pl: no total in callgrind_annotate's output of $src\n"
	unless $total;

# the functions on a cycle: Tarjan's algorithm, without recursion
my (%idx, %low, @st, %on, %cyc);
my $c = 0;
my %nodes = map { $_ => 1 } keys %g, map { keys %$_ } values %g;
for my $s0 (sort keys %nodes) {
	next if exists $idx{$s0};
	my @work = ([$s0, [sort keys %{ $g{$s0} // {} }]]);
	$idx{$s0} = $low{$s0} = $c++;
	push @st, $s0;
	$on{$s0} = 1;
	while (@work) {
		my ($v, $it) = @{ $work[-1] };
		my $adv = 0;
		while (@$it) {
			my $w = shift @$it;
			if (!exists $idx{$w}) {
				$idx{$w} = $low{$w} = $c++;
				push @st, $w;
				$on{$w} = 1;
				push @work, [$w, [sort keys %{ $g{$w} // {} }]];
				$adv = 1;
				last;
			}
			$low{$v} = $idx{$w} if $on{$w} && $idx{$w} < $low{$v};
		}
		next if $adv;
		pop @work;
		$low{ $work[-1][0] } = $low{$v}
			if @work && $low{$v} < $low{ $work[-1][0] };
		next unless $low{$v} == $idx{$v};
		my @comp;
		while (1) {
			my $w = pop @st;
			delete $on{$w};
			push @comp, $w;
			last if $w eq $v;
		}
		if (@comp > 1 || $g{$v}{$v}) {
			$cyc{$_} = 1 for @comp;
		}
	}
}

sub norm {
	my $d = 0;
	my $o = '';
	for my $ch (split //, shift) {
		if ($ch eq '(' || $ch eq '<') { $d++; next }
		if ($ch eq ')' || $ch eq '>') { $d-- if $d; next }
		$o .= $ch unless $d;
	}
	return join ' ', split ' ', $o;
}
my %keys;
push @{ $keys{ norm($_) } }, $_ for keys %incl;
my @fns = grep { !$cyc{$_} && 100 * $incl{$_} / $total >= 1 &&
		 @{ $keys{ norm($_) } } == 1 } sort keys %incl;

# each function's distance (points) from its inclusive share in FILE
sub dist {
	my ($pb) = @_;
	open(my $p, "-|", "go tool pprof -top -cum -nodecount=1000000 " .
		 "-nodefraction=0 -edgefraction=0 -sample_index=0 '$pb' " .
		 "2>/dev/null") or die "go tool pprof: $!";
	my (%cum, %cumn);
	while (my $l = <$p>) {
		chomp $l;
		$l =~ s/^\s+//;
		my @x = split /\s+/, $l, 6;
		next unless @x == 6 && $x[4] =~ /%$/ && $x[3] =~ /^[\d.]+$/;
		$cum{ $x[5] } //= $x[3];
		$cumn{ norm($x[5]) } //= $x[3];
	}
	close $p;
	my %d;
	for my $n (@fns) {
		my $o = $cum{$n} // $cumn{ norm($n) } // 0;
		$d{$n} = abs(100 * ($o - $incl{$n}) / $total);
	}
	return \%d;
}
my $base = dist(shift @pb);
for my $pb (@pb) {
	my $d = dist($pb);
	my ($n, $w, $wn) = (0, 0, '-');
	for my $f (@fns) {
		my $x = $d->{$f} - $base->{$f};
		next unless $x > $eps;
		$n++;
		($w, $wn) = ($x, $f) if $x > $w;
	}
	printf "%s further %d worst %.4f %s (%s)\n", $pb, $n, $w, $wn,
		$n ? sprintf("base's %.4f, here %.4f", $base->{$wn}, $d->{$wn}) :
		     scalar(@fns) . " functions";
}
