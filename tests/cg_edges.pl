#!/usr/bin/perl
# cg_edges.pl ORIGINAL CONVERTED: the call edges of two Callgrind files
# as callgrind_annotate --tree=calling --inclusive=yes shows them (the
# first event; recursion levels f'2 folded into f, each edge summed over
# its call sites), compared. Prints one line:
#   total T over N invented P% summed S% new NEW M% worst CALLER>CALLEE:C%/O%
# N counts the edges the converted file gives more than 1% of the total
# above the original's; P is the sum of those excesses (over every edge)
# as a share of the total. A frame named '[summed: ...]' (what profconv
# cut, issue 58) is not a call: what goes into such frames is S, the
# share of the total in such frames (a summed frame below a heavy
# function's frame in another counts again), and their own edges are not
# compared. NEW counts the edges outside summed frames that the original
# has not at all (a frame below a caller it does not call), M their
# share of the total. Exit 0.
use strict;
use warnings;
use FindBin;

require "$FindBin::Bin/cg_annotate.pl";

sub edges {
	my ($total, $rows) = annotate_tree($_[0]);
	my (%e, $caller);
	for my $r (@$rows) {
		my ($v, $kind, $name) = @$r;
		$name =~ s/'\d+$//;
		if ($kind eq '*') {
			$caller = $name;
		} elsif (defined $caller && $caller ne $name) {
			$e{"$caller>$name"} += $v;
		}
	}
	return (\%e, $total || 1);
}

my ($a, $ta) = edges($ARGV[0]);
my ($b) = edges($ARGV[1]);
my ($over, $inv, $worst, $wd, $sum, $new, $newm) = (0, 0, "none", 0, 0, 0, 0);
for my $k (sort keys %$b) {
	if ($k =~ /^\[summed: / || $k =~ />\[summed: /) {
		$sum += $b->{$k} if $k =~ />\[summed: /;
		next;
	}
	my $d = $b->{$k} - ($a->{$k} // 0);
	if (!exists $a->{$k} && $b->{$k} > 0) {
		$new++;
		$newm += $b->{$k};
	}
	next if $d <= 0;
	$inv += $d;
	$over++ if $d > 0.01 * $ta;
	if ($d > $wd) {
		$wd = $d;
		$worst = sprintf "%s:%.2f%%/%.3f%%", $k, 100 * $b->{$k} / $ta,
			100 * ($a->{$k} // 0) / $ta;
	}
}
printf "total %s over %d invented %.1f%% summed %.1f%% new %d %.3f%% worst %s\n",
	$ta, $over, 100 * $inv / $ta, 100 * $sum / $ta, $new, 100 * $newm / $ta,
	$worst;
