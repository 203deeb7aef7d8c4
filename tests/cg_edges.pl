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

sub edges {
	my ($path) = @_;
	my $cmd = "callgrind_annotate --tree=calling --inclusive=yes " .
		  "--threshold=100 --auto=no";
	my $in = $path =~ /\.gz$/ ? "gzip -dc '$path' >'$path.tmp' && $cmd '$path.tmp'" :
				    "$cmd '$path'";
	open(my $f, "-|", "$in 2>/dev/null") or die "callgrind_annotate: $!";
	my (%e, $caller, $total);
	while (my $l = <$f>) {
		if (!defined $total && $l =~ /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?PROGRAM TOTALS/) {
			($total = $1) =~ s/,//g;
			next;
		}
		next unless $l =~ /^\s*([\d,]+) \(\s*[\d.]+%\)\s+([*>])\s+(.*?)(?: \(\d[\d,]*x\))?(?: \[.*\])?\s*$/;
		my ($v, $kind, $name) = ($1, $2, $3);
		$v =~ s/,//g;
		$name =~ s/^[^:]*://;
		$name =~ s/'\d+$//;
		if ($kind eq '*') {
			$caller = $name;
		} elsif (defined $caller && $caller ne $name) {
			$e{"$caller>$name"} += $v;
		}
	}
	close $f;
	unlink "$path.tmp" if $path =~ /\.gz$/;
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
