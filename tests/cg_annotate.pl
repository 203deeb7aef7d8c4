# cg_annotate.pl, required by tests/cg_edges.pl and tests/func_room.pl:
# annotate_tree(PATH) runs callgrind_annotate --tree=calling
# --inclusive=yes on a Callgrind file (gzipped or not) and returns its
# program total (the first event) and its tree's lines, each [VALUE,
# MARK, NAME]: MARK '*' for a function, '>' for one of its callees
# below it; VALUE the inclusive cost (the first event); NAME without
# its file ("file:" taken off), with its recursion level ('2) if any.
# Of a file of several events, the first event's column is read (before,
# cg_edges.pl read no line of such a file and compared nothing). Dies
# where it finds no program total.
use strict;
use warnings;

sub annotate_tree {
	my ($path) = @_;
	my $cmd = "callgrind_annotate --tree=calling --inclusive=yes " .
		  "--threshold=100 --auto=no";
	my $in = $path =~ /\.gz$/ ? "gzip -dc '$path' >'$path.tmp' && $cmd '$path.tmp'" :
				    "$cmd '$path'";
	open(my $f, "-|", "$in 2>/dev/null") or die "callgrind_annotate: $!";
	my (@rows, $total);
	# a column per event: "1,234 ( 5.6%)", "0", or "." for none
	my $col = qr/(?:[\d,]+(?: \(\s*[\d.]+%\))?|\.)/;
	while (my $l = <$f>) {
		if (!defined $total && $l =~ /^\s*([\d,]+)\s.*PROGRAM TOTALS/) {
			($total = $1) =~ s/,//g;
			next;
		}
		next unless $l =~ /^\s*($col)(?:\s+$col)*\s+([*>])\s+(.*?)(?: \(\d[\d,]*x\))?(?: \[.*\])?\s*$/;
		my ($v, $mark, $name) = ($1, $2, $3);
		$v = $v eq '.' ? 0 : $v =~ s/[ (].*//r =~ s/,//gr;
		$name =~ s/^[^:]*://;
		push @rows, [$v, $mark, $name];
	}
	close $f;
	unlink "$path.tmp" if $path =~ /\.gz$/;
	# (a line not read as it should be is a judge that judges nothing)
	die "no program total in callgrind_annotate's output of $path\n"
		unless $total;
	return ($total, \@rows);
}

1;
